//! Fat tree, dragonfly and Tofu through the whole engine: hop counts worked out by
//! hand, deadlock freedom under saturating load, the bandwidth the fat-tree routings reach.

mod common;
use common::*;

/// A scenario on `network` (TOML lines of `[network]`) where every rank runs `code`.
fn on(network: &str, ranks: u64, code: &str) -> String {
    format!("[network]\n{network}\n[workload]\nranks = {ranks}\ncode = '''{code}'''\n")
}

/// One put of `bytes` from rank `src` to rank `dst`, every other rank idle.
fn one_put(network: &str, ranks: u64, src: u32, dst: u32, bytes: u64) -> mgensim::Report {
    run(&on(
        network,
        ranks,
        &format!(
            "local me = MGEN_Comm_rank()
             if me == {src} then MGEN_acp_complete(MGEN_rdma_put({dst}, {bytes}, 0)) end
             if me == {dst} then MGEN_rdma_poll(0) end"
        ),
    ))
}

const TRACERP_TREE: &str = "topology = 'fattree'\nradix = 24\nlevels = 2";
const TRACERP_DRAGONFLY: &str = "topology = 'dragonfly'";

#[test]
fn hop_counts_match_the_routes_worked_out_by_hand() {
    // Each put is its data packets and one control packet; each packet crosses the source
    // NIC's link, the router-to-router links of its route, and the destination NIC's link.
    // 4096 B = 2 packets of the default 2 KiB MTU, +1 control packet.
    let cases: &[(&str, u64, u32, u32, u64)] = &[
        // fat tree: same leaf (0 router links), across a spine (2)
        (TRACERP_TREE, 288, 0, 11, 0),
        (TRACERP_TREE, 288, 0, 12, 2),
        (TRACERP_TREE, 288, 5, 287, 2),
        // dragonfly: same router; same group, other router (1 local); group 0 to group 3
        // where the global link lands on the destination's router (1 global); one more local
        (TRACERP_DRAGONFLY, 342, 0, 1, 0),
        (TRACERP_DRAGONFLY, 342, 0, 4, 1),
        (TRACERP_DRAGONFLY, 342, 0, 54, 1),
        (TRACERP_DRAGONFLY, 342, 0, 57, 2),
        // Tofu [2,3,4]: node (a,b,c,x,y,z) = (1,2,1,1,2,3) from the origin: 6 hops, b, y and
        // z the short way round
        (
            "topology = 'tofu'\ndims = [2, 3, 4]",
            288,
            0,
            1 + 4 + 6 + 12 * (1 + 4 + 18),
            6,
        ),
        // HyperX 4x4x2, 2 nodes a router: as many hops as coordinates differ
        (HYPERX, 64, 0, 1, 0),
        (HYPERX, 64, 0, 6, 1),
        (HYPERX, 64, 0, 2 * (3 + 4 * 3), 2),
        (HYPERX, 64, 0, 2 * (2 + 4 * 3 + 16), 3),
        (HYPERX, 64, 5, 2 * (2 + 4 * 3 + 16), 2),
    ];
    for &(net, ranks, src, dst, links) in cases {
        let r = one_put(net, ranks, src, dst, 4096);
        assert_eq!(r.network.packets, 3, "{net}: {src}->{dst}");
        assert_eq!(
            r.network.packet_hops,
            3 * (links + 2),
            "{net}: {src}->{dst} should take {links} router-to-router links"
        );
        let s = scenario(&on(net, ranks, ""), &[]);
        assert_eq!(s.distance(src, dst) as u64, links, "{net}: {src}->{dst}");
    }
}

#[test]
fn dragonfly_global_hops_minimal_one_valiant_two() {
    // group 0 to group 3: data (2 packets) and control (1) each cross one global link
    // minimally, two through Valiant's intermediate group
    let minimal = one_put(TRACERP_DRAGONFLY, 342, 0, 54, 4096);
    assert_eq!(minimal.network.global_hops, 3);
    let valiant = one_put(
        &format!("{TRACERP_DRAGONFLY}\nrouting = 'valiant'"),
        342,
        0,
        54,
        4096,
    );
    assert_eq!(valiant.network.global_hops, 6);
    // within a group Valiant stays minimal: no global link at all
    let local = one_put(
        &format!("{TRACERP_DRAGONFLY}\nrouting = 'valiant'"),
        342,
        0,
        4,
        4096,
    );
    assert_eq!(local.network.global_hops, 0);
    assert_eq!(local.network.packet_hops, 3 * 3);
}

