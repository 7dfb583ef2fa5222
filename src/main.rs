//! The `mgensim` command line.

mod cli;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use cli::process::{interrupt_flag, progress_line, watch_setup, STARTED};
use cli::replay::Source;
use mgensim::Limit;
use mgensim::Stop;
use mgensim::{Report, Scenario};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Large blocks (the network's state at scale) on transparent huge pages: fewer TLB misses.
#[global_allocator]
static ALLOC: mgensim::HugePages = mgensim::HugePages;

/// Predict how a communication pattern performs on an interconnection network.
///
/// A scenario (TOML) names a network and a Lua workload that every rank runs as its own
/// coroutine. Keys left out take the NSIM-ACE defaults; see docs/keys.md for every key.
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
    #[command(flatten)]
    over: Overrides,
}

/// What changes a scenario's keys from the command line (`run`, `sweep`): its keys, and how
/// it is run.
#[derive(clap::Args)]
struct Overrides {
    #[command(flatten)]
    keys: KeyArgs,
    #[command(flatten)]
    run: RunArgs,
}

/// A scenario's keys from the command line (`run`, `check`, `sweep`).
#[derive(clap::Args)]
struct KeyArgs {
    /// Override a scenario key: KEY=VALUE with VALUE a TOML literal, e.g.
    /// `--set network.dims=[8,8,8]`, `--set workload.ranks=512`,
    /// `--set network.link_bandwidth="8 GB/s"`, `--set workload.args.algo=ring`
    /// (a bare word is taken as a string). May be repeated.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Seed for the workload's random numbers (overrides `workload.seed`).
    #[arg(long)]
    seed: Option<u64>,
    /// Lift the sandbox: let scripts use the whole Lua standard library (run programs, write
    /// and read any file, load C modules). Only for scripts you trust; the summary says so.
    #[arg(long)]
    allow_io: bool,
}

