//! Message passing: NSIM's MGEN API, MPI without the `MPI_` prefix (docs/model.md §6).
//!
//! **Costs.** Every call that posts an operation (send or receive, blocking or not) charges
//! `node.mpi_overhead` (NSIM: 200 ns) on the caller's clock. A message of at most
//! `node.eager_limit` bytes goes *eager*: the sender copies it from the user buffer into an MPI
//! buffer at `memory_bandwidth` (NSIM's one-copy), on its clock, and its send is then complete;
//! the NIC sends envelope and data together. A larger message goes by *rendezvous* (zero-copy):
//! the sender's NIC sends a request-to-send; once the receiver has a matching receive, its NIC
//! answers clear-to-send, and the sender's NIC sends the data straight from the user buffer by
//! DMA. The send is complete when the DMA has read the last byte, the receive when the last
//! byte is in memory.
//!
//! **Matching** follows MPI. A receive names a source (or [`ANY_SOURCE`]) and a tag (or
//! [`ANY_TAG`]). A message is matched when its *envelope* reaches the receiving NIC (the first
//! packet of an eager message, or the request-to-send): against the receives already posted,
//! oldest first; otherwise it waits in the unexpected queue, which a receive posted later
//! searches oldest first. Two messages from one sender to one receiver are never overtaken:
//! the sender's NIC sends data and requests-to-send in issue order, and they follow one route
//! through FIFO queues; where they may not (several NICs, per-packet route choices), the
//! receiver restores the order with per-pair sequence numbers. A message longer than its receive is an error at the receive.
//!
//! Requests are `rank × 2³² + 2³¹ + sequence`, distinct from RDMA handles.

use crate::cut::{Done, P2pRecord, Pool as CutPool, Record};
use crate::event::Event;
use crate::fabric::Wire;
use crate::net::packet::NONE;
use crate::nic::MsgKind;
use crate::perf::copies::Copies;
use crate::perf::pool::Pool;
use crate::perf::slab::SharedVec;
use crate::perf::stable::{Directory, Group, Mirror, Stable};
use crate::rank::{Rank, Ranks};
use crate::sim::{Ctx, EventQueue};
use crate::units::{Bandwidth, Bytes, Time};
use std::collections::BTreeMap;
use std::sync::Arc;

pub(crate) use crate::tags::{ANY_SOURCE, ANY_TAG};

const REQ_BIT: u32 = 1 << 31;

/// What a completed receive reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    pub(crate) source: u32,
    pub(crate) tag: i64,
    pub(crate) bytes: u64,
    /// The message was longer than the receive (bytes it had).
    pub(crate) truncated: Option<u64>,
}

/// A send or a receive in progress, until the script has waited for it.
#[derive(Clone, Copy, Debug)]
struct Request {
    seq: u32,
    /// When the rank posted it: it cannot complete earlier, even if the rank, running ahead of
    /// the engine, registered it before events that precede that time were processed.
    posted_at: Time,
    /// When it completed (None while it has not).
    done: Option<Time>,
    status: Status,
    /// What it is, for deadlock reports: a send to `peer`, or a receive from `peer`
    /// (`ANY_SOURCE` allowed) with `tag`.
    send: bool,
    peer: i64,
    tag: i64,
}

/// One message between two ranks: made by the sender's partition, read (never changed) by
/// the receiver's (`perf/stable.rs`); what the receiver learns of it is [`Received`].
#[derive(Clone, Copy, Debug, PartialEq)]
struct P2p {
    src: u32,
    dst: u32,
    tag: i64,
    bytes: u64,
    rendezvous: bool,
    send_req: u32,
    /// The sender's sequence number of that request (its handle's low half).
    send_seq: u32,
    /// The sender's and the receiver's NIC.
    src_nic: u32,
    dst_nic: u32,
    /// Its place among the messages from `src` to `dst` (for the non-overtaking rule when
    /// messages can take different paths).
    pair_seq: u32,
}

/// What the receiver's partition keeps of a message.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Received {
    /// The receive it matched (NONE until matched).
    recv_req: u32,
    /// Its data is in the receiver's memory.
    delivered: bool,
}

impl Default for Received {
    fn default() -> Self {
        Received {
            recv_req: NONE,
            delivered: false,
        }
    }
}

