//! What a run predicts, and what it cost: the summary printed by `mgensim run` (text or
//! `--json`). Everything outside `host` is a pure function of the scenario and its seed.

use crate::config::Scenario;
use crate::event::Event;
use crate::net::router::LinkLoad;

use crate::part::View;
use serde::Serialize;
use std::collections::BTreeMap;

use std::time::Duration;

/// Min, mean and max of a per-rank quantity, in picoseconds.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Spread {
    /// Earliest, in ps.
    pub min: u64,
    /// Mean, in ps (rounded down).
    pub mean: u64,
    /// Latest, in ps.
    pub max: u64,
}

/// Router-to-router links crossed per data message (a message within a node crosses none).
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Hops {
    /// The mean over the data messages delivered.
    pub mean: f64,
    /// The most one of them crossed.
    pub max: u32,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
/// The ranks of a run: how many, which finished, and when.
pub struct RankSummary {
    /// Ranks in the run.
    pub count: u64,
    /// Ranks whose script ended (all of them, in a run that finished; in a run stopped early,
    /// by the stop: [`finished_by`]).
    pub finished: u64,
    /// When the finished ranks' scripts ended (all zero if none finished).
    pub finish_ps: Spread,
    /// The ranks that had not finished when the run stopped (a deadlock, a limit, an error),
    /// a script that ended past the stop among them (`running`): the first
    /// [`UNFINISHED_LISTED`] of them, in rank order.
    pub unfinished: Vec<Unfinished>,
}

/// Most unfinished ranks a report lists one by one (the count is always whole).
pub(crate) const UNFINISHED_LISTED: usize = 64;

/// A rank that had not finished when the run stopped.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Unfinished {
    /// Its global rank.
    pub rank: u32,
    /// Its name (`rank 15`, or `job b rank 3`).
    pub(crate) name: String,
    /// `failed` (its script raised the error that stopped the run), `blocked` (in a call that
    /// waits), `ready` (it was to go on, and had not yet) or `running` (stopped between calls,
    /// by a limit, or in a call that takes its time: computing at the stop).
    pub state: String,
    /// Its clock: when it blocked, for a blocked rank (ps); never past a limit's stop (a rank
    /// whose script ran ahead of it reads as it was then: `Part::cut_at`).
    pub since_ps: u64,
    /// What it waits for, in words, for a blocked rank; the error, for a failed one (with its
    /// line); else empty.
    pub waits_for: String,
    /// The script line it is at (`file:line`), where it could be told: for a rank that ran
    /// ahead of a stop the scripts could not foresee (an event limit, the wall clock, a
    /// signal), the line it had reached.
    pub at: String,
}

/// One job of several sharing the network.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct JobSummary {
    /// The job's name (`[[job]] name`, or `main`).
    pub name: String,
    /// Its ranks.
    pub(crate) ranks: u64,
    /// When its last rank finished: the job's predicted time. In a run stopped before every
    /// rank of the job finished, the stop's time (`partial`).
    pub predicted_time_ps: u64,
    /// Some rank of the job had not finished when the run stopped: `predicted_time_ps` is
    /// where the run stopped, not a prediction (left out of the summary when false).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
