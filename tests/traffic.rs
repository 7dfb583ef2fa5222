//! Synthetic traffic (`[workload] traffic = ...`) and load-latency curves (`mgensim curve`):
//! figures worked out by hand (a permutation's load on each link, the latency of a packet alone
//! on a graph, the saturation of a pattern whose busiest link is known), the search stopping
//! within its precision, the files written, and errors that name their key.

mod common;
use common::*;
use mgensim::curve::{self, Curve};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Four routers in a line (a 1-D mesh), a node each: bit complement sends 0 -> 3, 1 -> 2,
/// 2 -> 1, 3 -> 0, evenly spaced 64 B messages (80 B on the wire).
const LINE: &str = "[network]\ntopology = \"mesh\"\ndims = [4]\n[workload]\nranks = 4\n\
                    traffic = \"bitcomp\"\nload = 0.4\nprocess = \"periodic\"\nsize = \"64 B\"\n";

/// The report's figures of the (first) job's synthetic traffic.
macro_rules! traffic_of {
    ($r:expr) => {
        &$r.traffic.as_ref().expect("a traffic section")[0]
    };
}

/// The load on the links of class `$name` in traffic figures `$s`.
macro_rules! class {
    ($s:expr, $name:expr) => {
        $s.link_loads
            .iter()
            .find(|c| c.class == $name)
            .unwrap_or_else(|| panic!("{}: {:?}", $name, $s.link_loads))
    };
}

#[test]
fn a_permutation_loads_each_link_as_worked_out_by_hand() {
    let r = run(LINE);
    let t = traffic_of!(&r);
    // eastward, 0 -> 1 carries 0's flow, 1 -> 2 carries 0's and 1's, 2 -> 3 carries 0's; the
    // same westward: the six router links carry 1, 2, 1, 1, 2, 1 flows of 0.4 of a link
    let close = |a: f64, b: f64| (a - b).abs() < 0.002;
    let router = class!(t, "router");
    assert_eq!(router.links, 6);
    assert!(close(router.max_utilization, 2.0 * 0.4), "{router:?}");
    assert!(
        close(router.mean_utilization, 8.0 / 6.0 * 0.4),
        "{router:?}"
    );
    for nic in ["injection", "ejection"] {
        let c = class!(t, nic);
        assert_eq!(c.links, 4);
        assert!(
            close(c.mean_utilization, 0.4) && close(c.max_utilization, 0.4),
            "{c:?}"
        );
    }
    assert!(close(t.offered, 0.4) && close(t.accepted, 0.4), "{t:?}");
    // the routes' bound: the middle links carry twice a NIC's load
    assert_eq!(t.ideal, Some(0.5));
    let what = t.ideal_channel.as_deref().unwrap();
    // (the first of the two middle directions in the order of links.csv: router 1's port 0
    // leads to its NIC, port 1 up the line)
    assert_eq!(
        what,
        "router 1 port 1 -> router 2 carries 2.000 of a NIC's load"
    );
    // hops: 3, 1, 1, 3 router-to-router links
    let h = t.hops.unwrap();
    assert_eq!((h.mean, h.max), (2.0, 3));
    // every packet created in the 50 us window is measured: 4 sources, one per 20 ns / 0.4
    assert_eq!(t.packets, 4 * 50_000 / 50);
    assert_eq!((t.delivered, t.unfinished), (t.packets, 0));
    // one hop between routers (two routers), alone: serialization, 3 cables, 2 pipelines
    let p = Params::nsim_ace();
    assert_eq!(t.packet_latency_ps.as_ref().unwrap().min, p.fly(80, 2));
}

