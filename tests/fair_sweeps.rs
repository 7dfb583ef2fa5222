//! Fair comparisons in a sweep: each point's network recorded (family, shape, routers, nodes,
//! links) in sweep.csv, `--table` and the plot's legend; one warning, before any point runs,
//! when the points compare machines of different sizes; sweeps over scenario files; a zipped
//! topology axis as one axis of the table; identical curves that stay visible and a legend
//! that is never cut.

mod common;
use common::*;
use mgensim::sweep::Table;

/// A folder with barrier.lua and `b64.toml`: barrier.toml's ring barrier on a torus 4x4x4 of
/// 64 ranks (the example: a 64-rank scenario with `dims = [4,4,4]`).
fn folder() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::copy(
        project().join("scenarios/barrier.lua"),
        d.path().join("barrier.lua"),
    )
    .unwrap();
    let b = std::fs::read_to_string(project().join("scenarios/barrier.toml")).unwrap();
    let b64 = b
        .replace("dims = [8, 8, 8]", "dims = [4, 4, 4]")
        .replace("ranks = 512", "ranks = 64");
    assert_ne!(b64, b);
    tmp_file(d.path(), "b64.toml", &b64);
    d
}

/// sweep.csv's records as maps from column to value.
fn records(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let r = csv_records(csv);
    r[1..]
        .iter()
        .map(|row| r[0].iter().cloned().zip(row.iter().cloned()).collect())
        .collect()
}

#[test]
fn a_topology_sweep_records_each_network_and_warns_once_before_any_point_runs() {
    let d = folder();
    let o = mgensim_in(
        d.path(),
        &[
            "sweep",
            "b64.toml",
            "--vary",
            "network.topology=torus,fattree,dragonfly",
            "--out",
            "sw",
            "--table",
            "-j",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(d.path().join("sw/sweep.csv")).unwrap();
    let rows = records(&csv);
    // by hand: a torus 4x4x4 has 64 routers of one node and 3 links each (192); the default
    // fat tree (radix 24, 2 levels) 24 leaves and 12 spines, 24 * 12 = 288 nodes and as many
    // leaf-spine links; the default dragonfly (a = 6, p = 3, h = 3) a*h + 1 = 19 groups of 6
    // routers, 114 * 3 = 342 nodes, 19 * C(6,2) = 285 local and 19 * 6 * 3 / 2 = 171 global
    // links
    let want = [
        ("torus", "4x4x4", "64", "64", "192"),
        ("fattree", "radix 24, 2 levels", "36", "288", "288"),
        ("dragonfly", "a=6 p=3 h=3 g=19", "114", "342", "456"),
    ];
    assert_eq!(rows.len(), 3, "{csv}");
    for (r, w) in rows.iter().zip(want) {
        let got = (
            r["family"].as_str(),
            r["shape"].as_str(),
            r["routers"].as_str(),
            r["nodes"].as_str(),
            r["links"].as_str(),
        );
        assert_eq!(got, w, "{csv}");
        assert_eq!(r["error"], "", "{csv}");
    }
    // one warning of the sizes, before the first point's line; it says how to compare
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    let warned: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("compare machines of different sizes"))
        .collect();
    assert_eq!(warned.len(), 1, "{err}");
    let first_point = lines.iter().position(|l| l.starts_with("point ")).unwrap();
    assert!(warned[0] < first_point, "{err}");
    assert!(
        lines[warned[0]].starts_with(
            "warning: the points compare machines of different sizes: 64 nodes (point 0: torus \
             4x4x4), 288 nodes (point 1: fattree radix 24, 2 levels), 342 nodes (point 2: \
             dragonfly a=6 p=3 h=3 g=19);"
        ),
        "{err}"
    );
    assert!(lines[warned[0]].contains("--set network.nodes=64"), "{err}");
    // --table lists each row's network under it
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("the network of each row:\n"), "{out}");
    assert!(
        out.contains("dragonfly  dragonfly a=6 p=3 h=3 g=19: 114 routers, 342 nodes, 456 links\n"),
        "{out}"
    );
    // and the plot's legend each x's
    let svg = std::fs::read_to_string(d.path().join("sw/sweep.svg")).unwrap();
    assert!(svg.contains("the network at each topology:"), "{svg}");
    assert!(svg.contains("torus: torus 4x4x4: 64 routers, 64 nodes, 192 links"));
}

