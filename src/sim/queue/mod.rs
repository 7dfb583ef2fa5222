//! The pending-event set of the discrete-event core.
//!
//! Events leave in increasing `(time, seq)` order, where `seq` is the order in which they were
//! scheduled: two events at the same picosecond are taken first-scheduled first. That order is
//! a pure function of the scenario, so every run of it processes the same events in the same
//! order (docs/model.md §1).
//!
//! A timing wheel with an overflow heap. Time is cut into buckets of 2^`shift` ps (512 ps by
//! default, [`SHIFT`]; wider for a queue that serves few NICs, [`bucket_shift_for`]); the next
//! [`SLOTS`] − 1 buckets (about 4.2 µs of 512 ps) are lists in a ring (`slots`), with a two-level
//! bitmap of the non-empty ones; anything later waits in the `overflow` heap. A bucket's list
//! is a chain of [`CHUNK`]-entry chunks from one shared arena (`store`, `chain`, a free list),
//! so scheduling is an append with no allocation, no slot keeps capacity of its own, and a
//! bucket is read a chunk at a time (a list of single entries scattered over a large arena
//! costs a cache miss per event once millions are pending). A chain is in scheduling order, so
//! its entries carry their time but no sequence number: 16 bytes with an 8-byte event, where
//! memory traffic is what a pending event costs. Entering a bucket copies its list into
//! `sorted` (taken from the front, past a read index) and asks for the next bucket's chunks
//! (prefetch). The copy is checked, and sorted (stably, by time) only when it is
//! out of order. Events scheduled into the bucket being processed go to a small keyed heap
//! (`late`), and `pop` takes the earlier of the two heads, `sorted` at a tie (its entries were
//! all scheduled before any in `late`).
//!
//! Invariants: the untaken part of `sorted` and `late` hold exactly the entries of bucket `now`,
//! that part in increasing `(time, seq)` order and scheduled before every entry of `late`;
//! `slots[b % SLOTS]` chains those of bucket `b` for `now < b < now + SLOTS`, in `seq` order;
//! `occupied` marks the non-empty slots and `summary` the non-zero words of `occupied`;
//! `overflow` holds the entries of buckets `>= now + SLOTS`, and they enter the wheel (in key
//! order) before anything is scheduled straight into their bucket. Heap keys are
//! `time × 2⁶⁴ + seq`, unique.
//!
//! Costs: push O(1) (into the current bucket or the overflow: O(log n)); pop O(1) after the
//! bucket's O(k) copy (O(k + inversions) when out of order and short, O(k log k) when long),
//! plus a scan of at most eight bitmap words to the next non-empty bucket. Memory: 12 bytes
//! per slot (96 KiB), and a chunk (256 bytes with 8-byte events) per non-empty slot and per
//! [`CHUNK`] events in it; the arena keeps the most chunks ever in use; `sorted` and `late`
//! keep room for `KEEP` entries once trimmed.

use super::heap::{Entry, KeyHeap};
use crate::perf::prefetch::prefetch;
use crate::units::Time;

/// log2 of the bucket width in picoseconds, by default: 512 ps ([`bucket_shift_for`] picks
/// it by the sources of events a queue serves).
///
/// The width trades the sort of a bucket that is out of order (most are, this wide) against
/// the cost of each bucket entered and of the cache lines scheduling writes to: an event goes
/// to the last chunk of its bucket's chain, and the wider the buckets, the fewer chains are
/// being written at once, and the fewer buckets are entered. The more events per nanosecond,
/// the longer the buckets to sort, so the best width narrows as a queue's share of the network
/// grows; 512 ps was the best measured on the congested Bruck at 8K and 64K nodes in one queue
/// (the figures: `docs/performance.md`).
///
/// Outputs are the same for any width: the order is exact.
pub(crate) const SHIFT: u32 = 9;

/// The bucket width (log2, ps) for a queue that serves `nics` NICs (a partition's): 2.048 ns
/// up to 512, 4.096 ns up to 1,024, else 512 ps ([`SHIFT`]). Fewer sources make fewer events a
/// nanosecond, and each bucket entered costs as much whatever it holds, so a queue of fewer
/// NICs wants wider buckets (the widths measured for each size, in callgrind instructions:
/// `docs/journal.md`, "The bucket width by the NICs a queue serves" and after).
pub(crate) fn bucket_shift_for(nics: u32) -> u32 {
    if nics <= 512 {
        11
    } else if nics <= 1024 {
        12
    } else {
        SHIFT
    }
}

