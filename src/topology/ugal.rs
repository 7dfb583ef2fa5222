//! UGAL's choice (Singh, 2005; UGAL-L: on the queues of the router that decides), the one rule
//! the HyperX, the dragonfly and a graph's `ugal` routings share.
//!
//! A packet takes the minimal path unless `q_min · h_min > q_non · h_non + m · b`: `q` the bytes
//! queued for the first hop's output of each path ([`super::Routers::queue`]: what that output
//! has sent into the buffer it feeds and not yet had back, and the packets waiting for it
//! here), `h` each path's hops, `b` the routed packet's bytes on the wire and `m` =
//! [`MARGIN_PACKETS`]. The queues are counted in bytes, as BookSim counts the credits an output
//! has used (its flits) and the UGAL paper the flits of an output queue; the margin in the
//! routed packet's bytes, so that it means the same packets whatever their size.
//!
//! Counting what the output has sent downstream matters: a router whose input buffers hold
//! one packet at a time per input (one node per router, few VCs) queues at most a few packets
//! at an output even when that output is blocked, while the buffer the output feeds is full.

/// Packets (of the routed one's size) by which the minimal path's cost may exceed the other's
/// before a packet is sent the long way. Measured on HyperX (docs/topologies.md): under
/// uniform traffic any margin from 0 to 8 packets accepts the same load as UGAL that never
/// derouts (what UGAL loses there against dimension order is the virtual channels its second
/// class takes), and under an adversarial permutation the smallest margins gain the most;
/// one packet keeps a packet from going the long way for a difference of a single packet.
pub(crate) const MARGIN_PACKETS: u64 = 1;

/// Whether the minimal path wins: its queue `q_min` (bytes) times its hops `h_min` is at most
/// the other's, `q_non · h_non`, plus [`MARGIN_PACKETS`] packets of `packet` bytes.
#[inline]
pub(crate) fn minimal_wins(q_min: u64, h_min: u64, q_non: u64, h_non: u64, packet: u64) -> bool {
    q_min.saturating_mul(h_min) <= q_non.saturating_mul(h_non) + MARGIN_PACKETS * packet
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_minimal_path_wins_until_its_cost_passes_the_other_s_by_the_margin() {
        // 2 KiB packets: one of them is 2048 B of margin
        let b = 2048;
        // direct: 1 hop with 10 KiB queued; detour: 2 hops with 4 KiB: 10240 <= 8192 + 2048
        assert!(minimal_wins(10240, 1, 4096, 2, b));
        // one byte more and the detour wins
        assert!(!minimal_wins(10241, 1, 4096, 2, b));
        // nothing queued anywhere: minimal
        assert!(minimal_wins(0, 3, 0, 5, b));
        // the margin scales with the packet: behind 64 B packets the detour wins past 64 B
        assert!(minimal_wins(64, 1, 0, 2, 64));
        assert!(!minimal_wins(65, 1, 0, 2, 64));
    }
}
