//! Routers, links and virtual cut-through flow control (docs/model.md §3, NSIM §3.1).
//!
//! Every direction of every link is an output **channel** of the router (or NIC) it leaves:
//! `routers × ports` router channels, then one injection channel per NIC (terminal). Every
//! channel feeds one **buffer**: a router input buffer per (router, port, virtual channel), or
//! a NIC's receive buffer. Buffers hold `buffer_bytes`, counted as credits. Which port a link
//! joins to which comes from the topology (`topology/`), once, into `link_to`.
//!
//! The rules, per packet and hop:
//! - its head arrives at a router at `h`; it is *ready* for its output at `h + router_delay`
//!   (routing + VC allocation + switch allocation + switch latency);
//! - it waits in that output's queue for its VC class until it is ready, the channel is idle
//!   **and** a VC of its class in the next buffer has credit for the whole packet (virtual
//!   cut-through; of the class's VCs, the one with the most room); classes are served round
//!   robin. Every packet ready by a picosecond competes at it: one that becomes ready as the
//!   channel frees, or as another becomes ready, is in the round robin;
//! - **input-queued** (`network.router`, the default, NSIM's): a packet is in an output's queue
//!   only while it is the first of its input buffer (`inq`, a FIFO per channel and VC), so a
//!   packet behind a blocked head waits (head-of-line blocking), and it may leave only when its
//!   input's crossbar port is free (`xbar`, per input: until the tail of the packet it last
//!   sent has crossed). The queue is in the order the inputs asked (`Packet::asked`), and the
//!   channel sends the first packet in it that can go (oldest request first). An output whose
//!   first such packet lacks credit looks again when another output takes that packet's input
//!   (the packet then waits for the crossbar, and one behind it, from another input, may fit);
//!   **Output-queued**: a packet joins its output's queue on arrival, in the order of `ready`;
//! - its head leaves at `t` and arrives at `t + cable_latency`; its tail leaves at
//!   `max(t + size/bandwidth, tail_here + pipeline)` — the later of serialization on this
//!   channel and the tail's own progress (NSIM's rule where links of different speeds meet);
//! - the channel is busy until the tail has left; then the buffer the packet held here gets its
//!   credit back, which may wake the channel that feeds it.
//!
//! Each router model is a type (`model.rs`), and the code below is generic over it: compiled
//! once per model, with no test of another model's rules and no virtual call.
//!
//! Queues are ordered by a key of the model only — `ready` (output-queued) or `asked`
//! (input-queued), then the channel that fed the packet's buffer, then its virtual channel —
//! never by which event happened to run first; two packets never share a key in one queue.
//!
//! **Each router acts on its own state.** What one router does to another crosses a link, with
//! a delay the model guarantees, so that routers can be simulated apart (by partitions, on
//! threads: `engine/`) and give the same result (docs/architecture.md, "Partitions"):
//! - *Arrivals* (`arrivals.rs`). A packet sent from router to router at `t` is ready at the next
//!   router at `t + cable + router_delay`, and nothing there can use it before. Such arrivals
//!   are gathered by *epoch* (time cut into spans of [`Network::epoch`] ps, a power of two no
//!   longer than the shortest such delay) and put in their queues at the epoch's end, in the
//!   order of the key above, as if at their own time: a queue's order is its key's, and the
//!   events this schedules depend only on the state at the epoch's end. A packet from a NIC to
//!   its own router is queued as it is sent.
//! - *Credit* (`credit.rs`). When a router starts a packet's tail on its way out, it knows when
//!   the buffer the packet held will be free again: it records that release for the channel
//!   that feeds the buffer, which counts it from that picosecond on — applied when that channel
//!   next looks at its credit, exactly at its time. A channel that lacks credit (*starved*) is
//!   woken at the first release recorded for it into a virtual channel it lacked credit in
//!   ([`Network::credit_wake`]); such wake-ups are
//!   taken at the end of their picosecond, after its events, in channel order, and a wake-up
//!   that finds its channel no longer starved does nothing and is not counted.
//! - A channel's own tail leaving is applied by whoever next looks at that channel; it is an
//!   event ([`Event::ChannelFree`]) only when something queued there waits for it.
//!
//! **Queued on sending.** Mesh and torus routes are fixed, so a packet is routed and queued at
//! its next router when its arrival is put in place, with the time it will be ready (input-
//! queued: if it is the first of its input buffer; otherwise when the packet ahead of it leaves,
//! `Network::next_in_buffer`). A queue is looked at when its channel's tail leaves
//! ([`Event::ChannelFree`], scheduled whenever packets are queued) or when credit comes back;
//! only a packet that finds its channel idle and nothing ahead of it needs an event of its own,
//! [`Event::HeadReady`] at its ready time. Under contention a hop thus costs one event, not two.
//! The fat tree (random up-routes) and the dragonfly (UGAL looks at the queues when the head
//! arrives) route when the head is ready, [`Event::RouterReady`]. [`Network::stalled`] checks
//! the outcome: no channel is ever idle while a ready packet could go.
//!
//! **Layout.** At scale a hop's cost is the cache lines it touches, not its instructions. So a
//! channel is two cache lines: the first holds what every hop reads (queues, state, where the
//! link leads, the release to apply); the second holds the occupancy of the buffer the channel
//! feeds, the channel's counters, and whether and since when the channel waits for credit. The
//! credit itself and the releases recorded for it are dense arrays beside, a few bytes per
//! channel. A packet is one line. The engine prefetches an event's channel or packet a few
//! events ahead, then what it points to (`world.rs`), and an epoch's arrivals a few ahead.
//!
//! What these layouts won, and what was tried and dropped: `docs/performance.md`.
//!
//! Router channels move data at the slower of `link_bandwidth` and `switch_bandwidth`; an
//! injection channel at the NIC's rate (`nic_bandwidth`, else the link's) with no pipeline.

