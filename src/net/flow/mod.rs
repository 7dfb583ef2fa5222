//! The flow-level network (`network.model = "flow"`, docs/model.md §3a): each message is one
//! flow over the route a packet of it would take, sharing every link direction, and its NICs'
//! transmit and receive DMA engines, with the other flows by max-min fairness
//! (`maxmin::Filling`).
//!
//! **A flow's time.** A message of `S` payload bytes handed to its NIC at `t0` moves its `S`
//! bytes at its max-min rate (payload bytes per second; on a link it weighs `wire / S`, its
//! headers included), recomputed whenever a flow starts or ends; the moving ends at `t1`. It is
//! in its destination's memory at `t1 + L − S₁ / r₀`, where `L` is the packet model's time for
//! its first packet alone (`S₁` payload bytes; DMA, every hop's serialization, cable and
//! pipeline: `Network::lone_packet`) and `r₀` its rate alone. Alone, `t1 = t0 + S / r₀`, so
//! the message takes `L + (S − S₁) / r₀`: the first packet's latency, then the rest at the
//! bottleneck's rate, as the packet model pipelines it (within a packet's serialization of it).
//! A control message (a bare header) is no flow: it takes `L`.
//!
//! **Selective update.** A start or an end changes the rates of the flows that share a
//! resource with it, directly or through other flows: its connected component, found by a
//! breadth-first walk over resources and flows, and only those are recomputed (SimGrid's
//! selective update). Every event time is an integer picosecond: a flow's end is the first
//! picosecond by which its bytes are moved at its rate, and every rate depends only on the
//! order of the flows, so runs repeat exactly.
//!
//! **What it does not see.** Buffers and credits (no backpressure, no head-of-line blocking:
//! the flows' rates are what links and DMA engines allow), packet order, and adaptive routing
//! (UGAL sees no queues and goes minimal; random up-routes and Valiant draw one route per
//! message). A link asleep (`[power]`) delays the message by its waking time.

mod ends;
pub(crate) mod maxmin;

use crate::event::Event;
use crate::net::Network;
use crate::sim::EventQueue;
use crate::units::{Bandwidth, Bytes, Time};
use ends::Ends;
use maxmin::Filling;
use std::collections::BTreeSet;

/// [`Event::FlowDone`]'s number that means "recompute the marked flows".
const RECOMPUTE: u32 = u32::MAX;
/// [`Event::FlowDone`]'s number that means "the flows whose ends are due now end": the ends
/// are kept in the model's own heap, and the engine holds one event for the earliest, so that
/// a recomputation that moves thousands of ends schedules no engine event for them.
const ENDS: u32 = u32::MAX - 1;

/// One message moving as a flow.
struct Flow {
    /// The NIC message it carries.
    msg: u32,
    /// Its resources (channels, then the transmit and receive DMA engines) and how much of
    /// each a unit of its rate uses.
    uses: Vec<(u32, f64)>,
    /// The channels among them.
    links: u32,
    /// Payload still to move as of `last`, in 10⁻¹² bytes, so that the bytes a rate in whole
    /// bytes per second moves in whole picoseconds are exact.
    left: u128,
    /// Its payload in bytes.
    payload: u64,
    /// Its max-min rate rounded to whole bytes per second (`u64::MAX`: unbounded). Flows that
    /// share a bottleneck equally move at the same pace even when their rates were computed
    /// in different recomputations (the last bits of a float can differ), and so end at the
    /// same picosecond.
    pace: u64,
    last: u64,
    /// When its bytes are moved at its current rate (ps).
    done_at: u64,
    /// From the end of the moving to the message in memory (ps).
    after: Time,
    started: Time,
    wire: u64,
    packets: u32,
    alive: bool,
}

/// Totals of the flow model's work.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FlowStats {
    /// Flows started.
    pub(crate) flows: u64,
    /// Recomputations (a flow started or ended).
    pub(crate) recomputes: u64,
    /// Flows whose rate was recomputed, summed over the recomputations.
    pub(crate) recomputed: u64,
    /// The most flows in one recomputed component.
    pub(crate) largest: u64,
}

