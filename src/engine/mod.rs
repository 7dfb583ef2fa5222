//! The engine: the driver a run is started, watched and ended through ([`Simulation`]). The
//! run is cut into partitions (`partition.rs`), each with its Lua state (`runner.rs`: the
//! loop that alternates between a partition's events and its ranks' coroutines), simulated
//! window by window (`windows.rs`, on threads: `threads.rs`) and gathered at the end into
//! one report. The model's state and its operations are a partition's (`part/`); what the
//! engine says about a run that cannot go on is in `diagnostics.rs`.
//!
//! Data flows one way: a script calls the API (operations) → the NIC cuts packets → routers
//! and links move them as events → deliveries and completions wake ranks → scripts go on.
//!
//! ```
//! use mgensim::{Scenario, Simulation};
//! let s = Scenario::from_str_with(
//!     "[network]\ndims = [2]\n[workload]\ncode = '''
//!        if MGEN_Comm_rank() == 0 then MGEN_acp_complete(MGEN_rdma_put(1, 8, 0))
//!        else MGEN_rdma_poll(0) end'''\n",
//!     std::path::Path::new("doc.toml"), &[], false).unwrap();
//! let report = Simulation::new(&s).unwrap().run().unwrap();
//! assert_eq!(report.network.packets, 2); // the data and its control packet
//! ```

mod across;
mod diagnostics;
mod governor;
mod runner;
mod stopped;
mod threads;
mod windows;
pub(crate) mod world;

use crate::config::Scenario;
use crate::limits::Limit;
use crate::part::Part;
use crate::partition::Partitioning;
use crate::probe::Probes;
use crate::rank::Status;
use crate::report::Report;
pub(crate) use crate::report::{Execution, WindowStats};
use crate::script::Scripts;
use crate::units::Time;
use diagnostics::{fits_in_memory, leftovers, script_line};
use runner::Runner;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;
use windows::Windows;

/// Lua heap (bytes, all partitions' states together) from which the ended ranks' garbage is
/// collected and given back before the report is made: about 3,000 ranks of a barrier. The
/// collection takes about 0.4 ms per MB (3 % of a 4,096-rank barrier's run, less of anything
/// longer); below this it would save a few megabytes nobody misses.
const FREE_LUA_FROM: usize = 8 << 20;

/// Why a run stopped before every rank finished.
#[derive(Debug, thiserror::Error)]
pub enum Stop {
    #[error("{who} failed at simulated time {time}:\n{message}")]
    /// A rank's script raised an error.
    Script {
        /// The rank (global).
        rank: u32,
        /// The rank as messages name it (with its job when there are several).
        who: String,
        /// Its clock then.
        time: Time,
        /// The error, its line and traceback.
        message: String,
    },
    /// Every unfinished rank is blocked and nothing is in flight.
    #[error("deadlock at simulated time {time}: every unfinished rank is blocked and nothing is in flight\n{detail}")]
    Deadlock {
        /// Simulated time when nothing was left to do.
        time: Time,
        /// Who waits for what, at which line.
        detail: String,
    },
    /// A limit of `[limits]`, `--timeout`, or Ctrl-C.
    #[error("{message}")]
    Limit {
        /// Which limit.
        limit: Limit,
        /// The rank it stopped, if it stopped one (the instruction budget, or Ctrl-C and the
        /// wall clock in a rank that ran long), else None (a limit of the whole run).
        rank: Option<u32>,
        /// Simulated time at the stop.
        time: Time,
        /// What it says, and how to raise it.
        message: String,
    },
    /// The engine caught itself breaking one of its own invariants: a bug in mgensim.
    #[error("internal error (a bug in mgensim; please report it with the scenario): {0}")]
    Internal(String),
    /// More records in flight at once than mgensim can hold (transfers, sends or messages
    /// issued faster than they complete).
    #[error("at simulated time {time}: {message}")]
    Capacity {
        /// Simulated time then.
        time: Time,
        /// What overflowed, and why.
        message: String,
    },
}

