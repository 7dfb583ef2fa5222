//! Load-latency curves (`mgensim curve`): a scenario with synthetic traffic run at a list of
//! offered loads, in parallel, and its saturation found by a search to a stated precision.
//!
//! **A case** is one scenario (a file, or a point of `--vary` over it); every traffic job of
//! it takes the load of the run, and the first traffic job is the one measured.
//!
//! **The stability rule** (BookSim's idea, its thresholds stated here): a load is *stable* when
//! 1. every packet created in the measurement window reached its destination before the
//!    run ended (the drain after the window; BookSim drains its measured packets likewise),
//! 2. the accepted load is at least [`ACCEPTED_MIN`] of the offered load, both measured over
//!    the window (a source whose queue grows offers more than the network takes), and
//! 3. the mean latency of the packets created in the window's second half is at most
//!    [`GROWTH_MAX`] times that of its first half (latency that still grows is a queue that
//!    grows; BookSim's convergence test compares successive sample periods).
//!
//! **The search.** The loads asked for are run first; the saturation lies between the lowest
//! unstable load and the highest stable load below it. Each round then runs the three loads at
//! the quarters of that interval (all cases' rounds at once, in parallel) and keeps the quarter
//! where stability ends, until the interval is at most `precision` wide. The saturation load
//! is the interval's stable end, and the saturation throughput the accepted load measured
//! there. The loads run never depend on the count of threads: the files written are the same
//! for any `-j`.

use crate::config::Scenario;
use crate::engine::Simulation;
use crate::openloop::Latency;
use crate::openloop::Summary;
use anyhow::{bail, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Rule 2: the accepted load over the offered load a stable load keeps at least.
pub(crate) const ACCEPTED_MIN: f64 = 0.98;
/// Rule 3: the second half's mean latency over the first's a stable load keeps at most.
pub(crate) const GROWTH_MAX: f64 = 1.3;
/// Loads each round of the search runs per case (the quarters of its interval).
pub(crate) const PER_ROUND: usize = 3;
/// Most rounds of the search (a precision of 1e-6 from a width of 1 takes 10).
pub(crate) const MAX_ROUNDS: usize = 24;
/// Most loads `--loads` may list.
pub(crate) const MAX_LOADS: usize = 1000;

mod svg;

/// What a curve calls as each point is measured: the case, the load and the point (or why it
/// failed); the command line prints it.
pub(crate) type Progress<'a> = dyn Fn(&Case, f64, &Result<Point, String>) + Sync + 'a;

/// One case: its label and its scenario (checked, with synthetic traffic).
pub struct Case {
    /// How the legend and the tables name it.
    pub label: String,
    /// The scenario; each run sets its traffic's load.
    pub scenario: Scenario,
    /// The routes' bound for its traffic (`bound.rs`), and the channel that sets it.
    pub ideal: Option<(f64, String)>,
}

/// What one run at one load measured.
#[derive(Clone, Debug)]
pub struct Point {
    /// The case (index) and the offered load asked for.
    pub(crate) case: usize,
    /// See `case`.
    pub load: f64,
    /// Whether the search ran it (else `--loads` listed it).
    pub searched: bool,
    /// The traffic's figures.
    pub summary: Summary,
    /// Whether it is stable (the rule above), and if not, why.
    pub unstable: Option<String>,
}

/// What the search found for one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Saturation {
    /// The highest stable load found and the lowest unstable one (None: every load run was
    /// stable; then `stable` is the highest).
    pub stable: f64,
    /// See `stable`.
    pub unstable: Option<f64>,
    /// The accepted load measured at `stable` (None when no load was stable).
    pub(crate) accepted: Option<f64>,
}

