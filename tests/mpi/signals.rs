//! A run across 3 processes stopped from outside: by the wall clock (`--timeout`), by SIGTERM
//! (to every process, as Slurm's `scancel` sends it; to one process; to mpirun) and by a
//! process killed outright. Every process stops, never a hang (each wait has a deadline: past
//! it the job is killed and the test fails with what it printed), and the root's partial
//! outputs are written whole: byte for byte those of one process where the stop's instant is
//! the same in both (a rank that loops forever), else with every file, header and row of the
//! network's.
//!
//! What Open MPI 4.1 (4.1.4 here) does, as these tests found and assert:
//! - SIGTERM (or SIGINT) to `mpirun` is not forwarded: mpirun kills the job, sending each
//!   process SIGCONT at once, SIGTERM `odls_base_sigkill_timeout` seconds later (1 by
//!   default) and SIGKILL as long after that, prints nothing of its own and exits with
//!   status 1, whatever its processes ended with. mgensim stops at the SIGTERM and has that
//!   long to agree on its stop and write its partial outputs (whole, or none if the SIGKILL
//!   comes first): `mpirun --mca odls_base_sigkill_timeout 10` gives it more.
//! - SIGTERM to the processes themselves (Slurm's way, or `kill` to one of them): each
//!   process that gets it stops; the others stop with it at the next window; the root
//!   writes the partial outputs and every process exits 130, which mpirun returns.
//! - a process killed (SIGKILL): mpirun prints `mpirun noticed that process rank R with PID
//!   0 on node N exited on signal 9 (Killed).`, kills the others in the same sequence (they
//!   are waiting for the dead one in a collective) and exits with 137; nothing is written.

use super::job::{alive_in_session, mgensim_command, signal, Job, Process};
use super::{exchange_then, run_scenario, run_scenario_with, without_launcher, Files, Ran};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest a stopped job may take to end (mpirun's kill sequence takes 2 s by default).
const STOP_DEADLINE: Duration = Duration::from_secs(30);

/// The longest a job may take to start simulating and print that it has.
const START_DEADLINE: Duration = Duration::from_secs(60);

/// Whether `mpirun` is Open MPI 4's, whose behaviour on signals the tests assert exactly
/// (another launcher is held to a non-zero status only).
fn open_mpi_4() -> bool {
    let mut c = std::process::Command::new("mpirun");
    c.arg("--version");
    let o = Job::start(c).finish(Duration::from_secs(30));
    String::from_utf8_lossy(&o.stdout).contains("(Open MPI) 4.")
}

/// A 4x4x4 torus (64 ranks, one a node; on 3 processes rank 50's partition is the third
/// process's): three rounds of messages around a ring, then rank `looper` says so and loops
/// forever in Lua (no instruction limit) while the others end. The run is frozen from then
/// on: wherever it is stopped, it stops at the same simulated instant, with the same figures.
fn looping(dir: &Path, looper: u32) -> PathBuf {
    let text = exchange_then(&format!(
        "if me == {looper} then print('looping') while true do end end"
    )) + "[limits]\ninstructions = 0\n";
    let path = dir.join("looping.toml");
    std::fs::write(&path, text).expect("written");
    path
}

/// What the looping rank prints once it loops.
const LOOPING: &str = "] looping";

/// A 4x4x4 torus whose ranks pass messages around a ring without end: bounded only by
/// `--until 1s` of simulated time (many minutes of wall time here); rank 0 says when it is
/// at round 100.
fn busy(dir: &Path) -> PathBuf {
    let text = "[network]\ndims = [4, 4, 4]\n[workload]\ncode = '''\n\
         local me, n = MGEN_Comm_rank(), MGEN_Comm_size()\n\
         for i = 1, 1000000000 do\n\
           if me == 0 and i == 100 then print('round 100') end\n\
           local r = MGEN_Irecv((me - 1) % n, i, 64)\n\
           MGEN_Send((me + 1) % n, i, 64)\n\
           MGEN_Wait(r)\n\
         end\n'''\n";
    let path = dir.join("busy.toml");
    std::fs::write(&path, text).expect("written");
    path
}

/// What the busy run prints once it is well under way.
const BUSY: &str = "] round 100";

/// The arguments of every run of [`busy`].
const BUSY_ARGS: [&str; 3] = ["--until", "1s", "-q"];

fn path(p: &Path) -> &str {
    p.to_str().expect("a path")
}

/// The lines of `err` (mgensim's stderr, mpirun's blocks taken out) that start with `error:`.
fn errors(err: &str) -> Vec<&str> {
    err.lines().filter(|l| l.starts_with("error:")).collect()
}

/// The one process's run of `scenario` and the run on 3 processes, each ended as `stop`
/// ends it (given the job and its processes by rank), agree byte for byte: the summary
/// printed, stderr (but mpirun's own blocks), every file written; with `status` for both,
/// (`mpi_status` for the MPI job's, when mpirun's differs) and the error said once. Returns
/// one process's files and stderr, and the MPI job's end.
fn same_stop(
    scenario: &Path,
    extra: &[&str],
    mpirun_args: &[&str],
    stop: impl Fn(&mut Job, &[Process]),
    status: i32,
    mpi_status: Option<i32>,
) -> (Files, String, super::job::Ended) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut ran = Vec::new();
    for np in [0, 3] {
        let during = |job: &mut Job| {
            let procs = job.wait_for_processes(np.max(1) as usize, START_DEADLINE);
            stop(job, &procs)
        };
        let r = run_scenario_with(
            path(scenario),
            np,
            dir.path(),
            extra,
            mpirun_args,
            during,
            STOP_DEADLINE,
        );
        let err = without_launcher(&r.ended.stderr_text());
        let want = if np == 0 {
            Some(status)
        } else {
            mpi_status.or(Some(status))
        };
        assert_eq!(r.ended.code(), want, "on {np} processes: {err}");
        assert_eq!(errors(&err).len(), 1, "one error, said once: {err}");
        ran.push((r, err));
    }
    let (many, many_err) = ran.pop().expect("3 processes");
    let (one, one_err) = ran.pop().expect("one process");
    assert_eq!(many_err, one_err, "stderr on 3 processes");
    super::assert_same(&one.files, &many.files, "3 processes");
    (one.files, one_err, many.ended)
}

