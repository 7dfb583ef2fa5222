//! Every kind of event the engine processes. Each carries one `u32`, so that an event is 8
//! bytes and a queue entry 16; routing state travels in the packet, not in the event.

use crate::net::PktId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A packet's head has arrived at a router and passed its pipeline (routing, VC and switch
    /// allocation, switch latency): it now asks for its output port.
    RouterReady(PktId),
    /// The head of a packet queued for an idle output channel has passed the router's
    /// pipeline: the channel may send it.
    HeadReady(u32),
    /// An output channel has sent the tail of its packet: the channel is free again and the
    /// buffer the packet held upstream gets its credit back.
    ChannelFree(u32),
    /// A NIC's transmit DMA has read one packet's payload from memory.
    /// (The NIC is the packet's source.)
    TxDmaDone(PktId),
    /// A packet's tail has arrived in its destination NIC.
    NicArrive(PktId),
    /// A NIC's receive DMA has written a packet's payload to memory.
    RxDmaDone(PktId),
    /// A transfer issued by a rank reaches its NIC (after the node latency).
    OpStart(u32),
    /// A message-passing send reaches the sender's NIC (after the MPI overhead and copy).
    P2pStart(u32),
    /// A receiver's NIC answers a rendezvous request-to-send (matched by a receive posted at
    /// this time, or at the envelope's arrival).
    CtsStart(u32),
    /// A rank may continue its script.
    RankWake(u32),
}

const _: () = assert!(std::mem::size_of::<Event>() == 8);