/// The loads of `--loads`: a comma-separated list of loads (`0.1,0.3`) and ranges, stepped
/// by 0.05 (`0.05..1.0`) or by a step of their own (`0.1..0.9:+0.1`); each above 0 and at
/// most 1.
pub fn parse_loads(spec: &str) -> Result<Vec<f64>> {
    let num = |w: &str| -> Result<f64> {
        w.trim()
            .parse::<f64>()
            .map_err(|_| anyhow::anyhow!("--loads {spec}: `{}` is not a number", w.trim()))
    };
    let mut loads = Vec::new();
    for item in spec.split(',') {
        let Some((a, rest)) = item.split_once("..") else {
            loads.push(num(item)?);
            continue;
        };
        let (b, step) = match rest.split_once(":+") {
            Some((b, s)) => (num(b)?, num(s)?),
            None => (num(rest)?, 0.05),
        };
        let a = num(a)?;
        if step.is_nan() || step <= 0.0 || b < a {
            bail!("--loads {spec}: a range is FROM..TO with FROM <= TO, or FROM..TO:+STEP with a step above 0");
        }
        let count = ((b - a) / step + 1e-9).floor() as usize + 1;
        if count + loads.len() > MAX_LOADS {
            bail!("--loads {spec}: more than {MAX_LOADS} loads");
        }
        loads.extend((0..count).map(|i| round(a + i as f64 * step)));
    }
    if let Some(bad) = loads.iter().find(|&&l| !(l > 0.0 && l <= 1.0)) {
        bail!("--loads {spec}: {bad} is not a load: a fraction of each node's injection bandwidth, above 0 and at most 1");
    }
    if loads.len() > MAX_LOADS {
        bail!("--loads {spec}: more than {MAX_LOADS} loads");
    }
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    Ok(loads)
}

/// A load rounded to 1e-9 (so that a range's steps print as written).
fn round(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// Why a run's figures are not stable (the rule above), or None when they are.
pub(crate) fn unstable(s: &Summary) -> Option<String> {
    if s.delivered == 0 {
        return Some("no measured packet arrived".into());
    }
    if s.unfinished > 0 {
        return Some(format!(
            "{} of the {} packets created in the window not delivered by the end of the drain",
            s.unfinished, s.packets
        ));
    }
    if s.accepted < ACCEPTED_MIN * s.offered {
        return Some(format!(
            "accepted {:.4} < {ACCEPTED_MIN} x offered {:.4}",
            s.accepted, s.offered
        ));
    }
    match s.latency_growth {
        Some(g) if g > GROWTH_MAX => Some(format!(
            "latency of the window's second half {g:.3} x its first's (more than {GROWTH_MAX})"
        )),
        _ => None,
    }
}

/// Where stability ends among `runs` (load, stable), sorted or not: the highest stable load
/// below the lowest unstable one (0 if none), and that unstable load.
pub(crate) fn bracket(runs: &[(f64, bool)]) -> (f64, Option<f64>) {
    let first_bad = runs
        .iter()
        .filter(|r| !r.1)
        .map(|r| r.0)
        .min_by(f64::total_cmp);
    let good = runs
        .iter()
        .filter(|r| r.1 && first_bad.is_none_or(|b| r.0 < b))
        .map(|r| r.0)
        .max_by(f64::total_cmp)
        .unwrap_or(0.0);
    (good, first_bad)
}

/// The loads the next round runs between `lo` and `hi`: the quarters (none once the interval
/// is at most `precision` wide).
pub(crate) fn next_loads(lo: f64, hi: f64, precision: f64) -> Vec<f64> {
    if hi - lo <= precision {
        return Vec::new();
    }
    (1..=PER_ROUND)
        .map(|i| round(lo + (hi - lo) * i as f64 / (PER_ROUND + 1) as f64))
        .filter(|&l| l > lo && l < hi)
        .collect()
}

/// A curve to draw: its cases, the loads asked for and the search's precision.
pub struct Curve {
    /// The cases, each a line.
    pub cases: Vec<Case>,
    /// The loads every case runs first.
    pub loads: Vec<f64>,
    /// The width of the interval the search stops at (a fraction of the injection bandwidth).
    pub precision: f64,
}

impl Curve {
    /// Runs every load and the search, on `threads` threads; `done` is told of each run (from
    /// the workers). Stops early (an error) once `stop` is set. The points come back by case,
    /// then load.
    pub fn run(
        &self,
        threads: usize,
        stop: Arc<AtomicBool>,
        done: &Progress<'_>,
    ) -> Result<(Vec<Point>, Vec<Saturation>)> {
        if self.precision.is_nan() || self.precision <= 0.0 {
            bail!("--precision must be above 0");
        }
        let tasks: Vec<(usize, f64)> = (0..self.cases.len())
            .flat_map(|c| self.loads.iter().map(move |&l| (c, l)))
            .collect();
        let mut points = self.batch(&tasks, false, threads, &stop, done)?;
        let mut found = Vec::new();
        for round in 0..=MAX_ROUNDS {
            found.clear();
            let mut tasks = Vec::new();
            for c in 0..self.cases.len() {
                let runs: Vec<(f64, bool)> = points
                    .iter()
                    .filter(|p| p.case == c)
                    .map(|p| (p.load, p.unstable.is_none()))
                    .collect();
                let (lo, hi) = bracket(&runs);
                found.push((lo, hi));
                if let Some(hi) = hi.filter(|_| round < MAX_ROUNDS) {
                    tasks.extend(
                        next_loads(lo, hi, self.precision)
                            .into_iter()
                            .map(|l| (c, l)),
                    );
                }
            }
            if tasks.is_empty() {
                break;
            }
            points.extend(self.batch(&tasks, true, threads, &stop, done)?);
        }
        points.sort_by(|a, b| a.case.cmp(&b.case).then(a.load.total_cmp(&b.load)));
        let sats = found
            .iter()
            .enumerate()
            .map(|(c, &(lo, hi))| Saturation {
                stable: lo,
                unstable: hi,
                accepted: points
                    .iter()
                    .find(|p| p.case == c && p.load == lo && p.unstable.is_none())
                    .map(|p| p.summary.accepted),
            })
            .collect();
        Ok((points, sats))
    }

    /// Runs `tasks` (case, load) on `threads` threads.
    fn batch(
        &self,
        tasks: &[(usize, f64)],
        searched: bool,
        threads: usize,
        stop: &Arc<AtomicBool>,
        done: &Progress<'_>,
    ) -> Result<Vec<Point>> {
        let next = AtomicUsize::new(0);
        let out = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..threads.clamp(1, tasks.len().max(1)) {
                scope.spawn(|| loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= tasks.len() || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let (c, load) = tasks[k];
                    let r = self.point(c, load, searched, stop.clone());
                    done(&self.cases[c], load, &r);
                    out.lock().expect("no worker panicked").push((k, r));
                });
            }
        });
        if stop.load(Ordering::SeqCst) {
            bail!("interrupted");
        }
        let mut out = out.into_inner().expect("no worker panicked");
        out.sort_by_key(|r| r.0);
        out.into_iter()
            .map(|(k, r)| {
                let (c, load) = tasks[k];
                r.map_err(|e| anyhow::anyhow!("{} at load {load}: {e}", self.cases[c].label))
            })
            .collect()
    }

    /// One run of case `c` at `load`.
    fn point(
        &self,
        c: usize,
        load: f64,
        searched: bool,
        stop: Arc<AtomicBool>,
    ) -> Result<Point, String> {
        let s = at_load(&self.cases[c].scenario, load)?;
        let mut sim = Simulation::new(&s).map_err(|e| format!("{e:#}"))?;
        sim.set_interrupt(stop);
        let report = sim.run().map_err(|e| e.stop.to_string())?;
        let summary = report
            .traffic
            .and_then(|t| t.into_iter().next())
            .ok_or("the run measured no synthetic traffic")?;
        Ok(Point {
            case: c,
            load,
            searched,
            unstable: unstable(&summary),
            summary,
        })
    }
}

