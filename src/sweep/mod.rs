//! Parameter sweeps (`mgensim sweep`): run a scenario over a grid of key values, in parallel,
//! and tabulate what each point predicts.
//!
//! A grid is the product of `--vary KEY=VALUES`, the first key outermost. VALUES is a list
//! (`ring,rd`, `[4,4],[8,8]`: commas inside brackets do not split) or an integer range:
//! `2..512:x2` (times 2), `1..10:+3` (plus 3), `1..8` (plus 1); ends are included when a step
//! lands on them. Each value is a TOML literal, or a string when it is a bare word, as for
//! `--set`. The key [`SCENARIO`] varies the scenario file itself (several files on the command
//! line are that axis, first).
//!
//! Every point's scenario is read before any runs: a bad key stops the sweep at once, and
//! what the sweep warns of is said once, at the start (`record.rs`: machines of different
//! sizes, keys left out). Each point's network is recorded beside its figures.
//!
//! Points run on worker threads, each with its own simulation (and Lua state). Results are
//! put back in point order, and the table holds only what the model computed (no wall times),
//! so `sweep.csv` is the same byte for byte whatever the number of threads. `--shard i/n`
//! runs the points whose number (0 first, as `point` in the table) is `i − 1` modulo `n`
//! ([`in_shard`]); [`merge`] joins the shards' tables.

mod chart;
mod columns;
mod grid;
mod pivot;
mod record;
mod shards;
mod table;

use crate::config::Scenario;
use crate::engine::Simulation;
use crate::Report;
use anyhow::{bail, Context, Result};
pub use chart::plot;
pub use grid::{check_axes, grid, parse_axis, parse_shard, parse_zip, Axis};
pub use pivot::pivot;
pub(crate) use record::Record;
pub use shards::{join, Joined};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
pub(crate) use table::missing_shards;
pub use table::{merge, write, Table};

/// The key of an axis of scenario files (`--vary scenario=a.toml,b.toml`): each point reads
/// its own file (relative to where mgensim runs), the `--set`s and other keys applied to it.
pub(crate) const SCENARIO: &str = "scenario";

/// The axis of scenario files a sweep given several (`mgensim sweep a.toml b.toml ...`) has
/// first; none for one file. A path that would not read back as itself is TOML-quoted.
pub fn files_axis(files: &[std::path::PathBuf]) -> Vec<Axis> {
    if files.len() < 2 {
        return Vec::new();
    }
    let values = files
        .iter()
        .map(|f| {
            let raw = f.to_string_lossy().into_owned();
            if table::shown(&raw) == raw && !raw.is_empty() {
                raw
            } else {
                toml::Value::String(raw).to_string()
            }
        })
        .collect();
    vec![Axis {
        key: SCENARIO.to_string(),
        values,
        zipped: false,
    }]
}

/// What one point predicted, or why it failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The point's number in the grid (0 first).
    pub point: usize,
    /// The value of each varied key.
    pub values: Vec<String>,
    /// Its network (`None` only where its scenario could not be read).
    pub record: Option<Record>,
    /// Its figures, or why it failed.
    pub result: std::result::Result<Figures, String>,
}

/// The model's figures of one run (nothing from the host, so that they repeat).
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// Predicted time (ps).
    pub predicted_time_ps: u64,
    /// Events processed.
    pub(crate) events: u64,
    /// Packet-hops.
    pub(crate) packet_hops: u64,
    /// Bytes over all links.
    pub(crate) link_bytes: u64,
    /// Mean bandwidth of a link direction (B/s).
    pub(crate) average_link_bandwidth_bps: f64,
    /// Mean link utilization (0 to 1).
    pub(crate) link_efficiency: f64,
    /// Means of the values scripts reported, by name; with `[power]`, the energy figures
    /// (`energy_j`, `average_power_w`, `low_power_fraction`, `wakeups`) and, against the
    /// baseline, `energy_ratio`, `power_ratio`, `time_ratio`.
    pub(crate) metrics: BTreeMap<String, f64>,
}

impl Figures {
    fn of(r: &Report) -> Figures {
        Figures {
            predicted_time_ps: r.predicted_time_ps,
            events: r.network.events,
            packet_hops: r.network.packet_hops,
            link_bytes: r.network.link_bytes,
            average_link_bandwidth_bps: r.network.average_link_bandwidth_bps,
            link_efficiency: r.network.link_efficiency,
            metrics: r
                .metrics
                .iter()
                .map(|(k, m)| (k.clone(), m.mean))
                .chain(r.power.iter().flat_map(|p| {
                    [
                        ("energy_j".to_string(), p.energy_j),
                        ("average_power_w".to_string(), p.average_power_w),
                        ("low_power_fraction".to_string(), p.low_power_fraction),
                        ("wakeups".to_string(), p.wakeups as f64),
                    ]
                    .into_iter()
                    .chain(p.baseline.iter().flat_map(|b| {
                        [
                            ("energy_ratio".to_string(), b.energy_ratio),
                            ("power_ratio".to_string(), b.power_ratio),
                            ("time_ratio".to_string(), b.time_ratio),
                        ]
                    }))
                }))
                .collect(),
        }
    }
}

