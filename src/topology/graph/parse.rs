//! Reading a graph file (the statements of the module's doc, and BookSim's `anynet` lines)
//! into routers, links, link classes and nodes, with every problem as `file:line: what`.
//!
//! A word of the file is quoted in a message within bounds ([`shown`]): a line of a
//! megabyte gives a message of a line. A link's latency, a class's or a BookSim weight's
//! (`W` cable latencies), is at most [`MAX_LATENCY`]; the largest weight the cable latency
//! allows is named when one is past it, so that no latency saturates or wraps.

use super::super::keys::{closest, MAX_LATENCY};
use super::super::{LinkClass, MAX_LINK_CLASSES};
use super::{MAX_NODES, MAX_ROUTERS};
use crate::units::{Bandwidth, Time, UnitError};
use crate::words::shown;
use std::collections::BTreeMap;

/// The most problems one file reports (the first, in the order of its lines).
const MAX_ERRORS: usize = 20;

/// The file, read: what each line said.
pub(super) struct Parsed {
    pub(crate) routers: u32,
    /// `(a, b, class a→b, class b→a, line)`.
    pub(crate) links: Vec<(u32, u32, u8, u8, usize)>,
    /// Per node: its router.
    pub(crate) nodes: Vec<u32>,
    pub(crate) classes: Vec<LinkClass>,
    /// Per router, the first line that names it (0: only declared by `routers N`).
    pub(crate) lines: Vec<usize>,
}

/// Reads a graph file's text (`file` names it in errors; `cable` is `network.cable_latency`,
/// the unit of BookSim's weights); every error as `file:line: what`.
pub(super) fn parse(file: &str, text: &str, cable: Time) -> Result<Parsed, Vec<String>> {
    let mut r = Reader::new(file, cable);
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let words: Vec<&str> = raw
            .split('#')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let Some(&head) = words.first() else { continue };
        match head {
            "routers" | "nodes" => r.count(head, &words, line),
            "class" => r.class(&words, line),
            "link" => r.link(&words, line),
            "router" | "node" => r.booksim(head, &words, line),
            other => {
                let near = closest(
                    other,
                    ["routers", "nodes", "class", "link", "node", "router"],
                )
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
                r.err(
                    line,
                    format!(
                        "`{}` starts no statement (routers, nodes, class, link, node, \
                         router){near}",
                        shown(other)
                    ),
                );
            }
        }
    }
    r.finish()
}

/// A number of the file: a whole number that fits 32 bits.
fn number(w: &str) -> Option<u32> {
    w.parse::<u32>().ok()
}

/// `router N` or `node N` past the most a graph may have, in words.
fn too_big(what: &str, n: u32) -> Option<String> {
    let most = if what == "router" {
        MAX_ROUTERS
    } else {
        MAX_NODES
    };
    (n >= most).then(|| format!("{what} {n} is past the most a graph may have ({most} {what}s)"))
}

/// A quantity's error with the text it quotes cut to bounds.
fn cut(e: UnitError) -> UnitError {
    UnitError {
        text: shown(&e.text).into_owned(),
        why: e.why,
    }
}

/// What the lines read so far said.
struct Reader<'f> {
    file: &'f str,
    cable: Time,
    errors: Vec<String>,
    declared_routers: Option<(u32, usize)>,
    declared_nodes: Option<(u32, usize)>,
    /// Named classes and the classes of BookSim's weights, in the order made.
    classes: Vec<LinkClass>,
    /// Named classes by name: (class number, line).
    class_line: BTreeMap<String, (u8, usize)>,
    /// The class of each BookSim weight but 1.
    weights: BTreeMap<u64, u8>,
    /// Links of `link` lines.
    links: Vec<(u32, u32, u8, u8, usize)>,
    /// The line of each pair's `link` line.
    link_line: BTreeMap<(u32, u32), usize>,
    /// BookSim's links by their pair (lower first): each direction's weight, and the line.
    anynet: BTreeMap<(u32, u32), (u64, u64, usize)>,
    /// Each node's router and line.
    nodes: BTreeMap<u32, (u32, usize)>,
    /// Every router named, with the first line naming it.
    named: BTreeMap<u32, usize>,
}

