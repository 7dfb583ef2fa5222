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

#[test]
fn the_barrier_lesson_times_every_algorithm_and_the_steps_tell_them_apart() {
    let r = run_file("scenarios/barrier_lesson.toml", &[]);
    let mean = |algo: &str| {
        let m = &r.metrics[&format!("{algo}_s")];
        assert_eq!(m.count, 64, "{algo}: every rank reports");
        m.mean
    };
    // every algorithm of coll.barrier is there (rd is recursive_doubling's other name)
    let names: Vec<&str> = r.metrics.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "binomial_s",
            "central_s",
            "dissemination_s",
            "recursive_doubling_s",
            "ring_s"
        ]
    );
    // on 64 ranks the ring takes 63 steps one after another, recursive doubling log2 64 = 6
    // steps of the same message: the times stand as the steps do (within a quarter: the steps
    // are not all the same length)
    let (ring, rd) = (mean("ring"), mean("recursive_doubling"));
    let ratio = ring / rd;
    assert!(
        (63.0 / 6.0 * 0.75..63.0 / 6.0 * 1.25).contains(&ratio),
        "{ring} / {rd} = {ratio}"
    );
    // dissemination also takes 6 steps; the central barrier's 2 steps queue 63 messages at
    // rank 0, which makes it slower than any of the log p ones, and faster than the ring
    let diss = mean("dissemination");
    assert!((diss / rd - 1.0).abs() < 0.25, "{diss} against {rd}");
    let central = mean("central");
    assert!(central > mean("binomial") && central < ring, "{central}");
    // the lesson runs on other counts too
    let r = run_file("scenarios/barrier_lesson.toml", &["workload.ranks=8"]);
    assert_eq!(r.metrics.len(), 5);
}
