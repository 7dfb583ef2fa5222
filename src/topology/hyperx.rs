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
//!   that dimension, whichever has the smaller product of the bytes queued for its first hop
//!   and its hops (1 or 2), as UGAL-L decides, the direct hop winning ties and a margin of one
//!   packet (`ugal.rs`); a packet on its second hop of a dimension goes directly.
//!   At most `2N` hops. The first hop of a dimension takes class 0, the second
//!   class 1; channels ordered by (dimension, class) only ever wait for later ones, so two
//!   classes are deadlock-free.
//!
//! The `k`-th of the parallel copies is chosen per pair of nodes, `(src + dst) mod K`, so that
//! a pair's packets keep one path (and their order) while pairs spread over the copies.

use super::layout::{self, FarLinks, Layout};
use super::{ugal, At, Blocks, Family, Hop, Keys, RouterId, Routers, MAX_DIMS, NO_DIM};

/// The routing rules of a HyperX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HyperXRouting {
    /// One hop per dimension, in index order.
    DimensionOrder,
    /// Dimension order, each dimension crossed directly or through a random router of it,
    /// by the queues (UGAL-L over the dimensions).
    Ugal,
}

/// A HyperX.
#[derive(Clone, Debug)]
pub(crate) struct HyperX {
    /// Routers per dimension (`S_d`).
    pub(crate) dims: Vec<u32>,
    /// Parallel links between two routers of a dimension (`K`).
    pub(crate) links: u32,
    /// Nodes per router (`T`).
    pub(crate) nodes: u32,
    /// How packets are routed.
    pub(crate) routing: HyperXRouting,
    stride: Vec<u32>,
    /// Per dimension, its first port after the nodes'.
    first: Vec<u32>,
}

impl HyperX {
    /// A HyperX of `dims` routers per dimension, `links` links between two routers of a
    /// dimension and `nodes` nodes per router.
    pub(crate) fn new(dims: &[u32], links: u32, nodes: u32, routing: HyperXRouting) -> HyperX {
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

    /// Ports a router needs: its nodes, then `(S_d − 1)·K` per dimension.
    pub(crate) fn ports_needed(dims: &[u32], links: u32, nodes: u32) -> u64 {
        nodes as u64
            + dims
                .iter()
                .map(|&k| (k.max(1) as u64 - 1) * links as u64)
                .sum::<u64>()
    }

    /// Coordinate `d` of router `r`.
    #[inline]
    pub(crate) fn coord(&self, r: RouterId, d: usize) -> u32 {
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
    pub(crate) fn link_to(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
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
    pub(crate) fn direct(&self, at: RouterId, src: u32, dst: u32, vc: u8) -> Hop {
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
    pub(crate) fn route_to(&self, at: RouterId, src: u32, dst: u32) -> Hop {
        self.direct(at, src, dst, 0)
    }

    /// UGAL at router `at` for a packet whose last hop between routers was in dimension
    /// `last` ([`NO_DIM`] before the first): `Ok(hop)` when the packet has no choice (it is
    /// home, or on the second hop of a dimension), else `Err((direct, detour))`, the direct
    /// hop and the first hop through the intermediate coordinate `draw()` picks, for the
    /// caller to weigh by their queues.
    #[inline]
    pub(crate) fn ugal(
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
    pub(crate) fn router_distance(&self, a: RouterId, b: RouterId) -> u32 {
        (0..self.dims.len())
            .filter(|&d| self.coord(a, d) != self.coord(b, d))
            .count() as u32
    }
}

impl HyperX {
    /// UGAL-L over a dimension: the direct hop (1 hop) unless its queue exceeds the queue on
    /// the detour's first hop times its 2 hops by more than the margin ([`ugal`]).
    fn choose<R: Routers>(&self, at: RouterId, direct: Hop, detour: Hop, routers: &mut R) -> Hop {
        let (qd, qn) = (
            routers.queue(at, direct.port),
            routers.queue(at, detour.port),
        );
        if ugal::minimal_wins(qd, 1, qn, 2, routers.packet_bytes()) {
            direct
        } else {
            routers.derouted();
            detour
        }
    }
}

/// The dims `network.nodes = n` picks for a HyperX of `t` nodes a router (`nics` NIC ports a
/// node): 3 dimensions, the most nearly cubic of at least `⌈n · nics / t⌉` routers whose NIC
/// ports share out `nics` to a node.
fn fit(n: u64, nics: u32, t: u32) -> Vec<u32> {
    let (nics, t) = (nics.max(1) as u64, t as u64);
    let mut target = (n.saturating_mul(nics)).div_ceil(t);
    loop {
        let dims = super::sizing::near_cubic(target, 3);
        let routers = dims.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64));
        if routers.saturating_mul(t) % nics == 0 || routers >= u32::MAX as u64 {
            return dims;
        }
        target = routers + 1;
    }
}

impl Family for HyperX {
    const NAMES: &'static [(&'static str, &'static str)] = &[("hyperx", "HyperX")];
    const KEYS: &'static [&'static str] = &["dims", "links_per_pair", "nodes_per_router"];
    const ROUTINGS: &'static [&'static str] = &["dimension_order", "ugal"];
    const SIZE_KEY: &'static str = "network.dims";
    const SHAPE_KEYS: &'static [&'static str] = &["dims", "nodes_per_router"];

