//! What the script layer asks of its partition for the running rank (`current`): its place in
//! its job, its clock and random stream, the limits, its replays. The engine sets which rank
//! runs; the script layer only reads it.

use super::*;
use crate::replay::Replays;

impl Part {
    /// The rank whose script is running (the run's numbering).
    #[inline]
    pub(crate) fn current(&self) -> u32 {
        self.current
    }

    /// The running rank's number in its job (`MGEN_Comm_rank`).
    #[inline]
    pub(crate) fn comm_rank(&self) -> u32 {
        self.current - self.nodes.job(self.current).base
    }

    /// The running rank's job: its first rank (the run's numbering), its size, and the NICs
    /// of a node.
    #[inline]
    pub(crate) fn job_span(&self) -> (u32, u32, u32) {
        let j = self.nodes.job(self.current);
        (j.base, j.size, self.nodes.nics_per_node)
    }

    /// The seed of the running rank's job (`workload.seed`).
    pub(crate) fn job_seed(&self) -> u64 {
        self.nodes.job(self.current).seed
    }

    /// The index of the running rank's job.
    pub(crate) fn job_index(&self) -> u32 {
        self.nodes.job_index(self.current)
    }

    /// The most bytes one transfer may move in this run ([`Part::max_bytes`]'s rule).
    #[inline]
    pub(crate) fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// The running rank's clock.
    #[inline]
    pub(crate) fn clock(&self) -> Time {
        self.ranks[self.current as usize].clock
    }

    /// The running rank's random stream (`math.random`, `MGEN_random_ring`).
    pub(crate) fn rng(&mut self) -> &mut Xoshiro {
        let me = self.current as usize;
        &mut self.ranks[me].rng
    }

    /// Whether the engine took the running rank's turn (it no longer runs: it blocked, or a
    /// stop was recorded).
    pub(crate) fn engine_took(&self) -> bool {
        self.ranks[self.current as usize].status != crate::rank::Status::Running
    }

    /// The running rank catches the engine up with its clock (`MGEN_Test`'s sync): it wakes
    /// at its own clock, after what is due before.
    pub(crate) fn sync(&mut self) {
        let me = self.current;
        let rank = &mut self.ranks[me as usize];
        let clock = rank.clock;
        rank.wake(me, clock, &mut self.queue);
    }

    /// A limit stops the running rank (`at`: its script line, if known).
    pub(crate) fn record_stop(&mut self, limit: Limit, at: Option<String>) {
        let me = self.current;
        self.watch.record(limit, Some(me), at);
    }

    /// The limit a stop was recorded for, if one was.
    pub(crate) fn stop_recorded(&self) -> Option<Limit> {
        self.watch.hit.as_ref().map(|h| h.0)
    }

    /// The run-wide limit passed now, if one has (Ctrl-C, the wall clock).
    pub(crate) fn limit_passed(&self) -> Option<Limit> {
        self.watch.check()
    }

    /// Counts a call of the running rank in the profile, if one is recorded (`ps`: its cost).
    #[inline]
    pub(crate) fn profile_call(&mut self, api: Api, ps: u64) {
        let me = self.current;
        if let Some(p) = self.profile.as_deref_mut() {
            p.call(me, api, ps);
        }
    }

    /// Counts a replayed action (`kind`, None at the trace's end) of the running rank in the
    /// profile, if one is recorded.
    pub(crate) fn profile_action(&mut self, kind: Option<usize>) {
        let me = self.current;
        if let Some(p) = self.profile.as_deref_mut() {
            let t = self.ranks[me as usize].clock.ps();
            p.action(me, kind, t);
        }
    }

    /// The traces the ranks replay (`MGEN_trace_open`, `_next`, `_note`), for the running
    /// rank's calls.
    pub(crate) fn replays(&mut self) -> &mut Replays {
        &mut self.replays
    }
}
