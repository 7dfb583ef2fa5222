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
//!   may be longer than the shortest).
//!
//! Among the next hops that keep a route shortest, a packet takes the `(src / P) mod n`-th in
//! port order, `n` the choices here and `P` the product of the choices it had before (the
//! source's digits, as the fat tree's `straight_up`): a pair's packets keep one path, and
//! sources spread over the paths.
//!
//! The routes are tables of hops per destination router, state and router, one byte each:
//! routers with nodes × 2 × classes × routers bytes, at most [`MAX_TABLES`].

use super::keys::closest;
use super::layout::Layout;
use super::{At, Blocks, Family, Hop, Keys, Link, LinkClass, RouterId, Routers, MAX_LINK_CLASSES};
use crate::units::{Bandwidth, Time};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// The most bytes the routing tables may take.
pub const MAX_TABLES: u64 = 256 << 20;

/// The most bytes of a graph file.
pub const MAX_FILE: u64 = 64 << 20;

/// Unreachable, in a table of hops.
const FAR: u8 = u8::MAX;

/// The most routers a graph file may name (its routing tables bound it further).
pub const MAX_ROUTERS: u32 = 1 << 20;
/// The most nodes a graph file may name.
pub const MAX_NODES: u32 = 1 << 24;

/// The most virtual channel classes a graph's routing takes.
const MAX_TURN_CLASSES: usize = super::MAX_CLASSES;

/// How packets are routed on a graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphRouting {
    /// Shortest routes on the fewest classes that allow them (see the module's doc).
    Minimal,
    /// One class, no turn.
    UpDown,
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
pub struct Graph {
    g: Arc<Built>,
    /// How packets are routed.
    pub routing: GraphRouting,
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
    order: &'static str,
    /// Virtual channel classes the routes take.
    classes_used: u8,
    /// Routes longer than the shortest (pairs of routers with nodes).
    longer: u64,
    /// Per router, its index among the destinations (routers with nodes), `u32::MAX` if it
    /// has none.
    dest: Vec<u32>,
    /// Hops to destination `d` from router `r` in state `s` (`(d · states + s) · routers + r`),
    /// [`FAR`] when there is no route.
    hops: Vec<u8>,
    /// States: 2 per class (before and after going down).
    states: usize,
}

/// The file, read: what each line said.
struct Parsed {
    routers: u32,
    /// `(a, b, class a→b, class b→a, line)`.
    links: Vec<(u32, u32, u8, u8, usize)>,
    /// Per node: its router.
    nodes: Vec<u32>,
    classes: Vec<LinkClass>,
    /// Per router, the first line that names it (0: only declared by `routers N`).
    lines: Vec<usize>,
}

