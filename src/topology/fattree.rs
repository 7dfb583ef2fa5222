//! Fat trees with full bisection bandwidth (NSIM §3.1, TraceRP Table 1; docs/model.md §4).
//!
//! The tree is an extended generalized fat tree (XGFT, Öhring et al. 1995) described per
//! switch level `i = 1..h` (1 = the leaves): a level-`i` switch has `m_i` ports down and
//! `w_{i+1}` ports up (`w` = 0 at the top). Nodes number `N = Π m_i`; level `i` has
//! `B_i · N / M_i` switches, with `M_i = Π_{t≤i} m_t` and `B_i = Π_{2≤t≤i} w_t`. The common
//! shapes:
//! - `radix = R, levels = n`: the largest full-bisection tree of `R`-port switches, every level
//!   `R/2` down and `R/2` up except the top, `R` down; `2 (R/2)^n` nodes (R = 24, n = 2: 288,
//!   TraceRP's tree);
//! - a k-ary n-tree (Petrini and Vanneschi): `down_ports = [k; n]`, `up_ports = [k, …, k, 0]`.
//!
//! Switch `s` of level `i` is `s = b + B_i · a`: `a = node / M_i` names the subtree of nodes
//! below it and `b < B_i` which of the `B_i` switches over that subtree it is. Its up port `j`
//! leads to switch `b + B_i j` over subtree `a / m_{i+1}` of level `i + 1`, arriving on down
//! port `a mod m_{i+1}`. Router ids run level by level, leaves first; leaf `s`'s down port `c`
//! is node `s·m_1 + c`. Ports: down ports first, then up ports.
//!
//! **Routing** goes up to the lowest level whose subtree holds the destination, then straight
//! down (the down port at level `i` is digit `i` of the destination). Only the up ports are a
//! choice, NSIM's two rules and a random one:
//! - `straight_up`: "from the source straight up to a spine": the up port at level `i` is
//!   `(src / B_i) mod w_{i+1}` (S-mod-k), NSIM's choice for its random-ring study;
//! - `straight_down`: "from the spine straight down to the destination": the same digit of the
//!   destination (D-mod-k), so all traffic to one node meets at one spine;
//! - `random`: a seeded random up port for every packet at every level.
//!
//! Up/down routing cannot close a cycle of channel dependencies, so one virtual channel
//! suffices.

use super::layout::Layout;
use super::{At, Blocks, Family, Hop, Keys, Link, LinkClass, RouterId, Routers, NO_DIM};
use crate::units::{Bandwidth, Time};

/// The routing rules of a fat tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FatTreeRouting {
    /// Up by the source's digits (S-mod-k): one path per source.
    StraightUp,
    /// Up by the destination's digits (D-mod-k): one path per destination.
    StraightDown,
    /// Up to a random top (seeded): balances the load.
    Random,
}

/// Most levels of a tree (each level's links have their own class).
pub(crate) const MAX_LEVELS: usize = 8;

/// A fat tree.
#[derive(Clone, Debug)]
pub(crate) struct FatTree {
    /// `m_i`: down ports of a level-`i` switch (index `i - 1`).
    pub(crate) down: Vec<u32>,
    /// `w_{i+1}`: up ports of a level-`i` switch (index `i - 1`; 0 at the top).
    pub(crate) up: Vec<u32>,
    /// `M_i` for `i = 0..=h`.
    m_prod: Vec<u32>,
    /// `B_i` for `i = 0..=h` (`B_0 = B_1 = 1`).
    b_prod: Vec<u32>,
    /// First router id of each level (index `i - 1`), and one past the last.
    start: Vec<u32>,
    /// How packets are routed.
    pub(crate) routing: FatTreeRouting,
    ports: u8,
    /// The rate and latency of the links above each level but the top, leaves first, where
    /// given (`network.level_link_bandwidth`, `network.level_cable_latency`).
    levels_bw: Vec<Option<Bandwidth>>,
    levels_latency: Vec<Option<Time>>,
}

