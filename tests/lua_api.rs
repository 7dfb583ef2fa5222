//! The Lua side: rank-private globals, per-rank deterministic random numbers, require, args.

mod common;
use common::*;

#[test]
fn globals_are_private_to_each_rank() {
    // every rank writes its own x, then yields (a blocking poll) so others run, then checks
    let r = run("[network]\ndims = [4]\n[workload]\ncode = '''
        local me, p = MGEN_Comm_rank(), MGEN_Comm_size()
        x = me
        _G.y = me * 10
        MGEN_rdma_put((me + 1) % p, 8, 0)
        MGEN_rdma_poll(0)
        assert(x == me, 'x leaked between ranks')
        assert(y == me * 10, 'y leaked between ranks')
        MGEN_report('x', x)'''\n");
    let m = &r.metrics["x"];
    assert_eq!((m.count, m.min, m.max), (4, 0.0, 3.0));
}

#[test]
fn every_rank_draws_the_same_numbers_until_it_reseeds() {
    let code = |reseed: &str| {
        format!(
            "[network]\ndims = [8]\n[workload]\nseed = 5\ncode = '''
            {reseed}
            local s = 0
            for _ = 1, 10 do s = s * 7 + math.random(1000) end
            s = s + math.random()
            MGEN_report('draw', s)'''\n"
        )
    };
    let same = run(&code(""));
    let m = &same.metrics["draw"];
    assert_eq!(m.min, m.max, "all ranks drew the same sequence");
    let differ = run(&code("math.randomseed(MGEN_Comm_rank())"));
    let m = &differ.metrics["draw"];
    assert!(
        m.min < m.max,
        "reseeding per rank gives different sequences"
    );
    // and the scenario seed matters
    let other = run_with(&code(""), &["workload.seed=6"]);
    assert_ne!(other.metrics["draw"].min, same.metrics["draw"].min);
}

/// `MGEN_random_ring` (what `util.random_ring_neighbours` calls) gives the neighbours of the
/// ring `util.permutation` draws in Lua, and leaves `math.random` where that draw does, on
/// every rank, for ring sizes other than the rank count and after a reseed.
#[test]
fn the_random_ring_is_the_permutation_lua_draws() {
    let r = run("[network]\ndims = [6]\n[workload]\nseed = 11\ncode = '''
        local util = require('mgen.util')
        local me = MGEN_Comm_rank()
        local seed = me % 2 == 1 and me // 2 or nil
        for _, n in ipairs({1, 2, 7, 300}) do
          -- draw in Lua, note the next number, then draw again from the same state in Rust
          math.randomseed(seed)
          local perm = util.permutation(n)
          local next_lua = math.random(1 << 40)
          math.randomseed(seed)
          local x = (me * 37) % n
          local before, after = MGEN_random_ring(n, x)
          local next_rust = math.random(1 << 40)
          assert(next_lua == next_rust, 'math.random left elsewhere for n = ' .. n)
          for i = 1, n do
            if perm[i] == x then
              assert(before == perm[(i - 2) % n + 1] and after == perm[i % n + 1],
                ('n = %d, x = %d: got %d, %d'):format(n, x, before, after))
            end
          end
        end
        math.randomseed()
        local left, right = util.random_ring_neighbours()
        MGEN_report('left', left)
        MGEN_report('right', right)
        assert(not pcall(MGEN_random_ring, 5, 5), 'x out of range is refused')
        assert(not pcall(MGEN_random_ring, 0, 0), 'an empty ring is refused')
        MGEN_report('ok', 1)'''\n");
    assert_eq!(r.metrics["ok"].count, 6);
    // one ring of six: every rank is somebody's left neighbour once (mean 2.5); a
    // mistaken ring (say, every rank its own neighbour) would still be caught by the Lua side
    assert_eq!(r.metrics["left"].mean, 2.5);
    assert_eq!(r.metrics["right"].mean, 2.5);
}

#[test]
fn args_reach_the_script_with_their_types() {
    let r = run("[network]\ndims = [2]\n[workload]\nargs = { n = 3, f = 0.5, s = 'x', list = [1, 2], t = { k = true } }
code = '''
    local a = MGEN_args
    assert(math.type(a.n) == 'integer' and a.f == 0.5 and a.s == 'x')
    assert(#a.list == 2 and a.list[2] == 2 and a.t.k == true)
    MGEN_report('ok', 1)'''\n");
    assert_eq!(r.metrics["ok"].count, 2);
}

/// A rank's script may replace an API function for itself alone, by assigning its name: the
/// engine binds the shared functions a script names once per job (script/bind.rs), and must
/// leave a name the script assigns a rank-private global.
#[test]
fn a_rank_may_replace_an_api_function_for_itself() {
    let r = run("[network]\ndims = [4]\n[workload]\ncode = '''
        local me = MGEN_Comm_rank()
        if me == 0 then
          function MGEN_Comm_size() return 99 end
        end
        MGEN_rdma_put((me + 1) % 4, 8, 0)
        MGEN_rdma_poll(0)
        MGEN_report('size', MGEN_Comm_size())'''\n");
    let m = &r.metrics["size"];
    assert_eq!(
        (m.count, m.min, m.max, m.mean),
        (4, 4.0, 99.0, (99.0 + 12.0) / 4.0)
    );
}

/// Every other way to change the function a script's name reaches: through `_ENV` or `_G`,
/// from a chunk made by `load`, from a module (which runs with the shared globals, and may
/// replace a function there for every rank), or from another job's script that does. None of
/// these is visible to the compiler, so with any of them nothing is bound (script/bind.rs).
#[test]
fn api_functions_replaced_out_of_the_scripts_sight_are_the_ones_called() {
    let size = |code: &str| {
        let toml = format!("[network]\ndims = [4]\n[workload]\ncode = '''\n{code}\nMGEN_report('size', MGEN_Comm_size())'''\n");
        let m = run(&toml).metrics["size"].clone();
        (m.min, m.max)
    };
    assert_eq!(
        size("_ENV.MGEN_Comm_size = function() return 7 end"),
        (7.0, 7.0)
    );
    assert_eq!(
        size("_G.MGEN_Comm_size = function() return 8 end"),
        (8.0, 8.0)
    );
    assert_eq!(
        size("load('MGEN_Comm_size = function() return 5 end')()"),
        (5.0, 5.0)
    );

    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        (
            "tenfold.lua",
            "local size = MGEN_Comm_size\nfunction MGEN_Comm_size() return 10 * size() end\nreturn true\n",
        ),
        ("user.lua", "require('tenfold')\nMGEN_report('size', MGEN_Comm_size())\n"),
        ("plain.lua", "MGEN_Comp(1e-6)\nMGEN_report('size', MGEN_Comm_size())\n"),
        ("one.toml", "[network]\ndims = [4]\n[workload]\nscript = 'user.lua'\n"),
    ] {
        tmp_file(dir.path(), name, text);
    }
    let r = run_path(&dir.path().join("one.toml"));
    assert_eq!((r.metrics["size"].min, r.metrics["size"].max), (40.0, 40.0));
    // the module's global goes into the requiring rank's own globals: a second job whose
    // script does none of this is not touched by it (isolation), while the first job's
    // ranks, which required it, see it
    let two = tmp_file(
        dir.path(),
        "two.toml",
        "[network]\ndims = [4]\n[[job]]\nname = 'user'\nscript = 'user.lua'\nranks = 2\n[[job]]\nname = 'plain'\nscript = 'plain.lua'\nranks = 2\n",
    );
    let r = run_path(&two);
    for (job, size) in [("user", 20.0), ("plain", 2.0)] {
        let m = &r.metrics[&format!("{job}.size")];
        assert_eq!((m.count, m.min, m.max), (2, size, size), "{job}");
    }
}

#[test]
fn require_finds_modules_beside_the_script() {
    let dir = tempfile::tempdir().unwrap();
    tmp_file(
        dir.path(),
        "helper.lua",
        "local M = {}\nfunction M.twice(x) return 2 * x end\nreturn M\n",
    );
    tmp_file(
        dir.path(),
        "main.lua",
        "local h = require('helper')\nMGEN_Comp(h.twice(1e-6))\n",
    );
    let toml = tmp_file(
        dir.path(),
        "s.toml",
        "[network]\ndims = [2]\n[workload]\nscript = 'main.lua'\n",
    );
    let r = run_path(&toml);
    assert_eq!(r.predicted_time_ps, 2_000_000);
}

#[test]
fn comp_and_wtime_use_the_ranks_own_clock() {
    let r = run("[network]\ndims = [4]\n[workload]\ncode = '''
        local me = MGEN_Comm_rank(MGEN_COMM_WORLD)
        assert(MGEN_Comm_size(MGEN_COMM_WORLD) == 4)
        MGEN_Comp(me * 1.5e-6)
        MGEN_report('t', MGEN_Wtime())'''\n");
    assert_eq!(r.ranks.finish_ps.min, 0);
    assert_eq!(r.ranks.finish_ps.max, 4_500_000);
    assert_eq!(
        r.ranks.finish_ps.mean,
        (1_500_000 + 3_000_000 + 4_500_000) / 4,
        "rank 0 finishes at 0"
    );
    assert!((r.metrics["t"].max - 4.5e-6).abs() < 1e-15);
}

#[test]
fn util_permutation_is_a_permutation_and_the_same_in_every_rank() {
    let r = run("[network]\ndims = [8]\n[workload]\nseed = 3\ncode = '''
        local perm = require('mgen.util').permutation(50)
        local seen, key = {}, 0
        for i, v in ipairs(perm) do
          assert(v >= 0 and v < 50 and not seen[v], 'not a permutation')
          seen[v] = true
          key = (key * 31 + v) % 1000003
        end
        assert(#perm == 50)
        MGEN_report('key', key)
        local left, right = require('mgen.util').random_ring_neighbours()
        assert(left ~= MGEN_Comm_rank() and right ~= MGEN_Comm_rank())'''\n");
    let m = &r.metrics["key"];
    assert_eq!(m.min, m.max, "every rank drew the same permutation");
}

/// The ring barrier with its puts, polls and completions called as given: integer arguments
/// take the engine's fast C functions (`script/fast.rs`); integral floats and calls through
/// `pcall` take the full ones, which must yield and time exactly alike.
fn ring_barrier_as(call: &str) -> mgensim::Report {
    run(&format!(
        "[network]\ndims = [4, 4]\n[workload]\ncode = '''
        local rank, size = MGEN_Comm_rank(), MGEN_Comm_size()
        local function call(f, ...) {call} end
        local h
        for step = 1, size - 1 do
          h = call(MGEN_rdma_put, (rank + 1) % size, 8, step)
          call(MGEN_rdma_poll, step)
          call(MGEN_acp_complete, h)
        end
        MGEN_report('done', MGEN_Wtime())'''\n"
    ))
}

#[test]
fn integral_floats_and_pcall_time_the_same_as_integers() {
    let ints = ring_barrier_as("return f(...)");
    assert_eq!(ints.metrics["done"].count, 16);
    // 15 puts per rank, each a data packet and its completion
    assert_eq!(ints.network.packets, 15 * 16 * 2);
    let floats = ring_barrier_as(
        "local a = table.pack(...)
         for i = 1, a.n do a[i] = a[i] + 0.0 end
         return f(table.unpack(a, 1, a.n))",
    );
    let protected = ring_barrier_as("return select(2, assert(pcall(f, ...)))");
    for other in [&floats, &protected] {
        assert_eq!(other.predicted_time_ps, ints.predicted_time_ps);
        assert_eq!(other.network.packets, ints.network.packets);
        assert_eq!(other.per_rank, ints.per_rank);
    }
}

#[test]
fn a_bad_argument_to_a_fast_function_names_the_line_and_no_engine_frame() {
    let e = run_err(
        "[network]\ndims = [4]\n[workload]\ncode = '''
        local function go() MGEN_rdma_put(MGEN_Comm_rank() + 4, 8, 0) end
        go()'''\n",
    );
    assert!(e.contains("MGEN_rdma_put: `dest` = 4 is not a rank"), "{e}");
    assert!(e.contains(":2:"), "{e}");
    assert!(e.contains("[C]: in function 'MGEN_rdma_put'"), "{e}");
    assert!(!e.contains("in ?"), "{e}");
    let e = run_err("[network]\ndims = [4]\n[workload]\ncode = '''\nMGEN_rdma_poll('x')'''\n");
    assert!(
        e.contains("MGEN_rdma_poll: `tag` must be an integer"),
        "{e}"
    );
    assert!(!e.contains("poll_now"), "{e}");
}

#[test]
fn mgen_args_keys_the_script_never_read_are_a_warning() {
    let toml = |args: &str, code: &str| {
        format!("[network]\ndims = [2]\n[workload]\nargs = {{ {args} }}\ncode = '''{code}'''\n")
    };
    // a misspelt key: never read, and the script asked for the right name instead
    let r = run(&toml(
        "byts = 1024",
        "local b = MGEN_args.bytes or 8\nMGEN_Comp(b * 1e-9)",
    ));
    assert_eq!(r.predicted_time_ps, 8_000, "the default was used");
    assert_eq!(
        r.warnings,
        ["MGEN_args.byts was never read by the script, which asked for `bytes` instead: a misspelt key?"]
    );
    // read by any rank, or through pairs: no warning; never read by any: listed
    let r = run(&toml(
        "a = 1, b = 2, c = 3",
        "if MGEN_Comm_rank() == 0 then local _ = MGEN_args.a end\nlocal _ = MGEN_args.b",
    ));
    assert_eq!(r.warnings, ["MGEN_args.c was never read by the script"]);
    let r = run(&toml("a = 1, b = 2", "for k, v in pairs(MGEN_args) do end"));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn what_scripts_write_is_whole_lines_per_rank_never_joined_with_another_or_the_summary() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("w.lua"),
        "io.write('partial ', MGEN_Comm_rank())\nMGEN_Comp(1e-6)\n\
         io.write(' more\\nnext line'):write(' chained')\nprint(' end')\nio.write('left open')\n",
    )
    .unwrap();
    tmp_file(
        d.path(),
        "s.toml",
        "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
    );
    let o = mgensim_in(d.path(), &["run", "s.toml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for r in 0..2 {
        // a line is stamped with the rank's clock when it began
        for line in [
            format!("[rank {r} @ 0 ps] partial {r} more\n"),
            format!("[rank {r} @ 1 us] next line chained end\n"),
            // left unended by the script: ended before the summary
            format!("[rank {r} @ 1 us] left open\n"),
        ] {
            assert!(err.contains(&line), "{line:?} in:\n{err}");
        }
    }
    assert!(err.lines().all(|l| l.starts_with("[rank ")), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("scenario "));
    // io.write takes strings and numbers, as Lua's does
    std::fs::write(d.path().join("w.lua"), "io.write('a', {})\n").unwrap();
    let o = mgensim_in(d.path(), &["run", "s.toml", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("w.lua:1: bad argument #2 to 'write' (string expected, got table)"),
        "{}",
        stderr(&o)
    );
}

/// Every call made from the API's table names itself, the argument and the script's line when
/// an argument breaks its rule, whichever way it is made: a Rust function (`MGEN_acp_copy`,
/// strict `MGEN_region_end`), a prelude wrapper of each form over primitives named as the call
/// (`MGEN_Send` posts with `MGEN_Isend`'s operation, `MGEN_Sendrecv` its receive first with
/// `MGEN_Irecv`'s), and through the fast path's hand-over (`MGEN_Wait`, `MGEN_acp_complete`).
#[test]
fn each_call_of_the_table_names_itself_and_the_argument_at_the_script_line() {
    let cases = [
        (
            "MGEN_acp_copy(0, 1, 8, 'x')",
            "MGEN_acp_copy: `tag` must be an integer, got the string \"x\"",
        ),
        (
            "MGEN_region_end(1)",
            "MGEN_region_end takes no arguments: it ends the innermost region",
        ),
        (
            "MGEN_Send('d', 8, 0)",
            "MGEN_Send: `dest` must be an integer, got the string \"d\"",
        ),
        (
            "MGEN_Recv(0, 'b', 0)",
            "MGEN_Recv: `bytes` must be an integer, got the string \"b\"",
        ),
        (
            "MGEN_Sendrecv(1, 8, 0, 1, 8, 't')",
            "MGEN_Sendrecv: `tag` must be an integer, got the string \"t\"",
        ),
        (
            "MGEN_Wait('r')",
            "MGEN_Wait: `request` must be an integer, got the string \"r\"",
        ),
        (
            "MGEN_Test('r')",
            "MGEN_Test: `request` must be an integer, got the string \"r\"",
        ),
        (
            "MGEN_acp_complete(1.5)",
            "MGEN_acp_complete: `handle` must be an integer, got 1.5",
        ),
        (
            "MGEN_region(5, print)",
            "MGEN_region: `name` must be a string, got number",
        ),
        (
            "MGEN_trace_open(5)",
            "MGEN_trace_open: `path` must be a file name (a string), got integer",
        ),
        (
            "MGEN_report('x', 0/0)",
            "MGEN_report: `value` must be a finite number, got NaN",
        ),
    ];
    for (call, want) in cases {
        let e = run_err(&format!(
            "[network]\ndims = [4]\n[workload]\ncode = '''\nlocal x = 1\n{call}'''\n"
        ));
        assert!(e.contains(&format!(":2: {want}")), "{call}: {e}");
    }
}
