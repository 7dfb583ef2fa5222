//! The window loop of one process of an MPI job (`--features mpi`, `mpirun -np P`): the
//! process runs the partitions of its group (`engine.processes = P`: partition `p` of `n` is
//! process `p·P/n`'s) and the others stay as built, never run. Every window, the processes
//! agree on the plan through one [`World::min`] of a few figures, so that each computes the
//! same windows; the cut messages between partitions of different processes are bundled into
//! one buffer per pair of processes ([`World::exchange`]) as the bytes `cut/wire.rs` makes of
//! them, and every partition takes in its messages in the global order of the sending
//! partitions, exactly as in one process. The stops each process reached are its own: the
//! engine gathers them at the end, and the root reports the earliest
//! ([`earliest`](super::earliest)).
//!
//! The pieces here (the agreed plan, the agreed event count, the bundles) are shared by the
//! loop on the process's one thread ([`Windows::drive_across`]) and the loop on several
//! (`threads/across.rs`).

use super::{series_stop_of, Plan, Windows};
use crate::config::Limits;
use crate::cut::{wire, Mail};
use crate::engine::runner::{Pause, Runner};
use crate::engine::world::{Halt, World};
use crate::engine::Stop;
use crate::units::Time;

/// The figures the processes agree on before each window, each the least over the processes:
/// the earliest time left, the shortest packet held across a cut, the stop's horizon, and
/// `u64::MAX` minus the latest time reached. (Whether a process stopped at once is agreed by
/// the exchange of the cut messages, [`World::exchange`].)
const FIGURES: usize = 4;

/// The plan of the next window, as every process of the job computes it.
pub(crate) enum Agreed {
    /// Nothing is left to do anywhere: the run ends (with a full series' stop, if any).
    Done(Option<Stop>),
    /// The run stops.
    Stop(Stop),
    /// Every process simulates its partitions until `end` (ps, exclusive).
    Run { end: u64, at_epoch: bool },
}

/// Cut messages that arrived from another process: `(src, dst, mail)`.
pub(crate) type Arrived = Vec<(usize, usize, Mail)>;

/// The cut messages of one process to others, one buffer per process: `(src u32, dst u32,
/// length u32, bytes)` per non-empty mailbox, in sending order (a process with nothing for
/// another sends it nothing).
pub(crate) struct Bundles {
    pub(crate) out: Vec<Vec<u8>>,
    /// Whether this process stops here.
    halt: Halt,
    scratch: Vec<u8>,
    /// Messages and bytes put in for other processes.
    pub(crate) messages: u64,
    pub(crate) bytes: u64,
}

impl Bundles {
    /// Empty bundles for each of `world`'s processes, saying whether this one stops here.
    pub(crate) fn new(world: &World, halt: Halt) -> Bundles {
        Bundles {
            out: vec![Vec::new(); world.size() as usize],
            halt,
            scratch: Vec::new(),
            messages: 0,
            bytes: 0,
        }
    }