impl<'f> Reader<'f> {
    fn new(file: &'f str, cable: Time) -> Reader<'f> {
        Reader {
            file,
            cable,
            errors: Vec::new(),
            declared_routers: None,
            declared_nodes: None,
            classes: Vec::new(),
            class_line: BTreeMap::new(),
            weights: BTreeMap::new(),
            links: Vec::new(),
            link_line: BTreeMap::new(),
            anynet: BTreeMap::new(),
            nodes: BTreeMap::new(),
            named: BTreeMap::new(),
        }
    }

    /// A problem on `line` (0: the file as a whole).
    fn err(&mut self, line: usize, msg: String) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(match line {
                0 => format!("{}: {msg}", self.file),
                l => format!("{}:{l}: {msg}", self.file),
            });
        }
    }

    fn name_router(&mut self, r: u32, line: usize) {
        self.named.entry(r).or_insert(line);
    }

    /// Node `node` is on router `router`, said on `line`.
    fn attach(&mut self, node: u32, router: u32, line: usize) {
        match self.nodes.get(&node) {
            Some(&(r, l)) if r != router => self.err(
                line,
                format!("node {node} is on router {r} already (line {l}); a node is on one router"),
            ),
            Some(_) => {}
            None => {
                self.nodes.insert(node, (router, line));
            }
        }
    }

    /// `routers N` or `nodes N`.
    fn count(&mut self, head: &str, words: &[&str], line: usize) {
        let n = match (words.get(1).and_then(|w| number(w)), words.len()) {
            (Some(n), 2) if n > 0 => n,
            _ => {
                return self.err(
                    line,
                    format!("expected `{head} N`, N a whole number above 0"),
                )
            }
        };
        let what = if head == "routers" { "router" } else { "node" };
        let given = if head == "routers" {
            self.declared_routers
        } else {
            self.declared_nodes
        };
        match (given, too_big(what, n - 1)) {
            (_, Some(e)) => self.err(line, e),
            (Some((_, l)), _) => self.err(line, format!("`{head}` is given twice (line {l})")),
            (None, None) if head == "routers" => self.declared_routers = Some((n, line)),
            (None, None) => self.declared_nodes = Some((n, line)),
        }
    }

    /// `class NAME [bandwidth=RATE] [latency=TIME]`.
    fn class(&mut self, words: &[&str], line: usize) {
        let Some(&name) = words.get(1) else {
            return self.err(
                line,
                "expected `class NAME [bandwidth=RATE] [latency=TIME]`".into(),
            );
        };
        if name.parse::<u32>().is_ok() {
            return self.err(
                line,
                format!("a class's name is a word, not a number (`{name}`)"),
            );
        }
        let mut class = LinkClass {
            name: name.to_string(),
            bandwidth: None,
            latency: None,
        };
        for w in &words[2..] {
            match w.split_once('=') {
                Some(("bandwidth", v)) => match Bandwidth::parse(v) {
                    Ok(b) if b.is_infinite() => self.err(
                        line,
                        "a class's bandwidth must be finite (a link always takes time)".into(),
                    ),
                    Ok(b) if b.0 > 0 => class.bandwidth = Some(b),
                    Ok(_) => self.err(line, "a class's bandwidth must be greater than zero".into()),
                    Err(e) => self.err(line, format!("bandwidth `{}`: {}", shown(v), cut(e))),
                },
                Some(("latency", v)) => match Time::parse(v) {
                    Ok(t) if t > MAX_LATENCY => self.err(
                        line,
                        format!(
                            "latency `{}`: {t} is longer than a link may take, {MAX_LATENCY}",
                            shown(v)
                        ),
                    ),
                    Ok(t) => class.latency = Some(t),
                    Err(e) => self.err(line, format!("latency `{}`: {}", shown(v), cut(e))),
                },
                _ => self.err(
                    line,
                    format!(
                        "`{}`: a class takes `bandwidth=RATE` and `latency=TIME`",
                        shown(w)
                    ),
                ),
            }
        }
        if let Some(&(_, l)) = self.class_line.get(name) {
            let msg = format!("class `{}` is defined twice (line {l})", shown(name));
            self.err(line, msg);
        } else {
            self.classes.push(class);
            self.class_line
                .insert(name.to_string(), (self.classes.len() as u8, line));
        }
    }

    /// `link A B [COUNT] [CLASS]`.
    fn link(&mut self, words: &[&str], line: usize) {
        let (a, b) = match (
            words.get(1).and_then(|w| number(w)),
            words.get(2).and_then(|w| number(w)),
        ) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return self.err(
                    line,
                    "expected `link A B [COUNT] [CLASS]`, A and B router numbers".into(),
                )
            }
        };
        let (mut count, mut class) = (1u32, 0u8);
        for w in &words[3..] {
            if let Some(n) = number(w) {
                count = n;
            } else if let Some(&(k, _)) = self.class_line.get(*w) {
                class = k;
            } else {
                let near = closest(w, self.class_line.keys().map(String::as_str))
                    .map(|c| format!("; did you mean `{c}`?"))
                    .unwrap_or_default();
                let msg = format!("class `{}` is not defined above this line{near}", shown(w));
                self.err(line, msg);
            }
        }
        self.name_router(a, line);
        self.name_router(b, line);
        if a == b {
            return self.err(line, format!("router {a} links to itself"));
        }
        if count == 0 || count > 255 {
            return self.err(
                line,
                format!("{count} links: a link's count is 1 to 255 (a router's ports)"),
            );
        }
        let pair = (a.min(b), a.max(b));
        if let Some(&l) = self.link_line.get(&pair) {
            return self.err(
                line,
                format!(
                    "routers {a} and {b} are linked on line {l} already (for parallel links \
                     give their count: `link {a} {b} 2`)"
                ),
            );
        }
        self.link_line.insert(pair, line);
        for _ in 0..count {
            self.links.push((a, b, class, class, line));
        }
    }

    /// BookSim's lines: a head, then `node N [W]` and `router S [W]`; or `node N R`.
    fn booksim(&mut self, head: &str, words: &[&str], line: usize) {
        let Some(id) = words.get(1).and_then(|w| number(w)) else {
            return self.err(line, format!("expected `{head} N`, N a whole number"));
        };
        if head == "node" && words.len() == 3 {
            if let Some(r) = number(words[2]) {
                self.name_router(r, line);
                return self.attach(id, r, line);
            }
        }
        if head == "router" {
            self.name_router(id, line);
        }
        let mut at = 2;
        while at < words.len() {
            let (kind, Some(other)) = (words[at], words.get(at + 1).and_then(|w| number(w))) else {
                let what = words
                    .get(at + 1)
                    .map_or(String::new(), |w| format!(" {}", shown(w)));
                return self.err(
                    line,
                    format!(
                        "expected `node N` or `router R` at `{}{what}`",
                        shown(words[at])
                    ),
                );
            };
            at += 2;
            // a weight: digits after the router or node (any number of them: its range is
            // checked below)
            let weight = match words.get(at) {
                Some(w)
                    if number(w).is_some()
                        || (!w.is_empty() && w.bytes().all(|c| c.is_ascii_digit())) =>
                {
                    at += 1;
                    Some(*w)
                }
                _ => None,
            };
            match (head, kind) {
                ("router", "node") => self.attach(other, id, line),
                ("node", "router") => {
                    self.name_router(other, line);
                    self.attach(id, other, line)
                }
                ("node", "node") => {
                    self.err(line, format!("node {id} cannot link to node {other}"))
                }
                ("router", "router") => {
                    self.name_router(other, line);
                    if other == id {
                        self.err(line, format!("router {id} links to itself"));
                        continue;
                    }
                    let Some(weight) = self.weight(id, other, weight, line) else {
                        continue;
                    };
                    let pair = (id.min(other), id.max(other));
                    let e = self.anynet.entry(pair).or_insert((1, 1, line));
                    if id < other {
                        e.0 = weight;
                    } else {
                        e.1 = weight;
                    }
                }
                _ => self.err(
                    line,
                    format!("`{}`: expected `node` or `router`", shown(kind)),
                ),
            }
        }
    }

    /// The weight of the link `from` → `to` (1 when none is written): a problem when it is 0
    /// or makes the link longer than [`MAX_LATENCY`].
    fn weight(&mut self, from: u32, to: u32, word: Option<&str>, line: usize) -> Option<u64> {
        let Some(word) = word else { return Some(1) };
        // (a number past 64 bits is past every bound: read as the largest)
        let w = word.parse::<u64>().unwrap_or(u64::MAX);
        if w == 0 {
            self.err(line, "a link's latency weight must be at least 1".into());
            return None;
        }
        let most = MAX_LATENCY.ps().checked_div(self.cable.ps());
        if most.is_some_and(|most| w > most) {
            let most = most.unwrap_or(u64::MAX);
            let msg = format!(
                "router {from} -> router {to}: weight {} makes the link {} × {} \
                 (network.cable_latency) long, longer than a link may take, {MAX_LATENCY}; the \
                 largest weight is {most}",
                shown(word),
                shown(word),
                self.cable,
            );
            self.err(line, msg);
            return None;
        }
        Some(w)
    }

    /// Numbers past what a graph may have, named at their first line (nothing more is read
    /// then).
    fn past_the_most(&self) -> Vec<String> {
        let file = self.file;
        self.named
            .iter()
            .filter_map(|(&r, &l)| too_big("router", r).map(|e| format!("{file}:{l}: {e}")))
            .chain(
                self.nodes.iter().filter_map(|(&n, &(_, l))| {
                    too_big("node", n).map(|e| format!("{file}:{l}: {e}"))
                }),
            )
            .take(5)
            .collect()
    }

    /// BookSim's links, one each, a class per weight.
    fn anynet_links(&mut self) {
        let anynet = std::mem::take(&mut self.anynet);
        for (&(a, b), &(wa, wb, line)) in &anynet {
            if let Some(&l) = self.link_line.get(&(a, b)) {
                self.err(
                    line,
                    format!("routers {a} and {b} are linked on line {l} already, by a `link` line"),
                );
                continue;
            }
            let (ca, cb) = (self.class_of(wa), self.class_of(wb));
            self.links.push((a, b, ca, cb, line));
        }
    }

    /// The class of BookSim weight `w` (`w` cable latencies; 0, the default class, for 1).
    fn class_of(&mut self, w: u64) -> u8 {
        if w == 1 {
            return 0;
        }
        if let Some(&c) = self.weights.get(&w) {
            return c;
        }
        // (the weight was checked: `w` cable latencies are at most MAX_LATENCY)
        self.classes.push(LinkClass {
            name: format!("weight {w}"),
            bandwidth: None,
            latency: Some(Time(self.cable.ps() * w)),
        });
        let c = self.classes.len() as u8;
        self.weights.insert(w, c);
        c
    }

    /// Routers 0 to R − 1: a router named past them is a problem. Returns R.
    fn check_routers(&mut self) -> u32 {
        let routers = self
            .declared_routers
            .map_or(self.named.len() as u32, |(n, _)| n);
        let past: Vec<(u32, usize)> = self.named.range(routers..).map(|(&r, &l)| (r, l)).collect();
        for (r, line) in past {
            let how = match self.declared_routers {
                Some((n, l)) => format!("line {l} declares {n} routers, 0 to {}", n - 1),
                None => format!(
                    "the file names {routers} routers, so they are numbered 0 to {} (or declare \
                     them with `routers N`)",
                    routers.saturating_sub(1)
                ),
            };
            self.err(line, format!("router {r} does not exist: {how}"));
        }
        routers
    }

    /// Nodes 0 to N − 1, each on a router.
    fn check_nodes(&mut self) {
        let count = self.declared_nodes.map_or(
            self.nodes.keys().next_back().map_or(0, |&n| n + 1),
            |(n, _)| n,
        );
        if let Some((n, l)) = self.declared_nodes {
            if let Some((&node, &(_, line))) = self.nodes.range(n..).next() {
                self.err(
                    line,
                    format!("node {node} does not exist: line {l} declares {n} nodes"),
                );
            }
        }
        if self.nodes.is_empty() {
            self.err(0, "the graph has no node (give `node N R` lines)".into());
        } else if let Some(missing) = (0..count).find(|n| !self.nodes.contains_key(n)) {
            let (&last, &(_, line)) = self.nodes.iter().next_back().expect("not empty");
            self.err(
                line,
                format!(
                    "node {missing} is on no router (nodes are numbered from 0 without gaps, \
                     up to node {} here)",
                    count.max(last + 1) - 1
                ),
            );
        }
    }

    /// What the file said, or every problem found.
    fn finish(mut self) -> Result<Parsed, Vec<String>> {
        let past = self.past_the_most();
        if !past.is_empty() {
            self.errors.extend(past);
            return Err(self.errors);
        }
        self.anynet_links();
        if self.classes.len() > MAX_LINK_CLASSES {
            let msg = format!(
                "{} link classes (named and by weight); at most {MAX_LINK_CLASSES}",
                self.classes.len()
            );
            self.err(0, msg);
        }
        let routers = self.check_routers();
        self.check_nodes();
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        let mut links = self.links;
        links.sort_by_key(|l| l.4);
        let mut lines = vec![0; routers as usize];
        for (&r, &line) in &self.named {
            if let Some(l) = lines.get_mut(r as usize) {
                *l = line;
            }
        }
        Ok(Parsed {
            routers,
            links,
            nodes: self.nodes.values().map(|&(r, _)| r).collect(),
            classes: self.classes,
            lines,
        })
    }
}