#[test]
fn network_nodes_sizes_every_family_and_a_scaling_study_is_not_warned_of() {
    let d = folder();
    let o = mgensim_in(
        d.path(),
        &[
            "sweep",
            "b64.toml",
            "--vary",
            "network.topology=torus,hyperx,fattree,dragonfly",
            "--set",
            "network.nodes=64",
            "--out",
            "sw",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = records(&std::fs::read_to_string(d.path().join("sw/sweep.csv")).unwrap());
    // a torus and a HyperX of 4x4x4; the fat tree of the smallest radix with k^2/2 >= 64 (12:
    // 72; 10 holds 50); the dragonfly of the smallest h = p = a/2 that reaches 64 with every
    // global port used (h = 2: at most a*h + 1 = 9 groups of 8 nodes), then the fewest groups
    // g whose g - 1 divides a*h = 8 (5 groups hold 40; 9)
    let nodes: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r["shape"].as_str(), r["nodes"].as_str()))
        .collect();
    assert_eq!(
        nodes,
        [
            ("4x4x4", "64"),
            ("4x4x4 T=1 K=1", "64"),
            ("radix 12, 2 levels", "72"),
            ("a=4 p=2 h=2 g=9", "72")
        ]
    );
    // they still differ: the warning says why, without advice to set what is set
    let err = stderr(&o);
    let w: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("compare machines"))
        .collect();
    assert_eq!(w.len(), 1, "{err}");
    assert!(
        w[0].starts_with(
            "warning: the points with the same network.nodes = 64 compare machines of \
             different sizes: 64 nodes (points 0 and 1 more: torus 4x4x4), 72 nodes (points 2 \
             and 1 more: fattree radix 12, 2 levels); each family has its nearest full shape"
        ),
        "{err}"
    );
    assert!(!w[0].contains("--set network.nodes="), "{err}");
    // network.nodes varied with families that fit it exactly: a scaling study, no warning
    let o = mgensim_in(
        d.path(),
        &[
            "sweep",
            "b64.toml",
            "--vary",
            "network.nodes=64,512",
            "--vary",
            "network.topology=torus,mesh",
            "--out",
            "sw2",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("compare machines"), "{}", stderr(&o));
    let rows = records(&std::fs::read_to_string(d.path().join("sw2/sweep.csv")).unwrap());
    let nodes: Vec<&str> = rows.iter().map(|r| r["nodes"].as_str()).collect();
    assert_eq!(nodes, ["64", "64", "512", "512"]);
}

