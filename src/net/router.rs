//! Routers, links and virtual cut-through flow control (MODEL.md §3, NSIM §3.1).
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
//! - it waits in that output's queue for its VC until it is ready, the channel is idle **and**
//!   the next buffer has credit for the whole packet (virtual cut-through); queues are FIFO,
//!   VCs are served round robin. Every packet ready by a picosecond competes at it: one that
//!   becomes ready as the channel frees, or as another becomes ready, is in the round robin;
//! - its head leaves at `t` and arrives at `t + cable_latency`; its tail leaves at
//!   `max(t + size/bandwidth, tail_here + pipeline)` — the later of serialization on this
//!   channel and the tail's own progress (NSIM's rule where links of different speeds meet);
//! - the channel is busy until the tail has left; then the buffer the packet held here gets its
//!   credit back, which may wake the channel that feeds it.
//!
//! A release happens at the picosecond the tail has left, and every packet that asks at that
//! picosecond or later sees it. It is an event ([`Event::ChannelFree`]) only when something
//! waits for it: packets queued for the channel, or at the channel that feeds the buffer it
//! frees. Otherwise it stays **pending** (a bit per busy port of the router) and is applied, at
//! its own time, by whoever next looks at that router's credit or channels
//! (`Network::settle`): a buffer's credit is only ever spent by the one channel that feeds it,
//! and that channel settles the buffer's router before it looks. A channel that finds too little
//! credit turns the pending releases into that buffer into events, so that it is woken when they
//! happen. In a quiet network this halves the events per hop. An injection channel's release
//! frees a staging slot of its NIC ([`crate::nic`]); it is an event only when a packet is staged
//! behind the one leaving (the NIC's DMA waits for a slot only then), and otherwise is applied
//! by the channel's next look, [`Network::staged`] counting it free from its picosecond on.
//!
//! **Queued on sending.** Mesh and torus routes are fixed, so a packet is routed and queued at
//! its next router the moment it is sent, with the time it will be ready; heads become ready
//! in the order they were queued (every hop takes the same `cable_latency + router_delay`, head
//! to head). A queue is looked at when its channel's tail leaves ([`Event::ChannelFree`],
//! scheduled whenever packets are queued) or when credit comes back; only a packet that finds
//! its channel idle and nothing ahead of it needs an event of its own, [`Event::HeadReady`] at
//! its ready time. Under contention a hop thus costs one event, not two. The fat tree (random
//! up-routes) and the dragonfly (UGAL looks at the queues when the head arrives) route when
//! the head is ready, [`Event::RouterReady`]. [`Network::stalled`] checks the outcome: no
//! channel is ever idle while a ready packet could go.
//!
//! **Layout.** At scale a hop's cost is the cache lines it touches, not its instructions. So a
//! channel is two cache lines: the first holds what every hop reads (queues, state, where the
//! link leads, the release to apply); the second holds the credit of the buffer the channel
//! feeds (spent only by its one feeder, and given back to it) beside that buffer's occupancy,
//! the channel's counters, and whether and since when the channel waits for that credit (a
//! send at the next router asks it just before its release gives the credit back: one line of
//! the feeder for both). A router's busy ports and their tail times share one line
//! ([`super::pending`]). A packet is one line, and carries when the packet queued behind it is
//! ready, so that a send learns it without reading that packet. The engine prefetches an
//! event's channel or packet a few events ahead, then what it points to (`world.rs`).
//!
//! **Linked later.** Queuing a packet behind another writes the link into the queue's tail, a
//! packet queued long before whose line has usually left the caches at scale. So while the
//! prefetch stages run, the link waits in a small ring ([`super::links`]), the tail is
//! prefetched, and the link is written `LINK_AFTER` queuings later; a send takes its packet's
//! link from the ring if it is still there. The events, their order and every figure are those
//! of writing at once (`tests/properties.rs` runs random workloads both ways).
//!
//! What these layouts won, and what was tried and dropped: `docs/performance.md`.
//!
//! Router channels move data at the slower of `link_bandwidth` and `switch_bandwidth`; an
//! injection channel at the NIC's rate (`nic_bandwidth`, else the link's) with no pipeline.

use super::links::{Link, Links};
use super::packet::{PacketPool, PktId, NONE};
use super::pending::Pending;
use super::power::{Power, Ready};
use super::topology::{dragonfly, Cube, Hop, RouterId, Topo, MAX_VCS, NO_DIM};
use crate::config::{DragonflyRouting, Scenario};
use crate::event::Event;
use crate::perf::prefetch::prefetch;
use crate::probe::history::{BufferHistory, Stay};
use crate::probe::series::LinkSeries;
use crate::random::Xoshiro;
use crate::sim::EventQueue;
use crate::units::{Bandwidth, Bytes, Time};

/// `Channel::releasing` value meaning "a NIC transmit staging slot" rather than a buffer.
pub const STAGING: u32 = u32::MAX - 1;

/// Queuings behind a packet after which the link to the packet queued behind it is written
/// into it, while `link_later` (see "Linked later" in the module's doc).
const LINK_AFTER: usize = 4;

/// `Channel::flags`: the link wraps around a torus dimension.
const WRAP: u8 = 1;
/// `Channel::flags`: the link joins two dragonfly groups.
const GLOBAL: u8 = 2;

/// Head and tail of an intrusive FIFO of packets.
#[derive(Clone, Copy)]
struct Fifo {
    head: PktId,
    tail: PktId,
}

const EMPTY: Fifo = Fifo {
    head: NONE,
    tail: NONE,
};

