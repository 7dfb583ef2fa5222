//! Routing: the next hop of a packet at a router (mesh and torus by dimension order; fat tree
//! and dragonfly at the router), and the dragonfly's adaptive choice.

use super::*;

/// Mesh and torus: the hop from router `at`, on virtual channel `vc` and correcting dimension
/// `dim`, of a packet to NIC `dst` (`tpr` NICs per router).
#[inline]
pub(super) fn cube_hop(cube: &Cube, tpr: u32, at: RouterId, dst: u32, vc: u8, dim: u8) -> Hop {
    cube.route(at, dst / tpr, (dst % tpr) as u8, vc, dim)
}

/// Packets a HyperX's direct queue may exceed the detour's (times its hops) before UGAL
/// derouts: without it, a single packet ahead would send the next one the long way, which
/// costs uniform traffic more than it saves (bench/hyperx_saturation; docs/performance.md).
pub(super) const UGAL_THRESHOLD: u64 = 4;

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
        let p = *self.packets.get(pkt);
        match &self.topo {
            Topo::Cube(c) => cube_hop(c, self.tpr, p.at, p.dst, p.vc, p.dim),
            Topo::FatTree(f) => {
                let rng = &mut self.rngs[p.at as usize];
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
            Topo::HyperX(h) => match h.routing {
                HyperXRouting::DimensionOrder => h.route(p.at, p.src, p.dst),
                HyperXRouting::Ugal => {
                    let rng = &mut self.rngs[p.at as usize];
                    match h.ugal(p.at, p.src, p.dst, p.dim, || rng.next_u64()) {
                        Ok(hop) => hop,
                        Err((direct, detour)) => self.hyperx_choice(p.at, direct, detour, now.ps()),
                    }
                }
            },
        }
    }

    /// UGAL-L over a HyperX's dimension: the direct hop unless its queue exceeds the queue on
    /// the detour's first hop times its 2 hops by more than [`UGAL_THRESHOLD`] packets.
    fn hyperx_choice(&mut self, at: RouterId, direct: Hop, detour: Hop, now: u64) -> Hop {
        let queue = |port: u8| {
            let ch = &self.channels[(at * self.ports + port as u32) as usize];
            ch.queued as u64 + (ch.busy && ch.free_at > now) as u64
        };
        if queue(direct.port) <= 2 * queue(detour.port) + UGAL_THRESHOLD {
            direct
        } else {
            self.stats.nonminimal += 1;
            detour
        }
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

    /// The route a dragonfly packet takes from its source router: minimal, Valiant through a
    /// random group, or (UGAL-L) whichever has the smaller product of queue on its first hop
    /// and path length.
    pub(super) fn dragonfly_choice(&mut self, at: RouterId, dst: u32, now: u64) -> u16 {
        let Topo::Dragonfly(d) = &self.topo else {
            return 0;
        };
        match d.routing {
            DragonflyRouting::Minimal => dragonfly::MINIMAL,
            DragonflyRouting::Valiant => d.valiant(at, dst, self.rngs[at as usize].next_u64()),
            DragonflyRouting::Ugal => {
                let via = d.valiant(at, dst, self.rngs[at as usize].next_u64());
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
}
