//! The engine: the loop that alternates between the event core and the rank coroutines, and
//! the driver a run is started, watched and ended through ([`Simulation`]). The model's state
//! and its operations are the world's (`world.rs`); what the engine says about a run that
//! cannot go on is in `diagnostics.rs`.
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

mod diagnostics;

use crate::config::Scenario;
use crate::event::Event;
use crate::limits::Limit;
use crate::probe::Probes;
use crate::rank::Status;
use crate::report::Report;
use crate::script::{Outcome, Scripts};
use crate::units::Time;
use crate::world::Next;
use crate::world::World;
use diagnostics::{fits_in_memory, leftovers, script_line};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

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
        /// Simulated time at the stop.
        time: Time,
        /// What it says, and how to raise it.
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
        if !p.buffer_history.is_empty() && w.nics.flow.is_some() {
            anyhow::bail!(
                "--buffer-history: the flow model (network.model = \"flow\") has no buffers: \
                 messages move as flows, not packets through routers; use the packet model for \
                 buffer histories"
            );
        }
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
        let for_report = p.report && channels <= crate::probe::REPORT_CHANNELS;
        match p.interval {
            Some(Time::ZERO) => anyhow::bail!("--interval must be longer than 0 ps"),
            Some(i) => w.net.series = Some(Box::new(LinkSeries::new(i.ps(), false, channels))),
            None if p.adaptive || for_report => {
                w.net.series = Some(Box::new(LinkSeries::new(1_000, true, channels)))
            }
            None => w.net.series = None,
        }
        w.series_in_files = p.interval.is_some() || p.adaptive;
        w.net.history = (!p.buffer_history.is_empty())
            .then(|| Box::new(BufferHistory::new(p.buffer_history.clone())));
        let for_report = p.report && w.ranks.len() <= crate::probe::REPORT_RANKS;
        let ranks = w.ranks.len() as u32;
        w.trace = match (p.trace, for_report) {
            (true, _) => Some(Box::new(crate::probe::trace::Trace::new(ranks))),
            (false, true) => Some(Box::new(crate::probe::trace::Trace::bounded(
                ranks,
                crate::probe::REPORT_SPANS,
            ))),
            _ => None,
        };
        Ok(())
    }

    /// Calls `f` with the run's progress every [`crate::limits::CHECK_EVERY`] events.
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
    ///
    /// At flow level, it checks instead that every selective update gives the rates a
    /// max-min of all the flows gives (a pass over all of them per recomputation).
    pub fn self_check(&mut self) {
        let mut w = self.world.borrow_mut();
        w.self_check = true;
        if let Some(f) = w.nics.flow.as_deref_mut() {
            f.check = true;
        }
    }

    /// At flow level, turns the ripple of the selective update off (`net/flow/maxmin.rs`):
    /// every recomputation then fills again all the flows at or above the change's level.
    /// The rates, and so every figure, are the same either way; this is for the tests that
    /// say so.
    pub fn flow_ripple(&mut self, on: bool) {
        if let Some(f) = self.world.borrow_mut().nics.flow.as_deref_mut() {
            f.use_ripple(on);
        }
    }

    /// Turns the engine's cache tactics on or off for the whole run, whatever the size of the
    /// network's state: the prefetch stages. By default they are on while that state is
    /// larger than 8 MiB (`PREFETCH_ABOVE`). They change what is in the cache, never what the
    /// run computes; this is for the tests that say so.
    pub fn cache_tactics(&mut self, on: bool) {
        let mut w = self.world.borrow_mut();
        w.tactics = Some(on);
        w.prefetching = on;
        w.net.prefetching = on;
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

    /// The summary of the run as it stands. Ranks that have not finished are listed with what
    /// they wait for and their script line, and on the timeline a blocked one's wait runs to
    /// the stop.
    fn report(&self, started: Instant, partial: bool) -> Report {
        let (unfinished, end) = {
            let mut guard = self.world.borrow_mut();
            let w = &mut *guard;
            let end = w
                .ranks
                .iter()
                .map(|r| r.clock)
                .max()
                .unwrap_or(Time::ZERO)
                .max(w.now);
            w.net.settle_all(end);
            let open: Vec<u32> = (0..w.ranks.len() as u32)
                .filter(|&r| w.ranks[r as usize].status != Status::Done)
                .collect();
            // a traceback per rank: all of them for the timeline (up to a bound), the first
            // few for the summary
            let traced = if w.trace.is_some() { 4096 } else { 0 };
            let mut listed = Vec::new();
            for (i, &r) in open.iter().enumerate() {
                if i >= crate::report::UNFINISHED_LISTED.max(traced) {
                    break;
                }
                let rank = &w.ranks[r as usize];
                let blocked = rank.status == Status::Blocked;
                let waits_for = if blocked {
                    diagnostics::waits_for(w, r)
                } else {
                    String::new()
                };
                let at = w
                    .replays
                    .position(r)
                    .unwrap_or_else(|| script_line(&self.scripts.where_(r)).to_string());
                let since = rank.clock.ps();
                if let (true, Some(tr)) = (blocked, w.trace.as_deref_mut()) {
                    tr.stuck(r, since, end.ps(), waits_for.clone(), at.clone());
                }
                if i < crate::report::UNFINISHED_LISTED {
                    listed.push(crate::report::Unfinished {
                        rank: r,
                        name: w.nodes.name(r),
                        state: if blocked { "blocked" } else { "running" }.to_string(),
                        since_ps: since,
                        waits_for,
                        at,
                    });
                }
            }
            (listed, end.ps())
        };
        let w = self.world.borrow();
        let mut r = Report::new(
            &self.scenario,
            &w,
            started.elapsed(),
            self.scripts.memory(),
            unfinished,
            end,
        );
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
                detail: diagnostics::deadlock_detail(&w, &blocked, |r| self.scripts.where_(r)),
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
        let jobs: Vec<String> = self.scenario.jobs.iter().map(|j| j.name.clone()).collect();
        report.warnings.extend(self.scripts.unread_args(&jobs));
        report
            .warnings
            .extend(self.world.borrow().replays.warnings());
        Ok(report)
    }

    /// `file:line` where rank `r`'s script is (for a stop at the memory limit).
    fn location(&self, r: u32) -> Option<String> {
        let tb = self.scripts.where_(r);
        let line = script_line(&tb);
        (!line.is_empty()).then(|| line.to_string())
    }
}
