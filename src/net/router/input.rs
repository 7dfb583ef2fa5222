//! Input buffers as FIFOs and the crossbar's input ports: the rules of the input-queued
//! router models ([`super::model::RouterModel::INPUT_FIFOS`]; NSIM §3.1, docs/model.md §3).
//!
//! A packet enters the FIFO of its virtual channel in the input buffer it arrives in; only
//! the first of each FIFO is in its output's queue, asking from the moment it became first
//! (`Packet::asked`). When it leaves, its input's crossbar port is busy until its tail has
//! crossed (`Network::xbar`), and the packet behind it, now first, is routed and asks for its
//! output.

use super::*;

impl Network {
    /// Input-queued: whether `pkt` is the first packet of the input buffer it holds.
    #[inline]
    pub(super) fn first_in_buffer(&self, pkt: PktId) -> bool {
        let p = self.packets.get(pkt);
        self.inq[(p.from * self.vcs + p.held_vc as u32) as usize].head == pkt
    }

    /// Input-queued: `pkt` enters virtual channel `vc` of the buffer channel `c` feeds, last.
    /// If it is the first there, returns when that buffer was last left empty (it asks for its
    /// output from then on at the earliest).
    #[inline]
    pub(super) fn in_push(&mut self, c: u32, vc: u32, pkt: PktId) -> Option<u64> {
        self.packets.get_mut(pkt).in_next = NONE;
        let f = &mut self.inq[(c * self.vcs + vc) as usize];
        let tail = f.tail;
        f.tail = pkt;
        if tail == NONE {
            f.head = pkt;
            Some(f.emptied)
        } else {
            self.packets.get_mut(tail).in_next = pkt;
            None
        }
    }

    /// Input-queued: `pkt`, the first of virtual channel `vc` of the buffer `from` feeds,
    /// leaves it at `now` (its crossbar transfer ends at `crossed`); `behind`, now first, asks
    /// for its output, which looks no earlier than `crossed` (the input is busy until then).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn next_in_buffer<M: RouterModel>(
        &mut self,
        from: u32,
        vc: u8,
        pkt: PktId,
        behind: PktId,
        crossed: Time,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        let f = &mut self.inq[(from * self.vcs + vc as u32) as usize];
        debug_assert_eq!(
            f.head, pkt,
            "only the first packet of an input buffer leaves it"
        );
        f.head = behind;
        if behind == NONE {
            f.tail = NONE;
            f.emptied = now.ps();
            return;
        }
        let h = behind;
        let hp = *self.packets.get(h);
        let (c, vc) = if self.early {
            let hop = self.fixed_hop(&hp);
            self.follow(h, hop)
        } else if !hp.arrived {
            // (not yet through the pipeline: its own event routes it)
            return;
        } else {
            self.route(h, now)
        };
        self.packets.get_mut(h).asked = now;
        self.enqueue::<M>(c, vc, h);
        self.look_at::<M>(c, crossed.max(hp.ready), q);
    }

    /// Input-queued: channel `c` takes the crossbar port of the input fed by `from` (its
    /// virtual channel `vc`) until its packet's tail has crossed (called before `xbar` says
    /// so). An output of the same router that waits for credit may have, as the first packet
    /// it could take, the head of another virtual channel of that input: that packet now waits
    /// for the crossbar as well, and one behind it, from another input, may have room
    /// downstream. Exactly those outputs look again at this picosecond, and only when some
    /// output starved on a packet of this input since its crossbar was last taken
    /// ([`STARVED_ON`]) and another virtual channel of the input has a packet (else no output
    /// has one of its packets queued).
    #[inline]
    pub(super) fn input_taken(
        &mut self,
        from: u32,
        vc: u8,
        c: u32,
        now: Time,
        q: &mut EventQueue<Event>,
    ) {
        if self.xbar[from as usize] & STARVED_ON == 0 {
            return;
        }
        let base = (from * self.vcs) as usize;
        let others =
            (0..self.vcs as usize).any(|v| v != vc as usize && self.inq[base + v].head != NONE);
        if !others {
            return;
        }
        let first = c - c % self.ports;
        for o in first..first + self.ports {
            let ch = &self.channels[o as usize];
            if o != c
                && ch.waiting != 0
                && !(ch.busy && ch.free_at > now.ps())
                && self.first_from(o, from, now)
            {
                self.wake(o, now, q);
            }
        }
    }

    /// Input-queued: whether, in some class of output `o`'s queue, the first packet that could
    /// go at `now` (ready, its input's crossbar free) is one of the input fed by `from`.
    fn first_from(&self, o: u32, from: u32, now: Time) -> bool {
        let ch = &self.channels[o as usize];
        for f in &ch.queues[..self.classes as usize] {
            let mut pkt = f.head;
            while pkt != NONE {
                let p = self.packets.get(pkt);
                if p.ready.ps() <= now.ps() && self.xbar[p.from as usize] & !STARVED_ON <= now.ps()
                {
                    if p.from == from {
                        return true;
                    }
                    break;
                }
                pkt = p.next;
            }
        }
        false
    }
}
