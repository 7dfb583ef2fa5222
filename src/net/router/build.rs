//! Building the network: channels, buffers and routers from the topology and the scenario,
//! and the classes of links (`link_classes`).

use super::*;

impl Network {
    /// The network of shape `topo` with the routers and links `net` describes, for nodes as
    /// `node` describes them (NICs per node and their rate), with links that sleep if `power`
    /// says so; `seed` seeds the random choices of routing (fat tree up-routes, dragonfly
    /// Valiant). With `only_own` (an MPI process, the root too), the per-channel state
    /// (channels, credit, input FIFOs, releases) is left as zero pages, which take no memory,
    /// and only this process's share is written when the network is split
    /// ([`Network::split`]): the process never touches the rest.
    pub(crate) fn new(
        topo: &Topo,
        net: &NetworkConfig,
        node: &NodeConfig,
        power: Option<&PowerConfig>,
        seed: u64,
        only_own: bool,
    ) -> Network {
        let topo = topo.clone();
        let routers = topo.routers();
        let ports = topo.ports() as u32;
        let classes = topo.vcs() as u32;
        let vcs = net.vc_count(topo.vcs()).clamp(classes, MAX_VCS as u32);
        let mut vc_lo = [vcs as u8; MAX_CLASSES + 1];
        for (k, lo) in vc_lo.iter_mut().enumerate().take(classes as usize) {
            *lo = (k as u32 * vcs / classes) as u8;
        }
        let iq = net.router == RouterKind::InputQueued;
        let terminals = topo.terminals();
        let mut link_to = Vec::with_capacity((routers * ports) as usize);
        for r in 0..routers {
            for q in 0..ports {
                link_to.push(
                    match (topo.neighbour(r, q as u8), topo.port_nic(r, q as u8)) {
                        (Some((n, back)), _) => n * ports + back as u32,
                        (None, Some(nic)) => TO_NIC | nic,
                        (None, None) => NONE,
                    },
                );
            }
        }
        let nchan = (routers * ports + terminals) as usize;
        let cap = net.buffer_bytes.0 as u32;
        let ob_bytes = if iq {
            net.output_buffer_bytes.0 as u32
        } else {
            0
        };
        let (class_bw, class_cable) = link_classes(&topo, net, node, ob_bytes > 0);
        // (queuing a packet at its next router as it is sent needs every hop to take the same
        // time, head to head: NIC links as slow as the others)
        let early = topo.fixed_routes()
            && class_cable[CLASS_INJECT as usize] == class_cable[CLASS_LINK as usize];
        let mut net = Network {
            returns: Returns::new(nchan, only_own),
            arrivals: Arrivals::default(),
            epoch_shift: None,
            topo,
            ports,
            classes,
            vcs,
            vc_lo,
            inq: match (iq, only_own) {
                (false, _) => SharedVec::new(Vec::new()),
                (true, false) => SharedVec::new(vec![IN_EMPTY; nchan * vcs as usize]),
                (true, true) => SharedVec::zeroed(nchan * vcs as usize),
            },
            xbar: SharedVec::new(if iq { vec![0; nchan] } else { Vec::new() }),
            model: Model::of(net.router, ob_bytes),
            ob: SharedVec::new(if ob_bytes > 0 {
                vec![OutBuf::new(ob_bytes); (routers * ports) as usize]
            } else {
                Vec::new()
            }),
            switch_bw: net.switch_bandwidth,
            xmemo: (0, Time::ZERO),
            routers,
            nr: routers * ports,
            link_to: link_to.into(),
            channels: if only_own {
                SharedVec::zeroed(nchan)
            } else {
                SharedVec::new(vec![Channel::idle(); nchan])
            },
            credit: if only_own {
                SharedVec::zeroed(nchan * vcs as usize)
            } else {
                SharedVec::new(vec![cap; nchan * vcs as usize])
            },
            capacity: cap,
            early,
            packets: PacketPool::default(),
            prefetching: false,
            router_delay: net.router_delay(),
            class_bw,
            class_cable,
            memo: [(0, Time::ZERO); CLASSES],
            rngs: if only_own {
                SharedVec::zeroed(routers as usize)
            } else {
                SharedVec::new(
                    (0..routers)
                        .map(|r| Xoshiro::for_entity(seed, r as u64))
                        .collect(),
                )
            },
            stats: NetworkStats::default(),
            series: None,
            history: None,
            power: power
                .filter(|p| p.enabled)
                .map(|p| Box::new(Power::new(p.t_sleep.ps(), p.t_wake.ps(), nchan))),
            me: 0,
            parts: 1,
            owner: vec![0u16; nchan].into(),
            router_owner: vec![0u16; routers as usize].into(),
            fed_owner: vec![0u16; nchan].into(),
            outbox: vec![Default::default()],
            cut_held: Default::default(),
            overflowed: None,
            peak_packets: 0,
            unfilled: only_own,
            let_go: false,
            seed,
            ends: Vec::new(),
        };
        if !only_own {
            net.wire();
        }
        net.epoch_shift = net.epoch_shift();
        net
    }
}

