//! HyperX (Ahn, Binkert, Davis, McLaren and Schreiber, SC09): an N-dimensional flattened
//! butterfly. Routers sit on a grid of `S₀ × S₁ × …` (`network.dims`); in each dimension a
//! router has `K` links (`network.links_per_pair`) to every other router that differs from it
//! in that coordinate alone, so a dimension is one hop whatever the distance along it; each
//! router has `T` nodes (`network.nodes_per_router`).
//!
//! Router `r` has coordinates `c[d] = (r / stride[d]) mod S_d`, dimension 0 fastest. Its
//! ports: the `T` nodes, then dimension by dimension `(S_d − 1)·K` ports: the `k`-th copy of
//! the link to the router whose coordinate `d` is `v` is port
//! `T + first[d] + idx(v)·K + k`, with `idx(v) = v` below the router's own coordinate and
//! `v − 1` above it.
//!
//! **Routing** (`network.routing`):
//! - `dimension_order` (the default): the dimensions are corrected in index order, one hop
//!   each: at most `N` hops. Hops strictly climb the dimensions, so one virtual channel class
//!   is deadlock-free.
//! - `ugal`: UGAL over the dimensions, the DAL idea with the dimension order kept: the first
//!   dimension still to correct is crossed directly or through a random intermediate router of
//!   that dimension, whichever has the smaller product of the queue on its first hop and its
//!   hops (1 or 2), as UGAL-L decides, the direct hop winning ties and a margin of a few
//!   packets (`router/routing.rs`); a packet on its second hop of a dimension goes directly. At most `2N` hops. The first hop of a dimension takes class 0, the second
//!   class 1; channels ordered by (dimension, class) only ever wait for later ones, so two
//!   classes are deadlock-free.
//!
//! The `k`-th of the parallel copies is chosen per pair of nodes, `(src + dst) mod K`, so that
//! a pair's packets keep one path (and their order) while pairs spread over the copies.

use super::{Hop, RouterId, NO_DIM};
use crate::config::HyperXRouting;

/// A HyperX.
#[derive(Clone, Debug)]
pub struct HyperX {
    /// Routers per dimension (`S_d`).
    pub dims: Vec<u32>,
    /// Parallel links between two routers of a dimension (`K`).
    pub links: u32,
    /// Nodes per router (`T`).
    pub nodes: u32,
    /// How packets are routed.
    pub routing: HyperXRouting,
    stride: Vec<u32>,
    /// Per dimension, its first port after the nodes'.
    first: Vec<u32>,
}

impl HyperX {
    /// A HyperX of `dims` routers per dimension, `links` links between two routers of a
    /// dimension and `nodes` nodes per router.
    pub fn new(dims: &[u32], links: u32, nodes: u32, routing: HyperXRouting) -> HyperX {
        let (mut stride, mut first) = (Vec::new(), Vec::new());
        let (mut s, mut f) = (1u32, 0u32);
        for &k in dims {
            stride.push(s);
            first.push(f);
            s = s.saturating_mul(k);
            f += (k.max(1) - 1) * links;
        }
        HyperX {
            dims: dims.to_vec(),
            links,
            nodes,
            routing,
            stride,
            first,
        }
    }

    /// Routers.
    pub fn routers(&self) -> u32 {
        self.dims.iter().product()
    }
    /// Ports per router: its nodes, then `(S_d − 1)·K` per dimension (checked to fit in 255
    /// by the scenario's checks).
    pub fn ports(&self) -> u8 {
        let after = match (self.first.last(), self.dims.last()) {
            (Some(&f), Some(&k)) => f + (k.max(1) - 1) * self.links,
            _ => 0,
        };
        (self.nodes + after) as u8
    }
    /// Virtual channel classes the routing needs against deadlock.
    pub fn vcs(&self) -> u8 {
        match self.routing {
            HyperXRouting::DimensionOrder => 1,
            HyperXRouting::Ugal => 2,
        }
    }

