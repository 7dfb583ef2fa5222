//! The key reference (docs/keys.md) against the program: every default the table gives as a
//! literal is the value a scenario gets when it leaves the key out. (`tests/readme.rs` holds
//! the table's key names to the scenario's own list of keys; this holds its defaults.)
//!
//! For each row whose default column is TOML literals in backticks (`` `"4 ns"` ``, `` `[8,
//! 8, 8]` ``, two keys with two defaults: `` `24`, `2` ``), a scenario that leaves the key out
//! and one that sets it to the listed literal must read into the same configuration. A key
//! that only some families or workloads have is tried on each base scenario in turn (a torus,
//! mesh, Tofu, fat tree, dragonfly and HyperX running a script, and synthetic traffic), on the
//! first that accepts it; a `[power]` key on one that has the table (leaving the table out
//! turns the model off, whatever its keys' defaults).

use mgensim::Scenario;
use std::path::Path;

/// The key table's rows: (keys, default literals), for rows whose default is literals only.
fn literal_defaults() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/keys.md"))
        .expect("docs/keys.md");
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cols: Vec<&str> = line.split('|').collect();
        let (keys, default) = (cols[1].trim(), cols[2].trim());
        let names: Vec<&str> = keys.split('`').skip(1).step_by(2).collect();
        // the default column: literals in backticks, separated by ", ", and nothing else
        let parts: Vec<&str> = default.split(", ").collect();
        let literal = |p: &&str| p.len() >= 2 && p.starts_with('`') && p.ends_with('`');
        if parts.len() != names.len() || !parts.iter().all(literal) {
            continue;
        }
        for (name, part) in names.iter().zip(&parts) {
            let value = &part[1..part.len() - 1];
            // (a formula such as `a·h + 1` is not a literal)
            if toml::from_str::<toml::Table>(&format!("x = {value}")).is_err() {
                continue;
            }
            rows.push((name.to_string(), value.to_string()));
        }
    }
    rows
}

/// The base scenarios a key is tried on, in order.
const BASES: [&str; 10] = [
    "[network]\ntopology = \"torus\"\ndims = [4, 4, 4]\n[workload]\nscript = \"w.lua\"\n",
    "[network]\ntopology = \"mesh\"\ndims = [4, 4]\n[workload]\nscript = \"w.lua\"\n",
    "[network]\ntopology = \"tofu\"\ndims = [2, 2, 2]\n[workload]\nscript = \"w.lua\"\n",
    "[network]\ntopology = \"fattree\"\n[workload]\nscript = \"w.lua\"\n",
    "[network]\ntopology = \"dragonfly\"\n[workload]\nscript = \"w.lua\"\n",
    "[network]\ntopology = \"hyperx\"\ndims = [4, 4]\n[workload]\nscript = \"w.lua\"\n",
    "[network]\ntopology = \"torus\"\ndims = [4, 4, 4]\n[workload]\ntraffic = \"uniform\"\nload = 0.1\n",
    "[network]\ntopology = \"torus\"\ndims = [4, 4, 4]\n[workload]\ntraffic = \"uniform\"\nload = 0.1\nprocess = \"burst\"\n",
    "[network]\ntopology = \"torus\"\ndims = [4, 4, 4]\n[workload]\ntraffic = \"shift\"\nload = 0.1\n",
    "[network]\ntopology = \"torus\"\ndims = [4, 4, 4]\n[workload]\nscript = \"w.lua\"\n[power]\n",
];

/// The configuration `text` reads into with `overrides`, as its debug form; `None` if it is
/// refused.
fn read(text: &str, path: &Path, overrides: &[String]) -> Option<String> {
    let s = Scenario::from_str_with(text, path, overrides, false).ok()?;
    Some(without_family(&format!("{s:?}")))
}

/// `debug` without the family's keys as written (`family: {...}`), which the family reads into
/// the topology (compared with the rest): a key set to its default is written there, and one
/// left out is not.
fn without_family(debug: &str) -> String {
    let Some(start) = debug.find("family: {") else {
        return debug.to_string();
    };
    let open = start + "family: ".len();
    let mut depth = 0;
    for (i, ch) in debug[open..].char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return format!("{}{}", &debug[..start], &debug[open + i + 1..]);
                }
            }
            _ => {}
        }
    }
    debug.to_string()
}

#[test]
fn every_literal_default_in_the_key_table_is_the_program_s_default() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.lua"), "MGEN_Barrier()\n").unwrap();
    let path = dir.path().join("s.toml");
    let rows = literal_defaults();
    let mut checked = Vec::new();
    let mut wrong = Vec::new();
    let mut untried = Vec::new();
    for (key, value) in &rows {
        let set = vec![format!("{key}={value}")];
        let mut tried = false;
        // (`[power]` keys on the base that has the table, the rest on the others)
        let power = key.starts_with("power.");
        let bases = BASES.iter().filter(|b| b.contains("[power]") == power);
        for base in bases {
            let (Some(without), Some(with)) = (read(base, &path, &[]), read(base, &path, &set))
            else {
                continue;
            };
            tried = true;
            if without == with {
                checked.push(key.clone());
            } else {
                wrong.push(format!("{key} = {value}"));
            }
            break;
        }
        if !tried {
            untried.push(key.clone());
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/keys.md gives defaults that are not the program's (a scenario that sets them \
         reads differently from one that leaves them out): {wrong:?}"
    );
    // (the table is parsed as intended: most of its literal defaults are checked, and a key
    // no base scenario accepts is one a family of its own has, e.g. a graph file's)
    assert!(
        checked.len() >= 40,
        "only {} defaults checked: {checked:?}; not accepted by any base: {untried:?}",
        checked.len()
    );
    assert!(untried.is_empty(), "no base scenario accepts {untried:?}");
    eprintln!("{} defaults of docs/keys.md checked", checked.len());
}

#[test]
fn a_wrong_default_in_the_table_would_be_found() {
    // the check itself: a value that is not the default reads differently
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.lua"), "MGEN_Barrier()\n").unwrap();
    let path = dir.path().join("s.toml");
    let base = BASES[0];
    let without = read(base, &path, &[]).unwrap();
    let same = read(base, &path, &["network.mtu=\"2 KiB\"".into()]).unwrap();
    let other = read(base, &path, &["network.mtu=\"1 KiB\"".into()]).unwrap();
    assert_eq!(without, same);
    assert_ne!(without, other);
}
