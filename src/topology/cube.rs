//! k-ary n-cube geometry: mesh and torus of 1 to 6 dimensions, and Tofu (docs/model.md §4).
//!
//! One router per node; router `r` has coordinates `c[d] = (r / stride[d]) % k[d]`, with
//! dimension 0 varying fastest. Ports: the first `T` are the node's NICs (one per NIC); then
//! `T + 2d` faces the `+d` neighbour and `T + 2d + 1` the `−d` one, so a link leaving on
//! `T + 2d` arrives on `T + 2d + 1` and the other way round.
//!
//! Routing is static dimension order (NSIM): the dimensions are corrected one after the other
//! in a fixed order (index order for a mesh or torus). Along a dimension with wrap-around links
//! a packet goes the shorter way round (the `+` way on a tie). Against the cyclic dependency of
//! a ring such a dimension has two virtual channels: a packet enters each dimension on VC 0 and
//! moves to VC 1 when it crosses that ring's dateline (the wrap link between coordinates k−1
//! and 0), as in Dally and Seitz.
//!
//! **Tofu** (NSIM-ACE, Ajima et al. 2009) is the 6-D case with dimensions `a, b, c` of fixed
//! sizes 2, 3, 2 (a and c meshes, b a torus) inside each point of an `x, y, z` torus. Nodes
//! are numbered with `a, b, c` fastest, so the 12 nodes of a Tofu unit are consecutive;
//! routing corrects `x, y, z` first, then `a, b, c`.

use super::divisor::Divisor;
use super::layout::{self, FarLinks, Layout};
use super::{At, Blocks, Family, Hop, Keys, Link, RouterId, Routers, NO_DIM};

/// Largest number of dimensions.
pub(crate) const MAX_DIMS: usize = 6;

/// Tofu's inner unit: sizes of `a, b, c` and whether each wraps.
pub(crate) const TOFU_INNER: [(u32, bool); 3] = [(2, false), (3, true), (2, false)];

/// Which of the cubes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CubeKind {
    /// k-ary n-cube with wrap-around links; shorter way round; dateline virtual channels.
    Torus,
    /// k-ary n-mesh, no wrap-around links.
    Mesh,
    /// Tofu: a 6-D mesh/torus, `dims = [x, y, z]` around a fixed 2×3×2 unit.
    Tofu,
}

/// A mesh, torus or Tofu network.
#[derive(Clone, Debug)]
pub(crate) struct Cube {
    /// Which cube it is.
    pub(crate) kind: CubeKind,
    /// Routers per dimension.
    pub(crate) dims: Vec<u32>,
    /// Whether each dimension has wrap-around links.
    pub(crate) wrap: Vec<bool>,
    /// Per dimension, its place in the order routing corrects them.
    place: [u8; MAX_DIMS],
    stride: Vec<u32>,
    /// NIC ports per router.
    terminals: u8,
    /// What routing reads, per place in the routing order (in arrays, not vectors: no
    /// pointer to follow and no bound to check on the hot path).
    axes: [Axis; MAX_DIMS],
}

/// One dimension as routing sees it.
#[derive(Clone, Copy, Debug)]
struct Axis {
    /// The dimension.
    d: u8,
    wrap: bool,
    /// Routers along it.
    k: u32,
    /// Its stride and its size as [`Divisor`]s: a router's coordinate is `(r / stride) % k`,
    /// computed with multiplications (a table of coordinates missed the cache on most hops at
    /// 65,536 nodes).
    by_stride: Divisor,
    by_size: Divisor,
}

impl Axis {
    #[inline]
    fn coord(&self, r: RouterId) -> u32 {
        self.by_size.remainder(self.by_stride.quotient(r))
    }
}

