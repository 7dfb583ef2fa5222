//! The windows of one process of an MPI job on several threads (`mpirun -np P mgensim run
//! --threads T`): the process's own partitions run on its threads exactly as a one-process
//! run's do ([`phase`]), and between the phases its leader (the thread that started MPI, the
//! only one that calls it) bundles the mail for other processes, swaps it, and puts what
//! arrived in the mailboxes, so that each partition takes in its messages in the order of the
//! sending partitions, as in one process. The plan, the event count and the stops are agreed
//! as on one thread (`windows/across.rs`).

use super::{phase, Quit, Shared, PARALLEL_TAKE_IN, RUN, TAKE_IN};
use crate::config::Limits;
use crate::engine::governor::Governor;
use crate::engine::runner::Runner;
use crate::engine::windows::across::{halt_for, Agreed, Bundles};
use crate::engine::windows::{earliest, series_stop_of, Windows};
use crate::engine::world::{Halt, World};
use crate::engine::Stop;
use crate::units::Time;

/// Runs this process's partitions of `runners` (those of group `world.rank()`, contiguous)
/// on `threads` threads, window by window in step with the other processes, until nothing is
/// left to do anywhere or some process stops. Returns this process's stop, if it reached one
/// (as [`Windows::drive_across`]).
pub(crate) fn drive_across(
    win: &mut Windows,
    runners: &[Runner],
    world: &World,
    limits: &Limits,
    threads: u32,
    mut progress: impl FnMut(),
) -> Result<Option<Stop>, String> {
    let me = world.rank();
    let local: Vec<usize> = (0..runners.len())
        .filter(|&p| win.groups[p] == me)
        .collect();
    let (Some(&first), Some(&last)) = (local.first(), local.last()) else {
        return Err(format!("process {me} runs no partition"));
    };
    let helpers = threads.saturating_sub(1).min(local.len() as u32 - 1);
    let groups = win.groups.clone();
    let shared = Shared::new(runners, limits, &groups, helpers, first..last + 1);
    std::thread::scope(|scope| {
        for h in 0..helpers as usize {
            let shared = &shared;
            scope.spawn(move || super::helper(shared, h));
        }
        let _quit = Quit(&shared);
        lead_across(&shared, win, world, &local, helpers, &mut progress)
    })
}

/// The leader of a process's threads: agrees each window with the other processes, runs the
/// process's partitions on its threads, swaps the cut messages between processes and has its
/// partitions take them in.
fn lead_across(
    s: &Shared,
    win: &mut Windows,
    world: &World,
    local: &[usize],
    helpers: u32,
    progress: &mut impl FnMut(),
) -> Result<Option<Stop>, String> {
    let n = s.runners.len();
    let mut next: Vec<(u64, u32)> = s.runners.iter().map(|r| r.next()).collect();
    let mut events = vec![0u64; n];
    let mut now = Time::ZERO;
    let mut list = Vec::with_capacity(local.len());
    let mut receives = vec![false; n];
    let mut sent = 0u64;
    // this process's stop in a window (a rank's error, a limit): the run stops before the
    // window's cut messages are taken in, as in one process
    let mut at_once: Option<Stop> = None;
    // a stop at an epoch's end (`limits.events`, a full series): after they are
    let mut then: Option<Stop> = None;
    // (whether the helpers join a window is measured, as in one process: `governor.rs`)
    let mut governor = Governor::new(helpers);
    let result = loop {
        // the mail for other processes, from the mailboxes the last run phase filled
        let mut bundles = Bundles::new(world, halt_for(&at_once, &then));
        for &src in local {
            for dst in (0..n).filter(|&d| win.groups[d] != win.groups[src]) {
                let mut mail = s.mail[src * n + dst].lock().expect("mailbox");
                if !mail.is_empty() {
                    bundles.put(win.groups[dst], src, dst, &mail);
                    mail.empty();
                }
            }
        }
        win.stats.crossed(bundles.bytes);
        let (halt, remote) = match bundles.swap(world, n) {
            Ok(swapped) => swapped,
            Err(e) => break Err(e),
        };
        if halt == Halt::Now {
            // (every process ends here, before the window's cut messages are taken in)
            win.keep(then.into_iter().collect(), u64::MAX);
            break Ok(win.stop_with(at_once));
        }
        for (src, dst, mail) in remote {
            sent += mail.len() as u64;
            receives[dst] = true;
            *s.mail[src * n + dst].lock().expect("mailbox") = mail;
        }
        // take in: the partitions sent something, each from partition 0's mail to the last's
        list.clear();
        list.extend(local.iter().copied().filter(|&i| receives[i]));
        receives.iter_mut().for_each(|r| *r = false);
        let on_threads = if sent > PARALLEL_TAKE_IN {
            governor.helpers()
        } else {
            0
        };
        phase(s, TAKE_IN, &list, on_threads);
        let mut failed = None;
        for &i in &list {
            let mut slot = s.slots[i].lock().expect("slot");
            if let Some(stop) = slot.stop.take() {
                // (a partition that failed to take its mail in: an internal error)
                failed = Some(stop.to_string());
            }
            next[i] = slot.next;
        }
        if let Some(e) = failed {
            break Err(e);
        }
        if halt == Halt::AfterTakeIn {
            win.keep(at_once.into_iter().collect(), u64::MAX);
            break Ok(win.stop_with(then));
        }
        // the plan, agreed
        let mine = local.iter().fold((u64::MAX, u32::MAX), |(t, h), &i| {
            (t.min(next[i].0), h.min(next[i].1))
        });
        let full = |now| series_stop_of(local.iter().map(|&p| &s.runners[p]), now, s.limits);
        let (end, at_epoch) = match win.agree(world, mine, now, s.limits, full) {
            Agreed::Done(stop) => break Ok(stop),
            Agreed::Stop(stop) => break Ok(Some(stop)),
            Agreed::Run { end, at_epoch } => (end, at_epoch),
        };
        s.end.store(end, std::sync::atomic::Ordering::SeqCst);
        // run: this process's partitions with something to do before the end
        list.clear();
        list.extend(local.iter().copied().filter(|&i| next[i].0 < end));
        let started = std::time::Instant::now();
        s.busy_ns.store(0, std::sync::atomic::Ordering::Relaxed);
        phase(s, RUN, &list, governor.helpers());
        let busy = s.busy_ns.load(std::sync::atomic::Ordering::Relaxed);
        governor.record(list.len(), started.elapsed().as_nanos() as u64, busy);
        let mut stops = Vec::new();
        sent = 0;
        for &i in &list {
            let mut slot = s.slots[i].lock().expect("slot");
            stops.extend(slot.stop.take());
            let (kept, horizon) = std::mem::take(&mut slot.stops);
            win.keep(kept, horizon);
            events[i] = slot.events;
            now = now.max(slot.now);
            next[i] = slot.next;
            win.stats.messages += slot.messages;
            for &d in &slot.sent_to {
                if win.groups[d] == win.groups[i] {
                    sent += s.mail[i * n + d].lock().expect("mailbox").len() as u64;
                    receives[d] = true;
                }
            }
        }
        at_once = at_once.or(earliest(stops));
        progress();
        let mine = || local.iter().map(|&i| events[i]).sum();
        // (the event limit is agreed by every process; a full series is this one's)
        then = win.agree_events(world, at_epoch, mine, || now, s.limits);
        if then.is_none() && win.series() && at_epoch && at_once.is_none() {
            then = series_stop_of(local.iter().map(|&p| &s.runners[p]), Time(end), s.limits);
        }
    };
    win.stats.alone = governor.alone;
    result
}
