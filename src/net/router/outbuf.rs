//! Output buffers (`network.output_buffer_bytes`, input-queued routers; NSIM §3): between the
//! crossbar and the link of each router output port, one FIFO per virtual channel class.
//!
//! With them a router output is two stages. The **crossbar** grants the oldest request that is
//! ready, whose input's crossbar port is free and whose class has room in the output buffer for
//! the whole packet; it moves the packet at `switch_bandwidth`, so its tail has crossed at
//! `max(t + size / switch_bandwidth, tail's arrival + pipeline)`, when the input buffer gets its
//! credit back ([`Event::XbarDone`]) and the port may take the next packet. The **link** sends
//! the first packet of an output FIFO (classes in turn) whose next buffer has room, at the
//! link's own rate, as soon as its head is in the output buffer (cut-through across it), its
//! tail leaving no earlier than it crossed; the output buffer gets the bytes back when that
//! tail has left. Without contention the two stages take exactly the time of one (the crossbar
//! and the link at the same rate), so an output buffer changes only what happens under load:
//! a packet blocked downstream no longer holds its input buffer, and the packets behind it go.

use super::*;

/// `Channel::releasing_up` flag: the release gives bytes back to the channel's own output
/// buffer (the class in the VC bits), not to a buffer upstream.
pub(super) const OUTBUF: u32 = 1 << 31;

/// The output buffer of one router output port, and its crossbar port.
#[derive(Clone)]
pub(super) struct OutBuf {
    /// Free bytes per virtual channel class.
    free: [u32; MAX_CLASSES],
    /// Packets in the buffer (their heads crossed), per class, in the order they crossed.
    q: [Fifo; MAX_CLASSES],
    /// Class to look at first (round robin).
    rr: u8,
    /// When the packet crossing into it has crossed (ps).
    until: u64,
}

impl OutBuf {
    pub(super) fn new(bytes: u32) -> OutBuf {
        OutBuf {
            free: [bytes; MAX_CLASSES],
            q: [EMPTY; MAX_CLASSES],
            rr: 0,
            until: 0,
        }
    }
}

impl Network {
    /// [`Network::try_send`] for a router channel with an output buffer: grant the crossbar
    /// if it can, then send on the link if it is idle.
    pub(super) fn try_send_ob<M: RouterModel>(
        &mut self,
        c: u32,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let ch = &self.channels[c as usize];
        let link_busy = ch.busy && ch.free_at > now.ps();
        if ch.busy && !link_busy {
            // its tail has left: apply that (the output buffer gets its bytes back)
            self.apply(c);
        }
        self.grant::<M>(c, now, q);
        if !link_busy {
            self.link_from_ob::<M>(c, now, q);
        }
    }

    /// The crossbar transfer into channel `c`'s output buffer has ended: the port may take the
    /// next packet ([`Event::XbarDone`]). (The input buffer's space was recorded for its feeder
    /// when the transfer started: `credit.rs`.)
    pub(crate) fn xbar_done(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) {
        with_model!(self.model, M => self.try_send::<M>(c, now, q))
    }

    /// The crossbar stage of channel `c`: if its crossbar port is free, the oldest request that
    /// is ready, whose input is free and whose class has room in the output buffer crosses.
    fn grant<M: RouterModel>(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) {
        if self.ob[c as usize].until > now.ps() {
            return; // its event looks again
        }
        let classes = self.classes;
        let mut next_k = self.channels[c as usize].rr as u32;
        let mut later = u64::MAX;
        for _ in 0..classes {
            let k = next_k;
            next_k = if k + 1 == classes { 0 } else { k + 1 };
            let room = self.ob[c as usize].free[k as usize];
            let (mut prev, mut pkt) = (NONE, self.channels[c as usize].queues[k as usize].head);
            while pkt != NONE {
                let p = self.packets.get(pkt);
                let waits = p.ready.ps().max(self.xbar[p.from as usize] & !STARVED_ON);
                if waits <= now.ps() && p.wire <= room {
                    break;
                }
                if waits > now.ps() {
                    later = later.min(waits);
                }
                (prev, pkt) = (pkt, p.next);
            }
            if pkt == NONE {
                continue;
            }
            self.cross::<M>(c, k, pkt, prev, now, q);
            return;
        }
        if later != u64::MAX {
            self.wake(c, Time(later), q);
        }
    }

