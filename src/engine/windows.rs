//! The partitions simulated window by window (docs/architecture.md, "Partitions").
//!
//! A *window* is a span of simulated time that every partition can simulate on its own: no
//! cut message sent during it can matter to another partition before it ends. Each window
//! starts at `t`, the earliest thing left to do anywhere (an event, an epoch's arrivals, a
//! credit wake-up, a cut message to take in), and ends at the earliest of:
//! - the end of `t`'s epoch: arrivals sent across a cut during the window are put in place at
//!   the end of their epoch (`net/router/arrivals.rs`), so a window never crosses one;
//! - `t` plus one serialization of the shortest packet held anywhere in a buffer fed across a
//!   cut ([`Lookahead`]): giving that buffer's space back is the soonest a partition can touch
//!   another's state; with none held, the epoch alone bounds the window;
//! - the simulated-time limit.
//!
//! Then the partitions take in what the others sent them, in a fixed order, and the next
//! window begins. The windows, what each partition does in them and the order it takes its
//! messages in depend on the model only: so do the results, whatever the number of threads
//! (and partitions) that ran them.
//!
//! A run of one partition has one window, the whole run, unless `limits.events` asks the
//! engine to count events at the end of each epoch (so that the stop falls at the same place
//! whatever the partitions).

use super::runner::{Pause, Runner};
use super::Stop;
use crate::config::Limits;
use crate::cut::{Crossing, Lookahead};
use crate::limits::Limit;
use crate::report::WindowStats;
use crate::units::Time;

/// The window loop of one run.
pub(crate) struct Windows {
    /// log2 of the epoch's length (`None`: arrivals are put in place as they are sent; only
    /// one partition).
    shift: Option<u32>,
    lookahead: Lookahead,
    /// The last picosecond events may be processed at.
    time_limit: u64,
    /// Events the run may process (`u64::MAX`: no limit), counted at the ends of epochs.
    event_limit: u64,
    /// A time series of fixed width is recorded: whether it is full is looked at the ends of
    /// epochs ([`Windows::series_stop`]).
    series: bool,
    /// The stops partitions reached, kept until the run reaches `stop_at` (`runner.rs`).
    pending: Vec<Stop>,
    /// Where the run ends because of `pending` (ps, exclusive; `u64::MAX`: no stop yet): the
    /// end of the epoch of the first stop.
    stop_at: u64,
    pub(crate) stats: WindowStats,
    /// The end of the epoch the last window stopped short of (ps; `u64::MAX`: none): if no
    /// later window ends there, the limits looked at the ends of epochs are looked at there
    /// by a window with nothing in it ([`Windows::plan`]).
    short_of: u64,
    /// The process group of each partition (`engine.processes`; all 0 in one process):
    /// what a partition sends one of another group crosses as bytes ([`Crossing`]).
    pub(crate) groups: Vec<u32>,
    crossing: Crossing,
}

/// The end of the epoch (of `2^shift` ps) that time `t` (ps) is in.
fn epoch_end(t: u64, shift: u32) -> u64 {
    ((t >> shift) + 1) << shift
}

impl Windows {
    /// The windows of a run on `runners`, simulated as `processes` process groups, under
    /// `limits`.
    pub(crate) fn new(runners: &[Runner], processes: u32, limits: &Limits) -> Windows {
        let n = runners.len() as u32;
        let w = runners[0].part.borrow();
        let shift = w.epoch().map(|e| e.ps().trailing_zeros());
        Windows {
            shift,
            lookahead: Lookahead {
                fastest: w.fastest_output(),
            },
            time_limit: if limits.simulated_time == Time::ZERO {
                u64::MAX
            } else {
                limits.simulated_time.ps()
            },
            event_limit: if limits.events == 0 || shift.is_none() {
                u64::MAX
            } else {
                limits.events
            },
            series: w.series_fixed(),
            pending: Vec::new(),
            stop_at: u64::MAX,
            stats: WindowStats::default(),
            short_of: u64::MAX,
            groups: (0..n)
                .map(|p| crate::perf::stable::group_of(p, n, processes))
                .collect(),
            crossing: Crossing::default(),
        }
    }

    /// Takes the stops `runners` reached in the window just simulated: the run goes on to the
    /// end of the first one's epoch, then stops with the earliest of all ([`earliest`]).
    pub(crate) fn take_stops(&mut self, runners: &[Runner]) {
        for r in runners {
            let (stops, horizon) = r.take_stops();
            self.keep(stops, horizon);
        }
    }

    /// Keeps `stops` (reached by one partition, whose stops end the run at `horizon`).
    pub(crate) fn keep(&mut self, stops: Vec<Stop>, horizon: u64) {
        if !stops.is_empty() {
            self.pending.extend(stops);
            self.stop_at = self.stop_at.min(horizon);
        }
    }

