//! A script or a shared scenario tried as an attacker would: the sandbox, one rank or job
//! changing another, silent wrong answers, fake stops, output targets, signals, resources.
//!
//! Each case runs the `mgensim` binary in a fresh folder laid out as
//!
//! ```text
//! outer/secret.txt            "s3cret-outside"  (outside the scenario's folder)
//! outer/evil.lua              a script outside the scenario's folder
//! outer/scenario/s.toml       the scenario (2 ranks, script w.lua, unless the case says)
//! outer/scenario/w.lua        the case's script
//! outer/scenario/data.csv     "keep,me"         (a data file beside the scenario)
//! outer/scenario/sub/         a folder
//! ```
//!
//! and asserts the exit status, words the message must hold, words it must not (nothing read
//! from a file the scenario may not name is ever shown), and that no file of `outer` was
//! created, changed or removed except the ones the case names.

mod common;

use common::mkfifo;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const TWO: &str = "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n";

struct Case {
    name: &'static str,
    /// The scenario `s.toml` (default [`TWO`]).
    toml: Option<&'static str>,
    lua: &'static str,
    /// The command line after `mgensim` (default `run s.toml`).
    cmd: &'static [&'static str],
    code: i32,
    words: &'static [&'static str],
    /// Extra set-up of the scenario's folder (links, pipes, modules).
    setup: Option<fn(&Path)>,
    /// Paths below `outer` the run may create or change.
    changes: &'static [&'static str],
}

const fn lua(
    name: &'static str,
    lua: &'static str,
    code: i32,
    words: &'static [&'static str],
) -> Case {
    Case {
        name,
        toml: None,
        lua,
        cmd: &[],
        code,
        words,
        setup: None,
        changes: &[],
    }
}

const fn toml(
    name: &'static str,
    toml: &'static str,
    code: i32,
    words: &'static [&'static str],
) -> Case {
    Case {
        name,
        toml: Some(toml),
        lua: "MGEN_Comp(1e-6)\n",
        cmd: &[],
        code,
        words,
        setup: None,
        changes: &[],
    }
}

const fn cmd(
    name: &'static str,
    cmd: &'static [&'static str],
    code: i32,
    words: &'static [&'static str],
) -> Case {
    Case {
        name,
        toml: None,
        lua: "MGEN_Comp(1e-6)\n",
        cmd,
        code,
        words,
        setup: None,
        changes: &[],
    }
}

fn link_to_secret(d: &Path) {
    std::os::unix::fs::symlink(d.join("../secret.txt"), d.join("link.txt")).unwrap();
}
fn link_to_evil(d: &Path) {
    std::os::unix::fs::symlink(d.join("../evil.lua"), d.join("l.lua")).unwrap();
}
fn pipe_inside(d: &Path) {
    mkfifo(&d.join("p.fifo"));
}
fn not_a_map(d: &Path) {
    std::fs::write(d.join("map.txt"), "root:x:0:0:s3cret-inside\n0 1\n").unwrap();
}
fn counter_module(d: &Path) {
    std::fs::write(
        d.join("counter.lua"),
        "local n = 0\nreturn { next = function() n = n + 1; return n end }\n",
    )
    .unwrap();
}
fn two_job_scripts(d: &Path) {
    counter_module(d);
    std::fs::write(
        d.join("a.lua"),
        "pcall(function() getmetatable(_G).__index.MGEN_Comm_size = function() return 99 end end)
         pcall(function() string.rep = nil end)
         for _ = 1, 3 do require('counter').next() end
         require('counter').next = nil
         MGEN_Comm_size = function() return 98 end
         pcall(function() MGEN_args.x = 'changed' end)",
    )
    .unwrap();
    std::fs::write(
        d.join("b.lua"),
        "assert(MGEN_Comm_size() == 2, 'job b sees job a size')
         assert(string.rep('x', 2) == 'xx', 'string.rep changed')
         assert(require('counter').next() == 1, 'module state shared between jobs')
         assert(MGEN_args.x == 'b', 'MGEN_args changed by job a')",
    )
    .unwrap();
}

