//! Random networks of every family (the families of tests/blocks.rs's strategy: torus, mesh,
//! Tofu, HyperX, dragonfly, fat tree and a graph from a file) with a short workload of puts
//! and messages, run on 2, 3 and 4 processes: every output is the bytes of one process on one
//! thread in one partition. Each run starts mpirun (about half a second), so each family
//! draws a few cases from fixed seeds (the same cases every time: a failure names its seed
//! and network). A network that cannot be cut in as many partitions as processes must say so
//! (the error names both counts, the partitions being those one process cuts it in) and is
//! then run on as many processes as it has partitions, if two or more.

use super::{assert_same, outputs, run_scenario, without_launcher};
use crate::common::puts_and_sends;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::path::Path;

/// A network's `[network]` lines, and the text of its graph file (`g.graph`) if it has one.
type Net = (String, Option<String>);

/// The cases drawn per family.
const CASES: u8 = 3;

/// The random networks of `family`, small but most of them large enough for 3 partitions.
fn family(family: &str) -> BoxedStrategy<Net> {
    let cube = |t: &'static str| {
        prop::collection::vec(2u32..=6, 1..=3)
            .prop_map(move |d| (format!("topology = '{t}'\ndims = {d:?}"), None))
            .boxed()
    };
    match family {
        "torus" | "mesh" => cube(if family == "torus" { "torus" } else { "mesh" }),
        "tofu" => prop::collection::vec(1u32..=2, 3)
            .prop_map(|d| (format!("topology = 'tofu'\ndims = {d:?}"), None))
            .boxed(),
        "hyperx" => (
            prop::collection::vec(2u32..=4, 1..=3),
            1u32..=2,
            prop_oneof![Just("dimension_order"), Just("ugal")],
        )
            .prop_map(|(d, k, r)| {
                let net =
                    format!("topology = 'hyperx'\ndims = {d:?}\nlinks_per_pair = {k}\nrouting = '{r}'");
                (net, None)
            })
            .boxed(),
        "dragonfly" => (
            2u32..=4,
            1u32..=2,
            1u32..=2,
            prop_oneof![Just("minimal"), Just("valiant"), Just("ugal")],
        )
            .prop_map(|(a, p, h, r)| {
                let net = format!(
                    "topology = 'dragonfly'\nrouters_per_group = {a}\nnodes_per_router = {p}\n\
                     global_links_per_router = {h}\nrouting = '{r}'"
                );
                (net, None)
            })
            .boxed(),
        "fattree" => (
            prop::collection::vec((2u32..=4, 1u32..=3), 2..=3),
            prop_oneof![Just("straight_up"), Just("random")],
        )
            .prop_map(|(levels, r)| {
                let down: Vec<u32> = levels.iter().map(|l| l.0).collect();
                let mut up: Vec<u32> = levels.iter().map(|l| l.1).collect();
                *up.last_mut().expect("levels") = 0;
                let net = format!(
                    "topology = 'fattree'\ndown_ports = {down:?}\nup_ports = {up:?}\nrouting = '{r}'"
                );
                (net, None)
            })
            .boxed(),
        "graph" => (3u32..=40)
            .prop_flat_map(|n| {
                (
                    Just(n),
                    prop::collection::vec((0..n, 0..n), 0..=12),
                    prop::collection::vec(0..n, 3..=24),
                )
            })
            .prop_map(|(n, extra, nodes)| (graph_net(nodes.len()), Some(graph_file(n, &extra, &nodes))))
            .boxed(),
        _ => panic!("no family {family}"),
    }
}

