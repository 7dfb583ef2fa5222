//! Max-min fair sharing by progressive filling (docs/model.md §3a; Bertsekas and Gallager,
//! *Data Networks*, §6.5.2): every flow's rate rises together until a resource is full; the
//! flows through it keep the rate they have; the others go on rising.
//!
//! A flow uses each of its resources in proportion to its rate with its own coefficient (a
//! link carries a message's headers as well as its payload, so a flow of payload rate `r`
//! loads it by `r · wire / payload`; a DMA engine moves payload only).
//!
//! Cost: the resources' fill levels are in a binary heap. A level only rises as flows freeze,
//! so an entry found behind its resource's level goes back in at the new one (lazily) rather
//! than every freeze pushing every resource it touches: `O((R + re-entries) · log R + Σ
//! |resources of a flow|)` for the flows of one connected component over its `R` resources,
//! which is all the caller passes.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A resource's fill level in the heap: the smallest level first, then the resource met
/// first.
#[derive(Clone, Copy, PartialEq)]
struct Level {
    level: f64,
    local: u32,
}

impl Eq for Level {}

impl Ord for Level {
    fn cmp(&self, o: &Self) -> Ordering {
        // (reversed: BinaryHeap is a max-heap)
        o.level
            .total_cmp(&self.level)
            .then(o.local.cmp(&self.local))
    }
}

impl PartialOrd for Level {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

/// Scratch space for [`Filling::fill`], sized for every resource and flow of the network, so
/// that a recomputation allocates nothing once it has run at its largest.
#[derive(Default)]
pub(crate) struct Filling {
    /// Capacity left per resource, and the sum of the coefficients of the flows through it
    /// that are still rising, by local number.
    left: Vec<f64>,
    weight: Vec<f64>,
    /// Local number of each global resource (`u32::MAX`: not in this component).
    local: Vec<u32>,
    /// The global resources of the component, in the order first met.
    global: Vec<u32>,
    /// Local number of each global flow in the component, and whether it is frozen.
    flow_local: Vec<u32>,
    frozen: Vec<bool>,
    heap: BinaryHeap<Level>,
}

impl Filling {
    pub(crate) fn new(resources: usize) -> Filling {
        Filling {
            local: vec![u32::MAX; resources],
            ..Filling::default()
        }
    }

    /// Sets `rates[k]` to the max-min fair rate of flow `flows[k]`. Flow `g` uses `uses(g)`,
    /// pairs of (resource, coefficient); resource `e` holds `cap(e)` (same unit as rate ×
    /// coefficient) and carries the flows `on(e)`, all of them in `flows` (a connected
    /// component). Ties between resources that fill at the same level go to the one met first,
    /// so the result depends only on the order of the flows and of their resources.
    pub(crate) fn fill<'a>(
        &mut self,
        flows: &[u32],
        uses: impl Fn(u32) -> &'a [(u32, f64)],
        on: impl Fn(u32) -> &'a [u32],
        cap: impl Fn(u32) -> f64,
        rates: &mut [f64],
    ) {
        self.global.clear();
        self.left.clear();
        self.weight.clear();
        self.heap.clear();
        self.frozen.clear();
        self.frozen.resize(flows.len(), false);
        for (k, &g) in flows.iter().enumerate() {
            if self.flow_local.len() <= g as usize {
                self.flow_local.resize(g as usize + 1, u32::MAX);
            }
            self.flow_local[g as usize] = k as u32;
            for &(e, a) in uses(g) {
                let l = &mut self.local[e as usize];
                if *l == u32::MAX {
                    *l = self.global.len() as u32;
                    self.global.push(e);
                    self.left.push(cap(e));
                    self.weight.push(0.0);
                }
                self.weight[*l as usize] += a;
            }
        }
        for l in 0..self.global.len() {
            self.push(l);
        }
        let mut rising = flows.len();
        while rising > 0 {
            let Some(top) = self.heap.pop() else {
                // flows with no resource at all (cannot happen for a message): unbounded
                for (k, f) in self.frozen.iter_mut().enumerate() {
                    if !*f {
                        rates[k] = f64::INFINITY;
                        *f = true;
                    }
                }
                break;
            };
            let l = top.local as usize;
            if self.weight[l] <= 1e-12 {
                continue;
            }
            // levels only rise as flows freeze (the one frozen at the lowest level took no
            // more than its share), so an entry is at most its resource's level: one that is
            // behind goes back in at the level it has now
            let level = self.left[l].max(0.0) / self.weight[l];
            if level > top.level {
                self.heap.push(Level { level, ..top });
                continue;
            }
            for &g in on(self.global[l]) {
                let k = self.flow_local[g as usize] as usize;
                if self.frozen[k] {
                    continue;
                }
                self.frozen[k] = true;
                rising -= 1;
                rates[k] = level;
                for &(r, a) in uses(g) {
                    let rl = self.local[r as usize] as usize;
                    self.left[rl] -= a * level;
                    self.weight[rl] -= a;
                }
            }
            // (full: rounding may leave it a hair of weight, but it has no rising flow left)
            self.weight[l] = 0.0;
        }
        for &e in &self.global {
            self.local[e as usize] = u32::MAX;
        }
    }