/// Waits until the job prints `text`, then `after` more.
fn once_printed(job: &mut Job, text: &str, after: Duration) {
    job.wait_for_stderr(text, START_DEADLINE);
    std::thread::sleep(after);
}

#[test]
fn a_timeout_on_3_processes_ends_as_in_one_process() {
    // (the third process's rank loops: the others wait for it in a collective, and its own
    // wall clock stops it)
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (files, err, _) = same_stop(
        // (4 s: time for the set-up and the three rounds on a loaded machine, so that the
        // clock stops the run in the loop, where one process stops too)
        &looping(dir.path(), 50),
        &["--timeout", "4s"],
        &[],
        |_, _| {},
        3,
        None,
    );
    assert!(
        err.contains("wall-clock limit at simulated time") && err.contains("while rank 50 ran"),
        "{err}"
    );
    let summary = String::from_utf8_lossy(&files["stdout"]).into_owned();
    assert_eq!(summary.matches("PARTIAL").count(), 1, "{summary}");
}

/// `scenario` stopped by SIGTERM to the processes `to` picks (all of them in one process's
/// run) once its rank says it loops: ends as one process does (status 130, the same
/// outputs); returns stderr.
fn stopped_by_sigterm(scenario: &Path, to: impl Fn(&[Process]) -> &[Process]) -> String {
    let (_, err, _) = same_stop(
        scenario,
        &[],
        &[],
        |job, procs| {
            once_printed(job, LOOPING, Duration::from_millis(300));
            for p in to(procs) {
                signal(p.pid, libc::SIGTERM);
            }
        },
        130,
        None,
    );
    err
}

