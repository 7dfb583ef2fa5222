//! The windows of a run on several threads (docs/architecture.md, "Partitions").
//!
//! The same windows as [`Windows::drive`], planned the same way, with the partitions that
//! have something to do in a window shared among threads: each partition has a home thread
//! (the partitions cut into as many consecutive ranges as there are threads), and a thread
//! takes the next of its own not yet taken (an atomic ticket per thread), simulates its
//! window, and takes another; with none of its own left, it takes the last of another
//! thread's. So a partition mostly stays on one thread, whose caches hold its state, and no
//! thread idles while another has two left. The leader waits for the partitions to be done,
//! not for the threads: a helper the operating system did not run in time finds them all taken
//! and waits for the next phase.
//! Each partition leaves the cut messages it sent in a mailbox, one slot per (sender,
//! receiver); then each receiver takes in its slots, from partition 0's to the last's (on
//! threads too when there are many messages). The calling thread, the *leader*, does its
//! share of each phase and, with no other thread running, plans the next window, shows
//! progress and picks the stop a run reports: results depend on the model only, as in one
//! thread, whatever thread ran which partition.
//!
//! A window in which one partition alone has something to do runs on the leader with no
//! synchronization at all; otherwise a phase costs one pass through the [`Gate`], and wakes
//! only as many threads as there are partitions to run.

use super::governor::Governor;
use super::runner::{Pause, Runner};
use super::windows::{earliest, Plan, Windows};
use super::Stop;
use crate::config::Limits;

use crate::units::Time;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// What one partition reports at the end of a phase (written by the thread that ran it).
#[derive(Default)]
struct Slot {
    /// Its next time and the shortest packet held across a cut (after the phase).
    next: (u64, u32),
    /// Cut messages it took in (take-in), or sent (run).
    messages: u64,
    /// The partitions it sent messages to (run).
    sent_to: Vec<usize>,
    /// The stop it reached in the window that ended it at once, if any.
    stop: Option<Stop>,
    /// The stops of ranks and limits it reached in the window, and where they end the run
    /// (`Runner::take_stops`).
    stops: (Vec<Stop>, u64),
    /// Its events so far, and its time.
    events: u64,
    now: Time,
    /// What it takes in from partitions of other process groups goes through bytes (its
    /// buffers), and how many bytes did at its last take-in.
    crossing: crate::cut::Crossing,
    carried: u64,
}

/// The state the threads share.
struct Shared<'a> {
    runners: &'a [Runner],
    limits: &'a Limits,
    /// `mail[src · n + dst]`: what partition `src` sent `dst` in the last window; once `dst`
    /// has emptied it, its buffer goes back to `src`'s outbox at `src`'s next run.
    mail: Vec<Mutex<crate::cut::Mail>>,
    slots: Vec<Mutex<Slot>>,
    /// The process group of each partition ([`Windows::groups`]).
    groups: &'a [u32],
    /// The partitions of this phase (`order[..count]`), in partition order.
    order: Vec<AtomicUsize>,
    /// Per thread (the leader's first), its ticket for this phase: the phase's generation (high
    /// 32 bits), then one past the last of its home partitions not yet taken (16 bits) and the
    /// first of them (low 16 bits), as places in `order`. The thread takes from the front of
    /// its own, others from the back. A partition is taken by moving a ticket on from the value
    /// read, so a thread that comes late takes nothing of a phase that is over, nor of the next
    /// one by mistake.
    tickets: Vec<AtomicU64>,
    /// The phase's partition count.
    count: AtomicU32,
    /// This phase: [`TAKE_IN`] or [`RUN`], and the window's end (ps).
    phase: AtomicU32,
    end: AtomicU64,
    /// Set when the helpers are to quit.
    quit: AtomicBool,
    gate: Gate,
    /// Time the partitions spent in this window's phases, all threads together (ns), for the
    /// [`Governor`].
    busy_ns: AtomicU64,
    /// The partitions these threads run, cut into one home range per thread: every partition
    /// in one process; an MPI process's own (`threads/across.rs`), whose mail from other
    /// processes arrives as bytes already.
    home: std::ops::Range<usize>,
}

// SAFETY: a `Runner` is reached by one thread at a time: in a phase, only by the thread that
// took its index from `take` (each index is taken once per phase); between phases, only by the
// leader, while every other thread waits at the gate. The gate's atomics order a phase's
// writes before the next phase's reads (release/acquire), as a join would.
unsafe impl Sync for Shared<'_> {}

const TAKE_IN: u32 = 0;
const RUN: u32 = 1;