/// Scenario `s` with every traffic job's load set to `load` (one thread a run: the runs
/// already go side by side).
pub(crate) fn at_load(s: &Scenario, load: f64) -> Result<Scenario, String> {
    let mut s = s.clone();
    if s.engine.threads == 0 {
        s.engine.threads = 1;
    }
    for j in &mut s.jobs {
        if let Some(spec) = j.workload.traffic.as_mut() {
            let spec = Arc::make_mut(spec);
            spec.load = load;
            if let Some(p) = spec.per_cycle().filter(|&p| p > 1.0 + 1e-9) {
                return Err(format!(
                    "a Bernoulli process makes at most one message per cycle, and load {load} \
                     would take {p:.3} (give a shorter workload.cycle)"
                ));
            }
        }
    }
    Ok(s)
}

/// The case of scenario `s` labelled `label` (without one, its network in words), with its
/// traffic's bound worked out (an error when it has no synthetic traffic).
pub fn case(label: Option<String>, s: Scenario, file: &str) -> Result<Case> {
    let label = label.unwrap_or_else(|| s.topo.describe());
    let Some(j) = s.jobs.iter().position(|j| j.workload.traffic.is_some()) else {
        bail!(
            "{file} has no synthetic traffic: a curve needs `[workload] traffic = \"uniform\"` \
             (or another pattern) with `load`"
        );
    };
    let nodes = crate::node::Nodes::new(&s);
    let info = &nodes.jobs[j];
    let spec = s.jobs[j].workload.traffic.clone().expect("found above");
    let ideal = crate::openloop::bound::ideal(&s, &spec, j, info.base, info.size);
    Ok(Case {
        label,
        scenario: s,
        ideal,
    })
}

