//! Network topologies and their routing (docs/model.md §4): which router port leads where, and
//! which port a packet takes next.
//!
//! Every topology is a set of routers with the same number of ports (ports a router does not
//! use lead nowhere). Nodes' NICs are *terminals*: the first `T` ports of each of the first
//! `terminal_routers` routers, terminal `t` on port `t mod T` of router `t / T`. Links pair a
//! port of one router with a port of another, both directions.
//!
//! The topology is an enum rather than a trait object: the router calls `route` once
//! per packet and hop, and a `match` there costs less than a virtual call.

pub mod cube;
pub mod divisor;
pub mod dragonfly;
pub mod fattree;
pub mod hyperx;
pub mod layout;

use crate::config::{DragonflyRouting, FatTreeRouting, NetworkConfig, Topology};
pub use cube::{Cube, MAX_DIMS};
pub use dragonfly::Dragonfly;
pub use fattree::FatTree;
pub use hyperx::HyperX;

/// Router id.
pub type RouterId = u32;

/// What a router decides for a packet: the output port, the virtual channel it will occupy in
/// the next buffer, and the routing state it carries on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The output port.
    pub port: u8,
    /// The virtual channel on it.
    pub vc: u8,
    /// Mesh and torus: the dimension being corrected.
    pub dim: u8,
    /// Dragonfly: the intermediate group (see `dragonfly`).
    pub aux: u16,
}

/// Dimension marker of a packet that has not yet moved between routers.
pub const NO_DIM: u8 = u8::MAX;

/// Most virtual channel classes any topology's routing uses (Valiant routing on a dragonfly);
/// `network.vcs` shares a port's virtual channels out among them.
pub const MAX_CLASSES: usize = 3;

/// One network's shape.
// (one per simulation, read on every hop: the cube's routing tables stay inline, unboxed)
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Topo {
    /// Mesh, torus or Tofu.
    Cube(Cube),
    /// A fat tree.
    FatTree(FatTree),
    /// A dragonfly.
    Dragonfly(Dragonfly),
    /// A HyperX.
    HyperX(HyperX),
}

impl Topo {
    /// The topology a scenario describes, with `nics` NICs per node.
    pub fn new(cfg: &NetworkConfig, nics: u32) -> Topo {
        match cfg.topology {
            Topology::Torus | Topology::Mesh | Topology::Tofu => {
                Topo::Cube(Cube::new(cfg, nics as u8))
            }
            Topology::Fattree => {
                let (down, up) = cfg.fat_tree_ports();
                Topo::FatTree(FatTree::new(&down, &up, cfg.fat_tree_routing()))
            }
            Topology::Dragonfly => {
                let (a, p, h, g) = cfg.dragonfly_shape();
                Topo::Dragonfly(Dragonfly::new(a, p, h, g, cfg.dragonfly_routing()))
            }
            Topology::Hyperx => {
                let (k, t) = cfg.hyperx_shape();
                Topo::HyperX(HyperX::new(&cfg.dims, k, t, cfg.hyperx_routing()))
            }
        }
    }

    /// Routers, ports per router and virtual channels of the topology a scenario describes,
    /// worked out without building it (to refuse a network too big before allocating it).
    pub fn size(cfg: &NetworkConfig, nics: u32) -> (u64, u64, u64) {
        match cfg.topology {
            Topology::Torus | Topology::Mesh | Topology::Tofu => {
                let routers = cfg.terminals(nics) / nics.max(1) as u64;
                let dims = cfg.dims.len() as u64 + 3 * (cfg.topology == Topology::Tofu) as u64;
                (routers, nics as u64 + 2 * dims, 2)
            }
            // a fat tree's or dragonfly's own description is small
            _ => {
                let t = Topo::new(cfg, nics);
                (t.routers() as u64, t.ports() as u64, t.vcs() as u64)
            }
        }
    }

