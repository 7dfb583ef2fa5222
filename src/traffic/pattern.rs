//! Where a synthetic message goes: the destination patterns of BookSim and CODES, on the ranks
//! of a job (`0 .. n − 1`, placed on nodes as any job's are), and the sizes messages take.
//!
//! The bit patterns are BookSim's (`traffic.cpp`) where they are defined there, and extended to
//! any count of ranks where a natural extension exists:
//! - `bitcomp`: `n − 1 − s` (BookSim's `~s & (n − 1)` when `n` is a power of two);
//! - `bitrev`, `shuffle`: the `log2 n` bits of `s` reversed, rotated left by one (`n` a power
//!   of two);
//! - `transpose`: on an `m × m` square of ranks, `s = a + m·b` goes to `b + m·a` (BookSim's swap
//!   of the high and low halves of the bits when `n = 4^k`);
//! - `tornado`, `neighbor`: on a grid of digits (`workload.grid`, the network's own grid by
//!   default), each digit `x` of `k` values becomes `x + ⌈k/2⌉ − 1` (tornado) or `x + 1`
//!   (neighbour), modulo `k`, in every dimension (BookSim's, with `xr = 1`);
//! - `shift`: `s + by` modulo `n`;
//! - `permutation`: a random permutation of the ranks, fixed for the run by `workload.seed`
//!   (BookSim's `randperm`: a rank may be its own image);
//! - `uniform`: every rank equally likely (the source included or not: `workload.to_self`);
//! - `hotspot`: with probability `fraction` one of the hot-spot ranks, equally likely, else
//!   uniform;
//! - `matrix`: each destination with probability proportional to the matrix's weight.
//!
//! A destination equal to its source is dropped unless `to_self` (a rank whose every
//! destination is itself then sends nothing); a random pattern draws among the other ranks.

use crate::random::Xoshiro;
use std::sync::Arc;

/// Where each message of a source goes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Pattern {
    /// Every rank equally likely.
    Uniform,
    /// A fixed random permutation: `map[s]`.
    Permutation(Arc<[u32]>),
    /// `a + m·b → b + m·a` on an `m × m` square (`side` = m).
    Transpose(u32),
    /// `n − 1 − s`.
    BitComplement,
    /// The `bits` bits of `s` reversed.
    BitReverse(u32),
    /// The `bits` bits of `s` rotated left by one.
    Shuffle(u32),
    /// Each digit of the grid moved by `⌈k/2⌉ − 1`.
    Tornado(Vec<u32>),
    /// Each digit of the grid moved by one.
    Neighbor(Vec<u32>),
    /// `s + by` modulo `n`.
    Shift(u32),
    /// A hot-spot rank (sorted, distinct) with probability `fraction`, else uniform.
    Hotspot(Arc<[u32]>, f64),
    /// A traffic matrix.
    Matrix(Arc<Matrix>),
}

/// The names `workload.traffic` takes (aliases after the first of each).
pub(crate) const NAMES: [&str; 11] = [
    "uniform",
    "permutation",
    "transpose",
    "bitcomp",
    "bitrev",
    "shuffle",
    "tornado",
    "neighbor",
    "shift",
    "hotspot",
    "matrix",
];

/// A traffic matrix: for each source, its destinations with their cumulative weights (rows
/// in compressed form), and each source's share of the busiest source's rate.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct Matrix {
    /// Row `s` is `start[s] .. start[s + 1]` of `dst` and `cum`.
    pub(crate) start: Vec<u32>,
    /// Destinations, by row.
    pub(crate) dst: Vec<u32>,
    /// Cumulative weights within the row.
    pub(crate) cum: Vec<f64>,
    /// Each row's sum over the largest row's: the share of `load` the source offers.
    pub(crate) share: Vec<f64>,
}