    /// Puts local resource `l`'s level into the heap, if a rising flow still uses it.
    fn push(&mut self, l: usize) {
        let w = self.weight[l];
        if w > 1e-12 {
            self.heap.push(Level {
                level: self.left[l].max(0.0) / w,
                local: l as u32,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rates(caps: &[f64], flows: &[Vec<(u32, f64)>]) -> Vec<f64> {
        let mut on = vec![Vec::new(); caps.len()];
        for (g, u) in flows.iter().enumerate() {
            for &(e, _) in u {
                on[e as usize].push(g as u32);
            }
        }
        let ids: Vec<u32> = (0..flows.len() as u32).collect();
        let mut f = Filling::new(caps.len());
        let mut r = vec![0.0; flows.len()];
        f.fill(
            &ids,
            |g| &flows[g as usize],
            |e| &on[e as usize],
            |e| caps[e as usize],
            &mut r,
        );
        r
    }

    #[test]
    fn flows_on_one_link_share_it_equally() {
        assert_eq!(
            rates(&[12.0], &[vec![(0, 1.0)], vec![(0, 1.0)]]),
            [6.0, 6.0]
        );
        let three = [vec![(0, 1.0)], vec![(0, 1.0)], vec![(0, 1.0)]];
        assert_eq!(rates(&[12.0], &three), [4.0, 4.0, 4.0]);
    }

    #[test]
    fn a_flow_limited_elsewhere_leaves_its_share_to_the_others() {
        // link 0 of 12 carries three flows; flow 0 also crosses link 1 of 2: it gets 2, and the
        // other two share the 10 left
        let flows = [vec![(0, 1.0), (1, 1.0)], vec![(0, 1.0)], vec![(0, 1.0)]];
        assert_eq!(rates(&[12.0, 2.0], &flows), [2.0, 5.0, 5.0]);
    }

    #[test]
    fn coefficients_weigh_a_flows_use_of_a_resource() {
        // two flows on a link of 10, one with headers that double its load: equal rates r
        // with r + 2r = 10
        let r = rates(&[10.0], &[vec![(0, 1.0)], vec![(0, 2.0)]]);
        assert!((r[0] - 10.0 / 3.0).abs() < 1e-12 && r[0] == r[1]);
    }

    #[test]
    fn the_scratch_space_is_clean_for_the_next_component() {
        assert_eq!(
            rates(&[8.0, 8.0, 8.0], &[vec![(2, 1.0)], vec![(2, 1.0)]]),
            [4.0, 4.0]
        );
        let mut f = Filling::new(3);
        let (a, on) = (
            [vec![(2u32, 1.0)], vec![(2, 1.0)]],
            [vec![], vec![], vec![0u32, 1]],
        );
        let mut r = [0.0; 2];
        f.fill(
            &[0, 1],
            |g| &a[g as usize],
            |e| &on[e as usize],
            |_| 8.0,
            &mut r,
        );
        let (b, on_b) = ([vec![(1u32, 1.0)]], [vec![], vec![0u32], vec![]]);
        f.fill(
            &[0],
            |g| &b[g as usize],
            |e| &on_b[e as usize],
            |_| 8.0,
            &mut r[..1],
        );
        assert_eq!(r[0], 8.0);
        assert!(f.local.iter().all(|&l| l == u32::MAX));
    }

    #[test]
    fn a_chain_of_bottlenecks_fills_in_order() {
        // flows 0-1 on link 0 (cap 2), flows 1-2 on link 1 (cap 10), flow 2-3 on link 2 (cap
        // 7): link 0 fills first at 1 (flows 0, 1); link 1 then has 9 for flow 2, but link 2
        // gives flows 2 and 3 only 3.5 each
        let flows = [
            vec![(0, 1.0)],
            vec![(0, 1.0), (1, 1.0)],
            vec![(1, 1.0), (2, 1.0)],
            vec![(2, 1.0)],
        ];
        assert_eq!(rates(&[2.0, 10.0, 7.0], &flows), [1.0, 1.0, 3.5, 3.5]);
    }
}
