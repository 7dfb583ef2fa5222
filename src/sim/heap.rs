//! A 4-ary min-heap of keyed entries: the ordered part of the event queue.
//!
//! Invariant: every entry's key is >= its parent's. Keys are `u128` (`time × 2⁶⁴ + seq`), so a
//! comparison is branch-free. `push` and `pop` are O(log₄ n); entries are stored inline.

const ARITY: usize = 4;

#[derive(Clone, Copy)]
pub(crate) struct Entry<E> {
    pub key: u128,
    pub event: E,
}

pub(crate) struct KeyHeap<E> {
    heap: Vec<Entry<E>>,
}

impl<E> Default for KeyHeap<E> {
    fn default() -> Self {
        KeyHeap { heap: Vec::new() }
    }
}

impl<E> KeyHeap<E> {
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

    #[inline]
    pub(crate) fn push(&mut self, e: Entry<E>) {
        let key = e.key;
        let mut i = self.heap.len();
        self.heap.push(e);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].key <= key {
                break;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Entry<E>> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        let len = self.heap.len();
        let key = self.heap[0].key;
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
            if ck >= key {
                break;
            }
            self.heap.swap(i, c);
            i = c;
        }
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
}