/// Rank 0 attacks (each attempt in a pcall), then puts to rank 1; rank 1 checks after the put
/// arrived. (The script asserts: a violation fails the run.)
macro_rules! after_rank0 {
    ($attack:literal, $check:literal) => {
        concat!(
            "if MGEN_Comm_rank() == 0 then\n",
            $attack,
            "\nMGEN_acp_complete(MGEN_rdma_put(1, 8, 0))\nelse\nMGEN_rdma_poll(0)\n",
            $check,
            "\nend\n"
        )
    };
}

const CASES: &[Case] = &[
    // ---- the sandbox: writing ----
    lua("io.open for writing", "io.open('new.txt', 'w')", 1, &["sandbox: io.open(\"new.txt\", \"w\")", "w.lua:1"]),
    lua("append to a data file", "io.open('data.csv', 'a+')", 1, &["sandbox: io.open", "\"a+\""]),
    lua("read-write a data file", "io.open('data.csv', 'r+')", 1, &["sandbox: io.open"]),
    lua("write by absolute path", "io.open(MGEN_SCENARIO_DIR .. '/data.csv', 'wb')", 1, &["sandbox: io.open"]),
    lua("a mode that is not a string", "io.open('data.csv', {})", 1, &["io.open: the mode must be a string"]),
    lua(
        "the write check does not use string.find",
        "pcall(function() string.find = function() return nil end end)\nio.open(MGEN_SCENARIO_DIR .. '/../created.txt', 'w')",
        1,
        &["sandbox: io.open", "w.lua:2"],
    ),
    lua("string.find is shared and read-only", "string.find = function() end", 1, &["sandbox: string.find cannot be changed", "w.lua:1"]),
    lua("the string metatable is protected", "getmetatable('').__index.find = nil", 1, &["attempt to index a boolean value", "w.lua:1"]),
    lua("os.remove", "os.remove('data.csv')", 1, &["sandbox: os.remove"]),
    lua("os.rename", "os.rename('data.csv', 'x.csv')", 1, &["sandbox: os.rename"]),
    lua("os.execute", "os.execute('touch pwned')", 1, &["sandbox: os.execute"]),
    lua("io.popen", "io.popen('touch pwned')", 1, &["sandbox: io.popen"]),
    lua("io.tmpfile", "io.tmpfile()", 1, &["sandbox: io.tmpfile"]),
    lua("io.output", "io.output('data.csv')", 1, &["sandbox: io.output"]),
    lua("os.exit", "os.exit(0)", 1, &["sandbox: os.exit"]),
    lua("os.getenv", "os.getenv('HOME')", 1, &["sandbox: os.getenv"]),
    lua("the real io through require", "require('io').popen('touch pwned')", 1, &["sandbox: io.popen"]),
    lua("C modules", "package.loadlib('libc.so.6', '*')", 1, &["sandbox: package.loadlib"]),
    lua("package.path is shared", "package.path = '../?.lua'", 1, &["sandbox: package.path cannot be changed"]),
    lua("package.loaded is shared", "package.loaded.x = 1", 1, &["sandbox: package.loaded.x cannot be changed"]),
    lua("debug.sethook is absent", "debug.sethook()", 1, &["attempt to call a nil value", "w.lua:1"]),
    lua("debug.getregistry is absent", "debug.getregistry()", 1, &["attempt to call a nil value"]),
    // ---- the sandbox: reading ----
    lua("read beside the scenario", "local f = assert(io.open('data.csv'))\nassert(f:read('a') == 'keep,me')", 0, &[]),
    lua("read outside", "print(io.open('../secret.txt'):read('a'))", 1, &["sandbox: reading", "secret.txt"]),
    lua("read outside by absolute path", "print(io.open(MGEN_SCENARIO_DIR .. '/../secret.txt'):read('a'))", 1, &["sandbox: reading"]),
    lua("climb out below a missing folder", "print(io.open('nosuch/../../secret.txt'):read('a'))", 1, &["sandbox: reading"]),
    Case {
        setup: Some(link_to_secret),
        ..lua("a link inside that leads outside", "print(io.open('link.txt'):read('a'))", 1, &["sandbox: reading"])
    },
    lua("standard input through /proc", "print(io.open('/proc/self/fd/0'):read('a'))", 1, &["sandbox:"]),
    lua("an endless device", "print(#io.open('/dev/zero'):read(10))", 1, &["sandbox:"]),
    lua("a folder", "io.open('sub')", 1, &["sandbox:", "not a regular file (a folder)"]),
    Case {
        setup: Some(pipe_inside),
        ..lua("a pipe inside the folder", "io.open('p.fifo'):read('a')", 1, &["not a regular file (a pipe)"])
    },
    lua("io.lines() reads standard input", "for l in io.lines() do end", 1, &["sandbox: io.lines()"]),
    lua("io.read reads standard input", "io.read('a')", 1, &["sandbox: io.read"]),
    lua("loadfile() reads standard input", "loadfile()", 1, &["sandbox: loadfile() and dofile()", "w.lua:1"]),
    lua("dofile() reads standard input", "dofile()", 1, &["sandbox: loadfile() and dofile()"]),
    lua("dofile outside", "dofile('/etc/hostname')", 1, &["sandbox: reading /etc/hostname"]),
    lua("load a binary chunk (mode b)", "load('x', 'c', 'b')", 1, &["sandbox: load with mode \"b\"", "w.lua:1"]),
    lua("load a dumped function", "assert(load(string.dump(function() end)))", 1, &["binary chunks are not allowed"]),
    lua("text chunks load", "assert(load('return 1 + 1')() == 2)", 0, &[]),
    // ---- a scenario's own file references ----
    toml("a script outside the folder", "[network]\ndims = [2]\n[workload]\nscript = '../evil.lua'\n", 1, &["workload.script", "sandbox: reading", "a scenario may name files only below its own folder"]),
    Case {
        setup: Some(link_to_evil),
        ..toml("a script through a link outside", "[network]\ndims = [2]\n[workload]\nscript = 'l.lua'\n", 1, &["workload.script", "sandbox: reading"])
    },
    toml("a placement map outside", "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n[placement]\nfile = '../secret.txt'\n", 1, &["placement.file", "sandbox: reading"]),
    Case {
        setup: Some(not_a_map),
        ..toml("a map that is no map is not echoed", "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n[placement]\nfile = 'map.txt'\n", 1, &["map.txt:1: expected `rank node`"])
    },
    toml("a script that is a device", "[network]\ndims = [2]\n[workload]\nscript = '/dev/zero'\n", 1, &["workload.script", "sandbox"]),
    toml("a script that is a folder", "[network]\ndims = [2]\n[workload]\nscript = 'sub'\n", 1, &["workload.script", "not a regular file (a folder)"]),
    Case {
        cmd: &["run", "s.toml", "--allow-io"],
        ..toml("--allow-io reads an endless script only so far", "[network]\ndims = [2]\n[workload]\nscript = '/dev/zero'\n", 1, &["workload.script", "holds more than 64 MiB"])
    },
    Case {
        cmd: &["run", "s.toml", "--allow-io", "--timeout", "0.5s"],
        setup: Some(pipe_inside),
        ..toml("--timeout covers reading a pipe named as a map", "[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n[placement]\nfile = 'p.fifo'\n", 3, &["while the run was being set up"])
    },
    Case {
        cmd: &["run", "s.toml", "--allow-io"],
        ..toml("--allow-io lets a script outside run", "[network]\ndims = [2]\n[workload]\nscript = '../evil.lua'\n", 0, &[])
    },
    // ---- one rank or job changing another ----
    lua(
        "rank 0 cannot change MGEN_Comp for rank 1",
        after_rank0!(
            "pcall(function() getmetatable(_G).__index.MGEN_Comp = function() end end)
             MGEN_Comp = function() end",
            "local t = MGEN_Wtime(); MGEN_Comp(1e-6)
             assert(MGEN_Wtime() - t > 0.9e-6, 'MGEN_Comp was changed for rank 1')"
        ),
        0,
        &[],
    ),
    lua(
        "rank 0 cannot change string.format for rank 1",
        after_rank0!(
            "pcall(function() string.format = function() return 'x' end end)
             string = setmetatable({ format = function() return 'mine' end }, { __index = string })
             assert(string.format('%d', 1) == 'mine')",
            "assert(string.format('%d', 5) == '5', 'string.format was changed for rank 1')
             assert(('%d'):format(6) == '6')"
        ),
        0,
        &[],
    ),
    lua(
        "load's default environment is the rank's own",
        after_rank0!(
            "load('MGEN_Comm_size = function() return 7 end; y = 5')()
             assert(y == 5 and MGEN_Comm_size() == 7)",
            "assert(MGEN_Comm_size() == 2 and y == nil, 'load changed the shared globals')"
        ),
        0,
        &[],
    ),
    lua("a shared library's metatable", "setmetatable(math, {})", 1, &["sandbox: a shared table's metatable cannot be changed", "w.lua:1"]),
    lua("rawset on a shared library", "rawset(table, 'insert', print)", 1, &["sandbox: rawset(insert, ...)", "w.lua:1"]),
    lua("a finalizer could run on another rank", "setmetatable({}, { __gc = function() MGEN_Comp(1) end })", 1, &["sandbox: a metatable with __gc is refused", "w.lua:1"]),
    lua("open files' metatable is protected", "getmetatable(io.stderr).__index.write = nil", 1, &["attempt to index a boolean value"]),
    lua("the shared _G is not reachable", "_G = nil\nassert(_G == nil)\nassert(package.loaded._G == nil)", 0, &[]),
    Case {
        toml: Some("[network]\ndims = [2]\n[workload]\nscript = 'w.lua'\n[workload.args]\nx = 1\nlist = [1, 2]\n"),
        ..lua(
            "MGEN_args is read-only for every rank",
            after_rank0!(
                "assert(not pcall(function() MGEN_args.x = 9 end))
                 assert(not pcall(table.insert, MGEN_args.list, 3))",
                "assert(MGEN_args.x == 1 and #MGEN_args.list == 2, 'MGEN_args changed')
                 local n = 0; for _, v in ipairs(MGEN_args.list) do n = n + v end; assert(n == 3)
                 assert(next(MGEN_args) ~= nil and rawget(MGEN_args, 'x') == 1 and rawlen(MGEN_args.list) == 2)
                 assert(table.concat(MGEN_args.list, ',') == '1,2' and select('#', table.unpack(MGEN_args.list)) == 2)
                 local k = 0; for _ in pairs(MGEN_args) do k = k + 1 end; assert(k == 2)"
            ),
            0,
            &[],
        )
    },
    Case {
        setup: Some(counter_module),
        ..lua(
            "a module's state is each rank's own",
            after_rank0!(
                "local c = require('counter'); for _ = 1, 5 do c.next() end
                 c.next = nil",
                "local c = require('counter')
                 assert(type(c.next) == 'function', 'rank 0 changed the module for rank 1')
                 assert(c.next() == 1, 'module state shared between ranks')"
            ),
            0,
            &[],
        )
    },
    Case {
        toml: Some("[network]\ndims = [4]\n[[job]]\nname = 'a'\nscript = 'a.lua'\nranks = 2\nargs = { x = 'a' }\n[[job]]\nname = 'b'\nscript = 'b.lua'\nranks = 2\nargs = { x = 'b' }\n"),
        setup: Some(two_job_scripts),
        ..lua("a job cannot change another job", "", 0, &[])
    },
    // ---- silent wrong answers ----
    lua("simulated time cannot wrap", "for i = 1, 1000 do MGEN_Comp(1e7) end", 1, &["MGEN_Comp: `seconds` = 10000000 would take the rank's clock", "w.lua:1", "does not wrap"]),
    lua("a compute out of range", "MGEN_Comp(1e300)", 1, &["MGEN_Comp: `seconds` = 1e300 is out of range", "9223372.036855 s"]),
    lua("a negative compute", "MGEN_Comp(-1)", 1, &["must be a finite number >= 0"]),
    lua("a NaN compute", "MGEN_Comp(0/0)", 1, &["must be a finite number >= 0"]),
    lua(
        "a blocking call in the script's own coroutine blocks the rank",
        "local h = MGEN_rdma_put(1 - MGEN_Comm_rank(), 64, 0)
         coroutine.wrap(function() MGEN_rdma_poll(0) end)()
         assert(MGEN_Wtime() > 1e-7, 'the poll returned at once')
         MGEN_acp_complete(h)",
        0,
        &[],
    ),
    lua(
        "MGEN_Test inside nested coroutines",
        "local co = coroutine.wrap(function()
           return coroutine.wrap(function()
             MGEN_Comp(1e-6)
             local r = MGEN_Irecv(MGEN_ANY_SOURCE, 8, 0)
             local ok = MGEN_Test(r)
             MGEN_Send(1 - MGEN_Comm_rank(), 8, 0)
             MGEN_Wait(r)
             return ok
           end)()
         end)
         assert(co() == false)",
        0,
        &[],
    ),
    lua(
        "the script's own yields still come back to it",
        "local co = coroutine.create(function() coroutine.yield(1); MGEN_Comp(1e-6); coroutine.yield(2); return 3 end)
         local got = {}
         for _ = 1, 3 do local ok, v = coroutine.resume(co); got[#got + 1] = v end
         assert(table.concat(got, ',') == '1,2,3')",
        0,
        &[],
    ),
    // ---- fake stops and odd error objects ----
    lua("a faked instruction stop is a script error", "error({ mgensim_stop = 'instructions' })", 1, &["rank 0 failed", "w.lua:1", "an error object of type table"]),
    lua("a faked interrupt is a script error", "error({ mgensim_stop = 'bogus' })", 1, &["rank 0 failed", "w.lua:1"]),
    lua("a faked memory error (error)", "error('not enough memory', 0)", 1, &["rank 0 failed", "w.lua:1: not enough memory (raised by the script)"]),
    lua("a faked memory error (assert)", "assert(false, 'not enough memory')", 1, &["rank 0 failed", "w.lua:1: not enough memory (raised by the script)"]),
    lua("error(nil)", "MGEN_Comp(1e-6)\nerror(nil)", 1, &["rank 0 failed at simulated time 1 us", "w.lua:2: error(nil)"]),
    lua("an error table", "error({ code = 5 })", 1, &["w.lua:1: an error object of type table"]),
    lua("__tostring fails", "error(setmetatable({}, { __tostring = function() error('x') end }))", 1, &["w.lua:1", "whose __tostring failed"]),
    lua("__tostring returns a table", "error(setmetatable({}, { __tostring = function() return {} end }))", 1, &["w.lua:1", "whose __tostring failed"]),
    lua("__tostring works", "error(setmetatable({}, { __tostring = function() return 'custom' end }))", 1, &["w.lua:1: custom"]),
    lua("an error without a position", "error('plain', 0)", 1, &["w.lua:1: plain"]),
    lua("an error in the script's own coroutine", "coroutine.wrap(function()\nerror('inner')\nend)()", 1, &["w.lua:2: inner"]),
    // ---- resources and the command line ----
    cmd("a sweep range is counted first", &["sweep", "s.toml", "--vary", "workload.ranks=1..100000000", "--out", "sw"], 1, &["100000000 values: too many for one axis"]),
    cmd("a sweep key varied twice", &["sweep", "s.toml", "--vary", "workload.ranks=1..2", "--vary", "workload.ranks=1,2", "--out", "sw"], 1, &["varied twice"]),
    cmd("a sweep grid too large", &["sweep", "s.toml", "--vary", "workload.seed=1..2000", "--vary", "workload.args.x=1..1000", "--out", "sw"], 1, &["2000000 points"]),
    cmd("--set job.N without jobs", &["run", "s.toml", "--set", "job.0.ranks=2"], 1, &["the scenario has no jobs", "set workload.ranks instead"]),
    cmd("--timeout covers building the network", &["run", "s.toml", "--set", "network.dims=[2048,2048]", "--set", "workload.ranks=2", "--timeout", "0.5s"], 3, &["while the run was being set up", "nothing was simulated"]),
    Case {
        changes: &["scenario/dir"],
        ..cmd("-o onto a folder", &["run", "s.toml", "--out", "dir", "-o", "dir"], 1, &["is a folder"])
    },
    Case {
        changes: &["scenario/file.txt"],
        setup: Some(|d| std::fs::write(d.join("file.txt"), "mine").unwrap()),
        ..cmd("--out onto a file", &["run", "s.toml", "--out", "file.txt"], 1, &["exists and is not a folder"])
    },
];