#[test]
fn a_packet_alone_on_a_graph_takes_the_hand_computed_latency() {
    // three routers in a line: node 0 on router 0, node 1 on router 2 (node 2, on router 1,
    // has no rank); each rank sends to the other, one packet per 2 us, so no two meet
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "line.graph",
        "link 0 1\nlink 1 2\nnode 0 0\nnode 1 2\nnode 2 1\n",
    );
    let s = tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ntopology = \"graph\"\ngraph = \"line.graph\"\n[workload]\nranks = 2\n\
         traffic = \"shift\"\nload = 0.01\nprocess = \"periodic\"\nsize = \"64 B\"\n",
    );
    let r = run_path(&s);
    let t = traffic_of!(&r);
    // 80 B on the wire over the NIC link (20 ns), then 4 cables and 3 router pipelines
    let p = Params::nsim_ace();
    let alone = p.fly(80, 3);
    assert_eq!(alone, 20_000 + 4 * 600 + 3 * 140_000);
    for l in [&t.packet_latency_ps, &t.network_latency_ps] {
        let l = l.as_ref().unwrap();
        assert_eq!(
            (l.min, l.mean, l.p50, l.p99, l.max),
            (alone, alone, alone, alone, alone)
        );
    }
    assert_eq!(t.hops.unwrap().mean, 2.0);
    // 2 sources, one message per 80 B / (0.01 x 4 GB/s) = 2 us, over 50 us
    assert_eq!(t.packets, 2 * 25);
    // a run of synthetic traffic lasts its windows: no "bounded by" (its ranks wait in
    // MGEN_Comp-like sleeps while the NICs generate, which read as compute)
    assert!(r.bound.is_none(), "{:?}", r.bound);
}

/// Bit complement on the line saturates where its middle links are full: at half of each
/// node's injection bandwidth. The search brackets that within its precision.
#[test]
fn the_curve_finds_the_saturation_the_busiest_link_sets() {
    let s = scenario(LINE, &[]);
    let case = curve::case(Some("line".into()), s, "line").unwrap();
    assert_eq!(case.ideal.as_ref().map(|i| i.0), Some(0.5));
    let precision = 0.01;
    let c = Curve {
        cases: vec![case],
        loads: curve::parse_loads("0.1..0.9:+0.2").unwrap(),
        precision,
    };
    let (points, sats) = c
        .run(2, Arc::new(AtomicBool::new(false)), &|_, _, _| {})
        .unwrap();
    let sat = &sats[0];
    let hi = sat.unstable.expect("an unstable load");
    assert!(hi - sat.stable <= precision, "{sat:?}");
    // (a link at 100 % with evenly spaced packets is still stable; 2 % above it is not)
    assert!(sat.stable >= 0.49 && hi <= 0.52, "{sat:?}");
    // the grid's loads and the search's, each once, by load
    let loads: Vec<f64> = points.iter().map(|p| p.load).collect();
    assert!(loads.windows(2).all(|w| w[0] < w[1]), "{loads:?}");
    assert_eq!(points.iter().filter(|p| !p.searched).count(), 5);
    // every stable point below the saturation accepts what it offered (at least 98 %: the
    // stability rule of `src/curve/mod.rs`)
    for p in points.iter().filter(|p| p.unstable.is_none()) {
        assert!(p.summary.accepted >= 0.98 * p.summary.offered, "{p:?}");
    }
    // the point at 0.9 is unstable, and says why
    let last = points.last().unwrap();
    assert!(last.unstable.is_some(), "{last:?}");
}

#[test]
fn the_curve_command_writes_its_files_the_same_for_any_count_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "line.toml", LINE);
    let mut written = Vec::new();
    for j in ["1", "2"] {
        let out = format!("c{j}");
        let o = mgensim_in(
            dir.path(),
            &[
                "curve",
                "line.toml",
                "--loads",
                "0.2,0.6",
                "--precision",
                "0.05",
                "-j",
                j,
                "-q",
                "--out",
                &out,
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains("wrote curve.csv, saturation.csv, curve.svg"),
            "{stdout}"
        );
        let read = |f: &str| std::fs::read_to_string(dir.path().join(&out).join(f)).unwrap();
        let svg = read("curve.svg");
        assert!(
            svg.starts_with("<svg") && svg.contains("saturation 0."),
            "{svg}"
        );
        written.push((read("curve.csv"), read("saturation.csv"), svg));
    }
    assert_eq!(written[0], written[1]);
    // 0.2 and 0.6, then quarters of 0.2..0.6 (0.3, 0.4, 0.5), then of 0.5..0.6
    let csv = csv_records(&written[0].0);
    let loads: Vec<&str> = csv[1..].iter().map(|r| r[2].as_str()).collect();
    assert_eq!(
        loads,
        ["0.2", "0.3", "0.4", "0.5", "0.525", "0.55", "0.575", "0.6"]
    );
    let sat = csv_records(&written[0].1);
    assert_eq!(sat[0][4], "saturation_load");
    assert_eq!((sat[1][4].as_str(), sat[1][5].as_str()), ("0.5", "0.525"));
    assert_eq!(sat[1][2], "0.2");
}

