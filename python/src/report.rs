//! A run's report as Python sees it: the summary's JSON, the CSV files of its output folder,
//! `report.html`, and the folder itself, each made by the library as `mgensim run` makes it.

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// What one run computed (the package's `mgensim.Result` wraps it).
#[pyclass(frozen, module = "mgensim._native")]
pub struct Report {
    /// (behind a lock only so that the summary's text can leave out a profile recorded only
    /// for the page, for a moment: nothing else changes it)
    report: Mutex<mgensim::Report>,
    /// The summary as `--json` prints it.
    summary: String,
    /// The summary has the profile (asked for, or a folder written).
    profile_in_summary: bool,
    /// The run asked for `--plots`: the folder gets the timeline, and the pictures if drawn.
    plots: bool,
    /// The pictures can be drawn (the run kept their records).
    pictures: bool,
}

impl Report {
    /// `report` of a run that asked for `plots` and writes a `folder` (or not); its summary
    /// leaves out a profile recorded only for `report.html` (not asked for by `profile`, nor
    /// by writing a folder), as the command line's `--json` does, whose runs record it only
    /// with `--out`.
    pub(crate) fn new(
        mut report: mgensim::Report,
        plots: bool,
        folder: bool,
        profile_in_summary: bool,
    ) -> anyhow::Result<Report> {
        let pictures = mgensim::run::pictures(&mut report, plots, folder);
        let summary = if profile_in_summary || report.profile.is_none() {
            mgensim::run::summary(&report, true)?
        } else {
            let profile = report.profile.take();
            let s = mgensim::run::summary(&report, true);
            report.profile = profile;
            s?
        };
        Ok(Report {
            report: Mutex::new(report),
            summary,
            profile_in_summary,
            plots,
            pictures,
        })
    }

    /// The library's report.
    pub(crate) fn inner(&self) -> MutexGuard<'_, mgensim::Report> {
        self.report.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl Report {
    /// When the last rank's script ended (ps).
    #[getter]
    fn predicted_time_ps(&self) -> u64 {
        self.inner().predicted_time_ps
    }

    /// Whether the run stopped before every rank finished.
    #[getter]
    fn partial(&self) -> bool {
        self.inner().partial
    }

    /// Why a run that stopped early stopped, as the command line says it; None otherwise.
    #[getter]
    fn stop(&self) -> Option<String> {
        self.inner().stop.clone()
    }

    /// What the scripts left behind, and what reading the scenario left out (the command
    /// line's `warning:` lines).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner().warnings.clone()
    }

    /// The scenario's file, as given.
    #[getter]
    fn scenario(&self) -> String {
        self.inner().scenario.clone()
    }

    /// The summary as `mgensim run --json` prints it.
    fn summary_json(&self) -> String {
        self.summary.clone()
    }

    /// The summary as `mgensim run` prints it (text).
    fn summary_text(&self) -> PyResult<String> {
        let mut r = self.inner();
        let profile = (!self.profile_in_summary)
            .then(|| r.profile.take())
            .flatten();
        let text = mgensim::run::summary(&r, false);
        if profile.is_some() {
            r.profile = profile;
        }
        text.map_err(|e| PyValueError::new_err(format!("{e:#}")))
    }

    /// The CSV file `name` of the output folder (`links`, `ranks`, `routers`, `nodes`,
    /// `profile`, `links_timeseries`, `links_power`, `power_timeseries`, `buffer_history`);
    /// None when the run did not record it.
    fn csv(&self, name: &str) -> PyResult<Option<String>> {
        mgensim::output::table_csv(&self.inner(), name).map_err(PyValueError::new_err)
    }

    /// The ranks' timeline as Chrome trace-event JSON, if the run recorded it.
    fn trace(&self) -> Option<String> {
        self.inner().trace.clone()
    }

    /// `report.html`: the page of the output folder (one self-contained file).
    fn html(&self, py: Python<'_>) -> String {
        py.detach(|| mgensim::html_page(&self.inner()))
    }

    /// Writes the output folder `dir` as `mgensim run --out DIR` does (whole or not at all).
    fn write(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        py.detach(|| mgensim::run::write_folder(&dir, &self.inner(), self.plots, self.pictures))
            .map_err(|e| PyOSError::new_err(format!("{e:#}")))
    }
}
