//! A network read from a file (`network.topology = "graph"`, `network.graph = "FILE"`, beside
//! the scenario like its scripts): any routers, any links between them, nodes on any router.
//!
//! **The file** is plain text, a statement a line, `#` starting a comment:
//!
//! ```text
//! routers 4                          # optional: routers 0 to 3 (else as many as are named)
//! nodes 6                            # optional: nodes 0 to 5 (else as many as are named)
//! class global bandwidth=12.5GB/s latency=30ns   # a link class (either figure may be left out)
//! link 0 1                           # a link between routers 0 and 1, both directions
//! link 1 2 2                         # two parallel links
//! link 2 3 global                    # a link of class `global`
//! node 0 0                           # node 0 on router 0
//! node 1 0
//! ```
//!
//! BookSim's `anynet` lines load as BookSim reads them: `router R` followed by any number of
//! `node N` and `router S [W]`, or `node N router R`. A link named from either end, or from
//! both, is one bidirectional link; a weight `W` after a router sets that direction's latency
//! to `W` cable latencies (`network.cable_latency`; BookSim's cycles). A weight after a node is
//! read and left out (a NIC link's latency is `network.nic_cable_latency`).
//!
//! Routers are numbered 0 to R − 1 and nodes 0 to N − 1 without gaps; node `n` is NIC port `n`
//! (with one NIC per node, rank `n`'s node under the default placement). A router's ports are
//! its nodes in order, then its links in the order of the routers they lead to (parallel links
//! in the order written): BookSim's order. Every error names the file's line: a self-loop, a
//! link to a router that does not exist, a node on no router or on two, a class not defined,
//! a graph in more than one piece.
//!
//! **Routing** is deadlock-free by construction, by up*/down* ordering with virtual channel
//! layers (Schroeder et al., Autonet, 1991; the layers as in LASH-like schemes):
//! - the routers are put in a total order (below); a hop to a higher router goes *up*, to a
//!   lower one *down*. A route that only ever goes up and then down (no *turn* from down to
//!   up) closes no cycle of channel dependencies: up channels climb the order, down channels
//!   descend it, and an up channel may wait for a down one but never the other way;
//! - a route may take a down-to-up turn by moving to the next virtual channel class. Within a
//!   class every route is up*/down*, and classes only increase along a route, so the channel
//!   dependency graph of all classes together has no cycle: no deadlock, with any number of
//!   packets and buffers (virtual cut-through);
//! - the order is by hops from the nearest router with nodes (routers with nodes lowest), then
//!   by number: on a fat tree that makes every minimal route up*/down* (one class, as the
//!   built-in fat tree). When some pair of routers has no route of at most two turns in that
//!   order, the order is a spanning tree's instead (breadth-first from a central router, the
//!   root highest), in which every router reaches every other without a turn;
//! - `routing = "minimal"` (the default): the fewest classes, up to three, with which every
//!   route between routers with nodes is a shortest path; where three do not suffice, the
//!   shortest routes of at most two turns. `routing = "up_down"`: one class, no turn (routes
//!   may be longer than the shortest). `routing = "ugal"`: adaptive, UGAL-L between the
//!   shortest route and a detour through a random router with nodes, the next hop among the
//!   shortest by the queues, on three classes (two where three do not fit), in an order in
//!   which every pair is also reached without a turn (`ugal.rs`).
//!
//! Under `minimal` and `up_down`, among the next hops that keep a route shortest, a packet
//! takes the `(src / P) mod n`-th in port order, `n` the choices here and `P` the product of
//! the choices it had before (the source's digits, as the fat tree's `straight_up`): a pair's
//! packets keep one path, and sources spread over the paths.
//!
//! The routes are tables of hops per destination router, state and router, one byte each:
//! routers with nodes × 2 × classes × routers bytes, at most [`MAX_TABLES`] (`tables.rs`).
//! The report draws a graph as its structure shows it, its routers numbered (`draw.rs`).

mod draw;
mod parse;
mod tables;
mod ugal;

use super::layout::Layout;
use super::{At, Blocks, Family, Hop, Keys, Link, LinkClass, RouterId, Routers};
use crate::units::Time;
use parse::parse;
use std::sync::Arc;
use tables::{bfs, central, choose, rank_by};

/// The most bytes the routing tables may take.
pub(crate) const MAX_TABLES: u64 = 256 << 20;

