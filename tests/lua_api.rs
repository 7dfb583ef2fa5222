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
    let s = mgensim::Scenario::load(&toml, &[]).unwrap();
    let r = mgensim::Simulation::new(&s).unwrap().run().unwrap();
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
