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

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    // SAFETY: a valid path; mkfifo only reads it
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "mkfifo {}",
        p.display()
    );
}

// ---- output targets: a FIFO, a device, a link; signals while writing ----

fn scenario_dir() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("s.toml"), TWO).unwrap();
    std::fs::write(d.path().join("w.lua"), "MGEN_Comp(1e-6)\n").unwrap();
    d
}

fn no_temporaries(dir: &Path) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(
                !name.ends_with(".tmp") && !name.contains("mgensim-new"),
                "{name} was left in {}",
                d.display()
            );
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
}

#[test]
fn a_fifo_is_written_into_not_replaced() {
    let d = scenario_dir();
    let fifo = d.path().join("out.fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "--json", "-o", "out.fifo"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let got = reader.join().unwrap();
    let v: serde_json::Value = serde_json::from_str(&got).unwrap();
    assert_eq!(v["predicted_time_ps"], 1_000_000);
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo(),
        "still a FIFO"
    );
    no_temporaries(d.path());
}

#[test]
fn a_device_is_written_into_not_replaced() {
    // our own device node in a temporary folder: /dev/full's numbers (1, 7), which makes
    // every write fail with "no space" (only root may make one; CI runs as root)
    let d = scenario_dir();
    let dev = d.path().join("full");
    let c = std::ffi::CString::new(dev.to_str().unwrap()).unwrap();
    // SAFETY: a valid path; mknod only reads it
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 7)) } == 0;
    if !made {
        assert_ne!(
            unsafe { libc::geteuid() },
            0,
            "root could not make a device node"
        );
        eprintln!("skipped: only root may make a device node");
        return;
    }
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "-o", "full"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        common::stderr(&o).contains("No space left on device"),
        "{}",
        common::stderr(&o)
    );
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::symlink_metadata(&dev).unwrap();
    assert!(m.file_type().is_char_device(), "the device was replaced");
    no_temporaries(d.path());
}

#[test]
fn a_link_is_followed_and_stays_a_link() {
    let d = scenario_dir();
    std::fs::write(d.path().join("real.json"), "old").unwrap();
    std::os::unix::fs::symlink("real.json", d.path().join("link.json")).unwrap();
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "-o", "link.json"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(std::fs::symlink_metadata(d.path().join("link.json"))
        .unwrap()
        .file_type()
        .is_symlink());
    let text = std::fs::read_to_string(d.path().join("real.json")).unwrap();
    assert!(text.contains("\"predicted_time_ps\": 1000000"), "{text}");
    no_temporaries(d.path());
}

#[test]
fn an_output_folder_is_one_set() {
    let d = scenario_dir();
    let names = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    // a folder of mgensim's own: the second run's set replaces the first's whole (its time
    // series, which the second run does not record, goes too)
    let o = common::mgensim_in(
        d.path(),
        &["run", "s.toml", "--out", "o", "--interval", "100ns"],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(names(&d.path().join("o")).contains(&"links_timeseries.csv".to_string()));
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "--out", "o"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        names(&d.path().join("o")),
        [
            "links.csv",
            "nodes.csv",
            "profile.csv",
            "ranks.csv",
            "report.html",
            "routers.csv",
            "summary.json"
        ]
    );
    // a folder that also holds the user's files: they stay, the set is replaced around them
    std::fs::write(d.path().join("o/notes.txt"), "mine").unwrap();
    let o = common::mgensim_in(
        d.path(),
        &["run", "s.toml", "--out", "o", "--interval", "100ns"],
    );
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.path().join("o/notes.txt")).unwrap(),
        "mine"
    );
    assert!(names(&d.path().join("o")).contains(&"links_timeseries.csv".to_string()));
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "--out", "o"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(
        names(&d.path().join("o")),
        [
            "links.csv",
            "nodes.csv",
            "notes.txt",
            "profile.csv",
            "ranks.csv",
            "report.html",
            "routers.csv",
            "summary.json"
        ]
    );
    // an output's name taken by a pipe: refused, nothing replaced
    std::fs::remove_file(d.path().join("o/links.csv")).unwrap();
    mkfifo(&d.path().join("o/links.csv"));
    let o = common::mgensim_in(d.path(), &["run", "s.toml", "--out", "o"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        common::stderr(&o).contains("links.csv is not a regular file"),
        "{}",
        common::stderr(&o)
    );
    no_temporaries(d.path());
}

fn big_series_run(dir: &Path, out: &str, until: &str) -> std::process::Child {
    big_series_run_with(dir, out, until, &[])
}

