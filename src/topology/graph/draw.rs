//! How the report draws a graph: as its structure shows it, every router numbered.
//!
//! - **A HyperX** (a Hamming graph: its routers can be given coordinates so that two are
//!   linked exactly when they differ in one coordinate) on the grid of those coordinates, its
//!   longer links arcing off their row or column, as the built-in HyperX is drawn. A torus of
//!   4 × 4 is one too (the 4-cube), and is drawn as such.
//! - **A network with routers that hold no node** (a fat tree, any tree of switches) in rows
//!   by hops from the nearest router with nodes, those at the bottom, as before; each row above
//!   the bottom one ordered by the mean place of its neighbours in the row below (fewer
//!   crossings), ties by number.
//! - **A tree** whose routers all hold nodes in rows by hops from its central router, the
//!   central one on top, each row ordered by its parents' places.
//! - **Anything else placed by forces** (Fruchterman and Reingold, 1991: links pull their ends
//!   together, routers push each other apart) from a circle, a fixed number of steps: the same
//!   picture for the same file. Above [`FORCES_UP_TO`] routers, a circle by number.

use super::super::layout::{self, FarLinks, Layout};
use super::tables::bfs;
use super::{Built, Port};

/// Most routers placed by forces (each step weighs every pair: above this a circle).
pub(super) const FORCES_UP_TO: usize = 1024;

/// Where the report draws graph `g`'s routers.
pub(super) fn layout(g: &Built) -> Layout {
    let n = g.routers as usize;
    let adj = neighbours(g);
    let nodes = |r: usize| {
        (0..g.ports as usize)
            .filter(|&q| matches!(g.port[r * g.ports as usize + q], Port::Nic(_)))
            .count()
    };
    let name = |r: usize, at: &str| {
        let held = match nodes(r) {
            0 => "no node".to_string(),
            1 => "1 node".to_string(),
            k => format!("{k} nodes"),
        };
        if at.is_empty() {
            held
        } else {
            format!("{at}, {held}")
        }
    };
    let mut out = if let Some((dims, coords)) = hamming(&adj) {
        let places = layout::grid(n as u32, &dims, |r, d| coords[r as usize][d])
            .into_iter()
            .enumerate()
            .map(|(r, (x, y, at))| (x, y, name(r, &at)))
            .collect();
        Layout {
            far_links: FarLinks::Arc,
            ..Layout::new(places, Vec::new())
        }
    } else if g.level.iter().any(|&l| l > 0) {
        rows(&adj, &g.level, false, &|r| name(r, ""))
    } else if n > 1 && adj.iter().map(Vec::len).sum::<usize>() == 2 * (n - 1) {
        let depth = bfs(&adj, &[super::tables::central(&adj) as u32]);
        rows(&adj, &depth, true, &|r| name(r, ""))
    } else {
        let at = if n <= FORCES_UP_TO {
            forces(&adj)
        } else {
            circle(n)
        };
        let places = at
            .into_iter()
            .enumerate()
            .map(|(r, (x, y))| (x, y, name(r, "")))
            .collect();
        Layout::new(places, Vec::new())
    };
    out.numbered = true;
    out
}