/// A run that did not finish: why, and what it had computed until then.
#[derive(Debug, thiserror::Error)]
#[error("{stop}")]
pub struct SimError {
    /// Why it stopped.
    pub stop: Stop,
    /// The report of the run so far, marked `partial` (None if it stopped before starting).
    pub partial: Option<Box<Report>>,
}

/// How far a run has got, for a progress display (handed over every few thousand events).
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Simulated time.
    pub now: Time,
    /// Events processed so far.
    pub events: u64,
    /// Ranks whose script has ended, of `ranks`.
    pub finished: u32,
    /// Ranks in the run.
    pub ranks: u32,
}

/// One simulation: its partitions, each with the Lua state of its ranks.
pub struct Simulation {
    runners: Vec<Runner>,
    parts: Partitioning,
    scenario: Scenario,
    /// Called with the progress now and then (not on the hot path).
    progress: RefCell<Option<ProgressFn>>,
    /// The process exits after this run: its memory is left to the operating system
    /// ([`Simulation::last_in_process`]).
    last: bool,
    /// Threads to run the partitions on (`engine.threads`, `--threads`), at most one per
    /// partition.
    threads: u32,
    /// Threads asked for (`engine.threads`, else every core).
    threads_asked: u32,
    /// Whether the partitions have applied the releases due by the run's end.
    settled: std::cell::Cell<bool>,
    /// Whether every partition's counts and records have been gathered into the first
    /// ([`Simulation::gather`]; a whole view for a deadlock's report may come before).
    gathered: std::cell::Cell<bool>,
    /// Tests' switch for the end state packed (`part/pack.rs`): once every partition has
    /// settled, each but the first packs its end state, forgets it and reads it back, as a
    /// process that gathers partitions other processes ran would; the bytes of each are
    /// pushed here. The outputs must not change.
    /// The figures of each: `[(bytes, links), (bytes, ranks)]` of `Part::pack_parts` and the
    /// whole's bytes.
    pub(crate) pack_gather: Option<Rc<RefCell<Vec<PackedSize>>>>,
    /// The MPI job this run is spread over (`engine/across.rs`; None: one process).
    world: Option<world::World>,
    /// What the root gathered of every process (None: one process).
    across: RefCell<Option<across::Across>>,
}

/// The bytes of one partition's end state packed, and of them its links' and its ranks', with
/// their counts (`Part::pack_parts`).
pub(crate) type PackedSize = (usize, [(usize, usize); 2]);

/// What [`Simulation::on_progress`] calls.
type ProgressFn = Box<dyn FnMut(Progress)>;

impl Simulation {
    /// Builds the network and the ranks, cut into partitions (`engine.partitions`, else the
    /// network's default), and compiles the workload in each partition's Lua state.
    pub fn new(s: &Scenario) -> anyhow::Result<Simulation> {
        fits_in_memory(s)?;
        let want = (s.engine.partitions > 0).then_some(s.engine.partitions);
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        // (by default every core, for a network cut in as many partitions as it gains from)
        let threads = match s.engine.threads {
            0 => cores,
            n => n,
        };
        let (parts_state, parts) = Part::build(s, want, threads);
        // each rank's place among its partition's
        let mut local = vec![0u32; parts.rank.len()];
        let mut seen = vec![0u32; parts.count as usize];
        for (r, &p) in parts.rank.iter().enumerate() {
            local[r] = seen[p as usize];
            seen[p as usize] += 1;
        }
        let local: Arc<[u32]> = local.into();
        let mut runners = Vec::with_capacity(parts_state.len());
        for part in parts_state {
            let part = Rc::new(RefCell::new(part));
            let scripts = Scripts::new(part.clone(), s, local.clone())?;
            runners.push(Runner::new(part, scripts));
        }
        let threads_asked = threads;
        let threads = threads.min(parts.count);
        Ok(Simulation {
            runners,
            parts,
            scenario: s.clone(),
            progress: RefCell::new(None),
            last: false,
            threads,
            threads_asked,
            settled: std::cell::Cell::new(false),
            gathered: std::cell::Cell::new(false),
            pack_gather: None,
            world: None,
            across: RefCell::new(None),
        })
    }