#[test]
fn sigterm_to_every_process_ends_as_sigterm_to_one_process() {
    // (Slurm's scancel: SIGTERM to every task; the root's rank ran its three rounds and
    // waits in a collective for the third process, whose rank loops)
    let dir = tempfile::tempdir().expect("a temporary folder");
    let err = stopped_by_sigterm(&looping(dir.path(), 50), |procs| procs);
    assert!(
        err.contains("interrupted at simulated time") && err.contains("while rank 50 ran"),
        "{err}"
    );
}

#[test]
fn sigterm_to_the_looping_root_alone_ends_as_in_one_process() {
    // (the root's own rank loops: it is the only process that can stop it, and the others
    // wait for it in a collective)
    let dir = tempfile::tempdir().expect("a temporary folder");
    let err = stopped_by_sigterm(&looping(dir.path(), 0), |procs| &procs[..1]);
    assert!(err.contains("while rank 0 ran"), "{err}");
}

/// SIGTERM to process 0 alone, which waits in a collective while rank 50 of the third
/// process loops in Lua: the third process hears of it and stops its rank, as one process
/// stops it. Each process runs two partitions on `threads` threads (`engine`; the one
/// process's run is on one thread and one partition, `--threads 1 --partitions 1`).
fn sigterm_to_a_waiting_process_stops_a_loop_in_another(threads: u32) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let scenario = looping(dir.path(), 50);
    let text = std::fs::read_to_string(&scenario).expect("written");
    std::fs::write(
        &scenario,
        format!("{text}[engine]\nthreads = {threads}\npartitions = 6\n"),
    )
    .expect("written");
    let err = stopped_by_sigterm(&scenario, |procs| &procs[..1]);
    assert!(
        err.contains("interrupted at simulated time") && err.contains("while rank 50 ran"),
        "{err}"
    );
}

#[test]
fn sigterm_to_a_waiting_process_stops_a_rank_looping_in_another() {
    sigterm_to_a_waiting_process_stops_a_loop_in_another(1);
}

#[test]
fn sigterm_to_a_waiting_process_stops_a_rank_looping_in_another_on_2_threads() {
    // (the looping rank may be run by the third process's second thread, while its first,
    // the only one that speaks MPI, waits for it)
    sigterm_to_a_waiting_process_stops_a_loop_in_another(2);
}

#[test]
fn sigterm_to_mpirun_given_time_to_stop_ends_as_in_one_process() {
    // (mpirun's SIGTERM to its processes comes odls_base_sigkill_timeout = 5 s after the
    // signal, its SIGKILL 5 s after that: the root writes everything in between)
    let dir = tempfile::tempdir().expect("a temporary folder");
    let open_mpi = open_mpi_4();
    let (_, err, ended) = same_stop(
        &looping(dir.path(), 50),
        &[],
        &["--mca", "odls_base_sigkill_timeout", "5"],
        |job, _| {
            once_printed(job, LOOPING, Duration::from_millis(300));
            signal(job.pid(), libc::SIGTERM);
        },
        130,
        Some(if open_mpi { 1 } else { 130 }),
    );
    assert!(err.contains("interrupted at simulated time"), "{err}");
    if open_mpi {
        // (mpirun's SIGTERM to the processes came 5 s after its own; it said nothing)
        assert!(ended.took >= Duration::from_secs(5), "{:?}", ended.took);
        assert_eq!(ended.stderr_text(), err);
    }
}

/// The files of the busy run stopped by the wall clock in one process: those every partial
/// run of it writes, with the network's headers and rows.
fn busy_reference() -> &'static Files {
    static FILES: std::sync::OnceLock<Files> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let mut args = BUSY_ARGS.to_vec();
        args.extend(["--timeout", "1s"]);
        let r = run_scenario(path(&busy(dir.path())), 0, dir.path(), &args);
        assert_eq!(r.ended.code(), Some(3), "{}", r.ended.stderr_text());
        r.files
    })
}