    /// `dims` (routers per dimension, 1 to 6 dimensions; `[8, 8, 8]` when left out, picked
    /// by `network.nodes` where it is given, `sizing.rs`),
    /// `links_per_pair` (`K`, 1) and `nodes_per_router` (`T`, 1); a router's ports, `T` and
    /// `K` to each other router of each dimension, at most 255.
    fn from_keys(k: &mut Keys<'_>) -> Option<HyperX> {
        let routing = match k.routing(Self::ROUTINGS) {
            1 => HyperXRouting::Ugal,
            _ => HyperXRouting::DimensionOrder,
        };
        let links = k.get("links_per_pair").unwrap_or(1u32);
        let nodes = k.get("nodes_per_router").unwrap_or(1u32);
        // (`network.nodes`: 3 dimensions, the most nearly cubic that hold them, `T` a router)
        let sized = super::sizing::wanted(k);
        if sized.is_some() && !super::sizing::alone(k, &["dims"]) {
            return None;
        }
        let dims: Vec<u32> = match sized {
            Some(n) => fit(n, k.nics, nodes.max(1)),
            None => k.get("dims").unwrap_or_else(|| vec![8, 8, 8]),
        };
        if dims.is_empty() || dims.len() > MAX_DIMS {
            k.problem(
                "dims",
                format!("{} dimensions given; a HyperX has 1 to 6", dims.len()),
            );
        }
        if let Some(&d) = dims.iter().find(|&&d| d == 0 || d > 255) {
            k.problem(
                "dims",
                format!(
                    "{d} routers in a dimension is out of range (1 to 255: a router has a port \
                     to each other router of its dimension)"
                ),
            );
        }
        for (key, v) in [("links_per_pair", links), ("nodes_per_router", nodes)] {
            if v == 0 || v > 255 {
                k.problem(key, format!("{v} is out of range (1 to 255)"));
            }
        }
        if k.failed() {
            return None;
        }
        let ports = Self::ports_needed(&dims, links, nodes);
        if ports > 255 {
            k.problem(
                "dims",
                format!(
                    "a router would need {ports} ports (nodes_per_router + links_per_pair × the \
                     other routers of each dimension); at most 255"
                ),
            );
            return None;
        }
        let routers = dims.iter().fold(1u64, |a, &d| a * d as u64);
        if !k.size_fits("dims", routers, routers * nodes as u64) {
            return None;
        }
        let h = HyperX::new(&dims, links, nodes, routing);
        if let Some(n) = sized {
            let how = "3 dimensions, the most nearly cubic that hold them";
            let got = routers * nodes as u64 / k.nics.max(1) as u64;
            super::sizing::note(k, n, &h.describe(), got, how);
        }
        Some(h)
    }