impl Cube {
    /// A cube of `dims` routers per dimension (Tofu: the outer `[x, y, z]`), with
    /// `terminals` NICs per router.
    pub(crate) fn new(kind: CubeKind, outer: &[u32], terminals: u8) -> Cube {
        let (dims, wrap, order): (Vec<u32>, Vec<bool>, Vec<u8>) = match kind {
            CubeKind::Tofu => {
                let mut dims: Vec<u32> = TOFU_INNER.iter().map(|&(k, _)| k).collect();
                let mut wrap: Vec<bool> = TOFU_INNER.iter().map(|&(_, w)| w).collect();
                dims.extend(outer);
                wrap.extend([true; 3]);
                (dims, wrap, vec![3, 4, 5, 0, 1, 2])
            }
            _ => (
                outer.to_vec(),
                vec![kind == CubeKind::Torus; outer.len()],
                (0..outer.len() as u8).collect(),
            ),
        };
        let mut stride = Vec::with_capacity(dims.len());
        let mut s = 1u32;
        for &k in &dims {
            stride.push(s);
            s *= k;
        }
        let mut place = [0u8; MAX_DIMS];
        let mut axes = [Axis {
            d: 0,
            wrap: false,
            k: 1,
            by_stride: Divisor::new(1),
            by_size: Divisor::new(1),
        }; MAX_DIMS];
        for (i, &d) in order.iter().enumerate() {
            let d = d as usize;
            place[d] = i as u8;
            axes[i] = Axis {
                d: d as u8,
                wrap: wrap[d],
                k: dims[d],
                by_stride: Divisor::new(stride[d]),
                by_size: Divisor::new(dims[d]),
            };
        }
        Cube {
            kind,
            place,
            axes,
            dims,
            wrap,
            stride,
            terminals,
        }
    }

    /// NIC ports per router.
    #[cfg(test)]
    pub(crate) fn terminals(&self) -> u8 {
        self.terminals
    }
    #[inline]
    /// Router `r`'s coordinate in dimension `d`.
    pub(crate) fn coord(&self, r: RouterId, d: usize) -> u32 {
        self.axes[self.place[d] as usize].coord(r)
    }

    /// The router behind port `q` of router `r` and the port the link arrives on, if a link is
    /// there (none at a mesh's edge or for a dimension of size 1).
    pub(crate) fn link_to(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        if q < self.terminals {
            return None;
        }
        let d = ((q - self.terminals) / 2) as usize;
        let plus = (q - self.terminals) % 2 == 0;
        let k = self.dims[d];
        let c = self.coord(r, d);
        if k == 1 {
            return None;
        }
        let nc = if plus {
            if c + 1 < k {
                c + 1
            } else if self.wrap[d] {
                0
            } else {
                return None;
            }
        } else if c > 0 {
            c - 1
        } else if self.wrap[d] {
            k - 1
        } else {
            return None;
        };
        let n = (r as i64 + (nc as i64 - c as i64) * self.stride[d] as i64) as RouterId;
        let back = if plus { q + 1 } else { q - 1 };
        Some((n, back))
    }

    /// Whether the link on port `q` of router `r` wraps around a ring.
    #[inline]
    pub(crate) fn wraps(&self, r: RouterId, q: u8) -> bool {
        if q < self.terminals {
            return false;
        }
        let d = ((q - self.terminals) / 2) as usize;
        let c = self.coord(r, d);
        self.wrap[d]
            && if (q - self.terminals) % 2 == 0 {
                c == self.dims[d] - 1
            } else {
                c == 0
            }
    }

