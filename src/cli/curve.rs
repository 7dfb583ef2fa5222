//! `mgensim curve`: load-latency curves of scenarios with synthetic traffic, and their
//! saturation (the library's `curve` runs them; this reads the command line, prints
//! the table and writes the files).

use crate::{emit, overrides, Exit, Overrides};
use anyhow::{Context, Result};
use mgensim::curve::{self, Case, Curve};
use mgensim::Scenario;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

#[derive(clap::Args)]
pub(crate) struct CurveCommand {
    /// The scenario files (TOML), each with synthetic traffic (`[workload] traffic = ...`);
    /// each is a line of the plot (times the points of --vary).
    #[arg(required = true, value_name = "SCENARIO")]
    scenarios: Vec<PathBuf>,
    /// The offered loads every case runs first: a list of loads (`0.1,0.3,0.5`) and ranges,
    /// stepped by 0.05 (`0.05..1.0`) or by their own step (`0.02,0.1..0.9:+0.1`); fractions of
    /// each node's injection bandwidth.
    #[arg(long, value_name = "LOADS", default_value = "0.05..1.0")]
    loads: String,
    /// The width of load the search for the saturation stops at.
    #[arg(long, value_name = "WIDTH", default_value_t = 0.01)]
    precision: f64,
    /// A key and its values, each a case of every scenario (e.g.
    /// `--vary network.routing=dimension_order,ugal`), as `sweep --vary` takes them. May be
    /// repeated: every combination.
    #[arg(long = "vary", value_name = "KEY=VALUES")]
    vary: Vec<String>,
    /// Keys varied together, value by value, as one more axis after the --vary ones (as
    /// `sweep --zip` takes them).
    #[arg(long = "zip", value_name = "KEY=VALUES")]
    zip: Vec<String>,
    /// Key overrides for every run, as for `run`.
    #[command(flatten)]
    over: Overrides,
    /// Runs at once (default: one per core). The results do not depend on it.
    #[arg(long, short = 'j', value_name = "N")]
    jobs: Option<usize>,
    /// The folder to write curve.csv, saturation.csv and curve.svg into.
    #[arg(long, value_name = "DIR", default_value = "curve")]
    out: PathBuf,
    /// No progress.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// The cases of the command: each scenario at each point of the --vary grid.
fn cases(c: &CurveCommand) -> Result<Vec<Case>> {
    use mgensim::sweep;
    let mut axes = c
        .vary
        .iter()
        .map(|v| sweep::parse_axis(v))
        .collect::<Result<Vec<_>>>()?;
    axes.extend(sweep::parse_zip(&c.zip)?);
    sweep::check_axes(&axes)?;
    let grid = sweep::grid(&axes);
    let sets = overrides(&c.over.keys, &c.over.run)?;
    let mut out = Vec::new();
    for path in &c.scenarios {
        let text = mgensim::read_source(path)
            .map_err(|e| anyhow::anyhow!("{e}"))
            .with_context(|| format!("cannot read scenario {}", path.display()))?;
        let file = path.file_name().map_or_else(
            || path.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        );
        for values in &grid {
            let mut s = sets.clone();
            let mut words = Vec::new();
            if c.scenarios.len() > 1 {
                words.push(file.clone());
            }
            for (a, v) in axes.iter().zip(values) {
                s.push(format!("{}={v}", a.key));
                // (a key left out at this point, `[]`, is not named)
                let short = a.key.rsplit('.').next().unwrap_or(&a.key);
                if v != "[]" {
                    words.push(format!("{short}={v}"));
                }
            }
            let scenario = Scenario::from_str_with(&text, path, &s, c.over.keys.allow_io)?;
            for note in &scenario.notes {
                eprintln!("warning: {}", mgensim::escaped(note));
            }
            let label = (!words.is_empty()).then(|| words.join(", "));
            out.push(curve::case(label, scenario, &path.display().to_string())?);
        }
    }
    Ok(out)
}

pub(crate) fn run(c: &CurveCommand) -> Result<Exit> {
    let loads = curve::parse_loads(&c.loads)?;
    let cases = cases(c)?;
    let threads = c
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let stop = crate::cli::process::interrupt_flag(None);
    let curve = Curve {
        cases,
        loads,
        precision: c.precision,
    };
    let tell = !c.quiet;
    let terminal = std::io::stderr().is_terminal();
    let done = |case: &Case, load: f64, r: &Result<curve::Point, String>| {
        if !tell {
            return;
        }
        let what = match r {
            Ok(p) => format!(
                "accepted {:.4}, latency {}{}",
                p.summary.accepted,
                p.summary
                    .packet_latency_ps
                    .as_ref()
                    .map_or("-".into(), |l| mgensim::units::Time(l.mean).to_string()),
                if p.unstable.is_some() {
                    " (unstable)"
                } else {
                    ""
                }
            ),
            Err(e) => format!("failed: {}", e.lines().next().unwrap_or("")),
        };
        let line = format!("{} at {load}: {what}", case.label);
        if terminal {
            eprint!("\r\x1b[K{line}");
        } else {
            eprintln!("{line}");
        }
    };
    let result = curve.run(threads, stop.clone(), &done);
    if tell && terminal {
        eprint!("\r\x1b[K");
    }
    if stop.load(Ordering::SeqCst) {
        eprintln!("error: interrupted: nothing written");
        return Ok(Exit::Interrupted);
    }
    let (points, sats) = result?;
    std::fs::create_dir_all(&c.out)
        .with_context(|| format!("cannot make the folder {}", c.out.display()))?;
    let (files, no_picture) = curve::files(&curve, &points, &sats);
    if let Some(e) = no_picture {
        eprintln!("warning: no curve.svg: {e}");
    }
    for (name, text) in &files {
        let path = c.out.join(name);
        mgensim::output::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    emit(&curve::table(&curve.cases, &points, &sats, curve.precision))?;
    let names: Vec<&str> = files.iter().map(|f| f.0).collect();
    emit(&format!(
        "{}: wrote {} ({} runs)\n",
        c.out.display(),
        names.join(", "),
        points.len()
    ))?;
    Ok(Exit::Ok)
}