    /// Coordinate `d` of router `r`.
    #[inline]
    pub fn coord(&self, r: RouterId, d: usize) -> u32 {
        (r / self.stride[d]) % self.dims[d]
    }

    /// The port of a router whose coordinate `d` is `from` to the one whose coordinate is
    /// `to` (copy `copy`).
    #[inline]
    fn port(&self, d: usize, from: u32, to: u32, copy: u32) -> u8 {
        let idx = if to < from { to } else { to - 1 };
        (self.nodes + self.first[d] + idx * self.links + copy) as u8
    }

    /// The router behind port `q` of router `r` and the port the link arrives on; `None`
    /// for a node's port.
    pub fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        let j = (q as u32).checked_sub(self.nodes)?;
        let d = self.first.iter().rposition(|&f| f <= j)?;
        let (k, c) = (j - self.first[d], self.coord(r, d));
        if k >= (self.dims[d] - 1) * self.links {
            return None;
        }
        let (idx, copy) = (k / self.links, k % self.links);
        let v = if idx < c { idx } else { idx + 1 };
        let to = r - c * self.stride[d] + v * self.stride[d];
        Some((to, self.port(d, v, c, copy)))
    }

    /// The first dimension in which routers `a` and `b` differ.
    #[inline]
    fn first_difference(&self, a: RouterId, b: RouterId) -> Option<usize> {
        (0..self.dims.len()).find(|&d| self.coord(a, d) != self.coord(b, d))
    }

    /// The direct hop from router `at` toward node `dst` (from node `src`) in dimension
    /// order: to the destination's coordinate in the first dimension that differs, on class
    /// `vc`, or out to the node.
    #[inline]
    pub fn direct(&self, at: RouterId, src: u32, dst: u32, vc: u8) -> Hop {
        let dr = dst / self.nodes;
        match self.first_difference(at, dr) {
            None => Hop {
                port: (dst % self.nodes) as u8,
                vc,
                dim: NO_DIM,
                aux: 0,
            },
            Some(d) => Hop {
                port: self.port(
                    d,
                    self.coord(at, d),
                    self.coord(dr, d),
                    (src.wrapping_add(dst)) % self.links,
                ),
                vc,
                dim: d as u8,
                aux: 0,
            },
        }
    }

    /// Dimension-order routing at router `at` for a packet from node `src` to node `dst`.
    #[inline]
    pub fn route(&self, at: RouterId, src: u32, dst: u32) -> Hop {
        self.direct(at, src, dst, 0)
    }

    /// UGAL at router `at` for a packet whose last hop between routers was in dimension
    /// `last` ([`NO_DIM`] before the first): `Ok(hop)` when the packet has no choice (it is
    /// home, or on the second hop of a dimension), else `Err((direct, detour))`, the direct
    /// hop and the first hop through the intermediate coordinate `draw()` picks, for the
    /// caller to weigh by their queues.
    #[inline]
    pub fn ugal(
        &self,
        at: RouterId,
        src: u32,
        dst: u32,
        last: u8,
        draw: impl FnOnce() -> u64,
    ) -> Result<Hop, (Hop, Hop)> {
        let dr = dst / self.nodes;
        let Some(d) = self.first_difference(at, dr) else {
            return Ok(self.direct(at, src, dst, 0));
        };
        if last as usize == d {
            // (arrived in this dimension: the deroute's second hop)
            return Ok(self.direct(at, src, dst, 1));
        }
        let (c, t, k) = (self.coord(at, d), self.coord(dr, d), self.dims[d]);
        if k < 3 {
            return Ok(self.direct(at, src, dst, 0));
        }
        // the (draw mod (k − 2))-th coordinate that is neither here nor the target
        let mut m = (draw() % (k - 2) as u64) as u32;
        let (lo, hi) = (c.min(t), c.max(t));
        if m >= lo {
            m += 1;
        }
        if m >= hi {
            m += 1;
        }
        let detour = Hop {
            port: self.port(d, c, m, (src.wrapping_add(dst)) % self.links),
            vc: 0,
            dim: d as u8,
            aux: 0,
        };
        Err((self.direct(at, src, dst, 0), detour))
    }

    /// Router-to-router links on the dimension-order route between routers `a` and `b`: the
    /// dimensions they differ in.
    pub fn distance(&self, a: RouterId, b: RouterId) -> u32 {
        (0..self.dims.len())
            .filter(|&d| self.coord(a, d) != self.coord(b, d))
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_link_pairs_up_and_each_dimension_is_all_to_all() {
        for (dims, links, nodes) in [
            (vec![4u32, 3], 1u32, 2u32),
            (vec![3, 2, 4], 2, 1),
            (vec![5], 3, 3),
        ] {
            let h = HyperX::new(&dims, links, nodes, HyperXRouting::DimensionOrder);
            let mut seen = std::collections::BTreeMap::new();
            for r in 0..h.routers() {
                for q in 0..h.ports() {
                    match h.neighbour(r, q) {
                        None => assert!((q as u32) < nodes, "{dims:?}: {r}:{q} leads nowhere"),
                        Some((to, back)) => {
                            assert_eq!(h.neighbour(to, back), Some((r, q)));
                            assert_eq!(h.distance(r, to), 1, "one coordinate differs");
                            *seen.entry((r, to)).or_insert(0) += 1;
                        }
                    }
                }
            }
            // every pair differing in one coordinate, `links` times
            for a in 0..h.routers() {
                for b in 0..h.routers() {
                    let want = if h.distance(a, b) == 1 { links } else { 0 };
                    assert_eq!(
                        seen.get(&(a, b)).copied().unwrap_or(0),
                        want,
                        "{dims:?} {a}->{b}"
                    );
                }
            }
        }
    }

    /// Follows the dimension-order route from node `src` to node `dst`: the routers visited.
    fn walk(h: &HyperX, src: u32, dst: u32) -> Vec<RouterId> {
        let mut at = src / h.nodes;
        let mut seen = vec![at];
        loop {
            let hop = h.route(at, src, dst);
            match h.neighbour(at, hop.port) {
                None => {
                    assert_eq!(hop.port as u32, dst % h.nodes);
                    return seen;
                }
                Some((to, _)) => {
                    at = to;
                    seen.push(at);
                }
            }
        }
    }

    #[test]
    fn dimension_order_takes_one_hop_per_dimension_that_differs() {
        let h = HyperX::new(&[4, 4, 2], 2, 2, HyperXRouting::DimensionOrder);
        for src in 0..h.routers() * h.nodes {
            for dst in 0..h.routers() * h.nodes {
                let path = walk(&h, src, dst);
                assert_eq!(path.len() as u32 - 1, h.distance(src / 2, dst / 2));
            }
        }
        // worked example: router 1 = (1,0,0) to router 30 = (2,3,1): x, then y, then z
        assert_eq!(walk(&h, 2, 60), vec![1, 2, 14, 30]);
    }

    #[test]
    fn ugal_derouts_within_the_dimension_it_corrects_and_then_goes_direct() {
        let h = HyperX::new(&[5, 5], 1, 1, HyperXRouting::Ugal);
        // router 0 = (0,0) to router 13 = (3,2): dimension 0 first
        let Err((direct, detour)) = h.ugal(0, 0, 13, NO_DIM, || 0) else {
            panic!("a choice")
        };
        assert_eq!(h.neighbour(0, direct.port).unwrap().0, 3);
        // draw 0: the first coordinate that is neither 0 nor 3, 1
        assert_eq!(h.neighbour(0, detour.port).unwrap().0, 1);
        assert_eq!((direct.vc, detour.vc, detour.dim), (0, 0, 0));
        // at (1,0), having moved in dimension 0: directly to (3,0) on class 1
        let second = h.ugal(1, 0, 13, 0, || 7).expect("no choice");
        assert_eq!((h.neighbour(1, second.port).unwrap().0, second.vc), (3, 1));
        // at (3,0): dimension 1 is next, a fresh choice
        assert!(h.ugal(3, 0, 13, 0, || 7).is_err());
    }
}
