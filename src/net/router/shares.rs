//! The network cut into partitions' shares (`view_for`, `split`) and gathered into one again
//! at the end of the run (`absorb`, `become_whole`); which routers a partition owns.

use super::*;

impl Network {
    /// The network as partition `me` of `parts` sees it: the same arrays (each element owned
    /// by one partition, checked in debug builds), its own packets, releases, arrivals,
    /// counters and outbox. The partitions' networks are made once, by [`Network::split`].
    fn view_for(&self, me: u16, fed_owner: &std::sync::Arc<[u16]>) -> Network {
        let vcs = self.vcs as usize;
        let n = self.parts as usize;
        let mut returns = Returns::new(0, false);
        returns.lists = self.returns.lists.clone().owned_by(&self.owner, 1, me);
        Network {
            topo: self.topo.clone(),
            ports: self.ports,
            classes: self.classes,
            vcs: self.vcs,
            vc_lo: self.vc_lo,
            inq: self.inq.clone().owned_by(fed_owner, vcs, me),
            xbar: self.xbar.clone().owned_by(fed_owner, 1, me),
            model: self.model,
            ob: self
                .ob
                .clone()
                .owned_by(&self.owner[..self.ob.len()], 1, me),
            switch_bw: self.switch_bw,
            xmemo: (0, Time::ZERO),
            routers: self.routers,
            nr: self.nr,
            link_to: self.link_to.clone(),
            channels: self.channels.clone().owned_by(&self.owner, 1, me),
            credit: self.credit.clone().owned_by(&self.owner, vcs, me),
            returns,
            arrivals: Arrivals::default(),
            epoch_shift: self.epoch_shift,
            capacity: self.capacity,
            early: self.early,
            packets: PacketPool::default(),
            prefetching: false,
            router_delay: self.router_delay,
            class_bw: self.class_bw,
            class_cable: self.class_cable,
            memo: [(0, Time::ZERO); CLASSES],
            rngs: self.rngs.clone().owned_by(&self.router_owner, 1, me),
            stats: NetworkStats::default(),
            series: None,
            history: None,
            power: self.power.clone(),
            me,
            parts: self.parts,
            owner: self.owner.clone(),
            router_owner: self.router_owner.clone(),
            fed_owner: fed_owner.clone(),
            outbox: vec![Default::default(); n],
            cut_held: Default::default(),
            overflowed: None,
            peak_packets: 0,
            unfilled: false,
            let_go: false,
            seed: self.seed,
            ends: Vec::new(),
        }
    }

    /// This network cut into the partitions `parts` describes: one [`Network`] each (see
    /// [`Network::view_for`]), the channels that lead from one partition to another marked
    /// (their packets cross as cut messages, `cut.rs`). A network not yet used.
    ///
    /// A network built with only its own state ([`Network::new`]'s `only_own`) has the share
    /// of the partitions `here` says this process simulates written now, and only that.
    pub(crate) fn split(
        mut self,
        parts: &crate::partition::Partitioning,
        here: impl Fn(u16) -> bool,
    ) -> Vec<Network> {
        if parts.count <= 1 {
            if self.unfilled {
                self.fill(|_| true, |_| true);
            }
            return vec![self];
        }
        let (nr, ports) = (self.nr as usize, self.ports as usize);
        let nchan = self.channels.len();
        let owner: Vec<u16> = (0..nchan)
            .map(|c| {
                if c < nr {
                    parts.router[c / ports]
                } else {
                    parts.nic[c - nr]
                }
            })
            .collect();
        let mut fed = owner.clone();
        for (c, f) in fed.iter_mut().enumerate().take(nr) {
            let next = self.wired(c as u32).0;
            if next != NONE {
                *f = parts.router[next as usize];
            }
        }
        let only_own = self.unfilled;
        if only_own {
            self.fill(|c| here(owner[c]), |c| here(fed[c]));
        }
        for c in 0..nr {
            if fed[c] != owner[c] && (!only_own || here(owner[c])) {
                self.channels[c].flags |= CUT;
            }
        }
        self.parts = parts.count as u16;
        self.owner = owner.into();
        self.router_owner = parts.router.clone().into();
        let fed: std::sync::Arc<[u16]> = fed.into();
        self.fed_owner = fed.clone();
        (0..parts.count as u16)
            .map(|me| self.view_for(me, &fed))
            .collect()
    }

