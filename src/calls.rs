//! The rules an API call's values must follow, in one place: the script layer's full
//! functions (`script/api.rs`) and their fast path (`script/fast.rs`) both ask these, and a
//! refusal is a typed [`CallError`] that the script layer turns into a Lua error naming the
//! function and the script line.

use crate::mpi::{split_request, ANY_SOURCE, ANY_TAG};
use crate::part::Part;
use crate::probe::profile::Api;
use crate::probe::trace::What;
use crate::rank::Call;
use crate::rdma::split_handle;
use crate::units::Time;

/// Why a call's value was refused (the script layer puts the function's name in front).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum CallError {
    #[error("`{arg}` = {value} is not a rank (ranks are 0 to {})", .size - 1)]
    NotARank {
        arg: &'static str,
        value: i64,
        size: u32,
    },
    #[error("`bytes` = {0} must not be negative")]
    NegativeBytes(i64),
    #[error("`nic` = {value} is not a NIC of this node (node.nics_per_node = {nics}: 0 to {})", .nics - 1)]
    NotANic { value: i64, nics: u32 },
    #[error("handle {0} was already completed (a handle is used once)")]
    HandleUsed(i64),
    #[error("handle {handle} belongs to rank {owner}, not to rank {me}")]
    HandleOfOther { handle: i64, owner: u32, me: u32 },
    #[error("{0} is a message-passing request; wait for it with MGEN_Wait")]
    IsRequest(i64),
    #[error("{handle} is not a handle returned to rank {me}")]
    NotAHandle { handle: i64, me: u32 },
    #[error("`seconds` = {0:e} is out of range: the most a rank's clock can reach is {h:.6} s (about {d:.1} days)", h = Time::HORIZON.as_secs_f64(), d = Time::HORIZON.as_secs_f64() / 86400.0)]
    SecondsOutOfRange(f64),
    #[error("`seconds` = {0} must be a finite number >= 0")]
    NotSeconds(f64),
    #[error("`tag` = {0} must be >= 0")]
    NegativeTag(i64),
    #[error("`tag` = {0} must be >= 0 or MGEN_ANY_TAG")]
    NotARecvTag(i64),
    #[error("request {request} belongs to rank {owner}, not to rank {me}")]
    RequestOfOther { request: i64, owner: u32, me: u32 },
    #[error("{0} is an RDMA handle; wait for it with MGEN_acp_complete")]
    IsHandle(i64),
    #[error("{request} is not a request of rank {me}")]
    NotARequest { request: i64, me: u32 },
    #[error("request {request} is not pending on rank {me} (already waited for?)")]
    NotPending { request: i64, me: u32 },
    #[error("a message of {had} bytes from rank {from} (tag {tag}) is longer than its receive")]
    Truncated { had: u64, from: u32, tag: i64 },
    #[error("the second argument is MGEN_STATUS_IGNORE or nothing, got {0}")]
    NotStatusIgnore(&'static str),
    #[error("no region is open on this rank (MGEN_region_begin first)")]
    NoRegion,
    #[error("`seconds` = {seconds} would take the rank's clock, at {at} s, past the latest simulated time, {h:.6} s (about {d:.1} days); simulated time does not wrap", h = Time::HORIZON.as_secs_f64(), d = Time::HORIZON.as_secs_f64() / 86400.0)]
    ClockPastHorizon { seconds: f64, at: f64 },
    #[error("`bytes` = {bytes} is more than one transfer may move in this run, {max} bytes: at the run's slowest rate (DMA, memory, a link or a crossbar) they would take longer than {t:.1} days, and simulated time does not wrap", t = crate::units::LONGEST_TRANSFER.as_secs_f64() / 86400.0)]
    TransferTooLong { bytes: u64, max: u64 },
}

/// `MGEN_Comp(seconds)` by the running rank: its clock advances by `seconds` (rounded to the
/// picosecond), which it computed for; never past [`Time::HORIZON`].
pub(crate) fn compute(w: &mut Part, seconds: f64) -> Result<(), CallError> {
    let t = match Time::from_secs_f64(seconds) {
        Some(t) => t,
        None if seconds.is_finite() && seconds >= 0.0 => {
            return Err(CallError::SecondsOutOfRange(seconds))
        }
        None => return Err(CallError::NotSeconds(seconds)),
    };
    let cur = w.current;
    let rank = &mut w.ranks[cur as usize];
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
    if let Some(tr) = w.trace.as_deref_mut() {
        tr.span(cur, start.ps(), rank.clock.ps(), What::Compute);
    }
    if let Some(p) = w.profile.as_deref_mut() {
        p.call(cur, Api::Comp, t.ps());
    }
    Ok(())
}