mod across;
mod arrivals;
mod build;
mod credit;
mod held;
mod input;
pub(crate) mod model;
mod observe;
mod outbuf;
mod paths;
mod prefetch;
mod queues;
mod routing;
mod shares;
#[cfg(test)]
mod tests;

use super::packet::{Packet, PacketPool, PktId, NONE};
use super::power::{Power, Ready};
use crate::config::{NetworkConfig, NodeConfig, PowerConfig, RouterKind};
use crate::event::Event;
use crate::perf::prefetch::prefetch;
use crate::perf::slab::SharedVec;
use crate::probe::history::{BufferHistory, Stay};
use crate::probe::series::LinkSeries;
use crate::random::Xoshiro;
use crate::sim::EventQueue;
use crate::topology::{At, Hop, NoRouters, RouterId, Topo, MAX_CLASSES, MAX_LINK_CLASSES, NO_DIM};
use crate::units::{Bandwidth, Bytes, Time};
pub(crate) use arrivals::Arrival;
use arrivals::Arrivals;
use credit::Returns;
use model::{with_model, Model, RouterModel};
pub(crate) use observe::{LinkLoad, NetworkStats};
use outbuf::{OutBuf, OUTBUF};

/// Most virtual channels per port.
const MAX_VCS: usize = crate::config::MAX_VCS as usize;

/// `Channel::releasing` value meaning "a NIC transmit staging slot" rather than a buffer.
pub(crate) const STAGING: u32 = u32::MAX - 1;

/// `Network::link_to`: the port is NIC `link_to & !TO_NIC`'s (NIC numbers are below 2^28,
/// `topology::keys::MAX_NICS`).
const TO_NIC: u32 = 1 << 31;

/// `Channel::flags`: the link wraps around a torus dimension.
const WRAP: u8 = 1;
/// `Channel::flags`: the link joins two dragonfly groups.
const GLOBAL: u8 = 2;
/// `(Channel::flags >> CLASS_SHIFT) & CLASS_MASK`: the link's class, which sets its rate and
/// its latency.
const CLASS_SHIFT: u8 = 2;
const CLASS_MASK: u8 = 15;
/// `Channel::flags`: the link leads to a router of another partition (`cut.rs`).
const CUT: u8 = 64;

