//! The operations the API calls on a partition for its running rank that check what only the
//! partition knows (a handle or a request of the rank, its regions, its clock's bound), and
//! the message-passing posts: each returns the typed [`CallError`] of a refusal (the values'
//! own rules are `calls.rs`'s). The job's rank numbers become the run's here, once.

use super::*;
use crate::api::CallError;
use crate::mpi::{split_request, ANY_SOURCE};
use crate::rank::Call;
use crate::rdma::split_handle;

/// A completed receive's (or send's) status: its source as a rank of the job, its tag, its
/// bytes.
pub(crate) type StatusValues = (i64, i64, i64);

impl Part {
    /// `MGEN_Comp(seconds)` by the running rank: its clock advances by `seconds` (rounded to the
    /// picosecond), which it computed for; never past [`Time::HORIZON`].
    pub(crate) fn compute(&mut self, seconds: f64) -> Result<(), CallError> {
        let t = match Time::from_secs_f64(seconds) {
            Some(t) => t,
            None if seconds.is_finite() && seconds >= 0.0 => {
                return Err(CallError::SecondsOutOfRange(seconds))
            }
            None => return Err(CallError::NotSeconds(seconds)),
        };
        let cur = self.current;
        let rank = &mut self.ranks[cur as usize];
        let start = rank.clock;
        match start.checked_add(t) {
            Some(end) if end <= Time::HORIZON => rank.clock = end,
            _ => {
                return Err(CallError::ClockPastHorizon {
                    seconds,
                    at: start.as_secs_f64(),
                })
            }
        }
        rank.compute += t;
        if rank.clock > self.watch.time_limit {
            rank.computed_past_limit = true;
        }
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.span(cur, start.ps(), rank.clock.ps(), What::Compute);
        }
        if let Some(p) = self.profile.as_deref_mut() {
            p.call(cur, Api::Comp, t.ps());
        }
        Ok(())
    }

    /// `MGEN_region_begin(name)` by the running rank: a region opens (a span on its timeline).
    pub(crate) fn region_begin(&mut self, name: &str) {
        let cur = self.current;
        let rank = &mut self.ranks[cur as usize];
        rank.regions += 1;
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.begin(cur, name, rank.clock.ps());
        }
        if let Some(p) = self.profile.as_deref_mut() {
            p.begin(cur, name, rank.clock.ps());
        }
    }

    /// `MGEN_region_end()` by the running rank: its innermost region closes.
    pub(crate) fn region_end(&mut self) -> Result<(), CallError> {
        let cur = self.current;
        let rank = &mut self.ranks[cur as usize];
        if rank.regions == 0 {
            return Err(CallError::NoRegion);
        }
        rank.regions -= 1;
        if let Some(tr) = self.trace.as_deref_mut() {
            tr.end(cur, rank.clock.ps());
        }
        if let Some(p) = self.profile.as_deref_mut() {
            p.end(cur, rank.clock.ps());
        }
        Ok(())
    }

    /// `MGEN_Isend` by the running rank to `dest` (a rank of its job, checked), on NIC `nic` or
    /// the next in turn, as part of call `api` (`MGEN_Isend`, or a blocking call built on it):
    /// the request's handle.
    pub(crate) fn isend(
        &mut self,
        api: Api,
        dest: u32,
        bytes: u64,
        tag: i64,
        nic: Option<u32>,
    ) -> i64 {
        let me = self.current;
        self.watch.turn_posts += 1;
        let dest = self.nodes.job(me).base + dest;
        let pair = self.pick_nics(me, dest, nic);
        let rank = &mut self.ranks[me as usize];
        let before = rank.clock;
        let h = self
            .mpi
            .isend(rank, dest, bytes, tag, pair, &mut self.queue);
        if let Some(tr) = self.trace.as_deref_mut() {
            let what = What::Call {
                name: api.name(),
                peer: dest,
                bytes,
                tag,
                flow: flow_id(h),
            };
            tr.span(me, before.ps(), self.ranks[me as usize].clock.ps(), what);
        }
        if let Some(p) = self.profile.as_deref_mut() {
            p.call(me, api, (self.ranks[me as usize].clock - before).ps());
        }
        h
    }

    /// `MGEN_Irecv` by the running rank from `src` (a rank of its job, checked, or
    /// [`ANY_SOURCE`]), as part of call `api` (`MGEN_Irecv`, or a blocking call built on it):
    /// the request's handle.
    pub(crate) fn irecv(&mut self, api: Api, src: i64, bytes: u64, tag: i64) -> i64 {
        let me = self.current;
        let src = if src == ANY_SOURCE {
            ANY_SOURCE
        } else {
            (self.nodes.job(me).base as i64) + src
        };
        let before = self.ranks[me as usize].clock;
        let h = self.mpi.irecv(
            me,
            &mut self.ranks[me as usize],
            src,
            bytes,
            tag,
            &mut self.queue,
        );
        if let Some(tr) = self.trace.as_deref_mut() {
            // (the posting's cost on the rank's clock: its overhead; a receive from any rank
            // names the receiving rank as its peer)
            let what = What::Call {
                name: api.name(),
                peer: if src == ANY_SOURCE { me } else { src as u32 },
                bytes,
                tag,
                flow: 0,
            };
            tr.span(me, before.ps(), self.ranks[me as usize].clock.ps(), what);
        }
        if let Some(p) = self.profile.as_deref_mut() {
            let took = (self.ranks[me as usize].clock - before).ps();
            // (MGEN_Sendrecv is counted once, by its send)
            match api {
                Api::Sendrecv => p.blocked(me, api, took),
                _ => p.call(me, api, took),
            }
        }
        h
    }

    /// Waiting for request `request` of the running rank: its status if it has completed (the
    /// request is then used up), `None` if not yet, after which the rank waits for it in `call`
    /// if `block`.
    pub(crate) fn wait_request(
        &mut self,
        request: i64,
        call: Call,
        block: bool,
    ) -> Result<Option<StatusValues>, CallError> {
        let me = self.current;
        if block && self.pause_due() {
            // (the rank gives control back first, waiting for nothing: `Watch::pause_due`; it
            // asks again if it is ever resumed)
            return Ok(None);
        }
        let seq = match split_request(request) {
            Some((r, seq)) if r == me => seq,
            Some((owner, _)) => return Err(CallError::RequestOfOther { request, owner, me }),
            None if split_handle(request)
                .is_some_and(|(r, s)| r == me && s < self.ranks[me as usize].next_seq) =>
            {
                return Err(CallError::IsHandle(request))
            }
            None => return Err(CallError::NotARequest { request, me }),
        };
        // a call is counted once, when the script makes it: MGEN_Test here (it asks once);
        // MGEN_Wait and MGEN_Waitall where they begin (`script/fast.rs`), not per request nor
        // again when the rank resumes; a blocking send or receive when it posted
        if let (Some(p), Call::Test) = (self.profile.as_deref_mut(), call) {
            p.call(me, Api::Test, 0);
        }
        let rank = &mut self.ranks[me as usize];
        let taken = self.mpi.take(rank, seq);
        if call == Call::Test {
            let done = !matches!(taken, Ok(None));
            if let Some(times) = self.watch.tested_still(me, rank.clock, done) {
                let at = rank.clock;
                return Err(CallError::TestedStill { request, times, at });
            }
        }
        match taken {
            Err(_) => Err(CallError::NotPending { request, me }),
            Ok(Some(st)) => {
                let source = st.source - self.nodes.job(me).base;
                match st.truncated {
                    Some(had) => Err(CallError::Truncated {
                        had,
                        from: source,
                        tag: st.tag,
                    }),
                    None => Ok(Some((source as i64, st.tag, st.bytes as i64))),
                }
            }
            Ok(None) => {
                if block {
                    rank.block_on_request(seq, call);
                }
                Ok(None)
            }
        }
    }

    /// `MGEN_rdma_poll(tag)` by the running rank: whether a put with `tag` was there (taken);
    /// if not, the rank now waits for one.
    pub(crate) fn poll(&mut self, tag: i64) -> bool {
        let me = self.current;
        if let Some(p) = self.profile.as_deref_mut() {
            p.call(me, Api::Poll, 0);
        }
        self.ranks[me as usize].try_poll(tag)
    }

    /// `MGEN_acp_complete` of transfer `seq` (its handle taken) by the running rank: whether it
    /// is complete; if not, the rank now waits for it.
    pub(crate) fn complete(&mut self, seq: u32) -> bool {
        let me = self.current;
        if let Some(p) = self.profile.as_deref_mut() {
            p.call(me, Api::Complete, 0);
        }
        self.ranks[me as usize].try_complete(seq)
    }

    /// `MGEN_acp_complete(handle)` by the running rank: the sequence number of the transfer, once
    /// the handle is checked and marked used (it is used once).
    #[inline]
    pub(crate) fn take_handle(&mut self, handle: i64) -> Result<u32, CallError> {
        let me = self.current;
        let known = self.ranks.len();
        let rank = &mut self.ranks[me as usize];
        match split_handle(handle) {
            Some((r, seq)) if r == me && seq < rank.next_seq => {
                if rank.use_handle(seq) {
                    Ok(seq)
                } else {
                    Err(CallError::HandleUsed(handle))
                }
            }
            Some((r, _)) if r != me && (r as usize) < known => Err(CallError::HandleOfOther {
                handle,
                owner: r,
                me,
            }),
            _ if split_request(handle).is_some() => Err(CallError::IsRequest(handle)),
            _ => Err(CallError::NotAHandle { handle, me }),
        }
    }
}
