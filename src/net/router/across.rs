//! A packet across a cut: the router's [`Arrival`] and [`Packet`] as the plain cut message
//! [`Arrive`] (`cut.rs`), and back on the far side.

use super::Arrival;
use crate::cut::Arrive;
use crate::net::packet::Packet;
use crate::units::Time;

impl Arrive {
    /// The message for packet `p`, sent across the cut as `a`.
    #[inline]
    pub(crate) fn new(a: &Arrival, p: &Packet) -> Arrive {
        debug_assert_eq!((a.ready, a.from, a.hop), (p.ready.ps(), p.from, [0; 4]));
        Arrive {
            ready: a.ready,
            sent: a.sent,
            tail: p.tail.ps(),
            msg: p.msg,
            wire: p.wire,
            src: p.src,
            dst: p.dst,
            at: p.at,
            from: a.from,
            held: a.held,
            aux: p.aux,
            held_vc: p.held_vc,
            vc: p.vc,
            dim: p.dim,
            hops: p.hops,
            only: p.only,
        }
    }

    /// The arrival (its packet still to be placed in the receiver's pool: `pkt` is 0) and the
    /// packet, as the sender had them.
    #[inline]
    pub(crate) fn parts(&self) -> (Arrival, Packet) {
        let mut p = Packet::new(self.msg, self.wire, self.src, self.dst);
        p.tail = Time(self.tail);
        p.ready = Time(self.ready);
        p.at = self.at;
        p.from = self.from;
        p.vc = self.vc;
        p.held_vc = self.held_vc;
        p.dim = self.dim;
        p.aux = self.aux;
        p.hops = self.hops;
        p.only = self.only;
        let a = Arrival {
            ready: self.ready,
            sent: self.sent,
            pkt: 0,
            from: self.from,
            held: self.held,
            hop: [0; 4],
        };
        (a, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::NONE;

    #[test]
    fn a_packet_crosses_a_cut_with_every_field_its_next_router_reads() {
        let mut p = Packet::new(7, 1_056, 3, 900);
        p.tail = Time(5_000_123);
        p.ready = Time(4_700_001);
        p.at = 41;
        p.from = 333;
        p.vc = 2;
        p.held_vc = 1;
        p.dim = 2;
        p.aux = 0x1234;
        p.hops = 9;
        // what the sender's pool and queues made of it, which means nothing across the cut
        (p.next, p.in_next, p.asked) = (17, 18, Time(99));
        let a = Arrival {
            ready: 4_700_001,
            sent: 4_500_000,
            pkt: 55,
            from: 333,
            held: 2_112,
            hop: [0; 4],
        };
        let (b, q) = Arrive::new(&a, &p).parts();
        assert_eq!(
            (b.ready, b.sent, b.from, b.held, b.hop),
            (a.ready, a.sent, 333, 2_112, [0; 4])
        );
        assert_eq!((q.tail, q.ready, q.asked), (p.tail, p.ready, Time::ZERO));
        assert_eq!(
            (q.msg, q.wire, q.src, q.dst, q.at, q.from),
            (7, 1_056, 3, 900, 41, 333)
        );
        assert_eq!(
            (q.vc, q.held_vc, q.dim, q.aux, q.hops),
            (2, 1, 2, 0x1234, 9)
        );
        assert_eq!((q.next, q.in_next, q.arrived), (NONE, NONE, false));
    }
}
