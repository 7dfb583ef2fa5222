//! `mgensim replay TRACE`: a trace run directly, as `smpirun -replay` runs one (the library's
//! `config::replay` makes its scenario); and what `run` or `check` say when given a trace.

use crate::{Overrides, ProbeArgs, ScenarioArgs};
use anyhow::Result;
use mgensim::Scenario;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub(crate) struct ReplayCommand {
    /// The trace: its index file (one line per rank naming the rank's file), or the one file
    /// of every rank's lines.
    #[arg(value_name = "TRACE")]
    pub(crate) trace_file: PathBuf,
    /// A scenario that gives the network and the other settings; the trace replaces its
    /// script and ranks (and must be below its folder: the sandbox's rule).
    #[arg(long, value_name = "FILE")]
    pub(crate) scenario: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) over: Overrides,
    /// Print the summary as one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Write the summary to FILE instead of stdout (as `run -o` does).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Also write an output folder (as `run --out` does).
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// No progress line.
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
    /// With `[power]`: run again with links always on and give ratios (as `run` does).
    #[arg(long)]
    pub(crate) power_baseline: bool,
    #[command(flatten)]
    pub(crate) probes: ProbeArgs,
}

/// What `run` runs: the scenario file its arguments name, or the trace they name with the
/// scenario, if any, that gives its network (`mgensim replay`).
pub(crate) enum Source<'a> {
    Scenario,
    Trace(Option<&'a Path>),
}

/// The scenario of `source`, with the overrides `sets` (the scenario of `a` for a scenario).
pub(crate) fn load(a: &ScenarioArgs, source: &Source, sets: &[String]) -> Result<Scenario> {
    let allow_io = a.over.keys.allow_io;
    match source {
        Source::Scenario => Scenario::load(&a.scenario, sets, allow_io).map_err(|e| {
            match hint(&a.scenario, &a.over.keys.set) {
                Some(h) => anyhow::anyhow!("{h}"),
                None => e,
            }
        }),
        Source::Trace(s) => mgensim::replay_scenario(&a.scenario, *s, sets, allow_io),
    }
}

/// What to say of `path`, given where a scenario is due, if it is a trace: how to replay it
/// (with the `--set`s the user gave, `sets`).
fn hint(path: &Path, sets: &[String]) -> Option<String> {
    if !mgensim::is_trace(path) {
        return None;
    }
    let (x, how) = (path.display(), "the network given");
    Some(match sets {
        [] => format!(
            "{x} is a time-independent trace, not a scenario: replay it with `mgensim replay \
             {x}`, {how} with --set (network.dims=[4,4], ...) or by a scenario (--scenario FILE)"
        ),
        given => {
            let sets: String = given.iter().map(|s| format!(" --set {s}")).collect();
            format!(
                "{x} is a time-independent trace, not a scenario: replay it with `mgensim \
                 replay {x}{sets}` (or {how} by a scenario: --scenario FILE)"
            )
        }
    })
}
