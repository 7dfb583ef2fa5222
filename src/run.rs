//! What `mgensim run`, `check` and `sweep` do around the engine, in one place for every front
//! end: the command line (`main.rs`) and the Python module (`python/`) both call these, so the
//! two cannot drift apart. Nothing here is new work for the engine.
//!
//! A run, as `mgensim run` makes it:
//! 1. the scenario with the run's options as keys ([`Options::sets`]: `--seed`, `--timeout`,
//!    `--threads`, `--partitions`, `--until` are `--set`s of `workload.seed`,
//!    `limits.wall_time`, ...);
//! 2. the simulation, with what it records and what stops it ([`simulation`]);
//! 3. with `--power-baseline`, the same scenario with links always on, run after it, and the
//!    ratios to it ([`baseline_of`], [`compare_with_baseline`]);
//! 4. the outputs: the summary as text or JSON ([`summary`]) and the output folder
//!    ([`pictures`], [`write_folder`]).
//!
//! ```
//! use mgensim::run::{self, Options, Setup};
//! let opts = Options { seed: Some(7), until: Some("10us".into()), ..Options::default() };
//! let sets = opts.sets(&["network.dims=[4,4]".to_string()]).unwrap();
//! assert_eq!(sets[1], "workload.seed=7");
//! let s = mgensim::Scenario::from_str_with(
//!     "[workload]\ncode = 'MGEN_Comp(1e-6)'\n", std::path::Path::new("doc.toml"), &sets, false).unwrap();
//! let report = run::simulation(&s, &Setup::default()).unwrap().run().unwrap();
//! assert_eq!(report.predicted_time_ps, 1_000_000);
//! assert!(run::summary(&report, true).unwrap().starts_with("{\n  \"scenario\": \"doc.toml\""));
//! ```

use crate::probe::Probes;
use crate::units::Time;
use crate::{Report, Scenario, Simulation};
use anyhow::{Context, Result};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// A run's options that are scenario keys: each sets the key `--set` would.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `--seed`: `workload.seed`.
    pub seed: Option<u64>,
    /// `--timeout`: `limits.wall_time`, a time (`30s`, `10min`), a bare number being seconds.
    pub timeout: Option<String>,
    /// `--threads`: `engine.threads`.
    pub threads: Option<u32>,
    /// `--partitions`: `engine.partitions`.
    pub partitions: Option<u32>,
    /// `--until`: `limits.simulated_time`, a time with its unit (`50us`).
    pub until: Option<String>,
}

impl Options {
    /// `sets` (`KEY=VALUE`, as `--set` takes them) followed by the keys these options set, in
    /// the order above. A time that cannot be read is an error naming the option
    /// (`--until 3 parsecs: ...`).
    pub fn sets(&self, sets: &[String]) -> Result<Vec<String>> {
        let mut set = sets.to_vec();
        if let Some(seed) = self.seed {
            set.push(format!("workload.seed={seed}"));
        }
        if let Some(t) = &self.timeout {
            let t = seconds_if_bare(t);
            Time::parse(&t).with_context(|| format!("--timeout {t}"))?;
            set.push(format!("limits.wall_time={}", toml::Value::String(t)));
        }
        if let Some(n) = self.threads {
            set.push(format!("engine.threads={n}"));
        }
        if let Some(n) = self.partitions {
            set.push(format!("engine.partitions={n}"));
        }
        if let Some(t) = &self.until {
            Time::parse(t).with_context(|| format!("--until {t}"))?;
            set.push(format!(
                "limits.simulated_time={}",
                toml::Value::String(t.clone())
            ));
        }
        Ok(set)
    }
}

/// A time given as an option: a bare number is seconds (`30` is `30 s`); anything else is
/// left as written (`30s` as well as `30 s`).
pub fn seconds_if_bare(t: &str) -> String {
    if t.trim().parse::<f64>().is_ok() {
        format!("{t} s")
    } else {
        t.to_string()
    }
}

/// What a run records beyond its summary, as the options of `mgensim run` ask for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Records {
    /// `--interval`: the width of the links' time series windows (`10us`).
    pub interval: Option<String>,
    /// `--buffer-history`: the routers whose input buffers to watch, and when
    /// (`router=12,from=0,to=50us`).
    pub buffer_history: Vec<String>,
    /// `--plots`: what the pictures are drawn from (the timeline, and a time series of
    /// adaptive width unless `interval` gives one).
    pub plots: bool,
    /// `--trace`: the ranks' timeline.
    pub trace: bool,
    /// `--profile`: time per API call and region.
    pub profile: bool,
}