/// `got` is a whole partial output of the busy run, stopped as `stop` says: the files of
/// [`busy_reference`], each CSV with its header and as many rows, `summary.json` marked
/// partial with that stop and 64 unfinished ranks, `report.html` ending as it ends; and the
/// summary printed once.
fn assert_whole(got: &Files, stop: &str) {
    let want = busy_reference();
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "the files written"
    );
    for (name, bytes) in want {
        let (a, b) = (
            String::from_utf8_lossy(bytes),
            String::from_utf8_lossy(&got[name]),
        );
        if name.ends_with(".csv") {
            assert_eq!(a.lines().next(), b.lines().next(), "{name}'s header");
            assert_eq!(a.lines().count(), b.lines().count(), "{name}'s rows");
        } else if name == "report.html" {
            assert_eq!(
                a.trim_end().lines().last(),
                b.trim_end().lines().last(),
                "{name}"
            );
        }
    }
    let summary: serde_json::Value = serde_json::from_slice(&got["summary.json"]).expect("json");
    assert_eq!(summary["partial"], true, "{summary}");
    let said = summary["stop"].as_str().expect("a stop");
    assert!(said.starts_with(stop), "{said}");
    assert_eq!(summary["ranks"]["count"], 64);
    assert_eq!(summary["ranks"]["finished"], 0);
    let printed = String::from_utf8_lossy(&got["stdout"]).into_owned();
    assert_eq!(printed.matches("PARTIAL").count(), 1, "{printed}");
    assert_eq!(printed.matches("\nstopped at ").count(), 1, "{printed}");
}

/// The busy run on 3 processes, stopped by `stop` once rank 0 is at round 100 and `after`
/// more, with `extra` arguments and `mpirun_args`.
fn busy_stopped(
    extra: &[&str],
    mpirun_args: &[&str],
    after: Duration,
    stop: impl FnOnce(&mut Job, &[Process]),
) -> (Ran, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut args = BUSY_ARGS.to_vec();
    args.extend_from_slice(extra);
    let during = |job: &mut Job| {
        let procs = job.wait_for_processes(3, START_DEADLINE);
        once_printed(job, BUSY, after);
        stop(job, &procs);
    };
    let scenario = busy(dir.path());
    let r = run_scenario_with(
        path(&scenario),
        3,
        dir.path(),
        &args,
        mpirun_args,
        during,
        STOP_DEADLINE,
    );
    let err = without_launcher(&r.ended.stderr_text());
    (r, err)
}

#[test]
fn a_timeout_while_the_network_is_busy_writes_the_whole_partial_folder() {
    let (r, err) = busy_stopped(&["--timeout", "5s"], &[], Duration::ZERO, |_, _| {});
    assert_eq!(r.ended.code(), Some(3), "{err}");
    let errors = errors(&err);
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("wall-clock limit at simulated time"),
        "{err}"
    );
    assert_whole(&r.files, "wall-clock limit at simulated time");
}

#[test]
fn sigterm_to_one_process_stops_the_whole_job() {
    // (process 1 alone is told: it stops at once, and the others at the next window)
    let (r, err) = busy_stopped(&[], &[], Duration::from_millis(500), |_, procs| {
        signal(procs[1].pid, libc::SIGTERM);
    });
    assert_eq!(r.ended.code(), Some(130), "{err}");
    let errors = errors(&err);
    assert_eq!(errors.len(), 1, "{err}");
    assert!(errors[0].contains("interrupted at simulated time"), "{err}");
    assert_whole(&r.files, "interrupted at simulated time");
}

