//! What scripts may not do, and the limits that stop a run gone wrong: the
//! sandbox, the instruction budget, the memory, event and wall-clock limits, Ctrl-C, and the
//! warnings about what a finished run's scripts left behind.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const TWO: &str = "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n";

/// Two ranks putting to each other for ever: the network never falls quiet.
const PING_PONG: &str = "
local me = MGEN_Comm_rank()
print('started')
local k = 0
while true do
  k = k + 1
  if me == 0 then MGEN_rdma_put(1, 64, 0); MGEN_rdma_poll(0)
  else MGEN_rdma_poll(0); MGEN_rdma_put(0, 64, 0) end
end
";

/// A folder with `bad.toml` and `w.lua`.
fn folder(toml: &str, lua: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.toml"), toml).unwrap();
    std::fs::write(dir.path().join("w.lua"), lua).unwrap();
    dir
}

mod common;
use common::{mgensim_in as mgensim, stderr};

/// Runs `w.lua` in a fresh folder with `--json` and `args`; checks the exit status and
/// returns stderr and the (possibly partial) summary.
fn stopped(lua: &str, toml: &str, args: &[&str], code: i32) -> (String, serde_json::Value) {
    let dir = folder(toml, lua);
    let mut all = vec!["run", "bad.toml", "--json"];
    all.extend(args);
    let o = mgensim(dir.path(), &all);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(code), "{lua}: {e}");
    let v = serde_json::from_slice(&o.stdout).expect("a JSON summary, if partial");
    (e, v)
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_sandbox_refuses_processes_and_writes_and_nothing_is_created() {
    for (code, what) in [
        ("os.execute('touch pwned')", "os.execute"),
        ("io.popen('touch pwned')", "io.popen"),
        (
            "local f = io.open('pwned', 'w')\nf:write('x')",
            "writing files",
        ),
        ("io.open('pwned', 'a+')", "writing files"),
        ("os.remove('bad.toml')", "os.remove"),
        ("io.output('pwned')", "io.output"),
    ] {
        let dir = folder(TWO, code);
        let o = mgensim(dir.path(), &["run", "bad.toml"]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{code}: {e}");
        assert!(
            e.contains("w.lua:1:") && e.contains(&format!("sandbox: {what}"))
                || e.contains("sandbox:") && e.contains(what),
            "{code}: {e}"
        );
        assert!(e.contains("--allow-io"), "{e}");
        assert_eq!(files(dir.path()), ["bad.toml", "w.lua"], "{code}");
    }
}

#[test]
fn scripts_read_only_below_the_scenario_folder() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("secret.txt"), "s3cret").unwrap();
    let dir = outer.path().join("scenario");
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("data/in.txt"), "12345").unwrap();
    std::fs::write(dir.join("bad.toml"), TWO).unwrap();
    let run = |lua: &str| {
        std::fs::write(dir.join("w.lua"), lua).unwrap();
        mgensim(&dir, &["run", "bad.toml", "--json"])
    };
    // relative names start from the scenario's folder; MGEN_SCENARIO_DIR is absolute
    let o = run("local a = assert(io.open('data/in.txt')):read('a')
        local b = assert(io.open(MGEN_SCENARIO_DIR .. '/data/in.txt')):read('a')
        local n = 0
        for _ in io.lines('data/in.txt') do n = n + 1 end
        MGEN_report('bytes', #a + #b + n)");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["metrics"]["bytes"]["max"], 11.0);
    assert_eq!(v["sandbox"], true);
    for lua in [
        "io.open('../secret.txt')",
        "io.lines(MGEN_SCENARIO_DIR .. '/../secret.txt')",
        "dofile('/etc/hostname')",
    ] {
        let o = run(lua);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{lua}: {e}");
        assert!(
            e.contains("sandbox: reading") && e.contains("below the scenario's folder"),
            "{lua}: {e}"
        );
        assert!(!e.contains("s3cret"));
    }
    // a link inside the folder that points outside leads nowhere
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outer.path().join("secret.txt"), dir.join("link.txt")).unwrap();
        let o = run("io.open('link.txt')");
        assert!(stderr(&o).contains("sandbox: reading"), "{}", stderr(&o));
    }
}

