//! What bounded a run: each node's DMA engines and NIC links, the busiest routers, and the one
//! line that names the bound.
//!
//! **The rule** (all figures over the whole run, `span` = [`Report::span_ps`]):
//!
//! 1. *compute* — the critical rank (the last to finish, the lowest on a tie) spent at least
//!    half of the predicted time in `MGEN_Comp`;
//! 2. otherwise the busiest resource, if it was busy at least half the run: a node's
//!    *transmit DMA* or *receive DMA* engine (moving payload between memory and the NIC),
//!    its *injection* link (NIC → router) or *ejection* link (router → NIC), or a *link*
//!    between routers;
//! 3. otherwise *credit*: a link direction sat idle with a packet waiting for credit (its next
//!    buffer full) at least a quarter of the run;
//! 4. otherwise *calls*: the critical rank spent at least half the run inside the calls
//!    themselves (a put's node latency, a send's overhead and copy);
//! 5. otherwise *waiting*: nothing was busy for long and the ranks mostly waited for each
//!    other: the time is latency (hops, node latency, the order of dependencies), not
//!    bandwidth.
//!
//! A run whose phases differ (a compute phase, then a DMA-bound exchange) is judged over its
//! whole length; the time series (`--interval`, the heat map) shows the phases.

use super::Report;
use crate::units::Time;
use serde::Serialize;

/// One node's NICs over the run: a line of `nodes.csv`. With several NICs per node, the busy
/// times are summed over them.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct NodeStats {
    /// The node.
    pub(crate) node: u32,
    /// Its NICs.
    pub nics: u32,
    /// Ranks placed on it.
    pub ranks: u32,
    /// Time its transmit DMA engines spent reading payload from memory (ps; this and the other
    /// times summed over a node's NICs are at most 2^64 − 1, reached only near the 2^63 ps end
    /// of time).
    pub tx_dma_busy_ps: u64,
    /// Time its receive DMA engines spent writing payload to memory (ps).
    pub rx_dma_busy_ps: u64,
    /// Time its injection links (NIC → router) spent sending (ps).
    pub injection_busy_ps: u64,
    /// Time its ejection links (router → NIC) spent sending (ps).
    pub ejection_busy_ps: u64,
    /// Bytes (payload and headers) its NICs injected.
    pub injected_bytes: u64,
    /// Bytes (payload and headers) delivered to its NICs.
    pub(crate) ejected_bytes: u64,
}

impl NodeStats {
    /// `busy` as a share of its NICs' time over a run of `span_ps` (0 to 1; a transfer still
    /// going at the stop can make it reach 1).
    pub(crate) fn utilization(&self, busy: u64, span_ps: u64) -> f64 {
        let whole = self.nics as u64 * span_ps;
        if whole == 0 {
            0.0
        } else {
            (busy as f64 / whole as f64).min(1.0)
        }
    }

    /// Its resources by name with their busy times: transmit DMA, receive DMA, injection,
    /// ejection.
    pub(crate) fn resources(&self) -> [(&'static str, u64); 4] {
        [
            ("transmit DMA", self.tx_dma_busy_ps),
            ("receive DMA", self.rx_dma_busy_ps),
            ("injection link", self.injection_busy_ps),
            ("ejection link", self.ejection_busy_ps),
        ]
    }

    /// Its busiest resource: name and busy time.
    pub(crate) fn busiest(&self) -> (&'static str, u64) {
        // (the first of equals: the DMA engine before the link it feeds)
        first_max(self.resources().into_iter(), |r| r.1).unwrap_or(("transmit DMA", 0))
    }
}

/// What bounded the run, by the rule of this module.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Bound {
    /// `compute`, `dma`, `injection`, `ejection`, `link`, `credit`, `calls` or `waiting`.
    pub kind: String,
    /// The evidence, in words.
    pub reason: String,
}

