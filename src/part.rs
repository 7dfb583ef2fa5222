//! One partition of the run ([`Part`]): what its handlers act on and nothing else — its share
//! of the network, of the NICs, of the RDMA and message layers and of the ranks, its own event
//! queue, what it records, and its outbox to the other partitions (`partition.rs`, `cut.rs`);
//! the operations the API calls on it (a transfer issued, a metric reported), and the dispatch
//! of each event to the component it concerns. The loop that alternates between events and
//! ranks, window by window, is the engine's (`engine/mod.rs`); what a script may call is the
//! script layer's (`script/api.rs`), which acts on its rank's partition through these
//! operations. What stays global (the jobs, the limits' clock and flag, the reduction of the
//! statistics) is read-only here or gathered by the engine when no partition runs.

use crate::config::Scenario;
use crate::cut::{Mail, Pool as CutPool};
use crate::event::Event;
use crate::limits::{Limit, Watch, CHECK_EVERY};
use crate::mpi::Mpi;
use crate::net::Network;
use crate::nic::{Arrival, MsgKind, Nics};
use crate::node::Nodes;
use crate::partition::Partitioning;
use crate::probe::profile::Api;
use crate::probe::trace::{Trace, What};
use crate::random::Xoshiro;
use crate::rank::{Rank, Ranks, Wait};
use crate::rdma::{OpKind, Rdma};
use crate::sim::EventQueue;
use crate::units::Time;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How many events ahead the engine prefetches the state an event reads first (its channel or
/// packet), then what that state points to (the packets queued on the channel, the channel the
/// event gives credit back to), and last what that points to in turn (that channel's queued
/// packets): far enough for a memory access to complete, near enough that the line is still in
/// cache. Each stage reads only lines the stage before asked for.
const PREFETCH_FAR: usize = 8;
const PREFETCH_NEAR: usize = 4;
const PREFETCH_CLOSE: usize = 2;

/// The prefetch stages run only once the network's state ([`Network::footprint`]: its
/// channels, and the most packets it has held at once) is larger than this many bytes; below
/// it the state stays in the caches and the stages are pure cost (the measurements behind the
/// threshold: `docs/performance.md`). The stages change what is in the cache, never what the
/// run computes.
const PREFETCH_ABOVE: usize = 4 << 20;

/// One partition's state: everything its events and its ranks' calls may touch.
pub struct Part {
    /// Which partition this is (`partition.rs`).
    pub id: u16,
    /// The most bytes one transfer may move: what the run's slowest rate (DMA, memory, a
    /// link or crossbar) moves in [`crate::units::LONGEST_TRANSFER`], so that no time a
    /// transfer's own bytes take can pass what 64 bits of picoseconds hold.
    pub(crate) max_bytes: u64,
    /// Time of the event being processed.
    pub now: Time,
    /// The end of the window being simulated (ps): nothing at or after it is processed until
    /// the engine moves it (`engine/mod.rs`).
    pub(crate) until: u64,
    pub queue: EventQueue<Event>,
    pub net: Network,
    pub nics: Nics,
    pub rdma: Rdma,
    pub mpi: Mpi,
    /// Every rank; this partition changes only its own (`mine`).
    pub(crate) ranks: Ranks,
    /// Which partition owns each rank (for the debug checks of `ranks`).
    #[allow(dead_code)] // (kept alive: the ranks' debug checks point into it)
    rank_owner: Arc<[u16]>,
    /// The ranks this partition owns, in order.
    pub mine: Vec<u32>,
    /// Where ranks run and which job they belong to.
    pub nodes: Arc<Nodes>,
    /// The rank whose script is running (the API acts for it).
    pub current: u32,
    node_latency: Time,
    /// Events processed.
    pub events: u64,
    /// Of those, how many of each kind (indexed by [`Event::kind`]).
    pub events_by_kind: [u64; Event::KINDS.len()],
    /// Ranks whose script has ended.
    pub finished: u32,
    /// Values scripts reported with `MGEN_report`, by name.
    pub metrics: BTreeMap<String, Metric>,
    /// Limits and Ctrl-C, and the stop once there is one.
    pub watch: Watch,
    /// Event count at which `advance` next hands control back for a look at the limits.
    pub(crate) checkpoint: u64,
    /// Event count at which to start Valgrind's instrumentation (`bench/cachesim --skip`).
    #[cfg(feature = "valgrind")]
    instr_at: u64,
    /// Set if an event ever came out of the queue earlier than the one before (a bug).
    pub(crate) time_went_back: Option<(Time, Time)>,
    /// The time of the first event found past [`Time::HORIZON`] (the run stops there: no
    /// later time is held).
    pub(crate) past_horizon: Option<Time>,
    /// Check, whenever time moves on, that no link sat idle with a packet it could send
    /// ([`Simulation::self_check`]); what the first such link was.
    pub(crate) self_check: bool,
    pub(crate) stalled: Option<String>,
    /// The prefetch stages run, and the network writes its queues' links late
    /// ([`PREFETCH_ABOVE`]); looked at with the limits.
    pub(crate) prefetching: bool,
    /// Both forced on or off for the whole run ([`Simulation::cache_tactics`]).
    pub(crate) tactics: Option<bool>,
    /// Whether the time series is written as CSV (false: recorded for `report.html` only).
    pub series_in_files: bool,
    /// What a rank wrote with `io.write` after its last line end: `(rank, its clock when
    /// the line began, text)`, written with the rest of its line ([`Part::say`]).
    pub(crate) unsaid: Option<(u32, Time, String)>,
    /// The ranks' timeline, when asked for (`--trace`).
    pub trace: Option<Box<Trace>>,
    /// Where the ranks' time went, per call and region, when asked for (`--profile`).
    pub profile: Option<Box<crate::probe::profile::Profile>>,
    /// The traces ranks replay (`MGEN_trace_open`).
    pub replays: crate::replay::Replays,
    /// The synthetic traffic of this partition's NICs (`traffic/`), if a job has some.
    pub traffic: Option<Box<crate::openloop::Traffic>>,
    /// Most events the partitions this one gathered held pending at once, summed.
    peak_events: u64,
    /// This partition reads every rank and channel (see [`Part::become_whole`]).
    whole: bool,
}

/// What [`Part::advance`] stopped at.
pub(crate) enum Next {
    /// A rank is due to resume.
    Wake(u32),
    /// Time to look at the limits.
    Checkpoint,
    /// No event is left.
    Idle,
}

impl Part {
    /// The whole run as one partition (for tests of the model alone).
    #[cfg(test)]
    pub(crate) fn new(s: &Scenario) -> Part {
        Part::build(s, Some(1), 1).0.remove(0)
    }

    /// The run cut into `count` partitions for `threads` threads (when `None`, the network's
    /// default, `partition::default_count`; no more than the threads, whose partitions would
    /// run as one, unless `engine.separate_partitions`; one when the model cannot be cut: the
    /// flow model, or hops between routers that take no time), each with its share of the
    /// state (`partition.rs`).
    pub(crate) fn build(
        s: &Scenario,
        count: Option<u32>,
        threads: u32,
    ) -> (Vec<Part>, Partitioning) {
        let seed = s.jobs.first().map_or(0, |j| j.workload.seed);
        let net = Network::new(&s.topo, &s.network, &s.node, s.power.as_ref(), seed);
        let nodes = Arc::new(Nodes::new(s));
        let ranks: Vec<Rank> = nodes
            .jobs
            .iter()
            .flat_map(|j| {
                let rng = Xoshiro::from_seed(j.seed);
                (j.base..j.base + j.size).map(move |i| Rank::new(i, rng))
            })
            .collect();
        let nranks = ranks.len();
        // two messages between one pair may take different paths: restore MPI's order
        let reorder = net.topo.multipath() || s.node.nics_per_node > 1;
        let mut nics = Nics::new(
            net.topo.terminals(),
            nodes.nics_per_node,
            s.node.dma_rate(),
            s.network.mtu,
            s.network.header_bytes,
            s.node.dma == crate::config::DmaMode::CutThrough,
        );
        // (the placement hint of a mesh or torus: one job, one rank per node)
        if net.topo.grid().is_some()
            && nodes.jobs.len() == 1
            && nranks <= crate::probe::traffic::MAX_HINT_RANKS
        {
            nics.traffic = Some(Box::new(crate::probe::traffic::Traffic::new(
                net.topo.terminals(),
            )));
        }
        let flow = s.network.model == crate::config::NetworkModel::Flow;
        if flow {
            nics.flow = Some(Box::new(crate::net::flow::FlowNet::new(
                &net,
                net.topo.terminals(),
                s.node.dma_rate(),
                s.node.dma == crate::config::DmaMode::CutThrough,
                s.network.mtu,
                s.network.header_bytes,
            )));
        }
        let cuttable = !flow && net.epoch().is_some();
        // (a thread runs the partitions it is given as one, unless they are to stay apart)
        let count = match count {
            _ if !cuttable => 1,
            Some(n) if s.engine.separate_partitions => n,
            Some(n) => n.min(threads.max(1)),
            None => crate::partition::default_count(&net.topo, threads),
        };
        let mut parts = Partitioning::new(&net.topo, nodes.nics_per_node, &nodes.rank_node, count);
        if !cuttable {
            parts.whole_because = Some(if flow {
                "the flow model is simulated as one partition"
            } else {
                "a hop between routers that takes no time keeps the network whole"
            });
        }
        let n = parts.count;
        let mpi = Mpi::new(
            s.node.eager_limit,
            s.node.mpi_overhead,
            s.node.memory_bandwidth,
            reorder,
            nranks,
        );
        let ranks = Ranks::new(ranks);
        let rank_owner: Arc<[u16]> = parts.rank.clone().into();
        let slowest = net
            .slowest_link()
            .min(s.node.dma_rate())
            .min(s.node.memory_bandwidth);
        let max_bytes = crate::units::max_transfer_bytes(slowest);
        let nets = net.split(&parts);
        let nicss = nics.split(n);
        let mpis = mpi.split(n);
        let rdmas = if n == 1 {
            vec![Rdma::default()]
        } else {
            Rdma::split(n)
        };
        let mut out: Vec<Part> = nets
            .into_iter()
            .zip(nicss)
            .zip(mpis)
            .zip(rdmas)
            .enumerate()
            .map(|(i, (((net, nics), mpi), rdma))| {
                let id = i as u16;
                Part {
                    id,
                    max_bytes,
                    now: Time::ZERO,
                    until: u64::MAX,
                    queue: EventQueue::with_bucket_shift(crate::sim::queue::bucket_shift_for(
                        parts.sizes[i].1,
                    )),
                    nics,
                    net,
                    rdma,
                    mpi,
                    ranks: ranks.clone().owned_by(&rank_owner, 1, id),
                    rank_owner: rank_owner.clone(),
                    mine: parts.ranks_of(id),
                    nodes: nodes.clone(),
                    current: 0,
                    node_latency: s.node.node_latency,
                    events: 0,
                    events_by_kind: [0; Event::KINDS.len()],
                    finished: 0,
                    metrics: BTreeMap::new(),
                    watch: Watch::new(&s.limits),
                    checkpoint: CHECK_EVERY,
                    #[cfg(feature = "valgrind")]
                    instr_at: crate::perf::valgrind::start_at(),
                    time_went_back: None,
                    self_check: false,
                    prefetching: false,
                    tactics: None,
                    stalled: None,
                    past_horizon: None,
                    series_in_files: false,
                    trace: None,
                    profile: None,
                    unsaid: None,
                    replays: crate::replay::Replays::default(),
                    traffic: None,
                    peak_events: 0,
                    whole: false,
                }
            })
            .collect();
        // synthetic traffic: its generators, on the NICs of each partition
        let mut queues: Vec<&mut EventQueue<Event>> = out.iter_mut().map(|p| &mut p.queue).collect();
        if let Some(t) = crate::openloop::Traffic::build(s, &nodes, &parts.nic, &mut queues) {
            for (p, t) in out.iter_mut().zip(t) {
                p.traffic = Some(Box::new(t));
            }
        }
        (out, parts)
    }

    /// The running rank issues a put or get to rank `peer` (global numbering): the node
    /// latency goes on its clock, then the transfer starts at its NIC (`nic`, an index on its
    /// node, or the next in turn).
    pub fn issue(
        &mut self,
        kind: OpKind,
        peer: u32,
        bytes: u64,
        tag: i64,
        nic: Option<u32>,
    ) -> i64 {
        let me = self.current;
        let nics = self.pick_nics(me, peer, nic);
        let rank = &mut self.ranks[me as usize];
        let before = rank.clock;
        rank.clock += self.node_latency;
        let h = self
            .rdma
            .issue(kind, me, rank, peer, bytes, tag, nics, &mut self.queue);
        if let Some(tr) = self.trace.as_deref_mut() {
            let (name, flow) = match kind {
                OpKind::Put => ("MGEN_rdma_put", flow_id(h)),
                OpKind::Get => ("MGEN_rdma_get", 0),
            };
            let what = What::Call {
                name,
                peer,
                bytes,
                tag,
                flow,
            };
            tr.span(me, before.ps(), self.ranks[me as usize].clock.ps(), what);
        }
        if let Some(p) = self.profile.as_deref_mut() {
            let api = match kind {
                OpKind::Put => Api::Put,
                OpKind::Get => Api::Get,
            };
            p.call(me, api, (self.ranks[me as usize].clock - before).ps());
        }
        h
    }

    /// The running rank prints `text` (`print`, or with `partial` what `io.write` gives): on
    /// stderr, a line at a time, each with the rank and its simulated time. A line another
    /// rank left unended is ended first: two ranks' words never share a line, nor a rank's
    /// with the summary ([`Part::end_unsaid`]).
    pub(crate) fn say(&mut self, text: &str, partial: bool) {
        let me = self.current;
        if self.unsaid.as_ref().is_some_and(|u| u.0 != me) {
            self.end_unsaid();
        }
        let now = self.ranks[me as usize].clock;
        let (mut began, mut pending) = match self.unsaid.take() {
            Some((_, t, text)) => (t, text),
            None => (now, String::new()),
        };
        pending.push_str(text);
        if !partial {
            pending.push('\n');
        }
        let name = self.nodes.name(me);
        let mut rest = pending.as_str();
        while let Some((line, after)) = rest.split_once('\n') {
            eprintln!("[{name} @ {began}] {line}");
            began = now;
            rest = after;
        }
        if !rest.is_empty() {
            self.unsaid = Some((me, began, rest.to_string()));
        }
    }

    /// Ends the line a rank left unended with `io.write`, if any (before anything else is
    /// written: another rank's line, the summary).
    pub(crate) fn end_unsaid(&mut self) {
        if let Some((r, began, text)) = self.unsaid.take() {
            eprintln!("[{} @ {began}] {text}", self.nodes.name(r));
        }
    }

    /// Records on the timeline and in the profile what rank `r` was blocked on, now that it
    /// resumes.
    pub(crate) fn trace_wake(&mut self, r: u32) {
        if let Some(p) = self.profile.as_deref_mut() {
            let rank = &self.ranks[r as usize];
            let (wait, since) = rank.blocked;
            let api = match wait {
                Wait::Nothing => None,
                Wait::Poll(_) => Some(Api::Poll),
                Wait::Complete(_) => Some(Api::Complete),
                Wait::Request(_, call) => Some(Api::of(call)),
                Wait::Sync => Some(Api::Test),
            };
            if let Some(api) = api {
                p.blocked(r, api, (rank.clock - since).ps());
            }
            if self.trace.is_none() {
                self.ranks[r as usize].blocked.0 = Wait::Nothing;
                return;
            }
        }
        let Some(tr) = self.trace.as_deref_mut() else {
            return;
        };
        let rank = &mut self.ranks[r as usize];
        let (wait, since) = rank.blocked;
        let what = match wait {
            Wait::Nothing => return,
            Wait::Poll(tag) => What::Poll(tag),
            Wait::Complete(seq) => What::Complete(crate::rdma::handle(r, seq)),
            Wait::Request(_, call) => What::Wait(call.name()),
            Wait::Sync => What::Test,
        };
        tr.span(r, since.ps(), rank.clock.ps(), what);
        rank.blocked.0 = Wait::Nothing;
    }

    /// The NICs that carry a transfer between ranks `me` and `peer`: NIC `index` of each node,
    /// or, without an index, the next of `me`'s node in turn.
    #[inline]
    pub fn pick_nics(&mut self, me: u32, peer: u32, index: Option<u32>) -> (u32, u32) {
        let k = self.nodes.nics_per_node;
        let i = index.unwrap_or_else(|| {
            if k == 1 {
                return 0; // (one NIC a node: no turn to keep, and no division)
            }
            let r = &mut self.ranks[me as usize];
            let i = r.next_nic as u32 % k;
            r.next_nic = ((i + 1) % k) as u8;
            i
        });
        (self.nodes.nic(me, i), self.nodes.nic(peer, i))
    }

    /// Records a script's `MGEN_report(name, value)`; with several jobs the name is prefixed
    /// with the reporting rank's job (`victim.alltoall_s`).
    pub fn report(&mut self, name: String, v: f64) {
        let name = if self.nodes.jobs.len() > 1 {
            format!("{}.{name}", self.nodes.job(self.current).name)
        } else {
            name
        };
        self.metrics.entry(name).or_default().add(v);
    }

    /// Processes events until one wakes a rank, the limits are due for a look, or no event
    /// is left. At one picosecond: first the arrivals of an epoch that ends then (the
    /// network's, `net/router/arrivals.rs`), then the events in the queue's order, then the
    /// credit wake-ups (`net/router/credit.rs`).
    pub(crate) fn advance(&mut self) -> Next {
        // (the loop made for each setting of the prefetch stages and the self-check, which
        // change only between calls: an event tests neither)
        match (self.prefetching, self.self_check) {
            (false, false) => self.advance_as::<false, false>(),
            (true, false) => self.advance_as::<true, false>(),
            (false, true) => self.advance_as::<false, true>(),
            (true, true) => self.advance_as::<true, true>(),
        }
    }

    /// [`Part::advance`] with the prefetch stages on (`PREFETCH`) or off, and the self-check
    /// on (`CHECK`) or off.
    #[inline(never)]
    fn advance_as<const PREFETCH: bool, const CHECK: bool>(&mut self) -> Next {
        // (the last picosecond of the window: `until` does not change during a call)
        let last = self.until.saturating_sub(1);
        loop {
            if self.events >= self.checkpoint {
                return Next::Checkpoint;
            }
            // (an event at the time an epoch's arrivals are due waits for them; one at the time
            // of a credit wake-up goes first; nothing at or after the window's end. `ta` is an
            // epoch's end, never 0, or `u64::MAX`, so `ta - 1` is the last picosecond before it
            // or past any window)
            let ta = self.net.arrivals_due();
            let tc = self.net.credit_wake_due();
            debug_assert!(ta > 0);
            let limit = ta.wrapping_sub(1).min(tc).min(last);
            let (t, ev) = match self.queue.pop_until(limit) {
                Ok((t, ev)) if !CHECK && t >= self.now => (t, ev),
                Ok((t, ev)) => {
                    self.arrived_at(t);
                    (t, ev)
                }
                Err(tq) => {
                    let next = tq.min(ta).min(tc);
                    if next > last {
                        if next == u64::MAX && CHECK && self.stalled.is_none() {
                            self.stalled = match self.nics.flow.as_deref_mut() {
                                Some(f) => f.mismatch.take(),
                                None => self.net.stalled(self.now),
                            };
                        }
                        return Next::Idle;
                    }
                    self.arrived_at(Time(next));
                    if ta == next {
                        self.net.take_arrivals(&mut self.queue);
                    } else if self.net.credit_wake(Time(next), &mut self.queue) {
                        self.events += 1;
                        self.events_by_kind[Event::CREDIT_WAKE] += 1;
                    }
                    continue;
                }
            };
            if t > Time::HORIZON {
                // (not processed: the run stops, `Part::overflow`)
                self.past_horizon = Some(t);
                return Next::Checkpoint;
            }
            self.now = t;
            self.events += 1;
            self.events_by_kind[ev.kind()] += 1;
            if PREFETCH {
                if let Some(far) = self.queue.ahead(PREFETCH_FAR) {
                    self.net.prefetch_far(far);
                }
                if let Some(near) = self.queue.ahead(PREFETCH_NEAR) {
                    self.net.prefetch_near(near);
                }
                if let Some(close) = self.queue.ahead(PREFETCH_CLOSE) {
                    self.net.prefetch_close(close);
                }
            }
            if let Event::RankWake(r) = ev {
                return Next::Wake(r);
            }
            self.dispatch(t, ev);
        }
    }

    /// When this partition next has something to do (ps; `u64::MAX`: nothing): an event, an
    /// epoch's arrivals, or a credit wake-up.
    pub(crate) fn next_time(&mut self) -> u64 {
        let tq = self.queue.peek_time().map_or(u64::MAX, |t| t.ps());
        tq.min(self.net.arrivals_due())
            .min(self.net.credit_wake_due())
    }

    /// Moves what the layers above the network send across cuts (a message or a send done
    /// with) into the network's outbox, which the engine empties after each window.
    pub(crate) fn flush_outbox(&mut self) {
        for (to, done) in self.mpi.outbox.drain(..) {
            self.net.outbox[to as usize].done.push(done);
        }
    }

    /// Takes in what another partition sent this one in the last window (`cut.rs`): its
    /// arrivals, releases and dones, each kind in the order sent.
    pub(crate) fn take_cuts(&mut self, mail: &Mail) {
        for a in &mail.arrive {
            let (arrival, packet) = a.parts();
            self.net.arrive_across(arrival, packet);
        }
        for r in &mail.release {
            self.net.released_across(r.feeder, r.at, r.bytes, r.vc);
        }
        for d in &mail.done {
            match d.pool {
                CutPool::Msg => self.nics.done(d.id),
                CutPool::P2p => self.mpi.done(d.id),
            }
        }
    }

    /// Whether a stop may have been recorded, or [`Part::overflow`] have something to say:
    /// asked after every resume of a rank, without making a message.
    #[inline]
    pub(crate) fn may_stop(&self) -> bool {
        self.watch.hit.is_some() || self.overflows()
    }

    /// Whether [`Part::overflow`] has something to say.
    #[inline]
    fn overflows(&self) -> bool {
        self.past_horizon.is_some()
            || self.rdma.full.is_some()
            || self.mpi.full.is_some()
            || self.net.overflowed.is_some()
    }

    /// Why this partition cannot go on, if a pool of records in flight is full.
    pub(crate) fn overflow(&self) -> Option<String> {
        if !self.overflows() {
            return None;
        }
        if let Some(t) = self.past_horizon {
            return Some(format!(
                "an event falls at {:.1} days, past the latest simulated time, {:.6} s (about \
                 {:.1} days): transfers slowed that far by their rates and by each other end \
                 later than simulated time can hold; it does not wrap",
                t.as_secs_f64() / 86400.0,
                Time::HORIZON.as_secs_f64(),
                Time::HORIZON.as_secs_f64() / 86400.0
            ));
        }
        let full = match (self.rdma.full, self.mpi.full, &self.net.overflowed) {
            (Some(f), _, _) => format!("RDMA transfers: {f}"),
            (None, Some(f), _) => format!("message-passing sends: {f}"),
            (None, None, Some(what)) => what.clone(),
            (None, None, None) => return None,
        };
        Some(format!(
            "too many in flight at once, {full}: the run issues transfers faster than they \
             complete (a loop that puts or sends without ever waiting?)"
        ))
    }

    /// Gathers `other`, another partition of the same run that is done, into this one: its
    /// counts, statistics, metrics and records (the run is over).
    pub(crate) fn absorb(&mut self, other: &mut Part) {
        self.now = self.now.max(other.now);
        self.events += other.events;
        for (a, b) in self.events_by_kind.iter_mut().zip(other.events_by_kind) {
            *a += b;
        }
        self.finished += other.finished;
        for (name, m) in std::mem::take(&mut other.metrics) {
            self.metrics.entry(name).or_default().merge(&m);
        }
        self.time_went_back = self.time_went_back.or(other.time_went_back);
        if self.stalled.is_none() {
            self.stalled = other.stalled.take();
        }
        self.net.absorb(&mut other.net);
        self.nics.absorb(&other.nics);
        self.rdma.issued += other.rdma.issued;
        self.mpi.sent += other.mpi.sent;
        self.peak_events += other.queue.peak() as u64;
        if let (Some(mine), Some(theirs)) = (self.trace.as_deref_mut(), other.trace.take()) {
            mine.absorb(*theirs);
        }
        if let (Some(mine), Some(theirs)) = (self.profile.as_deref_mut(), other.profile.take()) {
            mine.absorb(*theirs);
        }
        self.replays.absorb(std::mem::take(&mut other.replays));
        if let (Some(mine), Some(theirs)) = (self.traffic.as_deref_mut(), other.traffic.take()) {
            mine.absorb(*theirs);
        }
    }

    /// Most events this partition held pending at once, and those of the partitions it
    /// gathered (a figure of the engine's, not of the model: it depends on the partitions).
    pub(crate) fn peak_events(&self) -> u64 {
        self.peak_events + self.queue.peak() as u64
    }

    /// From now on this partition reads every rank and channel (no partition runs any more;
    /// debug builds stop checking who owns what).
    pub(crate) fn become_whole(&mut self) {
        if self.whole {
            return;
        }
        self.whole = true;
        self.ranks = self.ranks.whole();
        self.net.become_whole();
        self.mpi.become_whole();
        if let Some(h) = self.net.history.as_deref_mut() {
            h.sort();
        }
    }

    /// Every rank (only once the run is over: [`Part::become_whole`]).
    pub(crate) fn all_ranks(&self) -> &[Rank] {
        assert!(self.whole, "every rank is read only once the run is over");
        // SAFETY: no partition runs any more
        unsafe { self.ranks.all() }
    }

    /// Simulated time moves to `t`: checks that it does not go back, and (self-check) that no
    /// link was left idle with a packet it could send.
    #[inline(never)]
    fn arrived_at(&mut self, t: Time) {
        if t < self.now {
            self.time_went_back.get_or_insert((self.now, t));
        }
        if self.self_check && t > self.now && self.stalled.is_none() {
            self.stalled = match self.nics.flow.as_deref_mut() {
                Some(f) => f.mismatch.take(),
                None => self.net.stalled(self.now),
            };
        }
        self.now = t;
    }

    /// Turns the cache tactics on or off: the prefetch stages of the event loop, of the walk
    /// over an epoch's arrivals and of the event queue's next bucket.
    pub(crate) fn set_prefetching(&mut self, on: bool) {
        self.prefetching = on;
        self.net.prefetching = on;
        self.queue.prefetch(on);
    }

    /// Looks at the limits (called every [`CHECK_EVERY`] events); records a stop if one is hit.
    /// Also turns the prefetch stages, and the queue links written late, on or off
    /// ([`PREFETCH_ABOVE`]), and frees what this partition kept of the messages of partitions
    /// it no longer receives from.
    pub(crate) fn look_at_limits(&mut self) {
        self.nics.sweep();
        self.mpi.sweep();
        self.queue.trim();
        #[cfg(feature = "valgrind")]
        if self.events >= self.instr_at {
            crate::perf::valgrind::start_instrumentation();
            self.instr_at = u64::MAX;
        }
        if self.events >= self.watch.event_limit {
            self.watch.record(Limit::Events, None, None);
            // (recorded once: the partition goes on to the end of the stop's epoch)
            self.watch.event_limit = u64::MAX;
        } else if let Some(l) = self.watch.check() {
            if !self.watch.whole_run_stopped {
                self.watch.whole_run_stopped = true;
                self.watch.record(l, None, None);
            }
        }
        let on = self
            .tactics
            .unwrap_or_else(|| self.net.footprint() > PREFETCH_ABOVE);
        self.set_prefetching(on);
        // (recording a time series or buffer history makes events costlier: look more often,
        // so that a signal or the wall clock still stops the run promptly)
        let every = if self.net.series.is_some() || self.net.history.is_some() {
            CHECK_EVERY >> 4
        } else {
            CHECK_EVERY
        };
        let next = (self.events | (every - 1)) + 1;
        self.checkpoint = next.min(self.watch.event_limit);
    }

    /// Hands one event to the component it concerns.
    #[inline(always)]
    pub(crate) fn dispatch(&mut self, t: Time, ev: Event) {
        let Part {
            queue: q,
            net,
            nics,
            rdma,
            mpi,
            ranks,
            trace,
            traffic,
            events,
            events_by_kind,
            ..
        } = self;
        let tr = trace.as_deref_mut();
        match ev {
            Event::RouterReady(p) => net.router_ready(p, t, q),
            Event::HeadReady(c) => net.head_ready(c, t, q),
            Event::XbarDone(c) => net.xbar_done(c, t, q),
            Event::FlowDone(what) => {
                let mut ended = std::mem::take(&mut nics.flow_ended);
                nics.flow_done(what, net, t, q, &mut ended);
                for &m in &ended {
                    let msg = *nics.msg(m);
                    if msg.kind == MsgKind::RndvData {
                        mpi.sent_out(msg.op, ranks, t, q);
                    }
                }
                ended.clear();
                nics.flow_ended = ended;
            }
            Event::FlowArrive(m) => match nics.flow_arrive(m, t) {
                Arrival::Envelope(m) => envelope(m, nics, mpi, ranks, t, q),
                Arrival::Delivered(m) => delivered(m, nics, net, rdma, mpi, ranks, tr, t, q),
                Arrival::EnvelopeDelivered(m) => {
                    envelope(m, nics, mpi, ranks, t, q);
                    delivered(m, nics, net, rdma, mpi, ranks, tr, t, q);
                }
                Arrival::Nothing | Arrival::Synthetic(_) => {}
            },
            Event::ChannelFree(c) => {
                if let Some(nic) = net.channel_free(c, t, q) {
                    nics.staging_freed(nic, net, t, q);
                    if let Some(g) = traffic.as_deref_mut() {
                        g.freed(nic, t, q);
                    }
                }
            }
            Event::TxDmaDone(pkt) => {
                if let Some(m) = nics.tx_dma_done(pkt, net, t, q) {
                    let msg = *nics.msg(m);
                    if msg.kind == MsgKind::RndvData {
                        mpi.sent_out(msg.op, ranks, t, q);
                    }
                }
            }
            Event::NicArrive(p) => match nics.arrive(p, net, t, q) {
                Arrival::Nothing => {}
                Arrival::Synthetic(p) => {
                    if let Some(g) = traffic.as_deref_mut() {
                        g.arrived(p, nics, net, t, q);
                    }
                }
                Arrival::Envelope(m) => envelope(m, nics, mpi, ranks, t, q),
                Arrival::Delivered(m) => delivered(m, nics, net, rdma, mpi, ranks, tr, t, q),
                Arrival::EnvelopeDelivered(m) => {
                    envelope(m, nics, mpi, ranks, t, q);
                    delivered(m, nics, net, rdma, mpi, ranks, tr, t, q);
                }
            },
            Event::RxDmaDone(p) => {
                if let Some(m) = nics.rx_done(p, net, t, q) {
                    delivered(m, nics, net, rdma, mpi, ranks, tr, t, q);
                }
            }
            Event::OpStart(op) => rdma.start(op, nics, net, t, q),
            Event::P2pStart(m) => mpi.start(m, nics, net, t, q),
            Event::CtsStart(m) => mpi.send_cts(m, nics, net, t, q),
            Event::Traffic(what) => {
                if let Some(g) = traffic.as_deref_mut() {
                    if !g.event(what, nics, net, t, q) {
                        // (a reading of this partition's links, one per partition: no event
                        // of the model, and not counted as one)
                        *events -= 1;
                        events_by_kind[ev.kind()] -= 1;
                    }
                }
            }
            Event::RankWake(_) => unreachable!("handled by advance"),
        }
    }
}

/// The envelope of NIC message `m` has reached its receiver: match it.
fn envelope(
    m: u32,
    nics: &Nics,
    mpi: &mut Mpi,
    ranks: &mut Ranks,
    t: Time,
    q: &mut EventQueue<Event>,
) {
    mpi.envelope(nics.msg(m).op, ranks, t, q);
}

/// NIC message `m` is delivered: free it and let its layer act.
#[allow(clippy::too_many_arguments)]
fn delivered(
    m: u32,
    nics: &mut Nics,
    net: &mut Network,
    rdma: &mut Rdma,
    mpi: &mut Mpi,
    ranks: &mut Ranks,
    trace: Option<&mut Trace>,
    t: Time,
    q: &mut EventQueue<Event>,
) {
    let msg = *nics.msg(m);
    nics.free(m, msg.packets(), net);
    if let Some(tr) = trace {
        let arrival = match msg.kind {
            MsgKind::PutData => {
                let op = rdma.op(msg.op);
                Some((
                    "put",
                    op.rank,
                    op.peer,
                    op.bytes,
                    crate::rdma::handle(op.rank, op.seq),
                ))
            }
            MsgKind::Eager | MsgKind::RndvData => {
                let (src, dst, bytes, h) = mpi.flow(msg.op);
                Some(("message", src, dst, bytes, h))
            }
            _ => None,
        };
        if let Some((kind, from, to, bytes, h)) = arrival {
            let what = What::Arrival {
                kind,
                from,
                bytes,
                flow: flow_id(h),
            };
            tr.span(to, t.ps(), t.ps(), what);
        }
    }
    match msg.kind {
        MsgKind::PutData | MsgKind::PutAck | MsgKind::GetRequest | MsgKind::GetData => {
            rdma.delivered(msg, ranks, nics, net, t, q)
        }
        MsgKind::Eager | MsgKind::Rts | MsgKind::Cts | MsgKind::RndvData => {
            mpi.delivered(msg.kind, msg.op, ranks, nics, net, t, q)
        }
        MsgKind::Synthetic => unreachable!("synthetic packets are measured as they arrive"),
    }
}

/// The id of the flow arrow of the transfer with handle `h` (never 0, which means none).
pub(crate) fn flow_id(h: i64) -> i64 {
    h + 1
}

/// A value scripts reported with `MGEN_report`, over the ranks that reported it.
///
/// Its mean is the exact sum of the values, rounded once, over their count: the same whatever
/// the order the values came in (partitions report theirs apart and are gathered at the end).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Metric {
    /// Ranks that reported it.
    pub count: u64,
    /// Smallest value.
    pub min: f64,
    /// Mean value.
    pub mean: f64,
    /// Largest value.
    pub max: f64,
    #[serde(skip)]
    sum: ExactSum,
}

