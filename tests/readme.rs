//! The README, the guide and the key reference (docs/guide.md, docs/keys.md) against the
//! program: every command line they show runs, the figures it quotes
//! beside them are what the runs print, its key table is the scenario's own list of keys, and
//! what it says of outputs and defaults is what the code does (and what the other documents
//! say).
//!
//! A command line is a line of a ```sh block, or a line of another code block (fenced or
//! indented) that starts with `mgensim` or `cargo run --release --`; a `\` at its end joins the
//! next line, and a ` # ` starts a comment. A fenced block without a language right after a
//! command is what it prints: each of its lines must be a line of the command's output. The
//! commands run in a fresh folder that sees the project's `scenarios/`, `examples/`, `bench/`
//! and `lua/`, so that what they write stays there.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

/// The README's commands that cannot run in a test, each with why (each must still match one
/// command of the README: an exception whose command is gone fails).
const EXCEPTIONS: [(&str, &str); 6] = [
    ("tests/run", "runs this very test suite"),
    (
        "pip install ./python",
        "installs the Python module (python/tests/run builds and tests it)",
    ),
    (
        "cargo run --release -- run /tmp/sample-ti/s.toml --profile",
        "needs the trace tools/otf2_to_ti.py writes beforehand, with Debian's python3-otf2",
    ),
    (
        "mgensim run bench/put_step.toml",
        "65,536 nodes: minutes and gigabytes",
    ),
    (
        "cargo build --release --features mpi",
        "needs an MPI library; tests/run builds it where there is one, and tests/mpi.rs runs MPI jobs",
    ),
    (
        "mpirun -np 4 target/release/mgensim run bench/bruck_put.toml --out results",
        "an MPI job of the build above; tests/mpi.rs runs such jobs and compares their outputs",
    ),
];

/// A command line of the README: its line and its words (`cargo run --release --` or
/// `mgensim` left out), and the output it quotes (a fenced block with no language right
/// after it).
#[derive(Debug)]
struct Shown {
    /// Its first line (1-based) and its last (0-based index).
    line: usize,
    end: usize,
    text: String,
    args: Vec<String>,
    quoted: Vec<String>,
}

/// What a user reads first: the README, then the guide and the key reference it points to
/// (docs/guide.md, docs/keys.md), one after the other (the README's commands first).
fn readme() -> String {
    ["README.md", "docs/guide.md", "docs/keys.md"]
        .iter()
        .map(|f| std::fs::read_to_string(project().join(f)).expect(f))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The words of a shell command line: blanks split, quotes group and are removed, a backslash
/// escapes the next character.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => word.extend(chars.next()),
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, '\\') => word.extend(chars.next()),
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    words
}

/// Every command line of `text` (see the module's doc).
fn commands(text: &str) -> Vec<Shown> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Shown> = Vec::new();
    let mut fence: Option<&str> = None;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if let Some(lang) = l.trim_start().strip_prefix("```") {
            if fence.is_some() {
                fence = None;
            } else {
                fence = Some(lang.trim());
                // a fence with no language right after a command (blank lines between) is
                // what it prints
                let before = lines[..i].iter().rposition(|l| !l.trim().is_empty());
                match out.last_mut() {
                    Some(last) if lang.trim().is_empty() && before == Some(last.end) => {
                        let end = lines[i + 1..]
                            .iter()
                            .position(|l| l.trim_start().starts_with("```"))
                            .map_or(lines.len(), |p| i + 1 + p);
                        last.quoted = lines[i + 1..end]
                            .iter()
                            .filter(|l| !l.trim().is_empty())
                            .map(|l| l.to_string())
                            .collect();
                    }
                    _ => {}
                }
            }
            i += 1;
            continue;
        }
        let t = l.trim();
        let in_code = fence.is_some() || (l.starts_with("    ") && !t.starts_with('-'));
        let is_command = match fence {
            Some("sh") => !t.is_empty(),
            _ => in_code && (t.starts_with("mgensim ") || t.starts_with("cargo run --release --")),
        };
        if !is_command {
            i += 1;
            continue;
        }
        let (line, mut text) = (i + 1, t.to_string());
        while text.ends_with('\\') && i + 1 < lines.len() {
            i += 1;
            text.pop();
            text.push(' ');
            text.push_str(lines[i].trim());
        }
        let code = text.split(" # ").next().unwrap_or("").trim().to_string();
        let words = shell_words(&code);
        let args = match words.first().map(String::as_str) {
            Some("mgensim") => words[1..].to_vec(),
            Some("cargo") if code.starts_with("cargo run --release -- ") => words[4..].to_vec(),
            _ => Vec::new(),
        };
        out.push(Shown {
            line,
            end: i,
            text: code,
            args,
            quoted: Vec::new(),
        });
        i += 1;
    }
    out
}