#[test]
fn the_output_folder_has_the_latency_histogram() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(dir.path(), "line.toml", LINE);
    let o = mgensim_in(dir.path(), &["run", "line.toml", "--out", "o", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(dir.path().join("o/latency_histogram.csv")).unwrap();
    let rows = csv_records(&text);
    assert_eq!(
        rows[0],
        [
            "job",
            "from_ps",
            "to_ps",
            "packets",
            "packets_by_network_latency"
        ]
    );
    // every measured packet is in one bucket, by either latency; buckets hold their values
    let count = |i: usize| {
        rows[1..]
            .iter()
            .map(|r| r[i].parse::<u64>().unwrap())
            .sum::<u64>()
    };
    assert_eq!((count(3), count(4)), (4000, 4000));
    let p = Params::nsim_ace();
    let first = &rows[1];
    let (lo, hi) = (
        first[1].parse::<u64>().unwrap(),
        first[2].parse::<u64>().unwrap(),
    );
    assert!(lo <= p.fly(80, 2) && p.fly(80, 2) < hi, "{first:?}");
    // the JSON summary has the same section
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["traffic"][0]["packets"], 4000);
    assert_eq!(json["traffic"][0]["pattern"], "bitcomp");
}

#[test]
fn bad_traffic_keys_are_each_named() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        (
            "traffic = \"unifrom\"\nload = 0.3",
            "key `workload.traffic`: `unifrom` is not a traffic pattern: uniform, permutation, transpose, bitcomp, bitrev, shuffle, tornado, neighbor, shift, hotspot or matrix; did you mean uniform?",
        ),
        ("traffic = \"uniform\"\nload = 1.5", "key `workload.load`: 1.5 is out of range"),
        ("traffic = \"uniform\"", "key `workload.load`: missing"),
        ("load = 0.3\nscript = \"x.lua\"", "key `workload.load`: is a key of synthetic traffic: give `traffic` too"),
        ("traffic = \"uniform\"\nload = 0.3\nhotspot = [1]", "key `workload.hotspot`: is for traffic = \"hotspot\", not \"uniform\""),
        ("traffic = \"bitrev\"\nload = 0.3\nranks = 6", "it needs a power-of-two count of ranks, and the job has 6"),
        ("traffic = \"transpose\"\nload = 0.3\nranks = 6", "it needs a square count of ranks (64 = 8 x 8), and the job has 6"),
        ("traffic = \"uniform\"\nload = 0.3\nprocess = \"bernouli\"", "did you mean bernoulli?"),
        ("traffic = \"uniform\"\nload = 0.3\nscript = \"x.lua\"", "synthetic traffic needs no script"),
        ("traffic = \"matrix\"\nload = 0.3\nmatrix = \"m.txt\"", "m.txt:2: `9` is not a rank of the job (0 to 7)"),
        (
            "traffic = \"uniform\"\nload = 0.9\nsize = { \"16 B\" = 1, \"2 KiB\" = 1 }\ncycle = \"1 us\"",
            "key `workload.cycle`: 1 us holds more than one message at load 0.9",
        ),
    ];
    tmp_file(dir.path(), "m.txt", "0 1 2.5\n1 9 1\n");
    let mut failures = Vec::new();
    for (keys, want) in cases {
        let ranks = if keys.contains("ranks") {
            ""
        } else {
            "ranks = 8\n"
        };
        let text =
            format!("[network]\ntopology = \"mesh\"\ndims = [8]\n[workload]\n{ranks}{keys}\n");
        let path = tmp_file(dir.path(), "s.toml", &text);
        match mgensim::Scenario::load(&path, &[], false) {
            Ok(_) => failures.push(format!("{keys}: accepted")),
            Err(e) if !format!("{e:#}").contains(want) => {
                failures.push(format!("{keys}: {e:#}\n  wanted: {want}"))
            }
            Err(_) => {}
        }
    }
    assert_no_failures(&failures, cases.len());
}

