//! A scenario as a value: its text, where it is (messages and relative paths start there),
//! the `--set`s applied to it, and the scenario they make, checked as the command line checks
//! it. Every change makes a new value, checked whole.

use crate::outcome::Outcome;
use crate::report::Report;
use crate::wait;
use crate::ScenarioError;
use mgensim::run::{Options, Records, Setup};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::time::Instant;

/// A checked scenario (the package's `mgensim.Scenario` wraps it).
#[pyclass(frozen, module = "mgensim._native")]
pub struct Scenario {
    path: PathBuf,
    text: String,
    sets: Vec<String>,
    allow_io: bool,
    checked: mgensim::Scenario,
}

fn scenario_error(e: anyhow::Error) -> PyErr {
    ScenarioError::new_err(format!("{e:#}"))
}

impl Scenario {
    /// The file it was read from (or stands for).
    pub(crate) fn path_buf(&self) -> &PathBuf {
        &self.path
    }

    /// Its TOML text, before the `--set`s.
    pub(crate) fn source(&self) -> &str {
        &self.text
    }

    /// The `--set`s applied to it.
    pub(crate) fn overrides(&self) -> &[String] {
        &self.sets
    }

    /// Whether its scripts run outside the sandbox.
    pub(crate) fn sandbox_lifted(&self) -> bool {
        self.allow_io
    }

    fn make(path: PathBuf, text: String, sets: Vec<String>, allow_io: bool) -> PyResult<Scenario> {
        let checked = mgensim::Scenario::from_str_with(&text, &path, &sets, allow_io)
            .map_err(scenario_error)?;
        Ok(Scenario {
            path,
            text,
            sets,
            allow_io,
            checked,
        })
    }
}

#[pymethods]
impl Scenario {
    /// Reads scenario file `path` (as `mgensim run PATH` does).
    #[staticmethod]
    #[pyo3(signature = (path, allow_io = false))]
    fn load(py: Python<'_>, path: PathBuf, allow_io: bool) -> PyResult<Scenario> {
        py.detach(|| {
            let text = mgensim::read_source(&path)
                .map_err(|e| anyhow::anyhow!("cannot read scenario {}: {e}", path.display()))?;
            Ok::<_, anyhow::Error>(text)
        })
        .map_err(scenario_error)
        .and_then(|text| py.detach(|| Scenario::make(path, text, Vec::new(), allow_io)))
    }

    /// A scenario from TOML `text`, as if read from file `path` (which names it in messages
    /// and anchors its relative paths and its sandbox).
    #[staticmethod]
    #[pyo3(signature = (text, path, allow_io = false))]
    fn from_text(
        py: Python<'_>,
        text: String,
        path: PathBuf,
        allow_io: bool,
    ) -> PyResult<Scenario> {
        py.detach(|| Scenario::make(path, text, Vec::new(), allow_io))
    }

    /// This scenario with `sets` (`KEY=VALUE`) applied after its own, checked whole.
    fn with_sets(&self, py: Python<'_>, sets: Vec<String>) -> PyResult<Scenario> {
        let mut all = self.sets.clone();
        all.extend(sets);
        py.detach(|| Scenario::make(self.path.clone(), self.text.clone(), all, self.allow_io))
    }

    /// This scenario with its workload's script replaced: by file `script` (relative to the
    /// scenario's folder) or by inline `code`, whichever is given; its other keys and `--set`s
    /// stay. Its text is written anew (comments and layout are not kept).
    #[pyo3(signature = (script = None, code = None))]
    fn with_workload(
        &self,
        py: Python<'_>,
        script: Option<String>,
        code: Option<String>,
    ) -> PyResult<Scenario> {
        let (key, value) = match (script, code) {
            (Some(s), None) => ("script", s),
            (None, Some(c)) => ("code", c),
            _ => {
                return Err(pyo3::exceptions::PyTypeError::new_err(
                    "give the workload's script (a file) or its code (inline Lua), one of them",
                ))
            }
        };
        let mut table: toml::Table = toml::from_str(&self.text)
            .map_err(|e| ScenarioError::new_err(format!("{}: {e}", self.path.display())))?;
        if table.contains_key("job") {
            return Err(ScenarioError::new_err(format!(
                "{} has several jobs ([[job]] tables): set one job's with .set(\"job.0.{key}\", ...)",
                self.path.display()
            )));
        }
        let w = table
            .entry("workload")
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let Some(w) = w.as_table_mut() else {
            return Err(ScenarioError::new_err(format!(
                "{}: `workload` is not a table",
                self.path.display()
            )));
        };
        for k in ["script", "code", "trace"] {
            w.remove(k);
        }
        w.insert(key.to_string(), toml::Value::String(value));
        let text = toml::to_string(&table).map_err(|e| ScenarioError::new_err(e.to_string()))?;
        py.detach(|| Scenario::make(self.path.clone(), text, self.sets.clone(), self.allow_io))
    }

