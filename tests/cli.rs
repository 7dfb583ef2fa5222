//! The command line: scenarios run as a user runs them, determinism, and clear errors.

mod common;
use common::*;
use std::process::Output;

fn mgensim(args: &[&str]) -> Output {
    mgensim_in(&project(), args)
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

#[test]
fn help_explains_the_options() {
    let o = mgensim(&["run", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    for word in ["--set", "--seed", "--json", "KEY=VALUE"] {
        assert!(out.contains(word), "{word} missing from:\n{out}");
    }
}
