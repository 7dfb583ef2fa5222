//! What the network reports: the load of each link, credit in use, and the self-check that no
//! channel is idle while a ready packet could go.

use super::*;

/// What one direction of one link carried in a run, up to its end (for a run stopped early,
/// the stop: a packet still on the link counts whole in `bytes` and `packets`, as its head
/// left, and in `busy` up to the stop only; at flow level a flow still moving counts the
/// packets it has begun, and its busy time up to the stop, `FlowNet::settle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkLoad {
    /// The router (or, for an injection link, the NIC) the link leaves.
    pub from: u32,
    /// Its port there (the first ports of a router lead to its NICs; `None` for a NIC's
    /// injection link).
    pub port: Option<u8>,
    /// Bytes sent (payload and headers) in the packets whose head had left.
    pub bytes: u64,
    /// Time spent sending, up to the run's end (ps).
    pub busy: Time,
    /// Packets whose head had left.
    pub packets: u64,
    /// Time idle with a packet waiting for credit in the next buffer (ps, up to the end).
    pub credit_blocked: Time,
    /// The buffer this link feeds (at its far end): most bytes it held at once, and bytes
    /// held integrated over time (byte·ps; divide by the run's time for the mean).
    pub peak_occupancy: u32,
    /// Bytes held integrated over time (byte·ps; divide by the run's time for the mean).
    pub occupancy_area: u128,
    /// Time in low power, and wake-ups (zero without `[power]`).
    pub low_power: Time,
    /// Times it woke (zero without `[power]`).
    pub wakeups: u64,
    /// Where it leads: a router, or (`to_nic`) a NIC.
    pub to: u32,
    /// Whether `to` is a NIC.
    pub to_nic: bool,
}

impl LinkLoad {
    /// How the summary names this link: "router 3 port 1 -> router 7", "router 3 port 0 ->
    /// NIC 12" or "NIC 12 -> router 3".
    pub(crate) fn name(&self) -> String {
        match (self.port, self.to_nic) {
            (None, _) => format!("NIC {} -> router {}", self.from, self.to),
            (Some(q), true) => format!("router {} port {q} -> NIC {}", self.from, self.to),
            (Some(q), false) => format!("router {} port {q} -> router {}", self.from, self.to),
        }
    }
}

/// Totals of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct NetworkStats {
    /// Channel traversals: one per packet per link crossed, NIC links included.
    pub(crate) packet_hops: u64,
    /// Bytes (payload and headers) summed over every link crossed.
    pub(crate) link_bytes: u64,
    /// Traversals of router-to-router links that wrap around a torus.
    pub(crate) wrap_hops: u64,
    /// Traversals of global links between dragonfly groups.
    pub(crate) global_hops: u64,
    /// Packets a dragonfly's UGAL sent on a Valiant route.
    pub(crate) nonminimal: u64,
}

impl Network {
    /// A channel that was idle at the end of picosecond `t` while the head of one of its
    /// queues was ready and the buffer it goes to had room for it, counting the releases due
    /// by then (see [`crate::Simulation::self_check`]); `None` if there is none. Not checked
    /// with `[power]` (a sleeping link waits on purpose).
    pub(crate) fn stalled(&self, t: Time) -> Option<String> {
        if self.power.is_some() {
            return None;
        }
        let t = t.ps();
        for c in 0..self.channels.len() {
            if !self.owns(c as u32) {
                continue;
            }
            let ch = &self.channels[c];
            let outbuf = self.model.output_buffers() && (c as u32) < self.nr;
            if outbuf {
                if let Some(s) = self.ob_stalled(c as u32, t) {
                    return Some(s);
                }
            }
            if ch.busy && ch.free_at > t {
                continue;
            }
            let scan = self.model.input_fifos() && (c as u32) < self.nr && !outbuf;
            for k in 0..self.classes {
                // the packets of the queue that could go: ready, and (input-queued) their
                // input's crossbar free; with output buffers, the first in the buffer
                let mut pkt = if outbuf {
                    self.ob_head(c as u32, k)
                } else {
                    ch.queues[k as usize].head
                };
                while pkt != NONE {
                    let p = self.packets.get(pkt);
                    let free = !scan || self.xbar[p.from as usize] & !STARVED_ON <= t;
                    if p.ready.ps() <= t && free {
                        break;
                    }
                    pkt = if scan { p.next } else { NONE };
                }
                if pkt == NONE {
                    continue;
                }
                let vcs = if ch.next == NONE {
                    0..1
                } else {
                    self.class_vcs(k)
                };
                for vc in vcs {
                    // (with the releases recorded for it that came due and are not applied)
                    let room = self.credit[self.cr(c as u32, vc)] as u64
                        + self.credit_due(c as u32, vc, t);
                    let wire = self.packets.get(pkt).wire;
                    if room >= wire as u64 {
                        return Some(format!(
                            "channel {c}, virtual channel {vc}, was idle at {} with a ready \
                             packet of {wire} B and {room} B of room downstream",
                            Time(t)
                        ));
                    }
                }
            }
        }
        None
    }

