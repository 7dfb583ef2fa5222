//! Building a run's partitions: the scenario's network, NICs, ranks and layers, cut into
//! partitions by `partition.rs`, each with its share of the state.

use super::*;

impl Part {
    /// The run cut into `count` partitions for `threads` threads (when `None`, the network's
    /// default, `partition::default_count`; no more than the threads, whose partitions would
    /// run as one, unless `engine.separate_partitions`; one when the model cannot be cut: the
    /// flow model, or hops between routers that take no time), each with its share of the
    /// state (`partition.rs`).
    pub(crate) fn build(
        s: &Scenario,
        count: Option<u32>,
        threads: u32,
    ) -> (Vec<Part>, Partitioning) {
        let seed = s.jobs.first().map_or(0, |j| j.workload.seed);
        // (an MPI process holds only its own share of the channels, the root too: what it
        // reads of the others' at the end comes with their end states, `engine/across.rs`)
        let elsewhere = s.engine.process;
        let net = Network::new(
            &s.topo,
            &s.network,
            &s.node,
            s.power.as_ref(),
            seed,
            elsewhere.is_some(),
        );
        let nodes = Arc::new(Nodes::new(s));
        let nranks: usize = nodes.jobs.iter().map(|j| j.size as usize).sum();
        // two messages between one pair may take different paths: restore MPI's order
        let reorder = net.topo.multipath() || s.node.nics_per_node > 1;
        let mut nics = Nics::new(
            net.topo.terminals(),
            nodes.nics_per_node,
            s.node.dma_rate(),
            s.network.mtu,
            s.network.header_bytes,
            s.node.dma == crate::config::DmaMode::CutThrough,
        );
        // (the placement hint of a mesh or torus: one job, one rank per node)
        if net.topo.grid().is_some()
            && nodes.jobs.len() == 1
            && nranks <= crate::probe::traffic::MAX_HINT_RANKS
        {
            nics.traffic = Some(Box::new(crate::probe::traffic::Traffic::new(
                net.topo.terminals(),
            )));
        }
        let flow = s.network.model == crate::config::NetworkModel::Flow;
        let mut flows = flow.then(|| {
            Box::new(FlowNet::new(
                &net,
                net.topo.terminals(),
                s.node.dma_rate(),
                s.node.dma == crate::config::DmaMode::CutThrough,
                s.network.mtu,
                s.network.header_bytes,
            ))
        });
        let cuttable = !flow && net.epoch().is_some();
        // (a thread runs the partitions it is given as one, unless they are to stay apart; a
        // process group has one partition at least)
        let processes = s.engine.processes.max(1);
        let count = match count {
            _ if !cuttable => 1,
            Some(n) if s.engine.separate_partitions => n,
            Some(n) => n.min(threads.max(processes)),
            None => crate::partition::default_count(&net.topo, threads).max(processes),
        };
        let mut parts = Partitioning::new(&net.topo, nodes.nics_per_node, &nodes.rank_node, count);
        parts.processes = processes.min(parts.count);
        if !cuttable {
            parts.whole_because = Some(if flow {
                "the flow model is simulated as one partition"
            } else {
                "a hop between routers that takes no time keeps the network whole"
            });
        }
        let n = parts.count;
        let mpi = Mpi::new(
            s.node.eager_limit,
            s.node.mpi_overhead,
            s.node.memory_bandwidth,
            reorder,
            nranks,
        );
        let ranks = Part::ranks(&nodes, nranks, |r| {
            elsewhere.is_none_or(|me| {
                let p = parts.rank[r as usize] as u32;
                crate::perf::stable::group_of(p, parts.count, parts.processes) == me
            })
        });
        let rank_owner: Arc<[u16]> = parts.rank.clone().into();
        let slowest = net
            .slowest_link()
            .min(s.node.dma_rate())
            .min(s.node.memory_bandwidth);
        let max_bytes = crate::units::max_transfer_bytes(slowest);
        let nets = net.split(&parts, |p| {
            elsewhere.is_none_or(|r| {
                crate::perf::stable::group_of(p as u32, parts.count, parts.processes) == r
            })
        });
        let nicss = nics.split(n, parts.processes, &parts.nic);
        let mpis = mpi.split(n, parts.processes);
        let rdmas = if n == 1 {
            vec![Rdma::default()]
        } else {
            Rdma::split(n, parts.processes)
        };
        let mut out: Vec<Part> = nets
            .into_iter()
            .zip(nicss)
            .zip(mpis)
            .zip(rdmas)
            .enumerate()
            .map(|(i, (((net, nics), mpi), rdma))| {
                let id = i as u16;
                Part {
                    max_bytes,
                    now: Time::ZERO,
                    until: u64::MAX,
                    queue: EventQueue::with_bucket_shift(crate::sim::queue::bucket_shift_for(
                        parts.sizes[i].1,
                    )),
                    nics,
                    net,
                    // (the flow model is one partition)
                    flows: flows.take(),
                    rdma,
                    mpi,
                    ranks: ranks.clone().owned_by(&rank_owner, 1, id),
                    rank_owner: rank_owner.clone(),
                    mine: parts.ranks_of(id),
                    nodes: nodes.clone(),
                    current: 0,
                    node_latency: s.node.node_latency,
                    events: 0,
                    events_by_kind: [0; Event::KINDS.len()],
                    finished: 0,
                    metrics: BTreeMap::new(),
                    watch: Watch::new(&s.limits),
                    checkpoint: CHECK_EVERY,
                    #[cfg(feature = "valgrind")]
                    instr_at: crate::perf::valgrind::start_at(),
                    time_went_back: None,
                    self_check: false,
                    prefetching: false,
                    tactics: None,
                    stalled: None,
                    past_horizon: None,
                    series_in_files: false,
                    trace: None,
                    profile: None,
                    unsaid: None,
                    replays: crate::replay::Replays::default(),
                    traffic: None,
                    peak_events: 0,
                    whole: false,
                }
            })
            .collect();
        // synthetic traffic: its generators, on the NICs of each partition
        let mut queues: Vec<&mut EventQueue<Event>> =
            out.iter_mut().map(|p| &mut p.queue).collect();
        if let Some(t) = crate::openloop::Traffic::build(s, &nodes, &parts.nic, &mut queues) {
            for (p, t) in out.iter_mut().zip(t) {
                p.traffic = Some(Box::new(t));
            }
        }
        (out, parts)
    }

    /// Every rank of the run, as built; only those `mine` holds true for are written when
    /// not every one is (an MPI process: the others stay zero pages it never touches,
    /// `perf/slab.rs`, but at the root, where the other processes' end states are read in).
    pub(super) fn ranks(nodes: &Nodes, nranks: usize, mine: impl Fn(u32) -> bool) -> Ranks {
        let built = nodes.jobs.iter().flat_map(|j| {
            let rng = Xoshiro::from_seed(j.seed);
            (j.base..j.base + j.size).map(move |i| (i, rng))
        });
        if (0..nranks as u32).all(&mine) {
            return Ranks::new(built.map(|(i, rng)| Rank::new(i, rng)).collect());
        }
        let mut ranks = Ranks::zeroed(nranks);
        for (i, rng) in built.filter(|&(i, _)| mine(i)) {
            ranks[i as usize] = Rank::new(i, rng);
        }
        for (lo, hi) in crate::perf::slab::runs(nranks, |r| mine(r as u32)) {
            ranks.advise(lo, hi);
        }
        ranks
    }
}
