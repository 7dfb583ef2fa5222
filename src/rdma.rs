//! RDMA put and get (docs/model.md §5, NSIM-ACE §3).
//!
//! **Put** (`MGEN_rdma_put(dest, bytes, tag)`): sender memory → DMA → NIC → packets → network →
//! receiving NIC → DMA → receiver memory. When the last byte is in the receiver's memory the put
//! is *delivered*: the receiver's count for `tag` rises and an `MGEN_rdma_poll(tag)` may return.
//! The receiving NIC then sends a control packet back on its own; when it reaches the sender's
//! NIC the put is *complete* and `MGEN_acp_complete(handle)` may return.
//!
//! **Get** (`MGEN_rdma_get(src, bytes, tag)`): the caller's NIC sends a control packet to `src`;
//! on its arrival `src`'s NIC reads the data by DMA and sends it back; the get is complete when
//! the last byte is in the caller's memory. A get raises no poll count: its caller learns of
//! completion through `MGEN_acp_complete`.
//!
//! A handle is `rank × 2³² + sequence`, so a handle of another rank is recognised.

use crate::cut::{OpRecord, Record};
use crate::event::Event;
use crate::fabric::Wire;
use crate::nic::{Msg, MsgKind};
use crate::perf::copies::Copies;
use crate::perf::stable::{Directory, Group, Stable};
use crate::rank::{Rank, Ranks};
use crate::sim::EventQueue;
use crate::units::Time;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpKind {
    Put,
    Get,
}

/// One RDMA transfer in progress.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Op {
    pub(crate) kind: OpKind,
    /// The rank that issued it.
    pub(crate) rank: u32,
    /// The other side: destination of a put, source of a get.
    pub(crate) peer: u32,
    pub(crate) tag: i64,
    /// The issuer's sequence number (the low half of the handle).
    pub(crate) seq: u32,
    pub(crate) bytes: u64,
    /// The issuer's NIC and the peer's NIC that carry it.
    pub(crate) nic: u32,
    pub(crate) peer_nic: u32,
}

/// The handle a script sees for a rank's transfer.
pub(crate) fn handle(rank: u32, seq: u32) -> i64 {
    ((rank as i64) << 32) | seq as i64
}

/// Splits a handle into (rank, sequence number).
pub(crate) fn split_handle(h: i64) -> Option<(u32, u32)> {
    if h < 0 {
        return None;
    }
    Some(((h >> 32) as u32, h as u32))
}

/// Transfers in progress: those this partition's ranks issued, in a pool the partition where
/// a transfer's data lands reads (`perf/stable.rs`).
pub(crate) struct Rdma {
    ops: Stable<Op>,
    all_ops: Arc<Directory<Op>>,
    /// The partitions whose transfers are read in place (this one's process group), and
    /// copies of other groups' transfers whose data or request lands here (`cut.rs`).
    group: Group,
    copies: Copies<Op>,
    /// Puts and gets ever issued.
    pub(crate) issued: u64,
    /// Set when the pool of transfers in flight is full: the engine stops the run.
    pub(crate) full: Option<crate::perf::stable::Full>,
}

impl Default for Rdma {
    fn default() -> Self {
        let ops = Stable::new(0, 0);
        let all_ops = crate::perf::stable::directory(&[&ops]);
        Rdma {
            ops,
            all_ops,
            group: Group::all(1, 0),
            copies: Copies::new(),
            issued: 0,
            full: None,
        }
    }
}

impl Rdma {
    /// The RDMA layers of `parts` partitions in `processes` process groups, each with its own
    /// transfers, which the partitions of its group read in place and the others as copies.
    pub(crate) fn split(parts: u32, processes: u32) -> Vec<Rdma> {
        let bits = crate::perf::stable::part_bits(parts);
        let mut all: Vec<Rdma> = (0..parts)
            .map(|p| Rdma {
                ops: Stable::new(p, bits),
                group: Group::of(p, parts, processes, bits),
                copies: Copies::new(),
                ..Rdma::default()
            })
            .collect();
        let pools: Vec<&Stable<Op>> = all.iter().map(|r| &r.ops).collect();
        let dirs: Vec<_> = all
            .iter()
            .map(|r| crate::perf::stable::group_directory(&pools, r.group))
            .collect();
        for (r, dir) in all.iter_mut().zip(dirs) {
            r.all_ops = dir;
        }
        all
    }

    /// Keeps the copy of another process group's transfer that came with the cut messages.
    pub(crate) fn keep(&mut self, r: &OpRecord) {
        self.copies.keep(
            r.id,
            Op {
                kind: if r.kind == 0 {
                    OpKind::Put
                } else {
                    OpKind::Get
                },
                rank: r.rank,
                peer: r.peer,
                tag: r.tag,
                seq: r.seq,
                bytes: r.bytes,
                nic: r.nic,
                peer_nic: r.peer_nic,
            },
        );
    }