impl FatTree {
    /// A tree with `down[i]` ports down and `up[i]` up at level `i + 1`; `up` ends with 0.
    pub(crate) fn new(down: &[u32], up: &[u32], routing: FatTreeRouting) -> FatTree {
        let h = down.len();
        let mut m_prod = vec![1u32];
        let mut b_prod = vec![1u32, 1];
        for i in 0..h {
            m_prod.push(m_prod[i] * down[i]);
            if i + 1 < h {
                b_prod.push(b_prod[i + 1] * up[i]);
            }
        }
        let nodes = m_prod[h];
        let mut start = vec![0u32];
        for i in 1..=h {
            let count = b_prod[i] * (nodes / m_prod[i]);
            start.push(start[i - 1] + count);
        }
        let ports = (0..h).map(|i| down[i] + up[i]).max().unwrap_or(0) as u8;
        FatTree {
            down: down.to_vec(),
            up: up.to_vec(),
            m_prod,
            b_prod,
            start,
            routing,
            ports,
            levels_bw: vec![None; h.saturating_sub(1)],
            levels_latency: vec![None; h.saturating_sub(1)],
        }
    }

    /// Levels of switches.
    pub(crate) fn levels(&self) -> usize {
        self.down.len()
    }
    /// Nodes below the leaves.
    pub(crate) fn nodes(&self) -> u32 {
        self.m_prod[self.levels()]
    }
    /// Switches at level `i` (1-based).
    pub(crate) fn switches(&self, i: usize) -> u32 {
        self.start[i] - self.start[i - 1]
    }
    /// Leaves: routers `0..leaves()` carry the nodes, `m_1` each.
    pub(crate) fn leaves(&self) -> u32 {
        self.switches(1)
    }

    /// Leaves of a pod (the subtree of a second-level switch; all of them in a tree of one
    /// level), at least one.
    pub(crate) fn pod(&self) -> u32 {
        let per = if self.levels() >= 2 {
            self.down[1]
        } else {
            self.leaves()
        };
        per.max(1)
    }

    /// Level (1-based) and index within it of router `r`.
    #[inline]
    pub(crate) fn place(&self, r: RouterId) -> (usize, u32) {
        let mut i = 1;
        while r >= self.start[i] {
            i += 1;
        }
        (i, r - self.start[i - 1])
    }

    /// The router behind port `q` of router `r` and the port the link arrives on (none for a
    /// leaf's node ports, or an up port of the top level).
    pub(crate) fn link_to(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        let (i, s) = self.place(r);
        let (m, w) = (self.down[i - 1], self.up[i - 1]);
        let q = q as u32;
        let bi = self.b_prod[i];
        let (b, a) = (s % bi, s / bi);
        if q < m {
            if i == 1 {
                return None;
            }
            // down to level i - 1
            let bl = self.b_prod[i - 1];
            let (b2, j) = (b % bl, b / bl);
            let a2 = a * m + q;
            let child = self.start[i - 2] + b2 + bl * a2;
            Some((child, (self.down[i - 2] + j) as u8))
        } else if q < m + w {
            let j = q - m;
            let mu = self.down[i];
            let parent = self.start[i] + b + bi * j + self.b_prod[i + 1] * (a / mu);
            Some((parent, (a % mu) as u8))
        } else {
            None
        }
    }

    /// Routing decision at router `at` for a packet from node `src` to node `dst`; `draw`
    /// gives a random number when the rule needs one.
    #[inline]
    pub(crate) fn route_to(
        &self,
        at: RouterId,
        src: u32,
        dst: u32,
        draw: impl FnOnce() -> u64,
    ) -> Hop {
        let (i, s) = self.place(at);
        let a = s / self.b_prod[i];
        let port = if dst / self.m_prod[i] == a {
            (dst / self.m_prod[i - 1]) % self.down[i - 1]
        } else {
            let w = self.up[i - 1];
            let j = match self.routing {
                FatTreeRouting::StraightUp => (src / self.b_prod[i]) % w,
                FatTreeRouting::StraightDown => (dst / self.b_prod[i]) % w,
                FatTreeRouting::Random => (draw() % w as u64) as u32,
            };
            self.down[i - 1] + j
        };
        Hop {
            port: port as u8,
            vc: 0,
            dim: NO_DIM,
            aux: 0,
        }
    }

    /// Level of the lowest common ancestor of two nodes (1 when they share a leaf).
    pub(crate) fn common_level(&self, src: u32, dst: u32) -> usize {
        (1..=self.levels())
            .find(|&i| src / self.m_prod[i] == dst / self.m_prod[i])
            .unwrap_or(self.levels())
    }
}

/// NIC ports of the full-bisection tree of radix `r` and `l` levels: `r` for one switch,
/// else `2 (r/2)^l` (`None` past `u64`).
fn full_tree_ports(r: u32, l: u32) -> Option<u64> {
    if l == 1 {
        return Some(r as u64);
    }
    (0..l).try_fold(2u64, |a, _| a.checked_mul(r as u64 / 2))
}

