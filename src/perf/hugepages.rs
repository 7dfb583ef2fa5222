//! Large allocations on transparent huge pages.
//!
//! At 65,536 nodes the network's state (channels, packets, the event queue's chunks) is
//! hundreds of megabytes, read a line here and a line there. With 4 KiB pages nearly every one
//! of those reads also misses the TLB, and the page walk is more memory traffic. Linux backs
//! memory with 2 MiB pages when asked (`madvise(MADV_HUGEPAGE)`; most distributions enable
//! transparent huge pages only on request), which covers the same state with 512 times fewer
//! TLB entries (what that won: `docs/performance.md`).
//!
//! [`HugePages`] is the system allocator, plus that request for every allocation (or growth)
//! of at least [`THRESHOLD`] bytes, over the whole 2 MiB pages inside it; a large block grows
//! by moving (see `realloc`). Where the kernel has no huge pages (or on other systems) it is
//! the system allocator. [`map_large_blocks`] and [`trim`] say how the C allocator below it
//! gives memory back.

use std::alloc::{GlobalAlloc, Layout, System};

/// Allocations at least this large are backed by huge pages where possible.
pub(crate) const THRESHOLD: usize = 4 << 20;
/// The huge page size of x86-64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// The system allocator, asking for huge pages for large blocks (see the module's doc).
pub struct HugePages;

/// Asks the kernel to back the whole huge pages within `[p, p + size)` with huge pages.
#[inline]
pub(crate) fn advise(p: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    if size >= THRESHOLD && !p.is_null() {
        let start = (p as usize).next_multiple_of(HUGE_PAGE);
        let end = (p as usize + size) & !(HUGE_PAGE - 1);
        if end > start {
            // SAFETY: the range lies within a block the allocator just handed out; the advice
            // changes how it is backed, never its contents, and a failure (no huge pages) is
            // harmless, so the result is ignored.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (p, size);
}

// SAFETY: every call is passed on to `System` unchanged; `advise` only adds advice about
// memory the caller now owns.
unsafe impl GlobalAlloc for HugePages {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller keeps `GlobalAlloc::alloc`'s contract, passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        advise(p, layout.size());
        p
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }
    #[inline]
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` came from this allocator (the caller's contract), which is `System`'s.
        unsafe { System.dealloc(p, layout) }
    }
    /// A large block grows into a new block, advised before the old contents are copied in:
    /// growing in place (`mremap`) would keep the pages already touched at 4 KiB, half of a
    /// vector that doubles.
    #[inline]
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size < THRESHOLD || new_size <= layout.size() {
            // SAFETY: the caller's `realloc` contract, passed on unchanged.
            return unsafe { System.realloc(p, layout, new_size) };
        }
        // SAFETY: `new_size` is non-zero and, rounded up to the align of a valid layout, does
        // not overflow (`realloc`'s contract); `q` is a fresh block of `new_size` >
        // `layout.size()` bytes, so the copy stays inside both, and `p` is freed once, with
        // the layout it was made with.
        let q = unsafe {
            let new = Layout::from_size_align_unchecked(new_size, layout.align());
            self.alloc(new)
        };
        if !q.is_null() {
            // SAFETY: as above.
            unsafe {
                std::ptr::copy_nonoverlapping(p, q, layout.size());
                System.dealloc(p, layout);
            }
        }
        q
    }
}

/// Blocks at least this large (bytes) are mapped from the system each on its own, and
/// unmapped when freed ([`map_large_blocks`]).
pub(crate) const MAPPED: usize = 256 << 10;

/// Has the C allocator map every block of at least [`MAPPED`] bytes on its own and give it
/// back to the system when it is freed (glibc's `M_MMAP_THRESHOLD`). glibc otherwise raises
/// that threshold to the size of each mapped block freed, up to 32 MiB: after the first such
/// free, the buffers of a partition that come and go by megabytes (cut messages, an epoch's
/// arrivals, a step's burst of events) are carved from the heap, and the holes they leave are
/// kept. A fixed threshold keeps them out of the heap (what it saves at a million ranks:
/// `docs/performance.md`). Call it once, before the simulation allocates; elsewhere it does
/// nothing.
pub fn map_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` changes a setting of the allocator, taking its lock; blocks already
    // handed out stay valid whichever way they were made.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MAPPED as libc::c_int);
    }
}

/// Gives the pages of freed blocks back to the operating system (glibc's `malloc_trim`: the
/// whole pages inside free chunks, anywhere in the heap). Freed memory otherwise stays in the
/// process for the allocator to reuse, and a large block asked for next is mapped afresh
/// beside it, on top of the peak. Elsewhere it does nothing.
pub(crate) fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases pages of chunks that are free; it takes the
    // allocator's locks like any other call into it.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_keep_their_contents_through_growth() {
        let a = HugePages;
        let small = Layout::from_size_align(THRESHOLD / 2, 64).unwrap();
        // SAFETY: the layouts are non-zero, and each block is freed once with its own layout
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            for i in 0..small.size() {
                *p.add(i) = (i % 251) as u8;
            }
            let big = 3 * THRESHOLD;
            let q = a.realloc(p, small, big);
            assert!(!q.is_null());
            for i in 0..small.size() {
                assert_eq!(*q.add(i), (i % 251) as u8);
            }
            *q.add(big - 1) = 7;
            assert_eq!(*q.add(big - 1), 7);
            a.dealloc(q, Layout::from_size_align(big, 64).unwrap());
            let z = Layout::from_size_align(THRESHOLD, 64).unwrap();
            let r = a.alloc_zeroed(z);
            assert!((0..z.size()).step_by(4096).all(|i| *r.add(i) == 0));
            a.dealloc(r, z);
        }
    }
}
