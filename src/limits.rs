//! The limits that stop a run gone wrong (`[limits]` and `--timeout`), and Ctrl-C.
//!
//! The engine looks at them between events (every [`CHECK_EVERY`] events), and the scripts'
//! instruction hook every few thousand Lua instructions of a resume that has run for 10-20 ms
//! (`script/watchdog.rs`), so a stop is seen within milliseconds whether the time goes into the
//! network or into a script. The simulated-time limit is exact: the engine compares every
//! event's time with it before processing the event. A stop keeps what was computed: the run
//! ends with a partial report.

use crate::config::Limits;
use crate::units::Time;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Events between two looks at the interrupt flag and the clock (a power of two).
pub(crate) const CHECK_EVERY: u64 = 1 << 14;

/// What stopped a run before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `limits.instructions`: a rank ran too long without giving control back.
    Instructions,
    /// `limits.lua_memory`.
    LuaMemory,
    /// `limits.events`.
    Events,
    /// `limits.wall_time` / `--timeout`.
    WallTime,
    /// `limits.simulated_time`: the next event is later.
    SimulatedTime,
    /// Ctrl-C (SIGINT) or SIGTERM.
    Interrupt,
    /// `limits.posts`: a rank posted too many transfers without giving control back.
    Posts,
    /// `limits.time_series_memory`: the time series of a fixed `--interval` has no window
    /// left for what the run did next.
    TimeSeriesMemory,
}

impl Limit {
    /// Every limit, in the order of their numbers on the wire (`engine/across.rs`).
    pub(crate) const ALL: [Limit; 8] = [
        Limit::Instructions,
        Limit::LuaMemory,
        Limit::Events,
        Limit::WallTime,
        Limit::SimulatedTime,
        Limit::Interrupt,
        Limit::Posts,
        Limit::TimeSeriesMemory,
    ];

    /// The name the Lua side uses.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Instructions => "instructions",
            Limit::LuaMemory => "lua_memory",
            Limit::Events => "events",
            Limit::WallTime => "wall_time",
            Limit::SimulatedTime => "simulated_time",
            Limit::Interrupt => "interrupt",
            Limit::Posts => "posts",
            Limit::TimeSeriesMemory => "time_series_memory",
        }
    }

    /// The limit a name (`instructions`, `wall_time`, ...) stands for.
    pub(crate) fn from_name(name: &str) -> Option<Limit> {
        Limit::ALL.into_iter().find(|l| l.name() == name)
    }

    /// What happened and how to raise the limit, for the error message: at simulated `time`,
    /// stopping `rank` if one, which was at `at` (its script line; for the time series, what
    /// the series holds and what to do instead).
    pub(crate) fn explain(
        self,
        limits: &Limits,
        time: Time,
        rank: Option<u32>,
        at: Option<&str>,
    ) -> String {
        let who = match (rank, at) {
            (Some(r), Some(at)) => format!(" while rank {r} ran {at}"),
            (Some(r), None) => format!(" while rank {r} ran"),
            _ => String::new(),
        };
        match self {
            Limit::Instructions => format!(
                "instruction limit at simulated time {time}: rank {} ran more than {} Lua instructions \
                 without giving control back to the simulator{} (an endless loop?)\n  \
                 if the script really computes that much between two MGEN calls, raise \
                 `limits.instructions`: --set limits.instructions=N (0 = no limit)",
                rank.map_or("?".to_string(), |r| r.to_string()),
                limits.instructions,
                at.map_or(String::new(), |a| format!(", at {a}"))
            ),
            Limit::LuaMemory => format!(
                "Lua memory limit at simulated time {time}: the scripts' memory reached \
                 `limits.lua_memory` = {}{who}\n  \
                 raise it: --set limits.lua_memory='\"16 GiB\"' (0 = no limit; left out, it \
                 is 256 MiB and 1 MiB per rank, at most half of this machine's memory)",
                limits.lua_memory
            ),
            Limit::Events => match rank {
                // (a rank stopped in its turn: [`Watch::pause_due`])
                Some(r) => format!(
                    "event limit at simulated time {time}: rank {r} posted more than \
                     `limits.events` = {} transfers without giving control back to the \
                     simulator{}, and each makes at least one event (an endless loop?)\n  \
                     raise it: --set limits.events=N (0 = no limit)",
                    limits.events,
                    at.map_or(String::new(), |a| format!(", at {a}"))
                ),
                None => format!(
                    "event limit at simulated time {time}: the run processed `limits.events` = \
                     {} events\n  raise it: --set limits.events=N (0 = no limit)",
                    limits.events
                ),
            },
            Limit::WallTime => format!(
                "wall-clock limit at simulated time {time}: the run took longer than {} \
                 (`--timeout` or `limits.wall_time`){who}\n  \
                 raise it: --timeout 10min (0 = no limit)",
                limits.wall_time
            ),
            Limit::SimulatedTime => format!(
                "simulated-time limit: every event up to `limits.simulated_time` = {} was \
                 processed (the last at {time}), and the run stopped before the next one\n  \
                 raise it: --until 1ms (0 = no limit)",
                limits.simulated_time
            ),
            Limit::Interrupt => format!("interrupted at simulated time {time}{who}"),
            Limit::Posts => format!(
                "post limit at simulated time {time}: rank {} posted more than `limits.posts` = \
                 {} transfers without giving control back to the simulator{} (an endless \
                 loop?)\n  if the script really posts that many before it waits, raise \
                 `limits.posts`: --set limits.posts=N (0 = no limit)",
                rank.map_or("?".to_string(), |r| r.to_string()),
                limits.posts,
                at.map_or(String::new(), |a| format!(", at {a}"))
            ),
            Limit::TimeSeriesMemory => format!(
                "time-series memory limit at simulated time {time}: {}",
                at.map_or_else(
                    || format!(
                        "the time series of --interval has no window left in \
                         `limits.time_series_memory` = {}\n  raise it (0 = no limit), or use \
                         --plots without --interval, whose width adapts",
                        limits.time_series_memory
                    ),
                    str::to_string
                )
            ),
        }
    }
}

