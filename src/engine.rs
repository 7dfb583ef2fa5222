//! The engine: the model's state ([`World`]), the dispatch of each event to the component it
//! concerns, and the loop that alternates between the event core and the rank coroutines.
//!
//! Data flows one way: a script calls the API (operations) → the NIC cuts packets → routers
//! and links move them as events → deliveries and completions wake ranks → scripts go on.
//!
//! ```
//! use mgensim::{config::Scenario, engine::Simulation};
//! let s = Scenario::from_str_with(
//!     "[network]\ndims = [2]\n[workload]\ncode = '''
//!        if MGEN_Comm_rank() == 0 then MGEN_acp_complete(MGEN_rdma_put(1, 8, 0))
//!        else MGEN_rdma_poll(0) end'''\n",
//!     std::path::Path::new("doc.toml"), &[]).unwrap();
//! let report = Simulation::new(&s).unwrap().run().unwrap();
//! assert_eq!(report.network.packets, 2); // the data and its control packet
//! ```

use crate::config::Scenario;
use crate::limits::{Limit, Watch, CHECK_EVERY};
use crate::mpi::Mpi;
use crate::net::topology::Topo;
use crate::net::Network;
use crate::nic::{Arrival, MsgKind, Nics};
use crate::node::Nodes;
use crate::probe::trace::{Trace, What};
use crate::probe::Probes;
use crate::rdma::{OpKind, Rdma};
use crate::report::{Metric, Report};
use crate::script::random::Xoshiro;
use crate::script::rank::{Rank, Status, Wait};
use crate::script::{Outcome, Scripts};
use crate::sim::{Event, EventQueue};
use crate::units::Time;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

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
/// it the state stays in the caches and the stages are pure cost. Measured (whole runs,
/// stages off against on): ring barrier and random ring on 8×8×8 (under 1 MiB) and the 4-byte
/// Bruck on 16×16×16 (5 MiB) run 2–5 % faster without them; the same Bruck with a 256-byte MTU
/// (11.7 MiB) is 1.38× slower without them, and on 32×16×16 (38 MiB) 1.49× slower. The
/// stages change what is in the cache, never what the run computes.
const PREFETCH_ABOVE: usize = 8 << 20;

/// Everything the model knows at one instant.
pub struct World {
    /// Time of the event being processed.
    pub now: Time,
    pub queue: EventQueue<Event>,
    pub net: Network,
    pub nics: Nics,
    pub rdma: Rdma,
    pub mpi: Mpi,
    pub ranks: Vec<Rank>,
    /// Where ranks run and which job they belong to.
    pub nodes: Nodes,
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
    checkpoint: u64,
    /// Event count at which to start Valgrind's instrumentation (`bench/cachesim --skip`).
    #[cfg(feature = "valgrind")]
    instr_at: u64,
    /// Set if an event ever came out of the queue earlier than the one before (a bug).
    time_went_back: Option<(Time, Time)>,
    /// Check, whenever time moves on, that no link sat idle with a packet it could send
    /// ([`Simulation::self_check`]); what the first such link was.
    self_check: bool,
    stalled: Option<String>,
    /// The prefetch stages run, and the network writes its queues' links late
    /// ([`PREFETCH_ABOVE`]); looked at with the limits.
    prefetching: bool,
    /// Both forced on or off for the whole run ([`Simulation::cache_tactics`]).
    tactics: Option<bool>,
    /// The ranks' timeline, when asked for (`--trace`).
    pub trace: Option<Box<Trace>>,
}

/// What [`World::advance`] stopped at.
enum Next {
    /// A rank is due to resume.
    Wake(u32),
    /// Time to look at the limits.
    Checkpoint,
    /// No event is left.
    Idle,
}