/// Reads a graph file's text (`file` names it in errors); every error as `file:line: what`.
fn parse(file: &str, text: &str, cable: Time) -> Result<Parsed, Vec<String>> {
    let mut errors = Vec::new();
    let mut err = |line: usize, msg: String| {
        if errors.len() < 20 {
            errors.push(format!("{file}:{line}: {msg}"));
        }
    };
    let mut declared_routers: Option<(u32, usize)> = None;
    let mut declared_nodes: Option<(u32, usize)> = None;
    // named classes by name; weights by weight
    let mut classes: Vec<LinkClass> = Vec::new();
    let mut class_line: BTreeMap<String, (u8, usize)> = BTreeMap::new();
    let mut weights: BTreeMap<u32, u8> = BTreeMap::new();
    // links of `link` lines; BookSim's by the pair, each direction's weight
    let mut links: Vec<(u32, u32, u8, u8, usize)> = Vec::new();
    let mut link_line: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    let mut anynet: BTreeMap<(u32, u32), (u32, u32, usize)> = BTreeMap::new();
    let mut nodes: BTreeMap<u32, (u32, usize)> = BTreeMap::new();
    // every router named, with the first line naming it
    let mut named: BTreeMap<u32, usize> = BTreeMap::new();
    let number = |w: &str| w.parse::<u32>().ok();
    // (a number past these is an error, not a table of billions)
    let too_big = |what: &str, n: u32| -> Option<String> {
        let most = if what == "router" {
            MAX_ROUTERS
        } else {
            MAX_NODES
        };
        (n >= most)
            .then(|| format!("{what} {n} is past the most a graph may have ({most} {what}s)"))
    };
    let mut attach =
        |node: u32, router: u32, line: usize, err: &mut dyn FnMut(usize, String)| match nodes
            .get(&node)
        {
            Some(&(r, l)) if r != router => err(
                line,
                format!("node {node} is on router {r} already (line {l}); a node is on one router"),
            ),
            Some(_) => {}
            None => {
                nodes.insert(node, (router, line));
            }
        };
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let words: Vec<&str> = raw
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let Some(&head) = words.first() else { continue };
        let mut name_router = |r: u32| {
            named.entry(r).or_insert(line);
        };
        match head {
            "routers" | "nodes" => match (words.get(1).and_then(|w| number(w)), words.len()) {
                (Some(n), 2) if n > 0 => {
                    let slot = if head == "routers" {
                        &mut declared_routers
                    } else {
                        &mut declared_nodes
                    };
                    let what = if head == "routers" { "router" } else { "node" };
                    match (slot, too_big(what, n - 1)) {
                        (_, Some(e)) => err(line, e),
                        (Some((_, l)), _) => {
                            err(line, format!("`{head}` is given twice (line {l})"))
                        }
                        (slot, None) => *slot = Some((n, line)),
                    }
                }
                _ => err(
                    line,
                    format!("expected `{head} N`, N a whole number above 0"),
                ),
            },
            "class" => {
                let Some(&name) = words.get(1) else {
                    err(
                        line,
                        "expected `class NAME [bandwidth=RATE] [latency=TIME]`".into(),
                    );
                    continue;
                };
                if name.parse::<u32>().is_ok() {
                    err(
                        line,
                        format!("a class's name is a word, not a number (`{name}`)"),
                    );
                    continue;
                }
                let mut class = LinkClass {
                    name: name.to_string(),
                    bandwidth: None,
                    latency: None,
                };
                for w in &words[2..] {
                    match w.split_once('=') {
                        Some(("bandwidth", v)) => match Bandwidth::parse(v) {
                            Ok(b) if b.0 > 0 => class.bandwidth = Some(b),
                            Ok(_) => {
                                err(line, "a class's bandwidth must be greater than zero".into())
                            }
                            Err(e) => err(line, format!("bandwidth `{v}`: {e}")),
                        },
                        Some(("latency", v)) => match Time::parse(v) {
                            Ok(t) => class.latency = Some(t),
                            Err(e) => err(line, format!("latency `{v}`: {e}")),
                        },
                        _ => err(
                            line,
                            format!("`{w}`: a class takes `bandwidth=RATE` and `latency=TIME`"),
                        ),
                    }
                }
                if let Some(&(_, l)) = class_line.get(name) {
                    err(line, format!("class `{name}` is defined twice (line {l})"));
                } else {
                    classes.push(class);
                    class_line.insert(name.to_string(), (classes.len() as u8, line));
                }
            }
            "link" => {
                let (a, b) = match (
                    words.get(1).and_then(|w| number(w)),
                    words.get(2).and_then(|w| number(w)),
                ) {
                    (Some(a), Some(b)) => (a, b),
                    _ => {
                        err(
                            line,
                            "expected `link A B [COUNT] [CLASS]`, A and B router numbers".into(),
                        );
                        continue;
                    }
                };
                let (mut count, mut class) = (1u32, 0u8);
                for w in &words[3..] {
                    if let Some(n) = number(w) {
                        count = n;
                    } else if let Some(&(k, _)) = class_line.get(*w) {
                        class = k;
                    } else {
                        let near = closest(w, class_line.keys().map(String::as_str))
                            .map(|c| format!("; did you mean `{c}`?"))
                            .unwrap_or_default();
                        err(
                            line,
                            format!("class `{w}` is not defined above this line{near}"),
                        );
                    }
                }
                name_router(a);
                name_router(b);
                if a == b {
                    err(line, format!("router {a} links to itself"));
                    continue;
                }
                if count == 0 || count > 255 {
                    err(
                        line,
                        format!("{count} links: a link's count is 1 to 255 (a router's ports)"),
                    );
                    continue;
                }
                let pair = (a.min(b), a.max(b));
                if let Some(l) = link_line.get(&pair) {
                    err(
                        line,
                        format!(
                            "routers {a} and {b} are linked on line {l} already (for parallel \
                             links give their count: `link {a} {b} 2`)"
                        ),
                    );
                    continue;
                }
                link_line.insert(pair, line);
                for _ in 0..count {
                    links.push((a, b, class, class, line));
                }
            }
            "router" | "node" => {
                // BookSim: a head, then `node N [W]` and `router S [W]`; or `node N R`
                let Some(id) = words.get(1).and_then(|w| number(w)) else {
                    err(line, format!("expected `{head} N`, N a whole number"));
                    continue;
                };
                if head == "node" && words.len() == 3 {
                    if let Some(r) = number(words[2]) {
                        name_router(r);
                        attach(id, r, line, &mut err);
                        continue;
                    }
                }
                if head == "router" {
                    name_router(id);
                }
                let mut at = 2;
                while at < words.len() {
                    let (kind, Some(other)) =
                        (words[at], words.get(at + 1).and_then(|w| number(w)))
                    else {
                        err(
                            line,
                            format!(
                                "expected `node N` or `router R` at `{}`",
                                words[at..].join(" ")
                            ),
                        );
                        break;
                    };
                    at += 2;
                    let weight = match words.get(at).and_then(|w| number(w)) {
                        Some(w) => {
                            at += 1;
                            w
                        }
                        None => 1,
                    };
                    match (head, kind) {
                        ("router", "node") => attach(other, id, line, &mut err),
                        ("node", "router") => {
                            name_router(other);
                            attach(id, other, line, &mut err)
                        }
                        ("node", "node") => {
                            err(line, format!("node {id} cannot link to node {other}"))
                        }
                        ("router", "router") => {
                            name_router(other);
                            if other == id {
                                err(line, format!("router {id} links to itself"));
                                continue;
                            }
                            if weight == 0 {
                                err(line, "a link's latency weight must be at least 1".into());
                                continue;
                            }
                            let pair = (id.min(other), id.max(other));
                            let e = anynet.entry(pair).or_insert((1, 1, line));
                            if id < other {
                                e.0 = weight;
                            } else {
                                e.1 = weight;
                            }
                        }
                        _ => err(line, format!("`{kind}`: expected `node` or `router`")),
                    }
                }
            }
            other => {
                let near = closest(
                    other,
                    ["routers", "nodes", "class", "link", "node", "router"],
                )
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
                err(
                    line,
                    format!(
                        "`{other}` starts no statement (routers, nodes, class, link, node, \
                         router){near}"
                    ),
                );
            }
        }
    }
    // numbers past what a graph may have: named at their first line, and nothing more read
    let past: Vec<String> = named
        .iter()
        .filter_map(|(&r, &l)| too_big("router", r).map(|e| format!("{file}:{l}: {e}")))
        .chain(
            nodes
                .iter()
                .filter_map(|(&n, &(_, l))| too_big("node", n).map(|e| format!("{file}:{l}: {e}"))),
        )
        .take(5)
        .collect();
    if !past.is_empty() {
        errors.extend(past);
        return Err(errors);
    }
    // BookSim's links: one each, classes by weight
    for (&(a, b), &(wa, wb, line)) in &anynet {
        if let Some(l) = link_line.get(&(a, b)) {
            err(
                line,
                format!("routers {a} and {b} are linked on line {l} already, by a `link` line"),
            );
            continue;
        }
        let mut class_of = |w: u32| -> u8 {
            if w == 1 {
                return 0;
            }
            *weights.entry(w).or_insert_with(|| {
                classes.push(LinkClass {
                    name: format!("weight {w}"),
                    bandwidth: None,
                    latency: Some(Time(cable.0.saturating_mul(w as u64))),
                });
                classes.len() as u8
            })
        };
        let (ca, cb) = (class_of(wa), class_of(wb));
        links.push((a, b, ca, cb, line));
    }
    if classes.len() > MAX_LINK_CLASSES {
        err(
            0,
            format!(
                "{} link classes (named and by weight); at most {MAX_LINK_CLASSES}",
                classes.len()
            ),
        );
    }
    // routers: 0 to R - 1
    let routers = declared_routers.map_or(named.len() as u32, |(n, _)| n);
    for (&r, &line) in &named {
        if r >= routers {
            let how = match declared_routers {
                Some((n, l)) => format!("line {l} declares {n} routers, 0 to {}", n - 1),
                None => format!(
                    "the file names {routers} routers, so they are numbered 0 to {} (or declare \
                     them with `routers N`)",
                    routers.saturating_sub(1)
                ),
            };
            err(line, format!("router {r} does not exist: {how}"));
        }
    }
    // nodes: 0 to N - 1, each on a router
    let count = declared_nodes.map_or(nodes.keys().next_back().map_or(0, |&n| n + 1), |(n, _)| n);
    if let Some((n, l)) = declared_nodes {
        if let Some((&node, &(_, line))) = nodes.range(n..).next() {
            err(
                line,
                format!("node {node} does not exist: line {l} declares {n} nodes"),
            );
        }
    }
    if nodes.is_empty() {
        err(0, "the graph has no node (give `node N R` lines)".into());
    } else if let Some(missing) = (0..count).find(|n| !nodes.contains_key(n)) {
        let (&last, &(_, line)) = nodes.iter().next_back().expect("not empty");
        err(
            line,
            format!(
                "node {missing} is on no router (nodes are numbered from 0 without gaps, up to \
                 node {} here)",
                count.max(last + 1) - 1
            ),
        );
    }
    if !errors.is_empty() {
        // (a line 0 is the file as a whole)
        return Err(errors
            .into_iter()
            .map(|e| e.replace(&format!("{file}:0: "), &format!("{file}: ")))
            .collect());
    }
    links.sort_by_key(|l| l.4);
    let mut lines = vec![0; routers as usize];
    for (&r, &line) in &named {
        if let Some(l) = lines.get_mut(r as usize) {
            *l = line;
        }
    }
    Ok(Parsed {
        routers,
        links,
        nodes: nodes.values().map(|&(r, _)| r).collect(),
        classes,
        lines,
    })
}