    fn name(&self) -> &'static str {
        "hyperx"
    }
    fn describe(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(u32::to_string).collect();
        let (k, t) = (self.links, self.nodes);
        format!(
            "HyperX {}, {t} node{} per router, {k} link{} per pair",
            dims.join("x"),
            if t == 1 { "" } else { "s" },
            if k == 1 { "" } else { "s" }
        )
    }
    fn shape(&self) -> String {
        let dims: Vec<String> = self.dims.iter().map(u32::to_string).collect();
        format!("{} T={} K={}", dims.join("x"), self.nodes, self.links)
    }
    fn routing(&self) -> &'static str {
        Self::ROUTINGS[self.routing as usize]
    }

    fn routers(&self) -> u32 {
        self.dims.iter().product()
    }
    /// Its nodes, then `(S_d − 1)·K` per dimension (at most 255, checked by
    /// [`Family::from_keys`]).
    fn ports(&self) -> u8 {
        Self::ports_needed(&self.dims, self.links, self.nodes) as u8
    }
    /// One class in dimension order; UGAL's second hop of a dimension a second.
    fn vcs(&self) -> u8 {
        match self.routing {
            HyperXRouting::DimensionOrder => 1,
            HyperXRouting::Ugal => 2,
        }
    }
    fn nics(&self) -> u32 {
        self.routers() * self.nodes
    }
    #[inline]
    fn nic_port(&self, nic: u32) -> (RouterId, u8) {
        super::regular_nic_port(nic, self.nodes)
    }
    #[inline]
    fn port_nic(&self, r: RouterId, q: u8) -> Option<u32> {
        super::regular_port_nic(r, q, self.nodes, self.routers())
    }
    fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        self.link_to(r, q)
    }

    #[inline]
    fn route<R: Routers>(&self, p: At, routers: &mut R) -> Hop {
        match self.routing {
            HyperXRouting::DimensionOrder => self.route_to(p.at, p.src, p.dst),
            HyperXRouting::Ugal => {
                let at = p.at;
                match self.ugal(at, p.src, p.dst, p.dim, || routers.draw(at)) {
                    Ok(hop) => hop,
                    Err((direct, detour)) => self.choose(at, direct, detour, routers),
                }
            }
        }
    }
    fn multipath(&self) -> bool {
        self.routing != HyperXRouting::DimensionOrder
    }
    fn distance(&self, src: u32, dst: u32) -> u32 {
        self.router_distance(src / self.nodes, dst / self.nodes)
    }

    /// A grid of blocks, as a torus's (a block's rows lose more links to a cut than a
    /// torus's: every pair of its routers across it is linked).
    fn blocks(&self, parts: u32) -> Blocks {
        Blocks::grid(self, &self.dims, parts)
    }
    /// Slabs along the last dimension.
    fn cut_units(&self) -> (u32, &'static str) {
        (*self.dims.last().unwrap_or(&1), "slab")
    }

    /// A grid as a torus's; a dimension's links run along its row or column, the longer
    /// ones arcing off it, clear of the routers between.
    fn layout(&self) -> Layout {
        let places = layout::grid(self.routers(), &self.dims, |r, d| self.coord(r, d));
        Layout {
            far_links: FarLinks::Arc,
            ..Layout::new(places, Vec::new())
        }
    }
    fn dims(&self) -> Vec<u32> {
        self.dims.clone()
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
                            assert_eq!(h.router_distance(r, to), 1, "one coordinate differs");
                            *seen.entry((r, to)).or_insert(0) += 1;
                        }
                    }
                }
            }
            // every pair differing in one coordinate, `links` times
            for a in 0..h.routers() {
                for b in 0..h.routers() {
                    let want = if h.router_distance(a, b) == 1 {
                        links
                    } else {
                        0
                    };
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
            let hop = h.route_to(at, src, dst);
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
                assert_eq!(path.len() as u32 - 1, h.router_distance(src / 2, dst / 2));
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