/// The most bytes of a graph file.
pub(crate) const MAX_FILE: u64 = 64 << 20;

/// Unreachable, in a table of hops.
const FAR: u8 = u8::MAX;

/// The most routers a graph file may name (its routing tables bound it further).
pub(crate) const MAX_ROUTERS: u32 = 1 << 20;
/// The most nodes a graph file may name.
pub(crate) const MAX_NODES: u32 = 1 << 24;

/// The most virtual channel classes a graph's routing takes.
const MAX_TURN_CLASSES: usize = super::MAX_CLASSES;

/// How packets are routed on a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GraphRouting {
    /// Shortest routes on the fewest classes that allow them (see the module's doc).
    Minimal,
    /// One class, no turn.
    UpDown,
    /// At the source, the shortest route or one through a random router with nodes, by the
    /// queues (UGAL-L, `ugal.rs`); the next hop among the shortest by the queues.
    Ugal,
}

/// What a router port is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Port {
    None,
    Nic(u32),
    Link { to: RouterId, back: u8, class: u8 },
}

/// A network read from a file.
#[derive(Clone, Debug)]
pub(crate) struct Graph {
    g: Arc<Built>,
    /// How packets are routed.
    pub(crate) routing: GraphRouting,
}

/// The hop of packet `p` into its destination NIC if it is at the NIC's router; else
/// `Err` with that router (every routing of a graph ends this way).
#[inline]
fn ejection(g: &Built, p: &At) -> Result<Hop, RouterId> {
    let (dr, dq) = g.nic_at[p.dst as usize];
    if p.at != dr {
        return Err(dr);
    }
    Ok(Hop {
        port: dq,
        vc: 0,
        dim: 0,
        aux: 0,
    })
}

/// Everything about a graph, built once and shared by every partition's view.
#[derive(Debug)]
struct Built {
    /// The file as the scenario names it.
    file: String,
    routers: u32,
    ports: u8,
    /// Per router and port (`r · ports + q`).
    port: Vec<Port>,
    /// Per NIC, its router and port.
    nic_at: Vec<(RouterId, u8)>,
    classes: Vec<LinkClass>,
    /// Bidirectional links.
    links: u32,
    /// Each router's place in the up*/down* order (higher is up).
    rank: Vec<u32>,
    /// Hops from the nearest router with nodes.
    level: Vec<u32>,
    /// What the order follows, in words.
    #[cfg_attr(not(test), allow(dead_code))]
    order: &'static str,
    /// Virtual channel classes the routes take.
    classes_used: u8,
    /// Routes longer than the shortest (pairs of routers with nodes).
    longer: u64,
    /// Per router, its index among the destinations (routers with nodes), `u32::MAX` if it
    /// has none.
    dest: Vec<u32>,
    /// The destinations (routers with nodes), by index.
    dests: Vec<RouterId>,
    /// Hops to destination `d` from router `r` in state `s` (`(d · states + s) · routers + r`),
    /// [`FAR`] when there is no route.
    hops: Vec<u8>,
    /// States: 2 per class (before and after going down).
    states: usize,
}

impl Built {
    /// The state after a hop from router `r` to router `n` in state `s`, if the classes allow
    /// it.
    #[inline]
    fn step(&self, r: RouterId, n: RouterId, s: usize) -> Option<usize> {
        let (turns, down) = (s / 2, s % 2 == 1);
        if self.rank[n as usize] > self.rank[r as usize] {
            if !down {
                Some(s)
            } else if turns + 1 < self.classes_used as usize {
                Some((turns + 1) * 2)
            } else {
                None
            }
        } else {
            Some(turns * 2 + 1)
        }
    }

    /// Hops from router `r` in state `s` to destination router index `d`.
    #[inline]
    fn hops(&self, d: u32, s: usize, r: RouterId) -> u8 {
        self.hops[(d as usize * self.states + s) * self.routers as usize + r as usize]
    }
}

impl Graph {
    /// Routers of a unit of its default cut: a 64th of them, at least one.
    fn per_unit(&self) -> u32 {
        (self.g.routers / 64).max(1)
    }