impl Records {
    /// The probes these ask for (without `report`). Errors name the option
    /// (`--interval 10 parsecs: ...`).
    pub fn probes(&self) -> Result<Probes> {
        let interval = match &self.interval {
            Some(t) => Some(Time::parse(t).with_context(|| format!("--interval {t}"))?),
            None => None,
        };
        let buffer_history = self
            .buffer_history
            .iter()
            .map(|s| {
                crate::probe::parse_watch(s)
                    .map_err(|e| anyhow::anyhow!("--buffer-history {s}: {e}"))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Probes {
            interval,
            adaptive: self.plots,
            buffer_history,
            trace: self.trace || self.plots,
            profile: self.profile,
            report: false,
        })
    }
}

/// What a run records and what may stop it, beyond its scenario.
#[derive(Clone, Debug, Default)]
pub struct Setup {
    /// What to record beyond the summary (`--profile`, `--interval`, ...; `report` when an
    /// output folder, and so `report.html`, is written).
    pub probes: Probes,
    /// Set by another thread (a signal handler, a notebook's interrupt) to stop the run: it
    /// stops promptly with its figures so far, marked partial.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// `limits.wall_time` counts from here (the process's start for the command line); from
    /// the run's own start when None.
    pub wall_from: Option<Instant>,
    /// The process ends right after this run: its memory is left to the operating system
    /// ([`Simulation::last_in_process`]). Never for a process that goes on.
    pub last_in_process: bool,
}

/// The simulation of `s` as `mgensim run` makes it: built (network, ranks, scripts compiled),
/// recording what `setup.probes` asks for and watching `setup.interrupt`. Errors name what
/// could not be built (memory, a router a probe names, a script that does not compile).
pub fn simulation(s: &Scenario, setup: &Setup) -> Result<Simulation> {
    let world = one_process()?;
    let threads = s.engine.threads;
    let built = || -> Result<Simulation> {
        Ok(match world.size() {
            1 => Simulation::new(s)?,
            p => {
                // (each process builds the whole model as P process groups and runs its own)
                // (and each runs its partitions on the threads asked, one if none are: a
                // launcher starts a process per core)
                let mut s = s.clone();
                s.engine.processes = p;
                s.engine.process = Some(world.rank());
                s.engine.threads = s.engine.threads.max(1).saturating_mul(p);
                if s.engine.partitions > 0 && s.engine.partitions < p {
                    anyhow::bail!(
                    "engine.partitions = {}: a run on {p} MPI processes needs {p} partitions at \
                     least (one per process): raise engine.partitions (--partitions) or start \
                     fewer processes",
                    s.engine.partitions
                );
                }
                let sim = Simulation::new(&s)?;
                if sim.processes() != p {
                    anyhow::bail!(
                        "this run was started as {p} MPI processes, but the network is simulated \
                         as {}",
                        match sim.processes() {
                            1 => "one partition: start one process".to_string(),
                            n => format!("{n} partitions: start at most that many processes"),
                        }
                    );
                }
                sim
            }
        })
    };
    let mut sim = match built() {
        Ok(sim) => sim,
        // (every process builds the same model and fails alike: the root alone says why)
        Err(_) if !world.is_root() => crate::engine::world::follow_root(world),
        Err(e) => {
            // (the others wait for the root's status until it has said why)
            crate::engine::world::hold(world);
            return Err(e);
        }
    };
    sim.spread_over(world, threads.max(1));
    if let Some(start) = setup.wall_from {
        sim.count_wall_time_from(start);
    }
    if setup.last_in_process {
        sim.last_in_process();
    }
    sim.probe(&setup.probes)?;
    if let Some(flag) = &setup.interrupt {
        sim.set_interrupt(flag.clone());
    }
    Ok(sim)
}

/// The processes this run is spread over: one, or (in a build with `--features mpi`) the MPI
/// job a launcher started. A build without MPI refuses a run started as several processes:
/// each would run the whole simulation alone and write the same outputs.
fn one_process() -> Result<crate::engine::world::World> {
    let world = crate::engine::world::World::join()?;
    if world.size() > 1 && !cfg!(feature = "mpi") {
        // (unreachable: `World::join` refuses it in a build without MPI)
        anyhow::bail!("this mgensim was built without MPI");
    }
    Ok(world)
}

/// The end of the process's part of an MPI job (nothing in any other run): called by the
/// root once every output is written and every error printed, with the exit `status` it is
/// about to end with. The other processes wait for it in a run's last step and end with the
/// same status; a root that never calls it leaves them waiting.
pub fn end_job(status: u8) {
    crate::engine::world::end_job(status);
}

/// Whether this process prints what a run says besides its errors (the scenario's warnings,
/// progress): every process but those of an MPI job other than its root, which writes
/// everything.
pub fn speaks() -> bool {
    !crate::engine::world::follower()
}

/// `mgensim check`'s look at a scenario beyond reading it: its network and ranks built, its
/// scripts compiled, and the `MGEN_` names they use that the API does not have (each a line
/// with a "did you mean").
pub fn check(s: &Scenario) -> Result<()> {
    Simulation::new(s)?;
    let unknown = crate::unknown_api_names(s);
    if !unknown.is_empty() {
        anyhow::bail!("{}", unknown.join("\n"));
    }
    Ok(())
}

/// `--power-baseline`: scenario `s` (named `name` in the message) with links always on. An
/// error when `s` has no `[power]` with links that sleep.
pub fn baseline_of(s: &Scenario, name: &str) -> Result<Scenario> {
    let mut base = s.clone();
    match base.power.as_mut() {
        Some(p) if p.enabled => p.enabled = false,
        _ => anyhow::bail!(
            "--power-baseline compares with links that sleep: {name} has no `[power]` with \
             enabled = true (add `[power]`, or --set power.enabled=true)"
        ),
    }
    Ok(base)
}

/// Runs `base` (from [`baseline_of`]) and gives `report`'s energy, power and time as ratios
/// to it (TraceRP's figure 2). `last_in_process` as in [`Setup`].
pub fn compare_with_baseline(
    report: &mut Report,
    base: &Scenario,
    last_in_process: bool,
) -> Result<()> {
    let mut b = Simulation::new(base)?;
    if last_in_process {
        b.last_in_process();
    }
    let b = b
        .run()
        .map_err(|e| anyhow::anyhow!("the baseline run (links always on): {}", e.stop))?;
    let t = report.predicted_time_ps;
    if let Some(p) = report.power.as_mut() {
        p.compare(t, &b);
    }
    Ok(())
}

/// The summary as `mgensim run` prints it: the text, or with `json` the JSON object
/// (`summary.json`, `--json`), each ending in a line break.
pub fn summary(report: &Report, json: bool) -> Result<String> {
    Ok(if json {
        serde_json::to_string_pretty(report)? + "\n"
    } else {
        report.to_string()
    })
}

/// Whether the output folder of a run that asked for `--plots` gets its pictures: only if the
/// run kept the records they are drawn from (a run stopped promptly, by a signal or the wall
/// clock, keeps neither). When it did not, and a `folder` is written, says so among the
/// report's warnings.
pub fn pictures(report: &mut Report, plots: bool, folder: bool) -> bool {
    let pictures = plots && (report.series.is_some() || report.trace.is_some());
    if plots && !pictures && folder {
        report.warnings.push(
            "--plots: no pictures drawn: the run stopped before the records they are drawn \
             from were written"
                .into(),
        );
    }
    pictures
}

/// Writes `report`'s output folder `dir` (`--out`), whole or not at all (`output.rs`): the
/// summary, the CSV files, `report.html`, and with `plots` the timeline (`trace.json`) and,
/// if `pictures` (from [`pictures`]), the SVG pictures drawn from the staged files.
pub fn write_folder(dir: &Path, report: &Report, plots: bool, pictures: bool) -> Result<()> {
    let trace = report.trace.as_deref().filter(|_| plots);
    crate::output::write_set(dir, report, trace, |stage| {
        if !pictures {
            return Ok(());
        }
        // (a message names the files as they will be, in DIR, not the staging folder)
        crate::output::draw_folder(stage).map(|_| ()).map_err(|e| {
            let shown =
                format!("{e:#}").replace(&stage.display().to_string(), &dir.display().to_string());
            std::io::Error::other(shown)
        })
    })
    .with_context(|| format!("cannot write the output folder {}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_the_keys_set_would_set_in_order() {
        let o = Options {
            seed: Some(3),
            timeout: Some("1.5".into()),
            threads: Some(2),
            partitions: Some(4),
            until: Some("50us".into()),
        };
        let sets = o.sets(&["network.dims=[4]".into()]).unwrap();
        assert_eq!(
            sets,
            [
                "network.dims=[4]",
                "workload.seed=3",
                "limits.wall_time=\"1.5 s\"",
                "engine.threads=2",
                "engine.partitions=4",
                "limits.simulated_time=\"50us\""
            ]
        );
        let bad = Options {
            until: Some("3 parsecs".into()),
            ..Options::default()
        };
        let e = format!("{:#}", bad.sets(&[]).unwrap_err());
        assert!(e.starts_with("--until 3 parsecs: "), "{e}");
    }

    #[test]
    fn a_baseline_needs_links_that_sleep() {
        let s = Scenario::from_str_with(
            "[network]\ndims = [2]\n[workload]\ncode = ''\n",
            Path::new("b.toml"),
            &[],
            false,
        )
        .unwrap();
        let e = baseline_of(&s, "b.toml").unwrap_err().to_string();
        assert!(e.contains("b.toml has no `[power]`"), "{e}");
        let s = Scenario::from_str_with(
            "[network]\ndims = [2]\n[power]\n[workload]\ncode = ''\n",
            Path::new("b.toml"),
            &[],
            false,
        )
        .unwrap();
        assert!(!baseline_of(&s, "b.toml").unwrap().power.unwrap().enabled);
    }
}

#[cfg(test)]
#[path = "run/pack_tests.rs"]
mod pack_tests;
