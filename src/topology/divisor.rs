//! Division and remainder by a divisor fixed at set-up, as multiplications (Lemire, Kaser and
//! Kurz, "Faster remainder by direct computation", 2019). Routing in a cube needs a router's
//! coordinates, `(r / stride) % k` per dimension: a table of them is megabytes at 65,536 nodes
//! and missed the cache on most hops of a long run (a tenth of the time, by perf), a hardware
//! division costs tens of cycles, this a few.

/// A `u32` divisor with its 64-bit reciprocal `⌈2⁶⁴ / d⌉`; exact for every `u32` numerator.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Divisor {
    /// `⌈2⁶⁴ / d⌉`, or 0 for `d = 1` (handled apart: it does not fit).
    m: u64,
    d: u32,
}

impl Divisor {
    /// # Panics
    /// If `d` is 0.
    pub(crate) fn new(d: u32) -> Divisor {
        assert!(d > 0, "division by zero");
        let m = if d == 1 { 0 } else { u64::MAX / d as u64 + 1 };
        Divisor { m, d }
    }

    /// `n / d`.
    #[inline]
    pub(crate) fn quotient(self, n: u32) -> u32 {
        if self.d == 1 {
            return n;
        }
        ((self.m as u128 * n as u128) >> 64) as u32
    }

    /// `n % d`.
    #[inline]
    pub(crate) fn remainder(self, n: u32) -> u32 {
        if self.d == 1 {
            return 0;
        }
        let low = self.m.wrapping_mul(n as u64);
        ((low as u128 * self.d as u128) >> 64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    #[test]
    fn agrees_with_hardware_division() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let divisors = (1..=300u32).chain([1 << 16, 65_537, 1_000_003, u32::MAX - 1, u32::MAX]);
        for d in divisors {
            let x = Divisor::new(d);
            let edges = [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX];
            let randoms = (0..200).map(|_| rng.next_u32());
            for n in edges.into_iter().chain(randoms) {
                assert_eq!((x.quotient(n), x.remainder(n)), (n / d, n % d), "{n} / {d}");
            }
        }
    }
}
