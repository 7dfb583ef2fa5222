//! k-ary n-cube geometry (mesh and torus, 1 to 6 dimensions) and its routing (MODEL.md §4).
//!
//! One router per node; router `r` has coordinates `c[d] = (r / stride[d]) % k[d]`, with
//! dimension 0 varying fastest. Ports: 0 is the node's NIC; `1 + 2d` faces the `+d` neighbour
//! and `2 + 2d` the `−d` one. A link joins output port `q` of a router to input port
//! [`opposite`]`(q)` of its neighbour.
//!
//! Routing is static dimension order (NSIM): correct dimension 0 first, then 1, and so on. On a
//! torus a packet goes the shorter way round (the `+` way on a tie). Against the cyclic
//! dependency of a ring, a torus has two virtual channels: a packet enters each dimension on
//! VC 0 and moves to VC 1 when it crosses that ring's dateline (the wrap link between
//! coordinates k−1 and 0), as in Dally and Seitz.

use crate::config::{NetworkConfig, Topology};

/// Largest number of dimensions.
pub const MAX_DIMS: usize = 6;

/// Router id; equal to the id of the node (and NIC) attached to it.
pub type RouterId = u32;

/// The port a link from port `q` arrives on at the neighbour.
#[inline]
pub const fn opposite(q: u8) -> u8 {
    if q == 0 {
        0
    } else if q % 2 == 1 {
        q + 1
    } else {
        q - 1
    }
}

/// What a router decides for a packet: the output port and the virtual channel it will
/// occupy in the next buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub port: u8,
    pub vc: u8,
    /// The dimension being corrected (`NO_DIM` for the ejection port).
    pub dim: u8,
}

/// Dimension marker of a packet that has not yet moved between routers.
pub const NO_DIM: u8 = u8::MAX;

/// A mesh or torus.
#[derive(Clone, Debug)]
pub struct Cube {
    pub wrap: bool,
    pub dims: Vec<u32>,
    stride: Vec<u32>,
    /// Coordinates of every router, `MAX_DIMS` entries each (row-major), to route without
    /// divisions on the hot path.
    coords: Vec<u16>,
}

impl Cube {
    pub fn new(cfg: &NetworkConfig) -> Cube {
        let dims = cfg.dims.clone();
        let mut stride = Vec::with_capacity(dims.len());
        let mut s = 1u32;
        for &k in &dims {
            stride.push(s);
            s *= k;
        }
        let n = s as usize;
        let mut coords = vec![0u16; n * MAX_DIMS];
        for r in 0..n {
            for (d, (&k, &st)) in dims.iter().zip(&stride).enumerate() {
                coords[r * MAX_DIMS + d] = ((r as u32 / st) % k) as u16;
            }
        }
        Cube {
            wrap: cfg.topology == Topology::Torus,
            dims,
            stride,
            coords,
        }
    }

    pub fn routers(&self) -> u32 {
        self.dims.iter().product()
    }
    /// Ports per router: the NIC plus two per dimension.
    pub fn ports(&self) -> u8 {
        1 + 2 * self.dims.len() as u8
    }
    /// Virtual channels per router input port: two on a torus (dateline), one on a mesh.
    pub fn vcs(&self) -> u8 {
        if self.wrap {
            2
        } else {
            1
        }
    }
    #[inline]
    pub fn coord(&self, r: RouterId, d: usize) -> u32 {
        self.coords[r as usize * MAX_DIMS + d] as u32
    }

    /// The router behind port `q` of router `r`, if a link is there (none at a mesh's edge or
    /// for a dimension of size 1).
    pub fn neighbour(&self, r: RouterId, q: u8) -> Option<RouterId> {
        if q == 0 {
            return None;
        }
        let d = ((q - 1) / 2) as usize;
        let k = self.dims[d];
        let c = self.coord(r, d);
        let plus = q % 2 == 1;
        if k == 1 {
            return None;
        }
        let nc = if plus {
            if c + 1 < k {
                c + 1
            } else if self.wrap {
                0
            } else {
                return None;
            }
        } else if c > 0 {
            c - 1
        } else if self.wrap {
            k - 1
        } else {
            return None;
        };
        Some((r as i64 + (nc as i64 - c as i64) * self.stride[d] as i64) as RouterId)
    }

