//! The run cut into partitions: which routers each partition owns, with their NICs, the nodes
//! on those NICs and the ranks placed there (docs/architecture.md, "Partitions").
//!
//! A partition is a region of the network that the engine can simulate on its own for a
//! window of simulated time: everything one of its handlers touches is its own, and what it
//! does to another partition crosses a link, as a cut message with a delay the model
//! guarantees (`cut.rs`). The cut follows the network, never the number of threads:
//! - each topology's family cuts its routers for the count ([`crate::topology::Family::blocks`],
//!   `topology/blocks.rs`): a mesh, torus, Tofu or HyperX into a grid of blocks where that
//!   shares the routers as evenly and cuts fewer links than slabs along its last dimension
//!   (which it keeps where they cost no more); a dragonfly into runs of whole groups, and beyond a
//!   partition a group into runs of a group's routers; a fat tree into runs of whole pods, and
//!   beyond into runs of a pod's leaves; a graph into runs of routers;
//! - a router a family leaves out of every block (a fat tree's switches above the leaves) goes
//!   where most of the routers it links to are, and those over every partition alike are
//!   dealt out in turn.
//!
//! A node's NICs always share a partition (a transfer within a node never enters the network),
//! and so do its ranks. Every figure a run prints is the same whatever the count (the tests
//! say so); the count only decides how many threads can work at once, and what crossing the
//! cuts costs.
//!
//! By default a network gets one partition per thread that simulates it ([`default_count`]), as
//! far as it is large enough to gain: one per 1024 routers or so ([`ROUTERS_PER_PART`]), no
//! more than half its slabs, groups or pods (two of them at least per partition: a thin
//! partition sends most of its traffic across a cut), and no more than 64. A count asked may
//! go up to one partition a router (a fat tree's leaf), and [`MAX_PARTS`].

use crate::topology::Topo;

/// Routers per partition the default aims for.
pub(crate) const ROUTERS_PER_PART: u32 = 1024;

/// The most partitions a run may have.
pub(crate) const MAX_PARTS: u32 = crate::config::MAX_PARTITIONS;

/// Which partition owns what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Partitioning {
    /// Partitions.
    pub(crate) count: u32,
    /// The partition of each router.
    pub(crate) router: Vec<u16>,
    /// The partition of each NIC (terminal): its router's.
    pub(crate) nic: Vec<u16>,
    /// The partition of each rank: its node's.
    pub(crate) rank: Vec<u16>,
    /// Routers, NICs and ranks each partition owns.
    pub(crate) sizes: Vec<(u32, u32, u32)>,
    /// What a partition is, in the singular (`slab`, `8x8x4 block`, `group`; for the
    /// summary's `host` line).
    pub(crate) unit: String,
    /// The most partitions the network gains from ([`gainful`]; 1 for a network kept whole).
    pub(crate) gainful: u32,
    /// Why the run is one partition whatever was asked, if it must be (the flow model, hops
    /// that take no time).
    pub(crate) whole_because: Option<&'static str>,
    /// Process groups the partitions are simulated as (`engine.processes`, at most the
    /// partitions; `perf/stable.rs` `Group`).
    pub(crate) processes: u32,
}

/// The default count of partitions for `topo` simulated on `threads` threads: one per thread,
/// when the network is large enough for each to hold [`ROUTERS_PER_PART`] routers and two of
/// its slabs, groups or pods (a smaller partition's run is mostly its cuts); else as many as
/// it is large enough for, one at the least. More partitions than threads would only cost:
/// one thread goes through them in turn, each with its own queue and records.
pub(crate) fn default_count(topo: &Topo, threads: u32) -> u32 {
    threads.clamp(1, gainful(topo))
}

/// The most partitions `topo` gains from: one per [`ROUTERS_PER_PART`] routers, two of its
/// slabs, groups or pods each ([`crate::topology::Family::cut_units`]), at least one (see
/// [`default_count`]).
pub(crate) fn gainful(topo: &Topo) -> u32 {
    let units = topo.cut_units().0;
    let by_size = topo.routers() / ROUTERS_PER_PART;
    by_size.min(units / 2).clamp(1, MAX_PARTS.min(64))
}

/// The most partitions `topo` can be cut into: one per router (a fat tree's leaf), at most
/// [`MAX_PARTS`].
pub(crate) fn max_count(topo: &Topo) -> u32 {
    topo.most_parts().clamp(1, MAX_PARTS)
}

impl Partitioning {
    /// One partition owning everything.
    pub(crate) fn whole(routers: u32, nics: u32, ranks: usize) -> Partitioning {
        Partitioning {
            count: 1,
            router: vec![0; routers as usize],
            nic: vec![0; nics as usize],
            rank: vec![0; ranks],
            sizes: vec![(routers, nics, ranks as u32)],
            unit: "whole network".to_string(),
            gainful: 1,
            whole_because: None,
            processes: 1,
        }
    }

