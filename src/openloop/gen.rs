//! The generators of synthetic traffic, one per rank and NIC of its node, kept by the partition
//! that owns the NIC; what each partition measures (`stats.rs`).
//!
//! **A NIC takes one packet at a time.** A NIC with generators (its *slot*) stages a packet only
//! when its injection channel holds none (no packet queued, none leaving): the packet's head
//! leaves at once if the router has room, and the source queue stays in the generator, as
//! BookSim's does. The slot then looks again when that packet's tail should have left (its
//! time on the link), or when its next message is created, whichever is later; a channel
//! still busy then (the router had no room, or another job's packet is on it) is looked at
//! again one smallest packet's time later. Each look is an [`Event::Traffic`] naming the slot;
//! a slot has at most one look pending that counts (an earlier one replaces it).
//!
//! **Which generator goes first.** Of the generators of a slot (the ranks of a job sharing a
//! node), the one whose waiting message is the oldest (then the lowest rank): one source queue
//! per NIC, in creation order.
//!
//! Events of the partition's own (a slot's look, the snapshots of the links at a window's ends)
//! are scheduled here and never cross a cut: a slot's NIC is this partition's.

use super::stats::{Stats, Summary};
use crate::event::Event;
use crate::net::Network;
use crate::nic::Nics;
use crate::node::Nodes;
use crate::random::Xoshiro;
use crate::sim::EventQueue;
use crate::traffic::pattern::cut;
use crate::traffic::{Process, Spec};
use crate::units::Time;
use std::sync::Arc;

/// No creation time: the generator has nothing more to make.
const NEVER: u64 = u64::MAX;

/// In an [`Event::Traffic`], the mark of a snapshot of the links (`SNAPSHOT | job << 1 |
/// end`) rather than a slot's look.
const SNAPSHOT: u32 = 1 << 31;

/// Salt of the generators' random streams (the routers' streams use the same seed).
const STREAM: u64 = 0x7472_6166_6669_6300;

/// One rank's source on one NIC of its node.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Gen {
    rng: Xoshiro,
    /// Its traffic job (index into `Traffic::specs`), its rank there and its NIC's index on
    /// the node (the destination's NIC of the same index receives).
    job: u16,
    src: u32,
    rail: u32,
    /// When its next message is created (ps; [`NEVER`]: none).
    next: u64,
    /// Messages made so far (a periodic source's count).
    made: u64,
    /// The mean gap between messages (ps), from the source's rate.
    gap: f64,
    /// Bernoulli: `ln(1 − p)` (0 for p = 1); a periodic source: its phase (ps).
    param: f64,
    /// Bursts: messages left in the current burst, and the span (ps) of the last message at
    /// the source's whole share of its link.
    burst_left: u32,
    span: u64,
    /// Ranks of its job sharing its NIC (each offers its share of the load).
    sharers: u32,
    /// The message being injected: when it was created, its destination NIC, its packets
    /// left and the payload of its last one.
    cur_created: u64,
    cur_dst: u32,
    cur_left: u32,
    cur_last: u32,
}

/// A NIC with generators, and its pending look.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Slot {
    nic: u32,
    /// Its generators: `first .. first + count` of `Traffic::gens`.
    first: u32,
    count: u32,
    /// When its look that counts is due (ps; `u64::MAX`: none).
    wake: u64,
}

/// A traffic job: its spec and who its ranks are.
#[derive(Clone, Debug)]
pub(crate) struct TrafficJob {
    pub(crate) spec: Arc<Spec>,
    /// The job's index in the scenario, its first global rank and its size.
    pub(crate) job: u32,
    pub(crate) base: u32,
    pub(crate) n: u32,
    /// Distinct NICs its ranks use (the offered and accepted loads are over their bandwidth).
    pub(crate) nics: u64,
}

/// One partition's synthetic traffic: its generators, and what it measured.
pub(crate) struct Traffic {
    pub(crate) jobs: Arc<[TrafficJob]>,
    nodes: Arc<Nodes>,
    gens: Vec<Gen>,
    slots: Vec<Slot>,
    /// Per traffic job: what this partition measured.
    pub(crate) stats: Vec<Stats>,
    /// Per traffic job: the counters of this partition's links at its window's start.
    snaps: Vec<Vec<(u64, u64)>>,
}

