//! Parameter sweeps (`mgensim sweep`): run a scenario over a grid of key values, in parallel,
//! and tabulate what each point predicts.
//!
//! A grid is the product of `--vary KEY=VALUES`, the first key outermost. VALUES is a list
//! (`ring,rd`, `[4,4],[8,8]`: commas inside brackets do not split) or an integer range:
//! `2..512:x2` (times 2), `1..10:+3` (plus 3), `1..8` (plus 1); ends are included when a step
//! lands on them. Each value is a TOML literal, or a string when it is a bare word, as for
//! `--set`.
//!
//! Points run on worker threads, each with its own simulation (and Lua state). Results are
//! put back in point order, and the table holds only what the model computed (no wall times),
//! so `sweep.csv` is the same byte for byte whatever the number of threads. `--shard i/n`
//! runs the points whose number is `i` modulo `n`; [`merge`] joins the shards' tables.

use crate::config::Scenario;
use crate::engine::Simulation;
use crate::Report;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One varied key and its values, as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<String>,
}

/// Parses `KEY=VALUES`.
pub fn parse_axis(spec: &str) -> Result<Axis> {
    let (key, values) = spec.split_once('=').with_context(|| {
        format!("--vary {spec}: expected KEY=VALUES, e.g. workload.ranks=2..512:x2")
    })?;
    let key = key.trim().to_string();
    let values = values.trim();
    let list = if let Some(r) = range(values) {
        r.with_context(|| format!("--vary {spec}"))?
    } else {
        split_top(values)
    };
    if list.is_empty() || list.iter().any(|v| v.is_empty()) {
        bail!("--vary {spec}: an empty value");
    }
    Ok(Axis { key, values: list })
}

/// `a..b`, `a..b:xk` or `a..b:+k` with integers; None if `s` is not a range at all.
fn range(s: &str) -> Option<Result<Vec<String>>> {
    let (a, rest) = s.split_once("..")?;
    let (b, step) = match rest.split_once(':') {
        Some((b, step)) => (b, step.trim()),
        None => (rest, "+1"),
    };
    let int = |x: &str| -> Result<i64> {
        x.trim()
            .parse()
            .with_context(|| format!("`{}` is not an integer (ranges are of integers)", x.trim()))
    };
    Some((|| {
        let (a, b) = (int(a)?, int(b)?);
        if b < a {
            bail!("the range ends ({b}) before it starts ({a})");
        }
        // (counted before any value is made: a range of millions is refused at once)
        const MOST: u64 = 100_000;
        let mut out = Vec::new();
        let mut v = a;
        if let Some(k) = step.strip_prefix('x').or_else(|| step.strip_prefix('*')) {
            let k = int(k)?;
            if k < 2 || a < 1 {
                bail!("a range times k needs k >= 2 and a start >= 1");
            }
            while v <= b {
                out.push(v.to_string());
                match v.checked_mul(k) {
                    Some(n) => v = n,
                    None => break,
                }
            }
        } else if let Some(k) = step.strip_prefix('+') {
            let k = int(k)?;
            if k < 1 {
                bail!("a range plus k needs k >= 1");
            }
            let count = (b as i128 - a as i128) / k as i128 + 1;
            if count > MOST as i128 {
                bail!("{count} values: too many for one axis (at most {MOST})");
            }
            while v <= b {
                out.push(v.to_string());
                match v.checked_add(k) {
                    Some(n) => v = n,
                    None => break,
                }
            }
        } else {
            bail!("the step `{step}` is neither xK (times K) nor +K (plus K)");
        }
        Ok(out)
    })())
}

/// Splits at the commas that are not inside brackets or quotes.
fn split_top(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quote) = (Vec::new(), String::new(), 0i32, None);
    for ch in s.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(ch),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    out.push(cur.trim().to_string());
    out
}

/// The points of the grid: for each, one value per axis (the first axis outermost).
/// The most points a sweep may have.
pub const MAX_POINTS: u128 = 1_000_000;

