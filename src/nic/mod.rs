//! Network interface cards: DMA between memory and the network (docs/model.md §2, NSIM-ACE §3.1).
//!
//! **Transmit.** A message handed to a NIC joins its transmit list. The transmit DMA engine
//! reads one packet's payload at a time from memory at the DMA rate (the slower of
//! `dma_bandwidth` and `memory_bandwidth`), taking packets round robin from the messages in the
//! list, so that transfers issued together share the NIC packet by packet. A packet whose
//! payload is in the NIC is *staged* and queued on the NIC's injection channel; the DMA engine
//! runs ahead by at most [`STAGING_SLOTS`] staged packets, so a blocked link stalls it.
//! Control packets (a put's acknowledgement, a get's request) are made by the NIC itself and
//! are staged at once, without DMA.
//!
//! **Receive.** When a packet's tail is in the destination NIC, its payload is written to
//! memory by the receive DMA engine, one packet after another at the DMA rate; the packet's
//! receive-buffer credit goes back to the router when that write is done. Control packets need
//! no DMA. A message is *delivered* when its last packet is in memory.
//!
//! A message to the NIC's own node (the same NIC or another of the node's) never enters the
//! network: its packets go from the transmit DMA straight to the receive DMA, through the
//! node's memory.

use crate::cut::{Done, Pool};
use crate::event::Event;
use crate::event::STREAMED;
use crate::net::packet::{Packet, PktId, NONE};
use crate::net::Network;
use crate::perf::copies::Copies;
use crate::perf::slab::SharedVec;
use crate::perf::stable::{Directory, Group, Mirror, Stable};
use crate::sim::EventQueue;
use crate::units::{Bandwidth, Bytes, Time};
use std::sync::Arc;

/// Packets the transmit DMA may have staged ahead of the link (double buffering).
pub(crate) const STAGING_SLOTS: u32 = 2;

/// What a message is for; the RDMA and message-passing layers give it meaning on arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum MsgKind {
    /// A put's data, sender to receiver.
    PutData,
    /// The control packet a receiving NIC sends back once a put is delivered.
    PutAck,
    /// A get's request, caller to data holder.
    GetRequest,
    /// A get's data, holder to caller.
    GetData,
    /// An eager message: envelope and data together.
    Eager,
    /// A rendezvous request-to-send: the envelope alone.
    Rts,
    /// A rendezvous clear-to-send, receiver to sender.
    Cts,
    /// A rendezvous message's data, after the clear-to-send.
    RndvData,
    /// A packet of synthetic traffic (`traffic/`): made by the NIC without DMA, consumed as
    /// its tail arrives.
    Synthetic,
}

impl MsgKind {
    /// Control messages are one bare-header packet, made by the NIC without DMA.
    pub(crate) fn is_control(self) -> bool {
        matches!(
            self,
            MsgKind::PutAck | MsgKind::GetRequest | MsgKind::Rts | MsgKind::Cts
        )
    }
    /// Messages that must leave the NIC in the order they were issued, behind earlier data,
    /// because the receiver matches them in arrival order (MPI's non-overtaking rule): data,
    /// and the request-to-send that stands for a rendezvous message's data. The other control
    /// packets go out at once.
    pub(crate) fn ordered(self) -> bool {
        !matches!(self, MsgKind::PutAck | MsgKind::GetRequest | MsgKind::Cts)
    }
    /// Messages whose first packet carries a matching envelope.
    pub(crate) fn has_envelope(self) -> bool {
        matches!(self, MsgKind::Eager | MsgKind::Rts)
    }
}

/// What a packet's arrival in its destination NIC means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    Nothing,
    /// The first packet of a message with an envelope is in: the receiver may match it.
    Envelope(u32),
    /// The whole message is in memory.
    Delivered(u32),
    /// Both at once (a one-packet control message with an envelope).
    EnvelopeDelivered(u32),
    /// A packet of synthetic traffic is in (the packet: `traffic/` measures it, then
    /// [`Nics::synthetic_done`]).
    Synthetic(u32),
}