#[test]
fn the_table_of_a_zipped_topology_axis_has_a_column_per_topology() {
    let d = folder();
    let o = mgensim_in(
        d.path(),
        &[
            "sweep",
            "b64.toml",
            "--vary",
            "workload.ranks=8,16",
            "--zip",
            "network.topology=torus,mesh,fattree",
            "--zip",
            "network.dims=[4,4,4],[4,4,4],[]",
            "--table",
            "--out",
            "sw",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    // the columns are the topologies, not the dims the last zipped key holds (two alike)
    assert!(
        lines[1].starts_with("workload.ranks \\ network.topology (+1 zipped)")
            && lines[1]
                .split_whitespace()
                .rev()
                .take(3)
                .eq(["fattree", "mesh", "torus"]),
        "{out}"
    );
    assert!(
        lines[2].starts_with("8 ") && lines[3].starts_with("16 "),
        "{out}"
    );
    assert_eq!(lines[4], "the network of each column:", "{out}");
    // dims zipped with the topology are not a scaling study: the fat tree's 288 nodes warn
    assert!(
        stderr(&o).contains("compare machines of different sizes: 64 nodes"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_sweep_over_scenario_files_runs_each_as_run_does() {
    let d = folder();
    let b64 = std::fs::read_to_string(d.path().join("b64.toml")).unwrap();
    let torus = b64
        .replace("dims = [4, 4, 4]", "dims = [4, 4]")
        .replace("ranks = 64", "ranks = 8");
    let mesh = torus
        .replace("topology = \"torus\"", "topology = \"mesh\"")
        .replace("dims = [4, 4]", "dims = [2, 2, 2]");
    assert_ne!(mesh, torus);
    tmp_file(d.path(), "t.toml", &torus);
    tmp_file(d.path(), "m.toml", &mesh);
    let o = mgensim_in(
        d.path(),
        &[
            "sweep",
            "t.toml",
            "m.toml",
            "--vary",
            "workload.args.algo=ring,rd",
            "--out",
            "sw",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(d.path().join("sw/sweep.csv")).unwrap();
    assert!(
        csv.starts_with("point,scenario,workload.args.algo,family,"),
        "{csv}"
    );
    let rows = records(&csv);
    let files: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["scenario"].as_str(),
                r["workload.args.algo"].as_str(),
                r["shape"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        files,
        [
            ("t.toml", "ring", "4x4"),
            ("t.toml", "rd", "4x4"),
            ("m.toml", "ring", "2x2x2"),
            ("m.toml", "rd", "2x2x2")
        ]
    );
    // each point predicts what `run` of its file does
    for (i, (file, algo)) in [("t.toml", "rd"), ("m.toml", "ring")].iter().enumerate() {
        let set = format!("workload.args.algo={algo}");
        let r = mgensim_in(d.path(), &["run", file, "--set", &set, "--json"]);
        assert!(r.status.success(), "{}", stderr(&r));
        let json: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        assert_eq!(
            rows[1 + i]["predicted_time_ps"],
            json["predicted_time_ps"].to_string()
        );
    }
    // a torus 4x4 of 16 nodes against a mesh 2x2x2 of 8: said, smallest first
    assert!(
        stderr(&o).contains(
            "compare machines of different sizes: 8 nodes (points 2 and 1 more: mesh 2x2x2), \
             16 nodes (points 0 and 1 more: torus 4x4);"
        ),
        "{}",
        stderr(&o)
    );
    // the plot's title names the files
    let svg = std::fs::read_to_string(d.path().join("sw/sweep.svg")).unwrap();
    assert!(svg.contains("t.toml, m.toml"), "{svg}");
    // a file that cannot be read stops the sweep before it runs, naming it
    let o = mgensim_in(d.path(), &["sweep", "t.toml", "nope.toml", "--out", "sw3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("point 1 (scenario=nope.toml)")
            && stderr(&o).contains("cannot read scenario nope.toml"),
        "{}",
        stderr(&o)
    );
    assert!(!d.path().join("sw3").exists());
    // one file and nothing varied: said
    let o = mgensim_in(d.path(), &["sweep", "t.toml", "--out", "sw4"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nothing to vary"), "{}", stderr(&o));
}

/// A table of `lines` lines over ranks 8, 16, 32 of the key `network.topology`, the values of
/// line `l` at ranks `r` given by `y(l, r)`.
fn table(names: &[String], y: &dyn Fn(usize, usize) -> u64) -> Table {
    let mut rows = Vec::new();
    for (r, ranks) in ["8", "16", "32"].iter().enumerate() {
        for (l, n) in names.iter().enumerate() {
            rows.push(vec![
                rows.len().to_string(),
                ranks.to_string(),
                n.clone(),
                y(l, r).to_string(),
                String::new(),
            ]);
        }
    }
    Table {
        header: [
            "point",
            "workload.ranks",
            "network.topology",
            "predicted_time_ps",
            "error",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    }
}

/// The texts of an SVG's `<text>` elements, with their y.
fn texts(svg: &str) -> Vec<(i64, String)> {
    svg.split("<text ")
        .skip(1)
        .map(|t| {
            let y = t.split("y=\"").nth(1).unwrap().split('"').next().unwrap();
            let body = t.split('>').nth(1).unwrap().split('<').next().unwrap();
            (y.parse().unwrap(), body.trim().to_string())
        })
        .collect()
}

#[test]
fn identical_curves_stay_visible_and_the_legend_is_never_cut() {
    // b repeats a's values: drawn with squares around a's dots, and the legend says so
    let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
    let t = table(&names, &|l, r| {
        (if l == 2 { 3_000_000 } else { 1_000_000 }) * (r as u64 + 1)
    });
    let svg = mgensim::sweep::plot(&t, "predicted_time_ps").unwrap();
    let legend: Vec<String> = texts(&svg).into_iter().map(|t| t.1).collect();
    assert!(
        legend.contains(&"topology=b (same values as topology=a)".to_string()),
        "{legend:?}"
    );
    // the second colour's squares: one per point and the legend's sample
    let squares = svg.matches("fill=\"none\" stroke=\"#D62728\"/>").count();
    assert_eq!(squares, 3 + 1, "{svg}");
    assert!(
        legend.contains(&"colour: topology".to_string()),
        "{legend:?}"
    );
    // 60 lines of long names: every legend row inside the picture, every name whole
    let names: Vec<String> = (0..60)
        .map(|i| format!("network number {i} of a long list, with words enough to wrap"))
        .collect();
    let t = table(&names, &|l, r| 1_000_000 * (l as u64 + 1) + r as u64);
    let svg = mgensim::sweep::plot(&t, "predicted_time_ps").unwrap();
    let height: i64 = svg
        .split("height=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let all = texts(&svg);
    assert!(
        all.iter().all(|(y, _)| *y + 12 <= height),
        "{height}: {all:?}"
    );
    let joined: String = all
        .iter()
        .map(|t| t.1.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    for n in &names {
        let wrapped = format!("topology={n}");
        let words: Vec<&str> = wrapped.split_whitespace().collect();
        assert!(joined.contains(&words.join(" ")), "{n}: {joined}");
    }
    assert!(height > 60 * 2 * 16, "{height}");
}
