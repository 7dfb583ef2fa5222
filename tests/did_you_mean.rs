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