/// The network of a run and what crossed it.
pub struct NetworkSummary {
    /// Its family (`network.topology`).
    pub(crate) topology: String,
    /// The shape in words (`torus 8x8x8`, `fat tree of 24-port switches, 2 levels`, ...).
    pub(crate) shape: String,
    /// The routing's name (`dimension_order`, `ugal`, ...).
    pub(crate) routing: String,
    /// Mesh, torus, Tofu (the outer `x y z`), HyperX: routers per dimension; empty for other
    /// topologies.
    pub(crate) dims: Vec<u32>,
    /// Nodes (NIC ports divided by NICs per node).
    pub(crate) nodes: u64,
    /// Payload bytes delivered to memory.
    pub bytes: u64,
    /// Packets made (data and control).
    pub packets: u64,
    /// Packets whose payload reached memory (all of them, in a run that finished).
    pub packets_delivered: u64,
    /// Link traversals (one per packet per link, NIC links included).
    pub packet_hops: u64,
    /// Bytes (payload and headers) over all links.
    pub link_bytes: u64,
    /// Traversals of torus wrap-around links.
    pub wrap_hops: u64,
    /// Traversals of dragonfly global links.
    pub global_hops: u64,
    /// Packets UGAL routed through an intermediate group.
    pub nonminimal_packets: u64,
    /// Messages delivered (a put is two: its data and its control packet).
    pub messages: u64,
    /// Latency of the data messages delivered (puts' and gets' data, sends): from being handed
    /// to the source NIC (source queueing included) to the last byte in memory; None if none
    /// was delivered.
    pub message_latency_ps: Option<Spread>,
    /// Router-to-router links the data messages delivered crossed; None if none was
    /// delivered.
    pub message_hops: Option<Hops>,
    /// A mesh or torus whose ranks would cross fewer links placed as a grid: which grid, and
    /// the links per byte before and after (`probe/traffic.rs`).
    pub placement_hint: Option<crate::probe::traffic::PlacementHint>,
    /// Puts and gets issued.
    pub transfers: u64,
    /// Events processed.
    pub events: u64,
    /// Of those, how many of each kind (`channel_free`, `head_ready`, …): where an engine's
    /// work goes, for reading a run's cost. Kinds that never happened are left out.
    pub events_by_kind: BTreeMap<String, u64>,
    /// Time of the last event: when the network fell quiet.
    pub quiet_ps: u64,
    /// Link directions in the network (NIC links included).
    pub links: u64,
    /// NSIM's performance statistics over all link directions and the run's time (the later of
    /// the last rank's end and the last event): mean bandwidth of a link direction, in bytes
    /// per second, and mean utilization (busy time / run time, 0 to 1).
    pub(crate) average_link_bandwidth_bps: f64,
    /// Mean link utilization: busy time over the run's time, averaged over link directions (0 to 1).
    pub(crate) link_efficiency: f64,
    /// Time links spent idle with a packet waiting for credit (backpressure), summed (ps; at
    /// most 2^64 − 1, which only a run near the 2^63 ps end of time, with links blocked all
    /// along, would reach).
    pub credit_blocked_ps: u64,
    /// The flow model's work (`network.model = "flow"`): None for the packet model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flow_model: Option<FlowWork>,
}

/// What the flow model did: how many flows, and how many rates it recomputed (selective
/// update, docs/model.md §3a).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowWork {
    /// Messages that moved as flows (control messages are not flows).
    pub(crate) flows: u64,
    /// Recomputations of rates (one per picosecond at which flows started or ended).
    pub(crate) recomputes: u64,
    /// Flows whose rate was recomputed, summed over the recomputations.
    pub(crate) rates_recomputed: u64,
    /// The most flows one recomputation covered (the largest connected component).
    pub(crate) largest_component: u64,
}

pub(crate) use crate::part::Metric;

/// What the run cost on this machine; the only part that differs between two runs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct HostSummary {
    /// Wall-clock seconds the process took: setting up, the run, and (in the printed summary)
    /// writing the output folder; `summary.json` in the folder has it up to that folder.
    pub(crate) wall_s: f64,
    /// Wall-clock seconds of the simulation alone (the scripts and the network, from the first
    /// event to the report).
    pub(crate) run_s: f64,
    /// Events processed per wall-clock second of the simulation.
    pub(crate) events_per_s: f64,
    /// Packet-hops (channel traversals) per wall-clock second of the simulation.
    pub(crate) packet_hops_per_s: f64,
    /// Peak resident memory of the process (VmHWM), 0 where the OS does not say.
    pub(crate) peak_memory_bytes: u64,
    /// Memory of the Lua states at the end of the run.
    pub(crate) lua_memory_bytes: u64,
    /// How the run was simulated: threads, partitions, windows (they change how fast it ran,
    /// never what it predicts).
    #[serde(flatten)]
    pub execution: Execution,
    /// Most events pending at once, summed over the partitions (to within the queue's growth
    /// step).
    pub(crate) peak_pending_events: u64,
    /// Most packets in flight at once, summed over the partitions.
    pub(crate) peak_packets: u64,
}

