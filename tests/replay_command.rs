//! A replay as a user runs it: `mgensim replay TRACE`, what `run` and `check` say of a trace
//! and of a replay's arguments and ranks before anything is simulated, and the profile of a
//! replay in the program's own terms (its MPI calls, as mpiP gives them).

mod common;
#[path = "support/traced.rs"]
mod support;
use common::*;
use serde_json::Value;
use support::traced;

/// Two ranks that exchange a little after some compute (2 us on rank 0).
const SMALL: [&str; 2] = [
    "init\ncompute 2000\nsend 1 3 16 1\nbarrier\nallreduce 8 0\nfinalize",
    "init\nrecv 0 3 16 1\nbarrier\nallreduce 8 0\nfinalize",
];

/// The summary's JSON of `args` run in `dir`, which must succeed.
fn json_of(dir: &std::path::Path, args: &[&str]) -> Value {
    let o = mgensim_in(dir, args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// What two runs predict alike: the summary without what names the scenario or measures the
/// host.
fn figures(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("scenario");
    o.remove("host");
    v
}

#[test]
fn the_replay_command_runs_a_trace_as_its_scenario_does() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    traced(dir, &SMALL, "");
    let scenario = json_of(dir, &["run", "s.toml", "--json", "--profile"]);
    // the network given with --set: the same figures as the scenario's
    let sets = [
        "--set",
        "network.topology=mesh",
        "--set",
        "network.dims=[4]",
    ];
    let mut args = vec!["replay", "app.txt", "--json", "--profile"];
    args.extend_from_slice(&sets);
    let direct = json_of(dir, &args);
    assert_eq!(direct["scenario"], "app.txt");
    assert_eq!(figures(direct), figures(scenario.clone()));
    // or by the scenario (whose workload the trace replaces: its own trace is another)
    std::fs::create_dir(dir.join("other")).unwrap();
    std::fs::write(dir.join("other/o.txt"), "0 init\n").unwrap();
    tmp_file(
        dir,
        "net.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\ntrace = 'other/o.txt'\nranks = 1\n",
    );
    let by = json_of(
        dir,
        &[
            "replay",
            "app.txt",
            "--scenario",
            "net.toml",
            "--json",
            "--profile",
        ],
    );
    assert_eq!(by["scenario"], "net.toml");
    assert_eq!(figures(by), figures(scenario.clone()));
    // the same trace as one file of every rank's lines
    let one: String = (0..2)
        .flat_map(|r| {
            std::fs::read_to_string(dir.join(format!("r{r}.txt")))
                .unwrap()
                .lines()
                .map(|l| format!("{l}\n"))
                .collect::<Vec<_>>()
        })
        .collect();
    std::fs::write(dir.join("one.txt"), one).unwrap();
    let mut args = vec!["replay", "one.txt", "--json"];
    args.extend_from_slice(&sets);
    let single = json_of(dir, &args);
    assert_eq!(single["predicted_time_ps"], scenario["predicted_time_ps"]);
    assert!(single["predicted_time_ps"].as_u64().unwrap() > 2_000_000);
}

#[test]
fn a_trace_given_to_run_or_check_says_how_to_replay_it() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    traced(dir, &SMALL, "");
    for (cmd, file) in [("run", "app.txt"), ("check", "app.txt"), ("run", "r0.txt")] {
        let o = mgensim_in(dir, &[cmd, file, "--set", "network.dims=[4]"]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!(
                "{file} is a time-independent trace, not a scenario: replay it with \
                 `mgensim replay {file} --set network.dims=[4]`"
            )),
            "{err}"
        );
    }
    // a scenario with a TOML mistake is still told as such
    tmp_file(dir, "bad.toml", "[network\n");
    let err = stderr(&mgensim_in(dir, &["run", "bad.toml"]));
    assert!(!err.contains("trace") && err.contains("bad.toml"), "{err}");
    // what the replay command refuses, in one line each
    std::fs::create_dir(dir.join("sub")).unwrap();
    tmp_file(dir, "sub/net.toml", "[network]\ndims = [4]\n");
    tmp_file(dir, "jobs.toml", "[[job]]\ncode = 'x = 1'\nranks = 1\n");
    for (args, want) in [
        (
            &["replay", "nothing.txt"][..],
            "the trace nothing.txt does not exist",
        ),
        (
            &["replay", "bad.toml"][..],
            "bad.toml is not a time-independent trace",
        ),
        (
            &["replay", "app.txt", "--scenario", "sub/net.toml"][..],
            "the trace app.txt is not below the folder of the scenario sub/net.toml",
        ),
        (
            &["replay", "app.txt", "--scenario", "jobs.toml"][..],
            "replays one trace as one job",
        ),
    ] {
        let o = mgensim_in(dir, args);
        let err = stderr(&o);
        assert!(
            o.status.code() == Some(1) && err.contains(want) && o.stdout.is_empty(),
            "{args:?}: {err}"
        );
    }
    // (with the sandbox lifted, a trace elsewhere is read)
    let o = mgensim_in(
        dir,
        &[
            "replay",
            "app.txt",
            "--scenario",
            "sub/net.toml",
            "--allow-io",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// A misspelt argument of a replay is found when the scenario is read, before anything is
/// simulated: in what `Scenario::load` gives, by `check`, and first thing on a run's stderr
/// (said once, not again at the end); the figures are those without it.
#[test]
fn a_misspelt_replay_argument_is_warned_of_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    let s = traced(dir, &SMALL, "");
    let misspelt = ["workload.args.flop=2e9".to_string()];
    let loaded = mgensim::Scenario::load(&s, &misspelt, false).unwrap();
    let want = "workload.args.flop is not an argument of the replay, which ignores it (did \
                you mean `flops`?)";
    assert_eq!(loaded.notes.len(), 1, "{:?}", loaded.notes);
    assert!(loaded.notes[0].starts_with(want), "{:?}", loaded.notes);
    let o = mgensim_in(dir, &["check", "s.toml", "--set", "workload.args.flop=2e9"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with(&format!("warning: {want}")),
        "{}",
        stderr(&o)
    );
    let args = ["run", "s.toml", "--json", "--set", "workload.args.flop=2e9"];
    let o = mgensim_in(dir, &args);
    let err = stderr(&o);
    assert!(err.starts_with(&format!("warning: {want}")), "{err}");
    assert_eq!(
        err.matches("is not an argument").count(),
        1,
        "said once: {err}"
    );
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let plain = json_of(dir, &["run", "s.toml", "--json"]);
    assert_eq!(run["predicted_time_ps"], plain["predicted_time_ps"]);
    // the rank computed 2,000 flop at the default 1 Gflop/s: 2 us, not 1 us
    assert!(run["ranks"]["finish_ps"]["max"].as_u64().unwrap() > 2_000_000);
    // a key the replay reads is no warning
    let o = mgensim_in(
        dir,
        &["check", "s.toml", "--set", "workload.args.flops=2e9"],
    );
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// An algorithm `mgen.coll` does not have, a bad transport or rate, and a job whose ranks are
/// not the trace's are errors of the scenario, in `check` and in `run` alike, before anything
/// is simulated (no summary), the algorithm's with a "did you mean" and the list.
#[test]
fn a_replay_s_algorithm_and_ranks_are_checked_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    traced(dir, &SMALL, "");
    let cases: [(&[&str], &str); 5] = [
        (
            &["workload.args.algo_allreduce=rign"],
            "key `workload.args.algo_allreduce` (from --set): \"rign\" is not an allreduce \
             algorithm of mgen.coll (did you mean \"ring\"?); they are: rabenseifner, rd, \
             recursive_doubling, ring",
        ),
        (
            &["workload.args.algo_barrier=dissemintion"],
            "(did you mean \"dissemination\"?); they are: binomial, central, dissemination,",
        ),
        (
            &["workload.args.transport=putt"],
            "\"putt\" is not a transport of mgen.coll (did you mean \"put\"?); they are: \
             message, put",
        ),
        (
            &["workload.args.flops=0"],
            "key `workload.args.flops` (from --set): must be a number > 0 (the rate of \
             compute, flop/s); got 0",
        ),
        (
            &["workload.ranks=3"],
            "key `workload.ranks` (from --set): 3, but the trace app.txt has 2 ranks: a \
             replay runs one rank per rank of its trace (set workload.ranks = 2, or leave it \
             out)",
        ),
    ];
    let mut failures = Vec::new();
    for (sets, want) in cases {
        for cmd in ["check", "run"] {
            let mut args = vec![cmd, "s.toml"];
            for s in sets {
                args.extend_from_slice(&["--set", s]);
            }
            let o = mgensim_in(dir, &args);
            let err = stderr(&o);
            if o.status.code() != Some(1) || !err.contains(want) || !o.stdout.is_empty() {
                failures.push(format!("{cmd} {sets:?}: {err}"));
            }
        }
    }
    assert_no_failures(&failures, 2 * cases.len());
    // and in the scenario file itself, named by its line
    tmp_file(
        dir,
        "bad.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\ntrace = 'app.txt'\n\
         args = { algo_allreduce = 'rign' }\n",
    );
    let err = stderr(&mgensim_in(dir, &["check", "bad.toml"]));
    assert!(
        err.contains("bad.toml:6: key `workload.args.algo_allreduce`"),
        "{err}"
    );
}

/// The profile of a replay in the program's terms, as mpiP gives it: a row per MPI function
/// the trace calls (`MPI_Wait`, ...), counted once per call the trace made, each from the
/// rank taking the action to its taking the next (so that a rank's rows add up to its time);
/// the API calls they were replayed as are counted once per call the replay made, apart.
/// Rank 0 posts two sends (eager and rendezvous) and a receive, waits for each, computes
/// 5 us, tests a receive that has come, and waits for a last one with `waitall`.
#[test]
fn the_profile_of_a_replay_gives_its_mpi_calls_each_counted_once() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    traced(
        dir,
        &[
            "init\nisend 1 1 8\nisend 1 2 65536\nirecv 1 3 8\nwait 0 1 1\nwait 0 1 2\n\
             wait 1 0 3\nirecv 1 4 8\ncompute 5000\ntest 1 0 4\nirecv 1 5 8\nwaitall\nfinalize",
            "init\nrecv 0 1 8\nrecv 0 2 65536\nsend 0 3 8\nsend 0 4 8\nsend 0 5 8\nfinalize",
        ],
        "",
    );
    let json = json_of(dir, &["run", "s.toml", "--json", "--profile"]);
    let rows = json["profile"].as_array().unwrap();
    let count = |kind: &str, name: &str| {
        rows.iter()
            .find(|r| r["kind"] == kind && r["name"] == name)
            .map_or(0, |r| r["count"].as_u64().unwrap())
    };
    for (name, n) in [
        ("MPI_Init", 2),
        ("MPI_Isend", 2),
        ("MPI_Irecv", 3),
        ("MPI_Wait", 3),
        ("MPI_Test", 1),
        ("MPI_Waitall", 1),
        ("MPI_Send", 3),
        ("MPI_Recv", 2),
        ("MPI_Finalize", 2),
        ("compute", 1),
    ] {
        assert_eq!(count("replayed", name), n, "replayed {name}: {rows:?}");
    }
    for (name, n) in [
        ("MGEN_Wait", 3),
        ("MGEN_Test", 1),
        ("MGEN_Waitall", 1),
        ("MGEN_Isend", 2),
        ("MGEN_Irecv", 3),
        ("MGEN_Send", 3),
        ("MGEN_Recv", 2),
    ] {
        assert_eq!(count("call", name), n, "{name}: {rows:?}");
    }
    let replayed: u64 = rows
        .iter()
        .filter(|r| r["kind"] == "replayed")
        .map(|r| r["total_ps"].as_u64().unwrap())
        .sum();
    let f = &json["ranks"]["finish_ps"];
    assert_eq!(
        replayed,
        f["min"].as_u64().unwrap() + f["max"].as_u64().unwrap()
    );
    // the text gives the program's rows only, and says where the others are
    let o = mgensim_in(dir, &["run", "s.toml", "--profile"]);
    let text = String::from_utf8_lossy(&o.stdout);
    let profile = &text[text.find("\nprofile ").unwrap()..text.find("\nhost ").unwrap()];
    assert!(profile.contains("\n  MPI_Wait "), "{profile}");
    assert!(!profile.contains("MGEN_"), "{profile}");
    assert!(
        profile.contains(
            "the 8 API calls and library regions they were replayed as: \
                          summary.json, and profile.csv with --out"
        ),
        "{profile}"
    );
}

/// A script of its own that replays with `MGEN_args` gets the same rules when the replay
/// starts: an unknown algorithm stops it at once (no simulated time), a misspelt key is left
/// unread and named by the run's warning about unread arguments.
#[test]
fn a_script_s_own_replay_checks_its_arguments_as_it_starts() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    traced(dir, &SMALL, "");
    tmp_file(
        dir,
        "own.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\nranks = 2\n\
         code = 'require(\"mgen.replay\").run{ trace = \"app.txt\", args = MGEN_args }'\n",
    );
    let o = mgensim_in(
        dir,
        &[
            "run",
            "own.toml",
            "--json",
            "--set",
            "workload.args.algo_allreduce=rign",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "replay: `algo_allreduce`: \"rign\" is not an allreduce algorithm of mgen.coll \
             (did you mean \"ring\"?); they are: rabenseifner, rd, recursive_doubling, ring"
        ),
        "{err}"
    );
    let partial: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        partial["predicted_time_ps"], 0,
        "stopped before any time passed"
    );
    let o = mgensim_in(
        dir,
        &["run", "own.toml", "-q", "--set", "workload.args.flop=2e9"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "MGEN_args.flop was never read by the script, which asked for `flops` instead"
        ),
        "{}",
        stderr(&o)
    );
}
