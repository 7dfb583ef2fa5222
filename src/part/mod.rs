//! One partition of the run ([`Part`]): what its handlers act on and nothing else — its share
//! of the network, of the NICs, of the RDMA and message layers and of the ranks, its own event
//! queue, what it records, and its outbox to the other partitions (`partition.rs`, `cut.rs`);
//! the operations the API calls on it for its running rank (`ops.rs`, `calls.rs`), and the
//! dispatch of each event to the component it concerns (`dispatch.rs`). Its fields are private:
//! the loop that
//! alternates between events and ranks, window by window, is the engine's (`engine/mod.rs`),
//! which drives a partition through `drive.rs`; what a script may call is the script layer's
//! (`script/api.rs`), which acts on its rank's partition through the operations and asks it
//! through `running.rs`; the report reads a [`View`] (`gather.rs`). What stays global (the
//! jobs, the limits' clock and flag, the reduction of the statistics) is read-only here or
//! gathered by the engine when no partition runs.

use crate::config::Scenario;
use crate::cut::{Mail, Pool as CutPool};
use crate::event::Event;
use crate::fabric::Wire;
use crate::limits::{Limit, Watch, CHECK_EVERY};
use crate::mpi::Mpi;
use crate::net::flow::FlowNet;
use crate::net::Network;
use crate::nic::{Arrival, MsgKind, Nics};
use crate::node::Nodes;
use crate::partition::Partitioning;
use crate::probe::profile::Api;
use crate::probe::trace::{Trace, What};
use crate::random::Xoshiro;
use crate::rank::{Rank, Ranks, Wait};
use crate::rdma::{OpKind, Rdma};
use crate::sim::{Ctx, EventQueue};
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
pub(crate) struct Part {
    /// The most bytes one transfer may move: what the run's slowest rate (DMA, memory, a
    /// link or crossbar) moves in [`crate::units::LONGEST_TRANSFER`], so that no time a
    /// transfer's own bytes take can pass what 64 bits of picoseconds hold.
    max_bytes: u64,
    /// Time of the event being processed.
    now: Time,
    /// The end of the window being simulated (ps): nothing at or after it is processed until
    /// the engine moves it (`engine/mod.rs`).
    until: u64,
    queue: EventQueue<Event>,
    net: Network,
    /// The flow fabric (`network.model = "flow"`, `net/flow/`), beside the network that
    /// then holds only the links' statistics and power: messages move as flows, not packets
    /// (`fabric.rs`).
    flows: Option<Box<FlowNet>>,
    nics: Nics,
    rdma: Rdma,
    mpi: Mpi,
    /// Every rank; this partition changes only its own (`mine`).
    ranks: Ranks,
    /// Which partition owns each rank (for the debug checks of `ranks`).
    #[allow(dead_code)] // (kept alive: the ranks' debug checks point into it)
    rank_owner: Arc<[u16]>,
    /// The ranks this partition owns, in order.
    mine: Vec<u32>,
    /// Where ranks run and which job they belong to.
    nodes: Arc<Nodes>,
    /// The rank whose script is running (the API acts for it).
    current: u32,
    node_latency: Time,
    /// Events processed.
    events: u64,
    /// Of those, how many of each kind (indexed by [`Event::kind`]).
    events_by_kind: [u64; Event::KINDS.len()],
    /// Ranks whose script has ended.
    finished: u32,
    /// Values scripts reported with `MGEN_report`, by name.
    metrics: BTreeMap<String, Metric>,
    /// Limits and Ctrl-C, and the stop once there is one.
    watch: Watch,
    /// Event count at which `advance` next hands control back for a look at the limits.
    checkpoint: u64,
    /// Event count at which to start Valgrind's instrumentation (`bench/cachesim --skip`).
    #[cfg(feature = "valgrind")]
    instr_at: u64,
    /// Set if an event ever came out of the queue earlier than the one before (a bug).
    time_went_back: Option<(Time, Time)>,
    /// The time of the first event found past [`Time::HORIZON`] (the run stops there: no
    /// later time is held).
    past_horizon: Option<Time>,
    /// Check, whenever time moves on, that no link sat idle with a packet it could send
    /// ([`Simulation::self_check`]); what the first such link was.
    self_check: bool,
    stalled: Option<String>,
    /// The prefetch stages run, and the network writes its queues' links late
    /// ([`PREFETCH_ABOVE`]); looked at with the limits.
    prefetching: bool,
    /// Both forced on or off for the whole run ([`Simulation::cache_tactics`]).
    tactics: Option<bool>,
    /// Whether the time series is written as CSV (false: recorded for `report.html` only).
    series_in_files: bool,
    /// What a rank wrote with `io.write` after its last line end: `(rank, its clock when
    /// the line began, text)`, written with the rest of its line ([`Part::say`]).
    unsaid: Option<(u32, Time, String)>,
    /// The ranks' timeline, when asked for (`--trace`).
    trace: Option<Box<Trace>>,
    /// Where the ranks' time went, per call and region, when asked for (`--profile`).
    profile: Option<Box<crate::probe::profile::Profile>>,
    /// The traces ranks replay (`MGEN_trace_open`).
    replays: crate::replay::Replays,
    /// The synthetic traffic of this partition's NICs (`openloop/`), if a job has some.
    traffic: Option<Box<crate::openloop::Traffic>>,
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
                Wait::Request(_, call) => Some(call),
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
        };
        tr.span(r, since.ps(), rank.clock.ps(), what);
        rank.blocked.0 = Wait::Nothing;
    }

    /// Most events this partition held pending at once, and those of the partitions it
    /// gathered (a figure of the engine's, not of the model: it depends on the partitions).
    pub(crate) fn peak_events(&self) -> u64 {
        self.peak_events + self.queue.peak() as u64
    }

    /// Every rank (only once the run is over: [`Part::become_whole`]).
    pub(crate) fn all_ranks(&self) -> &[Rank] {
        assert!(self.whole, "every rank is read only once the run is over");
        // SAFETY: no partition runs any more
        unsafe { self.ranks.all() }
    }
}

mod build;
mod calls;
mod dispatch;
mod drive;
mod gather;
mod metric;
mod ops;
mod pack;
mod records;
mod running;
#[cfg(test)]
mod tests;

pub(crate) use calls::StatusValues;
pub(crate) use gather::View;
pub(crate) use metric::{Metric, MetricEnd};
pub(crate) use ops::flow_id;
