//! Why an API call's value was refused: one typed error for every call, which the script layer
//! turns into a Lua error naming the function and the script line (`calls.rs` holds the rules,
//! `part/calls.rs` the operations that check what only the partition knows).

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
    #[error("request {request} was tested {times} times in a row at simulated time {at}, and the rank's clock stood still: MGEN_Test costs no simulated time, so a loop of tests alone never lets time pass and the request can never complete (an endless loop?); let time pass in the loop (MGEN_Comp) or wait with MGEN_Wait")]
    TestedStill { request: i64, times: u32, at: Time },
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