/// Watches the limits a run must stop at, and holds the stop once there is one.
pub(crate) struct Watch {
    interrupt: Option<Arc<AtomicBool>>,
    deadline: Option<Instant>,
    /// When the wall clock started for the whole process (set by the command line), if
    /// earlier than the run: `limits.wall_time` then counts from there.
    origin: Option<Instant>,
    /// Events the run may process (`u64::MAX` for no limit).
    pub(crate) event_limit: u64,
    /// A stop recorded and not yet taken by the engine: which limit, the running rank, and
    /// its script line.
    pub(crate) hit: Option<(Limit, Option<u32>, Option<String>)>,
    /// Whether Ctrl-C or the wall clock has been recorded at a look at the limits (once is
    /// enough: the run is winding down).
    pub(crate) whole_run_stopped: bool,
    /// `limits.simulated_time` (`u64::MAX` ps for none): a rank whose clock a call takes
    /// past it gives control back at once ([`Watch::pause_due`]).
    pub(crate) time_limit: Time,
    /// The fewest transfers (`u64::MAX`: no limit) a turn may post: `limits.posts`, or
    /// `limits.events` (whoever counts the events processed) if fewer, as a turn that posts
    /// more can never end within it.
    pub(crate) post_limit: u64,
    /// The limit [`Watch::post_limit`] is.
    post_limit_is: Limit,
    /// Transfers (puts, gets, sends) the running rank posted in its turn so far.
    pub(crate) turn_posts: u64,
    /// The limit the running rank gave control back for, if its turn posted more than
    /// [`Watch::post_limit`] transfers (the engine then stops it there).
    pub(crate) over_posts: Option<Limit>,
    /// Per rank whose last `MGEN_Test` found its request not complete: that test's clock and
    /// how many tests in a row found it so at that clock ([`Watch::tested_still`]).
    tests_still: BTreeMap<u32, (Time, u32)>,
}

/// Tests in a row a rank may make at one clock of its own before it is an error
/// ([`Watch::tested_still`]).
pub(crate) const TESTS_AT_ONE_CLOCK: u32 = 1 << 20;

/// The fewest transfers a rank may post in one turn, and the limit that says so.
fn post_limit(limits: &Limits) -> (u64, Limit) {
    let none = |n: u64| if n == 0 { u64::MAX } else { n };
    let (posts, events) = (none(limits.posts), none(limits.events));
    if events < posts {
        (events, Limit::Events)
    } else {
        (posts, Limit::Posts)
    }
}