    /// Packet `pkt` (behind `prev` in queue `k` of channel `c`) crosses into the output buffer.
    fn cross<M: RouterModel>(
        &mut self,
        c: u32,
        k: u32,
        pkt: PktId,
        prev: PktId,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let p = *self.packets.get(pkt);
        let ch = &mut self.channels[c as usize];
        ch.queued -= 1;
        ch.rr = if k + 1 == self.classes {
            0
        } else {
            k as u8 + 1
        };
        let f = &mut ch.queues[k as usize];
        if prev == NONE {
            f.head = p.next;
        } else {
            self.packets.get_mut(prev).next = p.next;
        }
        let f = &mut self.channels[c as usize].queues[k as usize];
        if f.tail == pkt {
            f.tail = prev;
        }
        if self.xmemo.0 != p.wire {
            self.xmemo = (p.wire, self.switch_bw.transfer_time(Bytes(p.wire as u64)));
        }
        let crossed = (now + self.xmemo.1)
            .max(p.tail + self.router_delay)
            .max(now + Time(1));
        self.xbar[p.from as usize] = crossed.ps();
        // the input buffer's space comes back when the tail has crossed
        self.release(p.from, crossed, p.wire, p.held_vc as u32);
        let o = &mut self.ob[c as usize];
        o.until = crossed.ps();
        o.free[k as usize] -= p.wire;
        let fifo = &mut o.q[k as usize];
        let tail = fifo.tail;
        fifo.tail = pkt;
        if tail == NONE {
            fifo.head = pkt;
        } else {
            self.packets.get_mut(tail).next = pkt;
        }
        let pm = self.packets.get_mut(pkt);
        pm.next = NONE;
        pm.ready = now;
        pm.tail = crossed;
        q.push(crossed, Event::XbarDone(c));
        if let Some(h) = self.history.as_deref_mut() {
            if h.watches(c / self.ports) {
                h.depart(pkt, (c % self.ports) as u8, now.ps(), crossed.ps());
            }
        }
        self.next_in_buffer::<M>(p.from, p.held_vc, pkt, p.in_next, crossed, now, q);
    }

    /// The link stage of idle channel `c`: sends the first packet of an output FIFO (classes
    /// in turn) whose next buffer has room.
    fn link_from_ob<M: RouterModel>(&mut self, c: u32, now: Time, q: &mut EventQueue<Event>) {
        let classes = self.classes;
        let mut next_k = self.ob[c as usize].rr as u32;
        let next_router = self.channels[c as usize].next;
        let mut credited = false;
        let mut starved = 0u8;
        for _ in 0..classes {
            let k = next_k;
            next_k = if k + 1 == classes { 0 } else { k + 1 };
            let pkt = self.ob[c as usize].q[k as usize].head;
            if pkt == NONE {
                continue;
            }
            let wire = self.packets.get(pkt).wire;
            let look = (&mut credited, &mut starved);
            let Some(vc_in) = self.claim_vc(c, k, next_router, wire, look, now) else {
                continue;
            };
            if self.asleep(c, now, q) {
                return;
            }
            self.ob[c as usize].rr = if k + 1 == classes { 0 } else { k as u8 + 1 };
            self.send::<M>(c, k, vc_in, pkt, OUTBUF, next_router, now, q);
            return;
        }
        self.starve(c, starved, now);
    }

    /// Takes `pkt`, the first of class `k`'s FIFO, out of channel `c`'s output buffer (its
    /// bytes come back when its tail has left the link).
    pub(super) fn ob_pop(&mut self, c: u32, k: u32, pkt: PktId) {
        let next = self.packets.get(pkt).next;
        let f = &mut self.ob[c as usize].q[k as usize];
        debug_assert_eq!(f.head, pkt);
        f.head = next;
        if next == NONE {
            f.tail = NONE;
        }
    }

    /// Gives `bytes` back to class `k` of channel `c`'s output buffer (its link's release).
    #[inline]
    pub(super) fn ob_free(&mut self, c: u32, k: u32, bytes: u32) {
        self.ob[c as usize].free[k as usize] += bytes;
    }

    /// The first packet of class `k` in channel `c`'s output buffer.
    pub(super) fn ob_head(&self, c: u32, k: u32) -> PktId {
        self.ob[c as usize].q[k as usize].head
    }

    /// Whether channel `c`'s crossbar could move a packet at `t` and does not (see
    /// [`Network::stalled`]).
    pub(super) fn ob_stalled(&self, c: u32, t: u64) -> Option<String> {
        let o = &self.ob[c as usize];
        let ch = &self.channels[c as usize];
        if o.until <= t {
            for k in 0..self.classes as usize {
                let mut pkt = ch.queues[k].head;
                while pkt != NONE {
                    let p = self.packets.get(pkt);
                    let free = self.xbar[p.from as usize] & !STARVED_ON <= t;
                    if p.ready.ps() <= t && free && p.wire <= o.free[k] {
                        return Some(format!(
                            "the crossbar into channel {c} was free at {} with a ready packet of \
                             {} B and {} B of output buffer",
                            Time(t),
                            p.wire,
                            o.free[k]
                        ));
                    }
                    pkt = p.next;
                }
            }
        }
        None
    }
}