/// The radix and levels of the full-bisection tree `network.nodes = n` picks (`nics` NIC ports
/// a node): the fewest levels of radix `radix`; else the smallest even radix of `levels`
/// levels; else the smallest radix of the fewest levels from 2 that a radix of at most 254
/// reaches. Its NIC ports share out `nics` to a node.
fn fit(n: u64, nics: u32, radix: Option<u32>, levels: Option<u32>) -> Option<(u32, u32)> {
    let nics = nics.max(1) as u64;
    let holds =
        |r: u32, l: u32| full_tree_ports(r, l).is_some_and(|p| p % nics == 0 && p / nics >= n);
    match (radix, levels) {
        (Some(r), _) => (1..=MAX_LEVELS as u32)
            .find(|&l| holds(r, l))
            .map(|l| (r, l)),
        (None, Some(l)) => (2..=254).step_by(2).find(|&r| holds(r, l)).map(|r| (r, l)),
        (None, None) => (2..=MAX_LEVELS as u32)
            .find_map(|l| (2..=254).step_by(2).find(|&r| holds(r, l)).map(|r| (r, l))),
    }
}

impl Family for FatTree {
    const NAMES: &'static [(&'static str, &'static str)] = &[("fattree", "fat tree")];
    const KEYS: &'static [&'static str] = &[
        "radix",
        "levels",
        "down_ports",
        "up_ports",
        "level_link_bandwidth",
        "level_cable_latency",
    ];
    const ROUTINGS: &'static [&'static str] = &["straight_up", "straight_down", "random"];
    const SIZE_KEY: &'static str = "network.radix";
    const SHAPE_KEYS: &'static [&'static str] = &["radix", "levels", "down_ports", "up_ports"];

    /// `radix` and `levels` (default 24 and 2: the largest full-bisection tree of `radix`-port
    /// switches; picked by `network.nodes` where it is given, `sizing.rs`), or `down_ports`
    /// and `up_ports` level by level; the links above each level
    /// at their own rate and latency where `level_link_bandwidth` and `level_cable_latency`
    /// say.
    fn from_keys(k: &mut Keys<'_>) -> Option<FatTree> {
        let routing = match k.routing(Self::ROUTINGS) {
            1 => FatTreeRouting::StraightDown,
            2 => FatTreeRouting::Random,
            _ => FatTreeRouting::StraightUp,
        };
        let mut radix: Option<u32> = k.get("radix");
        let mut levels: Option<u32> = k.get("levels");
        let down: Option<Vec<u32>> = k.get("down_ports");
        let up: Option<Vec<u32>> = k.get("up_ports");
        // (`network.nodes`: the full-bisection tree of the fewest nodes that hold them)
        let sized = super::sizing::wanted(k);
        if let Some(n) = sized {
            let fixed: &[&str] = match (radix, levels) {
                (Some(_), Some(_)) => &["levels", "down_ports", "up_ports"],
                _ => &["down_ports", "up_ports"],
            };
            if !super::sizing::alone(k, fixed) {
                return None;
            }
            match fit(n, k.nics, radix, levels) {
                Some((r, l)) => (radix, levels) = (Some(r), Some(l)),
                None => {
                    let within = match (radix, levels) {
                        (Some(r), _) => format!("of radix {r} and at most 8 levels"),
                        (_, Some(l)) => format!("of {l} levels and radix at most 254"),
                        _ => "of radix at most 254 and at most 8 levels".to_string(),
                    };
                    k.problem(
                        "nodes",
                        format!("no full-bisection fat tree {within} has {n} nodes"),
                    );
                    return None;
                }
            }
        }
        let explicit = down.is_some() || up.is_some();
        if explicit && (radix.is_some() || levels.is_some()) {
            k.problem(
                "radix",
                "give either `radix` and `levels` or `down_ports` and `up_ports`, not both",
            );
        }
        let (down, up) = ports_per_level(k, down, up, radix, levels)?;
        // the links above each level but the top: one entry each
        let levels = down.len();
        let wanted = levels.saturating_sub(1);
        let bw: Option<Vec<Bandwidth>> = k.get("level_link_bandwidth");
        let latency: Option<Vec<Time>> = k.get("level_cable_latency");
        for (key, n) in [
            ("level_link_bandwidth", bw.as_ref().map(Vec::len)),
            ("level_cable_latency", latency.as_ref().map(Vec::len)),
        ] {
            if let Some(n) = n.filter(|&n| n != wanted) {
                k.problem(
                    key,
                    format!(
                        "{n} entries for a tree of {levels} levels: give {wanted}, one for the \
                         links above each level but the top, leaves first"
                    ),
                );
            }
        }
        if bw.iter().flatten().any(|b| b.0 == 0) {
            k.problem("level_link_bandwidth", "must be greater than zero");
        }
        if k.failed() {
            return None;
        }
        // (nodes and switches, counted without overflow before anything is built)
        let nodes = down.iter().fold(1u64, |a, &d| a.saturating_mul(d as u64));
        let mut routers = 0u64;
        let (mut m, mut b) = (1u64, 1u64);
        for i in 0..levels {
            m = m.saturating_mul(down[i] as u64);
            if i >= 1 {
                b = b.saturating_mul(up[i - 1] as u64);
            }
            routers = routers.saturating_add(b.saturating_mul(nodes / m.max(1)));
        }
        if !k.size_fits("radix", routers, nodes) {
            return None;
        }
        let mut t = FatTree::new(&down, &up, routing);
        if let Some(bw) = bw {
            t.levels_bw = bw.into_iter().map(Some).collect();
        }
        if let Some(l) = latency {
            t.levels_latency = l.into_iter().map(Some).collect();
        }
        if let Some(n) = sized {
            let how = match (k.given("radix"), k.given("levels")) {
                (true, _) => {
                    "the full-bisection tree of the fewest levels of its radix that holds them"
                }
                (_, true) => {
                    "the full-bisection tree of the smallest radix of its levels that holds them"
                }
                _ => {
                    "the full-bisection tree of the smallest radix that holds them in 2 levels; \
                     3 or more only past radix 254"
                }
            };
            let shape = format!("fat tree of {}", t.shape());
            super::sizing::note(k, n, &shape, nodes / k.nics.max(1) as u64, how);
        }
        Some(t)
    }

    fn name(&self) -> &'static str {
        "fattree"
    }
    fn describe(&self) -> String {
        let d: Vec<String> = self.down.iter().map(u32::to_string).collect();
        let u: Vec<String> = self.up.iter().map(u32::to_string).collect();
        format!(
            "fat tree, {} levels, ports down {} / up {}",
            self.levels(),
            d.join(","),
            u.join(",")
        )
    }
    /// `radix R, L levels` for the full-bisection tree of `R`-port switches, else its ports
    /// level by level.
    fn shape(&self) -> String {
        let l = self.levels();
        let top = self.down[l - 1];
        let full = self.down[..l - 1].iter().all(|&d| 2 * d == top)
            && self.up[..l - 1].iter().all(|&u| 2 * u == top);
        if full {
            return format!("radix {top}, {l} level{}", if l == 1 { "" } else { "s" });
        }
        let d: Vec<String> = self.down.iter().map(u32::to_string).collect();
        let u: Vec<String> = self.up.iter().map(u32::to_string).collect();
        format!("down {} up {}", d.join(","), u.join(","))
    }
    fn routing(&self) -> &'static str {
        Self::ROUTINGS[self.routing as usize]
    }

    fn routers(&self) -> u32 {
        self.start[self.levels()]
    }
    /// The widest switch's.
    fn ports(&self) -> u8 {
        self.ports
    }
    /// Up/down routing cannot close a cycle of channel dependencies: one class.
    fn vcs(&self) -> u8 {
        1
    }
    fn nics(&self) -> u32 {
        self.nodes()
    }
    #[inline]
    fn nic_port(&self, nic: u32) -> (RouterId, u8) {
        super::regular_nic_port(nic, self.down[0])
    }
    #[inline]
    fn port_nic(&self, r: RouterId, q: u8) -> Option<u32> {
        super::regular_port_nic(r, q, self.down[0], self.leaves())
    }
    fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        self.link_to(r, q)
    }
    /// The links above level `i` are class `i` (leaves first).
    fn link(&self, r: RouterId, q: u8) -> Link {
        let (level, _) = self.place(r);
        let down = (q as u32) < self.down[level - 1];
        let below = if down { level - 1 } else { level };
        Link {
            class: below.clamp(1, MAX_LEVELS) as u8,
            ..Link::default()
        }
    }
    fn link_classes(&self) -> Vec<LinkClass> {
        (0..self.levels().saturating_sub(1).max(1))
            .map(|i| LinkClass {
                name: format!("above level {}", i + 1),
                bandwidth: self.levels_bw.get(i).copied().flatten(),
                latency: self.levels_latency.get(i).copied().flatten(),
            })
            .collect()
    }

    #[inline]
    fn route<R: Routers>(&self, p: At, routers: &mut R) -> Hop {
        self.route_to(p.at, p.src, p.dst, || routers.draw(p.at))
    }
    fn multipath(&self) -> bool {
        self.routing == FatTreeRouting::Random
    }
    /// Up to the common ancestor and down.
    fn distance(&self, src: u32, dst: u32) -> u32 {
        2 * (self.common_level(src, dst) as u32 - 1)
    }

    /// Runs of whole pods, the leaves under one subtree of the second level (all of them when
    /// the tree has one level); beyond a partition a pod, runs of a pod's leaves. A switch
    /// above the leaves goes where most of the switches below it are, the top level's, over
    /// every pod alike, dealt out in turn (`partition.rs`).
    fn blocks(&self, parts: u32) -> Blocks {
        let leaves = self.leaves();
        let leaf = |r: RouterId| (r < leaves).then_some(r);
        let names = ["pod", "run of a pod's leaves", "run of leaves"];
        Blocks::nested(self.routers(), leaf, leaves, self.pod(), parts, names)
    }
    /// Pods.
    fn cut_units(&self) -> (u32, &'static str) {
        (self.leaves().div_ceil(self.pod()), "pod")
    }
    /// One a leaf.
    fn most_parts(&self) -> u32 {
        self.leaves()
    }

    /// One row per level, the top at the top, each level's switches spread evenly over the
    /// widest row in the order of their numbers (so that pods sit side by side), the rows
    /// labelled at their right end.
    fn layout(&self) -> Layout {
        let levels = self.levels();
        let widest = (1..=levels).map(|i| self.switches(i)).max().unwrap_or(1) as f32;
        let places: Vec<(f32, f32, String)> = (0..self.routers())
            .map(|r| {
                let (i, s) = self.place(r);
                let span = widest / self.switches(i) as f32;
                let x = (s as f32 + 0.5) * span;
                let y = (levels - i) as f32 * (widest / 4.0).clamp(2.0, 12.0);
                (x, y, format!("level {i} switch {s}"))
            })
            .collect();
        // (at the right end of each row, clear of the links)
        let x1 = places.iter().map(|p| p.0).fold(f32::MIN, f32::max);
        let mut labels = Vec::new();
        let mut seen = vec![false; levels + 1];
        for (r, p) in places.iter().enumerate() {
            let (i, _) = self.place(r as u32);
            if !seen[i] {
                seen[i] = true;
                let what = match i {
                    1 => " (leaves)".to_string(),
                    i if i == levels => " (top)".to_string(),
                    _ => String::new(),
                };
                labels.push((x1 + 0.6, p.1, format!("level {i}{what}")));
            }
        }
        Layout::new(places, labels)
    }
}