/// One direction of one link, seen from the router or NIC that drives it: two cache lines
/// (see the module's doc), 128 bytes.
#[derive(Clone)]
#[repr(C, align(64))]
struct Channel {
    // ---- first line: what a hop reads
    /// Packets waiting for this channel, one FIFO per virtual channel of the next buffer.
    queues: [Fifo; MAX_VCS],
    /// Packets in those queues (UGAL's measure of congestion).
    queued: u32,
    /// A packet's tail is still leaving (until `free_at`), or has left and its release is
    /// pending.
    busy: bool,
    /// An [`Event::ChannelFree`] is scheduled at `free_at` (otherwise the release is applied by
    /// whoever next looks at the router, [`Network::settle`]).
    scheduled: bool,
    /// Virtual channel to look at first (round robin).
    rr: u8,
    /// The link is a torus wrap-around ([`WRAP`]) or a dragonfly global link ([`GLOBAL`]).
    flags: u8,
    /// When the tail leaves, in picoseconds.
    free_at: u64,
    /// When the earliest [`Event::HeadReady`] scheduled for this channel is (`u64::MAX`: none),
    /// in picoseconds.
    wake_at: u64,
    /// The router the link leads to (fixed by the topology); `NONE` for a NIC, or where there
    /// is no link.
    next: RouterId,
    /// Credit to give back when the current tail has left: the channel that feeds the buffer
    /// the packet held (its credit lives there), or [`STAGING`] for a NIC's staging slot; and
    /// `bytes << 2 | virtual channel`, or `NONE` when there is nothing to give back.
    releasing_up: u32,
    releasing: u32,
    /// What the last release applied freed, for its event (which wakes that buffer's feeder,
    /// when the release was applied before the event was taken): the buffer's feeder,
    /// [`STAGING`], or `NONE`.
    released_up: u32,
    // ---- second line: the buffer this channel feeds, and counters
    /// Free bytes of the buffer this channel feeds, per virtual channel (a NIC's receive
    /// buffer is VC 0; VCs the buffer does not have stay full of credit).
    credit: [u32; MAX_VCS],
    /// The most bytes that buffer (all its virtual channels) ever held.
    occ_peak: u32,
    /// Σ change × time of change of the bytes held (byte·ps): the integral of the occupancy
    /// `occ` from 0 to `T` is then `occ·T − occ_moment`, one multiply-add per change.
    occ_moment: i128,
    /// Bytes sent over this channel (payload and headers).
    bytes: u64,
    /// Time this channel spent sending, in picoseconds.
    busy_ps: u64,
    /// Packets sent over this channel (saturating: a link would carry 2³² packets only in a run
    /// of tens of simulated seconds at full load, trillions of events).
    packets: u32,
    /// The channel is idle with a ready packet that has no credit in the buffer it feeds
    /// (backpressure). Kept beside that buffer's credit: the send that frees credit there asks
    /// it, and the release that gives the credit back follows.
    blocked: bool,
    /// Time under backpressure (ps), as Σ end − Σ start of its spells: a spell's start is
    /// subtracted when it begins and its end added when the send that ends it (which holds
    /// this line already) goes, so an open spell's time so far is `blocked_ps + now` (kept
    /// here, not in a side table, to spare that send a cache miss).
    blocked_ps: i64,
}

const _: () = assert!(std::mem::size_of::<Channel>() == 128);

impl Channel {
    /// The bytes its pending release gives back to virtual channel `vc` of the buffer `feeder`
    /// feeds, if that is where it goes.
    #[inline]
    fn releases_into(&self, feeder: u32, vc: u32) -> Option<u32> {
        let into = self.releasing != NONE && self.releasing_up == feeder;
        (into && self.releasing & 3 == vc).then_some(self.releasing >> 2)
    }

    /// Bytes held now in the buffer this channel feeds, all virtual channels (`cap`: bytes of
    /// one buffer).
    #[inline]
    fn occ(&self, cap: u32) -> u32 {
        let free: u64 = self.credit.iter().map(|&c| c as u64).sum();
        (MAX_VCS as u64 * cap as u64 - free) as u32
    }
}

/// Mesh and torus: the hop from router `at`, on virtual channel `vc` and correcting dimension
/// `dim`, of a packet to NIC `dst` (`tpr` NICs per router).
#[inline]
fn cube_hop(cube: &Cube, tpr: u32, at: RouterId, dst: u32, vc: u8, dim: u8) -> Hop {
    cube.route(at, dst / tpr, (dst % tpr) as u8, vc, dim)
}

/// What one direction of one link carried in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkLoad {
    /// The router (or, for an injection link, the NIC) the link leaves.
    pub from: u32,
    /// Its port there (the first ports of a router lead to its NICs; `None` for a NIC's
    /// injection link).
    pub port: Option<u8>,
    /// Bytes sent (payload and headers).
    pub bytes: u64,
    /// Time spent sending.
    pub busy: Time,
    /// Packets sent.
    pub packets: u64,
    /// Time idle with a packet waiting for credit in the next buffer.
    pub credit_blocked: Time,
    /// The buffer this link feeds (at its far end): most bytes it held at once, and bytes
    /// held integrated over time (byte·ps; divide by the run's time for the mean).
    pub peak_occupancy: u32,
    pub occupancy_area: u128,
    /// Time in low power, and wake-ups (zero without `[power]`).
    pub low_power: Time,
    pub wakeups: u64,
    /// Where it leads: a router, or (`to_nic`) a NIC.
    pub to: u32,
    pub to_nic: bool,
}

/// Totals of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetworkStats {
    /// Channel traversals: one per packet per link crossed, NIC links included.
    pub packet_hops: u64,
    /// Bytes (payload and headers) summed over every link crossed.
    pub link_bytes: u64,
    /// Traversals of router-to-router links that wrap around a torus.
    pub wrap_hops: u64,
    /// Traversals of global links between dragonfly groups.
    pub global_hops: u64,
    /// Packets a dragonfly's UGAL sent on a Valiant route.
    pub nonminimal: u64,
}

