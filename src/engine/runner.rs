//! One partition and the Lua state of its ranks: what the engine hands a thread to simulate a
//! window (`windows.rs`). Within a window a runner alternates between its partition's events
//! and its ranks' coroutines, exactly as a one-partition run does.

use super::Stop;
use crate::config::Limits;
use crate::limits::Limit;
use crate::part::{Next, Part};
use crate::rank::Status;
use crate::script::{Outcome, Scripts};
use std::cell::RefCell;
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
    /// Simulates this partition until its window ends (nothing left before `until`, in ps):
    /// events, and the ranks they wake. Stops early, with why, at a rank's error or a limit;
    /// returns at a look at the limits when `pause` (to show progress).
    pub(crate) fn run_window(
        &self,
        until: u64,
        limits: &Limits,
        pause: bool,
    ) -> Result<Pause, Stop> {
        self.part.borrow_mut().until = until;
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
            {
                let mut w = self.part.borrow_mut();
                w.current = r;
                w.ranks[r as usize].status = Status::Running;
                w.trace_wake(r);
            }
            match self.scripts.resume(r) {
                Outcome::Blocked => {
                    let mut guard = self.part.borrow_mut();
                    let w = &mut *guard;
                    let rank = &mut w.ranks[r as usize];
                    if rank.status == Status::Running {
                        // the script yielded on its own: let it go on at its clock
                        let clock = rank.clock;
                        rank.wake(r, clock, &mut w.queue);
                    }
                }
                Outcome::Finished => {
                    let mut w = self.part.borrow_mut();
                    w.ranks[r as usize].end();
                    w.finished += 1;
                }
                Outcome::Failed(message) => {
                    let w = self.part.borrow();
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
                    self.part.borrow_mut().watch.record(limit, Some(r), at);
                }
            }
            // a stop recorded while the rank ran (by its instruction hook), even one its
            // own pcall caught
            self.check_stop(limits)?;
        }
    }

    /// What this partition has left to do, for planning the next window: when it next has
    /// something to do (ps; `u64::MAX`: nothing) and the shortest packet it holds in a buffer
    /// fed across a cut (wire bytes; `u32::MAX`: none).
    pub(crate) fn next(&self) -> (u64, u32) {
        let mut w = self.part.borrow_mut();
        (
            w.next_time(),
            w.net.shortest_held_across().unwrap_or(u32::MAX),
        )
    }

    /// The stop recorded in this partition's watch, or a pool of records in flight that is
    /// full, if any, as an error. (Asked after every resume of a rank: the common answer,
    /// none, is inlined at the caller.)
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
        let w = self.part.borrow();
        if let Some(full) = w.overflow() {
            return Err(Stop::Capacity {
                time: w.now,
                message: full,
            });
        }
        let Some((limit, rank, at)) = &w.watch.hit else {
            return Ok(());
        };
        let (limit, rank) = (*limit, *rank);
        let time = rank.map_or(w.now, |r| w.ranks[r as usize].clock.max(w.now));
        Err(Stop::Limit {
            limit,
            time,
            message: limit.explain(limits, time, rank, at.as_deref()),
        })
    }

    /// `file:line` where rank `r`'s script is (for a stop at the memory limit).
    pub(crate) fn location(&self, r: u32) -> Option<String> {
        let tb = self.scripts.where_(r);
        let line = super::diagnostics::script_line(&tb);
        (!line.is_empty()).then_some(line)
    }
}