/// A fresh folder that sees the project's scenarios, examples, benchmarks and Lua library.
fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in ["scenarios", "examples", "bench", "lua"] {
        std::os::unix::fs::symlink(project().join(d), dir.path().join(d)).unwrap();
    }
    dir
}

/// Runs `args` in `dir`: stdout, or a panic naming the README's line and stderr.
fn run_in(dir: &Path, what: &str, args: &[String]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_mgensim"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{what}: exit {:?}\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Blanks of any length as one space.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_readme_s_commands_are_found_with_their_quoted_output() {
    let text = readme();
    let cmds = commands(&text);
    assert!(cmds.len() >= 20, "{cmds:#?}");
    // a comment is left out, continued lines are joined, quotes are a shell's
    let first = &cmds[0];
    assert_eq!(first.args, ["run", "scenarios/barrier.toml"]);
    let put = cmds
        .iter()
        .find(|c| c.text.contains("put_ring.toml"))
        .expect("the put ring");
    assert_eq!(put.args.last().unwrap(), "network.link_bandwidth=8 GB/s");
    let trace = cmds
        .iter()
        .find(|c| c.text.contains("--trace barrier.json"))
        .expect("the traced barrier, on two lines");
    assert!(trace.args.contains(&"network.dims=[4,4]".to_string()));
    let lesson = cmds
        .iter()
        .find(|c| c.text.contains("barrier_lesson.toml"))
        .expect("the lesson");
    assert!(lesson.quoted.len() >= 4, "{lesson:?}");
    // prose that starts with the program's name is no command
    assert!(cmds.iter().all(|c| !c.text.starts_with("mgensim predicts")));
}

#[test]
fn every_command_the_readme_shows_runs_and_prints_what_it_quotes() {
    let text = readme();
    let cmds = commands(&text);
    for (exception, why) in EXCEPTIONS {
        assert_eq!(
            cmds.iter().filter(|c| c.text == exception).count(),
            1,
            "the exception `{exception}` ({why}) is no command of the README"
        );
    }
    let dir = workdir();
    let mut ran = 0;
    for c in &cmds {
        if EXCEPTIONS.iter().any(|(e, _)| *e == c.text) {
            continue;
        }
        let what = format!("README.md:{}: {}", c.line, c.text);
        assert!(!c.args.is_empty(), "{what}: not a command of mgensim");
        let out = run_in(dir.path(), &what, &c.args);
        let lines: Vec<String> = out.lines().map(squeeze).collect();
        for q in &c.quoted {
            assert!(
                lines.contains(&squeeze(q)),
                "{what}: the README quotes\n{q}\nand the run printed\n{out}"
            );
        }
        ran += 1;
    }
    assert!(ran >= 17, "{ran} commands ran");
    // what the commands wrote is there
    for f in [
        "out.json",
        "barrier.json",
        "ring/report.html",
        "rd/report.html",
        "sweep/sweep.csv",
    ] {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
}

/// Figures the README quotes beside a command or a scenario, and the command that prints them.
#[test]
fn the_figures_the_readme_quotes_are_what_the_runs_print() {
    let text = readme();
    let dir = workdir();
    let run = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        run_in(dir.path(), &args.join(" "), &args)
    };
    // (what the README says, the command, what its output has)
    let barrier = run(&["run", "scenarios/barrier.toml"]);
    for (readme_says, printed) in [
        (
            "(ring barrier, 512 ranks, 8x8x8 torus)",
            "network            torus 8x8x8 (512 nodes), dimension_order routing",
        ),
        (
            "`barrier_s  min 466.714476 us ...`",
            "barrier_s          min 466.714476 us",
        ),
    ] {
        assert!(
            text.contains(readme_says),
            "the README no longer says {readme_says}"
        );
        assert!(barrier.contains(printed), "{printed}\n{barrier}");
    }
    // the HyperX shift: dimension order against UGAL
    let ms = |out: &str| {
        let ps: f64 = out
            .split("predicted time")
            .nth(1)
            .and_then(|r| r.split('(').nth(1))
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .parse()
            .unwrap();
        format!("{:.2} ms", ps / 1e9)
    };
    let dor = ms(&run(&["run", "scenarios/hyperx_shift.toml"]));
    let ugal = ms(&run(&[
        "run",
        "scenarios/hyperx_shift.toml",
        "--set",
        "network.routing=ugal",
    ]));
    let said = format!("({dor} against {ugal})");
    assert_eq!(said, "(2.12 ms against 0.71 ms)");
    assert!(text.contains(&said), "the README should say {said}");
    // a runaway 4-rank script stops at the default memory of 4 ranks
    // (the figure is the code's: `src/config/mod.rs`, `lua_memory_tests`)
    assert!(text.contains("a runaway 4-rank script stops at 260 MiB"));
}

