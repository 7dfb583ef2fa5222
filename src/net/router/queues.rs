//! Output queues and sending: a packet queued for its output channel and VC, and a channel
//! that sends its next ready packet when it is idle and the next buffer has credit.

use super::*;

impl Network {
    /// Queues `pkt` for channel `c`, virtual channel class `k`, in its place by the queue's
    /// key (see the router's doc): `asked` at an input-queued router's output, `ready` at an
    /// output-queued one's, ties broken by [`tie`]; last at a NIC's. True if it is the head of
    /// that queue.
    ///
    /// The common case, an empty queue, is inlined at the caller; the rest is a call
    /// ([`Network::enqueue_behind`]).
    #[inline(always)]
    pub(super) fn enqueue<M: RouterModel>(&mut self, c: u32, k: usize, pkt: PktId) -> bool {
        self.packets.get_mut(pkt).next = NONE;
        let ch = &mut self.channels[c as usize];
        ch.queued += 1;
        if ch.queues[k].tail == NONE {
            ch.queues[k] = Fifo {
                head: pkt,
                tail: pkt,
            };
            return true;
        }
        self.enqueue_behind::<M>(c, k, pkt)
    }

    /// [`Network::enqueue`] into a queue that holds packets already.
    #[inline(never)]
    fn enqueue_behind<M: RouterModel>(&mut self, c: u32, k: usize, pkt: PktId) -> bool {
        let f = self.channels[c as usize].queues[k];
        let keyed = c < self.nr;
        let time = M::queue_time;
        let key = |p: &Packet| {
            let t = time(p);
            (t, tie(t, p.from), p.from, p.held_vc)
        };
        let (me, last) = (self.packets.get(pkt), self.packets.get(f.tail));
        // (nearly always later than the last: ties and arrivals out of order are rare)
        let after = time(last) < time(me) || (time(last) == time(me) && key(last) < key(me));
        if !keyed || after {
            self.packets.get_mut(f.tail).next = pkt;
            self.channels[c as usize].queues[k].tail = pkt;
            return false;
        }
        // (it goes before the tail: find its place from the head)
        let mine = key(me);
        let (mut prev, mut cur) = (NONE, f.head);
        while cur != NONE && key(self.packets.get(cur)) < mine {
            (prev, cur) = (cur, self.packets.get(cur).next);
        }
        self.packets.get_mut(pkt).next = cur;
        if prev == NONE {
            self.channels[c as usize].queues[k].head = pkt;
            true
        } else {
            self.packets.get_mut(prev).next = pkt;
            false
        }
    }

