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

use super::{Hop, RouterId, NO_DIM};
use crate::config::FatTreeRouting;

/// A fat tree.
#[derive(Clone, Debug)]
pub struct FatTree {
    /// `m_i`: down ports of a level-`i` switch (index `i - 1`).
    pub down: Vec<u32>,
    /// `w_{i+1}`: up ports of a level-`i` switch (index `i - 1`; 0 at the top).
    pub up: Vec<u32>,
    /// `M_i` for `i = 0..=h`.
    m_prod: Vec<u32>,
    /// `B_i` for `i = 0..=h` (`B_0 = B_1 = 1`).
    b_prod: Vec<u32>,
    /// First router id of each level (index `i - 1`), and one past the last.
    start: Vec<u32>,
    /// How packets are routed.
    pub routing: FatTreeRouting,
    ports: u8,
}

impl FatTree {
    /// A tree with `down[i]` ports down and `up[i]` up at level `i + 1`; `up` ends with 0.
    pub fn new(down: &[u32], up: &[u32], routing: FatTreeRouting) -> FatTree {
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
        }
    }

    /// Levels of switches.
    pub fn levels(&self) -> usize {
        self.down.len()
    }
    /// Nodes below the leaves.
    pub fn nodes(&self) -> u32 {
        self.m_prod[self.levels()]
    }
    /// Switches on all levels.
    pub fn routers(&self) -> u32 {
        self.start[self.levels()]
    }
    /// Switches at level `i` (1-based).
    pub fn switches(&self, i: usize) -> u32 {
        self.start[i] - self.start[i - 1]
    }
    /// Ports of the widest switch.
    pub fn ports(&self) -> u8 {
        self.ports
    }
    /// Leaves: routers `0..leaves()` carry the nodes, `m_1` each.
    pub fn leaves(&self) -> u32 {
        self.switches(1)
    }

    /// Level (1-based) and index within it of router `r`.
    #[inline]
    pub fn place(&self, r: RouterId) -> (usize, u32) {
        let mut i = 1;
        while r >= self.start[i] {
            i += 1;
        }
        (i, r - self.start[i - 1])
    }

    /// The router behind port `q` of router `r` and the port the link arrives on (none for a
    /// leaf's node ports, or an up port of the top level).
    pub fn neighbour(&self, r: RouterId, q: u8) -> Option<(RouterId, u8)> {
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
    pub fn route(&self, at: RouterId, src: u32, dst: u32, draw: impl FnOnce() -> u64) -> Hop {
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
    pub fn common_level(&self, src: u32, dst: u32) -> usize {
        (1..=self.levels())
            .find(|&i| src / self.m_prod[i] == dst / self.m_prod[i])
            .unwrap_or(self.levels())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Routers visited from node `src` to node `dst`.
    fn walk(t: &FatTree, src: u32, dst: u32, seed: &mut u64) -> Vec<RouterId> {
        let mut at = src / t.down[0];
        let mut path = vec![at];
        loop {
            let h = t.route(at, src, dst, || {
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