/// Buckets in the wheel (a power of two): the wheel spans SLOTS buckets, 4.2 µs of 512 ps.
pub(crate) const SLOTS: usize = 1 << 13;
const MASK: u64 = SLOTS as u64 - 1;
/// Words of the `occupied` bitmap, and of its summary.
const WORDS: usize = SLOTS / 64;
const SUMMARY: usize = WORDS.div_ceil(64);
/// Entries per chunk of a bucket's chain.
pub(crate) const CHUNK: usize = 16;
/// Events a bucket must hold for the next bucket's chunks to be prefetched on entering it.
const PREFETCH_MIN: usize = 16;
/// Entries `sorted` and `late` keep room for once a bucket that held more is over
/// ([`EventQueue::trim`]).
const KEEP: usize = 1 << 12;
/// End of a chain.
const NIL: u32 = u32::MAX;

/// A deterministic priority queue of events of type `E`.
pub struct EventQueue<E> {
    /// log2 of the bucket width (ps).
    shift: u32,
    now: u64,
    /// The current bucket's entries scheduled before it was entered, in increasing
    /// `(time, seq)` order; those before `head` are taken.
    sorted: Vec<Timed<E>>,
    head: usize,
    late: KeyHeap<E>,
    /// Per slot, the first and last chunk of its chain (`NIL` when empty) and the entries in
    /// the last.
    slots: Vec<[u32; 3]>,
    /// The chunks: chunk `c` is `store[c·CHUNK ..][..CHUNK]`, followed by `chain[c]` in its
    /// slot's chain (or in the free list, `free`).
    store: Vec<Timed<E>>,
    chain: Vec<u32>,
    free: u32,
    occupied: Vec<u64>,
    summary: Vec<u64>,
    in_wheel: usize,
    /// Whether entering a bucket asks for the next one's chunks ([`EventQueue::prefetch`]).
    prefetch: bool,
    overflow: KeyHeap<E>,
    next_seq: u64,
    len: usize,
    peak: usize,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            shift: SHIFT,
            now: 0,
            sorted: Vec::new(),
            head: 0,
            late: KeyHeap::default(),
            slots: vec![[NIL, NIL, 0]; SLOTS],
            store: Vec::new(),
            chain: Vec::new(),
            free: NIL,
            occupied: vec![0; WORDS],
            summary: vec![0; SUMMARY],
            in_wheel: 0,
            prefetch: true,
            overflow: KeyHeap::default(),
            next_seq: 0,
            len: 0,
            peak: 0,
        }
    }
}

/// An event in the wheel: its time without a sequence number, 16 bytes with an 8-byte event.
/// A bucket's chain is in scheduling order, so a stable sort by time alone puts it in key
/// order.
#[derive(Clone, Copy)]
struct Timed<E> {
    time: u64,
    event: E,
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty queue of buckets `2^shift` ps wide (see [`SHIFT`]).
    pub(crate) fn with_bucket_shift(shift: u32) -> Self {
        assert!(
            (4..=20).contains(&shift),
            "bucket shift {shift} out of range"
        );
        EventQueue {
            shift,
            ..Self::default()
        }
    }

    /// The bucket of heap key `key`.
    #[inline]
    fn bucket(&self, key: u128) -> u64 {
        ((key >> 64) as u64) >> self.shift
    }
    /// Events pending.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    /// Whether no event is pending.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Most events ever pending at once.
    pub(crate) fn peak(&self) -> usize {
        self.peak
    }