    /// Dimension-order routing decision at router `at` for a packet to router `dst` (its NIC
    /// port `dst_port`) that arrived on virtual channel `vc` while correcting dimension `dim`
    /// (`NO_DIM`: none yet). The dimensions before `dim` in the order are corrected already,
    /// so the look starts at `dim`.
    #[inline]
    pub(crate) fn route_to(
        &self,
        at: RouterId,
        dst: RouterId,
        dst_port: u8,
        vc: u8,
        dim: u8,
    ) -> Hop {
        let eject = Hop {
            port: dst_port,
            vc: 0,
            dim: NO_DIM,
            aux: 0,
        };
        if at == dst {
            // (every packet's last router: no coordinate to compare)
            return eject;
        }
        let from = if dim == NO_DIM {
            0
        } else {
            self.place[dim as usize] as usize
        };
        for a in &self.axes[from..self.dims.len()] {
            let (ca, cb) = (a.coord(at), a.coord(dst));
            if ca == cb {
                continue;
            }
            let (d, k, wrap) = (a.d as usize, a.k, a.wrap);
            let plus = if wrap {
                let fwd = if cb > ca { cb - ca } else { cb + k - ca };
                // the shorter way round; a destination exactly half-way round (even k) goes
                // the + way from an even coordinate and the - way from an odd one, so that
                // ties split evenly (docs/model.md §4). A tie only ever arises at the first
                // router of the dimension: one step on, the way taken is the shorter.
                fwd < k - fwd || (fwd == k - fwd && ca % 2 == 0)
            } else {
                cb > ca
            };
            let crosses = wrap && if plus { ca == k - 1 } else { ca == 0 };
            let base = if dim == d as u8 { vc } else { 0 };
            let vc = if crosses { 1 } else { base };
            let port = self.terminals + 2 * d as u8 + u8::from(!plus);
            return Hop {
                port,
                vc,
                dim: d as u8,
                aux: 0,
            };
        }
        eject
    }

    /// Router-to-router links on the route from router `src` to router `dst`.
    pub(crate) fn router_distance(&self, src: RouterId, dst: RouterId) -> u32 {
        (0..self.dims.len())
            .map(|d| {
                let (a, b, k) = (self.coord(src, d), self.coord(dst, d), self.dims[d]);
                let diff = a.abs_diff(b);
                if self.wrap[d] {
                    diff.min(k - diff)
                } else {
                    diff
                }
            })
            .sum()
    }
}

