//! Fuzzing the readers with proptest: the scenario reader, the `--set` overrides and the graph
//! files take any text without panicking; a scenario that is read keeps its bounds.

use crate::config::{apply_override, Scenario};
use crate::units::Time;
use proptest::prelude::*;
use std::path::Path;

/// Pieces of scenario files: real and misspelt tables and keys, and values of every type,
/// including ones out of range.
fn line() -> impl Strategy<Value = String> {
    let header = prop::sample::select(vec![
        "[network]",
        "[node]",
        "[workload]",
        "[limits]",
        "[workload.args]",
        "[netwrok]",
        "[[network]]",
        "[network.dims]",
    ])
    .prop_map(str::to_string);
    let key = prop::sample::select(vec![
        "dims",
        "topology",
        "link_bandwidth",
        "switch_bandwidth",
        "mtu",
        "header_bytes",
        "buffer_bytes",
        "cable_latency",
        "routing_time",
        "dma_bandwidth",
        "memory_bandwidth",
        "nic_bandwidth",
        "eager_limit",
        "mpi_overhead",
        "node_latency",
        "ranks",
        "seed",
        "code",
        "script",
        "args",
        "instructions",
        "lua_memory",
        "events",
        "posts",
        "wall_time",
        "simulated_time",
        "link_bandwith",
        "network.dims",
        "x",
    ]);
    let value = prop::sample::select(vec![
        "[4]",
        "[2, 2]",
        "[0]",
        "[]",
        "[1,2,3,4,5,6,7]",
        "[65536]",
        "[-1]",
        "[1.5]",
        "'torus'",
        "'mesh'",
        "'tofu'",
        "'4 GB/s'",
        "'0 GB/s'",
        "'inf'",
        "'1e400 GB/s'",
        "'-1 GB/s'",
        "'4 GB'",
        "'2 KiB'",
        "'18446744073709551616 B'",
        "'0.6 ns'",
        "'1e-30 s'",
        "'µs'",
        "0",
        "-5",
        "1e999",
        "nan",
        "inf",
        "4",
        "2048",
        "9223372036854775807",
        "true",
        "''",
        "'MGEN_Comp(1e-6)'",
        "'nope.lua'",
        "{ a = 1 }",
        "1979-05-27",
        "\"\\u00e9\"",
    ]);
    prop_oneof![
        header,
        (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
        ".*",
    ]
}

/// Lines of graph files: every statement, with numbers near and past the routers named,
/// classes defined or not, BookSim's lines with weights, and text that is none of these.
fn graph_line() -> impl Strategy<Value = String> {
    let n = || 0u32..8;
    prop_oneof![
        (n(), n()).prop_map(|(a, b)| format!("link {a} {b}")),
        (n(), n(), 0u32..4).prop_map(|(a, b, k)| format!("link {a} {b} {k}")),
        (n(), n()).prop_map(|(a, b)| format!("link {a} {b} fast")),
        (n(), n()).prop_map(|(a, b)| format!("node {a} {b}")),
        (n(), n(), n(), 0u32..3)
            .prop_map(|(r, x, s, w)| format!("router {r} node {x} router {s} {w}")),
        (n(), n()).prop_map(|(x, r)| format!("node {x} router {r}")),
        (1u32..10).prop_map(|k| format!("routers {k}")),
        (0u32..10).prop_map(|k| format!("nodes {k}")),
        Just("class fast bandwidth=8GB/s latency=2ns".to_string()),
        Just("class fast bandwidth=-1".to_string()),
        ".*",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any graph file is read or refused with its lines named, never a panic; one that is
    /// read routes every node to every other in as many hops as it says.
    #[test]
    fn graph_files_are_read_or_refused_by_line(lines in prop::collection::vec(graph_line(), 0..14)) {
        use crate::topology::graph::{Graph, GraphRouting};
        use crate::topology::{At, Family, NoRouters, NO_DIM};
        let text = lines.join("\n");
        match Graph::parse("g", &text, Time(600), GraphRouting::Minimal) {
            Err(es) => prop_assert!(!es.is_empty() && es.iter().all(|e| e.starts_with("g"))),
            Ok(g) => {
                for src in 0..g.nics() {
                    for dst in 0..g.nics() {
                        let (mut at, _) = g.nic_port(src);
                        let mut p = At { at, src, dst, vc: 0, dim: NO_DIM, aux: 0 };
                        let mut hops = 0;
                        loop {
                            let h = g.route(p, &mut NoRouters);
                            prop_assert!(h.vc < g.vcs());
                            match g.neighbour(at, h.port) {
                                None => {
                                    prop_assert_eq!(g.port_nic(at, h.port), Some(dst));
                                    break;
                                }
                                Some((n, _)) => {
                                    (at, p.at, p.vc, p.dim, p.aux) = (n, n, h.vc, h.dim, h.aux);
                                    hops += 1;
                                    prop_assert!(hops <= 64);
                                }
                            }
                        }
                        prop_assert_eq!(hops, g.distance(src, dst));
                    }
                }
            }
        }
    }

    #[test]
    fn the_scenario_reader_takes_any_text(text in ".*") {
        let _ = Scenario::from_str_with(&text, Path::new("fuzz.toml"), &[], false);
    }

    #[test]
    fn the_scenario_reader_takes_any_mix_of_keys_and_values(
        lines in prop::collection::vec(line(), 0..12),
        sets in prop::collection::vec(".*", 0..3),
    ) {
        let text = lines.join("\n");
        match Scenario::from_str_with(&text, Path::new("fuzz.toml"), &sets, false) {
            Ok(s) => {
                prop_assert!(!s.topo.dims().is_empty() && s.topo.dims().len() <= 6);
                prop_assert!(s.ranks() >= 1 && s.ranks() <= s.nodes() * s.node.ranks_per_node as u64);
                prop_assert!(s.network.buffer_bytes.0 >= s.network.mtu.0 + s.network.header_bytes.0);
            }
            Err(e) => {
                let msg = format!("{e:#}");
                prop_assert!(!msg.is_empty());
            }
        }
    }

    #[test]
    fn overrides_take_any_text(set in ".*") {
        let mut t = toml::Table::new();
        let _ = apply_override(&mut t, &set);
    }
}
