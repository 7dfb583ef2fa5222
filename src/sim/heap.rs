//! A 4-ary min-heap of keyed entries: the ordered part of the event queue.
//!
//! Invariant: every entry's key is >= its parent's. Keys are `u128` (`time × 2⁶⁴ + seq`), so a
//! comparison is branch-free. `push` and `pop` are O(log₄ n); entries are stored inline.

const ARITY: usize = 4;

#[derive(Clone, Copy)]
pub(crate) struct Entry<E> {
    pub(crate) key: u128,
    pub(crate) event: E,
}

pub(crate) struct KeyHeap<E> {
    heap: Vec<Entry<E>>,
}

impl<E> Default for KeyHeap<E> {
    fn default() -> Self {
        KeyHeap { heap: Vec::new() }
    }
}

impl<E: Copy> KeyHeap<E> {
    /// The smallest key, if any.
    pub(crate) fn peek_key(&self) -> Option<u128> {
        self.heap.first().map(|e| e.key)
    }

    /// Entries it has room for without growing.
    pub(crate) fn capacity(&self) -> usize {
        self.heap.capacity()
    }

    /// Gives back room beyond `n` entries (or beyond those it holds, if more).
    pub(crate) fn shrink_to(&mut self, n: usize) {
        self.heap.shrink_to(n);
    }

    /// Adds `e`: the entries on its way up move down one level each, and `e` is written once.
    #[inline]
    pub(crate) fn push(&mut self, e: Entry<E>) {
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            let p = self.heap[parent];
            if p.key <= e.key {
                break;
            }
            self.heap[i] = p;
            i = parent;
        }
        self.heap[i] = e;
    }

    /// Takes the entry of the smallest key: the last entry fills the hole left at the root,
    /// the smallest children moving up one level each until it fits.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Entry<E>> {
        let last = self.heap.pop()?;
        let Some(&top) = self.heap.first() else {
            return Some(last);
        };
        let len = self.heap.len();
        let mut i = 0;
        loop {
            let first = i * ARITY + 1;
            if first >= len {
                break;
            }
            // the smallest child, chosen without branches on the keys
            let mut c = first;
            let mut ck = self.heap[first].key;
            for j in first + 1..(first + ARITY).min(len) {
                let k = self.heap[j].key;
                let less = k < ck;
                c = if less { j } else { c };
                ck = if less { k } else { ck };
            }
            if ck >= last.key {
                break;
            }
            self.heap[i] = self.heap[c];
            i = c;
        }
        self.heap[i] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order() {
        let mut h = KeyHeap::default();
        let keys = [5u128, 1, 9, 3, 3 << 64, 7, 2, 8, 0, 6, 4];
        for (i, &k) in keys.iter().enumerate() {
            h.push(Entry { key: k, event: i });
        }
        let mut got = vec![];
        while let Some(e) = h.pop() {
            got.push(e.key);
        }
        let mut want = keys.to_vec();
        want.sort();
        assert_eq!(got, want);
    }

    /// Against `std`'s binary heap over random pushes and pops, up to a few thousand entries
    /// held (four levels and more, where a hole travels): the same keys leave in the same
    /// order, each with the event pushed with it.
    #[test]
    fn agrees_with_a_binary_heap_over_random_pushes_and_pops() {
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        use std::cmp::Reverse;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut h = KeyHeap::default();
        let mut model = std::collections::BinaryHeap::new();
        for step in 0..100_000u64 {
            // (pushes outnumber pops for the first half, then the heap drains)
            let push = rng.next_u32() % 8 < if step < 50_000 { 5 } else { 3 };
            if push {
                let key = ((rng.next_u64() % 5_000) as u128) << 64 | step as u128;
                h.push(Entry { key, event: step });
                model.push(Reverse((key, step)));
            } else {
                let got = h.pop().map(|e| (e.key, e.event));
                assert_eq!(got, model.pop().map(|r| r.0), "step {step}");
            }
            assert_eq!(h.peek_key(), model.peek().map(|r| r.0 .0));
        }
    }
}