/// Link classes (`Network::class_bw`, `class_cable`): links between routers, NIC to router,
/// router to NIC, then the topology's own classes (a dragonfly's global links, a fat tree's
/// levels, a graph's named classes: `topology::Link::class`).
const CLASS_LINK: u8 = 0;
const CLASS_INJECT: u8 = 1;
const CLASS_EJECT: u8 = 2;
const CLASS_FAMILY: u8 = 3;
const CLASSES: usize = CLASS_FAMILY as usize + MAX_LINK_CLASSES;
const _: () = assert!(CLASSES <= CLASS_MASK as usize + 1);

/// Head and tail of an intrusive FIFO of packets.
#[derive(Clone, Copy, Debug)]
struct Fifo {
    head: PktId,
    tail: PktId,
}

const EMPTY: Fifo = Fifo {
    head: NONE,
    tail: NONE,
};

/// Input-queued: the FIFO of packets in one virtual channel of an input buffer, and when it
/// was last left empty (ps): a packet that arrives in it empty asks for its output no earlier
/// than that (see `arrivals.rs`).
#[derive(Clone, Copy)]
struct InFifo {
    head: PktId,
    tail: PktId,
    emptied: u64,
}

const IN_EMPTY: InFifo = InFifo {
    head: NONE,
    tail: NONE,
    emptied: 0,
};

/// One direction of one link, seen from the router or NIC that drives it: two cache lines
/// (see the module's doc), 128 bytes.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
struct Channel {
    // ---- first line: what a hop reads
    /// Packets waiting for this channel, one queue per virtual channel class of the next
    /// buffer, each in the order of its key (see the module's doc).
    queues: [Fifo; MAX_CLASSES],
    /// Packets in those queues (UGAL's measure of congestion).
    queued: u32,
    /// A packet's tail is still leaving (until `free_at`), or has left and its release is
    /// not applied yet.
    busy: bool,
    /// An [`Event::ChannelFree`] is scheduled at `free_at` (otherwise the release is applied by
    /// the channel's next look).
    scheduled: bool,
    /// Virtual channel class to look at first (round robin).
    rr: u8,
    /// The link is a torus wrap-around ([`WRAP`]) or a dragonfly global link ([`GLOBAL`]), and
    /// its class.
    flags: u8,
    /// When the tail leaves, in picoseconds.
    free_at: u64,
    /// When the earliest [`Event::HeadReady`] scheduled for this channel is (`u64::MAX`: none),
    /// in picoseconds.
    wake_at: u64,
    /// The router the link leads to (fixed by the topology); `NONE` for a NIC, or where there
    /// is no link.
    next: RouterId,
    /// What the current tail gives back when it has left, besides the channel itself: a NIC's
    /// staging slot ([`STAGING`]) or bytes of this channel's own output buffer
    /// (`OUTBUF | c`), with `bytes << VC_BITS | class`; `NONE` when nothing. (A router
    /// input buffer's release is recorded for its feeder when the send starts: `credit.rs`.)
    releasing_up: u32,
    releasing: u32,
    /// The last release applied freed a NIC's staging slot (for its event).
    released_staging: bool,
    /// Its last look ended starved: it waits to be woken by credit into these virtual
    /// channels of the next buffer, a bit each (`credit.rs`); 0: it does not wait. (On the
    /// first line: every look writes it.)
    waiting: u8,
    // ---- second line: the buffer this channel feeds, and counters (its credit is in
    // `Network::credit`)
    /// Σ change × time of change of the bytes held (byte·ps): the integral of the occupancy
    /// `occ` from 0 to `T` is then `occ·T − occ_moment`, one multiply-add per change.
    occ_moment: i128,
    /// When a credit wake-up of this channel is next due ([`Network::credit_wake`]; ps,
    /// `u64::MAX`: none).
    credit_wake_at: u64,
    /// Time under backpressure (ps), as Σ end − Σ start of its spells: a spell's start is
    /// subtracted when it begins and its end added when the send that ends it (which holds
    /// this line already) goes, so an open spell's time so far is `blocked_ps + now`.
    blocked_ps: i64,
    /// Bytes sent over this channel (payload and headers).
    bytes: u64,
    /// Time this channel spent sending, in picoseconds.
    busy_ps: u64,
    /// The most bytes that buffer (all its virtual channels) ever held.
    occ_peak: u32,
    /// Packets sent over this channel (saturating: a link would carry 2³² packets only in a run
    /// of tens of simulated seconds at full load, trillions of events).
    packets: u32,
    /// Bytes held now in the buffer this channel feeds, all virtual channels.
    occ: u32,
    /// The channel is idle with a ready packet that has no credit in the buffer it feeds
    /// (backpressure, *starved*), since its last send (for the statistics).
    blocked: bool,
}

