//! Per-rank random numbers for `math.random`: Lua's own generator is one per state, shared by
//! all coroutines and seeded from the clock; this one is one per rank and deterministic.
//!
//! xoshiro256** (Blackman and Vigna), the generator Lua 5.4 itself uses, 32 bytes per rank.
//! Every rank starts from the same state, derived from the scenario seed with ChaCha, so that
//! all ranks draw the same sequence (and so the same random permutation) until one reseeds.

use rand_chacha::rand_core::{RngCore, SeedableRng};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Xoshiro {
    s: [u64; 4],
}

// SAFETY: four words (zero words are a state, if a useless one: an MPI process leaves the
// random numbers of other processes' routers and ranks so, never drawing from them)
unsafe impl crate::perf::slab::Zeroed for Xoshiro {}

impl Xoshiro {
    /// The starting state for `seed`.
    pub(crate) fn from_seed(seed: u64) -> Xoshiro {
        let mut c = rand_chacha::ChaCha12Rng::seed_from_u64(seed);
        let mut s = [0u64; 4];
        for w in &mut s {
            *w = c.next_u64();
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Xoshiro { s }
    }

    /// The starting state of entity `id`'s own stream (a router's route choices): a function
    /// of the scenario seed and the entity's global id only, so that a stream draws the same
    /// numbers whichever partition or thread owns the entity. Seeded by SplitMix64 (Steele,
    /// Lea and Flood), cheap enough to make one per router of a million-node network.
    pub(crate) fn for_entity(seed: u64, id: u64) -> Xoshiro {
        let mut x = seed ^ id.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x6e65_7477_6f72_6b21;
        let mut s = [0u64; 4];
        for w in &mut s {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            *w = z ^ (z >> 31);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Xoshiro { s }
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A float uniform in [0, 1).
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An integer uniform in [lo, hi] (requires lo <= hi), without modulo bias.
    pub(crate) fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128) as u64; // fits: hi - lo < 2^64
        if span == u64::MAX {
            return self.next_u64() as i64;
        }
        let n = span + 1;
        let zone = u64::MAX - (u64::MAX - n + 1) % n;
        loop {
            let v = self.next_u64();
            if v <= zone {
                return (lo as i128 + (v % n) as i128) as i64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_bounds_hold() {
        let mut a = Xoshiro::from_seed(42);
        let mut b = Xoshiro::from_seed(42);
        let mut c = Xoshiro::from_seed(43);
        let xa: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
        let mut seen = [false; 6];
        for _ in 0..1000 {
            let v = a.range(1, 6);
            assert!((1..=6).contains(&v));
            seen[(v - 1) as usize] = true;
            let f = a.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn entity_streams_depend_on_seed_and_id_only_and_differ() {
        let first = |seed, id| Xoshiro::for_entity(seed, id).next_u64();
        assert_eq!(first(7, 3), first(7, 3));
        assert_ne!(first(7, 3), first(7, 4));
        assert_ne!(first(7, 3), first(8, 3));
    }
}
