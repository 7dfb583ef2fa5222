//! Fuzzing the parsers with proptest: the scenario reader, the `--set` overrides
//! and the unit parsers take any text without panicking, and read exact numbers exactly.

use mgensim::config::{apply_override, Scenario};
use mgensim::units::{Bandwidth, Bytes, Time};
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_scenario_reader_takes_any_text(text in ".*") {
        let _ = Scenario::from_str_with(&text, Path::new("fuzz.toml"), &[]);
    }

    #[test]
    fn the_scenario_reader_takes_any_mix_of_keys_and_values(
        lines in prop::collection::vec(line(), 0..12),
        sets in prop::collection::vec(".*", 0..3),
    ) {
        let text = lines.join("\n");
        match Scenario::from_str_with(&text, Path::new("fuzz.toml"), &sets) {
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

    #[test]
    fn the_unit_parsers_take_any_text(text in ".*") {
        if let Ok(t) = Time::parse(&text) {
            prop_assert!(Time::parse(&t.to_string()).is_ok());
        }
        if let Ok(b) = Bytes::parse(&text) {
            prop_assert!(Bytes::parse(&b.to_string()).is_ok());
        }
        if let Ok(bw) = Bandwidth::parse(&text) {
            prop_assert!(Bandwidth::parse(&bw.to_string()).is_ok());
        }
    }

    #[test]
    fn whole_numbers_read_exactly(n in any::<u64>(), k in 0u64..1_000_000) {
        prop_assert_eq!(Time::parse(&format!("{n} ps")).unwrap(), Time(n));
        prop_assert_eq!(Time::parse(&format!("{k}ns")).unwrap(), Time(k * 1000));
        prop_assert_eq!(Bytes::parse(&format!("{n} B")).unwrap(), Bytes(n));
        prop_assert_eq!(Bytes::parse(&format!("{k} KiB")).unwrap(), Bytes(k * 1024));
        prop_assert_eq!(Bandwidth::parse(&format!("{k} MB/s")).unwrap(), Bandwidth(k * 1_000_000));
    }
}
