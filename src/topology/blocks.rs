//! How a family's routers are cut for a count of partitions (`partition.rs` places what a
//! family leaves out, and ties a node's routers together):
//! - a family on a grid (mesh, torus, Tofu, HyperX) is cut into a grid of blocks
//!   ([`Blocks::grid`]): `p₀ × p₁ × …` blocks whose product is the count, the one that shares
//!   the routers most evenly (the fewest in its largest block), then whose cuts a packet
//!   crosses least often (along each dimension, as a packet between two routers of a row
//!   taken at random: `p/4` cuts on a torus's ring of `p` parts, the share of pairs split on a
//!   HyperX's row; a torus's dimensions of any length alike, so that the links a cut counts
//!   do not matter), then slabs along the last dimension (today's cut), then the most parts
//!   along the later dimensions (rows of the first dimension, where a rank's nearest ranks
//!   are, kept whole). So a 64x32x32 torus stays in slabs in 2 to 4 partitions and goes to
//!   32x8x8 blocks in 32 (a packet between two routers taken at random crosses 2.5 cuts on
//!   average, not 8 as with slabs) and 16x4x4 blocks in 256. A count no
//!   grid gives (a prime above every dimension) is cut into runs of routers by number;
//! - a family of units (a dragonfly's groups, a fat tree's pods, a graph's runs of routers)
//!   gives each partition a run of whole units while there are as many units as partitions,
//!   and a run of their items (a group's routers, a pod's leaves) beyond ([`Blocks::nested`]).
//!
//! Every cut is as good as any other for the figures (the tests say so): the choice is only
//! what crossing the cuts costs, and how evenly the work is shared.

use super::{Family, RouterId};

/// A network cut for a count of partitions: each router's partition, how many there are, and
/// what a partition is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Blocks {
    /// Each router's partition (`None` for one that goes where most of the routers it links
    /// to are: a fat tree's switches above the leaves).
    pub of: Vec<Option<u32>>,
    /// Partitions, each given at least one router.
    pub count: u32,
    /// What a partition is, in the singular (`slab`, `8x8x4 block`, `group`, `run of a
    /// group's routers`).
    pub unit: String,
}

/// Splits of a grid tried at most (a count's ordered factorizations into at most 6
/// dimensions: 1,287 for 256).
const MOST_TRIED: usize = 1 << 16;

impl Blocks {
    /// The routers of a grid family cut for `parts` partitions (at most one a router). Router
    /// `r` is at `c[d] = (r / stride[d]) % dims[d]`, dimension 0 fastest, and each of `f`'s
    /// links joins two routers that differ in one coordinate (the cost counts them along one
    /// row of each dimension). Partition numbers follow the blocks with dimension 0 fastest.
    pub(crate) fn grid<F: Family>(f: &F, dims: &[u32], parts: u32) -> Blocks {
        let routers: u32 = dims.iter().product::<u32>().max(1);
        let parts = parts.clamp(1, routers);
        match best_split(f, dims, parts) {
            Some(split) => Blocks::split(dims, &split),
            None => Blocks::runs(routers, parts, "run of routers"),
        }
    }

    /// `dims` cut into `split[d]` parts along each dimension `d` (coordinate `c` in part
    /// `c · split[d] / dims[d]`, parts of whole routers differing by one at most).
    pub(crate) fn split(dims: &[u32], split: &[u32]) -> Blocks {
        let routers: u32 = dims.iter().product::<u32>().max(1);
        let of = (0..routers)
            .map(|r| {
                let (mut rest, mut id, mut weight) = (r, 0, 1);
                for (&k, &p) in dims.iter().zip(split) {
                    let c = rest % k;
                    rest /= k;
                    id += (c as u64 * p as u64 / k as u64) as u32 * weight;
                    weight *= p;
                }
                Some(id)
            })
            .collect();
        Blocks {
            of,
            count: split.iter().product(),
            unit: block_name(dims, split),
        }
    }

    /// `routers` in `parts` runs by number, as even as they come.
    pub(crate) fn runs(routers: u32, parts: u32, unit: &str) -> Blocks {
        let parts = parts.clamp(1, routers.max(1));
        Blocks {
            of: (0..routers)
                .map(|r| Some((r as u64 * parts as u64 / routers as u64) as u32))
                .collect(),
            count: parts,
            unit: unit.to_string(),
        }
    }

    /// `routers` of which `item` numbers those cut along (`None` for the others), `items`
    /// in all, in units of `per` consecutive items (the last one may be short), cut for
    /// `parts` partitions: runs of whole units as even as they come while there are as many
    /// units as partitions (`unit` names one), else runs of items (at most one a partition),
    /// named `within` when each lies in one unit (the units all of `per`, `parts` a multiple
    /// of them) and `across` when not.
    pub(crate) fn nested(
        routers: u32,
        item: impl Fn(RouterId) -> Option<u32>,
        items: u32,
        per: u32,
        parts: u32,
        names: [&str; 3],
    ) -> Blocks {
        let [unit, within, across] = names;
        let (items, per) = (items.max(1), per.max(1));
        let units = items.div_ceil(per);
        let parts = parts.clamp(1, items);
        let coarse = parts <= units;
        let of = (0..routers)
            .map(|r| {
                item(r).map(|i| {
                    let id = if coarse {
                        (i / per) as u64 * parts as u64 / units as u64
                    } else {
                        i as u64 * parts as u64 / items as u64
                    };
                    id as u32
                })
            })
            .collect();
        let unit = if coarse {
            unit
        } else if parts % units == 0 && units * per == items {
            within
        } else {
            across
        };
        Blocks {
            of,
            count: parts,
            unit: unit.to_string(),
        }
    }
}