/// One router's output ports over the run (router → router and router → NIC links).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RouterLoad {
    /// The router.
    pub(crate) router: u32,
    /// Its output ports that carried a link.
    pub(crate) ports: u32,
    /// Busy time summed over them (ps; at most 2^64 − 1, reached only near the 2^63 ps end of
    /// time).
    pub(crate) busy_ps: u64,
    /// Time idle with a packet waiting for credit, summed over them (ps; at most 2^64 − 1, as
    /// `busy_ps`).
    pub(crate) credit_blocked_ps: u64,
}

impl Report {
    /// Every router's output ports, summed, in router order.
    pub(crate) fn router_loads(&self) -> Vec<RouterLoad> {
        let routers = self
            .per_link
            .iter()
            .filter(|l| l.port.is_some())
            .map(|l| l.from + 1)
            .max()
            .unwrap_or(0);
        let mut out: Vec<RouterLoad> = (0..routers)
            .map(|router| RouterLoad {
                router,
                ..RouterLoad::default()
            })
            .collect();
        for l in self.per_link.iter().filter(|l| l.port.is_some()) {
            let r = &mut out[l.from as usize];
            r.ports += 1;
            r.busy_ps = r.busy_ps.saturating_add(l.busy.ps());
            r.credit_blocked_ps = r.credit_blocked_ps.saturating_add(l.credit_blocked.ps());
        }
        out
    }

    /// What bounded the run, or None for a run with no time or no ranks.
    pub(super) fn find_bound(&self) -> Option<Bound> {
        let t = self.predicted_time_ps;
        let span = self.span_ps();
        // (synthetic traffic runs for its windows: its figures are the loads it accepted)
        if t == 0 || span == 0 || self.per_rank.is_empty() || self.traffic.is_some() {
            return None;
        }
        let pct = |x: u64, of: u64| 100.0 * x as f64 / of.max(1) as f64;
        // the critical rank: the last to finish, the lowest on a tie
        let (crit, c) = first_max(self.per_rank.iter().enumerate(), |(_, r)| r.finish_ps)?;
        // (in a run stopped early, the latest rank may have been still going at the stop)
        let who = |i: usize| {
            let r = &self.per_rank[i];
            let rank = match self.jobs.len() {
                1 => format!("rank {}", r.job_rank),
                _ => format!("job {} rank {}", self.jobs[r.job as usize].name, r.job_rank),
            };
            match r.finished {
                true => format!("{rank} (the last to finish)"),
                false => format!("{rank} (still going at the stop)"),
            }
        };
        if 2 * c.compute_ps >= c.finish_ps {
            return Some(Bound {
                kind: "compute".into(),
                reason: format!(
                    "{} spent {:.1} % of its time in MGEN_Comp",
                    who(crit),
                    pct(c.compute_ps, c.finish_ps)
                ),
            });
        }
        // the busiest NIC-side resource and the busiest link between routers
        let node = first_max(
            self.per_node.iter().map(|n| {
                let (what, busy) = n.busiest();
                (n.utilization(busy, span), n.node, what)
            }),
            |n| n.0,
        );
        let link = first_max(
            self.per_link
                .iter()
                .filter(|l| l.port.is_some() && !l.to_nic),
            |l| l.busy,
        );
        let link_u = link.map_or(0.0, |l| (l.busy.ps() as f64 / span as f64).min(1.0));
        let node_u = node.map_or(0.0, |n| n.0);
        let context = format!(
            "the busiest NIC-side resource {:.1} %, the busiest link between routers {:.1} %",
            100.0 * node_u,
            100.0 * link_u
        );
        if node_u.max(link_u) >= 0.5 {
            if let (Some((u, n, what)), true) = (node, node_u >= link_u) {
                let kind = match what {
                    "transmit DMA" | "receive DMA" => "dma",
                    "injection link" => "injection",
                    _ => "ejection",
                };
                return Some(Bound {
                    kind: kind.into(),
                    reason: format!(
                        "node {n}'s {what} was busy {:.1} % of the run (the busiest link \
                         between routers {:.1} %)",
                        100.0 * u,
                        100.0 * link_u
                    ),
                });
            }
            if let Some(l) = link {
                return Some(Bound {
                    kind: "link".into(),
                    reason: format!(
                        "{} was busy {:.1} % of the run (the busiest NIC-side resource {:.1} %)",
                        l.name(),
                        100.0 * link_u,
                        100.0 * node_u
                    ),
                });
            }
        }
        let blocked = first_max(self.per_link.iter(), |l| l.credit_blocked);
        if let Some(l) = blocked.filter(|l| 4 * l.credit_blocked.ps() >= span) {
            let name = l.name();
            return Some(Bound {
                kind: "credit".into(),
                reason: format!(
                    "{name} waited {} for credit ({:.1} % of the run): the buffers after it \
                     were full ({context})",
                    Time(l.credit_blocked.ps()),
                    pct(l.credit_blocked.ps(), span)
                ),
            });
        }
        let waited = c.poll_wait_ps + c.complete_wait_ps + c.mpi_wait_ps;
        let calls = c.finish_ps.saturating_sub(c.compute_ps + waited);
        if 2 * calls >= c.finish_ps {
            return Some(Bound {
                kind: "calls".into(),
                reason: format!(
                    "{} spent {:.1} % of its time in the calls themselves \
                     (node latency of puts and gets, send overheads and copies; {context})",
                    who(crit),
                    pct(calls, c.finish_ps)
                ),
            });
        }
        Some(Bound {
            kind: "waiting".into(),
            reason: format!(
                "{} spent {:.1} % of its time blocked while nothing was \
                 busy for long ({context}): the time is latency (hops, node latency, the chain \
                 of dependencies between ranks), not bandwidth",
                who(crit),
                pct(waited, c.finish_ps)
            ),
        })
    }
}

