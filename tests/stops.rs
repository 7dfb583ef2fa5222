//! A run that stops early prints the same bytes whatever its partitions and threads: a rank's
//! error, a deadlock, the instruction limit on ranks that loop in every partition, `--until`
//! (also on ranks that compute or send for ever without blocking), the post limit, a rank
//! testing at a standing clock,
//! `--timeout` and SIGTERM, `limits.events` where windows skip an epoch's end, each at 1, 2
//! and 4 partitions on 1 and 2 threads, twice over; and the events counted, alike in all.
//! Every output is compared: the text summary and stderr (but the `host` line), every file of
//! the output folder (`summary.json` but its `host`) and the timeline.
//!
//! The rule that makes it so (`engine/runner.rs`): a stop ends the rank it concerns, and the
//! run goes on to the end of the stop's epoch, which no partition's window crosses, then
//! reports the earliest stop by (time, rank).

mod common;

use common::project;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// (partitions, threads) of every run compared.
const LAYOUTS: [(u32, u32); 5] = [(1, 1), (2, 1), (2, 2), (4, 1), (4, 2)];

/// An 8x8x8 torus (8 slabs: up to 8 partitions), 512 ranks, a barrier from the library and
/// puts around a ring, then `tail` (Lua run by every rank).
fn scenario(dir: &Path, tail: &str, limits: &str) -> std::path::PathBuf {
    let text = format!(
        "[network]\ntopology = 'torus'\ndims = [8, 8, 8]\n[workload]\nranks = 512\ncode = '''\n\
         local coll = require('mgen.coll')\n\
         local me, n = MGEN_Comm_rank(), MGEN_Comm_size()\n\
         coll.barrier()\n\
         MGEN_rdma_put((me + 1) % n, 512, 1)\n\
         MGEN_rdma_poll(1)\n\
         {tail}\n\
         coll.barrier()\n'''\n[limits]\n{limits}\n"
    );
    let path = dir.join("stop.toml");
    std::fs::write(&path, text).expect("written");
    path
}

/// What one run printed and wrote, but its `host` figures; and its exit code.
struct Outputs {
    files: BTreeMap<String, Vec<u8>>,
    code: Option<i32>,
}