/// A sweep to run: the scenario, the `--set`s that apply to every point, and the axes.
pub struct Sweep {
    /// The scenario file.
    pub path: std::path::PathBuf,
    /// Its text.
    pub text: String,
    /// `--set`s applied to every point.
    pub sets: Vec<String>,
    /// The varied keys, outermost first.
    pub axes: Vec<Axis>,
    /// `--allow-io` for every point.
    pub allow_io: bool,
    /// Also run every point with links always on (`[power]` disabled) and add the ratios.
    pub power_baseline: bool,
}

impl Sweep {
    /// What the sweep is of, for its plot's title: the scenario's file name and, unless a
    /// point changes the network, the network (`barrier.toml, torus 8x8x8 (512 nodes)`); the
    /// files' names for a sweep over files.
    pub fn about(&self) -> String {
        let name = |p: &Path| {
            p.file_name().map_or_else(
                || p.display().to_string(),
                |f| f.to_string_lossy().into_owned(),
            )
        };
        if let Some(a) = self.axes.iter().find(|a| a.key == SCENARIO) {
            let files: Vec<String> = a
                .values
                .iter()
                .map(|v| name(Path::new(&table::shown(v))))
                .collect();
            return files.join(", ");
        }
        let file = name(&self.path);
        let varied = self.axes.iter().any(|a| a.key.starts_with("network."));
        match Scenario::from_str_with(&self.text, &self.path, &self.sets, self.allow_io) {
            Ok(s) if !varied => format!("{file}, {}", s.topo.describe()),
            _ => file,
        }
    }

    /// The scenario of point `values` (checked: a bad key or value is an error naming it):
    /// its file (the sweep's, or the one its [`SCENARIO`] value names) with the `--set`s and
    /// its keys' values.
    pub fn scenario(&self, values: &[String]) -> Result<Scenario> {
        let mut sets = self.sets.clone();
        let mut file = None;
        for (a, v) in self.axes.iter().zip(values) {
            if a.key == SCENARIO {
                file = Some(std::path::PathBuf::from(table::shown(v)));
            } else {
                sets.push(format!("{}={v}", a.key));
            }
        }
        let s = match file {
            Some(path) => {
                let text = crate::files::read_bounded(&path, crate::files::MAX_SOURCE)
                    .map_err(|e| anyhow::anyhow!("cannot read scenario {}: {e}", path.display()))?;
                Scenario::from_str_with(&text, &path, &sets, self.allow_io)?
            }
            None => Scenario::from_str_with(&self.text, &self.path, &sets, self.allow_io)?,
        };
        Ok(s)
    }

    /// Reads the scenario of every point of `which` (an error names the first that fails), and
    /// checks `y` (`--y`) against the columns they will have: each point's network, and what
    /// to warn of before the run.
    pub fn prepare(&self, which: &[usize], y: Option<&str>) -> Result<Prepared> {
        let points = grid(&self.axes);
        let keys: Vec<String> = self.axes.iter().map(|a| a.key.clone()).collect();
        let mut columns = columns::Columns::new(&keys);
        let mut read = Vec::with_capacity(which.len());
        for &i in which {
            let s = self
                .scenario(&points[i])
                .with_context(|| format!("point {i} ({})", self.describe(&points[i])))?;
            columns.add(&s, self.power_baseline);
            read.push((i, Record::of(&s), s.notes));
        }
        if let Some(y) = y {
            columns.check(y)?;
        }
        let seen: Vec<(usize, &[String], &Record, &[String])> = read
            .iter()
            .map(|(i, r, n)| (*i, points[*i].as_slice(), r, n.as_slice()))
            .collect();
        let warnings = record::warnings(&keys, &record::scaling(&self.axes), &seen);
        Ok(Prepared {
            warnings,
            records: read.into_iter().map(|(i, r, _)| (i, r)).collect(),
            points,
        })
    }

    /// Runs the points numbered in `which` on `threads` threads; `done` is called (from the
    /// workers) after each. Stops early, returning what finished, once `stop` is set.
    pub fn run(
        &self,
        which: &[usize],
        threads: usize,
        stop: Arc<AtomicBool>,
        done: &(dyn Fn(&Outcome) + Sync),
    ) -> Result<Vec<Outcome>> {
        self.run_for(which, threads, stop, done, None)
    }

