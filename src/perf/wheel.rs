//! A monotone min-queue of keys `time << 32 | id` (time in ps), for keys that are never pushed
//! below the last one taken: the credit wake-ups (`net/router/credit.rs`), due about a
//! serialization after they are pushed, and hundreds of thousands a simulated millisecond.
//!
//! A timing wheel with an overflow heap, as the event queue (`sim/queue/`) but for keys alone.
//! Time is cut into buckets of 2^[`SHIFT`] ps (1.024 ns). The bucket being taken, `base`, is a
//! sorted list (`current`, greatest first, taken from the end); the [`SLOTS`] − 1 buckets after it
//! (about 1 µs) are unsorted lists in a ring (`slots`), with a bitmap of the non-empty ones; a
//! key further ahead, or below `base` once an empty wheel started anew, waits in the `overflow`
//! heap. When `current` is emptied the next non-empty bucket becomes current and is sorted (it
//! holds two keys on average on the congested Bruck, a few hundred where many channels are
//! woken in the same nanosecond). Keys leave in increasing order, exactly as from a binary
//! heap: `current` holds the wheel's least, and the overflow's least is compared with it.
//!
//! Invariants: `current` holds the keys of bucket `base`, in decreasing order, and is empty only
//! if `slots` are; `slots[b % SLOTS]` holds the keys of bucket `b` for `base < b < base + SLOTS`,
//! and `occupied` marks exactly the non-empty slots; `due` is the time of the least key held
//! (`u64::MAX`: none). Costs: push O(1) (into `current` O(k) for its k keys, into the overflow
//! O(log n)); pop O(1), plus, when it empties `current`, a scan of at most [`WORDS`] bitmap words
//! and the sort of the next bucket; `due` O(1). Memory: 24 bytes a slot (24 KiB), and the room
//! each slot's list keeps, at most [`KEEP`] keys once emptied (512 KiB in all).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// log2 of a bucket's width (ps).
const SHIFT: u32 = 10;
/// Buckets in the wheel (a power of two): 1.05 µs of 1.024 ns.
const SLOTS: usize = 1 << 10;
const MASK: u64 = SLOTS as u64 - 1;
/// Keys an emptied list keeps room for.
const KEEP: usize = 32;
/// Words of the `occupied` bitmap.
const WORDS: usize = SLOTS / 64;

/// The time (ps) of key `k`.
#[inline(always)]
fn time(k: u128) -> u64 {
    (k >> 32) as u64
}

/// The bucket of key `k`.
#[inline(always)]
fn bucket(k: u128) -> u64 {
    time(k) >> SHIFT
}

/// A min-queue of `time << 32 | id` keys, none pushed below the last taken.
pub(crate) struct Wheel {
    base: u64,
    /// The keys of bucket `base`, greatest first (taken from the end).
    current: Vec<u128>,
    slots: Vec<Vec<u128>>,
    occupied: [u64; WORDS],
    overflow: BinaryHeap<Reverse<u128>>,
    /// The time of the least key held (ps; `u64::MAX`: none).
    due: u64,
}

impl Default for Wheel {
    fn default() -> Self {
        Wheel {
            base: 0,
            current: Vec::new(),
            slots: vec![Vec::new(); SLOTS],
            occupied: [0; WORDS],
            overflow: BinaryHeap::new(),
            due: u64::MAX,
        }
    }
}

impl Wheel {
    /// The time (ps) of the least key held (`u64::MAX`: none).
    #[inline(always)]
    pub(crate) fn due(&self) -> u64 {
        self.due
    }