/// One rank's figures (in the library's report, and a line of `ranks.csv`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct RankStats {
    /// Its job (index in the scenario) and its rank there, and its node.
    pub(crate) job: u32,
    /// Its number within its job.
    pub(crate) job_rank: u32,
    /// The node it ran on.
    pub node: u32,
    /// When its script ended (ps).
    pub finish_ps: u64,
    /// Payload bytes it sent (puts, gets it served, messages).
    pub bytes_sent: u64,
    /// Payload bytes it received.
    pub bytes_received: u64,
    /// Puts and messages sent.
    pub messages_sent: u64,
    /// Time spent in `MGEN_Comp`.
    pub compute_ps: u64,
    /// Time blocked in `MGEN_rdma_poll`, in `MGEN_acp_complete`, and in the message-passing
    /// waits.
    pub(crate) poll_wait_ps: u64,
    /// Time blocked in `MGEN_acp_complete` (ps).
    pub(crate) complete_wait_ps: u64,
    /// Time blocked in message-passing waits (ps).
    pub mpi_wait_ps: u64,
    /// Whether its script ended by the run's end (false: it was blocked or going when the run
    /// stopped, and `finish_ps` is its clock then; a script that ran ahead of the stop reads as
    /// it was at the stop, its clock the stop's).
    pub finished: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
/// The summary of a run: what it predicts, what crossed the network, and what the host spent.
pub struct Report {
    /// The scenario file, as given.
    pub scenario: String,
    /// True when the run stopped early (an error, a deadlock, a limit, Ctrl-C): the figures
    /// are those of the run so far.
    pub partial: bool,
    /// Why a run that stopped early stopped, as stderr says it after `error: SCENARIO: `
    /// (the deadlock with what each blocked rank waits for and what is there instead, the
    /// script's error, the limit); None for a run that finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    /// Whether the scripts ran in the sandbox (false with `--allow-io`).
    pub(crate) sandbox: bool,
    /// What the scripts left behind (puts never polled, messages never received, ...).
    pub warnings: Vec<String>,
    /// When the last rank finished.
    pub predicted_time_ps: u64,
    /// The ranks and when they finished.
    pub ranks: RankSummary,
    /// Every job's figures, in the order of the scenario.
    pub jobs: Vec<JobSummary>,
    /// The network and what crossed it.
    pub network: NetworkSummary,
    /// What bounded the run (compute, DMA, injection, a link, credit, the calls, waiting),
    /// when it could be told; the rule is in `report/bottleneck.rs`.
    pub bound: Option<Bound>,
    /// Values scripts reported with `MGEN_report`, by name.
    pub metrics: std::collections::BTreeMap<String, Metric>,
    /// What the host spent: wall time, events per second, memory.
    pub host: HostSummary,
    /// Every rank's figures, for tools using the library.
    #[serde(skip)]
    pub per_rank: Vec<RankStats>,
    /// What every link carried, for tools using the library.
    #[serde(skip)]
    pub per_link: Vec<crate::net::router::LinkLoad>,
    /// Where to draw each router (`topology/layout.rs`), for networks small enough to draw.
    #[serde(skip)]
    pub(crate) layout: Option<crate::topology::layout::Layout>,
    /// Every node's DMA engines and NIC links (a line of `nodes.csv` each).
    #[serde(skip)]
    pub per_node: Vec<NodeStats>,
    /// Energy of the links, with `[power]`.
    pub power: Option<PowerSummary>,
    /// Where the ranks' time went, per API call and region, if it was recorded (`--profile`):
    /// the largest total time first.
    pub profile: Option<Vec<crate::probe::profile::ProfileRow>>,
    /// The time series of the links, if it was recorded (`--interval`).
    #[serde(skip)]
    pub series: Option<SeriesTable>,
    /// The buffer history of the watched routers, if asked for (`--buffer-history`).
    #[serde(skip)]
    pub buffer_history: Option<Vec<crate::probe::history::Stay>>,
    /// Spans a bounded timeline left out, and the earliest time among them (ps).
    #[serde(skip)]
    pub(crate) trace_dropped: (u64, u64),
    /// The ranks' timeline as Chrome trace-event JSON, if it was recorded (`--trace`).
    #[serde(skip)]
    pub trace: Option<String>,
    /// What synthetic traffic measured, one entry per job that has some (`traffic/`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic: Option<Vec<crate::openloop::Summary>>,
}

