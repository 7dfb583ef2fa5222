//! The highest offered load a traffic pattern can have on a network under its routing: each
//! source's share of the load spread over its destinations, each destination's share laid
//! on the channels of its route (injection and ejection links included), and the busiest
//! channel's load per unit of offered load inverted (at most 1, what a NIC's own link
//! carries). This is the "ideal" of BookSim's papers for a routing: no router can do better
//! with these routes. Routes are those the network takes when empty; where a pair's packets
//! may take several (`Topo::multipath`: random up-routes, Valiant, UGAL), each pair's route
//! is drawn [`SAMPLES`] times and the load split among the draws.

use crate::config::Scenario;
use crate::net::Network;
use crate::traffic::Spec;
use crate::units::Time;

/// Routes worked out at most (pairs times draws) for `mgensim curve`: beyond, no bound is
/// given.
pub(crate) const MAX_ROUTES: u64 = 1 << 22;

/// Routes worked out at most for a run's summary (512 ranks of uniform traffic).
pub(crate) const IN_A_RUN: u64 = 1 << 18;

/// Draws per pair where the routing may take several routes.
pub(crate) const SAMPLES: u32 = 8;

/// The bound of traffic `spec` of job `job` (its first global rank `base`, `n` ranks) on the
/// network of `s`: the highest offered load, and the channel that sets it in words (with
/// its load per unit of offered load); None when there are too many routes to work out or
/// nothing is sent.
pub(crate) fn ideal(
    s: &Scenario,
    spec: &Spec,
    job: usize,
    base: u32,
    n: u32,
) -> Option<(f64, String)> {
    ideal_within(s, spec, job, base, n, MAX_ROUTES)
}

/// [`ideal`], working out at most `most` routes.
pub(crate) fn ideal_within(
    s: &Scenario,
    spec: &Spec,
    job: usize,
    base: u32,
    n: u32,
    most: u64,
) -> Option<(f64, String)> {
    let nodes = crate::node::Nodes::new(s);
    let k = nodes.nics_per_node;
    let samples = if s.topo.multipath() { SAMPLES } else { 1 };
    // (how many routes: the pairs of a random pattern are every rank's)
    let pairs: u64 = (0..n)
        .map(|r| spec.pattern.spread(r, n, spec.to_self).len() as u64)
        .sum();
    if pairs.saturating_mul(k as u64 * samples as u64) > most {
        return None;
    }
    let seed = s.jobs.get(job).map_or(0, |j| j.workload.seed);
    let mut net = Network::new(&s.topo, &s.network, &s.node, s.power.as_ref(), seed, false);
    let mut sharers = std::collections::HashMap::new();
    for r in base..base + n {
        *sharers.entry(nodes.rank_node[r as usize]).or_insert(0u32) += 1;
    }
    // bytes per second each channel carries at an offered load of 1
    let mut load = vec![0f64; net.channels()];
    for r in 0..n {
        let g = base + r;
        let share = spec.pattern.share(r, n, spec.to_self);
        if share == 0.0 {
            continue;
        }
        let rate = share * spec.nic_rate.0 as f64 / sharers[&nodes.rank_node[g as usize]] as f64;
        for (d, p) in spec.pattern.spread(r, n, spec.to_self) {
            for rail in 0..k {
                let (src, dst) = (nodes.nic(g, rail), nodes.nic(base + d, rail));
                for _ in 0..samples {
                    for c in net.path(src, dst, Time::ZERO) {
                        load[c as usize] += rate * p / samples as f64;
                    }
                }
            }
        }
    }
    let mut best: Option<(f64, u32)> = None;
    for (c, &l) in load.iter().enumerate() {
        if l > 0.0 {
            let b = net.channel_rate(c as u32).0 as f64 / l;
            if best.is_none_or(|(x, _)| b < x) {
                best = Some((b, c as u32));
            }
        }
    }
    let (b, c) = best?;
    let name = if net.link_channels().any(|x| x == c) {
        net.link_row(c, Time::ZERO).name()
    } else {
        format!("channel {c}")
    };
    let per_unit = net.channel_rate(c).0 as f64 / b / spec.nic_rate.0 as f64;
    let sampled = if samples > 1 {
        format!(", routes drawn {samples} times a pair")
    } else {
        String::new()
    };
    Some((
        b.min(1.0),
        format!("{name} carries {per_unit:.3} of a NIC's load{sampled}"),
    ))
}
