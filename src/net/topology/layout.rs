//! Where to draw each router of a topology (for the HTML report's picture of the network), in
//! abstract units: x to the right, y downwards, one unit between neighbours.
//!
//! - mesh, torus, Tofu, HyperX: dimensions 0, 2, 4 spread along x and 1, 3, 5 along y, each further
//!   dimension repeating the block before it with a gap of one unit (a 3-D torus is a row of
//!   2-D planes, one per z);
//! - fat tree: one row per level, the top level at the top, switches spread evenly;
//! - dragonfly: groups around a circle, each group's routers on a small circle of its own.

use super::{RouterId, Topo};

/// Most routers a layout is made for (a bigger picture would show nothing).
pub const MAX_DRAWN: u32 = 4096;

/// Where to draw a network's routers, and the labels of its parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Each router's position and the name of its place (`(x,y,z)`, `level 2 switch 3`,
    /// `group 3 router 1`).
    pub places: Vec<(f32, f32, String)>,
    /// Labels of the parts, at their positions (their left end; a dragonfly's, their middle):
    /// the planes of a torus of three or more dimensions (`z = 1`), the levels of a fat tree,
    /// a dragonfly's groups.
    pub labels: Vec<(f32, f32, String)>,
}

/// The names of a cube's dimensions: Tofu's `a b c x y z` (its unit first, as `cube.rs`
/// orders them), else `x y z w v u`.
fn axis_names(tofu: bool) -> [&'static str; 6] {
    if tofu {
        ["a", "b", "c", "x", "y", "z"]
    } else {
        ["x", "y", "z", "w", "v", "u"]
    }
}