/// Checks that the axes make a grid that can be run: each key varied once, and at most
/// [`MAX_POINTS`] points (counted, not made).
pub fn check_axes(axes: &[Axis]) -> Result<()> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.key == a.key) {
            bail!(
                "--vary {}: the key is varied twice; give one --vary per key, with all its \
                 values (a list `a,b,c` or a range `1..64:x2`)",
                a.key
            );
        }
    }
    let points: u128 = axes.iter().map(|a| a.values.len() as u128).product();
    if points > MAX_POINTS {
        bail!(
            "the grid has {points} points (the product of the --vary lists): more than a sweep \
             runs ({MAX_POINTS}); vary fewer values, or split it with --shard"
        );
    }
    Ok(())
}

/// Every point of the grid, the first axis outermost (see [`check_axes`] first).
pub fn grid(axes: &[Axis]) -> Vec<Vec<String>> {
    let mut points = vec![Vec::new()];
    for a in axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                a.values.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(v.clone());
                    q
                })
            })
            .collect();
    }
    points
}

/// Which points a shard runs: `i/n` runs those whose number is `i` modulo `n` (1-based `i`,
/// as in a job array: `--shard $SLURM_ARRAY_TASK_ID/8`).
pub fn parse_shard(s: &str) -> Result<(usize, usize)> {
    let (i, n) = s
        .split_once('/')
        .with_context(|| format!("--shard {s}: expected I/N, e.g. 1/4"))?;
    let (i, n): (usize, usize) = (
        i.trim()
            .parse()
            .with_context(|| format!("--shard {s}: `{i}` is not a number"))?,
        n.trim()
            .parse()
            .with_context(|| format!("--shard {s}: `{n}` is not a number"))?,
    );
    if n == 0 || i == 0 || i > n {
        bail!("--shard {s}: I must be between 1 and N");
    }
    Ok((i, n))
}

/// What one point predicted, or why it failed.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub point: usize,
    pub values: Vec<String>,
    pub result: std::result::Result<Figures, String>,
}

/// The model's figures of one run (nothing from the host, so that they repeat).
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    pub predicted_time_ps: u64,
    pub events: u64,
    pub packet_hops: u64,
    pub link_bytes: u64,
    pub average_link_bandwidth_bps: f64,
    pub link_efficiency: f64,
    /// Means of the values scripts reported, by name; with `[power]`, the energy figures
    /// (`energy_j`, `average_power_w`, `low_power_fraction`, `wakeups`) and, against the
    /// baseline, `energy_ratio`, `power_ratio`, `time_ratio`.
    pub metrics: BTreeMap<String, f64>,
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
    pub path: std::path::PathBuf,
    pub text: String,
    pub sets: Vec<String>,
    pub axes: Vec<Axis>,
    pub allow_io: bool,
    /// Also run every point with links always on (`[power]` disabled) and add the ratios.
    pub power_baseline: bool,
}

