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
    /// Mesh and torus: the hop it takes from there (port, virtual channel, dimension), once
    /// worked out ahead of putting it in place (`ROUTED` in `hop[3]`), else zeros.
    pub(crate) hop: [u8; 4],
}

/// `Arrival::hop[3]`: the hop is worked out.
const ROUTED: u8 = 1;

const _: () = assert!(std::mem::size_of::<Arrival>() == 32);

/// The arrivals not yet put in place: those of the epoch that ends at `due` (a partition holds
/// one epoch's at a time: a window never crosses an epoch's end, and the arrivals a partition
/// takes in at a window's start are put in place before anything it sends next), and, in case,
/// later ones.
pub(super) struct Arrivals {
    /// Sent here, in the order they were sent: nearly that of [`key`].
    local: Vec<Arrival>,
    /// Taken in from other partitions, in the order they came.
    received: Vec<Arrival>,
    /// The end of their epoch (ps; `u64::MAX` when none are held).
    due: u64,
    /// Arrivals of a later epoch, if any ever came before `due`'s were put in place.
    later: Vec<(u64, Arrival)>,
    /// The arrivals being put in place (kept for its capacity).
    taking: Vec<Arrival>,
    /// Room to sort a run of arrivals ready at one picosecond by channel (at most
    /// [`KEYED_RUN`]).
    keys: Vec<u64>,
    spare: Vec<Arrival>,
}

impl Default for Arrivals {
    fn default() -> Arrivals {
        Arrivals {
            local: Vec::new(),
            received: Vec::new(),
            due: u64::MAX,
            later: Vec::new(),
            taking: Vec::new(),
            keys: Vec::new(),
            spare: Vec::new(),
        }
    }
}

/// The order arrivals are put in place: when they are ready, then the channel they came by
/// (unique: a channel sends at most one packet per picosecond).
#[inline]
fn key(a: &Arrival) -> u128 {
    (a.ready as u128) << 32 | a.from as u128
}

/// Whether `a` is put in place before `b` (the order of [`key`], compared field by field).
#[inline]
fn before(a: &Arrival, b: &Arrival) -> bool {
    (a.ready, a.from) < (b.ready, b.from)
}

/// Sorts arrivals sent by one partition into the order of [`key`]. They come in the order of
/// `ready` nearly always (sends are made in time order, and most hops take the same time), the
/// packets sent at one picosecond in the order their senders happened to run: so one pass
/// walks the runs of one `ready`, counting where `from` goes down, and sorts by `from` those
/// that are not in order, and only an epoch whose `ready` goes back somewhere is sorted whole.
/// An epoch that is one run of one `ready` (a collective's step, sent at once) is sorted by
/// the shape the pass saw: a few ascending runs are merged, neighbours out of place are put
/// back by insertion (within a budget of moves), and the rest through keys; the result may
/// be `spare`'s buffer, swapped in rather than copied back.
fn sort_nearly_in_order(v: &mut Vec<Arrival>, keys: &mut Vec<u64>, spare: &mut Vec<Arrival>) {
    let mut i = 0;
    while let Some(first) = v.get(i) {
        let (ready, mut from) = (first.ready, first.from);
        let mut j = i + 1;
        let mut descents = 0u32;
        for a in &v[j..] {
            if a.ready != ready {
                if a.ready < ready {
                    return sort_runs(v, keys, spare);
                }
                break;
            }
            descents += (from > a.from) as u32;
            from = a.from;
            j += 1;
        }
        if descents > 0 {
            if i == 0 && j == v.len() && (17..=KEYED_RUN).contains(&j) {
                // (one run, the whole epoch: sorted with `spare`, which may become the epoch)
                if descents <= MERGED_DESCENTS {
                    return merge_ascending(v, spare, keys);
                }
                // (as many descents as a quarter of the run: arrivals a few places out of
                // their order, as when two sends of each step come in swapped)
                if 4 * descents as usize >= j
                    && crate::perf::sort::insertion_by_key_within(v, |a| a.from, 4 * j)
                {
                    return;
                }
                sort_by_keys(v, keys, spare);
                std::mem::swap(v, spare);
                return;
            }
            sort_run(&mut v[i..j], keys, spare);
        }
        i = j;
    }
}