impl Traffic {
    /// The traffic of the jobs of `s` that have some, one per partition (`nic_part`: each
    /// NIC's partition); the events that start it are pushed into `queues`. None without a
    /// traffic job.
    pub(crate) fn build(
        s: &crate::config::Scenario,
        nodes: &Arc<Nodes>,
        nic_part: &[u16],
        queues: &mut [&mut EventQueue<Event>],
    ) -> Option<Vec<Traffic>> {
        let mut jobs = Vec::new();
        let k = nodes.nics_per_node;
        for (j, info) in nodes.jobs.iter().enumerate() {
            let Some(spec) = s.jobs[j].workload.traffic.clone() else {
                continue;
            };
            let mut used: Vec<u32> = (info.base..info.base + info.size)
                .map(|r| nodes.rank_node[r as usize])
                .collect();
            used.sort();
            used.dedup();
            jobs.push(TrafficJob {
                spec,
                job: j as u32,
                base: info.base,
                n: info.size,
                nics: used.len() as u64 * k as u64,
            });
        }
        if jobs.is_empty() {
            return None;
        }
        let jobs: Arc<[TrafficJob]> = jobs.into();
        let parts = queues.len();
        let mut out: Vec<Traffic> = (0..parts)
            .map(|_| Traffic {
                jobs: jobs.clone(),
                nodes: nodes.clone(),
                gens: Vec::new(),
                slots: Vec::new(),
                stats: jobs.iter().map(|_| Stats::default()).collect(),
                snaps: vec![Vec::new(); jobs.len()],
            })
            .collect();
        // every generator, by NIC then rank
        let mut all: Vec<(u32, Gen)> = Vec::new();
        for (t, tj) in jobs.iter().enumerate() {
            let mut sharers = std::collections::HashMap::new();
            for r in tj.base..tj.base + tj.n {
                *sharers.entry(nodes.rank_node[r as usize]).or_insert(0u32) += 1;
            }
            for r in tj.base..tj.base + tj.n {
                for rail in 0..k {
                    let nic = nodes.nic(r, rail);
                    let shared = sharers[&nodes.rank_node[r as usize]];
                    let seed = nodes.job(r).seed;
                    let rng =
                        Xoshiro::for_entity(seed, STREAM ^ (r as u64 * k as u64 + rail as u64));
                    all.push((
                        nic,
                        Gen::new(&tj.spec, t as u16, r - tj.base, tj.n, rail, shared, rng),
                    ));
                }
            }
        }
        all.sort_by_key(|(nic, g)| (*nic, g.job, g.src));
        for (nic, g) in all {
            let p = nic_part[nic as usize] as usize;
            let tr = &mut out[p];
            match tr.slots.last_mut() {
                Some(sl) if sl.nic == nic => sl.count += 1,
                _ => tr.slots.push(Slot {
                    nic,
                    first: tr.gens.len() as u32,
                    count: 1,
                    wake: u64::MAX,
                }),
            }
            tr.gens.push(g);
        }
        for (p, tr) in out.iter_mut().enumerate() {
            let q = &mut *queues[p];
            for (t, tj) in jobs.iter().enumerate() {
                let (w0, w1) = tj.spec.window();
                q.push(Time(w0), Event::Traffic(SNAPSHOT | (t as u32) << 1));
                q.push(Time(w1), Event::Traffic(SNAPSHOT | (t as u32) << 1 | 1));
            }
            for s in 0..tr.slots.len() {
                let first = tr.earliest(s, 0);
                if first != NEVER {
                    tr.wake(s, first, q);
                }
            }
        }
        Some(out)
    }

