//! Arrays shared by the partitions of a run, each element owned by one partition.
//!
//! The network's channels, credit, input buffers, NICs and ranks are numbered globally (a
//! channel leads to a channel by its number), and each belongs to the partition of the router,
//! NIC or node it is part of. A [`Slab`] is one such array: allocated once ([`SlabStore`]), and
//! seen by every partition through a copy of the same view. It changes nothing of how the
//! model indexes its state; what it adds is the rule that makes sharing it sound:
//!
//! **Invariant.** While partitions run (on threads), an element is read or written only by the
//! partition that owns it; everything else a partition learns from another comes in a cut
//! message (`cut.rs`). When no partition runs (setting up, between windows on the engine's own
//! thread, and at the end of the run), anyone may read any element. The engine keeps the
//! invariant by construction: a handler touches only what its own routers, NICs and ranks own
//! (`net/router/mod.rs`, "Each router acts on its own state"); debug builds check it where an
//! element's owner is known ([`Slab::owned_by`]).
//!
//! Costs: an element access is a bounds check and an offset, as with a `Vec`. Read through a
//! field of a larger struct, the view's length is loaded again after every store through an
//! element (the compiler cannot tell the two apart), and so the same index is checked again; a
//! function that uses one element many times copies the view into a local first (views are
//! `Copy`), and its index is then checked once (`Network::try_send`). Memory: the elements,
//! allocated once; views are two words.

use std::marker::PhantomData;

/// The allocation behind one or more [`Slab`] views: owns the elements and frees them when
/// dropped (after every view is gone: the engine drops the partitions first).
pub(crate) struct SlabStore<T> {
    ptr: *mut T,
    len: usize,
    /// Bytes of pages of its own ([`SlabStore::zeroed`]), else 0: a `Box<[T]>`'s parts.
    mapped: usize,
}

// SAFETY: the store owns its elements as a `Box<[T]>` would; views reach them under the
// module's invariant.
unsafe impl<T: Send> Send for SlabStore<T> {}
unsafe impl<T: Send> Sync for SlabStore<T> {}

/// Element types of which all-zero bytes are a value (plain data: integers, bools and arrays
/// of them, no references; a `Drop` only if dropping the zero value does nothing, as a
/// [`List`](super::list::List)'s), so that an array of them may start as zero pages the
/// process never touches ([`SlabStore::zeroed`]).
///
/// # Safety
/// Every field of the type must accept all-zero bytes, and dropping a value of zero bytes
/// must touch nothing but those bytes.
#[allow(dead_code)] // (a marker used as a bound only, which the lint takes for unused)
pub(crate) unsafe trait Zeroed {}

// SAFETY: integers
unsafe impl Zeroed for u32 {}
unsafe impl Zeroed for u64 {}

impl<T> Drop for SlabStore<T> {
    fn drop(&mut self) {
        if self.mapped > 0 {
            // SAFETY: the pages `zeroed` mapped, each element a value (zero bytes, `Zeroed`, or
            // one written over them), dropped then unmapped once (reading a page never written
            // maps the kernel's zero page: it takes no memory)
            #[cfg(unix)]
            unsafe {
                if std::mem::needs_drop::<T>() {
                    std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len));
                }
                libc::munmap(self.ptr.cast(), self.mapped);
            }
        } else {
            // SAFETY: the parts of the `Box<[T]>` `new` took apart, put back together once
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) });
        }
    }
}

/// A view of a [`SlabStore`]'s elements (see the module's doc for who may touch which).
pub(crate) struct Slab<T> {
    ptr: *mut T,
    len: usize,
    /// Which partition owns each element, for the debug-build check (empty: not checked).
    #[cfg(debug_assertions)]
    owner: *const u16,
    #[cfg(debug_assertions)]
    stride: usize,
    #[cfg(debug_assertions)]
    me: u16,
    _t: PhantomData<T>,
}

impl<T> Clone for Slab<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Slab<T> {}

// SAFETY: a Slab is a pointer to elements that outlive it (the store is dropped after every
// view) and that are touched under the module's invariant: by their owner only while
// partitions run, by anyone when none does. Sending or sharing a view between threads hands
// over only that access.
unsafe impl<T: Send> Send for Slab<T> {}
unsafe impl<T: Send> Sync for Slab<T> {}

impl<T> SlabStore<T> {
    /// A store of the elements of `v`.
    pub(crate) fn new(v: Vec<T>) -> SlabStore<T> {
        let data = Box::into_raw(v.into_boxed_slice());
        SlabStore {
            ptr: data.cast(),
            len: data.len(),
            mapped: 0,
        }
    }

