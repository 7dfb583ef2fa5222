//! Network topologies (docs/model.md §4): each family of networks is one file of this folder
//! and owns everything about it — its scenario keys and their checks, its size, its routers'
//! ports and links (with their classes), its routing and the virtual channel classes that keep
//! it deadlock-free, how it is cut into partitions and how the report draws it. The rest of
//! mgensim asks a [`Topo`] and never matches on a family.
//!
//! The families are listed once, in the `families!` call below. Adding one is a file here
//! that implements [`Family`], a line in that call, and its tests (docs/architecture.md).
//!
//! Every topology is a set of routers with the same number of ports (ports a router does not
//! use lead nowhere). Nodes' NICs are *terminals* on router ports (a regular family puts
//! terminal `t` on port `t mod T` of router `t / T`). Links pair a port of one router with a
//! port of another, both directions.
//!
//! [`Topo`] is an enum rather than a trait object: the router calls `route` once per packet
//! and hop, and a `match` there costs less than a virtual call. This module depends on
//! nothing of the engine or of `config`: `config` asks it for the families' keys.

pub(crate) mod blocks;
pub(crate) mod cube;
pub(crate) mod divisor;
pub(crate) mod dragonfly;
pub(crate) mod fattree;
pub(crate) mod graph;
pub(crate) mod hyperx;
pub(crate) mod keys;
pub(crate) mod layout;
pub(crate) mod sizing;
pub(crate) mod ugal;

pub(crate) use blocks::Blocks;
pub(crate) use cube::{Cube, MAX_DIMS};
pub(crate) use dragonfly::Dragonfly;
pub(crate) use fattree::FatTree;
pub(crate) use graph::Graph;
pub(crate) use hyperx::HyperX;
pub(crate) use keys::Keys;
pub(crate) use layout::Layout;

use crate::units::{Bandwidth, Time};

/// Router id.
pub(crate) type RouterId = u32;

/// What a router decides for a packet: the output port, the virtual channel class it will
/// occupy in the next buffer, and the routing state it carries on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hop {
    /// The output port.
    pub(crate) port: u8,
    /// The virtual channel class on it.
    pub(crate) vc: u8,
    /// Routing state of the family's (mesh and torus: the dimension being corrected);
    /// [`NO_DIM`] leaves the packet's as it is.
    pub(crate) dim: u8,
    /// More routing state of the family's (a dragonfly's intermediate group, a graph's
    /// choices so far).
    pub(crate) aux: u16,
}

/// Dimension marker of a packet that has not yet moved between routers.
pub(crate) const NO_DIM: u8 = u8::MAX;

/// Most virtual channel classes any topology's routing uses (Valiant routing on a dragonfly,
/// a graph's turns); `network.vcs` shares a port's virtual channels out among them.
pub(crate) const MAX_CLASSES: usize = 3;

/// Most link classes a family may define besides the plain router-to-router link.
pub(crate) const MAX_LINK_CLASSES: usize = 13;

/// Where a packet is, as routing sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    /// The router it is at.
    pub(crate) at: RouterId,
    /// Its source NIC.
    pub(crate) src: u32,
    /// Its destination NIC.
    pub(crate) dst: u32,
    /// The virtual channel class it arrived on (0 at its source router).
    pub(crate) vc: u8,
    /// The family's state it carries, [`Hop::dim`] ([`NO_DIM`] before its first hop).
    pub(crate) dim: u8,
    /// The family's state it carries, [`Hop::aux`] (0 before its first hop).
    pub(crate) aux: u16,
}

/// What adaptive and random routing may ask of the routers.
pub(crate) trait Routers {
    /// A random number from router `at`'s own stream (seeded from the run's seed and `at`).
    fn draw(&mut self, at: RouterId) -> u64;
    /// Bytes queued for output `port` of router `at`: those in the buffer it feeds (sent and
    /// not yet given back) and those of the packets waiting for it ([`ugal`]).
    fn queue(&self, at: RouterId, port: u8) -> u64;
    /// Bytes on the wire of the packet being routed (UGAL's margin is counted in them).
    fn packet_bytes(&self) -> u64;
    /// A packet was sent off its minimal route (counted in the summary).
    fn derouted(&mut self);
}

