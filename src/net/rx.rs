//! The packets each NIC's receive DMA is writing to memory whose release is not an event.
//!
//! A data packet's receive-buffer credit goes back to the router when the NIC's DMA has
//! written it (`nic.rs`). Only the last packet of a message needs an event then (its message
//! is delivered); for the others, the release matters only to a packet waiting at the link
//! into the NIC for that credit. So, as for the routers' releases (`router.rs`), the others
//! are kept here and applied, at their own times, by whoever next looks at that link's credit;
//! a look that finds too little credit asks for an event at the oldest one
//! ([`crate::sim::Event::RxWake`]).
//!
//! One FIFO per NIC, oldest first: the receive DMA writes one packet after another, so the
//! times they are done increase along it. It is chained through the packets themselves
//! ([`Packet::next`], free once a packet has left the network), each done at its
//! [`Packet::ready`]. Invariant: a queue holds only packets that came by the network (a
//! loopback packet never held credit) and are not the last of their message.
//!
//! [`Packet::next`]: super::packet::Packet::next
//! [`Packet::ready`]: super::packet::Packet::ready

use super::packet::{PacketPool, PktId, NONE};
use crate::units::Time;

/// One NIC's queue.
#[derive(Clone, Copy)]
struct Fifo {
    head: PktId,
    tail: PktId,
    /// When the last wake-up asked for is (ps; `u64::MAX`: none), so that a look that finds
    /// too little credit asks once per packet, not once per look.
    wake_at: u64,
}

/// Every NIC's queue.
pub struct RxQueues {
    fifos: Vec<Fifo>,
    /// Packets in all the queues.
    len: usize,
}

impl RxQueues {
    pub fn new(nics: u32) -> RxQueues {
        let empty = Fifo {
            head: NONE,
            tail: NONE,
            wake_at: u64::MAX,
        };
        RxQueues {
            fifos: vec![empty; nics as usize],
            len: 0,
        }
    }

    /// Appends `pkt` to NIC `nic`'s queue, done at `done` (no earlier than the packet ahead).
    #[inline]
    pub fn push(&mut self, nic: u32, pkt: PktId, done: Time, packets: &mut PacketPool) {
        let p = packets.get_mut(pkt);
        p.ready = done;
        p.next = NONE;
        let f = &mut self.fifos[nic as usize];
        if f.tail == NONE {
            f.head = pkt;
        } else {
            debug_assert!(packets.get(f.tail).ready <= done);
            packets.get_mut(f.tail).next = pkt;
        }
        f.tail = pkt;
        self.len += 1;
    }

    /// Packets in all the queues.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Takes NIC `nic`'s oldest packet if it is done by `now` (ps).
    #[inline]
    pub fn pop_done(&mut self, nic: u32, now: u64, packets: &PacketPool) -> Option<PktId> {
        let f = &mut self.fifos[nic as usize];
        if f.head == NONE || packets.get(f.head).ready.ps() > now {
            return None;
        }
        let pkt = f.head;
        f.head = packets.get(pkt).next;
        if f.head == NONE {
            f.tail = NONE;
        }
        self.len -= 1;
        Some(pkt)
    }

    /// When NIC `nic`'s oldest packet is done, if no wake-up was asked for then already
    /// (ps); records that one is.
    #[inline]
    pub fn wake(&mut self, nic: u32, packets: &PacketPool) -> Option<u64> {
        let f = &mut self.fifos[nic as usize];
        if f.head == NONE {
            return None;
        }
        let at = packets.get(f.head).ready.ps();
        if f.wake_at == at {
            return None;
        }
        f.wake_at = at;
        Some(at)
    }

    /// The bytes (wire) of NIC `nic`'s packets done by `now` (ps), not taken yet.
    pub fn done_bytes(&self, nic: u32, now: u64, packets: &PacketPool) -> u64 {
        let mut p = self.fifos[nic as usize].head;
        let mut bytes = 0;
        while p != NONE && packets.get(p).ready.ps() <= now {
            bytes += packets.get(p).wire as u64;
            p = packets.get(p).next;
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::net::topology::NO_DIM;

    fn packet(wire: u32) -> Packet {
        Packet {
            tail: Time::ZERO,
            ready: Time::ZERO,
            msg: 0,
            wire,
            src: 0,
            dst: 0,
            at: 0,
            from: 0,
            next: NONE,
            next_ready: Time::ZERO,
            vc: 0,
            held_vc: 0,
            dim: NO_DIM,
            aux: 0,
        }
    }

    #[test]
    fn packets_come_out_oldest_first_once_done_and_a_wake_up_is_asked_once() {
        let mut pool = PacketPool::default();
        let (a, b, c) = (
            pool.alloc(packet(100)),
            pool.alloc(packet(200)),
            pool.alloc(packet(300)),
        );
        let mut rx = RxQueues::new(2);
        rx.push(1, a, Time(10), &mut pool);
        rx.push(1, b, Time(20), &mut pool);
        rx.push(0, c, Time(5), &mut pool);
        assert_eq!((rx.done_bytes(1, 20, &pool), rx.len()), (300, 3));
        assert_eq!(rx.pop_done(1, 9, &pool), None);
        assert_eq!(rx.wake(1, &pool), Some(10));
        assert_eq!(rx.wake(1, &pool), None, "asked for already");
        assert_eq!(rx.pop_done(1, 10, &pool), Some(a));
        assert_eq!(rx.wake(1, &pool), Some(20), "the next one's time");
        assert_eq!(rx.pop_done(1, 30, &pool), Some(b));
        assert_eq!((rx.pop_done(1, 30, &pool), rx.wake(1, &pool)), (None, None));
        assert_eq!(rx.pop_done(0, 5, &pool), Some(c), "NICs are apart");
        assert_eq!(rx.len(), 0);
    }
}
