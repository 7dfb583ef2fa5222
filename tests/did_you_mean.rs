//! A name the user got wrong gets the name they most likely meant: an API function (at run
//! time, and before it with `mgensim check`), a key of `MGEN_args`, a collective's algorithm.

mod common;
use common::*;

fn scenario_with(dir: &std::path::Path, script: &str) {
    std::fs::write(dir.join("w.lua"), script).unwrap();
    tmp_file(
        dir,
        "s.toml",
        "[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\nscript = 'w.lua'\n",
    );
}

#[test]
fn a_misspelt_api_function_is_named_by_check_and_by_the_run() {
    let d = tempfile::tempdir().unwrap();
    scenario_with(
        d.path(),
        "-- MGEN_rdma_pol in a comment is not a call\nlocal me = MGEN_Comm_rank()\n\
         if me == 0 then\n  MGEN_rdma_put(1, 8, 0)\nelse\n  MGEN_rdma_pol(0)\nend\n",
    );
    // check finds it without running the line
    let o = mgensim_in(d.path(), &["check", "s.toml"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "w.lua:6: `MGEN_rdma_pol` is not part of mgensim's API (lua/mgen.d.lua lists it); \
             did you mean MGEN_rdma_poll?"
        ),
        "{err}"
    );
    assert_eq!(
        err.matches("MGEN_rdma_pol`").count(),
        1,
        "once, not for the comment: {err}"
    );
    // the run fails at the line, with the same suggestion under Lua's message
    let o = mgensim_in(d.path(), &["run", "s.toml", "-q"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "w.lua:6: attempt to call a nil value (global 'MGEN_rdma_pol')\n  \
             did you mean MGEN_rdma_poll?"
        ),
        "{err}"
    );
    // a script's own MGEN_ function is its own business
    scenario_with(
        d.path(),
        "function MGEN_mine() return 1 end\nMGEN_Comp(MGEN_mine() * 1e-9)\n",
    );
    let o = mgensim_in(d.path(), &["check", "s.toml"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn every_shipped_scenario_passes_check() {
    let root = project();
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in ["scenarios", "scenarios/replay", "scenarios/tracerp"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        {
            n += 1;
            let o = mgensim_in(&root, &["check", &path.display().to_string()]);
            if !o.status.success() {
                failures.push(format!("{}: {}", path.display(), stderr(&o)));
            }
        }
    }
    assert!(n >= 10, "{n} scenarios");
    assert_no_failures(&failures, n);
}

#[test]
fn a_misspelt_argument_is_matched_with_the_one_the_script_reads() {
    // barrier.lua reads `algo` (the scenario gives it): `alg` was meant for it
    let o = mgensim_in(
        &project(),
        &[
            "run",
            "scenarios/barrier.toml",
            "-q",
            "--set",
            "workload.args.alg=rd",
        ],
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "warning: MGEN_args.alg was never read by the script, which asked for `algo` \
             instead: a misspelt key?"
        ),
        "{err}"
    );
}

#[test]
fn a_misspelt_algorithm_or_transport_gets_the_nearest() {
    let d = tempfile::tempdir().unwrap();
    let cases = [
        ("algo = 'disemination'", "unknown algorithm \"disemination\" (did you mean \"dissemination\"?) (known: binomial, central, dissemination, rd, recursive_doubling, ring)"),
        ("algo = 'recursive-doubling'", "(did you mean \"recursive_doubling\"?)"),
        ("transport = 'puts'", "unknown transport \"puts\" (did you mean \"put\"?)"),
        // nothing near: only the list
        ("algo = 'xyz'", "unknown algorithm \"xyz\" (known: "),
    ];
    let mut failures = Vec::new();
    for (opts, want) in cases {
        scenario_with(
            d.path(),
            &format!("require('mgen.coll').barrier{{ {opts} }}\n"),
        );
        let o = mgensim_in(d.path(), &["run", "s.toml", "-q"]);
        let err = stderr(&o);
        if o.status.code() != Some(1) || !err.contains(want) {
            failures.push(format!("{opts}: {err}"));
        }
    }
    assert_no_failures(&failures, cases.len());
}

/// The "did you mean" over the unread keys of `MGEN_args` is bounded work: 300 keys against
/// 200,000 names asked for (each comparison a product of lengths) took 11-23 s past a 3 s
/// `--timeout`; now the comparisons stop at a fixed budget, the same for any partitions, and
/// a last warning says how many keys were not compared.
#[test]
fn the_unread_args_suggestions_are_bounded_work() {
    let d = tempfile::tempdir().unwrap();
    let keys: Vec<String> = (0..300)
        .map(|i| format!("key_number_{i:04} = {i}"))
        .collect();
    tmp_file(
        d.path(),
        "s.toml",
        &format!(
            "[network]\ndims = [2]\n[workload]\nranks = 1\nscript = 'w.lua'\nargs = {{ {} }}\n",
            keys.join(", ")
        ),
    );
    std::fs::write(
        d.path().join("w.lua"),
        "for i = 1, 200000 do local _ = MGEN_args['asked_key_' .. i] end\n",
    )
    .unwrap();
    let t = std::time::Instant::now();
    let o = mgensim_in(d.path(), &["run", "s.toml", "-q", "--timeout", "3s"]);
    let took = t.elapsed();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(err.matches("was never read by the script").count(), 300);
    assert!(
        err.contains(
            "warning: the 300 last of the unread MGEN_args keys were not compared with the names \
             the scripts asked for: the scripts asked for too many names to compare them all"
        ),
        "{}",
        &err[err.len().saturating_sub(600)..]
    );
    // (the script's own loop takes under a second; the comparisons a few tenths at most)
    assert!(took.as_secs() < 30, "{took:?}");
    // a few names asked for: every key compared, the misspelt one named
    std::fs::write(
        d.path().join("w.lua"),
        "local _ = MGEN_args.key_nmuber_0002\n",
    )
    .unwrap();
    let o = mgensim_in(d.path(), &["run", "s.toml", "-q"]);
    let err = stderr(&o);
    assert!(
        err.contains(
            "MGEN_args.key_number_0002 was never read by the script, which asked for \
             `key_nmuber_0002` instead: a misspelt key?"
        ),
        "{err}"
    );
    assert!(!err.contains("were not compared"), "{err}");
}

/// A misspelt `--y` is found before any point of a sweep runs, with the column meant.
#[test]
fn a_misspelt_sweep_column_is_named_before_any_point_runs() {
    let d = tempfile::tempdir().unwrap();
    let scen = project().join("scenarios/random_ring.toml");
    let scen = scen.to_str().unwrap();
    let sweep = |y: &str| {
        mgensim_in(
            d.path(),
            &[
                "sweep",
                scen,
                "--vary",
                "workload.ranks=8,16",
                "--set",
                "network.dims=[4,4]",
                "--set",
                "workload.args.bytes=4096",
                "--y",
                y,
                "-q",
                "--out",
                "out",
            ],
        )
    };
    let o = sweep("bandwith_GBps");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--y bandwith_GBps: no such column; did you mean `bandwidth_GBps`?"),
        "{err}"
    );
    assert!(!err.contains("point 0"), "no point ran: {err}");
    assert!(!d.path().join("out").exists(), "nothing written");
    let o = sweep("predicted_time");
    assert!(
        stderr(&o).contains("did you mean `predicted_time_ps`?"),
        "{}",
        stderr(&o)
    );
    // the column the script reports is known before the run
    let o = sweep("bandwidth_GBps");
    assert!(o.status.success(), "{}", stderr(&o));
}