    /// Schedules `event` at `time`, after every event already scheduled at that time.
    /// `time` must not be earlier than the last event taken.
    ///
    /// The common case, a bucket of the wheel whose last chunk has room, is inlined at the
    /// caller: an append and two counts. The rest (`push_slow`) is a call.
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.len += 1;
        self.peak = self.peak.max(self.len);
        let b = time.0 >> self.shift;
        if b > self.now && b < self.now + SLOTS as u64 {
            let slot = (b & MASK) as usize;
            let [_, last, fill] = self.slots[slot];
            if last != NIL && (fill as usize) < CHUNK {
                self.store[last as usize * CHUNK + fill as usize] = Timed {
                    time: time.0,
                    event,
                };
                self.slots[slot][2] = fill + 1;
                self.in_wheel += 1;
                return;
            }
        }
        self.push_slow(b, seq, time, event);
    }

    /// [`EventQueue::push`] into a bucket of the wheel that needs a new chunk, into the
    /// current bucket's `late` heap, or into the overflow.
    #[inline(never)]
    fn push_slow(&mut self, b: u64, seq: u64, time: Time, event: E) {
        if b > self.now && b < self.now + SLOTS as u64 {
            self.list(
                b,
                Timed {
                    time: time.0,
                    event,
                },
            );
        } else {
            let key = ((time.0 as u128) << 64) | seq as u128;
            self.place_in_heap(b, Entry { key, event });
        }
    }

    /// An entry of the overflow heap whose bucket has come inside the wheel (or is the one
    /// entered: then into `late`).
    #[inline]
    fn place(&mut self, e: Entry<E>) {
        let b = self.bucket(e.key);
        if b > self.now {
            let time = (e.key >> 64) as u64;
            self.list(
                b,
                Timed {
                    time,
                    event: e.event,
                },
            );
        } else {
            self.late.push(e);
        }
    }

    /// Into the current bucket's `late` heap, or the overflow.
    #[inline]
    fn place_in_heap(&mut self, b: u64, e: Entry<E>) {
        if b <= self.now {
            self.late.push(e);
        } else {
            self.overflow.push(e);
        }
    }

    /// Appends to the list of bucket `b`, inside the wheel.
    #[inline(always)]
    fn list(&mut self, b: u64, e: Timed<E>) {
        let slot = (b & MASK) as usize;
        let [first, last, fill] = self.slots[slot];
        if fill as usize == CHUNK || last == NIL {
            let c = self.new_chunk(e);
            if last == NIL {
                self.slots[slot] = [c, c, 1];
                let w = slot / 64;
                self.occupied[w] |= 1 << (slot % 64);
                self.summary[w / 64] |= 1 << (w % 64);
            } else {
                self.chain[last as usize] = c;
                self.slots[slot] = [first, c, 1];
            }
        } else {
            self.store[last as usize * CHUNK + fill as usize] = e;
            self.slots[slot][2] = fill + 1;
        }
        self.in_wheel += 1;
    }

    /// A chunk whose first entry is `e`, from the free list or new.
    #[inline]
    fn new_chunk(&mut self, e: Timed<E>) -> u32 {
        let c = if self.free != NIL {
            let c = self.free;
            self.free = self.chain[c as usize];
            self.store[c as usize * CHUNK] = e;
            c
        } else {
            // (the other entries are written before they are read)
            self.store.extend(std::iter::repeat_n(e, CHUNK));
            self.chain.push(NIL);
            (self.chain.len() - 1) as u32
        };
        self.chain[c as usize] = NIL;
        c
    }

    /// The event `k` places on in what is left of the current bucket's sorted run (`ahead(0)`
    /// is its next), if there is one (a hint for prefetching: it ignores events scheduled into
    /// the bucket after it was entered, so it is not always the `k`-th event to come).
    #[inline]
    pub(crate) fn ahead(&self, k: usize) -> Option<&E> {
        self.sorted.get(self.head + k).map(|e| &e.event)
    }

    /// The time of the earliest event, if any (moving to its bucket if the current one is
    /// done; what `pop` would take is unchanged).
    #[inline]
    pub(crate) fn peek_time(&mut self) -> Option<Time> {
        loop {
            let t = match (self.sorted.get(self.head), self.late.peek_key()) {
                (Some(s), Some(l)) => s.time.min((l >> 64) as u64),
                (Some(s), None) => s.time,
                (None, Some(l)) => (l >> 64) as u64,
                (None, None) => {
                    if self.len == 0 {
                        return None;
                    }
                    self.advance();
                    continue;
                }
            };
            return Some(Time(t));
        }
    }

    /// Removes and returns the earliest event if it is due no later than `limit` (ps); if it
    /// is later, it stays and `Err` says no earlier than when it is (its time, or the start of
    /// its bucket when that is already later than `limit`: the queue does not move to a bucket
    /// past `limit`, so that events scheduled before it still go into the wheel); `Err(u64::MAX)`
    /// if none is left.
    #[inline(always)]
    pub(crate) fn pop_until(&mut self, limit: u64) -> Result<(Time, E), u64> {
        loop {
            let (from_sorted, t) = match (self.sorted.get(self.head), self.late.peek_key()) {
                (Some(s), Some(l)) => {
                    let lt = (l >> 64) as u64;
                    if s.time <= lt {
                        (true, s.time)
                    } else {
                        (false, lt)
                    }
                }
                (Some(s), None) => (true, s.time),
                (None, Some(l)) => (false, (l >> 64) as u64),
                (None, None) => {
                    if self.len == 0 {
                        return Err(u64::MAX);
                    }
                    let next = self.next_bucket();
                    if next << self.shift > limit {
                        return Err(next << self.shift);
                    }
                    self.advance_to(next);
                    continue;
                }
            };
            if t > limit {
                return Err(t);
            }
            self.len -= 1;
            let event = if from_sorted {
                let e = self.sorted[self.head].event;
                self.head += 1;
                e
            } else {
                self.late.pop().expect("peeked").event
            };
            return Ok((Time(t), event));
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        loop {
            // (every entry of `late` was scheduled after every entry of `sorted`: at a tie,
            // `sorted` goes first)
            let from_sorted = match (self.sorted.get(self.head), self.late.peek_key()) {
                (Some(s), Some(l)) => s.time <= (l >> 64) as u64,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => {
                    if self.len == 0 {
                        return None;
                    }
                    self.advance();
                    continue;
                }
            };
            let e = if from_sorted {
                let e = self.sorted[self.head];
                self.head += 1;
                Some((e.time, e.event))
            } else {
                self.late.pop().map(|e| ((e.key >> 64) as u64, e.event))
            };
            if let Some((t, event)) = e {
                self.len -= 1;
                return Some((Time(t), event));
            }
            if self.len == 0 {
                return None;
            }
            self.advance();
        }
    }

    /// The next bucket that has events (some are pending, none in the current bucket).
    #[inline]
    fn next_bucket(&self) -> u64 {
        if self.in_wheel > 0 {
            self.next_occupied()
        } else {
            self.bucket(self.overflow.peek_key().expect("events are pending"))
        }
    }

    /// Moves to the next bucket that has events and loads it into `sorted`.
    fn advance(&mut self) {
        self.advance_to(self.next_bucket());
    }

    /// Moves to bucket `next`, the next that has events ([`EventQueue::next_bucket`]), and
    /// loads it into `sorted`.
    fn advance_to(&mut self, next: u64) {
        self.now = next;
        // the window moved: bring in overflow entries that now fall inside it
        while let Some(k) = self.overflow.peek_key() {
            if self.bucket(k) >= self.now + SLOTS as u64 {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.place(e);
        }
        let slot = (self.now & MASK) as usize;
        let [first, last, fill] = std::mem::replace(&mut self.slots[slot], [NIL, NIL, 0]);
        if first == NIL {
            return;
        }
        let w = slot / 64;
        self.occupied[w] &= !(1 << (slot % 64));
        if self.occupied[w] == 0 {
            self.summary[w / 64] &= !(1 << (w % 64));
        }
        // (`sorted` is all taken)
        self.sorted.clear();
        self.head = 0;
        let mut c = first;
        loop {
            let n = if c == last { fill as usize } else { CHUNK };
            let at = c as usize * CHUNK;
            append(&mut self.sorted, &self.store[at..at + n]);
            if c == last {
                break;
            }
            c = self.chain[c as usize];
        }
        // the whole chain goes back to the free list
        self.chain[last as usize] = self.free;
        self.free = first;
        // a chain is in seq order within one time, so a stable sort by time is key order
        let descent = self.sorted.windows(2).position(|p| p[0].time > p[1].time);
        self.in_wheel -= self.sorted.len();
        if let Some(d) = descent {
            stable_sort_by_time(&mut self.sorted, d + 1);
        }
        self.prefetch_next_bucket();
    }

    /// Whether entering a bucket asks for the next one's chunks (on by default): worth it
    /// only when the pending events do not fit in the caches.
    pub(crate) fn prefetch(&mut self, on: bool) {
        self.prefetch = on;
    }

    /// Gives back the room beyond `KEEP` entries that a bucket of more events took in
    /// `sorted` and `late` (keeping what they hold): a moment when a million ranks act at once
    /// does not hold on to its memory for the rest of the run. Called now and then, off the
    /// path of an event (`Part::look_at_limits`).
    pub(crate) fn trim(&mut self) {
        if self.sorted.capacity() > KEEP || self.late.capacity() > KEEP {
            self.sorted.drain(..self.head);
            self.head = 0;
            self.sorted.shrink_to(KEEP);
            self.late.shrink_to(KEEP);
        }
    }

    /// Asks for the chunks of the next non-empty bucket while this one is processed: they were
    /// written long ago (at 65,536 nodes, megabytes of events ago) and copying them in is
    /// otherwise a run of cache misses.
    fn prefetch_next_bucket(&self) {
        // (a short bucket is over before the lines arrive: then the scan for the next bucket
        // would only be done twice)
        if !self.prefetch || self.in_wheel == 0 || self.sorted.len() - self.head < PREFETCH_MIN {
            return;
        }
        let slot = (self.next_occupied() & MASK) as usize;
        let [mut c, last, _] = self.slots[slot];
        loop {
            let chunk = &self.store[c as usize * CHUNK..][..CHUNK];
            for line in chunk.chunks(64 / std::mem::size_of::<Timed<E>>().clamp(1, 64)) {
                prefetch(&line[0]);
            }
            if c == last {
                break;
            }
            c = self.chain[c as usize];
        }
    }

    /// The first non-empty bucket after `now` (there is one: `in_wheel > 0`).
    fn next_occupied(&self) -> u64 {
        let start = ((self.now + 1) & MASK) as usize;
        let slot = self
            .first_occupied_from(start)
            .or_else(|| self.first_occupied_from(0))
            .expect("in_wheel > 0 but no slot is marked") as u64;
        // the absolute bucket: the first one after now that maps to this slot
        let off = slot.wrapping_sub(self.now + 1) & MASK;
        self.now + 1 + off
    }

    /// The first marked slot at or after `start`, without wrapping around.
    #[inline]
    fn first_occupied_from(&self, start: usize) -> Option<usize> {
        let w = start / 64;
        let bits = self.occupied[w] & (!0u64 << (start % 64));
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        let w = w + 1;
        if w >= WORDS {
            return None;
        }
        let mut s = w / 64;
        let mut sbits = self.summary[s] & (!0u64 << (w % 64));
        loop {
            if sbits != 0 {
                let word = s * 64 + sbits.trailing_zeros() as usize;
                return Some(word * 64 + self.occupied[word].trailing_zeros() as usize);
            }
            s += 1;
            if s >= SUMMARY {
                return None;
            }
            sbits = self.summary[s];
        }
    }
}

/// Sorts `v` by time, keeping the order of entries of equal time, where `v[..sorted]` is in
/// order already: by insertion of the rest while it is short (a bucket is nearly in order, and
/// this allocates nothing), else by the standard library's stable sort.
fn stable_sort_by_time<E: Copy>(v: &mut [Timed<E>], sorted: usize) {
    if v.len() > 64 {
        v.sort_by_key(|e| e.time);
        return;
    }
    crate::perf::sort::insertion_by_key_from(v, sorted, |e| e.time);
}

/// Appends `from` to `to` in one copy of its bytes (`extend_from_slice` copies a generic
/// `Copy` element by element: 4 to 5 instructions each, where entering a bucket copies
/// every event once).
#[inline(always)]
fn append<T: Copy>(to: &mut Vec<T>, from: &[T]) {
    to.reserve(from.len());
    let len = to.len();
    // SAFETY: `reserve` made room for `from.len()` more elements after the `len` initialized
    // ones; `from` cannot overlap that room (it is borrowed while `to` is borrowed mutably);
    // `T: Copy`, so the copied bytes are valid elements and nothing needs dropping.
    unsafe {
        std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr().add(len), from.len());
        to.set_len(len + from.len());
    }
}

#[cfg(test)]
mod tests;