/// The routers and links of one network.
pub struct Network {
    pub topo: Topo,
    ports: u32,
    vcs: u32,
    routers: u32,
    /// Router channels (`routers × ports`): channels from here on are NICs' injection links.
    nr: u32,
    /// NIC ports per router with NICs (`T`): terminal `t` is port `t % T` of router `t / T`.
    tpr: u32,
    /// Routers `0..term_routers` have NIC ports.
    term_routers: u32,
    /// Per router channel `r·ports + q`: the port slot `r'·ports + q'` its link arrives on
    /// (`NONE` where there is no link or the port is a NIC's). Links pair up, so the same
    /// number is the channel that feeds slot `r·ports + q`.
    link_to: Vec<u32>,
    channels: Vec<Channel>,
    /// Per router: the ports whose channel is busy (a tail leaving, or left and its release
    /// not applied yet), and when each tail leaves.
    pending: Pending,
    /// Bytes of one buffer.
    capacity: u32,
    /// Routes are fixed (mesh, torus): a packet is routed and queued at its next router when
    /// it is sent, and needs no event of its own there (see the module's doc).
    early: bool,
    /// Links of the queues not written into their packets yet, while `link_later` (see
    /// "Linked later").
    links: Links,
    link_later: bool,
    pub packets: PacketPool,
    router_delay: Time,
    cable: Time,
    router_bw: Bandwidth,
    inject_bw: Bandwidth,
    /// The serialization time of the last packet size seen on router and on injection
    /// channels: (wire bytes, time). Packets are nearly all full-sized, so this spares a
    /// division per hop.
    memo: [(u32, Time); 2],
    /// Random route choices (fat tree `random`, dragonfly Valiant and UGAL), seeded from the
    /// workload seed so runs repeat.
    rng: Xoshiro,
    pub stats: NetworkStats,
    /// Time × space statistics, when asked for (`--interval`).
    pub series: Option<Box<LinkSeries>>,
    /// Buffer usage history of chosen routers, when asked for (`--buffer-history`).
    pub history: Option<Box<BufferHistory>>,
    /// Links that sleep when idle (`[power]` enabled).
    pub power: Option<Box<Power>>,
}

impl Network {
    pub fn new(s: &Scenario) -> Network {
        let topo = Topo::new(&s.network, s.node.nics_per_node);
        let routers = topo.routers();
        let ports = topo.ports() as u32;
        let vcs = topo.vcs() as u32;
        let tpr = topo.terminals_per_router();
        let term_routers = topo.terminal_routers();
        let terminals = topo.terminals();
        let mut link_to = Vec::with_capacity((routers * ports) as usize);
        for r in 0..routers {
            for q in 0..ports {
                link_to.push(match topo.neighbour(r, q as u8) {
                    Some((n, back)) => n * ports + back as u32,
                    None => NONE,
                });
            }
        }
        let nchan = (routers * ports + terminals) as usize;
        let cap = s.network.buffer_bytes.0 as u32;
        let channel = Channel {
            queues: [EMPTY; MAX_VCS],
            queued: 0,
            busy: false,
            scheduled: false,
            rr: 0,
            flags: 0,
            free_at: 0,
            wake_at: u64::MAX,
            next: NONE,
            releasing_up: NONE,
            releasing: NONE,
            released_up: NONE,
            credit: [cap; MAX_VCS],
            occ_peak: 0,
            occ_moment: 0,
            bytes: 0,
            busy_ps: 0,
            packets: 0,
            blocked: false,
            blocked_ps: 0,
        };
        let net = &s.network;
        let seed = s.jobs.first().map_or(0, |j| j.workload.seed);
        let early = matches!(topo, Topo::Cube(_));
        let mut net = Network {
            pending: Pending::new(routers, ports),
            topo,
            ports,
            vcs,
            routers,
            nr: routers * ports,
            tpr,
            term_routers,
            link_to,
            channels: vec![channel; nchan],
            capacity: cap,
            early,
            links: Links::default(),
            link_later: false,
            packets: PacketPool::default(),
            router_delay: net.router_delay(),
            cable: net.cable_latency,
            router_bw: net.link_bandwidth.min(net.switch_bandwidth),
            inject_bw: s
                .node
                .nic_bandwidth
                .unwrap_or(net.link_bandwidth)
                .min(net.link_bandwidth),
            memo: [(0, Time::ZERO); 2],
            rng: Xoshiro::from_seed(seed ^ 0x6e65_7477_6f72_6b21),
            stats: NetworkStats::default(),
            series: None,
            history: None,
            power: s
                .power
                .as_ref()
                .filter(|p| p.enabled)
                .map(|p| Box::new(Power::new(p.t_sleep.ps(), p.t_wake.ps(), nchan))),
        };
        net.wire();
        net
    }

    /// Writes into every channel where its link leads, so that the hot path looks it up
    /// instead of dividing channel numbers by ports.
    fn wire(&mut self) {
        let nr = self.nr;
        for c in 0..self.channels.len() as u32 {
            let next = self.slot_fed(c).map_or(NONE, |slot| slot / self.ports);
            let mut flags = 0;
            if c < nr {
                let (r, q) = (c / self.ports, (c % self.ports) as u8);
                if self.topo.wraps(r, q) {
                    flags |= WRAP;
                }
                if self.topo.is_global(q) {
                    flags |= GLOBAL;
                }
            }
            let ch = &mut self.channels[c as usize];
            (ch.next, ch.flags) = (next, flags);
        }
    }

    /// The router port slot (`router · ports + port`) whose input buffers channel `c` feeds:
    /// `None` for a link into a NIC, or where there is no link.
    fn slot_fed(&self, c: u32) -> Option<u32> {
        if c >= self.nr {
            Some(self.nic_slot(c - self.nr))
        } else if self.nic_on(c).is_some() {
            None
        } else {
            Some(self.link_to[c as usize]).filter(|&n| n != NONE)
        }
    }

    /// At the end of the run (`now`): applies every pending release, and counts the low power
    /// of links still asleep.
    pub fn settle_all(&mut self, now: Time) {
        for r in 0..self.routers {
            self.settle(r, now);
        }
        for c in self.nr..self.channels.len() as u32 {
            let ch = &self.channels[c as usize];
            if ch.busy && ch.free_at <= now.ps() {
                self.apply(c);
            }
        }
        let Some(pw) = self.power.as_deref_mut() else {
            return;
        };
        let ch = &self.channels;
        let slept = pw.settle(now.ps(), |c| ch[c as usize].busy);
        if let Some(s) = self.series.as_deref_mut() {
            for (c, from) in slept {
                s.low(c, from, now.ps());
            }
        }
    }

    /// Bytes of the state a hop reads: the channels, and the packets at the most the network
    /// has held at once (the packet pool never shrinks).
    pub fn footprint(&self) -> usize {
        self.channels.len() * std::mem::size_of::<Channel>()
            + self.packets.peak() * std::mem::size_of::<super::packet::Packet>()
    }

