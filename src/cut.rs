//! What one partition tells another: the cut messages (docs/architecture.md, "Partitions").
//!
//! Partitions meet at links (`partition.rs`), and the model makes everything that crosses a
//! link take time: a packet sent to the next router is of use there only a cable and a router
//! pipeline later, and the space it held comes back to the router that sent it only when its
//! tail has left, at least one serialization after that router started it on its way
//! (`net/router/mod.rs`, "Each router acts on its own state"). So a partition can simulate a
//! *window* of time on its own, and hand what it did to its neighbours as cut messages, which
//! they take in at the start of the next window:
//! - [`Arrive`]: a packet sent across a cut link, with what its next router needs; it is put
//!   in place at the end of its epoch, which never falls inside the window it was sent in;
//! - [`Release`]: the space of a buffer fed across a cut comes back at `at`, which is at least
//!   one serialization of a packet held in such a buffer after the window began
//!   ([`Lookahead`]);
//! - [`Done`]: a message, transfer or send that the other partition made is done with here,
//!   and its record may be reused (not part of the model's time);
//! - [`Record`]: a copy of a record (a NIC message, an RDMA transfer, a send) that the other
//!   partition will read, sent only between partitions of different process groups
//!   (`engine.processes`), which share no memory: partitions of one group read each other's
//!   records in place (`perf/stable.rs`).
//!
//! They are plain data (ids are global, times picoseconds), and cross between process groups
//! as bytes (`wire.rs`). A partition takes in its messages in a fixed order (by sending
//! partition; then records, arrivals, releases and dones, each kind as sent), which depends
//! only on the model: so does everything it does with them. (The kinds commute: a record is
//! only kept, arrivals are put in place by their own key at their epoch's end, releases are
//! kept per feeding channel, and a done only frees a record.)
//!
//! **When a record travels.** A record is read in the partition of the destination NIC of the
//! message that names it, as a packet of that message arrives or later. Its copy is sent as
//! the record is made (a NIC message), or as its transfer or send reaches its NIC (an RDMA
//! transfer's at `OpStart`, a send's at `P2pStart`), before its first message leaves: any path
//! from a NIC to a NIC of another partition crosses a cut link, whose arrivals are taken in no
//! sooner than the end of the window they were sent in, with the records sent in that window
//! or before. The receiver keeps the copy until it is done with the record (the message freed,
//! the transfer's data or request handled, the send received).

use crate::units::{Bandwidth, Bytes, Time};

pub(crate) mod wire;
pub(crate) use wire::Crossing;

/// A packet sent across a cut link, as its next router takes it in (made and read by
/// `net/router/across.rs`): 64 bytes, the fields of its `Arrival` and its `Packet` that mean
/// something on the far side (not its place in the sender's pool and queues, nor what the packet's next router sets as it takes it in:
/// when it asked for an output, whether its head has passed the pipeline, its hop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrive {
    /// When its head is ready at the next router (ps).
    pub(crate) ready: u64,
    /// When the sending router started it on its way (ps).
    pub(crate) sent: u64,
    /// When its tail arrives at the next router (ps).
    pub(crate) tail: u64,
    /// Its message (a global id).
    pub(crate) msg: u32,
    /// Bytes on the wire.
    pub(crate) wire: u32,
    /// Source and destination NICs.
    pub(crate) src: u32,
    pub(crate) dst: u32,
    /// The router it arrives at.
    pub(crate) at: u32,
    /// The channel it came by (the one that feeds the buffer it enters).
    pub(crate) from: u32,
    /// Bytes held in that buffer once its space was taken, this packet included.
    pub(crate) held: u32,
    /// Dragonfly: its route.
    pub(crate) aux: u16,
    /// Virtual channel of the buffer it enters, and of the one it is queued for.
    pub(crate) held_vc: u8,
    pub(crate) vc: u8,
    /// Mesh and torus: the dimension it is correcting.
    pub(crate) dim: u8,
    /// Router-to-router links it has crossed.
    pub(crate) hops: u8,
    /// It is the only packet of its message.
    pub(crate) only: bool,
}

const _: () = assert!(std::mem::size_of::<Arrive>() == 64);

/// Channel `feeder` gets `bytes` of credit back in virtual channel `vc` at `at` (ps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Release {
    /// The channel that feeds the buffer.
    pub(crate) feeder: u32,
    /// Bytes.
    pub(crate) bytes: u32,
    /// When (ps).
    pub(crate) at: u64,
    /// Virtual channel.
    pub(crate) vc: u8,
}

