//! Every shipped scenario, the replay scenarios among them, cut into partitions and run on 1,
//! 2, 3 and 7 threads, writes the same bytes: the summary (all but its `host` line), and every
//! file of its output folder (links, ranks, nodes, routers, time series, buffer history,
//! report.html) and its timeline. The partitions are forced (these networks are small enough
//! for one by default), the same for every thread count. So does each run in 4 partitions
//! simulated as 2, 3 and 4 processes (`engine.processes`: records of another process's
//! partitions come as copies, the cut messages between processes cross as bytes), on 1 and 2
//! threads, against one partition on one thread.

mod common;

use common::{deterministic_json, mgensim_in, project, stderr};
use std::collections::BTreeMap;
use std::path::Path;

/// Partitions each scenario is cut into (at most the network's own maximum).
const PARTS: u32 = 4;

/// Every output of one run in [`PARTS`] partitions: file name → bytes (`summary.json` without
/// `host`, and the text summary without its `host` line).
fn outputs(scenario: &str, threads: u32, dir: &Path, extra: &[&str]) -> BTreeMap<String, Vec<u8>> {
    outputs_in(scenario, PARTS, threads, dir, extra)
}

/// [`outputs`] of a run in `parts` partitions.
fn outputs_in(
    scenario: &str,
    parts: u32,
    threads: u32,
    dir: &Path,
    extra: &[&str],
) -> BTreeMap<String, Vec<u8>> {
    let out = dir.join(format!("out{threads}"));
    let trace = dir.join(format!("trace{threads}.json"));
    let parts = parts.to_string();
    let t = threads.to_string();
    let mut args = vec![
        "run",
        scenario,
        "--partitions",
        &parts,
        "--threads",
        &t,
        "--out",
        out.to_str().expect("a path"),
        "--trace",
        trace.to_str().expect("a path"),
        // (each partition on its own, even where a thread runs several: the cuts are tested)
        "--set",
        "engine.separate_partitions=true",
    ];
    args.extend_from_slice(extra);
    let o = mgensim_in(&project(), &args);
    assert!(
        o.status.success(),
        "{scenario} on {threads} threads: {}",
        stderr(&o)
    );
    let mut files = BTreeMap::new();
    let text: String = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| !l.starts_with("host "))
        .map(|l| format!("{l}\n"))
        .collect();
    files.insert("stdout".to_string(), text.into_bytes());
    files.insert(
        "trace.json".to_string(),
        std::fs::read(&trace).expect("the trace"),
    );
    for entry in std::fs::read_dir(&out).expect("the output folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let mut bytes = std::fs::read(&path).expect("readable");
        if name == "summary.json" {
            let mut v: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
            let host = v
                .as_object_mut()
                .expect("an object")
                .remove("host")
                .expect("host");
            let partitions = host["partitions"].as_u64().unwrap() as u32;
            assert_eq!(host["threads"], threads.min(partitions), "{scenario}");
            if let Some(p) = extra
                .iter()
                .find_map(|a| a.strip_prefix("engine.processes="))
            {
                let p: u32 = p.parse().expect("a count");
                let shown = host.get("processes").and_then(|v| v.as_u64()).unwrap_or(1);
                assert_eq!(shown, p.min(partitions) as u64, "{scenario}");
            }
            bytes = serde_json::to_vec_pretty(&v).expect("json");
        }
        files.insert(name, bytes);
    }
    // The trace of a scenario runs to 150 MB: each run's files go as soon as they are read, so
    // that the test holds one run's outputs on disk at a time.
    std::fs::remove_dir_all(&out).expect("the output folder removed");
    std::fs::remove_file(&trace).expect("the trace removed");
    files
}

/// `scenario` (relative to the project) run on 1, 2, 3 and 7 threads, compared file by file.
fn same_bytes(scenario: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let one = outputs(scenario, 1, dir.path(), extra);
    assert!(
        one.contains_key("links.csv") && one.contains_key("report.html"),
        "{:?}",
        one.keys()
    );
    for threads in [2, 3, 7] {
        let many = outputs(scenario, threads, dir.path(), extra);
        assert_eq!(
            one.keys().collect::<Vec<_>>(),
            many.keys().collect::<Vec<_>>(),
            "{scenario}: the files written on {threads} threads"
        );
        for (name, bytes) in &one {
            assert!(
                many[name] == *bytes,
                "{scenario}: {name} differs on {threads} threads from 1 thread"
            );
        }
    }
}

