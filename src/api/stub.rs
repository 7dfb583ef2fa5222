//! `lua/mgen.d.lua`, the API's reference, held to the table: every call of [`CALLS`] is
//! documented there as `function NAME(args) end` with the table's argument names in order,
//! each with its `---@param` line (`name?` exactly for the optional ones), every constant is
//! declared, and the reference documents no `MGEN_` function or constant the table lacks.

use super::*;

const STUB: &str = include_str!("../../lua/mgen.d.lua");

/// A function the reference documents: its name, its parameters as the `function` line lists
/// them, and its `---@param` lines (`(name, optional)`) from the comment block above it.
#[derive(Debug, PartialEq)]
struct Documented<'a> {
    name: &'a str,
    params: Vec<&'a str>,
    tagged: Vec<(&'a str, bool)>,
    line: usize,
}

/// The `MGEN_` functions and constants of reference text `text`.
fn read(text: &str) -> (Vec<Documented<'_>>, Vec<(&str, &str)>) {
    let (mut functions, mut constants) = (Vec::new(), Vec::new());
    let mut tagged: Vec<(&str, bool)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(p) = line.strip_prefix("---@param ") {
            let word = p.split_whitespace().next().unwrap_or("");
            match word.strip_suffix('?') {
                Some(w) => tagged.push((w, true)),
                None => tagged.push((word, false)),
            }
            continue;
        }
        if line.starts_with("---") {
            continue;
        }
        if let Some(decl) = line.strip_prefix("function MGEN_") {
            let (name, rest) = decl.split_once('(').unwrap_or((decl, ""));
            let params = rest.split_once(')').map_or("", |p| p.0);
            functions.push(Documented {
                name: &line["function ".len().."function MGEN_".len() + name.len()],
                params: params
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .collect(),
                tagged: std::mem::take(&mut tagged),
                line: i + 1,
            });
        } else if line.starts_with("MGEN_") {
            if let Some((name, value)) = line.split_once('=') {
                constants.push((name.trim(), value.trim()));
            }
        }
        tagged.clear();
    }
    (functions, constants)
}

/// What is wrong between the table and reference text `text`, one line each.
fn differences(text: &str) -> Vec<String> {
    let (functions, constants) = read(text);
    let mut out = Vec::new();
    for e in CALLS {
        let found: Vec<&Documented> = functions.iter().filter(|f| f.name == e.name).collect();
        let [doc] = found[..] else {
            out.push(format!(
                "{} is documented {} times (once expected)",
                e.name,
                found.len()
            ));
            continue;
        };
        let names: Vec<&str> = e.args.iter().map(|a| a.name).collect();
        if doc.params != names {
            out.push(format!(
                "line {}: {}({}) where the table has {}({})",
                doc.line,
                e.name,
                doc.params.join(", "),
                e.name,
                names.join(", ")
            ));
            continue;
        }
        for a in e.args {
            match doc.tagged.iter().find(|t| t.0 == a.name) {
                None => out.push(format!(
                    "line {}: {}'s `{}` has no ---@param line",
                    doc.line, e.name, a.name
                )),
                // (LuaLS writes `...` without a `?`: it may be empty anyway)
                Some(&(_, optional)) if optional != a.optional && a.rule != Rule::Rest => {
                    out.push(format!(
                        "line {}: {}'s `{}` is {} in the table but {} in the reference",
                        doc.line,
                        e.name,
                        a.name,
                        if a.optional { "optional" } else { "required" },
                        if optional { "optional" } else { "required" },
                    ))
                }
                Some(_) => {}
            }
        }
        for t in &doc.tagged {
            if !names.contains(&t.0) {
                out.push(format!(
                    "line {}: {} documents `{}`, which it does not take",
                    doc.line, e.name, t.0
                ));
            }
        }
    }
    for f in &functions {
        if Call::named(f.name).is_none() {
            out.push(format!(
                "line {}: {} is documented but is not a call of the table (src/api/mod.rs)",
                f.line, f.name
            ));
        }
    }
    for (name, value) in CONSTANTS {
        match constants.iter().find(|c| c.0 == *name) {
            None => out.push(format!("the constant {name} is not documented")),
            Some((_, v)) => {
                let want = match value {
                    Value::Int(i) => Some(i.to_string()),
                    Value::False => Some("false".to_string()),
                    Value::OfTheRun => None,
                };
                if want.as_deref().is_some_and(|w| w != *v) {
                    out.push(format!(
                        "{name} = {v} in the reference, {want:?} in the table"
                    ));
                }
            }
        }
    }
    for (name, _) in &constants {
        if !CONSTANTS.iter().any(|c| c.0 == *name) {
            out.push(format!(
                "the constant {name} is documented but not in the table"
            ));
        }
    }
    out
}

#[test]
fn the_reference_documents_the_table_s_calls_and_nothing_else() {
    let d = differences(STUB);
    assert!(
        d.is_empty(),
        "lua/mgen.d.lua and src/api/mod.rs differ:\n{}",
        d.join("\n")
    );
    // (what the reader found, so that an empty list means something)
    let (functions, constants) = read(STUB);
    assert_eq!(functions.len(), CALLS.len());
    assert_eq!(constants.len(), CONSTANTS.len());
}

/// Each kind of difference is found: a call missing, one with another argument name or count,
/// an optional argument documented as required, one the table lacks, a constant missing.
#[test]
fn each_difference_is_named() {
    let edit = |from: &str, to: &str| {
        assert!(STUB.contains(from), "{from}");
        differences(&STUB.replacen(from, to, 1))
    };
    let missing = edit("function MGEN_Wtime() end", "");
    assert_eq!(
        missing,
        ["MGEN_Wtime is documented 0 times (once expected)"]
    );
    let renamed = edit(
        "function MGEN_Irecv(src, bytes, tag) end",
        "function MGEN_Irecv(source, bytes, tag) end",
    );
    assert!(
        renamed[0].ends_with(
            "MGEN_Irecv(source, bytes, tag) where the table has MGEN_Irecv(src, bytes, tag)"
        ),
        "{renamed:?}"
    );
    let fewer = edit(
        "function MGEN_rdma_get(src, bytes, tag, nic) end",
        "function MGEN_rdma_get(src, bytes, tag) end",
    );
    assert_eq!(fewer.len(), 1, "{fewer:?}");
    assert!(fewer[0].contains("MGEN_rdma_get(src, bytes, tag) where"));
    let required = edit(
        "---@param nic? integer as for MGEN_rdma_put\n---@return MGEN_handle handle\nfunction MGEN_rdma_get",
        "---@param nic integer as for MGEN_rdma_put\n---@return MGEN_handle handle\nfunction MGEN_rdma_get",
    );
    assert!(
        required[0].ends_with(
            "MGEN_rdma_get's `nic` is optional in the table but required in the reference"
        ),
        "{required:?}"
    );
    let extra = edit(
        "function MGEN_Wtime() end",
        "function MGEN_Wtime() end\nfunction MGEN_Wtime2(x) end",
    );
    assert!(
        extra[0]
            .ends_with("MGEN_Wtime2 is documented but is not a call of the table (src/api/mod.rs)"),
        "{extra:?}"
    );
    let constant = edit("MGEN_ANY_TAG = -1", "MGEN_ANY_TAG = -2");
    assert_eq!(constant.len(), 1, "{constant:?}");
    assert!(constant[0].starts_with("MGEN_ANY_TAG = -2 in the reference"));
}