/// A receive waiting for a message.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Posted {
    req: u32,
    /// The rank's clock when it posted the receive.
    #[serde(with = "crate::packed::ps")]
    at: Time,
    src: i64,
    tag: i64,
    bytes: u64,
}

/// Per-rank queues: receives posted and not matched, messages arrived and not matched, and
/// the rank's requests not yet waited for.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct RankQueues {
    posted: Vec<Posted>,
    #[serde(skip)] // (packed as `ended`: the ids are the run's, its records the senders')
    unexpected: Vec<u32>,
    /// `(sequence, request)`.
    requests: Vec<(u32, u32)>,
    /// Envelopes that arrived before an earlier message from the same sender.
    #[serde(skip)] // (not read once the run is over)
    early: Vec<u32>,
    next_seq: u32,
    /// Messages that arrived and were never received, `(sender, tag, bytes)`, as another
    /// process packed them at the end of the run (`Mpi::unpack_end`): after `unexpected`.
    ended: Vec<(u32, i64, u64)>,
}

impl RankQueues {
    const EMPTY: RankQueues = RankQueues {
        posted: Vec::new(),
        unexpected: Vec::new(),
        requests: Vec::new(),
        early: Vec::new(),
        next_seq: 0,
        ended: Vec::new(),
    };
}

/// A rank's [`RankQueues`], made at its first message-passing call: a rank that only uses RDMA
/// keeps 8 bytes for them instead of 104 (memory per rank counts at a million ranks).
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct LazyQueues(Option<Box<RankQueues>>);

static NO_QUEUES: RankQueues = RankQueues::EMPTY;

impl std::ops::Deref for LazyQueues {
    type Target = RankQueues;
    fn deref(&self) -> &RankQueues {
        self.0.as_deref().unwrap_or(&NO_QUEUES)
    }
}

impl std::ops::DerefMut for LazyQueues {
    fn deref_mut(&mut self) -> &mut RankQueues {
        self.0.get_or_insert_with(Box::default)
    }
}

impl Mpi {
    /// Rank `r`'s queues (for what a run left behind).
    pub(crate) fn queues(&self, r: u32) -> &RankQueues {
        &self.queues[r as usize]
    }
}

impl RankQueues {
    /// Messages that arrived and were never received.
    pub(crate) fn unexpected(&self) -> usize {
        self.unexpected.len() + self.ended.len()
    }
    /// Receives posted and never matched.
    pub(crate) fn posted(&self) -> usize {
        self.posted.len()
    }
    /// Requests (sends and receives) never waited for.
    pub(crate) fn unwaited(&self) -> usize {
        self.requests.len()
    }
}

/// The message-passing state of a partition: the messages its ranks send (which the receivers'
/// partitions read), what it knows of the messages its ranks receive, its ranks' requests and
/// queues.
pub(crate) struct Mpi {
    msgs: Stable<P2p>,
    all_msgs: Arc<Directory<P2p>>,
    received: Mirror<Received>,
    /// The partitions whose messages are read in place (this one's process group), copies of
    /// other groups' messages to this partition's ranks (`cut.rs`), and the directory of
    /// every partition's, read once the run is over ([`Mpi::become_whole`]).
    group: Group,
    copies: Copies<P2p>,
    every: Arc<Directory<P2p>>,
    reqs: Pool<Request>,
    eager_limit: u64,
    overhead: Time,
    copy: Bandwidth,
    /// Messages sent.
    pub(crate) sent: u64,
    /// Whether two messages between the same pair can arrive out of order (several NICs per
    /// node, or routing that picks paths per packet): then envelopes carry a per-pair
    /// sequence number and the receiver holds back those that overtook.
    reorder: bool,
    /// Per (sender, receiver): messages sent, and envelopes matched in order.
    sent_seq: BTreeMap<(u32, u32), u32>,
    recv_seq: BTreeMap<(u32, u32), u32>,
    /// Each rank's queues (posted receives, unexpected messages, requests), by rank (each
    /// changed by its rank's partition only, `perf/slab.rs`).
    queues: SharedVec<LazyQueues>,
    /// This partition, and the bits of a message id that name one.
    part: u32,
    bits: u32,
    /// Set when the pool of messages in flight is full: the engine stops the run.
    pub(crate) full: Option<crate::perf::stable::Full>,
    /// Cut messages to other partitions (which partition, what) until the engine takes them.
    pub(crate) outbox: Vec<(u16, Done)>,
}