/// Input-queued: the bit of `Network::xbar` (a time, below 2^63 ps) set when an output
/// starved on a packet of that input since its crossbar was last taken (`queues.rs`).
const STARVED_ON: u64 = 1 << 63;

const _: () = assert!(std::mem::size_of::<Channel>() == 128);
// SAFETY: integers and bools, and arrays of queues of integers
unsafe impl crate::perf::slab::Zeroed for Channel {}
// SAFETY: integers
unsafe impl crate::perf::slab::Zeroed for InFifo {}
// (what every look reads and writes is on the first line)
const _: () = assert!(std::mem::offset_of!(Channel, waiting) < 64);
const _: () = assert!(std::mem::offset_of!(Channel, occ_moment) == 64);

/// Bits of `Channel::releasing` that hold the virtual channel.
const VC_BITS: u32 = 3;
const _: () = assert!(MAX_VCS <= 1 << VC_BITS);

impl Channel {
    /// Bytes held now in the buffer this channel feeds, all virtual channels.
    #[inline]
    fn occ(&self) -> u32 {
        self.occ
    }
}

/// The routers and links of one network.
pub(crate) struct Network {
    /// The topology: who connects to whom, and routing.
    pub(crate) topo: Topo,
    ports: u32,
    /// Virtual channel classes of the routing (the output queues of a channel).
    classes: u32,
    /// Virtual channels per input buffer (`network.vcs`).
    vcs: u32,
    /// Class `k` takes virtual channels `vc_lo[k]..vc_lo[k + 1]`.
    vc_lo: [u8; MAX_CLASSES + 1],
    /// Input-queued (`network.router`): per channel and virtual channel, the FIFO of packets
    /// in the buffer it feeds (index `c · vcs + vc`); empty for an output-queued router. The
    /// router the buffer is in owns it.
    inq: SharedVec<InFifo>,
    /// Input-queued: per channel, when the packet the buffer it feeds is sending through the
    /// crossbar has crossed it (ps, below [`STARVED_ON`], that bit a flag); the input sends
    /// nothing else until then. Owned, like the
    /// buffer, by the router it is in.
    xbar: SharedVec<u64>,
    /// The router model (`model.rs`): the hot code is generic over its type, picked once at
    /// each entry from the engine.
    model: Model,
    /// Output buffers per router channel (`network.output_buffer_bytes`; empty for none).
    ob: SharedVec<OutBuf>,
    /// The crossbar's rate (with output buffers, a stage of its own), and the transfer time of
    /// the last packet size seen on it.
    switch_bw: Bandwidth,
    xmemo: (u32, Time),
    routers: u32,
    /// Router channels (`routers × ports`): channels from here on are NICs' injection links.
    nr: u32,
    /// Per router channel `r·ports + q`: the port slot `r'·ports + q'` its link arrives on,
    /// or [`TO_NIC`]` | nic` for a NIC's port, or `NONE` where there is no link. Links pair
    /// up, so the same number is the channel that feeds slot `r·ports + q`.
    link_to: std::sync::Arc<[u32]>,
    channels: SharedVec<Channel>,
    /// Free bytes of the buffer each channel feeds, per virtual channel (index
    /// `c · vcs + vc`; a NIC's receive buffer is VC 0 of the channel into it): spent only by
    /// that channel, and given back to it. Dense, so that the credit of neighbouring channels
    /// shares cache lines.
    credit: SharedVec<u32>,
    /// The releases recorded for each channel's credit and not applied yet, and the credit
    /// wake-ups due (`credit.rs`).
    returns: Returns,
    /// The arrivals of the epoch, to be put in place at its end (`arrivals.rs`).
    arrivals: Arrivals,
    /// log2 of the epoch's length in ps (see "Each router acts on its own state"); `None`
    /// when some hop between routers takes no time at all (then arrivals are put in place as
    /// they are sent).
    epoch_shift: Option<u32>,
    /// Bytes of one buffer.
    capacity: u32,
    /// Routes are fixed (`Topo::fixed_routes`: mesh, torus): a packet is routed and queued at
    /// its next router when it is sent, and needs no event of its own there (see the module's
    /// doc).
    early: bool,
    /// The packets in flight.
    pub(crate) packets: PacketPool,
    /// Whether to prefetch (the engine's cache tactics, `world.rs`): an epoch's arrivals are
    /// then walked with their lines asked for a few ahead.
    pub(crate) prefetching: bool,
    router_delay: Time,
    /// Each link class's rate (a router's output: the slower of its link and its switch) and
    /// latency (docs/model.md §3).
    class_bw: [Bandwidth; CLASSES],
    class_cable: [Time; CLASSES],
    /// The serialization time of the last packet size seen on each link class: (wire bytes,
    /// time). Packets are nearly all full-sized, so this spares a division per hop.
    memo: [(u32, Time); CLASSES],
    /// Random route choices (fat tree `random`, dragonfly Valiant and UGAL): one stream per
    /// router, seeded from the workload seed and the router's number.
    rngs: SharedVec<Xoshiro>,
    /// Totals of the run so far.
    pub(crate) stats: NetworkStats,
    /// Time × space statistics, when asked for (`--interval`).
    pub(crate) series: Option<Box<LinkSeries>>,
    /// Buffer usage history of chosen routers, when asked for (`--buffer-history`).
    pub(crate) history: Option<Box<BufferHistory>>,
    /// Links that sleep when idle (`[power]` enabled).
    pub(crate) power: Option<Box<Power>>,
    /// This network is partition `me`'s view; `parts` partitions share the arrays above,
    /// each element owned by one (`perf/slab.rs`): which one owns each channel is `owner`
    /// (its router's, or its NIC's), and each router `router_owner`.
    me: u16,
    parts: u16,
    owner: std::sync::Arc<[u16]>,
    router_owner: std::sync::Arc<[u16]>,
    /// Per channel, the partition that owns the buffer it feeds (its input queue and crossbar
    /// port): kept for the debug builds' checks, which point into it.
    fed_owner: std::sync::Arc<[u16]>,
    /// What this partition sends across its cuts, by partition, until the engine takes it
    /// (`cut.rs`).
    pub(crate) outbox: Vec<crate::cut::Mail>,
    /// Packets held in buffers fed across a cut, by size on the wire: the shortest of them
    /// bounds how soon this partition can give credit back across a cut (`cut.rs`).
    cut_held: held::HeldBySize,
    /// Set when a pool of records in flight is full (a message, transfer or send could not be
    /// made): the engine stops the run with it.
    pub(crate) overflowed: Option<String>,
    /// Most packets the partitions this one gathered held at once, summed.
    peak_packets: u64,
    /// Built with only the state of some partitions written ([`Network::new`]'s `only_own`):
    /// the rest stays zero pages until [`Network::split`] writes this process's share.
    unfilled: bool,
    /// The seed of the routers' random numbers (`Xoshiro::for_entity`), for [`Network::split`]
    /// to write those of this process's routers when `unfilled`.
    seed: u64,
    /// Whether the end of the run reads only the link counters kept
    /// ([`Network::keep_own_ends`]): the per-element state is not read again (and may have
    /// been given back, [`Network::let_go_state`]).
    let_go: bool,
    /// The end counters of links read from another partition's packed end state (an MPI
    /// process's at the root, `Network::unpack_end`), in place of their channels' own, which
    /// this process then never writes (`Network::take_link_loads` reads them).
    ends: Vec<shares::LinkEnd>,
}
impl Network {
    /// log2 of the longest power-of-two span of picoseconds no longer than the shortest time
    /// from a router sending a packet to the next router being able to use it (a cable and
    /// the pipeline): the epoch of arrivals (see the module's doc). `None` if that time is
    /// zero.
    fn epoch_shift(&self) -> Option<u32> {
        let shortest = (0..self.nr)
            .filter(|&c| self.channels[c as usize].next != NONE)
            .map(|c| self.class_cable[self.class_of(c)] + self.router_delay)
            .min()?;
        (shortest.ps() > 0).then(|| 63 - shortest.ps().leading_zeros())
    }

