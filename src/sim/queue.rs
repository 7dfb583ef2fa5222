//! The pending-event set of the discrete-event core.
//!
//! Events leave in increasing `(time, seq)` order, where `seq` is the order in which they were
//! scheduled: two events at the same picosecond are taken first-scheduled first. That order is
//! a pure function of the scenario, so every run of it processes the same events in the same
//! order (MODEL.md §1).
//!
//! A timing wheel with an overflow heap. Time is cut into buckets of 2^[`SHIFT`] ps (about a
//! nanosecond); the next [`SLOTS`] − 1 buckets are unordered vectors in a ring (`wheel`), with
//! a bitmap of the non-empty ones; anything later waits in the `overflow` heap. Entering a
//! bucket sorts its vector once (`sorted`, latest first, taken from the end), so each event is
//! ordered only among those of its own nanosecond; events scheduled into the bucket being
//! processed go to a small heap (`late`), and `pop` takes the earlier of the two heads.
//! Simulations in lockstep put hundreds of events in one nanosecond: one sort of them costs a
//! third of what a heap did.
//!
//! Invariants: `sorted` ∪ `late` hold exactly the entries of bucket `now`, `sorted` in
//! decreasing key order; `wheel[b % SLOTS]` holds those of bucket `b` for
//! `now < b < now + SLOTS`, and `occupied` marks the non-empty slots; `overflow` holds those
//! of buckets `>= now + SLOTS`. Keys are `time × 2⁶⁴ + seq`, unique.
//! Costs: push O(1) (overflow, or into the current bucket: O(log n)); pop O(1) after the
//! bucket's O(k log k) sort, plus the scan of the bitmap to the next non-empty bucket. No
//! allocation in steady state: a bucket's entries are copied into `sorted`, which keeps its
//! capacity; a slot that a burst grew beyond 64 entries gives that memory back when drained.

use super::heap::{Entry, KeyHeap};
use crate::units::Time;

/// log2 of the bucket width in picoseconds.
pub const SHIFT: u32 = 10;
/// Buckets in the wheel (a power of two): the wheel spans SLOTS × 1024 ps ≈ 4.2 µs.
pub const SLOTS: usize = 4096;
const MASK: u64 = SLOTS as u64 - 1;

/// A deterministic priority queue of events of type `E`.
pub struct EventQueue<E> {
    now: u64,
    sorted: Vec<Entry<E>>,
    late: KeyHeap<E>,
    wheel: Vec<Vec<Entry<E>>>,
    occupied: Vec<u64>,
    in_wheel: usize,
    overflow: KeyHeap<E>,
    next_seq: u64,
    len: usize,
    peak: usize,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            now: 0,
            sorted: Vec::new(),
            late: KeyHeap::default(),
            wheel: (0..SLOTS).map(|_| Vec::new()).collect(),
            occupied: vec![0; SLOTS / 64],
            in_wheel: 0,
            overflow: KeyHeap::default(),
            next_seq: 0,
            len: 0,
            peak: 0,
        }
    }
}

