//! Packets: the unit the network moves (docs/model.md §3). A message is cut into packets of at most
//! `mtu` payload bytes, each carrying `header_bytes` more on the wire. Contents are never
//! stored, only sizes and the routing state, which travels with the packet.

use crate::perf::pool::Pool;
use crate::units::Time;

pub(crate) use crate::event::PktId;

/// "No packet / no buffer" marker in the intrusive lists and buffer fields.
pub(crate) const NONE: u32 = u32::MAX;

/// A packet in flight. 64 bytes, aligned to a cache line, so that reading a packet costs one
/// miss and never two; kept in a pool and referred to by index.
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
pub(crate) struct Packet {
    /// When the packet's tail arrived where the packet now is (NSIM's last-flit time).
    pub(crate) tail: Time,
    /// When its head may leave the queue it is in: at a router, its head's arrival plus the
    /// router's pipeline; at a NIC, the time it was staged. A packet may be queued before it
    /// is ready (see `router/mod.rs`).
    pub(crate) ready: Time,
    /// The message this packet belongs to.
    pub(crate) msg: u32,
    /// Bytes on the wire: payload plus header (the header size is the same for every packet,
    /// so the payload is `wire − header_bytes`).
    pub(crate) wire: u32,
    /// Source NIC (terminal).
    pub(crate) src: u32,
    /// Destination NIC (terminal).
    pub(crate) dst: u32,
    /// Router the head is at (or the NIC it is in, before injection and after ejection).
    pub(crate) at: u32,
    /// The channel that brought it into the buffer it holds: the one channel that feeds that
    /// buffer, where its credit and occupancy are kept. `NONE` while it holds no credit (before
    /// injection, and always for a packet that stays within its node), `STAGING` (router.rs)
    /// while it holds a NIC's transmit staging slot.
    pub(crate) from: u32,
    /// Next packet in the same output queue.
    pub(crate) next: PktId,
    /// Input-queued routers: the next packet in the input buffer (port and VC) it holds.
    pub(crate) in_next: PktId,
    /// Input-queued routers: when it asked for the output it is queued for (its place in that
    /// queue; see `router/mod.rs`).
    pub(crate) asked: Time,
    /// Virtual channel of the buffer it is queued for (then of the one it enters).
    pub(crate) vc: u8,
    /// Virtual channel of the buffer it holds.
    pub(crate) held_vc: u8,
    /// Mesh and torus: the dimension it is correcting (`topology::NO_DIM` before the first
    /// router hop).
    pub(crate) dim: u8,
    /// Its head has passed the pipeline of the router it is at (an input-queued router
    /// routes it there once it is also the first of its input buffer).
    pub(crate) arrived: bool,
    /// Dragonfly: its route (0 until its source router decides; see `topology::dragonfly`).
    pub(crate) aux: u16,
    /// Router-to-router links it has crossed so far (saturating at 255).
    pub(crate) hops: u8,
    /// It is the only packet of its message: its arrival is the message's, and the receiving
    /// side keeps nothing of the message while it comes in.
    pub(crate) only: bool,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 64);

impl Packet {
    /// A packet of message `msg`, `wire` bytes on the wire, from NIC `src` to NIC `dst`, in
    /// its source NIC and not yet sent.
    #[inline]
    pub(crate) fn new(msg: u32, wire: u32, src: u32, dst: u32) -> Packet {
        Packet {
            tail: Time::ZERO,
            ready: Time::ZERO,
            msg,
            wire,
            src,
            dst,
            at: src,
            from: NONE,
            next: NONE,
            in_next: NONE,
            asked: Time::ZERO,
            vc: 0,
            held_vc: 0,
            dim: crate::topology::NO_DIM,
            arrived: false,
            aux: 0,
            hops: 0,
            only: false,
        }
    }
}

/// The packets in flight: a [`Pool`] of them.
pub(crate) type PacketPool = Pool<Packet>;