    /// `topo` cut into `count` partitions (at most [`max_count`]), for NICs of
    /// `nics_per_node` per node and ranks on the nodes `rank_node`.
    pub(crate) fn new(
        topo: &Topo,
        nics_per_node: u32,
        rank_node: &[u32],
        count: u32,
    ) -> Partitioning {
        let routers = topo.routers();
        let count = count.clamp(1, max_count(topo));
        let nics = topo.terminals();
        if count == 1 {
            return Partitioning {
                gainful: gainful(topo),
                unit: topo.cut_units().1.to_string(),
                ..Partitioning::whole(routers, nics, rank_node.len())
            };
        }
        let crate::topology::Blocks {
            of: block,
            count,
            unit,
        } = topo.blocks(count);
        const NONE: u16 = u16::MAX;
        let mut router: Vec<u16> = block.iter().map(|b| b.map_or(NONE, |b| b as u16)).collect();
        // switches above the leaves (fat tree), level by level as they are numbered: where
        // most of the switches they link to are, the top ones in turn
        let ports = topo.ports();
        let mut turn = 0u32;
        for r in 0..routers {
            if router[r as usize] != NONE {
                continue;
            }
            let mut votes = vec![0u32; count as usize];
            for q in 0..ports {
                if let Some((n, _)) = topo.neighbour(r, q) {
                    let p = router[n as usize];
                    if p != NONE {
                        votes[p as usize] += 1;
                    }
                }
            }
            let best = *votes.iter().max().unwrap_or(&0);
            let tied: Vec<usize> = (0..count as usize).filter(|&p| votes[p] == best).collect();
            router[r as usize] = if tied.len() == 1 {
                tied[0] as u16
            } else {
                turn += 1;
                tied[(turn - 1) as usize % tied.len()] as u16
            };
        }
        // the NICs of one node share a partition: the routers that nodes tie together (a
        // node's NICs on several routers, which other nodes' NICs tie to more) all join the
        // partition of the lowest-numbered of them
        let k = nics_per_node.max(1);
        let at = |t: u32| topo.nic_port(t).0 as usize;
        if k > 1 {
            let mut tied = Ties::new(routers as usize);
            for node in 0..nics / k {
                for t in node * k + 1..node * k + k {
                    tied.join(at(node * k), at(t));
                }
            }
            for r in 0..routers as usize {
                let root = tied.root(r);
                router[r] = router[root];
            }
        }
        let nic: Vec<u16> = (0..nics).map(|t| router[at(t)]).collect();
        let rank: Vec<u16> = rank_node.iter().map(|&n| nic[(n * k) as usize]).collect();
        let mut sizes = vec![(0u32, 0u32, 0u32); count as usize];
        for &p in &router {
            sizes[p as usize].0 += 1;
        }
        for &p in &nic {
            sizes[p as usize].1 += 1;
        }
        for &p in &rank {
            sizes[p as usize].2 += 1;
        }
        Partitioning {
            count,
            router,
            nic,
            rank,
            sizes,
            unit,
            gainful: gainful(topo),
            whole_because: None,
            processes: 1,
        }
    }

    /// The ranks partition `p` owns, in order.
    pub(crate) fn ranks_of(&self, p: u16) -> Vec<u32> {
        (0..self.rank.len() as u32)
            .filter(|&r| self.rank[r as usize] == p)
            .collect()
    }
}

/// Sets of routers that must share a partition (union-find; each set's root is its
/// lowest-numbered router). Near-linear in the joins made.
struct Ties {
    up: Vec<u32>,
}

impl Ties {
    fn new(n: usize) -> Ties {
        Ties {
            up: (0..n as u32).collect(),
        }
    }

    /// The lowest-numbered router of `r`'s set.
    fn root(&mut self, r: usize) -> usize {
        let mut x = r;
        while self.up[x] as usize != x {
            x = self.up[x] as usize;
        }
        // (every router on the way now points at the root)
        let mut y = r;
        while self.up[y] as usize != x {
            let next = self.up[y] as usize;
            self.up[y] = x as u32;
            y = next;
        }
        x
    }

    /// `a` and `b` must share a partition.
    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.up[hi] = lo as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo(network: &str) -> Topo {
        Topo::from_toml(network, 1, std::path::Path::new(".")).unwrap()
    }

    fn torus(dims: &[u32]) -> Topo {
        topo(&format!("dims = {dims:?}"))
    }

    #[test]
    fn a_torus_is_cut_into_slabs_of_whole_planes() {
        let t = torus(&[4, 4, 8]);
        let p = Partitioning::new(&t, 1, &[0, 17, 127], 4);
        // 16 routers a plane, 8 planes, two planes a partition
        for r in 0..128u32 {
            assert_eq!(p.router[r as usize] as u32, r / 32, "router {r}");
        }
        assert_eq!(p.rank, vec![0, 0, 3]);
        assert_eq!(
            p.sizes,
            vec![(32, 32, 2), (32, 32, 0), (32, 32, 0), (32, 32, 1)]
        );
        assert_eq!(p.unit, "slab");
        // beyond slabs: blocks, then runs of routers, one a router at most
        assert_eq!(max_count(&t), 128);
        assert_eq!(Partitioning::new(&t, 1, &[], 100).count, 100);
        assert_eq!(Partitioning::new(&t, 1, &[], 200).count, 128);
    }