    /// An [`Event::Traffic`] at `now`: a slot's look (true), or a snapshot of the links
    /// (false: one in every partition, so no event of the model).
    pub(crate) fn event(
        &mut self,
        what: u32,
        nics: &mut Nics,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> bool {
        if what & SNAPSHOT != 0 {
            self.snapshot(((what & !SNAPSHOT) >> 1) as usize, what & 1 == 1, net);
            return false;
        }
        let s = what as usize;
        if self.slots[s].wake != now.ps() {
            return true; // (replaced by an earlier look)
        }
        self.slots[s].wake = u64::MAX;
        self.pull(s, nics, net, now, q);
        true
    }

    /// NIC `nic`'s injection channel has sent a packet's tail with another waiting behind it
    /// (a packet of another job's transfer): a slot there looks again.
    #[inline]
    pub(crate) fn freed(&mut self, nic: u32, now: Time, q: &mut EventQueue<Event>) {
        if let Ok(s) = self.slots.binary_search_by_key(&nic, |sl| sl.nic) {
            if self.slots[s].wake > now.ps() {
                self.wake(s, now.ps(), q);
            }
        }
    }

    /// Schedules slot `s`'s look at `at` (ps), unless one is due sooner.
    #[inline]
    fn wake(&mut self, s: usize, at: u64, q: &mut EventQueue<Event>) {
        let sl = &mut self.slots[s];
        if at < sl.wake {
            sl.wake = at;
            q.push(Time(at), Event::Traffic(s as u32));
        }
    }

    /// When slot `s` next has a message to inject, seen at `now` (ps): the oldest waiting
    /// message's creation time over its generators whose traffic has not ended by then
    /// ([`NEVER`]: none).
    #[inline]
    fn earliest(&self, s: usize, now: u64) -> u64 {
        let sl = self.slots[s];
        let mut t = NEVER;
        for g in &self.gens[sl.first as usize..(sl.first + sl.count) as usize] {
            let (due, end) = (g.due(), self.jobs[g.job as usize].spec.end());
            if now < end && due < end {
                t = t.min(due);
            }
        }
        t
    }

    /// Slot `s` looks at `now`: if its NIC's injection channel is empty, the oldest waiting
    /// message of its generators puts its next packet on it.
    fn pull(
        &mut self,
        s: usize,
        nics: &mut Nics,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let t = now.ps();
        let sl = self.slots[s];
        // (the oldest message waiting, of a generator whose traffic has not ended)
        let mut pick: Option<(u64, usize)> = None;
        for i in sl.first as usize..(sl.first + sl.count) as usize {
            let g = &self.gens[i];
            let due = g.due();
            if due <= t
                && t < self.jobs[g.job as usize].spec.end()
                && pick.is_none_or(|p| due < p.0)
            {
                pick = Some((due, i));
            }
        }
        let Some((_, i)) = pick else {
            // (every generator still running waits for its next message)
            let next = self.earliest(s, t);
            if next != NEVER {
                self.wake(s, next, q);
            }
            return;
        };
        let spec = self.jobs[self.gens[i].job as usize].spec.clone();
        if net.staged(sl.nic, now) > 0 {
            // (its channel is not empty yet: look again a smallest packet's time later)
            self.wake(s, t + spec.wire_time(spec.header.max(1)), q);
            return;
        }
        if self.gens[i].cur_left == 0 {
            self.make(i, t);
            if self.gens[i].cur_left == 0 {
                // (a message with no destination: none is sent; look again)
                return self.pull(s, nics, net, now, q);
            }
        }
        let g = &mut self.gens[i];
        g.cur_left -= 1;
        let payload = if g.cur_left == 0 {
            g.cur_last as u64
        } else {
            spec.mtu
        };
        let wire = payload + spec.header;
        let (w0, w1) = spec.window();
        let st = &mut self.stats[g.job as usize];
        if (w0..w1).contains(&t) {
            st.injected_bytes += wire;
        }
        st.injected_all += 1;
        let sent = nics.send_synthetic(
            sl.nic,
            g.cur_dst,
            wire as u32,
            g.job as u8,
            Time(g.cur_created),
            net,
            now,
            q,
        );
        if !sent {
            return; // (no record: the run stops with why)
        }
        let next = self.earliest(s, t);
        if next != NEVER {
            self.wake(s, next.max(t + spec.wire_time(wire)), q);
        }
    }

    /// Generator `i` creates its next message (due by `t`): destination, size, and the
    /// creation time of the one after.
    fn make(&mut self, i: usize, _t: u64) {
        let jobs = self.jobs.clone();
        let g = &mut self.gens[i];
        let tj = &jobs[g.job as usize];
        let spec = &*tj.spec;
        let created = g.next;
        let dst = spec.pattern.dest(g.src, tj.n, spec.to_self, &mut g.rng);
        let payload = spec.sizes.draw(&mut g.rng);
        let (packets, wire) = cut(payload, spec.mtu, spec.header);
        g.advance(spec, wire);
        let Some(d) = dst else {
            return;
        };
        let (w0, w1) = spec.window();
        let st = &mut self.stats[g.job as usize];
        st.made += packets;
        if (w0..w1).contains(&created) {
            st.offered_bytes += wire;
            st.measured += packets;
        }
        g.cur_created = created;
        g.cur_dst = self.nodes.nic(tj.base + d, g.rail);
        g.cur_left = packets as u32;
        g.cur_last = (payload - (packets - 1) * spec.mtu) as u32;
    }

    /// A synthetic packet's tail is in its destination NIC at `now`: it is measured and leaves
    /// the network.
    #[inline]
    pub(crate) fn arrived(
        &mut self,
        pkt: u32,
        nics: &mut Nics,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let p = *net.packets.get(pkt);
        let (created, staged, job) = nics.synthetic_of(p.msg);
        let spec = &self.jobs[job as usize].spec;
        let (w0, w1) = spec.window();
        let t = now.ps();
        let st = &mut self.stats[job as usize];
        st.delivered += 1;
        if (w0..w1).contains(&t) {
            st.accepted_bytes += p.wire as u64;
        }
        if (w0..w1).contains(&created.ps()) {
            let half = (created.ps() - w0) * 2 >= w1 - w0;
            st.record(
                (now - created).ps(),
                (now - staged).ps(),
                p.hops,
                half as usize,
            );
        }
        nics.synthetic_done(pkt, net, now, q);
    }

    /// The links' counters at job `t`'s window's start (`end` false) or end: at the end, what
    /// each link of this partition carried in the window, by class.
    fn snapshot(&mut self, t: usize, end: bool, net: &Network) {
        let now: Vec<(u8, u64, u64)> = net.own_link_counters().collect();
        if !end {
            self.snaps[t] = now.iter().map(|&(_, b, busy)| (b, busy)).collect();
            return;
        }
        let before = std::mem::take(&mut self.snaps[t]);
        let st = &mut self.stats[t];
        for (i, &(class, bytes, busy)) in now.iter().enumerate() {
            let (b0, busy0) = before.get(i).copied().unwrap_or((0, 0));
            st.link(class, bytes - b0, busy - busy0);
        }
    }

    /// Gathers `other`, another partition's traffic of the same run: its measures, and its
    /// generators (for the messages they would have made: [`Traffic::summaries`]).
    pub(crate) fn absorb(&mut self, other: Traffic) {
        for (a, b) in self.stats.iter_mut().zip(other.stats) {
            a.merge(b);
        }
        self.gens.extend(other.gens);
    }

    /// Packs what the end of the run reads of this partition's traffic: its measures and its
    /// generators (`part/pack.rs`; the jobs are the scenario's, the slots the run's own).
    pub(crate) fn pack_end(&self, w: &mut Vec<u8>) {
        crate::packed::put(w, &(&self.stats, &self.gens));
    }

    /// Reads what [`Traffic::pack_end`] packed of the same partition.
    pub(crate) fn unpack_end(&mut self, r: &mut &[u8]) -> Result<(), crate::packed::Error> {
        (self.stats, self.gens) = crate::packed::get(r, "the synthetic traffic")?;
        Ok(())
    }

    /// Empties what [`Traffic::pack_end`] covers (a test's).
    pub(crate) fn wipe_end(&mut self) {
        self.stats.iter_mut().for_each(|s| *s = Stats::default());
        self.gens.clear();
    }

    /// Each traffic job's figures, once every partition is gathered here; `until` is when the
    /// run stopped (ps): the messages the sources would have created in the window before it,
    /// and never got to make, count as offered and unfinished.
    pub(crate) fn summaries(&self, until: u64, net: &Network) -> Vec<Summary> {
        let mut stats = self.stats.clone();
        for g in &self.gens {
            let spec = &self.jobs[g.job as usize].spec;
            let (w0, w1) = spec.window();
            let (bytes, packets) =
                g.clone()
                    .unmade(spec, self.jobs[g.job as usize].n, w0, w1.min(until));
            stats[g.job as usize].offered_bytes += bytes;
            stats[g.job as usize].measured += packets;
        }
        let classes = super::stats::class_names(net);
        self.jobs
            .iter()
            .zip(&stats)
            .map(|(tj, st)| {
                let mut s = Summary::new(tj, st, &classes);
                s.job = self.nodes.jobs[tj.job as usize].name.clone();
                s
            })
            .collect()
    }
}

impl Gen {
    /// Rank `src` of a traffic job of `n` ranks, on NIC `rail` of its node, which `sharers`
    /// of its job's ranks share.
    fn new(
        spec: &Spec,
        job: u16,
        src: u32,
        n: u32,
        rail: u32,
        sharers: u32,
        mut rng: Xoshiro,
    ) -> Gen {
        let share = spec.load * spec.pattern.share(src, n, spec.to_self) / sharers as f64;
        // (bytes per ps this source offers, and the mean gap between its messages)
        let rate = share * spec.nic_rate.0 as f64 / 1e12;
        let gap = if rate > 0.0 {
            spec.mean_wire() / rate
        } else {
            f64::INFINITY
        };
        let mut g = Gen {
            rng,
            job,
            src,
            rail,
            next: NEVER,
            made: 0,
            gap,
            param: 0.0,
            burst_left: 0,
            span: 0,
            sharers,
            cur_created: 0,
            cur_dst: 0,
            cur_left: 0,
            cur_last: 0,
        };
        if !gap.is_finite() {
            return g;
        }
        match spec.process {
            Process::Bernoulli { cycle } => {
                let p = (cycle as f64 / gap).min(1.0);
                g.param = if p >= 1.0 { 0.0 } else { (1.0 - p).ln() };
                // (the first cycle with a message, counting from cycle 0)
                g.next = (g.cycles(&mut rng) - 1) * cycle;
            }
            Process::Periodic => {
                g.param = (rng.next_f64() * gap).floor();
                g.next = g.param as u64;
            }
            Process::Exponential | Process::Burst { .. } => {
                g.next = 0;
                g.advance_gap(&mut rng, spec, 0);
            }
        }
        g.rng = rng;
        g
    }