    /// A view of every element, for the partition (or the whole run) that will use it.
    pub(crate) fn view(&mut self) -> Slab<T> {
        Slab {
            ptr: self.ptr,
            len: self.len,
            #[cfg(debug_assertions)]
            owner: std::ptr::null(),
            #[cfg(debug_assertions)]
            stride: 1,
            #[cfg(debug_assertions)]
            me: 0,
            _t: PhantomData,
        }
    }

    /// The elements, for a reader that holds the store (no partition runs).
    #[cfg(test)]
    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: `len` elements from `ptr`, all values (`new`'s, or zero bytes: `Zeroed`)
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: Zeroed> SlabStore<T> {
    /// `n` elements of zero bytes, in pages of their own that take no memory until they are
    /// first written: a process that writes only its own partitions' elements (an MPI
    /// process, `net/router/build.rs`) holds only those pages. Unlike the allocator's large
    /// blocks (`perf/hugepages.rs`), the store is not advised onto huge pages as a whole: a
    /// huge page written for one element would hold the 2 MiB around it, most of them
    /// another process's; the writer advises the runs it owns ([`Slab::advise`]).
    pub(crate) fn zeroed(n: usize) -> SlabStore<T> {
        const { assert!(std::mem::align_of::<T>() <= 4096) };
        let bytes = n * std::mem::size_of::<T>();
        #[cfg(unix)]
        if bytes > 0 {
            // SAFETY: a fresh private anonymous mapping (zero-filled, page-aligned), owned by
            // the store from here on
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                std::alloc::handle_alloc_error(
                    std::alloc::Layout::from_size_align(bytes, 4096).expect("a layout"),
                );
            }
            return SlabStore {
                ptr: p.cast(),
                len: n,
                mapped: bytes,
            };
        }
        // (no pages of its own: zeroed elements from the allocator)
        let mut v = Vec::with_capacity(n);
        // SAFETY: zero bytes are a value of `T` (`Zeroed`); the capacity is `n`
        unsafe {
            std::ptr::write_bytes(v.as_mut_ptr(), 0, n);
            v.set_len(n);
        }
        SlabStore::new(v)
    }
}

impl<T> Slab<T> {
    /// This view, used by partition `me`, with `owner[i / stride]` the partition that owns
    /// element `i` (`owner` must live as long as the view): debug builds then check each
    /// access. An empty array (a part of the router this network does not have) has nothing
    /// to check.
    #[allow(unused_variables, unused_mut)]
    pub(crate) fn owned_by(mut self, owner: &[u16], stride: usize, me: u16) -> Slab<T> {
        #[cfg(debug_assertions)]
        if self.len > 0 {
            assert_eq!(owner.len() * stride, self.len);
            self.owner = owner.as_ptr();
            self.stride = stride;
            self.me = me;
        }
        self
    }

    /// Asks for huge pages over elements `lo..hi` (the whole 2 MiB pages inside them only,
    /// and only for a run of at least `hugepages::THRESHOLD` bytes): for a store of zero pages
    /// ([`SlabStore::zeroed`]) of which a process writes the runs it owns ([`runs`]).
    pub(crate) fn advise(&self, lo: usize, hi: usize) {
        assert!(
            lo <= hi && hi <= self.len,
            "elements {lo}..{hi} of {}",
            self.len
        );
        let bytes = (hi - lo) * std::mem::size_of::<T>();
        super::hugepages::advise(self.ptr.wrapping_add(lo).cast(), bytes);
    }

    /// Elements in the array.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    fn check(&self, i: usize) {
        #[cfg(debug_assertions)]
        if !self.owner.is_null() {
            // SAFETY: `owner` has `len` entries (checked in `owned_by`) and lives as long as
            // the view; `i < len` was checked by the caller.
            let o = unsafe { *self.owner.add(i / self.stride) };
            debug_assert_eq!(
                o,
                self.me,
                "partition {} touched element {i} of a slab of {}, which partition {o} owns",
                self.me,
                std::any::type_name::<T>()
            );
        }
        let _ = i;
    }

