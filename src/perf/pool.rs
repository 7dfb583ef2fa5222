//! A free-list pool: objects in flight (packets, messages, transfers, requests) stored in one
//! vector and named by a `u32` index, so that the hot path allocates nothing once the pool has
//! grown to the most objects alive at once.
//!
//! Invariant: every index is either live (handed out by `alloc`, not yet `release`d) or in
//! `free`, never both; `live() == items.len() - free.len()` (plus those alive when the storage
//! was let go at the end of a run, `let_go`). `alloc` and `release` are O(1).

/// A slab of `T`s referred to by `u32` index, reusing freed slots (no allocation once warm).
pub(crate) struct Pool<T> {
    items: Vec<T>,
    free: Vec<u32>,
    peak: usize,
    /// Objects alive when the storage was let go ([`Pool::let_go`]), still counted alive.
    gone: usize,
}

impl<T> Default for Pool<T> {
    fn default() -> Self {
        Pool {
            items: Vec::new(),
            free: Vec::new(),
            peak: 0,
            gone: 0,
        }
    }
}

impl<T> Pool<T> {
    /// Stores `item` and returns its index, reusing a released one if there is one.
    #[inline]
    pub(crate) fn alloc(&mut self, item: T) -> u32 {
        let id = if let Some(id) = self.free.pop() {
            self.items[id as usize] = item;
            id
        } else {
            self.items.push(item);
            (self.items.len() - 1) as u32
        };
        self.peak = self.peak.max(self.items.len() - self.free.len());
        id
    }
    /// Gives index `id` back; the item stays readable until the index is reused.
    #[inline]
    pub(crate) fn release(&mut self, id: u32) {
        debug_assert!((id as usize) < self.items.len());
        self.free.push(id);
    }
    #[inline]
    /// The item `id` (it must be live).
    pub(crate) fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
    #[inline]
    /// The item `id`, to change (it must be live).
    pub(crate) fn get_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
    /// Objects alive now.
    pub(crate) fn live(&self) -> usize {
        self.items.len() - self.free.len() + self.gone
    }
    /// Lets the storage go once the run is over, the objects alive still counted in
    /// [`Pool::live`] and the peak kept; no index may be read after it.
    pub(crate) fn let_go(&mut self) {
        self.gone = self.live();
        self.items = Vec::new();
        self.free = Vec::new();
    }
    /// Most objects alive at once.
    pub(crate) fn peak(&self) -> usize {
        self.peak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_indices_are_reused_and_counts_hold() {
        let mut p = Pool::default();
        let a = p.alloc('a');
        let b = p.alloc('b');
        assert_eq!((p.live(), p.peak()), (2, 2));
        p.release(a);
        let c = p.alloc('c');
        assert_eq!(c, a, "the released slot is reused");
        assert_eq!((*p.get(b), *p.get(c)), ('b', 'c'));
        p.release(b);
        p.release(c);
        assert_eq!((p.live(), p.peak()), (0, 2));
    }

    #[test]
    fn a_pool_let_go_keeps_its_counts() {
        let mut p = Pool::default();
        let ids: Vec<u32> = (0..5).map(|i| p.alloc(i)).collect();
        p.release(ids[1]);
        p.release(ids[3]);
        p.let_go();
        assert_eq!((p.live(), p.peak(), p.items.capacity()), (3, 5, 0));
    }
}