impl Default for Metric {
    fn default() -> Self {
        Metric {
            count: 0,
            min: f64::INFINITY,
            mean: 0.0,
            max: f64::NEG_INFINITY,
            sum: ExactSum::default(),
        }
    }
}

impl Metric {
    /// Adds one rank's value.
    pub fn add(&mut self, v: f64) {
        self.count += 1;
        self.sum.add(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        self.mean = self.sum.value() / self.count as f64;
    }

    /// Adds the values `other` holds (another partition's, of the same name).
    pub fn merge(&mut self, other: &Metric) {
        self.count += other.count;
        for &p in &other.sum.partials {
            self.sum.add(p);
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if self.count > 0 {
            self.mean = self.sum.value() / self.count as f64;
        }
    }
}

/// A sum of floating-point numbers kept exactly, as non-overlapping partial sums (Shewchuk's
/// algorithm, as Python's `math.fsum`): adding is exact, and [`ExactSum::value`] rounds the
/// true sum once, so that the order of the terms never shows. A few partials in practice.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ExactSum {
    partials: Vec<f64>,
}

impl ExactSum {
    /// Adds `x` (finite).
    pub(crate) fn add(&mut self, mut x: f64) {
        let mut i = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        self.partials.truncate(i);
        self.partials.push(x);
    }