/// The first item with the largest key (later equals do not displace it), or None if there
/// are none.
fn first_max<T, K: PartialOrd>(items: impl Iterator<Item = T>, key: impl Fn(&T) -> K) -> Option<T> {
    items.reduce(|best, x| if key(&x) > key(&best) { x } else { best })
}

/// Every node's NIC figures from the NICs' DMA busy times (`dma`, in NIC order) and the
/// links, with `per_node` NICs per node and `ranks` placed per node.
pub(super) fn node_stats(
    dma: impl Iterator<Item = (u64, u64)>,
    links: &[crate::net::router::LinkLoad],
    per_node: u32,
    ranks: &[u32],
) -> Vec<NodeStats> {
    let per_node = per_node.max(1);
    let mut out: Vec<NodeStats> = Vec::new();
    for (nic, (tx, rx)) in dma.enumerate() {
        let node = nic as u32 / per_node;
        if out.len() <= node as usize {
            out.push(NodeStats {
                node,
                nics: 0,
                ranks: ranks.get(node as usize).copied().unwrap_or(0),
                tx_dma_busy_ps: 0,
                rx_dma_busy_ps: 0,
                injection_busy_ps: 0,
                ejection_busy_ps: 0,
                injected_bytes: 0,
                ejected_bytes: 0,
            });
        }
        let n = &mut out[node as usize];
        n.nics += 1;
        n.tx_dma_busy_ps = n.tx_dma_busy_ps.saturating_add(tx);
        n.rx_dma_busy_ps = n.rx_dma_busy_ps.saturating_add(rx);
    }
    for l in links {
        let nic = match (l.port, l.to_nic) {
            (None, _) => l.from,
            (Some(_), true) => l.to,
            _ => continue,
        };
        if let Some(n) = out.get_mut((nic / per_node) as usize) {
            if l.port.is_none() {
                n.injection_busy_ps = n.injection_busy_ps.saturating_add(l.busy.ps());
                n.injected_bytes += l.bytes;
            } else {
                n.ejection_busy_ps = n.ejection_busy_ps.saturating_add(l.busy.ps());
                n.ejected_bytes += l.bytes;
            }
        }
    }
    out
}
