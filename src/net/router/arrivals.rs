//! Arrivals from router to router, put in place by epoch (see "Each router acts on its own
//! state" in the router's doc).
//!
//! A packet sent from one router to the next at `t` is ready there at `t + cable +
//! router_delay`; nothing at the next router can use it before. So the send does not touch the
//! next router: it records an [`Arrival`], and every arrival sent in one epoch (a span of
//! `2^epoch_shift` ps, no longer than that delay) is put in place when the epoch ends, before
//! anything at or after that moment happens: into its input buffer, and routed and queued at
//! its output as if at its own time (its place in the queue is its key's: `ready`, or for an
//! input-queued router when it asked, `max(sent, when its input buffer was last left empty)`).
//! The arrivals of one epoch are put in place in the order of `(ready, from)`, which depends on
//! the model only, not on which router or partition sent first.
//!
//! Invariant: every held arrival's epoch ends at or after [`Arrivals::due`]; the ones that
//! end at `due` are put in place before any event at or after `due`. Costs: a send appends one
//! 32-byte entry; an epoch's end sorts what it holds (O(n) when it is in order, as it nearly is)
//! and walks it once, prefetching a few arrivals ahead.

use super::*;

/// One packet on its way from a router to the next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    /// When its head is ready at the next router (ps).
    pub(crate) ready: u64,
    /// When the previous router started sending it (ps).
    pub(crate) sent: u64,
    /// The packet.
    pub(crate) pkt: PktId,
    /// The channel it came by: the one that feeds the buffer it enters.
    pub(crate) from: u32,
    /// Bytes held in that buffer once its space was taken, this packet included (for the
    /// buffer history).
    pub(crate) held: u32,
}

/// The arrivals not yet put in place.
#[derive(Default)]
pub(super) struct Arrivals {
    held: Vec<Arrival>,
    /// The end of the earliest epoch among `held` (ps; `u64::MAX` when there is none), and of
    /// the latest.
    due: u64,
    last: u64,
    /// The arrivals being put in place (kept for its capacity).
    taking: Vec<Arrival>,
}

/// How far ahead the walk over an epoch's arrivals asks for the packet, and for the channel
/// the packet is routed to.
const PREFETCH_PACKET: usize = 8;
const PREFETCH_CHANNEL: usize = 4;

impl Arrivals {
    /// The end of the earliest epoch with arrivals held (ps; `u64::MAX` when none).
    #[inline]
    pub(super) fn due(&self) -> u64 {
        if self.held.is_empty() {
            u64::MAX
        } else {
            self.due
        }
    }

    /// Holds `a` until its epoch, which ends at `end` (ps).
    #[inline]
    pub(super) fn hold(&mut self, a: Arrival, end: u64) {
        if self.held.is_empty() || end < self.due {
            self.due = end;
        }
        self.last = self.last.max(end);
        self.held.push(a);
    }
}

/// The end of the epoch (of `2^shift` ps) that time `t` (ps) is in.
#[inline]
pub(super) fn epoch_end(t: u64, shift: u32) -> u64 {
    ((t >> shift) + 1) << shift
}

impl Network {
    /// The end of the earliest epoch whose arrivals are still to be put in place (ps;
    /// `u64::MAX` when there are none): [`Network::take_arrivals`] must run before any event
    /// at or after it.
    #[inline]
    pub fn arrivals_due(&self) -> u64 {
        self.arrivals.due()
    }

    /// Puts in place every arrival whose epoch ends at [`Network::arrivals_due`] (see the
    /// module's doc); returns how many.
    pub fn take_arrivals(&mut self, q: &mut EventQueue<Event>) -> usize {
        let due = self.arrivals.due();
        if due == u64::MAX {
            return 0;
        }
        let shift = self.epoch_shift.unwrap_or(0);
        let mut taking = std::mem::take(&mut self.arrivals.taking);
        taking.clear();
        // (the epoch's arrivals out of `held`; later ones stay)
        if self.arrivals.last <= due {
            std::mem::swap(&mut taking, &mut self.arrivals.held);
            self.arrivals.last = 0;
        } else {
            let mut later = u64::MAX;
            self.arrivals.held.retain(|a| {
                if epoch_end(a.sent, shift) <= due {
                    taking.push(*a);
                    false
                } else {
                    later = later.min(epoch_end(a.sent, shift));
                    true
                }
            });
            self.arrivals.due = later;
        }
        sort_arrivals(&mut taking);
        let n = taking.len();
        if self.prefetching {
            for i in 0..n {
                if let Some(a) = taking.get(i + PREFETCH_PACKET) {
                    prefetch(self.packets.get(a.pkt));
                }
                if let Some(a) = taking.get(i + PREFETCH_CHANNEL) {
                    self.prefetch_arrival(a);
                }
                self.arrive(taking[i], q);
            }
        } else {
            for &a in &taking {
                self.arrive(a, q);
            }
        }
        self.arrivals.taking = taking;
        n
    }