#[test]
fn the_key_table_is_the_scenario_s_own_list_of_keys() {
    let text = readme();
    let table = text
        .split("## Scenario keys")
        .nth(1)
        .and_then(|t| t.split("\n## ").next())
        .expect("the README has a key table");
    let mut listed: Vec<String> = table
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            let first = l.split('|').nth(1).unwrap_or("");
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    listed.sort();
    let mut keys = mgensim::scenario_keys();
    keys.sort();
    let missing: Vec<&String> = keys.iter().filter(|k| !listed.contains(k)).collect();
    let unknown: Vec<&String> = listed.iter().filter(|k| !keys.contains(k)).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "keys the README's table lacks: {missing:?}; keys it lists that no scenario has: \
         {unknown:?}"
    );
}

#[test]
fn outputs_and_defaults_are_described_as_the_code_has_them() {
    let text = readme();
    // every file of an output folder is in the README and in `run --help`, with a line each
    let help = run_in(&project(), "run --help", &["run".into(), "--help".into()]);
    for (name, what) in mgensim::output::FOLDER {
        assert!(text.contains(&format!("`{name}`")), "README: {name}");
        assert!(
            help.lines().any(|l| l.contains(name) && l.contains(what)),
            "run --help: {name}\n{help}"
        );
    }
    // lua_memory's default, as the code computes it, said alike by the README and the stubs
    let said = "256 MiB and 1 MiB per rank, at most half of the machine's memory and at least \
                256 MiB";
    let stubs = std::fs::read_to_string(project().join("lua/mgen.d.lua")).unwrap();
    let stubs = squeeze(&stubs.replace("\n--", "\n"));
    assert!(squeeze(&text).contains(said), "README");
    assert!(stubs.contains(said), "lua/mgen.d.lua");
    // (the code's rule, held to these words: `src/config/mod.rs`, `lua_memory_tests`)
    // sweep --shard: the help, the README and the code agree on which points a shard runs
    let help = run_in(
        &project(),
        "sweep --help",
        &["sweep".into(), "--help".into()],
    );
    assert!(help.contains(mgensim::sweep::SHARD_RULE), "{help}");
    assert!(text.contains("`--shard I/N` runs the points numbered I−1 modulo N"));
    let shard_one: Vec<usize> = (0..7)
        .filter(|&p| mgensim::sweep::in_shard(p, 1, 3))
        .collect();
    assert_eq!(shard_one, [0, 3, 6]);
}

#[test]
fn the_saturation_bench_s_docstring_and_page_say_what_it_runs() {
    let bench = std::fs::read_to_string(project().join("bench/saturation")).unwrap();
    let page = std::fs::read_to_string(project().join("docs/saturation.md")).unwrap();
    let line = bench
        .lines()
        .find(|l| l.starts_with("WARMUP, MEASURE = "))
        .expect("bench/saturation sets WARMUP, MEASURE");
    let us: Vec<f64> = line["WARMUP, MEASURE = ".len()..]
        .split(',')
        .map(|v| v.trim().parse::<f64>().unwrap() * 1e6)
        .collect();
    let (warm, window) = (us[0].round() as u64, us[1].round() as u64);
    let end = warm + window;
    let doc = squeeze(bench.split("\"\"\"").nth(1).unwrap());
    assert!(
        doc.contains(&format!("created in a {window} us window")),
        "{doc}"
    );
    assert!(
        doc.contains(&format!(
            "between {warm} (WARMUP) and {end} us (WARMUP + MEASURE)"
        )),
        "{doc}"
    );
    // the scenarios it writes say the same
    assert!(bench.contains("warmup = \\\"{WARMUP * 1e6:g} us\\\""));
    assert!(bench.contains("measure = \\\"{MEASURE * 1e6:g} us\\\""));
    let page = squeeze(&page);
    assert!(
        page.contains(&format!("created between {warm} and {end} µs")),
        "docs/saturation.md"
    );
}
