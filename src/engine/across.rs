//! A run across the processes of an MPI job (`--features mpi`, `mpirun -np P mgensim run`):
//! every process builds the whole model as `engine.processes = P` and runs the partitions of
//! its group only (`windows/across.rs`); at the end each packs its partitions' end states
//! (`part/pack.rs`) and what its Lua states alone can say (a rank's line, what a blocked rank
//! waits for, unread arguments, its stop), the root gathers them into its never-run copies and
//! makes the report, the deadlock's explanation and every output as one process would; the
//! others write nothing and end with the root's exit status.

use super::diagnostics::{blocked_on, script_line, Blocked};
use super::windows::{earliest, Windows};
use super::world::World;
use super::{SimError, Simulation, Stop};
use crate::limits::Limit;
use crate::packed::{get, put};
use crate::rank::Status;
use crate::report::Report;
use crate::units::Time;
use std::collections::BTreeMap;
use std::time::Instant;

/// What the owner of an unfinished rank says of it (its Lua state and its partition's
/// request are not gathered): what it waits for, and where it is (the report's form, and the
/// deadlock's).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Open {
    pub(crate) blocked: Option<Blocked>,
    pub(crate) at: String,
    pub(crate) line: String,
}

/// What the root knows of the whole run once it has gathered every process.
pub(crate) struct Across {
    /// The run's end (the latest of every partition's).
    pub(crate) end: Time,
    /// Bytes of every process's Lua states.
    pub(crate) lua: usize,
    /// The unfinished ranks, by rank.
    pub(crate) open: BTreeMap<u32, Open>,
    /// Per Lua state of every process: the `MGEN_args` keys its ranks did not read.
    pub(crate) unread: Vec<crate::script::Unread>,
}

/// A [`Stop`] as bytes: `(kind, rank, who, time, message, limit)`.
type StopWire = (u8, Option<u32>, String, u64, String, u8);

fn stop_to_wire(s: &Stop) -> StopWire {
    match s {
        Stop::Script {
            rank,
            who,
            time,
            message,
        } => (0, Some(*rank), who.clone(), time.ps(), message.clone(), 0),
        Stop::Deadlock { time, detail } => (1, None, String::new(), time.ps(), detail.clone(), 0),
        Stop::Limit {
            limit,
            rank,
            time,
            message,
        } => (
            2,
            *rank,
            String::new(),
            time.ps(),
            message.clone(),
            *limit as u8,
        ),
        Stop::Internal(m) => (3, None, String::new(), 0, m.clone(), 0),
        Stop::Capacity { time, message } => (4, None, String::new(), time.ps(), message.clone(), 0),
    }
}

fn stop_of_wire((kind, rank, who, time, message, limit): StopWire) -> Stop {
    let time = Time(time);
    match kind {
        0 => Stop::Script {
            rank: rank.unwrap_or(0),
            who,
            time,
            message,
        },
        1 => Stop::Deadlock {
            time,
            detail: message,
        },
        2 => Stop::Limit {
            limit: Limit::ALL[(limit as usize).min(Limit::ALL.len() - 1)],
            rank,
            time,
            message,
        },
        4 => Stop::Capacity { time, message },
        _ => Stop::Internal(message),
    }
}

impl Simulation {
    /// Whether partition `p` is run by this process.
    fn is_local(&self, world: &World, p: usize) -> bool {
        crate::perf::stable::group_of(p as u32, self.parts.count, self.parts.processes)
            == world.rank()
    }