/// `scenario` in 4 partitions simulated as 2, 3 and 4 processes, on 1 and 2 threads, against
/// one partition on one thread, compared file by file.
fn same_bytes_as_processes(scenario: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let one = outputs_in(scenario, 1, 1, dir.path(), extra);
    for processes in [2, 3, 4] {
        let set = format!("engine.processes={processes}");
        let mut args = extra.to_vec();
        args.extend_from_slice(&["--set", &set]);
        for threads in [1, 2] {
            let many = outputs_in(scenario, PARTS, threads, dir.path(), &args);
            assert_eq!(
                one.keys().collect::<Vec<_>>(),
                many.keys().collect::<Vec<_>>(),
                "{scenario}: the files written as {processes} processes on {threads} threads"
            );
            for (name, bytes) in &one {
                assert!(
                    many[name] == *bytes,
                    "{scenario}: {name} differs as {processes} processes on {threads} threads \
                     from one partition"
                );
            }
        }
    }
}

/// A test per shipped scenario (with what it records beyond the summary), on threads and as
/// processes.
macro_rules! scenarios {
    ($($name:ident: $path:expr, [$($extra:expr),*];)*) => {$(
        #[test]
        fn $name() {
            same_bytes($path, &[$($extra),*]);
        }
        mod $name {
            #[test]
            fn as_processes() {
                super::same_bytes_as_processes($path, &[$($extra),*]);
            }
        }
    )*};
}

scenarios! {
    barrier: "scenarios/barrier.toml", ["--interval", "20us", "--buffer-history", "router=5"];
    barrier_lesson: "scenarios/barrier_lesson.toml", ["--profile"];
    bidirectional_ring: "scenarios/bidirectional_ring.toml", ["--interval", "5us"];
    bruck_alltoall: "scenarios/bruck_alltoall.toml", ["--interval", "5us", "--buffer-history", "router=0"];
    dragonfly_alltoall: "scenarios/dragonfly_alltoall.toml", ["--interval", "20us"];
    fattree_anynet: "scenarios/fattree_anynet.toml", ["--interval", "20us"];
    fattree_random_ring: "scenarios/fattree_random_ring.toml", ["--interval", "20us"];
    halo3d: "scenarios/halo3d.toml", ["--profile", "--interval", "50us"];
    hyperx_shift: "scenarios/hyperx_shift.toml", ["--set", "network.routing=ugal", "--interval", "50us"];
    hyperx_traffic: "scenarios/hyperx_traffic.toml", ["--interval", "10us", "--set", "workload.process=burst"];
    jellyfish: "scenarios/jellyfish.toml", ["--interval", "20us", "--buffer-history", "router=3"];
    nbody_exchange: "scenarios/nbody_exchange.toml", [];
    put_ring: "scenarios/put_ring.toml", ["--buffer-history", "router=1"];
    random_ring: "scenarios/random_ring.toml", ["--interval", "50us"];
    random_ring_get: "scenarios/random_ring_get.toml", [];
    tofu_barrier: "scenarios/tofu_barrier.toml", ["--interval", "5us"];
    two_jobs: "scenarios/two_jobs.toml", [];
    two_racks: "scenarios/two_racks.toml", ["--profile"];
    replay_is: "scenarios/replay/is.toml", ["--interval", "5us", "--profile"];
    replay_is_power: "scenarios/replay/is_power.toml", ["--interval", "20us"];
    tracerp_dragonfly: "scenarios/tracerp/dragonfly.toml", [];
    tracerp_fattree: "scenarios/tracerp/fattree.toml", [];
    tracerp_torus: "scenarios/tracerp/torus.toml", [];
}

/// Every shipped scenario has its test above.
#[test]
fn every_shipped_scenario_is_compared() {
    let listed = [
        "barrier",
        "barrier_lesson",
        "bidirectional_ring",
        "bruck_alltoall",
        "dragonfly_alltoall",
        "fattree_anynet",
        "fattree_random_ring",
        "halo3d",
        "hyperx_shift",
        "hyperx_traffic",
        "jellyfish",
        "nbody_exchange",
        "put_ring",
        "random_ring",
        "random_ring_get",
        "tofu_barrier",
        "two_jobs",
        "two_racks",
        "replay/is",
        "replay/is_power",
        "tracerp/dragonfly",
        "tracerp/fattree",
        "tracerp/torus",
    ];
    let mut found = Vec::new();
    for folder in ["", "replay/", "tracerp/"] {
        for e in std::fs::read_dir(project().join("scenarios").join(folder)).expect("scenarios") {
            let name = e
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            if let Some(stem) = name.strip_suffix(".toml") {
                found.push(format!("{folder}{stem}"));
            }
        }
    }
    found.sort();
    let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed);
}