/// How a process of an MPI job hears that another was interrupted (`engine/world.rs`): a
/// look that sets this process's interrupt flag when one was, and says whether it is set.
/// Installed once, by the job; without it (one process) there is nothing to hear.
static ELSEWHERE: std::sync::OnceLock<fn() -> bool> = std::sync::OnceLock::new();

/// Makes [`Watch::check`] (and [`interrupted_elsewhere`]) hear of other processes through
/// `look`.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn look_elsewhere_with(look: fn() -> bool) {
    let _ = ELSEWHERE.set(look);
}

/// Whether another process of the run was interrupted (only the thread that speaks for the
/// process hears it: `false` on any other, and in a run of one process).
#[inline]
pub(crate) fn interrupted_elsewhere() -> bool {
    ELSEWHERE.get().is_some_and(|look| look())
}

impl Watch {
    /// A watch with no stop yet, for `limits`.
    pub(crate) fn new(limits: &Limits) -> Watch {
        let (post_limit, post_limit_is) = post_limit(limits);
        Watch {
            interrupt: None,
            deadline: None,
            origin: None,
            event_limit: if limits.events == 0 {
                u64::MAX
            } else {
                limits.events
            },
            hit: None,
            whole_run_stopped: false,
            time_limit: if limits.simulated_time == Time::ZERO {
                Time::from_ps(u64::MAX)
            } else {
                limits.simulated_time
            },
            post_limit,
            post_limit_is,
            turn_posts: 0,
            over_posts: None,
            tests_still: BTreeMap::new(),
        }
    }

    /// Rank `r`'s `MGEN_Test` at its clock `clock` found its request complete (`done`) or
    /// not. `MGEN_Test` costs no simulated time, so a rank that tests in a loop and does
    /// nothing else never lets its clock, nor the run's time, pass: after
    /// [`TESTS_AT_ONE_CLOCK`] tests in a row at one clock that found nothing (`Some`: that
    /// count), the request can only be waited for for ever and the test is an error. Counted
    /// per rank from its own tests, so the same test is the error on any partitioning.
    /// O(log n) in the ranks testing at once.
    pub(crate) fn tested_still(&mut self, r: u32, clock: Time, done: bool) -> Option<u32> {
        if done {
            self.tests_still.remove(&r);
            return None;
        }
        let e = self.tests_still.entry(r).or_insert((clock, 0));
        if e.0 != clock {
            *e = (clock, 0);
        }
        e.1 += 1;
        (e.1 >= TESTS_AT_ONE_CLOCK).then_some(e.1)
    }

    /// Whether the running rank, its clock at `clock` after a call, must give control back
    /// to the engine before its next call, so that the limits stop it where they stop the
    /// run whatever the partitioning (a rank that never blocks, `MGEN_Comp` or eager sends
    /// in a loop, would otherwise run on past them):
    /// - its clock is past `limits.simulated_time`: it is woken at its clock, which is past
    ///   the limit, so it never runs again and the run stops at the limit;
    /// - its turn posted more transfers than `limits.posts`, or than `limits.events` (each
    ///   makes at least one event, so the turn can never end within it): `over_posts`, and
    ///   the engine stops the rank at that limit, with its line.
    ///
    /// Both are decided by the rank's own clock and turn, so the same call gives control
    /// back on any partitioning. O(1); the common answer, no, is two compares.
    #[inline]
    pub(crate) fn pause_due(&mut self, clock: Time) -> bool {
        if clock <= self.time_limit && self.turn_posts <= self.post_limit {
            return false;
        }
        self.over_posts = (self.turn_posts > self.post_limit).then_some(self.post_limit_is);
        true
    }

    /// Starts the wall clock: the run may take `wall` (zero for no limit) from now.
    pub(crate) fn start(&mut self, wall: Time) {
        let from = self.origin.unwrap_or_else(Instant::now);
        self.deadline =
            (wall > Time::ZERO).then(|| from + Duration::from_nanos((wall.ps() / 1000).max(1)));
    }

    /// The wall clock started at `origin` (the process's start), not when the run starts.
    pub(crate) fn count_from(&mut self, origin: Instant) {
        self.origin = Some(origin);
    }

