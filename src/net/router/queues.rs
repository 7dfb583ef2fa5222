//! Output queues and sending: a packet queued for its output channel and VC, and a channel
//! that sends its next ready packet when it is idle and the next buffer has credit.

use super::*;

impl Network {
    /// Queues `pkt` for channel `c`, virtual channel `vc`; true if it is the head of that
    /// queue.
    #[inline]
    pub(super) fn enqueue(&mut self, c: u32, vc: usize, pkt: PktId) -> bool {
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
    pub(super) fn write_link(&mut self, l: Link) {
        let tp = self.packets.get_mut(l.tail);
        tp.next = l.after;
        tp.next_ready = l.ready;
    }

    /// Writes the links of the queues into their packets a few queuings late, or at once (see
    /// "Linked later" in the module's doc): worth it when the packets do not fit in the caches.
    /// (Not for an input-queued router, whose channels look past their first packet.)
    pub fn link_later(&mut self, on: bool) {
        let on = on && !self.iq;
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
    pub(super) fn try_send(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) {
        if self.outbuf && c < self.nr {
            return self.try_send_ob(c, now, q);
        }
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
        let classes = self.classes;
        let mut next_k = self.channels[c as usize].rr as u32;
        let mut settled = false;
        // the earliest time a packet that cannot go yet may (ps), and whether a ready one
        // lacks credit
        let mut later = u64::MAX;
        let mut starved = false;
        // (an input-queued router's packets may also wait for their input's crossbar: any of
        // its queue may go, the one that asked first first; a NIC's queue is its own FIFO)
        let scan = self.iq && c < self.nr;
        for _ in 0..classes {
            let k = next_k;
            next_k = if k + 1 == classes { 0 } else { k + 1 };
            let (mut prev, mut pkt) = (NONE, self.channels[c as usize].queues[k as usize].head);
            while pkt != NONE {
                let p = self.packets.get(pkt);
                let ready = p.ready.ps();
                let waits = if ready > now.ps() {
                    ready
                } else if scan {
                    self.channels[p.from as usize].xbar_until
                } else {
                    0
                };
                if waits <= now.ps() {
                    break;
                }
                later = later.min(waits);
                if !scan {
                    pkt = NONE;
                    break;
                }
                (prev, pkt) = (pkt, p.next);
            }
            if pkt == NONE {
                continue;
            }
            let wire = self.packets.get(pkt).wire;
            let next_router = self.channels[c as usize].next;
            let look = (&mut settled, &mut starved);
            let Some(vc_in) = self.claim_vc(c, k, next_router, wire, look, now, q) else {
                continue;
            };
            if self.asleep(c, now, q) {
                return;
            }
            self.send(c, k, vc_in, pkt, prev, next_router, now, q);
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

    /// Whether channel `c`'s link sleeps (`[power]`) at `now`: then it wakes first, and the
    /// packet that found it so and those behind it wait.
    #[inline(always)]
    pub(super) fn asleep(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) -> bool {
        self.power.is_some() && self.wake_link(c, now, q)
    }

    /// [`Network::asleep`] with `[power]` on.
    #[inline(never)]
    fn wake_link(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) -> bool {
        let Some(pw) = self.power.as_deref_mut() else {
            return false;
        };
        let Ready::Wake { slept, until } = pw.ready(c, now.ps()) else {
            return false;
        };
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
        true
    }

    /// VC allocation for a packet of `wire` bytes and class `k` leaving by channel `c` (see
    /// [`Network::allocate_vc`]), within one look at the channel: the releases into the next
    /// router's buffers that came due are applied first, once per look (`look.0`); if no VC
    /// has room, the look is starved (`look.1`) and the releases pending into that class's
    /// buffers become events, so that the channel is woken when credit comes back.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn claim_vc(
        &mut self,
        c: u32,
        k: u32,
        next_router: RouterId,
        wire: u32,
        look: (&mut bool, &mut bool),
        now: Time,
        q: &mut EventQueue<Event>,
    ) -> Option<u32> {
        let (settled, starved) = look;
        if !*settled && next_router != NONE {
            self.settle(next_router, now);
            *settled = true;
        }
        let vc = self.allocate_vc(c, k, next_router, wire);
        if vc.is_none() {
            *starved = true;
            if next_router != NONE {
                self.wake_releases(next_router, c, k, q);
            }
        }
        vc
    }

    /// VC allocation (docs/model.md §3): of the virtual channels of class `k` in the buffer
    /// channel `c` feeds, the one with the most free bytes, the lowest of equals, if it has
    /// room for a whole packet of `wire` bytes (virtual cut-through); a NIC's buffer has one.
    #[inline]
    pub(super) fn allocate_vc(
        &self,
        c: u32,
        k: u32,
        next_router: RouterId,
        wire: u32,
    ) -> Option<u32> {
        let credit = &self.credit[self.cr(c, 0)..];
        if next_router == NONE {
            return (credit[0] >= wire).then_some(0);
        }
        let (lo, hi) = (
            self.vc_lo[k as usize] as u32,
            self.vc_lo[k as usize + 1] as u32,
        );
        if hi == lo + 1 {
            return (credit[lo as usize] >= wire).then_some(lo);
        }
        let mut best = lo;
        for v in lo + 1..hi {
            if credit[v as usize] > credit[best as usize] {
                best = v;
            }
        }
        (credit[best as usize] >= wire).then_some(best)
    }

    /// The virtual channels of class `k`.
    #[inline]
    pub(super) fn class_vcs(&self, k: u32) -> std::ops::Range<u32> {
        self.vc_lo[k as usize] as u32..self.vc_lo[k as usize + 1] as u32
    }

    /// Starts packet `pkt` (queued behind `prev`, or first) of queue `k` of idle channel `c`
    /// into virtual channel `vc_in` of the next buffer, which has credit for it; `prev` is
    /// [`OUTBUF`] for the first packet of class `k` in the channel's output buffer.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send(
        &mut self,
        c: u32,
        k: u32,
        vc_in: u32,
        pkt: PktId,
        prev: PktId,
        next_router: RouterId,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let is_router = c < self.nr;
        let from_ob = prev == OUTBUF;
        // (a packet from an output buffer has passed the pipeline: its tail there is when it
        // crossed)
        let pipeline = if is_router && !from_ob {
            self.router_delay
        } else {
            Time::ZERO
        };
        let class = (self.channels[c as usize].flags >> CLASS_SHIFT) as usize;
        let mut p = *self.packets.get(pkt);
        if !self.links.is_empty() {
            // the link to the packet queued behind this one may not be written yet
            if let Some(l) = self.links.take(pkt) {
                (p.next, p.next_ready) = (l.after, l.ready);
            }
        }
        // mesh and torus: the hop after this one is fixed already, and the packet is queued
        // for it at the end of this send; its channel's line is asked for now
        // (input-queued: only if it will be the first of the buffer it enters; otherwise it is
        // routed when it becomes the first)
        let first = !self.iq || next_router == NONE || self.inq[self.cr(c, vc_in)].tail == NONE;
        let ahead = match &self.topo {
            Topo::Cube(cube) if self.early && next_router != NONE && first => {
                let hop = cube_hop(cube, self.tpr, next_router, p.dst, k as u8, p.dim);
                let c = self.router_channel(next_router, hop.port as u32);
                prefetch(&self.channels[c as usize]);
                Some(hop)
            }
            _ => None,
        };
        let memo = &mut self.memo[class];
        if memo.0 != p.wire {
            *memo = (
                p.wire,
                self.class_bw[class].transfer_time(Bytes(p.wire as u64)),
            );
        }
        let serialize = memo.1;
        // dequeue
        let ci = self.cr(c, vc_in);
        self.credit[ci] -= p.wire;
        if from_ob {
            self.ob_pop(c, k, pkt);
        }
        let ch = &mut self.channels[c as usize];
        if !from_ob {
            ch.queued -= 1;
            let f = &mut ch.queues[k as usize];
            if prev == NONE {
                f.head = p.next;
            }
            if f.tail == pkt {
                f.tail = prev;
            }
            ch.rr = if k + 1 == self.classes {
                0
            } else {
                k as u8 + 1
            };
        }

        // (at least a picosecond, even for a packet of no bytes at all: a channel releases at
        // most once per picosecond, and its event names that one release)
        let tail_leaves = (now + serialize).max(p.tail + pipeline).max(now + Time(1));
        ch.busy = true;
        ch.free_at = tail_leaves.ps();
        if from_ob {
            // its bytes go back to this channel's own output buffer
            ch.releasing = p.wire << VC_BITS | k;
            ch.releasing_up = OUTBUF | c;
        } else {
            ch.releasing = p.wire << VC_BITS | p.held_vc as u32;
            ch.releasing_up = p.from;
        }
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
        if prev != NONE && !from_ob {
            let pp = self.packets.get_mut(prev);
            (pp.next, pp.next_ready) = (p.next, p.next_ready);
        }
        // (output buffers: the tail's event always looks again, for the link and the crossbar)
        let mut waited = queued || from_ob;
        let scan = self.iq && is_router && !from_ob;
        if is_router && !from_ob {
            let mut wake = u64::MAX;
            // (input-queued: packets queued here may wait for their inputs rather than for
            // their readiness; the tail's event looks at them)
            if queued && !scan {
                // (the packet behind this one says when it is ready: only the heads of the
                // other virtual channels are read)
                let mut first = if p.next == NONE {
                    u64::MAX
                } else {
                    p.next_ready.ps()
                };
                if first > tail_leaves.ps() {
                    for (v, f) in self.channels[c as usize].queues[..self.classes as usize]
                        .iter()
                        .enumerate()
                    {
                        if v != k as usize && f.head != NONE {
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
            let held = self.capacity - self.credit[self.cr(c, vc_in)];
            let h = self.history.as_deref_mut().expect("checked");
            if is_router && !from_ob && h.watches(c / self.ports) {
                h.depart(pkt, (c % self.ports) as u8, now.ps(), tail_leaves.ps());
            }
            if next_router != NONE && h.watches(next_router) {
                h.arrive(
                    pkt,
                    Stay {
                        router: next_router,
                        in_port: (slot % self.ports) as u8,
                        vc: vc_in as u8,
                        src: p.src,
                        dst: p.dst,
                        bytes: p.wire,
                        arrive_ps: (now + self.class_cable[class]).ps(),
                        occupancy: held,
                        depart_ps: None,
                        out_port: None,
                        freed_ps: None,
                    },
                );
            }
        }
        self.stats.packet_hops += 1;
        self.stats.link_bytes += p.wire as u64;
        let cable = self.class_cable[class];
        let head_arrives = now + cable;
        let pm = self.packets.get_mut(pkt);
        pm.tail = tail_leaves + cable;
        pm.held_vc = vc_in as u8;
        pm.from = c;
        if next_router == NONE {
            // ejection into the destination NIC: it acts once the whole packet is in (and
            // knows when the head was, for a DMA that writes as the packet arrives)
            pm.ready = head_arrives;
            q.push(pm.tail, Event::NicArrive(pkt));
        } else {
            self.stats.wrap_hops += (flags & WRAP != 0) as u64;
            self.stats.global_hops += (flags & GLOBAL != 0) as u64;
            let pm = self.packets.get_mut(pkt);
            pm.at = next_router;
            pm.vc = k as u8;
            pm.arrived = false;
            let ready = head_arrives + self.router_delay;
            // (input-queued: only the first packet of an input buffer asks for an output)
            if self.iq {
                self.in_push(c, vc_in, pkt);
            }
            match ahead {
                Some(hop) => self.arrive_early(pkt, ready, hop, q),
                None if self.early => self.packets.get_mut(pkt).ready = ready,
                None => q.push(ready, Event::RouterReady(pkt)),
            }
        }
        if scan {
            // it has left its input buffer, whose crossbar port is busy until its tail has
            // crossed (no output buffer: as it leaves by the link)
            self.channels[p.from as usize].xbar_until = tail_leaves.ps();
            self.next_in_buffer(p.from, p.held_vc, pkt, p.in_next, tail_leaves, now, q);
        }
    }
}
