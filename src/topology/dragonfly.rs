//! Dragonfly (Kim, Dally, Scott and Abts 2008; TraceRP; docs/model.md §4).
//!
//! `g` groups of `a` routers; each router has `p` nodes, a local link to every other router of
//! its group, and `h` global links. Router `R = G·a + r` (group `G`, router `r` in it); its
//! ports are the `p` nodes, then `a − 1` local ports (port `p + r'` for router `r' < r`,
//! `p + r' − 1` for `r' > r`), then `h` global ports.
//!
//! **Global links**, canonical consecutive arrangement: group `G`'s global link `l = r·h + x`
//! (router `r`, its global port `x`) is copy `l / (g − 1)` of the link to the `(l mod (g−1))`-th
//! other group in increasing order. With the largest number of groups, `g = a·h + 1`, every
//! pair of groups has exactly one link; with fewer, `⌊a·h / (g−1)⌋` parallel copies, and any
//! remaining ports stay unconnected. TraceRP's dragonfly is `a = 6, p = 3, h = 3`: 19 groups,
//! 342 nodes.
//!
//! **Routing**:
//! - `minimal`: local hop to the router holding a link to the destination group (if needed),
//!   the global hop, a local hop to the destination router: at most one global hop. Among
//!   parallel copies the destination node picks (`dst mod copies`).
//! - `valiant`: first minimally to a random intermediate group (neither the source's nor the
//!   destination's), then minimally on: at most two global hops.
//! - `ugal`: UGAL-L; at the source router, minimal unless the bytes queued for the minimal
//!   first hop times its path length exceed those of a Valiant path through a random group by
//!   more than a margin of one packet (`ugal.rs`).
//!
//! A packet's virtual channel is the number of global hops it has taken, so a channel of class
//! `v` only ever waits for one of class `v` further along the local-global order of a group, or
//! of class `v + 1`: no cycle. Minimal routing needs 2 virtual channels, the others 3.
//!
//! Routing state carried by a packet (`aux`): 0 before the source router decided, 1 for a
//! minimal route (or once the intermediate group is reached), `2 + G` while heading for
//! intermediate group `G`.

use super::layout::Layout;
use super::{ugal, At, Blocks, Family, Hop, Keys, Link, LinkClass, RouterId, Routers};
use crate::units::{Bandwidth, Time};

/// The routing rules of a dragonfly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DragonflyRouting {
    /// The direct route: local, global, local.
    Minimal,
    /// Through a random intermediate group (seeded).
    Valiant,
    /// Minimal or Valiant, whichever queue looks shorter when the packet leaves its router.
    Ugal,
}

/// `aux` of a packet routed minimally from here on.
pub(crate) const MINIMAL: u16 = 1;

/// A dragonfly.
#[derive(Clone, Debug)]
pub(crate) struct Dragonfly {
    /// Routers per group.
    pub(crate) a: u32,
    /// Nodes per router.
    pub(crate) p: u32,
    /// Global links per router.
    pub(crate) h: u32,
    /// Groups.
    pub(crate) g: u32,
    /// Parallel links between each pair of groups.
    pub(crate) copies: u32,
    /// How packets are routed.
    pub(crate) routing: DragonflyRouting,
    /// The global links' rate and latency where given (`network.global_link_bandwidth`,
    /// `network.global_cable_latency`).
    global: (Option<Bandwidth>, Option<Time>),
}

impl Dragonfly {
    /// `g` groups of `a` routers, each with `p` nodes and `h` global links.
    pub(crate) fn new(a: u32, p: u32, h: u32, g: u32, routing: DragonflyRouting) -> Dragonfly {
        let copies = if g > 1 { (a * h) / (g - 1) } else { 0 };
        Dragonfly {
            a,
            p,
            h,
            g,
            copies,
            routing,
            global: (None, None),
        }
    }
    /// Nodes in all groups.
    pub(crate) fn nodes(&self) -> u32 {
        self.routers() * self.p
    }
    /// Port of router `r` to router `to` of its group.
    #[inline]
    fn local_port(&self, r: u32, to: u32) -> u8 {
        (self.p + if to < r { to } else { to - 1 }) as u8
    }
    /// Whether port `q` is a global port.
    #[inline]
    pub(crate) fn is_global(&self, q: u8) -> bool {
        q as u32 >= self.p + self.a - 1
    }
    /// Router (in group `from`) and global port of copy `c` of the link to group `to`.
    #[inline]
    fn global_link(&self, from: u32, to: u32, c: u32) -> (u32, u8) {
        let idx = if to < from { to } else { to - 1 };
        let l = c * (self.g - 1) + idx;
        (l / self.h, (self.p + self.a - 1 + l % self.h) as u8)
    }