    /// When its oldest waiting message was created (its message being injected, else its
    /// next one).
    #[inline]
    fn due(&self) -> u64 {
        if self.cur_left > 0 {
            self.cur_created
        } else {
            self.next
        }
    }

    /// Cycles to the next message of a Bernoulli source (at least 1).
    #[inline]
    fn cycles(&self, rng: &mut Xoshiro) -> u64 {
        if self.param == 0.0 {
            return 1;
        }
        // U in (0, 1]: floor(ln U / ln(1 − p)) failures before a success
        let u = 1.0 - rng.next_f64();
        1 + (u.ln() / self.param).floor().min(1e15) as u64
    }

    /// Moves `next` on past a message of `wire` bytes just made.
    #[inline]
    fn advance(&mut self, spec: &Spec, wire: u64) {
        self.made += 1;
        let mut rng = self.rng;
        match spec.process {
            Process::Bernoulli { cycle } => {
                self.next = self
                    .next
                    .saturating_add(self.cycles(&mut rng).saturating_mul(cycle));
            }
            Process::Periodic => {
                self.next = (self.param + self.made as f64 * self.gap).round() as u64;
            }
            Process::Exponential | Process::Burst { .. } => {
                let span = spec.wire_time(wire).saturating_mul(self.sharers as u64);
                self.advance_gap(&mut rng, spec, span);
            }
        }
        self.rng = rng;
    }

