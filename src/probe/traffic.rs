//! Who sent how much to whom, and whether another placement of the ranks would shorten it: the
//! placement hint of the summary.
//!
//! [`Traffic`] sums the payload bytes of the data messages between each pair of NICs (a
//! bounded map: past [`MAX_PAIRS`] pairs it stops and gives no hint). [`placement_hint`] then
//! asks, for a mesh or torus, whether the ranks talk as a grid: for every grid of the job's
//! ranks that fits in the network (`g₀ × g₁ × … = ranks`, `gᵢ ≤ kᵢ`, rank `r` at coordinates
//! `(r mod g₀, ⌊r/g₀⌋ mod g₁, …)`), the bytes' mean hop count had the ranks been placed as
//! that block; the best grid is named when it would cut the mean by a quarter or more.
//! Scripts that compute their neighbours by rank arithmetic (`r ± 1`, `r ± g₀`, …) are the
//! usual case: placed linearly on a network of another width, their neighbours land far apart.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Most NIC pairs counted; a run with more gives no hint.
pub(crate) const MAX_PAIRS: usize = 1 << 18;

/// Most ranks of a job whose traffic is counted for a hint.
pub(crate) const MAX_HINT_RANKS: usize = 1 << 16;

/// Most grids × pairs a hint may cost (hop counts computed): about a second at most.
const MAX_WORK: u64 = 30_000_000;

/// A hasher for the pair keys: one multiplication (the keys are two NIC ids, not chosen by
/// anyone who could make them collide on purpose at a cost that matters).
#[derive(Default)]
pub(crate) struct PairHasher(u64);

impl Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0 ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Sources whose bytes are counted at most (about): a bigger job's are sampled, so that the
/// counts stay small (a few hundred KiB) whatever the job.
pub(crate) const SAMPLED_SOURCES: u32 = 256;

/// Payload bytes of data messages per (source NIC, destination NIC), of every source NIC or
/// of a fixed pseudo-random sample of them (one in `every`, by a hash of the NIC's id).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Traffic {
    bytes: HashMap<u64, u64, BuildHasherDefault<PairHasher>>,
    /// More than [`MAX_PAIRS`] pairs: the counts are incomplete.
    pub(crate) overflowed: bool,
    /// One source NIC in `every` is counted (0 and 1: all).
    every: u32,
}

impl Traffic {
    /// Counts for a network of `nics` NICs: all of them up to [`SAMPLED_SOURCES`], else a
    /// sample of about that many.
    pub(crate) fn new(nics: u32) -> Traffic {
        Traffic {
            every: nics.div_ceil(SAMPLED_SOURCES).max(1),
            ..Traffic::default()
        }
    }

    /// Empty counts that sample as `other` does (another partition's).
    pub(crate) fn new_like(other: &Traffic) -> Traffic {
        Traffic {
            every: other.every,
            ..Traffic::default()
        }
    }

    /// Whether the sources are sampled (and one in how many is counted).
    pub(crate) fn sampled(&self) -> Option<u32> {
        (self.every > 1).then_some(self.every)
    }

    /// Whether NIC `src`'s messages are counted: all, or those of one NIC in `every` by a
    /// hash of its id (not its id modulo `every`, which would pick a regular lattice of the
    /// network, the very shape a grid's traffic follows).
    #[inline]
    fn counts(&self, src: u32) -> bool {
        let mixed = (src as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        self.every <= 1 || mixed % self.every as u64 == 0
    }

    /// A data message of `bytes` from NIC `src` to NIC `dst`.
    #[inline]
    pub(crate) fn add(&mut self, src: u32, dst: u32, bytes: u64) {
        if !self.counts(src) {
            return;
        }
        let key = (src as u64) << 32 | dst as u64;
        if let Some(b) = self.bytes.get_mut(&key) {
            *b += bytes;
        } else if self.bytes.len() < MAX_PAIRS {
            self.bytes.insert(key, bytes);
        } else {
            self.overflowed = true;
        }
    }

    /// Gathers another partition's counts.
    pub(crate) fn absorb(&mut self, other: &Traffic) {
        self.overflowed |= other.overflowed;
        self.every = self.every.max(other.every);
        for (&k, &b) in &other.bytes {
            if let Some(x) = self.bytes.get_mut(&k) {
                *x += b;
            } else if self.bytes.len() < MAX_PAIRS {
                self.bytes.insert(k, b);
            } else {
                self.overflowed = true;
            }
        }
    }

    /// `(source NIC, destination NIC, bytes)` of every pair, in no particular order (what
    /// is made of them must not depend on it).
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (u32, u32, u64)> + '_ {
        self.bytes
            .iter()
            .map(|(&k, &b)| ((k >> 32) as u32, k as u32, b))
    }
}

