//! `mgensim sweep`: grids of runs, the same table whatever the thread count, shards
//! that merge back into the whole, and the synchronization paper's figure from one command.

mod common;
use common::*;
use mgensim::sweep::{parse_axis, Sweep, Table};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

fn barrier_sweep(axes: &[&str]) -> Sweep {
    let path = project().join("scenarios/barrier.toml");
    Sweep {
        text: std::fs::read_to_string(&path).unwrap(),
        path,
        sets: vec![],
        axes: axes.iter().map(|a| parse_axis(a).unwrap()).collect(),
        allow_io: false,
        power_baseline: false,
    }
}

fn column(t: &Table, name: &str) -> Vec<String> {
    let i = t.column(name).unwrap();
    t.rows.iter().map(|r| r[i].clone()).collect()
}

#[test]
fn a_second_key_of_lines_is_their_dash() {
    let sw = barrier_sweep(&[
        "workload.args.algo=ring,rd",
        "workload.ranks=4,8",
        "node.node_latency=\"0.6 us\",\"1.2 us\"",
    ]);
    let which: Vec<usize> = (0..8).collect();
    let out = sw
        .run(&which, 2, Arc::new(AtomicBool::new(false)), &|_| {})
        .unwrap();
    let keys: Vec<String> = sw.axes.iter().map(|a| a.key.clone()).collect();
    let svg = mgensim::sweep::plot(&Table::new(&keys, &out), "predicted_time_ps").unwrap();
    // 4 lines: 2 colours (ranks) × 2 dashes (node latency); a dashed line is drawn as pieces
    for l in [
        "ranks=4, node_latency=0.6 us",
        "ranks=8, node_latency=1.2 us",
    ] {
        assert!(svg.contains(&format!(">\n{l}\n</text>")), "{l}");
    }
    // the first colour's lines: the solid one is one polyline (and its legend sample one), the
    // dashed one many pieces
    let blue = svg.matches("stroke=\"#1F77B4\" stroke-width=\"2\"").count();
    assert!(blue > 2 + 4, "dashes: {blue} pieces of the first colour");
}

/// Runs `mgensim sweep` with `args` in a fresh folder and returns sweep.csv (or the shard's).
fn sweep_cli(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    let scen = project().join("scenarios/barrier.toml");
    let mut all = vec!["sweep", scen.to_str().unwrap()];
    all.extend_from_slice(args);
    mgensim_in(dir, &all)
}