/// The time series of the links: the windows where a link carried something or its buffer
/// held something (the others are all zero and left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeriesTable {
    /// Width of a window, in ps.
    pub width_ps: u64,
    /// Windows in the run.
    pub windows: u32,
    /// One row per link and window in which the link carried something or its buffer held something.
    pub rows: Vec<SeriesRow>,
    /// Whether it is written as CSV (false: recorded for `report.html` only).
    pub(crate) in_files: bool,
}

/// One link (index into [`Report::per_link`]) in one window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesRow {
    /// The link's line in `links.csv` (0 for the first).
    pub link: u32,
    /// The window's number (its start is `window × width_ps`).
    pub(crate) window: u32,
    /// What the link did in the window.
    pub counts: crate::probe::series::Window,
}

impl SeriesTable {
    fn new(w: &View<'_>) -> Option<SeriesTable> {
        let s = w.net.series.as_deref()?;
        let links: Vec<u32> = w.net.link_channels().collect();
        let mut rows = Vec::new();
        for win in 0..s.windows() {
            for (i, &c) in links.iter().enumerate() {
                let counts = *s.get(win, c as usize);
                if !counts.is_empty() {
                    rows.push(SeriesRow {
                        link: i as u32,
                        window: win as u32,
                        counts,
                    });
                }
            }
        }
        Some(SeriesTable {
            width_ps: s.width_ps(),
            windows: s.windows() as u32,
            rows,
            in_files: w.series_in_files,
        })
    }
}

impl Report {
    /// Rank `rank` (global; `who` as messages name it) failed at `time` with `error` (its first
    /// line names the script line): it is listed first among the unfinished ranks, as failed,
    /// with that line.
    pub(crate) fn mark_failed(
        &mut self,
        rank: u32,
        who: &str,
        time: crate::units::Time,
        error: &str,
    ) {
        let list = &mut self.ranks.unfinished;
        let mut u = match list.iter().position(|u| u.rank == rank) {
            Some(i) => list.remove(i),
            None => Unfinished {
                rank,
                name: who.to_string(),
                state: String::new(),
                since_ps: 0,
                waits_for: String::new(),
                at: String::new(),
            },
        };
        u.state = "failed".to_string();
        u.since_ps = time.ps();
        u.waits_for = error.lines().next().unwrap_or("").to_string();
        // (the error's own line says where it is)
        u.at.clear();
        list.insert(0, u);
        list.truncate(UNFINISHED_LISTED);
    }