    /// Frees what this partition kept of other partitions' transfers where it no longer
    /// receives from them (now and then: [`Copies::sweep`]).
    pub(crate) fn sweep(&mut self) {
        self.copies.sweep();
    }

    /// Records a transfer issued by `rank` (whose clock already includes the node latency)
    /// and schedules its start at the NIC. Returns the handle.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn issue(
        &mut self,
        kind: OpKind,
        rank_id: u32,
        rank: &mut Rank,
        peer: u32,
        bytes: u64,
        tag: i64,
        (nic, peer_nic): (u32, u32),
        q: &mut EventQueue<Event>,
    ) -> i64 {
        let seq = rank.next_seq;
        rank.next_seq = rank.next_seq.wrapping_add(1);
        let op = Op {
            kind,
            rank: rank_id,
            peer,
            tag,
            seq,
            bytes,
            nic,
            peer_nic,
        };
        let id = match self.ops.alloc(op) {
            Ok(id) => id,
            // (the engine stops the run at its next look: `Part::overflow`, `part/dispatch.rs`)
            Err(full) => {
                self.full = Some(full);
                return handle(rank_id, seq);
            }
        };
        rank.outstanding.push((seq, id));
        self.issued += 1;
        if kind == OpKind::Put {
            rank.messages_sent += 1;
            rank.bytes_sent += bytes;
        }
        q.push(rank.clock, Event::OpStart(id));
        handle(rank_id, seq)
    }

    /// The transfer reaches its NIC: the first message leaves.
    pub(crate) fn start(
        &mut self,
        id: u32,
        wire: &mut Wire<'_>,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let op = *self.op(id);
        let (kind, bytes) = match op.kind {
            OpKind::Put => (MsgKind::PutData, op.bytes),
            OpKind::Get => (MsgKind::GetRequest, 0),
        };
        if let Some(to) = wire.nics.remote(op.peer_nic) {
            // (read where its data or request lands: sent before them, `cut.rs`)
            wire.net.outbox[to].records.push(Record::Op(OpRecord {
                id,
                kind: (op.kind == OpKind::Get) as u8,
                rank: op.rank,
                peer: op.peer,
                tag: op.tag,
                seq: op.seq,
                bytes: op.bytes,
                nic: op.nic,
                peer_nic: op.peer_nic,
            }));
        }
        wire.send(kind, id, op.nic, op.peer_nic, bytes, now, q);
    }

    /// Message `msg` (already freed at its NIC) has been delivered at `now`: advance its
    /// transfer.
    pub(crate) fn delivered(
        &mut self,
        msg: Msg,
        ranks: &mut Ranks,
        wire: &mut Wire<'_>,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let op = *self.op(msg.op);
        match msg.kind {
            MsgKind::PutData => {
                let r = &mut ranks[op.peer as usize];
                r.bytes_received += op.bytes;
                if r.deliver(op.tag) {
                    r.wake(op.peer, now, q);
                }
                wire.send(MsgKind::PutAck, msg.op, msg.dst, msg.src, 0, now, q);
                self.forget(msg.op);
            }
            MsgKind::GetRequest => {
                wire.send(MsgKind::GetData, msg.op, msg.dst, msg.src, op.bytes, now, q);
                self.forget(msg.op);
            }
            MsgKind::PutAck | MsgKind::GetData => {
                let r = &mut ranks[op.rank as usize];
                if msg.kind == MsgKind::GetData {
                    r.bytes_received += op.bytes;
                }
                if r.complete(op.seq) {
                    r.wake(op.rank, now, q);
                }
                self.ops.release(msg.op);
            }
            _ => unreachable!("message-passing messages are not RDMA's"),
        }
    }

    /// Transfer `id` (in progress; this partition's, or one whose data or request reached
    /// it): read in place if a partition of this process group made it, else its copy.
    #[inline]
    pub(crate) fn op(&self, id: u32) -> &Op {
        if self.group.has(id) {
            // SAFETY: `id` came with a message this partition received or sent: made before,
            // never changed, released by its owner only once it completes, after its last
            // message.
            unsafe { self.all_ops.get(id) }
        } else {
            self.copied(id)
        }
    }

    /// The copy of another process group's transfer `id`.
    #[cold]
    #[inline(never)]
    fn copied(&self, id: u32) -> &Op {
        match self.copies.get(id) {
            Some(op) => op,
            None => panic!(
                "RDMA transfer {id}, of another process group, is read here without its copy \
                 (cut.rs, Record)"
            ),
        }
    }

    /// This side is done with transfer `id` (its data or request handled): its copy, if it
    /// is another process group's, goes.
    #[inline]
    fn forget(&mut self, id: u32) {
        if !self.group.has(id) {
            self.copies.forget(id);
        }
    }

    /// Transfers not yet complete.
    #[cfg(test)]
    pub(crate) fn in_progress(&self) -> usize {
        self.ops.live()
    }
}