/// Bits of each end of the ticket's list of partitions not yet taken.
const TICKET_BITS: u32 = 16;
const _: () = assert!(crate::config::MAX_PARTITIONS < 1 << TICKET_BITS);

/// Above this many cut messages in a window, receivers take them in on threads too.
const PARALLEL_TAKE_IN: u64 = 1024;

/// Where the threads wait for each other: helpers wait for the next phase (`generation`);
/// the leader waits until every partition of the phase is done (`finished`), whoever took
/// it ([`Gate::gather`]), does its serial part, and opens the next ([`Gate::open`]). The
/// leader never waits for a helper that took nothing: one that the operating system did not
/// run in time (a busy or shared machine) finds the phase's partitions all taken, by the
/// leader, and waits for the next.
///
/// A waiting thread spins for a while (a window often lasts microseconds), then parks: with
/// no more threads than cores it rarely parks; with more, it parks at once rather than take a
/// core from a thread that has work. The thread that ends a wait unparks whoever parked.
struct Gate {
    /// Partitions of this phase done.
    finished: AtomicU32,
    /// The phase's generation (high 32 bits) and the helpers it needs, the first `wanted`
    /// (low 32 bits; the others sleep through it): one word, read as one.
    generation: AtomicU64,
    /// Spins before parking.
    spins: u32,
    /// The leader, and whether it is parked (or about to).
    leader: std::thread::Thread,
    leader_parked: AtomicBool,
    /// Each helper (once it has started), and whether it is parked (or about to).
    helpers: Vec<(std::sync::OnceLock<std::thread::Thread>, AtomicBool)>,
    /// Whether the leader, parked, looks every [`LOOK_PERIOD`] for another process's
    /// interrupt (an MPI process's leader: `engine/world.rs`).
    looks: bool,
}

/// How often a parked leader of an MPI process looks for another process's interrupt.
const LOOK_PERIOD: std::time::Duration = std::time::Duration::from_millis(5);

impl Gate {
    /// The gate of the calling thread (the leader) and `helpers` more, on a machine of
    /// `cores`; `looks`: see [`Gate::looks`].
    fn new(helpers: u32, cores: u32, looks: bool) -> Gate {
        Gate {
            finished: AtomicU32::new(0),
            generation: AtomicU64::new(0),
            spins: if helpers < cores { 20_000 } else { 50 },
            leader: std::thread::current(),
            leader_parked: AtomicBool::new(false),
            helpers: (0..helpers)
                .map(|_| (std::sync::OnceLock::new(), AtomicBool::new(false)))
                .collect(),
            looks,
        }
    }

    /// Waits until `done()`, spinning and then parking with `parked` set (whoever makes
    /// `done()` true looks at it after, and unparks).
    fn wait(&self, parked: &AtomicBool, looks: bool, done: impl Fn() -> bool) {
        for _ in 0..self.spins {
            if done() {
                return;
            }
            std::hint::spin_loop();
        }
        loop {
            parked.store(true, Ordering::SeqCst);
            if done() {
                parked.store(false, Ordering::Relaxed);
                return;
            }
            if looks {
                // (an MPI process's leader: a helper may be running a rank that loops in
                // Lua, which only this process's interrupt flag stops)
                std::thread::park_timeout(LOOK_PERIOD);
                crate::limits::interrupted_elsewhere();
            } else {
                std::thread::park();
            }
            parked.store(false, Ordering::Relaxed);
            if done() {
                return;
            }
        }
    }

    /// Helper `h` waits until the leader opens a phase after generation `seen` that needs
    /// it; returns that generation.
    fn next_phase(&self, h: usize, mut seen: u64) -> u64 {
        let (me, parked) = &self.helpers[h];
        me.get_or_init(std::thread::current);
        loop {
            self.wait(parked, false, || {
                self.generation.load(Ordering::SeqCst) >> 32 != seen
            });
            let word = self.generation.load(Ordering::SeqCst);
            seen = word >> 32;
            if (h as u64) < word & 0xffff_ffff {
                return seen;
            }
        }
    }

    /// One more partition of a phase of `count` is done (the last one wakes the leader).
    fn done(&self, count: u32) {
        let before = self.finished.fetch_add(1, Ordering::SeqCst);
        if before + 1 == count && self.leader_parked.load(Ordering::SeqCst) {
            self.leader.unpark();
        }
    }

    /// The leader waits until the `count` partitions of the phase are done.
    fn gather(&self, count: u32) {
        self.wait(&self.leader_parked, self.looks, || {
            self.finished.load(Ordering::SeqCst) == count
        });
        self.finished.store(0, Ordering::SeqCst);
    }

    /// The next phase's generation.
    fn next_generation(&self) -> u32 {
        ((self.generation.load(Ordering::SeqCst) >> 32) + 1) as u32
    }