    /// The router behind port `q` of router `r` and the port the link arrives on.
    pub(crate) fn link_to(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        let (grp, i) = (r / self.a, r % self.a);
        let q32 = q as u32;
        if q32 < self.p {
            None
        } else if q32 < self.p + self.a - 1 {
            let li = q32 - self.p;
            let to = if li < i { li } else { li + 1 };
            Some((grp * self.a + to, self.local_port(to, i)))
        } else {
            // (global port `q32 + 1 - p - a` of this router: `q32 >= p + a - 1`)
            let l = i * self.h + (q32 + 1 - self.p - self.a);
            if self.g < 2 || l >= self.copies * (self.g - 1) {
                return None;
            }
            let (c, idx) = (l / (self.g - 1), l % (self.g - 1));
            let to = if idx < grp { idx } else { idx + 1 };
            let (tr, tq) = self.global_link(to, grp, c);
            Some((to * self.a + tr, tq))
        }
    }

    /// Routing decision at router `at` for a packet to node `dst` holding virtual channel `vc`
    /// with routing state `aux` (see the module documentation; 0 is taken as minimal).
    #[inline]
    pub(crate) fn route_to(&self, at: RouterId, dst: u32, vc: u8, aux: u16) -> Hop {
        let (grp, i) = (at / self.a, at % self.a);
        let dr = dst / self.p;
        let mut aux = aux.max(MINIMAL);
        let mut target = dr / self.a;
        if aux > MINIMAL {
            let via = (aux - 2) as u32;
            if via == grp {
                aux = MINIMAL;
            } else {
                target = via;
            }
        }
        let (port, vc) = if target == grp {
            if dr == at {
                ((dst % self.p) as u8, vc)
            } else {
                (self.local_port(i, dr % self.a), vc)
            }
        } else {
            let (owner, gport) = self.global_link(grp, target, dst % self.copies);
            if owner == i {
                (gport, vc + 1)
            } else {
                (self.local_port(i, owner), vc)
            }
        };
        Hop {
            port,
            vc,
            dim: 0,
            aux,
        }
    }

    /// Router-to-router links on the route from router `src` to node `dst` with state `aux`:
    /// (local, global).
    pub(crate) fn path_length(&self, src: RouterId, dst: u32, aux: u16) -> (u32, u32) {
        let (mut at, mut vc, mut aux) = (src, 0u8, aux);
        let (mut local, mut global) = (0, 0);
        loop {
            let h = self.route_to(at, dst, vc, aux);
            if (h.port as u32) < self.p {
                return (local, global);
            }
            if self.is_global(h.port) {
                global += 1;
            } else {
                local += 1;
            }
            let (n, _) = self.link_to(at, h.port).expect("route uses a link");
            at = n;
            vc = h.vc;
            aux = h.aux;
        }
    }

    /// A random intermediate group for a packet from router `src` to node `dst`: `aux` for a
    /// Valiant route, or [`MINIMAL`] when no third group exists or both ends share a group.
    pub(crate) fn valiant(&self, src: RouterId, dst: u32, draw: u64) -> u16 {
        let (sg, dg) = (src / self.a, dst / self.p / self.a);
        if sg == dg || self.g < 3 {
            return MINIMAL;
        }
        // the (draw mod (g-2))-th group that is neither sg nor dg
        let mut v = (draw % (self.g - 2) as u64) as u32;
        let (lo, hi) = (sg.min(dg), sg.max(dg));
        if v >= lo {
            v += 1;
        }
        if v >= hi {
            v += 1;
        }
        2 + v as u16
    }
}

impl Dragonfly {
    /// The route a packet takes from its source router: minimal, Valiant through a random
    /// group, or (UGAL-L, `ugal.rs`) whichever has the smaller product of the bytes queued for
    /// its first hop and its path length, minimal within the margin.
    fn choose<R: Routers>(&self, at: RouterId, dst: u32, routers: &mut R) -> u16 {
        match self.routing {
            DragonflyRouting::Minimal => MINIMAL,
            DragonflyRouting::Valiant => self.valiant(at, dst, routers.draw(at)),
            DragonflyRouting::Ugal => {
                let via = self.valiant(at, dst, routers.draw(at));
                if via == MINIMAL {
                    return via;
                }
                let cost = |aux: u16| {
                    let first = self.route_to(at, dst, 0, aux).port;
                    let (l, g) = self.path_length(at, dst, aux);
                    (routers.queue(at, first), (l + g) as u64)
                };
                let ((qm, hm), (qv, hv)) = (cost(MINIMAL), cost(via));
                if ugal::minimal_wins(qm, hm, qv, hv, routers.packet_bytes()) {
                    MINIMAL
                } else {
                    routers.derouted();
                    via
                }
            }
        }
    }
}