/// A rank of a job of `size` ranks (`arg` names the argument).
#[inline]
pub(crate) fn rank(value: i64, size: u32, arg: &'static str) -> Result<u32, CallError> {
    if (0..size as i64).contains(&value) {
        Ok(value as u32)
    } else {
        Err(CallError::NotARank { arg, value, size })
    }
}

/// A size in bytes of one transfer, at most `max` (the running partition's
/// [`crate::part::Part::max_bytes`]).
#[inline]
pub(crate) fn bytes(value: i64, max: u64) -> Result<u64, CallError> {
    let b = u64::try_from(value).map_err(|_| CallError::NegativeBytes(value))?;
    if b > max {
        return Err(CallError::TransferTooLong { bytes: b, max });
    }
    Ok(b)
}

/// The optional NIC of a node that has `nics` NICs (None: the next in turn).
#[inline]
pub(crate) fn nic(value: Option<i64>, nics: u32) -> Result<Option<u32>, CallError> {
    match value {
        None => Ok(None),
        Some(v) if (0..nics as i64).contains(&v) => Ok(Some(v as u32)),
        Some(v) => Err(CallError::NotANic { value: v, nics }),
    }
}

/// `MGEN_region_begin(name)` by the running rank: a region opens (a span on its timeline).
pub(crate) fn region_begin(w: &mut Part, name: &str) {
    let cur = w.current;
    let rank = &mut w.ranks[cur as usize];
    rank.regions += 1;
    if let Some(tr) = w.trace.as_deref_mut() {
        tr.begin(cur, name, rank.clock.ps());
    }
    if let Some(p) = w.profile.as_deref_mut() {
        p.begin(cur, name, rank.clock.ps());
    }
}

/// `MGEN_region_end()` by the running rank: its innermost region closes.
pub(crate) fn region_end(w: &mut Part) -> Result<(), CallError> {
    let cur = w.current;
    let rank = &mut w.ranks[cur as usize];
    if rank.regions == 0 {
        return Err(CallError::NoRegion);
    }
    rank.regions -= 1;
    if let Some(tr) = w.trace.as_deref_mut() {
        tr.end(cur, rank.clock.ps());
    }
    if let Some(p) = w.profile.as_deref_mut() {
        p.end(cur, rank.clock.ps());
    }
    Ok(())
}

/// The tag of a send.
#[inline]
pub(crate) fn send_tag(value: i64) -> Result<i64, CallError> {
    if value >= 0 {
        Ok(value)
    } else {
        Err(CallError::NegativeTag(value))
    }
}

/// The tag of a receive: a tag or `MGEN_ANY_TAG`.
#[inline]
pub(crate) fn recv_tag(value: i64) -> Result<i64, CallError> {
    if value >= 0 || value == ANY_TAG {
        Ok(value)
    } else {
        Err(CallError::NotARecvTag(value))
    }
}

/// `MGEN_Isend` by the running rank to `dest` (a rank of its job, checked), on NIC `nic` or
/// the next in turn, as part of call `api` (`MGEN_Isend`, or a blocking call built on it):
/// the request's handle.
pub(crate) fn isend(
    w: &mut Part,
    api: Api,
    dest: u32,
    bytes: u64,
    tag: i64,
    nic: Option<u32>,
) -> i64 {
    let me = w.current;
    let dest = w.nodes.job(me).base + dest;
    let pair = w.pick_nics(me, dest, nic);
    let rank = &mut w.ranks[me as usize];
    let before = rank.clock;
    let h = w.mpi.isend(me, rank, dest, bytes, tag, pair, &mut w.queue);
    if let Some(tr) = w.trace.as_deref_mut() {
        let what = What::Call {
            name: api.name(),
            peer: dest,
            bytes,
            tag,
            flow: crate::part::flow_id(h),
        };
        tr.span(me, before.ps(), w.ranks[me as usize].clock.ps(), what);
    }
    if let Some(p) = w.profile.as_deref_mut() {
        p.call(me, api, (w.ranks[me as usize].clock - before).ps());
    }
    h
}