    /// The run across the job's processes (`windows` made, this process's partitions started).
    /// The root returns the run's end as one process would; another process never returns:
    /// it exits with the root's status once the root has its report.
    pub(super) fn run_across(
        &self,
        world: World,
        windows: &mut Windows,
        started: Instant,
    ) -> Result<Report, SimError> {
        let nranks = self.parts.rank.len() as u32;
        let mut shown = 0u64;
        let progress = || {
            let events: u64 = self.runners.iter().map(|r| r.part.borrow().events()).sum();
            if events >= shown + crate::limits::CHECK_EVERY {
                shown = events;
                self.show_progress(nranks);
            }
        };
        let limits = &self.scenario.limits;
        let driven = if self.threads > 1 {
            let threads = self.threads;
            super::threads::across::drive_across(
                windows,
                &self.runners,
                &world,
                limits,
                threads,
                progress,
            )
        } else {
            windows.drive_across(&self.runners, &world, limits, progress)
        };
        let mut stop = match driven {
            Ok(s) => s,
            Err(e) => world.abort(70, &format!("internal error (a bug in mgensim): {e}")),
        };
        // (the host line's cut messages and bytes are the whole job's)
        let st = &mut windows.stats;
        st.messages = world.sum(st.messages);
        st.across = world.sum(st.across);
        // (windows in which some process sent bytes, or ran alone: the most of any process)
        let mut most = [u64::MAX - st.across_windows, u64::MAX - st.alone];
        world.min(&mut most);
        st.across_windows = u64::MAX - most[0];
        st.alone = u64::MAX - most[1];
        let local: Vec<usize> = (0..self.runners.len())
            .filter(|&p| self.is_local(&world, p))
            .collect();
        for &p in &local {
            if let Some(s) = self.runners[p].part.borrow().stalled() {
                stop = stop.or(Some(Stop::Internal(s.clone())));
            }
        }
        let mine = self.pack_process(&world, &local, stop.as_ref());
        if world.is_root() {
            self.let_go_at_root(&local);
        }
        // (at the root, each process's bytes are read into its copies as they come, one
        // process's at a time)
        let mut stops = Vec::new();
        let unpacked = world
            .gather_each(mine, |q, bytes| {
                self.unpack_process(&local, q, bytes, &mut stops)
            })
            .unwrap_or_else(|e| world.abort(70, &e.to_string()));
        if !world.is_root() {
            super::world::follow_root(world);
        }
        self.settled.set(true);
        let result = match unpacked.map(|()| stops) {
            Err(e) => Err(SimError {
                stop: Stop::Internal(e),
                partial: None,
            }),
            Ok(stops) => match earliest(stops) {
                Some(stop) => Err(self.stopped(stop, started, windows.stats)),
                None => match self.deadlock(nranks) {
                    Err(stop) => Err(self.stopped(stop, started, windows.stats)),
                    Ok(()) => self.finish(started, windows.stats),
                },
            },
        };
        // (the others wait until the root has written the outputs and said why it stopped:
        // `end_job`)
        super::world::hold(world);
        result
    }

    /// At the root, once its own end state is packed (`pack_process`) and before the other
    /// processes' are read into its copies: what the report no longer reads of its own
    /// partitions is let go, so that the others' end states take the room it held. Its link
    /// counters go into the list the others' fill, the packets and events still held go
    /// (their counts kept), then the network's per-element arrays (channels, credit, input
    /// FIFOs, releases: a quarter of the process's memory on a torus), their pages given back
    /// to the system.
    fn let_go_at_root(&self, local: &[usize]) {
        for &p in local {
            self.runners[p].part.borrow_mut().keep_only_its_end();
        }
        if let Some(&p) = local.first() {
            // SAFETY: the run is over (no partition runs), and every partition of this
            // process keeps its own link counters; the arrays are shared by all of them
            unsafe { self.runners[p].part.borrow().let_go_state() };
        }
    }

