//! How a run's end reaches Python: a result (finished, or stopped by a limit the caller set:
//! `until`, `timeout`, `limits.events`, or its `cancel` event), or an exception carrying the
//! partial result: `RunError` for a run that went wrong (a script's error, a deadlock, a rank
//! that ran away, the engine's own error), `Interrupted` for Ctrl-C.

use crate::report::Report;
use crate::wait::Asked;
use crate::{Interrupted, RunError, ScenarioError};
use mgensim::Limit;
use mgensim::Stop;
use pyo3::prelude::*;

/// How the work of a run ended, before Python sees it.
pub(crate) enum Outcome {
    /// The scenario could not be read or built: nothing ran.
    Setup(anyhow::Error),
    /// Every rank finished (or, with `Some`, the baseline run failed after it).
    Done(Report, Option<anyhow::Error>),
    /// The run stopped early: why, and its figures so far.
    Stopped(Stop, Option<Report>),
}

/// Where a stop happened, as far as it can be told: the rank, its script file and line.
struct Place {
    rank: Option<u32>,
    file: Option<String>,
    line: Option<u32>,
}

/// `file:line` at the start of a Lua error (`inline:3: boom`, `w.lua:12: MGEN_...`).
fn file_line(text: &str) -> Option<(String, u32)> {
    let first = text.lines().next()?;
    for (i, _) in first.match_indices(':') {
        let rest = &first[i + 1..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && rest[digits.len()..].starts_with(':') && i > 0 {
            return Some((first[..i].to_string(), digits.parse().ok()?));
        }
    }
    None
}

/// `file:line` as a report's `at` gives it.
fn at(text: &str) -> Option<(String, u32)> {
    let (file, line) = text.rsplit_once(':')?;
    Some((file.to_string(), line.parse().ok()?))
}

fn place(stop: &Stop, partial: Option<&mgensim::Report>) -> Place {
    let unfinished = |rank: Option<u32>| {
        partial.and_then(|r| {
            r.ranks
                .unfinished
                .iter()
                .find(|u| rank.is_none_or(|k| u.rank == k))
                .map(|u| (u.rank, at(&u.at)))
        })
    };
    let (rank, fl) = match stop {
        Stop::Script { rank, message, .. } => (Some(*rank), file_line(message)),
        Stop::Deadlock { .. } => match unfinished(None) {
            Some((r, fl)) => (Some(r), fl),
            None => (None, None),
        },
        Stop::Limit { rank: Some(r), .. } => (Some(*r), unfinished(Some(*r)).and_then(|u| u.1)),
        _ => (None, None),
    };
    Place {
        rank,
        file: fl.as_ref().map(|f| f.0.clone()),
        line: fl.map(|f| f.1),
    }
}

/// What the stop is called in `RunError.kind`.
fn kind(stop: &Stop) -> &'static str {
    match stop {
        Stop::Script { .. } => "script",
        Stop::Deadlock { .. } => "deadlock",
        Stop::Limit { limit, .. } => limit.name(),
        Stop::Internal(_) => "internal",
        Stop::Capacity { .. } => "capacity",
    }
}

/// When the run stopped (ps), where the stop says.
fn time_ps(stop: &Stop) -> Option<u64> {
    match stop {
        Stop::Script { time, .. }
        | Stop::Deadlock { time, .. }
        | Stop::Limit { time, .. }
        | Stop::Capacity { time, .. } => Some(time.ps()),
        Stop::Internal(_) => None,
    }
}

/// A stop the caller chose (a limit on the run's length, or its `cancel`): the run returns
/// its partial result, no exception.
fn chosen(stop: &Stop) -> bool {
    matches!(
        stop,
        Stop::Limit {
            limit: Limit::WallTime | Limit::SimulatedTime | Limit::Events | Limit::Interrupt,
            ..
        }
    )
}

/// An exception of type `E` with message `text` and the attributes `attrs`.
fn raise<E: pyo3::PyTypeInfo>(py: Python<'_>, text: String, attrs: &[(&str, Py<PyAny>)]) -> PyErr {
    let e = PyErr::from_type(py.get_type::<E>(), text);
    for (name, v) in attrs {
        if let Err(x) = e.value(py).setattr(*name, v) {
            return x;
        }
    }
    e
}

impl Outcome {
    /// The result of a run of scenario `name`, or the exception it ends in; `asked` is what
    /// asked it to stop, if anything.
    pub(crate) fn into_py(self, py: Python<'_>, name: &str, asked: Asked) -> PyResult<Py<Report>> {
        let (report, stop) = match self {
            Outcome::Setup(e) => return Err(ScenarioError::new_err(format!("{e:#}"))),
            Outcome::Done(r, None) => (Some(r), None),
            Outcome::Done(r, Some(e)) => {
                let result = Py::new(py, r)?.into_any();
                let none = || py.None();
                return Err(raise::<RunError>(
                    py,
                    format!("{e:#}"),
                    &[
                        (
                            "report",
                            format!("{e:#}").into_pyobject(py)?.into_any().unbind(),
                        ),
                        ("kind", "baseline".into_pyobject(py)?.into_any().unbind()),
                        ("rank", none()),
                        ("file", none()),
                        ("line", none()),
                        ("time_ps", none()),
                        ("result", result),
                    ],
                ));
            }
            Outcome::Stopped(stop, r) => (r, Some(stop)),
        };
        let text = stop.as_ref().map(|s| format!("{name}: {s}"));
        let place = stop
            .as_ref()
            .map(|s| place(s, report.as_ref().map(|r| r.inner()).as_deref()));
        let result: Option<Py<Report>> = report.map(|r| Py::new(py, r)).transpose()?;
        let result_obj = || {
            result
                .as_ref()
                .map_or_else(|| py.None(), |r| r.clone_ref(py).into_any())
        };
        // Ctrl-C: the caller's loop must stop too, whatever the run had come to
        if let Asked::Signal(e) = asked {
            if !e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) {
                return Err(e); // (a Python signal handler raised something of its own)
            }
            let said = text
                .clone()
                .unwrap_or_else(|| format!("{name}: interrupted after the run ended"));
            return Err(raise::<Interrupted>(
                py,
                said.clone(),
                &[
                    ("report", said.into_pyobject(py)?.into_any().unbind()),
                    ("result", result_obj()),
                ],
            ));
        }
        let Some(stop) = stop else {
            return result
                .ok_or_else(|| RunError::new_err("a finished run without a report (a bug)"));
        };
        if chosen(&stop) {
            if let Some(r) = result {
                return Ok(r);
            }
        }
        let text = text.unwrap_or_default();
        let place = place.expect("a stop has a place");
        let opt = |v: Option<u64>| -> PyResult<Py<PyAny>> {
            Ok(match v {
                Some(v) => v.into_pyobject(py)?.into_any().unbind(),
                None => py.None(),
            })
        };
        Err(raise::<RunError>(
            py,
            text.clone(),
            &[
                ("report", text.into_pyobject(py)?.into_any().unbind()),
                ("kind", kind(&stop).into_pyobject(py)?.into_any().unbind()),
                ("rank", opt(place.rank.map(u64::from))?),
                (
                    "file",
                    match place.file {
                        Some(f) => f.into_pyobject(py)?.into_any().unbind(),
                        None => py.None(),
                    },
                ),
                ("line", opt(place.line.map(u64::from))?),
                ("time_ps", opt(time_ps(&stop))?),
                ("result", result_obj()),
            ],
        ))
    }
}