#[test]
fn attacks_are_refused_with_a_clear_message_and_no_side_effect() {
    assert!(CASES.len() >= 60, "{} cases", CASES.len());
    let mut failures = Vec::new();
    for case in CASES {
        if let Err(e) = run_case(case) {
            failures.push(format!("{}: {e}", case.name));
        }
    }
    common::assert_no_failures(&failures, CASES.len());
}

fn run_case(case: &Case) -> Result<(), String> {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("scenario");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(outer.path().join("secret.txt"), "s3cret-outside").unwrap();
    std::fs::write(outer.path().join("evil.lua"), "MGEN_Comp(1e-6)\n").unwrap();
    std::fs::write(dir.join("s.toml"), case.toml.unwrap_or(TWO)).unwrap();
    std::fs::write(dir.join("w.lua"), case.lua).unwrap();
    std::fs::write(dir.join("data.csv"), "keep,me").unwrap();
    if let Some(f) = case.setup {
        f(&dir);
    }
    let before = snapshot(outer.path());
    let args: Vec<&str> = if case.cmd.is_empty() {
        vec!["run", "s.toml"]
    } else {
        case.cmd.to_vec()
    };
    let o = Command::new(env!("CARGO_BIN_EXE_mgensim"))
        .args(&args)
        .current_dir(&dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let mut wrong = Vec::new();
    if o.status.code() != Some(case.code) {
        wrong.push(format!(
            "exit {:?}, expected {}",
            o.status.code(),
            case.code
        ));
    }
    for w in case.words {
        if !out.contains(w) {
            wrong.push(format!("no {w:?}"));
        }
    }
    for leak in ["s3cret", "panicked", "RUST_BACKTRACE", "mgensim prelude"] {
        if out.contains(leak) {
            wrong.push(format!("the output shows {leak:?}"));
        }
    }
    let after = snapshot(outer.path());
    for (path, what) in &before {
        if after.get(path) != Some(what) && !allowed(case, path) {
            wrong.push(format!("{} was changed or removed", path.display()));
        }
    }
    for path in after.keys() {
        if !before.contains_key(path) && !allowed(case, path) {
            wrong.push(format!("{} was created", path.display()));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\n--- output:\n{out}", wrong.join("; ")))
    }
}

fn allowed(case: &Case, path: &Path) -> bool {
    case.changes.iter().any(|c| path.starts_with(c))
}

/// Every entry below `root`: its kind and, for a file, its content; for a link, its target.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let what = if m.file_type().is_symlink() {
                format!("link {}", std::fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                stack.push(p.clone());
                "folder".to_string()
            } else if m.is_file() {
                format!(
                    "file {}",
                    String::from_utf8_lossy(&std::fs::read(&p).unwrap())
                )
            } else {
                "special".to_string()
            };
            out.insert(rel, what);
        }
    }
    out
}
