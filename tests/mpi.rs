//! `mpirun -np P mgensim run` (a build with `--features mpi`): the partitions run across P
//! processes, and every output is the bytes one process on one thread writes in one
//! partition: the summary (all but its `host` line), every file of the output folder and the
//! timeline; so are a script's error, a deadlock's explanation and a run `--until` or
//! `limits.events` stopped, with the same exit status. Every shipped scenario runs on 2, 3
//! and 4 processes, five of them on 2, 3 and 4 processes of 2 threads too (on this machine's
//! cores, oversubscribed: `--oversubscribe --bind-to none`); random networks of every family
//! on 2, 3 and 4 (`mpi/random.rs`); runs stopped from outside, by the wall clock, signals and a process
//! killed (`mpi/signals.rs`). Every job is waited for with a deadline (`mpi/job.rs`).
#![cfg(feature = "mpi")]

mod common;
#[path = "mpi/job.rs"]
mod job;
#[path = "mpi/random.rs"]
mod random;
#[path = "mpi/signals.rs"]
mod signals;

use common::project;
use job::mgensim;
use std::collections::BTreeMap;
use std::path::Path;

/// The summary without its `host` line (how fast, on what: not what the run predicts).
fn without_host(text: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| !l.starts_with("host "))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

/// What a run wrote: file name → bytes (`stdout` the summary printed, `trace.json` the
/// timeline, the others the output folder's files, `summary.json` without `host`).
type Files = BTreeMap<String, Vec<u8>>;

/// What summary.json's `host` says of a run across processes: the processes, and the bytes
/// of cut messages that crossed between them.
struct Host {
    processes: u64,
    across: u64,
    /// The most events pending and packets held at once, summed over the partitions.
    peaks: (u64, u64),
}

/// Every output of `scenario` run on `np` processes (0: one process, one thread, one
/// partition unless `extra` gives the partitions), in `dir`; and its `host`. A run that fails fails the test with its stderr.
fn outputs(scenario: &str, np: u32, dir: &Path, extra: &[&str]) -> (Files, Host) {
    let ran = run_scenario(scenario, np, dir, extra);
    let o = &ran.ended;
    assert!(
        o.status.success(),
        "{scenario} on {np} processes: {}",
        o.stderr_text()
    );
    (ran.files, ran.host)
}

/// A run and what it wrote (its output folder and timeline read, then removed).
struct Ran {
    ended: job::Ended,
    files: Files,
    host: Host,
}

/// `scenario` run on `np` processes (0: one process, one thread, one partition) with
/// `--out` and `--trace` in `dir`, whatever its end.
fn run_scenario(scenario: &str, np: u32, dir: &Path, extra: &[&str]) -> Ran {
    run_scenario_with(scenario, np, dir, extra, &[], |_| {}, job::RUN_DEADLINE)
}

/// [`run_scenario`] with `mpirun_args` given to mpirun, `during` called once the job has
/// started (to watch it, signal it), and the end awaited `within` that.
fn run_scenario_with(
    scenario: &str,
    np: u32,
    dir: &Path,
    extra: &[&str],
    mpirun_args: &[&str],
    during: impl FnOnce(&mut job::Job),
    within: std::time::Duration,
) -> Ran {
    let out = dir.join(format!("out{np}"));
    let trace = dir.join(format!("trace{np}.json"));
    let mut args = vec![
        "run",
        scenario,
        "--out",
        out.to_str().expect("a path"),
        "--trace",
        trace.to_str().expect("a path"),
    ];
    if np == 0 && !extra.contains(&"--partitions") {
        args.extend(["--threads", "1", "--partitions", "1"]);
    }
    args.extend_from_slice(extra);
    let mut running = job::Job::start(job::mgensim_command(np, &args, mpirun_args));
    during(&mut running);
    let o = running.finish(within);
    let mut files = BTreeMap::new();
    files.insert("stdout".to_string(), without_host(&o.stdout));
    if let Ok(t) = std::fs::read(&trace) {
        files.insert("trace.json".to_string(), t);
    }
    let mut host = Host {
        processes: 1,
        across: 0,
        peaks: (0, 0),
    };
    for entry in std::fs::read_dir(&out).into_iter().flatten() {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let mut bytes = std::fs::read(&path).expect("readable");
        if name == "summary.json" {
            let mut v: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
            let h = v
                .as_object_mut()
                .expect("an object")
                .remove("host")
                .expect("host");
            host.processes = h.get("processes").and_then(|p| p.as_u64()).unwrap_or(1);
            host.across = h["windows"]
                .get("across")
                .and_then(|p| p.as_u64())
                .unwrap_or(0);
            let peak = |k: &str| h.get(k).and_then(|p| p.as_u64()).expect(k);
            host.peaks = (peak("peak_pending_events"), peak("peak_packets"));
            if np > 0 {
                // (each process on the threads asked: one unless `--threads T` is given, or
                // the scenario's `engine.threads`)
                let text = std::fs::read_to_string(scenario).unwrap_or_default();
                let in_scenario = text
                    .lines()
                    .find_map(|l| l.strip_prefix("threads = "))
                    .map(|t| t.trim().to_string());
                let threads = extra
                    .iter()
                    .position(|a| *a == "--threads")
                    .and_then(|i| extra.get(i + 1))
                    .map(|t| t.to_string())
                    .or(in_scenario)
                    .map_or(1, |t| t.parse::<u64>().expect("a count"));
                assert_eq!(h["mpi"], true, "{scenario}");
                assert_eq!(h["threads"], threads, "{scenario}");
            }
            bytes = serde_json::to_vec_pretty(&v).expect("json");
        }
        files.insert(name, bytes);
    }
    let _ = std::fs::remove_dir_all(&out);
    let _ = std::fs::remove_file(&trace);
    Ran {
        ended: o,
        files,
        host,
    }
}

