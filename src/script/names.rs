//! The names of mgensim's Lua API, as its reference lists them (the `---@meta` stubs under
//! `lua/`), and a "did you mean" for a name a script got wrong: at run time, for a call of a
//! nil global or field; before the run (`mgensim check`), for every `MGEN_` name the script
//! uses that the API does not have.

use std::sync::OnceLock;

/// The stubs: the reference of every public function and constant.
const STUBS: [&str; 4] = [
    include_str!("../../lua/mgen.d.lua"),
    include_str!("../../lua/mgen/coll.d.lua"),
    include_str!("../../lua/mgen/replay.d.lua"),
    include_str!("../../lua/mgen/util.d.lua"),
];

/// The API's global names (`MGEN_rdma_poll`, `MGEN_ANY_TAG`, ...) and the library modules'
/// function names (`barrier`, `alltoall`, ...), each list sorted.
struct Names {
    globals: Vec<&'static str>,
    fields: Vec<&'static str>,
}

fn names() -> &'static Names {
    static NAMES: OnceLock<Names> = OnceLock::new();
    NAMES.get_or_init(|| {
        let (mut globals, mut fields) = (Vec::new(), Vec::new());
        for line in STUBS.iter().flat_map(|s| s.lines()) {
            // `function MGEN_x(...)`, `function coll.barrier(...)`, `MGEN_ANY_TAG = -1`
            let decl = line.strip_prefix("function ").unwrap_or(line);
            let name = decl
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .next()
                .unwrap_or("");
            let is_decl =
                line.starts_with("function ") || line[name.len()..].trim_start().starts_with('=');
            if !is_decl || name.is_empty() {
                continue;
            }
            match name.rsplit_once('.') {
                Some((_, field)) => fields.push(field),
                None if name.starts_with("MGEN_") => globals.push(name),
                None => {}
            }
        }
        for list in [&mut globals, &mut fields] {
            list.sort_unstable();
            list.dedup();
        }
        Names { globals, fields }
    })
}

/// Whether `name` is a global of the API.
fn is_api_global(name: &str) -> bool {
    names().globals.binary_search(&name).is_ok()
}

/// The API name closest to `name` among `candidates`, if close enough to be a likely typo
/// (case aside, at most a third of its letters edited). A name whose length is too far from a
/// candidate's to be within that is not compared with it (a name of a megabyte costs its
/// length, not its length times the candidates').
fn closest(name: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let n = name.chars().count();
    let limit = (n / 3).max(1);
    let lower = name.to_ascii_lowercase();
    candidates
        .iter()
        .filter(|c| c.chars().count().abs_diff(n) <= limit)
        .map(|&c| {
            (
                strsim::damerau_levenshtein(&lower, &c.to_ascii_lowercase()),
                c,
            )
        })
        .filter(|&(d, c)| d <= limit && d < lower.len().min(c.len()))
        .min()
        .map(|(_, c)| c)
}

/// A "did you mean" for a script error that called (or indexed) a nil global or field that is
/// close to an API name: `attempt to call a nil value (global 'MGEN_rdma_pol')` gives
/// `did you mean MGEN_rdma_poll?`.
pub(crate) fn hint(error: &str) -> Option<String> {
    let first = error.lines().next()?;
    if !first.contains("a nil value (") {
        return None;
    }
    let (_, rest) = first.rsplit_once("a nil value (")?;
    let (kind, rest) = rest.split_once(" '")?;
    let (name, _) = rest.split_once('\'')?;
    let suggestion = match kind {
        "global" => closest(name, &names().globals),
        "field" | "method" => closest(name, &names().fields),
        _ => None,
    }?;
    (suggestion != name)
        .then(|| format!("did you mean {suggestion}? (lua/mgen.d.lua is the API's reference)"))
}

/// The `MGEN_` names in Lua source `text` that the API does not have, each with its line
/// (1-based), in order; comments and strings are passed over, and a name the script assigns
/// itself (`MGEN_mine = ...`, `function MGEN_mine()`) is its own.
fn unknown_globals(text: &str) -> Vec<(u32, &str)> {
    let words = code_words(text);
    let own: std::collections::HashSet<&str> = words
        .iter()
        .filter(|w| w.assigned)
        .map(|w| w.word)
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<(u32, &str)> = Vec::new();
    for w in &words {
        if !w.word.starts_with("MGEN_") || is_api_global(w.word) || own.contains(&w.word) {
            continue;
        }
        if !seen.insert(w.word) {
            continue;
        }
        out.push((w.line, w.word));
    }
    out
}

/// The most unknown names `mgensim check` lists (the count says how many more there are).
const MAX_LISTED: usize = 100;

/// What `mgensim check` says of every job's script: each `MGEN_` name it uses that the API
/// does not have, as `file:line: ...`, with the nearest API name (the first [`MAX_LISTED`],
/// each quoted within bounds).
pub(crate) fn unknown_in(scenario: &crate::Scenario) -> Vec<String> {
    let mut out = Vec::new();
    let mut more = 0usize;
    for job in &scenario.jobs {
        let w = &job.workload;
        for (line, name) in unknown_globals(&w.source) {
            if out.len() == MAX_LISTED {
                more += 1;
                continue;
            }
            let hint = match closest(name, &names().globals) {
                Some(n) => format!("; did you mean {n}?"),
                None => String::new(),
            };
            out.push(format!(
                "{}:{line}: `{}` is not part of mgensim's API (lua/mgen.d.lua lists it){hint}",
                w.script_name,
                crate::words::shown(name)
            ));
        }
    }
    if more > 0 {
        out.push(format!(
            "... and {more} more names that are not part of the API"
        ));
    }
    out
}