    /// Exponential and burst sources: the gap to the next message after one whose span at the
    /// source's whole share of its link is `span` ps (0 before the first).
    fn advance_gap(&mut self, rng: &mut Xoshiro, spec: &Spec, span: u64) {
        let exp = |rng: &mut Xoshiro, mean: f64| -> u64 {
            let u = 1.0 - rng.next_f64();
            (-u.ln() * mean).round().min(1e18) as u64
        };
        let gap = match spec.process {
            Process::Burst { mean } => {
                if self.burst_left > 0 {
                    self.burst_left -= 1;
                    span
                } else {
                    // a burst of a geometric count of messages (mean `mean`), after a silence
                    // that makes the mean rate the source's: the burst's mean span over
                    // load, less that span
                    let stop = 1.0 / mean;
                    self.burst_left = if stop >= 1.0 {
                        0
                    } else {
                        let u = 1.0 - rng.next_f64();
                        (u.ln() / (1.0 - stop).ln()).floor().min(1e9) as u32
                    };
                    let tau = spec.wire_time(spec.mean_wire().round() as u64) as f64
                        * self.sharers as f64;
                    let busy = tau / self.gap;
                    let off = mean * tau * (1.0 / busy.min(1.0) - 1.0);
                    span + exp(rng, off)
                }
            }
            _ => exp(rng, self.gap),
        };
        self.span = span;
        self.next = self.next.saturating_add(gap);
    }

    /// The messages it would have created in `[w0, w1)` and never made: their bytes on the
    /// wire and packets (a stream drawn on a copy: the run is over).
    fn unmade(mut self, spec: &Spec, n: u32, w0: u64, w1: u64) -> (u64, u64) {
        let (mut bytes, mut packets) = (0, 0);
        let end = w1.min(spec.end());
        while self.next < end {
            let created = self.next;
            let dst = spec.pattern.dest(self.src, n, spec.to_self, &mut self.rng);
            let payload = spec.sizes.draw(&mut self.rng);
            let (k, wire) = cut(payload, spec.mtu, spec.header);
            self.advance(spec, wire);
            if dst.is_some() && created >= w0 {
                bytes += wire;
                packets += k;
            }
        }
        (bytes, packets)
    }
}
