//! The synchronization paper's barriers (scenarios/barrier.lua): the orderings it reports.

mod common;
use common::*;

fn barrier(algo: &str, p: u32, node_latency: &str) -> u64 {
    run_file(
        "scenarios/barrier.toml",
        &[
            &format!("workload.args.algo={algo}"),
            &format!("workload.ranks={p}"),
            "network.dims=[4,4,8]",
            &format!("node.node_latency=\"{node_latency}\""),
        ],
    )
    .predicted_time_ps
}

#[test]
fn recursive_doubling_beats_ring_from_four_ranks() {
    for p in [4, 5, 8, 16, 33, 64] {
        let ring = barrier("ring", p, "0.6 us");
        let rd = barrier("rd", p, "0.6 us");
        assert!(rd < ring, "p = {p}: rd {rd} ps, ring {ring} ps");
    }
}

#[test]
fn recursive_doubling_is_slower_just_above_a_power_of_two() {
    for n in [2, 3, 4, 6] {
        let p = 1u32 << n;
        let at = barrier("recursive_doubling", p, "0.6 us");
        let above = barrier("recursive_doubling", p + 1, "0.6 us");
        assert!(at < above, "p = {p}: {at} ps, p + 1: {above} ps");
    }
}

#[test]
fn ring_steps_grow_linearly_and_rd_steps_logarithmically() {
    // with a large node latency, each step costs about one node latency plus a flight
    let ring8 = barrier("ring", 8, "2 us") as f64;
    let ring16 = barrier("ring", 16, "2 us") as f64;
    assert!(
        (ring16 / ring8 - 15.0 / 7.0).abs() < 0.1,
        "{}",
        ring16 / ring8
    );
    let rd8 = barrier("rd", 8, "2 us") as f64;
    let rd64 = barrier("rd", 64, "2 us") as f64;
    assert!((rd64 / rd8 - 2.0).abs() < 0.15, "{}", rd64 / rd8);
}

#[test]
fn nobody_leaves_before_the_last_rank_enters() {
    for algo in ["ring", "rd"] {
        for p in [2u64, 3, 5, 8, 13] {
            // rank i enters at i microseconds; the last one at p-1
            let code = format!(
                "[network]\ndims = [4, 4]\n[workload]\nranks = {p}\ncode = '''
                 MGEN_Comp(MGEN_Comm_rank() * 1e-6)
                 MGEN_args = {{ algo = '{algo}' }} -- this rank's own global
                 assert(loadfile('{}', 't', _ENV))()'''\n",
                project().join("scenarios/barrier.lua").display()
            );
            let r = run(&code);
            assert!(
                r.ranks.finish_ps.min > (p - 1) * 1_000_000,
                "{algo}, p = {p}: {:?}",
                r.ranks.finish_ps
            );
        }
    }
}

#[test]
fn a_repeat_count_below_one_is_refused_by_name() {
    for bad in ["0", "-2", "1.5"] {
        let o = mgensim_in(
            &project(),
            &[
                "run",
                "scenarios/barrier.toml",
                "--set",
                &format!("workload.args.repeat={bad}"),
                "--set",
                "workload.ranks=8",
            ],
        );
        let err = stderr(&o);
        assert!(!o.status.success(), "repeat = {bad} ran");
        assert!(
            err.contains("args.repeat must be a whole number") && err.contains("barrier.lua:"),
            "{err}"
        );
    }
}
