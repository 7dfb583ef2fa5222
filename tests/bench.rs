//! The benchmark scripts still run: `bench/run --quick --no-peer` on this build prints a line
//! of figures for every workload and the memory per rank, and `bench/pair` compares two builds.
//! (No timing is asserted: speed is measured by `bench/run` and `bench/pair`, not by tests.)

use std::process::Command;

#[test]
fn the_quick_bench_runs_every_workload() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/bench/run"))
        .args(["--quick", "--no-peer"])
        .env("MGENSIM_BIN", env!("CARGO_BIN_EXE_mgensim"))
        .output()
        .expect("python3 runs bench/run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (name, model) in [
        ("ring barrier", "packet"),
        ("rd barrier", "packet"),
        ("random ring 2MB", "packet"),
        ("random ring 2MB", "flow"),
        ("bruck 4B torus", "packet"),
        ("bruck 1KiB torus", "flow"),
        ("bruck 4B fat tree", "packet"),
    ] {
        let line = text
            .lines()
            .find(|l| {
                l.starts_with(name) && l[name.len()..].split_whitespace().next() == Some(model)
            })
            .unwrap_or_else(|| panic!("no line for {name} ({model}):\n{text}"));
        let fields: Vec<&str> = line[name.len()..].split_whitespace().collect();
        // model, ranks, simulated µs, wall s, MiB, Mevents/s, Mhops/s, then the peer's columns
        assert_eq!(fields[1], "64", "{line}");
        for f in &fields[2..7] {
            let v: f64 = f
                .parse()
                .unwrap_or_else(|_| panic!("not a number: {f} in {line}"));
            assert!(v > 0.0, "{line}");
        }
        assert_eq!(fields[7], "|", "{line}");
    }
    let mem = text
        .lines()
        .find(|l| l.starts_with("memory per rank"))
        .expect("memory line");
    assert!(mem.ends_with(" bytes"), "{mem}");
}

/// `bench/run --only` runs the rows it names and nothing else, and refuses words that name none.
#[test]
fn the_bench_runs_only_the_rows_asked_for() {
    let root = env!("CARGO_MANIFEST_DIR");
    let bench = |only: &str| {
        Command::new("python3")
            .arg(format!("{root}/bench/run"))
            .args(["--quick", "--no-peer", "--only", only])
            .env("MGENSIM_BIN", env!("CARGO_BIN_EXE_mgensim"))
            .output()
            .expect("python3 runs bench/run")
    };
    let out = bench("rd,fat");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("---"))
        .skip(1)
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(rows[0].starts_with("rd barrier ") && rows[1].starts_with("bruck 4B fat tree "));
    let out = bench("memory");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let last = text.lines().last().unwrap_or("");
    assert!(
        last.starts_with("memory per rank") && !text.contains("ring barrier "),
        "{text}"
    );
    let out = bench("tofu");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--only tofu names no row"), "{err}");
}

/// `bench/pair` runs two builds side by side and prints their ratio; it refuses to compare two
/// builds that simulate different things.
#[test]
fn the_pair_bench_compares_like_with_like() {
    let root = env!("CARGO_MANIFEST_DIR");
    let bin = env!("CARGO_BIN_EXE_mgensim");
    let pair_with = |new: &str, more: &[&str]| {
        Command::new("python3")
            .arg(format!("{root}/bench/pair"))
            .args([bin, new, "-n", "2", "--", "run"])
            .arg(format!("{root}/scenarios/barrier.toml"))
            .args(more)
            .current_dir(root)
            .output()
            .expect("python3 runs bench/pair")
    };
    let pair = |new: &str| pair_with(new, &[]);
    let two_cores = std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2;
    let out = pair(bin);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    if !two_cores {
        assert!(err.contains("needs two cores"), "{text}\n{err}");
        return;
    }
    assert!(out.status.success(), "{text}\n{err}");
    let rounds: Vec<&str> = text.lines().filter(|l| l.starts_with("round ")).collect();
    assert_eq!(rounds.len(), 2, "{text}");
    assert!(
        rounds[0].contains("(core") && rounds[0].contains("NEW/OLD"),
        "{text}"
    );
    let mean = text
        .lines()
        .find(|l| l.starts_with("NEW/OLD geometric mean "))
        .unwrap_or_else(|| panic!("no mean:\n{text}"));
    let ratio: f64 = mean.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!(ratio > 0.0, "{mean}");

    // the first part of a run, stopped by a limit (status 3) in both: a valid pair
    let out = pair_with(bin, &["--set", "limits.events=5000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}");
    assert_eq!(text.lines().filter(|l| l.starts_with("round ")).count(), 2);

    // "builds" whose results differ: the same binary on a network with slower cables, and
    // one that stops at a limit where the other finishes
    let dir = tempfile::tempdir().unwrap();
    let wrapper = |name: &str, set: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\nexec {bin} \"$@\" --set {set}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.to_str().unwrap().to_string()
    };
    let slower = wrapper("slower-cables", "network.cable_latency='\"200 ns\"'");
    let stopped = wrapper("stopped", "limits.events=5000");
    for (other, more) in [
        (&slower, &[][..]),
        (&slower, &["--set", "limits.events=5000"][..]),
        (&stopped, &[][..]),
    ] {
        let out = pair_with(other, more);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{other} {more:?}: {err}");
        assert!(err.contains("print different results"), "{err}");
    }
    // --differ pairs builds whose model changed, and says so, with the median and the spread
    let out = Command::new("python3")
        .arg(format!("{root}/bench/pair"))
        .args([bin, &slower, "-n", "3", "--differ", "--", "run"])
        .arg(format!("{root}/scenarios/barrier.toml"))
        .current_dir(root)
        .output()
        .expect("python3 runs bench/pair");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("results differ (--differ)"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("round ")).count(), 3);
    assert!(text.contains("; median "), "{text}");

    // two runs writing the same output folder (or summary file) would overwrite each other's
    for (writes, flag) in [(&["--out", "x"][..], "--out"), (&["-ox.json"][..], "-o")] {
        let out = Command::new("python3")
            .arg(format!("{root}/bench/pair"))
            .args([bin, bin, "--", "run", "scenarios/barrier.toml"])
            .args(writes)
            .current_dir(root)
            .output()
            .expect("python3 runs bench/pair");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(&format!("{flag} writes a file")),
            "{writes:?}: {err}"
        );
    }
}

/// `bench/pgo` says what it builds, and refuses a bad round count before building anything
/// (the build itself takes minutes and a toolchain component: measured, not tested).
#[test]
fn the_pgo_build_script_explains_itself_and_refuses_bad_arguments() {
    let root = env!("CARGO_MANIFEST_DIR");
    let pgo = |args: &[&str]| {
        Command::new("python3")
            .arg(format!("{root}/bench/pgo"))
            .args(args)
            .current_dir(root)
            .output()
            .expect("python3 runs bench/pgo")
    };
    let help = pgo(&["--help"]);
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(help.status.success(), "{text}");
    assert!(
        text.contains("-Cprofile-generate") && text.contains("llvm-tools"),
        "{text}"
    );
    for bad in [
        &["--compare", "x"][..],
        &["--compare"][..],
        &["--compare", "0"][..],
    ] {
        let out = pgo(bad);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{bad:?}: {err}");
        assert!(
            err.contains("--compare needs a number of rounds"),
            "{bad:?}: {err}"
        );
    }
    let out = pgo(&["--frobnicate"]);
    assert_eq!(out.status.code(), Some(2), "an unknown option");
}