/// The flows in flight and the resources they share.
pub(crate) struct FlowNet {
    flows: Vec<Flow>,
    free: Vec<u32>,
    /// Per resource, the flows through it.
    on: Vec<Vec<u32>>,
    /// Per resource, its capacity (bytes per second).
    cap: Vec<f64>,
    /// Resources `channels..channels + nics` are transmit DMA engines, then the receive ones.
    channels: u32,
    nics: u32,
    dma: Bandwidth,
    cut_through: bool,
    mtu: u64,
    header: u64,
    /// Per flow, its rate (payload bytes per second; 0 until it has one) and its coefficient
    /// on each channel (`wire / payload`; 1 on a DMA engine), apart from the rest of it for
    /// the walks of `Filling::refill`, which read them for every flow of every resource met.
    rc: Vec<(f64, f64)>,
    /// Per resource, the sum of the coefficients of the flows through it.
    weight: Vec<f64>,
    fill: Filling,
    component: Vec<u32>,
    rates: Vec<f64>,
    /// Flows started, and the resources of flows that ended (and the lowest rate they had),
    /// since the last recomputation; one is scheduled ([`RECOMPUTE`]) while these are not
    /// empty.
    started: Vec<u32>,
    freed: Vec<u32>,
    freed_at: f64,
    /// The flows' ends, earliest first.
    ends: Ends,
    /// Times at which an [`ENDS`] event is scheduled with the engine.
    woken: BTreeSet<u64>,
    /// The messages of the flows the last [`FlowNet::done`] ended.
    ended: Vec<u32>,
    /// Control messages that may still be crossing a link: `(when it is through (ps),
    /// channel, busy ps)`, in the order they started. A control message's busy time is counted
    /// whole as it starts; a run that stops while it crosses counts it up to the stop only
    /// ([`FlowNet::settle`]). The front ones through by a later one's start are let go then.
    crossing: std::collections::VecDeque<(u64, u32, u64)>,
    /// [`FlowNet::settle`] was called (it counts the flows in flight once).
    settled: bool,
    /// What the model did (its cost).
    pub(crate) stats: FlowStats,
    /// Check every recomputation against the max-min of all flows (`Simulation::self_check`).
    pub(crate) check: bool,
    /// The first disagreement the check found.
    pub(crate) mismatch: Option<String>,
}

impl FlowNet {
    /// The flow model of `net`, whose NICs move data at `dma` (`cut_through`: as
    /// `node.dma`), cutting messages at `mtu` payload bytes with `header` bytes each.
    pub(crate) fn new(
        net: &Network,
        nics: u32,
        dma: Bandwidth,
        cut_through: bool,
        mtu: Bytes,
        header: Bytes,
    ) -> FlowNet {
        let channels = net.channels() as u32;
        let resources = (channels + 2 * nics) as usize;
        let mut cap: Vec<f64> = (0..channels).map(|c| rate(net.channel_rate(c))).collect();
        cap.resize(resources, rate(dma));
        FlowNet {
            flows: Vec::new(),
            free: Vec::new(),
            on: vec![Vec::new(); resources],
            cap,
            channels,
            nics,
            dma,
            cut_through,
            mtu: mtu.0,
            header: header.0,
            rc: Vec::new(),
            weight: vec![0.0; resources],
            fill: Filling::new(resources),
            component: Vec::new(),
            rates: Vec::new(),
            started: Vec::new(),
            freed: Vec::new(),
            freed_at: f64::INFINITY,
            ends: Ends::default(),
            woken: BTreeSet::new(),
            ended: Vec::new(),
            crossing: std::collections::VecDeque::new(),
            settled: false,
            stats: FlowStats::default(),
            check: false,
            mismatch: None,
        }
    }