/// A message: the bytes of one transfer between two NICs. Made by the sending NIC's
/// partition, named by a global id, and read (never changed) by the receiving NIC's
/// (`perf/stable.rs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Msg {
    pub(crate) kind: MsgKind,
    /// The operation it serves (an RDMA transfer, or a message-passing send).
    pub(crate) op: u32,
    pub(crate) src: u32,
    pub(crate) dst: u32,
    /// When it was handed to its source NIC.
    issued: Time,
    /// Its payload bytes and packets.
    bytes: u64,
    packets: u32,
    /// Flow model: the router-to-router links of its path (the packet model counts them on
    /// each packet, [`crate::net::packet::Packet::hops`]).
    hops: u8,
}

impl Msg {
    /// Packets it is cut into.
    #[inline]
    pub(crate) fn packets(&self) -> u32 {
        self.packets
    }
    /// Its payload bytes (a control message: none).
    #[inline]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// What the sending NIC keeps of a message while it cuts it into packets.
#[derive(Clone, Copy, Debug, Default)]
struct Sending {
    /// Payload bytes not yet cut into packets.
    bytes_left: u64,
    /// Packets not yet cut.
    packets_left: u32,
    /// Next message in its NIC's transmit list.
    next: u32,
}

/// What the receiving NIC keeps of a message while its packets come in: what its packets need
/// of the message, copied from its record as the first arrives (so that the others do not
/// look it up).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Receiving {
    /// Packets whose payload is not yet in memory (set as the first packet arrives).
    left: u32,
    /// Its first packet has reached the destination NIC.
    arrived: bool,
    /// It is a control message.
    control: bool,
}

#[derive(Clone, Copy, Default)]
struct Nic {
    /// Round-robin transmit list: messages with packets still to cut.
    tx_head: u32,
    tx_tail: u32,
    dma_busy: bool,
    /// The message whose packet the transmit DMA reads (for a packet that streams: it may
    /// have left this partition before its read ends, so its event names the NIC instead).
    dma_msg: u32,
    /// When the transmit DMA's current read ends (ps; its time is counted in `tx_busy` as it
    /// starts, [`Nics::settle`] takes back the part past a stop).
    dma_until: u64,
    /// When the receive DMA engine is next free.
    rx_free: Time,
    /// Time the transmit and receive DMA engines spent moving payload (ps).
    tx_busy: u64,
    rx_busy: u64,
}

/// Totals of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct NicStats {
    /// Packets made by NICs (data and control), loopback ones included.
    pub(crate) packets: u64,
    /// Packets whose payload reached memory at their destination.
    pub(crate) packets_delivered: u64,
    /// Payload bytes delivered to memory.
    pub(crate) payload_bytes: u64,
    /// Messages delivered.
    pub(crate) messages: u64,
    /// Data messages (puts' and gets' data, eager and rendezvous data) delivered, and their
    /// latency from being handed to the source NIC to their last byte in memory: summed,
    /// least and most (ps).
    pub(crate) data_messages: u64,
    /// Their latencies summed (ps).
    pub(crate) latency_sum_ps: u128,
    /// The least of them (ps; `u64::MAX` before the first).
    pub(crate) latency_min_ps: u64,
    /// The most (ps).
    pub(crate) latency_max_ps: u64,
    /// Router-to-router links the data messages delivered crossed (a message counts the
    /// links its last packet crossed: every packet of a message takes as many under
    /// deterministic routing), summed and the most.
    pub(crate) hops_sum: u64,
    /// The most links one data message crossed.
    pub(crate) hops_max: u32,
}

impl NicStats {
    /// Message `msg` is delivered at `now` after crossing `hops` router-to-router links: a
    /// message, and if it carries data its latency (ps) and hops.
    #[inline]
    fn delivered(&mut self, msg: &Msg, now: Time, hops: u8) {
        self.messages += 1;
        if !msg.kind.is_control() {
            let took = (now - msg.issued).ps();
            self.data_messages += 1;
            self.latency_sum_ps += took as u128;
            self.latency_min_ps = self.latency_min_ps.min(took);
            self.latency_max_ps = self.latency_max_ps.max(took);
            self.hops_sum += hops as u64;
            self.hops_max = self.hops_max.max(hops as u32);
        }
    }
}