/// Routers in breadth-first order from `from`: the hops to each (`u32::MAX`: not reached).
fn bfs(adj: &[Vec<RouterId>], from: &[RouterId]) -> Vec<u32> {
    let mut d = vec![u32::MAX; adj.len()];
    let mut q = VecDeque::new();
    for &f in from {
        d[f as usize] = 0;
        q.push_back(f);
    }
    while let Some(v) = q.pop_front() {
        for &n in &adj[v as usize] {
            if d[n as usize] == u32::MAX {
                d[n as usize] = d[v as usize] + 1;
                q.push_back(n);
            }
        }
    }
    d
}

/// The order by `key` (ascending), as each router's place in it.
fn rank_by(routers: usize, key: impl Fn(usize) -> (i64, usize)) -> Vec<u32> {
    let mut order: Vec<usize> = (0..routers).collect();
    order.sort_by_key(|&r| key(r));
    let mut rank = vec![0u32; routers];
    for (i, &r) in order.iter().enumerate() {
        rank[r] = i as u32;
    }
    rank
}

/// The hop tables for `classes` classes in the order `rank` (see [`Built::hops`]).
fn tables(adj: &[Vec<RouterId>], rank: &[u32], dests: &[RouterId], classes: usize) -> Vec<u8> {
    let n = adj.len();
    let states = 2 * classes;
    let mut hops = vec![FAR; dests.len() * states * n];
    let mut q = VecDeque::new();
    for (di, &d) in dests.iter().enumerate() {
        let base = di * states * n;
        for s in 0..states {
            hops[base + s * n + d as usize] = 0;
            q.push_back((d, s));
        }
        // backwards: which states of which routers reach (v, s) in one hop
        while let Some((v, s)) = q.pop_front() {
            let h = hops[base + s * n + v as usize];
            if h >= FAR - 1 {
                continue;
            }
            let (turns, down) = (s / 2, s % 2 == 1);
            for &u in &adj[v as usize] {
                let up = rank[v as usize] > rank[u as usize];
                let mut from = [usize::MAX; 2];
                if up && !down {
                    // going up ends in the up phase: from it, or from down by a turn
                    from[0] = turns * 2;
                    if turns > 0 {
                        from[1] = (turns - 1) * 2 + 1;
                    }
                } else if !up && down {
                    // going down ends in the down phase, from either
                    from = [turns * 2, turns * 2 + 1];
                }
                for ps in from {
                    if ps == usize::MAX {
                        continue;
                    }
                    let slot = &mut hops[base + ps * n + u as usize];
                    if *slot == FAR {
                        *slot = h + 1;
                        q.push_back((u, ps));
                    }
                }
            }
        }
    }
    hops
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
    /// The graph the text of file `file` describes (`cable` is `network.cable_latency`, for
    /// BookSim's weights), routed by `routing`; every error as `file:line: what`.
    pub fn parse(
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
        let root = {
            // a central router: the middle of a longest shortest path found by two sweeps
            let d0 = bfs(&adj, &[0]);
            let u = (0..r)
                .max_by_key(|&i| (d0[i], std::cmp::Reverse(i)))
                .unwrap_or(0);
            let du = bfs(&adj, &[u as u32]);
            let v = (0..r)
                .max_by_key(|&i| (du[i], std::cmp::Reverse(i)))
                .unwrap_or(0);
            let dv = bfs(&adj, &[v as u32]);
            let half = du[v] / 2;
            (0..r)
                .filter(|&i| du[i] == half && du[i] + dv[i] == du[v])
                .min()
                .unwrap_or(0)
        };
        let depth = bfs(&adj, &[root as u32]);
        let tree_rank = rank_by(r, |i| (-(depth[i] as i64), i));
        let states_cost = |c: usize| dests.len() as u64 * 2 * c as u64 * r as u64;
        if states_cost(1) > MAX_TABLES {
            return Err(vec![format!(
                "{file}: {} routers with nodes and {r} routers need {} of routing tables; at \
                 most {}",
                dests.len(),
                crate::units::Bytes(states_cost(1)),
                crate::units::Bytes(MAX_TABLES)
            )]);
        }
        // shortest paths between routers with nodes, to tell a minimal set of routes
        // (between routers with nodes only: a row per destination, a column per source)
        let shortest: Vec<Vec<u8>> = dests
            .iter()
            .map(|&d| {
                let all = bfs(&adj, &[d]);
                dests
                    .iter()
                    .map(|&s| all[s as usize].min(FAR as u32) as u8)
                    .collect()
            })
            .collect();
        let most = match routing {
            GraphRouting::Minimal => MAX_TURN_CLASSES,
            GraphRouting::UpDown => 1,
        };
        // (order, classes, tables, routes longer than the shortest); the first set that is
        // minimal, else the one with the fewest excess hops
        let mut best: Option<(&'static str, usize, Vec<u8>, u64, bool)> = None;
        'orders: for (order, rank) in [
            ("hops from the nearest router with nodes", &levels_rank),
            ("a spanning tree from a central router", &tree_rank),
        ] {
            for c in 1..=most {
                if states_cost(c) > MAX_TABLES {
                    break;
                }
                let hops = tables(&adj, rank, &dests, c);
                let (mut excess, mut reached) = (0u64, true);
                for (di, _) in dests.iter().enumerate() {
                    for (si, &src) in dests.iter().enumerate() {
                        let h = hops[di * 2 * c * r + src as usize];
                        if h == FAR {
                            reached = false;
                        } else {
                            excess += h.saturating_sub(shortest[di][si]) as u64;
                        }
                    }
                }
                if !reached {
                    continue;
                }
                let better = best.as_ref().map_or(true, |b| excess < b.3);
                if better {
                    best = Some((order, c, hops, excess, true));
                }
                if excess == 0 {
                    break 'orders;
                }
            }
        }
        let Some((order, c, hops, longer, _)) = best else {
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
                hops,
                states: 2 * c,
            }),
            routing,
        })
    }

    /// Bidirectional links between routers.
    pub fn links(&self) -> u32 {
        self.g.links
    }
    /// Pairs of routers with nodes whose route is longer than their shortest path.
    pub fn longer_routes(&self) -> u64 {
        self.g.longer
    }
    /// What the up*/down* order follows, in words.
    pub fn order(&self) -> &'static str {
        self.g.order
    }
}