/// Routing that asks nothing of the routers (a family whose routes are fixed, or the flow
/// model's paths, where no queue is seen: adaptive choices go minimal).
pub(crate) struct NoRouters;

impl Routers for NoRouters {
    fn draw(&mut self, _: RouterId) -> u64 {
        0
    }
    fn queue(&self, _: RouterId, _: u8) -> u64 {
        0
    }
    fn packet_bytes(&self) -> u64 {
        0
    }
    fn derouted(&mut self) {}
}

/// A link class a family defines: its name, and its rate and latency where they differ from
/// `network.link_bandwidth` and `network.cable_latency`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LinkClass {
    /// Its name, for messages.
    pub(crate) name: String,
    /// Its rate, each direction (`network.link_bandwidth` when `None`).
    pub(crate) bandwidth: Option<Bandwidth>,
    /// Its latency (`network.cable_latency` when `None`).
    pub(crate) latency: Option<Time>,
}

/// What the link on a port is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Link {
    /// 0: a plain link; `k`: the family's link class `k − 1` ([`Family::link_classes`]).
    pub(crate) class: u8,
    /// It wraps around a torus ring (counted as such in the summary).
    pub(crate) wraps: bool,
    /// It joins two dragonfly groups (counted as such in the summary).
    pub(crate) global: bool,
}

/// What a family of networks is. Everything a family knows is here, in its own file.
pub(crate) trait Family: Sized {
    /// The names `network.topology` takes for it, each with the noun messages use (`("tofu",
    /// "Tofu")`).
    const NAMES: &'static [(&'static str, &'static str)];
    /// Its own keys of `[network]`, besides those every network has.
    const KEYS: &'static [&'static str];
    /// Its routings by name, the default first.
    const ROUTINGS: &'static [&'static str];
    /// The key a problem of its size is told under (`network.dims`).
    const SIZE_KEY: &'static str;
    /// Its keys that set its node count: `network.nodes` set by `--set` or a sweep's point
    /// leaves the file's out (`sizing.rs`).
    const SHAPE_KEYS: &'static [&'static str];

    /// The network the keys describe, or `None` with the problems in `k`.
    fn from_keys(k: &mut Keys<'_>) -> Option<Self>;
    /// Its name in `network.topology`.
    fn name(&self) -> &'static str;
    /// Its shape in words, for the summary.
    fn describe(&self) -> String;
    /// Its shape in a few words, without the family's name, for a sweep's record and legend
    /// (`8x8x8`, `radix 32, 2 levels`, `a=8 p=4 h=4 g=17`).
    fn shape(&self) -> String;
    /// Its routing's name, as `network.routing` gives it.
    fn routing(&self) -> &'static str;

    /// Routers.
    fn routers(&self) -> u32;
    /// Ports per router (the most any router has).
    fn ports(&self) -> u8;
    /// Virtual channel classes its routing needs against deadlock (a hop's `vc` is its
    /// class).
    fn vcs(&self) -> u8;
    /// NIC ports in all.
    fn nics(&self) -> u32;
    /// The router and port of NIC `nic`.
    fn nic_port(&self, nic: u32) -> (RouterId, u8);
    /// The NIC on port `q` of router `r`, if it is a NIC's.
    fn port_nic(&self, r: RouterId, q: u8) -> Option<u32>;
    /// The router behind port `q` of router `r` and the port the link arrives on; `None`
    /// for NIC ports and ports without a link.
    fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)>;
    /// What the link leaving port `q` of router `r` is.
    fn link(&self, _r: RouterId, _q: u8) -> Link {
        Link::default()
    }
    /// Its own link classes (their rates and latencies), as [`Link::class`] numbers them.
    fn link_classes(&self) -> Vec<LinkClass> {
        Vec::new()
    }

    /// The hop a packet takes from where it is.
    fn route<R: Routers>(&self, p: At, routers: &mut R) -> Hop;
    /// Routes are a function of the packet alone (never of the routers), and hops carry no
    /// `aux`: a packet may be routed and queued at its next router as it is sent
    /// (`net/router`).
    fn fixed_routes(&self) -> bool {
        false
    }
    /// Two packets between the same pair of NICs may take different paths, so that they may
    /// arrive out of order.
    fn multipath(&self) -> bool;
    /// Router-to-router links on the route from NIC `src` to NIC `dst` that a packet alone in
    /// the network takes (minimal where routing may choose).
    fn distance(&self, src: u32, dst: u32) -> u32;

    /// Its routers cut for `parts` partitions, at most [`Family::most_parts`] (`blocks.rs`).
    fn blocks(&self, parts: u32) -> Blocks;
    /// The units its default cut counts (slabs along the last dimension, groups, pods, runs
    /// of routers) and what one is called: by default a partition takes two at least
    /// (`partition.rs`).
    fn cut_units(&self) -> (u32, &'static str);
    /// The most partitions it can be cut into (one a router).
    fn most_parts(&self) -> u32 {
        self.routers()
    }
    /// Where to draw its routers (asked only up to [`layout::MAX_DRAWN`] routers).
    fn layout(&self) -> Layout;
    /// A mesh or torus: its dimensions and which wrap, for the placement hint.
    fn grid(&self) -> Option<(Vec<u32>, Vec<bool>)> {
        None
    }
    /// `network.dims` as it shapes the network (empty for a family without it).
    fn dims(&self) -> Vec<u32> {
        Vec::new()
    }
}