fn command(scenario: &Path, parts: u32, threads: u32, out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mgensim"));
    c.arg("run")
        .arg(scenario)
        .args(["--partitions", &parts.to_string()])
        .args(["--threads", &threads.to_string()])
        .arg("--out")
        .arg(out.join("out"))
        .arg("--trace")
        .arg(out.join("trace.json"))
        .arg("--profile")
        // (each partition on its own, even where one thread runs several: the cuts are tested)
        .args(["--set", "engine.separate_partitions=true"])
        .args(extra)
        .current_dir(project())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn collect(o: std::process::Output, out: &Path) -> Outputs {
    let without_host = |b: &[u8]| -> Vec<u8> {
        String::from_utf8_lossy(b)
            .lines()
            .filter(|l| !l.starts_with("host "))
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    };
    let mut files = BTreeMap::new();
    files.insert("stdout".to_string(), without_host(&o.stdout));
    files.insert("stderr".to_string(), without_host(&o.stderr));
    if let Ok(t) = std::fs::read(out.join("trace.json")) {
        files.insert("trace.json".to_string(), t);
    }
    if let Ok(entries) = std::fs::read_dir(out.join("out")) {
        for e in entries {
            let path = e.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let mut bytes = std::fs::read(&path).expect("readable");
            if name == "summary.json" {
                let mut v: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
                v.as_object_mut().expect("an object").remove("host");
                bytes = serde_json::to_vec_pretty(&v).expect("json");
            }
            files.insert(name, bytes);
        }
    }
    let _ = std::fs::remove_dir_all(out);
    Outputs {
        files,
        code: o.status.code(),
    }
}

/// Runs `scenario` in every layout, twice, (with `signal` sent `after` its start, if any) and
/// checks that every run printed and wrote the same as the first; returns the first's outputs.
fn same_everywhere(
    scenario: &Path,
    extra: &[&str],
    signal: Option<(libc::c_int, Duration)>,
) -> Outputs {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let mut first: Option<(String, Outputs)> = None;
    for round in 0..2 {
        for (parts, threads) in LAYOUTS {
            let out = tmp.path().join(format!("r{round}p{parts}t{threads}"));
            std::fs::create_dir_all(&out).expect("a folder");
            let mut child = command(scenario, parts, threads, &out, extra)
                .spawn()
                .expect("mgensim starts");
            let started = Instant::now();
            if let Some((sig, after)) = signal {
                std::thread::sleep(after);
                // SAFETY: a plain kill(2) of our own child
                assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
            }
            // (a run that does not stop within a minute is the hang this file is about)
            let deadline = started + Duration::from_secs(60);
            while child.try_wait().expect("wait").is_none() {
                if Instant::now() > deadline {
                    let _ = child.kill();
                    panic!("{parts} partitions on {threads} threads: no stop within 60 s");
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let o = child.wait_with_output().expect("outputs");
            let label = format!("{parts} partitions on {threads} threads (round {round})");
            let got = collect(o, &out);
            match &first {
                None => first = Some((label, got)),
                Some((l0, want)) => {
                    assert_eq!(got.code, want.code, "{label} against {l0}: exit code");
                    assert_eq!(
                        got.files.keys().collect::<Vec<_>>(),
                        want.files.keys().collect::<Vec<_>>(),
                        "{label} against {l0}: the files written"
                    );
                    for (name, bytes) in &want.files {
                        assert!(
                            got.files[name] == *bytes,
                            "{label}: {name} differs from {l0}:\n{}\n---\n{}",
                            String::from_utf8_lossy(bytes)
                                .chars()
                                .take(3000)
                                .collect::<String>(),
                            String::from_utf8_lossy(&got.files[name])
                                .chars()
                                .take(3000)
                                .collect::<String>()
                        );
                    }
                }
            }
        }
    }
    first.expect("runs").1
}

fn text(o: &Outputs, name: &str) -> String {
    String::from_utf8_lossy(&o.files[name]).into_owned()
}

#[test]
fn a_script_error_stops_every_partitioning_at_the_same_figures() {
    // two ranks fail, in different partitions: rank 400 first (its clock is earlier)
    let (err, summary) = ends_alike(
        "if me == 100 then MGEN_Comp(2e-6) error('late') end\n\
         if me == 400 then MGEN_Comp(1e-6) error('early') end",
        "",
        &[],
        None,
        1,
    );
    assert!(err.contains("rank 400 failed at simulated time"), "{err}");
    assert!(err.contains("early"), "{err}");
    assert!(summary.contains("rank 400 failed"), "{summary}");
}

#[test]
fn a_deadlock_is_counted_over_every_partition() {
    // rank 300 waits for a message that rank 2 sends with another tag
    let (err, summary) = ends_alike(
        "if me == 300 then MGEN_Recv(2, 8, 1) end\nif me == 2 then MGEN_Send(300, 8, 2) end",
        "",
        &[],
        None,
        1,
    );
    assert!(err.contains("deadlock at simulated time"), "{err}");
    // every rank's puts are counted, whichever partition made them: 512 puts around the ring
    assert!(summary.contains("512 puts/gets"), "{summary}");
    assert!(
        summary.contains("MGEN_rdma_put") && summary.contains("512 calls on 512 ranks"),
        "{summary}"
    );
    // the summary's stop and the deadlock's are one time
    let at = err
        .split("deadlock at simulated time ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .expect("a time");
    assert!(
        summary.contains(&format!("stopped at         {at}")),
        "{at} in\n{summary}"
    );
}

#[test]
fn ranks_that_loop_in_every_partition_stop_at_the_instruction_limit() {
    let (err, _) = ends_alike(
        "if me % 128 == 5 then while true do end end",
        "instructions = 2000000",
        &[],
        None,
        3,
    );
    // ranks 5, 133, 261 and 389 loop from the same time: the lowest is reported
    assert!(
        err.contains("rank 5 ran more than 2000000 Lua instructions"),
        "{err}"
    );
}

#[test]
fn until_stops_every_partitioning_at_the_same_figures() {
    let (_, summary) = ends_alike("MGEN_Comp(1e-6)", "", &["--until", "7us"], None, 3);
    assert!(summary.contains("PARTIAL"));
}

/// Ranks that never block, in several partitions: two compute and two send for ever, and
/// each gives control back at the call that takes its clock past `--until` (no instruction
/// budget could stop them), so every partitioning stops at the same figures.
#[test]
fn ranks_that_compute_or_send_for_ever_stop_at_until_in_every_partitioning() {
    let (err, summary) = ends_alike(
        "if me == 3 or me == 300 then while true do MGEN_Comp(1e-9) end end\n\
         if me == 70 or me == 450 then while true do MGEN_Send((me + 1) % n, 8, 77) end end",
        "instructions = 0",
        &["--until", "30us"],
        None,
        3,
    );
    assert!(err.contains("simulated-time limit"), "{err}");
    assert!(summary.contains("PARTIAL"));
}

/// Ranks that post puts in an endless loop, in several partitions, at no cost to their
/// clocks: each is stopped at the put past `limits.posts`, and the lowest is reported.
#[test]
fn ranks_that_post_for_ever_stop_at_the_post_limit_in_every_partitioning() {
    let (err, _) = ends_alike(
        "if me % 128 == 5 then while true do MGEN_rdma_put((me + 1) % n, 8, 9) end end",
        "instructions = 0\nposts = 5000",
        &[],
        None,
        3,
    );
    assert!(
        err.contains("rank 5 posted more than `limits.posts` = 5000 transfers"),
        "{err}"
    );
}

/// A rank that tests a request in a loop and does nothing else never lets its clock pass
/// (`MGEN_Test` costs no simulated time), so no limit of simulated time could stop it: its
/// 1,048,576th test in a row at one clock is an error, the same test on every partitioning
/// (the profile counts every one).
#[test]
fn a_rank_that_tests_at_a_standing_clock_fails_at_the_same_test_in_every_partitioning() {
    let (err, summary) = ends_alike(
        "if me == 77 then local r = MGEN_Irecv(0, 8, 99); while not MGEN_Test(r) do end end",
        "",
        &["--until", "1ms"],
        None,
        1,
    );
    assert!(
        err.contains("rank 77 failed") && err.contains("tested 1048576 times in a row"),
        "{err}"
    );
    assert!(summary.contains("1048576 calls on 1 rank"), "{}", summary);
}

#[test]
fn a_timeout_stops_ranks_that_loop_in_every_partition() {
    let (err, _) = ends_alike(
        "if me % 128 == 7 then while true do end end",
        "instructions = 0",
        &["--timeout", "1s"],
        None,
        3,
    );
    assert!(err.contains("wall-clock limit"), "{err}");
    assert!(err.contains("rank 7 "), "{err}");
}

#[test]
fn sigterm_stops_ranks_that_loop_in_every_partition() {
    let (err, _) = ends_alike(
        "if me % 128 == 9 then while true do end end",
        "instructions = 0",
        &[],
        Some((libc::SIGTERM, Duration::from_millis(1500))),
        130,
    );
    assert!(err.contains("interrupted"), "{err}");
    assert!(err.contains("rank 9 "), "{err}");
}

/// The scenario of `tail` and `limits` (see [`scenario`]) run in every layout, as
/// [`same_everywhere`] runs it; checks its exit code, and returns its stderr and summary.
fn ends_alike(
    tail: &str,
    limits: &str,
    extra: &[&str],
    signal: Option<(libc::c_int, Duration)>,
    code: i32,
) -> (String, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let o = same_everywhere(&scenario(dir.path(), tail, limits), extra, signal);
    let err = text(&o, "stderr");
    assert_eq!(o.code, Some(code), "{err}");
    (err, text(&o, "stdout"))
}

/// `limits.events` stops at the end of the epoch in which the count was reached, also where
/// no window ends at that epoch's end: partitions cut their windows short by the credit
/// bound, and the next event may lie past the epoch (links that sleep at once and take 100 ns
/// to wake leave gaps). A dragonfly of 36 routers, a recursive-doubling barrier three times.
#[test]
fn the_event_limit_stops_every_partitioning_at_the_same_epoch() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("gaps.toml");
    std::fs::copy(
        project().join("scenarios/barrier.lua"),
        dir.path().join("barrier.lua"),
    )
    .expect("copied");
    let toml = "[network]\ntopology = 'dragonfly'\nrouters_per_group = 4\nnodes_per_router = 2\n\
         global_links_per_router = 2\nmtu = '96 B'\n[power]\nt_sleep = '0 ns'\n\
         t_wake = '100 ns'\n[limits]\nevents = 3000\n[workload]\nscript = 'barrier.lua'\n\
         args = { algo = 'rd', bytes = 8, repeat = 3 }\nranks = 72\n";
    std::fs::write(&path, toml).expect("written");
    let o = same_everywhere(&path, &[], None);
    let err = text(&o, "stderr");
    assert_eq!(o.code, Some(3), "{err}");
    assert!(
        err.contains("the run processed `limits.events` = 3000 events"),
        "{err}"
    );
}

/// The events a run counts (the summary's `events` and `events_by_kind`) are the same in
/// every partitioning: a credit wake-up is counted when credit comes back into a virtual
/// channel its channel waits for, not by when the release was recorded (later across a
/// cut). UGAL on a Jellyfish graph with buffers of 160 bytes: 19,675 of them.
#[test]
fn the_events_counted_are_the_same_in_every_partitioning() {
    let o = same_everywhere(
        &project().join("scenarios/jellyfish.toml"),
        &[
            "--set",
            "network.routing=\"ugal\"",
            "--set",
            "network.mtu=\"64 B\"",
            "--set",
            "network.buffer_bytes=\"160 B\"",
            "--set",
            "workload.args.bytes=20000",
        ],
        None,
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&o.files["summary.json"]).expect("json");
    assert_eq!(summary["network"]["events_by_kind"]["credit_wake"], 19675);
}

/// At `limits.events` the releases that crossed a cut in the last window are taken in before
/// the figures are read, as one partition has them: the buffers' mean occupancy in
/// `links.csv` and `routers.csv` is the same in every partitioning. Uniform traffic on a ring
/// of 3, stopped at the 20th event.
#[test]
fn the_event_limit_takes_in_what_crossed_a_cut() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("uniform.toml");
    let toml = "[network]\ntopology = 'torus'\ndims = [3]\n[limits]\nevents = 20\n\
                [workload]\nranks = 3\ntraffic = 'uniform'\nload = 1.0\nwarmup = '1 us'\n\
                measure = '5 us'\n";
    std::fs::write(&path, toml).expect("written");
    let o = same_everywhere(&path, &[], None);
    assert_eq!(o.code, Some(3), "{}", text(&o, "stderr"));
    let links = String::from_utf8_lossy(&o.files["links.csv"]).into_owned();
    // (one packet of 2,048 bytes and a 16-byte header over router 1's link to router 2, 516
    // ns at 4 GB/s, on it from 656.6 ns to the stop at 797.8 ns: busy 141,200 ps of it, its
    // bytes whole)
    assert!(links.contains("router,1,1,2,2064,1,141200,"), "{links}");
}

/// A fixed-width time series that fills `limits.time_series_memory` stops the run at an
/// epoch's end; what crossed a cut in the last window is taken in first, as one partition has
/// it: the buffers' occupancy in `links_timeseries.csv`, `links.csv` and `routers.csv` is the
/// same in every partitioning. Uniform traffic on a ring of 6.
#[test]
fn a_full_time_series_takes_in_what_crossed_a_cut() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("uniform.toml");
    let toml = "[network]\ntopology = 'torus'\ndims = [6]\n[limits]\n\
                time_series_memory = 40000\n[workload]\nranks = 6\ntraffic = 'uniform'\n\
                load = 1.0\nwarmup = '1 us'\nmeasure = '5 us'\n";
    std::fs::write(&path, toml).expect("written");
    let o = same_everywhere(&path, &["--interval", "100ns"], None);
    assert_ne!(o.code, Some(0), "{}", text(&o, "stderr"));
    assert!(
        text(&o, "stderr").contains("limits.time_series_memory"),
        "{}",
        text(&o, "stderr")
    );
    let series = text(&o, "links_timeseries.csv");
    // (the run went on past the windows the limit holds: more than one of them is written)
    assert!(series.lines().count() > 24 * 2, "{series}");
}