/// The NICs of the machine (each partition changes only its own, `perf/slab.rs`), and the
/// messages a partition's NICs send and receive.
pub(crate) struct Nics {
    nics: SharedVec<Nic>,
    /// NICs per node: NICs `n·k .. n·k + k − 1` are node `n`'s.
    per_node: u32,
    /// The messages this partition's NICs sent, every partition's (to read those received),
    /// and what this partition keeps of them as sender and as receiver.
    msgs: Stable<Msg>,
    all_msgs: Arc<Directory<Msg>>,
    sending: Vec<Sending>,
    receiving: Mirror<Receiving>,
    /// The partitions whose messages are read in place (this one's process group), and
    /// copies of other groups' messages to this partition's NICs (`cut.rs`, `Record`).
    group: Group,
    copies: Copies<Msg>,
    /// The partition of each NIC, when there are other process groups (else empty: no
    /// message is copied).
    nic_part: Arc<[u16]>,
    dma: Bandwidth,
    mtu: u64,
    header: u32,
    /// `node.dma = "cut_through"`: packets go out as their read starts and are written as
    /// their head arrives (see [`crate::config::DmaMode`]).
    cut_through: bool,
    /// Bits of a message id that name the partition (`perf/stable.rs`).
    bits: u32,
    pub(crate) stats: NicStats,
    /// Bytes of data messages per pair of NICs, when counted (`probe/traffic.rs`).
    pub(crate) traffic: Option<Box<crate::probe::traffic::Traffic>>,
}

impl Nics {
    pub(crate) fn new(
        count: u32,
        per_node: u32,
        dma: Bandwidth,
        mtu: Bytes,
        header: Bytes,
        cut_through: bool,
    ) -> Nics {
        let idle = Nic {
            tx_head: NONE,
            tx_tail: NONE,
            ..Nic::default()
        };
        let msgs = Stable::new(0, 0);
        let all_msgs = crate::perf::stable::directory(&[&msgs]);
        Nics {
            nics: SharedVec::new(vec![idle; count as usize]),
            per_node,
            msgs,
            all_msgs,
            sending: Vec::new(),
            receiving: Mirror::new(0),
            group: Group::all(1, 0),
            copies: Copies::new(),
            nic_part: Arc::from([]),
            bits: 0,
            dma,
            mtu: mtu.0,
            header: header.0 as u32,
            cut_through,
            stats: NicStats {
                latency_min_ps: u64::MAX,
                ..NicStats::default()
            },
            traffic: None,
        }
    }

    /// Message `m` (live; this partition's, or one whose packet reached this partition).
    #[inline]
    pub(crate) fn msg(&self, m: u32) -> &Msg {
        lookup(&self.group, &self.all_msgs, &self.copies, m)
    }

    /// What the sending side keeps of this partition's message `m` (made by
    /// [`Nics::start_sending`]).
    #[inline]
    fn sending(&mut self, m: u32) -> &mut Sending {
        &mut self.sending[(m >> self.bits) as usize]
    }

    /// Starts what the sending side keeps of message `m`, just made here.
    #[inline]
    fn start_sending(&mut self, m: u32, tx: Sending) {
        let local = (m >> self.bits) as usize;
        if self.sending.len() <= local {
            self.sending.resize(local + 1, Sending::default());
        }
        self.sending[local] = tx;
    }

    /// The record of a new message of `bytes` payload bytes (a control message: none) from
    /// NIC `src` to NIC `dst`, handed to its source NIC at `now` for transfer `op` of its
    /// layer; counted in the traffic matrix if one is kept. It is sent by the fabric
    /// (`fabric.rs`): [`Nics::send_packets`], or as a flow ([`Nics::open_whole`]).
    #[inline]
    pub(crate) fn message(
        &mut self,
        kind: MsgKind,
        op: u32,
        src: u32,
        dst: u32,
        bytes: u64,
        now: Time,
    ) -> Msg {
        let bytes = if kind.is_control() { 0 } else { bytes };
        let packets = bytes.div_ceil(self.mtu).max(1) as u32;
        if let (false, Some(t)) = (kind.is_control(), self.traffic.as_deref_mut()) {
            t.add(src, dst, bytes);
        }
        Msg {
            kind,
            op,
            src,
            dst,
            issued: now,
            bytes,
            packets,
            hops: 0,
        }
    }