    /// The summary of partition `w` (the whole run, gathered) for scenario `s`, after `wall` of wall-clock time with
    /// `lua_memory` bytes of Lua heap; `unfinished` lists the ranks that had not finished (the
    /// first [`UNFINISHED_LISTED`] of them) and `stop_ps` is when the run stopped (its end,
    /// for a run that finished). A rank finished if its script ended by then
    /// ([`finished_by`]); a job whose ranks did not all finish is given `stop_ps`, marked
    /// partial. `per_link` is the network's link table at `stop_ps`, made before
    /// (`Network::take_link_loads`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        s: &Scenario,
        w: &View<'_>,
        wall: Duration,
        lua_memory: usize,
        unfinished: Vec<Unfinished>,
        stop_ps: u64,
        per_link: Vec<LinkLoad>,
    ) -> Report {
        let finish: Vec<u64> = w.ranks.iter().map(|r| r.clock.ps()).collect();
        let ended: Vec<u64> = w
            .ranks
            .iter()
            .filter(|r| finished_by(r, stop_ps))
            .map(|r| r.clock.ps())
            .collect();
        let n = ended.len().max(1) as u128;
        let spread = Spread {
            min: ended.iter().copied().min().unwrap_or(0),
            mean: (ended.iter().map(|&f| f as u128).sum::<u128>() / n) as u64,
            max: ended.iter().copied().max().unwrap_or(0),
        };
        let predicted = finish.iter().copied().max().unwrap_or(0);
        let wall_s = wall.as_secs_f64();
        let per_s = |x: u64| if wall_s > 0.0 { x as f64 / wall_s } else { 0.0 };
        Report {
            scenario: s.path.display().to_string(),
            partial: false,
            stop: None,
            sandbox: !s.allow_io,
            // (what reading the scenario left out comes first)
            warnings: s.notes.clone(),
            predicted_time_ps: predicted,
            ranks: RankSummary {
                count: finish.len() as u64,
                finished: ended.len() as u64,
                finish_ps: spread,
                unfinished,
            },
            jobs: w
                .nodes
                .jobs
                .iter()
                .map(|j| {
                    let ranks = j.base as usize..(j.base + j.size) as usize;
                    let partial = !w.ranks[ranks.clone()]
                        .iter()
                        .all(|r| finished_by(r, stop_ps));
                    JobSummary {
                        name: j.name.clone(),
                        ranks: j.size as u64,
                        predicted_time_ps: if partial {
                            stop_ps
                        } else {
                            finish[ranks].iter().copied().max().unwrap_or(0)
                        },
                        partial,
                    }
                })
                .collect(),
            network: NetworkSummary::of(s, w),
            metrics: w.metrics.clone(),
            host: HostSummary {
                wall_s,
                run_s: wall_s,
                events_per_s: per_s(w.events),
                packet_hops_per_s: per_s(w.net.stats.packet_hops),
                peak_memory_bytes: peak_memory(),
                lua_memory_bytes: lua_memory as u64,
                execution: Execution::default(),
                peak_pending_events: w.peak_events,
                peak_packets: w.net.peak_packets(),
            },
            per_rank: rank_stats(w, stop_ps),
            per_link,
            per_node: Vec::new(),
            layout: s.topo.layout(),
            bound: None,
            power: None,
            series: SeriesTable::new(w),
            traffic: w
                .traffic
                .map(|t| crate::openloop::report(s, t, w.now.ps(), w.net)),
            buffer_history: w.net.history.as_ref().map(|h| h.rows.clone()),
            trace_dropped: w.trace.as_ref().map_or((0, 0), |t| t.dropped()),
            profile: w.profile.as_ref().map(|p| p.rows(finish.iter().sum())),
            trace: trace_json(w, stop_ps),
        }
        .with_link_averages(stop_ps)
        .with_power(s.power.as_ref())
        .with_nodes(w)
    }

    fn with_nodes(mut self, w: &View<'_>) -> Report {
        let mut ranks = vec![0u32; self.network.nodes as usize];
        for &n in &w.nodes.rank_node {
            if let Some(c) = ranks.get_mut(n as usize) {
                *c += 1;
            }
        }
        self.per_node = bottleneck::node_stats(
            w.nics.dma_busy(),
            &self.per_link,
            w.nodes.nics_per_node,
            &ranks,
        );
        self.bound = self.find_bound();
        self
    }

    fn with_power(mut self, cfg: Option<&crate::config::PowerConfig>) -> Report {
        if let Some(cfg) = cfg {
            self.power = Some(PowerSummary::new(cfg, &self.per_link, self.span_ps()));
        }
        self
    }

    /// Sets `host` for a process that has run `wall` so far: its wall time and its peak memory
    /// now (the rates stay those of the simulation).
    pub fn measure_host(&mut self, wall: Duration) {
        self.host.wall_s = wall.as_secs_f64().max(self.host.run_s);
        self.host.peak_memory_bytes = peak_memory();
    }

    /// The run's time for rates: the later of the last rank's end and the last event.
    pub(crate) fn span_ps(&self) -> u64 {
        self.predicted_time_ps.max(self.network.quiet_ps)
    }

    /// The links' averages over the run's time, or up to `stop_ps` where the run went on
    /// to a later stop (a limit at a time no event reached: the utilization of each link
    /// in `links.csv` is over the same span).
    fn with_link_averages(mut self, stop_ps: u64) -> Report {
        let n = self.per_link.len() as u64;
        let span = self.span_ps().max(stop_ps);
        let net = &mut self.network;
        net.links = n;
        net.credit_blocked_ps = self
            .per_link
            .iter()
            .fold(0, |s, l| s.saturating_add(l.credit_blocked.ps()));
        if n > 0 && span > 0 {
            // (in 128 bits: each link's busy time may be near the 2^63 ps end of time)
            let busy: u128 = self.per_link.iter().map(|l| l.busy.ps() as u128).sum();
            net.link_efficiency = busy as f64 / (n as f64 * span as f64);
            net.average_link_bandwidth_bps =
                net.link_bytes as f64 * 1e12 / (n as f64 * span as f64);
        }
        self
    }
}