fn big_series_run_with(dir: &Path, out: &str, until: &str, more: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_mgensim"))
        .args([
            "run",
            &common::project()
                .join("scenarios/random_ring.toml")
                .display()
                .to_string(),
            "--out",
            out,
            "--interval",
            "1ns",
            "-q",
            "--until",
            until,
            // (no bound on the series' memory: the run must be long and its table large)
            "--set",
            "limits.time_series_memory=0",
        ])
        .args(more)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: a signal to our own child process
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

fn wait_within(child: &mut std::process::Child, secs: u64) -> (i32, String) {
    let start = std::time::Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (st.code().unwrap_or(-1), err);
        }
        if start.elapsed().as_secs() > secs {
            let _ = child.kill();
            panic!("the process did not end within {secs} s of the signal");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn two_interrupts_while_the_folder_is_written_leave_the_old_set() {
    let d = tempfile::tempdir().unwrap();
    // the old set: a short run's
    let mut first = big_series_run(d.path(), "o", "200ns");
    let (code, err) = wait_within(&mut first, 120);
    assert_eq!(code, 3, "{err}");
    let old = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    let old_links = std::fs::read(d.path().join("o/links_timeseries.csv")).unwrap();
    // a longer run with a large time series; two Ctrl-C as soon as its set is being staged
    let mut second = big_series_run(d.path(), "o", "1200ns");
    let start = std::time::Instant::now();
    let staged = loop {
        let staging = std::fs::read_dir(d.path())
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().contains("mgensim-new"));
        if staging {
            break true;
        }
        if second.try_wait().unwrap().is_some() || start.elapsed().as_secs() > 120 {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    assert!(staged, "the set was never seen staged");
    signal(&second, libc::SIGINT);
    std::thread::sleep(std::time::Duration::from_millis(20));
    signal(&second, libc::SIGINT);
    let (code, err) = wait_within(&mut second, 30);
    assert_eq!(code, 130, "{err}");
    // the old set, whole
    assert_eq!(
        std::fs::read_to_string(d.path().join("o/summary.json")).unwrap(),
        old
    );
    assert_eq!(
        std::fs::read(d.path().join("o/links_timeseries.csv")).unwrap(),
        old_links
    );
    no_temporaries(d.path());
}

#[test]
fn a_terminate_signal_stops_a_recording_run_promptly() {
    let d = tempfile::tempdir().unwrap();
    let mut run = big_series_run(d.path(), "o", "1ms");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    signal(&run, libc::SIGTERM);
    let (code, err) = wait_within(&mut run, 15);
    assert_eq!(code, 130, "{err}");
    assert!(
        err.contains("links_timeseries.csv and power_timeseries.csv not written"),
        "{err}"
    );
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    assert!(summary.contains("\"partial\": true"), "{summary}");
    assert!(!d.path().join("o/links_timeseries.csv").exists());
    no_temporaries(d.path());
}

#[test]
fn an_interrupted_run_with_pictures_writes_its_partial_set_without_them() {
    let d = tempfile::tempdir().unwrap();
    let mut run = big_series_run_with(d.path(), "o", "1ms", &["--plots"]);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    signal(&run, libc::SIGINT);
    let (code, err) = wait_within(&mut run, 15);
    assert_eq!(code, 130, "{err}");
    // what was computed is written; the pictures' records were left out to stop promptly,
    // and the messages name no staging folder
    assert!(err.contains("--plots: no pictures drawn"), "{err}");
    assert!(!err.contains("mgensim-new"), "{err}");
    let summary = std::fs::read_to_string(d.path().join("o/summary.json")).unwrap();
    assert!(summary.contains("\"partial\": true"), "{summary}");
    assert!(d.path().join("o/ranks.csv").exists());
    for picture in ["heatmap.svg", "timeline.svg"] {
        assert!(!d.path().join("o").join(picture).exists(), "{picture}");
    }
    no_temporaries(d.path());
}

#[test]
fn a_signal_while_the_run_is_set_up_ends_it_with_a_message() {
    let d = tempfile::tempdir().unwrap();
    // 4M routers: building them takes seconds, and nothing is simulated before
    std::fs::write(
        d.path().join("s.toml"),
        "[network]\ndims = [2048, 2048]\n[workload]\nranks = 2\nscript = 'w.lua'\n",
    )
    .unwrap();
    std::fs::write(d.path().join("w.lua"), "MGEN_Comp(1e-6)\n").unwrap();
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let mut run = Command::new(env!("CARGO_BIN_EXE_mgensim"))
            .args(["run", "s.toml", "-q"])
            .current_dir(d.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300));
        signal(&run, sig);
        let (code, err) = wait_within(&mut run, 10);
        assert_eq!(code, 130, "signal {sig}: {err}");
        assert!(
            err.contains("s.toml: interrupted while the run was being set up"),
            "signal {sig}: {err}"
        );
        assert!(err.contains("nothing was simulated"), "{err}");
    }
}