/// `scenario` on each of `nps` processes writes the bytes of one process, file by file;
/// returns the bytes of cut messages that crossed between processes, per count.
fn same_bytes_on(scenario: &str, extra: &[&str], nps: &[u32]) -> Vec<u64> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (one, _) = outputs(scenario, 0, dir.path(), extra);
    assert!(
        one.contains_key("links.csv") && one.contains_key("summary.json"),
        "{:?}",
        one.keys()
    );
    let mut across = Vec::new();
    for &np in nps {
        let (many, host) = outputs(scenario, np, dir.path(), extra);
        assert_eq!(
            host.processes, np as u64,
            "{scenario}: processes in summary.json's host"
        );
        assert_same(&one, &many, &format!("{scenario} on {np} processes"));
        across.push(host.across);
    }
    across
}

/// `many` holds the files of `one`, each of the same bytes.
fn assert_same(one: &Files, many: &Files, what: &str) {
    assert_eq!(
        one.keys().collect::<Vec<_>>(),
        many.keys().collect::<Vec<_>>(),
        "{what}: the files written"
    );
    for (name, bytes) in one {
        assert!(
            bytes == &many[name],
            "{what}: {name} differs:\n{}",
            first_difference(bytes, &many[name])
        );
    }
}

/// The first line where `a` and `b` differ, for the failure's message.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  one process: {x}\n  MPI:         {y}", i + 1);
        }
    }
    format!("lengths {} and {}", a.len(), b.len())
}

macro_rules! scenarios {
    ($($name:ident: $path:expr, [$($extra:expr),*];)*) => {
        $(
            #[test]
            fn $name() {
                // (every shipped scenario on 2, 3 and 4 processes of one thread; five of
                // them also on processes of 2 threads, `processes_on_threads_...` below)
                same_bytes_on($path, &[$($extra),*], &[2, 3, 4]);
            }
        )*
        /// Every shipped scenario (`scenarios/*.toml`, `scenarios/replay/*.toml`,
        /// `scenarios/tracerp/*.toml`) has its test above.
        #[test]
        fn every_shipped_scenario_is_compared() {
            let mut listed: Vec<String> = [$($path),*]
                .iter()
                .map(|p| p.to_string())
                .collect();
            listed.sort();
            let mut found = Vec::new();
            for folder in ["", "replay/", "tracerp/"] {
                let dir = project().join("scenarios").join(folder);
                for e in std::fs::read_dir(&dir).expect("scenarios") {
                    let name = e.expect("an entry").file_name().to_string_lossy().into_owned();
                    if name.ends_with(".toml") {
                        found.push(format!("scenarios/{folder}{name}"));
                    }
                }
            }
            found.sort();
            assert_eq!(listed, found, "the scenarios compared under MPI, and those shipped");
        }
    };
}