/// The most places where `from` goes down in an epoch of one `ready` for it to be sorted by
/// merging its ascending runs (at most three passes) rather than through keys.
const MERGED_DESCENTS: u32 = 7;

/// Sorts by `from` arrivals of one `ready` made of a few ascending runs, by merging the runs
/// two by two between `v` and `spare` (`bounds` is room for where the runs start); the result
/// ends in `v` (the two may be swapped).
fn merge_ascending(v: &mut Vec<Arrival>, spare: &mut Vec<Arrival>, bounds: &mut Vec<u64>) {
    merge_runs(v, spare, bounds, |p, q| p.from < q.from);
}

/// Sorts `v` into the order `first` says (`first(x, y)`: `x` goes before `y`; no two equal)
/// by finding its ascending runs and merging them two by two between `v` and `spare`
/// (`bounds` is room for where the runs start); the result ends in `v` (the two may be
/// swapped). O(n log r) for r runs.
fn merge_runs(
    v: &mut Vec<Arrival>,
    spare: &mut Vec<Arrival>,
    bounds: &mut Vec<u64>,
    first: impl Fn(&Arrival, &Arrival) -> bool + Copy,
) {
    run_bounds(v, bounds, first);
    merge_bounded(v, spare, bounds, first);
}

/// Where the ascending runs of `v` in the order `first` says start, into `bounds`, and then
/// `v.len()`: one more entry than the places where the order goes down.
fn run_bounds(v: &[Arrival], bounds: &mut Vec<u64>, first: impl Fn(&Arrival, &Arrival) -> bool) {
    bounds.clear();
    bounds.push(0);
    for (i, w) in v.windows(2).enumerate() {
        if first(&w[1], &w[0]) {
            bounds.push(i as u64 + 1);
        }
    }
    bounds.push(v.len() as u64);
}

/// [`merge_runs`] of runs already found by [`run_bounds`].
fn merge_bounded(
    v: &mut Vec<Arrival>,
    spare: &mut Vec<Arrival>,
    bounds: &mut Vec<u64>,
    first: impl Fn(&Arrival, &Arrival) -> bool + Copy,
) {
    while bounds.len() > 2 {
        spare.clear();
        let mut runs = 0;
        let mut k = 0;
        while k + 1 < bounds.len() {
            let lo = bounds[k] as usize;
            bounds[runs] = lo as u64;
            runs += 1;
            if k + 2 >= bounds.len() {
                spare.extend_from_slice(&v[lo..]);
                break;
            }
            let (mid, hi) = (bounds[k + 1] as usize, bounds[k + 2] as usize);
            merge(&v[lo..mid], &v[mid..hi], spare, first);
            k += 2;
        }
        bounds.truncate(runs);
        bounds.push(v.len() as u64);
        std::mem::swap(v, spare);
    }
}

/// The most places where an epoch's arrivals go down in the order of [`key`] for them to be
/// sorted by merging their ascending runs rather than by a stable sort (arrivals taken in
/// from several partitions: each sender's are nearly in order, and they follow one another).
const MERGED_RUNS: usize = 16;

