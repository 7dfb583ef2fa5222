//! What the engine asks of and does to a partition between its events (`engine/`): the
//! window's end, the ranks' turns (a rank resumed, yielded, finished, failed or stopped: only
//! here do their states change), the stop recorded, the run's start and end, and what the
//! engine reads to plan windows and to report a stop.

use super::*;
use crate::rank::Status;
use crate::replay::Replays;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

impl Part {
    /// Time of the event being processed (the partition's present).
    #[inline]
    pub(crate) fn now(&self) -> Time {
        self.now
    }

    /// Events processed.
    #[inline]
    pub(crate) fn events(&self) -> u64 {
        self.events
    }

    /// Ranks of this partition whose script has ended.
    pub(crate) fn finished(&self) -> u32 {
        self.finished
    }

    /// The ranks this partition owns, in order.
    pub(crate) fn mine(&self) -> &[u32] {
        &self.mine
    }

    /// Rank `r` (one of this partition's, or any once it reads every rank).
    #[inline]
    pub(crate) fn rank(&self, r: u32) -> &Rank {
        &self.ranks[r as usize]
    }

    /// Ranks in the run.
    pub(crate) fn rank_count(&self) -> u32 {
        self.ranks.len() as u32
    }

    /// Where ranks run and which job they belong to.
    pub(crate) fn nodes(&self) -> &Nodes {
        &self.nodes
    }

    /// The message-passing layer (its queues, for a deadlock's report).
    pub(crate) fn mpi(&self) -> &Mpi {
        &self.mpi
    }

    /// The traces the ranks replay (where each is, what it skipped).
    pub(crate) fn replays_read(&self) -> &Replays {
        &self.replays
    }

    /// Whether the ranks' timeline is recorded.
    pub(crate) fn traced(&self) -> bool {
        self.trace.is_some()
    }

    /// The window being simulated ends at `until` (ps, exclusive).
    #[inline]
    pub(crate) fn set_until(&mut self, until: u64) {
        self.until = until;
    }

    /// The window ends at `horizon` at the latest (ps, exclusive).
    pub(crate) fn lower_until(&mut self, horizon: u64) {
        self.until = self.until.min(horizon);
    }

    /// Rank `r`, woken by the event loop, takes its turn: false if its script failed or was
    /// stopped before (it never runs again).
    #[inline]
    pub(crate) fn begin_turn(&mut self, r: u32) -> bool {
        if self.ranks[r as usize].status == Status::Failed {
            return false;
        }
        self.current = r;
        self.ranks[r as usize].status = Status::Running;
        self.watch.turn_posts = 0;
        self.watch.over_posts = None;
        self.trace_wake(r);
        true
    }

    /// Whether the running rank must give control back before its next call
    /// ([`Watch::pause_due`](crate::limits::Watch::pause_due)): asked after each call that
    /// advances its clock or posts a transfer, and before each wait.
    ///
    /// If so, the engine takes the rank, as `MGEN_Test` takes it (so that a coroutine of the
    /// script's own yields the rank in turn, `raw.engine_took`): past the time limit it is
    /// woken at its clock, past the limit, which the run never reaches; past a post limit it
    /// is not woken, and the engine stops it once it has yielded ([`Part::turn_yielded`]).
    #[inline]
    pub(crate) fn pause_due(&mut self) -> bool {
        let clock = self.ranks[self.current as usize].clock;
        if !self.watch.pause_due(clock) {
            return false;
        }
        self.pause_taken();
        true
    }

    #[cold]
    fn pause_taken(&mut self) {
        let me = self.current;
        let rank = &mut self.ranks[me as usize];
        if self.watch.over_posts.is_some() {
            rank.status = Status::Ready;
        } else {
            let clock = rank.clock;
            rank.wake(me, clock, &mut self.queue);
        }
    }

    /// Rank `r`'s script yielded: if it did so on its own (it still runs, it waits for
    /// nothing), it goes on at its clock. The limit it gave control back for, if its turn
    /// posted more transfers than a limit allows: the engine then stops it there.
    #[inline]
    pub(crate) fn turn_yielded(&mut self, r: u32) -> Option<Limit> {
        let rank = &mut self.ranks[r as usize];
        if rank.status == Status::Running {
            let clock = rank.clock;
            rank.wake(r, clock, &mut self.queue);
        }
        self.watch.over_posts.take()
    }