    /// Says that the process exits right after this run: when [`Simulation::run`] returns,
    /// the network, the ranks and the Lua states are not freed piece by piece (a full
    /// collection and a `free` per Lua object, 3 % of a 512-rank barrier's instructions and
    /// more with every rank) but left to the operating system, which takes the process's
    /// memory back at once. Lua finalizers (`__gc`) of the scripts' objects then do not run;
    /// files they left open are flushed and closed by the exit as usual. Not for a process
    /// that runs anything after (a sweep, a baseline run, a test).
    pub(crate) fn last_in_process(&mut self) {
        self.last = true;
    }

    /// Records, in this run, what `p` asks for beyond the summary. Errors name a router that
    /// does not exist or an empty interval.
    pub fn probe(&mut self, p: &Probes) -> anyhow::Result<()> {
        for run in &self.runners {
            let memory = self.scenario.limits.time_series_memory.0;
            run.part.borrow_mut().record(p, memory)?;
        }
        Ok(())
    }

    /// Calls `f` with the run's progress now and then (every few thousand events).
    pub fn on_progress(&mut self, f: impl FnMut(Progress) + 'static) {
        self.progress = RefCell::new(Some(Box::new(f)));
    }

    fn show_progress(&self, ranks: u32) {
        if let Some(f) = self.progress.borrow_mut().as_mut() {
            let mut p = Progress {
                now: Time::ZERO,
                events: 0,
                finished: 0,
                ranks,
            };
            for run in &self.runners {
                let w = run.part.borrow();
                p.now = p.now.max(w.now());
                p.events += w.events();
                p.finished += w.finished();
            }
            f(p);
        }
    }

    /// Checks, whenever simulated time moves on, that the network is work-conserving: no link
    /// idle while a packet is ready for it and the buffer it feeds has room (a missed wake-up
    /// would leave it so). A run that breaks this ends with an internal error. It costs a pass
    /// over every channel per distinct event time: for tests on small networks.
    ///
    /// At flow level, it checks instead that every selective update gives the rates a
    /// max-min of all the flows gives (a pass over all of them per recomputation).
    pub fn self_check(&mut self) {
        for run in &self.runners {
            run.part.borrow_mut().check_itself();
        }
    }

    /// At flow level, turns the ripple of the selective update off (`net/flow/maxmin.rs`):
    /// every recomputation then fills again all the flows at or above the change's level.
    /// The rates, and so every figure, are the same either way; this is for the tests that
    /// say so.
    pub fn flow_ripple(&mut self, on: bool) {
        for run in &self.runners {
            run.part.borrow_mut().flow_ripple(on);
        }
    }

    /// Turns the engine's cache tactics on or off for the whole run, whatever the size of the
    /// network's state: the prefetch stages. By default they are on while that state is
    /// larger than 4 MiB (`PREFETCH_ABOVE`). They change what is in the cache, never what the
    /// run computes; this is for the tests that say so.
    pub fn cache_tactics(&mut self, on: bool) {
        for run in &self.runners {
            run.part.borrow_mut().force_tactics(on);
        }
    }