    /// The leader opens phase `generation` ([`Gate::next_generation`]), for the first
    /// `wanted` helpers.
    fn open(&self, generation: u32, wanted: u32) {
        let next = (generation as u64) << 32 | wanted as u64;
        self.generation.store(next, Ordering::SeqCst);
        for (thread, parked) in &self.helpers[..wanted as usize] {
            if parked.load(Ordering::SeqCst) {
                if let Some(t) = thread.get() {
                    t.unpark();
                }
            }
        }
    }
}

/// Runs the windows of `runners` on `threads` threads (the caller's and `threads − 1` more)
/// until nothing is left to do (`Ok`) or the run stops (`Err`, the earliest stop, as in one
/// thread). `progress` is called now and then, on the calling thread.
pub(crate) fn drive(
    win: &mut Windows,
    runners: &[Runner],
    limits: &Limits,
    threads: u32,
    mut progress: impl FnMut(),
) -> Result<(), Stop> {
    let n = runners.len();
    let helpers = threads.saturating_sub(1).min(n as u32 - 1);
    let groups = win.groups.clone();
    let shared = Shared::new(runners, limits, &groups, helpers, 0..n);
    std::thread::scope(|scope| {
        for h in 0..helpers as usize {
            let shared = &shared;
            scope.spawn(move || helper(shared, h));
        }
        // (the helpers quit however the leader ends, even by a panic)
        let _quit = Quit(&shared);
        lead(&shared, win, helpers, &mut progress)
    })
}

impl<'a> Shared<'a> {
    /// Whether these threads run an MPI process's partitions: what another process sends
    /// them arrives as bytes, taken in as they are.
    fn across(&self) -> bool {
        self.home.len() < self.runners.len()
    }

    /// The state of `helpers` helper threads and the leader running the partitions `home`
    /// of `runners` (a contiguous range: all of them, or an MPI process's own).
    fn new(
        runners: &'a [Runner],
        limits: &'a Limits,
        groups: &'a [u32],
        helpers: u32,
        home: std::ops::Range<usize>,
    ) -> Shared<'a> {
        let n = runners.len();
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get()) as u32;
        Shared {
            runners,
            limits,
            groups,
            mail: (0..n * n).map(|_| Mutex::new(Default::default())).collect(),
            slots: (0..n).map(|_| Mutex::new(Slot::default())).collect(),
            order: (0..n).map(AtomicUsize::new).collect(),
            tickets: (0..=helpers).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU32::new(0),
            phase: AtomicU32::new(RUN),
            end: AtomicU64::new(0),
            quit: AtomicBool::new(false),
            gate: Gate::new(helpers, cores, home.len() < n),
            busy_ns: AtomicU64::new(0),
            home,
        }
    }
}

/// On drop, tells the helpers to quit.
struct Quit<'s, 'a>(&'s Shared<'a>);

impl Drop for Quit<'_, '_> {
    fn drop(&mut self) {
        let gate = &self.0.gate;
        self.0.quit.store(true, Ordering::SeqCst);
        gate.open(gate.next_generation(), gate.helpers.len() as u32);
    }
}

/// What helper `h` does: the phases the leader opens for it, until it says to quit.
fn helper(s: &Shared, h: usize) {
    let mut seen = 0;
    loop {
        seen = s.gate.next_phase(h, seen);
        if s.quit.load(Ordering::SeqCst) {
            return;
        }
        work(s, h + 1);
    }
}

/// The partitions of the open phase, taken one at a time on thread `t` (0: the leader) until
/// none is left: its home partitions from the front, then, when they are all taken, another
/// thread's from the back (the threads after it first). From one window to the next a
/// partition thus mostly runs on the same thread, whose caches hold its state (on the
/// 4,096-node Bruck 1 KiB, 4 partitions on two threads: 25.0 s against 25.7–26.3 s when each
/// thread took the next in one list sorted busiest first; docs/performance.md).
fn work(s: &Shared, t: usize) {
    let threads = s.tickets.len();
    loop {
        let Some(j) = (0..threads).find_map(|k| take(&s.tickets[(t + k) % threads], k == 0)) else {
            return;
        };
        let count = s.count.load(Ordering::Relaxed) as u64;
        // (what the leader wrote before the ticket, read after taking it: the phase cannot
        // end, and they cannot change, before this partition is done)
        let i = s.order[j as usize].load(Ordering::Relaxed);
        let phase = s.phase.load(Ordering::Relaxed);
        one(s, phase, i);
        s.gate.done(count as u32);
    }
}

