//! The pending-event set of the discrete-event core.
//!
//! Events leave in increasing `(time, seq)` order, where `seq` is the order in which they were
//! scheduled: two events at the same picosecond are taken first-scheduled first. That order is
//! a pure function of the scenario, so every run of it processes the same events in the same
//! order (MODEL.md §1).
//!
//! Invariant: `heap` is a binary min-heap on `(time, seq)`; `seq` is never reused, so no two
//! entries compare equal. `push` and `pop` are O(log n); entries are 32 bytes and stored inline,
//! so the queue allocates only when it grows past its largest size so far.

use crate::units::Time;

struct Entry<E> {
    time: Time,
    seq: u64,
    event: E,
}

impl<E> Entry<E> {
    #[inline]
    fn before(&self, o: &Entry<E>) -> bool {
        (self.time, self.seq) < (o.time, o.seq)
    }
}

/// A deterministic priority queue of events of type `E`.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: Vec::new(), next_seq: 0 }
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `time`, after every event already scheduled at that time.
    #[inline]
    pub fn push(&mut self, time: Time, event: E) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { time, seq, event });
        // sift up
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[i].before(&self.heap[parent]) {
                self.heap.swap(i, parent);
                i = parent;
            } else {
                break;
            }
        }
    }

    /// Time of the next event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.first().map(|e| e.time)
    }

    /// Removes and returns the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let last = self.heap.pop().expect("n > 0");
        if n == 1 {
            return Some((last.time, last.event));
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        // sift down, moving the hole to the bottom (Floyd) would save compares; plain is enough
        let len = self.heap.len();
        let mut i = 0;
        loop {
            let l = 2 * i + 1;
            if l >= len {
                break;
            }
            let r = l + 1;
            let c = if r < len && self.heap[r].before(&self.heap[l]) { r } else { l };
            if self.heap[c].before(&self.heap[i]) {
                self.heap.swap(c, i);
                i = c;
            } else {
                break;
            }
        }
        Some((top.time, top.event))
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