// (the options of tests/parallel.rs's same list: series, buffer histories and profiles are
// outputs too)
scenarios! {
    barrier: "scenarios/barrier.toml", ["--interval", "20us", "--buffer-history", "router=5"];
    barrier_lesson: "scenarios/barrier_lesson.toml", ["--profile"];
    bidirectional_ring: "scenarios/bidirectional_ring.toml", ["--interval", "5us"];
    bruck_alltoall: "scenarios/bruck_alltoall.toml", ["--interval", "5us"];
    dragonfly_alltoall: "scenarios/dragonfly_alltoall.toml", ["--interval", "20us"];
    fattree_anynet: "scenarios/fattree_anynet.toml", ["--interval", "20us"];
    fattree_random_ring: "scenarios/fattree_random_ring.toml", ["--interval", "20us"];
    halo3d: "scenarios/halo3d.toml", ["--profile"];
    hyperx_shift: "scenarios/hyperx_shift.toml", ["--set", "network.routing=ugal", "--interval", "50us"];
    hyperx_traffic: "scenarios/hyperx_traffic.toml", ["--interval", "10us", "--set", "workload.process=burst"];
    jellyfish: "scenarios/jellyfish.toml", ["--interval", "20us", "--buffer-history", "router=3"];
    nbody_exchange: "scenarios/nbody_exchange.toml", [];
    put_ring: "scenarios/put_ring.toml", ["--buffer-history", "router=1"];
    random_ring: "scenarios/random_ring.toml", ["--interval", "50us"];
    random_ring_get: "scenarios/random_ring_get.toml", [];
    tofu_barrier: "scenarios/tofu_barrier.toml", ["--interval", "5us"];
    two_jobs: "scenarios/two_jobs.toml", [];
    two_racks: "scenarios/two_racks.toml", ["--profile"];
    replay_is: "scenarios/replay/is.toml", ["--profile"];
    replay_is_power: "scenarios/replay/is_power.toml", ["--interval", "20us"];
    tracerp_dragonfly: "scenarios/tracerp/dragonfly.toml", [];
    tracerp_fattree: "scenarios/tracerp/fattree.toml", [];
    tracerp_torus: "scenarios/tracerp/torus.toml", [];
}

/// Each process of a job on threads (`mpirun -np P mgensim run --threads T`): the partitions
/// of `scenario`, kept apart, T to a process, run on the process's T threads, and every
/// output is the bytes of one process on one thread.
fn same_bytes_on_threads(scenario: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (one, _) = outputs(scenario, 0, dir.path(), extra);
    for (np, threads) in [(2u32, 2u32), (3, 2), (4, 2)] {
        let (t, p) = (threads.to_string(), (np * threads).to_string());
        let mut args = extra.to_vec();
        args.extend(["--threads", &t, "--partitions", &p]);
        args.extend(["--set", "engine.separate_partitions=true"]);
        let (many, host) = outputs(scenario, np, dir.path(), &args);
        assert_eq!(host.processes, np as u64, "{scenario}");
        let what = format!("{scenario} on {np} processes × {threads} threads");
        assert_same(&one, &many, &what);
    }
}

/// The `host` line's peaks (events pending, packets held) are summed over the partitions, so
/// they depend on the cut, not on where the partitions ran: the same four partitions, kept
/// apart, give the same peaks in one process (no MPI) as on 2 processes of 2 threads and on 4
/// of one (the root used to count only its own partitions' peaks).
#[test]
fn the_peaks_of_the_same_partitions_are_the_same_on_any_processes() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let scenario = "scenarios/bruck_alltoall.toml";
    let apart = [
        "--partitions",
        "4",
        "--set",
        "engine.separate_partitions=true",
    ];
    let peaks = |np: u32, threads: &str| {
        let mut args = apart.to_vec();
        args.extend(["--threads", threads]);
        let (_, host) = outputs(scenario, np, dir.path(), &args);
        assert_eq!(host.processes, np.max(1) as u64);
        host.peaks
    };
    let one = peaks(0, "1");
    assert!(one.0 > 0 && one.1 > 0, "{one:?}");
    assert_eq!(peaks(2, "2"), one, "2 processes × 2 threads");
    assert_eq!(peaks(4, "1"), one, "4 processes");
}