/// How a run goes: its limits, threads and partitions (`run`, `sweep`; `check` runs nothing).
#[derive(clap::Args, Default)]
struct RunArgs {
    /// Stop the run after this much wall-clock time, e.g. `30s`, `10min` (sets
    /// `limits.wall_time`); the summary so far is still written, marked partial.
    #[arg(long, value_name = "TIME")]
    timeout: Option<String>,
    /// Stop the run at this simulated time, e.g. `50us` (sets `limits.simulated_time`): every
    /// event up to it is processed, none after it; the summary so far is written, marked
    /// partial.
    #[arg(long, value_name = "TIME")]
    until: Option<String>,
    /// Threads that simulate the network's partitions (sets `engine.threads`; default: every
    /// core, no more than the partitions: a network too small to gain runs on one). Any count
    /// prints the same results: only the wall time changes. The flow model runs in one
    /// partition, on one thread.
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Partitions the network is cut into (sets `engine.partitions`; default: one per thread,
    /// as far as the network gains, about 1024 routers a partition, by slabs, groups or pods).
    /// A thread runs its partitions as one. Any count prints the same results.
    #[arg(long, value_name = "N")]
    partitions: Option<u32>,
    /// Simulate the partitions as N processes would (sets `engine.processes`): partitions of
    /// different processes share no record, and what one needs of another's crosses as bytes
    /// with the cut messages. At least N partitions. Any count prints the same results.
    #[arg(long, value_name = "N")]
    processes: Option<u32>,
}

/// What a run records beyond its summary.
#[derive(clap::Args)]
struct ProbeArgs {
    /// Time × space statistics: write links_timeseries.csv to the output folder, one line per
    /// link and window of this width (e.g. `10us`) in which it carried something.
    #[arg(long, value_name = "TIME", requires = "out")]
    interval: Option<String>,
    /// Buffer history: write buffer_history.csv to the output folder, one line per packet
    /// through the input buffers of a router in a period, e.g. `router=12,from=0,to=50us`
    /// (`from` and `to` may be left out). May be repeated.
    #[arg(long, value_name = "SPEC", requires = "out")]
    buffer_history: Vec<String>,
    /// Write a timeline of the ranks to FILE (Chrome trace-event JSON; open it in
    /// ui.perfetto.dev or chrome://tracing).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Also draw SVG pictures into the output folder: a heat map of link utilization over
    /// time and a timeline of the ranks (records what they need: the time series, with an
    /// adaptive width unless --interval is given, and the timeline).
    #[arg(long, requires = "out")]
    plots: bool,
    /// Where the ranks' time went: time and count per API call and per region, least, mean
    /// and most over the ranks (as mpiP gives for MPI), in the summary, summary.json and, with
    /// --out, profile.csv and report.html (which record it unasked up to 65,536 ranks).
    #[arg(long)]
    profile: bool,
}

impl ProbeArgs {
    fn probes(&self) -> Result<mgensim::Probes> {
        mgensim::run::Records {
            interval: self.interval.clone(),
            buffer_history: self.buffer_history.clone(),
            plots: self.plots,
            trace: self.trace.is_some(),
            profile: self.profile,
        }
        .probes()
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario and print the prediction.
    Run {
        #[command(flatten)]
        args: ScenarioArgs,
        /// Print the summary as one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Write the summary to FILE instead of stdout (JSON if FILE ends in `.json` or with
        /// `--json`), whole or not at all.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
        /// Also write an output folder DIR (its files: see --help).
        #[arg(long, value_name = "DIR", long_help = folder_help())]
        out: Option<PathBuf>,
        /// No progress line (there is none anyway when stderr is not a terminal).
        #[arg(long, short = 'q')]
        quiet: bool,
        /// With `[power]`: run the scenario a second time with links always on, and report
        /// energy, power and time as ratios to it (TraceRP's figure 2).
        #[arg(long)]
        power_baseline: bool,
        #[command(flatten)]
        probes: ProbeArgs,
    },
    /// Run a scenario over a grid of key values, in parallel, into DIR/sweep.csv and a line
    /// plot DIR/sweep.svg of the predicted time (or --y) against the first varied key, one
    /// line per value of the others.
    ///
    /// Each point records its network (family, shape, routers, nodes, links); a sweep whose
    /// points differ in node count says so before it runs.
    ///
    /// Example: mgensim sweep scenarios/barrier.toml --vary workload.ranks=2..512:x2
    /// --vary workload.args.algo=ring,rd
    Sweep {
        /// The scenario file (TOML); none with --merge. Several files are an axis of their
        /// own, the first (`scenario`), as `--vary scenario=a.toml,b.toml` is.
        #[arg(required_unless_present = "merge", num_args = 1..)]
        scenario: Vec<PathBuf>,
        /// A key and its values: a list (`ring,rd`, `[4,4],[8,8]`) or an integer range
        /// (`2..512:x2` times 2, `1..64:+8` plus 8, `1..8`). May be repeated: the grid is
        /// every combination, the first key outermost.
        #[arg(long = "vary", value_name = "KEY=VALUES")]
        vary: Vec<String>,
        /// Keys varied together, value by value, as one more axis after the --vary ones: e.g.
        /// `--zip network.topology=torus,fattree --zip network.dims=[8,8,8],[4,4]` runs a torus
        /// 8x8x8 and a fat tree with dims [4,4], not all four combinations. Each --zip must
        /// have as many values. May be repeated.
        #[arg(long = "zip", value_name = "KEY=VALUES")]
        zip: Vec<String>,
        /// Key overrides for every point, as for `run` (`--timeout` applies to each point,
        /// which is then recorded as failed).
        #[command(flatten)]
        over: Overrides,
        /// With `[power]`: also run every point with links always on and add energy_ratio,
        /// power_ratio and time_ratio columns (TraceRP's normalized axes).
        #[arg(long)]
        power_baseline: bool,
        /// Points run at once (default: one per core). The results do not depend on it.
        #[arg(long, short = 'j', value_name = "N")]
        jobs: Option<usize>,
        /// Run only one shard of the points (see --help); join the shards with --merge.
        #[arg(long, value_name = "I/N", long_help = shard_help())]
        shard: Option<String>,
        /// Join the CSV files of a sweep's shards into DIR/sweep.csv and its plot. Every shard
        /// of the set must be there (by the names --shard gives them, and no point missing
        /// between the first and the last), unless --allow-missing.
        #[arg(long, num_args = 1.., value_name = "CSV", conflicts_with_all = ["scenario", "vary", "zip", "shard"])]
        merge: Vec<PathBuf>,
        /// With --merge: join the shards given even if some of the set are missing.
        #[arg(long, requires = "merge")]
        allow_missing: bool,
        /// The folder to write into.
        #[arg(long, value_name = "DIR", default_value = "sweep")]
        out: PathBuf,
        /// The column to plot: predicted_time_ps (in us), events, link_efficiency, or a value
        /// the script reports with MGEN_report (e.g. bandwidth_GBps).
        #[arg(long, value_name = "COLUMN", default_value = "predicted_time_ps")]
        y: String,
        /// Also print the --y column as a table in readable units: a row per value of the
        /// varied keys but the last, a column per value of the last (`14.4 us`, not
        /// 14391540 ps).
        #[arg(long)]
        table: bool,
        /// No progress.
        #[arg(long, short = 'q')]
        quiet: bool,
    },
    /// Redraw the pictures of an output folder (heatmap.svg from links_timeseries.csv,
    /// timeline.svg from trace.json).
    Plot {
        /// The output folder of `mgensim run --out DIR --plots` (or with --interval and a
        /// trace written to DIR/trace.json).
        dir: PathBuf,
    },
    /// Check a scenario and compile its script without running it.
    Check {
        /// The scenario file (TOML).
        scenario: PathBuf,
        #[command(flatten)]
        keys: KeyArgs,
    },
    /// Replay a SimGrid time-independent trace (`smpirun -trace-ti`'s: an index naming a file
    /// per rank, or one file), as `smpirun -replay` does, on the network --set gives or a
    /// scenario's (--scenario FILE); prints the prediction as `run` does. The same run as a
    /// scenario with `[workload] trace = FILE`.
    ///
    /// Example: mgensim replay app.txt --set network.dims=[4,4] --set workload.args.flops=2e9
    Replay(cli::replay::ReplayCommand),
    /// Load-latency curves of synthetic traffic: each scenario (and point of --vary) run at
    /// each load, in parallel, its saturation found by a search to --precision; writes
    /// DIR/curve.csv, DIR/saturation.csv and DIR/curve.svg (one line per case).
    ///
    /// Example: mgensim curve scenarios/hyperx_traffic.toml --loads 0.05..1.0
    /// --vary network.routing=minimal,up_down
    Curve(cli::curve::CurveCommand),
}

fn load(a: &ScenarioArgs) -> Result<Scenario> {
    cli::replay::load(a, &Source::Scenario, &overrides(&a.over.keys, &a.over.run)?)
}

/// The `--set`s of the command line, with `--seed`, `--timeout` and the others as keys.
fn overrides(k: &KeyArgs, a: &RunArgs) -> Result<Vec<String>> {
    mgensim::run::Options {
        seed: k.seed,
        timeout: a.timeout.clone(),
        threads: a.threads,
        partitions: a.partitions,
        until: a.until.clone(),
    }
    .sets(&k.set)
    .map(|mut set| {
        set.extend(a.processes.map(|n| format!("engine.processes={n}")));
        set
    })
}

#[allow(clippy::too_many_arguments)]
fn sweep(
    args: &ScenarioArgs,
    files: &[PathBuf],
    vary: &[String],
    zip: &[String],
    jobs: Option<usize>,
    shard: Option<&str>,
    out: &Path,
    y: &str,
    table: bool,
    quiet: bool,
    power_baseline: bool,
) -> Result<Exit> {
    use mgensim::sweep::{self, Sweep};
    let mut axes = sweep::files_axis(files);
    for v in vary {
        axes.push(sweep::parse_axis(v)?);
    }
    axes.extend(sweep::parse_zip(zip)?);
    if axes.is_empty() {
        anyhow::bail!("nothing to vary: give --vary KEY=VALUES, --zip or several scenario files");
    }
    sweep::check_axes(&axes)?;
    let text = mgensim::read_source(&args.scenario)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("cannot read scenario {}", args.scenario.display()))?;
    let sw = Sweep {
        path: args.scenario.clone(),
        text,
        sets: overrides(&args.over.keys, &args.over.run)?,
        axes,
        allow_io: args.over.keys.allow_io,
        power_baseline,
    };
    let total = sweep::grid(&sw.axes).len();
    let (which, name): (Vec<usize>, String) = match shard {
        Some(s) => {
            let (i, n) = sweep::parse_shard(s)?;
            (
                (0..total).filter(|&p| sweep::in_shard(p, i, n)).collect(),
                format!("sweep.shard-{i}-of-{n}"),
            )
        }
        None => ((0..total).collect(), "sweep".to_string()),
    };
    let threads =
        jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let stop = interrupt_flag(None);
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::with_draw_target(
            Some(which.len() as u64),
            indicatif::ProgressDrawTarget::stderr_with_hz(4),
        );
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} points  {elapsed}  {msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let show = |o: &sweep::Outcome| {
        let what = match &o.result {
            Ok(f) => format!("{}", mgensim::units::Time(f.predicted_time_ps)),
            Err(e) => format!("failed: {}", e.lines().next().unwrap_or("")),
        };
        let line = format!("point {} ({}): {what}", o.point, sw.describe(&o.values));
        match &bar {
            Some(b) => {
                b.inc(1);
                b.set_message(line);
            }
            None if !quiet => eprintln!("{line}"),
            None => {}
        }
    };
    // every point's scenario is read before any runs: a typo fails at once, warnings first
    let prepared = sw.prepare(&which, Some(y))?;
    for w in &prepared.warnings {
        eprintln!("warning: {w}");
    }
    let outcomes = sw.run_prepared(&prepared, &which, threads, stop.clone(), &show)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let keys: Vec<String> = sw.axes.iter().map(|a| a.key.clone()).collect();
    let results = sweep::Table::new(&keys, &outcomes);
    let plot = (shard.is_none() && outcomes.iter().any(|o| o.result.is_ok())).then_some(y);
    let (files, skipped) = sweep::write(out, &name, &results, plot, &sw.about())?;
    if table {
        emit(&sweep::pivot(&results, y)?)?;
    }
    if let Some(why) = skipped {
        eprintln!("warning: {why}");
    }
    let failed: Vec<&sweep::Outcome> = outcomes.iter().filter(|o| o.result.is_err()).collect();
    for o in &failed {
        eprintln!(
            "error: point {} ({}): {}",
            o.point,
            sw.describe(&o.values),
            o.result.as_ref().err().map_or("", |e| e.as_str())
        );
    }
    emit(&format!(
        "{}: wrote {} ({} of {} points, {} failed)\n",
        out.display(),
        files.join(", "),
        outcomes.len(),
        which.len(),
        failed.len()
    ))?;
    Ok(if stop.load(Ordering::SeqCst) {
        Exit::Interrupted
    } else if failed.is_empty() {
        Exit::Ok
    } else {
        Exit::Failed
    })
}

fn merge_shards(
    files: &[PathBuf],
    out: &Path,
    y: &str,
    table: bool,
    allow_missing: bool,
) -> Result<Exit> {
    let joined = mgensim::sweep::join(files, out, y, allow_missing)?;
    if table {
        emit(&mgensim::sweep::pivot(&joined.table, y)?)?;
    }
    for w in &joined.warnings {
        eprintln!("warning: {w}");
    }
    emit(&format!(
        "{}: wrote {} ({} points from {} files)\n",
        out.display(),
        joined.written.join(", "),
        joined.table.rows.len(),
        files.len()
    ))?;
    Ok(Exit::Ok)
}

/// How a run ended, as the process's exit status.
#[derive(Clone, Copy)]
enum Exit {
    Ok = 0,
    /// Bad scenario, script error, deadlock.
    Failed = 1,
    /// A limit stopped the run (the summary written is partial).
    Limit = 3,
    /// Ctrl-C / SIGTERM (the summary written is partial).
    Interrupted = 130,
}

#[allow(clippy::too_many_arguments)]
fn run(
    args: &ScenarioArgs,
    source: &Source,
    json: bool,
    output: Option<&Path>,
    out: Option<&Path>,
    quiet: bool,
    probe: &ProbeArgs,
    power_baseline: bool,
) -> Result<Exit> {
    let mut probes = probe.probes()?;
    // an output folder has report.html: small runs record its pictures unasked
    probes.report = out.is_some();
    // (--timeout covers reading the scenario and what it names too: a pipe as a placement
    // map under --allow-io could wait forever)
    let given = args
        .over
        .run
        .timeout
        .as_deref()
        .map(|t| {
            mgensim::run::seconds_if_bare(t)
                .parse::<mgensim::units::Time>()
                .with_context(|| format!("--timeout {t}"))
        })
        .transpose()?;
    // a signal or the wall clock during the set-up ends the process (nothing is computed
    // yet); afterwards, the engine stops and writes what it has
    let setup_over = Arc::new(AtomicBool::new(false));
    let interrupt = interrupt_flag(Some((
        args.scenario.display().to_string(),
        setup_over.clone(),
    )));
    if let Some(t) = given {
        watch_setup(&args.scenario, t, &setup_over);
    }
    let scenario = cli::replay::load(args, source, &overrides(&args.over.keys, &args.over.run)?)?;
    // what reading the scenario found to warn of is said before the run (a replay's misspelt
    // argument: hours before a long trace ends), not again at its end
    // (in an MPI job, by its first process only)
    for w in scenario.notes.iter().filter(|_| mgensim::run::speaks()) {
        eprintln!("warning: {}", mgensim::escaped(w));
    }
    let said = scenario.notes.clone();
    let baseline = power_baseline
        .then(|| mgensim::run::baseline_of(&scenario, &args.scenario.display().to_string()))
        .transpose()?;
    if given.is_none() {
        watch_setup(&args.scenario, scenario.wall_time(), &setup_over);
    }
    let mut sim = mgensim::run::simulation(
        &scenario,
        &mgensim::run::Setup {
            probes,
            interrupt: Some(interrupt),
            wall_from: STARTED.get().copied(),
            // (a baseline run comes after: it must not find this run's memory still held)
            last_in_process: baseline.is_none(),
        },
    )?;
    setup_over.store(true, Ordering::SeqCst);
    let bar = (!quiet && std::io::stderr().is_terminal() && mgensim::run::speaks())
        .then(|| progress_line(&mut sim));
    let json = json || output.is_some_and(|o| o.extension().is_some_and(|e| e == "json"));
    let write = |report: &mut Report| -> Result<()> {
        let _writing = mgensim::output::writing();
        // `host` covers the whole process: setting up, the run, and (for the printed summary)
        // writing the outputs
        let origin = STARTED.get().copied();
        if let Some(t) = origin {
            report.measure_host(t.elapsed());
        }
        // a run stopped promptly (a signal, the wall clock) kept neither record the pictures
        // are drawn from: its set is written without them
        let pictures = mgensim::run::pictures(report, probe.plots, out.is_some());
        for w in report.warnings.iter().filter(|w| !said.contains(w)) {
            // (a warning may quote a script's words: a trace's note)
            eprintln!("warning: {}", mgensim::escaped(w));
        }
        if let Some(dir) = out {
            // the pictures are drawn from the staged folder: it gets the trace too
            mgensim::run::write_folder(dir, report, probe.plots, pictures)?;
        }
        if let (Some(trace), Some(path)) = (&report.trace, &probe.trace) {
            mgensim::output::write_atomic(path, trace.as_bytes())
                .with_context(|| format!("cannot write the trace {}", path.display()))?;
        }
        if let Some(t) = origin {
            report.measure_host(t.elapsed());
        }
        let text = mgensim::run::summary(report, json)?;
        match output {
            Some(path) => mgensim::output::write_atomic(path, text.as_bytes())
                .with_context(|| format!("cannot write {}", path.display())),
            None => emit(&text),
        }
    };
    // a signal while the outputs are written abandons them: the process ends as interrupted
    let written = |r: Result<()>| -> Result<Option<Exit>> {
        match r {
            Err(e) if mgensim::output::abort_requested() => {
                eprintln!("error: {e:#}");
                Ok(Some(Exit::Interrupted))
            }
            Err(e) => Err(e),
            Ok(()) if mgensim::output::abort_requested() => Ok(Some(Exit::Interrupted)),
            Ok(()) => Ok(None),
        }
    };
    let result = sim.run();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(mut report) => {
            if let Some(base) = baseline {
                mgensim::run::compare_with_baseline(&mut report, &base, true)?;
            }
            if let Some(exit) = written(write(&mut report))? {
                return Ok(exit);
            }
            Ok(Exit::Ok)
        }
        Err(e) => {
            // what was computed is not lost: the partial summary first, then why it stopped
            if let Some(mut partial) = e.partial {
                if let Some(exit) = written(write(&mut partial))? {
                    eprintln!("error: {}: {}", args.scenario.display(), e.stop);
                    return Ok(exit);
                }
            }
            eprintln!("error: {}: {}", args.scenario.display(), e.stop);
            Ok(match e.stop {
                Stop::Limit {
                    limit: Limit::Interrupt,
                    ..
                } => Exit::Interrupted,
                Stop::Limit { .. } => Exit::Limit,
                _ => Exit::Failed,
            })
        }
    }
}