/// Declares the families, once: the [`Topo`] enum and its forwarding of [`Family`].
macro_rules! families {
    ($($(#[$doc:meta])* $variant:ident($ty:ty)),* $(,)?) => {
        /// One network's shape: one of the families.
        // (one per simulation, read on every hop: the cube's routing tables stay inline; a
        // tag of its own, so that telling the family is one compare, not a test of a niche
        // in a variant's fields)
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        #[repr(u8)]
        pub(crate) enum Topo {
            $($(#[$doc])* $variant($ty)),*
        }

        impl Topo {
            /// Every family: its names (with their nouns), its keys and its routings.
            pub(crate) fn families() -> Vec<FamilyInfo> {
                vec![$(FamilyInfo {
                    names: <$ty>::NAMES,
                    keys: <$ty>::KEYS,
                    shape_keys: <$ty>::SHAPE_KEYS,
                }),*]
            }

            /// The network `k.name` names, built from its keys; `None` with the problems in
            /// `k` (an unknown name among them).
            pub(crate) fn from_keys(k: &mut Keys<'_>) -> Option<Topo> {
                $(if <$ty>::NAMES.iter().any(|&(n, _)| n == k.name) {
                    return <$ty>::from_keys(k).map(Topo::$variant);
                })*
                let names: Vec<&str> = Topo::families()
                    .iter()
                    .flat_map(|f| f.names.iter().map(|n| n.0))
                    .collect();
                let near = keys::closest(k.name, names.iter().copied())
                    .map(|c| format!("; did you mean `{c}`?"))
                    .unwrap_or_default();
                let listed: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                let msg = format!(
                    "`{}` is not a topology (there are: {}){near}",
                    k.name,
                    listed.join(", ")
                );
                k.problem("topology", msg);
                None
            }

            /// The key a problem of its size is told under.
            pub(crate) fn size_key(&self) -> &'static str {
                match self { $(Topo::$variant(_) => <$ty>::SIZE_KEY),* }
            }
            /// Its name in `network.topology`.
            pub(crate) fn name(&self) -> &'static str {
                match self { $(Topo::$variant(t) => t.name()),* }
            }
            /// Its shape in words, for the summary.
            pub(crate) fn describe(&self) -> String {
                match self { $(Topo::$variant(t) => t.describe()),* }
            }
            /// Its shape in a few words, without the family's name.
            pub(crate) fn shape(&self) -> String {
                match self { $(Topo::$variant(t) => t.shape()),* }
            }
            /// Its routing's name.
            pub(crate) fn routing(&self) -> &'static str {
                match self { $(Topo::$variant(t) => t.routing()),* }
            }
            /// Routers of the network.
            pub(crate) fn routers(&self) -> u32 {
                match self { $(Topo::$variant(t) => t.routers()),* }
            }
            /// Ports per router (the most any router of the topology has).
            pub(crate) fn ports(&self) -> u8 {
                match self { $(Topo::$variant(t) => t.ports()),* }
            }
            /// Virtual channel classes its routing needs against deadlock.
            pub(crate) fn vcs(&self) -> u8 {
                match self { $(Topo::$variant(t) => t.vcs()),* }
            }
            /// Terminals (NICs) in all.
            pub(crate) fn terminals(&self) -> u32 {
                match self { $(Topo::$variant(t) => t.nics()),* }
            }
            /// The router and port of NIC `nic`.
            #[inline]
            pub(crate) fn nic_port(&self, nic: u32) -> (RouterId, u8) {
                match self { $(Topo::$variant(t) => t.nic_port(nic)),* }
            }
            /// The NIC on port `q` of router `r`, if it is a NIC's.
            #[inline]
            pub(crate) fn port_nic(&self, r: RouterId, q: u8) -> Option<u32> {
                match self { $(Topo::$variant(t) => t.port_nic(r, q)),* }
            }
            /// The router behind port `q` of router `r` and the port the link arrives on;
            /// `None` for terminal ports and ports without a link.
            pub(crate) fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
                match self { $(Topo::$variant(t) => t.neighbour(r, q)),* }
            }
            /// What the link leaving port `q` of router `r` is.
            pub(crate) fn link(&self, r: RouterId, q: u8) -> Link {
                match self { $(Topo::$variant(t) => t.link(r, q)),* }
            }
            /// The family's own link classes.
            pub(crate) fn link_classes(&self) -> Vec<LinkClass> {
                match self { $(Topo::$variant(t) => t.link_classes()),* }
            }
            /// The hop a packet takes from where it is.
            #[inline(always)]
            pub(crate) fn route<R: Routers>(&self, p: At, routers: &mut R) -> Hop {
                match self { $(Topo::$variant(t) => t.route(p, routers)),* }
            }
            /// Routes are a function of the packet alone.
            pub(crate) fn fixed_routes(&self) -> bool {
                match self { $(Topo::$variant(t) => t.fixed_routes()),* }
            }
            /// Two packets between the same pair of NICs may take different paths.
            pub(crate) fn multipath(&self) -> bool {
                match self { $(Topo::$variant(t) => t.multipath()),* }
            }
            /// Router-to-router links on the route a lone packet from NIC `src` to NIC `dst`
            /// takes.
            pub(crate) fn distance(&self, src: u32, dst: u32) -> u32 {
                match self { $(Topo::$variant(t) => t.distance(src, dst)),* }
            }
            /// Its routers cut for `parts` partitions (`blocks.rs`).
            pub(crate) fn blocks(&self, parts: u32) -> Blocks {
                match self { $(Topo::$variant(t) => t.blocks(parts)),* }
            }
            /// The units its default cut counts, and what one is called.
            pub(crate) fn cut_units(&self) -> (u32, &'static str) {
                match self { $(Topo::$variant(t) => t.cut_units()),* }
            }
            /// The most partitions it can be cut into.
            pub(crate) fn most_parts(&self) -> u32 {
                match self { $(Topo::$variant(t) => t.most_parts()),* }
            }
            /// Where to draw its routers, or `None` above [`layout::MAX_DRAWN`] routers.
            pub(crate) fn layout(&self) -> Option<Layout> {
                if self.routers() > layout::MAX_DRAWN {
                    return None;
                }
                Some(match self { $(Topo::$variant(t) => t.layout()),* })
            }
            /// A mesh or torus: its dimensions and which wrap (for the placement hint).
            pub(crate) fn grid(&self) -> Option<(Vec<u32>, Vec<bool>)> {
                match self { $(Topo::$variant(t) => t.grid()),* }
            }
            /// `network.dims` as it shapes the network (empty for a family without it).
            pub(crate) fn dims(&self) -> Vec<u32> {
                match self { $(Topo::$variant(t) => t.dims()),* }
            }
        }
    };
}