impl Family for Graph {
    const NAMES: &'static [(&'static str, &'static str)] = &[("graph", "graph")];
    const KEYS: &'static [&'static str] = &["graph"];
    const ROUTINGS: &'static [&'static str] = &["minimal", "up_down"];
    const SIZE_KEY: &'static str = "network.graph";

    /// `graph`: the file, beside the scenario (below its folder unless `--allow-io`).
    fn from_keys(k: &mut Keys<'_>) -> Option<Graph> {
        let routing = match k.routing(Self::ROUTINGS) {
            1 => GraphRouting::UpDown,
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
    fn route<R: Routers>(&self, p: At, _: &mut R) -> Hop {
        let g = &*self.g;
        let (dr, dq) = g.nic_at[p.dst as usize];
        if p.at == dr {
            return Hop {
                port: dq,
                vc: 0,
                dim: 0,
                aux: 0,
            };
        }
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
        false
    }
    fn distance(&self, src: u32, dst: u32) -> u32 {
        let (sr, _) = self.g.nic_at[src as usize];
        let (dr, _) = self.g.nic_at[dst as usize];
        self.g.hops(self.g.dest[dr as usize], 0, sr) as u32
    }

    /// 64 runs of routers by number (a router each below 64): a cut may fall anywhere, since
    /// whatever crosses it crosses a link.
    fn blocks(&self) -> Blocks {
        let r = self.g.routers;
        let per = (r / 64).max(1);
        Blocks {
            of: (0..r).map(|i| Some(i / per)).collect(),
            count: r.div_ceil(per),
            unit: "run of routers",
        }
    }

    /// Rows by hops from the nearest router with nodes (those at the bottom), each row's
    /// routers spread evenly in the order of their numbers; when every router has nodes, a
    /// circle.
    fn layout(&self) -> Layout {
        let g = &*self.g;
        let n = g.routers as usize;
        let top = g.level.iter().copied().max().unwrap_or(0);
        let name = |r: usize| {
            let nodes = (0..g.ports as usize)
                .filter(|&q| matches!(g.port[r * g.ports as usize + q], Port::Nic(_)))
                .count();
            match nodes {
                0 => "no node".to_string(),
                1 => "1 node".to_string(),
                k => format!("{k} nodes"),
            }
        };
        if top == 0 {
            let radius = (n as f32 / std::f32::consts::TAU).max(1.0) * 1.5;
            let places = (0..n)
                .map(|r| {
                    let a = std::f32::consts::TAU * r as f32 / n.max(1) as f32;
                    (radius * a.cos(), radius * a.sin(), name(r))
                })
                .collect();
            return Layout::new(places, Vec::new());
        }
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); top as usize + 1];
        for r in 0..n {
            rows[g.level[r] as usize].push(r);
        }
        let widest = rows.iter().map(Vec::len).max().unwrap_or(1) as f32;
        let gap = (widest / 4.0).clamp(2.0, 12.0);
        let mut places = vec![(0.0, 0.0, String::new()); n];
        let mut labels = Vec::new();
        for (l, row) in rows.iter().enumerate() {
            let span = widest / row.len().max(1) as f32;
            let y = (top as usize - l) as f32 * gap;
            for (i, &r) in row.iter().enumerate() {
                places[r] = ((i as f32 + 0.5) * span, y, name(r));
            }
            let what = match l {
                0 => "routers with nodes".to_string(),
                1 => "1 hop from the nodes".to_string(),
                l => format!("{l} hops from the nodes"),
            };
            labels.push((widest + 0.6, y, what));
        }
        Layout::new(places, labels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::walk;

    fn graph(text: &str) -> Graph {
        Graph::parse("g", text, Time(600), GraphRouting::Minimal).unwrap()
    }

    fn errors(text: &str) -> Vec<String> {
        Graph::parse("g", text, Time(600), GraphRouting::Minimal).unwrap_err()
    }

    /// A two-level fat tree of 4 leaves (2 nodes each) and 2 spines, in BookSim's words.
    const TREE: &str = "
router 0 node 0 node 1 router 4 router 5
router 1 node 2 node 3 router 4 router 5
router 2 node 4 node 5 router 4 router 5
router 3 node 6 node 7 router 4 router 5
";

    #[test]
    fn a_fat_tree_in_booksim_s_words_routes_up_and_down_on_one_class() {
        let g = graph(TREE);
        assert_eq!((g.routers(), g.ports(), g.nics(), g.links()), (6, 4, 8, 8));
        assert_eq!(g.vcs(), 1, "{}", g.order());
        assert_eq!(g.longer_routes(), 0);
        // ports: nodes first, then the spines in order
        assert_eq!(g.nic_port(3), (1, 1));
        assert_eq!(g.neighbour(1, 2), Some((4, 1)));
        assert_eq!(g.neighbour(1, 3), Some((5, 1)));
        assert_eq!(g.neighbour(5, 0), Some((0, 3)));
        // same leaf: no hop; another leaf: up to the spine the source's digit picks, down
        assert_eq!(walk(&g, 0, 1).0, vec![0]);
        assert_eq!(walk(&g, 0, 7).0, vec![0, 4, 3]);
        assert_eq!(walk(&g, 1, 7).0, vec![0, 5, 3]);
        assert_eq!(walk(&g, 2, 4).0, vec![1, 4, 2]);
        for s in 0..8 {
            for d in 0..8 {
                let (path, vcs) = walk(&g, s, d);
                assert!(vcs.iter().all(|&v| v == 0));
                assert_eq!(path.len() as u32 - 1, g.distance(s, d));
            }
        }
    }

    #[test]
    fn a_ring_needs_a_turn_and_takes_a_second_class_for_it() {
        // a ring of 6 routers, a node each: every router is lowest, ordered by number; the
        // shortest route 5 -> 0 -> 1 goes down, then up
        let text = "link 0 1\nlink 1 2\nlink 2 3\nlink 3 4\nlink 4 5\nlink 5 0\n\
                    node 0 0\nnode 1 1\nnode 2 2\nnode 3 3\nnode 4 4\nnode 5 5\n";
        let g = graph(text);
        assert_eq!(g.vcs(), 2);
        assert_eq!(g.longer_routes(), 0);
        let (path, vcs) = walk(&g, 5, 1);
        assert_eq!(path, vec![5, 0, 1]);
        assert_eq!(vcs, vec![0, 1], "the turn at router 0 moves to class 1");
        for s in 0..6 {
            for d in 0..6 {
                let k = (d + 6 - s) % 6;
                assert_eq!(walk(&g, s, d).0.len() as u32 - 1, k.min(6 - k));
            }
        }
        // up*/down* alone: one class, and some routes go the long way round
        let u = Graph::parse("g", text, Time(600), GraphRouting::UpDown).unwrap();
        assert_eq!(u.vcs(), 1);
        assert!(u.longer_routes() > 0);
        assert_eq!(walk(&u, 5, 1).0.len() - 1, 4, "5 -> 4 -> 3 -> 2 -> 1");
    }

    #[test]
    fn classes_weights_and_parallel_links_are_read() {
        let g = graph(
            "class global bandwidth=12.5GB/s latency=30ns\n\
             link 0 1 2 global\nrouter 1 router 2 3\nnode 0 0\nnode 1 router 2\n",
        );
        let classes = g.link_classes();
        assert_eq!(classes[0].name, "global");
        assert_eq!(classes[0].bandwidth, Some(Bandwidth(12_500_000_000)));
        assert_eq!(classes[0].latency, Some(Time::from_ns(30)));
        assert_eq!(classes[1].name, "weight 3");
        assert_eq!(classes[1].latency, Some(Time(1800)));
        // router 0: node, two links to 1; router 1: two to 0, one to 2
        assert_eq!(g.link(0, 1).class, 1);
        assert_eq!(g.link(0, 2).class, 1);
        assert_eq!(g.neighbour(1, 2), Some((2, 1)));
        assert_eq!(g.link(1, 2).class, 2, "1 -> 2 weighs 3");
        assert_eq!(g.link(2, 1).class, 0, "2 -> 1 keeps weight 1");
    }

    #[test]
    fn every_error_names_its_line() {
        let cases: &[(&str, &str)] = &[
            ("link 0 0\nnode 0 0\n", "g:1: router 0 links to itself"),
            (
                "router 2 router 2\nnode 0 2\n",
                "g:1: router 2 links to itself",
            ),
            (
                "routers 2\nlink 0 1\nlink 1 5\nnode 0 0\n",
                "g:3: router 5 does not exist: line 1 declares 2 routers, 0 to 1",
            ),
            (
                "link 0 1\nlink 1 7\nnode 0 0\n",
                "g:2: router 7 does not exist: the file names 3 routers",
            ),
            (
                "link 0 1\nnode 0 0\nnode 2 1\n",
                "g:3: node 1 is on no router",
            ),
            (
                "link 0 1\nnode 0 0\nnode 0 1\n",
                "g:3: node 0 is on router 0 already (line 2)",
            ),
            (
                "link 0 1\nlink 2 3\nnode 0 0\nnode 1 2\n",
                "g:2: the graph is in more than one piece: routers 2, 3 cannot be reached",
            ),
            (
                "link 0 1 fast\nnode 0 0\n",
                "g:1: class `fast` is not defined",
            ),
            (
                "link 0 1\nlink 1 0\nnode 0 0\n",
                "g:2: routers 1 and 0 are linked on line 1 already",
            ),
            ("lnk 0 1\nnode 0 0\n", "g:1: `lnk` starts no statement"),
            ("link 0 1\n", "g: the graph has no node"),
            (
                "link 0 1\nnode 4000000000 1\n",
                "g:2: node 4000000000 is past the most a graph may have",
            ),
            (
                "link 0 4000000000\nnode 0 0\n",
                "g:1: router 4000000000 is past the most",
            ),
            (
                "routers 4000000000\nnode 0 0\n",
                "g:1: router 3999999999 is past the most",
            ),
            (
                "link 0 1 1000000000\nnode 0 0\n",
                "g:1: 1000000000 links: a link's count is 1 to 255",
            ),
        ];
        for (text, want) in cases {
            let e = errors(text);
            assert!(e.iter().any(|x| x.starts_with(want)), "{text:?}: {e:?}");
        }
    }

    #[test]
    fn random_regular_graphs_route_every_pair_without_a_cycle_of_classes() {
        // routes stay within the classes and each pair's hops match its table
        let mut seed = 12345u64;
        for trial in 0..6 {
            let n = 10 + 2 * trial;
            let mut text = String::new();
            let mut links = std::collections::BTreeSet::new();
            // a ring for connectedness, then chords
            for i in 0..n {
                links.insert((i.min((i + 1) % n), i.max((i + 1) % n)));
            }
            for _ in 0..n {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let (a, b) = ((seed >> 33) as u32 % n, (seed >> 13) as u32 % n);
                if a != b {
                    links.insert((a.min(b), a.max(b)));
                }
            }
            for (a, b) in &links {
                text += &format!("link {a} {b}\n");
            }
            for i in 0..n {
                text += &format!("node {i} {i}\n");
            }
            let g = graph(&text);
            for s in 0..n {
                for d in 0..n {
                    let (path, vcs) = walk(&g, s, d);
                    assert!(vcs.windows(2).all(|w| w[0] <= w[1]), "classes only grow");
                    assert!(vcs.iter().all(|&v| v < g.vcs()));
                    assert_eq!(path.len() as u32 - 1, g.distance(s, d));
                }
            }
        }
    }
}