/// A name in code (not in a comment or a string), its line, and whether the code assigns it
/// there (`name =`, not `==`, or `function name`).
struct Word<'a> {
    word: &'a str,
    line: u32,
    assigned: bool,
}

/// The names of Lua source `text` outside comments and strings (a small lexer: `--` and
/// `--[==[ ]==]` comments, quoted and long-bracket strings); a name after a `.` or `:` is a
/// field, not a global, and is left out.
fn code_words(text: &str) -> Vec<Word<'_>> {
    let b = text.as_bytes();
    let (mut i, mut line) = (0, 1u32);
    let mut out = Vec::new();
    let mut after_function = false;
    // the level of a long bracket at `i` (`[[` 0, `[=[` 1, ...), if one opens there
    let long_open = |i: usize| -> Option<usize> {
        if b.get(i) != Some(&b'[') {
            return None;
        }
        let eq = b[i + 1..].iter().take_while(|&&c| c == b'=').count();
        (b.get(i + 1 + eq) == Some(&b'[')).then_some(eq)
    };
    // skips a long bracket of level `eq` opened at `i`: the index after it closes
    let skip_long = |i: usize, eq: usize, line: &mut u32| -> usize {
        let close: Vec<u8> = std::iter::once(b']')
            .chain(std::iter::repeat_n(b'=', eq))
            .chain(std::iter::once(b']'))
            .collect();
        let mut j = i + eq + 2;
        while j < b.len() && !b[j..].starts_with(&close) {
            if b[j] == b'\n' {
                *line += 1;
            }
            j += 1;
        }
        (j + close.len()).min(b.len())
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i += 2;
                match long_open(i) {
                    Some(eq) => i = skip_long(i, eq, &mut line),
                    None => {
                        while i < b.len() && b[i] != b'\n' {
                            i += 1;
                        }
                    }
                }
            }
            b'"' | b'\'' => {
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'[' if long_open(i).is_some() => {
                let eq = long_open(i).unwrap_or(0);
                i = skip_long(i, eq, &mut line);
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &text[start..i];
                let before = text[..start].trim_end();
                let field =
                    before.ends_with('.') && !before.ends_with("..") || before.ends_with(':');
                let after = text[i..].trim_start();
                let assigned =
                    after_function || (after.starts_with('=') && !after.starts_with("=="));
                after_function = word == "function";
                if !field {
                    out.push(Word {
                        word,
                        line,
                        assigned,
                    });
                }
            }
            _ => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stubs_give_the_api_s_globals_and_the_modules_functions() {
        let n = names();
        for g in [
            "MGEN_rdma_poll",
            "MGEN_Recv",
            "MGEN_ANY_TAG",
            "MGEN_args",
            "MGEN_region",
        ] {
            assert!(n.globals.contains(&g), "{g}: {:?}", n.globals);
        }
        for f in ["barrier", "alltoall", "run"] {
            assert!(n.fields.contains(&f), "{f}: {:?}", n.fields);
        }
        assert!(!n.globals.iter().any(|g| g.contains('.')));
    }

    #[test]
    fn a_call_of_a_misspelt_name_gets_the_nearest() {
        let e = "w.lua:3: attempt to call a nil value (global 'MGEN_rdma_pol')\nstack traceback:";
        assert_eq!(
            hint(e).as_deref(),
            Some("did you mean MGEN_rdma_poll? (lua/mgen.d.lua is the API's reference)")
        );
        let e = "w.lua:1: attempt to call a nil value (field 'barier')";
        assert!(hint(e).unwrap().starts_with("did you mean barrier?"));
        // case is forgiven; a name far from any gets nothing
        assert!(
            hint("x: attempt to call a nil value (global 'mgen_comm_RANK')")
                .unwrap()
                .starts_with("did you mean MGEN_Comm_rank?")
        );
        assert_eq!(
            hint("x: attempt to call a nil value (global 'frobnicate')"),
            None
        );
        assert_eq!(hint("x: attempt to compare number with nil"), None);
    }

    #[test]
    fn unknown_mgen_names_are_found_outside_comments_and_strings() {
        let text = "-- MGEN_nothing in a comment\n\
                    local s = \"MGEN_inastring\" .. 'MGEN_too'\n\
                    --[==[ MGEN_long\n comment ]==]\n\
                    local t = [[MGEN_longstring\n]]\n\
                    MGEN_rdma_pol(0)\n\
                    function MGEN_mine() end\n\
                    MGEN_mine()\n\
                    x.MGEN_field = 1\n\
                    if MGEN_Comm_Rank() == 0 then MGEN_Comp(1) end\n\
                    MGEN_rdma_pol(1)\n";
        let found: Vec<(u32, &str, Option<&str>)> = unknown_globals(text)
            .into_iter()
            .map(|(l, n)| (l, n, closest(n, &names().globals)))
            .collect();
        assert_eq!(
            found,
            [
                (7, "MGEN_rdma_pol", Some("MGEN_rdma_poll")),
                (11, "MGEN_Comm_Rank", Some("MGEN_Comm_rank")),
            ]
        );
    }
}