/// A better placement found for a job's ranks on a mesh or torus.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PlacementHint {
    /// The mean router-to-router links per byte as placed.
    pub placed_hops: f64,
    /// The grid of ranks (`g₀ × g₁ × …`, one entry per dimension of the network).
    pub grid: Vec<u32>,
    /// The mean links per byte had the ranks been placed as that block.
    pub grid_hops: f64,
    /// The bytes were those of one source in this many (a job of more than
    /// [`SAMPLED_SOURCES`] nodes), else `None`: all of them.
    pub sampled: Option<u32>,
}

impl PlacementHint {
    /// The hint in words, with the map to write (`net_dims`: the network's routers per
    /// dimension).
    pub(crate) fn words(&self, net_dims: &[u32]) -> String {
        let x = |v: &[u32]| {
            v.iter()
                .map(|g| g.to_string())
                .collect::<Vec<_>>()
                .join("x")
        };
        let d = self.grid.len();
        let mut coords = Vec::new();
        let mut div = 1u64;
        for (i, &g) in self.grid.iter().enumerate() {
            coords.push(match (div, i + 1 == d) {
                (1, _) => format!("r mod {g}"),
                (_, true) => format!("r div {div}"),
                _ => format!("(r div {div}) mod {g}"),
            });
            div *= g as u64;
        }
        let mut node = Vec::new();
        let mut stride = 1u64;
        for (i, &k) in net_dims.iter().enumerate() {
            node.push(if stride == 1 {
                format!("c{i}")
            } else {
                format!("{stride}*c{i}")
            });
            stride *= k as u64;
        }
        let whose = match self.sampled {
            Some(n) => format!(" (the messages of about one rank in {n}, a fixed sample)"),
            None => String::new(),
        };
        format!(
            "the ranks' data{whose} crossed {:.2} links per byte on average as placed; placed \
             as a {} block of the {} network it would cross {:.2}. Their messages look like \
             those of a {} grid: a placement map (`placement.file`, one `rank node` per line) \
             with node = {} for (c0, ...) = ({}) places them so",
            self.placed_hops,
            x(&self.grid),
            x(net_dims),
            self.grid_hops,
            x(&self.grid),
            node.join(" + "),
            coords.join(", ")
        )
    }
}