#[test]
fn the_table_is_the_same_with_one_thread_or_two_and_shards_merge_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let grid = [
        "--vary",
        "workload.ranks=16..32:x2",
        "--vary",
        "workload.args.algo=ring,rd",
        "--set",
        "network.dims=[4,4,2]",
        "-q",
    ];
    let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
    for (threads, out) in [("1", "one"), ("2", "two")] {
        let mut a = grid.to_vec();
        a.extend(["-j", threads, "--out", out]);
        let o = sweep_cli(dir.path(), &a);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let one = read("one/sweep.csv");
    assert_eq!(one.lines().count(), 5, "a header and 4 points:\n{one}");
    assert_eq!(one, read("two/sweep.csv"));
    assert!(read("one/sweep.svg").starts_with("<svg"));
    // two shards, then --merge
    for s in ["1/2", "2/2"] {
        let mut a = grid.to_vec();
        a.extend(["--shard", s, "--out", "shards"]);
        let o = sweep_cli(dir.path(), &a);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let s1 = read("shards/sweep.shard-1-of-2.csv");
    assert_eq!(s1.lines().count(), 3, "points 0 and 2:\n{s1}");
    let o = mgensim_in(
        dir.path(),
        &[
            "sweep",
            "--merge",
            "shards/sweep.shard-2-of-2.csv",
            "shards/sweep.shard-1-of-2.csv",
            "--out",
            "merged",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read("merged/sweep.csv"), one);
}

#[test]
fn a_bad_key_stops_the_sweep_before_it_runs_and_a_failed_point_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let o = sweep_cli(dir.path(), &["--vary", "workload.rank=2,4", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("point 0") && e.contains("workload.rank"), "{e}");
    assert!(!dir.path().join("sweep").exists(), "nothing was run");
    // an unknown algorithm fails its points at run time: recorded, the others go on
    let o = sweep_cli(
        dir.path(),
        &[
            "--vary",
            "workload.args.algo=rd,nope",
            "--set",
            "workload.ranks=8",
            "-q",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let csv = std::fs::read_to_string(dir.path().join("sweep/sweep.csv")).unwrap();
    let t = Table::from_csv(&csv).unwrap();
    let err = column(&t, "error");
    assert_eq!(err[0], "");
    assert!(err[1].contains("unknown barrier algorithm"), "{err:?}");
    assert_eq!(column(&t, "predicted_time_ps")[1], "");
    assert!(stderr(&o).contains("error: point 1"));
}

#[test]
fn a_power_sweep_compares_each_point_with_links_always_on() {
    let path = project().join("scenarios/tracerp/torus.toml");
    let sw = Sweep {
        text: std::fs::read_to_string(&path).unwrap(),
        path,
        sets: vec![
            "workload.args.iters=1".into(),
            "power.t_sleep=\"0 us\"".into(),
        ],
        axes: vec![parse_axis("power.t_wake=0us,5us").unwrap()],
        allow_io: false,
        power_baseline: true,
    };
    let out = sw
        .run(&[0, 1], 2, Arc::new(AtomicBool::new(false)), &|_| {})
        .unwrap();
    let keys = vec!["power.t_wake".to_string()];
    let t = Table::new(&keys, &out);
    let num = |col: &str, row: usize| column(&t, col)[row].parse::<f64>().unwrap();
    // no wake-up time: the same time as always on, and less energy
    assert_eq!(num("time_ratio", 0), 1.0);
    assert!(num("energy_ratio", 0) < 1.0);
    // 5 us per wake-up: slower
    assert!(num("time_ratio", 1) > 1.0);
    assert!(num("wakeups", 1) > 0.0);
}

#[test]
fn zipped_keys_vary_together_and_values_are_stored_without_quotes() {
    // a torus of 4x4 and a mesh of 2x2, each at two bandwidths: 4 points, not 8
    let mut axes = vec![parse_axis("network.link_bandwidth=\"4 GB/s\",\"8 GB/s\"").unwrap()];
    axes.extend(
        mgensim::sweep::parse_zip(&[
            "network.topology=torus,mesh".to_string(),
            "network.dims=[4,4],[2,2]".to_string(),
        ])
        .unwrap(),
    );
    mgensim::sweep::check_axes(&axes).unwrap();
    let points = mgensim::sweep::grid(&axes);
    assert_eq!(points.len(), 4);
    assert_eq!(points[1], ["\"4 GB/s\"", "mesh", "[2,2]"]);
    let mut sw = barrier_sweep(&[]);
    sw.axes = axes;
    sw.sets = vec!["workload.ranks=4".into()];
    let out = sw
        .run(&[0, 1, 2, 3], 2, Arc::new(AtomicBool::new(false)), &|_| {})
        .unwrap();
    let keys: Vec<String> = sw.axes.iter().map(|a| a.key.clone()).collect();
    let t = Table::new(&keys, &out);
    assert_eq!(
        column(&t, "network.topology"),
        ["torus", "mesh", "torus", "mesh"]
    );
    assert_eq!(
        column(&t, "network.link_bandwidth"),
        ["4 GB/s", "4 GB/s", "8 GB/s", "8 GB/s"]
    );
    // the torus 4x4 and the mesh 2x2 are different networks: their times differ
    let time = column(&t, "predicted_time_ps");
    assert_ne!(time[0], time[1]);
    // `dims = []` on a topology that has none says "none": a torus and a fat tree in one sweep
    let mut sw = barrier_sweep(&[]);
    sw.axes = mgensim::sweep::parse_zip(&[
        "network.topology=torus,fattree".to_string(),
        "network.dims=[4,4,4],[]".to_string(),
    ])
    .unwrap();
    sw.sets = vec!["workload.ranks=64".into()];
    let out = sw
        .run(&[0, 1], 2, Arc::new(AtomicBool::new(false)), &|_| {})
        .unwrap();
    assert!(out.iter().all(|o| o.result.is_ok()), "{out:?}");
    // zipped keys need as many values each
    let bad = mgensim::sweep::parse_zip(&["a=1,2".into(), "b=1".into()]).unwrap();
    let e = format!("{:#}", mgensim::sweep::check_axes(&bad).unwrap_err());
    assert!(e.contains("need as many values each"), "{e}");
}

#[test]
fn a_merge_refuses_a_set_with_shards_missing_cut_files_and_what_is_not_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let grid = [
        "--vary",
        "network.dims=[2],[3],[4],[5]",
        "--set",
        "workload.ranks=2",
        "-q",
        "--out",
        "shards",
    ];
    for s in ["1/3", "2/3", "3/3"] {
        let mut a = grid.to_vec();
        a.extend(["--shard", s]);
        let o = sweep_cli(dir.path(), &a);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let merge = |files: &[&str], extra: &[&str]| {
        let mut a = vec!["sweep", "--merge"];
        a.extend_from_slice(files);
        a.extend_from_slice(&["--out", "merged"]);
        a.extend_from_slice(extra);
        mgensim_in(dir.path(), &a)
    };
    let (s1, s2, s3) = (
        "shards/sweep.shard-1-of-3.csv",
        "shards/sweep.shard-2-of-3.csv",
        "shards/sweep.shard-3-of-3.csv",
    );
    // shard 2 of 3 holds point 1: both are named, and nothing is written
    let o = merge(&[s1, s3], &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("shard 2 of 3") && err.contains("point 1 (no shard given holds it)"),
        "{err}"
    );
    assert!(!dir.path().join("merged/sweep.csv").exists());
    // asked to, it joins what it has, and says what it joined without
    let o = merge(&[s1, s3], &["--allow-missing"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: joined without shard 2 of 3"));
    let joined = std::fs::read_to_string(dir.path().join("merged/sweep.csv")).unwrap();
    assert_eq!(
        joined.lines().count(),
        4,
        "a header and points 0, 2, 3:\n{joined}"
    );
    // a shard cut in its last line, or in its header, is refused by name
    let whole = std::fs::read_to_string(dir.path().join(s2)).unwrap();
    tmp_file(dir.path(), "cut.csv", &whole[..whole.len() - 3]);
    let header = whole.lines().next().unwrap();
    tmp_file(
        dir.path(),
        "cut-header.csv",
        &format!("{}\n", &header[..20]),
    );
    for (file, why) in [
        ("cut.csv", "ends in the middle of a line"),
        (
            "cut-header.csv",
            "header does not end with the column `error`",
        ),
    ] {
        let o = merge(&[s1, file, s3], &[]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        assert!(
            stderr(&o).contains(&format!("{file}: ")) && stderr(&o).contains(why),
            "{}",
            stderr(&o)
        );
    }
    // what is not a regular file (a FIFO nobody writes to: reading it would never end) is
    // refused at once
    let fifo = dir.path().join("fifo.csv");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a FIFO made in this test's own temporary folder
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let o = merge(&[s1, "fifo.csv", s3], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("fifo.csv: not a regular file"),
        "{}",
        stderr(&o)
    );
    // the whole set joins
    let o = merge(&[s3, s1, s2], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn one_sweep_compares_a_torus_and_a_fat_tree_leaving_out_the_other_s_keys() {
    // barrier.toml gives a torus's dims; a point that makes it a fat tree leaves them out
    let d = tempfile::tempdir().unwrap();
    let o = sweep_cli(
        d.path(),
        &[
            "--vary",
            "network.topology=torus,fattree",
            "--set",
            "workload.ranks=16",
            "--out",
            "sw",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(d.path().join("sw/sweep.csv")).unwrap();
    let rows = csv_records(&csv);
    let at = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!(rows[2][at("network.topology")], "fattree");
    assert_eq!(rows[2][at("error")], "", "{csv}");
    // the fat tree's point predicts what the same scenario without dims does
    let barrier = std::fs::read_to_string(project().join("scenarios/barrier.toml")).unwrap();
    let fat = barrier
        .replace("topology = \"torus\"", "topology = \"fattree\"")
        .replace("dims = [8, 8, 8]", "");
    assert_ne!(fat, barrier);
    std::fs::copy(
        project().join("scenarios/barrier.lua"),
        d.path().join("barrier.lua"),
    )
    .unwrap();
    tmp_file(d.path(), "fat.toml", &fat);
    let o = mgensim_in(
        d.path(),
        &["run", "fat.toml", "--set", "workload.ranks=16", "--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        rows[2][at("predicted_time_ps")],
        json["predicted_time_ps"].to_string()
    );
    // a run with --set says what it left out; the file's own topology still refuses them, and
    // says how to compare
    let o = mgensim_in(
        &project(),
        &[
            "run",
            "scenarios/barrier.toml",
            "--set",
            "network.topology=fattree",
            "--set",
            "workload.ranks=16",
            "-q",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: network.dims (a key of a mesh, torus, Tofu or HyperX) left out: topology `fattree` was set by --set"),
        "{}",
        stderr(&o)
    );
    let with_dims = fat.replacen(
        "topology = \"fattree\"",
        "topology = \"fattree\"\ndims = [4]",
        1,
    );
    tmp_file(d.path(), "ft.toml", &with_dims);
    let o = mgensim_in(d.path(), &["run", "ft.toml", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("key `network.dims`: is a key of a mesh, torus, Tofu or HyperX, not of topology `fattree` (to compare topologies, set network.topology with --set or a sweep's --vary"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_table_pivots_the_last_key_into_columns_in_readable_units() {
    let csv = "point,workload.args.algo,workload.ranks,predicted_time_ps,events,packet_hops,\
               link_bytes,average_link_bandwidth_bps,link_efficiency,barrier_s,error\n\
               0,ring,16,14110340,1,1,1,1,0.1,0.00001396974,\n\
               1,ring,64,57842708,1,1,1,1,0.1,0.000057702108,\n\
               2,rd,16,4422264,1,1,1,1,0.1,0.000004,\n\
               3,rd,64,,,,,,,,timed out\n";
    let t = Table::from_csv(csv).unwrap();
    assert_eq!(
        mgensim::sweep::pivot(&t, "predicted_time_ps").unwrap(),
        "predicted_time_ps\n\
         workload.args.algo \\ workload.ranks           16            64\n\
         ring                                 14.11034 us  57.842708 us\n\
         rd                                   4.422264 us        failed\n"
    );
    // a metric in seconds reads as a time too; other columns as written
    let p = mgensim::sweep::pivot(&t, "barrier_s").unwrap();
    assert!(p.contains("13.96974 us") && p.contains("4 us"), "{p}");
    let p = mgensim::sweep::pivot(&t, "link_efficiency").unwrap();
    assert!(p.lines().nth(2).unwrap().ends_with("0.1"), "{p}");
    assert!(mgensim::sweep::pivot(&t, "nope").is_err());
    // the command prints it
    let d = tempfile::tempdir().unwrap();
    let o = sweep_cli(
        d.path(),
        &[
            "--vary",
            "workload.ranks=4,8",
            "--out",
            "sw",
            "-q",
            "--table",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.starts_with("predicted_time_ps\nworkload.ranks  predicted_time_ps\n4 "),
        "{out}"
    );
    assert!(out.lines().nth(2).unwrap().ends_with(" us"), "{out}");
}

/// `--shard I/N` runs the points numbered I−1 modulo N (0 first), as its help says; and
/// `--merge --table` prints the joined table (it took `--table` and printed nothing).
#[test]
fn a_shard_runs_what_its_help_says_and_a_merge_prints_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let help = mgensim_in(dir.path(), &["sweep", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout).to_string();
    assert!(
        help.contains(
            "Run only the points whose number (0 first, as sweep.csv's `point`) is I-1 modulo N"
        ),
        "{help}"
    );
    let grid = [
        "--vary",
        "workload.args.algo=ring",
        "--vary",
        "workload.ranks=2..64:x2",
        "--set",
        "network.dims=[4,4,4]",
        "-q",
        "--out",
        "shards",
    ];
    for s in ["1/3", "2/3", "3/3"] {
        let mut a = grid.to_vec();
        a.extend(["--shard", s]);
        let o = sweep_cli(dir.path(), &a);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let points = |shard: &str| -> Vec<String> {
        let t = std::fs::read_to_string(dir.path().join(format!("shards/sweep.shard-{shard}.csv")))
            .unwrap();
        csv_records(&t)[1..].iter().map(|r| r[0].clone()).collect()
    };
    // six points, 0 to 5: shard 1 of 3 holds 0 and 3
    assert_eq!(points("1-of-3"), ["0", "3"]);
    assert_eq!(points("2-of-3"), ["1", "4"]);
    assert_eq!(points("3-of-3"), ["2", "5"]);
    let o = mgensim_in(
        dir.path(),
        &[
            "sweep",
            "--merge",
            "shards/sweep.shard-1-of-3.csv",
            "shards/sweep.shard-2-of-3.csv",
            "shards/sweep.shard-3-of-3.csv",
            "--out",
            "merged",
            "--table",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "predicted_time_ps", "{out}");
    assert!(
        lines[1].starts_with("workload.args.algo \\ workload.ranks"),
        "{out}"
    );
    assert!(
        lines[2].starts_with("ring") && lines[2].matches(" us").count() == 6,
        "{out}"
    );
    assert!(lines[3].starts_with("merged: wrote sweep.csv"), "{out}");
    // a column the merged table does not have is named before anything is written
    let o = mgensim_in(
        dir.path(),
        &[
            "sweep",
            "--merge",
            "shards/sweep.shard-1-of-3.csv",
            "shards/sweep.shard-2-of-3.csv",
            "shards/sweep.shard-3-of-3.csv",
            "--out",
            "other",
            "--y",
            "barier_s",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("did you mean `barrier_s`?"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("other").exists());
}