#[test]
fn processes_on_threads_write_the_bytes_of_one_thread() {
    for (scenario, extra) in [
        ("scenarios/bruck_alltoall.toml", &["--interval", "5us"][..]),
        ("scenarios/random_ring.toml", &["--interval", "50us"][..]),
        ("scenarios/halo3d.toml", &["--profile"][..]),
        ("scenarios/two_jobs.toml", &[][..]),
        ("scenarios/replay/is.toml", &["--profile"][..]),
    ] {
        same_bytes_on_threads(scenario, extra);
    }
}

#[test]
fn a_script_error_a_deadlock_until_and_limits_on_3_processes_of_2_threads_end_as_in_one() {
    let threads = [
        "--threads",
        "2",
        "--partitions",
        "6",
        "--set",
        "engine.separate_partitions=true",
    ];
    let error = exchange_then("if me == 50 then error('rank fifty gives up') end");
    let deadlock = exchange_then("if me == 40 then MGEN_Recv(3, 99, 8) end");
    // (a ring with no end: every rank blocks in each turn)
    let endless = exchange_then(
        "while true do local r = MGEN_Irecv((me - 1) % n, 9, 64); \
         MGEN_Send((me + 1) % n, 9, 64); MGEN_Wait(r) end",
    );
    same_ending_on(&error, &[], &threads, "rank fifty gives up", 1);
    same_ending_on(&deadlock, &[], &threads, "deadlock at simulated time", 1);
    same_ending_on(
        &endless,
        &["--until", "5us"],
        &threads,
        "simulated-time limit",
        3,
    );
    let events = ["--set", "limits.events=3000"];
    same_ending_on(&endless, &events, &threads, "event limit", 3);
    // ranks that never block (the hang this guards against: they ran on past the limits)
    let computing = exchange_then("if me % 7 == 2 then while true do MGEN_Comp(1e-9) end end");
    let unhooked = ["--until", "5us", "--set", "limits.instructions=0"];
    same_ending_on(&computing, &unhooked, &threads, "simulated-time limit", 3);
    let sending = exchange_then("while true do MGEN_Send((me + 1) % n, 9, 64) end");
    let events = [
        "--set",
        "limits.events=3000",
        "--set",
        "limits.instructions=0",
    ];
    same_ending_on(
        &sending,
        &events,
        &threads,
        "posted more than `limits.events` = 3000",
        3,
    );
}

/// The summary without `host`, stderr, and exit status of `toml` (written in `dir`) run on
/// `np` processes (0: alone), with `extra` arguments.
fn ending(dir: &Path, toml: &str, np: u32, extra: &[&str]) -> (Vec<u8>, String, Option<i32>) {
    // (the same path for every run: the messages name it)
    let path = dir.join("s.toml");
    std::fs::write(&path, toml).expect("written");
    let mut args = vec!["run", path.to_str().expect("a path"), "-q"];
    if np == 0 && !extra.contains(&"--partitions") {
        args.extend(["--threads", "1", "--partitions", "1"]);
    }
    args.extend_from_slice(extra);
    let o = mgensim(np, &args);
    let err = without_launcher(&String::from_utf8_lossy(&o.stderr));
    (without_host(&o.stdout), err, o.status.code())
}

/// `err` without the blocks mpirun adds between two lines of dashes (that a process ended
/// with a non-zero status), wherever they fell.
fn without_launcher(err: &str) -> String {
    const RULE: &str = "--------------------";
    let mut s = err.to_string();
    while let Some(a) = s.find(RULE) {
        let Some(b) = s[a + RULE.len()..].find('\n').and_then(|nl| {
            s[a + RULE.len() + nl..]
                .find(RULE)
                .map(|x| a + RULE.len() + nl + x)
        }) else {
            break;
        };
        let end = s[b..].find('\n').map_or(s.len(), |nl| b + nl + 1);
        s.replace_range(a..end, "");
    }
    s
}

/// `toml` ends the same on 3 processes as alone: the summary, the message, the status; the
/// message has `expect` in it.
fn same_ending(toml: &str, extra: &[&str], expect: &str, status: i32) {
    same_ending_on(toml, extra, &[], expect, status);
}