    /// Dimension-order routing decision at router `at` for a packet to `dst` that arrived on
    /// virtual channel `vc` while correcting dimension `dim`.
    #[inline]
    pub fn route(&self, at: RouterId, dst: RouterId, vc: u8, dim: u8) -> Hop {
        let a = at as usize * MAX_DIMS;
        let b = dst as usize * MAX_DIMS;
        for d in 0..self.dims.len() {
            let (ca, cb) = (self.coords[a + d] as u32, self.coords[b + d] as u32);
            if ca == cb {
                continue;
            }
            let k = self.dims[d];
            let plus = if self.wrap {
                let fwd = (cb + k - ca) % k;
                fwd <= k - fwd
            } else {
                cb > ca
            };
            let crosses = self.wrap && if plus { ca == k - 1 } else { ca == 0 };
            let base = if dim == d as u8 { vc } else { 0 };
            let vc = if crosses { 1 } else { base };
            let port = if plus {
                1 + 2 * d as u8
            } else {
                2 + 2 * d as u8
            };
            return Hop {
                port,
                vc,
                dim: d as u8,
            };
        }
        Hop {
            port: 0,
            vc: 0,
            dim: NO_DIM,
        }
    }

    /// Router-to-router links on the route from `src` to `dst`.
    pub fn distance(&self, src: RouterId, dst: RouterId) -> u32 {
        (0..self.dims.len())
            .map(|d| {
                let (a, b, k) = (self.coord(src, d), self.coord(dst, d), self.dims[d]);
                let diff = a.abs_diff(b);
                if self.wrap {
                    diff.min(k - diff)
                } else {
                    diff
                }
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(topology: Topology, dims: &[u32]) -> Cube {
        Cube::new(&NetworkConfig {
            topology,
            dims: dims.to_vec(),
            ..NetworkConfig::default()
        })
    }

    /// Follows the route and returns the routers visited and the VCs used.
    fn walk(c: &Cube, src: u32, dst: u32) -> (Vec<u32>, Vec<u8>) {
        let (mut at, mut vc, mut dim) = (src, 0, NO_DIM);
        let (mut path, mut vcs) = (vec![src], vec![]);
        loop {
            let h = c.route(at, dst, vc, dim);
            if h.port == 0 {
                return (path, vcs);
            }
            at = c
                .neighbour(at, h.port)
                .expect("route uses an existing link");
            vc = h.vc;
            dim = h.dim;
            path.push(at);
            vcs.push(vc);
            assert!(path.len() < 1000);
        }
    }

    #[test]
    fn torus_goes_the_short_way_and_switches_vc_at_the_dateline() {
        let c = cube(Topology::Torus, &[8]);
        let (path, vcs) = walk(&c, 6, 1);
        assert_eq!(path, vec![6, 7, 0, 1]);
        assert_eq!(vcs, vec![0, 1, 1]);
        let (path, _) = walk(&c, 1, 6);
        assert_eq!(path, vec![1, 0, 7, 6]);
        assert_eq!(c.distance(1, 6), 3);
    }

    #[test]
    fn dimension_order_and_vc_reset_per_dimension() {
        let c = cube(Topology::Torus, &[4, 4]);
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
        let c = cube(Topology::Mesh, &[8]);
        let (path, _) = walk(&c, 7, 0);
        assert_eq!(path, vec![7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(c.neighbour(7, 1), None);
        assert_eq!(c.neighbour(0, 2), None);
    }

    #[test]
    fn every_pair_arrives_in_distance_hops() {
        for topo in [Topology::Torus, Topology::Mesh] {
            let c = cube(topo, &[3, 4, 2]);
            for s in 0..c.routers() {
                for d in 0..c.routers() {
                    let (path, _) = walk(&c, s, d);
                    assert_eq!(*path.last().unwrap(), d);
                    assert_eq!(path.len() as u32 - 1, c.distance(s, d));
                }
            }
        }
    }
}
