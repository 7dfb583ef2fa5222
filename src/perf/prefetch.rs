//! Software prefetch: a hint that a cache line will be read soon, so that its miss overlaps
//! with the work before it instead of stalling the work that needs it.
//!
//! At 65,536 nodes the network's state is hundreds of megabytes and a hop's cost is the cache
//! lines it touches (`net/router.rs`, "Layout"). The event queue knows which events come next
//! ([`crate::sim::EventQueue::ahead`]), and an event names the channel or packet it will
//! touch, so the engine asks for those lines a few events early. A prefetch never faults and
//! changes nothing the program can observe, so it cannot change a result; on targets other
//! than x86-64 it does nothing.

/// Asks for the cache line holding the start of `x` (no effect on the program's results).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetch` reads nothing and writes nothing; the address comes from a live
    // reference, and the instruction does not fault on any address anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
