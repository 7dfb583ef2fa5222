//! Names a script chooses (regions, reported metrics, a replay's notes) reach the text summary
//! and stderr as visible escapes: a newline in a name cannot forge a line of the summary (a
//! second `predicted time`, an `error:`), and an escape sequence cannot reach the terminal.

mod common;
use common::*;

/// The forgeries a name carries: a line of its own, and a terminal escape (red). Written
/// into a Lua string, these are Lua's escapes (a real newline, a real ESC).
const FORGED: &str = r"\npredicted time 1 s\nerror: forged\x1b[31m";
/// The name as the summary must show it: the same text, each escape visible as such.
const SHOWN: &str = FORGED;

/// Runs `code` on a line of 2 routers in `dir` with `args`: stdout and stderr.
fn run_code(dir: &std::path::Path, code: &str, args: &[&str]) -> (String, String, Option<i32>) {
    tmp_file(
        dir,
        "s.toml",
        &format!("[network]\ntopology = 'mesh'\ndims = [2]\n[workload]\ncode = '''\n{code}\n'''\n"),
    );
    let mut all = vec!["run", "s.toml"];
    all.extend_from_slice(args);
    let o = mgensim_in(dir, &all);
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr(&o),
        o.status.code(),
    )
}

/// No line of `text` begins as a figure or an error that only mgensim writes, beyond `lines`
/// `predicted time` lines; no ESC byte.
fn not_forged(text: &str, predicted: usize) {
    let starts = |p: &str| text.lines().filter(|l| l.starts_with(p)).count();
    assert_eq!(starts("predicted time"), predicted, "{text}");
    assert_eq!(starts("error: forged"), 0, "{text}");
    assert!(
        !text.contains('\x1b'),
        "an ESC byte reached the output: {text:?}"
    );
}

#[test]
fn a_region_and_a_metric_name_cannot_forge_a_line_or_colour_the_terminal() {
    let d = tempfile::tempdir().unwrap();
    // the Lua string holds a real newline and a real ESC (Lua's \n and \x1b)
    let code = format!(
        "local name = \"{FORGED}\"\n\
         MGEN_region(name, MGEN_Comp, 1e-6)\n\
         MGEN_report(name, 2)\n\
         MGEN_report('tab\\tand bidi \\u{{202E}}' .. '_s', 1e-6)\n"
    );
    let (out, err, code) = run_code(d.path(), &code, &["--profile"]);
    assert_eq!(code, Some(0), "{err}");
    not_forged(&out, 1);
    not_forged(&err, 0);
    // the region's profile row and the metric's line, each on one line, escapes shown
    let region = out
        .lines()
        .find(|l| l.trim_start().starts_with("region "))
        .expect("the region's row");
    assert!(
        region.starts_with(&format!("  region {SHOWN}  ")),
        "{region}"
    );
    assert!(
        region.contains("2 times on 2 ranks; 1 us / 1 us / 1 us"),
        "{region}"
    );
    let metric = out
        .lines()
        .find(|l| l.starts_with(r"\npredicted"))
        .expect("the metric's line");
    assert_eq!(
        metric,
        format!("{SHOWN} min 2.0000  mean 2.0000  max 2.0000  (2 reports)")
    );
    assert!(
        out.contains("tab\\tand bidi \\u{202e}_s min 1 us  mean 1 us  max 1 us  (2 reports)"),
        "{out}"
    );
    // --json keeps the name as the script gave it (JSON escapes it its own way)
    let (json, _, _) = run_code(d.path(), &code_json(), &["--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let unescaped = FORGED.replace(r"\n", "\n").replace(r"\x1b", "\x1b");
    assert_eq!(v["metrics"][&unescaped]["count"], 2, "{json}");
}

/// A script that reports the forged name, for `--json`.
fn code_json() -> String {
    format!("MGEN_report(\"{FORGED}\", 2)")
}

#[test]
fn a_replay_note_is_escaped_in_the_summary_and_on_stderr() {
    let d = tempfile::tempdir().unwrap();
    tmp_file(
        d.path(),
        "t.txt",
        "0 init\n0 finalize\n1 init\n1 finalize\n",
    );
    let code = format!(
        "MGEN_trace_open('t.txt')\nMGEN_trace_note(\"{FORGED}\")\n\
         while MGEN_trace_next() do end\n"
    );
    let (out, err, status) = run_code(d.path(), &code, &[]);
    assert_eq!(status, Some(0), "{err}");
    not_forged(&out, 1);
    not_forged(&err, 0);
    // (the trace's path is shown whole: it ends in t.txt)
    let note = format!("t.txt: {SHOWN} (2 times)\n");
    let line = |text: &str, head: &str| {
        text.lines()
            .any(|l| l.starts_with(head) && format!("{l}\n").ends_with(&note))
    };
    assert!(line(&out, "warning            replay of "), "{out}");
    assert!(line(&err, "warning: replay of "), "{err}");
}

#[test]
fn a_failed_rank_s_error_is_shown_escaped_in_the_summary() {
    let d = tempfile::tempdir().unwrap();
    // the error's first line carries the ESC; the summary lists the failed rank with it
    let code = "if MGEN_Comm_rank() == 1 then error('bad \\x1b[2J value') end\nMGEN_Recv(1, 8, 0)";
    let (out, err, status) = run_code(d.path(), code, &[]);
    assert_eq!(status, Some(1), "{err}");
    not_forged(&out, 0);
    assert!(
        out.contains(r"  rank 1 failed at 0 ps: inline:1: bad \x1b[2J value"),
        "{out}"
    );
}

#[test]
fn a_chunk_name_is_shown_escaped_where_a_deadlock_names_the_line() {
    let d = tempfile::tempdir().unwrap();
    // a function compiled under a name of the script's choosing blocks: the deadlock (stderr)
    // and the summary name its line by that name, the escape shown
    let code = "local f = load('MGEN_Recv(1 - MGEN_Comm_rank(), 8, 0)', '=\\x1b[31mred')\nf()";
    let (out, err, status) = run_code(d.path(), code, &[]);
    assert_eq!(status, Some(1), "{err}");
    not_forged(&out, 0);
    not_forged(&err, 0);
    for r in 0..2 {
        let waits = format!(
            "  rank {r} (clock 200 ns) waits in MGEN_Recv from rank {} with tag 0\n      at \\x1b[31mred:1\n",
            1 - r
        );
        assert!(err.contains(&waits), "{err}");
        assert!(
            out.contains(&format!(
                "from rank {} with tag 0, at \\x1b[31mred:1\n",
                1 - r
            )),
            "{out}"
        );
    }
    // a chunk name with a newline splits Lua's traceback: where the rank is cannot be told,
    // and nothing of it is shown as a line of its own
    let code =
        format!("local f = load('MGEN_Recv(1 - MGEN_Comm_rank(), 8, 0)', \"={FORGED}\")\nf()");
    let (out, err, status) = run_code(d.path(), &code, &[]);
    assert_eq!(status, Some(1), "{err}");
    not_forged(&out, 0);
    not_forged(&err, 0);
}
