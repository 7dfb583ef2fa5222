//! Every kind of event the engine processes. Each carries one `u32`, so that an event is 8
//! bytes and a queue entry 16; routing state travels in the packet, not in the event.

/// Index of a packet in the network's packet pool (`net::PacketPool`): what a packet's events
/// carry.
pub(crate) type PktId = u32;

/// In an [`Event::TxDmaDone`], the mark of a NIC's id (the packet its DMA streams) rather
/// than a packet's.
pub(crate) const STREAMED: u32 = 1 << 31;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// An event of the model: what happens to a packet, a channel, a transfer or a rank.
pub(crate) enum Event {
    /// A packet's head has arrived at a router and passed its pipeline (routing, VC and switch
    /// allocation, switch latency): it now asks for its output port.
    RouterReady(PktId),
    /// The head of a packet queued for an idle output channel has passed the router's
    /// pipeline: the channel may send it.
    HeadReady(u32),
    /// An output channel has sent the tail of its packet: the channel is free again and the
    /// buffer the packet held upstream gets its credit back.
    ChannelFree(u32),
    /// An output port's crossbar transfer has ended (routers with output buffers): the input
    /// buffer the packet left gets its credit back, and the port may take the next packet.
    XbarDone(u32),
    /// A flow (flow model) has moved its bytes, if its end has not moved since this was
    /// scheduled.
    FlowDone(u32),
    /// A message of the flow model is in its destination's memory (a control message: its
    /// packet has arrived).
    FlowArrive(u32),
    /// A NIC's transmit DMA has read one packet's payload from memory.
    /// (The NIC is the packet's source.) With [`STREAMED`] set, the rest is a NIC's id: the
    /// packet that NIC's DMA streams (cut-through DMA; the packet may have left already).
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
    /// Synthetic traffic (`traffic/`): a NIC's generators look at its injection channel, or
    /// the links' counters are read at a measurement window's end.
    Traffic(u32),
}

const _: () = assert!(std::mem::size_of::<Event>() == 8);

impl Event {
    /// Kinds of event, named as in a run's summary (`network.events_by_kind`): the variants'
    /// then `credit_wake`, a starved channel woken by credit coming back (not an [`Event`]: the
    /// network keeps those itself, `net/router/credit.rs`).
    pub(crate) const KINDS: [&'static str; 15] = [
        "router_ready",
        "head_ready",
        "channel_free",
        "xbar_done",
        "flow_done",
        "flow_arrive",
        "tx_dma_done",
        "nic_arrive",
        "rx_dma_done",
        "op_start",
        "p2p_start",
        "cts_start",
        "rank_wake",
        "traffic",
        "credit_wake",
    ];

    /// The index of `credit_wake` in [`Event::KINDS`].
    pub(crate) const CREDIT_WAKE: usize = 14;

    /// This event's index in [`Event::KINDS`].
    #[inline]
    pub(crate) fn kind(&self) -> usize {
        match self {
            Event::RouterReady(_) => 0,
            Event::HeadReady(_) => 1,
            Event::ChannelFree(_) => 2,
            Event::XbarDone(_) => 3,
            Event::FlowDone(_) => 4,
            Event::FlowArrive(_) => 5,
            Event::TxDmaDone(_) => 6,
            Event::NicArrive(_) => 7,
            Event::RxDmaDone(_) => 8,
            Event::OpStart(_) => 9,
            Event::P2pStart(_) => 10,
            Event::CtsStart(_) => 11,
            Event::RankWake(_) => 12,
            Event::Traffic(_) => 13,
        }
    }
}