fn real_main() -> Result<Exit> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            args,
            json,
            output,
            out,
            quiet,
            power_baseline,
            probes,
        } => {
            return run(
                &args,
                &Source::Scenario,
                json,
                output.as_deref(),
                out.as_deref(),
                quiet,
                &probes,
                power_baseline,
            )
        }
        Command::Sweep {
            scenario,
            vary,
            zip,
            over,
            power_baseline,
            jobs,
            shard,
            merge,
            allow_missing,
            out,
            y,
            table,
            quiet,
        } => {
            if !merge.is_empty() {
                return merge_shards(&merge, &out, &y, table, allow_missing);
            }
            let args = ScenarioArgs {
                scenario: scenario.first().cloned().context("no scenario file")?,
                over,
            };
            return sweep(
                &args,
                &scenario,
                &vary,
                &zip,
                jobs,
                shard.as_deref(),
                &out,
                &y,
                table,
                quiet,
                power_baseline,
            );
        }
        Command::Curve(c) => return cli::curve::run(&c),
        Command::Plot { dir } => {
            let files = mgensim::output::draw_folder(&dir)?;
            emit(&format!("{}: wrote {}\n", dir.display(), files.join(", ")))?;
        }
        Command::Replay(r) => {
            let args = ScenarioArgs {
                scenario: r.trace_file,
                over: r.over,
            };
            let source = Source::Trace(r.scenario.as_deref());
            let (output, out) = (r.output.as_deref(), r.out.as_deref());
            let (json, quiet, baseline) = (r.json, r.quiet, r.power_baseline);
            return run(
                &args, &source, json, output, out, quiet, &r.probes, baseline,
            );
        }
        Command::Check {
            scenario: path,
            keys,
        } => {
            let args = ScenarioArgs {
                scenario: path.clone(),
                over: Overrides {
                    keys,
                    run: RunArgs::default(),
                },
            };
            let scenario = load(&args)?;
            for note in &scenario.notes {
                eprintln!("warning: {}", mgensim::escaped(note));
            }
            // (a misspelt API name fails only when the line runs: found here before)
            mgensim::run::check(&scenario)?;
            emit(&format!(
                "{}: ok ({} ranks on {} nodes, script {})\n",
                path.display(),
                scenario.ranks(),
                scenario.nodes(),
                scenario.scripts().join(", ")
            ))?;
        }
    }
    Ok(Exit::Ok)
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
    STARTED.get_or_init(std::time::Instant::now);
    mgensim::map_large_blocks();
    let status = match real_main() {
        Ok(exit) => exit as u8,
        Err(e) => {
            eprintln!("error: {e:#}");
            1
        }
    };
    // (in an MPI job the other processes end now, with this status: all is said)
    let _ = std::io::stdout().flush();
    mgensim::run::end_job(status);
    ExitCode::from(status)
}

/// The files of an output folder, a line each, as `run --help` lists them after `--out`.
fn folder_help() -> String {
    let width = mgensim::output::FOLDER
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0);
    let lines: Vec<String> = mgensim::output::FOLDER
        .iter()
        .map(|(name, what)| format!("  {name:<width$}  {what}"))
        .collect();
    format!(
        "Also write an output folder DIR, whole files or none (for partial runs too); columns \
         in the README. It holds:\n{}",
        lines.join("\n")
    )
}

/// `sweep --shard`'s help: which points a shard runs (`mgensim::sweep::in_shard`).
fn shard_help() -> String {
    format!(
        "Run only {} (1 <= I <= N), e.g. one task of a 1-based job array \
         (--shard $SLURM_ARRAY_TASK_ID/32); writes DIR/sweep.shard-I-of-N.csv. Join the shards \
         with --merge.",
        mgensim::sweep::SHARD_RULE
    )
}