    /// [`Sweep::run`], for a table whose column `y` (`--y`) is to be plotted or shown: it is
    /// checked, with every point's scenario, before any point runs (a misspelt `--y` gets the
    /// nearest column; one that only a script can tell is checked after the run).
    pub(crate) fn run_for(
        &self,
        which: &[usize],
        threads: usize,
        stop: Arc<AtomicBool>,
        done: &(dyn Fn(&Outcome) + Sync),
        y: Option<&str>,
    ) -> Result<Vec<Outcome>> {
        // every point's scenario is checked before any runs: a typo fails at once
        let prepared = self.prepare(which, y)?;
        self.run_prepared(&prepared, which, threads, stop, done)
    }

    /// [`Sweep::run`] of the points `prepared` (by [`Sweep::prepare`]) read.
    pub fn run_prepared(
        &self,
        prepared: &Prepared,
        which: &[usize],
        threads: usize,
        stop: Arc<AtomicBool>,
        done: &(dyn Fn(&Outcome) + Sync),
    ) -> Result<Vec<Outcome>> {
        let points = &prepared.points;
        let next = AtomicUsize::new(0);
        let results = Mutex::new(Vec::with_capacity(which.len()));
        let baselines = Baselines::default();
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, which.len().max(1)) {
                scope.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= which.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = which[k];
                    let result = self.run_point(&points[i], stop.clone(), &baselines);
                    if stop.load(Ordering::Relaxed) && result.is_err() {
                        break; // interrupted half way: not a result
                    }
                    let o = Outcome {
                        point: i,
                        values: points[i].clone(),
                        record: prepared.records.get(&i).cloned(),
                        result,
                    };
                    done(&o);
                    results.lock().expect("no worker panicked").push(o);
                });
            }
        });
        let mut out = results.into_inner().expect("no worker panicked");
        out.sort_by_key(|o| o.point);
        Ok(out)
    }

    fn run_point(
        &self,
        values: &[String],
        stop: Arc<AtomicBool>,
        baselines: &Baselines,
    ) -> std::result::Result<Figures, String> {
        let mut s = self.scenario(values).map_err(|e| format!("{e:#}"))?;
        if s.engine.threads == 0 {
            // (the points already run side by side, one per core)
            s.engine.threads = 1;
        }
        let run = |s: &Scenario| -> std::result::Result<Report, String> {
            let mut sim = Simulation::new(s).map_err(|e| format!("{e:#}"))?;
            sim.set_interrupt(stop.clone());
            sim.run().map_err(|e| e.stop.to_string())
        };
        let mut r = run(&s)?;
        if self.power_baseline {
            let mut base = s.clone();
            match base.power.as_mut() {
                Some(p) if p.enabled => {
                    // T_s and T_w do not matter with links always on: points that differ only
                    // in them share one baseline run
                    p.enabled = false;
                    p.t_sleep = crate::units::Time::ZERO;
                    p.t_wake = crate::units::Time::ZERO;
                }
                _ => return Err("--power-baseline needs `[power]` with enabled = true".into()),
            }
            let key = serde_json::to_string(&base).unwrap_or_default();
            let cached = baselines
                .0
                .lock()
                .expect("no worker panicked")
                .get(&key)
                .cloned();
            let b = match cached {
                Some(b) => b,
                None => {
                    let b =
                        run(&base).map_err(|e| format!("the baseline (links always on): {e}"))?;
                    let b = Box::new(b);
                    baselines
                        .0
                        .lock()
                        .expect("no worker panicked")
                        .insert(key, b.clone());
                    b
                }
            };
            let t = r.predicted_time_ps;
            if let Some(p) = r.power.as_mut() {
                p.compare(t, &b);
            }
        }
        Ok(Figures::of(&r))
    }

    /// `workload.ranks=16, workload.args.algo=rd`.
    pub fn describe(&self, values: &[String]) -> String {
        self.axes
            .iter()
            .zip(values)
            .map(|(a, v)| format!("{}={v}", a.key))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A sweep's points as [`Sweep::prepare`] read them.
pub struct Prepared {
    /// What to warn of before the run, each once (`record.rs`).
    pub warnings: Vec<String>,
    /// Each point's network, by point.
    pub(crate) records: BTreeMap<usize, Record>,
    /// Every point of the grid.
    points: Vec<Vec<String>>,
}

/// Baseline runs already made, by their scenario (JSON).
#[derive(Default)]
struct Baselines(Mutex<std::collections::HashMap<String, Box<Report>>>);

/// The fixed columns after the varied keys.
const FIGURES: [&str; 6] = [
    "predicted_time_ps",
    "events",
    "packet_hops",
    "link_bytes",
    "average_link_bandwidth_bps",
    "link_efficiency",
];

/// What `--shard I/N` runs, in words (the command's help says it too).
pub const SHARD_RULE: &str = "the points whose number (0 first, as sweep.csv's `point`) is \
                              I-1 modulo N";

/// Whether point `p` (0 first) is in shard `i` of `n` (`i` from 1): `p mod n = i − 1`.
pub fn in_shard(p: usize, i: usize, n: usize) -> bool {
    p % n == i - 1
}

#[cfg(test)]
mod tests;