impl NetworkSummary {
    /// What the network of scenario `s` did in partition `w` (the whole run, gathered); the
    /// links' averages are filled in by [`Report::with_link_averages`].
    fn of(s: &Scenario, w: &View<'_>) -> NetworkSummary {
        NetworkSummary {
            topology: s.topo.name().to_string(),
            shape: s.topo.describe(),
            routing: s.topo.routing().to_string(),
            dims: s.topo.dims(),
            nodes: s.nodes(),
            bytes: w.nics.stats.payload_bytes,
            packets: w.nics.stats.packets,
            packets_delivered: w.nics.stats.packets_delivered,
            packet_hops: w.net.stats.packet_hops,
            link_bytes: w.net.stats.link_bytes,
            wrap_hops: w.net.stats.wrap_hops,
            global_hops: w.net.stats.global_hops,
            nonminimal_packets: w.net.stats.nonminimal,
            messages: w.nics.stats.messages,
            message_latency_ps: {
                let st = &w.nics.stats;
                (st.data_messages > 0).then(|| Spread {
                    min: st.latency_min_ps,
                    mean: (st.latency_sum_ps / st.data_messages as u128) as u64,
                    max: st.latency_max_ps,
                })
            },
            placement_hint: placement_hint(w),
            message_hops: {
                let st = &w.nics.stats;
                (st.data_messages > 0).then(|| Hops {
                    mean: st.hops_sum as f64 / st.data_messages as f64,
                    max: st.hops_max,
                })
            },
            transfers: w.rdma.issued,
            events: w.events,
            events_by_kind: Event::KINDS
                .iter()
                .zip(w.events_by_kind)
                .filter(|&(_, n)| n > 0)
                .map(|(k, n)| (k.to_string(), n))
                .collect(),
            quiet_ps: w.now.ps(),
            links: 0,
            average_link_bandwidth_bps: 0.0,
            link_efficiency: 0.0,
            credit_blocked_ps: 0,
            flow_model: w.flows.map(|f| FlowWork {
                flows: f.stats.flows,
                recomputes: f.stats.recomputes,
                rates_recomputed: f.stats.recomputed,
                largest_component: f.stats.largest,
            }),
        }
    }
}

/// Each rank's figures (`ranks.csv`), in rank order.
/// Whether rank `r`'s script had ended by `stop_ps`, when the run stopped (ps). A rank whose
/// script ended at a clock past the stop was still going at the stop: computing ahead (the
/// engine runs a script on until it must wait), or, as synthetic traffic's generators do,
/// sitting at the end of its traffic from the start.
pub(crate) fn finished_by(r: &crate::rank::Rank, stop_ps: u64) -> bool {
    r.status == crate::rank::Status::Done && r.clock.ps() <= stop_ps
}