    /// Channels (by number) in the series' table: every channel, links or not.
    pub fn channels(&self) -> usize {
        self.channels.len()
    }

    /// Routers in the network.
    pub fn routers(&self) -> u32 {
        self.routers
    }

    /// The bytes held in the buffer channel `c` feeds have changed by `delta` at `now` (its
    /// credit already says so).
    #[inline]
    fn occupy(&mut self, c: u32, now: Time, delta: i64) {
        let ch = &mut self.channels[c as usize];
        let t = now.ps();
        if let Some(s) = &mut self.series {
            s.occupancy(c, (ch.occ(self.capacity) as i64 - delta) as u32, t);
        }
        ch.occ_moment += delta as i128 * t as i128;
        if delta > 0 {
            ch.occ_peak = ch.occ_peak.max(ch.occ(self.capacity));
        }
    }

    /// Channel of port `q` of router `r`.
    #[inline]
    fn router_channel(&self, r: RouterId, q: u32) -> u32 {
        r * self.ports + q
    }
    /// Injection channel of NIC (terminal) `nic`.
    #[inline]
    pub fn injection_channel(&self, nic: u32) -> u32 {
        self.routers * self.ports + nic
    }
    /// The router port slot NIC `nic` is attached to.
    #[inline]
    fn nic_slot(&self, nic: u32) -> u32 {
        (nic / self.tpr) * self.ports + nic % self.tpr
    }
    /// The NIC on router channel (or port slot) `c`, if it is a NIC port.
    #[inline]
    fn nic_on(&self, c: u32) -> Option<u32> {
        let (r, q) = (c / self.ports, c % self.ports);
        (r < self.term_routers && q < self.tpr).then_some(r * self.tpr + q)
    }

    /// Packets NIC `nic` holds staged at `now`: those queued on its injection channel, and the
    /// one whose tail is still leaving it. (A tail that has left frees its slot at that
    /// picosecond, whether or not the release has been applied: it is an event only when a
    /// staged packet waits behind it; see `send`.)
    #[inline]
    pub fn staged(&self, nic: u32, now: Time) -> u32 {
        let ch = &self.channels[self.injection_channel(nic) as usize];
        let leaving = ch.busy && (ch.free_at > now.ps() || ch.scheduled) && ch.releasing != NONE;
        ch.queued + leaving as u32
    }

    /// Puts a packet whose payload is in its NIC (tail there at `now`) into the NIC's
    /// injection queue.
    pub fn inject(&mut self, nic: u32, pkt: PktId, now: Time, q: &mut EventQueue<Event>) {
        let p = self.packets.get_mut(pkt);
        p.tail = now;
        p.ready = now;
        p.from = STAGING;
        p.vc = 0;
        p.at = nic;
        let c = self.injection_channel(nic);
        self.enqueue(c, 0, pkt);
        self.try_send(c, now, q);
    }

    /// A packet's head has passed the pipeline of router `p.at`: route it and queue it (fat
    /// tree and dragonfly, whose routes depend on the moment; see the module's doc).
    pub fn router_ready(&mut self, pkt: PktId, now: Time, q: &mut EventQueue<Event>) {
        self.packets.get_mut(pkt).ready = now;
        let (c, vc) = self.route(pkt, now);
        self.enqueue(c, vc, pkt);
        self.try_send(c, now, q);
    }

    /// An idle channel's queued packet has become ready ([`Event::HeadReady`]).
    pub fn head_ready(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) {
        let ch = &mut self.channels[c as usize];
        if ch.wake_at == now.ps() {
            ch.wake_at = u64::MAX;
        }
        self.try_send(c, now, q);
    }

