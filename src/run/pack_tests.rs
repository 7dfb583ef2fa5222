//! The end state of a partition packed and read back (`part/pack.rs`) changes no output: every
//! shipped scenario, runs that record everything, synthetic traffic, deadlocks and a run
//! stopped by `--until`, each cut into 4 partitions, with and without the switch under which
//! each partition but the first packs its end state, forgets it and reads it back before the
//! report is made (`Simulation::pack_gather`), write the same bytes (all but the `host` line).

use super::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

type PackedSize = crate::engine::PackedSize;

/// Every output of a run of `scenario` (relative to the project) with `sets` and `records`,
/// in 4 partitions on one thread: file name → bytes (the summaries without `host`, the
/// timeline, the stop's message), and the bytes each partition packed (with `pack`).
fn outputs(
    scenario: &str,
    sets: &[&str],
    records: &Records,
    pack: bool,
) -> (BTreeMap<String, Vec<u8>>, Vec<PackedSize>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all: Vec<String> = [
        "engine.partitions=4",
        "engine.threads=1",
        "engine.separate_partitions=true",
    ]
    .iter()
    .chain(sets)
    .map(|s| s.to_string())
    .collect();
    all.push("limits.wall_time=\"10min\"".into());
    let s = Scenario::load(&root.join(scenario), &all, false).expect("the scenario loads");
    let mut probes = records.probes().expect("the records");
    probes.report = true;
    let setup = Setup {
        probes,
        ..Setup::default()
    };
    let mut sim = simulation(&s, &setup).expect("the simulation is built");
    let sizes = Rc::new(RefCell::new(Vec::new()));
    if pack {
        sim.pack_gather = Some(sizes.clone());
    }
    let mut files = BTreeMap::new();
    let report = match sim.run() {
        Ok(r) => r,
        Err(e) => {
            files.insert("stop".to_string(), e.stop.to_string().into_bytes());
            *e.partial.expect("a partial report")
        }
    };
    let text: String = summary(&report, false)
        .expect("the summary")
        .lines()
        .filter(|l| !l.starts_with("host "))
        .map(|l| format!("{l}\n"))
        .collect();
    files.insert("stdout".to_string(), text.into_bytes());
    if let Some(t) = &report.trace {
        files.insert("trace.json".to_string(), t.as_bytes().to_vec());
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path().join("out");
    write_folder(&out, &report, false, false).expect("the output folder");
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
            v.as_object_mut().expect("an object").remove("host");
            bytes = serde_json::to_vec_pretty(&v).expect("json");
        }
        files.insert(name, bytes);
    }
    let sizes = sizes.borrow().clone();
    (files, sizes)
}

/// `scenario` with and without the end state packed and read back: the same bytes in every
/// output, and every partition but the first packed. The outputs, and the packed sizes.
fn same_bytes(
    scenario: &str,
    sets: &[&str],
    records: &Records,
) -> (BTreeMap<String, Vec<u8>>, Vec<PackedSize>) {
    let (plain, none) = outputs(scenario, sets, records, false);
    let (packed, sizes) = outputs(scenario, sets, records, true);
    assert!(none.is_empty());
    assert!(
        plain.contains_key("links.csv") && plain.contains_key("report.html"),
        "{scenario}: {:?}",
        plain.keys()
    );
    assert_eq!(sizes.len(), 3, "{scenario}: not run in 4 partitions");
    // (a partition packs at least its links and its ranks)
    assert!(
        sizes.iter().all(|&(n, [l, r])| n > l.0 + r.0 && l.1 > 0),
        "{sizes:?}"
    );
    assert_eq!(
        plain.keys().collect::<Vec<_>>(),
        packed.keys().collect::<Vec<_>>(),
        "{scenario}: the files written"
    );
    for (name, bytes) in &plain {
        if packed[name] != *bytes {
            let (a, b) = (
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&packed[name]),
            );
            let at = a.lines().zip(b.lines()).position(|(x, y)| x != y);
            let line = |s: &str| at.and_then(|i| s.lines().nth(i)).unwrap_or("").to_string();
            panic!(
                "{scenario}: {name} differs once packed, at line {at:?}:\n  {}\n  {}",
                line(&a),
                line(&b)
            );
        }
    }
    (plain, sizes)
}

/// A test per shipped scenario.
macro_rules! scenarios {
    ($($name:ident: $path:expr;)*) => {$(
        #[test]
        fn $name() {
            same_bytes($path, &[], &Records::default());
        }
    )*};
}