    /// The channels that are links (in the order of [`Network::take_link_loads`]).
    pub(crate) fn link_channels(&self) -> impl Iterator<Item = u32> + '_ {
        let nr = self.routers * self.ports;
        (0..self.channels.len() as u32).filter(move |&c| {
            c >= nr || self.nic_on(c).is_some() || self.link_to[c as usize] != NONE
        })
    }

    /// This partition's links, in channel order, each with its class (0 between routers, 1
    /// injection, 2 ejection, then the topology's own, `Topo::link_classes`), the bytes it
    /// has sent and its time spent sending (ps) so far (`traffic/`: a window's link loads).
    pub(crate) fn own_link_counters(&self) -> impl Iterator<Item = (u8, u64, u64)> + '_ {
        self.link_channels().filter(|&c| self.owns(c)).map(|c| {
            let ch = &self.channels[c as usize];
            ((ch.flags >> CLASS_SHIFT) & CLASS_MASK, ch.bytes, ch.busy_ps)
        })
    }

    /// What every link that exists carried until `now`, the run's end (the stop's time for a
    /// run stopped early: the network was settled there, `settle_all`, and a spell of credit
    /// blocking or bytes held in a buffer count up to it): router channels first (router by
    /// router, port by port), then the NICs' injection links. Reads every partition's
    /// channels, so only once the run is over; a link another partition's end state gave is
    /// read from the counters kept (`Network::unpack_end`), which are let go as their rows
    /// are made: at the root of an MPI run the list of them and the table are never both
    /// whole (the list is given back a slice at a time).
    pub(crate) fn take_link_loads(&mut self, now: Time) -> Vec<LinkLoad> {
        let mut ends = std::mem::take(&mut self.ends);
        // (the last is the next one due: popped in channel order)
        ends.sort_unstable_by_key(|e| std::cmp::Reverse(e.c));
        let mut loads = Vec::with_capacity(self.link_channels().count());
        for c in self.link_channels() {
            let e = match ends.last() {
                Some(e) if e.c == c => ends.pop(),
                _ => None,
            };
            loads.push(self.link_load(c, e, now));
            if e.is_some() && ends.len() % (1 << 16) == 0 {
                ends.shrink_to_fit();
            }
        }
        loads
    }

    /// Link channel `c`'s row at `now`, read from its channel (it must be a link:
    /// [`Network::link_channels`]).
    pub(crate) fn link_row(&self, c: u32, now: Time) -> LinkLoad {
        self.link_load(c, None, now)
    }

    /// Link channel `c`'s row: from `end`, counters read from another partition's end state,
    /// else from the channel.
    fn link_load(&self, c: u32, end: Option<super::shares::LinkEnd>, now: Time) -> LinkLoad {
        let nr = self.routers * self.ports;
        let e = end.unwrap_or_else(|| super::shares::LinkEnd::of(c, &self.channels[c as usize]));
        let (from, port) = if c < nr {
            (c / self.ports, Some((c % self.ports) as u8))
        } else {
            (c - nr, None)
        };
        let (to, to_nic) = if c >= nr {
            (self.nic_slot(c - nr) / self.ports, false)
        } else if let Some(nic) = self.nic_on(c) {
            (nic, true)
        } else {
            (self.link_to[c as usize] / self.ports, false)
        };
        LinkLoad {
            from,
            port,
            bytes: e.bytes,
            busy: Time(e.busy_ps),
            packets: e.packets as u64,
            // (a spell still open at `now` counts up to it)
            credit_blocked: Time(
                (e.blocked_ps + if e.blocked { now.ps() as i64 } else { 0 }) as u64,
            ),
            peak_occupancy: e.occ_peak,
            low_power: Time(
                self.power
                    .as_ref()
                    .map_or(0, |p| p.links[c as usize].low_ps),
            ),
            wakeups: self
                .power
                .as_ref()
                .map_or(0, |p| p.links[c as usize].wakeups),
            occupancy_area: (e.occ as i128 * now.ps() as i128 - e.occ_moment) as u128,
            to,
            to_nic,
        }
    }

    /// Total buffer credit currently missing (bytes held by packets in buffers); zero when the
    /// network is empty. Reads every partition's credit: only when none runs.
    #[cfg(test)]
    pub(crate) fn credit_in_use(&self) -> u64 {
        // SAFETY: called when no partition runs (tests)
        unsafe { self.credit.all() }
            .iter()
            .map(|&c| (self.capacity - c) as u64)
            .sum()
    }
}