/// A request that this rank does not have (never made, or already waited for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotPending;

/// A handle as the script sees it.
pub(crate) fn request_handle(rank: u32, seq: u32) -> i64 {
    ((rank as i64) << 32) | (REQ_BIT | seq) as i64
}

/// Splits a request handle into (rank, sequence); None if it is not one.
pub(crate) fn split_request(h: i64) -> Option<(u32, u32)> {
    let low = h as u32;
    if h < 0 || low & REQ_BIT == 0 {
        return None;
    }
    Some(((h >> 32) as u32, low & !REQ_BIT))
}

fn matches(p: &Posted, m: &P2p) -> bool {
    (p.src == ANY_SOURCE || p.src == m.src as i64) && (p.tag == ANY_TAG || p.tag == m.tag)
}

impl Mpi {
    /// The message-passing layer of `ranks` ranks.
    pub(crate) fn new(
        eager_limit: Bytes,
        overhead: Time,
        copy: Bandwidth,
        reorder: bool,
        ranks: usize,
    ) -> Mpi {
        let msgs = Stable::new(0, 0);
        let all_msgs = crate::perf::stable::directory(&[&msgs]);
        Mpi {
            msgs,
            every: all_msgs.clone(),
            all_msgs,
            received: Mirror::new(0),
            group: Group::all(1, 0),
            copies: Copies::new(),
            reqs: Pool::default(),
            eager_limit: eager_limit.0,
            overhead,
            copy,
            sent: 0,
            reorder,
            sent_seq: BTreeMap::new(),
            recv_seq: BTreeMap::new(),
            queues: SharedVec::new((0..ranks).map(|_| LazyQueues::default()).collect()),
            part: 0,
            bits: 0,
            full: None,
            outbox: Vec::new(),
        }
    }

    /// This layer seen by `parts` partitions in `processes` process groups: the ranks' queues
    /// shared (each rank's changed by its partition only), the rest each partition's own; a
    /// partition reads its group's messages in place, the others' as copies.
    pub(crate) fn split(self, parts: u32, processes: u32) -> Vec<Mpi> {
        if parts <= 1 {
            return vec![self];
        }
        let bits = crate::perf::stable::part_bits(parts);
        let mut all: Vec<Mpi> = (0..parts)
            .map(|p| Mpi {
                msgs: Stable::new(p, bits),
                all_msgs: self.all_msgs.clone(),
                received: Mirror::new(bits),
                group: Group::of(p, parts, processes, bits),
                copies: Copies::new(),
                every: self.all_msgs.clone(),
                reqs: Pool::default(),
                eager_limit: self.eager_limit,
                overhead: self.overhead,
                copy: self.copy,
                sent: 0,
                reorder: self.reorder,
                sent_seq: BTreeMap::new(),
                recv_seq: BTreeMap::new(),
                queues: self.queues.clone(),
                part: p,
                bits,
                full: None,
                outbox: Vec::new(),
            })
            .collect();
        let pools: Vec<&Stable<P2p>> = all.iter().map(|m| &m.msgs).collect();
        let every = crate::perf::stable::directory(&pools);
        let dirs: Vec<_> = all
            .iter()
            .map(|m| crate::perf::stable::group_directory(&pools, m.group))
            .collect();
        for (m, dir) in all.iter_mut().zip(dirs) {
            m.all_msgs = dir;
            m.every = every.clone();
        }
        all
    }

    /// From now on this layer reads every rank's queues, and every partition's messages (the
    /// run is over: no partition runs; the messages of the queues are still their senders').
    pub(crate) fn become_whole(&mut self) {
        self.queues = self.queues.whole();
        self.group = Group::all(1 << self.bits, self.bits);
        self.all_msgs = self.every.clone();
    }

