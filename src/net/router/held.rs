//! The packets a partition holds in buffers fed across a cut, counted by their size on the
//! wire: the shortest bounds how soon the partition can give credit back across the cut
//! (`cut.rs`, the credit bound of a window).
//!
//! A short list of `(size, count)` sorted by size, without sizes whose count is zero: a run's
//! packets come in a few sizes (a full packet, a bare header, the last packet of a message),
//! so a search finds a size in a place or two, where a tree map paid its nodes' search and
//! upkeep on every packet that crossed.
//!
//! Invariant: sizes strictly ascending, counts positive. Costs: `add` and `remove` O(log k)
//! to find the size (O(k) to insert or drop a size not held before or no longer held), and
//! `shortest` O(1), for k sizes held.

/// Counts of held packets by wire size (bytes).
#[derive(Debug, Default, Clone)]
pub(super) struct HeldBySize {
    sizes: Vec<(u32, u32)>,
}

impl HeldBySize {
    /// One more packet of `wire` bytes held.
    #[inline]
    pub(super) fn add(&mut self, wire: u32) {
        match self.sizes.binary_search_by_key(&wire, |s| s.0) {
            Ok(i) => self.sizes[i].1 += 1,
            Err(i) => self.sizes.insert(i, (wire, 1)),
        }
    }

    /// One packet of `wire` bytes no longer held (nothing if none of that size is).
    #[inline]
    pub(super) fn remove(&mut self, wire: u32) {
        if let Ok(i) = self.sizes.binary_search_by_key(&wire, |s| s.0) {
            self.sizes[i].1 -= 1;
            if self.sizes[i].1 == 0 {
                self.sizes.remove(i);
            }
        }
    }

    /// The size of the shortest packet held (bytes), if any.
    #[inline]
    pub(super) fn shortest(&self) -> Option<u32> {
        self.sizes.first().map(|s| s.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortest_is_the_least_size_still_held() {
        let mut h = HeldBySize::default();
        assert_eq!(h.shortest(), None);
        for w in [272, 16, 272, 100, 16] {
            h.add(w);
        }
        assert_eq!(h.shortest(), Some(16));
        h.remove(16);
        assert_eq!(
            h.shortest(),
            Some(16),
            "one of the two 16-byte packets is still held"
        );
        h.remove(16);
        assert_eq!(h.shortest(), Some(100));
        h.remove(55); // (a size not held: nothing)
        h.remove(100);
        h.remove(272);
        assert_eq!(h.shortest(), Some(272));
        h.remove(272);
        assert_eq!(h.shortest(), None);
        assert!(h.sizes.is_empty());
    }
}
