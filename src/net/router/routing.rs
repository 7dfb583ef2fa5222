//! Routing: the next hop of a packet at a router, as its topology's family decides it
//! (`topology/`), with what adaptive routing may see of this router's queues.

use super::*;
use crate::topology::Routers;

/// What a family's routing may ask of the routers at time `now`: their random streams and the
/// queues on their outputs, for a packet of `wire` bytes.
struct Here<'a> {
    channels: &'a SharedVec<Channel>,
    returns: &'a Returns,
    rngs: &'a mut SharedVec<Xoshiro>,
    nonminimal: &'a mut u64,
    ports: u32,
    now: u64,
    wire: u32,
}

impl Routers for Here<'_> {
    #[inline]
    fn draw(&mut self, at: RouterId) -> u64 {
        self.rngs[at as usize].next_u64()
    }
    /// Bytes queued for the output: those it has sent into the buffer it feeds and that are
    /// still there at `now` (the credit it has used: BookSim's measure), and the packets
    /// waiting for it here, each counted at the routed packet's size (only their number is
    /// kept). Read only by adaptive routing: nothing is kept for it.
    #[inline]
    fn queue(&self, at: RouterId, port: u8) -> u64 {
        let c = at * self.ports + port as u32;
        let ch = &self.channels[c as usize];
        let held = (ch.occ as u64).saturating_sub(self.returns.due_all(c, self.now));
        held + ch.queued as u64 * self.wire as u64
    }
    #[inline]
    fn packet_bytes(&self) -> u64 {
        self.wire as u64
    }
    #[inline]
    fn derouted(&mut self) {
        *self.nonminimal += 1;
    }
}

/// Where packet `p` is, as routing sees it.
#[inline]
fn at(p: &Packet) -> At {
    At {
        at: p.at,
        src: p.src,
        dst: p.dst,
        vc: p.vc,
        dim: p.dim,
        aux: p.aux,
    }
}

impl Network {
    /// Routes packet `pkt` at router `p.at` (at time `now`): the channel it leaves by and the
    /// virtual channel it takes there (also written into the packet).
    #[inline]
    pub(super) fn route(&mut self, pkt: PktId, now: Time) -> (u32, usize) {
        let hop = self.next_hop(pkt, now);
        self.follow(pkt, hop)
    }

    /// The hop packet `pkt` takes from router `p.at` (at time `now`).
    #[inline]
    pub(super) fn next_hop(&mut self, pkt: PktId, now: Time) -> Hop {
        let packet = self.packets.get(pkt);
        let (p, wire) = (at(packet), packet.wire);
        let mut here = Here {
            channels: &self.channels,
            returns: &self.returns,
            rngs: &mut self.rngs,
            nonminimal: &mut self.stats.nonminimal,
            ports: self.ports,
            now: now.ps(),
            wire,
        };
        self.topo.route(p, &mut here)
    }

    /// The hop of a packet whose routes are fixed (`Topo::fixed_routes`): it asks nothing of
    /// the routers.
    #[inline]
    pub(super) fn fixed_hop(&self, p: &Packet) -> Hop {
        self.topo.route(at(p), &mut NoRouters)
    }

    /// Packet `pkt` takes hop `hop` from router `p.at`: the channel it leaves by and the
    /// virtual channel it takes there (also written into the packet).
    #[inline]
    pub(super) fn follow(&mut self, pkt: PktId, hop: Hop) -> (u32, usize) {
        let pm = self.packets.get_mut(pkt);
        let at = pm.at;
        if hop.dim != NO_DIM {
            pm.dim = hop.dim;
        }
        pm.aux = hop.aux;
        pm.vc = hop.vc;
        (self.router_channel(at, hop.port as u32), hop.vc as usize)
    }
}