/// All-to-all by puts, every rank at once, `bytes` per pair.
const ALL_TO_ALL: &str = "
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
local hs = {}
for i = 1, p - 1 do hs[#hs + 1] = MGEN_rdma_put((me + i) % p, MGEN_args.bytes, 7) end
for i = 1, p - 1 do MGEN_rdma_poll(7) end
for _, h in ipairs(hs) do MGEN_acp_complete(h) end
";

/// A random permutation: every rank sends `bytes` to its image, by messages.
const PERMUTATION: &str = "
local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
local perm = {}
for i = 0, p - 1 do perm[i] = i end
for i = p - 1, 1, -1 do local j = math.random(0, i); perm[i], perm[j] = perm[j], perm[i] end
local from
for i = 0, p - 1 do if perm[i] == me then from = i end end
local r = MGEN_Irecv(from, MGEN_args.bytes, 3)
MGEN_Send(perm[me], MGEN_args.bytes, 3)
MGEN_Wait(r)
";

/// Every topology and routing, small enough for CI, with buffers of exactly one packet.
fn every_network() -> Vec<(String, u64)> {
    let tight = "mtu = '512 B'\nbuffer_bytes = '528 B'";
    let mut v = vec![
        (format!("topology = 'torus'\ndims = [4, 3, 2]\n{tight}"), 24),
        (format!("topology = 'mesh'\ndims = [4, 3, 2]\n{tight}"), 24),
        (format!("topology = 'tofu'\ndims = [1, 2, 2]\n{tight}"), 48),
    ];
    for r in ["straight_up", "straight_down", "random"] {
        v.push((
            format!("topology = 'fattree'\ndown_ports = [4, 4, 4]\nup_ports = [4, 4, 0]\nrouting = '{r}'\n{tight}"),
            64,
        ));
    }
    for r in ["minimal", "valiant", "ugal"] {
        v.push((
            format!("topology = 'dragonfly'\nrouters_per_group = 4\nnodes_per_router = 2\nglobal_links_per_router = 2\nrouting = '{r}'\n{tight}"),
            72,
        ));
    }
    for r in ["dimension_order", "ugal"] {
        v.push((
            format!("topology = 'hyperx'\ndims = [4, 3, 2]\nnodes_per_router = 2\nlinks_per_pair = 2\nrouting = '{r}'\n{tight}"),
            48,
        ));
    }
    v
}

const HYPERX: &str = "topology = 'hyperx'\ndims = [4, 4, 2]\nnodes_per_router = 2";

/// HyperX latencies by hand: a 64 B put crosses the routers of its route, one per dimension
/// its ends differ in (a dimension is one hop however far along it), each with its cable and
/// pipeline: the same router (node 0 to node 1), one dimension (router (0,0,0) to (3,0,0)),
/// two (to (3,3,0)) and three (to (2,3,1)).
#[test]
fn hyperx_latencies_are_one_hop_per_dimension_by_hand() {
    let p = Params::nsim_ace();
    let at = |node: u32| node / 2;
    for (dst, routers) in [
        (1u32, 1u64),
        (2 * 3, 2),
        (2 * (3 + 4 * 3), 3),
        (2 * (2 + 4 * 3 + 16), 4),
    ] {
        assert_eq!(
            landed(HYPERX, 64, 0, dst, 64, ""),
            2 * p.dma(64) + p.fly(80, routers),
            "node 0 to node {dst} (router {})",
            at(dst)
        );
        let r = one_put(HYPERX, 64, 0, dst, 64);
        let h = r.network.message_hops.unwrap();
        assert_eq!(
            (h.mean, h.max),
            ((routers - 1) as f64, (routers - 1) as u32)
        );
    }
}

/// UGAL over a dimension derouts when the direct link is loaded: every node of router 0
/// sends 2 MB to a node of router 3 in a 1-D HyperX of 6 routers of 8 nodes, so the direct
/// link is the only minimal path; dimension order sends it all there, UGAL moves some through
/// the 4 other routers and finishes sooner. Both deliver every byte, and each detour is
/// counted.
#[test]
fn hyperx_ugal_spreads_a_hot_pair_over_the_other_routers() {
    let run_it = |routing: &str| {
        run(&on(
            &format!(
                "topology = 'hyperx'\ndims = [6]\nnodes_per_router = 8\nrouting = '{routing}'"
            ),
            48,
            "local me = MGEN_Comm_rank()
             if me < 8 then MGEN_acp_complete(MGEN_rdma_put(24 + me, 2097152, 0)) end
             if me >= 24 and me < 32 then MGEN_rdma_poll(0) end",
        ))
    };
    let (dor, ugal) = (run_it("dimension_order"), run_it("ugal"));
    assert_eq!(dor.network.bytes, 8 * 2097152);
    assert_eq!(ugal.network.bytes, 8 * 2097152);
    assert_eq!(dor.network.nonminimal_packets, 0);
    assert!(ugal.network.nonminimal_packets > 0);
    assert!(
        ugal.predicted_time_ps < dor.predicted_time_ps,
        "{} against {}",
        ugal.predicted_time_ps,
        dor.predicted_time_ps
    );
    assert_eq!(dor.network.message_hops.unwrap().max, 1);
    assert_eq!(ugal.network.message_hops.unwrap().max, 2);
}

#[test]
fn saturating_all_to_all_and_permutations_complete_on_every_topology_and_routing() {
    for (net, ranks) in every_network() {
        let r = run(&format!(
            "[network]\n{net}\n[workload]\nranks = {ranks}\nargs = {{ bytes = 4096 }}\ncode = '''{ALL_TO_ALL}'''\n"
        ));
        let puts = ranks * (ranks - 1);
        assert_eq!(r.network.transfers, puts, "{net}");
        // 8 data packets of 512 B and one control packet per put, all delivered
        assert_eq!(r.network.packets, puts * 9, "{net}");
        assert_eq!(r.network.packets_delivered, r.network.packets, "{net}");
        assert_eq!(r.network.bytes, puts * 4096, "{net}");
        assert!(r.warnings.is_empty(), "{net}: {:?}", r.warnings);
        for seed in 1..=3 {
            let r = run_with(
                &format!(
                    "[network]\n{net}\n[workload]\nranks = {ranks}\nseed = {seed}\nargs = {{ bytes = 65536 }}\ncode = '''{PERMUTATION}'''\n"
                ),
                &[],
            );
            assert_eq!(r.network.bytes, ranks * 65536, "{net} seed {seed}");
            assert!(r.warnings.is_empty(), "{net}: {:?}", r.warnings);
        }
    }
}

#[test]
fn minimal_routes_cross_exactly_the_distance_on_every_deterministic_network() {
    // all-to-all hop count = Σ over pairs of (packets per put) × (distance + 2)
    for (net, ranks) in every_network() {
        if net.contains("random") || net.contains("valiant") || net.contains("ugal") {
            continue;
        }
        let r = run(&format!(
            "[network]\n{net}\n[workload]\nranks = {ranks}\nargs = {{ bytes = 1024 }}\ncode = '''{ALL_TO_ALL}'''\n"
        ));
        let s = scenario(&on(&net, ranks, ""), &[]);
        let mut hops = 0;
        for a in 0..ranks as u32 {
            for b in 0..ranks as u32 {
                if a != b {
                    hops += 3 * (s.distance(a, b) as u64 + 2);
                }
            }
        }
        assert_eq!(r.network.packet_hops, hops, "{net}");
    }
}

#[test]
fn random_up_ports_reach_the_injection_bandwidth_where_fixed_rules_collide() {
    // TraceRP's 288-node tree, HPCC random ring of 2 MB puts. The NIC's DMA (2.8 GB/s) is the
    // bottleneck of a node; random up ports spread the traffic over the 12 spines and every
    // rank gets close to it. Source- or destination-based up ports send several flows through
    // one spine link: the slowest rank gets far less.
    // With one VC per input, an input-queued switch blocks behind a head whose random up port
    // is busy (head-of-line blocking, which caps random outputs near 59 % of a link); 4 VCs
    // give each input four queues.
    let bw = |routing: &str| {
        let r = run_file(
            "scenarios/fattree_random_ring.toml",
            &[&format!("network.routing={routing}"), "network.vcs=4"],
        );
        let m = &r.metrics["bandwidth_GBps"];
        (m.min, m.mean)
    };
    let (rmin, rmean) = bw("random");
    assert!(rmean > 0.95 * 2.8, "random: mean {rmean} GB/s");
    assert!(rmin > 0.9 * 2.8, "random: min {rmin} GB/s");
    for fixed in ["straight_up", "straight_down"] {
        let (min, mean) = bw(fixed);
        assert!(min < 0.5 * rmin, "{fixed}: min {min} against random {rmin}");
        assert!(
            mean < 0.8 * rmean,
            "{fixed}: mean {mean} against random {rmean}"
        );
    }
}

#[test]
fn adaptive_routes_never_reorder_mpi_messages() {
    // 0 sends 200 small messages back to back to the last rank (another dragonfly group,
    // another half of the fat tree), message i with tag i; whatever path each took, it matches them in order with MGEN_ANY_TAG (MPI's non-overtaking rule).
    // Without the receiver's reordering, Valiant's random detours make later ones overtake.
    let code = "
        local me = MGEN_Comm_rank()
        if me == 0 then
          local rs = {}
          for i = 1, 200 do rs[i] = MGEN_Isend(MGEN_Comm_size() - 1, 8, i) end
          MGEN_Waitall(rs)
        elseif me == MGEN_Comm_size() - 1 then
          for i = 1, 200 do
            local st = MGEN_Recv(0, 8, MGEN_ANY_TAG)
            assert(st.tag == i, ('message %d was matched as the %dth'):format(st.tag, i))
          end
        end";
    for net in [
        format!("{TRACERP_DRAGONFLY}\nrouting = 'valiant'"),
        format!("{TRACERP_DRAGONFLY}\nrouting = 'ugal'"),
        "topology = 'fattree'\nradix = 8\nlevels = 3\nrouting = 'random'".to_string(),
    ] {
        let r = run(&on(&net, 128, code));
        assert_eq!(r.network.bytes, 8 * 200, "{net}");
    }
}

#[test]
fn the_same_seed_gives_the_same_run_on_adaptive_routes() {
    for routing in ["ugal", "valiant"] {
        let toml = format!(
            "[network]\n{TRACERP_DRAGONFLY}\nrouting = '{routing}'\n[workload]\nseed = 4\nargs = {{ bytes = 2048 }}\ncode = '''{PERMUTATION}'''\n"
        );
        let a = run(&toml);
        let b = run(&toml);
        assert_eq!(deterministic_json(&a), deterministic_json(&b));
        // another seed draws other routes (and another permutation): some of three differ
        let others: Vec<u64> = (5..=7)
            .map(|s| run_with(&toml, &[&format!("workload.seed={s}")]).predicted_time_ps)
            .collect();
        assert!(
            others.iter().any(|&t| t != a.predicted_time_ps),
            "{routing}: {} and {others:?}",
            a.predicted_time_ps
        );
    }
}

/// When rank `dst` had the put from `src` (`extra` are more `[network]` lines).
fn landed(net: &str, ranks: u64, src: u32, dst: u32, bytes: u64, extra: &str) -> u64 {
    one_put(&format!("{net}\n{extra}"), ranks, src, dst, bytes).per_rank[dst as usize].finish_ps
}

#[test]
fn each_link_class_has_its_own_latency_and_rate() {
    let p = Params::nsim_ace();
    // dragonfly 0 -> 54: one global link on the way (see the hop counts above)
    let global = |extra: &str| landed(TRACERP_DRAGONFLY, 342, 0, 54, 64, extra);
    let base = global("");
    assert_eq!(
        global("global_cable_latency = '6 ns'"),
        base + 6_000 - p.cable,
        "a global cable ten times as long"
    );
    // a global link at 1 GB/s: the 80 B packet's tail leaves it 60 ns later than at 4 GB/s
    // (virtual cut-through: the faster links after it wait for the tail)
    assert_eq!(
        global("global_link_bandwidth = '1 GB/s'"),
        base + 80_000 - p.ser(80)
    );
    // a local-only route is not touched
    assert_eq!(
        landed(
            TRACERP_DRAGONFLY,
            342,
            0,
            4,
            64,
            "global_cable_latency = '6 ns'"
        ),
        landed(TRACERP_DRAGONFLY, 342, 0, 4, 64, "")
    );
    // fat tree 0 -> 12: leaf, spine, leaf: two links above the leaves
    let tree = landed(TRACERP_TREE, 288, 0, 12, 64, "");
    assert_eq!(
        landed(
            TRACERP_TREE,
            288,
            0,
            12,
            64,
            "level_cable_latency = ['5 ns']"
        ),
        tree + 2 * (5_000 - p.cable)
    );
    // NIC links (injection and ejection) on a mesh: two of them on any route
    let mesh = "topology = 'mesh'\ndims = [4]";
    let flat = landed(mesh, 2, 0, 1, 64, "");
    assert_eq!(flat, 2 * p.dma(64) + p.fly(80, 2));
    assert_eq!(
        landed(mesh, 2, 0, 1, 64, "nic_cable_latency = '2 ns'"),
        flat + 2 * (2_000 - p.cable)
    );
    // NIC links at 1 GB/s: the packet serializes at that rate, the tail pacing the rest
    assert_eq!(
        landed(mesh, 2, 0, 1, 64, "nic_link_bandwidth = '1 GB/s'"),
        flat + 80_000 - p.ser(80)
    );
    // keys of another topology, or of the wrong length, are refused by name
    let e = refused("topology = 'torus'\ndims = [4]\nglobal_cable_latency = '6 ns'");
    assert!(
        e.contains("network.global_cable_latency") && e.contains("a dragonfly"),
        "{e}"
    );
    let e = refused(&format!(
        "{TRACERP_TREE}\nlevel_link_bandwidth = ['1 GB/s', '2 GB/s']"
    ));
    assert!(
        e.contains("network.level_link_bandwidth") && e.contains("give 1"),
        "{e}"
    );
}

/// The error a scenario on `net` (4 ranks) is refused with.
fn refused(net: &str) -> String {
    let at = project().join("scenarios/test.toml");
    mgensim::Scenario::from_str_with(&on(net, 4, ""), &at, &[], false)
        .expect_err("refused")
        .to_string()
}

/// A HyperX's keys are checked by name: a dimension past a router's 255 ports, a dimension
/// of no router, the key of another family, a routing it does not have.
#[test]
fn hyperx_keys_out_of_range_are_refused_by_name() {
    // (scenario's network, the key named, words of the reason)
    let cases = [
        // 4 nodes + 3 × (100 − 1) ports = 301
        (
            "topology = 'hyperx'\ndims = [100]\nlinks_per_pair = 3\nnodes_per_router = 4",
            "network.dims",
            "301 ports",
        ),
        (
            "topology = 'hyperx'\ndims = [4, 0]",
            "network.dims",
            "0 routers",
        ),
        (
            "topology = 'hyperx'\ndims = [4]\nlinks_per_pair = 0",
            "network.links_per_pair",
            "1 to 255",
        ),
        (
            "topology = 'torus'\ndims = [4]\nlinks_per_pair = 2",
            "network.links_per_pair",
            "a HyperX",
        ),
        (
            "topology = 'hyperx'\ndims = [4]\nrouting = 'valiant'",
            "network.routing",
            "dimension_order, ugal",
        ),
        (
            "topology = 'hyperx'\ndims = [4]\nvcs = 1\nrouting = 'ugal'",
            "network.vcs",
            "2 virtual channel classes",
        ),
    ];
    for (net, key, words) in cases {
        let e = refused(net);
        assert!(e.contains(key) && e.contains(words), "{net}: {e}");
    }
}
