//! Where to draw each router of a topology (for the HTML report's picture of the network), in
//! abstract units: x to the right, y downwards, one unit between neighbours. Each family draws
//! itself ([`super::Family::layout`]); what they share is here.

use super::RouterId;

/// Most routers a layout is made for (a bigger picture would show nothing).
pub(crate) const MAX_DRAWN: u32 = 4096;

/// How the report draws a link between two routers that are not drawn side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FarLinks {
    /// A straight line.
    Line,
    /// A short stub pointing away from the router (a torus's wrap-around links).
    Stub,
    /// An arc off the row or column (a HyperX's, clear of the routers between).
    Arc,
}

/// Where to draw a network's routers, the labels of its parts, and how to draw its links.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Layout {
    /// Each router's position and the name of its place (`(x,y,z)`, `level 2 switch 3`,
    /// `group 3 router 1`).
    pub(crate) places: Vec<(f32, f32, String)>,
    /// Labels of the parts, at their positions (their left end, or their middle with
    /// `centred_labels`): the planes of a torus of three or more dimensions (`z = 1`), the
    /// levels of a fat tree, a dragonfly's groups.
    pub(crate) labels: Vec<(f32, f32, String)>,
    /// How links between routers drawn apart are drawn.
    pub(crate) far_links: FarLinks,
    /// Labels are centred on their position.
    pub(crate) centred_labels: bool,
    /// A sentence the report adds under the picture.
    pub(crate) note: Option<&'static str>,
    /// Each router is drawn with its number (a graph's, where the number is all that names
    /// it).
    pub(crate) numbered: bool,
}

impl Layout {
    /// Routers at `places` with `labels` at their left ends, every link a straight line, no
    /// note.
    pub(crate) fn new(places: Vec<(f32, f32, String)>, labels: Vec<(f32, f32, String)>) -> Layout {
        Layout {
            places,
            labels,
            far_links: FarLinks::Line,
            centred_labels: false,
            note: None,
            numbered: false,
        }
    }
}

/// `n` routers on a grid of `dims` (coordinate `coord(r, d)`): dimensions 0, 2, 4 along x
/// and 1, 3, 5 along y, each further dimension repeating the block before it with a gap of
/// one unit; each named by its coordinates.
pub(crate) fn grid(
    n: u32,
    dims: &[u32],
    coord: impl Fn(RouterId, usize) -> u32,
) -> Vec<(f32, f32, String)> {
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

#[cfg(test)]
mod tests {
    use crate::topology::Topo;

    fn topo(network: &str) -> Topo {
        Topo::from_toml(network, 1, std::path::Path::new(".")).unwrap()
    }

    #[test]
    fn a_3d_torus_is_a_row_of_planes() {
        let layout = topo("dims = [4, 3, 2]").layout().unwrap();
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
            let t = topo(&format!(
                "topology = 'fattree'\nradix = {radix}\nlevels = {levels}"
            ));
            let Topo::FatTree(f) = &t else { unreachable!() };
            let l = t.layout().unwrap().places;
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
        let t = topo("topology = 'fattree'\nradix = 4\nlevels = 3");
        let l = t.layout().unwrap();
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