/// Every grid of `ranks` ranks, one factor per dimension, each at most that dimension's size
/// (`dims`), in lexicographic order.
fn grids(ranks: u64, dims: &[u32]) -> Vec<Vec<u32>> {
    fn go(left: u64, dims: &[u32], cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        let Some((&k, rest)) = dims.split_first() else {
            if left == 1 {
                out.push(cur.clone());
            }
            return;
        };
        // (what the later dimensions can hold at most)
        let room: u64 = rest.iter().map(|&k| k as u64).product();
        for g in 1..=k.min(left as u32) {
            if left % g as u64 == 0 && left / (g as u64) <= room {
                cur.push(g);
                go(left / g as u64, rest, cur, out);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(ranks, dims, &mut Vec::new(), &mut out);
    out
}

/// Coordinates of every rank, `dims.len()` each (dimension 0 fastest), when rank `r` sits on
/// router `router(r)`.
fn coords_of(ranks: usize, dims: &[u32], router: impl Fn(usize) -> u64) -> Vec<u32> {
    let mut out = Vec::with_capacity(ranks * dims.len());
    for r in 0..ranks {
        let mut x = router(r);
        for &k in dims {
            out.push((x % k as u64) as u32);
            x /= k as u64;
        }
    }
    out
}

/// Bytes times links of `pairs` with the ranks at `coords` on a mesh or torus (`dims`,
/// `wrap`), under minimal routing.
fn byte_links(pairs: &[(u32, u32, u64)], coords: &[u32], dims: &[u32], wrap: &[bool]) -> u128 {
    let nd = dims.len();
    let mut sum: u128 = 0;
    for &(s, d, bytes) in pairs {
        let (a, b) = (
            &coords[s as usize * nd..][..nd],
            &coords[d as usize * nd..][..nd],
        );
        let mut links = 0u64;
        for i in 0..nd {
            let diff = a[i].abs_diff(b[i]);
            links += (if wrap[i] {
                diff.min(dims[i] - diff)
            } else {
                diff
            }) as u64;
        }
        sum += links as u128 * bytes as u128;
    }
    sum
}

/// Whether a grid placement of the job would shorten its data's paths by a quarter or more.
///
/// `pairs` are `(source rank, destination rank, bytes)`, in any order; `router_of_rank` is
/// where each rank is placed (one rank per router); `dims` and `wrap` describe the mesh or
/// torus. `None` when no grid does better, or when the work would be too much.
pub(crate) fn placement_hint(
    pairs: &[(u32, u32, u64)],
    router_of_rank: &[u32],
    dims: &[u32],
    wrap: &[bool],
) -> Option<PlacementHint> {
    let ranks = router_of_rank.len();
    let total: u128 = pairs.iter().map(|p| p.2 as u128).sum();
    if ranks < 4 || total == 0 || dims.is_empty() {
        return None;
    }
    let placed = byte_links(
        pairs,
        &coords_of(ranks, dims, |r| router_of_rank[r] as u64),
        dims,
        wrap,
    );
    // every byte between two ranks crosses a link at least, wherever they are: no placement
    // can do a quarter better than that
    let apart: u128 = pairs
        .iter()
        .filter(|p| p.0 != p.1)
        .map(|p| p.2 as u128)
        .sum();
    if 3 * placed < 4 * apart {
        return None;
    }
    // (ranks placed in order on the network's own grid: that grid is the placement as it is,
    // which no hint can be about)
    let in_order = router_of_rank
        .iter()
        .enumerate()
        .all(|(r, &at)| at as usize == r);
    let mut best: Option<(u128, Vec<u32>)> = None;
    let mut work = 0u64;
    for g in grids(ranks as u64, dims) {
        work += (pairs.len() + ranks) as u64;
        if work > MAX_WORK {
            break;
        }
        if in_order && g == dims {
            continue;
        }
        let m = byte_links(pairs, &coords_of(ranks, &g, |r| r as u64), dims, wrap);
        if best.as_ref().is_none_or(|(x, _)| m < *x) {
            best = Some((m, g));
        }
    }
    let (links, grid) = best?;
    (4 * links <= 3 * placed).then(|| PlacementHint {
        placed_hops: placed as f64 / total as f64,
        grid,
        grid_hops: links as f64 / total as f64,
        sampled: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_fit_the_network() {
        assert_eq!(
            grids(12, &[4, 4]),
            vec![vec![3, 4], vec![4, 3]],
            "12 ranks in a 4x4 mesh: 3x4 or 4x3"
        );
        assert!(grids(216, &[8, 8, 8]).contains(&vec![6, 6, 6]));
        assert!(grids(17, &[4, 4]).is_empty(), "a prime above the sides");
    }

    /// Each rank of a 6x6x6 grid sends to its six neighbours (no wrap), as a script computing
    /// them by rank arithmetic does; placed linearly on an 8x8x8 torus.
    #[test]
    fn a_6x6x6_grid_placed_linearly_on_an_8x8x8_torus_is_found() {
        let g = [6u32, 6, 6];
        let mut pairs = Vec::new();
        for r in 0..216u32 {
            let c = [r % 6, r / 6 % 6, r / 36];
            for d in 0..3 {
                for s in [-1i64, 1] {
                    let v = c[d] as i64 + s;
                    if v >= 0 && v < g[d] as i64 {
                        let mut n = c;
                        n[d] = v as u32;
                        pairs.push((r, n[0] + 6 * n[1] + 36 * n[2], 1000));
                    }
                }
            }
        }
        pairs.sort_unstable();
        let linear: Vec<u32> = (0..216).collect();
        let h = placement_hint(&pairs, &linear, &[8, 8, 8], &[true; 3]).expect("a hint");
        assert_eq!(h.grid, vec![6, 6, 6]);
        // as a block every message crosses one link
        assert_eq!(h.grid_hops, 1.0);
        // placed linearly: a ±1 neighbour is one link away except where a row of 6 wraps
        // into the next row of 8 ... worked out below by brute force on coordinates
        let mut sum = 0u64;
        for &(s, d, _) in &pairs {
            let (a, b) = ([s % 8, s / 8 % 8, s / 64], [d % 8, d / 8 % 8, d / 64]);
            sum += (0..3)
                .map(|i| {
                    let x = a[i].abs_diff(b[i]);
                    x.min(8 - x) as u64
                })
                .sum::<u64>();
        }
        assert_eq!(h.placed_hops, sum as f64 / pairs.len() as f64);
        assert!(h.placed_hops > 2.0, "{}", h.placed_hops);
        let w = h.words(&[8, 8, 8]);
        assert!(w.contains("6x6x6 block of the 8x8x8 network"), "{w}");
        assert!(
            w.contains(
                "node = c0 + 8*c1 + 64*c2 for (c0, ...) = (r mod 6, (r div 6) mod 6, r div 36)"
            ),
            "{w}"
        );
    }

    #[test]
    fn a_ring_already_placed_well_gets_no_hint() {
        let pairs: Vec<(u32, u32, u64)> = (0..16u32).map(|r| (r, (r + 1) % 16, 8)).collect();
        let linear: Vec<u32> = (0..16).collect();
        assert_eq!(placement_hint(&pairs, &linear, &[16], &[true]), None);
    }

    #[test]
    fn a_big_network_s_sources_are_sampled_a_small_one_s_all_counted() {
        let mut small = Traffic::new(SAMPLED_SOURCES);
        let mut big = Traffic::new(64 * SAMPLED_SOURCES);
        assert_eq!((small.sampled(), big.sampled()), (None, Some(64)));
        for src in 0..64 * SAMPLED_SOURCES {
            small.add(src, 0, 1);
            big.add(src, 0, 1);
        }
        assert_eq!(small.pairs().count(), 64 * SAMPLED_SOURCES as usize);
        // about one in 64, not a lattice
        let kept: Vec<u32> = big.pairs().map(|p| p.0).collect();
        assert!((200..320).contains(&kept.len()), "{}", kept.len());
        let mut strides: Vec<u32> = kept.iter().map(|s| s % 64).collect();
        strides.sort_unstable();
        strides.dedup();
        assert!(
            strides.len() > 32,
            "spread over the residues: {}",
            strides.len()
        );
    }

    #[test]
    fn pairs_are_summed_and_bounded() {
        let mut t = Traffic::default();
        t.add(1, 2, 10);
        t.add(1, 2, 5);
        t.add(2, 1, 1);
        let mut u = Traffic::default();
        u.add(1, 2, 1);
        t.absorb(&u);
        let mut pairs: Vec<_> = t.pairs().collect();
        pairs.sort_unstable();
        assert_eq!(pairs, vec![(1, 2, 16), (2, 1, 1)]);
        assert!(!t.overflowed);
    }
}
