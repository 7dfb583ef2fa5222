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
fn the_late_step_benchmark_checks_and_runs_small() {
    let o = mgensim(&["check", "bench/put_step.toml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // on 8x4x4, rank + 64 is two hops along z (stride 32, ring of 4): every rank's 8 KiB is 32
    // packets of 256 B and one control packet, each crossing injection, two links, ejection
    let o = mgensim(&[
        "run",
        "bench/put_step.toml",
        "--set",
        "network.dims=[8,4,4]",
        "--set",
        "workload.args.dist=64",
        "--json",
    ]);
    let v = json_without_host(&o);
    assert_eq!(v["network"]["packets"], 128 * 33);
    assert_eq!(v["network"]["packet_hops"], 128 * 33 * 4);
    // every packet arrives; only the 32 data packets of each put go through the DMAs; one
    // operation per rank; the kinds add up to the events
    let kinds = &v["network"]["events_by_kind"];
    assert_eq!(kinds["nic_arrive"], 128 * 33);
    assert_eq!(kinds["tx_dma_done"], 128 * 32);
    assert_eq!(kinds["rx_dma_done"], 128 * 32);
    assert_eq!(kinds["op_start"], 128);
    assert!(
        kinds.get("router_ready").is_none(),
        "torus packets are queued on sending"
    );
    let sum: u64 = kinds
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(sum, v["network"]["events"].as_u64().unwrap());
}

#[test]
fn help_explains_the_options() {
    let o = mgensim(&["run", "--help"]);
    let out = String::from_utf8_lossy(&o.stdout);
    for word in ["--set", "--seed", "--json", "KEY=VALUE"] {
        assert!(out.contains(word), "{word} missing from:\n{out}");
    }
}

#[test]
fn no_progress_line_when_stderr_is_not_a_terminal() {
    // a run long enough for many progress updates (a few hundred thousand events); its stderr
    // is a pipe here, so it must stay empty (the line is for terminals only)
    let dir = tempfile::tempdir().unwrap();
    common::tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [4, 4, 4]\n[workload]\ncode = '''
         local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
         for i = 1, 20 do
           local h = MGEN_rdma_put((me + i) % p, 20000, 0)
           MGEN_rdma_poll(0); MGEN_acp_complete(h)
         end'''\n",
    );
    let o = common::mgensim_in(dir.path(), &["run", "s.toml", "--json"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    let events: u64 = out
        .lines()
        .find(|l| l.contains("\"events\":"))
        .and_then(|l| {
            l.trim()
                .trim_start_matches("\"events\":")
                .trim()
                .trim_end_matches(',')
                .parse()
                .ok()
        })
        .unwrap();
    assert!(events > 5 * 16384, "only {events} events");
    assert_eq!(common::stderr(&o), "", "stderr of a clean run is empty");
}

#[test]
fn a_run_that_stops_early_gives_how_far_it_got_not_a_prediction() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [2]\n[workload]\ncode = 'MGEN_Comp(1e-6); MGEN_rdma_poll(1)'\n",
    );
    let o = mgensim_in(dir.path(), &["run", "s.toml"]);
    assert_eq!(o.status.code(), Some(1), "a deadlock");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("predicted time"), "{text}");
    assert!(
        text.contains("stopped at         1 us  (1000000 ps), not a prediction"),
        "{text}"
    );
}

