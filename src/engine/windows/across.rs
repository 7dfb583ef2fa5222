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

use super::{Plan, Windows};
use crate::config::Limits;
use crate::cut::{wire, Mail};
use crate::engine::runner::{Pause, Runner};
use crate::engine::world::World;
use crate::engine::Stop;
use crate::units::Time;

/// The figures the processes agree on before each window, each the least over the processes:
/// the earliest time left, the shortest packet held across a cut, the stop's horizon, and
/// `u64::MAX` minus the latest time reached. (Whether a process stopped at once travels in
/// the first byte of each of its exchange's buffers.)
const FIGURES: usize = 4;

impl Windows {
    /// Runs this process's partitions of `runners` (those of group `world.rank()`) window by
    /// window, in step with the other processes, until nothing is left to do anywhere or some
    /// process stops. Returns this process's stop, if it reached one (another process may
    /// have stopped the run: the engine gathers the stops at the end).
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
        let mut at_once: Option<Stop> = None;
        loop {
            if self.exchange_across(runners, world, &local, at_once.is_some())? {
                // (a partition stopped at once, or a series is full: every process ends here,
                // before the window's cut messages are taken in, as in one process)
                return Ok(self.stop_with(at_once));
            }
            let mut f = [u64::MAX, u64::MAX, self.stop_at, u64::MAX - latest().ps()];
            for &p in &local {
                let (t, held) = runners[p].next();
                f[0] = f[0].min(t);
                f[1] = f[1].min(held as u64);
            }
            world.min(&mut f[..FIGURES]);
            self.stop_at = f[2];
            let now = Time(u64::MAX - f[3]);
            let next = std::iter::once((f[0], f[1].min(u32::MAX as u64) as u32));
            let (end, at_epoch) = match self.plan(true, next, || now, limits) {
                Plan::Done => {
                    // (a series full at the end, when no process has a stop)
                    let full = self.series && self.stop_at == u64::MAX;
                    let full = full.then(|| self.series_stop_of(&local, runners, now));
                    return Ok(self.stop_with(full.flatten()));
                }
                Plan::Stop(stop) => return Ok(Some(stop)),
                Plan::Run { end, at_epoch } => (end, at_epoch),
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
            if self.counts_events() && at_epoch {
                let mine: u64 = local
                    .iter()
                    .map(|&p| runners[p].part.borrow().events())
                    .sum();
                let events = world.sum(mine);
                let mut late = [u64::MAX - latest().ps()];
                world.min(&mut late);
                let now = Time(u64::MAX - late[0]);
                if let Some(stop) = self.event_stop(at_epoch, || events, || now, limits) {
                    self.pending.extend(at_once.take());
                    return Ok(self.stop_with(Some(stop)));
                }
            }
            if self.series && at_epoch && at_once.is_none() {
                at_once = self.series_stop_of(&local, runners, Time(end));
            }
        }
    }

    /// The stop of a full time series of fixed width in the first of `local` partitions that
    /// has one.
    fn series_stop_of(&self, local: &[usize], runners: &[Runner], now: Time) -> Option<Stop> {
        let message = local
            .iter()
            .find_map(|&p| runners[p].part.borrow().series_full())?;
        Some(Stop::Capacity { time: now, message })
    }

    /// The cut messages of the window just simulated, taken in by every partition of this
    /// process in the order of the sending partitions (local and remote alike); what goes to a
    /// partition of another process travels as bytes, one buffer per process:
    /// a byte saying whether this process `stopped` at once, then `(src u32, dst u32, length
    /// u32, bytes)` per non-empty mailbox, in sending order. Returns whether some process
    /// stopped at once: then nothing is taken in.
    fn exchange_across(
        &mut self,
        runners: &[Runner],
        world: &World,
        local: &[usize],
        stopped: bool,
    ) -> Result<bool, String> {
        let n = runners.len();
        let mut out = vec![vec![stopped as u8]; world.size() as usize];
        let mut bytes = Vec::new();
        for &src in local {
            let mut from = runners[src].part.borrow_mut();
            from.flush_outbox();
            for (dst, mail) in from.outbox().iter_mut().enumerate() {
                let to = self.groups[dst];
                if dst == src || mail.is_empty() || to == self.groups[src] {
                    continue;
                }
                self.stats.messages += mail.len() as u64;
                bytes.clear();
                wire::encode(mail, &mut bytes);
                let buf = &mut out[to as usize];
                for x in [src as u32, dst as u32, bytes.len() as u32] {
                    buf.extend_from_slice(&x.to_le_bytes());
                }
                buf.extend_from_slice(&bytes);
                mail.empty();
            }
        }
        let me = world.rank() as usize;
        let sent: usize = (out.iter().map(|b| b.len() - 1).sum::<usize>()) - (out[me].len() - 1);
        self.stats.crossed(sent as u64);
        let got = world.exchange(out).map_err(|e| e.to_string())?;
        if got.iter().any(|b| b.first() != Some(&0)) {
            return Ok(true);
        }
        // (processes own contiguous runs of partitions: their buffers, in process order, are
        // in the order of the sending partitions)
        let mut remote: Vec<(usize, usize, Mail)> = Vec::new();
        for buf in &got {
            let mut at = 1;
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
        Ok(false)
    }
}