    /// Keys held (counted: only the tests ask).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.current.len() + self.slots.iter().map(Vec::len).sum::<usize>() + self.overflow.len()
    }

    /// Adds key `k`, which is not below the last key taken. The common case, a later bucket
    /// within the wheel's span, is inlined; the rest is a call ([`Wheel::push_other`]).
    #[inline(always)]
    pub(crate) fn push(&mut self, k: u128) {
        self.due = self.due.min(time(k));
        let ahead = bucket(k).wrapping_sub(self.base);
        if ahead.wrapping_sub(1) < SLOTS as u64 - 1 && !self.current.is_empty() {
            let s = (bucket(k) & MASK) as usize;
            self.slots[s].push(k);
            self.occupied[s / 64] |= 1 << (s % 64);
        } else {
            self.push_other(k);
        }
    }

    /// [`Wheel::push`] into an empty wheel, the current bucket, or the overflow.
    #[inline(never)]
    fn push_other(&mut self, k: u128) {
        if self.current.is_empty() {
            // (the wheel is empty: it starts at `k`'s bucket)
            self.base = bucket(k);
        }
        if bucket(k) == self.base {
            // (into the bucket being taken, in its place)
            let i = self.current.partition_point(|&x| x > k);
            self.current.insert(i, k);
        } else {
            // (beyond the wheel's span, or below its start after it started anew)
            self.overflow.push(Reverse(k));
        }
    }

    /// Takes the least key, if any.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<u128> {
        let k = match (self.current.last(), self.overflow.peek()) {
            (None, None) => return None,
            (Some(&k), over) if over.is_none_or(|o| k < o.0) => {
                self.current.pop();
                if self.current.is_empty() {
                    self.enter_next();
                }
                k
            }
            _ => self.overflow.pop().expect("a key").0,
        };
        let wheel = self.current.last().map_or(u64::MAX, |&k| time(k));
        self.due = match self.overflow.peek() {
            None => wheel,
            Some(o) => wheel.min(time(o.0)),
        };
        Some(k)
    }

    /// `current` is empty: the first non-empty bucket after `base` becomes the current one,
    /// sorted, if there is one.
    #[inline(always)]
    fn enter_next(&mut self) {
        let Some(s) = self.first_slot() else {
            return;
        };
        self.base += (s as u64).wrapping_sub(self.base) & MASK;
        std::mem::swap(&mut self.current, &mut self.slots[s]);
        self.occupied[s / 64] &= !(1 << (s % 64));
        // (the emptied list goes back to the ring: the room a burst took is given back, or
        // every slot would keep the most it ever held)
        if self.slots[s].capacity() > KEEP {
            self.slots[s] = Vec::new();
        }
        if self.current.len() > 1 {
            self.sort_current();
        }
    }

    /// Sorts `current`, greatest first.
    #[inline(never)]
    fn sort_current(&mut self) {
        let v = &mut self.current;
        if v.len() > 16 {
            v.sort_unstable_by(|a, b| b.cmp(a));
        } else {
            crate::perf::sort::insertion_by_key(v, |&k| Reverse(k));
        }
    }

    /// The slot of the first non-empty bucket after `base`, if any.
    #[inline]
    fn first_slot(&self) -> Option<usize> {
        let start = ((self.base + 1) & MASK) as usize;
        let (w0, bit) = (start / 64, start % 64);
        let head = self.occupied[w0] & (u64::MAX << bit);
        if head != 0 {
            return Some(w0 * 64 + head.trailing_zeros() as usize);
        }
        for i in 1..=WORDS {
            let w = (w0 + i) % WORDS;
            // (back at the first word: its bits before `bit`, the wheel's last buckets)
            let bits = if i == WORDS {
                self.occupied[w] & !(u64::MAX << bit)
            } else {
                self.occupied[w]
            };
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    /// Against `std`'s binary heap: the same keys leave in the same order, with `due` right
    /// after every step, for keys near the last taken, in the same bucket, across the wheel's
    /// wrap, and far beyond its span (the overflow).
    #[test]
    fn keys_leave_in_order_as_from_a_binary_heap() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut w = Wheel::default();
        let mut model: BinaryHeap<Reverse<u128>> = BinaryHeap::new();
        let mut last = 0u64;
        for step in 0..200_000 {
            if rng.next_u32() % 3 != 0 {
                let ahead = match rng.next_u32() % 8 {
                    0 => 0,
                    1 => rng.next_u64() % 1024,
                    2..=5 => rng.next_u64() % (300 << SHIFT),
                    6 => (rng.next_u64() % (2 * SLOTS as u64)) << SHIFT,
                    _ => rng.next_u64() % (1 << 40),
                };
                let k = ((last + ahead) as u128) << 32 | (rng.next_u32() % 64) as u128;
                w.push(k);
                model.push(Reverse(k));
            } else {
                let got = w.pop();
                assert_eq!(got, model.pop().map(|r| r.0), "step {step}");
                if let Some(k) = got {
                    assert!(time(k) >= last);
                    last = time(k);
                }
            }
            assert_eq!(w.len(), model.len());
            assert_eq!(w.due(), model.peek().map_or(u64::MAX, |r| time(r.0)));
        }
        while let Some(Reverse(k)) = model.pop() {
            assert_eq!(w.pop(), Some(k));
        }
        assert_eq!((w.pop(), w.due(), w.len()), (None, u64::MAX, 0));
    }

    /// The bitmap's wrap: a key in the ring before the current bucket's slot is found after
    /// the keys of the ring's last buckets.
    #[test]
    fn a_key_in_the_ring_before_the_current_slot_is_found_last() {
        let mut w = Wheel::default();
        let key = |bucket: u64, id: u128| ((bucket << SHIFT) as u128) << 32 | id;
        let first = SLOTS as u64 - 3;
        // (the current bucket; one a full turn on less one, in the slot before; one between)
        for k in [
            key(first, 0),
            key(first + SLOTS as u64 - 1, 1),
            key(first + 1, 2),
        ] {
            w.push(k);
        }
        assert_eq!(w.pop(), Some(key(first, 0)));
        assert_eq!(w.due(), (first + 1) << SHIFT);
        assert_eq!(w.pop(), Some(key(first + 1, 2)));
        assert_eq!(w.pop(), Some(key(first + SLOTS as u64 - 1, 1)));
        assert_eq!((w.pop(), w.due()), (None, u64::MAX));
    }
}