    /// This process's part of the gather: its stop, its Lua states' facts, then its
    /// partitions' end states (settled at the run's end, agreed by every process).
    fn pack_process(&self, world: &World, local: &[usize], stop: Option<&Stop>) -> Vec<u8> {
        let latest = local
            .iter()
            .map(|&p| self.runners[p].part.borrow().latest())
            .max()
            .unwrap_or(Time::ZERO);
        // (the run's end, the latest clock or event; and where a limit stopped it, as
        // `stopped` will say: the earliest stop's time, or the last event if later, where the
        // partitions are settled; a rank's error or a capacity goes before any limit)
        let reached = local.iter().map(|&p| self.runners[p].part.borrow().now());
        let (first, limit) = match stop {
            Some(Stop::Script { .. } | Stop::Capacity { .. }) => (0, u64::MAX),
            Some(Stop::Limit { time, rank, .. }) => (1, time.ps() | (rank.is_none() as u64) << 63),
            _ => (1, u64::MAX),
        };
        let reached = reached.max().unwrap_or(Time::ZERO).ps();
        // (and whether any process stopped: what every unfinished rank waits for explains a
        // deadlock, which a stopped run is not; then the ranks the report lists are enough)
        let mut end = [
            u64::MAX - latest.ps(),
            first,
            limit,
            u64::MAX - reached,
            stop.is_none() as u64,
        ];
        world.min(&mut end);
        let stopped = end[4] == 0;
        let (settle, cut) = match end[1..4] {
            [1, limit, reached] if limit != u64::MAX => {
                (Time((limit << 1 >> 1).max(u64::MAX - reached)), true)
            }
            _ => (Time(u64::MAX - end[0]), false),
        };
        let end = Time(u64::MAX - end[0]);
        let lua: usize = local
            .iter()
            .map(|&p| self.runners[p].scripts.memory())
            .sum();
        let lua = world.sum(lua as u64) as usize;
        *self.across.borrow_mut() = Some(Across {
            end,
            lua,
            open: BTreeMap::new(),
            unread: Vec::new(),
        });
        let traced = self.runners[0].part.borrow().traced();
        let shown = crate::report::UNFINISHED_LISTED.max(if traced { 4096 } else { 0 });
        let mut open: Vec<(u32, Open)> = Vec::new();
        let mut unread = Vec::new();
        for &p in local {
            let run = &self.runners[p];
            run.part.borrow_mut().end_unsaid();
            run.part.borrow_mut().settle(settle);
            if cut {
                // (as `Simulation::report` does, before what the ranks are doing is told)
                run.part.borrow_mut().cut_at(settle);
            }
            unread.push(run.scripts.unread_keys());
        }
        let mut lines = 0usize;
        for r in 0..self.parts.rank.len() as u32 {
            let p = self.parts.rank[r as usize] as usize;
            if !local.contains(&p) {
                continue;
            }
            let run = &self.runners[p];
            let w = run.part.borrow();
            let status = w.rank(r).status;
            if status == Status::Done {
                continue;
            }
            if stopped && lines >= shown {
                break;
            }
            let blocked = (status == Status::Blocked).then(|| blocked_on(&w, r));
            // (the lines of the first few: no more are shown, in any process's share)
            let (at, line) = if lines < shown {
                lines += 1;
                let tb = run.scripts.where_(r);
                match w.replays_read().position(r) {
                    Some(pos) => (
                        pos.clone(),
                        format!("{pos} (replaying; script {})", script_line(&tb)),
                    ),
                    None => (script_line(&tb), script_line(&tb)),
                }
            } else {
                (String::new(), String::new())
            };
            open.push((r, Open { blocked, at, line }));
        }
        let mut out = Vec::new();
        put(&mut out, &(stop.map(stop_to_wire), &open, &unread));
        drop(open);
        // (the partitions' end states as a `Vec<(u32, Vec<u8>)>`, packed one at a time in
        // place: a process holds its own packed once, not twice)
        crate::packed::put_len(&mut out, local.len());
        for &p in local {
            put(&mut out, &(p as u32));
            let part = self.runners[p].part.borrow();
            crate::packed::put_framed(&mut out, |w| part.pack_end_into(w));
        }
        out
    }

    /// At the root: process `q`'s partitions (`bytes`, what [`Simulation::pack_process`]
    /// made there) read into this process's copies of them, its facts kept and its stop added
    /// to `stops`.
    fn unpack_process(
        &self,
        local: &[usize],
        q: usize,
        bytes: &[u8],
        stops: &mut Vec<Stop>,
    ) -> Result<(), String> {
        let mut across = self.across.borrow_mut();
        let across = across.as_mut().expect("packed first");
        let r = &mut &bytes[..];
        let what = format!("process {q}'s end of the run");
        type Facts = (
            Option<StopWire>,
            Vec<(u32, Open)>,
            Vec<crate::script::Unread>,
        );
        let (stop, open, unread): Facts = get(r, &what).map_err(|e| e.to_string())?;
        stops.extend(stop.map(stop_of_wire));
        across.open.extend(open);
        across.unread.extend(unread);
        let n: u64 = get(r, &what).map_err(|e| e.to_string())?;
        for _ in 0..n {
            let p: u32 = get(r, &what).map_err(|e| e.to_string())?;
            let b = crate::packed::get_bytes(r, &what).map_err(|e| e.to_string())?;
            let p = p as usize;
            if local.contains(&p) {
                continue;
            }
            let run = self
                .runners
                .get(p)
                .ok_or_else(|| format!("{what}: partition {p}"))?;
            // (a copy that never ran, whose network state this process never wrote: the end
            // state is settled where it ran, and only that is read of it)
            run.part
                .borrow_mut()
                .unpack_end(b)
                .map_err(|e| format!("{what}: {e}"))?;
        }
        if !r.is_empty() {
            return Err(format!("{what}: {} bytes left over", r.len()));
        }
        Ok(())
    }
}