#[test]
fn sigterm_to_mpirun_ends_the_job_with_its_outputs_whole_or_none() {
    // (the default grace: a second between mpirun's SIGTERM to the processes and its
    // SIGKILL; a run this small stops and writes within it, a slow machine may not: then
    // nothing is in place of the folder)
    let open_mpi = open_mpi_4();
    let (r, err) = busy_stopped(&[], &[], Duration::from_millis(500), |job, _| {
        signal(job.pid(), libc::SIGTERM);
    });
    if open_mpi {
        assert_eq!(r.ended.code(), Some(1), "{err}");
        // (1 s between mpirun's SIGCONT and its SIGTERM to the processes, at most 1 s more
        // before its SIGKILL)
        let took = r.ended.took;
        assert!(
            took >= Duration::from_millis(900) && took < Duration::from_secs(10),
            "{took:?}: {err}"
        );
    } else {
        assert_ne!(r.ended.code(), Some(0), "{err}");
    }
    assert!(errors(&err).len() <= 1, "{err}");
    // (which it was, for --nocapture)
    eprintln!("outputs written: {}", r.files.contains_key("summary.json"));
    if r.files.contains_key("summary.json") {
        assert!(
            errors(&err)[0].contains("interrupted at simulated time"),
            "{err}"
        );
        assert_whole(&r.files, "interrupted at simulated time");
    } else {
        let folder: Vec<&String> = r.files.keys().filter(|k| *k != "stdout").collect();
        assert!(
            folder.is_empty(),
            "a folder without its summary: {folder:?}"
        );
    }
}

/// The busy run on 3 processes with process `victim` killed (SIGKILL) mid-run: the others
/// stop within seconds, mpirun names the process, and nothing is written.
fn killed(victim: usize) {
    let open_mpi = open_mpi_4();
    let (r, err) = busy_stopped(&[], &[], Duration::from_millis(500), |_, procs| {
        signal(procs[victim].pid, libc::SIGKILL);
    });
    // (mpirun kills the others: SIGCONT, SIGTERM 1 s later, SIGKILL 1 s after that)
    assert!(
        r.ended.took < Duration::from_secs(20),
        "{:?}: {err}",
        r.ended.took
    );
    let raw = r.ended.stderr_text();
    if open_mpi {
        assert_eq!(r.ended.code(), Some(137), "{raw}");
        let said = format!("mpirun noticed that process rank {victim} with PID");
        assert!(raw.contains(&said), "{raw}");
        assert!(raw.contains("exited on signal 9 (Killed)"), "{raw}");
    } else {
        assert_ne!(r.ended.code(), Some(0), "{raw}");
    }
    let written: Vec<&String> = r.files.keys().filter(|k| *k != "stdout").collect();
    assert!(written.is_empty(), "written without a process: {written:?}");
    assert!(r.files["stdout"].is_empty(), "{raw}");
}

#[test]
fn a_process_killed_mid_run_ends_the_job_within_seconds() {
    killed(1);
}

#[test]
fn the_root_killed_mid_run_ends_the_job_within_seconds() {
    killed(0);
}

/// A job dropped unfinished (a test that failed) leaves no process behind: mpirun and every
/// process of it are killed by the time the drop returns (the busy run would go on for
/// minutes otherwise).
#[test]
fn a_job_dropped_unfinished_leaves_no_process_behind() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let scenario = busy(dir.path());
    let mut job = Job::start(mgensim_command(3, &["run", path(&scenario), "-q"], &[]));
    let procs = job.wait_for_processes(3, START_DEADLINE);
    assert_eq!(procs.iter().map(|p| p.rank).collect::<Vec<_>>(), [0, 1, 2]);
    let sid = job.pid();
    assert!(procs.iter().all(|p| p.pid != sid));
    job.wait_for_stderr(BUSY, START_DEADLINE);
    drop(job);
    let left = alive_in_session(sid);
    assert!(left.is_empty(), "left running: {left:?} of {procs:?}");
}

/// A job past its deadline is killed whole, and the test fails saying so with what the job
/// printed: never a hang.
#[test]
fn a_job_past_its_deadline_is_killed_and_fails_the_test() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let scenario = busy(dir.path());
    let job = Job::start(mgensim_command(3, &["run", path(&scenario), "-q"], &[]));
    let sid = job.pid();
    let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        job.finish(Duration::from_secs(3))
    }));
    let message = failed
        .err()
        .and_then(|e| e.downcast_ref::<String>().cloned())
        .expect("a failure");
    assert!(message.contains("no end within 3s"), "{message}");
    assert!(message.contains(BUSY), "{message}");
    let left = alive_in_session(sid);
    assert!(left.is_empty(), "left running: {left:?}");
}
