//! `mpirun -np P mgensim run` (a build with `--features mpi`): the partitions run across P
//! processes, and every output is the bytes one process on one thread writes in one
//! partition: the summary (all but its `host` line), every file of the output folder and the
//! timeline; so are a script's error, a deadlock's explanation and a run `--until` or
//! `limits.events` stopped, with the same exit status. Each scenario runs on 2, 3 and 4
//! processes (on this machine's cores, oversubscribed: `--oversubscribe --bind-to none`).
#![cfg(feature = "mpi")]

mod common;

use common::project;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Mutex;

/// One job at a time: the processes of several would share the same few cores.
static ONE_JOB: Mutex<()> = Mutex::new(());

/// `mgensim args` on `np` processes under mpirun (`np` = 0: alone, without mpirun).
fn mgensim(np: u32, args: &[&str]) -> Output {
    let bin = env!("CARGO_BIN_EXE_mgensim");
    let mut c = if np == 0 {
        Command::new(bin)
    } else {
        let mut c = Command::new("mpirun");
        let np = np.to_string();
        c.args(["--oversubscribe", "--bind-to", "none", "-np", &np, bin]);
        c.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
        c
    };
    c.args(args).current_dir(project());
    let _one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
    c.output().expect("mpirun and mgensim run")
}

/// The summary without its `host` line (how fast, on what: not what the run predicts).
fn without_host(text: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(text)
        .lines()
        .filter(|l| !l.starts_with("host "))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Every output of `scenario` run on `np` processes (0: one process, one thread, one
/// partition): file name → bytes, with `summary.json` without `host`; and the host's
/// `processes` as summary.json says it.
fn outputs(
    scenario: &str,
    np: u32,
    dir: &Path,
    extra: &[&str],
) -> (BTreeMap<String, Vec<u8>>, u64) {
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
    if np == 0 {
        args.extend(["--threads", "1", "--partitions", "1"]);
    }
    args.extend_from_slice(extra);
    let o = mgensim(np, &args);
    assert!(
        o.status.success(),
        "{scenario} on {np} processes: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut files = BTreeMap::new();
    files.insert("stdout".to_string(), without_host(&o.stdout));
    files.insert(
        "trace.json".to_string(),
        std::fs::read(&trace).expect("the trace"),
    );
    let mut processes = 1;
    for entry in std::fs::read_dir(&out).expect("the output folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let mut bytes = std::fs::read(&path).expect("readable");
        if name == "summary.json" {
            let mut v: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
            let host = v
                .as_object_mut()
                .expect("an object")
                .remove("host")
                .expect("host");
            processes = host.get("processes").and_then(|p| p.as_u64()).unwrap_or(1);
            if np > 0 {
                assert_eq!(host["mpi"], true, "{scenario}");
                assert_eq!(host["threads"], 1, "{scenario}");
            }
            bytes = serde_json::to_vec_pretty(&v).expect("json");
        }
        files.insert(name, bytes);
    }
    std::fs::remove_dir_all(&out).expect("the output folder removed");
    std::fs::remove_file(&trace).expect("the trace removed");
    (files, processes)
}

/// `scenario` on 2, 3 and 4 processes writes the bytes of one process, file by file.
fn same_bytes(scenario: &str, extra: &[&str]) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (one, _) = outputs(scenario, 0, dir.path(), extra);
    assert!(
        one.contains_key("links.csv") && one.contains_key("ranks.csv"),
        "{:?}",
        one.keys()
    );
    for np in [2, 3, 4] {
        let (many, processes) = outputs(scenario, np, dir.path(), extra);
        assert_eq!(
            processes, np as u64,
            "{scenario}: processes in summary.json's host"
        );
        assert_eq!(
            one.keys().collect::<Vec<_>>(),
            many.keys().collect::<Vec<_>>(),
            "{scenario}: the files written on {np} processes"
        );
        for (name, bytes) in &one {
            assert!(
                bytes == &many[name],
                "{scenario}: {name} differs on {np} processes:\n{}",
                first_difference(bytes, &many[name])
            );
        }
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
    ($($name:ident: $path:expr, [$($extra:expr),*];)*) => {$(
        #[test]
        fn $name() {
            same_bytes($path, &[$($extra),*]);
        }
    )*};
}

scenarios! {
    barrier: "scenarios/barrier.toml", ["--interval", "20us", "--buffer-history", "router=5"];
    bruck_alltoall: "scenarios/bruck_alltoall.toml", ["--interval", "5us"];
    random_ring: "scenarios/random_ring.toml", ["--interval", "50us"];
    nbody_exchange: "scenarios/nbody_exchange.toml", [];
    halo3d: "scenarios/halo3d.toml", ["--profile"];
    two_jobs: "scenarios/two_jobs.toml", [];
    replay_is: "scenarios/replay/is.toml", ["--profile"];
}

/// The summary without `host`, stderr, and exit status of `toml` (written in `dir`) run on
/// `np` processes (0: alone), with `extra` arguments.
fn ending(dir: &Path, toml: &str, np: u32, extra: &[&str]) -> (Vec<u8>, String, Option<i32>) {
    // (the same path for every run: the messages name it)
    let path = dir.join("s.toml");
    std::fs::write(&path, toml).expect("written");
    let mut args = vec!["run", path.to_str().expect("a path"), "-q"];
    if np == 0 {
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
    let dir = tempfile::tempdir().expect("a temporary folder");
    let (one_out, one_err, one_code) = ending(dir.path(), toml, 0, extra);
    assert!(one_err.contains(expect), "alone: {one_err}");
    assert_eq!(one_code, Some(status), "alone: {one_err}");
    let (out, err, code) = ending(dir.path(), toml, 3, extra);
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
