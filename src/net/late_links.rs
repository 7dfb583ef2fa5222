//! Links of the output queues that are not written yet: "packet `after` is queued behind packet
//! `tail`, and is ready at `ready`", held for a few queuings so that `tail`'s cache line can be
//! asked for before it is written (see "Linked later" in `router.rs`).
//!
//! Invariant: at most one link per `tail` (a packet is queued behind once), and entries leave
//! in the order they came, or earlier through [`Links::take`]. Costs: `push` and `pop` O(1),
//! `take` O(entries) (at most [`RING`], in one or two cache lines); nothing allocates.

use super::packet::{PktId, NONE};
use crate::units::Time;

/// Room in the ring.
pub(crate) const RING: usize = 8;

/// Packet `after` is queued right behind packet `tail` and is ready at `ready`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub tail: PktId,
    pub after: PktId,
    pub ready: Time,
}

/// A taken entry, or one never written.
const GONE: Link = Link {
    tail: NONE,
    after: NONE,
    ready: Time::ZERO,
};

/// A first-in, first-out ring of [`Link`]s, from which one can also be taken by its `tail`.
pub(crate) struct Links {
    ring: [Link; RING],
    /// Index of the oldest entry (taken ones included).
    first: usize,
    /// Entries from `first`, taken ones included.
    len: usize,
}

impl Default for Links {
    fn default() -> Self {
        Links {
            ring: [GONE; RING],
            first: 0,
            len: 0,
        }
    }
}

impl Links {
    /// Entries held, taken ones included.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// No entries held.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends `l` (the caller keeps fewer than [`RING`] entries).
    #[inline]
    pub(crate) fn push(&mut self, l: Link) {
        debug_assert!(self.len < RING, "the links ring is full");
        self.ring[(self.first + self.len) % RING] = l;
        self.len += 1;
    }

    /// Removes the oldest entry; `None` if it was taken already (or there is none).
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<Link> {
        if self.len == 0 {
            return None;
        }
        let l = std::mem::replace(&mut self.ring[self.first], GONE);
        self.first = (self.first + 1) % RING;
        self.len -= 1;
        (l.tail != NONE).then_some(l)
    }

    /// Takes the link whose tail is `tail`, if one is held.
    #[inline]
    pub(crate) fn take(&mut self, tail: PktId) -> Option<Link> {
        for i in 0..self.len {
            let e = &mut self.ring[(self.first + i) % RING];
            if e.tail == tail {
                return Some(std::mem::replace(e, GONE));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(tail: u32) -> Link {
        Link {
            tail,
            after: tail + 1,
            ready: Time(100 + tail as u64),
        }
    }

    #[test]
    fn links_leave_oldest_first_across_the_end_of_the_ring() {
        let mut r = Links::default();
        let mut out = 0;
        for t in 0..30 {
            r.push(link(t));
            if r.len() > 5 {
                assert_eq!(r.pop(), Some(link(out)));
                out += 1;
            }
        }
        while let Some(l) = r.pop() {
            assert_eq!(l, link(out));
            out += 1;
        }
        assert_eq!((out, r.len()), (30, 0));
    }

    #[test]
    fn a_link_taken_by_its_tail_is_not_popped_again() {
        let mut r = Links::default();
        for t in [7, 3, 9] {
            r.push(link(t));
        }
        assert_eq!(r.take(3), Some(link(3)));
        assert_eq!(r.take(3), None, "taken once");
        assert_eq!(r.take(4), None, "4 is nobody's tail");
        assert_eq!(r.pop(), Some(link(7)));
        assert_eq!(r.pop(), None, "the taken one leaves its place empty");
        assert_eq!(r.len(), 1);
        assert_eq!(r.pop(), Some(link(9)));
        assert_eq!((r.pop(), r.len()), (None, 0));
    }
}