/// A graph of `n` routers in a chain (connected) with the `extra` links, and a node on each
/// router of `nodes`.
fn graph_file(n: u32, extra: &[(u32, u32)], nodes: &[u32]) -> String {
    let mut links = std::collections::BTreeMap::new();
    for r in 1..n {
        links.insert((r - 1, r), 1);
    }
    for &(a, b) in extra {
        if a != b {
            *links.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    let mut g = format!("routers {n}\nnodes {}\n", nodes.len());
    for ((a, b), k) in links {
        g += &format!("link {a} {b} {k}\n");
    }
    for (i, &r) in nodes.iter().enumerate() {
        g += &format!("node {i} {r}\n");
    }
    g
}

/// A graph network's lines: two NICs a node where they pair up (each on a router of its
/// own: a node's routers share a partition).
fn graph_net(nodes: usize) -> String {
    let nics = if nodes % 2 == 0 { 2 } else { 1 };
    format!("topology = 'graph'\ngraph = 'g.graph'\n[node]\nnics_per_node = {nics}")
}

/// Case `case` of `family`: the scenario's text and its graph, drawn from a fixed seed.
fn draw(family_name: &str, case: u8) -> (String, Option<String>) {
    let seed: Vec<u8> = format!("mpi {family_name} {case}")
        .bytes()
        .cycle()
        .take(32)
        .collect();
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    );
    let strategy = (
        family(family_name),
        prop::collection::vec(1u32..1000, 1..=3),
        prop_oneof![Just(8u32), Just(3000)],
    );
    let ((net, graph), offsets, bytes) = strategy.new_tree(&mut runner).expect("a case").current();
    (puts_and_sends(&net, &offsets, bytes), graph)
}

/// The partitions one process cuts the scenario at `path` in when asked for `asked`.
fn partitions_offered(path: &str, asked: u32) -> u64 {
    let n = asked.to_string();
    let args = [
        "run",
        path,
        "-q",
        "--json",
        "--threads",
        "1",
        "--partitions",
        &n,
        "--set",
        "engine.separate_partitions=true",
    ];
    let o = super::mgensim(0, &args);
    assert!(o.status.success(), "{}", o.stderr_text());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    v["host"]["partitions"].as_u64().expect("partitions")
}

/// The scenario at `path` on `np` processes writes the bytes of `one`, or says clearly that
/// its network has too few partitions for them and then does on as many processes as it has.
/// Returns the processes it ran on and the bytes that crossed between them.
fn compare(path: &str, np: u32, one: &super::Files, dir: &Path, what: &str) -> (u32, u64) {
    let ran = run_scenario(path, np, dir, &[]);
    if ran.ended.status.success() {
        assert_eq!(ran.host.processes, np as u64, "{what}");
        assert_same(one, &ran.files, &format!("{what} on {np} processes"));
        return (np, ran.host.across);
    }
    let err = without_launcher(&ran.ended.stderr_text());
    let offered = partitions_offered(path, np);
    let said = format!(
        "error: this run was started as {np} MPI processes, but the network is simulated as \
         {}\n",
        match offered {
            1 => "one partition: start one process".to_string(),
            n => format!("{n} partitions: start at most that many processes"),
        }
    );
    assert!(
        offered < np as u64 && err == said && ran.ended.code() == Some(1),
        "{what} on {np} processes ({offered} partitions offered): {err}"
    );
    if offered < 2 {
        return (1, 0);
    }
    compare(path, offered as u32, one, dir, what)
}

/// Every case of `family_name` on 2, 3 and 4 processes writes the bytes of one process; some
/// case had cut messages cross between processes.
fn family_on_2_3_and_4(family_name: &str) {
    let mut across = 0;
    for case in 0..CASES {
        let (text, graph) = draw(family_name, case);
        let what = format!("{family_name} case {case}:\n{text}");
        let dir = tempfile::tempdir().expect("a temporary folder");
        if let Some(g) = &graph {
            std::fs::write(dir.path().join("g.graph"), g).expect("written");
        }
        let path = dir.path().join("s.toml");
        std::fs::write(&path, &text).expect("written");
        let path = path.to_str().expect("a path");
        let (one, _) = outputs(path, 0, dir.path(), &[]);
        for np in [2, 3, 4] {
            let (ran_on, crossed) = compare(path, np, &one, dir.path(), &what);
            // (what each case did, for --nocapture)
            eprintln!("{family_name} case {case}: asked {np}, ran on {ran_on} processes, {crossed} bytes across");
            across += crossed;
        }
    }
    assert!(
        across > 0,
        "{family_name}: no case crossed between processes"
    );
}

macro_rules! families {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            family_on_2_3_and_4(stringify!($name));
        }
    )*};
}

families!(torus, mesh, tofu, hyperx, dragonfly, fattree, graph);

/// `s.toml` in `dir`: puts and sends on a ring of 2 routers (2 partitions at most).
fn two_router_ring(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("s.toml");
    let text = puts_and_sends("topology = 'torus'\ndims = [2]", &[1], 8);
    std::fs::write(&path, text).expect("written");
    path
}

#[test]
fn a_network_of_fewer_partitions_than_processes_says_so() {
    // (a ring of 2 routers: 2 partitions at most)
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = two_router_ring(dir.path());
    let path = path.to_str().expect("a path");
    let (one, _) = outputs(path, 0, dir.path(), &[]);
    assert_eq!(compare(path, 3, &one, dir.path(), "a 2-router ring").0, 2);
}

/// A network simulated whole (the flow model keeps one partition) on 2 processes: one
/// message, in the singular, and the status of an error.
#[test]
fn a_network_kept_whole_on_two_processes_says_to_start_one() {
    let scenario = super::project().join("scenarios/random_ring.toml");
    let o = super::mgensim(
        2,
        &[
            "run",
            scenario.to_str().expect("a path"),
            "--set",
            "network.model=\"flow\"",
            "-q",
        ],
    );
    assert_eq!(o.code(), Some(1));
    assert_eq!(
        without_launcher(&o.stderr_text()),
        "error: this run was started as 2 MPI processes, but the network is simulated as one \
         partition: start one process\n"
    );
}

#[test]
fn a_set_up_that_fails_on_every_process_is_said_once() {
    // (each process fails alike and the root alone says why; the others exit with its
    // status, and mpirun, seeing the first of them exit with 1, sends the rest SIGTERM while
    // they finalize MPI: that must not print a second error. A race: ten tries)
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = two_router_ring(dir.path());
    let path = path.to_str().expect("a path");
    for _ in 0..10 {
        let o = super::mgensim(3, &["run", path, "-q"]);
        let err = without_launcher(&o.stderr_text());
        assert_eq!(o.code(), Some(1), "{err}");
        assert_eq!(
            err,
            "error: this run was started as 3 MPI processes, but the network is simulated as 2 \
             partitions: start at most that many processes\n"
        );
    }
}