impl Channel {
    /// A channel as the run starts: idle, nothing queued, nothing counted (its `next` and
    /// `flags` are [`Network::wired`]'s).
    pub(super) fn idle() -> Channel {
        Channel {
            queues: [EMPTY; MAX_CLASSES],
            queued: 0,
            busy: false,
            scheduled: false,
            rr: 0,
            flags: 0,
            free_at: 0,
            wake_at: u64::MAX,
            next: NONE,
            releasing_up: NONE,
            releasing: NONE,
            released_staging: false,
            waiting: 0,
            occ_moment: 0,
            credit_wake_at: u64::MAX,
            blocked_ps: 0,
            bytes: 0,
            busy_ps: 0,
            occ_peak: 0,
            packets: 0,
            occ: 0,
            blocked: false,
        }
    }
}

impl Network {
    /// Writes the state at the start of the run of each channel `mine` says this process
    /// simulates, and of the buffer each feeds where `mine_fed` says so: a network built
    /// with `only_own` ([`Network::new`]), whose other channels stay zero pages.
    pub(super) fn fill(&mut self, mine: impl Fn(usize) -> bool, mine_fed: impl Fn(usize) -> bool) {
        let vcs = self.vcs as usize;
        let iq = self.inq.len() > 0;
        for r in 0..self.rngs.len() {
            if mine(r * self.ports as usize) {
                self.rngs[r] = Xoshiro::for_entity(self.seed, r as u64);
            }
        }
        for c in 0..self.channels.len() {
            if mine(c) {
                let (next, flags) = self.wired(c as u32);
                self.channels[c] = Channel {
                    next,
                    flags,
                    ..Channel::idle()
                };
                for v in 0..vcs {
                    self.credit[c * vcs + v] = self.capacity;
                }
                self.returns.forget(c);
            }
            if iq && mine_fed(c) {
                for v in 0..vcs {
                    self.inq[c * vcs + v] = IN_EMPTY;
                }
            }
        }
        // (huge pages over the runs this process owns only: `perf/slab.rs`)
        use crate::perf::slab::runs;
        for (lo, hi) in runs(self.channels.len(), &mine) {
            self.channels.advise(lo, hi);
            self.credit.advise(lo * vcs, hi * vcs);
            self.returns.lists.advise(lo, hi);
        }
        if iq {
            for (lo, hi) in runs(self.channels.len(), &mine_fed) {
                self.inq.advise(lo * vcs, hi * vcs);
            }
        }
        self.unfilled = false;
    }
}

/// Each link class's rate and latency from the scenario: links between routers at the slower
/// of their link and switch (the link's own rate when output buffers make the crossbar a stage
/// of its own, `outbuf`); NIC links at `network.nic_link_bandwidth` (injection also capped
/// by `node.nic_bandwidth`, and with no switch before it); the topology's own classes (a
/// dragonfly's global links, a fat tree's levels, a graph's classes) at their own figures
/// where given.
fn link_classes(
    topo: &Topo,
    net: &NetworkConfig,
    node: &NodeConfig,
    outbuf: bool,
) -> ([Bandwidth; CLASSES], [Time; CLASSES]) {
    let switch = if outbuf {
        Bandwidth::INFINITE
    } else {
        net.switch_bandwidth
    };
    let nic_link = net.nic_link_bandwidth.unwrap_or(net.link_bandwidth);
    let nic_cable = net.nic_cable_latency.unwrap_or(net.cable_latency);
    let mut bw = [net.link_bandwidth.min(switch); CLASSES];
    let mut cable = [net.cable_latency; CLASSES];
    bw[CLASS_INJECT as usize] = node.nic_bandwidth.unwrap_or(nic_link).min(nic_link);
    bw[CLASS_EJECT as usize] = nic_link.min(switch);
    cable[CLASS_INJECT as usize] = nic_cable;
    cable[CLASS_EJECT as usize] = nic_cable;
    for (i, c) in topo
        .link_classes()
        .iter()
        .take(MAX_LINK_CLASSES)
        .enumerate()
    {
        let k = CLASS_FAMILY as usize + i;
        if let Some(b) = c.bandwidth {
            bw[k] = b.min(switch);
        }
        if let Some(t) = c.latency {
            cable[k] = t;
        }
    }
    (bw, cable)
}