    /// Gathers `other`, another partition's network of the same run that is done, into this
    /// one: its totals and records.
    pub(crate) fn absorb(&mut self, other: &mut Network) {
        let (a, b) = (&mut self.stats, &other.stats);
        a.packet_hops += b.packet_hops;
        a.link_bytes += b.link_bytes;
        a.wrap_hops += b.wrap_hops;
        a.global_hops += b.global_hops;
        a.nonminimal += b.nonminimal;
        self.peak_packets += other.packets.peak() as u64 + other.peak_packets;
        // (at the root of an MPI run, what the other processes' partitions packed)
        self.ends.append(&mut other.ends);
        other.ends = Vec::new();
        if let (Some(mine), Some(theirs)) = (self.series.as_deref_mut(), other.series.take()) {
            mine.absorb(*theirs);
        }
        if let (Some(mine), Some(theirs)) = (self.history.as_deref_mut(), other.history.take()) {
            mine.absorb(*theirs);
        }
    }

    /// Link counters read from other partitions' end states (or kept, `keep_own_ends`) and
    /// not yet made into rows.
    pub(crate) fn ends_held(&self) -> usize {
        self.ends.len()
    }

    /// Room for `n` more link counters, asked for once before partitions holding that many
    /// are absorbed ([`Network::absorb`]): the list is then not regrown (and copied) as
    /// each is appended.
    pub(crate) fn reserve_ends(&mut self, n: usize) {
        self.ends.reserve_exact(n);
    }

    /// From now on this network reads every channel (the run is over; debug builds stop
    /// checking who owns what).
    pub(crate) fn become_whole(&mut self) {
        self.channels = self.channels.whole();
        self.credit = self.credit.whole();
        self.inq = self.inq.whole();
        self.xbar = self.xbar.whole();
        self.ob = self.ob.whole();
        self.rngs = self.rngs.whole();
        self.returns.lists = self.returns.lists.whole();
        // (the releases recorded for another partition's channels are in its records, not
        // these: all those due by the run's end were applied by it, `Network::settle_all`;
        // state let go is never read again, and writing it would take its pages back)
        if !self.let_go {
            for c in 0..self.channels.len() {
                if self.owner[c] != self.me {
                    self.returns.forget(c);
                }
            }
        }
        if let Some(p) = self.power.as_deref_mut() {
            p.links = p.links.whole();
        }
        self.me = 0;
        self.owner = vec![0u16; self.channels.len()].into();
    }

    /// This network's partition, and how many there are.
    pub(crate) fn partition(&self) -> (u16, u16) {
        (self.me, self.parts)
    }

    /// Whether channel `c` is this partition's.
    #[inline]
    pub(crate) fn owns(&self, c: u32) -> bool {
        self.owner[c as usize] == self.me
    }
}

/// What the end of the run reads of one link channel `c` (`Network::take_link_loads`): packets,
/// peak occupancy, occupancy now, whether a spell of credit blocking is open, bytes, busy time
/// (ps), time blocked on credit (ps) and the occupancy's moment. What a partition packs of
/// each link it owns (the channel implied by the order), and what another partition's end
/// state is read into, 64 bytes, where writing it into the channel would make this process
/// hold that channel's page (at the root of an MPI run, the whole network's).
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct LinkEnd {
    #[serde(skip)]
    pub(super) c: u32,
    pub(super) packets: u32,
    pub(super) occ_peak: u32,
    pub(super) occ: u32,
    pub(super) blocked: bool,
    pub(super) bytes: u64,
    pub(super) busy_ps: u64,
    pub(super) blocked_ps: i64,
    pub(super) occ_moment: i128,
}

const _: () = assert!(std::mem::size_of::<LinkEnd>() == 64);

impl LinkEnd {
    /// Channel `c`'s (`ch`) end counters.
    pub(super) fn of(c: u32, ch: &Channel) -> LinkEnd {
        LinkEnd {
            c,
            packets: ch.packets,
            occ_peak: ch.occ_peak,
            occ: ch.occ(),
            blocked: ch.blocked,
            bytes: ch.bytes,
            busy_ps: ch.busy_ps,
            blocked_ps: ch.blocked_ps,
            occ_moment: ch.occ_moment,
        }
    }
}

impl Network {
    /// Packs what the end of the run reads of this partition's network (after its `settle`):
    /// its totals, its records (time series, buffer history), and of each link channel it
    /// owns the counters of [`LinkEnd`] and its power (time in low power, wake-ups).
    pub(crate) fn pack_end(&self, w: &mut Vec<u8>) {
        use crate::packed::put;
        put(w, &self.stats);
        put(w, &self.peak_packets());
        put(w, &self.series);
        put(w, &self.history);
        self.pack_links(w);
    }

