//! The barrier lesson (`scenarios/barrier_lesson.*`) teaches what it measures: each
//! algorithm's region in the profile is that algorithm's barrier only, with the times the
//! script measured for it (`<algorithm>_s`); the barrier that lines the ranks up before each is
//! a region of its own, counted as no algorithm.

mod common;
use common::*;
use serde_json::Value;

/// The lesson run with `sets`, `--json --profile`: its summary.
fn lesson(sets: &[&str]) -> Value {
    let mut args = vec![
        "run",
        "scenarios/barrier_lesson.toml",
        "--json",
        "--profile",
    ];
    for s in sets {
        args.extend(["--set", s]);
    }
    let o = mgensim_in(&project(), &args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).expect("a JSON summary")
}

/// The profile's region rows, by name.
fn regions(json: &Value) -> std::collections::BTreeMap<String, Value> {
    json["profile"]
        .as_array()
        .expect("a profile")
        .iter()
        .filter(|r| r["kind"] == "region")
        .map(|r| (r["name"].as_str().unwrap().to_string(), r.clone()))
        .collect()
}

#[test]
fn each_algorithm_s_region_is_its_own_barrier_with_the_time_the_script_measured() {
    const ALGORITHMS: [&str; 5] = [
        "binomial",
        "central",
        "dissemination",
        "recursive_doubling",
        "ring",
    ];
    for (sets, ranks) in [
        (&[][..], 64u64),
        (
            &["workload.ranks=63", "workload.args.transport=put"][..],
            63,
        ),
    ] {
        let json = lesson(sets);
        let rows = regions(&json);
        // five algorithms (rd is recursive_doubling's other name, timed once), each once per
        // rank, and five line-ups per rank: nothing else
        let mut names: Vec<&str> = rows.keys().map(String::as_str).collect();
        names.sort();
        let mut want: Vec<String> = ALGORITHMS
            .iter()
            .map(|a| format!("coll.barrier {a}"))
            .collect();
        want.push("line-up barrier".into());
        want.sort();
        assert_eq!(names, want, "{sets:?}");
        let lineup = &rows["line-up barrier"];
        assert_eq!(
            (lineup["count"].as_u64(), lineup["ranks"].as_u64()),
            (Some(5 * ranks), Some(ranks)),
            "{sets:?}"
        );
        let ps = |x: &Value| (x.as_f64().unwrap() * 1e12).round() as u64;
        for algo in ALGORITHMS {
            let row = &rows[&format!("coll.barrier {algo}")];
            let metric = &json["metrics"][format!("{algo}_s")];
            assert_eq!(metric["count"].as_u64(), Some(ranks), "{algo} {sets:?}");
            assert_eq!(row["count"].as_u64(), Some(ranks), "{algo}: once per rank");
            assert_eq!(row["ranks"].as_u64(), Some(ranks), "{algo}");
            // the region's least and most per rank are the script's least and most
            // measurement, to the picosecond; the means differ by rounding only
            assert_eq!(
                row["min_ps"].as_u64(),
                Some(ps(&metric["min"])),
                "{algo} {sets:?}"
            );
            assert_eq!(
                row["max_ps"].as_u64(),
                Some(ps(&metric["max"])),
                "{algo} {sets:?}"
            );
            let mean = row["mean_ps"].as_u64().unwrap();
            assert!(
                mean.abs_diff(ps(&metric["mean"])) <= 1,
                "{algo} {sets:?}: region mean {mean} ps, measured {}",
                metric["mean"]
            );
            assert_eq!(
                row["total_ps"].as_u64().unwrap() / ranks,
                mean,
                "{algo}: the total is the measured times summed"
            );
        }
    }
}

#[test]
fn a_collective_names_the_region_it_is_asked_to_or_none() {
    let d = tempfile::tempdir().unwrap();
    tmp_file(
        d.path(),
        "s.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\ncode = '''
local coll = require('mgen.coll')
coll.barrier{ region = 'warm-up' }
coll.barrier{ region = false }
coll.barrier{ algo = 'ring' }
'''\n",
    );
    let o = mgensim_in(d.path(), &["run", "s.toml", "--json", "--profile"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = regions(&serde_json::from_slice(&o.stdout).unwrap());
    let counts: Vec<(&str, u64)> = rows
        .iter()
        .map(|(k, v)| (k.as_str(), v["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(counts, [("coll.barrier ring", 4), ("warm-up", 4)]);
    // anything else is refused, naming the option
    tmp_file(
        d.path(),
        "bad.toml",
        "[network]\ntopology = 'mesh'\ndims = [4]\n[workload]\ncode = '''
require('mgen.coll').barrier{ region = 3 }
'''\n",
    );
    let o = mgensim_in(d.path(), &["run", "bad.toml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "inline:1: coll.barrier: `region` must be a string (the region's name) or false (no \
             region), got 3"
        ),
        "{}",
        stderr(&o)
    );
}
