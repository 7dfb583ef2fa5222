//! What a sweep records of each point's network (`family`, `shape`, `routers`, `nodes`,
//! `links`: columns of `sweep.csv`, the `--table`'s list of networks and the plot's legend),
//! and what it warns of once, before any point runs: points that compare machines of different
//! sizes, and what reading the points' scenarios left out (each said once, with its points).

use crate::config::Scenario;
use std::collections::BTreeMap;

/// The record's columns in `sweep.csv`, after the varied keys.
pub(crate) const COLUMNS: [&str; 5] = ["family", "shape", "routers", "nodes", "links"];

/// One point's network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// `network.topology` (`torus`, `fattree`, ...).
    pub(crate) family: String,
    /// Its shape in a few words (`8x8x8`, `radix 32, 2 levels`, `a=8 p=4 h=4 g=17`).
    pub(crate) shape: String,
    /// Routers.
    pub(crate) routers: u32,
    /// Nodes.
    pub(crate) nodes: u64,
    /// Bidirectional links between routers.
    pub(crate) links: u64,
    /// The node count `network.nodes` asked for, if it did (not a column: the shape says
    /// what it picked).
    pub(crate) asked: Option<u64>,
}

impl Record {
    /// The network of scenario `s`.
    pub(crate) fn of(s: &Scenario) -> Record {
        Record {
            family: s.topo.name().to_string(),
            shape: s.topo.shape(),
            routers: s.topo.routers(),
            nodes: s.nodes(),
            links: s.topo.links(),
            asked: s.network.nodes,
        }
    }

    /// The record as the table's fields, in [`COLUMNS`]' order.
    pub(crate) fn fields(&self) -> [String; 5] {
        [
            self.family.clone(),
            self.shape.clone(),
            self.routers.to_string(),
            self.nodes.to_string(),
            self.links.to_string(),
        ]
    }
}

/// A record's fields (as [`Record::fields`] or a table's columns) in words: `torus 4x4x4: 64
/// routers, 64 nodes, 192 links`.
pub(crate) fn words(f: &[String]) -> String {
    format!(
        "{} {}: {} routers, {} nodes, {} links",
        f[0], f[1], f[2], f[3], f[4]
    )
}

/// Whether `key`'s values size a network (`network.nodes`, `network.dims`, ...).
fn sizes(key: &str) -> bool {
    let Some(k) = key.strip_prefix("network.") else {
        return false;
    };
    k == "nodes"
        || crate::topology::Topo::families()
            .iter()
            .any(|f| f.shape_keys.contains(&k))
}

/// The places (in `axes`) of the keys that size a network on purpose, a scaling study: the
/// points that differ in them are meant to differ in size, and are not compared for it. A key
/// of the size (`network.nodes`, `dims`, `radix`, ...) is one unless it is zipped with a key that
/// changes the family (`network.topology`, the scenario file): a comparison of families then.
pub(crate) fn scaling(axes: &[super::Axis]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for g in super::grid::groups(axes) {
        let families = g
            .iter()
            .any(|a| a.key == "network.topology" || a.key == super::SCENARIO);
        for (i, a) in g.iter().enumerate() {
            if !families && sizes(&a.key) {
                out.push(at + i);
            }
        }
        at += g.len();
    }
    out
}

/// What a sweep over `keys` warns of before it runs, from each point's number, values, record
/// and notes: the points that differ only in keys other than those of a scaling study
/// (`scaling`, the places of such keys: [`scaling`]) and yet have different node counts (once,
/// listing the sizes and a point of each); and each note of the scenarios once, with the
/// points it concerns.
pub(crate) fn warnings(
    keys: &[String],
    scaling: &[usize],
    points: &[(usize, &[String], &Record, &[String])],
) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(sizes_warning(keys, scaling, points));
    // each note once, with its points
    let mut notes: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (p, _, _, ns) in points {
        for n in ns.iter() {
            let e = notes.entry(n.as_str()).or_default();
            if e.is_empty() {
                order.push(n);
            }
            e.push(*p);
        }
    }
    for n in order {
        let ps = &notes[n];
        let which = match ps.len() {
            1 => format!("point {}", ps[0]),
            k if k == points.len() => "every point".to_string(),
            k if k <= 6 => {
                let l: Vec<String> = ps.iter().map(usize::to_string).collect();
                format!("points {}", l.join(", "))
            }
            k => format!("{k} points, from point {}", ps[0]),
        };
        out.push(format!("{n} ({which})"));
    }
    out
}