    /// `mgensim check`: builds the network and the ranks, compiles the scripts, and finds the
    /// `MGEN_` names they use that the API does not have.
    fn check(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| mgensim::run::check(&self.checked))
            .map_err(scenario_error)
    }

    /// The file it was read from (or stands for).
    #[getter]
    fn path(&self) -> String {
        self.path.display().to_string()
    }

    /// Its TOML text, before the `--set`s.
    #[getter]
    fn text(&self) -> String {
        self.text.clone()
    }

    /// The `--set`s applied, in order (`KEY=VALUE`).
    #[getter]
    fn sets(&self) -> Vec<String> {
        self.sets.clone()
    }

    /// Whether scripts run outside the sandbox (`--allow-io`).
    #[getter]
    fn allow_io(&self) -> bool {
        self.allow_io
    }

    /// Ranks of all its jobs.
    #[getter]
    fn ranks(&self) -> u64 {
        self.checked.ranks()
    }

    /// Nodes of its network.
    #[getter]
    fn nodes(&self) -> u64 {
        self.checked.nodes()
    }

    /// The network in words (`torus 8x8x8 (512 nodes)`).
    #[getter]
    fn network(&self) -> String {
        self.checked.network_in_words()
    }

    /// Each job's script, as messages name it (`inline` for `code`).
    #[getter]
    fn scripts(&self) -> Vec<String> {
        self.checked.scripts()
    }

    /// What reading it left out, in words (the command line's `warning:` lines).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.checked.notes.clone()
    }

    /// The scenario's keys with every default filled in, as JSON.
    fn resolved_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.checked)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }

    /// Runs the scenario as `mgensim run` does, with the interpreter let go; see the package's
    /// `Scenario.run` for the arguments.
    #[pyo3(signature = (*, sets, seed, timeout, until, threads, partitions, profile, interval,
                        plots, trace, buffer_history, pictures, folder, power_baseline, cancel))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        sets: Vec<String>,
        seed: Option<u64>,
        timeout: Option<String>,
        until: Option<String>,
        threads: Option<u32>,
        partitions: Option<u32>,
        profile: bool,
        interval: Option<String>,
        plots: bool,
        trace: bool,
        buffer_history: Vec<String>,
        pictures: bool,
        folder: bool,
        power_baseline: bool,
        cancel: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<Report>> {
        let origin = Instant::now();
        let mut all = self.sets.clone();
        all.extend(sets);
        let options = Options {
            seed,
            timeout,
            threads,
            partitions,
            until,
        };
        let all = options.sets(&all).map_err(scenario_error)?;
        let mut probes = Records {
            interval,
            buffer_history,
            plots,
            trace,
            profile,
        }
        .probes()
        .map_err(scenario_error)?;
        // (what report.html draws, recorded for small runs as `--out` records it)
        probes.report = pictures || folder;
        let name = self.path.display().to_string();
        let (path, text, allow_io) = (&self.path, &self.text, self.allow_io);
        let (outcome, asked) = wait::run(py, cancel.as_ref(), |flag| {
            let s = match mgensim::Scenario::from_str_with(text, path, &all, allow_io) {
                Ok(s) => s,
                Err(e) => return Outcome::Setup(e),
            };
            let baseline = match power_baseline.then(|| mgensim::run::baseline_of(&s, &name)) {
                Some(Err(e)) => return Outcome::Setup(e),
                b => b.and_then(Result::ok),
            };
            let setup = Setup {
                probes,
                interrupt: Some(flag),
                wall_from: Some(origin),
                last_in_process: false,
            };
            let sim = match mgensim::run::simulation(&s, &setup) {
                Ok(sim) => sim,
                Err(e) => return Outcome::Setup(e),
            };
            let report = |mut r: mgensim::Report| {
                r.measure_host(origin.elapsed());
                Report::new(r, plots, folder, profile || folder)
            };
            match sim.run() {
                Ok(mut r) => {
                    let failed = baseline
                        .and_then(|b| mgensim::run::compare_with_baseline(&mut r, &b, false).err());
                    match report(r) {
                        Ok(r) => Outcome::Done(r, failed),
                        Err(e) => Outcome::Setup(e),
                    }
                }
                Err(e) => match e.partial.map(|p| report(*p)).transpose() {
                    Ok(p) => Outcome::Stopped(e.stop, p),
                    Err(x) => Outcome::Setup(x),
                },
            }
        })?;
        outcome.into_py(py, &name, asked)
    }

    fn __repr__(&self) -> String {
        format!(
            "<mgensim.Scenario {} ({} ranks, {})>",
            self.path.display(),
            self.checked.ranks(),
            self.checked.network_in_words()
        )
    }
}