#[test]
fn a_curve_needs_synthetic_traffic_and_loads_it_can_make() {
    let dir = tempfile::tempdir().unwrap();
    let o = mgensim_in(
        &project(),
        &[
            "curve",
            "scenarios/barrier.toml",
            "-q",
            "--out",
            dir.path().to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("has no synthetic traffic"),
        "{}",
        stderr(&o)
    );
    tmp_file(dir.path(), "line.toml", LINE);
    let o = mgensim_in(dir.path(), &["curve", "line.toml", "--loads", "0.5,1.2"]);
    assert!(stderr(&o).contains("1.2 is not a load"), "{}", stderr(&o));
}

/// `mgen.traffic`, the patterns for scripts, sends where the synthetic workload sends: every
/// fixed pattern's destination of every rank of 64 on an 8 x 8 grid (first dimension fastest),
/// against the patterns' rules worked out here by hand (a rank that would send to itself sends
/// nothing).
#[test]
fn the_lua_library_s_patterns_are_the_workload_s() {
    let code = r#"
local traffic = require("mgen.traffic")
if MGEN_Comm_rank() == 0 then
  for _, p in ipairs({ "transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "shift" }) do
    local sum = 0
    for s = 0, 63 do
      local d = traffic.dest(p, s, 64, { grid = { 8, 8 }, shift = 9 })
      sum = sum + (s + 1) * (d or -1) * 1000 + (d and 0 or 1)
    end
    MGEN_report(p, sum)
  end
  local ok, err = pcall(traffic.dest, "bitrev", 0, 12)
  MGEN_report("bitrev_12_refused", (not ok and err:find("power%-of%-two count of ranks, not 12")) and 1 or 0)
end
"#;
    let r = run(&format!(
        "[network]\ntopology = \"mesh\"\ndims = [2]\n[workload]\nranks = 2\ncode = '''{code}'''\n"
    ));
    // each digit of the 8 x 8 grid moved by `by`, around
    let on_grid = |s: u32, by: u32| ((s % 8 + by) % 8) + 8 * ((s / 8 + by) % 8);
    let rules: [(&str, &dyn Fn(u32) -> u32); 7] = [
        ("transpose", &|s| (s / 8) + 8 * (s % 8)),
        ("bitcomp", &|s| 63 - s),
        ("bitrev", &|s| {
            (0..6).map(|b| ((s >> b) & 1) << (5 - b)).sum()
        }),
        ("shuffle", &|s| ((s << 1) | (s >> 5)) & 63),
        ("tornado", &|s| on_grid(s, 3)),
        ("neighbor", &|s| on_grid(s, 1)),
        ("shift", &|s| (s + 9) % 64),
    ];
    for (name, rule) in rules {
        let want: i64 = (0..64u32)
            .map(|s| match rule(s) {
                d if d != s => (s as i64 + 1) * d as i64 * 1000,
                _ => -(s as i64 + 1) * 1000 + 1,
            })
            .sum();
        assert_eq!(r.metrics[name].mean, want as f64, "{name}");
    }
    // (hand figures: transpose sends 1 = (1, 0) to 8 = (0, 1); tornado moves (0, 0) by 3 in
    // both; bit reversal sends 1 = 000001 to 32 = 100000)
    assert_eq!(
        (rules[0].1(1), rules[4].1(0), rules[2].1(1)),
        (8, 3 + 8 * 3, 32)
    );
    assert_eq!(r.metrics["bitrev_12_refused"].mean, 1.0);
}