/// A block's routers along each dimension (`8x8x4`; `21-22x32x32` where a dimension does not
/// split evenly); `slab` when only the last dimension is split.
fn block_name(dims: &[u32], split: &[u32]) -> String {
    let n = dims.len();
    if n > 0 && split[..n - 1].iter().all(|&p| p == 1) {
        return "slab".to_string();
    }
    let sides: Vec<String> = dims
        .iter()
        .zip(split)
        .map(|(&k, &p)| {
            let (lo, hi) = (k / p, k.div_ceil(p));
            if lo == hi {
                lo.to_string()
            } else {
                format!("{lo}-{hi}")
            }
        })
        .collect();
    format!("{} block", sides.join("x"))
}

/// The split of `dims` into `parts` blocks that the module's doc chooses, or `None` if no
/// product of parts of the dimensions makes `parts`.
fn best_split<F: Family>(f: &F, dims: &[u32], parts: u32) -> Option<Vec<u32>> {
    let divisors: Vec<u32> = (1..=parts).filter(|p| parts % p == 0).collect();
    // per dimension and split into p parts: (p, cuts a packet crosses along a row, in 2^-24)
    let cuts: Vec<Vec<(u32, u64)>> = dims
        .iter()
        .enumerate()
        .map(|(d, &k)| {
            let (links, hops) = row_reach(f, dims, d);
            divisors
                .iter()
                .filter(|&&p| p <= k)
                .map(|&p| {
                    let cut = row_cut(f, dims, d, p);
                    // a packet between two routers of the row taken at random goes hops / k
                    // links on average, cut / links of them cut
                    let crossed = if links == 0 {
                        0
                    } else {
                        let c = cut as f64 * hops as f64 / (k as f64 * links as f64);
                        (c * (1u64 << 24) as f64).round() as u64
                    };
                    (p, crossed)
                })
                .collect()
        })
        .collect();
    let mut splits = Vec::new();
    every_split(&cuts, parts, &mut Vec::new(), &mut splits);
    let last = dims.len().saturating_sub(1);
    splits
        .into_iter()
        .map(|s| {
            let largest: u64 = dims
                .iter()
                .zip(&s)
                .map(|(&k, &p)| k.div_ceil(p) as u64)
                .product();
            let crossed: u64 = (s.iter().enumerate())
                .filter_map(|(d, &p)| cuts[d].iter().find(|c| c.0 == p))
                .map(|c| c.1)
                .sum();
            let slab = s[..last].iter().all(|&p| p == 1);
            let later: Vec<u32> = s.iter().rev().copied().collect();
            ((largest, crossed, !slab, std::cmp::Reverse(later)), s)
        })
        .min_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, s)| s)
}

/// Every split (parts per dimension, from `cuts`' choices) whose product is `left` times that
/// of `so_far`, into `out` (at most [`MOST_TRIED`]).
fn every_split(
    cuts: &[Vec<(u32, u64)>],
    left: u32,
    so_far: &mut Vec<u32>,
    out: &mut Vec<Vec<u32>>,
) {
    let d = so_far.len();
    if d == cuts.len() {
        if left == 1 && out.len() < MOST_TRIED {
            out.push(so_far.clone());
        }
        return;
    }
    for &(p, _) in &cuts[d] {
        if left % p == 0 {
            so_far.push(p);
            every_split(cuts, left / p, so_far, out);
            so_far.pop();
        }
    }
}

/// Links of one row of dimension `d` (the routers whose other coordinates are 0), and the hops
/// from its first router to all of its routers by its own links (a ring of `k`: `k²/4` when
/// `k` is even; a line: `k(k−1)/2`; a HyperX's row: `k − 1`).
fn row_reach<F: Family>(f: &F, dims: &[u32], d: usize) -> (u64, u64) {
    let stride: u32 = dims[..d].iter().product();
    let k = dims[d];
    let in_row = |n: RouterId| (n % stride == 0 && n / stride < k).then_some(n / stride);
    let mut ends = 0u64;
    let mut dist = vec![u32::MAX; k as usize];
    let mut queue = std::collections::VecDeque::from([0u32]);
    dist[0] = 0;
    for c in 0..k {
        for q in 0..f.ports() {
            if f.neighbour(c * stride, q)
                .and_then(|(n, _)| in_row(n))
                .is_some()
            {
                ends += 1;
            }
        }
    }
    while let Some(c) = queue.pop_front() {
        for q in 0..f.ports() {
            if let Some(y) = f.neighbour(c * stride, q).and_then(|(n, _)| in_row(n)) {
                if dist[y as usize] == u32::MAX {
                    dist[y as usize] = dist[c as usize] + 1;
                    queue.push_back(y);
                }
            }
        }
    }
    let hops = dist
        .iter()
        .filter(|&&h| h != u32::MAX)
        .map(|&h| h as u64)
        .sum();
    (ends / 2, hops)
}

/// Links of one row of dimension `d` (the routers whose other coordinates are 0) between
/// routers in different parts when the row is cut into `p` parts.
fn row_cut<F: Family>(f: &F, dims: &[u32], d: usize, p: u32) -> u64 {
    let stride: u32 = dims[..d].iter().product();
    let k = dims[d];
    let part = |c: u32| c as u64 * p as u64 / k as u64;
    let mut ends = 0u64;
    for c in 0..k {
        let r = c * stride;
        for q in 0..f.ports() {
            if let Some((n, _)) = f.neighbour(r, q) {
                if n % stride == 0 && n / stride < k && part(n / stride) != part(c) {
                    ends += 1;
                }
            }
        }
    }
    ends / 2
}

#[cfg(test)]
mod tests;