    /// The link channels' part of [`Network::pack_end`]: how many links it packed.
    pub(crate) fn pack_links(&self, w: &mut Vec<u8>) -> usize {
        use crate::packed::put;
        let mine: Vec<u32> = self.link_channels().filter(|&c| self.owns(c)).collect();
        put(w, &(mine.len() as u64));
        for &c in &mine {
            put(w, &LinkEnd::of(c, &self.channels[c as usize]));
        }
        if let Some(p) = self.power.as_deref() {
            for &c in &mine {
                let l = &p.links[c as usize];
                put(w, &(l.low_ps, l.wakeups));
            }
        }
        mine.len()
    }

    /// Reads what [`Network::pack_end`] packed of the same partition into this one.
    pub(crate) fn unpack_end(&mut self, r: &mut &[u8]) -> Result<(), crate::packed::Error> {
        use crate::packed::{get, Error};
        self.stats = get(r, "the network's totals")?;
        let peak: u64 = get(r, "the most packets held")?;
        // (what this copy's pool held counts too: the sum is the packed figure)
        self.peak_packets = peak.saturating_sub(self.packets.peak() as u64);
        self.series = get(r, "the time series")?;
        self.history = get(r, "the buffer history")?;
        let mine: Vec<u32> = self.link_channels().filter(|&c| self.owns(c)).collect();
        let n: u64 = get(r, "the count of links")?;
        if n != mine.len() as u64 {
            return Err(Error(format!(
                "{n} links packed where this partition owns {}",
                mine.len()
            )));
        }
        self.ends = Vec::with_capacity(mine.len());
        for &c in &mine {
            let e: LinkEnd = get(r, "a link's counters")?;
            self.ends.push(LinkEnd { c, ..e });
        }
        if let Some(p) = self.power.as_deref_mut() {
            for &c in &mine {
                let (low, wakeups): (u64, u64) = get(r, "a link's power")?;
                let l = &mut p.links[c as usize];
                (l.low_ps, l.wakeups) = (low, wakeups);
            }
        }
        Ok(())
    }

    /// At the root of an MPI run, once its own end state is packed and before the other
    /// processes' are read: this partition's link counters go into the list those fill
    /// ([`Network::unpack_end`]), so that the link table reads every link from there and no
    /// channel is read again ([`Network::let_go_state`]; [`Network::become_whole`] then
    /// leaves the per-element state alone).
    pub(crate) fn keep_own_ends(&mut self) {
        self.let_go = true;
        let mine: Vec<u32> = self.link_channels().filter(|&c| self.owns(c)).collect();
        self.ends.reserve(mine.len());
        for c in mine {
            self.ends.push(LinkEnd::of(c, &self.channels[c as usize]));
        }
    }

    /// Gives back the per-element state the run wrote (channels, credit, input FIFOs,
    /// recorded releases, the routers' random numbers): every element reads as zero bytes
    /// again, as in a copy of a partition that never ran, and a process's pages of them go
    /// back to the system (`SharedVec::wipe`). The arrays are shared by the partitions of the
    /// process: once for all of them.
    ///
    /// # Safety
    /// The run is over, every partition of the process keeps its own link counters
    /// ([`Network::keep_own_ends`]), and nothing reads these arrays from here on but as
    /// zero: the end of the run reads a network's stats, series, history, power and link
    /// list only.
    pub(crate) unsafe fn let_go_state(&self) {
        // SAFETY: the caller's promise; no view of these stores is held across this call
        unsafe {
            self.channels.wipe();
            self.credit.wipe();
            self.inq.wipe();
            self.rngs.wipe();
            self.returns.lists.wipe();
        }
    }

    /// Sets what [`Network::pack_end`] covers to what a partition holds as built (a test's).
    pub(crate) fn wipe_end(&mut self) {
        self.ends = Vec::new();
        self.stats = NetworkStats::default();
        self.peak_packets = 0;
        self.series = None;
        self.history = None;
        let mine: Vec<u32> = self.link_channels().filter(|&c| self.owns(c)).collect();
        for &c in &mine {
            let ch = &mut self.channels[c as usize];
            (ch.bytes, ch.busy_ps, ch.packets, ch.blocked_ps) = (0, 0, 0, 0);
            (ch.blocked, ch.occ_peak, ch.occ, ch.occ_moment) = (false, 0, 0, 0);
        }
        if let Some(p) = self.power.as_deref_mut() {
            for &c in &mine {
                let l = &mut p.links[c as usize];
                (l.low_ps, l.wakeups) = (0, 0);
            }
        }
    }
}