/// [`same_ending`], the 3 processes also given `across` (their threads, their partitions).
fn same_ending_on(toml: &str, extra: &[&str], across: &[&str], expect: &str, status: i32) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (one_out, one_err, one_code) = ending(dir.path(), toml, 0, extra);
    assert!(one_err.contains(expect), "alone: {one_err}");
    assert_eq!(one_code, Some(status), "alone: {one_err}");
    let mut extra = extra.to_vec();
    extra.extend_from_slice(across);
    let (out, err, code) = ending(dir.path(), toml, 3, &extra);
    assert_eq!(code, Some(status), "3 processes: {err}");
    assert_eq!(err, one_err, "the message on 3 processes");
    assert!(
        out == one_out,
        "the summary:\n{}",
        first_difference(&one_out, &out)
    );
}

/// A 4x4x4 torus whose ranks exchange with their neighbours, then `then` runs.
fn exchange_then(then: &str) -> String {
    format!(
        "[network]\ndims = [4, 4, 4]\n[workload]\ncode = '''\n\
         local me, n = MGEN_Comm_rank(), MGEN_Comm_size()\n\
         for i = 1, 3 do\n\
           local r = MGEN_Irecv((me - 1) % n, i, 64)\n\
           MGEN_Send((me + 1) % n, i, 64)\n\
           MGEN_Wait(r)\n\
         end\n\
         {then}\n'''\n"
    )
}

#[test]
fn a_script_error_on_3_processes_is_the_one_of_one_process() {
    // (rank 50's partition is the third process's: its error, line and traceback come from
    // there)
    let toml = exchange_then("if me == 50 then error('rank fifty gives up') end");
    same_ending(&toml, &[], "rank fifty gives up", 1);
}

#[test]
fn a_deadlock_on_3_processes_is_explained_as_in_one_process() {
    // rank 40 waits for a message nobody sends; the others end
    let toml = exchange_then("if me == 40 then MGEN_Recv(3, 99, 8) end");
    same_ending(&toml, &[], "deadlock at simulated time", 1);
}

#[test]
fn until_on_3_processes_stops_where_one_process_does() {
    let toml = exchange_then("MGEN_Barrier()");
    same_ending(&toml, &["--until", "2us"], "simulated-time limit", 3);
}

#[test]
fn too_few_partitions_for_the_processes_is_an_error_naming_the_key() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (_, err, code) = ending(dir.path(), &exchange_then(""), 3, &["--partitions", "2"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("engine.partitions = 2") && err.contains("3 MPI processes"),
        "{err}"
    );
}

#[test]
fn an_event_limit_on_3_processes_stops_where_one_process_does() {
    // (the events are summed over the processes at the ends of epochs)
    let toml = exchange_then("MGEN_Barrier()");
    same_ending(&toml, &["--set", "limits.events=1000"], "event limit", 3);
}

/// A stop at an epoch's end (`limits.events`, a full time series) takes in what crossed
/// between processes in the last window first, as one partition has it: every file the same
/// bytes, the buffers' mean occupancy in `links.csv`, `routers.csv` and the series included,
/// on 3 processes and on 2 processes of 2 threads (whose leader once stopped at the event
/// limit before taking its mail in).
#[test]
fn a_stop_at_an_epochs_end_takes_in_what_crossed_between_processes() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let hybrid = [
        "--threads",
        "2",
        "--partitions",
        "4",
        "--set",
        "engine.separate_partitions=true",
    ];
    for (limit, extra) in [
        ("events = 40", &[][..]),
        ("time_series_memory = 40000", &["--interval", "100ns"][..]),
    ] {
        let path = dir.path().join("uniform.toml");
        let toml = format!(
            "[network]\ntopology = 'torus'\ndims = [6]\n[limits]\n{limit}\n\
             [workload]\nranks = 6\ntraffic = 'uniform'\nload = 1.0\nwarmup = '1 us'\n\
             measure = '5 us'\n"
        );
        std::fs::write(&path, toml).expect("written");
        let scenario = path.to_str().expect("a path");
        let one = run_scenario(scenario, 0, dir.path(), extra);
        let code = one.ended.status.code();
        assert_ne!(code, Some(0), "{limit}: {}", one.ended.stderr_text());
        for (np, across) in [(3u32, &[][..]), (2, &hybrid[..])] {
            let mut args = extra.to_vec();
            args.extend_from_slice(across);
            let many = run_scenario(scenario, np, dir.path(), &args);
            let what = format!("{limit} on {np} processes {across:?}");
            assert_eq!(many.ended.status.code(), code, "{what}");
            assert_eq!(many.host.processes, np as u64, "{what}");
            assert_same(&one.files, &many.files, &what);
        }
    }
}