families! {
    /// A mesh, torus or Tofu (`cube.rs`).
    Cube(Cube),
    /// A fat tree (`fattree.rs`).
    FatTree(FatTree),
    /// A dragonfly (`dragonfly.rs`).
    Dragonfly(Dragonfly),
    /// A HyperX (`hyperx.rs`).
    HyperX(HyperX),
    /// A network read from a file (`graph.rs`).
    Graph(Graph),
}

/// What [`Topo::families`] tells of each family.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FamilyInfo {
    /// [`Family::NAMES`].
    pub(crate) names: &'static [(&'static str, &'static str)],
    /// [`Family::KEYS`].
    pub(crate) keys: &'static [&'static str],
    /// [`Family::SHAPE_KEYS`].
    pub(crate) shape_keys: &'static [&'static str],
}

impl Topo {
    /// The network a `[network]` table describes (TOML text, keys of every network and of its
    /// family alike), for `nics` NICs per node, with files beside `base`: for tests and for
    /// programs that build a network without a scenario. The error lists every problem.
    #[cfg(test)]
    pub(crate) fn from_toml(
        network: &str,
        nics: u32,
        base: &std::path::Path,
    ) -> Result<Topo, String> {
        let table: toml::Table = toml::from_str(network).map_err(|e| e.to_string())?;
        let name = table
            .get("topology")
            .and_then(toml::Value::as_str)
            .unwrap_or("torus");
        let routing = table.get("routing").and_then(toml::Value::as_str);
        let mut k = Keys::new(name, &table, base);
        k.routing = routing;
        k.nics = nics;
        match Topo::from_keys(&mut k) {
            Some(t) if !k.failed() => Ok(t),
            _ => Err(k
                .problems
                .iter()
                .map(|(key, m)| format!("{key}: {m}"))
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }

    /// Bidirectional links between routers (parallel links counted each).
    pub(crate) fn links(&self) -> u64 {
        let ends: u64 = (0..self.routers())
            .map(|r| {
                (0..self.ports())
                    .filter(|&q| self.neighbour(r, q).is_some())
                    .count() as u64
            })
            .sum();
        ends / 2
    }

    /// Which families have key `key`, in the words messages use (`a mesh, torus, Tofu or
    /// HyperX`); empty when none has it.
    pub(crate) fn owners_of(key: &str) -> String {
        let nouns: Vec<&str> = Topo::families()
            .iter()
            .filter(|f| f.keys.contains(&key))
            .flat_map(|f| f.names.iter().map(|n| n.1))
            .collect();
        if nouns.is_empty() {
            return String::new();
        }
        format!("a {}", keys::either(&nouns))
    }
}

/// Terminal `t` on port `t mod T` of router `t / T`, for the families whose first
/// `terminal_routers` routers carry `T` NICs each.
#[inline]
pub(crate) fn regular_nic_port(nic: u32, per_router: u32) -> (RouterId, u8) {
    (nic / per_router, (nic % per_router) as u8)
}

/// The NIC on port `q` of router `r` of such a family.
#[inline]
pub(crate) fn regular_port_nic(
    r: RouterId,
    q: u8,
    per_router: u32,
    terminal_routers: u32,
) -> Option<u32> {
    (r < terminal_routers && (q as u32) < per_router).then_some(r * per_router + q as u32)
}

/// The routers a lone packet from NIC `src` to NIC `dst` visits, and the classes it takes
/// between them, hop by hop; checks that every link it takes pairs up and that it ends at
/// `dst`'s port (for the tests of a family's routes).
#[cfg(test)]
pub(crate) fn walk<F: Family>(f: &F, src: u32, dst: u32) -> (Vec<RouterId>, Vec<u8>) {
    let (mut at, _) = f.nic_port(src);
    let mut p = At {
        at,
        src,
        dst,
        vc: 0,
        dim: NO_DIM,
        aux: 0,
    };
    let (mut path, mut vcs) = (vec![at], Vec::new());
    loop {
        let h = f.route(p, &mut NoRouters);
        match f.neighbour(at, h.port) {
            None => {
                assert_eq!(f.port_nic(at, h.port), Some(dst), "{src} -> {dst}");
                return (path, vcs);
            }
            Some((n, back)) => {
                assert_eq!(f.neighbour(n, back), Some((at, h.port)), "links pair up");
                at = n;
                path.push(n);
                vcs.push(h.vc);
                p.at = n;
                p.vc = h.vc;
                if h.dim != NO_DIM {
                    p.dim = h.dim;
                }
                p.aux = h.aux;
                assert!(path.len() < 65_536, "{src} -> {dst} loops");
            }
        }
    }
}