impl World {
    fn new(s: &Scenario) -> World {
        let net = Network::new(s);
        let nodes = Nodes::new(s);
        let ranks = nodes
            .jobs
            .iter()
            .flat_map(|j| {
                let rng = Xoshiro::from_seed(j.seed);
                (j.base..j.base + j.size).map(move |i| Rank::new(i, rng))
            })
            .collect();
        // two messages between one pair may take different paths: restore MPI's order
        let reorder = net.topo.multipath() || s.node.nics_per_node > 1;
        World {
            now: Time::ZERO,
            queue: EventQueue::new(),
            nics: Nics::new(
                net.topo.terminals(),
                nodes.nics_per_node,
                s.node.dma_rate(),
                s.network.mtu,
                s.network.header_bytes,
            ),
            net,
            rdma: Rdma::default(),
            mpi: Mpi::new(
                s.node.eager_limit,
                s.node.mpi_overhead,
                s.node.memory_bandwidth,
                reorder,
            ),
            ranks,
            nodes,
            current: 0,
            node_latency: s.node.node_latency,
            events: 0,
            events_by_kind: [0; Event::KINDS.len()],
            finished: 0,
            metrics: BTreeMap::new(),
            watch: Watch::new(&s.limits),
            checkpoint: match s.limits.events {
                0 => CHECK_EVERY,
                n => n.min(CHECK_EVERY),
            },
            #[cfg(feature = "valgrind")]
            instr_at: crate::sim::valgrind::start_at(),
            time_went_back: None,
            self_check: false,
            prefetching: false,
            tactics: None,
            stalled: None,
            trace: None,
        }
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
        h
    }

    /// Records on the timeline what rank `r` was blocked on, now that it resumes.
    fn trace_wake(&mut self, r: u32) {
        let Some(tr) = self.trace.as_deref_mut() else {
            return;
        };
        let rank = &mut self.ranks[r as usize];
        let (wait, since) = rank.blocked;
        let what = match wait {
            Wait::Nothing => return,
            Wait::Poll(tag) => What::Poll(tag),
            Wait::Complete(seq) => What::Complete(crate::rdma::handle(r, seq)),
            Wait::Request(seq) => What::Wait(crate::mpi::request_handle(r, seq)),
            Wait::Sync => What::Test,
        };
        tr.span(r, since.ps(), rank.clock.ps(), what);
        rank.blocked.0 = Wait::Nothing;
    }