    /// Asks for the cache lines putting arrival `a` in place will write: its input buffer's
    /// FIFO, and (mesh and torus) the channel it is queued for.
    #[inline]
    fn prefetch_arrival(&self, a: &Arrival) {
        let p = self.packets.get(a.pkt);
        if self.iq {
            if let Some(f) = self.inq.get(self.cr(a.from, p.held_vc as u32)) {
                prefetch(f);
            }
        }
        if let (Topo::Cube(cube), true) = (&self.topo, self.early) {
            let hop = cube_hop(cube, self.tpr, p.at, p.dst, p.vc, p.dim);
            self.prefetch_channel(self.router_channel(p.at, hop.port as u32));
        }
    }

    /// A packet sent at `now` by router channel `from` towards router `p.at`: put in place at
    /// once when there are no epochs, else held until its epoch ends.
    #[inline]
    pub(super) fn send_on(&mut self, a: Arrival, q: &mut EventQueue<Event>) {
        match self.epoch_shift {
            Some(shift) => self.arrivals.hold(a, epoch_end(a.sent, shift)),
            None => self.arrive(a, q),
        }
    }

    /// Puts arrival `a` in place at its router: the buffer history, its input buffer, and
    /// (mesh and torus) its output's queue; a fat tree or dragonfly packet is routed by its own
    /// event when its head is ready.
    pub(super) fn arrive(&mut self, a: Arrival, q: &mut EventQueue<Event>) {
        let pkt = a.pkt;
        let p = *self.packets.get(pkt);
        if self.history.is_some() {
            let slot = self.slot_fed(a.from).unwrap_or(NONE);
            let arrive_ps = a.sent + self.class_cable[self.class_of(a.from)].ps();
            let h = self.history.as_deref_mut().expect("checked");
            if h.watches(p.at) {
                h.arrive(
                    pkt,
                    Stay {
                        router: p.at,
                        in_port: (slot % self.ports) as u8,
                        vc: p.held_vc,
                        src: p.src,
                        dst: p.dst,
                        bytes: p.wire,
                        arrive_ps,
                        occupancy: a.held,
                        depart_ps: None,
                        out_port: None,
                        freed_ps: None,
                    },
                );
            }
        }
        let ready = Time(a.ready);
        let first = if self.iq {
            self.in_push(a.from, p.held_vc as u32, pkt)
        } else {
            Some(0)
        };
        match (&self.topo, self.early) {
            (Topo::Cube(cube), true) => {
                // (input-queued and not the first of its buffer: routed when it becomes so)
                let Some(emptied) = first else { return };
                let hop = cube_hop(cube, self.tpr, p.at, p.dst, p.vc, p.dim);
                self.packets.get_mut(pkt).asked = Time(a.sent.max(emptied));
                self.arrive_early(pkt, hop, q);
            }
            _ => q.push(ready, Event::RouterReady(pkt)),
        }
    }
}

/// Sorts an epoch's arrivals by `(ready, from)` (unique: a channel sends at most one packet per
/// picosecond). They come nearly in order of `ready` (sends are made in time order, and most
/// hops take the same time), with the packets sent at one picosecond in the order their
/// senders happened to run: so each run of one `ready` is put in order by `from` alone when
/// that is all it takes, in one pass.
fn sort_arrivals(v: &mut [Arrival]) {
    if !v.windows(2).all(|w| w[0].ready <= w[1].ready) {
        v.sort_unstable_by_key(|a| (a.ready, a.from));
        return;
    }
    let mut i = 0;
    while i < v.len() {
        let mut j = i + 1;
        while j < v.len() && v[j].ready == v[i].ready {
            j += 1;
        }
        if j - i > 1 {
            let run = &mut v[i..j];
            if run.len() <= 16 {
                for x in 1..run.len() {
                    let a = run[x];
                    let mut y = x;
                    while y > 0 && run[y - 1].from > a.from {
                        run[y] = run[y - 1];
                        y -= 1;
                    }
                    run[y] = a;
                }
            } else {
                run.sort_unstable_by_key(|a| a.from);
            }
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(ready: u64, from: u32) -> Arrival {
        Arrival {
            ready,
            sent: 0,
            pkt: 0,
            from,
            held: 0,
        }
    }

    #[test]
    fn arrivals_sort_by_ready_then_by_the_channel_they_came_by() {
        for n in [5usize, 40, 300] {
            let mut v: Vec<Arrival> = (0..n)
                .map(|i| a(1_000 - (i as u64 % 7) * 10, (i * 37 % 101) as u32))
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|x| (x.ready, x.from));
            want.dedup();
            v.dedup();
            sort_arrivals(&mut v);
            let mut sorted = v.clone();
            sorted.sort_by_key(|x| (x.ready, x.from));
            assert_eq!(v, sorted, "{n} arrivals");
        }
    }

    #[test]
    fn an_epoch_ends_at_the_next_multiple_of_its_length() {
        assert_eq!(epoch_end(0, 10), 1024);
        assert_eq!(epoch_end(1023, 10), 1024);
        assert_eq!(epoch_end(1024, 10), 2048);
    }

    #[test]
    fn the_earliest_epoch_held_is_due() {
        let mut h = Arrivals::default();
        assert_eq!(h.due(), u64::MAX);
        h.hold(a(5, 1), 2048);
        h.hold(a(6, 2), 1024);
        assert_eq!((h.due(), h.last), (1024, 2048));
    }
}