    /// The node NIC `nic` belongs to.
    #[inline]
    pub(crate) fn node_of(&self, nic: u32) -> u32 {
        nic / self.per_node
    }

    /// Sends message `msg` ([`Nics::message`]) through the packet network at `now`: cut into
    /// packets, read by the transmit DMA and injected in order.
    #[inline]
    pub(crate) fn send_packets(
        &mut self,
        msg: Msg,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let Msg {
            kind,
            src,
            bytes,
            packets,
            ..
        } = msg;
        let Some(m) = self.alloc(msg, net) else {
            return;
        };
        self.start_sending(
            m,
            Sending {
                bytes_left: bytes,
                packets_left: packets,
                next: NONE,
            },
        );
        if !kind.ordered() {
            let pkt = self.cut(m, net);
            self.stage(src, pkt, net, now, q);
        } else {
            self.push_tx(src, m);
            self.pump(src, net, now, q);
        }
    }

    /// A new message's record, or `None` with the network told why there is no room.
    #[inline(always)]
    fn alloc(&mut self, msg: Msg, net: &mut Network) -> Option<u32> {
        match self.msgs.alloc(msg) {
            Ok(m) => {
                if !self.nic_part.is_empty() {
                    self.copy_out(m, &msg, net);
                }
                Some(m)
            }
            Err(full) => {
                net.overflowed
                    .get_or_insert(format!("NIC messages: {full}"));
                None
            }
        }
    }

    fn push_tx(&mut self, nic: u32, m: u32) {
        self.sending(m).next = NONE;
        let n = &mut self.nics[nic as usize];
        if n.tx_tail == NONE {
            n.tx_head = m;
        } else {
            let tail = n.tx_tail;
            self.sending(tail).next = m;
        }
        self.nics[nic as usize].tx_tail = m;
    }

    /// Cuts the next packet of message `m`.
    fn cut(&mut self, m: u32, net: &mut Network) -> PktId {
        let mtu = self.mtu;
        let tx = self.sending(m);
        let payload = tx.bytes_left.min(mtu);
        tx.bytes_left -= payload;
        tx.packets_left -= 1;
        self.stats.packets += 1;
        let msg = *self.msg(m);
        let mut p = Packet::new(m, payload as u32 + self.header, msg.src, msg.dst);
        p.only = msg.packets == 1;
        net.packets.alloc(p)
    }

    /// Starts the transmit DMA on the next packet if it is idle and a staging slot is free.
    fn pump(&mut self, nic: u32, net: &mut Network, now: Time, q: &mut EventQueue<Event>) {
        let n = &self.nics[nic as usize];
        if n.dma_busy || n.tx_head == NONE || net.staged(nic, now) >= STAGING_SLOTS {
            return;
        }
        let m = n.tx_head;
        let pkt = self.cut(m, net);
        // round robin: the message goes to the back of the list if it has more to send
        let tx = *self.sending(m);
        let n = &mut self.nics[nic as usize];
        n.tx_head = tx.next;
        if n.tx_head == NONE {
            n.tx_tail = NONE;
        }
        if tx.packets_left > 0 {
            self.push_tx(nic, m);
        }
        let payload = net.packets.get(pkt).wire - self.header;
        let took = self.dma.transfer_time(Bytes(payload as u64));
        let n = &mut self.nics[nic as usize];
        n.dma_busy = true;
        n.dma_msg = m;
        n.dma_until = (now + took).ps();
        n.tx_busy += took.ps();
        let streams = self.streams(pkt, net);
        q.push(
            now + took,
            Event::TxDmaDone(if streams { STREAMED | nic } else { pkt }),
        );
        if streams {
            // cut-through: out as the read starts; its tail leaves once the read is done
            net.inject_at(nic, pkt, now, now + took, q);
        }
    }