    /// The graph the text of file `file` describes (`cable` is `network.cable_latency`, for
    /// BookSim's weights), routed by `routing`; every error as `file:line: what`.
    pub(crate) fn parse(
        file: &str,
        text: &str,
        cable: Time,
        routing: GraphRouting,
    ) -> Result<Graph, Vec<String>> {
        let p = parse(file, text, cable)?;
        let r = p.routers as usize;
        // ports: nodes first, then links by the router they lead to
        let mut ends: Vec<Vec<(u32, u8, u32, usize)>> = vec![Vec::new(); r]; // (to, class, link, side)
        for (i, &(a, b, ca, cb, _)) in p.links.iter().enumerate() {
            ends[a as usize].push((b, ca, i as u32, 0));
            ends[b as usize].push((a, cb, i as u32, 1));
        }
        let mut nics_of: Vec<Vec<u32>> = vec![Vec::new(); r];
        for (n, &router) in p.nodes.iter().enumerate() {
            nics_of[router as usize].push(n as u32);
        }
        let mut errors = Vec::new();
        let mut ports = 0usize;
        for (i, e) in ends.iter_mut().enumerate() {
            e.sort_by_key(|&(to, _, link, _)| (to, link));
            let need = nics_of[i].len() + e.len();
            if need > 255 {
                errors.push(format!(
                    "{file}: router {i} would have {need} ports (its nodes and links); at most 255"
                ));
            }
            ports = ports.max(need);
        }
        // connected?
        let adj: Vec<Vec<RouterId>> = ends
            .iter()
            .map(|e| e.iter().map(|x| x.0).collect())
            .collect();
        let reach = bfs(&adj, &[0]);
        let cut: Vec<usize> = (0..r).filter(|&i| reach[i] == u32::MAX).collect();
        if let Some(&first) = cut.first() {
            let names: Vec<String> = cut.iter().take(8).map(|i| i.to_string()).collect();
            let shown = match cut.len() {
                n if n > 8 => format!("{} and {} more", names.join(", "), n - 8),
                _ => names.join(", "),
            };
            let at = match p.lines[first] {
                0 => format!("{file}: "),
                l => format!("{file}:{l}: "),
            };
            errors.push(format!(
                "{at}the graph is in more than one piece: router{} {shown} cannot be reached \
                 from router 0 (router {first} is first named on this line)",
                if cut.len() == 1 { "" } else { "s" }
            ));
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let ports = ports as u8;
        let mut port = vec![Port::None; r * ports as usize];
        let mut nic_at = vec![(0u32, 0u8); p.nodes.len()];
        // where each end of each link is: (router, port)
        let mut at_end = vec![[(0u32, 0u8); 2]; p.links.len()];
        for i in 0..r {
            for (q, &n) in nics_of[i].iter().enumerate() {
                port[i * ports as usize + q] = Port::Nic(n);
                nic_at[n as usize] = (i as u32, q as u8);
            }
            for (j, &(_, _, link, side)) in ends[i].iter().enumerate() {
                at_end[link as usize][side] = (i as u32, (nics_of[i].len() + j) as u8);
            }
        }
        for (i, &(_, _, ca, cb, _)) in p.links.iter().enumerate() {
            let [(ra, qa), (rb, qb)] = at_end[i];
            port[ra as usize * ports as usize + qa as usize] = Port::Link {
                to: rb,
                back: qb,
                class: ca,
            };
            port[rb as usize * ports as usize + qb as usize] = Port::Link {
                to: ra,
                back: qa,
                class: cb,
            };
        }
        // the orders, and the fewest classes that route every pair of routers with nodes
        let dests: Vec<RouterId> = (0..r as u32)
            .filter(|&i| !nics_of[i as usize].is_empty())
            .collect();
        let level = bfs(&adj, &dests);
        let levels_rank = rank_by(r, |i| (level[i] as i64, i));
        let depth = bfs(&adj, &[central(&adj) as u32]);
        let tree_rank = rank_by(r, |i| (-(depth[i] as i64), i));
        let states_cost = |c: usize| dests.len() as u64 * 2 * c as u64 * r as u64;
        // (UGAL's detours take a class of their own: two at least)
        let fewest = if routing == GraphRouting::Ugal { 2 } else { 1 };
        if states_cost(fewest) > MAX_TABLES {
            return Err(vec![format!(
                "{file}: {} routers with nodes and {r} routers need {} of routing tables; at \
                 most {}",
                dests.len(),
                crate::units::Bytes(states_cost(fewest)),
                crate::units::Bytes(MAX_TABLES)
            )]);
        }
        let orders = [
            ("hops from the nearest router with nodes", &levels_rank),
            ("a spanning tree from a central router", &tree_rank),
        ];
        let best = choose(&adj, &dests, &orders, routing);
        let Some((order, c, hops, longer)) = best else {
            return Err(vec![format!(
                "{file}: some routes are longer than {} hops: mgensim routes a graph whose \
                 routes fit in 254",
                FAR - 1
            )]);
        };
        let mut dest = vec![u32::MAX; r];
        for (i, &d) in dests.iter().enumerate() {
            dest[d as usize] = i as u32;
        }
        Ok(Graph {
            g: Arc::new(Built {
                file: file.to_string(),
                routers: r as u32,
                ports,
                port,
                nic_at,
                classes: p.classes,
                links: p.links.len() as u32,
                rank: if order.starts_with("hops") {
                    levels_rank
                } else {
                    tree_rank
                },
                level,
                order,
                classes_used: c as u8,
                longer,
                dest,
                dests,
                hops,
                states: 2 * c,
            }),
            routing,
        })
    }

    /// Bidirectional links between routers.
    #[cfg(test)]
    pub(crate) fn links(&self) -> u32 {
        self.g.links
    }
    /// Pairs of routers with nodes whose route is longer than their shortest path.
    #[cfg(test)]
    pub(crate) fn longer_routes(&self) -> u64 {
        self.g.longer
    }
    /// What the up*/down* order follows, in words.
    #[cfg(test)]
    pub(crate) fn order(&self) -> &'static str {
        self.g.order
    }
}