/// Every rank's figures; `finished` if its script ended by `stop_ps` ([`finished_by`]).
fn rank_stats(w: &View<'_>, stop_ps: u64) -> Vec<RankStats> {
    w.ranks
        .iter()
        .map(|r| RankStats {
            job: w.nodes.job_index(r.id),
            job_rank: r.id - w.nodes.job(r.id).base,
            node: w.nodes.rank_node[r.id as usize],
            poll_wait_ps: r.waited[0].ps(),
            complete_wait_ps: r.waited[1].ps(),
            mpi_wait_ps: r.waited[2].ps(),
            finish_ps: r.clock.ps(),
            bytes_sent: r.bytes_sent,
            bytes_received: r.bytes_received,
            messages_sent: r.messages_sent,
            compute_ps: r.compute.ps(),
            finished: finished_by(r, stop_ps),
        })
        .collect()
}

/// The ranks' timeline as Chrome trace-event JSON, if it was recorded: regions still open on
/// an unfinished rank run to the stop, `stop_ps`.
fn trace_json(w: &View<'_>, stop_ps: u64) -> Option<String> {
    let done = |r: &crate::rank::Rank| r.status == crate::rank::Status::Done;
    w.trace.as_ref().map(|t| {
        let tracks: Vec<crate::probe::trace::Track> = w
            .nodes
            .jobs
            .iter()
            .map(|j| crate::probe::trace::Track {
                name: &j.name,
                base: j.base,
                size: j.size,
            })
            .collect();
        // (regions still open on an unfinished rank run to the stop)
        t.to_json(&tracks, |r| {
            let rank = &w.ranks[r as usize];
            if done(rank) {
                rank.clock.ps()
            } else {
                rank.clock.ps().max(stop_ps)
            }
        })
    })
}

/// Peak resident set size of this process, from /proc (Linux); 0 elsewhere.
pub(crate) fn peak_memory() -> u64 {
    crate::host::proc_bytes("/proc/self/status", "VmHWM:").unwrap_or(0)
}

mod bottleneck;
mod execution;
mod power;
pub(crate) use execution::units;
pub(crate) use execution::{Execution, WindowStats};
pub(crate) use power::PowerSummary;
pub(crate) mod html;
pub(crate) mod text;
pub(crate) use html::page as html_page;
pub(crate) use text::escaped;

pub(crate) use bottleneck::{Bound, NodeStats};

/// The placement hint of a run on a mesh or torus whose one job has one rank per node and
/// whose traffic was counted in full.
fn placement_hint(w: &View<'_>) -> Option<crate::probe::traffic::PlacementHint> {
    let t = w.nics.traffic.as_deref().filter(|t| !t.overflowed)?;
    let (dims, wrap) = w.net.topo.grid()?;
    let nodes = &w.nodes;
    let mut rank_of_node = vec![u32::MAX; w.net.topo.routers() as usize];
    for (r, &n) in nodes.rank_node.iter().enumerate() {
        let slot = rank_of_node.get_mut(n as usize)?;
        if *slot != u32::MAX {
            return None; // two ranks on a node
        }
        *slot = r as u32;
    }
    let k = nodes.nics_per_node.max(1);
    let pairs: Vec<(u32, u32, u64)> = t
        .pairs()
        .filter_map(|(s, d, b)| {
            let (rs, rd) = (
                rank_of_node[(s / k) as usize],
                rank_of_node[(d / k) as usize],
            );
            (rs != u32::MAX && rd != u32::MAX).then_some((rs, rd, b))
        })
        .collect();
    let mut hint = crate::probe::traffic::placement_hint(&pairs, &nodes.rank_node, &dims, &wrap)?;
    hint.sampled = t.sampled();
    Some(hint)
}