/// Ports down and up per level, leaves first: `down_ports` and `up_ports` as given (checked:
/// 1 to 8 levels, the same number of each, every level a port down, every level but the top
/// ports up), or those of a full-bisection tree of `radix` ports and `levels` levels (24 and
/// 2 by default). None when a problem was told.
fn ports_per_level(
    k: &mut Keys<'_>,
    down: Option<Vec<u32>>,
    up: Option<Vec<u32>>,
    radix: Option<u32>,
    levels: Option<u32>,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let (down, up) = match (down, up) {
        (Some(_), None) => {
            k.problem(
                "up_ports",
                "missing; `down_ports` and `up_ports` go together, one entry per level",
            );
            return None;
        }
        (None, Some(_)) => {
            k.problem(
                "down_ports",
                "missing; `down_ports` and `up_ports` go together, one entry per level",
            );
            return None;
        }
        (Some(d), Some(u)) => {
            if d.is_empty() || d.len() > MAX_LEVELS || d.len() != u.len() {
                k.problem(
                    "down_ports",
                    format!(
                        "{} levels of down ports and {} of up ports; give 1 to 8 levels, the \
                         same number of each",
                        d.len(),
                        u.len()
                    ),
                );
            } else if d.contains(&0) {
                k.problem("down_ports", "every level needs a port down");
            } else if u[u.len() - 1] != 0 || u[..u.len() - 1].contains(&0) {
                k.problem(
                    "up_ports",
                    "every level but the top needs ports up, and the top has none (end \
                     the list with 0)",
                );
            } else if d.iter().zip(&u).any(|(&a, &b)| a as u64 + b as u64 > 255) {
                k.problem("down_ports", "a switch may have at most 255 ports");
            }
            (d, u)
        }
        (None, None) => {
            let r = radix.unwrap_or(24);
            if r < 2 || r % 2 == 1 || r > 254 {
                k.problem(
                    "radix",
                    format!("{r} is out of range (an even number of ports, 2 to 254)"),
                );
            }
            let l = levels.unwrap_or(2);
            if !(1..=MAX_LEVELS as u32).contains(&l) {
                k.problem("levels", format!("{l} is out of range (1 to 8)"));
            }
            if k.failed() {
                return None;
            }
            let n = l as usize;
            let mut down = vec![r / 2; n - 1];
            down.push(r);
            let mut up = vec![r / 2; n - 1];
            up.push(0);
            (down, up)
        }
    };
    Some((down, up))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Routers visited from node `src` to node `dst`.
    fn walk(t: &FatTree, src: u32, dst: u32, seed: &mut u64) -> Vec<RouterId> {
        let mut at = src / t.down[0];
        let mut path = vec![at];
        loop {
            let h = t.route_to(at, src, dst, || {
                *seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                *seed >> 33
            });
            if t.place(at).0 == 1 && (h.port as u32) < t.down[0] {
                assert_eq!(at * t.down[0] + h.port as u32, dst);
                return path;
            }
            let (n, back) = t
                .neighbour(at, h.port)
                .expect("route uses an existing link");
            assert_eq!(t.neighbour(n, back), Some((at, h.port)), "links pair up");
            at = n;
            path.push(at);
            assert!(path.len() < 20);
        }
    }

    #[test]
    fn tracerp_tree_of_24_port_switches_has_288_nodes() {
        let t = FatTree::new(&[12, 24], &[12, 0], FatTreeRouting::StraightUp);
        assert_eq!(t.nodes(), 288);
        assert_eq!(t.switches(1), 24);
        assert_eq!(t.switches(2), 12);
        assert_eq!(t.ports(), 24);
        // nodes 0 and 11 share leaf 0; 0 and 12 meet at a spine: 2 switch-to-switch links
        let mut seed = 1;
        assert_eq!(walk(&t, 0, 11, &mut seed), vec![0]);
        assert_eq!(walk(&t, 0, 12, &mut seed), vec![0, 24, 1]);
        // straight up from node 5: spine 5 whatever the destination
        assert_eq!(walk(&t, 5, 287, &mut seed), vec![0, 24 + 5, 23]);
    }

    #[test]
    fn routes_climb_exactly_to_the_lowest_common_ancestor() {
        for routing in [
            FatTreeRouting::StraightUp,
            FatTreeRouting::StraightDown,
            FatTreeRouting::Random,
        ] {
            // a 3-ary 3-tree (27 nodes) and an irregular three-level tree
            for (down, up) in [
                (vec![3, 3, 3], vec![3, 3, 0]),
                (vec![2, 3, 4], vec![2, 3, 0]),
            ] {
                let t = FatTree::new(&down, &up, routing);
                let mut seed = 7;
                for s in 0..t.nodes() {
                    for d in 0..t.nodes() {
                        let path = walk(&t, s, d, &mut seed);
                        let top = t.common_level(s, d);
                        assert_eq!(path.len(), 2 * top - 1, "{s}->{d}: {path:?}");
                        let highest = path.iter().map(|&r| t.place(r).0).max().unwrap();
                        assert_eq!(highest, top);
                    }
                }
            }
        }
    }

    #[test]
    fn straight_down_meets_at_one_spine_per_destination() {
        let t = FatTree::new(&[4, 4, 4], &[4, 4, 0], FatTreeRouting::StraightDown);
        let mut seed = 3;
        let first = walk(&t, 0, 63, &mut seed)[2];
        // nodes 48..63 share a level-2 subtree with 63; all others climb to the top level
        for s in 1..48 {
            assert_eq!(walk(&t, s, 63, &mut seed)[2], first, "from {s}");
        }
    }

    #[test]
    fn random_up_ports_spread_over_every_spine() {
        let t = FatTree::new(&[4, 8], &[4, 0], FatTreeRouting::Random);
        let mut seed = 11;
        let mut seen = [false; 4];
        for _ in 0..64 {
            let p = walk(&t, 0, 31, &mut seed);
            seen[(p[1] - t.leaves()) as usize] = true;
        }
        assert_eq!(seen, [true; 4]);
    }
}
