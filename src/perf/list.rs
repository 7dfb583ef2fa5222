//! A growable array of plain values whose all-zero bytes are the empty list.
//!
//! A rank keeps two short lists (its unpolled puts, its outstanding transfers) and a process
//! of an MPI job builds every rank of the run but writes only its own: the others stay zero
//! pages it never touches (`perf/slab.rs`, [`Zeroed`]). A `Vec`'s empty value is not zero
//! bytes (its pointer is never null), so the rank keeps a [`List`] instead: the same layout
//! and growth as a `Vec` (a pointer and two counts, doubling from 4 elements), with a null
//! pointer while nothing was ever pushed.
//!
//! **Invariant.** `ptr` is null exactly when `cap` is 0; otherwise it points to an allocation
//! of `cap` elements (`Layout::array::<T>(cap)`) of which the first `len` are values.
//! Costs: a push, an index and a `swap_remove` are a `Vec`'s; the list is 16 bytes.
//!
//! [`Zeroed`]: super::slab::Zeroed

use std::alloc::{self, Layout};

/// A growable array of `Copy` values, empty as zero bytes (see the module's doc).
pub(crate) struct List<T: Copy> {
    ptr: *mut T,
    len: u32,
    cap: u32,
}

// SAFETY: a list owns its elements as a `Vec` does
unsafe impl<T: Copy + Send> Send for List<T> {}
unsafe impl<T: Copy + Sync> Sync for List<T> {}

impl<T: Copy> List<T> {
    /// The empty list (zero bytes; no allocation).
    pub(crate) const fn new() -> List<T> {
        List {
            ptr: std::ptr::null_mut(),
            len: 0,
            cap: 0,
        }
    }

    /// Appends `v`.
    #[inline]
    pub(crate) fn push(&mut self, v: T) {
        if self.len == self.cap {
            self.grow();
        }
        // SAFETY: `len < cap` after `grow`, so the slot is inside the allocation
        unsafe { self.ptr.add(self.len as usize).write(v) };
        self.len += 1;
    }

    /// Removes element `i` and puts the last in its place (`Vec::swap_remove`).
    ///
    /// # Panics
    /// If `i` is out of bounds.
    #[inline]
    pub(crate) fn swap_remove(&mut self, i: usize) -> T {
        let last = self.len as usize - 1;
        let s = &mut **self;
        let v = s[i];
        s[i] = s[last];
        self.len -= 1;
        v
    }

    #[cold]
    fn grow(&mut self) {
        const { assert!(std::mem::size_of::<T>() > 0) };
        let cap = if self.cap == 0 {
            4
        } else {
            self.cap
                .checked_mul(2)
                .expect("a list of fewer than 2^32 elements")
        };
        let new = Layout::array::<T>(cap as usize).expect("a list's layout");
        // SAFETY: a fresh allocation of a non-zero size, or the list's own grown (its layout
        // is `cap`'s: the invariant)
        let p = unsafe {
            if self.ptr.is_null() {
                alloc::alloc(new)
            } else {
                alloc::realloc(self.ptr.cast(), Self::layout(self.cap), new.size())
            }
        };
        if p.is_null() {
            alloc::handle_alloc_error(new);
        }
        self.ptr = p.cast();
        self.cap = cap;
    }

    fn layout(cap: u32) -> Layout {
        Layout::array::<T>(cap as usize).expect("a list's layout")
    }
}

impl<T: Copy> Default for List<T> {
    fn default() -> Self {
        List::new()
    }
}

impl<T: Copy> Drop for List<T> {
    fn drop(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: the list's own allocation, of `cap` elements (the invariant)
            unsafe { alloc::dealloc(self.ptr.cast(), Self::layout(self.cap)) };
        }
    }
}

impl<T: Copy> std::ops::Deref for List<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        if self.ptr.is_null() {
            return &[];
        }
        // SAFETY: `len` values from `ptr` (the invariant)
        unsafe { std::slice::from_raw_parts(self.ptr, self.len as usize) }
    }
}

impl<T: Copy> std::ops::DerefMut for List<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if self.ptr.is_null() {
            return &mut [];
        }
        // SAFETY: `len` values from `ptr`, owned by this list (the invariant)
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len as usize) }
    }
}

impl<T: Copy + std::fmt::Debug> std::fmt::Debug for List<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        let mut l = List::new();
        for v in it {
            l.push(v);
        }
        l
    }
}

/// As a sequence, as a `Vec` is (the same bytes in `packed.rs`'s format).
impl<T: Copy + serde::Serialize> serde::Serialize for List<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de, T: Copy + serde::Deserialize<'de>> serde::Deserialize<'de> for List<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<T>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Zero bytes read as the empty list, and dropping it frees nothing.
    #[test]
    fn zero_bytes_are_the_empty_list() {
        let z: std::mem::MaybeUninit<List<(i64, u32)>> = std::mem::MaybeUninit::zeroed();
        // SAFETY: zero bytes are the empty list (the module's invariant)
        let mut l = unsafe { z.assume_init() };
        assert!(l.is_empty());
        assert_eq!(l.iter().count(), 0);
        l.push((7, 1));
        assert_eq!(&l[..], &[(7, 1)]);
        assert_eq!(std::mem::size_of::<List<(i64, u32)>>(), 16);
    }

    proptest! {
        /// Any run of pushes and swap-removes leaves what a `Vec` would, and its bytes in the
        /// end state's format are a `Vec`'s.
        #[test]
        fn a_list_does_what_a_vec_does(ops in proptest::collection::vec((any::<bool>(), any::<u16>()), 0..200)) {
            let (mut l, mut v) = (List::new(), Vec::new());
            for (push, x) in ops {
                if push || v.is_empty() {
                    l.push(x);
                    v.push(x);
                } else {
                    let i = x as usize % v.len();
                    prop_assert_eq!(l.swap_remove(i), v.swap_remove(i));
                }
                prop_assert_eq!(&l[..], &v[..]);
            }
            // (`packed.rs`'s format: bincode with its default options)
            use bincode::Options;
            let o = || bincode::DefaultOptions::new();
            let (a, b) = (o().serialize(&l).unwrap(), o().serialize(&v).unwrap());
            prop_assert_eq!(&a, &b);
            let back: List<u16> = o().deserialize(&a).unwrap();
            prop_assert_eq!(&back[..], &v[..]);
        }
    }
}