    /// Whether two packets between the same pair of NICs may take different paths (routes
    /// chosen per packet), so that they may arrive out of order.
    pub fn multipath(&self) -> bool {
        match self {
            Topo::Cube(_) => false,
            Topo::FatTree(f) => f.routing == FatTreeRouting::Random,
            Topo::Dragonfly(d) => d.routing != DragonflyRouting::Minimal,
            Topo::HyperX(h) => h.routing != crate::config::HyperXRouting::DimensionOrder,
        }
    }

    /// Routers of the network.
    pub fn routers(&self) -> u32 {
        match self {
            Topo::Cube(c) => c.routers(),
            Topo::FatTree(t) => t.routers(),
            Topo::Dragonfly(d) => d.routers(),
            Topo::HyperX(h) => h.routers(),
        }
    }
    /// Ports per router (the most any router of the topology has).
    pub fn ports(&self) -> u8 {
        match self {
            Topo::Cube(c) => c.ports(),
            Topo::FatTree(t) => t.ports(),
            Topo::Dragonfly(d) => d.ports(),
            Topo::HyperX(h) => h.ports(),
        }
    }
    /// Virtual channel classes its routing needs against deadlock (a hop's `vc` is its class).
    pub fn vcs(&self) -> u8 {
        match self {
            Topo::Cube(c) => c.vcs(),
            Topo::FatTree(_) => 1,
            Topo::Dragonfly(d) => d.vcs(),
            Topo::HyperX(h) => h.vcs(),
        }
    }
    /// Terminal ports per terminal router (`T`).
    pub fn terminals_per_router(&self) -> u32 {
        match self {
            Topo::Cube(c) => c.terminals() as u32,
            Topo::FatTree(t) => t.down[0],
            Topo::Dragonfly(d) => d.p,
            Topo::HyperX(h) => h.nodes,
        }
    }
    /// Routers with terminals: routers `0..terminal_routers()`.
    pub fn terminal_routers(&self) -> u32 {
        match self {
            Topo::Cube(c) => c.routers(),
            Topo::FatTree(t) => t.leaves(),
            Topo::Dragonfly(d) => d.routers(),
            Topo::HyperX(h) => h.routers(),
        }
    }
    /// Terminals (NICs) in all.
    pub fn terminals(&self) -> u32 {
        self.terminal_routers() * self.terminals_per_router()
    }

    /// The router behind port `q` of router `r` and the port the link arrives on; `None` for
    /// terminal ports and ports without a link.
    pub fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        match self {
            Topo::Cube(c) => c.neighbour(r, q),
            Topo::FatTree(t) => t.neighbour(r, q),
            Topo::Dragonfly(d) => d.neighbour(r, q),
            Topo::HyperX(h) => h.neighbour(r, q),
        }
    }

    /// Whether the link leaving port `q` of router `r` wraps around a torus ring.
    #[inline]
    pub fn wraps(&self, r: RouterId, q: u8) -> bool {
        match self {
            Topo::Cube(c) => c.wraps(r, q),
            _ => false,
        }
    }
    /// Whether the link leaving port `q` of router `r` joins two dragonfly groups.
    #[inline]
    pub fn is_global(&self, q: u8) -> bool {
        match self {
            Topo::Dragonfly(d) => d.is_global(q),
            _ => false,
        }
    }

    /// Router-to-router links on the deterministic route between two terminals (minimal for a
    /// dragonfly; for a fat tree, up to the common ancestor and down).
    pub fn distance(&self, src: u32, dst: u32) -> u32 {
        let t = self.terminals_per_router();
        match self {
            Topo::Cube(c) => c.distance(src / t, dst / t),
            Topo::FatTree(f) => 2 * (f.common_level(src, dst) as u32 - 1),
            Topo::Dragonfly(d) => {
                let (l, g) = d.path_length(src / t, dst, dragonfly::MINIMAL);
                l + g
            }
            Topo::HyperX(h) => h.distance(src / t, dst / t),
        }
    }
}
