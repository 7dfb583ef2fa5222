//! What a run says about itself: each node's DMA engines and NIC links (`nodes.csv`), the
//! busiest routers, and the line naming what bounded the run, on workloads whose bound is
//! known by construction.

mod common;
use common::*;

/// Rank 0 puts `bytes` to rank 1 on a two-node mesh and waits for the acknowledgement.
fn one_put(bytes: u64, sets: &[&str]) -> mgensim::Report {
    run_with(
        &format!(
            "[network]\ndims = [2]\n[workload]\ncode = '''
            if MGEN_Comm_rank() == 0 then MGEN_acp_complete(MGEN_rdma_put(1, {bytes}, 0))
            else MGEN_rdma_poll(0) end'''\n"
        ),
        sets,
    )
}

#[test]
fn node_figures_are_the_dma_and_link_times_of_the_packets() {
    let p = Params::nsim_ace();
    // 10 000 B: four 2 KiB packets and one of 1808 B, and an acknowledgement back
    let r = one_put(10_000, &[]);
    let payloads = [2048u64, 2048, 2048, 2048, 1808];
    let dma: u64 = payloads.iter().map(|&b| p.dma(b)).sum();
    let wire: u64 = payloads.iter().map(|&b| p.ser(b + p.header)).sum();
    let (a, b) = (&r.per_node[0], &r.per_node[1]);
    assert_eq!((a.nics, a.ranks, b.ranks), (1, 1, 1));
    assert_eq!((a.tx_dma_busy_ps, a.rx_dma_busy_ps), (dma, 0));
    assert_eq!(
        (b.tx_dma_busy_ps, b.rx_dma_busy_ps),
        (0, dma),
        "the ack needs no DMA"
    );
    assert_eq!(a.injection_busy_ps, wire);
    assert_eq!(b.ejection_busy_ps, wire);
    assert_eq!(b.injection_busy_ps, p.ser(p.header), "the ack");
    assert_eq!(a.injected_bytes, 10_000 + 5 * p.header);
    // the transmit DMA is the slowest stage of the pipeline (2.8 GB/s against 4 GB/s links):
    // it is busy from the start until the last packet is read, most of the run
    let bound = r.bound.as_ref().expect("a bound");
    assert_eq!(bound.kind, "dma", "{}", bound.reason);
    assert!(
        bound.reason.starts_with("node 0's transmit DMA was busy"),
        "{}",
        bound.reason
    );
    let span = span_ps(&r);
    let csv = mgensim::output::table_csv(&r, "nodes").unwrap().unwrap();
    let line: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(line[..4], ["0", "1", "1", &dma.to_string()]);
    assert_eq!(line[4], format!("{:.6}", dma as f64 / span as f64));
    let text = r.to_string();
    assert!(
        text.contains("busiest nodes      node 0: transmit DMA"),
        "{text}"
    );
    assert!(
        text.contains("bounded by         dma: node 0's transmit DMA"),
        "{text}"
    );
}

#[test]
fn slow_links_make_the_injection_link_the_bound() {
    // links at 1 GB/s against DMA at 2.8 GB/s
    let r = one_put(100_000, &["network.link_bandwidth=1GB/s"]);
    let bound = r.bound.unwrap();
    assert_eq!(bound.kind, "injection", "{}", bound.reason);
    assert!(
        bound.reason.starts_with("node 0's injection link"),
        "{}",
        bound.reason
    );
}

#[test]
fn a_link_two_transfers_share_is_the_bound() {
    // 0 -> 2 and 1 -> 3 on a line of four: both cross router 1 -> router 2, which carries
    // twice what any NIC link does
    let r = run(
        "[network]\ntopology = 'mesh'\ndims = [4]\nlink_bandwidth = '1 GB/s'\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me < 2 then MGEN_acp_complete(MGEN_rdma_put(me + 2, 200000, 0))
        else MGEN_rdma_poll(0) end'''\n",
    );
    let bound = r.bound.clone().unwrap();
    assert_eq!(bound.kind, "link", "{}", bound.reason);
    assert!(
        bound.reason.contains("-> router 2 was busy"),
        "{}",
        bound.reason
    );
    assert!(
        bound.reason.starts_with("router 1 port"),
        "{}",
        bound.reason
    );
    // router 1 sends that link's load, and router 2 as much again to NIC 2 and router 3
    // (a router's load: its output ports' busy time, summed, as `routers.csv` has it)
    let busy = |router: u32| -> u64 {
        r.per_link
            .iter()
            .filter(|l| l.port.is_some() && l.from == router)
            .map(|l| l.busy.ps())
            .sum()
    };
    assert_eq!(busy(1), busy(2));
    assert!(busy(1) > busy(0) * 3 / 2, "router 0 sends one transfer on");
}

#[test]
fn compute_calls_and_waiting_are_told_apart() {
    let ring = |sets: &[&str]| run_file("scenarios/barrier.toml", sets).bound.unwrap().kind;
    let small = ["network.dims=[4,4]", "workload.ranks=16"];
    // NSIM-ACE's node latency of 0.6 us per put dwarfs the network's 0.1-0.4 us per hop
    assert_eq!(ring(&small), "calls");
    // without it, each rank only waits for its neighbour's put
    let mut none = small.to_vec();
    none.push("node.node_latency=0ns");
    assert_eq!(ring(&none), "waiting");
    let r = run("[network]\ndims = [2]\n[workload]\ncode = '''
        MGEN_Comp(1e-5)
        if MGEN_Comm_rank() == 0 then MGEN_acp_complete(MGEN_rdma_put(1, 8, 0))
        else MGEN_rdma_poll(0) end'''\n");
    let b = r.bound.unwrap();
    assert_eq!(b.kind, "compute");
    assert!(
        b.reason.starts_with("rank 0 (the last to finish) spent 9"),
        "{}",
        b.reason
    );
}

/// Router-to-router links of the data messages: a ring of 16 ranks on a 4x4 torus, placed
/// linearly, sends 12 messages one link (along x) and 4 two links (from the end of a row of
/// four to the start of the next: one along x over the wrap-around, one along y), in every
/// round of the ring barrier: a mean of (12 + 8) / 16 = 1.25 and a most of 2, in both models.
#[test]
fn hops_per_message_are_counted_on_the_links_the_data_took() {
    for model in ["packet", "flow"] {
        let r = run_file(
            "scenarios/barrier.toml",
            &[
                "network.dims=[4,4]",
                "workload.ranks=16",
                "workload.args.algo=ring",
                &format!("network.model={model}"),
            ],
        );
        let h = r.network.message_hops.expect("data messages");
        assert_eq!((h.mean, h.max), (1.25, 2), "{model}");
        assert!(
            r.to_string()
                .contains("message hops       mean 1.25  max 2  (router-to-router links"),
            "{model}"
        );
        assert_eq!(r.network.placement_hint, None, "a ring placed as a ring");
    }
}

/// The links between two ranks of a 6x6x6 halo exchange (neighbours by rank arithmetic),
/// placed linearly on an 8x8x8 torus: worked out on coordinates.
fn halo_links_placed_linearly() -> f64 {
    let (mut links, mut messages) = (0u64, 0u64);
    for r in 0..216u32 {
        let c = [r % 6, r / 6 % 6, r / 36];
        for d in 0..3 {
            for v in [c[d].wrapping_sub(1), c[d] + 1] {
                if v < 6 {
                    let mut n = c;
                    n[d] = v;
                    let to = n[0] + 6 * n[1] + 36 * n[2];
                    let (a, b) = ([r % 8, r / 8 % 8, r / 64], [to % 8, to / 8 % 8, to / 64]);
                    links += (0..3)
                        .map(|i| a[i].abs_diff(b[i]).min(8 - a[i].abs_diff(b[i])) as u64)
                        .sum::<u64>();
                    messages += 1;
                }
            }
        }
    }
    links as f64 / messages as f64
}

/// The case: a 6x6x6 grid of ranks placed linearly on an 8x8x8 torus is slower than
/// 512 ranks. The hint finds the grid, says how far its data went and would go, and the map
/// it describes, written out, puts every message one link away and runs faster.
#[test]
fn a_grid_placed_linearly_on_a_torus_of_another_width_gets_a_placement_hint() {
    let r = run_file("scenarios/halo3d.toml", &[]);
    let placed = halo_links_placed_linearly();
    let h = r.network.placement_hint.clone().expect("a hint");
    assert_eq!(h.grid, vec![6, 6, 6]);
    assert_eq!(h.grid_hops, 1.0);
    // 512 NICs: the hint counts a fixed sample of about 256 sources (every message carries
    // the same bytes, so its mean is near the whole's); the hops per message count them all
    assert_eq!(h.sampled, Some(2));
    assert!(
        (h.placed_hops - placed).abs() < 0.05,
        "{} {placed}",
        h.placed_hops
    );
    assert_eq!(r.network.message_hops.unwrap().mean, placed);
    let text = r.to_string();
    assert!(
        text.contains("placement hint     the ranks' data (the messages of about one rank in 2")
            && text.contains(
                "node = c0 + 8*c1 + 64*c2 for (c0, ...) = (r mod 6, (r div 6) mod 6, r div 36)"
            ),
        "{text}"
    );
    // the map the hint describes
    let dir = tempfile::tempdir().unwrap();
    for f in ["halo3d.toml", "halo3d.lua"] {
        std::fs::copy(project().join("scenarios").join(f), dir.path().join(f)).unwrap();
    }
    let map: String = (0..216u32)
        .map(|r| {
            let (x, y, z) = (r % 6, r / 6 % 6, r / 36);
            format!("{r} {}\n", x + 8 * y + 64 * z)
        })
        .collect();
    std::fs::write(dir.path().join("map.txt"), map).unwrap();
    let toml = dir.path().join("halo3d.toml");
    let text = std::fs::read_to_string(&toml).unwrap() + "\n[placement]\nfile = \"map.txt\"\n";
    std::fs::write(&toml, text).unwrap();
    let better = run_path(&toml);
    let hb = better.network.message_hops.unwrap();
    assert_eq!((hb.mean, hb.max), (1.0, 1));
    assert_eq!(better.network.placement_hint, None);
    assert!(better.predicted_time_ps < r.predicted_time_ps);
    // 512 ranks as an 8x8x8 grid are a block already
    let full = run_file(
        "scenarios/halo3d.toml",
        &["workload.ranks=512", "workload.args.grid=[8,8,8]"],
    );
    assert_eq!(full.network.placement_hint, None);
    assert_eq!(full.network.message_hops.unwrap().max, 1);
}
