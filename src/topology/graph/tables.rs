//! A graph's routes: breadth-first distances, the up*/down* orders, and the tables of hops per
//! destination, state and router that the fewest classes allow (see the family's doc).

use super::{GraphRouting, RouterId, FAR, MAX_TABLES, MAX_TURN_CLASSES};
use std::collections::VecDeque;

/// Routers in breadth-first order from `from`: the hops to each (`u32::MAX`: not reached).
pub(super) fn bfs(adj: &[Vec<RouterId>], from: &[RouterId]) -> Vec<u32> {
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
pub(super) fn rank_by(routers: usize, key: impl Fn(usize) -> (i64, usize)) -> Vec<u32> {
    let mut order: Vec<usize> = (0..routers).collect();
    order.sort_by_key(|&r| key(r));
    let mut rank = vec![0u32; routers];
    for (i, &r) in order.iter().enumerate() {
        rank[r] = i as u32;
    }
    rank
}

/// The hop tables for `classes` classes in the order `rank` (see [`Built::hops`]).
pub(super) fn tables(
    adj: &[Vec<RouterId>],
    rank: &[u32],
    dests: &[RouterId],
    classes: usize,
) -> Vec<u8> {
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

/// A central router: the middle of a longest shortest path found by two sweeps.
pub(super) fn central(adj: &[Vec<RouterId>]) -> usize {
    let r = adj.len();
    let d0 = bfs(adj, &[0]);
    let u = (0..r)
        .max_by_key(|&i| (d0[i], std::cmp::Reverse(i)))
        .unwrap_or(0);
    let du = bfs(adj, &[u as u32]);
    let v = (0..r)
        .max_by_key(|&i| (du[i], std::cmp::Reverse(i)))
        .unwrap_or(0);
    let dv = bfs(adj, &[v as u32]);
    let half = du[v] / 2;
    (0..r)
        .filter(|&i| du[i] == half && du[i] + dv[i] == du[v])
        .min()
        .unwrap_or(0)
}

/// The routes of the first of `orders` (its name and each router's rank) and the fewest
/// classes with which every route between routers with nodes (`dests`) is a shortest path;
/// else the set with the fewest hops past the shortest: (order, classes, tables, those
/// hops). UGAL takes the most classes whose tables fit (3, else 2) in an order where every
/// pair is also reached without a turn. `None` when no set reaches every pair.
pub(super) fn choose(
    adj: &[Vec<RouterId>],
    dests: &[RouterId],
    orders: &[(&'static str, &Vec<u32>)],
    routing: GraphRouting,
) -> Option<(&'static str, usize, Vec<u8>, u64)> {
    let r = adj.len();
    let states_cost = |c: usize| dests.len() as u64 * 2 * c as u64 * r as u64;
    // shortest paths between routers with nodes, to tell a minimal set of routes
    // (between routers with nodes only: a row per destination, a column per source)
    let shortest: Vec<Vec<u8>> = dests
        .iter()
        .map(|&d| {
            let all = bfs(adj, &[d]);
            dests
                .iter()
                .map(|&s| all[s as usize].min(FAR as u32) as u8)
                .collect()
        })
        .collect();
    // the classes tried, fewest first; UGAL takes the most that fit (at least 2: its legs),
    // and needs every pair reached without a turn (each leg of a detour takes none)
    let (tried, turn_free): (Vec<usize>, bool) = match routing {
        GraphRouting::Minimal => ((1..=MAX_TURN_CLASSES).collect(), false),
        GraphRouting::UpDown => (vec![1], false),
        GraphRouting::Ugal => {
            let c = (2..=MAX_TURN_CLASSES)
                .rev()
                .find(|&c| states_cost(c) <= MAX_TABLES);
            (c.into_iter().collect(), true)
        }
    };
    // (order, classes, tables, routes longer than the shortest); the first set that is
    // minimal, else the one with the fewest excess hops
    let mut best: Option<(&'static str, usize, Vec<u8>, u64)> = None;
    'orders: for &(order, rank) in orders {
        for &c in &tried {
            if states_cost(c) > MAX_TABLES {
                break;
            }
            let hops = tables(adj, rank, dests, c);
            let (mut excess, mut reached) = (0u64, true);
            // (the state from which no turn is left: the last class, going up)
            let last = if turn_free { (c - 1) * 2 * r } else { 0 };
            for (di, _) in dests.iter().enumerate() {
                for (si, &src) in dests.iter().enumerate() {
                    let h = hops[di * 2 * c * r + src as usize];
                    if h == FAR || hops[di * 2 * c * r + last + src as usize] == FAR {
                        reached = false;
                    } else {
                        excess += h.saturating_sub(shortest[di][si]) as u64;
                    }
                }
            }
            if !reached {
                continue;
            }
            let better = best.as_ref().is_none_or(|b| excess < b.3);
            if better {
                best = Some((order, c, hops, excess));
            }
            if excess == 0 {
                break 'orders;
            }
        }
    }
    best
}