    /// The stop the run reports, of those kept and `more` (None if there is none).
    pub(crate) fn stop_with(&mut self, more: Option<Stop>) -> Option<Stop> {
        let mut all = std::mem::take(&mut self.pending);
        all.extend(more);
        earliest(all)
    }

    /// Whether the engine counts `limits.events` (else each partition does, alone).
    pub(crate) fn counts_events(&self) -> bool {
        self.event_limit != u64::MAX
    }

    /// Plans the next window from what each partition has left to do, `(next, held)` per
    /// partition (its [`Part::next_time`](crate::part::Part::next_time) and the shortest
    /// packet it holds in a buffer fed across a cut, `u32::MAX`: none), taken after the
    /// exchange; `now` gives the latest time any partition has reached (for a stop's report).
    pub(crate) fn plan(
        &mut self,
        many: bool,
        next: impl Iterator<Item = (u64, u32)>,
        now: impl FnOnce() -> Time,
        limits: &Limits,
    ) -> Plan {
        let mut t = u64::MAX;
        let mut wire = u32::MAX;
        for (n, held) in next {
            t = t.min(n);
            wire = wire.min(held);
        }
        // (an epoch that ended between two windows, the last one cut short by the credit
        // bound: its end is looked at as one partition looks at it, before anything later
        // happens, so that `limits.events` and a full series stop at the same epoch for any
        // partitioning)
        let e = std::mem::replace(&mut self.short_of, u64::MAX);
        if e != u64::MAX && t >= e && (self.counts_events() || self.series) && e <= self.stop_at {
            self.stats.windows += 1;
            return Plan::Run {
                end: e,
                at_epoch: true,
            };
        }
        if t == u64::MAX || t >= self.stop_at {
            return match self.stop_with(None) {
                Some(stop) => Plan::Stop(stop),
                None => Plan::Done,
            };
        }
        if t > self.time_limit {
            // (the run is known up to the limit, every event at or before it processed: its
            // outputs end there, a flow or a packet on a link counted up to it; the message
            // names the last event)
            let last = now();
            let stop = Stop::Limit {
                limit: Limit::SimulatedTime,
                rank: None,
                time: Time(self.time_limit).max(last),
                message: Limit::SimulatedTime.explain(limits, last, None, None),
            };
            return Plan::Stop(self.stop_with(Some(stop)).expect("a stop"));
        }
        let mut end = self.time_limit.saturating_add(1).min(self.stop_at);
        let epoch = self.shift.map(|s| epoch_end(t, s));
        if let (true, Some(e)) = (many || self.counts_events() || self.series, epoch) {
            end = end.min(e);
        }
        if many && wire != u32::MAX {
            let by_credit = t.saturating_add(self.lookahead.serialization(wire));
            if by_credit < end {
                if Some(end) == epoch {
                    self.short_of = end;
                }
                end = by_credit;
                self.stats.short += 1;
            }
        }
        self.stats.windows += 1;
        Plan::Run {
            end,
            at_epoch: Some(end) == epoch,
        }
    }

    /// After a window that ended at an epoch's end (`at_epoch`), `events` giving the events
    /// processed in all by then and `now` the latest time reached (both asked for only when
    /// the engine counts events and the window ended an epoch): the stop at `limits.events`,
    /// if reached.
    pub(crate) fn event_stop(
        &self,
        at_epoch: bool,
        events: impl FnOnce() -> u64,
        now: impl FnOnce() -> Time,
        limits: &Limits,
    ) -> Option<Stop> {
        if !(self.counts_events() && at_epoch && events() >= self.event_limit) {
            return None;
        }
        let now = now();
        let stop = Stop::Limit {
            limit: Limit::Events,
            rank: None,
            time: now,
            message: Limit::Events.explain(limits, now, None, None),
        };
        Some(stop)
    }

    /// After a window that ended at an epoch's end (`at_epoch`; `now` is that end), or at the
    /// run's end: the stop of a time series of fixed width that something fell past, if any
    /// partition's did (the same epoch for any partitioning: every event up to its end is
    /// processed).
    pub(crate) fn series_stop(
        &self,
        at_epoch: bool,
        runners: &[Runner],
        now: Time,
        limits: &Limits,
    ) -> Option<Stop> {
        if !self.series || !at_epoch {
            return None;
        }
        series_stop_of(runners, now, limits)
    }

