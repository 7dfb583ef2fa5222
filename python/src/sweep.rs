//! Sweeps: the library's parallel sweep (`mgensim sweep`'s), over axes given as Python values.
//!
//! The command line checks every point's scenario before any runs, and stops at the first that
//! cannot be read. Here a point whose scenario cannot be read is a row with its error, like a
//! point whose run fails, so that one bad combination does not lose the others; the sweep
//! itself is wrong (an error, not a table) only when its axes are, or when no point can be
//! read.

use crate::scenario::Scenario;
use crate::wait::{self, Asked};
use crate::{RunError, ScenarioError};
use mgensim::sweep::{self as lib, Axis, Outcome, Sweep};
use pyo3::prelude::*;

/// The values `spec` stands for, as `--vary KEY=SPEC` reads them: a list (`ring,rd`,
/// `[4,4],[8,8]`) or an integer range (`2..512:x2`, `1..64:+8`, `1..8`).
#[pyfunction]
pub(crate) fn axis_values(key: &str, spec: &str) -> PyResult<Vec<String>> {
    lib::parse_axis(&format!("{key}={spec}"))
        .map(|a| a.values)
        .map_err(|e| ScenarioError::new_err(format!("{e:#}")))
}

/// What a sweep gives Python: its table (`sweep.csv`'s text), the failed points (number and
/// error), and whether Ctrl-C cut it short.
type Swept = (String, Vec<(usize, String)>, bool);

/// Runs `scenario` at every point of the grid of `axes` (key, values as TOML literals, and
/// whether the axis is varied together with the one before it), `processes` points at once;
/// `strict` raises at the first point that fails instead.
#[pyfunction]
#[pyo3(name = "sweep", signature = (scenario, axes, *, processes, strict, power_baseline, cancel))]
pub(crate) fn run_sweep(
    py: Python<'_>,
    scenario: &Scenario,
    axes: Vec<(String, Vec<String>, bool)>,
    processes: Option<usize>,
    strict: bool,
    power_baseline: bool,
    cancel: Option<Bound<'_, PyAny>>,
) -> PyResult<Swept> {
    let axes: Vec<Axis> = axes
        .into_iter()
        .map(|(key, values, zipped)| Axis {
            key,
            values,
            zipped,
        })
        .collect();
    lib::check_axes(&axes).map_err(|e| ScenarioError::new_err(format!("{e:#}")))?;
    let sw = Sweep {
        path: scenario.path_buf().clone(),
        text: scenario.source().to_string(),
        sets: scenario.overrides().to_vec(),
        axes,
        allow_io: scenario.sandbox_lifted(),
        power_baseline,
    };
    let points = lib::grid(&sw.axes);
    // each point's scenario, read before any runs (a typo fails at once)
    let mut outcomes = Vec::new();
    let mut runnable = Vec::new();
    let mut first_problem = None;
    for (i, values) in points.iter().enumerate() {
        match sw.scenario(values) {
            Ok(_) => runnable.push(i),
            Err(e) => {
                let said = format!("point {i} ({}): {e:#}", sw.describe(values));
                if strict {
                    return Err(ScenarioError::new_err(said));
                }
                first_problem.get_or_insert(said);
                outcomes.push(Outcome {
                    point: i,
                    values: values.clone(),
                    record: None,
                    result: Err(format!("{e:#}")),
                });
            }
        }
    }
    if runnable.is_empty() {
        if let Some(said) = first_problem {
            return Err(ScenarioError::new_err(format!(
                "no point of the sweep can be run; the first: {said}"
            )));
        }
    }
    let threads =
        processes.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (ran, asked) = wait::run(py, cancel.as_ref(), |stop| {
        sw.run(&runnable, threads, stop, &|_| {})
    })?;
    let ran = ran.map_err(|e| ScenarioError::new_err(format!("{e:#}")))?;
    if strict {
        if let Some(o) = ran.iter().find(|o| o.result.is_err()) {
            let e = o.result.as_ref().err().map_or("", |e| e.as_str());
            return Err(RunError::new_err(format!(
                "point {} ({}): {e}",
                o.point,
                sw.describe(&o.values)
            )));
        }
    }
    outcomes.extend(ran);
    outcomes.sort_by_key(|o| o.point);
    let keys: Vec<String> = sw.axes.iter().map(|a| a.key.clone()).collect();
    let table = lib::Table::new(&keys, &outcomes).to_csv();
    let failed = outcomes
        .iter()
        .filter_map(|o| o.result.as_ref().err().map(|e| (o.point, e.clone())))
        .collect();
    let interrupted = match asked {
        Asked::Signal(e) if !e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) => {
            return Err(e)
        }
        Asked::Signal(_) => true,
        _ => false,
    };
    Ok((table, failed, interrupted))
}