    /// Starts the next packet on channel `c` if the channel is idle and a queued packet has
    /// credit in the buffer it goes to.
    pub(super) fn try_send<M: RouterModel>(
        &mut self,
        c: u32,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        // (a copy of the channels' view, whose length then stays in a register: `c` is
        // checked against it once, where reading it through `self` again after each store
        // checks it again)
        let mut chans = *self.channels;
        // (whether it waits for credit is what this look finds: until it ends starved, a credit
        // wake-up finds it waiting for nothing, and does nothing)
        chans[c as usize].waiting = 0;
        if M::OUTPUT_BUFFERS && c < self.nr {
            return self.try_send_ob::<M>(c, now, q);
        }
        let ch = &chans[c as usize];
        if ch.queued == 0 {
            // nothing to send: a release that came due stays pending, for the next look
            return;
        }
        let inject = c >= self.nr;
        if ch.busy {
            // (an injection channel whose release is an event waits for it, even at its
            // picosecond: the event also lets its NIC's DMA go on)
            if ch.free_at > now.ps() || (inject && ch.scheduled) {
                // (a queued packet waits for the tail: the release becomes an event)
                if !ch.scheduled {
                    self.schedule(c, q);
                }
                return;
            }
            // its tail has left: apply that (an injection channel's release frees a staging
            // slot of its NIC, which counts them from here)
            self.apply(c);
        }
        let classes = self.classes;
        let mut next_k = chans[c as usize].rr as u32;
        let mut credited = false;
        // the earliest time a packet that cannot go yet may (ps), and whether a ready one
        // lacks credit
        let mut later = u64::MAX;
        let mut starved = 0u8;
        // (an input-queued router's packets may also wait for their input's crossbar: any of
        // its queue may go, the one that asked first first; a NIC's queue is its own FIFO)
        let scan = M::INPUT_FIFOS && c < self.nr;
        for _ in 0..classes {
            let k = next_k;
            next_k = if k + 1 == classes { 0 } else { k + 1 };
            let (mut prev, mut pkt) = (NONE, chans[c as usize].queues[k as usize].head);
            while pkt != NONE {
                let p = self.packets.get(pkt);
                let ready = p.ready.ps();
                let waits = if ready > now.ps() {
                    ready
                } else if scan {
                    self.xbar[p.from as usize] & !STARVED_ON
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
            let next_router = chans[c as usize].next;
            let look = (&mut credited, &mut starved);
            let Some(vc_in) = self.claim_vc(c, k, next_router, wire, look, now) else {
                if scan {
                    // (a send that takes this input's crossbar will look for this output)
                    let from = self.packets.get(pkt).from;
                    self.xbar[from as usize] |= STARVED_ON;
                }
                continue;
            };
            if self.asleep(c, now, q) {
                return;
            }
            self.send::<M>(c, k, vc_in, pkt, prev, next_router, now, q);
            return;
        }
        if later != u64::MAX {
            self.wake(c, Time(later), q);
        }
        self.starve(c, starved, now);
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
        true
    }

    /// VC allocation for a packet of `wire` bytes and class `k` leaving by channel `c` (see
    /// [`Network::allocate_vc`]), within one look at the channel: the releases recorded for
    /// its credit that came due are applied first, once per look (`look.0`); if no VC has
    /// room, the virtual channels of the class join the look's starved ones (`look.1`, a bit
    /// per virtual channel of the next buffer).
    #[inline(always)]
    pub(super) fn claim_vc(
        &mut self,
        c: u32,
        k: u32,
        next_router: RouterId,
        wire: u32,
        look: (&mut bool, &mut u8),
        now: Time,
    ) -> Option<u32> {
        let (credited, starved) = look;
        if !*credited {
            self.take_credit(c, now);
            *credited = true;
        }
        let vc = self.allocate_vc(c, k, next_router, wire);
        if vc.is_none() {
            *starved |= if next_router == NONE {
                1
            } else {
                let r = self.class_vcs(k);
                ((1u32 << r.end) - (1u32 << r.start)) as u8
            };
        }
        vc
    }

    /// The end of a look at channel `c` that sent nothing: `starved` has a bit set for each
    /// virtual channel of the next buffer a ready packet lacked credit in. The channel then
    /// waits for the first release recorded into one of them ([`Network::wait_for_credit`]);
    /// a release into another could not let anything go, and does not wake it.
    #[inline(always)]
    pub(super) fn starve(&mut self, c: u32, starved: u8, now: Time) {
        let ch = &mut self.channels[c as usize];
        ch.waiting = starved;
        if starved != 0 {
            // (a credit wake-up due at this picosecond would only look again: this look is
            // the one it was for, and the channel waits for the next release from now)
            if ch.credit_wake_at == now.ps() {
                ch.credit_wake_at = u64::MAX;
            }
            if !ch.blocked {
                ch.blocked = true;
                ch.blocked_ps -= now.ps() as i64;
            }
            self.wait_for_credit(c, starved, now);
        }
    }

    /// VC allocation (docs/model.md §3): of the virtual channels of class `k` in the buffer
    /// channel `c` feeds, the one with the most free bytes, the lowest of equals, if it has
    /// room for a whole packet of `wire` bytes (virtual cut-through); a NIC's buffer has one.
    #[inline(always)]
    pub(super) fn allocate_vc(
        &self,
        c: u32,
        k: u32,
        next_router: RouterId,
        wire: u32,
    ) -> Option<u32> {
        let base = self.cr(c, 0);
        let credit = &self.credit[base..base + self.vcs as usize];
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
    pub(super) fn send<M: RouterModel>(
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
        // (the view copied, as in `try_send`)
        let mut chans = *self.channels;
        let is_router = c < self.nr;
        let from_ob = prev == OUTBUF;
        // (a packet from an output buffer has passed the pipeline: its tail there is when it
        // crossed)
        let pipeline = if is_router && !from_ob {
            self.router_delay
        } else {
            Time::ZERO
        };
        let class = ((chans[c as usize].flags >> CLASS_SHIFT) & CLASS_MASK) as usize;
        let p = *self.packets.get(pkt);
        let memo = &mut self.memo[class];
        if memo.0 != p.wire {
            *memo = (
                p.wire,
                self.class_bw[class].transfer_time(Bytes(p.wire as u64)),
            );
        }
        let serialize = memo.1;
        self.dequeue(&mut chans[c as usize], c, k, vc_in, pkt, prev, &p);
        let ch = &mut chans[c as usize];

        // (at least a picosecond, even for a packet of no bytes at all: a channel releases at
        // most once per picosecond, and its event names that one release)
        let tail_leaves = (now + serialize).max(p.tail + pipeline).max(now + Time(1));
        ch.busy = true;
        ch.free_at = tail_leaves.ps();
        (ch.releasing, ch.releasing_up) = if from_ob {
            // its bytes go back to this channel's own output buffer
            (p.wire << VC_BITS | k, OUTBUF | c)
        } else if is_router {
            // (the buffer it leaves is released for its feeder, below)
            (NONE, NONE)
        } else {
            // a NIC's staging slot
            (p.wire << VC_BITS, p.from)
        };
        let flags = ch.flags;
        ch.bytes += p.wire as u64;
        ch.busy_ps += (tail_leaves - now).ps();
        ch.packets = ch.packets.saturating_add(1);
        if ch.blocked {
            ch.blocked = false;
            ch.blocked_ps += now.ps() as i64;
        }
        // an event for the tail only if something queued here will wait for it (the module's
        // doc): a packet ready by then; packets ready only later need a wake-up at the first
        // of them instead. An injection channel's release frees a staging slot of its NIC:
        // only a packet staged behind this one waits for it (STAGING_SLOTS = 2).
        let queued = ch.queued > 0;
        if prev != NONE && !from_ob {
            self.packets.get_mut(prev).next = p.next;
        }
        // (output buffers: the tail's event always looks again, for the link and the crossbar)
        let mut waited = queued || from_ob;
        let scan = M::INPUT_FIFOS && is_router && !from_ob;
        if is_router && !from_ob {
            // (input-queued: packets queued here may wait for their inputs rather than for
            // their readiness; the tail's event looks at them)
            if queued && !scan {
                let mut first = u64::MAX;
                for f in &chans[c as usize].queues[..self.classes as usize] {
                    if f.head != NONE {
                        first = first.min(self.packets.get(f.head).ready.ps());
                    }
                }
                waited = first <= tail_leaves.ps();
                if !waited {
                    self.wake(c, Time(first), q);
                }
            }
            // the buffer it leaves here is free once its tail has left: recorded for the
            // channel that feeds it (a packet at a router came by a channel: `from` is a
            // channel)
            self.release(p.from, tail_leaves, p.wire, p.held_vc as u32);
        }
        chans[c as usize].scheduled = waited;
        if waited {
            q.push(tail_leaves, Event::ChannelFree(c));
        }
        let held = self.record_sent(
            c,
            vc_in,
            pkt,
            p.wire,
            is_router && !from_ob,
            now,
            tail_leaves,
        );
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
            let ready = head_arrives + self.router_delay;
            pm.at = next_router;
            pm.hops = pm.hops.saturating_add(is_router as u8);
            pm.vc = k as u8;
            pm.arrived = false;
            pm.ready = ready;
            let a = Arrival {
                ready: ready.ps(),
                sent: now.ps(),
                pkt,
                from: c,
                held,
                hop: [0; 4],
            };
            if flags & CUT != 0 {
                // (to a router of another partition)
                self.send_across(a, pkt);
            } else if is_router {
                // (to another router: put in place when its epoch ends)
                self.send_on::<M>(a, q);
            } else {
                // (from a NIC to its own router)
                self.arrive::<M>(a, q);
            }
        }
        if scan {
            // it has left its input buffer, whose crossbar port is busy until its tail has
            // crossed (no output buffer: as it leaves by the link)
            self.input_taken(p.from, p.held_vc, c, now, q);
            self.xbar[p.from as usize] = tail_leaves.ps();
            self.next_in_buffer::<M>(p.from, p.held_vc, pkt, p.in_next, tail_leaves, now, q);
        }
    }
}

impl Network {
    /// Takes packet `pkt` (after `prev` in its queue; `prev` is [`OUTBUF`] for one leaving
    /// channel `c`'s output buffer) off the queue of class `k` on channel `c` (`ch`, the
    /// caller's view of it), and gives its bytes' credit back to input virtual channel `vc_in`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn dequeue(
        &mut self,
        ch: &mut Channel,
        c: u32,
        k: u32,
        vc_in: u32,
        pkt: PktId,
        prev: PktId,
        p: &Packet,
    ) {
        let ci = self.cr(c, vc_in);
        self.credit[ci] -= p.wire;
        if prev == OUTBUF {
            self.ob_pop(c, k, pkt);
            return;
        }
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

    /// What a packet of `wire` bytes sent on channel `c` from `now` until its tail leaves at
    /// `tail_leaves` adds to the records: the channel's occupancy, the time series, the buffer
    /// history (`leaves_input`: it left a router's input buffer) and the hop counts. Returns
    /// the bytes left held in the buffer it came from (input virtual channel `vc_in`), for the
    /// history (0 when no history is kept).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn record_sent(
        &mut self,
        c: u32,
        vc_in: u32,
        pkt: PktId,
        wire: u32,
        leaves_input: bool,
        now: Time,
        tail_leaves: Time,
    ) -> u32 {
        self.occupy(c, now, wire as i64);
        if let Some(s) = &mut self.series {
            s.sent(c, now.ps(), tail_leaves.ps(), wire as u64);
        }
        let held = if self.history.is_some() {
            let h = self.history.as_deref_mut().expect("checked");
            if leaves_input && h.watches(c / self.ports) {
                h.depart(pkt, (c % self.ports) as u8, now.ps(), tail_leaves.ps());
            }
            self.capacity - self.credit[self.cr(c, vc_in)]
        } else {
            0
        };
        self.stats.packet_hops += 1;
        self.stats.link_bytes += wire as u64;
        held
    }
}

/// The order of two packets that asked for one output at the same picosecond `t` (ps), coming
/// from the inputs fed by channels `from`: a hash of both, so that no input is favoured
/// systematically (a fixed priority by port makes some all-to-alls 30 % faster or slower than
/// any other order of their ties: docs/performance.md), and that depends on nothing but the
/// model. Equal hashes fall back to `from`, then the virtual channel.
#[inline]
pub(super) fn tie(t: u64, from: u32) -> u32 {
    let x = (t ^ (from as u64).rotate_left(32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (x >> 32) as u32
}

impl Network {
    /// Packet `pkt`, sent to a router of another partition: a cut message ([`Cut::Arrive`]);
    /// it leaves this partition's pool.
    #[inline(never)]
    fn send_across(&mut self, a: Arrival, pkt: PktId) {
        let packet = self.packets.get(pkt);
        let to = self.router_owner[packet.at as usize] as usize;
        let m = crate::cut::Arrive::new(&a, packet);
        self.outbox[to].arrive.push(m);
        self.packets.release(pkt);
    }
}