    /// Message `m` (this partition's, or one whose envelope or data reached it): read in place
    /// if a partition of this process group made it, else its copy.
    #[inline]
    fn msg(&self, m: u32) -> &P2p {
        if self.group.has(m) {
            // SAFETY: `m` came with a NIC message this partition sent or received: made
            // before, never changed, released by its owner only once the receiver is done
            // with it.
            unsafe { self.all_msgs.get(m) }
        } else {
            self.copied(m)
        }
    }

    /// The copy of another process group's message `m`.
    #[cold]
    #[inline(never)]
    fn copied(&self, m: u32) -> &P2p {
        match self.copies.get(m) {
            Some(p) => p,
            None => panic!(
                "message-passing send {m}, of another process group, is read here without its \
                 copy (cut.rs, Record)"
            ),
        }
    }

    /// Keeps the copy of another process group's send that came with the cut messages.
    pub(crate) fn keep(&mut self, r: &P2pRecord) {
        self.copies.keep(
            r.id,
            P2p {
                src: r.src,
                dst: r.dst,
                tag: r.tag,
                bytes: r.bytes,
                rendezvous: r.rendezvous,
                // (the sender's request never leaves it: only its partition completes it)
                send_req: NONE,
                send_seq: r.send_seq,
                src_nic: r.src_nic,
                dst_nic: r.dst_nic,
                pair_seq: r.pair_seq,
            },
        );
    }

    fn new_request(
        &mut self,
        rank: u32,
        posted_at: Time,
        status: Status,
        send: bool,
        peer: i64,
        tag: i64,
    ) -> (u32, u32) {
        let q = &mut self.queues[rank as usize];
        let seq = q.next_seq;
        q.next_seq = (q.next_seq + 1) & !REQ_BIT;
        let r = Request {
            seq,
            posted_at,
            done: None,
            status,
            send,
            peer,
            tag,
        };
        let id = self.reqs.alloc(r);
        self.queues[rank as usize].requests.push((seq, id));
        (seq, id)
    }

    /// `MGEN_Isend` by `rank`: returns the request handle.
    pub(crate) fn isend(
        &mut self,
        rank: &mut Rank,
        dst: u32,
        bytes: u64,
        tag: i64,
        (src_nic, dst_nic): (u32, u32),
        q: &mut EventQueue<Event>,
    ) -> i64 {
        let me = rank.id;
        rank.clock += self.overhead;
        let pair_seq = if self.reorder {
            let n = self.sent_seq.entry((me, dst)).or_insert(0);
            *n += 1;
            *n - 1
        } else {
            0
        };
        let rendezvous = bytes > self.eager_limit;
        if !rendezvous {
            rank.clock += self.copy.transfer_time(Bytes(bytes));
        }
        let status = Status {
            source: me,
            tag,
            bytes,
            truncated: None,
        };
        let (seq, req) = self.new_request(me, rank.clock, status, true, dst as i64, tag);
        if !rendezvous {
            self.reqs.get_mut(req).done = Some(rank.clock);
        }
        let m = P2p {
            src: me,
            dst,
            tag,
            bytes,
            rendezvous,
            send_req: req,
            send_seq: seq,
            src_nic,
            dst_nic,
            pair_seq,
        };
        let id = match self.msgs.alloc(m) {
            Ok(id) => id,
            // (the engine stops the run at its next look: `Part::overflow`, `part/dispatch.rs`)
            Err(full) => {
                self.full = Some(full);
                return request_handle(me, seq);
            }
        };
        self.sent += 1;
        rank.messages_sent += 1;
        rank.bytes_sent += bytes;
        q.push(rank.clock, Event::P2pStart(id));
        request_handle(me, seq)
    }

    /// A send reaches the sender's NIC.
    pub(crate) fn start(
        &mut self,
        id: u32,
        wire: &mut Wire<'_>,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let m = *self.msg(id);
        let kind = if m.rendezvous {
            MsgKind::Rts
        } else {
            MsgKind::Eager
        };
        if let Some(to) = wire.nics.remote(m.dst_nic) {
            // (read where its envelope lands: sent before it, `cut.rs`)
            wire.net.outbox[to].records.push(Record::P2p(P2pRecord {
                id,
                src: m.src,
                dst: m.dst,
                tag: m.tag,
                bytes: m.bytes,
                rendezvous: m.rendezvous,
                send_seq: m.send_seq,
                src_nic: m.src_nic,
                dst_nic: m.dst_nic,
                pair_seq: m.pair_seq,
            }));
        }
        wire.send(kind, id, m.src_nic, m.dst_nic, m.bytes, now, q);
    }

