//! Trace replay (`[workload] trace`, `mgen.replay`): each action's mapping checked by a time
//! or a count worked out by hand on a tiny network, and what a bad trace gets.

mod common;
#[path = "support/traced.rs"]
mod support;
use common::*;
use mgensim::{Scenario, Simulation};
use std::path::Path;
use support::traced;

const OVERHEAD: u64 = 200_000; // NSIM's 200 ns per message call, the default

fn replay(dir: &Path, lines: &[&str], sets: &[&str]) -> Result<mgensim::Report, mgensim::SimError> {
    let path = traced(dir, lines, "");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = Scenario::load(&path, &sets, false).expect("valid scenario");
    Simulation::new(&s).expect("builds").run()
}

#[test]
fn a_send_costs_what_mgen_send_does_in_the_datatype_s_bytes() {
    let p = Params::nsim_ace();
    let d = tempfile::tempdir().unwrap();
    // 16 MPI_INT (datatype 1) = 64 bytes, eager: overhead, DMA, one hop, DMA
    let r = replay(
        d.path(),
        &[
            "init\nsend 1 3 16 1\nfinalize",
            "init\nrecv 0 3 16 1\nfinalize",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(r.ranks.count, 2, "the trace says how many ranks");
    assert_eq!(r.per_rank[0].finish_ps, OVERHEAD);
    assert_eq!(
        r.per_rank[1].finish_ps,
        OVERHEAD + p.dma(64) + p.fly(80, 2) + p.dma(64)
    );
    assert_eq!(r.network.bytes, 64);
    // without a datatype, sizes are bytes; `init` with an argument makes them doubles
    let d = tempfile::tempdir().unwrap();
    let r = replay(d.path(), &["init\nsend 1 3 64", "init\nrecv 0 3 64"], &[]).unwrap();
    assert_eq!(r.network.bytes, 64);
    let d = tempfile::tempdir().unwrap();
    let r = replay(d.path(), &["init 1\nsend 1 3 8", "init 1\nrecv 0 3 8"], &[]).unwrap();
    assert_eq!(r.network.bytes, 64);
    // a derived datatype's number (not one SimGrid predefines): counted in the default one
    let d = tempfile::tempdir().unwrap();
    let r = replay(
        d.path(),
        &["init 1\nsend 1 3 8 75", "init 1\nrecv 0 3 8 75"],
        &[],
    )
    .unwrap();
    assert_eq!(r.network.bytes, 64);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("datatype 75 is not one SimGrid predefines")
                && w.contains("(2 times)")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn nonblocking_calls_match_their_waits() {
    let p = Params::nsim_ace();
    let d = tempfile::tempdir().unwrap();
    // two sends of 64 B each way, waited for by (src, dst, tag) in the other order, and a
    // test that finds one done
    let r = replay(
        d.path(),
        &[
            "isend 1 1 64\nisend 1 2 64\nwait 0 1 2\nwait 0 1 1",
            "irecv 0 1 64\nirecv 0 2 64\ncompute 1000000\ntest 0 1 2\nwaitall",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(r.network.messages, 2);
    assert_eq!(r.per_rank[0].finish_ps, 2 * OVERHEAD);
    // rank 1: two receives posted (an overhead each), 1 ms of compute, then both are in
    assert_eq!(r.per_rank[1].finish_ps, 2 * OVERHEAD + 1_000_000_000);
    let _ = p;
}

#[test]
fn compute_runs_at_the_flop_rate_and_its_scale() {
    let d = tempfile::tempdir().unwrap();
    let lines = ["compute 2500000\nsleep 0.001", "compute 1"];
    // 2.5 Mflop at the default 1 Gflop/s is 2.5 ms, then 1 ms of sleep
    let r = replay(d.path(), &lines, &[]).unwrap();
    assert_eq!(r.per_rank[0].finish_ps, 3_500_000_000);
    assert_eq!(r.per_rank[1].finish_ps, 1_000);
    let r = replay(d.path(), &lines, &["workload.args.flops=2e9"]).unwrap();
    assert_eq!(r.per_rank[0].finish_ps, 2_250_000_000);
    let r = replay(d.path(), &lines, &["workload.args.compute_scale=0.5"]).unwrap();
    assert_eq!(
        r.per_rank[0].finish_ps, 2_250_000_000,
        "sleeps are not scaled"
    );
}

#[test]
fn a_collective_sends_the_messages_of_its_algorithm() {
    let d = tempfile::tempdir().unwrap();
    let four = ["allreduce 100 0 0"; 4];
    // 100 doubles = 800 B; recursive doubling on 4 ranks: 2 steps of one message per rank
    let r = replay(d.path(), &four, &[]).unwrap();
    assert_eq!((r.network.messages, r.network.bytes), (8, 8 * 800));
    // a ring: 2 (p - 1) steps of b / p per rank
    let r = replay(d.path(), &four, &["workload.args.algo_allreduce=ring"]).unwrap();
    assert_eq!((r.network.messages, r.network.bytes), (24, 24 * 200));
    // alltoallv: every nonzero block once, directly (rank r sends r+1 bytes to everyone)
    let lines: Vec<String> = (0..4)
        .map(|r| {
            let send = vec![(r + 1).to_string(); 4].join(" ");
            let recv = (0..4)
                .map(|s| (s + 1).to_string())
                .collect::<Vec<_>>()
                .join(" ");
            format!("alltoallv 40 {send} 40 {recv} 6 6")
        })
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let r = replay(d.path(), &lines, &[]).unwrap();
    assert_eq!(r.network.messages, 12);
    assert_eq!(r.network.bytes, 3 * (1 + 2 + 3 + 4));
    // a reduce's flops run after it
    let r = replay(d.path(), &["reduce 1 1000000 0 6"; 2], &[]).unwrap();
    assert_eq!(r.network.messages, 1);
    assert_eq!(r.per_rank[1].finish_ps, OVERHEAD + 1_000_000_000);
}

#[test]
fn communicator_actions_are_accepted_and_counted() {
    let d = tempfile::tempdir().unwrap();
    let r = replay(
        d.path(),
        &[
            "comm_size 2\ncomm_split\ncomm_dup\nbarrier",
            "comm_size 2\ncomm_split\ncomm_dup\nbarrier",
        ],
        &[],
    )
    .unwrap();
    assert!(r.network.messages > 0, "the barrier ran");
    let w = r.warnings.join("\n");
    assert!(
        w.contains("comm_split: the TI format does not say") && w.contains("(2 times)"),
        "{w}"
    );
    assert!(
        w.contains("comm_dup: replayed as the world communicator (2 times)"),
        "{w}"
    );
    // an unknown action is skipped and counted
    let r = replay(d.path(), &["frobnicate 3", "frobnicate 4\nfrobnicate"], &[]).unwrap();
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("3 `frobnicate` lines skipped")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn a_malformed_trace_is_named_by_file_and_line_and_its_outputs_are_written() {
    let d = tempfile::tempdir().unwrap();
    traced(
        d.path(),
        &[
            "init\ncompute 1000\nallreduce 8 0",
            "init\ncompute 1000\nallreduce 8",
        ],
        "",
    );
    let o = mgensim_in(d.path(), &["run", "s.toml", "--out", "out"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("rank 1"), "{err}");
    assert!(
        err.contains("r1.txt:3: `allreduce` needs at least 2 arguments, the line has 1"),
        "{err}"
    );
    // what was computed is kept: the partial folder
    let summary = std::fs::read_to_string(d.path().join("out/summary.json")).unwrap();
    assert!(summary.contains("\"partial\": true"));
}

#[test]
fn ranks_that_disagree_deadlock_naming_their_trace_lines() {
    let d = tempfile::tempdir().unwrap();
    let e = replay(
        d.path(),
        &[
            "init\nsend 1 1 8\nrecv 1 5 8",
            "init\nrecv 0 2 8\nsend 0 5 8",
        ],
        &[],
    )
    .unwrap_err();
    let msg = e.stop.to_string();
    assert!(msg.starts_with("deadlock"), "{msg}");
    assert!(
        msg.contains("r0.txt:3 (replaying"),
        "rank 0 waits at its line 3: {msg}"
    );
    assert!(
        msg.contains("r1.txt:2 (replaying"),
        "rank 1 waits at its line 2: {msg}"
    );
    let partial = e.partial.unwrap();
    assert!(partial.ranks.unfinished[1].at.ends_with("r1.txt:2"));
}

#[test]
fn a_skipped_action_is_named_in_the_deadlock_it_may_cause_on_any_partitioning() {
    let d = tempfile::tempdir().unwrap();
    // ranks 0 and 3 misspell their sends; 1 and 2 then wait for them forever. In two
    // partitions ({0, 1} and {2, 3}) each skipped line is counted by another one.
    traced(
        d.path(),
        &[
            "init\nsendd 1 0 8 6",
            "init\nrecv 0 0 8 6",
            "init\nrecv 3 0 8 6",
            "init\nsendd 2 0 8 6",
        ],
        "",
    );
    let want = "app.txt: 2 `sendd` lines skipped (an action mgensim does not know)";
    for cut in [
        &["--partitions", "1"][..],
        &["--partitions", "2", "--threads", "2"],
    ] {
        let mut args = vec!["run", "s.toml", "--json"];
        args.extend_from_slice(cut);
        let o = mgensim_in(d.path(), &args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{cut:?}: {err}");
        let (_, deadlock) = err.split_once("deadlock at").expect("a deadlock");
        assert!(
            deadlock.contains(want),
            "{cut:?}: the deadlock names it: {err}"
        );
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let warnings = json["warnings"].as_array().unwrap();
        assert!(
            warnings.iter().any(|w| w.as_str().unwrap().ends_with(want)),
            "{cut:?}: the partial report keeps it: {warnings:?}"
        );
    }
}

#[test]
fn an_index_naming_a_missing_file_is_named_by_its_line() {
    let d = tempfile::tempdir().unwrap();
    traced(d.path(), &["compute 1", "compute 1"], "");
    std::fs::write(d.path().join("app.txt"), "r0.txt\nr9.txt\n").unwrap();
    let o = mgensim_in(d.path(), &["run", "s.toml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("app.txt:2: the trace file"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("r9.txt does not exist"),
        "{}",
        stderr(&o)
    );
    // a trace moved since it was written is found beside its index
    std::fs::write(
        d.path().join("app.txt"),
        "/elsewhere/r0.txt\n/elsewhere/r1.txt\n",
    )
    .unwrap();
    assert_eq!(run_path(&d.path().join("s.toml")).ranks.finished, 2);
}

#[test]
fn the_job_and_the_trace_must_agree_on_ranks() {
    // a scenario's `trace`: found when it is read (tests/replay_command.rs has the message)
    let d = tempfile::tempdir().unwrap();
    let path = traced(d.path(), &["compute 1", "compute 1"], "");
    let e = Scenario::load(&path, &["workload.ranks=3".to_string()], false).unwrap_err();
    assert!(
        e.to_string().contains("the trace app.txt has 2 ranks"),
        "{e}"
    );
    // a script's own replay: found when it opens the trace
    tmp_file(
        d.path(),
        "own.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\nranks = 3\n\
         code = 'require(\"mgen.replay\").run{ trace = \"app.txt\" }'\n",
    );
    let s = Scenario::load(&d.path().join("own.toml"), &[], false).unwrap();
    let e = Simulation::new(&s).unwrap().run().unwrap_err();
    assert!(
        e.stop
            .to_string()
            .contains("has 2 ranks and the job 3 (set workload.ranks = 2)"),
        "{}",
        e.stop
    );
}

#[test]
fn a_script_edits_the_replay_with_hooks() {
    let d = tempfile::tempdir().unwrap();
    traced(
        d.path(),
        &[
            "compute 1000000\nbarrier\ncompute 1000000",
            "compute 1000000\nbarrier\ncompute 1000000",
        ],
        "",
    );
    // every compute twice as long (run twice), barriers dropped
    tmp_file(
        d.path(),
        "edit.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\nranks = 2\ncode = '''
local replay = require('mgen.replay')
replay.run{
  trace = 'app.txt',
  on = { compute = function(ctx, a, default) default(ctx, a); default(ctx, a) end },
  each = function(ctx, name) if name == 'barrier' then return 'skip' end end,
}'''\n",
    );
    let r = run_path(&d.path().join("edit.toml"));
    assert_eq!(r.per_rank[0].finish_ps, 4_000_000_000);
    assert_eq!(r.network.messages, 0, "no barrier");
}

#[test]
fn a_shipped_real_trace_replays_the_same_twice() {
    // NAS IS class S on 8 ranks, traced by SMPI (scenarios/replay/)
    let a = run_file("scenarios/replay/is.toml", &[]);
    let b = run_file("scenarios/replay/is.toml", &[]);
    assert_eq!(deterministic_json(&a), deterministic_json(&b));
    assert_eq!(a.ranks.finished, 8);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
}

#[test]
fn collectives_run_on_their_communicator() {
    let d = tempfile::tempdir().unwrap();
    // two communicators (mgensim's `comm` lines and `comm=ID` words): {0, 2} and {1, 3};
    // an allreduce of 100 doubles in each, then a broadcast of 8 bytes from communicator
    // rank 1 (world rank 2, and 3)
    let even = "comm 1 0 2\nallreduce 100 0 0 comm=1\nbcast 8 1 6 comm=1";
    let odd = "comm 2 1 3\nallreduce 100 0 0 comm=2\nbcast 8 1 6 comm=2";
    let r = replay(d.path(), &[even, odd, even, odd], &[]).unwrap();
    // recursive doubling on 2 ranks: one message each way; a broadcast to 1 rank: 1
    assert_eq!(r.network.messages, 2 * (2 + 1));
    assert_eq!(r.network.bytes, 4 * 800 + 2 * 8);
    // nothing crossed between the communicators: rank 0 heard only from rank 2
    assert_eq!(r.per_rank[0].bytes_received, 800 + 8);
    assert_eq!(r.per_rank[2].bytes_received, 800, "the broadcast's root");
    assert_eq!(r.per_rank[1].bytes_received, 800 + 8);
    // a communicator used before it is defined is an error naming the line
    let e = replay(d.path(), &["barrier comm=3", "barrier comm=3"], &[]).unwrap_err();
    assert!(
        e.stop
            .to_string()
            .contains("r0.txt:1: communicator 3 is used before"),
        "{}",
        e.stop
    );
}

#[test]
fn the_datatype_sizes_are_shared_read_only() {
    let d = tempfile::tempdir().unwrap();
    traced(d.path(), &["compute 1", "compute 1"], "");
    tmp_file(
        d.path(),
        "w.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\nranks = 2\ncode = '''
local n, sizes = MGEN_trace_open('app.txt')
MGEN_report('int', sizes[1])
if MGEN_Comm_rank() == 1 then sizes[1] = 99 end'''\n",
    );
    let s = mgensim::Scenario::load(&d.path().join("w.toml"), &[], false).unwrap();
    let e = mgensim::Simulation::new(&s).unwrap().run().unwrap_err();
    assert!(e.stop.to_string().contains("sandbox:"), "{}", e.stop);
    assert_eq!(
        e.partial.unwrap().metrics["int"].max,
        4.0,
        "MPI_INT is 4 bytes"
    );
}

/// SimGrid's older format (before 3.20): `Isend`/`Irecv` without tags and `wait` alone, which
/// waits for the newest request, as SimGrid's replay of that format did.
#[test]
fn the_older_format_replays_as_today_s_and_waits_for_the_newest_request() {
    // the same exchange in both formats: the same prediction and the same bytes
    let d = tempfile::tempdir().unwrap();
    let now = replay(
        d.path(),
        &[
            "init\nirecv 1 0 64\nisend 1 0 64\nwaitall\nallreduce 8 0",
            "init\nirecv 0 0 64\nisend 0 0 64\nwaitall\nallreduce 8 0",
        ],
        &[],
    )
    .unwrap();
    let d = tempfile::tempdir().unwrap();
    let old = replay(
        d.path(),
        &[
            "init\nIrecv 1 64\nIsend 1 64\nwaitAll\nallReduce 8 0",
            "init\nIrecv 0 64\nIsend 0 64\nwaitAll\nallReduce 8 0",
        ],
        &[],
    )
    .unwrap();
    assert_eq!(old.predicted_time_ps, now.predicted_time_ps);
    assert_eq!(old.network.bytes, now.network.bytes);
    assert!(
        old.warnings.iter().any(|w| w.contains("older TI format")),
        "{:?}",
        old.warnings
    );
    // `wait` alone takes the newest request: rank 0 waits for its (eager, done) send, computes
    // 1 ms, then waits for the receive that rank 1 sent after 1 ms of its own; oldest-first
    // would wait for the receive before computing, and end near 2 ms
    let d = tempfile::tempdir().unwrap();
    let r = replay(
        d.path(),
        &[
            "init\nIrecv 1 8\nIsend 1 8\nwait\ncompute 1e6\nwait",
            "init\ncompute 1e6\nsend 0 8\nrecv 0 8",
        ],
        &[],
    )
    .unwrap();
    let end = r.per_rank[0].finish_ps;
    assert!(
        end > 1_000_000_000 && end < 1_010_000_000,
        "rank 0 ends at {end} ps"
    );
}

#[test]
fn a_trace_beside_a_scenario_named_by_a_relative_path_replays_alike_with_and_without_the_sandbox() {
    // the scenario's folder is taken once: with --allow-io the trace index and its files were
    // looked for under scenarios/replay/scenarios/replay/
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "scenarios/replay/is.toml", "--json", "-q"];
        args.extend_from_slice(extra);
        let o = mgensim_in(&project(), &args);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        r["predicted_time_ps"].as_u64().unwrap()
    };
    let sandboxed = run(&[]);
    assert!(sandboxed > 0);
    assert_eq!(run(&["--allow-io"]), sandboxed);
}

#[test]
fn a_line_without_an_end_is_named_after_at_most_64_mib_and_a_long_line_reads_in_one_pass() {
    let d = tempfile::tempdir().unwrap();
    traced(d.path(), &["init\ncompute 1000", "init\ncompute 1000"], "");
    // rank 1's file: a sparse file of 80 MiB of zero bytes, no line end anywhere
    let f = std::fs::File::create(d.path().join("r1.txt")).unwrap();
    f.set_len(80 << 20).unwrap();
    drop(f);
    let o = mgensim_in(d.path(), &["run", "s.toml", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("r1.txt line 1: longer than 64 MiB without an end: not a line of a trace"),
        "{err}"
    );
    assert!(
        err.len() < 2000,
        "the line is not echoed: {} bytes",
        err.len()
    );
    // a 16 MiB line (a compute whose number is too long) is read once and named by its line
    let mut text = String::from("1 init\n1 compute ");
    text.extend(std::iter::repeat_n('9', 16 << 20));
    text.push('\n');
    std::fs::write(d.path().join("r1.txt"), text).unwrap();
    let o = mgensim_in(d.path(), &["run", "s.toml", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{}", &err[..err.len().min(500)]);
    assert!(err.contains("r1.txt:2"), "{}", &err[..err.len().min(500)]);
    assert!(
        err.len() < 2000,
        "the line is not echoed: {} bytes",
        err.len()
    );
}

/// Replays each case's text as rank 1's trace (the others only `init`) and checks that the run
/// fails with the case's message.
fn refused_as_rank_1(dir: &Path, cases: &[(&str, &str)]) {
    let mut failures = Vec::new();
    for (rank1, want) in cases {
        traced(dir, &["init", rank1, "init", "init"], "");
        let o = mgensim_in(dir, &["run", "s.toml", "-q"]);
        let err = stderr(&o);
        if o.status.code() != Some(1) || !err.contains(want) {
            failures.push(format!("{rank1:?}: {err}"));
        }
    }
    assert_no_failures(&failures, cases.len());
}

#[test]
fn trace_lines_that_would_be_guessed_at_are_errors_naming_file_and_line() {
    let d = tempfile::tempdir().unwrap();
    let cases: [(&str, &str); 3] = [
        ("init\ncompute -5", "r1.txt:2: `compute`: -5 is negative"),
        ("init\nsleep -0.5", "r1.txt:2: `sleep`: -0.5 is negative"),
        // 4 ranks: 2 + 2 × 4 numbers
        ("init\nalltoallv 8 1 1 8 1 1", "r1.txt:2: `alltoallv` on 4 ranks needs a send and a receive count for each (10 numbers"),
    ];
    refused_as_rank_1(d.path(), &cases);
    // a rank number past the trace's in a one-file trace is an error, not a line dropped
    std::fs::write(
        d.path().join("all.txt"),
        "0 init\n4294967295 compute 10\n1 init\n",
    )
    .unwrap();
    std::fs::write(d.path().join("one.txt"), "all.txt\nall.txt\n").unwrap();
    tmp_file(
        d.path(),
        "one.toml",
        "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\ntrace = 'one.txt'\n",
    );
    let o = mgensim_in(d.path(), &["run", "one.toml", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("all.txt:2: the line is rank 4294967295's, and the trace's ranks are 0 to 1"),
        "{err}"
    );
    // a byte order mark before the index or a trace file's first line is not part of them
    traced(
        d.path(),
        &["init\ncompute 1000", "init", "init", "init"],
        "",
    );
    let index = std::fs::read_to_string(d.path().join("app.txt")).unwrap();
    std::fs::write(d.path().join("app.txt"), format!("\u{feff}{index}")).unwrap();
    let r0 = std::fs::read_to_string(d.path().join("r0.txt")).unwrap();
    std::fs::write(d.path().join("r0.txt"), format!("\u{feff}{r0}")).unwrap();
    let o = mgensim_in(d.path(), &["run", "s.toml", "-q", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn a_comment_that_names_an_older_action_does_not_change_how_the_trace_is_read() {
    // today's `send DST TAG BYTES`: read as the older format (no tag) it would send 0 bytes
    let lines = [
        "init\nsend 1 5 4096\nallreduce 8 0",
        "init\nrecv 0 5 4096\nallreduce 8 0",
    ];
    let d = tempfile::tempdir().unwrap();
    let plain = replay(d.path(), &lines, &[]).unwrap();
    let d = tempfile::tempdir().unwrap();
    traced(d.path(), &lines, "");
    let r0 = std::fs::read_to_string(d.path().join("r0.txt")).unwrap();
    std::fs::write(
        d.path().join("r0.txt"),
        format!("# Isend 1 64 was how an older tracer wrote it\n{r0}"),
    )
    .unwrap();
    let s = Scenario::load(&d.path().join("s.toml"), &[], false).unwrap();
    let commented = Simulation::new(&s).unwrap().run().unwrap();
    assert!(
        !commented
            .warnings
            .iter()
            .any(|w| w.contains("older TI format")),
        "{:?}",
        commented.warnings
    );
    assert_eq!(commented.network.bytes, plain.network.bytes);
    assert_eq!(commented.predicted_time_ps, plain.predicted_time_ps);
    assert!(plain.network.bytes >= 4096);
}

#[test]
fn trace_tags_and_communicator_ids_never_reach_the_library_s_own() {
    let d = tempfile::tempdir().unwrap();
    // two overlapping communicators, X of all four ranks in another order and Y of the even
    // ones, used by collectives (mgen.coll's tags) and an alltoallv (mgen.replay's own); then
    // rank 0 sends rank 1 8 bytes with the largest tag MPI has (datatype 6 is MPI_BYTE)
    let run = |x: u64, y: u64| {
        let both = format!("comm {x} 3 1 0 2\nallreduce 100 0 0 comm={x}\nbarrier comm={x}");
        let even = format!(
            "comm {y} 0 2\n{both}\nalltoallv 16 8 8 16 8 8 6 6 comm={y}\nbcast 8 0 6 comm={y}"
        );
        let r0 = format!("{even}\nsend 1 2147483647 8 6");
        let r1 = format!("{both}\nrecv 0 2147483647 8 6");
        let r = replay(d.path(), &[&r0, &r1, &even, &both], &[]).unwrap();
        let finish: Vec<u64> = r.per_rank.iter().map(|p| p.finish_ps).collect();
        (r.network.messages, r.network.bytes, finish)
    };
    let small = run(1, 2);
    // the largest ids a trace can give change nothing: no id reaches another's tags
    assert_eq!(run(4_294_967_295, 17), small);
    assert_eq!(run(17, 4_294_967_294), small);
    // by hand: allreduce of 800 B by recursive doubling on 4 ranks (2 steps × 4 messages),
    // dissemination barrier of 8 B on 4 ranks (2 rounds × 4), alltoallv of 8 B each way on Y
    // (2), a broadcast of 8 B to 1 rank (1) and the traced send of 8 B (1)
    let (messages, bytes, _) = small;
    assert_eq!(messages, 8 + 8 + 2 + 1 + 1);
    assert_eq!(bytes, 8 * 800 + 8 * 8 + 2 * 8 + 8 + 8);
    // a tag past MPI's `int`, a negative one (but a receive's -1: any tag) or a fraction is an
    // error naming the line, never a tag the library might be using
    let cases: [(&str, &str); 4] = [
        ("init\nsend 0 2305843009213693953 8 6", "r1.txt:2: `send`: tag 2305843009213693953 is not an MPI tag: a whole number from 0 to 2^31 - 1"),
        ("init\nisend 0 2147483648 8 6", "r1.txt:2: `isend`: tag 2147483648 is not an MPI tag"),
        ("init\nirecv 0 -2 8 6", "r1.txt:2: `irecv`: tag -2 is not an MPI tag: a whole number from -1 to 2^31 - 1 (-1: any tag)"),
        ("init\nrecv 0 1.5 8 6", "r1.txt:2: `recv`: tag 1.5 is not an MPI tag"),
    ];
    refused_as_rank_1(d.path(), &cases);
}

#[test]
fn the_wall_clock_limit_stops_a_long_trace_being_read() {
    let d = tempfile::tempdir().unwrap();
    // 4 M lines that cost no simulated time (a `comm_dup` is noted, not simulated): a rank
    // reads them in one go, without the engine getting a turn (seconds, here)
    let mine = |r: u32| format!("{r} init\n{}", format!("{r} comm_dup\n").repeat(2 << 20));
    std::fs::write(d.path().join("r0.txt"), mine(0)).unwrap();
    std::fs::write(d.path().join("r1.txt"), mine(1)).unwrap();
    std::fs::write(d.path().join("two.txt"), "r0.txt\nr1.txt\n").unwrap();
    let scenario = |trace: &str| {
        format!("[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\ntrace = '{trace}'\n")
    };
    tmp_file(d.path(), "two.toml", &scenario("two.txt"));
    let o = mgensim_in(d.path(), &["run", "two.toml", "-q", "--timeout", "0.5s"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("wall-clock limit at simulated time 0 ps"),
        "{err}"
    );
    assert!(err.contains("while rank 0 ran"), "{err}");
    // a trace in one file is read whole while the run is set up (to count its ranks): the
    // limit covers that too
    let both = format!("{}{}", mine(0), mine(1));
    std::fs::write(d.path().join("all.txt"), both).unwrap();
    tmp_file(d.path(), "one.toml", &scenario("all.txt"));
    let o = mgensim_in(d.path(), &["run", "one.toml", "-q", "--timeout", "0.02s"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("passed while the run was being set up"),
        "{err}"
    );
}