/// The layout of `t` (`tofu`: whether the cube is Tofu's, for the names of its dimensions),
/// or `None` above [`MAX_DRAWN`] routers.
pub fn layout(t: &Topo, tofu: bool) -> Option<Layout> {
    let places = places(t)?;
    let mut labels = Vec::new();
    match t {
        Topo::Cube(c) if c.dims.len() > 2 => {
            // a label above each plane (x by y) of the blocks the further dimensions make
            let names = axis_names(tofu);
            let plane = (c.dims[0] * c.dims[1]) as usize;
            for first in (0..places.len()).step_by(plane.max(1)) {
                let text = (2..c.dims.len())
                    .map(|d| format!("{} = {}", names[d], c.coord(first as u32, d)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let (x, y, _) = &places[first];
                labels.push((*x, *y - 0.6, text));
            }
        }
        Topo::FatTree(f) => {
            let levels = f.levels();
            // (at the right end of each row, clear of the links)
            let x1 = places.iter().map(|p| p.0).fold(f32::MIN, f32::max);
            let mut seen = vec![false; levels + 1];
            for (r, p) in places.iter().enumerate() {
                let (i, _) = f.place(r as u32);
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
        }
        Topo::Dragonfly(d) => {
            for g in 0..d.g {
                let members = &places[(g * d.a) as usize..((g + 1) * d.a) as usize];
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
                    format!("group {g}"),
                ));
            }
        }
        _ => {}
    }
    Some(Layout { places, labels })
}

/// `n` routers on a grid of `dims` (coordinate `coord(r, d)`): dimensions 0, 2, 4 along x
/// and 1, 3, 5 along y, each further dimension repeating the block before it with a gap of
/// one unit; each named by its coordinates.
fn grid(n: u32, dims: &[u32], coord: impl Fn(RouterId, usize) -> u32) -> Vec<(f32, f32, String)> {
    // the stride of each dimension along its axis: the block before it and a gap
    let mut stride = vec![0f32; dims.len()];
    let mut next = [1f32, 1f32];
    for (d, &k) in dims.iter().enumerate() {
        let axis = d % 2;
        stride[d] = next[axis];
        next[axis] = next[axis] * k as f32 + 1.0;
    }
    (0..n)
        .map(|r: RouterId| {
            let mut xy = [0f32; 2];
            let coords: Vec<String> = (0..dims.len())
                .map(|d| {
                    let v = coord(r, d);
                    xy[d % 2] += v as f32 * stride[d];
                    v.to_string()
                })
                .collect();
            (xy[0], xy[1], format!("({})", coords.join(",")))
        })
        .collect()
}

/// Each router's position and the name of its place, or `None` above [`MAX_DRAWN`] routers.
fn places(t: &Topo) -> Option<Vec<(f32, f32, String)>> {
    let n = t.routers();
    if n > MAX_DRAWN {
        return None;
    }
    Some(match t {
        Topo::Cube(c) => grid(n, &c.dims, |r, d| c.coord(r, d)),
        Topo::FatTree(f) => {
            let levels = f.levels();
            let widest = (1..=levels).map(|i| f.switches(i)).max().unwrap_or(1) as f32;
            (0..n)
                .map(|r| {
                    let (i, s) = f.place(r);
                    let span = widest / f.switches(i) as f32;
                    let x = (s as f32 + 0.5) * span;
                    let y = (levels - i) as f32 * (widest / 4.0).clamp(2.0, 12.0);
                    (x, y, format!("level {i} switch {s}"))
                })
                .collect()
        }
        // (a dimension's links run along its row or column)
        Topo::HyperX(h) => grid(n, &h.dims, |r, d| h.coord(r, d)),
        Topo::Dragonfly(d) => {
            let (a, g) = (d.a as f32, d.g as f32);
            let small = (a / std::f32::consts::PI).max(0.8);
            let big = (g * (2.0 * small + 1.5) / (2.0 * std::f32::consts::PI)).max(small * 2.5);
            (0..n)
                .map(|r| {
                    let (gi, j) = (r / d.a, r % d.a);
                    let ga = std::f32::consts::TAU * gi as f32 / g;
                    let ra = std::f32::consts::TAU * j as f32 / a;
                    let (cx, cy) = (big * ga.cos(), big * ga.sin());
                    (
                        cx + small * ra.cos(),
                        cy + small * ra.sin(),
                        format!("group {gi} router {j}"),
                    )
                })
                .collect()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{NetworkConfig, Topology};

    #[test]
    fn a_3d_torus_is_a_row_of_planes() {
        let cfg = NetworkConfig {
            topology: Topology::Torus,
            dims: vec![4, 3, 2],
            ..NetworkConfig::default()
        };
        let layout = layout(&Topo::new(&cfg, 1), false).unwrap();
        let l = &layout.places;
        assert_eq!(l.len(), 24);
        // router 0 at the origin; x+1 one unit right; y+1 one unit down; z+1 one plane (4
        // routers and a gap) right
        assert_eq!((l[0].0, l[0].1), (0.0, 0.0));
        assert_eq!((l[1].0, l[1].1), (1.0, 0.0));
        assert_eq!((l[4].0, l[4].1), (0.0, 1.0));
        assert_eq!((l[12].0, l[12].1), (5.0, 0.0));
        assert_eq!(l[12].2, "(0,0,1)");
        // each plane labelled above its first router
        assert_eq!(
            layout.labels,
            vec![
                (0.0, -0.6, "z = 0".to_string()),
                (5.0, -0.6, "z = 1".to_string())
            ]
        );
    }

    /// Below the top level a fat tree is pods (subtrees) side by side: the routers of each
    /// pod (joined by links below the top) span an interval of x no other pod enters, so the
    /// only crossings below the top are inside a pod, where every leaf meets every switch
    /// above it (a complete bipartite stage cannot be drawn on two rows without them).
    #[test]
    fn a_fat_tree_s_pods_sit_side_by_side() {
        for (radix, levels) in [(4, 2), (4, 3), (6, 3), (8, 3), (4, 4)] {
            let cfg = NetworkConfig {
                topology: Topology::Fattree,
                radix: Some(radix),
                levels: Some(levels),
                ..NetworkConfig::default()
            };
            let t = Topo::new(&cfg, 1);
            let Topo::FatTree(f) = &t else { unreachable!() };
            let l = layout(&t, false).unwrap().places;
            let n = t.routers() as usize;
            let top = f.levels();
            // pods: routers joined by links that do not reach the top level
            let mut pod: Vec<usize> = (0..n).collect();
            fn root(p: &mut [usize], mut a: usize) -> usize {
                while p[a] != a {
                    p[a] = p[p[a]];
                    a = p[a];
                }
                a
            }
            for r in 0..n as u32 {
                for q in 0..t.ports() {
                    if let Some((to, _)) = t.neighbour(r, q) {
                        if f.place(r).0 < top && f.place(to).0 < top {
                            let (a, b) = (root(&mut pod, r as usize), root(&mut pod, to as usize));
                            pod[a] = b;
                        }
                    }
                }
            }
            let mut span: std::collections::BTreeMap<usize, (f32, f32)> = Default::default();
            for (r, place) in l.iter().enumerate() {
                if f.place(r as u32).0 < top {
                    let e = span
                        .entry(root(&mut pod, r))
                        .or_insert((f32::MAX, f32::MIN));
                    *e = (e.0.min(place.0), e.1.max(place.0));
                }
            }
            let mut spans: Vec<(f32, f32)> = span.into_values().collect();
            spans.sort_by(|a, b| a.0.total_cmp(&b.0));
            assert!(
                spans.len() > 1 || top == 2,
                "radix {radix}, {levels} levels"
            );
            for w in spans.windows(2) {
                assert!(w[0].1 < w[1].0, "radix {radix}, {levels} levels: {spans:?}");
            }
        }
    }

    #[test]
    fn a_fat_tree_s_levels_are_rows_labelled_from_the_leaves_up() {
        let cfg = NetworkConfig {
            topology: Topology::Fattree,
            radix: Some(4),
            levels: Some(3),
            ..NetworkConfig::default()
        };
        let t = Topo::new(&cfg, 1);
        let l = layout(&t, false).unwrap();
        let names: Vec<&str> = l.labels.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(names, ["level 1 (leaves)", "level 2", "level 3 (top)"]);
        // the top above the leaves, and every link joins two neighbouring rows
        let Topo::FatTree(f) = &t else { unreachable!() };
        for r in 0..t.routers() {
            let (i, _) = f.place(r);
            for q in 0..t.ports() {
                if let Some((to, _)) = t.neighbour(r, q) {
                    let (j, _) = f.place(to);
                    assert_eq!(i.abs_diff(j), 1);
                    assert_eq!(
                        (l.places[r as usize].1 > l.places[to as usize].1),
                        i < j,
                        "a higher level is drawn higher"
                    );
                }
            }
        }
    }
}