/// A place in `order` from `ticket`: its first if it is the taking thread's own (`own`), else
/// its last; `None` when all of its partitions are taken.
fn take(ticket: &AtomicU64, own: bool) -> Option<u64> {
    let mask = (1u64 << TICKET_BITS) - 1;
    loop {
        let word = ticket.load(Ordering::Acquire);
        let (back, front) = ((word >> TICKET_BITS) & mask, word & mask);
        if front >= back {
            return None;
        }
        let (next, j) = if own {
            (word + 1, front)
        } else {
            (word - (1 << TICKET_BITS), back - 1)
        };
        if ticket
            .compare_exchange_weak(word, next, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            return Some(j);
        }
    }
}

/// Phase `phase` of partition `i`; a panic becomes its stop.
fn one(s: &Shared, phase: u32, i: usize) {
    let started = Instant::now();
    let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match phase {
        TAKE_IN => take_in(s, i),
        _ => run(s, i),
    }));
    if let Err(panic) = done {
        let what = panic
            .downcast_ref::<&str>()
            .map(|m| m.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let mut slot = s.slots[i].lock().unwrap_or_else(|e| e.into_inner());
        slot.stop = Some(Stop::Internal(format!("partition {i} failed: {what}")));
    }
    let busy = started.elapsed().as_nanos() as u64;
    s.busy_ns.fetch_add(busy, Ordering::Relaxed);
}

/// Partition `i` takes in what the others sent it, and says what it has left to do.
fn take_in(s: &Shared, i: usize) {
    let n = s.runners.len();
    let r = &s.runners[i];
    let mut taken = 0;
    let mut crossing = std::mem::take(&mut s.slots[i].lock().expect("slot").crossing);
    let carried = crossing.carried;
    for src in 0..n {
        if src == i {
            continue;
        }
        let mut mail = s.mail[src * n + i].lock().expect("mailbox");
        if !mail.is_empty() {
            taken += mail.len() as u64;
            // (from another process group: as the bytes it would cross as)
            let mail_in = if s.groups[src] != s.groups[i] && !s.across() {
                crossing.carry(&mail)
            } else {
                &mail
            };
            r.part.borrow_mut().take_cuts(mail_in);
            mail.empty();
        }
    }
    let next = r.next();
    let mut slot = s.slots[i].lock().expect("slot");
    slot.next = next;
    slot.messages = taken;
    slot.carried = crossing.carried - carried;
    slot.crossing = crossing;
}

/// Partition `i` simulates the window, leaves what it sent in the mailbox, and says what it
/// has left to do (before it takes in what others sent it). A mailbox's buffer goes back to
/// its sender's outbox at the sender's next run, once the receiver has emptied it.
fn run(s: &Shared, i: usize) {
    let n = s.runners.len();
    let r = &s.runners[i];
    let end = s.end.load(Ordering::Acquire);
    {
        // the mailboxes it filled last time, emptied since, become its outboxes again: one
        // buffer per (sender, receiver), as in one thread
        let slot = s.slots[i].lock().expect("slot");
        let mut w = r.part.borrow_mut();
        for &dst in &slot.sent_to {
            let mut mail = s.mail[i * n + dst].lock().expect("mailbox");
            w.outbox()[dst] = std::mem::take(&mut *mail);
        }
    }
    let stop = loop {
        match r.run_window(end, s.limits, false) {
            Ok(Pause::Done) => break None,
            Ok(Pause::Checkpoint) => {}
            Err(stop) => break Some(stop),
        }
    };
    let mut slot = s.slots[i].lock().expect("slot");
    slot.sent_to.clear();
    slot.messages = 0;
    {
        let mut w = r.part.borrow_mut();
        w.flush_outbox();
        for dst in 0..n {
            if dst != i && !w.outbox()[dst].is_empty() {
                slot.messages += w.outbox()[dst].len() as u64;
                slot.sent_to.push(dst);
                let mut mail = s.mail[i * n + dst].lock().expect("mailbox");
                *mail = std::mem::take(&mut w.outbox()[dst]);
            }
        }
        slot.stop = stop;
        slot.stops = r.take_stops();
        slot.events = w.events();
        slot.now = w.now();
    }
    slot.next = r.next();
}

