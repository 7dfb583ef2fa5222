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
    /// [`Filling::refill`]'s walk: per flow and resource, the stamp of the last walk that met
    /// it; per resource met, its capacity left by the fixed flows.
    flow_seen: Vec<u32>,
    res_seen: Vec<u32>,
    stamp: u32,
    left_by_fixed: Vec<f64>,
    /// Per flow, the resource it was frozen at (its bottleneck) in the last fill that set its
    /// rate, and its rate in the ripple's fill under way.
    bneck: Vec<u32>,
    trial: Vec<f64>,
    /// The ripple's joiners, and the resources it has looked at.
    joining: Vec<u32>,
    looked: Vec<u32>,
    /// The most flows the ripple fills before it gives up: each round fills all of them
    /// again, and past this many the refill of everything at or above the level costs less
    /// (docs/performance.md).
    ripple_flows: usize,
    /// After the ripple gives up, it is not tried for the next `skip` refills: 1, then twice
    /// as many after each failure in a row (up to 64), so that where changes spread far it
    /// costs little.
    skip: u32,
    backoff: u32,
}

impl Filling {
    pub(crate) fn new(resources: usize) -> Filling {
        Filling {
            local: vec![u32::MAX; resources],
            res_seen: vec![0; resources],
            left_by_fixed: vec![0.0; resources],
            ripple_flows: 64,
            ..Filling::default()
        }
    }