    /// The length of an epoch of arrivals in picoseconds (see the module's doc), `None` when
    /// arrivals are put in place as they are sent (some hop between routers takes no time,
    /// or there is none).
    pub(crate) fn epoch(&self) -> Option<Time> {
        self.epoch_shift.map(|s| Time(1 << s))
    }

    /// The link class of channel `c`.
    #[inline]
    fn class_of(&self, c: u32) -> usize {
        ((self.channels[c as usize].flags >> CLASS_SHIFT) & CLASS_MASK) as usize
    }

    /// Writes into every channel where its link leads and its link's class, so that the hot
    /// path looks them up instead of dividing channel numbers by ports.
    fn wire(&mut self) {
        for c in 0..self.channels.len() as u32 {
            let wired = self.wired(c);
            let ch = &mut self.channels[c as usize];
            (ch.next, ch.flags) = wired;
        }
    }

    /// Channel `c`'s `next` and `flags` as [`Network::wire`] writes them (fixed by the
    /// topology).
    fn wired(&self, c: u32) -> (RouterId, u8) {
        let next = self.slot_fed(c).map_or(NONE, |slot| slot / self.ports);
        let mut flags = 0;
        let mut class = CLASS_INJECT;
        if c < self.nr {
            let (r, q) = (c / self.ports, (c % self.ports) as u8);
            let link = self.topo.link(r, q);
            if link.wraps {
                flags |= WRAP;
            }
            if link.global {
                flags |= GLOBAL;
            }
            class = if self.nic_on(c).is_some() {
                CLASS_EJECT
            } else if link.class > 0 {
                CLASS_FAMILY + link.class - 1
            } else {
                CLASS_LINK
            };
        }
        (next, flags | class << CLASS_SHIFT)
    }

