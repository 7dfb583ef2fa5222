//! What the flow model (`net/flow`) asks of the packet network: a message's route as a list of
//! channels, the time its first packet would take alone, and the links' counters and power
//! state kept from flows rather than packets.

use super::*;

/// Most hops a route may have before it is taken for a loop (no topology comes near).
const MAX_HOPS: usize = 4096;

impl Network {
    /// The channels a packet from NIC `src` to NIC `dst` crosses, injection first and the
    /// link into `dst` last, by the routing the packet model uses (random choices drawn from
    /// the same generator; UGAL sees no queues, so it goes minimal).
    pub(crate) fn path(&mut self, src: u32, dst: u32, now: Time) -> Vec<u32> {
        let inject = self.injection_channel(src);
        let mut out = vec![inject];
        let pkt = self.packets.alloc(Packet::new(0, 0, src, dst));
        let at = self.nic_slot(src) / self.ports;
        let p = self.packets.get_mut(pkt);
        (p.at, p.from) = (at, inject);
        while out.len() < MAX_HOPS {
            let (c, _) = self.route(pkt, now);
            out.push(c);
            match self.slot_fed(c) {
                Some(slot) => self.packets.get_mut(pkt).at = slot / self.ports,
                None => break,
            }
        }
        self.packets.release(pkt);
        out
    }

    /// The rate of channel `c` (bytes per second).
    pub(crate) fn channel_rate(&self, c: u32) -> Bandwidth {
        self.class_bw[((self.channels[c as usize].flags >> CLASS_SHIFT) & CLASS_MASK) as usize]
    }

    /// When the first packet of a message (`payload` bytes, `wire` on the wire) handed to its
    /// NIC at 0 would be in its destination's memory, alone in the network, along `path`:
    /// the packet model's rules of docs/model.md §2-3 applied hop by hop.
    pub(crate) fn lone_packet(
        &self,
        path: &[u32],
        payload: u64,
        wire: u32,
        dma: Bandwidth,
        cut_through: bool,
    ) -> Time {
        let read = dma.transfer_time(Bytes(payload));
        // (cut-through: the head goes out as the read starts; the tail once it is done)
        let (mut head, mut tail) = if cut_through {
            (Time::ZERO, read)
        } else {
            (read, read)
        };
        for &c in path {
            let router = c < self.nr;
            let pipeline = if router {
                self.router_delay
            } else {
                Time::ZERO
            };
            let class = ((self.channels[c as usize].flags >> CLASS_SHIFT) & CLASS_MASK) as usize;
            let ser = self.class_bw[class].transfer_time(Bytes(wire as u64));
            let leaves = (head + ser).max(tail + pipeline).max(head + Time(1));
            let cable = self.class_cable[class];
            tail = leaves + cable;
            head += cable;
            if self.slot_fed(c).is_some() {
                head += self.router_delay;
            }
        }
        if cut_through {
            (head + read).max(tail)
        } else {
            tail + read
        }
    }

    /// A flow crossed channel `c`: `wire` bytes in `packets` packets that started at `from`,
    /// busy for `busy` in all (its counters, the run's totals, and the bytes and packets of
    /// the time series; the flow model gives the series its busy time as the flow's rate
    /// changes, `net/flow`).
    pub(crate) fn account(&mut self, c: u32, wire: u64, packets: u32, busy: Time, from: Time) {
        let ch = &mut self.channels[c as usize];
        ch.bytes += wire;
        ch.busy_ps += busy.ps();
        ch.packets = ch.packets.saturating_add(packets);
        self.stats.packet_hops += packets as u64;
        self.stats.link_bytes += wire;
        if c < self.nr && self.slot_fed(c).is_some() {
            let flags = self.channels[c as usize].flags;
            self.stats.wrap_hops += packets as u64 * (flags & WRAP != 0) as u64;
            self.stats.global_hops += packets as u64 * (flags & GLOBAL != 0) as u64;
        }
        if let Some(s) = &mut self.series {
            s.counted(c, from.ps(), wire, packets as u64);
        }
    }

    /// A flow starts on channel `c`, idle until now (`[power]`): the time it takes to wake.
    pub(crate) fn link_wakes(&mut self, c: u32, now: Time) -> Time {
        let Some(pw) = self.power.as_deref_mut() else {
            return Time::ZERO;
        };
        match pw.ready(c, now.ps()) {
            Ready::Send => Time::ZERO,
            Ready::Wake { slept, until } => {
                if let Some(s) = self.series.as_deref_mut() {
                    s.low(c, slept, now.ps());
                }
                Time(until - now.ps())
            }
        }
    }

    /// Channel `c` was not busy from `from` to `to` (ps) after all, though counted so (a
    /// control message at flow level past the run's stop, `net/flow`): its counter and its
    /// time series give that time back.
    pub(crate) fn unbusy(&mut self, c: u32, from: u64, to: u64) {
        let ch = &mut self.channels[c as usize];
        ch.busy_ps = ch.busy_ps.saturating_sub(to.saturating_sub(from));
        if let Some(s) = &mut self.series {
            s.unbusy(c, from, to);
        }
    }

    /// The last flow on channel `c` has ended at `now` (`[power]`).
    pub(crate) fn link_idle(&mut self, c: u32, now: Time) {
        if let Some(pw) = self.power.as_deref_mut() {
            pw.idle(c, now.ps());
        }
    }
}