#[test]
fn the_sandbox_hides_the_real_libraries() {
    let dir = folder(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        "assert(not pcall(require('io').popen, 'true'), 'require(io) gives the real io')
         assert(not pcall(require('os').execute, 'true'))
         assert(debug.getregistry == nil and debug.sethook == nil and debug.getupvalue == nil)
         local f, e = load(string.dump(function() end))
         assert(f == nil and e:find('binary'), 'a binary chunk loaded')
         assert(not pcall(load, 'return 1', 'x', 'b'))
         assert(not pcall(package.loadlib, 'libc.so.6', '*'))
         assert(not pcall(function() package.cpath = '/tmp/?.so' end), 'package is shared')
         assert(not pcall(require, 'evil'))
         assert(load('return 1 + 1')() == 2, 'text chunks load')
         MGEN_report('ok', 1)",
    );
    let o = mgensim(dir.path(), &["run", "bad.toml", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["metrics"]["ok"]["count"], 4);
}

#[test]
fn allow_io_lifts_the_sandbox_and_the_summary_says_so() {
    let dir = folder(
        TWO,
        "if MGEN_Comm_rank() == 0 then
           local f = assert(io.open('out.txt', 'w')); f:write('written'); f:close()
         end",
    );
    let o = mgensim(dir.path(), &["run", "bad.toml", "--allow-io"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("sandbox            off (--allow-io)"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "written"
    );
    let o = mgensim(dir.path(), &["run", "bad.toml", "--allow-io", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["sandbox"], false);
}

#[test]
fn a_file_a_script_leaves_open_is_complete_when_the_process_exits() {
    // (the command line leaves its last run's Lua state to the exit instead of closing it:
    // the exit must still flush what the script wrote and never closed)
    let dir = folder(
        TWO,
        "local f = assert(io.open('open' .. MGEN_Comm_rank() .. '.txt', 'w'))
         f:write(('x'):rep(100), '\\n')
         MGEN_Comp(1e-6)
         f:write('done at ', MGEN_Wtime(), '\\n')",
    );
    let o = mgensim(dir.path(), &["run", "bad.toml", "--allow-io"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for r in 0..2 {
        let text = std::fs::read_to_string(dir.path().join(format!("open{r}.txt"))).unwrap();
        assert!(text.starts_with(&"x".repeat(100)), "{text}");
        assert!(text.ends_with("done at 1e-06\n"), "{text}");
    }
}

#[test]
fn an_endless_loop_stops_at_the_budget_even_inside_pcall_or_a_coroutine() {
    for lua in [
        "local x = 0\nwhile true do x = x + 1 end",
        "MGEN_Comp(1e-6)\npcall(function() while true do end end)\nMGEN_report('escaped', 1)",
        "local co = coroutine.wrap(function()\nwhile true do end end)\nco()",
    ] {
        let (e, v) = stopped(lua, TWO, &["--set", "limits.instructions=2000000"], 3);
        assert!(
            e.contains("instruction limit")
                && e.contains("rank 0 ran more than 2000000 Lua instructions"),
            "{e}"
        );
        assert!(e.contains("w.lua:2"), "the line of the loop: {e}");
        assert!(
            e.contains("--set limits.instructions="),
            "how to raise it: {e}"
        );
        assert_eq!(v["partial"], true);
        assert!(v["metrics"].get("escaped").is_none());
    }
}

#[test]
fn the_budget_is_per_resume_not_per_run() {
    // 12 rounds of 16 M loop steps (about 32 M instructions, and tens of milliseconds: long
    // enough for the watchdog to arm the hook in each): more than the budget in all, within
    // it per resume
    let dir = folder(
        TWO,
        "local me = MGEN_Comm_rank()
         for k = 1, 12 do
           local s = 0
           for i = 1, 16000000 do s = s + i end
           MGEN_rdma_put(me, 8, k)
           MGEN_rdma_poll(k)
         end
         MGEN_report('done', 1)",
    );
    let o = mgensim(
        dir.path(),
        &[
            "run",
            "bad.toml",
            "--json",
            "--set",
            "limits.instructions=100000000",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["metrics"]["done"]["count"], 2);
}

#[test]
fn the_lua_memory_limit_stops_a_script_that_hoards() {
    // at the rank's first resume, and at a later one (which the engine resumes directly)
    for (lua, line) in [
        ("local t = {}\nfor i = 1, 1e9 do t[i] = i end", "w.lua:2"),
        (
            "MGEN_Comp(1e-6)\nlocal t = {}\nfor i = 1, 1e9 do t[i] = i end",
            "w.lua:3",
        ),
    ] {
        let (e, v) = stopped(
            lua,
            TWO,
            &[
                "--set",
                "limits.instructions=0",
                "--set",
                "limits.lua_memory='32 MiB'",
            ],
            3,
        );
        assert_eq!(v["partial"], true);
        assert!(
            e.contains("Lua memory limit") && e.contains("32 MiB") && e.contains(line),
            "{e}"
        );
        assert!(e.contains("limits.lua_memory"), "{e}");
    }
}

/// The epoch of arrivals with the default network: a cable (0.6 ns) and a router's pipeline
/// (4 + 4 + 4 + 128 ns) is 140.6 ns, whose largest power of two of picoseconds is 2^17 ps
/// (`net/router/arrivals.rs`).
const EPOCH_PS: u64 = 1 << 17;

/// `limits.events` stops the run at the end of the epoch in which it processed that many
/// events (so that the stop is the same whatever the partitions): every event before that end
/// is processed, none after, as with `--until` one picosecond before it.
#[test]
fn the_event_limit_stops_at_the_end_of_the_epoch_that_reaches_it() {
    let (e, v) = stopped(
        PING_PONG,
        &format!("{TWO}[limits]\nevents = 5000\n"),
        &[],
        3,
    );
    assert!(
        e.contains("event limit") && e.contains("limits.events"),
        "{e}"
    );
    assert_eq!(v["partial"], true);
    let events = v["network"]["events"].as_u64().unwrap();
    assert!(events >= 5000, "{events}");
    let last = v["network"]["quiet_ps"].as_u64().unwrap();
    let end = (last / EPOCH_PS + 1) * EPOCH_PS;
    // the same run stopped one picosecond before that epoch's end processed the same events,
    // and one stopped before the epoch began had not reached the limit
    let until = |ps: u64| format!("limits.simulated_time='{ps} ps'");
    let (_, same) = stopped(PING_PONG, TWO, &["--set", &until(end - 1)], 3);
    assert_eq!(same["network"]["events"], v["network"]["events"]);
    assert_eq!(same["network"]["quiet_ps"], v["network"]["quiet_ps"]);
    let (_, before) = stopped(PING_PONG, TWO, &["--set", &until(end - EPOCH_PS - 1)], 3);
    assert!(before["network"]["events"].as_u64().unwrap() < 5000);
    assert!(v["predicted_time_ps"].as_u64().unwrap() > 0);
}

/// `limits.simulated_time` processes every event up to it and none after: stopped at the
/// picosecond of a run's last event, the run finishes as if it had no limit; one picosecond
/// earlier, it stops with exactly the events at that last picosecond not processed.
#[test]
fn the_simulated_time_limit_processes_every_event_up_to_it_and_none_after() {
    let lua = "
local me = MGEN_Comm_rank()
for _ = 1, 20 do
  if me == 0 then MGEN_rdma_put(1, 64, 0); MGEN_rdma_poll(0)
  else MGEN_rdma_poll(0); MGEN_rdma_put(0, 64, 0) end
end
";
    let (_, full) = stopped(lua, TWO, &[], 0);
    let last = full["network"]["quiet_ps"].as_u64().unwrap();
    let events = full["network"]["events"].as_u64().unwrap();
    let limit = |ps: u64| format!("limits.simulated_time='{ps} ps'");

    let (_, at_end) = stopped(lua, TWO, &["--set", &limit(last)], 0);
    assert_eq!(at_end["partial"], false);
    assert_eq!(at_end["network"]["events"], events);
    assert_eq!(at_end["predicted_time_ps"], full["predicted_time_ps"]);

    // the same run, event by event, without its last picosecond
    let (e, before) = stopped(lua, TWO, &["--set", &limit(last - 1)], 3);
    assert!(
        e.contains("simulated-time limit") && e.contains("limits.simulated_time"),
        "{e}"
    );
    assert_eq!(before["partial"], true);
    let left = events - before["network"]["events"].as_u64().unwrap();
    assert!(
        (1..=4).contains(&left),
        "{left} events at the last picosecond"
    );
    assert!(before["network"]["quiet_ps"].as_u64().unwrap() < last);
    // `--until` is the same limit
    let until = format!("{}ps", last - 1);
    let (_, cli) = stopped(lua, TWO, &["--until", &until], 3);
    assert_eq!(cli["network"]["events"], before["network"]["events"]);
}

/// Two ranks whose every call takes 300 ns of the caller's clock (a put's node latency, a
/// message's overhead), no instruction budget: only the limits under test can stop them.
const SLOW_CALLS: &str = "[network]\ndims = [2]\n[node]\nnode_latency = '300 ns'\n\
                          mpi_overhead = '300 ns'\n[workload]\nscript = 'w.lua'\n\
                          [limits]\ninstructions = 0\n";

/// Rank 0 calls `body` for ever and never blocks; rank 1 ends at once.
fn looping(body: &str) -> String {
    format!("if MGEN_Comm_rank() == 0 then\n  while true do {body} end\nend\n")
}

/// Where rank 0 stopped (its clock, ps) in a summary, and its script line.
fn rank_0_stopped_at(v: &serde_json::Value) -> (u64, String) {
    let open = &v["ranks"]["unfinished"][0];
    assert_eq!(open["rank"], 0, "{v}");
    let at = open["at"].as_str().unwrap_or_default().to_string();
    (open["since_ps"].as_u64().expect("a clock"), at)
}

/// A rank that never blocks (it computes, posts or sends in an endless loop) gives control
/// back at the call that takes its clock past `--until`, whichever call it is and whether the
/// fast path or the full function takes it: the run stops there (else only `--timeout` would
/// stop it), and the rank reads as it was at the stop, running at its loop's line.
#[test]
fn a_rank_that_never_blocks_stops_at_the_call_that_passes_until() {
    // (the loop's body, and the rank's clock at the stop: the call that passes 2 us, the
    // 2,001st step of 1 ns or the 7th call of 300 ns, is cut there)
    for (body, clock) in [
        ("MGEN_Comp(1e-9)", 2_000_000),
        // (a second argument sends the call to the full function)
        ("MGEN_Comp(1e-9, nil)", 2_000_000),
        ("MGEN_rdma_put(1, 8, 0)", 2_000_000),
        ("MGEN_rdma_put(1.0, 8, 0)", 2_000_000),
        ("MGEN_rdma_get(1, 8, 0)", 2_000_000),
        ("MGEN_acp_copy(0, 1, 8)", 2_000_000),
        ("MGEN_Isend(1, 8, 0)", 2_000_000),
        ("MGEN_Send(1, 8, 0)", 2_000_000),
        ("MGEN_Wait(MGEN_Isend(1, 8, 0))", 2_000_000),
        ("MGEN_Waitall({MGEN_Isend(1, 8, 0)})", 2_000_000),
        // (inside a coroutine of the script's: the rank yields, not only the coroutine)
        (
            "coroutine.wrap(function() while true do MGEN_Comp(1e-9) end end)() \
             MGEN_report('escaped', 1)",
            2_000_000,
        ),
    ] {
        let (e, v) = stopped(
            &looping(body),
            SLOW_CALLS,
            &["--until", "2us", "--timeout", "60s"],
            3,
        );
        assert!(e.contains("simulated-time limit"), "{body}: {e}");
        assert_eq!(v["partial"], true, "{body}");
        assert_eq!(
            rank_0_stopped_at(&v),
            (clock, "w.lua:2".to_string()),
            "{body}"
        );
        // (the run stopped at the limit: rank 0's clock past it was never reached)
        let stop = v["predicted_time_ps"].as_u64().unwrap();
        assert!(stop <= 2_000_000, "{body}: stopped at {stop} ps");
        assert!(v["metrics"].get("escaped").is_none(), "{body}");
    }
}

/// A rank that posts in an endless loop at no cost to its clock (puts with no node latency)
/// is stopped at `limits.posts`, at the post past it; one that posts more transfers in one
/// turn than `limits.events` allows events is stopped at that limit, at the post past it
/// (each makes at least one event: the turn could never end within it).
#[test]
fn a_rank_that_posts_in_an_endless_loop_stops_at_the_post_or_event_limit() {
    let free = "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n[limits]\ninstructions = 0\n";
    // (a stop within a minute, with status 3)
    let run = |lua: &str, toml: &str| stopped(&looping(lua), toml, &["--timeout", "60s"], 3);
    let (e, v) = run("MGEN_rdma_put(1, 8, 0)", &format!("{free}posts = 3000\n"));
    assert!(
        e.contains("post limit") && e.contains("rank 0 posted more than `limits.posts` = 3000"),
        "{e}"
    );
    assert!(
        e.contains("w.lua:2") && e.contains("--set limits.posts="),
        "{e}"
    );
    assert_eq!(v["partial"], true);
    // the 3001 puts were posted, and carried out up to the stop
    assert_eq!(v["network"]["transfers"], 3001, "{}", v["network"]);

    // with 300 ns a send, the 1,001st send ends at 300.3 us
    let (e, v) = run(
        "MGEN_Send(1, 8, 0)",
        &format!("{SLOW_CALLS}events = 1000\n"),
    );
    assert!(
        e.contains("event limit") && e.contains("rank 0 posted more than `limits.events` = 1000"),
        "{e}"
    );
    assert_eq!(rank_0_stopped_at(&v), (300_300_000, "w.lua:2".to_string()));
    // inside a coroutine of the script's, the rank is stopped, not the coroutine
    let (e, v) = run(
        "coroutine.wrap(function() while true do MGEN_rdma_put(1, 8, 0) end end)() \
         MGEN_report('escaped', 1)",
        &format!("{free}posts = 100\n"),
    );
    assert!(e.contains("posted more than `limits.posts` = 100"), "{e}");
    assert_eq!(v["network"]["transfers"], 101);
    assert!(v["metrics"].get("escaped").is_none());
    // left out, the limit is sized to the run: 16,384 for two ranks
    let (e, _) = run("MGEN_rdma_put(1, 8, 0)", free);
    assert!(e.contains("`limits.posts` = 16384 transfers"), "{e}");
}

#[test]
fn the_wall_clock_limit_stops_the_network_and_the_scripts() {
    for (lua, sets) in [
        (PING_PONG, vec![]),
        ("while true do end", vec!["--set", "limits.instructions=0"]),
    ] {
        let mut args = vec!["--timeout", "0.2"];
        args.extend(sets);
        let (e, v) = stopped(lua, TWO, &args, 3);
        assert!(
            e.contains("wall-clock limit") && e.contains("--timeout"),
            "{e}"
        );
        assert_eq!(v["partial"], true);
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_writes_the_partial_summary_whole_and_exits_non_zero() {
    for (lua, sets) in [
        (PING_PONG, vec![]),
        // (the default budget of 10^9 instructions takes seconds: Ctrl-C comes first)
        ("print('started')\nwhile true do end", Vec::<&str>::new()),
    ] {
        let dir = folder(TWO, lua);
        let mut args = vec!["run", "bad.toml", "-o", "summary.json"];
        args.extend(sets);
        let mut child = Command::new(env!("CARGO_BIN_EXE_mgensim"))
            .args(&args)
            .current_dir(dir.path())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // the first rank's print means the run (and its Ctrl-C handler) has started
        let mut err = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        err.read_line(&mut line).unwrap();
        assert!(line.contains("started"), "{line}");
        std::thread::sleep(std::time::Duration::from_millis(100));
        let kill = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
        let status = child.wait().unwrap();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
        assert_eq!(status.code(), Some(130), "{rest}");
        assert!(rest.contains("interrupted at simulated time"), "{rest}");
        let text = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).expect("whole JSON");
        assert_eq!(v["partial"], true);
        assert_eq!(files(dir.path()), ["bad.toml", "summary.json", "w.lua"]);
    }
}

#[test]
fn a_finished_run_warns_about_what_its_scripts_left_behind() {
    let dir = folder(
        TWO,
        "if MGEN_Comm_rank() == 0 then
           for i = 1, 3 do MGEN_rdma_put(1, 8, 7) end
           MGEN_Send(1, 16, 1)
           MGEN_Send(1, 16, 2)
         else
           MGEN_rdma_poll(7)
           MGEN_Irecv(0, 8, 99)
         end",
    );
    let o = mgensim(dir.path(), &["run", "bad.toml", "--json"]);
    let e = stderr(&o);
    assert!(o.status.success(), "{e}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            "2 puts delivered and never polled (MGEN_rdma_poll), on 1 ranks (rank 1: 2)",
            "2 messages arrived and never received, on 1 ranks (rank 1: 2)",
            "1 receives posted and never matched, on 1 ranks (rank 1: 1)",
            "1 requests never waited for (MGEN_Wait), on 1 ranks (rank 1: 1)",
        ]
    );
    for w in warnings {
        assert!(e.contains(&format!("warning: {w}")), "{e}");
    }
}

#[test]
fn a_runaway_script_stops_at_a_memory_limit_sized_to_the_run() {
    // 4 ranks: 256 MiB and 1 MiB per rank, not gigabytes
    let dir = folder(
        "[network]\ndims = [4]\n[workload]\nscript = 'w.lua'\n",
        "local t, i = {}, 0\nwhile true do i = i + 1; t[i] = {i, i, i} end\n",
    );
    let o = mgensim(dir.path(), &["run", "bad.toml", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("`limits.lua_memory` = 260 MiB while rank 0 ran w.lua:2"),
        "{err}"
    );
    // set by the scenario, it is what the scenario says
    let o = mgensim(
        dir.path(),
        &[
            "run",
            "bad.toml",
            "-q",
            "--set",
            "limits.lua_memory=\"64 MiB\"",
        ],
    );
    assert!(
        stderr(&o).contains("`limits.lua_memory` = 64 MiB"),
        "{}",
        stderr(&o)
    );
}

/// A time series memory below one window says what one window takes, not that it "holds 0
/// windows" and to give "an --interval of at least the run's length / 0".
#[test]
fn a_time_series_memory_below_one_window_names_what_one_takes() {
    let dir = tempfile::tempdir().unwrap();
    let run = |memory: &str| {
        mgensim(
            dir.path(),
            &[
                "run",
                common::project()
                    .join("scenarios/put_ring.toml")
                    .to_str()
                    .unwrap(),
                "--out",
                "o",
                "--interval",
                "10ns",
                "-q",
                "--set",
                &format!("limits.time_series_memory=\"{memory}\""),
            ],
        )
    };
    let o = run("1 KiB");
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    // a 4x4x4 torus: 64 routers of 6 links and a NIC link each way, 512 directions of 48 B
    assert!(
        e.contains(
            "`limits.time_series_memory` = 1 KiB cannot hold one window of the time series of \
             --interval 10 ns: a window of its 512 link directions takes 24 KiB (48 bytes each); \
             raise the limit to at least 24576 bytes (0: no limit)"
        ),
        "{e}"
    );
    assert!(!e.contains("0 windows") && !e.contains("/ 0"), "{e}");
    // one window's worth is enough to start
    let o = run("24 KiB");
    let e = stderr(&o);
    assert!(e.contains("holds 1 windows of 512 link directions"), "{e}");
}

/// The simulated time a stop's message gives (ps): "... at simulated time 1.5 us: ...".
fn said_at(e: &str) -> u64 {
    let at = e
        .split("at simulated time ")
        .nth(1)
        .expect("a time in the message");
    let at = at.split(':').next().unwrap();
    at.parse::<mgensim::units::Time>().unwrap().ps()
}

/// A time series of fixed width too small for the run stops it as a limit does (the guide's
/// exit status 3), with a partial run's outputs, all of them, and one stop time in the message
/// and the summary: the end of the epoch in which something fell past the series' last
/// window.
#[test]
fn a_full_time_series_is_a_limit_stop_with_one_stop_time() {
    let dir = tempfile::tempdir().unwrap();
    let put_ring = common::project().join("scenarios/put_ring.toml");
    let run = |out: &str, more: &[&str]| {
        let mut args = vec!["run", put_ring.to_str().unwrap(), "--json", "--out", out];
        args.extend(["--interval", "100ns"]);
        args.extend(more);
        mgensim(dir.path(), &args)
    };
    let o = run("full", &["--set", "limits.time_series_memory=\"100 KiB\""]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    // 100 KiB of 48-byte counters over 512 link directions: 4 windows, the first 400 ns
    assert!(
        e.contains("time-series memory limit at simulated time")
            && e.contains("holds 4 windows of 512 link directions"),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["partial"], true);
    let at = said_at(&e);
    assert_eq!(v["predicted_time_ps"], at, "{e}");
    assert!(at > 400_000 && at % EPOCH_PS == 0, "{at}");
    // the outputs of a partial run, as another limit leaves them
    let o = run("until", &["--until", "300ns"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let (full, until) = (dir.path().join("full"), dir.path().join("until"));
    assert_eq!(files(&full), files(&until));
}

/// Synthetic traffic stopped by `limits.events` stops where the network was, at its last
/// event (the time the message gives), not at the end of the traffic, where its generators'
/// clocks are from the start.
#[test]
fn synthetic_traffic_stopped_by_the_event_limit_stops_at_its_last_event() {
    let toml = "[network]\ntopology = 'torus'\ndims = [3]\n[limits]\nevents = 40\n\
                [workload]\nranks = 3\ntraffic = 'uniform'\nload = 0.5\nwarmup = '1 us'\n\
                measure = '5 us'\n";
    let (e, v) = stopped("", toml, &[], 3);
    assert!(e.contains("event limit"), "{e}");
    let last = v["network"]["quiet_ps"].as_u64().unwrap();
    assert_eq!(said_at(&e), last, "{e}");
    assert_eq!(v["predicted_time_ps"], last);
    // (the generators, at the end of their traffic from the start, read as at the stop)
    let generators = &v["ranks"]["unfinished"][0];
    assert_eq!(generators["state"], "running", "{generators}");
    assert_eq!(generators["since_ps"], last, "{generators}");
}

/// The generators of synthetic traffic end when their traffic does, 11 us in (1 us of
/// warm-up, 5 us measured, 5 us of drain): stopped by `limits.events` long before, none of
/// them had finished. The summary counts no rank finished (no finish time), lists the three
/// as running, and gives the job the stop's time, marked partial; `ranks.csv` agrees.
#[test]
fn generators_that_end_past_a_limits_stop_had_not_finished_there() {
    let toml = "[network]\ntopology = 'torus'\ndims = [3]\n[limits]\nevents = 40\n\
                [workload]\nranks = 3\ntraffic = 'uniform'\nload = 0.5\nwarmup = '1 us'\n\
                measure = '5 us'\n";
    let dir = folder(toml, "");
    let o = mgensim(dir.path(), &["run", "bad.toml", "--json", "--out", "o"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let stop = v["predicted_time_ps"].as_u64().unwrap();
    assert!(stop < 11_000_000, "{stop}");
    let ranks = &v["ranks"];
    assert_eq!(ranks["finished"], 0, "{ranks}");
    assert_eq!(ranks["finish_ps"]["max"], 0, "{ranks}");
    let unfinished = ranks["unfinished"].as_array().unwrap();
    assert_eq!(unfinished.len(), 3, "{ranks}");
    // (their clocks at the traffic's end read as the stop's)
    for u in unfinished {
        assert_eq!(u["state"], "running", "{u}");
        assert_eq!(u["since_ps"], stop, "{u}");
    }
    let job = serde_json::json!([
        {"name": "main", "ranks": 3, "predicted_time_ps": stop, "partial": true}
    ]);
    assert_eq!(v["jobs"], job);
    let csv = std::fs::read_to_string(dir.path().join("o/ranks.csv")).unwrap();
    let unended = csv.lines().filter(|l| l.ends_with(",false")).count();
    assert_eq!(unended, 3, "{csv}");
    let text = mgensim(dir.path(), &["run", "bad.toml"]);
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(!out.contains("rank finish"), "{out}");
    assert!(
        out.contains("unfinished         3 of 3 ranks had not finished at the stop"),
        "{out}"
    );
}

/// Three jobs on a ring of 4, stopped by `--until 610ns` (the last event before it at 600
/// ns): job `net`'s rank 1 puts then, after computing 600 ns (its rank 0 ends at once); job
/// `idle` computes 100 ns and ends; job `ahead` computes 1 ms, far past the stop. Each
/// finished job's time is its last rank's end (600 and 100 ns); `ahead`'s is the stop's, 610
/// ns, marked partial (it said 1 ms, a time the run never reached).
#[test]
fn a_job_unfinished_at_a_limits_stop_has_the_stops_time_marked_partial() {
    let toml = "[network]\ndims = [4]\n\
                [[job]]\nname = 'net'\nranks = 2\ncode = 'if MGEN_Comm_rank() == 1 then \
                MGEN_Comp(600e-9) MGEN_rdma_put(0, 64, 1) end'\n\
                [[job]]\nname = 'idle'\nranks = 1\ncode = 'MGEN_Comp(100e-9)'\n\
                [[job]]\nname = 'ahead'\nranks = 1\ncode = 'MGEN_Comp(1e-3)'\n";
    let (e, v) = stopped("", toml, &["--until", "610ns"], 3);
    assert!(e.contains("simulated-time limit"), "{e}");
    assert_eq!(v["predicted_time_ps"], 610_000);
    let jobs = serde_json::json!([
        {"name": "net", "ranks": 2, "predicted_time_ps": 600_000},
        {"name": "idle", "ranks": 1, "predicted_time_ps": 100_000},
        {"name": "ahead", "ranks": 1, "predicted_time_ps": 610_000, "partial": true},
    ]);
    assert_eq!(v["jobs"], jobs);
    assert_eq!(v["ranks"]["finished"], 3);
    assert_eq!(v["ranks"]["finish_ps"]["max"], 600_000);
}

/// A Lua memory stop and the summary give the same time: the one the rank that ran out of
/// memory was at. Each rank hoards before its first call, at simulated time 0; those that
/// ran before it had computed on to 1 us and into their poll, ahead of the run, and read as
/// they were at the stop: running at 0 ps (at the line they had reached: a stop the scripts
/// cannot foresee finds them ahead of it).
#[test]
fn a_lua_memory_stop_and_the_summary_give_the_same_time() {
    let toml = "[network]\ntopology = 'torus'\ndims = [4, 4]\n[limits]\n\
                lua_memory = '16 MiB'\n[workload]\nscript = 'w.lua'\n";
    let lua = "local t = {}\nfor i = 1, 60000 do t[i] = string.rep('x', 16) .. i end\n\
               MGEN_Comp(1e-6)\nMGEN_rdma_poll(1)\n";
    let (e, v) = stopped(lua, toml, &["--partitions", "1", "--threads", "1"], 3);
    assert!(e.contains("Lua memory limit"), "{e}");
    assert_eq!(said_at(&e), 0, "{e}");
    assert_eq!(v["predicted_time_ps"], 0);
    let unfinished = v["ranks"]["unfinished"].as_array().unwrap();
    assert!(
        unfinished.iter().all(|u| u["since_ps"] == 0),
        "no rank past the stop: {v}"
    );
    assert!(
        unfinished
            .iter()
            .any(|u| u["state"] == "running" && u["at"] == "w.lua:4"),
        "ranks ahead of the stop: {v}"
    );
}