impl Family for Cube {
    const NAMES: &'static [(&'static str, &'static str)] =
        &[("mesh", "mesh"), ("torus", "torus"), ("tofu", "Tofu")];
    const KEYS: &'static [&'static str] = &["dims"];
    const ROUTINGS: &'static [&'static str] = &["dimension_order"];
    const SIZE_KEY: &'static str = "network.dims";
    const SHAPE_KEYS: &'static [&'static str] = &["dims"];

    /// `dims` (default `[8, 8, 8]`): 1 to 6 dimensions of 1 to 65,535 routers (Tofu: the
    /// outer three), or picked by `network.nodes` (`sizing.rs`); one router per node, with its
    /// `node.nics_per_node` NICs.
    fn from_keys(k: &mut Keys<'_>) -> Option<Cube> {
        let kind = match k.name {
            "mesh" => CubeKind::Mesh,
            "tofu" => CubeKind::Tofu,
            _ => CubeKind::Torus,
        };
        k.routing(Self::ROUTINGS);
        // (`network.nodes`: 3 dimensions, the most nearly cubic that hold them; Tofu's outer
        // x y z around its 12-node unit)
        let sized = super::sizing::wanted(k);
        if sized.is_some() && !super::sizing::alone(k, &["dims"]) {
            return None;
        }
        let unit = if kind == CubeKind::Tofu { 12 } else { 1 };
        let dims: Vec<u32> = match sized {
            Some(n) => super::sizing::near_cubic(n.div_ceil(unit), 3),
            None => k.get("dims").unwrap_or_else(|| vec![8, 8, 8]),
        };
        let (lo, hi) = if kind == CubeKind::Tofu {
            (3, 3)
        } else {
            (1, MAX_DIMS)
        };
        if dims.len() < lo || dims.len() > hi {
            let msg = if kind == CubeKind::Tofu {
                format!(
                    "{} dimensions given; Tofu takes the outer [x, y, z] (its inner a, b, c are \
                     2, 3, 2)",
                    dims.len()
                )
            } else {
                format!("{} dimensions given; 1 to 6 are allowed", dims.len())
            };
            k.problem("dims", msg);
        }
        if dims.contains(&0) {
            k.problem("dims", "every dimension must be at least 1");
        }
        if dims.iter().any(|&d| d > 65_535) {
            k.problem("dims", "a dimension may have at most 65535 routers");
        }
        if k.failed() {
            return None;
        }
        let routers = dims.iter().fold(unit, |a, &d| a.saturating_mul(d as u64));
        if !k.size_fits("dims", routers, routers.saturating_mul(k.nics as u64)) {
            return None;
        }
        let ports = k.nics as u64 + 2 * (dims.len() as u64 + 3 * (kind == CubeKind::Tofu) as u64);
        if ports > 255 {
            k.problem("node.nics_per_node", "too many ports per router");
            return None;
        }
        let cube = Cube::new(kind, &dims, k.nics as u8);
        if let Some(n) = sized {
            let how = "3 dimensions, the most nearly cubic that hold them";
            super::sizing::note(k, n, &cube.describe(), routers, how);
        }
        Some(cube)
    }

    fn name(&self) -> &'static str {
        match self.kind {
            CubeKind::Torus => "torus",
            CubeKind::Mesh => "mesh",
            CubeKind::Tofu => "tofu",
        }
    }
    fn describe(&self) -> String {
        let dims: Vec<String> = self.dims().iter().map(u32::to_string).collect();
        match self.kind {
            CubeKind::Torus => format!("torus {}", dims.join("x")),
            CubeKind::Mesh => format!("mesh {}", dims.join("x")),
            CubeKind::Tofu => format!("Tofu {} (x y z) x 2x3x2 (a b c)", dims.join("x")),
        }
    }
    fn shape(&self) -> String {
        let dims: Vec<String> = self.dims().iter().map(u32::to_string).collect();
        match self.kind {
            CubeKind::Tofu => format!("{} x 2x3x2", dims.join("x")),
            _ => dims.join("x"),
        }
    }
    fn routing(&self) -> &'static str {
        Self::ROUTINGS[0]
    }

    /// One per node.
    fn routers(&self) -> u32 {
        self.dims.iter().product()
    }
    /// The NICs plus two per dimension.
    fn ports(&self) -> u8 {
        self.terminals + 2 * self.dims.len() as u8
    }
    /// Two if any dimension wraps (dateline), else one.
    fn vcs(&self) -> u8 {
        if self.wrap.iter().any(|&w| w) {
            2
        } else {
            1
        }
    }
    fn nics(&self) -> u32 {
        self.routers() * self.terminals as u32
    }
    #[inline]
    fn nic_port(&self, nic: u32) -> (RouterId, u8) {
        super::regular_nic_port(nic, self.terminals as u32)
    }
    #[inline]
    fn port_nic(&self, r: RouterId, q: u8) -> Option<u32> {
        super::regular_port_nic(r, q, self.terminals as u32, self.routers())
    }
    fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        self.link_to(r, q)
    }
    fn link(&self, r: RouterId, q: u8) -> Link {
        Link {
            wraps: self.wraps(r, q),
            ..Link::default()
        }
    }

    #[inline(always)]
    fn route<R: Routers>(&self, p: At, _: &mut R) -> Hop {
        let t = self.terminals as u32;
        self.route_to(p.at, p.dst / t, (p.dst % t) as u8, p.vc, p.dim)
    }
    fn fixed_routes(&self) -> bool {
        true
    }
    fn multipath(&self) -> bool {
        false
    }
    fn distance(&self, src: u32, dst: u32) -> u32 {
        let t = self.terminals as u32;
        self.router_distance(src / t, dst / t)
    }

    /// A grid of blocks (Tofu's unit `a, b, c` counted as three dimensions), slabs along the
    /// last dimension where they cost no more.
    fn blocks(&self, parts: u32) -> Blocks {
        Blocks::grid(self, &self.dims, parts)
    }
    /// Slabs along the last dimension.
    fn cut_units(&self) -> (u32, &'static str) {
        (*self.dims.last().unwrap_or(&1), "slab")
    }

    /// Dimensions 0, 2, 4 along x and 1, 3, 5 along y (a 3-D torus is a row of planes, each
    /// labelled with its further coordinates); wrap-around links are drawn as stubs.
    fn layout(&self) -> Layout {
        let places = layout::grid(self.routers(), &self.dims, |r, d| self.coord(r, d));
        let mut labels = Vec::new();
        if self.dims.len() > 2 {
            // Tofu's `a b c x y z` (its unit first, as this file orders them), else `x y z w v u`
            let names = if self.kind == CubeKind::Tofu {
                ["a", "b", "c", "x", "y", "z"]
            } else {
                ["x", "y", "z", "w", "v", "u"]
            };
            let plane = (self.dims[0] * self.dims[1]) as usize;
            for first in (0..places.len()).step_by(plane.max(1)) {
                let text = (2..self.dims.len())
                    .map(|d| format!("{} = {}", names[d], self.coord(first as u32, d)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let (x, y, _) = &places[first];
                labels.push((*x, *y - 0.6, text));
            }
        }
        let torus = self.wrap.iter().any(|&w| w);
        Layout {
            far_links: if torus {
                FarLinks::Stub
            } else {
                FarLinks::Line
            },
            note: torus
                .then_some("The wrap-around links of its rings are short stubs at the edge."),
            ..Layout::new(places, labels)
        }
    }
    /// A mesh's or torus's (not Tofu's: its unit is no grid of ranks).
    fn grid(&self) -> Option<(Vec<u32>, Vec<bool>)> {
        (self.kind != CubeKind::Tofu).then(|| (self.dims.clone(), self.wrap.clone()))
    }
    fn dims(&self) -> Vec<u32> {
        match self.kind {
            CubeKind::Tofu => self.dims[3..].to_vec(),
            _ => self.dims.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(kind: CubeKind, dims: &[u32]) -> Cube {
        Cube::new(kind, dims, 1)
    }

    /// Follows the route and returns the routers visited and the VCs used.
    fn walk(c: &Cube, src: u32, dst: u32) -> (Vec<u32>, Vec<u8>) {
        let (mut at, mut vc, mut dim) = (src, 0, NO_DIM);
        let (mut path, mut vcs) = (vec![src], vec![]);
        loop {
            let h = c.route_to(at, dst, 0, vc, dim);
            if h.port < c.terminals() {
                return (path, vcs);
            }
            let (n, back) = c
                .neighbour(at, h.port)
                .expect("route uses an existing link");
            assert_eq!(c.neighbour(n, back), Some((at, h.port)), "links pair up");
            at = n;
            vc = h.vc;
            dim = h.dim;
            path.push(at);
            vcs.push(vc);
            assert!(path.len() < 1000);
        }
    }

    #[test]
    fn torus_goes_the_short_way_and_switches_vc_at_the_dateline() {
        let c = cube(CubeKind::Torus, &[8]);
        let (path, vcs) = walk(&c, 6, 1);
        assert_eq!(path, vec![6, 7, 0, 1]);
        assert_eq!(vcs, vec![0, 1, 1]);
        let (path, _) = walk(&c, 1, 6);
        assert_eq!(path, vec![1, 0, 7, 6]);
        assert_eq!(c.router_distance(1, 6), 3);
    }

    #[test]
    fn dimension_order_and_vc_reset_per_dimension() {
        let c = cube(CubeKind::Torus, &[4, 4]);
        // (3,0) -> (0,3): x first across the wrap (VC 1), then y across the wrap: back to VC 0
        // at the turn, VC 1 after the dateline.
        let src = 3;
        let dst = 3 * 4;
        let (path, vcs) = walk(&c, src, dst);
        assert_eq!(path, vec![3, 0, 12]);
        assert_eq!(vcs, vec![1, 1]);
        let (path, vcs) = walk(&c, 1, 2 + 4 * 2);
        assert_eq!(path, vec![1, 2, 6, 10]);
        assert_eq!(vcs, vec![0, 0, 0]);
    }

    #[test]
    fn mesh_never_wraps() {
        let c = cube(CubeKind::Mesh, &[8]);
        let (path, _) = walk(&c, 7, 0);
        assert_eq!(path, vec![7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(c.neighbour(7, 1), None);
        assert_eq!(c.neighbour(0, 2), None);
    }

    #[test]
    fn every_pair_arrives_in_distance_hops() {
        for topo in [CubeKind::Torus, CubeKind::Mesh] {
            for dims in [&[3, 4, 2][..], &[2, 2], &[5]] {
                let c = cube(topo, dims);
                for s in 0..c.routers() {
                    for d in 0..c.routers() {
                        let (path, _) = walk(&c, s, d);
                        assert_eq!(*path.last().unwrap(), d);
                        assert_eq!(path.len() as u32 - 1, c.router_distance(s, d));
                    }
                }
            }
        }
    }

    #[test]
    fn tofu_is_6d_with_its_inner_unit_and_routes_xyz_first() {
        let c = cube(CubeKind::Tofu, &[2, 3, 4]);
        assert_eq!(c.dims, vec![2, 3, 2, 2, 3, 4]);
        assert_eq!(c.routers(), 12 * 24);
        // node = a + 2b + 6c + 12(x + 2y + 6z)
        let node = |a: u32, b: u32, cc: u32, x: u32, y: u32, z: u32| {
            a + 2 * b + 6 * cc + 12 * (x + 2 * y + 6 * z)
        };
        // (0,0,0; 0,0,0) -> (1,2,1; 1,2,3): a 1, b 1 (the ring of 3 wraps), c 1, x 1,
        // y 1 (wraps), z 1 (wraps): 6 hops, outer dimensions first
        let dst = node(1, 2, 1, 1, 2, 3);
        let (path, _) = walk(&c, 0, dst);
        assert_eq!(path.len() - 1, 6);
        assert_eq!(c.router_distance(0, dst), 6);
        assert_eq!(path[1], node(0, 0, 0, 1, 0, 0), "x is corrected first");
        assert_eq!(path[4], node(1, 0, 0, 1, 2, 3), "then a");
        // a is a mesh: no wrap link from a=1 forwards
        assert_eq!(c.neighbour(node(1, 0, 0, 0, 0, 0), 1), None);
        for s in (0..c.routers()).step_by(7) {
            for d in 0..c.routers() {
                let (path, _) = walk(&c, s, d);
                assert_eq!(path.len() as u32 - 1, c.router_distance(s, d));
            }
        }
    }

    #[test]
    fn half_way_round_goes_either_way_by_parity() {
        let c = cube(CubeKind::Torus, &[4]);
        // from an even coordinate the + way, from an odd one the - way, and every route of
        // a tie is two hops
        assert_eq!(walk(&c, 0, 2).0, [0, 1, 2]);
        assert_eq!(walk(&c, 1, 3).0, [1, 0, 3]);
        assert_eq!(walk(&c, 2, 0).0, [2, 3, 0]);
        assert_eq!(walk(&c, 3, 1).0, [3, 2, 1]);
        // over all ties of an 8-ring, as many routes leave each way
        let c = cube(CubeKind::Torus, &[8]);
        let plus = (0..8)
            .filter(|&s| walk(&c, s, (s + 4) % 8).0[1] == (s + 1) % 8)
            .count();
        assert_eq!(plus, 4);
        // not a tie: the shorter way, whatever the parity
        assert_eq!(walk(&c, 1, 2).0, [1, 2]);
        assert_eq!(walk(&c, 0, 7).0, [0, 7]);
    }
}
