//! The rules an API call's values must follow, in one place: the script layer's full
//! functions (`script/api.rs`) and their fast path (`script/fast.rs`) both ask these, and a
//! refusal is a typed [`CallError`] (`api/error.rs`) that the script layer turns into a Lua
//! error naming the function and the script line. What only the partition can check (a
//! handle, a request, a region, the clock's bound) is checked by its operations,
//! `part/calls.rs`.

pub(crate) use crate::api::CallError;
use crate::mpi::ANY_TAG;

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