    /// Rank `r`'s script ended.
    pub(crate) fn rank_finished(&mut self, r: u32) {
        self.ranks[r as usize].end();
        self.finished += 1;
    }

    /// Rank `r`'s script failed: it never runs again. Its name and its clock, for the stop.
    pub(crate) fn rank_failed(&mut self, r: u32) -> (String, Time) {
        self.ranks[r as usize].status = Status::Failed;
        (self.nodes.name(r), self.ranks[r as usize].clock)
    }

    /// A limit stopped rank `r` (`at`: its script line, if known): it never runs again.
    pub(crate) fn rank_stopped(&mut self, r: u32, limit: Limit, at: Option<String>) {
        self.ranks[r as usize].status = Status::Failed;
        self.watch.record(limit, Some(r), at);
    }

    /// The stop recorded, taken (which limit, the rank it stopped if one, its script line),
    /// with its time: the rank's clock, or the partition's present if later.
    pub(crate) fn take_stop(&mut self) -> Option<(Limit, Option<u32>, Option<String>, Time)> {
        let (limit, rank, at) = self.watch.hit.take()?;
        let time = rank.map_or(self.now, |r| self.ranks[r as usize].clock.max(self.now));
        Some((limit, rank, at, time))
    }

    /// Where a run that stops at this partition's present ends (ps, exclusive): the end of the
    /// epoch it is in, which no window crosses (`engine/windows.rs`); at once when the network
    /// has no epochs (it then has one partition).
    pub(crate) fn stop_horizon(&self) -> u64 {
        match self.net.epoch() {
            Some(e) => {
                let shift = e.ps().trailing_zeros();
                ((self.now.ps() >> shift) + 1) << shift
            }
            None => self.now.ps(),
        }
    }

    /// The run starts: the limits' clock from now, the event limit left to the engine when it
    /// counts events itself (`engine_counts`), and every rank of this partition woken at 0.
    pub(crate) fn start(&mut self, wall_time: Time, engine_counts: bool) {
        self.watch.start(wall_time);
        if engine_counts {
            self.watch.event_limit = u64::MAX;
        }
        self.checkpoint = self.watch.event_limit.min(CHECK_EVERY);
        for &r in &self.mine {
            self.queue.push(Time::ZERO, Event::RankWake(r));
        }
    }

    /// The limits' wall clock counts from `origin` (the process's start).
    pub(crate) fn count_from(&mut self, origin: Instant) {
        self.watch.count_from(origin);
    }

