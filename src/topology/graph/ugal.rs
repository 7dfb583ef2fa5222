//! `routing = "ugal"` on a graph: UGAL-L between the shortest route and a detour through a
//! random router with nodes (Valiant's), on the same up*/down* order as the shortest routes and
//! with at most three classes, deadlock-free.
//!
//! The tables are built for `C` classes (3, or 2 where three do not fit) in an order in which
//! every pair of routers with nodes is also reached without a turn (a spanning tree's always
//! is; `tables.rs`):
//! - the shortest route starts in class 0 and moves to the next class at each down-to-up turn,
//!   as under `minimal` (at most `C − 1` turns);
//! - a detour through router `m` takes no turn on its first leg, to `m`, and stays in class 0
//!   (it follows the tables' last class, from which no turn is left); its second leg, from `m`,
//!   starts going up in class 1, and may turn once more where `C = 3`.
//!
//! Within a class every route goes up, then down, in the one order, and a route's class never
//! falls, so no cycle of channel dependencies closes: no deadlock, whatever the load.
//!
//! At the source router the detour is taken when the bytes queued for the shortest route's
//! first hop times its hops exceed those of the detour's first hop times its hops by more than
//! the margin (`topology/ugal.rs`); the intermediate is the `draw mod (n − 2)`-th of the `n`
//! routers with nodes that is neither the source's nor the destination's. At every hop, among
//! the next hops that keep the route (or the leg) shortest, the one with the fewest bytes
//! queued is taken, ties going to the first from the `(src + dst) mod count`-th in port order.
//!
//! What a packet carries: its class (`vc`); in `dim`, bit 0 whether it has gone down in its
//! class and bit 1 whether it is on a detour's first leg, and above them the intermediate's
//! index among the routers with nodes beyond the 16 bits `aux` holds (below 2²⁰ routers, so
//! `dim` stays below 64).

use super::super::{ugal, At, Hop, Routers, NO_DIM};
use super::{Built, Port, FAR};

/// `dim` bit: the packet has gone down in its class.
const DOWN: u8 = 1;
/// `dim` bit: the packet is on the first leg of a detour.
const LEG1: u8 = 2;

/// UGAL's hop for packet `p` on graph `g`.
pub(super) fn route<R: Routers>(g: &Built, p: At, routers: &mut R) -> Hop {
    let dr = match super::ejection(g, &p) {
        Ok(hop) => return hop,
        Err(dr) => dr,
    };
    let d = g.dest[dr as usize];
    // the state in which no turn is left: the last class, going up
    let last = (g.classes_used as usize - 1) * 2;
    if p.dim == NO_DIM {
        return decide(g, p, d, last, routers);
    }
    let down = (p.dim & DOWN) as usize;
    if p.dim & LEG1 != 0 {
        let m = p.aux as u32 | ((p.dim >> 2) as u32) << 16;
        if g.dests[m as usize] != p.at {
            let (port, next) = best(g, p, m, last + down, routers);
            return leg1(port, next, m);
        }
        // at the intermediate: the second leg starts in class 1, going up
        let (port, next) = best(g, p, d, 2, routers);
        return plain(port, next);
    }
    let (port, next) = best(g, p, d, p.vc as usize * 2 + down, routers);
    plain(port, next)
}

/// At the source router: the shortest route, or a detour by the queues.
fn decide<R: Routers>(g: &Built, p: At, d: u32, last: usize, routers: &mut R) -> Hop {
    let (port, next) = best(g, p, d, 0, routers);
    let n = g.dests.len() as u32;
    let here = g.dest[p.at as usize];
    if n < 3 || here == u32::MAX {
        return plain(port, next);
    }
    // the (draw mod (n − 2))-th router with nodes that is neither here nor the destination's
    let mut m = (routers.draw(p.at) % (n - 2) as u64) as u32;
    let (lo, hi) = (here.min(d), here.max(d));
    if m >= lo {
        m += 1;
    }
    if m >= hi {
        m += 1;
    }
    let (h1, h2) = (g.hops(m, last, p.at), g.hops(d, 2, g.dests[m as usize]));
    if h1 == FAR || h2 == FAR {
        return plain(port, next);
    }
    let (via, via_next) = best(g, p, m, last, routers);
    let shortest = g.hops(d, 0, p.at) as u64;
    let (q_min, q_via) = (routers.queue(p.at, port), routers.queue(p.at, via));
    let detour = (h1 as u64) + (h2 as u64);
    if ugal::minimal_wins(q_min, shortest, q_via, detour, routers.packet_bytes()) {
        plain(port, next)
    } else {
        routers.derouted();
        leg1(via, via_next, m)
    }
}

/// A hop into state `next` on a shortest route or a second leg.
fn plain(port: u8, next: usize) -> Hop {
    Hop {
        port,
        vc: (next / 2) as u8,
        dim: (next % 2) as u8,
        aux: 0,
    }
}

/// A hop of a detour's first leg (in class 0) toward intermediate `m`, into state `next` of
/// the tables' last class.
fn leg1(port: u8, next: usize, m: u32) -> Hop {
    Hop {
        port,
        vc: 0,
        dim: (next % 2) as u8 | LEG1 | ((m >> 16) << 2) as u8,
        aux: m as u16,
    }
}

/// Among the next hops from `p.at` in state `s` that keep the route to destination index `t`
/// shortest, the one with the fewest bytes queued (ties: the first from the
/// `(src + dst) mod count`-th): its port and the state after it.
fn best<R: Routers>(g: &Built, p: At, t: u32, s: usize, routers: &R) -> (u8, usize) {
    let here = g.hops(t, s, p.at) as u16;
    let row = p.at as usize * g.ports as usize;
    let on = |q: usize| -> Option<usize> {
        let Port::Link { to, .. } = g.port[row + q] else {
            return None;
        };
        let next = g.step(p.at, to, s)?;
        (g.hops(t, next, to) as u16 + 1 == here).then_some(next)
    };
    let count = (0..g.ports as usize).filter(|&q| on(q).is_some()).count();
    debug_assert!(count > 0, "a graph's tables route every pair");
    let start = p.src.wrapping_add(p.dst) as usize % count.max(1);
    let mut chosen: Option<(u64, usize, u8, usize)> = None;
    for (i, (q, next)) in (0..g.ports as usize)
        .filter_map(|q| on(q).map(|n| (q, n)))
        .enumerate()
    {
        let key = (routers.queue(p.at, q as u8), (i + count - start) % count);
        if chosen.is_none_or(|c| key < (c.0, c.1)) {
            chosen = Some((key.0, key.1, q as u8, next));
        }
    }
    let (_, _, port, next) = chosen.expect("a hop that keeps the route shortest");
    (port, next)
}