    /// The NICs that carry a transfer between ranks `me` and `peer`: NIC `index` of each node,
    /// or, without an index, the next of `me`'s node in turn.
    pub fn pick_nics(&mut self, me: u32, peer: u32, index: Option<u32>) -> (u32, u32) {
        let k = self.nodes.nics_per_node;
        let i = index.unwrap_or_else(|| {
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
    /// is left.
    fn advance(&mut self) -> Next {
        loop {
            if self.events >= self.checkpoint {
                return Next::Checkpoint;
            }
            let Some((t, ev)) = self.queue.pop() else {
                if self.self_check && self.stalled.is_none() {
                    self.stalled = self.net.stalled(self.now);
                }
                return Next::Idle;
            };
            if t.ps() > self.watch.time_limit {
                // (put back, so that what is still pending stays counted; the run stops here)
                self.queue.push(t, ev);
                self.watch.record(Limit::SimulatedTime, None, None);
                return Next::Checkpoint;
            }
            if t < self.now {
                self.time_went_back.get_or_insert((self.now, t));
            }
            if self.self_check && t > self.now && self.stalled.is_none() {
                self.stalled = self.net.stalled(self.now);
            }
            self.now = t;
            self.events += 1;
            self.events_by_kind[ev.kind()] += 1;
            if self.prefetching {
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

    /// Looks at the limits (called every [`CHECK_EVERY`] events); records a stop if one is hit.
    /// Also turns the prefetch stages, and the queue links written late, on or off
    /// ([`PREFETCH_ABOVE`]).
    fn look_at_limits(&mut self) {
        #[cfg(feature = "valgrind")]
        if self.events >= self.instr_at {
            crate::sim::valgrind::start_instrumentation();
            self.instr_at = u64::MAX;
        }
        if self.events >= self.watch.event_limit {
            self.watch.record(Limit::Events, None, None);
        } else if let Some(l) = self.watch.check() {
            self.watch.record(l, None, None);
        }
        self.prefetching = self
            .tactics
            .unwrap_or_else(|| self.net.footprint() > PREFETCH_ABOVE);
        self.net.link_later(self.prefetching);
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
    fn dispatch(&mut self, t: Time, ev: Event) {
        let World {
            queue: q,
            net,
            nics,
            rdma,
            mpi,
            ranks,
            trace,
            ..
        } = self;
        let tr = trace.as_deref_mut();
        match ev {
            Event::RouterReady(p) => net.router_ready(p, t, q),
            Event::HeadReady(c) => net.head_ready(c, t, q),
            Event::ChannelFree(c) => {
                if let Some(nic) = net.channel_free(c, t, q) {
                    nics.staging_freed(nic, net, t, q);
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
            Event::RankWake(_) => unreachable!("handled by advance"),
        }
    }
}

/// The envelope of NIC message `m` has reached its receiver: match it.
fn envelope(
    m: u32,
    nics: &Nics,
    mpi: &mut Mpi,
    ranks: &mut [Rank],
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
    ranks: &mut [Rank],
    trace: Option<&mut Trace>,
    t: Time,
    q: &mut EventQueue<Event>,
) {
    let msg = *nics.msg(m);
    nics.free(m);
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
    }
}

/// The id of the flow arrow of the transfer with handle `h` (never 0, which means none).
pub fn flow_id(h: i64) -> i64 {
    h + 1
}

/// Why a run stopped before every rank finished.
#[derive(Debug, thiserror::Error)]
pub enum Stop {
    #[error("{who} failed at simulated time {time}:\n{message}")]
    Script {
        rank: u32,
        /// The rank as messages name it (with its job when there are several).
        who: String,
        time: Time,
        message: String,
    },
    #[error("deadlock at simulated time {time}: every unfinished rank is blocked and nothing is in flight\n{detail}")]
    Deadlock { time: Time, detail: String },
    /// A limit of `[limits]`, `--timeout`, or Ctrl-C.
    #[error("{message}")]
    Limit {
        limit: Limit,
        time: Time,
        message: String,
    },
    /// The engine caught itself breaking one of its own invariants: a bug in mgensim.
    #[error("internal error (a bug in mgensim; please report it with the scenario): {0}")]
    Internal(String),
}

/// A run that did not finish: why, and what it had computed until then.
#[derive(Debug, thiserror::Error)]
#[error("{stop}")]
pub struct SimError {
    pub stop: Stop,
    /// The report of the run so far, marked `partial` (None if it stopped before starting).
    pub partial: Option<Box<Report>>,
}

/// How far a run has got, for a progress display (handed over every few thousand events).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Simulated time.
    pub now: Time,
    pub events: u64,
    /// Ranks whose script has ended, of `ranks`.
    pub finished: u32,
    pub ranks: u32,
}

/// One simulation: the world and the scripts that drive it.
pub struct Simulation {
    world: Rc<RefCell<World>>,
    scripts: Scripts,
    scenario: Scenario,
    /// Called with the progress at every look at the limits (not on the hot path).
    progress: RefCell<Option<ProgressFn>>,
    /// The process exits after this run: its memory is left to the operating system
    /// ([`Simulation::last_in_process`]).
    last: bool,
}

/// What [`Simulation::on_progress`] calls.
type ProgressFn = Box<dyn FnMut(Progress)>;

impl Simulation {
    /// Builds the network and the ranks and compiles the workload.
    pub fn new(s: &Scenario) -> anyhow::Result<Simulation> {
        fits_in_memory(s)?;
        let world = Rc::new(RefCell::new(World::new(s)));
        let scripts = Scripts::new(world.clone(), s)?;
        Ok(Simulation {
            world,
            scripts,
            scenario: s.clone(),
            progress: RefCell::new(None),
            last: false,
        })
    }

    /// Says that the process exits right after this run: when [`Simulation::run`] returns,
    /// the network, the ranks and the Lua state are not freed piece by piece (a full
    /// collection and a `free` per Lua object, 3 % of a 512-rank barrier's instructions and
    /// more with every rank) but left to the operating system, which takes the process's
    /// memory back at once. Lua finalizers (`__gc`) of the scripts' objects then do not run;
    /// files they left open are flushed and closed by the exit as usual. Not for a process
    /// that runs anything after (a sweep, a baseline run, a test).
    pub fn last_in_process(&mut self) {
        self.last = true;
    }

    /// Records, in this run, what `p` asks for beyond the summary. Errors name a router that
    /// does not exist or an empty interval.
    pub fn probe(&mut self, p: &Probes) -> anyhow::Result<()> {
        use crate::probe::{history::BufferHistory, series::LinkSeries};
        let mut guard = self.world.borrow_mut();
        let w = &mut *guard;
        let routers = w.net.routers();
        for watch in &p.buffer_history {
            if watch.router >= routers {
                anyhow::bail!(
                    "--buffer-history: router {} does not exist: the network has {routers} \
                     routers, 0 to {}",
                    watch.router,
                    routers - 1
                );
            }
        }
        let channels = w.net.channels();
        match p.interval {
            Some(Time::ZERO) => anyhow::bail!("--interval must be longer than 0 ps"),
            Some(i) => w.net.series = Some(Box::new(LinkSeries::new(i.ps(), false, channels))),
            None if p.adaptive => {
                w.net.series = Some(Box::new(LinkSeries::new(1_000, true, channels)))
            }
            None => w.net.series = None,
        }
        w.net.history = (!p.buffer_history.is_empty())
            .then(|| Box::new(BufferHistory::new(p.buffer_history.clone())));
        w.trace = p.trace.then(|| Box::new(Trace::new(w.ranks.len() as u32)));
        Ok(())
    }

    /// Calls `f` with the run's progress every [`CHECK_EVERY`] events.
    pub fn on_progress(&mut self, f: impl FnMut(Progress) + 'static) {
        self.progress = RefCell::new(Some(Box::new(f)));
    }

    fn show_progress(&self, ranks: u32) {
        if let Some(f) = self.progress.borrow_mut().as_mut() {
            let w = self.world.borrow();
            f(Progress {
                now: w.now,
                events: w.events,
                finished: w.finished,
                ranks,
            });
        }
    }

    /// Checks, whenever simulated time moves on, that the network is work-conserving: no link
    /// idle while a packet is ready for it and the buffer it feeds has room (a missed wake-up
    /// would leave it so). A run that breaks this ends with an internal error. It costs a pass
    /// over every channel per distinct event time: for tests on small networks.
    pub fn self_check(&mut self) {
        self.world.borrow_mut().self_check = true;
    }

    /// Turns the engine's cache tactics on or off for the whole run, whatever the size of the
    /// network's state: the prefetch stages, and the queues' links written a few queuings
    /// late (`net/router.rs`, "Linked later"). By default they are on while that state is
    /// larger than 8 MiB (`PREFETCH_ABOVE`). They change what is in the cache, never what the
    /// run computes; this is for the tests that say so.
    pub fn cache_tactics(&mut self, on: bool) {
        let mut w = self.world.borrow_mut();
        w.tactics = Some(on);
        w.prefetching = on;
        w.net.link_later(on);
    }

    /// Stops the run, with a partial report, as soon as `flag` is set (by a Ctrl-C handler).
    pub fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.world.borrow_mut().watch.set_interrupt(flag);
    }

    /// `limits.wall_time` counts from `origin` (the process's start: setting up counts too).
    pub fn count_wall_time_from(&mut self, origin: Instant) {
        self.world.borrow_mut().watch.count_from(origin);
    }

    /// Runs every rank to its end.
    pub fn run(self) -> Result<Report, SimError> {
        let started = Instant::now();
        let nranks = self.world.borrow().ranks.len() as u32;
        if let Err(e) = self.scripts.spawn(nranks) {
            return Err(SimError {
                stop: Stop::Script {
                    rank: 0,
                    who: "rank 0".to_string(),
                    time: Time::ZERO,
                    message: e.to_string(),
                },
                partial: None,
            });
        }
        {
            let mut w = self.world.borrow_mut();
            w.watch.start(self.scenario.limits.wall_time);
            for r in 0..nranks {
                w.queue.push(Time::ZERO, Event::RankWake(r));
            }
        }
        let result = match self.drive(nranks) {
            Ok(()) => self.finish(started),
            Err(stop) => {
                let prompt = match &stop {
                    Stop::Limit {
                        limit: Limit::Interrupt,
                        ..
                    } => Some("interrupted"),
                    Stop::Limit {
                        limit: Limit::WallTime,
                        ..
                    } => Some("wall-clock limit"),
                    _ => None,
                };
                let dropped = prompt
                    .map(|_| self.drop_bulky_records())
                    .unwrap_or_default();
                let mut partial = self.report(started, true);
                if let (Some(why), false) = (prompt, dropped.is_empty()) {
                    partial.warnings.push(format!(
                        "{why}: {} not written, to stop promptly (a run stopped by --until or \
                         limits.events writes them up to the stop)",
                        dropped.join(", ")
                    ));
                }
                Err(SimError {
                    stop,
                    partial: Some(Box::new(partial)),
                })
            }
        };
        if self.last {
            let mut this = self;
            // (the watchdog's thread still ends as usual: its safety rests on that)
            this.scripts.stop_watchdog();
            std::mem::forget(this);
        }
        result
    }

    /// A run stopped by a signal or the wall clock ends promptly: the bulky records (time
    /// series, buffer history, timeline) are let go, not turned into outputs. Returns what
    /// they were, for a warning.
    fn drop_bulky_records(&self) -> Vec<&'static str> {
        let mut w = self.world.borrow_mut();
        let mut dropped = Vec::new();
        // (a process about to end leaves them to the exit: freeing gigabytes takes seconds)
        let last = self.last;
        let let_go = |b: Option<Box<dyn std::any::Any>>| match b {
            Some(b) if last => std::mem::forget(b),
            _ => {}
        };
        if let Some(b) = w.net.series.take() {
            dropped.push("links_timeseries.csv and power_timeseries.csv");
            let_go(Some(b));
        }
        if let Some(b) = w.net.history.take() {
            dropped.push("buffer_history.csv");
            let_go(Some(b));
        }
        if let Some(b) = w.trace.take() {
            dropped.push("the timeline (trace)");
            let_go(Some(b));
        }
        dropped
    }

    /// The summary of the run as it stands.
    fn report(&self, started: Instant, partial: bool) -> Report {
        {
            let mut w = self.world.borrow_mut();
            let end = w
                .ranks
                .iter()
                .map(|r| r.clock)
                .max()
                .unwrap_or(Time::ZERO)
                .max(w.now);
            w.net.settle_all(end);
        }
        let w = self.world.borrow();
        let mut r = Report::new(&self.scenario, &w, started.elapsed(), self.scripts.memory());
        r.partial = partial;
        r
    }

    /// Alternates between events and ranks until every rank is done, a rank fails or a
    /// limit is hit.
    fn drive(&self, nranks: u32) -> Result<(), Stop> {
        loop {
            let next = self.world.borrow_mut().advance();
            let r = match next {
                Next::Wake(r) => r,
                Next::Checkpoint => {
                    self.world.borrow_mut().look_at_limits();
                    self.check_stop()?;
                    self.show_progress(nranks);
                    continue;
                }
                Next::Idle => break,
            };
            {
                let mut w = self.world.borrow_mut();
                w.current = r;
                w.ranks[r as usize].status = Status::Running;
                w.trace_wake(r);
            }
            match self.scripts.resume(r) {
                Outcome::Blocked => {
                    let mut guard = self.world.borrow_mut();
                    let w = &mut *guard;
                    let rank = &mut w.ranks[r as usize];
                    if rank.status == Status::Running {
                        // the script yielded on its own: let it go on at its clock
                        let clock = rank.clock;
                        rank.wake(r, clock, &mut w.queue);
                    }
                }
                Outcome::Finished => {
                    let mut w = self.world.borrow_mut();
                    w.ranks[r as usize].status = Status::Done;
                    w.finished += 1;
                }
                Outcome::Failed(message) => {
                    let w = self.world.borrow();
                    let time = w.ranks[r as usize].clock;
                    return Err(Stop::Script {
                        rank: r,
                        who: w.nodes.name(r),
                        time,
                        message,
                    });
                }
                Outcome::Stopped(limit) => {
                    // the hook recorded its own stop with the line; a memory stop has none yet
                    // (and the traceback that finds it needs the limit lifted)
                    let at = (limit == Limit::LuaMemory)
                        .then(|| {
                            self.scripts.lift_memory_limit();
                            self.location(r)
                        })
                        .flatten();
                    self.world.borrow_mut().watch.record(limit, Some(r), at);
                }
            }
            // a stop recorded while the rank ran (by its instruction hook), even one its
            // own pcall caught
            self.check_stop()?;
        }
        let w = self.world.borrow();
        let blocked: Vec<u32> = (0..nranks)
            .filter(|&r| w.ranks[r as usize].status != Status::Done)
            .collect();
        if let Some(s) = &w.stalled {
            // (not a deadlock of the model: a wake-up the engine missed)
            return Err(Stop::Internal(s.clone()));
        }
        if !blocked.is_empty() {
            return Err(Stop::Deadlock {
                time: w.now,
                detail: self.deadlock_detail(&w, &blocked),
            });
        }
        Ok(())
    }

    /// The stop recorded in the watch, if any, as an error.
    fn check_stop(&self) -> Result<(), Stop> {
        let w = self.world.borrow();
        let Some((limit, rank, at)) = w.watch.hit.clone() else {
            return Ok(());
        };
        let time = rank.map_or(w.now, |r| w.ranks[r as usize].clock.max(w.now));
        Err(Stop::Limit {
            limit,
            time,
            message: limit.explain(&self.scenario.limits, time, rank, at.as_deref()),
        })
    }

    /// Checks the end state (a run that ends with packets or messages in flight has lost
    /// them) and builds the report, with warnings about what the scripts left behind.
    fn finish(&self, started: Instant) -> Result<Report, SimError> {
        let internal = {
            let w = self.world.borrow();
            if let Some((before, after)) = w.time_went_back {
                Some(format!("simulated time went back from {before} to {after}"))
            } else if let Some(s) = &w.stalled {
                Some(s.clone())
            } else if w.net.packets.live() != 0 || w.nics.live_msgs() != 0 {
                Some(format!(
                    "the run ended with {} packets and {} NIC messages still in flight",
                    w.net.packets.live(),
                    w.nics.live_msgs()
                ))
            } else {
                None
            }
        };
        if let Some(msg) = internal {
            return Err(SimError {
                stop: Stop::Internal(msg),
                partial: Some(Box::new(self.report(started, true))),
            });
        }
        let mut report = self.report(started, false);
        report.warnings = leftovers(&self.world.borrow());
        Ok(report)
    }

    /// `file:line` where rank `r`'s script is (for a stop at the memory limit).
    fn location(&self, r: u32) -> Option<String> {
        let tb = self.scripts.where_(r);
        let line = script_line(&tb);
        (!line.is_empty()).then(|| line.to_string())
    }

    fn deadlock_detail(&self, w: &World, blocked: &[u32]) -> String {
        const SHOWN: usize = 16;
        let mut out = String::new();
        for &r in blocked.iter().take(SHOWN) {
            let rank = &w.ranks[r as usize];
            let what = match rank.wait {
                Wait::Poll(tag) => {
                    format!("MGEN_rdma_poll(tag {tag}): no put with that tag was delivered to it")
                }
                Wait::Complete(seq) => {
                    format!(
                        "MGEN_acp_complete(handle {}): the transfer never completed",
                        crate::rdma::handle(r, seq)
                    )
                }
                Wait::Request(seq) => {
                    format!(
                        "MGEN_Wait (request {}), {}",
                        crate::mpi::request_handle(r, seq),
                        w.mpi.describe(rank, seq)
                    )
                }
                Wait::Sync => "MGEN_Test".to_string(),
                Wait::Nothing => "nothing (it was never resumed)".to_string(),
            };
            let tb = self.scripts.where_(r);
            let line = script_line(&tb);
            out.push_str(&format!(
                "  {} (clock {}) waits in {what}",
                w.nodes.name(r),
                rank.clock
            ));
            if !line.is_empty() {
                out.push_str(&format!("\n      at {line}"));
            }
            out.push('\n');
        }
        if blocked.len() > SHOWN {
            out.push_str(&format!(
                "  ... and {} more blocked ranks\n",
                blocked.len() - SHOWN
            ));
        }
        let leftover: Vec<String> = w
            .ranks
            .iter()
            .enumerate()
            .filter(|(_, r)| r.mpi.unexpected() > 0)
            .map(|(i, r)| format!("rank {i}: {}", r.mpi.unexpected()))
            .collect();
        if !leftover.is_empty() {
            let n = leftover.len();
            let shown: Vec<String> = leftover.into_iter().take(SHOWN).collect();
            out.push_str(&format!(
                "  messages that arrived and no receive matched, on {n} ranks: {}{}\n",
                shown.join(", "),
                if n > SHOWN { ", ..." } else { "" }
            ));
        }
        out
    }
}

/// Refuses, with a clear message, a scenario whose network and ranks could not fit in this
/// machine's memory (rather than dying on a failed allocation part way through building it).
fn fits_in_memory(s: &Scenario) -> anyhow::Result<()> {
    let net = &s.network;
    let terminals = net.terminals(s.node.nics_per_node);
    let (routers, ports, vcs) = Topo::size(net, s.node.nics_per_node);
    if routers * ports * vcs + terminals >= u32::MAX as u64 {
        anyhow::bail!(
            "{}: key `network.topology`: {routers} routers of {ports} ports are more than \
             mgensim can address",
            s.path.display()
        );
    }
    let nodes = s.nodes();
    // channel (two cache lines, its buffer's credit included, and its backpressure's start and
    // total),
    // neighbour table and pending release time per port; busy bits (on the line with those
    // times) per router; NIC state and injection channel per terminal; then the rank: its
    // engine side and a suspended coroutine of a small script (a stack of 85 slots, call
    // frames, closures, tables), together 3.9-4.0 KB by `bench/run`'s memory per rank
    let per_port = 128 + 16 + 4 + 8;
    let need =
        routers * (ports * per_port + 28) + terminals * (48 + 128 + 16) + s.ranks() * (200 + 3700);
    // what can be had: the memory available now (not the machine's total: other processes
    // hold some), and the process's address-space limit (`ulimit -v`) if it has one
    let available = crate::report::proc_bytes("/proc/meminfo", "MemAvailable:")
        .or_else(|| crate::report::proc_bytes("/proc/meminfo", "MemTotal:"));
    let mut limit = available.map(|a| (a, "the memory this machine has available now"));
    #[cfg(unix)]
    {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given
        if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } == 0
            && r.rlim_cur != libc::RLIM_INFINITY
            && limit.map_or(true, |(a, _)| r.rlim_cur < a)
        {
            limit = Some((r.rlim_cur, "the process's address-space limit (ulimit -v)"));
        }
    }
    if let Some((total, what)) = limit {
        if need > total {
            anyhow::bail!(
                "{}: key `network.dims`: {nodes} nodes and {} ranks need about {} of memory, \
                 more than {what}, {}",
                s.path.display(),
                s.ranks(),
                crate::units::Bytes(need),
                crate::units::Bytes(total)
            );
        }
    }
    Ok(())
}

/// The first line of a traceback that is the script's (not the prelude's, not C).
fn script_line(tb: &str) -> &str {
    let line = tb
        .lines()
        .map(str::trim)
        .find(|l| {
            !l.starts_with("[C]")
                && !l.contains("mgensim prelude")
                && !l.starts_with("stack traceback")
                && !l.starts_with("(...tail calls...)")
        })
        .unwrap_or("");
    line.split(": in ").next().unwrap_or(line)
}

/// Warnings about what a finished run's scripts left behind: puts delivered and never polled,
/// messages that arrived and were never received, receives never matched, requests never
/// waited for. Each names the count and the first ranks concerned.
pub fn leftovers(w: &World) -> Vec<String> {
    const SHOWN: usize = 8;
    type Count = fn(&Rank) -> u64;
    let kinds: [(&str, Count); 5] = [
        ("puts delivered and never polled (MGEN_rdma_poll)", |r| {
            r.unpolled()
        }),
        ("messages arrived and never received", |r| {
            r.mpi.unexpected() as u64
        }),
        ("receives posted and never matched", |r| {
            r.mpi.posted() as u64
        }),
        ("requests never waited for (MGEN_Wait)", |r| {
            r.mpi.unwaited() as u64
        }),
        ("regions begun and never ended (MGEN_region_begin)", |r| {
            r.regions as u64
        }),
    ];
    let mut out = Vec::new();
    for (what, count) in kinds {
        let per: Vec<(usize, u64)> = w
            .ranks
            .iter()
            .enumerate()
            .map(|(i, r)| (i, count(r)))
            .filter(|&(_, n)| n > 0)
            .collect();
        if per.is_empty() {
            continue;
        }
        let total: u64 = per.iter().map(|&(_, n)| n).sum();
        let shown: Vec<String> = per
            .iter()
            .take(SHOWN)
            .map(|(i, n)| format!("rank {i}: {n}"))
            .collect();
        out.push(format!(
            "{total} {what}, on {} ranks ({}{})",
            per.len(),
            shown.join(", "),
            if per.len() > SHOWN { ", ..." } else { "" }
        ));
    }
    out
}
