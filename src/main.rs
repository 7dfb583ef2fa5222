//! The `mgensim` command line.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use mgensim::{Scenario, Simulation};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Predict how a communication pattern performs on an interconnection network.
///
/// A scenario (TOML) names a network and a Lua workload that every rank runs as its own
/// coroutine. Keys left out take the NSIM-ACE defaults; see README.md for every key.
#[derive(Parser)]
#[command(name = "mgensim", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct ScenarioArgs {
    /// The scenario file (TOML).
    scenario: PathBuf,
    /// Override a scenario key: KEY=VALUE with VALUE a TOML literal, e.g.
    /// `--set network.dims=[8,8,8]`, `--set workload.ranks=512`,
    /// `--set network.link_bandwidth="8 GB/s"`, `--set workload.args.algo=ring`
    /// (a bare word is taken as a string). May be repeated.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Seed for the workload's random numbers (overrides `workload.seed`).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print the prediction.
    Run {
        #[command(flatten)]
        args: ScenarioArgs,
        /// Print the summary as one JSON object on stdout instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check a scenario and compile its script without running it.
    Check {
        #[command(flatten)]
        args: ScenarioArgs,
    },
}

fn load(a: &ScenarioArgs) -> Result<Scenario> {
    let mut set = a.set.clone();
    if let Some(seed) = a.seed {
        set.push(format!("workload.seed={seed}"));
    }
    Scenario::load(&a.scenario, &set)
}

fn real_main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { args, json } => {
            let scenario = load(&args)?;
            let sim = Simulation::new(&scenario)?;
            let report = sim
                .run()
                .with_context(|| format!("{}", args.scenario.display()))?;
            let text = if json {
                serde_json::to_string_pretty(&report)? + "\n"
            } else {
                report.to_string()
            };
            emit(&text)?;
        }
        Command::Check { args } => {
            let scenario = load(&args)?;
            Simulation::new(&scenario)?;
            emit(&format!(
                "{}: ok ({} ranks on {} nodes, script {})\n",
                args.scenario.display(),
                scenario.workload.ranks,
                scenario.network.nodes(),
                scenario.workload.script_name
            ))?;
        }
    }
    Ok(())
}

/// Writes to stdout in one piece. A reader that closed the pipe early (`| head`) wanted no
/// more: that is not an error.
fn emit(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write to stdout")
        }
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
