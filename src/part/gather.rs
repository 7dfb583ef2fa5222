//! What crosses between partitions during the run (the outbox sent, the cut messages taken
//! in) and how they become one at its end (`absorb`, `become_whole`).

use super::*;
use crate::cut::Record;

impl Part {
    /// Moves what the layers above the network send across cuts (a message or a send done
    /// with) into the network's outbox, which the engine empties after each window.
    pub(crate) fn flush_outbox(&mut self) {
        for (to, done) in self.mpi.outbox.drain(..) {
            self.net.outbox[to as usize].done.push(done);
        }
    }

    /// Takes in what another partition sent this one in the last window (`cut.rs`): its
    /// records (from another process group), arrivals, releases and dones, each kind in the
    /// order sent.
    pub(crate) fn take_cuts(&mut self, mail: &Mail) {
        for r in &mail.records {
            match r {
                Record::Msg(m) => self.nics.keep(m),
                Record::Op(o) => self.rdma.keep(o),
                Record::P2p(p) => self.mpi.keep(p),
            }
        }
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
        self.peak_events += other.peak_events();
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

    /// At the root of an MPI run, once its end state is packed: its own link counters kept
    /// as the other processes' will be (`Network::keep_own_ends`), and what was still in
    /// flight let go, its counts kept (the packets alive and most held, the most events
    /// pending): the report reads nothing else of them.
    pub(crate) fn keep_only_its_end(&mut self) {
        self.net.keep_own_ends();
        self.net.packets.let_go();
        self.peak_events += self.queue.peak() as u64;
        self.queue = EventQueue::new();
    }

    /// The network's per-element state given back (`Network::let_go_state`).
    ///
    /// # Safety
    /// As `Network::let_go_state`: every partition of the process kept its own ends.
    pub(crate) unsafe fn let_go_state(&self) {
        // SAFETY: the caller's promise
        unsafe { self.net.let_go_state() }
    }

    /// Link counters this partition holds for the link table (`Network::ends_held`).
    pub(crate) fn ends_held(&self) -> usize {
        self.net.ends_held()
    }

    /// Room for `n` more of them, before partitions holding that many are absorbed.
    pub(crate) fn reserve_ends(&mut self, n: usize) {
        self.net.reserve_ends(n);
    }

    /// The network's link table at `until` (`Network::take_link_loads`), once gathered.
    pub(crate) fn take_link_loads(&mut self, until: Time) -> Vec<crate::net::LinkLoad> {
        self.net.take_link_loads(until)
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
}

/// A partition as the report reads it, once the run is over and it holds the whole run
/// ([`Part::become_whole`]): what the summary's figures are made of, read-only.
pub(crate) struct View<'a> {
    /// The time of the last event.
    pub(crate) now: Time,
    /// Events processed, and of each kind (indexed by [`Event::kind`]).
    pub(crate) events: u64,
    pub(crate) events_by_kind: [u64; Event::KINDS.len()],
    /// Most events held pending at once (summed over the partitions gathered).
    pub(crate) peak_events: u64,
    pub(crate) net: &'a Network,
    /// The flow fabric, when the run has one.
    pub(crate) flows: Option<&'a FlowNet>,
    pub(crate) nics: &'a Nics,
    pub(crate) rdma: &'a Rdma,
    pub(crate) nodes: &'a Nodes,
    /// Every rank.
    pub(crate) ranks: &'a [Rank],
    pub(crate) metrics: &'a BTreeMap<String, Metric>,
    pub(crate) trace: Option<&'a Trace>,
    pub(crate) profile: Option<&'a crate::probe::profile::Profile>,
    pub(crate) traffic: Option<&'a crate::openloop::Traffic>,
    /// Whether the time series is written as CSV (false: recorded for `report.html` only).
    pub(crate) series_in_files: bool,
}

impl Part {
    /// The whole run, read-only, for the report (only once the run is over).
    pub(crate) fn view(&self) -> View<'_> {
        View {
            now: self.now,
            events: self.events,
            events_by_kind: self.events_by_kind,
            peak_events: self.peak_events(),
            net: &self.net,
            flows: self.flows.as_deref(),
            nics: &self.nics,
            rdma: &self.rdma,
            nodes: &self.nodes,
            ranks: self.all_ranks(),
            metrics: &self.metrics,
            trace: self.trace.as_deref(),
            profile: self.profile.as_deref(),
            traffic: self.traffic.as_deref(),
            series_in_files: self.series_in_files,
        }
    }
}