    /// Runs windows on this thread, partition after partition, until nothing is left to do
    /// (`Ok`), or a rank fails or a limit is hit (`Err`, the earliest such stop). `progress`
    /// is called now and then.
    pub(crate) fn drive(
        &mut self,
        runners: &[Runner],
        limits: &Limits,
        mut progress: impl FnMut(),
    ) -> Result<(), Stop> {
        let many = runners.len() > 1;
        let latest = |runners: &[Runner]| {
            runners
                .iter()
                .map(|r| r.part.borrow().now())
                .max()
                .unwrap_or(Time::ZERO)
        };
        loop {
            self.exchange(runners);
            let next = runners.iter().map(|r| r.next());
            let (end, at_epoch) = match self.plan(many, next, || latest(runners), limits) {
                Plan::Done => {
                    return match self.series_stop(true, runners, latest(runners), limits) {
                        Some(stop) => Err(stop),
                        None => Ok(()),
                    }
                }
                Plan::Stop(stop) => return Err(stop),
                Plan::Run { end, at_epoch } => (end, at_epoch),
            };
            for r in runners {
                loop {
                    match r.run_window(end, limits, !many) {
                        Ok(Pause::Done) => break,
                        Ok(Pause::Checkpoint) => progress(),
                        Err(stop) => return Err(self.stop_with(Some(stop)).expect("a stop")),
                    }
                }
            }
            self.take_stops(runners);
            if many {
                progress();
            }
            let events = || runners.iter().map(|r| r.part.borrow().events()).sum();
            let at_end = self
                .event_stop(at_epoch, events, || latest(runners), limits)
                .or_else(|| self.series_stop(at_epoch, runners, Time(end), limits));
            if let Some(stop) = at_end {
                // (at a stop at an epoch's end, `limits.events` or a full series, what crossed
                // a cut in the window is taken in first: one partition has every arrival of
                // the epoch in place, and every release it made counted for its feeder)
                self.exchange(runners);
                return Err(self.stop_with(Some(stop)).expect("a stop"));
            }
        }
    }

    /// Hands every partition what the others sent it in the window just simulated: each
    /// receives from partition 0's messages to the last's, each in the order sent (the order
    /// across receivers does not matter: a partition's messages change only its own state).
    /// Each sender is borrowed once and its mailboxes looked at in place; what crosses
    /// between process groups is taken in as the bytes it would be sent as.
    fn exchange(&mut self, runners: &[Runner]) {
        if runners.len() == 1 {
            return;
        }
        let carried = self.crossing.carried;
        for (src, from) in runners.iter().enumerate() {
            let mut from = from.part.borrow_mut();
            from.flush_outbox();
            for (dst, mail) in from.outbox().iter_mut().enumerate() {
                if dst == src || mail.is_empty() {
                    continue;
                }
                self.stats.messages += mail.len() as u64;
                let mail_in = if self.groups[src] != self.groups[dst] {
                    self.crossing.carry(mail)
                } else {
                    &*mail
                };
                runners[dst].part.borrow_mut().take_cuts(mail_in);
                mail.empty();
            }
        }
        self.stats.crossed(self.crossing.carried - carried);
    }
}

pub(crate) mod across;

/// What the next window is.
pub(crate) enum Plan {
    /// Nothing is left to do anywhere.
    Done,
    /// The run stops (at the simulated-time limit).
    Stop(Stop),
    /// Every partition simulates until `end` (ps, exclusive); `at_epoch`: `end` is an epoch's
    /// end.
    Run {
        /// The window's end (ps): nothing at or after it is simulated in this window.
        end: u64,
        /// Whether `end` is the end of an epoch.
        at_epoch: bool,
    },
}

/// The stop at `time` of a time series of fixed width that something fell past, in the first
/// of `runners` whose series did (its message says what the series holds and what to do
/// instead): a limit of the whole run, `limits.time_series_memory`.
pub(crate) fn series_stop_of<'a>(
    runners: impl IntoIterator<Item = &'a Runner>,
    time: Time,
    limits: &Limits,
) -> Option<Stop> {
    let why = runners
        .into_iter()
        .find_map(|r| r.part.borrow().series_full())?;
    Some(Stop::Limit {
        limit: Limit::TimeSeriesMemory,
        rank: None,
        time,
        message: Limit::TimeSeriesMemory.explain(limits, time, None, Some(&why)),
    })
}

/// Of the stops partitions reached before the run ended, the one it reports: a rank's error
/// first, then a limit that stopped a rank, then one of the whole run; among them the earliest
/// in simulated time, then the lowest rank, then the limit's kind. A rank's stop falls where
/// its script is, which depends on the model only, so the same stop is reported whatever the
/// partitioning (a limit of the whole run found at a look every few thousand events, Ctrl-C or
/// the wall clock, falls where that look happened to be).
pub(crate) fn earliest(stops: Vec<Stop>) -> Option<Stop> {
    stops.into_iter().min_by_key(|s| match s {
        Stop::Script { rank, time, .. } => (0, *time, *rank, 0),
        Stop::Capacity { time, .. } => (1, *time, 0, 0),
        Stop::Limit {
            time,
            rank: Some(rank),
            limit,
            ..
        } => (2, *time, *rank, *limit as u8),
        Stop::Limit { time, limit, .. } => (3, *time, 0, *limit as u8),
        Stop::Deadlock { time, .. } => (4, *time, 0, 0),
        Stop::Internal(_) => (5, Time::ZERO, 0, 0),
    })
}