    /// `MGEN_Irecv` by rank `me`: returns the request handle. A message already arrived is
    /// matched at once.
    pub(crate) fn irecv(
        &mut self,
        me: u32,
        rank: &mut Rank,
        src: i64,
        bytes: u64,
        tag: i64,
        q: &mut EventQueue<Event>,
    ) -> i64 {
        rank.clock += self.overhead;
        let status = Status {
            source: 0,
            tag: 0,
            bytes: 0,
            truncated: None,
        };
        let (seq, req) = self.new_request(me, rank.clock, status, false, src, tag);
        let posted = Posted {
            req,
            src,
            tag,
            bytes,
            at: rank.clock,
        };
        let mine = me as usize;
        let found = self.queues[mine]
            .unexpected
            .iter()
            .position(|&m| matches(&posted, self.msg(m)));
        match found {
            Some(i) => {
                let m = self.queues[mine].unexpected.remove(i);
                self.bind(m, posted, rank, rank.clock, q);
            }
            None => self.queues[mine].posted.push(posted),
        }
        request_handle(me, seq)
    }

    /// Message `m` matches receive `p`; `at` is the later of the envelope's arrival and the post.
    fn bind(&mut self, m: u32, p: Posted, rank: &mut Rank, at: Time, q: &mut EventQueue<Event>) {
        let msg = *self.msg(m);
        let got = self.received.get_mut(m);
        got.recv_req = p.req;
        let delivered = got.delivered;
        let r = self.reqs.get_mut(p.req);
        r.status = Status {
            source: msg.src,
            tag: msg.tag,
            bytes: msg.bytes,
            truncated: (msg.bytes > p.bytes).then_some(msg.bytes),
        };
        if msg.rendezvous {
            // the receiver's NIC answers clear-to-send now (or when the rank posts, later)
            q.push(at, Event::CtsStart(m));
        } else if delivered {
            let (bytes, r) = (msg.bytes, p.req);
            self.complete(r, rank, at, q);
            rank.bytes_received += bytes;
            self.free_msg(m);
        }
    }

    /// The envelope of message `m` reached its receiver at `now`. When messages can take
    /// different paths (several NICs, adaptive routing), an envelope that overtook an earlier
    /// one from the same sender waits for it, as MPI libraries do with sequence numbers.
    pub(crate) fn envelope(
        &mut self,
        m: u32,
        ranks: &mut Ranks,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let msg = *self.msg(m);
        let dst = msg.dst as usize;
        let rank = &mut ranks[dst];
        if !self.reorder {
            return self.match_envelope(m, rank, now, q);
        }
        let pair = (msg.src, msg.dst);
        let mut want = self.recv_seq.get(&pair).copied().unwrap_or(0);
        if msg.pair_seq != want {
            self.queues[dst].early.push(m);
            return;
        }
        // match it, then any that arrived early and are next in line
        let mut next = Some(m);
        while let Some(e) = next {
            self.match_envelope(e, rank, now, q);
            want += 1;
            next = self.queues[dst]
                .early
                .iter()
                .position(|&x| {
                    let x = self.msg(x);
                    x.src == msg.src && x.pair_seq == want
                })
                .map(|i| self.queues[dst].early.swap_remove(i));
        }
        self.recv_seq.insert(pair, want);
    }

    /// Matches the envelope of message `m` against `rank`'s posted receives.
    fn match_envelope(&mut self, m: u32, rank: &mut Rank, now: Time, q: &mut EventQueue<Event>) {
        let msg = *self.msg(m);
        let who = rank.id as usize;
        let found = self.queues[who]
            .posted
            .iter()
            .position(|p| matches(p, &msg));
        match found {
            Some(i) => {
                // a receive the rank posted at a clock later than now acts only from then on
                let p = self.queues[who].posted.remove(i);
                self.bind(m, p, rank, now.max(p.at), q);
            }
            None => self.queues[who].unexpected.push(m),
        }
    }