    /// Packet `pkt`, just sent towards router `p.at`, is queued there for its next channel
    /// now; its head is ready at `ready`. Something must look at that channel no later than
    /// when the packet could leave: its tail's event if it is busy until then, else a wake-up.
    fn arrive_early(&mut self, pkt: PktId, ready: Time, hop: Hop, q: &mut EventQueue<Event>) {
        self.packets.get_mut(pkt).ready = ready;
        let (c, vc) = self.follow(pkt, hop);
        let head = self.enqueue(c, vc, pkt);
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

    /// Prefetches what event `ev` reads first: its channel's two lines, or its packet. Called
    /// a few events before `ev` is taken ([`crate::perf::prefetch`]).
    #[inline]
    pub fn prefetch_far(&self, ev: &Event) {
        match *ev {
            Event::HeadReady(c) | Event::ChannelFree(c) => {
                self.prefetch_channel(c);
                if c < self.nr {
                    // the releases of its own router, which a busy channel settles
                    self.pending.prefetch(c / self.ports);
                }
            }
            Event::RouterReady(p)
            | Event::NicArrive(p)
            | Event::RxDmaDone(p)
            | Event::TxDmaDone(p) => prefetch(self.packets.get(p)),
            _ => {}
        }
    }

    /// Prefetches what event `ev` reads next, once [`Network::prefetch_far`] has brought in
    /// its channel or packet: the heads of that channel's queues, and the channel whose
    /// credit the event gives back (which it then tries to send on).
    #[inline]
    pub fn prefetch_near(&self, ev: &Event) {
        match *ev {
            Event::HeadReady(c) | Event::ChannelFree(c) => {
                if let Some(ch) = self.channels.get(c as usize) {
                    if ch.next != NONE {
                        // the releases into the buffers it feeds, which a send settles first
                        self.pending.prefetch(ch.next);
                    }
                    self.prefetch_heads(ch);
                    self.prefetch_channel(Self::waking(ch));
                }
            }
            Event::RxDmaDone(p) => self.prefetch_channel(self.packets.get(p).from),
            _ => {}
        }
    }

    /// Prefetches what event `ev` reads last, once [`Network::prefetch_near`] has brought in
    /// the channel it gives credit back to: the heads of that channel's queues.
    #[inline]
    pub fn prefetch_close(&self, ev: &Event) {
        let up = match *ev {
            Event::ChannelFree(c) => self.channels.get(c as usize).map_or(NONE, Self::waking),
            Event::RxDmaDone(p) => self.packets.get(p).from,
            _ => return,
        };
        if let Some(ch) = self.channels.get(up as usize) {
            self.prefetch_heads(ch);
        }
    }

    /// The channel whose credit a [`Event::ChannelFree`] for `ch` gives back (by its release,
    /// pending or applied), which it then tries to send on: `NONE` or [`STAGING`] if none.
    #[inline]
    fn waking(ch: &Channel) -> u32 {
        if ch.releasing != NONE {
            ch.releasing_up
        } else {
            ch.released_up
        }
    }

    /// Prefetches both lines of channel `c`, if it is one (not `NONE` or [`STAGING`]).
    #[inline]
    fn prefetch_channel(&self, c: u32) {
        if let Some(ch) = self.channels.get(c as usize) {
            prefetch(ch);
            prefetch(&ch.credit);
        }
    }

    /// Prefetches the head packets of `ch`'s queues.
    #[inline]
    fn prefetch_heads(&self, ch: &Channel) {
        for f in &ch.queues[..self.vcs as usize] {
            if f.head != NONE {
                prefetch(self.packets.get(f.head));
            }
        }
    }

    /// Schedules an [`Event::HeadReady`] for channel `c` at `at`, unless one is pending no
    /// later.
    #[inline]
    fn wake(&mut self, c: u32, at: Time, q: &mut EventQueue<Event>) {
        let ch = &mut self.channels[c as usize];
        if at.ps() < ch.wake_at {
            ch.wake_at = at.ps();
            q.push(at, Event::HeadReady(c));
        }
    }

    /// Routes packet `pkt` at router `p.at` (at time `now`): the channel it leaves by and the
    /// virtual channel it takes there (also written into the packet).
    #[inline]
    fn route(&mut self, pkt: PktId, now: Time) -> (u32, usize) {
        let hop = self.next_hop(pkt, now);
        self.follow(pkt, hop)
    }

    /// The hop packet `pkt` takes from router `p.at` (at time `now`).
    #[inline]
    fn next_hop(&mut self, pkt: PktId, now: Time) -> Hop {
        let p = *self.packets.get(pkt);
        match &self.topo {
            Topo::Cube(c) => cube_hop(c, self.tpr, p.at, p.dst, p.vc, p.dim),
            Topo::FatTree(f) => {
                let rng = &mut self.rng;
                f.route(p.at, p.src, p.dst, || rng.next_u64())
            }
            Topo::Dragonfly(_) => {
                let aux = if p.aux == 0 {
                    self.dragonfly_choice(p.at, p.dst, now.ps())
                } else {
                    p.aux
                };
                let Topo::Dragonfly(d) = &self.topo else {
                    unreachable!()
                };
                d.route(p.at, p.dst, p.vc, aux)
            }
        }
    }

    /// Packet `pkt` takes hop `hop` from router `p.at`: the channel it leaves by and the
    /// virtual channel it takes there (also written into the packet).
    #[inline]
    fn follow(&mut self, pkt: PktId, hop: Hop) -> (u32, usize) {
        let pm = self.packets.get_mut(pkt);
        let at = pm.at;
        if hop.dim != NO_DIM {
            pm.dim = hop.dim;
        }
        pm.aux = hop.aux;
        pm.vc = hop.vc;
        (self.router_channel(at, hop.port as u32), hop.vc as usize)
    }

    /// The route a dragonfly packet takes from its source router: minimal, Valiant through a
    /// random group, or (UGAL-L) whichever has the smaller product of queue on its first hop
    /// and path length.
    fn dragonfly_choice(&mut self, at: RouterId, dst: u32, now: u64) -> u16 {
        let Topo::Dragonfly(d) = &self.topo else {
            return 0;
        };
        match d.routing {
            DragonflyRouting::Minimal => dragonfly::MINIMAL,
            DragonflyRouting::Valiant => d.valiant(at, dst, self.rng.next_u64()),
            DragonflyRouting::Ugal => {
                let via = d.valiant(at, dst, self.rng.next_u64());
                if via == dragonfly::MINIMAL {
                    return via;
                }
                let cost = |aux: u16| {
                    let first = d.route(at, dst, 0, aux).port as u32;
                    let ch = &self.channels[(at * self.ports + first) as usize];
                    let (l, g) = d.path_length(at, dst, aux);
                    (ch.queued as u64 + (ch.busy && ch.free_at > now) as u64) * (l + g) as u64
                };
                if cost(dragonfly::MINIMAL) <= cost(via) {
                    dragonfly::MINIMAL
                } else {
                    self.stats.nonminimal += 1;
                    via
                }
            }
        }
    }

    /// Channel `c`'s tail has left (its scheduled event). Returns the NIC whose transmit staging
    /// slot was freed, if that is what the packet held.
    pub fn channel_free(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) -> Option<u32> {
        let nr = self.nr;
        let ch = &mut self.channels[c as usize];
        // (when `free_at` is later, the release was applied at its time and the channel already
        // carries the next packet, which has its own event if it needs one)
        let current = ch.free_at == now.ps();
        if current && ch.busy {
            if c < nr {
                // with the releases of this router that came due, in time order
                self.settle(c / self.ports, now);
            } else {
                self.apply(c);
            }
        }
        // the release this event was for, applied now or earlier at this picosecond
        let up = self.channels[c as usize].released_up;
        if up != NONE && up != STAGING {
            self.try_send(up, now, q);
        }
        // (only now: a packet that `up` sends may be queued here, and counts on this look)
        if current {
            self.channels[c as usize].scheduled = false;
        }
        self.try_send(c, now, q);
        (up == STAGING).then_some(c - nr)
    }

    /// Applies channel `c`'s release at the time its tail left: the channel is idle and the
    /// buffer its packet held gets its credit back.
    #[inline]
    fn apply(&mut self, c: u32) {
        let ch = &mut self.channels[c as usize];
        let at = Time(ch.free_at);
        ch.busy = false;
        let (up, rel) = (ch.releasing_up, ch.releasing);
        ch.releasing = NONE;
        // (a link that only woke up released nothing)
        ch.released_up = if rel == NONE { NONE } else { up };
        if let Some(pw) = self.power.as_deref_mut() {
            pw.idle(c, at.ps());
        }
        if rel != NONE && up != STAGING {
            let bytes = rel >> 2;
            self.channels[up as usize].credit[(rel & 3) as usize] += bytes;
            self.occupy(up, at, -(bytes as i64));
        }
    }

    /// Applies the releases of router `r` whose tails have left by `now`; in time order when a
    /// time series is recorded (its occupancy is integrated piece by piece).
    #[inline]
    fn settle(&mut self, r: RouterId, now: Time) {
        let now = now.ps();
        for w in 0..self.pending.bit_words() {
            let due = self.pending.due(r, w, now);
            if due == 0 {
                continue;
            }
            if self.series.is_some() {
                self.settle_in_order(r, now);
                return;
            }
            let mut bits = due;
            while bits != 0 {
                let port = (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                self.pending.clear(r, port);
                self.apply(r * self.ports + port);
            }
        }
    }

    /// [`Network::settle`] one release at a time, earliest first (then by port), for the time
    /// series.
    fn settle_in_order(&mut self, r: RouterId, now: u64) {
        loop {
            let mut first: Option<(u64, u32)> = None;
            for w in 0..self.pending.bit_words() {
                let mut bits = self.pending.due(r, w, now);
                while bits != 0 {
                    let port = (w * 64) as u32 + bits.trailing_zeros();
                    bits &= bits - 1;
                    let t = self.pending.time(r, port);
                    if first.map_or(true, |f| (t, port) < f) {
                        first = Some((t, port));
                    }
                }
            }
            let Some((_, port)) = first else { return };
            self.pending.clear(r, port);
            self.apply(r * self.ports + port);
        }
    }

    /// Router channel `c`'s pending release becomes an event (something now waits for it).
    #[inline]
    fn schedule(&mut self, c: u32, q: &mut EventQueue<Event>) {
        let ch = &mut self.channels[c as usize];
        ch.scheduled = true;
        q.push(Time(ch.free_at), Event::ChannelFree(c));
    }

    /// Channel `feeder` waits for credit in virtual channel `vc` of the buffer it feeds (in
    /// router `r`): every pending release into that buffer becomes an event, so that it is
    /// woken when the credit comes back.
    fn wake_releases(&mut self, r: RouterId, feeder: u32, vc: u32, q: &mut EventQueue<Event>) {
        for w in 0..self.pending.bit_words() {
            let mut bits = self.pending.busy(r, w);
            while bits != 0 {
                let c = r * self.ports + (w * 64) as u32 + bits.trailing_zeros();
                bits &= bits - 1;
                let ch = &self.channels[c as usize];
                if !ch.scheduled && ch.releases_into(feeder, vc).is_some() {
                    self.schedule(c, q);
                }
            }
        }
    }

    /// A NIC has taken a packet out of its receive buffer: give the credit back to the router.
    pub fn release_rx(&mut self, pkt: PktId, now: Time, q: &mut EventQueue<Event>) {
        let p = self.packets.get(pkt);
        if p.from == NONE {
            return; // a loopback packet never held network credit
        }
        let (wire, up) = (p.wire, p.from);
        self.channels[up as usize].credit[p.held_vc as usize] += wire;
        self.occupy(up, now, -(wire as i64));
        self.try_send(up, now, q);
    }

    /// Queues `pkt` for channel `c`, virtual channel `vc`; true if it is the head of that
    /// queue.
    #[inline]
    fn enqueue(&mut self, c: u32, vc: usize, pkt: PktId) -> bool {
        self.packets.get_mut(pkt).next = NONE;
        self.channels[c as usize].queued += 1;
        let f = &mut self.channels[c as usize].queues[vc];
        let head = f.tail == NONE;
        let tail = f.tail;
        f.tail = pkt;
        if head {
            f.head = pkt;
        } else {
            let link = Link {
                tail,
                after: pkt,
                ready: self.packets.get(pkt).ready,
            };
            if self.link_later {
                prefetch(self.packets.get(tail));
                self.links.push(link);
                if self.links.len() > LINK_AFTER {
                    if let Some(l) = self.links.pop() {
                        self.write_link(l);
                    }
                }
            } else {
                self.write_link(link);
            }
        }
        head
    }

    /// Writes link `l` into its tail packet.
    #[inline]
    fn write_link(&mut self, l: Link) {
        let tp = self.packets.get_mut(l.tail);
        tp.next = l.after;
        tp.next_ready = l.ready;
    }

    /// Writes the links of the queues into their packets a few queuings late, or at once (see
    /// "Linked later" in the module's doc): worth it when the packets do not fit in the caches.
    pub fn link_later(&mut self, on: bool) {
        if !on {
            while !self.links.is_empty() {
                if let Some(l) = self.links.pop() {
                    self.write_link(l);
                }
            }
        }
        self.link_later = on;
    }

    /// Starts the next packet on channel `c` if the channel is idle and a queued packet has
    /// credit in the buffer it goes to.
    fn try_send(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) {
        let ch = &self.channels[c as usize];
        if ch.queued == 0 {
            // nothing to send: a release that came due stays pending, for the next look
            return;
        }
        if ch.busy {
            // (an injection channel whose release is an event waits for it, even at its
            // picosecond: the event also lets its NIC's DMA go on)
            let inject = c >= self.nr;
            if ch.free_at > now.ps() || (inject && ch.scheduled) {
                // (a queued packet waits for the tail: the release becomes an event)
                if !ch.scheduled {
                    self.schedule(c, q);
                }
                return;
            }
            // its tail has left: apply that (and the router's other releases due; an injection
            // channel's release frees a staging slot of its NIC, which counts them from here)
            if !inject {
                self.settle(c / self.ports, now);
            } else {
                self.apply(c);
            }
        }
        let vcs = self.vcs;
        let mut next_vc = self.channels[c as usize].rr as u32;
        let mut settled = false;
        // the earliest time a head that is not ready yet will be (ps), and whether a ready
        // head lacks credit
        let mut later = u64::MAX;
        let mut starved = false;
        for _ in 0..vcs {
            let vc = next_vc;
            next_vc = if vc + 1 == vcs { 0 } else { vc + 1 };
            let head = self.channels[c as usize].queues[vc as usize].head;
            if head == NONE {
                continue;
            }
            let p = self.packets.get(head);
            let (wire, ready) = (p.wire, p.ready.ps());
            if ready > now.ps() {
                later = later.min(ready);
                continue;
            }
            let next_router = self.channels[c as usize].next;
            if !settled && next_router != NONE {
                // releases into the next router's buffers that came due
                self.settle(next_router, now);
                settled = true;
            }
            // (a NIC has one receive buffer, whatever VC the packet came on)
            let vc_in = if next_router == NONE { 0 } else { vc };
            if self.channels[c as usize].credit[vc_in as usize] < wire {
                starved = true;
                if next_router != NONE {
                    self.wake_releases(next_router, c, vc, q);
                }
                continue;
            }
            if let Some(pw) = self.power.as_deref_mut() {
                if let Ready::Wake { slept, until } = pw.ready(c, now.ps()) {
                    // asleep: it wakes first; this packet and those behind it wait
                    if let Some(s) = self.series.as_deref_mut() {
                        s.low(c, slept, now.ps());
                    }
                    let ch = &mut self.channels[c as usize];
                    ch.busy = true;
                    ch.scheduled = true;
                    ch.free_at = until;
                    q.push(Time(until), Event::ChannelFree(c));
                    if c < self.nr {
                        self.pending.mark(c / self.ports, c % self.ports, until);
                    }
                    return;
                }
            }
            self.send(c, vc, head, next_router, now, q);
            return;
        }
        if later != u64::MAX {
            self.wake(c, Time(later), q);
        }
        let ch = &mut self.channels[c as usize];
        if starved && !ch.blocked {
            ch.blocked = true;
            ch.blocked_ps -= now.ps() as i64;
        }
    }

    /// Starts packet `pkt`, the head of queue `vc` of idle channel `c`, whose next buffer has
    /// credit for it.
    #[inline]
    fn send(
        &mut self,
        c: u32,
        vc: u32,
        pkt: PktId,
        next_router: RouterId,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let is_router = c < self.nr;
        let (bw, pipeline) = if is_router {
            (self.router_bw, self.router_delay)
        } else {
            (self.inject_bw, Time::ZERO)
        };
        let mut p = *self.packets.get(pkt);
        if !self.links.is_empty() {
            // the link to the packet queued behind this one may not be written yet
            if let Some(l) = self.links.take(pkt) {
                (p.next, p.next_ready) = (l.after, l.ready);
            }
        }
        // mesh and torus: the hop after this one is fixed already, and the packet is queued
        // for it at the end of this send; its channel's line is asked for now
        let ahead = match &self.topo {
            Topo::Cube(cube) if self.early && next_router != NONE => {
                let hop = cube_hop(cube, self.tpr, next_router, p.dst, vc as u8, p.dim);
                let c = self.router_channel(next_router, hop.port as u32);
                prefetch(&self.channels[c as usize]);
                Some(hop)
            }
            _ => None,
        };
        let memo = &mut self.memo[!is_router as usize];
        if memo.0 != p.wire {
            *memo = (p.wire, bw.transfer_time(Bytes(p.wire as u64)));
        }
        let serialize = memo.1;
        // dequeue
        let ch = &mut self.channels[c as usize];
        ch.queued -= 1;
        let f = &mut ch.queues[vc as usize];
        f.head = p.next;
        if f.head == NONE {
            f.tail = NONE;
        }
        // the virtual channel of the buffer it enters: a NIC has only one
        let vc_in = if next_router == NONE { 0 } else { vc };
        ch.credit[vc_in as usize] -= p.wire;
        // (at least a picosecond, even for a packet of no bytes at all: a channel releases at
        // most once per picosecond, and its event names that one release)
        let tail_leaves = (now + serialize).max(p.tail + pipeline).max(now + Time(1));
        ch.busy = true;
        ch.free_at = tail_leaves.ps();
        ch.rr = if vc + 1 == self.vcs { 0 } else { vc as u8 + 1 };
        ch.releasing = p.wire << 2 | p.held_vc as u32;
        ch.releasing_up = p.from;
        let flags = ch.flags;
        ch.bytes += p.wire as u64;
        ch.busy_ps += (tail_leaves - now).ps();
        ch.packets = ch.packets.saturating_add(1);
        if ch.blocked {
            ch.blocked = false;
            ch.blocked_ps += now.ps() as i64;
        }
        // an event for the tail only if something will wait for it (see the module's doc): a
        // packet queued here that is ready by then, or one at the channel that feeds the buffer
        // this packet frees that has no credit now (a packet queued there that is not ready,
        // or is and has credit, is woken by other means; if it runs out of credit later, it
        // schedules this release then). Packets queued here that are ready only later need a
        // wake-up at the first of them instead.
        // (the queue is asked first, as its lines are at hand: under congestion it has a ready
        // packet, and the feeder's line is then not read)
        // An injection channel's release frees a staging slot of its NIC: only a packet staged
        // behind this one waits for it (the NIC's DMA waits for a slot only while one is, as it
        // has STAGING_SLOTS = 2: this packet's and the queued one's).
        let queued = ch.queued > 0;
        let mut waited = queued;
        if is_router {
            let mut wake = u64::MAX;
            if queued {
                // (the packet behind this one says when it is ready: only the heads of the
                // other virtual channels are read)
                let mut first = if p.next == NONE {
                    u64::MAX
                } else {
                    p.next_ready.ps()
                };
                if first > tail_leaves.ps() {
                    for (v, f) in self.channels[c as usize].queues[..self.vcs as usize]
                        .iter()
                        .enumerate()
                    {
                        if v != vc as usize && f.head != NONE {
                            first = first.min(self.packets.get(f.head).ready.ps());
                        }
                    }
                }
                waited = first <= tail_leaves.ps();
                if !waited {
                    wake = first;
                }
            }
            // (a packet at a router came by a channel: `from` is neither NONE nor STAGING)
            if !waited {
                if self.channels[p.from as usize].blocked {
                    waited = true;
                } else if wake != u64::MAX {
                    self.wake(c, Time(wake), q);
                }
            }
        }
        self.channels[c as usize].scheduled = waited;
        if waited {
            q.push(tail_leaves, Event::ChannelFree(c));
        }
        if is_router {
            // (a packet leaves by a channel of the router it is at)
            self.pending
                .mark(p.at, c - p.at * self.ports, tail_leaves.ps());
        }
        self.occupy(c, now, p.wire as i64);
        if let Some(s) = &mut self.series {
            s.sent(c, now.ps(), tail_leaves.ps(), p.wire as u64);
        }
        if self.history.is_some() {
            let slot = self.slot_fed(c).unwrap_or(NONE);
            let h = self.history.as_deref_mut().expect("checked");
            if is_router && h.watches(c / self.ports) {
                h.depart(pkt, (c % self.ports) as u8, now.ps(), tail_leaves.ps());
            }
            if next_router != NONE && h.watches(next_router) {
                let ch = &self.channels[c as usize];
                h.arrive(
                    pkt,
                    Stay {
                        router: next_router,
                        in_port: (slot % self.ports) as u8,
                        vc: vc as u8,
                        src: p.src,
                        dst: p.dst,
                        bytes: p.wire,
                        arrive_ps: (now + self.cable).ps(),
                        occupancy: self.capacity - ch.credit[vc as usize],
                        depart_ps: None,
                        out_port: None,
                        freed_ps: None,
                    },
                );
            }
        }
        self.stats.packet_hops += 1;
        self.stats.link_bytes += p.wire as u64;
        let head_arrives = now + self.cable;
        let pm = self.packets.get_mut(pkt);
        pm.tail = tail_leaves + self.cable;
        pm.held_vc = vc_in as u8;
        pm.from = c;
        if next_router == NONE {
            // ejection into the destination NIC: it acts once the whole packet is in
            q.push(pm.tail, Event::NicArrive(pkt));
        } else {
            self.stats.wrap_hops += (flags & WRAP != 0) as u64;
            self.stats.global_hops += (flags & GLOBAL != 0) as u64;
            let pm = self.packets.get_mut(pkt);
            pm.at = next_router;
            pm.vc = vc as u8;
            let ready = head_arrives + self.router_delay;
            if let Some(hop) = ahead {
                self.arrive_early(pkt, ready, hop, q);
            } else {
                q.push(ready, Event::RouterReady(pkt));
            }
        }
    }

    /// A channel that was idle at the end of picosecond `t` while the head of one of its
    /// queues was ready and the buffer it goes to had room for it, counting the releases due
    /// by then (see [`crate::Simulation::self_check`]); `None` if there is none. Not checked
    /// with `[power]` (a sleeping link waits on purpose).
    pub fn stalled(&self, t: Time) -> Option<String> {
        if self.power.is_some() {
            return None;
        }
        let t = t.ps();
        for (c, ch) in self.channels.iter().enumerate() {
            if ch.busy && ch.free_at > t {
                continue;
            }
            for vc in 0..self.vcs as usize {
                let head = ch.queues[vc].head;
                if head == NONE || self.packets.get(head).ready.ps() > t {
                    continue;
                }
                let vc_in = if ch.next == NONE { 0 } else { vc };
                let mut room = ch.credit[vc_in] as u64;
                if ch.next != NONE {
                    // releases into that buffer that came due and are not applied yet
                    let base = (ch.next * self.ports) as usize;
                    for d in &self.channels[base..base + self.ports as usize] {
                        if d.busy && d.free_at <= t {
                            room += d.releases_into(c as u32, vc as u32).unwrap_or(0) as u64;
                        }
                    }
                }
                let wire = self.packets.get(head).wire;
                if room >= wire as u64 {
                    return Some(format!(
                        "channel {c}, virtual channel {vc}, was idle at {} with a ready packet \
                         of {wire} B and {room} B of room downstream",
                        Time(t)
                    ));
                }
            }
        }
        None
    }

    /// The channels that are links (in the order of [`Network::link_loads`]).
    pub fn link_channels(&self) -> impl Iterator<Item = u32> + '_ {
        let nr = self.routers * self.ports;
        (0..self.channels.len() as u32).filter(move |&c| {
            c >= nr || self.nic_on(c).is_some() || self.link_to[c as usize] != NONE
        })
    }

    /// What every link that exists carried until `now`: router channels first (router by
    /// router, port by port), then the NICs' injection links.
    pub fn link_loads(&self, now: Time) -> Vec<LinkLoad> {
        let nr = self.routers * self.ports;
        self.link_channels()
            .map(|c| {
                let ch = &self.channels[c as usize];
                let (from, port) = if c < nr {
                    (c / self.ports, Some((c % self.ports) as u8))
                } else {
                    (c - nr, None)
                };
                let (to, to_nic) = if c >= nr {
                    (self.nic_slot(c - nr) / self.ports, false)
                } else if let Some(nic) = self.nic_on(c) {
                    (nic, true)
                } else {
                    (self.link_to[c as usize] / self.ports, false)
                };
                LinkLoad {
                    from,
                    port,
                    bytes: ch.bytes,
                    busy: Time(ch.busy_ps),
                    packets: ch.packets as u64,
                    // (a spell still open at `now` counts up to it)
                    credit_blocked: Time(
                        (ch.blocked_ps + if ch.blocked { now.ps() as i64 } else { 0 }) as u64,
                    ),
                    peak_occupancy: ch.occ_peak,
                    low_power: Time(
                        self.power
                            .as_ref()
                            .map_or(0, |p| p.links[c as usize].low_ps),
                    ),
                    wakeups: self
                        .power
                        .as_ref()
                        .map_or(0, |p| p.links[c as usize].wakeups),
                    occupancy_area: (ch.occ(self.capacity) as i128 * now.ps() as i128
                        - ch.occ_moment) as u128,
                    to,
                    to_nic,
                }
            })
            .collect()
    }

    /// Total buffer credit currently missing (bytes held by packets in buffers); zero when the
    /// network is empty.
    pub fn credit_in_use(&self, capacity: Bytes) -> u64 {
        self.channels
            .iter()
            .flat_map(|ch| ch.credit)
            .map(|c| capacity.0 - c as u64)
            .sum()
    }
}
