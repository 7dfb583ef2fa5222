//! The rules an API call's values must follow, in one place: the script layer's full
//! functions (`script/api.rs`) and their fast path (`script/fast.rs`) both ask these, and a
//! refusal is a typed [`CallError`] that the script layer turns into a Lua error naming the
//! function and the script line.

use crate::mpi::split_request;
use crate::probe::trace::What;
use crate::rdma::split_handle;
use crate::units::Time;
use crate::world::World;

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
    #[error("`seconds` = {seconds} would take the rank's clock, at {at} s, past the latest simulated time, {h:.6} s (about {d:.1} days); simulated time does not wrap", h = Time::HORIZON.as_secs_f64(), d = Time::HORIZON.as_secs_f64() / 86400.0)]
    ClockPastHorizon { seconds: f64, at: f64 },
}

/// `MGEN_Comp(seconds)` by the running rank: its clock advances by `seconds` (rounded to the
/// picosecond), which it computed for; never past [`Time::HORIZON`].
pub(crate) fn compute(w: &mut World, seconds: f64) -> Result<(), CallError> {
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

/// A size in bytes.
#[inline]
pub(crate) fn bytes(value: i64) -> Result<u64, CallError> {
    u64::try_from(value).map_err(|_| CallError::NegativeBytes(value))
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

/// `MGEN_acp_complete(handle)` by the running rank: the sequence number of the transfer, once
/// the handle is checked and marked used (it is used once).
#[inline]
pub(crate) fn take_handle(w: &mut World, handle: i64) -> Result<u32, CallError> {
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
        assert_eq!(bytes(0), Ok(0));
        assert_eq!(
            bytes(-1).unwrap_err().to_string(),
            "`bytes` = -1 must not be negative"
        );
        assert_eq!(nic(None, 1), Ok(None));
        assert_eq!(nic(Some(1), 2), Ok(Some(1)));
        assert_eq!(
            nic(Some(2), 2).unwrap_err().to_string(),
            "`nic` = 2 is not a NIC of this node (node.nics_per_node = 2: 0 to 1)"
        );
    }
}