    /// The receiver's NIC sends clear-to-send for rendezvous message `m`.
    pub(crate) fn send_cts(
        &mut self,
        m: u32,
        wire: &mut Wire<'_>,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let msg = *self.msg(m);
        wire.send(MsgKind::Cts, m, msg.dst_nic, msg.src_nic, 0, now, q);
    }

    /// A message-passing NIC message has been delivered (or, for `RndvData` at the sender, read).
    pub(crate) fn delivered(
        &mut self,
        kind: MsgKind,
        m: u32,
        ranks: &mut Ranks,
        wire: &mut Wire<'_>,
        cx: Ctx<'_, Event>,
    ) {
        let Ctx { now, q } = cx;
        let msg = *self.msg(m);
        match kind {
            MsgKind::Cts => wire.send(
                MsgKind::RndvData,
                m,
                msg.src_nic,
                msg.dst_nic,
                msg.bytes,
                now,
                q,
            ),
            MsgKind::Eager | MsgKind::RndvData => {
                let rank = &mut ranks[msg.dst as usize];
                let got = self.received.get_mut(m);
                if got.recv_req == NONE {
                    got.delivered = true; // waits, unexpected, for its receive
                } else {
                    let req = got.recv_req;
                    self.complete(req, rank, now, q);
                    rank.bytes_received += msg.bytes;
                    self.free_msg(m);
                }
            }
            _ => {}
        }
    }

    /// Message `m`'s sender, receiver, size and the handle of its send (for the timeline).
    pub(crate) fn flow(&self, m: u32) -> (u32, u32, u64, i64) {
        let p = self.msg(m);
        (p.src, p.dst, p.bytes, request_handle(p.src, p.send_seq))
    }

    /// The sender's DMA has read the last byte of rendezvous message `m`: its send completes.
    pub(crate) fn sent_out(
        &mut self,
        m: u32,
        ranks: &mut Ranks,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let msg = *self.msg(m);
        self.complete(msg.send_req, &mut ranks[msg.src as usize], now, q);
    }

    /// The receiver is done with message `m`: forget what it knew of it, and let the sender's
    /// partition reuse its record (at once if it is this one, else by a cut message).
    fn free_msg(&mut self, m: u32) {
        self.received.clear(m);
        if !self.group.has(m) {
            self.copies.forget(m);
        }
        let owner = m & ((1u32 << self.bits) - 1);
        if owner == self.part {
            self.msgs.release(m);
        } else {
            self.outbox.push((
                owner as u16,
                Done {
                    pool: CutPool::P2p,
                    id: m,
                },
            ));
        }
    }

    /// Frees what this partition kept of other partitions' messages where it no longer
    /// receives from them (now and then: [`crate::perf::stable::Mirror::sweep`]).
    pub(crate) fn sweep(&mut self) {
        self.received.sweep();
        self.copies.sweep();
    }

    /// Message `m`, this partition's, is done with on the side that received it.
    pub(crate) fn done(&mut self, m: u32) {
        self.msgs.release(m);
    }

    fn complete(&mut self, req: u32, rank: &mut Rank, at: Time, q: &mut EventQueue<Event>) {
        let r = self.reqs.get_mut(req);
        let at = at.max(r.posted_at);
        r.done = Some(at);
        let seq = r.seq;
        if rank.waits_for_request(seq) {
            rank.wake_owner(at, q);
        }
    }

    /// `MGEN_Wait`/`MGEN_Test` on `rank`'s request `seq`: its status if it is complete at the
    /// rank's clock (the request is then gone), else None; Err if the rank has no such request.
    pub(crate) fn take(&mut self, rank: &mut Rank, seq: u32) -> Result<Option<Status>, NotPending> {
        let requests = &mut self.queues[rank.id as usize].requests;
        let i = requests
            .iter()
            .position(|&(s, _)| s == seq)
            .ok_or(NotPending)?;
        let id = requests[i].1;
        let r = *self.reqs.get(id);
        match r.done {
            Some(t) if t <= rank.clock => {
                self.queues[rank.id as usize].requests.swap_remove(i);
                self.reqs.release(id);
                Ok(Some(r.status))
            }
            _ => Ok(None),
        }
    }
}

mod ended;