/// The warning of points that should be of one size and are not (see [`warnings`]): grouped by
/// the values of the keys of a scaling study (`sizing`) and the `network.nodes` asked, the first group
/// (in point order) whose node counts differ, and how many others do.
fn sizes_warning(
    keys: &[String],
    sizing: &[usize],
    points: &[(usize, &[String], &Record, &[String])],
) -> Option<String> {
    type Group<'a> = (Vec<&'a str>, Option<u64>);
    let mut groups: Vec<(Group, BTreeMap<u64, Vec<(usize, &Record)>>)> = Vec::new();
    for (p, values, r, _) in points {
        let g: Group = (
            sizing.iter().map(|&i| values[i].as_str()).collect(),
            r.asked,
        );
        let at = match groups.iter().position(|x| x.0 == g) {
            Some(at) => at,
            None => {
                groups.push((g, BTreeMap::new()));
                groups.len() - 1
            }
        };
        groups[at].1.entry(r.nodes).or_default().push((*p, r));
    }
    let mut differ = groups.iter().filter(|g| g.1.len() > 1);
    let ((_, asked), by_nodes) = differ.next()?;
    let others = differ.count();
    let mut said: Vec<String> = by_nodes
        .iter()
        .take(8)
        .map(|(n, ps)| {
            let (first, r) = ps[0];
            let which = match ps.len() {
                1 => format!("point {first}"),
                k => format!("points {first} and {} more", k - 1),
            };
            format!("{n} nodes ({which}: {} {})", r.family, r.shape)
        })
        .collect();
    if by_nodes.len() > 8 {
        said.push(format!("and {} sizes more", by_nodes.len() - 8));
    }
    let mut among: Vec<String> = sizing.iter().map(|&i| keys[i].clone()).collect();
    if let Some(n) = asked {
        among.retain(|k| k != "network.nodes");
        among.push(format!("network.nodes = {n}"));
    }
    let among = match among.is_empty() {
        true => String::new(),
        false => format!(" with the same {}", among.join(", ")),
    };
    let more = match others {
        0 => String::new(),
        1 => " (and so do those of one other value of them)".to_string(),
        k => format!(" (and so do those of {k} other values of them)"),
    };
    let record = "sweep.csv records each point's family, shape, routers, nodes and links";
    let smallest = by_nodes.keys().next().copied().unwrap_or(1);
    let advice = match asked {
        // each family picked its nearest full shape: they cannot be nearer
        Some(n) => format!(
            "each family has its nearest full shape of at least {n} nodes, and a family's \
             figures are for its size; {record}"
        ),
        None => format!(
            "{record}. To compare machines of one size, set network.nodes (--set \
             network.nodes={smallest}): every topology then picks its nearest full shape of at \
             least that many nodes"
        ),
    };
    Some(format!(
        "the points{among} compare machines of different sizes{more}: {}; {advice}",
        said.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Axis;

    fn r(family: &str, shape: &str, nodes: u64, asked: Option<u64>) -> Record {
        Record {
            family: family.into(),
            shape: shape.into(),
            routers: 1,
            nodes,
            links: 0,
            asked,
        }
    }

    /// Axes of `keys`, each zipped with the one before where `zipped` says.
    fn axes(keys: &[(&str, bool)]) -> (Vec<String>, Vec<Axis>) {
        let a: Vec<Axis> = keys
            .iter()
            .map(|&(k, zipped)| Axis {
                key: k.to_string(),
                values: vec![],
                zipped,
            })
            .collect();
        (a.iter().map(|a| a.key.clone()).collect(), a)
    }

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn points_of_different_sizes_are_said_once_and_a_scaling_study_is_not() {
        let (keys, ax) = axes(&[("network.topology", false)]);
        let a = r("torus", "4x4x4", 64, None);
        let b = r("fattree", "radix 24, 2 levels", 288, None);
        let c = r("mesh", "4x4x4", 64, None);
        let (va, vb, vc) = (v(&["torus"]), v(&["fattree"]), v(&["mesh"]));
        let note = v(&["network.dims left out"]);
        let none: Vec<String> = Vec::new();
        let pts = [
            (0, va.as_slice(), &a, none.as_slice()),
            (1, vb.as_slice(), &b, note.as_slice()),
            (2, vc.as_slice(), &c, none.as_slice()),
        ];
        let w = warnings(&keys, &scaling(&ax), &pts);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with(
                "the points compare machines of different sizes: 64 nodes (points 0 and 1 \
                 more: torus 4x4x4), 288 nodes (point 1: fattree radix 24, 2 levels);"
            ),
            "{}",
            w[0]
        );
        assert!(w[0].contains("--set network.nodes=64"), "{}", w[0]);
        assert_eq!(w[1], "network.dims left out (point 1)");
        // dims varied on their own: a scaling study, nothing to warn of
        let (keys, ax) = axes(&[("network.dims", false)]);
        let (d4, d8) = (v(&["[4,4,4]"]), v(&["[8,8,8]"]));
        let big = r("torus", "8x8x8", 512, None);
        let pts = [
            (0, d4.as_slice(), &a, none.as_slice()),
            (1, d8.as_slice(), &big, none.as_slice()),
        ];
        assert_eq!(scaling(&ax), [0]);
        assert!(warnings(&keys, &scaling(&ax), &pts).is_empty());
        // dims zipped with the topology: a comparison of families, which differ in size
        let (keys, ax) = axes(&[("network.topology", false), ("network.dims", true)]);
        assert!(scaling(&ax).is_empty());
        let (ta, fb) = (v(&["torus", "[4,4,4]"]), v(&["fattree", "[]"]));
        let pts = [
            (0, ta.as_slice(), &a, none.as_slice()),
            (1, fb.as_slice(), &b, none.as_slice()),
        ];
        let w = warnings(&keys, &scaling(&ax), &pts);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("the points compare machines of different sizes: 64"));
    }

    #[test]
    fn network_nodes_asked_says_each_family_has_its_nearest_shape_and_gives_no_advice() {
        // ranks outer (not a key of the size), topology inner; network.nodes = 64 by --set
        let (keys, ax) = axes(&[("workload.ranks", false), ("network.topology", false)]);
        let t = r("torus", "4x4x4", 64, Some(64));
        let f = r("fattree", "radix 12, 2 levels", 72, Some(64));
        let vals = [
            v(&["8", "torus"]),
            v(&["8", "fattree"]),
            v(&["16", "torus"]),
            v(&["16", "fattree"]),
        ];
        let none: Vec<String> = Vec::new();
        let recs = [&t, &f, &t, &f];
        let pts: Vec<(usize, &[String], &Record, &[String])> = (0..4)
            .map(|i| (i, vals[i].as_slice(), recs[i], none.as_slice()))
            .collect();
        let w = warnings(&keys, &scaling(&ax), &pts);
        assert_eq!(
            w,
            [
                "the points with the same network.nodes = 64 compare machines of different \
              sizes: 64 nodes (points 0 and 1 more: torus 4x4x4), 72 nodes (points 1 and 1 \
              more: fattree radix 12, 2 levels); each family has its nearest full shape of at \
              least 64 nodes, and a family's figures are for its size; sweep.csv records each \
              point's family, shape, routers, nodes and links"
            ]
        );
        // every point of one size: nothing to say
        let pts: Vec<(usize, &[String], &Record, &[String])> = [0, 2]
            .iter()
            .map(|&i| (i, vals[i].as_slice(), &t, none.as_slice()))
            .collect();
        assert!(warnings(&keys, &scaling(&ax), &pts).is_empty());
    }
}
