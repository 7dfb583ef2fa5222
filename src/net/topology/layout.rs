//! Where to draw each router of a topology (for the HTML report's picture of the network), in
//! abstract units: x to the right, y downwards, one unit between neighbours.
//!
//! - mesh, torus, Tofu: dimensions 0, 2, 4 spread along x and 1, 3, 5 along y, each further
//!   dimension repeating the block before it with a gap of one unit (a 3-D torus is a row of
//!   2-D planes, one per z);
//! - fat tree: one row per level, the top level at the top, switches spread evenly;
//! - dragonfly: groups around a circle, each group's routers on a small circle of its own.

use super::{RouterId, Topo};

/// Most routers a layout is made for (a bigger picture would show nothing).
pub const MAX_DRAWN: u32 = 4096;

/// Each router's position and the name of its place (`(x,y,z)`, `level 2`, `group 3`), or
/// `None` above [`MAX_DRAWN`] routers.
pub fn layout(t: &Topo) -> Option<Vec<(f32, f32, String)>> {
    let n = t.routers();
    if n > MAX_DRAWN {
        return None;
    }
    Some(match t {
        Topo::Cube(c) => {
            let dims = &c.dims;
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
                            let v = c.coord(r, d);
                            xy[d % 2] += v as f32 * stride[d];
                            v.to_string()
                        })
                        .collect();
                    (xy[0], xy[1], format!("({})", coords.join(",")))
                })
                .collect()
        }
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
        let l = layout(&Topo::new(&cfg, 1)).unwrap();
        assert_eq!(l.len(), 24);
        // router 0 at the origin; x+1 one unit right; y+1 one unit down; z+1 one plane (4
        // routers and a gap) right
        assert_eq!((l[0].0, l[0].1), (0.0, 0.0));
        assert_eq!((l[1].0, l[1].1), (1.0, 0.0));
        assert_eq!((l[4].0, l[4].1), (0.0, 1.0));
        assert_eq!((l[12].0, l[12].1), (5.0, 0.0));
        assert_eq!(l[12].2, "(0,0,1)");
    }
}
