//! The command line: scenarios run as a user runs them, determinism, and clear errors.

mod common;
use common::*;
use std::process::{Command, Output};

fn mgensim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mgensim"))
        .args(args)
        .current_dir(project())
        .output()
        .expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// The JSON summary without `host`, the only part allowed to differ between runs.
fn json_without_host(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", stderr(o));
    let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    v.as_object_mut().unwrap().remove("host");
    v
}

#[test]
fn the_same_scenario_twice_gives_identical_json() {
    let args = [
        "run",
        "scenarios/random_ring.toml",
        "--json",
        "--set",
        "network.dims=[4,4,4]",
        "--set",
        "workload.ranks=64",
        "--set",
        "workload.args.bytes=100000",
    ];
    let a = json_without_host(&mgensim(&args));
    let b = json_without_host(&mgensim(&args));
    assert_eq!(a, b);
    assert!(a["predicted_time_ps"].as_u64().unwrap() > 0);
    for key in ["count", "finish_ps"] {
        assert!(a["ranks"].get(key).is_some(), "ranks.{key}");
    }
    for key in ["bytes", "packets", "packet_hops", "events"] {
        assert!(a["network"][key].as_u64().unwrap() > 0, "network.{key}");
    }
    // another seed draws another ring, so another time
    let mut other = args.to_vec();
    other.extend(["--seed", "2"]);
    let c = json_without_host(&mgensim(&other));
    assert_ne!(a["predicted_time_ps"], c["predicted_time_ps"]);
}

