//! A rank whose script ran ahead of a stop (a script runs on through `MGEN_Comp` until it
//! must wait) reads as it was at the stop in everything a stopped run writes: its clock, its
//! compute, its state, the profile, the timeline and what bounded the run. Figures by hand.

mod common;
use common::*;
use mgensim::run::Records;
use mgensim::{Report, Simulation};

/// Rank 0 puts 4 KiB to rank 1; rank 1 computes 600 ns (script line 3), then puts to rank 2.
const COMPUTING: &str = "[network]\ntopology = 'torus'\ndims = [8]\n[workload]\nranks = 8\n\
code = '''
local me = MGEN_Comm_rank()
if me == 0 then MGEN_rdma_put(1, 4096, 1)
elseif me == 1 then MGEN_Comp(600e-9) MGEN_rdma_put(2, 4096, 2) end
'''\n";

/// [`COMPUTING`] with `sets`, its timeline and profile recorded, stopped by a limit.
fn stopped(sets: &[&str]) -> Report {
    let p = probes(Records {
        trace: true,
        profile: true,
        ..Records::default()
    });
    let s = scenario(COMPUTING, sets);
    let mut sim = Simulation::new(&s).expect("builds");
    sim.probe(&p).expect("probes");
    *sim.run().expect_err("a limit stops it").partial.unwrap()
}

/// The `MGEN_Comp` spans of rank 1 on the timeline: (start, end) in ps.
fn computes(r: &Report) -> Vec<(u64, u64)> {
    let t: serde_json::Value = serde_json::from_str(r.trace.as_ref().expect("a timeline")).unwrap();
    let us = |v: &serde_json::Value| (v.as_f64().unwrap() * 1e6).round() as u64;
    t["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 1 && e["name"] == "MGEN_Comp")
        .map(|e| (us(&e["ts"]), us(&e["ts"]) + us(&e["dur"])))
        .collect()
}

/// Stopped by `--until 550ns`, rank 1 is 550 ns into its 600 ns of compute: its clock, its
/// compute, its profile row and its span on the timeline all end at 550 ns, it is listed as
/// running at its `MGEN_Comp` line (not ready at 600 ns), and the bound names it as going.
#[test]
fn a_rank_computing_at_a_time_limit_reads_as_it_was_at_the_stop() {
    let r = stopped(&["limits.simulated_time=\"550 ns\""]);
    assert_eq!(r.predicted_time_ps, 550_000);
    let one = &r.per_rank[1];
    assert_eq!(
        (one.finish_ps, one.compute_ps, one.finished),
        (550_000, 550_000, false)
    );
    assert_eq!(
        (one.bytes_sent, one.messages_sent),
        (0, 0),
        "its put comes after"
    );
    let u = &r.ranks.unfinished;
    assert_eq!(u.len(), 1, "{u:?}");
    assert_eq!(
        (u[0].rank, u[0].state.as_str(), u[0].since_ps),
        (1, "running", 550_000)
    );
    assert!(u[0].at.ends_with(":3"), "at its MGEN_Comp: {}", u[0].at);
    // (rank 1's 550 ns is all the ranks' time: the others finished at 0)
    let profile = mgensim::output::table_csv(&r, "profile").unwrap().unwrap();
    assert!(
        profile.contains("\ncall,MGEN_Comp,1,1,550000,550000,550000,550000,1.000000\n"),
        "{profile}"
    );
    assert_eq!(computes(&r), [(0, 550_000)]);
    let b = r.bound.as_ref().unwrap();
    assert_eq!(
        b.reason,
        "rank 1 (still going at the stop) spent 100.0 % of its time in MGEN_Comp"
    );
}

/// The same run left to finish is untouched: rank 1 computes 600 ns, puts (no node latency by
/// default) and finishes at 600 ns, the last.
#[test]
fn a_finished_run_keeps_its_ranks_clocks() {
    let r = run(COMPUTING);
    let one = &r.per_rank[1];
    assert_eq!(
        (one.finish_ps, one.compute_ps, one.finished),
        (600_000, 600_000, true)
    );
    assert!(r
        .bound
        .unwrap()
        .reason
        .starts_with("rank 1 (the last to finish)"));
}

/// A stop the scripts cannot see coming (an event limit, checked at 0 ps here) finds rank 1
/// run ahead through its compute and its put to the end of its script at 600 ns: at the stop
/// it had computed nothing, and is listed running at 0 ps, not finished past the stop.
#[test]
fn a_rank_ahead_of_an_event_limit_reads_as_it_was_at_the_stop() {
    let r = stopped(&["limits.events=2"]);
    assert_eq!(r.predicted_time_ps, 0);
    let one = &r.per_rank[1];
    assert_eq!((one.finish_ps, one.compute_ps), (0, 0));
    let u = &r.ranks.unfinished;
    assert!(
        u.iter()
            .any(|u| u.rank == 1 && u.state == "running" && u.since_ps == 0),
        "{u:?}"
    );
    assert!(computes(&r).is_empty(), "no compute before the stop");
}

/// Cut in two partitions on two threads (rank 1's and rank 0's apart), the stopped run reads
/// the same, byte for byte.
#[test]
fn partitions_read_ranks_ahead_of_a_stop_alike() {
    for limit in ["limits.simulated_time=\"550 ns\"", "limits.events=2"] {
        let one = stopped(&[limit]);
        let cut = [
            limit,
            "engine.partitions=2",
            "engine.separate_partitions=true",
            "engine.threads=2",
        ];
        let two = stopped(&cut);
        assert_eq!(two.host.execution.partitions, 2);
        assert_eq!(
            deterministic_json(&one),
            deterministic_json(&two),
            "{limit}"
        );
        assert_eq!(one.trace, two.trace, "{limit}");
    }
}

/// At a time limit, only what the call that crossed it spent computing comes out of the
/// compute: rank 1 computes 500 ns, then puts with a node latency of 300 ns (to 800 ns), and
/// the run stops at 600 ns: it had computed 500 ns and spent 100 ns in the put.
#[test]
fn a_put_across_a_time_limit_takes_nothing_from_the_compute() {
    let toml = COMPUTING
        .replace("MGEN_Comp(600e-9)", "MGEN_Comp(500e-9)")
        .replace("[workload]", "[node]\nnode_latency = '300 ns'\n[workload]");
    let s = scenario(&toml, &["limits.simulated_time=\"600 ns\""]);
    let r = *Simulation::new(&s)
        .unwrap()
        .run()
        .expect_err("stops at 600 ns")
        .partial
        .unwrap();
    let one = &r.per_rank[1];
    assert_eq!((one.finish_ps, one.compute_ps), (600_000, 500_000));
    let csv = mgensim::output::table_csv(&r, "ranks").unwrap().unwrap();
    let line = csv.lines().nth(2).unwrap();
    assert!(
        line.starts_with("1,main,1,1,600000,500000,0,0,0,100000,"),
        "{line}"
    );
}