/// The `(a, p, h, g)` that `network.nodes = n` picks (`nics` NIC ports a node): `a = 2h`
/// and `p = h` where not given, the smallest `h` (or the one given) whose largest dragonfly
/// holds `n` nodes within 255 ports a router, then the fewest groups `g` whose `g − 1` divides
/// the `a·h` global links of a group (every global port used: `a·h / (g − 1)` links between
/// each pair of groups).
fn fit(
    n: u64,
    nics: u32,
    a: Option<u32>,
    p: Option<u32>,
    h: Option<u32>,
) -> Option<(u32, u32, u32, u32)> {
    let nics = nics.max(1) as u64;
    let hs = match h {
        Some(h) => h..=h,
        None => 1..=127,
    };
    for h in hs {
        let (a, p) = (a.unwrap_or(2 * h), p.unwrap_or(h));
        if a == 0 || p == 0 || p as u64 + a as u64 - 1 + h as u64 > 255 {
            continue;
        }
        let ah = a as u64 * h as u64;
        let groups = (1..=ah + 1).filter(|&g| {
            if ah == 0 {
                g == 1
            } else {
                g >= 2 && ah % (g - 1) == 0
            }
        });
        for g in groups {
            let ports = a as u64 * p as u64 * g;
            if ports % nics == 0 && ports / nics >= n && g <= 65_000 {
                return Some((a, p, h, g as u32));
            }
        }
    }
    None
}