/// Appends to `out` the merge of `a` and `b`, each in the order `first` says (`first(x, y)`:
/// `x` goes before `y`).
#[inline]
fn merge(
    a: &[Arrival],
    b: &[Arrival],
    out: &mut Vec<Arrival>,
    first: impl Fn(&Arrival, &Arrival) -> bool,
) {
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        let f = first(x, y);
        out.push(if f { *x } else { *y });
        i += f as usize;
        j += !f as usize;
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// At most one arrival from across the cuts for this many of an epoch's own, and each is put
/// in place by [`insert_few`] rather than by [`merge`].
const FEW_RECEIVED: usize = 4;

/// `many` and `few`, each in the order of [`key`] (keys unique), into `out` in that order:
/// each of `few` found its place in `many` by a binary search, and the arrivals of `many`
/// between two places copied at once. O(f log m + m) for f of `few` and m of `many`, where a
/// [`merge`] compares and pushes each of the m + f: the cheaper when f is a small part of m,
/// as the arrivals a partition receives across its cuts are of those it makes itself.
fn insert_few(many: &[Arrival], few: &[Arrival], out: &mut Vec<Arrival>) {
    out.reserve(many.len() + few.len());
    let mut i = 0;
    for r in few {
        let k = i + many[i..].partition_point(|x| before(x, r));
        out.extend_from_slice(&many[i..k]);
        out.push(*r);
        i = k;
    }
    out.extend_from_slice(&many[i..]);
}

/// Sorts an epoch's arrivals whose `ready` goes back somewhere into the order of [`key`]: by
/// merging their ascending runs when there are few, else by [`sort_whole`].
#[cold]
fn sort_runs(v: &mut Vec<Arrival>, keys: &mut Vec<u64>, spare: &mut Vec<Arrival>) {
    if v.len() <= MERGED_EPOCH {
        run_bounds(v, keys, before);
        // (the bounds are the runs' starts and the end: one more than the descents)
        if keys.len() - 2 < MERGED_RUNS {
            return merge_bounded(v, spare, keys, before);
        }
    }
    sort_whole(v);
}

/// Sorts an epoch's arrivals into the order of [`key`], whatever their order.
fn sort_whole(v: &mut [Arrival]) {
    // (keys are unique: a stable sort gives the same order, and merges the few ascending runs
    // the sends of different delays make rather than sorting from scratch; its room, half the
    // arrivals, is bounded)
    if v.len() <= MERGED_EPOCH {
        v.sort_by_key(key);
    } else {
        v.sort_unstable_by_key(key);
    }
}

/// Sorts by `from` a run of arrivals ready at one picosecond.
fn sort_run(run: &mut [Arrival], keys: &mut Vec<u64>, spare: &mut Vec<Arrival>) {
    if run.len() <= 16 {
        crate::perf::sort::insertion_by_key(run, |a| a.from);
    } else if run.len() > KEYED_RUN {
        run.sort_unstable_by_key(|a| a.from);
    } else {
        sort_by_keys(run, keys, spare);
        run.copy_from_slice(spare);
    }
}

/// `run` (at most [`KEYED_RUN`] arrivals of one `ready`) in the order of `from`, into
/// `spare`: the keys alone are sorted, 8 bytes each, and the arrivals moved once.
fn sort_by_keys(run: &[Arrival], keys: &mut Vec<u64>, spare: &mut Vec<Arrival>) {
    keys.clear();
    keys.extend(
        run.iter()
            .enumerate()
            .map(|(i, a)| (a.from as u64) << 32 | i as u64),
    );
    keys.sort_unstable();
    spare.clear();
    spare.extend(keys.iter().map(|&k| run[k as u32 as usize]));
}

/// The most arrivals out of order sorted by merging their ascending runs (room for half of
/// them, 128 KiB, is taken for the merge: below the size the allocator maps on its own, so
/// that no sort maps and unmaps memory while other threads run); more are sorted in place.
const MERGED_EPOCH: usize = 1 << 13;

/// The longest run of arrivals ready at one picosecond sorted through keys (its room, kept
/// for the next, is 40 bytes per arrival: a step of a million ranks that send at once is
/// sorted in place).
const KEYED_RUN: usize = 1 << 12;

/// How far ahead the walk over an epoch's arrivals asks for the packet, works out its hop and
/// asks for the channel it is queued for, and asks for the packet last in that queue (which
/// putting it in place compares it with): each stage reads only what the one before asked for.
const PREFETCH_PACKET: usize = 8;
const PREFETCH_CHANNEL: usize = 4;
const PREFETCH_TAIL: usize = 2;

/// Arrivals the buffer an epoch's arrivals were put in place from keeps room for (1 MiB).
const KEEP_TAKING: usize = 1 << 15;

impl Arrivals {
    /// The end of the earliest epoch with arrivals held (ps; `u64::MAX` when none).
    #[inline]
    pub(super) fn due(&self) -> u64 {
        debug_assert_eq!(
            self.due == u64::MAX,
            self.local.is_empty() && self.received.is_empty()
        );
        self.due
    }

    /// Whether `a`, whose epoch ends at `end`, joins those held (else it waits for them).
    #[inline]
    fn joins(&mut self, end: u64) -> bool {
        if self.due == u64::MAX {
            self.due = end;
            return true;
        }
        end == self.due
    }

    /// Holds `a`, sent here, until its epoch, which ends at `end` (ps).
    #[inline]
    pub(super) fn hold(&mut self, a: Arrival, end: u64) {
        if !self.joins(end) {
            return self.hold_later(a, end);
        }
        self.local.push(a);
    }

    /// Holds `a`, taken in from another partition, until its epoch, which ends at `end` (ps).
    #[inline]
    pub(super) fn hold_received(&mut self, a: Arrival, end: u64) {
        if !self.joins(end) {
            return self.hold_later(a, end);
        }
        self.received.push(a);
    }

    #[cold]
    fn hold_later(&mut self, a: Arrival, end: u64) {
        if end < self.due {
            // (an earlier epoch than those held: they become the later ones)
            for x in self.local.drain(..).chain(self.received.drain(..)) {
                self.later.push((self.due, x));
            }
            self.due = end;
            self.received.push(a);
        } else {
            self.later.push((end, a));
        }
    }

    /// The arrivals due, in the order they are put in place, into `out`; the next epoch's
    /// become those held.
    fn take(&mut self, out: &mut Vec<Arrival>) {
        out.clear();
        sort_nearly_in_order(&mut self.local, &mut self.keys, &mut self.spare);
        sort_nearly_in_order(&mut self.received, &mut self.keys, &mut self.spare);
        // (one side alone, as in one partition or on the far side of a cut a step of a
        // collective crossed at once, is handed over without a copy)
        if self.received.is_empty() {
            std::mem::swap(out, &mut self.local);
        } else if self.local.is_empty() {
            std::mem::swap(out, &mut self.received);
        } else {
            // (keys are unique: at equal `ready` the channels differ)
            if self.received.len() * FEW_RECEIVED <= self.local.len() {
                insert_few(&self.local, &self.received, out);
            } else {
                merge(&self.local, &self.received, out, before);
            }
            self.local.clear();
            self.received.clear();
        }
        self.due = u64::MAX;
        if !self.later.is_empty() {
            let next = self.later.iter().map(|l| l.0).min().expect("not empty");
            let later = std::mem::take(&mut self.later);
            for (end, a) in later {
                if end == next {
                    self.due = next;
                    self.received.push(a);
                } else {
                    self.later.push((end, a));
                }
            }
        }
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
    pub(crate) fn arrivals_due(&self) -> u64 {
        self.arrivals.due()
    }

    /// Puts in place every arrival whose epoch ends at [`Network::arrivals_due`] (see the
    /// module's doc); returns how many.
    pub(crate) fn take_arrivals(&mut self, q: &mut EventQueue<Event>) -> usize {
        with_model!(self.model, M => self.take_arrivals_as::<M>(q))
    }

    /// [`Network::take_arrivals`] for model `M`.
    fn take_arrivals_as<M: RouterModel>(&mut self, q: &mut EventQueue<Event>) -> usize {
        let due = self.arrivals.due();
        if due == u64::MAX {
            return 0;
        }
        let mut taking = std::mem::take(&mut self.arrivals.taking);
        self.arrivals.take(&mut taking);
        let n = taking.len();
        if !self.prefetching {
            // (a network that fits in the caches: nothing to ask for ahead)
            for &a in &taking {
                self.arrive::<M>(a, q);
            }
        } else {
            // (the packets were written an epoch ago: a walk that asks for what it will read a
            // few arrivals ahead waits for memory once per arrival at most, not three times)
            for i in 0..n {
                if let Some(a) = taking.get(i + PREFETCH_PACKET) {
                    prefetch(self.packets.get(a.pkt));
                }
                if let Some(a) = taking.get_mut(i + PREFETCH_CHANNEL) {
                    self.route_ahead::<M>(a);
                }
                if let Some(a) = taking.get(i + PREFETCH_TAIL) {
                    self.prefetch_tail(a);
                }
                self.arrive::<M>(taking[i], q);
            }
        }
        // (kept for its capacity unless it is far above what an epoch usually holds: a step
        // of a collective on a million ranks puts millions in place at once, and the buffer
        // being filled meanwhile would otherwise be a second one of that size)
        if taking.capacity() > KEEP_TAKING {
            taking = Vec::new();
        }
        self.arrivals.taking = taking;
        n
    }

    /// Works out the hop of arrival `a` (mesh and torus: fixed by its routing) and asks for
    /// the lines putting it in place will touch: its input buffer's FIFO, and the channel it
    /// will be queued for.
    #[inline]
    fn route_ahead<M: RouterModel>(&self, a: &mut Arrival) {
        let p = self.packets.get(a.pkt);
        if M::INPUT_FIFOS {
            if let Some(f) = self.inq.get(self.cr(a.from, p.held_vc as u32)) {
                prefetch(f);
                // (behind another packet it is routed when it becomes the first of its
                // buffer, `Network::next_in_buffer`: a hop worked out now would be thrown
                // away; when it is first after all, `arrive` works it out)
                if f.head != NONE {
                    return;
                }
            }
        }
        if self.early {
            let hop = self.fixed_hop(p);
            a.hop = [hop.port, hop.vc, hop.dim, ROUTED];
            if let Some(ch) = self
                .channels
                .get(self.router_channel(p.at, hop.port as u32) as usize)
            {
                prefetch(ch);
            }
        }
    }

    /// Asks for the packet last in the queue arrival `a` will join (worked out by
    /// [`Network::route_ahead`]).
    #[inline]
    fn prefetch_tail(&self, a: &Arrival) {
        if a.hop[3] != ROUTED {
            return;
        }
        let at = self.packets.get(a.pkt).at;
        let c = self.router_channel(at, a.hop[0] as u32);
        if let Some(ch) = self.channels.get(c as usize) {
            let tail = ch.queues[a.hop[1] as usize % MAX_CLASSES].tail;
            if tail != NONE {
                prefetch(self.packets.get(tail));
            }
        }
    }

    /// A packet sent at `now` by router channel `from` towards router `p.at`: put in place at
    /// once when there are no epochs, else held until its epoch ends.
    #[inline]
    pub(super) fn send_on<M: RouterModel>(&mut self, a: Arrival, q: &mut EventQueue<Event>) {
        match self.epoch_shift {
            Some(shift) => self.arrivals.hold(a, epoch_end(a.sent, shift)),
            None => self.arrive::<M>(a, q),
        }
    }

    /// Puts arrival `a` in place at its router: the buffer history, its input buffer, and
    /// (mesh and torus) its output's queue; a fat tree or dragonfly packet is routed by its own
    /// event when its head is ready.
    pub(super) fn arrive<M: RouterModel>(&mut self, a: Arrival, q: &mut EventQueue<Event>) {
        let pkt = a.pkt;
        // (the one field needed on every path: the packet is read whole only where needed)
        let held_vc = self.packets.get(pkt).held_vc;
        if self.history.is_some() {
            let p = *self.packets.get(pkt);
            let slot = self.slot_fed(a.from).unwrap_or(NONE);
            // (its head arrived one pipeline before it was ready: worked out from the arrival,
            // not read from the channel it came by, which may be another partition's)
            let arrive_ps = a.ready - self.router_delay.ps();
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
        let first = if M::INPUT_FIFOS {
            self.in_push(a.from, held_vc as u32, pkt)
        } else {
            Some(0)
        };
        if !self.early {
            q.push(ready, Event::RouterReady(pkt));
            return;
        }
        // (input-queued and not the first of its buffer: routed when it becomes so)
        let Some(emptied) = first else { return };
        let hop = if a.hop[3] == ROUTED {
            Hop {
                port: a.hop[0],
                vc: a.hop[1],
                dim: a.hop[2],
                aux: 0,
            }
        } else {
            self.fixed_hop(self.packets.get(pkt))
        };
        self.packets.get_mut(pkt).asked = Time(a.sent.max(emptied));
        self.arrive_early::<M>(pkt, hop, q);
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
            hop: [0; 4],
        }
    }

    #[test]
    fn arrivals_are_put_in_place_by_ready_then_by_the_channel_they_came_by() {
        let mut h = Arrivals::default();
        let mut want = Vec::new();
        for i in 0..300u64 {
            // nearly in order, with ties, sent here and taken in from elsewhere
            let x = a(1_000 + i / 3 * 10, (i * 37 % 101) as u32);
            if i % 4 == 0 {
                h.hold_received(x, 4096);
            } else {
                h.hold(x, 4096);
            }
            want.push(x);
        }
        want.sort_by_key(key);
        want.dedup_by_key(|x| key(x));
        let mut out = Vec::new();
        h.take(&mut out);
        out.dedup_by_key(|x| key(x));
        assert_eq!(out, want);
        assert_eq!(h.due(), u64::MAX);
    }

    /// Every way an epoch is sorted gives the order of `key`: one `ready` with a few
    /// ascending runs (merged), with neighbours swapped (insertion), with many runs (keys),
    /// short runs of several `ready`s, a run longer than the keyed one, and `ready` going back.
    #[test]
    fn every_shape_of_epoch_comes_out_in_key_order() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(45);
        let n = 512u32;
        let mut shapes: Vec<Vec<Arrival>> = vec![
            // two and seven ascending runs of one ready
            (0..n).map(|i| a(7, (i % 256) * 2 + i / 256)).collect(),
            (0..n).map(|i| a(7, (i % 64) * 8 + i / 64)).collect(),
            // neighbours swapped
            (0..n).map(|i| a(7, i ^ 1)).collect(),
            // groups of sixteen reversed: the insertion's budget runs out, keys finish it
            (0..n).map(|i| a(7, (i / 16) * 16 + 15 - i % 16)).collect(),
            // thirty-two ascending runs (keys)
            (0..n).map(|i| a(7, (i % 16) * 32 + i / 16)).collect(),
            // shuffled
            (0..n).map(|i| a(7, i)).collect(),
            // short runs of several readys, each shuffled
            (0..n).map(|i| a(7 + (i / 5) as u64, i % 5)).collect(),
            // a run longer than the keyed sort takes, reversed
            (0..KEYED_RUN as u32 + 10).rev().map(|i| a(7, i)).collect(),
            // ready goes back
            (0..n).map(|i| a(1_000 - (i / 3) as u64, i % 3)).collect(),
        ];
        let shuffle = |v: &mut Vec<Arrival>, rng: &mut rand_chacha::ChaCha8Rng| {
            for i in (1..v.len()).rev() {
                v.swap(i, rng.next_u32() as usize % (i + 1));
            }
        };
        shuffle(&mut shapes[5], &mut rng);
        for chunk in shapes[6].chunks_mut(5) {
            let mut c = chunk.to_vec();
            shuffle(&mut c, &mut rng);
            chunk.copy_from_slice(&c);
        }
        for (k, mut v) in shapes.into_iter().enumerate() {
            let mut want = v.clone();
            want.sort_by_key(key);
            let (mut keys, mut spare) = (Vec::new(), Vec::new());
            sort_nearly_in_order(&mut v, &mut keys, &mut spare);
            assert_eq!(v, want, "shape {k}");
        }
    }

    /// An epoch's own arrivals and those received across cuts come out as one list in key
    /// order, whether few were received (each put in place by a search) or many (a merge),
    /// received ones first, last, between and at the same `ready` as own ones.
    #[test]
    fn own_and_received_arrivals_come_out_in_key_order() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(46);
        for (own, received) in [(200, 3), (200, 50), (200, 51), (40, 40), (7, 1), (1, 1)] {
            for _ in 0..20 {
                // distinct keys: `from` numbers each arrival, `ready` is shared by a few
                let mut all: Vec<Arrival> = (0..own + received)
                    .map(|i| a(1_000 + (rng.next_u32() % 64) as u64, i))
                    .collect();
                for i in (1..all.len()).rev() {
                    all.swap(i, rng.next_u32() as usize % (i + 1));
                }
                let mut h = Arrivals::default();
                for (i, &x) in all.iter().enumerate() {
                    if (i as u32) < own {
                        h.hold(x, 2048);
                    } else {
                        h.hold_received(x, 2048);
                    }
                }
                let mut out = Vec::new();
                h.take(&mut out);
                all.sort_by_key(key);
                assert_eq!(out, all, "{own} own, {received} received");
            }
        }
    }

    #[test]
    fn an_epoch_ends_at_the_next_multiple_of_its_length() {
        assert_eq!(epoch_end(0, 10), 1024);
        assert_eq!(epoch_end(1023, 10), 1024);
        assert_eq!(epoch_end(1024, 10), 2048);
    }

    #[test]
    fn the_earliest_epoch_held_is_due_and_a_later_one_waits() {
        let mut h = Arrivals::default();
        assert_eq!(h.due(), u64::MAX);
        h.hold(a(5, 1), 2048);
        h.hold_received(a(6, 2), 1024);
        assert_eq!(h.due(), 1024);
        let mut out = Vec::new();
        h.take(&mut out);
        assert_eq!(out, vec![a(6, 2)]);
        assert_eq!(h.due(), 2048);
        h.take(&mut out);
        assert_eq!(out, vec![a(5, 1)]);
    }
}