/// Each router's neighbours, once each (parallel links drawn as one), in order.
fn neighbours(g: &Built) -> Vec<Vec<u32>> {
    (0..g.routers as usize)
        .map(|r| {
            let mut v: Vec<u32> = (0..g.ports as usize)
                .filter_map(|q| match g.port[r * g.ports as usize + q] {
                    Port::Link { to, .. } => Some(to),
                    _ => None,
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect()
}

/// The dimensions and each router's coordinates if the graph is a Hamming graph (a HyperX):
/// router 0's neighbours fall into cliques, one per dimension, with no link between two of
/// them; a router's coordinate in a dimension is `j` when it is one hop nearer the `j`-th
/// router of that clique than router 0 (0 when none is nearer); the coordinates must name
/// every router once, and the links must be exactly the pairs that differ in one coordinate.
fn hamming(adj: &[Vec<u32>]) -> Option<(Vec<u32>, Vec<Vec<u32>>)> {
    let n = adj.len();
    let linked = |a: u32, b: u32| adj[a as usize].binary_search(&b).is_ok();
    let first = adj.first()?;
    if first.is_empty() {
        return None;
    }
    // router 0's neighbours, in cliques joined by the links among them
    let mut group = vec![usize::MAX; first.len()];
    let mut cliques: Vec<Vec<u32>> = Vec::new();
    for i in 0..first.len() {
        if group[i] != usize::MAX {
            continue;
        }
        group[i] = cliques.len();
        let mut members = vec![first[i]];
        let mut k = 0;
        while k < members.len() {
            let v = members[k];
            for (j, &w) in first.iter().enumerate() {
                if group[j] == usize::MAX && linked(v, w) {
                    group[j] = cliques.len();
                    members.push(w);
                }
            }
            k += 1;
        }
        members.sort_unstable();
        let clique = members
            .iter()
            .all(|&a| members.iter().all(|&b| a == b || linked(a, b)));
        if !clique {
            return None;
        }
        cliques.push(members);
    }
    let dims: Vec<u32> = cliques.iter().map(|c| c.len() as u32 + 1).collect();
    let product = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d as usize))?;
    if product != n {
        return None;
    }
    let from0 = bfs(adj, &[0]);
    let mut coords = vec![vec![0u32; dims.len()]; n];
    for (d, clique) in cliques.iter().enumerate() {
        for (j, &l) in clique.iter().enumerate() {
            let from_l = bfs(adj, &[l]);
            for r in 0..n {
                if from_l[r].saturating_add(1) == from0[r] {
                    if coords[r][d] != 0 {
                        return None;
                    }
                    coords[r][d] = j as u32 + 1;
                }
            }
        }
    }
    // every point of the grid once, and exactly its lines as links
    let mut seen = vec![false; n];
    for c in &coords {
        let (mut i, mut stride) = (0usize, 1usize);
        for (d, &v) in c.iter().enumerate() {
            i += v as usize * stride;
            stride *= dims[d] as usize;
        }
        if std::mem::replace(&mut seen[i], true) {
            return None;
        }
    }
    for (r, nb) in adj.iter().enumerate() {
        let one_apart = nb.iter().all(|&m| {
            coords[r]
                .iter()
                .zip(&coords[m as usize])
                .filter(|(a, b)| a != b)
                .count()
                == 1
        });
        if !one_apart {
            return None;
        }
    }
    let per_router: usize = dims.iter().map(|&d| d as usize - 1).sum();
    if adj.iter().map(Vec::len).sum::<usize>() != n * per_router {
        return None;
    }
    Some((dims, coords))
}

/// Rows by `level` (hops from the routers with nodes, drawn at the bottom; or with `top_down`,
/// hops from a root drawn on top): the first row by number, each next one by the mean place of
/// its neighbours in the row before it, ties by number; each row labelled.
fn rows(adj: &[Vec<u32>], level: &[u32], top_down: bool, name: &dyn Fn(usize) -> String) -> Layout {
    let n = adj.len();
    let top = level
        .iter()
        .copied()
        .filter(|&l| l != u32::MAX)
        .max()
        .unwrap_or(0) as usize;
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); top + 1];
    for r in 0..n {
        rows[(level[r] as usize).min(top)].push(r);
    }
    let widest = rows.iter().map(Vec::len).max().unwrap_or(1) as f32;
    let gap = (widest / 4.0).clamp(2.0, 12.0);
    let mut x = vec![0f32; n];
    let mut places = vec![(0.0, 0.0, String::new()); n];
    let mut labels = Vec::new();
    for (l, row) in rows.iter_mut().enumerate() {
        if l > 0 {
            let mean = |r: usize| {
                let below: Vec<f32> = adj[r]
                    .iter()
                    .filter(|&&m| level[m as usize] as usize + 1 == l)
                    .map(|&m| x[m as usize])
                    .collect();
                if below.is_empty() {
                    f32::MAX
                } else {
                    below.iter().sum::<f32>() / below.len() as f32
                }
            };
            row.sort_by(|&a, &b| mean(a).total_cmp(&mean(b)).then(a.cmp(&b)));
        }
        let span = widest / row.len().max(1) as f32;
        let y = if top_down { l } else { top - l } as f32 * gap;
        for (i, &r) in row.iter().enumerate() {
            x[r] = (i as f32 + 0.5) * span;
            places[r] = (x[r], y, name(r));
        }
        let what = match (top_down, l) {
            (false, 0) => "routers with nodes".to_string(),
            (false, 1) => "1 hop from the nodes".to_string(),
            (false, l) => format!("{l} hops from the nodes"),
            (true, 0) => "central router".to_string(),
            (true, 1) => "1 hop from it".to_string(),
            (true, l) => format!("{l} hops from it"),
        };
        labels.push((widest + 0.6, y, what));
    }
    Layout::new(places, labels)
}

