//! OTF2 (what Score-P writes) converted to a time-independent trace by `tools/otf2_to_ti.py`
//! and replayed: communicators, messages and compute checked by hand, the program's functions
//! kept as regions, and what the converter refuses.

mod common;
use common::*;

/// The Python that has the `otf2` module (Debian's python3-otf2), if any; under CI a missing
/// one is a failure (`.ci/run` installs it).
fn python_with_otf2() -> Option<String> {
    for py in ["/usr/bin/python3", "python3"] {
        let ok = std::process::Command::new(py)
            .args(["-c", "import otf2"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(py.to_string());
        }
    }
    if std::env::var_os("CI").is_some() {
        panic!("no Python with the otf2 module: `.ci/run` installs Debian's python3-otf2");
    }
    eprintln!(
        "OTF2 test skipped: no Python with the otf2 module (apt-get install -y python3-otf2)"
    );
    None
}

#[test]
fn an_otf2_trace_converts_with_its_communicators() {
    let Some(py) = python_with_otf2() else { return };
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = std::process::Command::new(&py).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    let dir = d.path().to_str().unwrap().to_string();
    // 4 ranks: a send, an isend/irecv pair, an allreduce in each half of a split, a bcast on
    // a dup of the world, compute between them (tests/data/make_otf2.py)
    run(&[
        project().join("tests/data/make_otf2.py").to_str().unwrap(),
        &format!("{dir}/otf2"),
    ]);
    run(&[
        project().join("tools/otf2_to_ti.py").to_str().unwrap(),
        &format!("{dir}/otf2/traces.otf2"),
        &format!("{dir}/ti"),
    ]);
    let rank3 = std::fs::read_to_string(d.path().join("ti/app_files/rank-3.txt")).unwrap();
    assert!(
        rank3.contains("3 comm 2 1 3\n3 allreduce 800 0 6 comm=2\n"),
        "{rank3}"
    );
    assert!(rank3.contains("3 isend 2 9 500 6\n"), "{rank3}");
    let s = tmp_file(
        d.path(),
        "s.toml",
        "[network]\ntopology = 'torus'\ndims = [2, 2]\n[workload]\ntrace = 'ti/app.txt'\n",
    );
    let r = run_path(&s);
    // a send, an isend, recursive doubling on 2 ranks in each half (2 messages each), a
    // binomial broadcast on 4 (3)
    assert_eq!(r.network.messages, 1 + 1 + 2 * 2 + 3);
    assert_eq!(r.network.bytes, 1000 + 500 + 4 * 800 + 3 * 64);
    // the halves stayed apart: rank 0 heard only from rank 2 (the allreduce; it is the root
    // of the broadcast); rank 1 got the send, rank 3's part and the broadcast from rank 0
    assert_eq!(r.per_rank[0].bytes_received, 800);
    assert_eq!(r.per_rank[1].bytes_received, 1000 + 800 + 64);
    // 5 ms of traced time; rank 3 was outside MPI for 1 ms, 999.9 us twice (after its isend
    // and its wait, 100 ns each) and 999 us twice (after the 1 us collectives), replayed at
    // the 1 Gflop/s it was converted at
    let t = r.predicted_time_ps;
    assert!((5_000_000_000..5_010_000_000).contains(&t), "{t}");
    assert_eq!(
        r.per_rank[3].compute_ps,
        (1_000_000 + 2 * 999_900 + 2 * 999_000) * 1000
    );
}

#[test]
fn the_otf2_converter_refuses_bad_archives_taken_outputs_and_bad_rates_in_one_line() {
    let Some(py) = python_with_otf2() else { return };
    let d = tempfile::tempdir().unwrap();
    let tool = project().join("tools/otf2_to_ti.py");
    let conv = |args: &[&str]| {
        let o = std::process::Command::new(&py)
            .arg(&tool)
            .args(args)
            .current_dir(d.path())
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    tmp_file(d.path(), "traces.otf2", "not an archive\n");
    std::fs::create_dir(d.path().join("taken")).unwrap();
    tmp_file(&d.path().join("taken"), "app.txt", "r0.txt\n");
    let cases: [(&[&str], &str); 5] = [
        (
            &["traces.otf2", "ti"],
            "otf2_to_ti.py: traces.otf2: not a readable OTF2 archive",
        ),
        (
            &["traces.otf2", "taken"],
            "otf2_to_ti.py: taken/app.txt exists",
        ),
        (
            &["traces.otf2", "ti", "--flops", "nan"],
            "must be a positive number of flop/s, got 'nan'",
        ),
        (
            &["traces.otf2", "ti", "--flops=-1e9"],
            "must be a positive number of flop/s, got '-1e9'",
        ),
        (
            &["traces.otf2", "ti", "--flops", "inf"],
            "must be a positive number of flop/s, got 'inf'",
        ),
    ];
    let mut failures = Vec::new();
    for (args, want) in cases {
        let (ok, err) = conv(args);
        let last = err.trim_end().lines().last().unwrap_or("");
        // (argparse says usage first; otherwise the message is the only line)
        let lines = err
            .trim_end()
            .lines()
            .filter(|l| !l.starts_with("usage:") && !l.starts_with("  "))
            .count();
        if ok || !last.contains(want) || lines != 1 {
            failures.push(format!("{args:?}: ok={ok}: {err}"));
        }
    }
    assert_no_failures(&failures, cases.len());
    // the taken output is left as it was
    assert_eq!(
        std::fs::read_to_string(d.path().join("taken/app.txt")).unwrap(),
        "r0.txt\n"
    );
}

#[test]
fn the_shipped_otf2_sample_converts_and_replays() {
    let Some(py) = python_with_otf2() else { return };
    let d = tempfile::tempdir().unwrap();
    let ti = d.path().join("ti");
    let o = std::process::Command::new(&py)
        .arg(project().join("tools/otf2_to_ti.py"))
        .arg(project().join("examples/otf2_sample/traces.otf2"))
        .arg(&ti)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = tmp_file(
        &ti,
        "s.toml",
        "[network]\ndims = [2, 2]\n[workload]\ntrace = 'app.txt'\n",
    );
    let r = run_path(&s);
    // what tests/data/make_otf2.py traces (as in the test above): a send, an isend, an
    // allreduce of 800 B in each half, a broadcast of 64 B on 4 ranks, over 5 ms
    assert_eq!(r.network.messages, 1 + 1 + 2 * 2 + 3);
    assert_eq!(r.network.bytes, 1000 + 500 + 4 * 800 + 3 * 64);
    assert!((5_000_000_000..5_010_000_000).contains(&r.predicted_time_ps));
}

/// Writes an OTF2 trace of two ranks with functions Score-P instrumented: each rank is in
/// `main` from 0 to 4 ms and, within it, in `solve step` (a name with a space) from 1 to 3 ms,
/// where at 2 ms rank 0 MPI_Sends 100 B (tag 4, 1 us) to rank 1, which MPI_Recvs it.
const USER_REGIONS: &str = r#"
import sys
import otf2
from otf2.enums import GroupType, Paradigm
MS = 1_000_000
with otf2.writer.open(sys.argv[1], timer_resolution=1_000_000_000) as trace:
    d = trace.definitions
    node = d.system_tree_node("node")
    reg = {n: d.region(n) for n in ("main", "solve step", "MPI_Send", "MPI_Recv")}
    locs = [d.location(f"rank {r}", group=d.location_group(f"rank {r}", system_tree_parent=node))
            for r in range(2)]
    d.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=locs)
    g = d.group("world", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=[0, 1])
    world = d.comm("MPI_COMM_WORLD", group=g)
    for r, loc in enumerate(locs):
        w = trace.event_writer_from_location(loc)
        w.enter(0, reg["main"])
        w.enter(1 * MS, reg["solve step"])
        if r == 0:
            w.enter(2 * MS, reg["MPI_Send"])
            w.mpi_send(2 * MS, 1, world, 4, 100)
            w.leave(2 * MS + 1000, reg["MPI_Send"])
        else:
            w.enter(2 * MS, reg["MPI_Recv"])
            w.mpi_recv(2 * MS + 1000, 0, world, 4, 100)
            w.leave(2 * MS + 1000, reg["MPI_Recv"])
        w.leave(3 * MS, reg["solve step"])
        w.leave(4 * MS, reg["main"])
"#;

/// The program's functions become regions of the replay (`replayed region` in the profile, a
/// span on the timeline), not only compute: their time is worked out by hand from the trace
/// (the compute inside them replays at the 1 Gflop/s it was converted at). `--no-regions`
/// leaves them out and changes no other figure.
#[test]
fn the_program_s_functions_replay_as_regions() {
    let Some(py) = python_with_otf2() else { return };
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    std::fs::write(dir.join("make.py"), USER_REGIONS).unwrap();
    let py_run = |args: &[&str]| {
        let o = std::process::Command::new(&py)
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    py_run(&["make.py", "otf2"]);
    let tool = project().join("tools/otf2_to_ti.py");
    let tool = tool.to_str().unwrap();
    py_run(&[tool, "otf2/traces.otf2", "ti"]);
    py_run(&[tool, "otf2/traces.otf2", "plain", "--no-regions"]);
    let rank0 = std::fs::read_to_string(dir.join("ti/app_files/rank-0.txt")).unwrap();
    assert_eq!(
        rank0,
        "0 init\n0 region_begin main\n0 compute 1e+06\n0 region_begin solve%20step\n\
         0 compute 1e+06\n0 send 1 4 100 6\n0 compute 999000\n0 region_end\n\
         0 compute 1e+06\n0 region_end\n0 finalize\n"
    );
    let plain = std::fs::read_to_string(dir.join("plain/app_files/rank-0.txt")).unwrap();
    assert!(!plain.contains("region"), "{plain}");
    let profile = |trace: &str| -> serde_json::Value {
        let s = format!("{trace}/s.toml");
        tmp_file(
            dir,
            &s,
            "[network]\ndims = [2]\ntopology = 'mesh'\n[workload]\ntrace = 'app.txt'\n",
        );
        let o = mgensim_in(
            dir,
            &["run", &s, "--json", "--profile", "--trace", "t.json"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let json = profile("ti");
    let rows = json["profile"].as_array().unwrap();
    let row = |kind: &str, name: &str| {
        rows.iter()
            .find(|r| r["kind"] == kind && r["name"] == name)
            .unwrap_or_else(|| panic!("no {kind} {name}: {rows:?}"))
    };
    // each rank is in `main` for its whole time, and in `solve step` for 1 ms of compute,
    // its message and 999 us of compute: rank 0's send costs it the 200 ns overhead, rank 1's
    // receive its replayed time
    let finish = &json["ranks"]["finish_ps"];
    let whole = finish["min"].as_u64().unwrap() + finish["max"].as_u64().unwrap();
    assert_eq!(row("replayed region", "main")["total_ps"], whole);
    let solve = &row("replayed region", "solve step");
    assert_eq!(
        (solve["count"].as_u64(), solve["ranks"].as_u64()),
        (Some(2), Some(2))
    );
    let recv = row("replayed", "MPI_Recv")["total_ps"].as_u64().unwrap();
    assert!(recv > 200_000, "{recv}");
    let by_hand = 2 * (1_000_000_000 + 999_000_000) + 200_000 + recv;
    assert_eq!(solve["total_ps"], by_hand);
    assert_eq!(row("replayed", "MPI_Send")["count"], 1);
    assert_eq!(row("replayed", "compute")["total_ps"], 2 * 3_999_000_000u64);
    // the timeline has the region's spans (as MGEN_region's)
    let tl = std::fs::read_to_string(dir.join("t.json")).unwrap();
    assert_eq!(
        tl.matches("\"name\":\"solve step\"").count(),
        2,
        "{}",
        &tl[..tl.len().min(600)]
    );
    // without the regions: the same run, no region rows
    let plain = profile("plain");
    assert_eq!(plain["predicted_time_ps"], json["predicted_time_ps"]);
    assert!(!plain["profile"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["kind"] == "replayed region"));
}
