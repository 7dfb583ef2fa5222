//! Starting Valgrind's instrumentation from inside a run, so that `bench/cachesim --skip`
//! simulates the caches over a window of events deep in a run (the congested steps of a large
//! all-to-all) rather than over its first events. The engine calls it only when built with the
//! `valgrind` feature, which `bench/cachesim` turns on; a normal build never does.
//!
//! Run under `valgrind --tool=callgrind --instr-atstart=no` with `MGENSIM_INSTR_AT=N` in the
//! environment: at the first look at the limits once `N` events are done (every
//! [`crate::limits::CHECK_EVERY`] events, so exactly at `N` when `N` is a multiple of it),
//! the engine makes callgrind's `START_INSTRUMENTATION` client request.
#![cfg_attr(not(feature = "valgrind"), allow(dead_code))]

/// The event count at which to start the instrumentation, from `MGENSIM_INSTR_AT`
/// (`u64::MAX`, never, when it is not set or not a number).
pub(crate) fn start_at() -> u64 {
    std::env::var("MGENSIM_INSTR_AT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(u64::MAX)
}

/// `VG_USERREQ_TOOL_BASE('C', 'T') + 4`: callgrind's `START_INSTRUMENTATION` request
/// (`callgrind.h`).
const START_INSTRUMENTATION: u64 = 0x4354_0004;

/// Asks callgrind to start instrumenting. Outside Valgrind this does nothing: the request is
/// a marker sequence whose rotations of `rdi` add up to two full turns, then an exchange of
/// `rbx` with itself. On targets other than x86-64 it does nothing at all.
pub(crate) fn start_instrumentation() {
    #[cfg(target_arch = "x86_64")]
    {
        let args: [u64; 6] = [START_INSTRUMENTATION, 0, 0, 0, 0, 0];
        let mut result: u64 = 0;
        // SAFETY: the sequence only rotates `rdi` (declared clobbered) back to where it was and
        // exchanges `rbx` with itself; Valgrind, if present, reads the six words at `rax`, which
        // live until the asm is done, and writes its answer into `rdx`.
        unsafe {
            std::arch::asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                inout("rdx") result,
                in("rax") args.as_ptr(),
                inout("rdi") 0u64 => _,
                options(nostack),
            );
        }
        let _ = result;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_valgrind_the_request_changes_nothing() {
        // values live in registers across the request, the rotated one included
        let mut acc = [0u64; 8];
        for (i, a) in acc.iter_mut().enumerate() {
            *a = std::hint::black_box((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        }
        start_instrumentation();
        let sum = acc.iter().fold(0u64, |s, &a| s.wrapping_add(a));
        let expected = (0..8u64).fold(0u64, |s, i| {
            s.wrapping_add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        });
        assert_eq!(sum, expected);
    }
}