#[test]
fn the_shipped_scenarios_run_and_check() {
    for s in [
        "scenarios/put_ring.toml",
        "scenarios/barrier.toml",
        "examples/my_exchange.toml",
        "examples/my_barrier.toml",
        "scenarios/bidirectional_ring.toml",
        "scenarios/nbody_exchange.toml",
        "scenarios/bruck_alltoall.toml",
        "bench/bruck_put.toml",
    ] {
        let o = mgensim(&["run", s]);
        assert!(o.status.success(), "{s}: {}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("predicted time"));
        let o = mgensim(&["check", s]);
        assert!(o.status.success(), "{s}: {}", stderr(&o));
    }
    let o = mgensim(&[
        "run",
        "scenarios/barrier.toml",
        "--set",
        "workload.args.algo=rd",
        "--json",
    ]);
    let v = json_without_host(&o);
    assert!(v["metrics"]["barrier_s"]["max"].as_f64().unwrap() > 0.0);
}

/// Writes a scenario (and optionally a script) in a temporary folder and runs it.
fn run_bad(toml: &str, script: Option<&str>, extra: &[&str]) -> (Output, String) {
    let dir = tempfile::tempdir().unwrap();
    if let Some(s) = script {
        tmp_file(dir.path(), "w.lua", s);
    }
    let path = tmp_file(dir.path(), "bad.toml", toml);
    let p = path.display().to_string();
    let mut args = vec!["run", p.as_str()];
    args.extend(extra);
    let o = mgensim(&args);
    let e = stderr(&o);
    (o, e)
}

#[test]
fn an_unknown_key_names_the_key_and_the_file() {
    let (o, e) = run_bad(
        "[network]\nlink_bandwith = '4 GB/s'\n[workload]\ncode = ''\n",
        None,
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("bad.toml") && e.contains("link_bandwith") && e.contains("link_bandwidth"),
        "{e}"
    );
    assert!(!e.contains("panicked"));
}

#[test]
fn a_bad_unit_names_the_key_and_the_unit() {
    let (o, e) = run_bad(
        "[network]\ncable_latency = '3 parsecs'\n[workload]\ncode = ''\n",
        None,
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("bad.toml") && e.contains("network.cable_latency") && e.contains("parsecs"),
        "{e}"
    );
    let (o, e) = run_bad(
        "[network]\nlink_bandwidth = 4\n[workload]\ncode = ''\n",
        None,
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("network.link_bandwidth") && e.contains("GB/s"),
        "{e}"
    );
}

#[test]
fn out_of_range_values_are_all_reported() {
    let (o, e) = run_bad(
        "[network]\ndims = [4, 0]\nmtu = '4 KiB'\nbuffer_bytes = '2 KiB'\n[workload]\ncode = ''\nranks = 100\n",
        None,
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("network.dims") && e.contains("network.buffer_bytes"),
        "{e}"
    );
    let (_, e) = run_bad(
        "[network]\ndims = [4, 4]\n[workload]\ncode = ''\nranks = 100\n",
        None,
        &[],
    );
    assert!(e.contains("workload.ranks") && e.contains("100"), "{e}");
}

#[test]
fn a_bad_set_override_is_reported() {
    let (o, e) = run_bad(
        "[workload]\ncode = ''\n",
        None,
        &["--set", "network.dims=[8,8,8,8,8,8,8]"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("network.dims") && e.contains("7 dimensions"),
        "{e}"
    );
}

#[test]
fn a_syntax_error_names_the_script_and_line() {
    let (o, e) = run_bad(
        "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
        Some("local a = 1\nlocal b = = 2\n"),
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(e.contains("w.lua:2:") && e.contains("syntax error"), "{e}");
    // `check` finds it too, without running
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "w.lua", "if then\n");
    let p = tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
    );
    let o = mgensim(&["check", &p.display().to_string()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("w.lua:1:"), "{}", stderr(&o));
}

#[test]
fn a_runtime_error_in_one_rank_names_the_rank_line_and_traceback() {
    let (o, e) = run_bad(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        Some("local function f(t)\n  return t.x.y\nend\nMGEN_Comp(1e-6)\nif MGEN_Comm_rank() == 2 then f({}) end\n"),
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("rank 2")
            && e.contains("w.lua:2:")
            && e.contains("stack traceback")
            && e.contains("w.lua:5"),
        "{e}"
    );
    assert!(e.contains("1 us"), "the simulated time: {e}");
}

#[test]
fn a_bad_api_argument_names_the_function_and_the_line() {
    let (o, e) = run_bad(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        Some("local x = 1\nMGEN_rdma_put(9, 8, 0)\n"),
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("w.lua:2:")
            && e.contains("MGEN_rdma_put")
            && e.contains("dest")
            && e.contains("0 to 3"),
        "{e}"
    );
    let (_, e) = run_bad(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        Some("MGEN_rdma_put(1, 2.5, 0)\n"),
        &[],
    );
    assert!(
        e.contains("w.lua:1:") && e.contains("bytes") && e.contains("integer"),
        "{e}"
    );
    let (_, e) = run_bad(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        Some("local h = MGEN_rdma_put(1, 8, 0)\nif MGEN_Comm_rank() == 1 then\n  MGEN_acp_complete(h + 1)\nend\n"),
        &[],
    );
    assert!(
        e.contains("w.lua:3:") && e.contains("MGEN_acp_complete"),
        "{e}"
    );
}

#[test]
fn handles_and_requests_are_not_confused() {
    let (o, e) = run_bad(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        Some("local r = MGEN_Irecv(0, 8, 0)\nMGEN_acp_complete(r)\n"),
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("w.lua:2:") && e.contains("message-passing request") && e.contains("MGEN_Wait"),
        "{e}"
    );
    let (o, e) = run_bad(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        Some("local h = MGEN_rdma_put(1, 8, 0)\n\nMGEN_Wait(h)\n"),
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        e.contains("w.lua:3:") && e.contains("RDMA handle") && e.contains("MGEN_acp_complete"),
        "{e}"
    );
}

#[test]
fn a_deadlock_names_every_blocked_rank_and_what_it_waits_for() {
    let (o, e) = run_bad(
        "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
        Some("-- both ranks poll first: nobody ever puts\nMGEN_rdma_poll(5)\nMGEN_rdma_put(1 - MGEN_Comm_rank(), 8, 5)\n"),
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(e.contains("deadlock"), "{e}");
    assert!(
        e.contains("rank 0") && e.contains("rank 1") && e.contains("MGEN_rdma_poll(tag 5)"),
        "{e}"
    );
    assert!(e.contains("w.lua:2"), "{e}");
}

#[test]
fn help_explains_the_options() {
    let o = mgensim(&["run", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    for word in ["--set", "--seed", "--json", "KEY=VALUE"] {
        assert!(out.contains(word), "{word} missing from:\n{out}");
    }
}