impl Family for Dragonfly {
    const NAMES: &'static [(&'static str, &'static str)] = &[("dragonfly", "dragonfly")];
    const KEYS: &'static [&'static str] = &[
        "routers_per_group",
        "nodes_per_router",
        "global_links_per_router",
        "groups",
        "global_link_bandwidth",
        "global_cable_latency",
    ];
    const ROUTINGS: &'static [&'static str] = &["minimal", "valiant", "ugal"];
    const SIZE_KEY: &'static str = "network.groups";
    const SHAPE_KEYS: &'static [&'static str] = &[
        "routers_per_group",
        "nodes_per_router",
        "global_links_per_router",
        "groups",
    ];

    /// `routers_per_group` (`a`, 6), `nodes_per_router` (`p`, 3), `global_links_per_router`
    /// (`h`, 3) and `groups` (`a·h + 1` when left out: one global link between every pair of
    /// groups), or picked by `network.nodes` (`sizing.rs`); the global links at their own rate
    /// and latency where given.
    fn from_keys(k: &mut Keys<'_>) -> Option<Dragonfly> {
        let routing = match k.routing(Self::ROUTINGS) {
            1 => DragonflyRouting::Valiant,
            2 => DragonflyRouting::Ugal,
            _ => DragonflyRouting::Minimal,
        };
        let (a, p, h): (Option<u32>, Option<u32>, Option<u32>) = (
            k.get("routers_per_group"),
            k.get("nodes_per_router"),
            k.get("global_links_per_router"),
        );
        // (`network.nodes`: the balanced dragonfly of the fewest nodes that hold them)
        let sized = super::sizing::wanted(k);
        let (a, p, h, g) = match sized {
            Some(n) => {
                if !super::sizing::alone(k, &["groups"]) {
                    return None;
                }
                let Some(shape) = fit(n, k.nics, a, p, h) else {
                    k.problem(
                        "nodes",
                        format!(
                            "no dragonfly of at most 255 ports a router{} has {n} nodes with                              every global port used",
                            if a.or(p).or(h).is_some() {
                                " and the a, p, h given"
                            } else {
                                ""
                            }
                        ),
                    );
                    return None;
                };
                shape
            }
            None => {
                let (a, p, h) = (a.unwrap_or(6), p.unwrap_or(3), h.unwrap_or(3));
                let g = k
                    .get("groups")
                    .unwrap_or(a.saturating_mul(h).saturating_add(1));
                (a, p, h, g)
            }
        };
        let bw: Option<Bandwidth> = k.get("global_link_bandwidth");
        let latency: Option<Time> = k.get("global_cable_latency");
        for (key, v, lo) in [
            ("routers_per_group", a, 1),
            ("nodes_per_router", p, 1),
            ("global_links_per_router", h, 0),
            ("groups", g, 1),
        ] {
            if v < lo || v > 65_000 {
                k.problem(key, format!("{v} is out of range ({lo} to 65000)"));
            }
        }
        if bw.is_some_and(|b| b.0 == 0) {
            k.problem("global_link_bandwidth", "must be greater than zero");
        }
        if k.failed() {
            return None;
        }
        if p as u64 + a as u64 + h as u64 > 256 {
            k.problem(
                "routers_per_group",
                "a router may have at most 255 ports (nodes + other routers of its group + \
                 global links)",
            );
            return None;
        }
        if g > 1 && g as u64 - 1 > a as u64 * h as u64 {
            k.problem(
                "groups",
                format!(
                    "{g} groups cannot all be linked: a group has {} global links \
                     (routers_per_group × global_links_per_router), at most {} groups",
                    a * h,
                    a * h + 1
                ),
            );
            return None;
        }
        let routers = a as u64 * g as u64;
        if !k.size_fits("groups", routers, routers * p as u64) {
            return None;
        }
        let mut d = Dragonfly::new(a, p, h, g, routing);
        d.global = (bw, latency);
        if let Some(n) = sized {
            let how = "a = 2p = 2h where not given, the smallest h that holds them with every \
                       global port used, then the fewest groups";
            super::sizing::note(
                k,
                n,
                &d.describe(),
                routers * p as u64 / k.nics.max(1) as u64,
                how,
            );
        }
        Some(d)
    }

    fn name(&self) -> &'static str {
        "dragonfly"
    }
    fn describe(&self) -> String {
        format!(
            "dragonfly, {} groups of {} routers, {} nodes and {} global links each",
            self.g, self.a, self.p, self.h
        )
    }
    fn shape(&self) -> String {
        format!("a={} p={} h={} g={}", self.a, self.p, self.h, self.g)
    }
    fn routing(&self) -> &'static str {
        Self::ROUTINGS[self.routing as usize]
    }

    /// In all groups.
    fn routers(&self) -> u32 {
        self.a * self.g
    }
    /// Nodes, local links, global links.
    fn ports(&self) -> u8 {
        (self.p + self.a - 1 + self.h) as u8
    }
    /// One per hop class (see the module's doc).
    fn vcs(&self) -> u8 {
        match self.routing {
            DragonflyRouting::Minimal => 2,
            _ => 3,
        }
    }
    fn nics(&self) -> u32 {
        self.nodes()
    }
    #[inline]
    fn nic_port(&self, nic: u32) -> (RouterId, u8) {
        super::regular_nic_port(nic, self.p)
    }
    #[inline]
    fn port_nic(&self, r: RouterId, q: u8) -> Option<u32> {
        super::regular_port_nic(r, q, self.p, self.routers())
    }
    fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
        self.link_to(r, q)
    }
    /// Global links are class 1.
    fn link(&self, _r: RouterId, q: u8) -> Link {
        let global = self.is_global(q);
        Link {
            class: global as u8,
            global,
            ..Link::default()
        }
    }
    fn link_classes(&self) -> Vec<LinkClass> {
        vec![LinkClass {
            name: "global".into(),
            bandwidth: self.global.0,
            latency: self.global.1,
        }]
    }

    #[inline]
    fn route<R: Routers>(&self, p: At, routers: &mut R) -> Hop {
        let aux = if p.aux == 0 {
            self.choose(p.at, p.dst, routers)
        } else {
            p.aux
        };
        self.route_to(p.at, p.dst, p.vc, aux)
    }
    fn multipath(&self) -> bool {
        self.routing != DragonflyRouting::Minimal
    }
    /// Minimal: local and global links.
    fn distance(&self, src: u32, dst: u32) -> u32 {
        let (l, g) = self.path_length(src / self.p, dst, MINIMAL);
        l + g
    }

    /// Runs of whole groups; beyond a partition a group, runs of a group's routers.
    fn blocks(&self, parts: u32) -> Blocks {
        let routers = self.routers();
        let names = ["group", "run of a group's routers", "run of routers"];
        Blocks::nested(routers, Some, routers, self.a, parts, names)
    }
    /// Groups.
    fn cut_units(&self) -> (u32, &'static str) {
        (self.g, "group")
    }

    /// Groups around a circle, each group's routers on a small circle of its own, the
    /// group's name outside the ring of groups.
    fn layout(&self) -> Layout {
        let (a, g) = (self.a as f32, self.g as f32);
        let small = (a / std::f32::consts::PI).max(0.8);
        let big = (g * (2.0 * small + 1.5) / (2.0 * std::f32::consts::PI)).max(small * 2.5);
        let places: Vec<(f32, f32, String)> = (0..self.routers())
            .map(|r| {
                let (gi, j) = (r / self.a, r % self.a);
                let ga = std::f32::consts::TAU * gi as f32 / g;
                let ra = std::f32::consts::TAU * j as f32 / a;
                let (cx, cy) = (big * ga.cos(), big * ga.sin());
                (
                    cx + small * ra.cos(),
                    cy + small * ra.sin(),
                    format!("group {gi} router {j}"),
                )
            })
            .collect();
        let mut labels = Vec::new();
        for gi in 0..self.g {
            let members = &places[(gi * self.a) as usize..((gi + 1) * self.a) as usize];
            let n = members.len().max(1) as f32;
            let cx = members.iter().map(|p| p.0).sum::<f32>() / n;
            let cy = members.iter().map(|p| p.1).sum::<f32>() / n;
            // (outside the ring of groups, clear of the global links inside it)
            let rg = ((members[0].0 - cx).powi(2) + (members[0].1 - cy).powi(2)).sqrt();
            let len = (cx * cx + cy * cy).sqrt().max(1e-3);
            let out = rg + 0.7;
            labels.push((
                cx + cx / len * out,
                cy + cy / len * out,
                format!("group {gi}"),
            ));
        }
        Layout {
            centred_labels: true,
            ..Layout::new(places, labels)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tracerp() -> Dragonfly {
        Dragonfly::new(6, 3, 3, 19, DragonflyRouting::Minimal)
    }

    #[test]
    fn tracerp_dragonfly_has_342_nodes_and_every_link_pairs_up() {
        let d = tracerp();
        assert_eq!(d.nodes(), 342);
        assert_eq!(d.copies, 1);
        let mut global = 0;
        for r in 0..d.routers() {
            for q in 0..d.ports() {
                if let Some((n, back)) = d.neighbour(r, q) {
                    assert_eq!(d.neighbour(n, back), Some((r, q)), "{r}:{q}");
                    if d.is_global(q) {
                        global += 1;
                        assert_ne!(n / d.a, r / d.a);
                    } else {
                        assert_eq!(n / d.a, r / d.a);
                    }
                }
            }
        }
        // one link between each of the 19·18/2 pairs of groups, counted from both ends
        assert_eq!(global, 19 * 18);
    }

    #[test]
    fn minimal_takes_at_most_one_global_hop_and_valiant_two() {
        let d = tracerp();
        let mut seed = 5u64;
        let mut longest = (0, 0);
        for src in 0..d.routers() {
            for dst in 0..d.nodes() {
                let (l, g) = d.path_length(src, dst, MINIMAL);
                let same_group = src / d.a == dst / d.p / d.a;
                assert_eq!(g, u32::from(!same_group));
                assert!(l <= if same_group { 1 } else { 2 });
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                let aux = d.valiant(src, dst, seed >> 20);
                let (lv, gv) = d.path_length(src, dst, aux);
                if same_group {
                    assert_eq!(aux, MINIMAL);
                } else {
                    assert_eq!(gv, 2, "Valiant through group {}", aux - 2);
                    assert!(lv <= 3);
                }
                longest = longest.max((gv, lv));
            }
        }
        assert_eq!(longest, (2, 3));
    }

    #[test]
    fn worked_example() {
        // router 0 (group 0) to node 3·6·3 = 54 (group 3, router 18): group 0's link to group 3
        // is link 2, on router 0, global port 3 + 5 + 2 = 10; it arrives at group 3's link 0
        // (router 18), which holds node 54: one global hop, no local one.
        let d = tracerp();
        let h = d.route_to(0, 54, 0, MINIMAL);
        assert_eq!((h.port, h.vc), (10, 1));
        assert_eq!(d.neighbour(0, 10), Some((18, 8)));
        assert_eq!(d.path_length(0, 54, MINIMAL), (0, 1));
        // to node 55 + 3 = 57 (router 19): one more local hop
        assert_eq!(d.path_length(0, 57, MINIMAL), (1, 1));
    }

    #[test]
    fn fewer_groups_get_parallel_links() {
        let d = Dragonfly::new(4, 2, 2, 5, DragonflyRouting::Minimal);
        assert_eq!(d.copies, 2);
        for r in 0..d.routers() {
            for q in 0..d.ports() {
                let (n, back) = d.neighbour(r, q).unwrap_or((r, q));
                if n != r {
                    assert_eq!(d.neighbour(n, back), Some((r, q)));
                }
            }
        }
        for src in 0..d.routers() {
            for dst in 0..d.nodes() {
                assert!(d.path_length(src, dst, MINIMAL).1 <= 1);
            }
        }
    }
}