impl Family for Graph {
    const NAMES: &'static [(&'static str, &'static str)] = &[("graph", "graph")];
    const KEYS: &'static [&'static str] = &["graph"];
    const ROUTINGS: &'static [&'static str] = &["minimal", "up_down", "ugal"];
    const SIZE_KEY: &'static str = "network.graph";
    const SHAPE_KEYS: &'static [&'static str] = &[];

    /// `graph`: the file, beside the scenario (below its folder unless `--allow-io`).
    fn from_keys(k: &mut Keys<'_>) -> Option<Graph> {
        let routing = match k.routing(Self::ROUTINGS) {
            1 => GraphRouting::UpDown,
            2 => GraphRouting::Ugal,
            _ => GraphRouting::Minimal,
        };
        let Some(name) = k.get::<String>("graph") else {
            if !k.failed() {
                k.problem(
                    "graph",
                    "missing: a graph's routers, links and nodes are read from this file",
                );
            }
            return None;
        };
        let (path, text) = match crate::files::read_referenced(
            k.base,
            std::path::Path::new(&name),
            k.allow_io,
            MAX_FILE,
        ) {
            Ok(x) => x,
            Err(e) => {
                k.problem("graph", e);
                return None;
            }
        };
        let shown = path.display().to_string();
        let g = match Graph::parse(&shown, &text, k.cable_latency, routing) {
            Ok(g) => g,
            Err(es) => {
                for e in es {
                    k.problem("graph", e);
                }
                return None;
            }
        };
        let nics = g.g.nic_at.len() as u64;
        if !k.size_fits("graph", g.g.routers as u64, nics) {
            return None;
        }
        // (`network.nodes`: a graph has its file's, which must be enough)
        if let Some(n) = super::sizing::wanted(k) {
            let have = nics / k.nics.max(1) as u64;
            if have < n {
                k.problem(
                    "nodes",
                    format!(
                        "{n} nodes asked, and the graph's file {name} has {have}: a graph is                          the size its file says"
                    ),
                );
                return None;
            }
            let shape = format!("graph {name}");
            super::sizing::note(k, n, &shape, have, "its file's: a graph is not resized");
        }
        let mut g = g;
        Arc::get_mut(&mut g.g).expect("just built").file = name;
        Some(g)
    }

    fn name(&self) -> &'static str {
        "graph"
    }
    fn describe(&self) -> String {
        let c = self.g.classes_used;
        let longer = match self.g.longer {
            0 => String::new(),
            n => format!(", {n} routes longer than the shortest"),
        };
        format!(
            "graph {}, {} routers, {} links (routes on {c} virtual channel class{}{longer})",
            self.g.file,
            self.g.routers,
            self.g.links,
            if c == 1 { "" } else { "es" }
        )
    }
    fn shape(&self) -> String {
        self.g.file.clone()
    }
    fn routing(&self) -> &'static str {
        Self::ROUTINGS[self.routing as usize]
    }

    fn routers(&self) -> u32 {
        self.g.routers
    }
    fn ports(&self) -> u8 {
        self.g.ports
    }
    /// One more for each down-to-up turn its routes take (see the module's doc).
    fn vcs(&self) -> u8 {
        self.g.classes_used
    }
    fn nics(&self) -> u32 {
        self.g.nic_at.len() as u32
    }
    #[inline]
    fn nic_port(&self, nic: u32) -> (RouterId, u8) {
        self.g.nic_at[nic as usize]
    }
    #[inline]
    fn port_nic(&self, r: RouterId, q: u8) -> Option<u32> {
        match self
            .g
            .port
            .get(r as usize * self.g.ports as usize + q as usize)
        {
            Some(&Port::Nic(n)) => Some(n),
            _ => None,
        }
    }
    fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        match self
            .g
            .port
            .get(r as usize * self.g.ports as usize + q as usize)
        {
            Some(&Port::Link { to, back, .. }) => Some((to, back)),
            _ => None,
        }
    }
    fn link(&self, r: RouterId, q: u8) -> Link {
        match self.g.port[r as usize * self.g.ports as usize + q as usize] {
            Port::Link { class, .. } => Link {
                class,
                ..Link::default()
            },
            _ => Link::default(),
        }
    }
    fn link_classes(&self) -> Vec<LinkClass> {
        self.g.classes.clone()
    }

    // (out of line: its scan of the ports would swell every caller of `Topo::route`)
    #[inline(never)]
    fn route<R: Routers>(&self, p: At, routers: &mut R) -> Hop {
        let g = &*self.g;
        if self.routing == GraphRouting::Ugal {
            return ugal::route(g, p, routers);
        }
        let dr = match ejection(g, &p) {
            Ok(hop) => return hop,
            Err(dr) => dr,
        };
        let d = g.dest[dr as usize];
        let phase = (p.dim == 1) as usize;
        let s = p.vc as usize * 2 + phase;
        let here = g.hops(d, s, p.at);
        let row = p.at as usize * g.ports as usize;
        let on = |q: usize| -> Option<(u8, usize)> {
            let Port::Link { to, .. } = g.port[row + q] else {
                return None;
            };
            let next = g.step(p.at, to, s)?;
            (g.hops(d, next, to) as u16 + 1 == here as u16).then_some((q as u8, next))
        };
        let count = (0..g.ports as usize).filter(|&q| on(q).is_some()).count() as u32;
        debug_assert!(count > 0, "a graph's tables route every pair");
        let before = (p.aux as u32).max(1);
        let pick = (p.src / before) % count.max(1);
        let (port, next) = (0..g.ports as usize)
            .filter_map(on)
            .nth(pick as usize)
            .expect("a hop that keeps the route shortest");
        Hop {
            port,
            vc: (next / 2) as u8,
            dim: (next % 2) as u8,
            aux: (before * count).min(u16::MAX as u32) as u16,
        }
    }
    fn multipath(&self) -> bool {
        self.routing == GraphRouting::Ugal
    }
    fn distance(&self, src: u32, dst: u32) -> u32 {
        let (sr, _) = self.g.nic_at[src as usize];
        let (dr, _) = self.g.nic_at[dst as usize];
        self.g.hops(self.g.dest[dr as usize], 0, sr) as u32
    }

    /// Runs of routers by number: up to 64 partitions, runs of whole 64ths (a router each
    /// below 64), beyond that finer runs. A cut may fall anywhere, since whatever crosses it
    /// crosses a link.
    fn blocks(&self, parts: u32) -> Blocks {
        let r = self.g.routers;
        let names = ["run of routers"; 3];
        Blocks::nested(r, Some, r, self.per_unit(), parts, names)
    }
    /// Runs of routers, 64 of them (a router each below 64).
    fn cut_units(&self) -> (u32, &'static str) {
        (self.g.routers.div_ceil(self.per_unit()), "run of routers")
    }

    /// Drawn as its structure shows it (`draw.rs`): a HyperX's grid, a tree's levels, or
    /// placed by forces; every router numbered.
    fn layout(&self) -> Layout {
        draw::layout(&self.g)
    }
}

#[cfg(test)]
mod tests;