scenarios! {
    barrier: "scenarios/barrier.toml";
    barrier_lesson: "scenarios/barrier_lesson.toml";
    bidirectional_ring: "scenarios/bidirectional_ring.toml";
    bruck_alltoall: "scenarios/bruck_alltoall.toml";
    dragonfly_alltoall: "scenarios/dragonfly_alltoall.toml";
    fattree_anynet: "scenarios/fattree_anynet.toml";
    fattree_random_ring: "scenarios/fattree_random_ring.toml";
    halo3d: "scenarios/halo3d.toml";
    hyperx_shift: "scenarios/hyperx_shift.toml";
    hyperx_traffic: "scenarios/hyperx_traffic.toml";
    jellyfish: "scenarios/jellyfish.toml";
    nbody_exchange: "scenarios/nbody_exchange.toml";
    put_ring: "scenarios/put_ring.toml";
    random_ring: "scenarios/random_ring.toml";
    random_ring_get: "scenarios/random_ring_get.toml";
    tofu_barrier: "scenarios/tofu_barrier.toml";
    two_jobs: "scenarios/two_jobs.toml";
    two_racks: "scenarios/two_racks.toml";
    replay_is: "scenarios/replay/is.toml";
    replay_is_power: "scenarios/replay/is_power.toml";
    tracerp_dragonfly: "scenarios/tracerp/dragonfly.toml";
    tracerp_fattree: "scenarios/tracerp/fattree.toml";
    tracerp_torus: "scenarios/tracerp/torus.toml";
}

/// Every shipped scenario has its test above.
#[test]
fn every_shipped_scenario_is_compared() {
    let src = include_str!("pack_tests.rs");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for folder in ["", "replay/", "tracerp/"] {
        for e in std::fs::read_dir(root.join(folder)).expect("scenarios") {
            let name = e
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            if name.ends_with(".toml") {
                let path = format!("\"scenarios/{folder}{name}\";");
                assert!(src.contains(&path), "{path} has no test here");
            }
        }
    }
}

/// Every record kept: the timeline, the profile, a time series of fixed width and the buffer
/// history, on a torus (its traffic matrix too), with MPI messages and puts.
#[test]
fn every_record_comes_back() {
    let records = Records {
        interval: Some("5us".into()),
        buffer_history: vec!["router=1".into(), "router=6".into()],
        trace: true,
        profile: true,
        plots: false,
    };
    let (files, _) = same_bytes("scenarios/halo3d.toml", &[], &records);
    for f in [
        "trace.json",
        "links_timeseries.csv",
        "buffer_history.csv",
        "profile.csv",
    ] {
        assert!(files.contains_key(f), "{f}: {:?}", files.keys());
    }
    // (the placement hint is made from the traffic matrix, gathered from every partition)
    let v: serde_json::Value = serde_json::from_slice(&files["summary.json"]).expect("json");
    let hint = &v["network"]["placement_hint"];
    assert_eq!(hint["grid"], serde_json::json!([6, 6, 6]), "{hint}");
    same_bytes("scenarios/barrier.toml", &[], &records);
}

/// Synthetic traffic in bursts, with its generators (what they would have made counts).
#[test]
fn synthetic_traffic_comes_back() {
    let records = Records {
        interval: Some("10us".into()),
        ..Records::default()
    };
    same_bytes(
        "scenarios/hyperx_traffic.toml",
        &["workload.process=\"burst\""],
        &records,
    );
}

/// A run stopped by `--until`: packets still in buffers, ranks open, the timeline's stuck
/// spans.
#[test]
fn a_run_stopped_by_until_comes_back() {
    let records = Records {
        trace: true,
        ..Records::default()
    };
    let (files, _) = same_bytes(
        "scenarios/bruck_alltoall.toml",
        &["limits.simulated_time=\"3us\""],
        &records,
    );
    let stop = String::from_utf8_lossy(&files["stop"]).into_owned();
    assert!(
        stop.contains("3 us") || stop.contains("simulated"),
        "{stop}"
    );
}

/// `script` on a 4x2 torus of 8 ranks, written to a scenario in `dir`: its path.
fn torus_scenario(dir: &Path, script: &str) -> String {
    std::fs::write(dir.join("w.lua"), script).expect("the script");
    let toml = "[network]\ntopology = 'torus'\ndims = [4, 2]\n\
                [workload]\nranks = 8\nscript = 'w.lua'\n";
    let path = dir.join("s.toml");
    std::fs::write(&path, toml).expect("the scenario");
    path.to_string_lossy().into_owned()
}