    /// Puts `mail` from partition `src` to partition `dst` in the buffer for process `to`.
    pub(crate) fn put(&mut self, to: u32, src: usize, dst: usize, mail: &Mail) {
        self.messages += mail.len() as u64;
        self.scratch.clear();
        wire::encode(mail, &mut self.scratch);
        let buf = &mut self.out[to as usize];
        for x in [src as u32, dst as u32, self.scratch.len() as u32] {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        buf.extend_from_slice(&self.scratch);
        self.bytes += 12 + self.scratch.len() as u64;
    }

    /// Sends the bundles and returns the halt every process agreed on and what the other
    /// processes sent this one, as `(src, dst, mail)` in the order of the sending partitions
    /// (processes own contiguous runs of partitions, and each bundles its mail in partition
    /// order); nothing if the run stops [`Halt::Now`]: then nothing is to be taken in. `n`:
    /// the run's partitions.
    pub(crate) fn swap(self, world: &World, n: usize) -> Result<(Halt, Arrived), String> {
        let (halt, got) = world
            .exchange(self.out, self.halt)
            .map_err(|e| e.to_string())?;
        if halt == Halt::Now {
            return Ok((halt, Vec::new()));
        }
        let mut remote = Vec::new();
        for buf in &got {
            let mut at = 0;
            while at + 12 <= buf.len() {
                let word = |i: usize| {
                    u32::from_le_bytes(buf[at + 4 * i..at + 4 * i + 4].try_into().unwrap()) as usize
                };
                let (src, dst, len) = (word(0), word(1), word(2));
                let body = buf
                    .get(at + 12..at + 12 + len)
                    .filter(|_| src < n && dst < n)
                    .ok_or("cut messages from another process are cut short")?;
                let mut mail = Mail::default();
                wire::decode(body, &mut mail).map_err(|e| e.to_string())?;
                remote.push((src, dst, mail));
                at += 12 + len;
            }
            if at != buf.len() {
                return Err("cut messages from another process are cut short".to_string());
            }
        }
        Ok((halt, remote))
    }
}

impl Windows {
    /// The next window, agreed by one [`World::min`]: `next` is this process's earliest time
    /// left and shortest packet held across a cut, `latest` the latest time its partitions
    /// reached; `full` gives the stop of a full series when the run ends.
    pub(crate) fn agree(
        &mut self,
        world: &World,
        next: (u64, u32),
        latest: Time,
        limits: &Limits,
        full: impl FnOnce(Time) -> Option<Stop>,
    ) -> Agreed {
        let mut f = [next.0, next.1 as u64, self.stop_at, u64::MAX - latest.ps()];
        world.min(&mut f[..FIGURES]);
        self.stop_at = f[2];
        let now = Time(u64::MAX - f[3]);
        let next = std::iter::once((f[0], f[1].min(u32::MAX as u64) as u32));
        match self.plan(true, next, || now, limits) {
            Plan::Done => {
                // (a series full at the end, when no process has a stop)
                let full = if self.series && self.stop_at == u64::MAX {
                    full(now)
                } else {
                    None
                };
                Agreed::Done(self.stop_with(full))
            }
            Plan::Stop(stop) => Agreed::Stop(stop),
            Plan::Run { end, at_epoch } => Agreed::Run { end, at_epoch },
        }
    }

    /// After a window that ended an epoch (`at_epoch`), when the engine counts events: the
    /// stop at `limits.events`, agreed from the events of every process (`mine`: this one's)
    /// and the latest time any reached. Every process calls it after every window.
    pub(crate) fn agree_events(
        &self,
        world: &World,
        at_epoch: bool,
        mine: impl FnOnce() -> u64,
        latest: impl FnOnce() -> Time,
        limits: &Limits,
    ) -> Option<Stop> {
        if !(self.counts_events() && at_epoch) {
            return None;
        }
        let events = world.sum(mine());
        let mut late = [u64::MAX - latest().ps()];
        world.min(&mut late);
        let now = Time(u64::MAX - late[0]);
        self.event_stop(at_epoch, || events, || now, limits)
    }

    /// Whether a time series of fixed width is looked at the ends of epochs.
    pub(crate) fn series(&self) -> bool {
        self.series
    }