#[inline]
fn bucket(key: u128) -> u64 {
    ((key >> 64) as u64) >> SHIFT
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Most events ever pending at once.
    pub fn peak(&self) -> usize {
        self.peak
    }

    /// Schedules `event` at `time`, after every event already scheduled at that time.
    /// `time` must not be earlier than the last event taken.
    #[inline]
    pub fn push(&mut self, time: Time, event: E) {
        let key = ((time.0 as u128) << 64) | self.next_seq as u128;
        self.next_seq += 1;
        self.len += 1;
        self.peak = self.peak.max(self.len);
        self.place(Entry { key, event });
    }

    #[inline]
    fn place(&mut self, e: Entry<E>) {
        let b = bucket(e.key);
        if b <= self.now {
            self.late.push(e);
        } else if b < self.now + SLOTS as u64 {
            let slot = (b & MASK) as usize;
            self.wheel[slot].push(e);
            self.occupied[slot / 64] |= 1 << (slot % 64);
            self.in_wheel += 1;
        } else {
            self.overflow.push(e);
        }
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        loop {
            let from_sorted = match (self.sorted.last(), self.late.peek_key()) {
                (Some(s), Some(l)) => s.key < l,
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
                self.sorted.pop()
            } else {
                self.late.pop()
            };
            if let Some(e) = e {
                self.len -= 1;
                return Some((Time((e.key >> 64) as u64), e.event));
            }
            if self.len == 0 {
                return None;
            }
            self.advance();
        }
    }

    /// Moves to the next bucket that has events and loads it into `sorted`.
    fn advance(&mut self) {
        let next = if self.in_wheel > 0 {
            self.next_occupied()
        } else {
            bucket(self.overflow.peek_key().expect("events are pending"))
        };
        self.now = next;
        // the window moved: bring in overflow entries that now fall inside it
        while let Some(k) = self.overflow.peek_key() {
            if bucket(k) >= self.now + SLOTS as u64 {
                break;
            }
            let e = self.overflow.pop().expect("peeked");
            self.place(e);
        }
        let slot = (self.now & MASK) as usize;
        if self.occupied[slot / 64] & (1 << (slot % 64)) != 0 {
            self.occupied[slot / 64] &= !(1 << (slot % 64));
            // (`sorted` is empty and keeps the largest bucket's capacity)
            let entries = &mut self.wheel[slot];
            self.in_wheel -= entries.len();
            self.sorted.append(entries);
            // keep an ordinary slot's capacity (no allocation in steady state), but give back
            // what a burst grew, or 4096 slots would each keep their largest burst
            if entries.capacity() > 64 {
                *entries = Vec::new();
            }
            self.sorted
                .sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
        }
    }

    /// The first non-empty bucket after `now` (there is one: `in_wheel > 0`).
    fn next_occupied(&self) -> u64 {
        let start = ((self.now + 1) & MASK) as usize;
        let words = SLOTS / 64;
        let (w0, bit0) = (start / 64, start % 64);
        for i in 0..=words {
            let w = (w0 + i) % words;
            let mut bits = self.occupied[w];
            if i == 0 {
                bits &= !0u64 << bit0;
            }
            if bits != 0 {
                let slot = (w * 64 + bits.trailing_zeros() as usize) as u64;
                // the absolute bucket: the first one after now that maps to this slot
                let off = (slot.wrapping_sub(self.now + 1)) & MASK;
                return self.now + 1 + off;
            }
        }
        unreachable!("in_wheel > 0 but no slot is marked")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = EventQueue::new();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut expected = Vec::new();
        for i in 0..10_000u32 {
            let t = Time(rng.next_u64() % 500);
            q.push(t, i);
            expected.push((t, i));
        }
        // schedule order is i, so a stable sort by time is the required order
        expected.sort_by_key(|&(t, _)| t);
        let mut got = Vec::new();
        while let Some(e) = q.pop() {
            got.push(e);
        }
        assert_eq!(got, expected);
        assert!(q.is_empty());
    }

    #[test]
    fn a_model_heap_agrees_over_near_far_and_same_time_events() {
        // pops while pushing, at distances from 0 to far beyond the wheel, against a sorted list
        let mut q = EventQueue::new();
        let mut model: Vec<(u64, u64)> = Vec::new(); // (time, seq)
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut now = 0u64;
        let mut seq = 0u64;
        for round in 0..200_000u64 {
            if rng.next_u64() % 3 != 0 || model.is_empty() {
                let d = match rng.next_u64() % 4 {
                    0 => 0,
                    1 => rng.next_u64() % 2_000,
                    2 => rng.next_u64() % 5_000_000,
                    _ => rng.next_u64() % 50_000_000_000,
                };
                q.push(Time(now + d), seq);
                model.push((now + d, seq));
                seq += 1;
            } else {
                let i = (0..model.len()).min_by_key(|&i| model[i]).unwrap();
                let want = model.swap_remove(i);
                let (t, s) = q.pop().unwrap();
                assert_eq!((t.0, s), want, "round {round}");
                now = t.0;
            }
            assert_eq!(q.len(), model.len());
        }
    }

    #[test]
    fn interleaved_push_pop_keeps_order() {
        let mut q = EventQueue::new();
        q.push(Time(10), 'a');
        q.push(Time(5), 'b');
        assert_eq!(q.pop(), Some((Time(5), 'b')));
        q.push(Time(10), 'c');
        q.push(Time(7), 'd');
        assert_eq!(q.pop(), Some((Time(7), 'd')));
        assert_eq!(q.pop(), Some((Time(10), 'a')));
        assert_eq!(q.pop(), Some((Time(10), 'c')));
        assert_eq!(q.pop(), None);
    }
}