    /// Ctrl-C stops the run once `flag` is set.
    pub(crate) fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.watch.set_interrupt(flag);
    }

    /// The self-check (`Simulation::self_check`): no link idle with a packet it could send;
    /// at flow level, every selective update's rates those of a max-min of all the flows.
    pub(crate) fn check_itself(&mut self) {
        self.self_check = true;
        if let Some(f) = self.flows.as_deref_mut() {
            f.check = true;
        }
    }

    /// At flow level, the ripple of the selective update on or off (`net/flow/maxmin.rs`).
    pub(crate) fn flow_ripple(&mut self, on: bool) {
        if let Some(f) = self.flows.as_deref_mut() {
            f.use_ripple(on);
        }
    }

    /// The cache tactics forced on or off for the whole run (`Simulation::cache_tactics`).
    pub(crate) fn force_tactics(&mut self, on: bool) {
        self.tactics = Some(on);
        self.set_prefetching(on);
    }

    /// The latest of this partition's ranks' clocks and its present.
    pub(crate) fn latest(&self) -> Time {
        self.mine
            .iter()
            .map(|&r| self.ranks[r as usize].clock)
            .max()
            .unwrap_or(Time::ZERO)
            .max(self.now)
    }

    /// On the timeline, rank `r`'s wait from `since` to `end` (ps) where the run stopped:
    /// what it waits for and its script line.
    pub(crate) fn trace_stuck(&mut self, r: u32, since: u64, end: u64, waits_for: &str, at: &str) {
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.stuck(r, since, end, waits_for.to_string(), at.to_string());
        }
    }

    /// The bulky records (time series, buffer history, timeline) let go, for a run stopped by
    /// a signal or the wall clock; `forget`: left to the process's exit instead of freed. Which
    /// ones there were, in that order.
    pub(crate) fn drop_bulky_records(&mut self, forget: bool) -> [bool; 3] {
        fn let_go<T>(b: Option<Box<T>>, forget: bool) -> bool {
            match b {
                Some(b) if forget => {
                    std::mem::forget(b);
                    true
                }
                Some(_) => true,
                None => false,
            }
        }
        [
            let_go(self.net.series.take(), forget),
            let_go(self.net.history.take(), forget),
            let_go(self.trace.take(), forget),
        ]
    }

    /// What is wrong at the end, if anything: time that went back, a link left idle with a
    /// packet it could send; and the packets and NIC messages still in flight.
    pub(crate) fn end_state(&self) -> (Option<(Time, Time)>, Option<String>, u64, u64) {
        (
            self.time_went_back,
            self.stalled.clone(),
            self.net.packets.live() as u64,
            self.nics.live_msgs() as u64,
        )
    }

    /// A link left idle with a packet it could send (the self-check), if one was.
    pub(crate) fn stalled(&self) -> Option<&String> {
        self.stalled.as_ref()
    }

    /// What this partition sends each other one in the window (`cut.rs`), by receiving
    /// partition; the engine moves each into the receiver's mailbox after the window.
    #[inline]
    pub(crate) fn outbox(&mut self) -> &mut [Mail] {
        &mut self.net.outbox
    }

    /// The network's epoch, if it has them (`net/router/arrivals.rs`).
    pub(crate) fn epoch(&self) -> Option<Time> {
        self.net.epoch()
    }

    /// The fastest output of the network (what the lookahead across a cut is made of).
    pub(crate) fn fastest_output(&self) -> crate::units::Bandwidth {
        self.net.fastest_output()
    }

    /// The shortest packet held in a buffer fed across a cut (wire bytes), if any.
    pub(crate) fn shortest_held_across(&self) -> Option<u32> {
        self.net.shortest_held_across()
    }

    /// Applies the releases due by `end`, once the run is over (`engine/mod.rs`, `settle`);
    /// at flow level, the flows still moving count up to `end` (`FlowNet::settle`).
    pub(crate) fn settle(&mut self, end: Time) {
        if let Some(f) = self.flows.as_deref_mut() {
            f.settle(&mut self.net, end);
        }
        self.net.settle_all(end);
        let Part { net, nics, .. } = self;
        nics.settle(end, Part::owns_nic(net));
    }

    /// Where a limit stopped the run at `stop`: each of this partition's ranks whose clock is
    /// past it reads as it was then. A script runs on through the calls that take its time
    /// (`MGEN_Comp`, a put's node latency, a send's overhead and copy) until it must wait, so
    /// such a rank was going at the stop: it becomes running, its clock the stop's, and the time
    /// it ran ahead comes out of its compute as far as it was compute. At the time limit that
    /// is known: the call that took the rank past it was its last (`Part::pause_due`), an
    /// `MGEN_Comp` or not (`Rank::computed_past_limit`). A stop before it (an event limit, the
    /// wall clock, a signal) may find a rank several calls ahead, whose split is not recorded:
    /// its compute loses all the time past the stop, as far as it has any. On the timeline,
    /// nothing goes past the stop ([`Trace::clip`](crate::probe::trace::Trace::clip)); in the
    /// profile, `MGEN_Comp` loses what compute did.
    pub(crate) fn cut_at(&mut self, stop: Time) {
        let at_the_limit = stop >= self.watch.time_limit;
        for &r in &self.mine {
            let rank = &mut self.ranks[r as usize];
            if rank.clock <= stop || rank.status == Status::Failed {
                continue;
            }
            let past = rank.clock - stop;
            let ahead = match at_the_limit {
                true if rank.computed_past_limit => past,
                true => Time::ZERO,
                false => past.min(rank.compute),
            };
            rank.compute = rank.compute - ahead;
            rank.clock = stop;
            rank.status = Status::Running;
            if let Some(p) = self.profile.as_deref_mut() {
                p.take_back(r, Api::Comp, ahead.ps());
            }
        }
        if let Some(t) = self.trace.as_deref_mut() {
            t.clip(stop.ps());
        }
    }

    /// Whether the links' time series has a fixed width (its windows never merge).
    pub(crate) fn series_fixed(&self) -> bool {
        self.net.series.as_ref().is_some_and(|s| s.is_fixed())
    }

    /// Why the time series of fixed width cannot hold more, if it is full.
    pub(crate) fn series_full(&self) -> Option<String> {
        self.net.series.as_ref()?.full()
    }
}