    /// Sets `rates[k]` to the max-min fair rate of flow `flows[k]`. Flow `g` uses `uses(g)`,
    /// pairs of (resource, coefficient); resource `e` holds `cap(e)` (same unit as rate ×
    /// coefficient) and carries the flows `on(e)`. Those of `on(e)` not in `flows` are fixed
    /// (their load is already out of `cap(e)`); `flows` is connected through its resources. Ties between resources that fill at the same level go to the one met first,
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
            if self.bneck.len() <= g as usize {
                self.bneck.resize(g as usize + 1, u32::MAX);
            }
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
                // (a flow not in `flows` is fixed: its load is already out of `cap`)
                let k = match self.flow_local.get(g as usize) {
                    Some(&k) if k != u32::MAX => k as usize,
                    _ => continue,
                };
                if self.frozen[k] {
                    continue;
                }
                self.frozen[k] = true;
                rising -= 1;
                rates[k] = level;
                self.bneck[g as usize] = self.global[l];
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
        for &g in flows {
            self.flow_local[g as usize] = u32::MAX;
        }
    }

    /// After flows `added` joined (their rates not yet known) and flows left resources
    /// `freed`, the slowest of them at `left_at` payload per unit time: recomputes only the
    /// flows whose rates may change, into `component` and `rates` (the others keep
    /// `rate(g)`). Of the other arguments, as [`Filling::fill`]'s; `a(g, e)` is flow `g`'s
    /// coefficient on resource `e`, and `weight(e)` the sum of them over `on(e)` (if a little
    /// off by rounding, the 1e-9 below covers it).
    ///
    /// Which flows: below the lowest level `L` of the change, progressive filling goes as it
    /// did, so a flow slower than `L` keeps its rate. A flow that left was at `L = rate`
    /// (every resource it crossed filled at or above it); a flow that joins gets at least the
    /// equal share of its fullest resource, `L = min cap(e) / Σ a(·, e)` (a flow is the
    /// fastest on its bottleneck). So the flows at or above `L` (with a relative margin of
    /// 1e-9 for rounding: taking a flow too many is always exact), connected to the change
    /// through one another, are filled again on what the slower ones leave: the max-min of
    /// that part is the whole max-min's (SimGrid's selective update recomputes the whole
    /// connected component; when the fastest flows end first, as same-sized transfers do,
    /// this is a few flows at the top of it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn refill<'a>(
        &mut self,
        added: &[u32],
        freed: &[u32],
        left_at: f64,
        uses: impl Fn(u32) -> &'a [(u32, f64)],
        on: impl Fn(u32) -> &'a [u32],
        cap: impl Fn(u32) -> f64,
        weight: impl Fn(u32) -> f64,
        a: impl Fn(u32, u32) -> f64,
        rate: impl Fn(u32) -> f64,
        component: &mut Vec<u32>,
        rates: &mut Vec<f64>,
    ) {
        let mut level = left_at;
        for &g in added {
            for &(e, _) in uses(g) {
                level = level.min(cap(e) / weight(e));
            }
        }
        let level = level * (1.0 - 1e-9);
        if self.skip > 0 {
            self.skip -= 1;
        } else if self.ripple(
            added, freed, level, &uses, &on, &cap, &a, &rate, component, rates,
        ) {
            self.backoff = 0;
            return;
        } else {
            self.backoff = (self.backoff * 2).clamp(1, 64);
            self.skip = self.backoff;
        }
        let stamp = self.next_stamp();
        component.clear();
        let meet = |g: u32, seen: &mut Vec<u32>, component: &mut Vec<u32>| {
            if seen.len() <= g as usize {
                seen.resize(g as usize + 1, 0);
            }
            if seen[g as usize] != stamp {
                seen[g as usize] = stamp;
                component.push(g);
            }
        };
        for &g in added {
            meet(g, &mut self.flow_seen, component);
        }
        // a resource met: the flows at or above the level join, the others' load is fixed
        let mut visit = |e: u32, fs: &mut Vec<u32>, rs: &mut Vec<u32>, c: &mut Vec<u32>| {
            if rs[e as usize] == stamp {
                return;
            }
            rs[e as usize] = stamp;
            let mut left = cap(e);
            for &h in on(e) {
                let member = fs.get(h as usize) == Some(&stamp);
                if member || rate(h) >= level {
                    meet(h, fs, c);
                } else {
                    left -= a(h, e) * rate(h);
                }
            }
            self.left_by_fixed[e as usize] = left;
        };
        for &e in freed {
            visit(e, &mut self.flow_seen, &mut self.res_seen, component);
        }
        let mut i = 0;
        while i < component.len() {
            let g = component[i];
            i += 1;
            for &(e, _) in uses(g) {
                visit(e, &mut self.flow_seen, &mut self.res_seen, component);
            }
        }
        rates.clear();
        rates.resize(component.len(), 0.0);
        let left = std::mem::take(&mut self.left_by_fixed);
        self.fill(component, uses, on, |e| left[e as usize], rates);
        self.left_by_fixed = left;
    }

    /// The ripple: fills again only the flows whose rates must change, found by checking,
    /// after each fill, what certifies the max-min of the flows left as they were. A rate
    /// allocation that fits every resource is the max-min one when every flow has a
    /// bottleneck: a full resource on which no flow is faster (Bertsekas and Gallager,
    /// §6.5.2). The flows of `component` (first the ones that joined) are filled on what the
    /// others leave; then, on every resource they or the flows that left use (the only ones
    /// whose load moved), a flow left as it was joins if its bottleneck is no longer full or
    /// has a faster flow now, and one faster than a filled flow on that one's bottleneck joins
    /// too. Until none joins; then every flow has its certificate, and the rates are exact.
    /// Flows below `level` never join (the refill's argument). Gives up (false) after 8
    /// rounds or past 64 flows: the caller then refills everything at or above the level.
    #[allow(clippy::too_many_arguments)]
    fn ripple<'a>(
        &mut self,
        added: &[u32],
        freed: &[u32],
        level: f64,
        uses: &impl Fn(u32) -> &'a [(u32, f64)],
        on: &impl Fn(u32) -> &'a [u32],
        cap: &impl Fn(u32) -> f64,
        a: &impl Fn(u32, u32) -> f64,
        rate: &impl Fn(u32) -> f64,
        component: &mut Vec<u32>,
        rates: &mut Vec<f64>,
    ) -> bool {
        const ROUNDS: usize = 8;
        const TOL: f64 = 1e-9;
        let stamp = self.next_stamp();
        component.clear();
        let mut joining = std::mem::take(&mut self.joining);
        let mut looked = std::mem::take(&mut self.looked);
        joining.clear();
        joining.extend_from_slice(added);
        let mut done = false;
        for _ in 0..ROUNDS {
            for &g in &joining {
                if self.flow_seen.len() <= g as usize {
                    self.flow_seen.resize(g as usize + 1, 0);
                }
                if self.trial.len() <= g as usize {
                    self.trial.resize(g as usize + 1, 0.0);
                }
                if self.flow_seen[g as usize] != stamp {
                    self.flow_seen[g as usize] = stamp;
                    component.push(g);
                }
            }
            joining.clear();
            if !component.is_empty() {
                // fill the joined flows on what the others leave
                looked.clear();
                for &g in component.iter() {
                    for &(e, _) in uses(g) {
                        if self.res_seen[e as usize] != stamp {
                            self.res_seen[e as usize] = stamp;
                            looked.push(e);
                        }
                    }
                }
                for &e in &looked {
                    let mut left = cap(e);
                    for &h in on(e) {
                        if self.flow_seen.get(h as usize) != Some(&stamp) {
                            left -= a(h, e) * rate(h);
                        }
                    }
                    self.left_by_fixed[e as usize] = left;
                }
                for &e in &looked {
                    self.res_seen[e as usize] = 0;
                }
                rates.clear();
                rates.resize(component.len(), 0.0);
                let left = std::mem::take(&mut self.left_by_fixed);
                self.fill(component, uses, on, |e| left[e as usize], rates);
                self.left_by_fixed = left;
                for (k, &g) in component.iter().enumerate() {
                    self.trial[g as usize] = rates[k];
                }
            }
            // check the certificates on every resource whose load moved
            looked.clear();
            for &e in freed
                .iter()
                .chain(component.iter().flat_map(|&g| uses(g).iter().map(|u| &u.0)))
            {
                if self.res_seen[e as usize] != stamp {
                    self.res_seen[e as usize] = stamp;
                    looked.push(e);
                }
            }
            for &e in &looked {
                self.res_seen[e as usize] = 0;
            }
            for &e in &looked {
                let flows = on(e);
                let (mut load, mut fastest, mut slowest_held) = (0.0, 0.0f64, f64::INFINITY);
                for &h in flows {
                    let mine = self.flow_seen.get(h as usize) == Some(&stamp);
                    let x = if mine {
                        self.trial[h as usize]
                    } else {
                        rate(h)
                    };
                    load += a(h, e) * x;
                    fastest = fastest.max(x);
                    if mine && self.bneck[h as usize] == e {
                        slowest_held = slowest_held.min(x);
                    }
                }
                let full = load >= cap(e) * (1.0 - TOL);
                for &h in flows {
                    if self.flow_seen.get(h as usize) == Some(&stamp) {
                        continue;
                    }
                    let x = rate(h);
                    if x < level {
                        continue;
                    }
                    let held_here = self.bneck.get(h as usize) == Some(&e);
                    if (held_here && (!full || x < fastest * (1.0 - TOL)))
                        || x > slowest_held * (1.0 + TOL)
                    {
                        joining.push(h);
                    }
                }
            }
            if joining.is_empty() {
                done = true;
                break;
            }
            if component.len() + joining.len() > self.ripple_flows {
                break;
            }
        }
        // (`rates` holds the last fill's, in `component`'s order)
        if component.is_empty() {
            rates.clear();
        }
        self.joining = joining;
        self.looked = looked;
        done
    }

    /// A stamp no flow or resource holds yet (the walks' "met" marks).
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.flow_seen.iter_mut().for_each(|s| *s = 0);
            self.res_seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Turns the ripple off (every refill then fills everything at or above the level) or
    /// back on: the rates are the same either way.
    pub(crate) fn use_ripple(&mut self, on: bool) {
        self.ripple_flows = if on { 64 } else { 0 };
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

    /// `refill` after flows leave and join gives the rates of a whole `fill` of the flows
    /// left, on random networks: 200 problems of 12 resources, each with several changes.
    #[test]
    fn a_refill_gives_the_whole_max_min() {
        // with the ripple, and with the refill of everything at or above the level alone
        for ripple_flows in [64, 0] {
            refills_against_whole_fills(ripple_flows);
        }
    }

    fn refills_against_whole_fills(ripple_flows: usize) {
        let mut seed = 12345u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..200 {
            let caps: Vec<f64> = (0..12).map(|_| 1.0 + next(20) as f64).collect();
            let mut uses: Vec<Vec<(u32, f64)>> = Vec::new();
            let mut alive: Vec<bool> = Vec::new();
            let mut rate: Vec<f64> = Vec::new();
            let mut f = Filling::new(caps.len());
            f.ripple_flows = ripple_flows;
            let (mut comp, mut rs) = (Vec::new(), Vec::new());
            for step in 0..8 {
                // one or two leave (from the second step), one to three join
                let mut freed = Vec::new();
                let mut left_at = f64::INFINITY;
                for _ in 0..(if step == 0 { 0 } else { 1 + next(2) }) {
                    let live: Vec<usize> = (0..uses.len()).filter(|&g| alive[g]).collect();
                    if live.is_empty() {
                        break;
                    }
                    let g = live[next(live.len() as u64) as usize];
                    alive[g] = false;
                    left_at = left_at.min(rate[g]);
                    freed.extend(uses[g].iter().map(|&(e, _)| e));
                }
                let mut added = Vec::new();
                for _ in 0..1 + next(3) {
                    let mut u: Vec<(u32, f64)> = Vec::new();
                    for _ in 0..1 + next(4) {
                        let e = next(12) as u32;
                        if u.iter().all(|&(x, _)| x != e) {
                            u.push((e, [1.0, 1.25, 2.0][next(3) as usize]));
                        }
                    }
                    added.push(uses.len() as u32);
                    uses.push(u);
                    alive.push(true);
                    rate.push(0.0);
                }
                let mut on = vec![Vec::new(); caps.len()];
                for g in 0..uses.len() {
                    if alive[g] {
                        for &(e, _) in &uses[g] {
                            on[e as usize].push(g as u32);
                        }
                    }
                }
                let coef = |g: u32, e: u32| uses[g as usize].iter().find(|u| u.0 == e).unwrap().1;
                f.refill(
                    &added,
                    &freed,
                    left_at,
                    |g| &uses[g as usize],
                    |e| &on[e as usize],
                    |e| caps[e as usize],
                    |e| on[e as usize].iter().map(|&h| coef(h, e)).sum(),
                    coef,
                    |g| rate[g as usize],
                    &mut comp,
                    &mut rs,
                );
                for (k, &g) in comp.iter().enumerate() {
                    rate[g as usize] = rs[k];
                }
                let all: Vec<u32> = (0..uses.len() as u32)
                    .filter(|&g| alive[g as usize])
                    .collect();
                let mut whole = vec![0.0; all.len()];
                Filling::new(caps.len()).fill(
                    &all,
                    |g| &uses[g as usize],
                    |e| &on[e as usize],
                    |e| caps[e as usize],
                    &mut whole,
                );
                for (k, &g) in all.iter().enumerate() {
                    let r = rate[g as usize];
                    assert!(
                        (r - whole[k]).abs() <= 1e-9 * whole[k],
                        "flow {g}: {r} against {}",
                        whole[k]
                    );
                }
            }
        }
    }
}