    /// Bytes of the state a hop of this partition reads: its share of the channels, and the
    /// packets at the most it has held at once (the packet pool never shrinks).
    pub(crate) fn footprint(&self) -> usize {
        (self.channels.len() * std::mem::size_of::<Channel>()
            + self.credit.len() * std::mem::size_of::<u32>()
            + self.inq.len() * std::mem::size_of::<InFifo>()
            + self.ob.len() * std::mem::size_of::<OutBuf>())
            / self.parts as usize
            + self.packets.peak() * std::mem::size_of::<super::packet::Packet>()
    }

    /// Most packets the partitions held at once, summed over them (a figure of the engine's).
    pub(crate) fn peak_packets(&self) -> u64 {
        self.packets.peak() as u64 + self.peak_packets
    }

    /// The shortest packet held in a buffer fed across a cut (wire bytes), if any: with the
    /// arrivals of the window, it bounds how soon this partition can give credit back across a
    /// cut (`cut.rs`).
    pub(crate) fn shortest_held_across(&self) -> Option<u32> {
        self.cut_held.shortest()
    }

    /// The slowest rate any link or crossbar of the network moves bytes at.
    pub(crate) fn slowest_link(&self) -> Bandwidth {
        self.class_bw.iter().fold(self.switch_bw, |a, &b| a.min(b))
    }