    /// The sum, correctly rounded.
    pub(crate) fn value(&self) -> f64 {
        let p = &self.partials;
        let Some(&last) = p.last() else {
            return 0.0;
        };
        if !last.is_finite() {
            return last;
        }
        let mut n = p.len() - 1;
        let (mut hi, mut lo) = (last, 0.0);
        while n > 0 {
            let x = hi;
            let y = p[n - 1];
            n -= 1;
            hi = x + y;
            lo = y - (hi - x);
            if lo != 0.0 {
                break;
            }
        }
        // half-way cases: round as the partials below say
        if n > 0 && ((lo < 0.0 && p[n - 1] < 0.0) || (lo > 0.0 && p[n - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            if y == x - hi {
                hi = x;
            }
        }
        hi
    }
}

#[cfg(test)]
mod tests {
    //! The NICs and the RDMA layer through the world on a tiny network (a 1-D mesh of two
    //! routers, one NIC each, NSIM-ACE defaults), without any script: operations are issued
    //! as the API would, ranks are blocked as a poll or a completion would block them, and
    //! the events run until each is woken. Times worked out by hand: DMA of 64 B at 2.8 GB/s
    //! is 22,858 ps (rounded up), the 80-byte packet serializes in 20 ns at 4 GB/s, a bare
    //! 16-byte header in 4 ns, a router takes 140 ns, a cable 0.6 ns.
    use super::*;
    use crate::rdma::split_handle;

    fn world() -> Part {
        let s = Scenario::from_str_with(
            "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\ncode = ''\n",
            std::path::Path::new("tiny.toml"),
            &[],
        )
        .unwrap();
        Part::new(&s)
    }

    /// Runs events until rank `r` is woken; returns the time.
    fn until_woken(w: &mut Part, r: u32) -> u64 {
        loop {
            match w.advance() {
                Next::Wake(x) if x == r => return w.now.ps(),
                Next::Wake(_) => {}
                Next::Checkpoint => w.look_at_limits(),
                Next::Idle => panic!("rank {r} was never woken"),
            }
        }
    }

    #[test]
    fn a_put_is_read_by_dma_flown_written_by_dma_and_acknowledged() {
        let mut w = world();
        // rank 0 puts 64 B to rank 1 (tag 7) at time 0; rank 1 polls, rank 0 completes
        w.current = 0;
        let h = w.issue(OpKind::Put, 1, 64, 7, None);
        assert!(!w.ranks[1].try_poll(7), "nothing has arrived at time 0");
        let delivered = 22_858 + (20_000 + 3 * 600 + 2 * 140_000) + 22_858;
        assert_eq!(until_woken(&mut w, 1), delivered);
        assert_eq!(
            w.rdma.in_progress(),
            1,
            "the put waits for its acknowledgement"
        );
        let (_, seq) = split_handle(h).unwrap();
        assert!(w.ranks[0].use_handle(seq));
        assert!(!w.ranks[0].try_complete(seq));
        // the receiving NIC answers at once with a bare header, which needs no DMA
        let acknowledged = delivered + (4_000 + 3 * 600 + 2 * 140_000);
        assert_eq!(until_woken(&mut w, 0), acknowledged);
        assert_eq!(w.rdma.in_progress(), 0);
        assert_eq!(w.nics.live_msgs(), 0);
        assert_eq!((w.net.stats.packet_hops, w.net.packets.live()), (6, 0));
    }

    #[test]
    fn a_get_asks_with_a_header_and_the_data_comes_back() {
        let mut w = world();
        w.current = 0;
        let h = w.issue(OpKind::Get, 1, 64, 3, None);
        let (_, seq) = split_handle(h).unwrap();
        assert!(w.ranks[0].use_handle(seq));
        assert!(!w.ranks[0].try_complete(seq));
        // the request (a bare header) flies to rank 1's NIC, which reads the data by DMA and
        // sends it back; rank 0's NIC writes it to memory
        let request = 4_000 + 3 * 600 + 2 * 140_000;
        let data = 22_858 + (20_000 + 3 * 600 + 2 * 140_000) + 22_858;
        assert_eq!(until_woken(&mut w, 0), request + data);
        assert_eq!(w.net.stats.packet_hops, 6);
    }
}