    /// Element `i`, if there is one (for prefetching: no ownership check, nothing is read
    /// through it but an address).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        // SAFETY: in bounds; see the module's invariant.
        (i < self.len).then(|| unsafe { &*self.ptr.add(i) })
    }

    /// Every element, for a reader when no partition runs.
    ///
    /// # Safety
    /// No partition may be running: the caller reads elements other partitions own.
    pub(crate) unsafe fn all(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised elements (the module's invariant); no
        // partition writes them meanwhile (the caller's contract).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The longest runs `lo..hi` of `0..n` in which `mine` holds for every index, in order.
pub(crate) fn runs(n: usize, mine: impl Fn(usize) -> bool) -> impl Iterator<Item = (usize, usize)> {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < n && !mine(i) {
            i += 1;
        }
        let lo = i;
        while i < n && mine(i) {
            i += 1;
        }
        (lo < i).then_some((lo, i))
    })
}

/// A slab indexed past its end: a bug, reported as a `Vec` would.
#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(i: usize, len: usize) -> ! {
    panic!("index out of bounds: the len is {len} but the index is {i}")
}

impl<T> std::ops::Index<usize> for Slab<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        if i >= self.len {
            out_of_bounds(i, self.len);
        }
        self.check(i);
        // SAFETY: in bounds; the module's invariant says no other partition touches it.
        unsafe { &*self.ptr.add(i) }
    }
}

impl<T> std::ops::IndexMut<usize> for Slab<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        if i >= self.len {
            out_of_bounds(i, self.len);
        }
        self.check(i);
        // SAFETY: in bounds; only the owning partition holds a reference to this element
        // (the module's invariant), and `&mut self` keeps this view from giving out another.
        unsafe { &mut *self.ptr.add(i) }
    }
}

impl<T> std::ops::Index<std::ops::Range<usize>> for Slab<T> {
    type Output = [T];
    #[inline]
    fn index(&self, r: std::ops::Range<usize>) -> &[T] {
        assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: in bounds; a range is read only within one owner's elements (a channel's
        // virtual channels, a router's ports).
        unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.end - r.start) }
    }
}

/// A [`Slab`] that keeps its store alive: what the network's state is made of. Cloning it
/// gives another view of the same elements (for another partition).
pub(crate) struct SharedVec<T> {
    view: Slab<T>,
    _store: std::sync::Arc<SlabStore<T>>,
}

impl<T> Clone for SharedVec<T> {
    fn clone(&self) -> Self {
        SharedVec {
            view: self.view,
            _store: self._store.clone(),
        }
    }
}

impl<T: Zeroed> SharedVec<T> {
    /// `n` elements of zero bytes that take memory only where they are written
    /// ([`SlabStore::zeroed`]).
    pub(crate) fn zeroed(n: usize) -> SharedVec<T> {
        let mut store = SlabStore::zeroed(n);
        let view = store.view();
        SharedVec {
            view,
            _store: std::sync::Arc::new(store),
        }
    }

    /// Sets every element back to zero bytes, giving a store of pages of its own
    /// ([`SlabStore::zeroed`]) back to the system (`madvise(MADV_DONTNEED)`: its pages read as
    /// the kernel's zero page again, and take no memory until written).
    ///
    /// # Safety
    /// No partition runs and no reference to an element lives: the caller holds the only
    /// use of the store from here on.
    pub(crate) unsafe fn wipe(&self) {
        const { assert!(!std::mem::needs_drop::<T>()) };
        let st = &*self._store;
        #[cfg(unix)]
        if st.mapped > 0 {
            // SAFETY: the store's own mapping, whole; its elements are plain data (nothing to
            // drop), of which zero bytes are a value (`Zeroed`), and nothing reads them meanwhile
            // (the caller's promise)
            let failed =
                unsafe { libc::madvise(st.ptr.cast(), st.mapped, libc::MADV_DONTNEED) != 0 };
            if !failed {
                return;
            }
        }
        // SAFETY: `len` elements from `ptr`, which nothing reads meanwhile; zero bytes are a
        // value of `T`
        unsafe { std::ptr::write_bytes(st.ptr, 0, st.len) };
    }
}

impl<T> SharedVec<T> {
    /// The elements of `v`, shared from now on.
    pub(crate) fn new(v: Vec<T>) -> SharedVec<T> {
        let mut store = SlabStore::new(v);
        let view = store.view();
        SharedVec {
            view,
            _store: std::sync::Arc::new(store),
        }
    }

    /// This view as partition `me` uses it, checked in debug builds against `owner` (see
    /// [`Slab::owned_by`]).
    pub(crate) fn owned_by(mut self, owner: &[u16], stride: usize, me: u16) -> SharedVec<T> {
        self.view = self.view.owned_by(owner, stride, me);
        self
    }
}

