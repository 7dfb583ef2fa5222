//! One partition and the Lua state of its ranks: what the engine hands a thread to simulate a
//! window (`windows.rs`). Within a window a runner alternates between its partition's events
//! and its ranks' coroutines, exactly as a one-partition run does.

use super::Stop;
use crate::config::Limits;
use crate::limits::Limit;
use crate::part::{Next, Part};
use crate::script::{Outcome, Scripts};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Why [`Runner::run_window`] returned without a stop.
pub(crate) enum Pause {
    /// Nothing is left before the window's end.
    Done,
    /// A look at the limits (every [`crate::limits::CHECK_EVERY`] events), for the engine's
    /// progress display; the window goes on at the next call.
    Checkpoint,
}

/// A partition and its scripts.
pub(crate) struct Runner {
    pub(crate) part: Rc<RefCell<Part>>,
    pub(crate) scripts: Scripts,
    /// The stops this partition reached and the engine has not taken yet
    /// ([`Runner::take_stops`]).
    stops: RefCell<Vec<Stop>>,
    /// Where this partition's stops end the run (ps, exclusive; `u64::MAX`: no stop): it
    /// simulates nothing at or after it.
    horizon: Cell<u64>,
}

// SAFETY: a runner is a partition's state and its Lua state together; everything in it that
// is not `Send` (the `Rc` of the partition its Lua functions hold, the Lua state itself, the
// raw pointers to its coroutines) points only within the runner, never to another runner or
// to anything the engine's threads share (`perf/slab.rs`). A runner is used by one thread at a
// time (the engine hands each to one thread per window, with a barrier in between), so moving
// it as a whole between threads is what running it on one thread would do. Lua itself keeps
// no thread-local state, and neither does mlua (checked for the version we build).
unsafe impl Send for Runner {}

impl Runner {
    /// A runner of partition `part` with its Lua state.
    pub(crate) fn new(part: Rc<RefCell<Part>>, scripts: Scripts) -> Runner {
        Runner {
            part,
            scripts,
            stops: RefCell::new(Vec::new()),
            horizon: Cell::new(u64::MAX),
        }
    }

    /// Simulates this partition until its window ends (nothing left before `until`, in ps):
    /// events, and the ranks they wake; returns at a look at the limits when `pause` (to show
    /// progress).
    ///
    /// A rank whose script fails, or that a limit stops, never runs again, and its stop is
    /// kept ([`Runner::take_stops`]): the partition goes on to the end of the stop's epoch
    /// ([`Runner::stop_horizon`]), no further, as every partition does, so that a stopped
    /// run's figures are the same for any partitioning (windows never cross an epoch). Only a
    /// stop that leaves the partition unable to go on (a full pool of records, a Lua state out
    /// of memory) is returned at once.
    pub(crate) fn run_window(
        &self,
        until: u64,
        limits: &Limits,
        pause: bool,
    ) -> Result<Pause, Stop> {
        {
            let mut w = self.part.borrow_mut();
            w.set_until(until.min(self.horizon.get()));
        }
        loop {
            let next = self.part.borrow_mut().advance();
            let r = match next {
                Next::Wake(r) => r,
                Next::Checkpoint => {
                    self.part.borrow_mut().look_at_limits();
                    self.check_stop(limits)?;
                    if pause {
                        return Ok(Pause::Checkpoint);
                    }
                    continue;
                }
                Next::Idle => return Ok(Pause::Done),
            };
            if !self.part.borrow_mut().begin_turn(r) {
                continue;
            }
            match self.scripts.resume(r) {
                // (a script that yielded on its own goes on at its clock)
                Outcome::Blocked => {
                    let over = self.part.borrow_mut().turn_yielded(r);
                    if let Some(limit) = over {
                        let at = self.location(r);
                        self.part.borrow_mut().rank_stopped(r, limit, at);
                    }
                }
                Outcome::Finished => self.part.borrow_mut().rank_finished(r),
                Outcome::Failed(message) => {
                    let (who, time) = self.part.borrow_mut().rank_failed(r);
                    self.keep(Stop::Script {
                        rank: r,
                        who,
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
                    self.part.borrow_mut().rank_stopped(r, limit, at);
                }
            }
            // a stop recorded while the rank ran (by its instruction hook), even one its
            // own pcall caught
            self.check_stop(limits)?;
        }
    }

    /// Keeps `stop`, and lowers the partition's end to the stop's horizon.
    #[cold]
    fn keep(&self, stop: Stop) {
        let mut w = self.part.borrow_mut();
        let horizon = self.horizon.get().min(w.stop_horizon());
        self.horizon.set(horizon);
        w.lower_until(horizon);
        drop(w);
        if let Stop::Limit {
            limit: Limit::Interrupt | Limit::WallTime,
            ..
        } = stop
        {
            // (the ranks resumed while the run winds down are stopped at once)
            self.scripts.hook_at_once();
        }
        self.stops.borrow_mut().push(stop);
    }

    /// The stops this partition reached since the last call, and the end of the epoch they
    /// fell in (ps; `u64::MAX` if none).
    pub(crate) fn take_stops(&self) -> (Vec<Stop>, u64) {
        let stops = std::mem::take(&mut *self.stops.borrow_mut());
        (stops, self.horizon.get())
    }

    /// What this partition has left to do, for planning the next window: when it next has
    /// something to do (ps; `u64::MAX`: nothing) and the shortest packet it holds in a buffer
    /// fed across a cut (wire bytes; `u32::MAX`: none).
    pub(crate) fn next(&self) -> (u64, u32) {
        let mut w = self.part.borrow_mut();
        (w.next_time(), w.shortest_held_across().unwrap_or(u32::MAX))
    }

    /// Keeps the stop recorded in this partition's watch, if any; returns a pool of records in
    /// flight that is full as an error (the partition cannot go on). (Asked after every resume
    /// of a rank: the common answer, none, is inlined at the caller.)
    #[inline]
    pub(crate) fn check_stop(&self, limits: &Limits) -> Result<(), Stop> {
        if !self.part.borrow().may_stop() {
            return Ok(());
        }
        self.stop_found(limits)
    }

    /// [`Runner::check_stop`] when something may be wrong.
    #[cold]
    #[inline(never)]
    fn stop_found(&self, limits: &Limits) -> Result<(), Stop> {
        let stop = {
            let mut w = self.part.borrow_mut();
            if let Some(full) = w.overflow() {
                return Err(Stop::Capacity {
                    time: w.now(),
                    message: full,
                });
            }
            let Some((limit, rank, at, time)) = w.take_stop() else {
                return Ok(());
            };
            Stop::Limit {
                limit,
                rank,
                time,
                message: limit.explain(limits, time, rank, at.as_deref()),
            }
        };
        if let Stop::Limit {
            limit: Limit::LuaMemory,
            ..
        } = stop
        {
            // (the Lua state is full, and its limit lifted to say where: nothing more runs)
            return Err(stop);
        }
        self.keep(stop);
        Ok(())
    }

    /// `file:line` where rank `r`'s script is (for a stop at the memory limit).
    pub(crate) fn location(&self, r: u32) -> Option<String> {
        let tb = self.scripts.where_(r);
        let line = super::diagnostics::script_line(&tb);
        (!line.is_empty()).then_some(line)
    }
}
