//! The end of a run that a stop stopped (a rank's error, a deadlock, a limit, a signal): its
//! partial report, marked with the stop.

use super::{SimError, Simulation, Stop};
use crate::limits::Limit;
use crate::report::WindowStats;
use std::time::Instant;

impl Simulation {
    /// The end of a run that `stop` stopped: its partial report, marked with the stop.
    pub(super) fn stopped(&self, stop: Stop, started: Instant, stats: WindowStats) -> SimError {
        let prompt = match &stop {
            Stop::Limit {
                limit: Limit::Interrupt,
                ..
            } => Some("interrupted"),
            Stop::Limit {
                limit: Limit::WallTime,
                ..
            } => Some("wall-clock limit"),
            _ => None,
        };
        let dropped = prompt
            .map(|_| self.drop_bulky_records())
            .unwrap_or_default();
        // (a limit stops the run where the simulation got: the stop's time, or the last event
        // if later; a rank's clock ahead of both, computing or at its traffic's end, was not
        // reached)
        let at = match &stop {
            Stop::Limit { time, .. } => Some((*time).max(self.reached())),
            _ => None,
        };
        let mut partial = self.report(started, true, stats, at);
        partial.stop = Some(stop.to_string());
        partial.warnings.extend(self.replay_warnings());
        match &stop {
            // the rank whose script failed comes first, with its error
            Stop::Script {
                rank,
                who,
                time,
                message,
            } => {
                partial.mark_failed(*rank, who, *time, message);
                partial.bound = None;
            }
            // a run that cannot go on was bounded by nothing but that
            Stop::Deadlock { .. } => partial.bound = None,
            _ => {}
        }
        if let (Some(why), false) = (prompt, dropped.is_empty()) {
            partial.warnings.push(format!(
                "{why}: {} not written, to stop promptly (a run stopped by --until or \
                 limits.events writes them up to the stop)",
                dropped.join(", ")
            ));
        }
        SimError {
            stop,
            partial: Some(Box::new(partial)),
        }
    }

    /// A run stopped by a signal or the wall clock ends promptly: the bulky records (time
    /// series, buffer history, timeline) are let go, not turned into outputs. Returns what
    /// they were, for a warning.
    fn drop_bulky_records(&self) -> Vec<&'static str> {
        let mut dropped = Vec::new();
        // (a process about to end leaves them to the exit: freeing gigabytes takes seconds)
        let last = self.last;
        const WHAT: [&str; 3] = [
            "links_timeseries.csv and power_timeseries.csv",
            "buffer_history.csv",
            "the timeline (trace)",
        ];
        for run in &self.runners {
            let had = run.part.borrow_mut().drop_bulky_records(last);
            for (what, _) in WHAT.iter().zip(had).filter(|(_, had)| *had) {
                if !dropped.contains(what) {
                    dropped.push(*what);
                }
            }
        }
        dropped
    }
}