impl<T> SharedVec<T> {
    /// A view of the same elements that checks no owner: for reading everything when no
    /// partition runs.
    pub(crate) fn whole(&self) -> SharedVec<T> {
        #[allow(unused_mut)] // (changed in debug builds only)
        let mut v = self.clone();
        #[cfg(debug_assertions)]
        {
            v.view.owner = std::ptr::null();
        }
        v
    }
}

impl<T> std::ops::Deref for SharedVec<T> {
    type Target = Slab<T>;
    #[inline(always)]
    fn deref(&self) -> &Slab<T> {
        &self.view
    }
}

impl<T> std::ops::DerefMut for SharedVec<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Slab<T> {
        &mut self.view
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_of_one_store_see_the_same_elements() {
        let mut store = SlabStore::new(vec![0u32; 8]);
        let mut a = store.view();
        let b = store.view();
        a[3] = 7;
        assert_eq!(b[3], 7);
        assert_eq!(&b[2..4], &[0, 7]);
        assert_eq!((a.len(), b.get(8)), (8, None));
        assert_eq!(store.as_slice()[3], 7);
    }

    #[test]
    fn runs_are_the_longest_stretches_where_the_test_holds() {
        let owner = [1, 1, 0, 1, 0, 0, 1, 1, 1];
        let r: Vec<_> = runs(owner.len(), |i| owner[i] == 1).collect();
        assert_eq!(r, vec![(0, 2), (3, 4), (6, 9)]);
        assert_eq!(runs(4, |_| false).count(), 0);
        assert_eq!(runs(4, |_| true).collect::<Vec<_>>(), vec![(0, 4)]);
    }

    /// Elements of a zeroed store that were written are dropped with it, once; those left
    /// zero drop as nothing.
    #[test]
    fn a_zeroed_store_drops_what_was_written_in_it() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static DROPPED: AtomicUsize = AtomicUsize::new(0);
        struct Counted(u32);
        impl Drop for Counted {
            fn drop(&mut self) {
                DROPPED.fetch_add(self.0 as usize, Ordering::Relaxed);
            }
        }
        // SAFETY: an integer; dropping zero adds nothing
        unsafe impl Zeroed for Counted {}
        let mut store = SlabStore::<Counted>::zeroed(100_000);
        let mut v = store.view();
        v[5] = Counted(3);
        v[99_999] = Counted(40);
        v.advise(0, 100_000);
        assert_eq!(DROPPED.load(Ordering::Relaxed), 0);
        drop(store);
        assert_eq!(DROPPED.load(Ordering::Relaxed), 43);
    }

    #[test]
    fn a_zeroed_store_reads_zero_and_keeps_what_is_written() {
        for n in [0usize, 1, 3, 100_000] {
            let mut store = SlabStore::<u64>::zeroed(n);
            let mut v = store.view();
            assert_eq!(v.len(), n);
            if n > 0 {
                v[n - 1] = 7;
                assert_eq!(store.as_slice()[n - 1], 7);
                assert_eq!(store.as_slice().iter().sum::<u64>(), 7);
            }
        }
    }

    /// A wiped store reads zero everywhere, through every view of it, whether it has pages
    /// of its own (given back to the system) or came from the allocator.
    #[test]
    fn a_wiped_store_reads_zero_through_every_view() {
        for (n, mapped) in [(100_000usize, true), (1, true), (0, true), (10, false)] {
            let mut a = if mapped {
                SharedVec::<u64>::zeroed(n)
            } else {
                SharedVec::new(vec![0u64; n])
            };
            let b = a.clone();
            for i in 0..n {
                a[i] = i as u64 + 1;
            }
            assert_eq!(b[0..n].iter().sum::<u64>(), (n * (n + 1) / 2) as u64);
            // SAFETY: no reference to an element lives across the call
            unsafe { b.wipe() };
            assert_eq!(
                (a.len(), a[0..n].iter().filter(|&&x| x != 0).count()),
                (n, 0)
            );
            // (written again after it, as any store)
            if n > 0 {
                a[n - 1] = 5;
                assert_eq!(b[n - 1], 5);
            }
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "partition 1 touched element 2")]
    fn a_partition_that_touches_another_ones_element_is_caught() {
        let owner = [0u16, 0, 0, 1];
        let mut store = SlabStore::new(vec![0u32; 4]);
        let mine = store.view().owned_by(&owner, 1, 1);
        let _ = mine[3];
        let _ = mine[2];
    }
}
