//! Finer partitions: a 65,536-node torus run in 256 blocks prints the same bytes as in one
//! partition, and random networks of every family cut into any count of partitions they offer
//! print the same as one partition on one thread. (How the cut itself is chosen, with its
//! links counted by hand: the tests of `src/partition.rs` and `src/topology/blocks/`.)

mod common;

use mgensim::{Report, Scenario, Simulation};
use proptest::prelude::*;
use std::path::Path;

/// Every rank puts 3000 bytes to its neighbours along x, y and z and to one far away (a
/// permutation), polls for as many, and completes its puts.
const TORUS: &str = "[network]\ntopology = 'torus'\ndims = [64, 32, 32]\n\
[workload]\ncode = '''\nlocal me, p = MGEN_Comm_rank(), MGEN_Comm_size()\nlocal hs = {}\n\
for i, to in ipairs({me + 1, me + 64, me + 2048, me * 7919 + 12345}) do\n\
  hs[i] = MGEN_rdma_put(to % p, 3000, 1)\nend\n\
for _ = 1, #hs do MGEN_rdma_poll(1) end\n\
for _, h in ipairs(hs) do MGEN_acp_complete(h) end\n'''\n";

/// The run of `torus.toml` up to 4 us in `parts` partitions kept apart on `threads` threads:
/// every file of its output folder (`summary.json` without `host`), and its `host`.
fn torus_run(dir: &Path, parts: u32, threads: u32) -> (Vec<(String, Vec<u8>)>, serde_json::Value) {
    let out = dir.join(format!("out{parts}"));
    let (p, t) = (parts.to_string(), threads.to_string());
    let args = [
        "run",
        "torus.toml",
        "--until",
        "4us",
        "-q",
        "--partitions",
        &p,
        "--threads",
        &t,
        "--set",
        "engine.separate_partitions=true",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = common::mgensim_in(dir, &args);
    // (stopped at the time limit: a partial run, its figures up to the stop)
    assert_eq!(
        o.status.code(),
        Some(3),
        "{parts} partitions: {}",
        common::stderr(&o)
    );
    let mut files = Vec::new();
    let mut host = serde_json::Value::Null;
    let mut names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut bytes = std::fs::read(&path).unwrap();
        if name == "summary.json" {
            let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            host = v.as_object_mut().unwrap().remove("host").unwrap();
            assert_eq!(v["partial"], true);
            bytes = serde_json::to_vec_pretty(&v).unwrap();
        }
        files.push((name, bytes));
    }
    (files, host)
}

#[test]
fn a_65536_node_torus_in_256_partitions_prints_the_same_bytes_as_in_one() {
    let dir = tempfile::tempdir().unwrap();
    common::tmp_file(dir.path(), "torus.toml", TORUS);
    let (one, host) = torus_run(dir.path(), 1, 1);
    assert_eq!(host["partitions"], 1);
    let names: Vec<&str> = one.iter().map(|f| f.0.as_str()).collect();
    for want in [
        "links.csv",
        "nodes.csv",
        "ranks.csv",
        "routers.csv",
        "summary.json",
    ] {
        assert!(names.contains(&want), "{names:?}");
    }
    let (cut, host) = torus_run(dir.path(), 256, 2);
    assert_eq!(host["partitions"], 256);
    assert_eq!(host["partition_unit"], "16x4x4 block");
    assert!(host["windows"]["messages"].as_u64().unwrap() > 0, "{host}");
    for ((name, a), (_, b)) in one.iter().zip(&cut) {
        assert!(a == b, "{name} differs in 256 partitions");
    }
    assert_eq!(one.len(), cut.len());
}

thread_local! {
    /// The folder a test's scenarios are read from (a graph's file is written there).
    static FOLDER: tempfile::TempDir = tempfile::tempdir().expect("a temporary folder");
}