    /// The fastest rate a router output (or crossbar) moves a packet at: a packet's shortest
    /// stay in a router after it is ready (`cut.rs`, [`crate::cut::Lookahead`]).
    pub(crate) fn fastest_output(&self) -> Bandwidth {
        let mut fastest = self.switch_bw;
        for (c, &b) in self.class_bw.iter().enumerate() {
            if c != CLASS_INJECT as usize {
                fastest = fastest.max(b);
            }
        }
        fastest
    }

    /// A packet from across a cut ([`crate::cut::Arrive`], taken in at the start of a window): it
    /// joins this partition's packets and is held until its epoch ends, as if sent here.
    pub(crate) fn arrive_across(&mut self, mut a: Arrival, packet: Packet) {
        let wire = packet.wire;
        a.pkt = self.packets.alloc(packet);
        self.cut_held.add(wire);
        let shift = self.epoch_shift.expect("partitions have epochs");
        self.arrivals
            .hold_received(a, arrivals::epoch_end(a.sent, shift));
    }

    /// Channels (by number) in the series' table: every channel, links or not.
    pub(crate) fn channels(&self) -> usize {
        self.channels.len()
    }

    /// Routers in the network.
    pub(crate) fn routers(&self) -> u32 {
        self.routers
    }

    /// The bytes held in the buffer channel `c` feeds have changed by `delta` at `now` (its
    /// credit already says so).
    #[inline]
    fn occupy(&mut self, c: u32, now: Time, delta: i64) {
        let ch = &mut self.channels[c as usize];
        let t = now.ps();
        if let Some(s) = &mut self.series {
            s.occupancy(c, ch.occ, t);
        }
        ch.occ = (ch.occ as i64 + delta) as u32;
        ch.occ_moment += delta as i128 * t as i128;
        if delta > 0 {
            ch.occ_peak = ch.occ_peak.max(ch.occ);
        }
    }

    /// Index in `credit` of virtual channel `vc` of the buffer channel `c` feeds.
    #[inline]
    fn cr(&self, c: u32, vc: u32) -> usize {
        (c * self.vcs + vc) as usize
    }

    /// Channel of port `q` of router `r`.
    #[inline]
    fn router_channel(&self, r: RouterId, q: u32) -> u32 {
        r * self.ports + q
    }
    /// Injection channel of NIC (terminal) `nic`.
    #[inline]
    pub(crate) fn injection_channel(&self, nic: u32) -> u32 {
        self.routers * self.ports + nic
    }
    /// The router port slot NIC `nic` is attached to.
    #[inline]
    fn nic_slot(&self, nic: u32) -> u32 {
        let (r, q) = self.topo.nic_port(nic);
        r * self.ports + q as u32
    }
    /// The NIC on router channel (or port slot) `c`, if it is a NIC port.
    #[inline]
    fn nic_on(&self, c: u32) -> Option<u32> {
        let l = *self.link_to.get(c as usize)?;
        (l != NONE && l & TO_NIC != 0).then_some(l & !TO_NIC)
    }

    /// Packets NIC `nic` holds staged at `now`: those queued on its injection channel, and the
    /// one whose tail is still leaving it. (A tail that has left frees its slot at that
    /// picosecond, whether or not the release has been applied: it is an event only when a
    /// staged packet waits behind it; see `send`.)
    #[inline]
    pub(crate) fn staged(&self, nic: u32, now: Time) -> u32 {
        let ch = &self.channels[self.injection_channel(nic) as usize];
        let leaving = ch.busy && (ch.free_at > now.ps() || ch.scheduled) && ch.releasing != NONE;
        ch.queued + leaving as u32
    }

    /// Puts a packet whose payload is in its NIC (tail there at `now`) into the NIC's
    /// injection queue.
    pub(crate) fn inject(&mut self, nic: u32, pkt: PktId, now: Time, q: &mut EventQueue<Event>) {
        self.inject_at(nic, pkt, now, now, q);
    }