/// The files of `mgensim curve`'s folder, by name: `curve.csv`, `saturation.csv` and
/// `curve.svg`; and why there is no picture, if there is none (no run delivered a measured
/// packet, or drawing failed).
pub fn files(
    curve: &Curve,
    points: &[Point],
    sats: &[Saturation],
) -> (Vec<(&'static str, String)>, Option<String>) {
    let mut files = vec![
        ("curve.csv", csv(&curve.cases, points)),
        (
            "saturation.csv",
            saturation_csv(&curve.cases, points, sats, curve.precision),
        ),
    ];
    let no_picture = match svg::svg(&curve.cases, points, sats) {
        Ok(svg) => {
            files.push(("curve.svg", svg));
            None
        }
        Err(e) => Some(e.to_string()),
    };
    (files, no_picture)
}

/// `curve.csv`: a line per run, by case then load.
pub(crate) fn csv(cases: &[Case], points: &[Point]) -> String {
    let mut out = String::from(
        "case,label,load,searched,offered,injected,accepted,latency_mean_ps,latency_p50_ps,\
         latency_p99_ps,latency_max_ps,network_latency_mean_ps,hops_mean,packets,unfinished,\
         latency_growth,stable\n",
    );
    for p in points {
        let s = &p.summary;
        let lat = |f: fn(&Latency) -> u64, l: &Option<Latency>| {
            l.as_ref().map_or(String::new(), |l| f(l).to_string())
        };
        out += &format!(
            "{},{},{},{},{:.6},{:.6},{:.6},{},{},{},{},{},{},{},{},{},{}\n",
            p.case,
            crate::output::csv_field(&cases[p.case].label),
            p.load,
            p.searched,
            s.offered,
            s.injected,
            s.accepted,
            lat(|l| l.mean, &s.packet_latency_ps),
            lat(|l| l.p50, &s.packet_latency_ps),
            lat(|l| l.p99, &s.packet_latency_ps),
            lat(|l| l.max, &s.packet_latency_ps),
            lat(|l| l.mean, &s.network_latency_ps),
            s.hops.map_or(String::new(), |h| format!("{:.4}", h.mean)),
            s.packets,
            s.unfinished,
            s.latency_growth
                .map_or(String::new(), |g| format!("{g:.4}")),
            p.unstable.is_none()
        );
    }
    out
}

/// `saturation.csv`: a line per case.
pub(crate) fn saturation_csv(
    cases: &[Case],
    points: &[Point],
    sats: &[Saturation],
    precision: f64,
) -> String {
    let mut out = String::from(
        "case,label,lowest_load,lowest_load_latency_ps,saturation_load,first_unstable_load,\
         precision,accepted_at_saturation,ideal,ideal_channel\n",
    );
    for (c, (case, sat)) in cases.iter().zip(sats).enumerate() {
        let first = points.iter().find(|p| p.case == c);
        let zero = first
            .and_then(|p| p.summary.packet_latency_ps.as_ref())
            .map_or(String::new(), |l| l.mean.to_string());
        out += &format!(
            "{c},{},{},{zero},{},{},{precision},{},{},{}\n",
            crate::output::csv_field(&case.label),
            first.map_or(String::new(), |p| p.load.to_string()),
            sat.stable,
            sat.unstable.map_or(String::new(), |u| u.to_string()),
            sat.accepted.map_or(String::new(), |a| format!("{a:.6}")),
            case.ideal
                .as_ref()
                .map_or(String::new(), |i| format!("{:.6}", i.0)),
            crate::output::csv_field(case.ideal.as_ref().map_or("", |i| i.1.as_str())),
        );
    }
    out
}

/// The table printed: a line per case.
pub fn table(cases: &[Case], points: &[Point], sats: &[Saturation], precision: f64) -> String {
    let width = cases
        .iter()
        .map(|c| c.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    let lowest = points.iter().map(|p| p.load).fold(f64::INFINITY, f64::min);
    let mut out = format!(
        "{:<width$}  {:>12}  {:>17}  {:>8}  {:>6}  {:>9}\n",
        "case",
        format!("latency@{lowest}"),
        "saturation",
        "accepted",
        "ideal",
        "sat/ideal"
    );
    for (c, (case, sat)) in cases.iter().zip(sats).enumerate() {
        let zero = points
            .iter()
            .find(|p| p.case == c)
            .and_then(|p| p.summary.packet_latency_ps.as_ref())
            .map_or("-".to_string(), |l| crate::units::Time(l.mean).to_string());
        let range = match sat.unstable {
            Some(u) => format!("{:.4}..{:.4}", sat.stable, u),
            None => format!("above {:.4}", sat.stable),
        };
        let ideal = case.ideal.as_ref().map(|i| i.0);
        out += &format!(
            "{:<width$}  {:>12}  {:>17}  {:>8}  {:>6}  {:>9}\n",
            case.label,
            zero,
            range,
            sat.accepted.map_or("-".into(), |a| format!("{a:.4}")),
            ideal.map_or("-".into(), |i| format!("{i:.3}")),
            match (ideal, sat.unstable) {
                (Some(i), Some(_)) if i > 0.0 => format!("{:.3}", sat.stable / i),
                _ => "-".into(),
            }
        );
    }
    out += &format!(
        "(latency: the mean packet latency at the lowest load; saturation: the highest stable \
         load, within {precision}; stable: every packet of the window delivered, accepted >= \
         {ACCEPTED_MIN} x offered, latency growth <= {GROWTH_MAX})\n"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_parse_as_lists_and_ranges() {
        assert_eq!(parse_loads("0.3,0.1,0.3").unwrap(), [0.1, 0.3]);
        let r = parse_loads("0.05..1.0").unwrap();
        assert_eq!(r.len(), 20);
        assert_eq!((r[0], r[19]), (0.05, 1.0));
        assert_eq!(parse_loads("0.1..0.5:+0.2").unwrap(), [0.1, 0.3, 0.5]);
        assert_eq!(
            parse_loads("0.02,0.2..0.3").unwrap(),
            [0.02, 0.2, 0.25, 0.3]
        );
        let e = parse_loads("0.1,1.5").unwrap_err().to_string();
        assert!(e.contains("1.5 is not a load"), "{e}");
        let e = parse_loads("0.1,x").unwrap_err().to_string();
        assert!(e.contains("`x` is not a number"), "{e}");
    }

    /// The search against a known threshold: stable below 0.4372 exactly. Whatever the loads
    /// asked for, it stops with the threshold inside an interval at most `precision` wide,
    /// its ends as the rule says, after as many rounds as quartering needs.
    #[test]
    fn the_search_stops_within_its_precision_around_the_threshold() {
        let threshold = 0.4372;
        for (grid, precision) in [
            (parse_loads("0.05..1.0").unwrap(), 0.01),
            (parse_loads("0.1,0.9").unwrap(), 0.001),
            (vec![0.5], 0.02),
        ] {
            let mut runs: Vec<(f64, bool)> = grid.iter().map(|&l| (l, l < threshold)).collect();
            let mut rounds = 0;
            loop {
                let (lo, hi) = bracket(&runs);
                let next = next_loads(lo, hi.unwrap(), precision);
                if next.is_empty() {
                    break;
                }
                assert!(next.len() == PER_ROUND);
                rounds += 1;
                runs.extend(next.iter().map(|&l| (l, l < threshold)));
            }
            let (lo, hi) = bracket(&runs);
            let hi = hi.unwrap();
            assert!(lo < threshold && threshold <= hi, "{lo} {hi}");
            assert!(hi - lo <= precision, "{lo} {hi} {precision}");
            // (quartering: the width falls by 4 a round, from the grid's bracket)
            let (lo0, hi0) = bracket(&grid.iter().map(|&l| (l, l < threshold)).collect::<Vec<_>>());
            let width = hi0.unwrap() - lo0;
            let want = (width / precision).log(4.0).ceil().max(0.0) as usize;
            assert_eq!(rounds, want, "{grid:?} {precision}");
        }
    }

    #[test]
    fn the_bracket_takes_the_lowest_unstable_load_and_the_stable_one_below_it() {
        // (a stable load above an unstable one, noise, is not the saturation)
        let runs = [
            (0.1, true),
            (0.2, true),
            (0.3, false),
            (0.4, true),
            (0.5, false),
        ];
        assert_eq!(bracket(&runs), (0.2, Some(0.3)));
        assert_eq!(bracket(&[(0.1, false)]), (0.0, Some(0.1)));
        assert_eq!(bracket(&[(0.1, true), (0.2, true)]), (0.2, None));
    }
}