/// The leader: plans each window, runs its partitions (alone, or with as many helpers as
/// there are partitions to run), has them take in their messages, and stops the run where
/// one thread would.
fn lead(
    s: &Shared,
    win: &mut Windows,
    helpers: u32,
    progress: &mut impl FnMut(),
) -> Result<(), Stop> {
    let n = s.runners.len();
    let mut next: Vec<(u64, u32)> = s.runners.iter().map(|r| r.next()).collect();
    let mut events = vec![0u64; n];
    let mut now = Time::ZERO;
    let mut list = Vec::with_capacity(n);
    let mut receives = vec![false; n];
    let mut governor = Governor::new(helpers);
    let result = loop {
        let (end, at_epoch) = match win.plan(true, next.iter().copied(), || now, s.limits) {
            Plan::Done => match win.series_stop(true, s.runners, now, s.limits) {
                Some(stop) => break Err(stop),
                None => break Ok(()),
            },
            Plan::Stop(stop) => break Err(stop),
            Plan::Run { end, at_epoch } => (end, at_epoch),
        };
        s.end.store(end, Ordering::SeqCst);
        // run: the partitions with something to do before the end, in their order (the
        // leader takes them from the front, helpers from the back: see `work`)
        list.clear();
        list.extend((0..n).filter(|&i| next[i].0 < end));
        let running = list.len();
        let helpers = governor.helpers();
        let started = Instant::now();
        s.busy_ns.store(0, Ordering::Relaxed);
        phase(s, RUN, &list, helpers);
        let mut stops = Vec::new();
        let mut sent = 0;
        for &i in &list {
            let mut slot = s.slots[i].lock().expect("slot");
            stops.extend(slot.stop.take());
            let (kept, horizon) = std::mem::take(&mut slot.stops);
            win.keep(kept, horizon);
            events[i] = slot.events;
            now = now.max(slot.now);
            next[i] = slot.next;
            sent += slot.messages;
            for &d in &slot.sent_to {
                receives[d] = true;
            }
        }
        if let Some(stop) = earliest(stops) {
            break Err(win.stop_with(Some(stop)).expect("a stop"));
        }
        progress();
        // (at a stop at an epoch's end, `limits.events` or a full series, what crossed a cut
        // in the window is taken in first: one partition has every arrival of the epoch in
        // place, and every release it made counted for its feeder)
        let at_limit = win
            .event_stop(at_epoch, || events.iter().sum(), || now, s.limits)
            .or_else(|| win.series_stop(at_epoch, s.runners, Time(end), s.limits));
        // take in: the partitions sent something
        list.clear();
        list.extend((0..n).filter(|&i| receives[i]));
        receives.iter_mut().for_each(|r| *r = false);
        let on_threads = if sent > PARALLEL_TAKE_IN { helpers } else { 0 };
        phase(s, TAKE_IN, &list, on_threads);
        let mut failed = None;
        let mut carried = 0;
        for &i in &list {
            let mut slot = s.slots[i].lock().expect("slot");
            if let Some(stop) = slot.stop.take() {
                failed = Some(stop);
                break;
            }
            win.stats.messages += slot.messages;
            carried += std::mem::take(&mut slot.carried);
            next[i] = slot.next;
        }
        win.stats.crossed(carried);
        if let Some(stop) = failed.or(at_limit) {
            break Err(win.stop_with(Some(stop)).expect("a stop"));
        }
        let wall = started.elapsed().as_nanos() as u64;
        governor.record(running, wall, s.busy_ns.load(Ordering::Relaxed));
    };
    win.stats.alone = governor.alone;
    result
}

/// Phase `p` of the partitions `list`: on the leader alone if it has one or no helper may
/// join, else with as many helpers as it has partitions beyond the first (at most `helpers`).
fn phase(s: &Shared, p: u32, list: &[usize], helpers: u32) {
    let wanted = (list.len() as u32).saturating_sub(1).min(helpers);
    if wanted == 0 {
        for &i in list {
            one(s, p, i);
        }
        return;
    }
    for (j, &i) in list.iter().enumerate() {
        s.order[j].store(i, Ordering::Relaxed);
    }
    s.phase.store(p, Ordering::Relaxed);
    let generation = s.gate.next_generation();
    let count = list.len() as u64;
    s.count.store(count as u32, Ordering::Relaxed);
    // each thread's home partitions: the run's partitions cut into as many consecutive ranges
    // as threads (so a partition's home is the same in every window), those of this phase
    // being a range of `list`, which is in partition order
    let (first, n, threads) = (s.home.start, s.home.len(), s.tickets.len());
    let mut start = 0;
    for (t, ticket) in s.tickets.iter().enumerate() {
        let end = start + list[start..].partition_point(|&i| (i - first) * threads / n == t);
        let word = (generation as u64) << 32 | (end as u64) << TICKET_BITS | start as u64;
        ticket.store(word, Ordering::Release);
        start = end;
    }
    debug_assert_eq!(start, list.len());
    s.gate.open(generation, wanted);
    work(s, 0);
    s.gate.gather(count as u32);
}

pub(crate) mod across;