impl Matrix {
    /// The matrix of `entries` `(source, destination, weight)` over `n` ranks (weights > 0;
    /// entries to the source itself left out unless `to_self`).
    pub(crate) fn new(n: u32, entries: &[(u32, u32, f64)], to_self: bool) -> Matrix {
        let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n as usize];
        for &(s, d, w) in entries {
            if s != d || to_self {
                rows[s as usize].push((d, w));
            }
        }
        let mut m = Matrix::default();
        let mut sums = Vec::with_capacity(n as usize);
        for row in &mut rows {
            row.sort_by_key(|&(d, _)| d);
            m.start.push(m.dst.len() as u32);
            let mut c = 0.0;
            for &(d, w) in row.iter() {
                c += w;
                m.dst.push(d);
                m.cum.push(c);
            }
            sums.push(c);
        }
        m.start.push(m.dst.len() as u32);
        let most = sums.iter().copied().fold(0.0, f64::max);
        m.share = sums
            .iter()
            .map(|&s| if most > 0.0 { s / most } else { 0.0 })
            .collect();
        m
    }

    /// Row `s`: destinations and cumulative weights.
    fn row(&self, s: u32) -> (&[u32], &[f64]) {
        let (a, b) = (
            self.start[s as usize] as usize,
            self.start[s as usize + 1] as usize,
        );
        (&self.dst[a..b], &self.cum[a..b])
    }
}

/// An integer uniform in `0 .. n` (`n` ≥ 1), by a 64 × 64-bit multiply: no division, no loop
/// (its bias, below `n / 2^64`, never shows).
#[inline]
pub(crate) fn below(rng: &mut Xoshiro, n: u32) -> u32 {
    ((rng.next_u64() as u128 * n as u128) >> 64) as u32
}

impl Pattern {
    /// The destination of a message from rank `s` of `n`, or None when it sends nothing (a
    /// destination that is itself, without `to_self`).
    #[inline]
    pub(crate) fn dest(&self, s: u32, n: u32, to_self: bool, rng: &mut Xoshiro) -> Option<u32> {
        let d = match self {
            Pattern::Uniform => return uniform(s, n, to_self, rng),
            Pattern::Hotspot(hot, fraction) => {
                if *fraction < 1.0 && rng.next_f64() >= *fraction {
                    return uniform(s, n, to_self, rng);
                }
                match (to_self, hot.binary_search(&s)) {
                    (false, Ok(_)) if hot.len() == 1 => {
                        // (its only hot spot is itself: it sends uniformly instead)
                        return uniform(s, n, false, rng);
                    }
                    (false, Ok(i)) => {
                        let k = below(rng, hot.len() as u32 - 1) as usize;
                        hot[k + (k >= i) as usize]
                    }
                    _ => hot[below(rng, hot.len() as u32) as usize],
                }
            }
            Pattern::Matrix(m) => {
                let (dst, cum) = m.row(s);
                let total = *cum.last()?;
                let x = rng.next_f64() * total;
                let i = cum.partition_point(|&c| c <= x).min(dst.len() - 1);
                return Some(dst[i]);
            }
            _ => self.fixed(s, n),
        };
        (d != s || to_self).then_some(d)
    }

    /// The destination of rank `s` under a pattern that draws nothing.
    fn fixed(&self, s: u32, n: u32) -> u32 {
        match self {
            Pattern::Permutation(map) => map[s as usize],
            Pattern::Transpose(m) => (s / m) + m * (s % m),
            Pattern::BitComplement => n - 1 - s,
            Pattern::BitReverse(bits) => {
                if *bits == 0 {
                    s
                } else {
                    s.reverse_bits() >> (32 - bits)
                }
            }
            Pattern::Shuffle(bits) => {
                if *bits == 0 {
                    s
                } else {
                    ((s << 1) | (s >> (bits - 1))) & ((1 << bits) - 1)
                }
            }
            Pattern::Tornado(grid) => digits(s, grid, |k| k.div_ceil(2) - 1),
            Pattern::Neighbor(grid) => digits(s, grid, |_| 1),
            Pattern::Shift(by) => ((s as u64 + *by as u64) % n as u64) as u32,
            Pattern::Uniform | Pattern::Hotspot(..) | Pattern::Matrix(_) => s,
        }
    }