/// `n` routers on a circle by number, neighbours on it about 1.5 apart.
fn circle(n: usize) -> Vec<(f32, f32)> {
    let radius = (n as f32 / std::f32::consts::TAU).max(1.0) * 1.5;
    (0..n)
        .map(|r| {
            let a = std::f32::consts::TAU * r as f32 / n.max(1) as f32;
            (radius * a.cos(), radius * a.sin())
        })
        .collect()
}

/// Fruchterman and Reingold's layout from a circle: linked routers pull each other with
/// `d² / k`, every pair pushes with `k² / d` (`k` = 1.5, the length a link settles at), each
/// step moving a router at most the temperature, which falls linearly to 0. Steps: as many as
/// weigh 4 million pairs, 60 to 400.
fn forces(adj: &[Vec<u32>]) -> Vec<(f32, f32)> {
    let n = adj.len();
    let mut at = circle(n);
    if n < 2 {
        return at;
    }
    let k = 1.5f32;
    let steps = (4_000_000 / (n * n)).clamp(60, 400);
    let hot = (n as f32).sqrt() * k * 0.5;
    let mut push = vec![(0f32, 0f32); n];
    for step in 0..steps {
        push.iter_mut().for_each(|p| *p = (0.0, 0.0));
        for i in 0..n {
            for j in i + 1..n {
                let (dx, dy) = (at[i].0 - at[j].0, at[i].1 - at[j].1);
                let d2 = (dx * dx + dy * dy).max(1e-4);
                let f = k * k / d2;
                push[i].0 += dx * f;
                push[i].1 += dy * f;
                push[j].0 -= dx * f;
                push[j].1 -= dy * f;
            }
        }
        for (i, nb) in adj.iter().enumerate() {
            for &j in nb.iter().filter(|&&j| j as usize > i) {
                let j = j as usize;
                let (dx, dy) = (at[i].0 - at[j].0, at[i].1 - at[j].1);
                let f = (dx * dx + dy * dy).sqrt() / k;
                push[i].0 -= dx * f;
                push[i].1 -= dy * f;
                push[j].0 += dx * f;
                push[j].1 += dy * f;
            }
        }
        let t = hot * (1.0 - step as f32 / steps as f32);
        for (p, d) in at.iter_mut().zip(&push) {
            let len = (d.0 * d.0 + d.1 * d.1).sqrt();
            if len > 0.0 {
                let m = len.min(t) / len;
                p.0 += d.0 * m;
                p.1 += d.1 * m;
            }
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::super::{Graph, GraphRouting};
    use crate::topology::layout::FarLinks;
    use crate::topology::Family;
    use crate::units::Time;

    fn graph(text: &str) -> Graph {
        Graph::parse("g", text, Time(600), GraphRouting::Minimal).unwrap()
    }

    /// A HyperX of `dims` routers (dimension 0 fastest), `t` nodes each, as a file.
    fn hyperx(dims: &[u32], t: u32) -> String {
        let n: u32 = dims.iter().product();
        let coord = |r: u32, d: usize| (r / dims[..d].iter().product::<u32>()) % dims[d];
        let mut text = String::new();
        for a in 0..n {
            for b in a + 1..n {
                if (0..dims.len())
                    .filter(|&d| coord(a, d) != coord(b, d))
                    .count()
                    == 1
                {
                    text += &format!("link {a} {b}\n");
                }
            }
            for k in 0..t {
                text += &format!("node {} {a}\n", a * t + k);
            }
        }
        text
    }

    #[test]
    fn a_hyperx_file_is_drawn_on_its_grid() {
        // 4 x 3, numbered dimension 0 fastest: router 7 = (3, 1) is 3 right and 1 down
        let l = graph(&hyperx(&[4, 3], 2)).layout();
        assert_eq!(l.far_links, FarLinks::Arc);
        assert!(l.numbered);
        assert_eq!((l.places[0].0, l.places[0].1), (0.0, 0.0));
        assert_eq!((l.places[7].0, l.places[7].1), (3.0, 1.0));
        assert_eq!(l.places[7].2, "(3,1), 2 nodes");
        // the same network numbered otherwise is still a grid: swap routers 1 and 5
        let swapped: String = hyperx(&[4, 3], 1)
            .lines()
            .map(|line| {
                let w: Vec<String> = line
                    .split(' ')
                    .enumerate()
                    .map(|(i, x)| match (i, x) {
                        (0, _) => x.to_string(),
                        (_, "1") if !line.starts_with("node") || i == 2 => "5".into(),
                        (_, "5") if !line.starts_with("node") || i == 2 => "1".into(),
                        _ => x.to_string(),
                    })
                    .collect();
                w.join(" ") + "\n"
            })
            .collect();
        let g = graph(&swapped);
        let l = g.layout();
        assert_eq!(l.far_links, FarLinks::Arc, "{swapped}");
        // router 5 took router 1's place, in router 0's row; every link along a row or column
        assert_eq!(l.places[5].1, l.places[0].1);
        for r in 0..12 {
            for q in 0..g.ports() {
                if let Some((m, _)) = g.neighbour(r, q) {
                    let (a, b) = (&l.places[r as usize], &l.places[m as usize]);
                    assert!(a.0 == b.0 || a.1 == b.1, "{r} -> {m}");
                }
            }
        }
    }

    #[test]
    fn a_tree_of_switches_is_rows_and_a_ring_is_placed_by_forces() {
        // 4 leaves with nodes under 2 spines: leaves at the bottom, spines a row above
        let tree = "router 0 node 0 router 4 router 5\nrouter 1 node 1 router 4 router 5\n\
                    router 2 node 2 router 4 router 5\nrouter 3 node 3 router 4 router 5\n";
        let l = graph(tree).layout();
        assert!(l.places[..4].iter().all(|p| p.1 > l.places[4].1));
        assert_eq!(l.labels[0].2, "routers with nodes");
        // a ring of 7 (not a HyperX, not a tree): forces keep every link near 1.5 units and
        // no two routers on top of each other
        let mut ring = String::new();
        for r in 0..7 {
            ring += &format!("link {r} {}\nnode {r} {r}\n", (r + 1) % 7);
        }
        let l = graph(&ring).layout();
        assert_eq!(l.far_links, FarLinks::Line);
        let dist = |a: usize, b: usize| {
            let (p, q) = (&l.places[a], &l.places[b]);
            ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt()
        };
        for r in 0..7 {
            let d = dist(r, (r + 1) % 7);
            assert!((0.8..2.5).contains(&d), "link {r}: {d}");
            for s in 0..r {
                assert!(dist(r, s) > 0.5, "{r} and {s}");
            }
        }
        // a path of routers that all hold nodes is a tree: rows from its middle
        let path = "link 0 1\nlink 1 2\nnode 0 0\nnode 1 1\nnode 2 2\n";
        let l = graph(path).layout();
        assert_eq!(l.labels[0].2, "central router");
        assert!(l.places[1].1 < l.places[0].1 && l.places[0].1 == l.places[2].1);
    }
}