    /// NIC message `msg` of `payload` bytes from NIC `src` to NIC `dst` is handed to its NIC
    /// at `now` and takes the channels `path` (`Network::path`; empty within a node): it
    /// starts as a flow, or (a control message) arrives after its latency. Its arrival is an
    /// [`Event::FlowArrive`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn start(
        &mut self,
        net: &mut Network,
        msg: u32,
        src: u32,
        dst: u32,
        payload: u64,
        path: Vec<u32>,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let packets = payload.div_ceil(self.mtu).max(1);
        let first = payload.min(self.mtu);
        let wire = payload + packets * self.header;
        let same_node = path.is_empty();
        let alone = if same_node {
            // through the node's memory: read whole, then written whole
            self.dma.transfer_time(Bytes(first)) + self.dma.transfer_time(Bytes(first))
        } else {
            net.lone_packet(
                &path,
                first,
                (first + self.header) as u32,
                self.dma,
                self.cut_through,
            )
        };
        let mut wake = Time::ZERO;
        for &c in &path {
            if self.on[c as usize].is_empty() {
                wake = wake.max(net.link_wakes(c, now));
            }
        }
        if payload == 0 {
            // a control message: a bare header, too short to share anything
            let t = now.ps();
            while self
                .crossing
                .front()
                .is_some_and(|&(through, _, _)| through <= t)
            {
                self.crossing.pop_front();
            }
            for &c in &path {
                let busy = rate_time(self.cap[c as usize], wire);
                net.account(c, wire, 1, busy, now);
                if let Some(s) = net.series.as_deref_mut() {
                    s.busy(c, t, t + busy.ps(), busy.ps());
                }
                if busy > Time::ZERO {
                    self.crossing.push_back((t + busy.ps(), c, busy.ps()));
                }
            }
            q.push(now + wake + alone, Event::FlowArrive(msg));
            return;
        }
        let coef = wire as f64 / payload as f64;
        // (a freed slot's list is reused: no allocation per message once flows have peaked)
        let slot = self.free.pop();
        let mut uses = slot.map_or_else(Vec::new, |f| {
            std::mem::take(&mut self.flows[f as usize].uses)
        });
        uses.clear();
        uses.extend(path.iter().map(|&c| (c, coef)));
        uses.push((self.channels + src, 1.0));
        uses.push((self.channels + self.nics + dst, 1.0));
        // alone, at the slowest of its resources: its first packet's share of `alone` is what
        // the moving already counts
        let r0 = uses
            .iter()
            .map(|&(e, a)| self.cap[e as usize] / a)
            .fold(f64::INFINITY, f64::min);
        let first_moved = Time(((first as f64 / r0) * 1e12).ceil() as u64);
        let after = Time(alone.ps().saturating_sub(first_moved.ps())) + wake;
        let flow = Flow {
            msg,
            links: path.len() as u32,
            uses,
            left: payload as u128 * 1_000_000_000_000,
            payload,
            pace: 0,
            last: now.ps(),
            done_at: u64::MAX,
            after,
            started: now,
            wire,
            packets: packets as u32,
            alive: true,
        };
        let f = match slot {
            Some(f) => {
                self.flows[f as usize] = flow;
                f
            }
            None => {
                self.flows.push(flow);
                self.rc.push((0.0, 0.0));
                self.flows.len() as u32 - 1
            }
        };
        self.rc[f as usize] = (0.0, coef);
        for &(e, a) in &self.flows[f as usize].uses {
            self.on[e as usize].push(f);
            self.weight[e as usize] += a;
        }
        self.stats.flows += 1;
        self.mark(now, q);
        self.started.push(f);
    }

    /// Rates must be recomputed: at the end of this picosecond's events, so that flows that
    /// start or end together are recomputed once.
    fn mark(&mut self, now: Time, q: &mut EventQueue<Event>) {
        if self.started.is_empty() && self.freed.is_empty() {
            q.push(now, Event::FlowDone(RECOMPUTE));
        }
    }

    /// An [`Event::FlowDone`] at `now`: the marked flows are recomputed (`RECOMPUTE`), or
    /// the flows whose bytes are moved by now end (`ENDS`): their messages arrive
    /// ([`Event::FlowArrive`]) after the rest of their first packet's latency, and are
    /// returned; the flows they shared with are marked.
    pub(crate) fn done(
        &mut self,
        net: &mut Network,
        what: u32,
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> &[u32] {
        self.ended.clear();
        if what == RECOMPUTE {
            let mut started = std::mem::take(&mut self.started);
            let freed = std::mem::take(&mut self.freed);
            started.retain(|&g| self.flows[g as usize].alive);
            self.recompute(net, &started, &freed, now, q);
            (self.started, self.freed) = (started, freed);
            self.started.clear();
            self.freed.clear();
            self.freed_at = f64::INFINITY;
            return &self.ended;
        }
        debug_assert_eq!(what, ENDS);
        self.woken.remove(&now.ps());
        while let Some((t, f)) = self.ends.first() {
            if t > now.ps() {
                break;
            }
            self.ends.pop();
            let m = self.end(net, f, now, q);
            self.ended.push(m);
        }
        self.wake(q);
        &self.ended
    }

    /// Flow `f` has moved its bytes at `now`: it leaves its resources, and its message
    /// arrives after the rest of its first packet's latency. Returns the message.
    fn end(&mut self, net: &mut Network, f: u32, now: Time, q: &mut EventQueue<Event>) -> u32 {
        self.mark(now, q);
        self.busy_since_last(net, f as usize, now.ps(), 0);
        let fl = &mut self.flows[f as usize];
        fl.alive = false;
        self.freed_at = self.freed_at.min(self.rc[f as usize].0);
        let (msg, after, started, wire, packets) =
            (fl.msg, fl.after, fl.started, fl.wire, fl.packets);
        let uses = std::mem::take(&mut fl.uses);
        let links = fl.links as usize;
        for &(e, a) in &uses {
            let list = &mut self.on[e as usize];
            if let Some(i) = list.iter().position(|&x| x == f) {
                list.remove(i);
            }
            // (an empty resource starts again from an exact 0: no rounding carried over)
            let w = &mut self.weight[e as usize];
            *w = if list.is_empty() { 0.0 } else { *w - a };
        }
        for &(c, _) in &uses[..links] {
            let busy = rate_time(self.cap[c as usize], wire);
            net.account(c, wire, packets, busy, started);
            if self.on[c as usize].is_empty() {
                net.link_idle(c, now);
            }
        }
        self.free.push(f);
        // the flows it shared a resource with get its share
        self.freed.extend(uses.iter().map(|&(e, _)| e));
        // (the list stays in the slot, for the next flow to reuse)
        let mut uses = uses;
        uses.clear();
        self.flows[f as usize].uses = uses;
        q.push(now + after, Event::FlowArrive(msg));
        msg
    }

    /// The run ends at `end` (ps; a stop's time, once the run is over), once: what is still
    /// moving counts up to `end`, in `links.csv` and the time series alike. A flow in flight
    /// counts, on each of its links, the packets it has begun (its message's MTU-sized pieces,
    /// one begun once the flow has moved the bytes before it: the first at once), whole with
    /// their headers, as the packet model counts a packet whose head has left; and its busy
    /// time up to `end`, its share of the link for the payload moved by then, as its spans
    /// give the series; its links were active until `end` (`[power]`). A control message
    /// still crossing a link counts busy up to `end` only. Nothing moves at the end of a run
    /// that was not stopped: this changes nothing there.
    pub(crate) fn settle(&mut self, net: &mut Network, end: Time) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        let t = end.ps();
        for f in 0..self.flows.len() {
            let fl = &self.flows[f];
            if !fl.alive {
                continue;
            }
            let left = fl
                .left
                .saturating_sub(fl.pace as u128 * t.saturating_sub(fl.last) as u128);
            self.busy_since_last(net, f, t, left);
            let fl = &self.flows[f];
            let whole = fl.payload;
            let moved = whole - (left.div_ceil(UNIT).min(whole as u128) as u64);
            let begun = (moved / self.mtu + 1).min(fl.packets as u64);
            let wire = (begun * self.mtu).min(whole) + begun * self.header;
            for &(c, _) in &fl.uses[..fl.links as usize] {
                let busy = rate_time(self.cap[c as usize], fl.wire).ps() as u128;
                let busy = Time((busy * moved as u128 / whole as u128) as u64);
                net.account(c, wire, begun as u32, busy, fl.started);
                net.link_idle(c, end);
            }
        }
        for &(through, c, busy) in &self.crossing {
            if through > t {
                net.unbusy(c, through.saturating_sub(busy).max(t), through);
            }
        }
    }

    /// Tells the time series (if one is recorded) how long flow `f` kept each of its links
    /// busy from its last change of rate to `now` (ps), its payload left going down to `left`
    /// (10⁻¹² bytes): at a constant rate, its share of each link over that span. The shares of
    /// its spans add up to the flow's busy time on the link in `links.csv` (docs/model.md §7).
    fn busy_since_last(&self, net: &mut Network, f: usize, now: u64, left: u128) {
        let Some(series) = net.series.as_deref_mut() else {
            return;
        };
        let fl = &self.flows[f];
        let whole = fl.payload as u128;
        if now <= fl.last || whole == 0 {
            return;
        }
        let moved = |left: u128| whole - left.div_ceil(UNIT).min(whole);
        let (before, after) = (moved(fl.left), moved(left));
        for &(c, _) in &fl.uses[..fl.links as usize] {
            let busy = rate_time(self.cap[c as usize], fl.wire).ps() as u128;
            let share = busy * after / whole - busy * before / whole;
            series.busy(c, fl.last, now, share as u64);
        }
    }

    /// Recomputes the rates of the flows that flows `started` and the ends that left
    /// resources `freed` may change (`Filling::refill`), and reschedules the end of each whose
    /// end moved.
    fn recompute(
        &mut self,
        net: &mut Network,
        started: &[u32],
        freed: &[u32],
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let (flows, on, cap, channels) = (&self.flows, &self.on, &self.cap, self.channels);
        let (rc, weight) = (&self.rc, &self.weight);
        self.fill.refill(
            started,
            freed,
            self.freed_at,
            |g| &flows[g as usize].uses,
            |e| &on[e as usize],
            |e| cap[e as usize],
            |e| weight[e as usize],
            |g, e| {
                if e < channels {
                    rc[g as usize].1
                } else {
                    1.0
                }
            },
            |g| rc[g as usize].0,
            &mut self.component,
            &mut self.rates,
        );
        if self.check && self.mismatch.is_none() {
            self.mismatch = self.check_rates(now);
        }
        let n = self.component.len();
        self.stats.recomputes += 1;
        self.stats.recomputed += n as u64;
        self.stats.largest = self.stats.largest.max(n as u64);
        for k in 0..n {
            let f = self.component[k] as usize;
            let rate = self.rates[k];
            // the bytes moved since the last change, at the old pace
            let fl = &self.flows[f];
            let left = fl
                .left
                .saturating_sub(fl.pace as u128 * (now.ps() - fl.last) as u128);
            self.busy_since_last(net, f, now.ps(), left);
            let fl = &mut self.flows[f];
            fl.left = left;
            fl.last = now.ps();
            self.rc[f].0 = rate;
            // (a rate below half a byte per second still moves)
            fl.pace = if rate.is_finite() {
                (rate.round() as u64).max(1)
            } else {
                u64::MAX
            };
            // (saturated: a flow slowed that far ends past the horizon, which stops the run)
            let done = if fl.pace == u64::MAX {
                now.ps()
            } else {
                (now.ps() as u128 + fl.left.div_ceil(fl.pace as u128)).min(u64::MAX as u128) as u64
            };
            if done != fl.done_at {
                fl.done_at = done;
                self.ends.set(f as u32, done);
            }
        }
        self.wake(q);
    }

    /// The self-check: the rates after a recomputation (the recomputed `component` at
    /// `rates`, every other flow at the rate it had) must be the max-min of all the flows,
    /// computed whole, within a relative 1e-6. Describes the first flow that is not.
    fn check_rates(&self, now: Time) -> Option<String> {
        let all: Vec<u32> = (0..self.flows.len() as u32)
            .filter(|&g| self.flows[g as usize].alive)
            .collect();
        let mut whole = vec![0.0; all.len()];
        let (flows, on, cap) = (&self.flows, &self.on, &self.cap);
        Filling::new(cap.len()).fill(
            &all,
            |g| &flows[g as usize].uses,
            |e| &on[e as usize],
            |e| cap[e as usize],
            &mut whole,
        );
        let mut now_rate: Vec<f64> = self.rc.iter().map(|&(r, _)| r).collect();
        for (k, &g) in self.component.iter().enumerate() {
            now_rate[g as usize] = self.rates[k];
        }
        all.iter().zip(&whole).find_map(|(&g, &w)| {
            let r = now_rate[g as usize];
            ((r - w).abs() > 1e-6 * w).then(|| {
                format!(
                    "flow model at {now}: flow {g} (message {}) has rate {r} B/s after the \
                     selective update, {w} B/s in the max-min of all flows",
                    flows[g as usize].msg
                )
            })
        })
    }

    /// With `false`, recomputations never try the ripple (`Filling::refill`).
    pub(crate) fn use_ripple(&mut self, on: bool) {
        self.fill.use_ripple(on);
    }

    /// Makes sure the engine holds an [`ENDS`] event at the earliest end.
    fn wake(&mut self, q: &mut EventQueue<Event>) {
        if let Some((t, _)) = self.ends.first() {
            if self.woken.first().is_none_or(|&w| w > t) {
                self.woken.insert(t);
                q.push(Time(t), Event::FlowDone(ENDS));
            }
        }
    }
}

/// A flow's payload still to move is kept in these units of a byte (10⁻¹² bytes).
const UNIT: u128 = 1_000_000_000_000;

/// A bandwidth as bytes per second in floating point (`INFINITE` stays infinite).
fn rate(b: Bandwidth) -> f64 {
    if b == Bandwidth::INFINITE {
        f64::INFINITY
    } else {
        b.0 as f64
    }
}

/// The time `bytes` take at `r` bytes per second, rounded up to a picosecond.
fn rate_time(r: f64, bytes: u64) -> Time {
    if r.is_infinite() {
        Time::ZERO
    } else {
        Time(((bytes as f64 / r) * 1e12).ceil() as u64)
    }
}