/// A random small network of each family, large enough to offer many partitions.
fn network() -> impl Strategy<Value = (String, Option<String>)> {
    prop_oneof![
        (prop_oneof![Just("torus"), Just("mesh")], prop::collection::vec(1u32..=6, 1..=3))
            .prop_map(|(t, d)| (format!("topology = '{t}'\ndims = {d:?}"), None)),
        prop::collection::vec(1u32..=2, 3)
            .prop_map(|d| (format!("topology = 'tofu'\ndims = {d:?}"), None)),
        (prop::collection::vec(1u32..=4, 1..=3), 1u32..=2, prop_oneof![Just("dimension_order"), Just("ugal")])
            .prop_map(|(d, k, r)| (format!(
                "topology = 'hyperx'\ndims = {d:?}\nlinks_per_pair = {k}\nrouting = '{r}'"
            ), None)),
        (1u32..=4, 1u32..=2, 1u32..=2, prop_oneof![Just("minimal"), Just("valiant"), Just("ugal")])
            .prop_map(|(a, p, h, r)| (format!(
                "topology = 'dragonfly'\nrouters_per_group = {a}\nnodes_per_router = {p}\n\
                 global_links_per_router = {h}\nrouting = '{r}'"
            ), None)),
        (prop::collection::vec((1u32..=4, 1u32..=3), 2..=3), prop_oneof![Just("straight_up"), Just("random")])
            .prop_map(|(levels, r)| {
                let down: Vec<u32> = levels.iter().map(|l| l.0).collect();
                let mut up: Vec<u32> = levels.iter().map(|l| l.1).collect();
                *up.last_mut().unwrap() = 0;
                (format!("topology = 'fattree'\ndown_ports = {down:?}\nup_ports = {up:?}\nrouting = '{r}'"), None)
            }),
        (2u32..=40)
            .prop_flat_map(|n| (Just(n), prop::collection::vec((0..n, 0..n), 0..=12), prop::collection::vec(0..n, 1..=24)))
            .prop_map(|(n, extra, nodes)| {
                // a chain (connected) and more links; two NICs a node where they pair up, each
                // on a router of its own (a node's routers share a partition)
                let mut g = format!("routers {n}\nnodes {}\n", nodes.len());
                let mut links = std::collections::BTreeMap::new();
                for r in 1..n {
                    links.insert((r - 1, r), 1);
                }
                for (a, b) in extra {
                    if a != b {
                        *links.entry((a.min(b), a.max(b))).or_insert(0) += 1;
                    }
                }
                for ((a, b), k) in links {
                    g += &format!("link {a} {b} {k}\n");
                }
                for (i, &r) in nodes.iter().enumerate() {
                    g += &format!("node {i} {r}\n");
                }
                let nics = if nodes.len() % 2 == 0 { 2 } else { 1 };
                (format!("topology = 'graph'\ngraph = 'g.graph'\n[node]\nnics_per_node = {nics}"), Some(g))
            }),
    ]
}

/// The scenario `text` (with its graph written beside it) with `sets`.
fn load(text: &str, graph: &Option<String>, sets: &[String]) -> Scenario {
    FOLDER.with(|dir| {
        if let Some(g) = graph {
            std::fs::write(dir.path().join("g.graph"), g).unwrap();
        }
        Scenario::from_str_with(text, &dir.path().join("blocks.toml"), sets, false).expect("valid")
    })
}

/// Table `name` of the output folder of `r`.
fn csv(r: &Report, name: &str) -> String {
    mgensim::output::table_csv(r, name)
        .expect("a table of the folder")
        .expect("always written")
}

/// Every output of a run: the summary without `host`, and the CSVs of links, routers, nodes
/// and ranks; and the partitions it ran in.
fn outputs(s: &Scenario) -> (Vec<String>, u32) {
    let r = Simulation::new(s)
        .expect("builds")
        .run()
        .expect("completes");
    assert!(!r.partial && r.warnings.is_empty(), "{:?}", r.warnings);
    let mut files = vec![common::deterministic_json(&r)];
    for table in ["links", "routers", "nodes", "ranks"] {
        files.push(csv(&r, table));
    }
    let host = serde_json::to_value(&r).expect("a summary")["host"].clone();
    (
        files,
        host["partitions"].as_u64().expect("partitions") as u32,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random networks of every family, cut into any count of partitions they offer (kept
    /// apart, on one or two threads), print the same bytes as one partition on one thread.
    #[test]
    fn any_count_of_blocks_prints_the_same_bytes_as_one_partition(
        (net, graph) in network(),
        offsets in prop::collection::vec(1u32..1000, 1..=3),
        bytes in prop_oneof![Just(8u32), Just(3000)],
        pick in any::<u32>(),
        threads in 1u32..=2,
    ) {
        let text = common::puts_and_sends(&net, &offsets, bytes);
        let whole = load(&text, &graph, &[]);
        // (a count above what the network offers runs in as many as it offers: the tests of
        // `src/partition.rs` say how many that is)
        let asked = 2 + pick % 63;
        let (one, n) = outputs(&whole);
        prop_assert_eq!(n, 1);
        let sets = [
            format!("engine.partitions={asked}"),
            format!("engine.threads={threads}"),
            "engine.separate_partitions=true".to_string(),
        ];
        let (cut, parts) = outputs(&load(&text, &graph, &sets));
        prop_assert!((1..=asked).contains(&parts));
        prop_assume!(parts >= 2);
        for (i, (a, b)) in one.iter().zip(&cut).enumerate() {
            prop_assert!(a == b, "{} partitions of {}: output {} differs", parts, net, i);
        }
    }
}