    /// Puts a packet into NIC `nic`'s injection queue at `now` whose tail is in the NIC only
    /// at `tail` (cut-through DMA: the read is still going on); its tail cannot leave before.
    pub(crate) fn inject_at(
        &mut self,
        nic: u32,
        pkt: PktId,
        now: Time,
        tail: Time,
        q: &mut EventQueue<Event>,
    ) {
        let p = self.packets.get_mut(pkt);
        p.tail = tail;
        p.ready = now;
        p.from = STAGING;
        p.vc = 0;
        p.at = nic;
        let c = self.injection_channel(nic);
        with_model!(self.model, M => {
            self.enqueue::<M>(c, 0, pkt);
            self.try_send::<M>(c, now, q);
        })
    }

    /// A packet's head has passed the pipeline of router `p.at`: route it and queue it (fat
    /// tree and dragonfly, whose routes depend on the moment; see the module's doc). In an
    /// input-queued router only the first packet of its input buffer asks for an output; one
    /// behind it is routed when it becomes the first (`Network::next_in_buffer`).
    pub(crate) fn router_ready(&mut self, pkt: PktId, now: Time, q: &mut EventQueue<Event>) {
        with_model!(self.model, M => self.router_ready_as::<M>(pkt, now, q))
    }

    /// [`Network::router_ready`] for model `M`.
    fn router_ready_as<M: RouterModel>(
        &mut self,
        pkt: PktId,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let p = self.packets.get_mut(pkt);
        p.ready = now;
        p.arrived = true;
        if M::INPUT_FIFOS {
            if !self.first_in_buffer(pkt) {
                return;
            }
            self.packets.get_mut(pkt).asked = now;
        }
        let (c, vc) = self.route(pkt, now);
        self.enqueue::<M>(c, vc, pkt);
        self.try_send::<M>(c, now, q);
    }

    /// An idle channel's queued packet has become ready ([`Event::HeadReady`]).
    pub(crate) fn head_ready(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) {
        let ch = &mut self.channels[c as usize];
        if ch.wake_at == now.ps() {
            ch.wake_at = u64::MAX;
        }
        with_model!(self.model, M => self.try_send::<M>(c, now, q))
    }

    /// Packet `pkt`, sent towards router `p.at`, is queued there for its next channel (its
    /// head is ready at `p.ready`). Something must look at that channel no later than when the
    /// packet could leave: its tail's event if it is busy until then, else a wake-up.
    fn arrive_early<M: RouterModel>(&mut self, pkt: PktId, hop: Hop, q: &mut EventQueue<Event>) {
        let ready = self.packets.get(pkt).ready;
        let (c, vc) = self.follow(pkt, hop);
        let head = self.enqueue::<M>(c, vc, pkt);
        if M::INPUT_FIFOS {
            // (the packets ahead of it may wait for their inputs: it may go first)
            self.look_at::<M>(c, ready, q);
            return;
        }
        let ch = &self.channels[c as usize];
        if ch.scheduled || !head {
            // its tail's event (now or later) looks at the queue, or the packet ahead of this
            // one will be looked at; if this packet is then a head that is not ready, that look
            // schedules its wake-up
        } else if ch.busy && ch.free_at >= ready.ps() {
            self.schedule(c, q);
        } else {
            self.wake(c, ready, q);
        }
    }

    /// Makes sure channel `c` is looked at no later than `at`: by its tail's event if it is
    /// busy until then, else by a wake-up.
    #[inline]
    fn look_at<M: RouterModel>(&mut self, c: u32, at: Time, q: &mut EventQueue<Event>) {
        let ch = &self.channels[c as usize];
        // (with output buffers the crossbar may take it while the link is busy)
        let outbuf = M::OUTPUT_BUFFERS && c < self.nr;
        if ch.busy && ch.free_at >= at.ps() && !outbuf {
            if !ch.scheduled {
                self.schedule(c, q);
            }
        } else {
            self.wake(c, at, q);
        }
    }
}