/// A deadlock across partitions: ranks blocked in a receive with messages from another
/// partition here unmatched, in a rendezvous send whose receiver posted another receive, and
/// in a poll; messages left at ranks that finished, requests never waited. The deadlock's
/// detail, read from the queues and the ranks once packed and read back, is the same.
#[test]
fn a_deadlock_reads_the_packed_ranks_and_queues() {
    let script = "local me = MGEN_Comm_rank()\n\
        if me == 0 then MGEN_Send(5, 8, 1); MGEN_Send(5, 16, 4); MGEN_Recv(5, 8, 7)\n\
        elseif me == 5 then MGEN_Recv(0, 8, 2)\n\
        elseif me == 1 then MGEN_Send(6, 1000000, 4)\n\
        elseif me == 6 then MGEN_Irecv(3, 8, 9); MGEN_Recv(1, 8, 5)\n\
        elseif me == 2 then MGEN_Isend(7, 64, 3)\n\
        elseif me == 3 then MGEN_Comp(1e-6); MGEN_rdma_poll(2)\n\
        elseif me == 4 then MGEN_acp_complete(MGEN_rdma_put(3, 4096, 1))\n\
        end\n";
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = torus_scenario(dir.path(), script);
    let records = Records {
        trace: true,
        profile: true,
        ..Records::default()
    };
    let (files, _) = same_bytes(&path, &[], &records);
    let stop = String::from_utf8_lossy(&files["stop"]).into_owned();
    for said in [
        "deadlock",
        "a message from rank 0 with tag 1 (8 B) is here, unmatched: the tags differ",
        "a message from rank 0 with tag 4 (16 B) is here",
        "waits in MGEN_rdma_poll(tag 2)",
        "messages that arrived and no receive matched, on 1 other ranks: rank 7: 1",
    ] {
        assert!(stop.contains(said), "{said:?} not in: {stop}");
    }
}

/// A run that ends with messages no rank received and requests no rank waited for: the
/// warnings, counted from the queues packed and read back, are the same.
#[test]
fn what_ranks_left_behind_is_counted_from_the_packed_queues() {
    let script = "local me = MGEN_Comm_rank()\n\
        MGEN_Isend((me + 3) % 8, 32, 6)\n\
        if me % 2 == 0 then MGEN_Irecv(MGEN_ANY_SOURCE, 8, 99) end\n\
        MGEN_Comp(1e-5)\n";
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = torus_scenario(dir.path(), script);
    let (files, _) = same_bytes(&path, &[], &Records::default());
    let summary = String::from_utf8_lossy(&files["summary.json"]).into_owned();
    assert!(summary.contains("warnings"), "{summary}");
    let v: serde_json::Value = serde_json::from_slice(&files["summary.json"]).expect("json");
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("8 ranks"), "{warnings}");
}

/// The bytes each partition but the first packs, for `scenario` with `sets` in 4 partitions
/// (nothing recorded beyond the summary).
fn packed_sizes(scenario: &str, sets: &[&str]) -> Vec<PackedSize> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = vec!["engine.partitions=4", "engine.separate_partitions=true"];
    all.extend_from_slice(sets);
    let all: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    let s = Scenario::load(&root.join(scenario), &all, false).expect("the scenario loads");
    let mut sim = simulation(&s, &Setup::default()).expect("the simulation is built");
    let sizes = Rc::new(RefCell::new(Vec::new()));
    sim.pack_gather = Some(sizes.clone());
    sim.run().expect("the run");
    let sizes = sizes.borrow().clone();
    sizes
}

/// Bytes a link and bytes a rank (with its queues) over `sizes`, and the rest a partition.
fn per_item(sizes: &[PackedSize]) -> (f64, f64, f64) {
    let sum = |f: &dyn Fn(&PackedSize) -> usize| sizes.iter().map(f).sum::<usize>() as f64;
    let links = sum(&|s| s.1[0].0) / sum(&|s| s.1[0].1);
    let ranks = sum(&|s| s.1[1].0) / sum(&|s| s.1[1].1).max(1.0);
    let rest = sum(&|s| s.0 - s.1[0].0 - s.1[1].0) / sizes.len() as f64;
    (links, ranks, rest)
}

/// The packed sizes of large runs (`cargo test --release --lib packed_sizes -- --ignored
/// --nocapture`): the 32x16x16 Bruck of 8,192 ranks, and the recursive-doubling barrier on a
/// 32x32x16 torus of 16,384 ranks, from which a million ranks' are estimated. Each packs
/// fewer bytes a rank than a rank holds in memory (216) and a few bytes a link.
#[test]
#[ignore]
fn packed_sizes_of_large_runs() {
    for (name, scenario, sets) in [
        (
            "bruck_put 32x16x16, 8192 ranks",
            "bench/bruck_put.toml",
            &["network.dims=[32,16,16]", "workload.ranks=8192"][..],
        ),
        (
            "rd barrier 32x32x16, 16384 ranks",
            "scenarios/barrier.toml",
            &[
                "network.dims=[32,32,16]",
                "workload.ranks=16384",
                "workload.args.algo=\"rd\"",
            ][..],
        ),
    ] {
        let sizes = packed_sizes(scenario, sets);
        let (link, rank, rest) = per_item(&sizes);
        println!(
            "{name}: {sizes:?} (bytes, [(bytes, links), (bytes, ranks)]) per partition; \
             {link:.2} B a link, {rank:.1} B a rank, {rest:.0} B else"
        );
        assert!(rank > 0.0 && rank < 216.0, "{rank}");
        assert!(link > 0.0 && link < 64.0, "{link}");
    }
}