    #[test]
    fn the_default_follows_the_threads_as_far_as_the_network_gains() {
        // 512 routers: too small for two partitions of 1,024
        assert_eq!(default_count(&torus(&[8, 8, 8]), 2), 1);
        assert_eq!(gainful(&torus(&[16, 16, 16])), 4);
        assert_eq!(default_count(&torus(&[16, 16, 16]), 1), 1);
        assert_eq!(default_count(&torus(&[16, 16, 16]), 2), 2);
        assert_eq!(default_count(&torus(&[16, 16, 16]), 16), 4);
        assert_eq!(gainful(&torus(&[64, 32, 32])), 16);
        assert_eq!(default_count(&torus(&[64, 32, 32]), 8), 8);
        // two slabs a partition: 64 slabs give at most 32
        assert_eq!(gainful(&torus(&[128, 128, 64])), 32);
        assert_eq!(default_count(&torus(&[128, 128, 64]), 0), 1);
    }

    #[test]
    fn a_fat_tree_keeps_its_pods_whole_and_deals_out_its_top() {
        let t = topo("topology = 'fattree'\ndown_ports = [4, 4, 4]\nup_ports = [4, 4, 0]");
        let Topo::FatTree(f) = &t else { panic!() };
        let p = Partitioning::new(&t, 1, &[], 2);
        // 16 leaves in pods of 4; level 2 goes with its pod; 16 top switches dealt out
        for r in 0..16u32 {
            assert_eq!(p.router[r as usize] as u32, r / 8, "leaf {r}");
        }
        for r in 16..32u32 {
            let (_, s) = f.place(r);
            // level-2 switch s is over pod s / 4
            assert_eq!(p.router[r as usize] as u32, (s / 4) / 2, "switch {r}");
        }
        let top: Vec<u16> = p.router[32..48].to_vec();
        assert_eq!(top.iter().filter(|&&x| x == 0).count(), 8, "{top:?}");
    }

    /// Links between routers of different partitions, each counted once.
    fn cut_links(t: &Topo, router: &[u16]) -> u64 {
        let mut ends = 0;
        for r in 0..t.routers() {
            for q in 0..t.ports() {
                if let Some((n, _)) = t.neighbour(r, q) {
                    if router[r as usize] != router[n as usize] {
                        ends += 1;
                    }
                }
            }
        }
        ends / 2
    }

    #[test]
    fn a_65536_node_torus_is_cut_into_256_even_blocks_that_cut_fewer_links_than_slabs() {
        let t = topo("dims = [64, 32, 32]");
        let ranks: Vec<u32> = (0..65_536).collect();
        let p = Partitioning::new(&t, 1, &ranks, 256);
        assert_eq!(p.count, 256);
        assert_eq!(p.unit, "16x4x4 block");
        // 65,536 routers, NICs and ranks shared out evenly: 256 each, none empty
        assert_eq!(p.sizes, vec![(256, 256, 256); 256]);
        // router (x, y, z) = x + 64 y + 2048 z in block (x / 16, y / 4, z / 4) of a 4x8x8 grid,
        // x fastest
        for (r, want) in [
            (0u32, 0u16),
            (15, 0),
            (16, 1),
            (64 * 4, 4),
            (2048 * 4, 32),
            (65_535, 255),
        ] {
            assert_eq!(p.router[r as usize], want, "router {r}");
        }
        // 4 cuts across x of 32x32 links, 8 across y and 8 across z of 64x32 each
        let blocks = cut_links(&t, &p.router);
        assert_eq!(blocks, 4 * 1024 + 8 * 2048 + 8 * 2048);
        // 256 runs of routers by number (slabs thinner than a plane: 4 rows of x each) cut every
        // z link and 8 rows of x links a plane
        let runs: Vec<u16> = (0..65_536u32).map(|r| (r / 256) as u16).collect();
        assert_eq!(cut_links(&t, &runs), 65_536 + 32 * 8 * 64);
        assert!(blocks < cut_links(&t, &runs));
        // at 32 partitions, 2x4x4 blocks against the 32 slabs of z
        let p32 = Partitioning::new(&t, 1, &ranks, 32);
        assert_eq!(p32.unit, "32x8x8 block");
        assert_eq!(p32.sizes, vec![(2048, 2048, 2048); 32]);
        let slabs: Vec<u16> = (0..65_536u32).map(|r| (r / 2048) as u16).collect();
        assert_eq!(cut_links(&t, &slabs), 32 * 2048);
        assert_eq!(cut_links(&t, &p32.router), 2 * 1024 + 4 * 2048 + 4 * 2048);
    }
}
