//! TraceRP's five benchmarks (`lua/mgen/tracerp.lua`): each moves exactly the bytes
//! its pattern says, completes on the three networks of TraceRP's Table 1, and the shipped
//! scenarios run.

mod common;
use common::*;

fn bench(bench: &str, ranks: u32, dims: &str, extra: &str) -> mgensim::Report {
    run(&format!(
        "[network]\ntopology = 'torus'\ndims = {dims}\n[workload]\nranks = {ranks}\n\
         code = 'require(\"mgen.tracerp\").run(MGEN_args)'\n\
         args = {{ bench = '{bench}', iters = 2, compute = 1e-6 {extra} }}\n"
    ))
}

fn sent(r: &mgensim::Report) -> u64 {
    r.per_rank.iter().map(|s| s.bytes_sent).sum()
}

#[test]
fn stencil4d_sends_a_face_to_each_of_its_distinct_neighbours() {
    // 81 ranks: a 3x3x3x3 grid, 8 distinct neighbours; 16 ranks: 2x2x2x2, where -1 and +1
    // are the same rank, 4 distinct neighbours
    for (p, dims, peers) in [(81, "[3, 3, 9]", 8), (16, "[4, 4]", 4)] {
        let r = bench("stencil4d", p, dims, ", bytes = 1000");
        assert_eq!(sent(&r), 2 * p as u64 * peers * 1000, "p = {p}");
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        assert!(r.metrics["iteration_s"].mean > 1e-6);
    }
}

#[test]
fn permutation_shifts_and_transposes() {
    // q = 4: per iteration 3 shifts of A and B by every rank, then 12 off-diagonal ranks swap
    let r = bench("permutation", 16, "[4, 4]", ", bytes = 500");
    assert_eq!(sent(&r), 2 * (16 * 3 * 2 + 12) * 500);
    // 18 ranks: the 2 beyond 4x4 only compute
    let r = bench("permutation", 18, "[3, 6]", ", bytes = 500");
    assert_eq!(sent(&r), 2 * (16 * 3 * 2 + 12) * 500);
    assert_eq!(r.per_rank[17].bytes_sent, 0);
}

#[test]
fn a2a_and_qbox_move_what_their_collectives_say() {
    let r = bench("a2a", 12, "[3, 4]", ", bytes = 100");
    assert_eq!(sent(&r), 2 * 12 * 11 * 100);
    // qbox: two all-to-alls of bytes/p per pair, an allreduce, a broadcast; every rank takes
    // part and all of it is received
    let r = bench(
        "qbox",
        8,
        "[2, 4]",
        ", bytes = 8000, reduce_bytes = 64, bcast_bytes = 32",
    );
    let a2a = 2 * 2 * 8 * 7 * 1000;
    // recursive-doubling allreduce: 3 exchanges of 64 B per rank; binomial broadcast: 7
    // messages of 32 B
    assert_eq!(sent(&r), a2a + 2 * (8 * 3 * 64 + 7 * 32));
    let received: u64 = r.per_rank.iter().map(|s| s.bytes_received).sum();
    assert_eq!(received, sent(&r));
}

#[test]
fn near_neighbor_is_symmetric_and_irregular() {
    // a non-symmetric neighbour list would deadlock; sizes must agree pairwise too, or the
    // receives would be truncated (received bytes would differ from sent)
    for p in [16, 30, 64] {
        let r = bench("near_neighbor", p, "[8, 8]", ", bytes = 1000, extra = 3");
        let received: u64 = r.per_rank.iter().map(|s| s.bytes_received).sum();
        assert_eq!(received, sent(&r), "p = {p}");
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        // irregular: ranks do not all send the same
        let mut per: Vec<u64> = r.per_rank.iter().map(|s| s.bytes_sent).collect();
        per.sort();
        assert!(per[0] < per[per.len() - 1], "p = {p}");
    }
}

#[test]
fn the_shipped_scenarios_run_on_the_three_networks() {
    for topo in ["fattree", "torus", "dragonfly"] {
        let r = run_file(
            &format!("scenarios/tracerp/{topo}.toml"),
            &["workload.args.iters=1", "power.t_sleep=\"5 us\""],
        );
        let p = r.power.as_ref().expect("[power]");
        assert!(p.enabled && p.low_power_fraction > 0.0, "{topo}");
        assert!(p.energy_j < p.always_on_energy_j, "{topo}");
        assert_eq!(
            r.ranks.count,
            match topo {
                "fattree" => 288,
                "torus" => 256,
                _ => 342,
            }
        );
    }
    let e = run_err(
        "[network]\ndims = [2]\n[workload]\ncode = 'require(\"mgen.tracerp\").run(MGEN_args)'\n\
         args = { bench = 'nope' }\n",
    );
    assert!(
        e.contains("unknown benchmark \"nope\"") && e.contains("stencil4d"),
        "{e}"
    );
}