/// `check` runs nothing: it offers no option that stops a run (it offered `--timeout`,
/// `--until`, `--threads` and `--partitions`, each described as "Stop the run ..."), and
/// refuses them.
#[test]
fn check_offers_only_what_a_check_uses() {
    let help = mgensim(&["check", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout).to_string();
    for given in ["--set", "--seed", "--allow-io"] {
        assert!(text.contains(given), "{given}: {text}");
    }
    for refused in ["--timeout", "--until", "--threads", "--partitions"] {
        assert!(!text.contains(refused), "{refused}: {text}");
        let o = mgensim(&["check", "scenarios/put_ring.toml", refused, "1"]);
        assert_eq!(o.status.code(), Some(2), "{refused}: {}", stderr(&o));
    }
    assert!(!text.contains("Stop the run"), "{text}");
    // run still has them all, and lists every file of an output folder
    let help = mgensim(&["run", "--help"]);
    let text = String::from_utf8_lossy(&help.stdout).to_string();
    for option in ["--timeout", "--until", "--threads", "--partitions", "--set"] {
        assert!(text.contains(option), "{option}");
    }
    for f in mgensim::output::FOLDER_FILES {
        assert!(text.contains(f), "run --help lists {f}");
    }
}

/// The flow model names each router-only key a scenario gives and says why it ignores it;
/// a NIC link's rate is finite as every link's is.
#[test]
fn the_flow_model_warns_of_the_keys_it_ignores_and_link_rates_are_finite() {
    let d = tempfile::tempdir().unwrap();
    tmp_file(
        d.path(),
        "s.toml",
        "[network]\nmodel = 'flow'\ndims = [4]\nvcs = 7\nrouter = 'output_queued'\n\
         [workload]\ncode = 'MGEN_Comp(1e-9)'\n",
    );
    let want = [
        "warning: network.vcs is ignored: the flow model (network.model = \"flow\") has no \
         buffers, virtual channels or router queues, and vcs sets the routers' virtual channels",
        "warning: network.router is ignored: the flow model (network.model = \"flow\") has no \
         buffers, virtual channels or router queues, and router sets how routers queue packets",
    ];
    for args in [&["check", "s.toml"][..], &["run", "s.toml", "-q"]] {
        let (cmd, o) = (args[0], mgensim_in(d.path(), args));
        let e = stderr(&o);
        assert!(o.status.success(), "{cmd}: {e}");
        for w in want {
            assert!(e.contains(w), "{cmd}: {w}\n{e}");
        }
        assert!(!e.contains("network.dims"), "{e}");
    }
    // nor does it ask of them what only the packet model needs: a buffer of a whole packet
    let big = ["check", "s.toml", "--set", "network.mtu=\"64 KiB\""];
    let o = mgensim_in(d.path(), &big);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut packet = big.to_vec();
    packet.extend(["--set", "network.model=packet"]);
    let o = mgensim_in(d.path(), &packet);
    assert!(
        stderr(&o).contains("key `network.buffer_bytes`: 8 KiB cannot hold one whole packet"),
        "{}",
        stderr(&o)
    );
    // the same keys under the packet model: no word
    let o = mgensim_in(
        d.path(),
        &["check", "s.toml", "--set", "network.model=packet"],
    );
    assert!(
        o.status.success() && !stderr(&o).contains("warning"),
        "{}",
        stderr(&o)
    );
    // "inf" is no link's rate, the NIC links' included (the node's rates may be)
    for key in ["link_bandwidth", "nic_link_bandwidth", "switch_bandwidth"] {
        let o = mgensim_in(
            d.path(),
            &[
                "check",
                "s.toml",
                "--set",
                &format!("network.{key}=\"inf\""),
            ],
        );
        assert_eq!(o.status.code(), Some(1), "{key}");
        assert!(
            stderr(&o).contains(&format!(
                "key `network.{key}` (from --set): must be finite (a link always takes time)"
            )),
            "{}",
            stderr(&o)
        );
    }
    let o = mgensim_in(
        d.path(),
        &["check", "s.toml", "--set", "node.dma_bandwidth=\"inf\""],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Whatever a message quotes of its input is cut to bounds: a TOML value, a key, a script's
/// name, a line of a megabyte gives a message of a line or two, its long word cut with an
/// ellipsis and its length; and `check` lists at most 100 unknown API names of a script of
/// many, quickly (its lists were quadratic).
#[test]
fn messages_quote_input_within_bounds() {
    let d = tempfile::tempdir().unwrap();
    let w = "x".repeat(1 << 20);
    let cases = [
        (
            format!("[network]\ndims = [2]\nlink_bandwidth = '{w}'\n"),
            "key `network.link_bandwidth`: cannot read \"xxxx",
        ),
        (
            format!("[network]\ntopology = '{w}'\n"),
            "key `network.topology`: `xxxx",
        ),
        (
            format!("[network]\ndims = [2]\n{w} = 1\n"),
            "key `network.xxxx",
        ),
        (
            format!("[network]\ndims = [2]\nrouter = '{w}'\n"),
            "key `network.router`: unknown variant `xxxx",
        ),
        (
            format!("[network]\ndims = [2] {w}\n"),
            "TOML parse error at line 4",
        ),
    ];
    for (network, want) in &cases {
        tmp_file(
            d.path(),
            "s.toml",
            &format!("[workload]\ncode = 'x = 1'\n{network}"),
        );
        let o = mgensim_in(d.path(), &["check", "s.toml"]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{}", &e[..e.len().min(300)]);
        assert!(e.len() < 2000, "{want}: {} bytes", e.len());
        assert!(e.contains(want), "{want}\n{e}");
        assert!(e.contains("… (10485"), "{e}");
    }
    // a latency past 1 h (which 64 bits of picoseconds hold, and a hop adds several of)
    tmp_file(
        d.path(),
        "s.toml",
        "[network]\ndims = [2]\ncable_latency = '18446744073709551615 ps'\nrouting_time = '2 h'\n\
         [workload]\ncode = 'x = 1'\n",
    );
    let e = stderr(&mgensim_in(d.path(), &["check", "s.toml"]));
    for want in [
        "s.toml:3: key `network.cable_latency`: 18446744.07371 s is longer than a link or \
         a router's stage may take, 3600 s",
        "s.toml:4: key `network.routing_time`: 7200 s is longer than a link or a router's stage \
         may take, 3600 s",
    ] {
        assert!(e.contains(want), "{want}\n{e}");
    }
    // 100,000 unknown API names: the first 100, and a count of the rest
    let script: String = (0..100_000)
        .map(|i| format!("x = MGEN_name_{i}\n"))
        .collect();
    std::fs::write(d.path().join("w.lua"), script).unwrap();
    tmp_file(
        d.path(),
        "s.toml",
        "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
    );
    let t = std::time::Instant::now();
    let o = mgensim_in(d.path(), &["check", "s.toml"]);
    let e = stderr(&o);
    assert!(t.elapsed().as_secs() < 60, "{:?}", t.elapsed());
    assert_eq!(
        e.matches("is not part of mgensim's API").count(),
        100,
        "{e}"
    );
    assert!(
        e.contains("w.lua:100: `MGEN_name_99` is not part of mgensim's API"),
        "{e}"
    );
    assert!(
        e.contains("... and 99900 more names that are not part of the API"),
        "{e}"
    );
}

/// A run an MPI launcher started as one of several processes, in a build without MPI, is
/// refused with how to build with it: each process would run the whole simulation alone and
/// write the same outputs. A job of one process runs as usual.
#[cfg(not(feature = "mpi"))]
#[test]
fn a_job_of_several_processes_without_mpi_built_in_is_refused() {
    let run = |var: &str, value: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_mgensim"))
            .current_dir(project())
            .env(var, value)
            .args(["run", "scenarios/barrier.toml", "-q"])
            .output()
            .unwrap()
    };
    let o = run("OMPI_COMM_WORLD_SIZE", "4");
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("started by an MPI launcher (OMPI_COMM_WORLD_SIZE=4)")
            && err.contains("--features mpi"),
        "{err}"
    );
    let o = run("PMIX_RANK", "0");
    assert!(stderr(&o).contains("(PMIX_RANK=0)"), "{}", stderr(&o));
    let o = run("OMPI_COMM_WORLD_SIZE", "1");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("predicted time"));
}