    /// A flag that, once set (by a signal handler), stops the run.
    pub(crate) fn set_interrupt(&mut self, flag: Arc<AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// The limit of the whole run it must stop at now, if any: Ctrl-C or the wall clock. (A
    /// stop recorded for one rank, [`Watch::hit`], stops that rank only: the others go on to
    /// the end of the stop's epoch, `engine/runner.rs`.)
    pub(crate) fn check(&self) -> Option<Limit> {
        if self
            .interrupt
            .as_ref()
            .is_some_and(|f| f.load(Ordering::Relaxed))
            || interrupted_elsewhere()
        {
            return Some(Limit::Interrupt);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(Limit::WallTime);
        }
        None
    }

    /// Records a stop, until the engine takes it ([`Watch::hit`]); the first one recorded
    /// meanwhile is kept.
    pub(crate) fn record(&mut self, limit: Limit, rank: Option<u32>, at: Option<String>) {
        if self.hit.is_none() {
            self.hit = Some((limit, rank, at));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_the_first_stop_wins() {
        for l in Limit::ALL {
            assert_eq!(Limit::from_name(l.name()), Some(l));
        }
        let flag = Arc::new(AtomicBool::new(false));
        let mut w = Watch::new(&Limits::default());
        w.set_interrupt(flag.clone());
        w.start(Time::ZERO);
        assert_eq!(w.check(), None);
        flag.store(true, Ordering::Relaxed);
        assert_eq!(w.check(), Some(Limit::Interrupt));
        w.record(Limit::Instructions, Some(3), None);
        w.record(Limit::Events, None, None);
        assert_eq!(
            w.hit.as_ref().map(|h| (h.0, h.1)),
            Some((Limit::Instructions, Some(3)))
        );
    }

    /// A rank gives control back once its clock is past the simulated-time limit, or its
    /// turn past the fewer of `limits.posts` and `limits.events`, named as that limit.
    #[test]
    fn a_rank_pauses_past_its_clock_s_limit_or_its_turn_s_posts() {
        let limits = Limits {
            simulated_time: Time::from_us(5),
            posts: 100,
            events: 40,
            ..Limits::default()
        };
        let mut w = Watch::new(&limits);
        assert!(!w.pause_due(Time::from_us(5)));
        assert!(w.pause_due(Time::from_ps(5_000_001)));
        assert_eq!(w.over_posts, None);
        w.turn_posts = 40;
        assert!(!w.pause_due(Time::ZERO));
        w.turn_posts = 41;
        assert!(w.pause_due(Time::ZERO));
        assert_eq!(w.over_posts, Some(Limit::Events));
        let mut w = Watch::new(&Limits {
            events: 0,
            ..limits.clone()
        });
        w.turn_posts = 101;
        assert!(w.pause_due(Time::ZERO));
        assert_eq!(w.over_posts, Some(Limit::Posts));
        // no limits: never
        let mut w = Watch::new(&Limits {
            posts: 0,
            events: 0,
            simulated_time: Time::ZERO,
            ..limits
        });
        w.turn_posts = u64::MAX - 1;
        assert!(!w.pause_due(Time::HORIZON));
    }

    /// Tests that find nothing at one clock count up to the bound; a test at another clock,
    /// or one that finds its request complete, starts the count again; ranks count apart.
    #[test]
    fn tests_at_one_clock_count_per_rank_until_the_clock_moves() {
        let mut w = Watch::new(&Limits::default());
        let t = Time::from_us(1);
        for _ in 1..TESTS_AT_ONE_CLOCK {
            assert_eq!(w.tested_still(3, t, false), None);
        }
        assert_eq!(w.tested_still(7, t, false), None);
        assert_eq!(w.tested_still(3, t, false), Some(TESTS_AT_ONE_CLOCK));
        assert_eq!(w.tested_still(3, Time::from_us(2), false), None);
        assert_eq!(w.tested_still(3, Time::from_us(2), true), None);
        assert_eq!(w.tested_still(3, Time::from_us(2), false), None);
    }

    #[test]
    fn a_deadline_in_the_past_stops_at_once() {
        let mut w = Watch::new(&Limits::default());
        w.start(Time::from_ps(1));
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(w.check(), Some(Limit::WallTime));
    }
}