impl Sweep {
    /// The scenario of point `values` (checked: a bad key or value is an error naming it).
    pub fn scenario(&self, values: &[String]) -> Result<Scenario> {
        let mut sets = self.sets.clone();
        for (a, v) in self.axes.iter().zip(values) {
            sets.push(format!("{}={v}", a.key));
        }
        let s = Scenario::from_str_opts(&self.text, &self.path, &sets, self.allow_io)?;
        Ok(s)
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
        let points = grid(&self.axes);
        // every point's scenario is checked before any runs: a typo fails at once
        for &i in which {
            self.scenario(&points[i])
                .with_context(|| format!("point {i} ({})", self.describe(&points[i])))?;
        }
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
        let s = self.scenario(values).map_err(|e| format!("{e:#}"))?;
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

/// A sweep's table: header and rows of fields (unquoted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table of `outcomes` of a sweep over `keys`: `point`, the keys, the figures, one
    /// column per reported metric (their mean over ranks), and `error`.
    pub fn new(keys: &[String], outcomes: &[Outcome]) -> Table {
        let metrics: std::collections::BTreeSet<&String> = outcomes
            .iter()
            .filter_map(|o| o.result.as_ref().ok())
            .flat_map(|f| f.metrics.keys())
            .collect();
        let mut header = vec!["point".to_string()];
        header.extend(keys.iter().cloned());
        header.extend(FIGURES.iter().map(|s| s.to_string()));
        header.extend(metrics.iter().map(|m| m.to_string()));
        header.push("error".into());
        let rows =
            outcomes
                .iter()
                .map(|o| {
                    let mut row = vec![o.point.to_string()];
                    row.extend(o.values.iter().cloned());
                    match &o.result {
                        Ok(f) => {
                            row.extend([
                                f.predicted_time_ps.to_string(),
                                f.events.to_string(),
                                f.packet_hops.to_string(),
                                f.link_bytes.to_string(),
                                f.average_link_bandwidth_bps.to_string(),
                                f.link_efficiency.to_string(),
                            ]);
                            row.extend(metrics.iter().map(|m| {
                                f.metrics.get(*m).map_or(String::new(), |v| v.to_string())
                            }));
                            row.push(String::new());
                        }
                        Err(e) => {
                            row.resize(row.len() + FIGURES.len() + metrics.len(), String::new());
                            row.push(one_line(e));
                        }
                    }
                    row
                })
                .collect();
        Table { header, rows }
    }

    /// As CSV (RFC 4180: fields with commas, quotes or line breaks are quoted).
    pub fn to_csv(&self) -> String {
        let line = |fields: &[String]| {
            fields
                .iter()
                .map(|f| {
                    if f.contains([',', '"', '\n', '\r']) {
                        format!("\"{}\"", f.replace('"', "\"\""))
                    } else {
                        f.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        };
        let mut out = line(&self.header);
        for r in &self.rows {
            out += &line(r);
        }
        out
    }

    /// Parses a table written by [`Table::to_csv`].
    pub fn from_csv(text: &str) -> Result<Table> {
        let mut records = Vec::new();
        let (mut field, mut record, mut quoted, mut chars) =
            (String::new(), Vec::new(), false, text.chars().peekable());
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                (true, '"') => quoted = false,
                (false, '"') if field.is_empty() => quoted = true,
                (false, ',') => record.push(std::mem::take(&mut field)),
                (false, '\n') => {
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                }
                (false, '\r') => {}
                _ => field.push(c),
            }
        }
        if !field.is_empty() || !record.is_empty() {
            record.push(field);
            records.push(record);
        }
        let mut it = records.into_iter();
        let header = it.next().context("an empty file")?;
        if header.first().map(String::as_str) != Some("point") {
            bail!("not a sweep table (its first column is not `point`)");
        }
        let rows: Vec<Vec<String>> = it.collect();
        if let Some(r) = rows.iter().find(|r| r.len() != header.len()) {
            bail!(
                "a line has {} fields, the header {}: {}",
                r.len(),
                header.len(),
                r.join(",")
            );
        }
        Ok(Table { header, rows })
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
}

/// An error message on one line (its lines joined with ` | `), at most 400 characters.
fn one_line(e: &str) -> String {
    let s = e
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    match s.char_indices().nth(400) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// Joins the tables of a sweep's shards: the union of their columns (metrics may differ), rows
/// in point order. The varied keys must be the same.
pub fn merge(tables: &[Table]) -> Result<Table> {
    let first = tables.first().context("nothing to merge")?;
    let keys = |t: &Table| -> Vec<String> {
        let end = t.column(FIGURES[0]).unwrap_or(1);
        t.header[1..end].to_vec()
    };
    let k = keys(first);
    let mut metrics = std::collections::BTreeSet::new();
    for t in tables {
        if keys(t) != k {
            bail!(
                "the shards vary different keys: {} and {}",
                k.join(", "),
                keys(t).join(", ")
            );
        }
        let from = t.column(FIGURES[FIGURES.len() - 1]).map_or(0, |i| i + 1);
        let to = t.column("error").unwrap_or(t.header.len());
        metrics.extend(t.header[from..to].iter().cloned());
    }
    let mut header = vec!["point".to_string()];
    header.extend(k.iter().cloned());
    header.extend(FIGURES.iter().map(|s| s.to_string()));
    header.extend(metrics.iter().cloned());
    header.push("error".into());
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    for t in tables {
        for r in &t.rows {
            let point: usize = r[0].parse().with_context(|| format!("point `{}`", r[0]))?;
            if rows.iter().any(|(p, _)| *p == point) {
                bail!("point {point} is in two shards");
            }
            let row = header
                .iter()
                .map(|h| t.column(h).map_or(String::new(), |i| r[i].clone()))
                .collect();
            rows.push((point, row));
        }
    }
    rows.sort_by_key(|(p, _)| *p);
    Ok(Table {
        header,
        rows: rows.into_iter().map(|(_, r)| r).collect(),
    })
}

/// The line plot of a table: column `y` against the first varied key, one line per value of
/// the other keys. Axes are logarithmic when all values are positive and span 16× or more.
pub fn plot(t: &Table, y: &str) -> Result<String> {
    let yi = t
        .column(y)
        .with_context(|| format!("no column `{y}` to plot (columns: {})", t.header.join(", ")))?;
    let end = t.column(FIGURES[0]).unwrap_or(1);
    if end < 2 {
        bail!("no varied key to plot against");
    }
    // a key of numbers is an axis of numbers; any other is one of names, in table order
    let numeric = t.rows.iter().all(|r| r[1].parse::<f64>().is_ok());
    let mut names: Vec<String> = Vec::new();
    if !numeric {
        for r in &t.rows {
            if !names.contains(&r[1]) {
                names.push(r[1].clone());
            }
        }
    }
    let mut lines: Vec<crate::plot::Line> = Vec::new();
    for r in &t.rows {
        let x = if numeric {
            r[1].parse::<f64>().ok()
        } else {
            names.iter().position(|n| *n == r[1]).map(|i| i as f64)
        };
        let (Some(x), Ok(v)) = (x, r[yi].parse::<f64>()) else {
            continue;
        };
        let v = if y == "predicted_time_ps" { v / 1e6 } else { v };
        let label = (2..end)
            .map(|i| format!("{}={}", t.header[i], r[i]))
            .collect::<Vec<_>>()
            .join(", ");
        match lines.iter_mut().find(|l| l.label == label) {
            Some(l) => l.points.push((x, v)),
            None => lines.push(crate::plot::Line {
                label,
                points: vec![(x, v)],
            }),
        }
    }
    if lines.is_empty() {
        bail!("nothing to plot: no point has a value of `{y}`");
    }
    let spans = |f: &dyn Fn(&(f64, f64)) -> f64| {
        let v: Vec<f64> = lines.iter().flat_map(|l| l.points.iter().map(f)).collect();
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        lo > 0.0 && hi >= 16.0 * lo
    };
    let log = (numeric && spans(&|p| p.0), spans(&|p| p.1));
    let y_desc = if y == "predicted_time_ps" {
        "predicted time (us)".to_string()
    } else {
        y.to_string()
    };
    crate::plot::lines_svg(
        &format!("{y_desc} against {}", t.header[1]),
        &t.header[1],
        &y_desc,
        &lines,
        log,
        &names,
    )
}

/// Writes the table as `name.csv` into `dir`, and its plot of `plot_y` as `name.svg`;
/// returns the files written and, if the plot could not be drawn, why.
pub fn write(
    dir: &Path,
    name: &str,
    t: &Table,
    plot_y: Option<&str>,
) -> Result<(Vec<String>, Option<String>)> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let csv = format!("{name}.csv");
    crate::output::write_atomic(&dir.join(&csv), t.to_csv().as_bytes())
        .with_context(|| format!("cannot write {}", dir.join(&csv).display()))?;
    let mut files = vec![csv];
    let mut skipped = None;
    if let Some(y) = plot_y {
        match plot(t, y) {
            Ok(svg) => {
                let f = format!("{name}.svg");
                crate::output::write_atomic(&dir.join(&f), svg.as_bytes())
                    .with_context(|| format!("cannot write {}", dir.join(&f).display()))?;
                files.push(f);
            }
            Err(e) => skipped = Some(format!("no plot: {e:#}")),
        }
    }
    Ok((files, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(spec: &str) -> Vec<String> {
        parse_axis(spec).unwrap().values
    }

    #[test]
    fn ranges_and_lists() {
        assert_eq!(values("k=2..64:x2"), ["2", "4", "8", "16", "32", "64"]);
        assert_eq!(values("k=2..100:x3"), ["2", "6", "18", "54"]);
        assert_eq!(values("k=1..10:+3"), ["1", "4", "7", "10"]);
        assert_eq!(values("k=3..5"), ["3", "4", "5"]);
        assert_eq!(values("k=ring,rd"), ["ring", "rd"]);
        assert_eq!(values("k=[4,4],[8,8]"), ["[4,4]", "[8,8]"]);
        assert_eq!(values("k=\"a,b\",c"), ["\"a,b\"", "c"]);
        assert!(format!("{:#}", parse_axis("k=8..2").unwrap_err()).contains("before"));
        assert!(format!("{:#}", parse_axis("k=1..8:x1").unwrap_err()).contains("k >= 2"));
        assert!(format!("{:#}", parse_axis("k=1..8:/2").unwrap_err()).contains("xK"));
        assert!(parse_axis("nokey").is_err());
    }

    #[test]
    fn the_grid_puts_the_first_key_outermost() {
        let axes = [
            Axis {
                key: "a".into(),
                values: vec!["1".into(), "2".into()],
            },
            Axis {
                key: "b".into(),
                values: vec!["x".into(), "y".into()],
            },
        ];
        let g: Vec<String> = grid(&axes).iter().map(|p| p.join("")).collect();
        assert_eq!(g, ["1x", "1y", "2x", "2y"]);
    }

    #[test]
    fn csv_round_trips_with_quotes() {
        let t = Table {
            header: vec!["point".into(), "network.dims".into()],
            rows: vec![
                vec!["0".into(), "[4,4]".into()],
                vec!["1".into(), "a\"b".into()],
            ],
        };
        let csv = t.to_csv();
        assert!(csv.contains("\"[4,4]\""));
        assert_eq!(Table::from_csv(&csv).unwrap(), t);
    }

    #[test]
    fn shards_merge_back_in_point_order_with_the_union_of_metrics() {
        let t = |rows: Vec<Vec<&str>>, metric: &str| Table {
            header: ["point", "k"]
                .iter()
                .chain(FIGURES.iter())
                .chain([metric, "error"].iter())
                .map(|s| s.to_string())
                .collect(),
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().map(String::from).collect())
                .collect(),
        };
        let a = t(
            vec![vec!["1", "4", "10", "", "", "", "", "", "0.5", ""]],
            "m1",
        );
        let b = t(vec![vec!["0", "2", "5", "", "", "", "", "", "7", ""]], "m2");
        let m = merge(&[a.clone(), b]).unwrap();
        assert_eq!(m.rows.len(), 2);
        assert_eq!(m.rows[0][0], "0");
        assert_eq!(m.rows[0][m.column("m2").unwrap()], "7");
        assert_eq!(m.rows[0][m.column("m1").unwrap()], "");
        assert_eq!(m.rows[1][m.column("m1").unwrap()], "0.5");
        assert!(merge(&[a.clone(), a])
            .unwrap_err()
            .to_string()
            .contains("two shards"));
        assert_eq!(parse_shard("2/4").unwrap(), (2, 4));
        assert!(parse_shard("0/4").is_err() && parse_shard("5/4").is_err());
    }
}