/// `MGEN_Irecv` by the running rank from `src` (a rank of its job, checked, or
/// [`ANY_SOURCE`]), as part of call `api` (`MGEN_Irecv`, or a blocking call built on it):
/// the request's handle.
pub(crate) fn irecv(w: &mut Part, api: Api, src: i64, bytes: u64, tag: i64) -> i64 {
    let me = w.current;
    let src = if src == ANY_SOURCE {
        ANY_SOURCE
    } else {
        (w.nodes.job(me).base as i64) + src
    };
    let before = w.ranks[me as usize].clock;
    let h = w
        .mpi
        .irecv(me, &mut w.ranks[me as usize], src, bytes, tag, &mut w.queue);
    if let Some(tr) = w.trace.as_deref_mut() {
        // (the posting's cost on the rank's clock: its overhead; a receive from any rank
        // names the receiving rank as its peer)
        let what = What::Call {
            name: api.name(),
            peer: if src == ANY_SOURCE { me } else { src as u32 },
            bytes,
            tag,
            flow: 0,
        };
        tr.span(me, before.ps(), w.ranks[me as usize].clock.ps(), what);
    }
    if let Some(p) = w.profile.as_deref_mut() {
        let took = (w.ranks[me as usize].clock - before).ps();
        // (MGEN_Sendrecv is counted once, by its send)
        match api {
            Api::Sendrecv => p.blocked(me, api, took),
            _ => p.call(me, api, took),
        }
    }
    h
}

/// A completed receive's (or send's) status: its source as a rank of the job, its tag, its
/// bytes.
pub(crate) type StatusValues = (i64, i64, i64);

/// Waiting for request `request` of the running rank: its status if it has completed (the
/// request is then used up), `None` if not yet, after which the rank waits for it in `call`
/// if `block`.
pub(crate) fn wait_request(
    w: &mut Part,
    request: i64,
    call: Call,
    block: bool,
) -> Result<Option<StatusValues>, CallError> {
    let me = w.current;
    let seq = match split_request(request) {
        Some((r, seq)) if r == me => seq,
        Some((owner, _)) => return Err(CallError::RequestOfOther { request, owner, me }),
        None if split_handle(request)
            .is_some_and(|(r, s)| r == me && s < w.ranks[me as usize].next_seq) =>
        {
            return Err(CallError::IsHandle(request))
        }
        None => return Err(CallError::NotARequest { request, me }),
    };
    // a call is counted once, when the script makes it: MGEN_Test here (it asks once);
    // MGEN_Wait and MGEN_Waitall where they begin (`script/fast.rs`), not per request nor
    // again when the rank resumes; a blocking send or receive when it posted
    if let (Some(p), Call::Test) = (w.profile.as_deref_mut(), call) {
        p.call(me, Api::Test, 0);
    }
    let rank = &mut w.ranks[me as usize];
    match w.mpi.take(rank, seq) {
        Err(_) => Err(CallError::NotPending { request, me }),
        Ok(Some(st)) => {
            let source = st.source - w.nodes.job(me).base;
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
pub(crate) fn poll(w: &mut Part, tag: i64) -> bool {
    let me = w.current;
    if let Some(p) = w.profile.as_deref_mut() {
        p.call(me, Api::Poll, 0);
    }
    w.ranks[me as usize].try_poll(tag)
}

/// `MGEN_acp_complete` of transfer `seq` (its handle taken) by the running rank: whether it
/// is complete; if not, the rank now waits for it.
pub(crate) fn complete(w: &mut Part, seq: u32) -> bool {
    let me = w.current;
    if let Some(p) = w.profile.as_deref_mut() {
        p.call(me, Api::Complete, 0);
    }
    w.ranks[me as usize].try_complete(seq)
}

/// `MGEN_acp_complete(handle)` by the running rank: the sequence number of the transfer, once
/// the handle is checked and marked used (it is used once).
#[inline]
pub(crate) fn take_handle(w: &mut Part, handle: i64) -> Result<u32, CallError> {
    let me = w.current;
    let known = w.ranks.len();
    let rank = &mut w.ranks[me as usize];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_says_which_value_and_what_was_allowed() {
        assert_eq!(rank(3, 4, "dest"), Ok(3));
        assert_eq!(
            rank(4, 4, "dest").unwrap_err().to_string(),
            "`dest` = 4 is not a rank (ranks are 0 to 3)"
        );
        assert_eq!(bytes(0, 10), Ok(0));
        assert_eq!(bytes(10, 10), Ok(10));
        assert_eq!(
            bytes(-1, 10).unwrap_err().to_string(),
            "`bytes` = -1 must not be negative"
        );
        assert!(bytes(11, 10)
            .unwrap_err()
            .to_string()
            .starts_with("`bytes` = 11 is more than one transfer may move in this run, 10 bytes"));
        assert_eq!(nic(None, 1), Ok(None));
        assert_eq!(nic(Some(1), 2), Ok(Some(1)));
        assert_eq!(
            nic(Some(2), 2).unwrap_err().to_string(),
            "`nic` = 2 is not a NIC of this node (node.nics_per_node = 2: 0 to 1)"
        );
    }
}