/// The record `id` of pool `pool`, made by the receiving partition, is done with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Done {
    /// Which pool.
    pub(crate) pool: Pool,
    /// Its global id.
    pub(crate) id: u32,
}

/// What one partition sent another in a window, each kind in the order sent: a kind of its
/// own per vector, so that a release (24 bytes) or a done (8) does not take the room of a
/// packet (64).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Mail {
    pub(crate) arrive: Vec<Arrive>,
    pub(crate) release: Vec<Release>,
    pub(crate) done: Vec<Done>,
    /// Copies of records, to a partition of another process group only.
    pub(crate) records: Vec<Record>,
}

impl Mail {
    /// Whether nothing was sent.
    pub(crate) fn is_empty(&self) -> bool {
        self.arrive.is_empty()
            && self.release.is_empty()
            && self.done.is_empty()
            && self.records.is_empty()
    }
    /// Messages in all.
    pub(crate) fn len(&self) -> usize {
        self.arrive.len() + self.release.len() + self.done.len() + self.records.len()
    }
    /// Empties a mailbox taken in, keeping room for at most [`KEEP`] messages of each kind.
    pub(crate) fn empty(&mut self) {
        fn keep<T>(v: &mut Vec<T>) {
            v.clear();
            if v.capacity() > KEEP {
                v.shrink_to(KEEP);
            }
        }
        keep(&mut self.arrive);
        keep(&mut self.release);
        keep(&mut self.done);
        keep(&mut self.records);
    }
}

/// A copy of a record another partition made, for a partition of another process group that
/// will read it (see "When a record travels" above); each field is the record's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Record {
    /// A NIC message (`nic/`), sent to its destination NIC's partition.
    Msg(MsgRecord),
    /// An RDMA transfer (`rdma.rs`), sent to its peer NIC's partition.
    Op(OpRecord),
    /// A message-passing send (`mpi/`), sent to its receiving NIC's partition.
    P2p(P2pRecord),
}

/// A NIC message's record (`nic::Msg`), with its global id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MsgRecord {
    pub(crate) id: u32,
    /// Its kind (`nic::MsgKind` as a number).
    pub(crate) kind: u8,
    pub(crate) op: u32,
    pub(crate) src: u32,
    pub(crate) dst: u32,
    /// When it was handed to its source NIC (ps).
    pub(crate) issued: u64,
    pub(crate) bytes: u64,
    pub(crate) packets: u32,
    pub(crate) hops: u8,
}

/// An RDMA transfer's record (`rdma::Op`), with its global id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpRecord {
    pub(crate) id: u32,
    /// 0: a put, 1: a get.
    pub(crate) kind: u8,
    pub(crate) rank: u32,
    pub(crate) peer: u32,
    pub(crate) tag: i64,
    pub(crate) seq: u32,
    pub(crate) bytes: u64,
    pub(crate) nic: u32,
    pub(crate) peer_nic: u32,
}

/// A send's record (`mpi::P2p`, but for the sender's request, which never leaves it), with
/// its global id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct P2pRecord {
    pub(crate) id: u32,
    pub(crate) src: u32,
    pub(crate) dst: u32,
    pub(crate) tag: i64,
    pub(crate) bytes: u64,
    pub(crate) rendezvous: bool,
    pub(crate) send_seq: u32,
    pub(crate) src_nic: u32,
    pub(crate) dst_nic: u32,
    pub(crate) pair_seq: u32,
}

/// Cut messages of one kind a mailbox keeps room for once emptied (256 KiB of packets): a
/// window that sent more (a barrier's step can send a million at once) does not hold on to
/// their memory for the rest of the run.
const KEEP: usize = 1 << 12;

/// The pools whose records cross partitions (`perf/stable.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pool {
    /// A NIC message (`nic/`).
    Msg,
    /// A message-passing send (`mpi/`).
    P2p,
}

/// How soon a partition could give credit back across a cut: one serialization, on the
/// fastest output of any router, of the shortest packet held in a buffer fed across a cut.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lookahead {
    /// The fastest rate a router output (or crossbar) moves a packet at.
    pub(crate) fastest: Bandwidth,
}

impl Lookahead {
    /// The least time a packet of `wire` bytes takes to leave a router (at least 1 ps).
    pub(crate) fn serialization(&self, wire: u32) -> u64 {
        self.fastest
            .transfer_time(Bytes(wire as u64))
            .max(Time(1))
            .ps()
    }
}