    /// The transmit DMA has read packet `pkt` (or, [`STREAMED`] with a NIC, the packet that NIC
    /// streams). Returns its message if that was its last packet
    /// (the sender's buffer is free again).
    pub(crate) fn tx_dma_done(
        &mut self,
        pkt: PktId,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> Option<u32> {
        // (a NIC's transmit DMA only reads packets it sends)
        let (nic, m) = if pkt & STREAMED != 0 {
            let nic = pkt & !STREAMED;
            (nic, self.nics[nic as usize].dma_msg)
        } else {
            let p = net.packets.get(pkt);
            (p.src, p.msg)
        };
        self.nics[nic as usize].dma_busy = false;
        let last = self.sending(m).packets_left == 0;
        if pkt & STREAMED == 0 {
            self.stage(nic, pkt, net, now, q);
        }
        self.pump(nic, net, now, q);
        last.then_some(m)
    }

    /// Whether packet `pkt` streams through its DMA engines (cut-through, across the
    /// network: a packet within its node always goes whole from one DMA to the other).
    #[inline]
    fn streams(&self, pkt: PktId, net: &Network) -> bool {
        self.cut_through && {
            let p = net.packets.get(pkt);
            p.dst / self.per_node != p.src / self.per_node
        }
    }

    fn stage(
        &mut self,
        nic: u32,
        pkt: PktId,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        if net.packets.get(pkt).dst / self.per_node == nic / self.per_node {
            // within the node: from transmit DMA straight to receive DMA
            q.push(now, Event::NicArrive(pkt));
        } else {
            net.inject(nic, pkt, now, q);
        }
    }

    /// A staged packet has left NIC `nic` completely, and another waited behind it: the DMA
    /// may go on. (A slot freed with no packet waiting is not an event: the NIC counts its
    /// staged packets on its injection channel, [`Network::staged`].)
    pub(crate) fn staging_freed(
        &mut self,
        nic: u32,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        self.pump(nic, net, now, q);
    }

    /// A packet's tail is in its destination NIC: the envelope of its message if it is the
    /// first packet of one that has an envelope; delivery at once for control packets; data
    /// packets go on to the receive DMA.
    pub(crate) fn arrive(
        &mut self,
        pkt: PktId,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> Arrival {
        let p = *net.packets.get(pkt);
        let (envelope, control) = if p.only {
            // (its message is in: nothing to keep of it meanwhile)
            let kind = self.msg(p.msg).kind;
            if kind == MsgKind::Synthetic {
                return Arrival::Synthetic(pkt);
            }
            (kind.has_envelope(), kind.is_control())
        } else {
            self.first_or_next(p.msg)
        };
        if control {
            let delivered = self.rx_done(pkt, net, now, q).is_some();
            return match (envelope, delivered) {
                (true, true) => Arrival::EnvelopeDelivered(p.msg),
                (false, true) => Arrival::Delivered(p.msg),
                (true, false) => Arrival::Envelope(p.msg),
                (false, false) => Arrival::Nothing,
            };
        }
        let streams = self.streams(pkt, net);
        let n = &mut self.nics[p.dst as usize];
        let took = self.dma.transfer_time(Bytes((p.wire - self.header) as u64));
        n.rx_busy += took.ps();
        n.rx_free = if streams {
            // cut-through: written from its head's arrival (`ready`, set on ejection), done no
            // sooner than its tail is in
            (p.ready.max(n.rx_free) + took).max(now)
        } else {
            now.max(n.rx_free) + took
        };
        q.push(n.rx_free, Event::RxDmaDone(pkt));
        if envelope {
            Arrival::Envelope(p.msg)
        } else {
            Arrival::Nothing
        }
    }

    /// A packet of message `m`, which has several, is in its destination NIC: whether it is
    /// the first (and the message has an envelope), and whether the message is a control one.
    #[inline]
    fn first_or_next(&mut self, m: u32) -> (bool, bool) {
        let rx = self.receiving.get_mut(m);
        if rx.arrived {
            return (false, rx.control);
        }
        // (`self.receiving` and the record's fields are distinct: the record is read while what
        // this side keeps is written)
        let msg = lookup(&self.group, &self.all_msgs, &self.copies, m);
        *rx = Receiving {
            left: msg.packets,
            arrived: true,
            control: msg.kind.is_control(),
        };
        (msg.kind.has_envelope(), rx.control)
    }

    /// A packet's payload is in memory. Returns the message if it is now delivered (all its
    /// packets are in); the caller must [`Nics::free`] it once handled.
    pub(crate) fn rx_done(
        &mut self,
        pkt: PktId,
        net: &mut Network,
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> Option<u32> {
        net.release_rx(pkt, now, q);
        let p = *net.packets.get(pkt);
        net.packets.release(pkt);
        self.stats.packets_delivered += 1;
        self.stats.payload_bytes += (p.wire - self.header) as u64;
        let last = p.only || {
            let rx = self.receiving.get_mut(p.msg);
            rx.left -= 1;
            rx.left == 0
        };
        if last {
            let msg = *self.msg(p.msg);
            self.stats.delivered(&msg, now, p.hops);
            Some(p.msg)
        } else {
            None
        }
    }

    /// Time each NIC's transmit and receive DMA engines spent moving payload, in NIC order
    /// (ps; a transfer that runs past the stop counts whole). Reads every NIC: only when no
    /// partition runs.
    pub(crate) fn dma_busy(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        // SAFETY: called at the end of a run, when no partition runs
        unsafe { self.nics.all() }
            .iter()
            .map(|n| (n.tx_busy, n.rx_busy))
    }

    /// Frees what this partition kept of other partitions' messages where it no longer
    /// receives from them (now and then: [`Mirror::sweep`]).
    pub(crate) fn sweep(&mut self) {
        self.receiving.sweep();
        self.copies.sweep();
    }

    /// This partition's messages in flight (made and not yet delivered).
    pub(crate) fn live_msgs(&self) -> usize {
        self.msgs.live()
    }

    /// Message `m`, of `packets` packets, is delivered and handled here: forget what this side
    /// kept of it (a packet model's message of several packets), and let its sender's
    /// partition reuse its record (at once if it is this one, else by a cut message through
    /// `net`).
    #[inline]
    pub(crate) fn free(&mut self, m: u32, packets: u32, net: &mut Network) {
        if packets > 1 {
            // (nothing is kept of a message that moved whole: clearing finds nothing)
            self.receiving.clear(m);
        }
        if !self.group.has(m) {
            self.copies.forget(m);
        }
        let owner = m & ((1u32 << self.bits) - 1);
        if owner == net.partition().0 as u32 {
            self.msgs.release(m);
        } else {
            net.outbox[owner as usize].done.push(Done {
                pool: Pool::Msg,
                id: m,
            });
        }
    }

    /// Message `m`, this partition's, is done with on the side that received it.
    pub(crate) fn done(&mut self, m: u32) {
        self.msgs.release(m);
    }
}

/// Message `m`'s record: read in place if a partition of `group` made it, else the copy that
/// came with the cut messages (`cut.rs`, "When a record travels").
#[inline(always)]
fn lookup<'a>(group: &Group, all: &'a Directory<Msg>, copies: &'a Copies<Msg>, m: u32) -> &'a Msg {
    if group.has(m) {
        // SAFETY: `m` came with a packet or an event of this partition: its record was made
        // before (here, or in another partition of the group before the last barrier) and is
        // never changed; it is released only after this side is done with it (`free`).
        unsafe { all.get(m) }
    } else {
        copied(copies, m)
    }
}

/// The copy of another process group's message `m`.
#[cold]
#[inline(never)]
fn copied(copies: &Copies<Msg>, m: u32) -> &Msg {
    match copies.get(m) {
        Some(msg) => msg,
        None => panic!(
            "NIC message {m}, of another process group, is read here without its copy (cut.rs, \
             Record)"
        ),
    }
}

mod shares;
mod synthetic;
mod whole;