    /// Runs this process's partitions of `runners` (those of group `world.rank()`) window by
    /// window on this thread, in step with the other processes, until nothing is left to do
    /// anywhere or some process stops. Returns this process's stop, if it reached one (another
    /// process may have stopped the run: the engine gathers the stops at the end).
    pub(crate) fn drive_across(
        &mut self,
        runners: &[Runner],
        world: &World,
        limits: &Limits,
        mut progress: impl FnMut(),
    ) -> Result<Option<Stop>, String> {
        let me = world.rank();
        let local: Vec<usize> = (0..runners.len())
            .filter(|&p| self.groups[p] == me)
            .collect();
        let latest = || {
            local
                .iter()
                .map(|&p| runners[p].part.borrow().now())
                .max()
                .unwrap_or(Time::ZERO)
        };
        // this process's stop in a window (a rank's error, a limit): the run stops before the
        // window's cut messages are taken in, as in one process
        let mut at_once: Option<Stop> = None;
        // a stop at an epoch's end (`limits.events`, a full series): after they are
        let mut then: Option<Stop> = None;
        loop {
            match self.exchange_across(runners, world, &local, halt_for(&at_once, &then))? {
                Halt::Go => {}
                Halt::AfterTakeIn => {
                    self.pending.extend(at_once);
                    return Ok(self.stop_with(then));
                }
                Halt::Now => {
                    self.pending.extend(then);
                    return Ok(self.stop_with(at_once));
                }
            }
            let mut next = (u64::MAX, u32::MAX);
            for &p in &local {
                let (t, held) = runners[p].next();
                next = (next.0.min(t), next.1.min(held));
            }
            let full = |now| series_stop_of(local.iter().map(|&p| &runners[p]), now, limits);
            let (end, at_epoch) = match self.agree(world, next, latest(), limits, full) {
                Agreed::Done(stop) => return Ok(stop),
                Agreed::Stop(stop) => return Ok(Some(stop)),
                Agreed::Run { end, at_epoch } => (end, at_epoch),
            };
            'parts: for &p in &local {
                loop {
                    match runners[p].run_window(end, limits, false) {
                        Ok(Pause::Done) => break,
                        Ok(Pause::Checkpoint) => progress(),
                        Err(stop) => {
                            at_once = Some(stop);
                            break 'parts;
                        }
                    }
                }
            }
            for &p in &local {
                let (stops, horizon) = runners[p].take_stops();
                self.keep(stops, horizon);
            }
            progress();
            let mine = || {
                local
                    .iter()
                    .map(|&p| runners[p].part.borrow().events())
                    .sum()
            };
            // (the event limit is agreed by every process; a full series is this one's)
            then = self.agree_events(world, at_epoch, mine, latest, limits);
            if then.is_none() && self.series && at_epoch && at_once.is_none() {
                then = series_stop_of(local.iter().map(|&p| &runners[p]), Time(end), limits);
            }
        }
    }

    /// The cut messages of the window just simulated, taken in by every partition of this
    /// process in the order of the sending partitions (local and remote alike); what goes to a
    /// partition of another process travels in [`Bundles`]. Returns the halt every process
    /// agreed on (this one asks for `halt`): at [`Halt::Now`] nothing is taken in.
    fn exchange_across(
        &mut self,
        runners: &[Runner],
        world: &World,
        local: &[usize],
        halt: Halt,
    ) -> Result<Halt, String> {
        let n = runners.len();
        let mut bundles = Bundles::new(world, halt);
        for &src in local {
            let mut from = runners[src].part.borrow_mut();
            from.flush_outbox();
            for (dst, mail) in from.outbox().iter_mut().enumerate() {
                let to = self.groups[dst];
                if dst == src || mail.is_empty() || to == self.groups[src] {
                    continue;
                }
                bundles.put(to, src, dst, mail);
                mail.empty();
            }
        }
        self.stats.messages += bundles.messages;
        self.stats.crossed(bundles.bytes);
        let (halt, remote) = bundles.swap(world, n)?;
        if halt == Halt::Now {
            return Ok(halt);
        }
        let mut remote = remote.into_iter().peekable();
        for src in 0..n {
            if self.groups[src] == world.rank() {
                let mut from = runners[src].part.borrow_mut();
                for (dst, mail) in from.outbox().iter_mut().enumerate() {
                    if dst == src || mail.is_empty() {
                        continue;
                    }
                    self.stats.messages += mail.len() as u64;
                    runners[dst].part.borrow_mut().take_cuts(mail);
                    mail.empty();
                }
            }
            while let Some((_, dst, mail)) = remote.next_if(|(s, _, _)| *s == src) {
                runners[dst].part.borrow_mut().take_cuts(&mail);
            }
        }
        Ok(halt)
    }
}

/// The halt a process asks for at the exchange: now if it stopped in the window (`at_once`),
/// after the take-in if it stops at the epoch's end (`then`).
pub(crate) fn halt_for(at_once: &Option<Stop>, then: &Option<Stop>) -> Halt {
    if at_once.is_some() {
        Halt::Now
    } else if then.is_some() {
        Halt::AfterTakeIn
    } else {
        Halt::Go
    }
}