/// With cut-through DMA a packet's head leaves its NIC as the read of its payload starts, and
/// may cross into another partition before that read ends: the end of the read must still
/// find its NIC and message (not the packet, gone from the sender's partition, its slot
/// taken by a packet arriving from the other side). Puts both ways across the cut of a 4x2
/// torus in two partitions: every put completes, with the figures of one partition.
#[test]
fn a_packet_streamed_across_a_cut_before_its_read_ends_completes() {
    let toml = "[network]\ntopology = 'torus'\ndims = [4, 2]\n\
        [node]\ndma_bandwidth = '700 MB/s'\ndma = 'cut_through'\n\
        [workload]\nranks = 8\ncode = '''\n\
        local me = MGEN_Comm_rank()\n\
        local peer = { [0] = 4, [5] = 1, [2] = 6, [7] = 3 }\n\
        local from = { [4] = 0, [1] = 5, [6] = 2, [3] = 7 }\n\
        if peer[me] then MGEN_acp_complete(MGEN_rdma_put(peer[me], 16384, 0)) end\n\
        if from[me] then MGEN_rdma_poll(0) end\n'''\n";
    let whole = common::run_with(toml, &["engine.partitions=1"]);
    assert_eq!(whole.network.bytes, 4 * 16384);
    for threads in ["1", "2"] {
        let cut = common::run_with(
            toml,
            &[
                "engine.partitions=2",
                "engine.separate_partitions=true",
                &format!("engine.threads={threads}"),
            ],
        );
        assert_eq!(cut.host.execution.partitions, 2);
        assert_eq!(deterministic_json(&cut), deterministic_json(&whole));
    }
}

/// A run in partitions that deadlocks after traffic across the cut says so, naming the rank
/// and what it waits for, on any thread count (the releases each partition recorded are
/// applied by it before the report reads the whole network).
#[test]
fn a_deadlock_in_partitions_is_reported_whatever_the_threads() {
    let toml = "[network]\ntopology = 'torus'\ndims = [4, 2]\n\
        [workload]\nranks = 8\ncode = '''\n\
        local me = MGEN_Comm_rank()\n\
        for i = 1, 20 do MGEN_acp_complete(MGEN_rdma_put((me + 4) % 8, 4096, 1)) end\n\
        for i = 1, 20 do MGEN_rdma_poll(1) end\n\
        if me == 3 then MGEN_rdma_poll(2) end\n'''\n";
    let mut said = Vec::new();
    for threads in ["1", "2", "3"] {
        let s = common::scenario(
            toml,
            &["engine.partitions=2", &format!("engine.threads={threads}")],
        );
        let e = common::fail(&s);
        assert!(
            e.contains("deadlock") && e.contains("rank 3") && e.contains("MGEN_rdma_poll(tag 2)"),
            "{e}"
        );
        said.push(e);
    }
    assert!(said.iter().all(|e| *e == said[0]), "{said:?}");
}

/// Thread and partition counts out of range are refused before anything runs, naming the key
/// and the scenario file.
#[test]
fn thread_and_partition_counts_out_of_range_name_the_key() {
    for (flag, value, key) in [
        ("--threads", "1025", "engine.threads"),
        ("--partitions", "257", "engine.partitions"),
        ("--processes", "257", "engine.processes"),
    ] {
        let o = mgensim_in(&project(), &["run", "scenarios/put_ring.toml", flag, value]);
        let e = stderr(&o);
        assert!(!o.status.success(), "{flag} {value} ran");
        assert!(
            e.contains(key) && e.contains("scenarios/put_ring.toml") && e.contains("out of range"),
            "{e}"
        );
    }
}

/// More processes than the partitions asked is refused, naming both keys; with the partitions
/// left to the network, they are raised to one a process; a network that cannot be cut
/// that far runs as fewer processes, and the `host` line says why.
#[test]
fn processes_need_as_many_partitions() {
    let o = mgensim_in(
        &project(),
        &[
            "run",
            "scenarios/put_ring.toml",
            "--partitions",
            "2",
            "--processes",
            "3",
        ],
    );
    let e = stderr(&o);
    assert!(!o.status.success(), "ran");
    assert!(
        e.contains("engine.processes")
            && e.contains("engine.partitions is 2")
            && e.contains("scenarios/put_ring.toml"),
        "{e}"
    );
    let o = mgensim_in(
        &project(),
        &[
            "run",
            "scenarios/put_ring.toml",
            "--threads",
            "1",
            "--processes",
            "3",
        ],
    );
    let host = String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.starts_with("host "))
        .expect("a host line")
        .to_string();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        host.contains("1 thread, 3 partitions") && host.contains(", 3 processes (emulated), "),
        "{host}"
    );
    // a ring of 2 routers: 2 partitions at most
    let toml = "[network]\ntopology = 'torus'\ndims = [2]\n\
        [workload]\nranks = 2\ncode = '''\n\
        local me = MGEN_Comm_rank()\n\
        MGEN_acp_complete(MGEN_rdma_put((me + 1) % 2, 4096, 1))\n\
        MGEN_rdma_poll(1)\n'''\n";
    let r = common::run_with(toml, &["engine.processes=4", "engine.threads=1"]);
    let x = &r.host.execution;
    assert_eq!(x.partitions, 2);
    let json = serde_json::to_value(x).expect("json");
    assert_eq!(json["processes"], 2);
    assert!(
        json["partition_note"]
            .as_str()
            .is_some_and(|n| n.starts_with("4 processes asked, simulated as 2: ")),
        "{json}"
    );
}
