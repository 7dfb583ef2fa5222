//! The benchmark script still runs: `bench/run --quick --no-peer` on this build prints a line
//! of figures for every workload and the memory per rank. (No timing is asserted: speed is
//! measured by `bench/run`, not by tests.)

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
    for name in [
        "ring barrier",
        "rd barrier",
        "random ring 2MB",
        "bruck 4B torus",
        "bruck 4B fat tree",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{text}"));
        let fields: Vec<&str> = line[name.len()..].split_whitespace().collect();
        // ranks, simulated µs, wall s, MiB, Mevents/s, Mhops/s, then the peer's columns
        assert_eq!(fields[0], "64", "{line}");
        for f in &fields[1..6] {
            let v: f64 = f
                .parse()
                .unwrap_or_else(|_| panic!("not a number: {f} in {line}"));
            assert!(v > 0.0, "{line}");
        }
        assert_eq!(fields[6], "|", "{line}");
    }
    let mem = text
        .lines()
        .find(|l| l.starts_with("memory per rank"))
        .expect("memory line");
    assert!(mem.ends_with(" bytes"), "{mem}");
}