    /// Stops the run, with a partial report, as soon as `flag` is set (by a Ctrl-C handler).
    pub(crate) fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        world::share_interrupt(&flag);
        for run in &self.runners {
            run.part.borrow_mut().set_interrupt(flag.clone());
        }
    }

    /// `limits.wall_time` counts from `origin` (the process's start: setting up counts too).
    pub(crate) fn count_wall_time_from(&mut self, origin: Instant) {
        for run in &self.runners {
            run.part.borrow_mut().count_from(origin);
        }
    }

    /// Spreads the run over `world`'s processes (built with `engine.processes` = its size):
    /// each runs its group's partitions on `threads` threads at most (one per partition), the
    /// root writes the report.
    pub(crate) fn spread_over(&mut self, world: world::World, threads: u32) {
        if world.size() > 1 {
            let mine = (0..self.parts.count)
                .filter(|&p| {
                    crate::perf::stable::group_of(p, self.parts.count, self.parts.processes)
                        == world.rank()
                })
                .count() as u32;
            self.threads = threads.clamp(1, mine.max(1));
            self.threads_asked = threads;
            self.world = Some(world);
        }
    }

    /// The process groups the partitions are simulated as.
    pub(crate) fn processes(&self) -> u32 {
        self.parts.processes
    }

    /// Whether this process runs partition `p` (all of them in one process).
    fn runs_here(&self, p: usize) -> bool {
        self.world.as_ref().is_none_or(|w| {
            crate::perf::stable::group_of(p as u32, self.parts.count, self.parts.processes)
                == w.rank()
        })
    }

    /// Runs every rank to its end.
    pub fn run(mut self) -> Result<Report, SimError> {
        let started = Instant::now();
        let nranks = self.parts.rank.len() as u32;
        let here: Vec<bool> = (0..self.runners.len()).map(|p| self.runs_here(p)).collect();
        for (run, _) in self.runners.iter().zip(&here).filter(|(_, h)| **h) {
            let mine = run.part.borrow().mine().to_vec();
            if let Err(e) = run.scripts.spawn(&mine) {
                if let Some(world) = &self.world {
                    // (the other processes would wait for this one in the first window)
                    world.abort(1, &format!("rank 0 failed at simulated time 0 ps:\n{e}"));
                }
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
        }
        let mut windows = Windows::new(&self.runners, self.parts.processes, &self.scenario.limits);
        for (run, _) in self.runners.iter().zip(&here).filter(|(_, h)| **h) {
            // (when the engine counts the events, at the ends of epochs, it applies their
            // limit)
            run.part
                .borrow_mut()
                .start(self.scenario.limits.wall_time, windows.counts_events());
        }
        let result = match self.world.take() {
            Some(world) => self.run_across(world, &mut windows, started),
            None => match self.drive(&mut windows, nranks) {
                Ok(()) => self.finish(started, windows.stats),
                Err(stop) => Err(self.stopped(stop, started, windows.stats)),
            },
        };
        if self.last {
            let mut this = self;
            // (the watchdogs' threads still end as usual: their safety rests on that)
            for run in &mut this.runners {
                run.scripts.stop_watchdog();
            }
            std::mem::forget(this);
        }
        result
    }

    /// The run's end: the latest of its ranks' clocks and its partitions' times.
    fn end(&self) -> Time {
        if let Some(a) = self.across.borrow().as_ref() {
            return a.end;
        }
        self.runners
            .iter()
            .map(|run| run.part.borrow().latest())
            .max()
            .unwrap_or(Time::ZERO)
    }

    /// The latest event any partition processed.
    fn reached(&self) -> Time {
        let now = self.runners.iter().map(|run| run.part.borrow().now());
        now.max().unwrap_or(Time::ZERO)
    }

    /// Every partition applies the releases due by `end` (ps), once: before partition 0 sees
    /// the whole network (the releases are in each partition's own records).
    fn settle(&self, end: Time) {
        if self.settled.replace(true) {
            return;
        }
        for run in &self.runners {
            run.part.borrow_mut().settle(end);
        }
        if let Some(sizes) = &self.pack_gather {
            for run in &self.runners[1..] {
                let mut p = run.part.borrow_mut();
                let (bytes, parts) = p.pack_parts();
                p.wipe_end();
                p.unpack_end(&bytes)
                    .unwrap_or_else(|e| panic!("the end state packed by this build: {e}"));
                sizes.borrow_mut().push((bytes.len(), parts));
            }
        }
    }

    /// The runner of rank `r`'s partition.
    fn runner_of(&self, r: u32) -> &Runner {
        &self.runners[self.parts.rank[r as usize] as usize]
    }

    /// The summary of the run as it stands. Ranks that have not finished are listed with what
    /// they wait for and their script line, and on the timeline a blocked one's wait runs to
    /// the stop (`stopped_at`, else the run's end). Gathers every partition into the first
    /// (the run is over).
    fn report(
        &self,
        started: Instant,
        partial: bool,
        windows: WindowStats,
        stopped_at: Option<Time>,
    ) -> Report {
        let lua: usize = match self.across.borrow().as_ref() {
            Some(a) => a.lua,
            None => self.runners.iter().map(|run| run.scripts.memory()).sum(),
        };
        if lua >= FREE_LUA_FROM {
            // What is made from here on (the partitions gathered into one, the report's rows
            // per link and per rank) would otherwise be made beside the ended ranks' garbage
            // and raise the peak by its whole size.
            for run in &self.runners {
                run.scripts.collect();
            }
            crate::perf::hugepages::trim();
        }
        // a line a script left unended is ended before anything else is written
        for run in &self.runners {
            run.part.borrow_mut().end_unsaid();
        }
        let end = self.end();
        // (a run stopped by a limit ends at the stop: what was still going on then counts up
        // to it, `Network::settle_all`)
        let until = stopped_at.unwrap_or(end);
        self.settle(until);
        if stopped_at.is_some() {
            // (a rank that ran ahead of a limit's stop reads as it was at the stop)
            for run in &self.runners {
                run.part.borrow_mut().cut_at(until);
            }
        }
        let nranks = self.parts.rank.len() as u32;
        // (a rank whose script ended past the stop was still going then: `finished_by`)
        let open: Vec<u32> = (0..nranks)
            .filter(|&r| {
                let w = self.runner_of(r).part.borrow();
                !crate::report::finished_by(w.rank(r), until.ps())
            })
            .collect();
        // a traceback per rank: all of them for the timeline (up to a bound), the first few
        // for the summary
        let traced = if self.runners[0].part.borrow().traced() {
            4096
        } else {
            0
        };
        let mut listed = Vec::new();
        for (i, &r) in open.iter().enumerate() {
            if i >= crate::report::UNFINISHED_LISTED.max(traced) {
                break;
            }
            let run = self.runner_of(r);
            let mut w = run.part.borrow_mut();
            let (status, since) = (w.rank(r).status, w.rank(r).clock.ps());
            let blocked = status == Status::Blocked;
            let (waits_for, at) = match self.across.borrow().as_ref() {
                // (the owner said it, in another process)
                Some(a) => a.open.get(&r).map_or_else(Default::default, |o| {
                    let words = o.blocked.as_ref().map(|b| b.words.clone());
                    (words.unwrap_or_default(), o.at.clone())
                }),
                // (a script that ended past the stop is at no line: a process's owner says
                // none either)
                None if status == Status::Done => Default::default(),
                None => (
                    if blocked {
                        diagnostics::waits_for(&w, r)
                    } else {
                        String::new()
                    },
                    w.replays_read()
                        .position(r)
                        .unwrap_or_else(|| script_line(&run.scripts.where_(r))),
                ),
            };
            if blocked {
                w.trace_stuck(r, since, until.ps(), &waits_for, &at);
            }
            if i < crate::report::UNFINISHED_LISTED {
                listed.push(crate::report::Unfinished {
                    rank: r,
                    name: w.nodes().name(r),
                    state: match status {
                        Status::Blocked => "blocked",
                        // (has its wake-up event: had not run again yet)
                        Status::Ready => "ready",
                        _ => "running",
                    }
                    .to_string(),
                    since_ps: since,
                    waits_for,
                    at,
                });
            }
        }
        self.gather();
        self.runners[0].part.borrow_mut().end_series(until);
        // (the link table first: made as what it is made of is let go)
        let per_link = self.runners[0].part.borrow_mut().take_link_loads(until);
        let w = self.runners[0].part.borrow();
        let mut r = Report::new(
            &self.scenario,
            &w.view(),
            started.elapsed(),
            lua,
            listed,
            until.ps(),
            per_link,
        );
        r.partial = partial;
        if partial {
            // (where the run stopped, the time a stop's message gives: the latest of the
            // ranks' clocks and the events processed, or where a limit stopped it)
            r.predicted_time_ps = stopped_at.map_or(r.predicted_time_ps.max(end.ps()), |t| t.ps());
        }
        r.host.execution = Execution {
            threads: self.threads,
            partitions: self.parts.count,
            unit: self.parts.unit.clone(),
            windows,
            processes: self.parts.processes,
            mpi: self.across.borrow().is_some(),
            note: self.execution_note(),
        };
        r
    }

    /// What the `host` line says of threads the run could not use: a network kept whole, or
    /// too small to gain from being cut, with the flag that would cut it anyway.
    fn execution_note(&self) -> String {
        let p = &self.parts;
        let procs = self.scenario.engine.processes;
        if procs > p.count.max(1) {
            return match p.whole_because {
                Some(why) => format!("{procs} processes asked, simulated as 1: {why}"),
                None => format!(
                    "{procs} processes asked, simulated as {}: the network is cut in {} \
                     partitions at most, one process each at least",
                    p.processes, p.count
                ),
            };
        }
        if let Some(why) = p.whole_because {
            return why.to_string();
        }
        if p.count == 1 && self.threads_asked > 1 && p.gainful == 1 {
            let routers = p.router.len();
            return format!(
                "{} threads asked, but {routers} routers are too few to gain from a cut \
                 (a partition holds about {} routers and two {}): --partitions N cuts it anyway",
                self.threads_asked,
                crate::partition::ROUTERS_PER_PART,
                crate::report::units(&p.unit)
            );
        }
        let asked = self.scenario.engine.partitions;
        if asked > p.count && !self.scenario.engine.separate_partitions {
            return format!(
                "{asked} partitions asked, run as {}: a thread runs its partitions as one; \
                 engine.separate_partitions keeps them apart",
                p.count
            );
        }
        if self.threads_asked > self.threads && p.count > 1 {
            return format!(
                "{} threads asked, one per partition at most: --partitions N cuts more",
                self.threads_asked
            );
        }
        String::new()
    }

    /// Gathers every partition's counts and records into the first, which then sees every
    /// rank and channel (the run is over: no partition runs).
    fn gather(&self) {
        if self.gathered.replace(true) {
            return;
        }
        let mut first = self.runners[0].part.borrow_mut();
        // (at the root of an MPI run the others' link counters, a few tens of MB, go into one
        // list made whole at once)
        let more: usize = self.runners[1..]
            .iter()
            .map(|run| run.part.borrow().ends_held())
            .sum();
        first.reserve_ends(more);
        for run in &self.runners[1..] {
            first.absorb(&mut run.part.borrow_mut());
        }
        first.become_whole();
    }

    /// Simulates the windows until every rank is done, a rank fails or a limit is hit.
    fn drive(&self, windows: &mut Windows, nranks: u32) -> Result<(), Stop> {
        let mut shown = 0u64;
        let progress = || {
            let events: u64 = self.runners.iter().map(|r| r.part.borrow().events()).sum();
            if events >= shown + crate::limits::CHECK_EVERY {
                shown = events;
                self.show_progress(nranks);
            }
        };
        let limits = &self.scenario.limits;
        if self.threads > 1 && self.runners.len() > 1 {
            threads::drive(windows, &self.runners, limits, self.threads, progress)?;
        } else {
            windows.drive(&self.runners, limits, progress)?;
        }
        for run in &self.runners {
            if let Some(s) = run.part.borrow().stalled() {
                // (not a deadlock of the model: a wake-up the engine missed)
                return Err(Stop::Internal(s.clone()));
            }
        }
        self.deadlock(nranks)
    }

    /// The deadlock of a run whose windows ended with ranks not done, if any.
    fn deadlock(&self, nranks: u32) -> Result<(), Stop> {
        let blocked: Vec<u32> = (0..nranks)
            .filter(|&r| self.runner_of(r).part.borrow().rank(r).status != Status::Done)
            .collect();
        if !blocked.is_empty() {
            // (the latest of the last event and the ranks' clocks: a rank may compute on
            // past the network's last event, and finish; the summary says the same time)
            let now = self.end();
            let across = self.across.borrow();
            let open = across.as_ref().map(|a| &a.open);
            let waits = |r: u32| match open.and_then(|o| o.get(&r)?.blocked.clone()) {
                Some(b) => b,
                None => diagnostics::blocked_on(&self.runner_of(r).part.borrow(), r),
            };
            let line = |r: u32| {
                if let Some(o) = open {
                    return o.get(&r).map(|o| o.line.clone()).unwrap_or_default();
                }
                let run = self.runner_of(r);
                let tb = run.scripts.where_(r);
                match run.part.borrow().replays_read().position(r) {
                    // a replaying rank is at a line of its trace
                    Some(pos) => format!("{pos} (replaying; script {})", script_line(&tb)),
                    None => script_line(&tb),
                }
            };
            let mut detail = {
                let whole = self.whole_view();
                diagnostics::deadlock_detail(&whole, &blocked, waits, line)
            };
            // a line the replay skipped may be what a blocked rank waits for
            for w in self.replay_warnings() {
                detail.push_str(&format!("  {}\n", crate::report::escaped(&w)));
            }
            return Err(Stop::Deadlock { time: now, detail });
        }
        Ok(())
    }

    /// The warnings of the traces replayed so far, over every partition.
    fn replay_warnings(&self) -> Vec<String> {
        let parts: Vec<_> = self.runners.iter().map(|r| r.part.borrow()).collect();
        crate::replay::warnings_of(parts.iter().map(|p| p.replays_read()))
    }

    /// A view of partition 0 that sees every rank and channel, for reports made when no
    /// partition runs (before the partitions are gathered).
    fn whole_view(&self) -> std::cell::Ref<'_, Part> {
        self.settle(self.end());
        self.runners[0].part.borrow_mut().become_whole();
        self.runners[0].part.borrow()
    }

    /// Checks the end state (a run that ends with packets or messages in flight has lost
    /// them) and builds the report, with warnings about what the scripts left behind.
    fn finish(&self, started: Instant, windows: WindowStats) -> Result<Report, SimError> {
        let internal = {
            let mut went_back = None;
            let mut stalled = None;
            let (mut packets, mut msgs) = (0, 0);
            for run in &self.runners {
                let (back, stall, p, m) = run.part.borrow().end_state();
                went_back = went_back.or(back);
                stalled = stalled.or(stall);
                packets += p;
                msgs += m;
            }
            if let Some((before, after)) = went_back {
                Some(format!("simulated time went back from {before} to {after}"))
            } else if let Some(s) = stalled {
                Some(s)
            } else if packets != 0 || msgs != 0 {
                Some(format!(
                    "the run ended with {packets} packets and {msgs} NIC messages still in flight"
                ))
            } else {
                None
            }
        };
        if let Some(msg) = internal {
            return Err(SimError {
                stop: Stop::Internal(msg),
                partial: Some(Box::new(self.report(started, true, windows, None))),
            });
        }
        let mut report = self.report(started, false, windows, None);
        report
            .warnings
            .extend(leftovers(&self.runners[0].part.borrow()));
        let jobs: Vec<String> = self.scenario.jobs.iter().map(|j| j.name.clone()).collect();
        let unread = match self.across.borrow().as_ref() {
            Some(a) => crate::script::unread_args_of(
                a.unread.clone(),
                &self.runners[0].part.borrow(),
                &jobs,
            ),
            None => crate::script::unread_args(self.runners.iter().map(|r| &r.scripts), &jobs),
        };
        report.warnings.extend(unread);
        report
            .warnings
            .extend(self.runners[0].part.borrow().replays_read().warnings());
        Ok(report)
    }
}