    /// The share of `load` rank `s` offers: 0 for a rank that sends nothing, a matrix row's
    /// weight over the heaviest row's, else 1.
    pub(crate) fn share(&self, s: u32, n: u32, to_self: bool) -> f64 {
        match self {
            Pattern::Uniform | Pattern::Hotspot(..) => {
                if n > 1 || to_self {
                    1.0
                } else {
                    0.0
                }
            }
            Pattern::Matrix(m) => m.share[s as usize],
            _ => {
                if self.fixed(s, n) != s || to_self {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// The destinations of rank `s` with their probabilities (for the routing's ideal bound).
    pub(crate) fn spread(&self, s: u32, n: u32, to_self: bool) -> Vec<(u32, f64)> {
        let uniform_all = |weight: f64| -> Vec<(u32, f64)> {
            let others = if to_self { n } else { n - 1 };
            (0..n)
                .filter(|&d| d != s || to_self)
                .map(|d| (d, weight / others as f64))
                .collect()
        };
        match self {
            Pattern::Uniform => {
                if n > 1 || to_self {
                    uniform_all(1.0)
                } else {
                    Vec::new()
                }
            }
            Pattern::Hotspot(hot, f) => {
                let mut out = if *f < 1.0 {
                    uniform_all(1.0 - f)
                } else {
                    Vec::new()
                };
                let mine = hot.binary_search(&s).is_ok() && !to_self;
                let targets: Vec<u32> =
                    hot.iter().copied().filter(|&h| h != s || to_self).collect();
                if targets.is_empty() && mine {
                    out.extend(uniform_all(*f));
                } else {
                    for &h in &targets {
                        out.push((h, f / targets.len() as f64));
                    }
                }
                out
            }
            Pattern::Matrix(m) => {
                let (dst, cum) = m.row(s);
                let total = cum.last().copied().unwrap_or(0.0);
                let mut before = 0.0;
                dst.iter()
                    .zip(cum)
                    .map(|(&d, &c)| {
                        let w = (c - before) / total;
                        before = c;
                        (d, w)
                    })
                    .collect()
            }
            _ => {
                let d = self.fixed(s, n);
                if d != s || to_self {
                    vec![(d, 1.0)]
                } else {
                    Vec::new()
                }
            }
        }
    }
}

/// A uniform destination among the `n` ranks, `s` itself included or not.
#[inline]
fn uniform(s: u32, n: u32, to_self: bool, rng: &mut Xoshiro) -> Option<u32> {
    if to_self {
        Some(below(rng, n))
    } else if n > 1 {
        Some((s + 1 + below(rng, n - 1)) % n)
    } else {
        None
    }
}

/// `s` as digits of `grid` (first digit fastest), each digit `x` of `k` values moved to
/// `x + step(k)` modulo `k`.
fn digits(s: u32, grid: &[u32], step: impl Fn(u32) -> u32) -> u32 {
    let (mut rest, mut offset, mut out) = (s, 1u32, 0u32);
    for &k in grid {
        let x = rest % k;
        rest /= k;
        out += offset * ((x + step(k)) % k);
        offset *= k;
    }
    out
}

/// A random permutation of `0 .. n` from `seed` (Fisher and Yates).
pub(crate) fn permutation(n: u32, seed: u64) -> Arc<[u32]> {
    let mut rng = Xoshiro::for_entity(seed, 0x7065_726d_0000_0000);
    let mut map: Vec<u32> = (0..n).collect();
    for i in (1..n as usize).rev() {
        let j = below(&mut rng, i as u32 + 1) as usize;
        map.swap(i, j);
    }
    map.into()
}

/// Message sizes: payload bytes, with their cumulative weights (one entry: a fixed size).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sizes {
    /// `(payload bytes, cumulative weight)`, the weights summing to 1.
    pub(crate) entries: Vec<(u64, f64)>,
}

impl Sizes {
    /// The payload of the next message.
    #[inline]
    pub(crate) fn draw(&self, rng: &mut Xoshiro) -> u64 {
        if self.entries.len() == 1 {
            return self.entries[0].0;
        }
        let x = rng.next_f64();
        let i = self.entries.partition_point(|&(_, c)| c <= x);
        self.entries[i.min(self.entries.len() - 1)].0
    }

    /// The probability of each size.
    pub(crate) fn weights(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        let mut before = 0.0;
        self.entries.iter().map(move |&(b, c)| {
            let w = c - before;
            before = c;
            (b, w)
        })
    }
}

/// Packets a message of `payload` bytes is cut into (packets of at most `mtu`; a message of
/// no payload is one bare header), and its bytes on the wire.
#[inline]
pub(crate) fn cut(payload: u64, mtu: u64, header: u64) -> (u64, u64) {
    let packets = payload.div_ceil(mtu).max(1);
    (packets, payload + packets * header)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(p: &Pattern, n: u32) -> Vec<u32> {
        let mut rng = Xoshiro::for_entity(1, 1);
        (0..n)
            .map(|s| p.dest(s, n, true, &mut rng).unwrap())
            .collect()
    }

    #[test]
    fn the_bit_patterns_are_booksims_on_64_ranks() {
        // BookSim: bitcomp ~s & 63; transpose swaps the 3-bit halves; bitrev reverses 6 bits;
        // shuffle rotates left by one
        assert_eq!(all(&Pattern::BitComplement, 64)[5], 58);
        assert_eq!(all(&Pattern::Transpose(8), 64)[0b001_010], 0b010_001);
        assert_eq!(all(&Pattern::BitReverse(6), 64)[0b000_011], 0b110_000);
        assert_eq!(all(&Pattern::Shuffle(6), 64)[0b100_001], 0b000_011);
        // tornado on an 8x8 grid moves each digit by 3 (BookSim: (k + 1) / 2 - 1)
        assert_eq!(all(&Pattern::Tornado(vec![8, 8]), 64)[1 + 8 * 2], 4 + 8 * 5);
        assert_eq!(all(&Pattern::Neighbor(vec![8, 8]), 64)[7 + 8 * 7], 0);
        // each is a permutation
        for p in [
            Pattern::BitComplement,
            Pattern::Transpose(8),
            Pattern::BitReverse(6),
            Pattern::Shuffle(6),
            Pattern::Tornado(vec![4, 4, 4]),
            Pattern::Shift(5),
        ] {
            let mut d = all(&p, 64);
            d.sort();
            assert_eq!(d, (0..64).collect::<Vec<_>>(), "{p:?}");
        }
    }

    #[test]
    fn a_destination_that_is_the_source_is_dropped_unless_to_self() {
        let mut rng = Xoshiro::for_entity(3, 9);
        // transpose's diagonal
        assert_eq!(Pattern::Transpose(4).dest(5, 16, false, &mut rng), None);
        assert_eq!(Pattern::Transpose(4).dest(5, 16, true, &mut rng), Some(5));
        assert_eq!(Pattern::Transpose(4).share(5, 16, false), 0.0);
        // uniform never draws the source without to_self, and draws every other rank
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            let d = Pattern::Uniform.dest(2, 5, false, &mut rng).unwrap();
            seen[d as usize] += 1;
        }
        assert_eq!(seen[2], 0);
        assert!(
            seen.iter().enumerate().all(|(i, &c)| i == 2 || c > 1100),
            "{seen:?}"
        );
    }

    #[test]
    fn hot_spots_take_their_fraction_and_a_matrix_its_weights() {
        let mut rng = Xoshiro::for_entity(3, 9);
        let hot = Pattern::Hotspot(vec![0, 7].into(), 0.5);
        let to_hot = (0..10_000)
            .filter(|_| matches!(hot.dest(3, 16, false, &mut rng), Some(0 | 7)))
            .count();
        // 0.5 + 0.5 * 2/15 of the draws
        assert!(
            (to_hot as f64 / 1e4 - (0.5 + 1.0 / 15.0)).abs() < 0.02,
            "{to_hot}"
        );
        let m = Matrix::new(
            3,
            &[(0, 1, 3.0), (0, 2, 1.0), (1, 2, 2.0), (2, 2, 5.0)],
            false,
        );
        assert_eq!(m.share, vec![1.0, 0.5, 0.0]);
        let mat = Pattern::Matrix(Arc::new(m));
        assert_eq!(
            mat.dest(2, 3, false, &mut rng),
            None,
            "its only entry is itself"
        );
        let ones = (0..10_000)
            .filter(|_| mat.dest(0, 3, false, &mut rng) == Some(1))
            .count();
        assert!((ones as f64 / 1e4 - 0.75).abs() < 0.02, "{ones}");
        assert_eq!(mat.spread(0, 3, false), vec![(1, 0.75), (2, 0.25)]);
    }

    #[test]
    fn a_random_permutation_is_one_and_depends_on_the_seed() {
        let a = permutation(100, 1);
        let mut s = a.to_vec();
        s.sort();
        assert_eq!(s, (0..100).collect::<Vec<_>>());
        assert_ne!(a, permutation(100, 2));
        assert_eq!(a, permutation(100, 1));
    }

    #[test]
    fn messages_are_cut_at_the_mtu() {
        assert_eq!(cut(0, 2048, 16), (1, 16));
        assert_eq!(cut(2048, 2048, 16), (1, 2064));
        assert_eq!(cut(2049, 2048, 16), (2, 2049 + 32));
    }
}
