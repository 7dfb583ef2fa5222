//! `mgensim._native`: the engine in-process for Python (the package `mgensim` around it, in
//! `python/mgensim/`, is the API people use; docs/python.md).
//!
//! It calls what `mgensim run` calls (the library's `run` module: options as keys, the
//! simulation, the power baseline, the summary, the output folder) and the library's sweeps;
//! what is its own is how Python values become scenario keys ([`value`]), running with the
//! interpreter let go while the caller still sees Ctrl-C ([`wait`]), and how a run's end
//! becomes a result or an exception ([`outcome`]).

mod outcome;
mod report;
mod scenario;
mod sweep;
mod value;
mod wait;

use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyValueError};

// (the engine's large blocks on huge pages, as in the command line; only the extension's own
// allocations go through it, never the interpreter's)
#[global_allocator]
static ALLOC: mgensim::HugePages = mgensim::HugePages;

pyo3::create_exception!(
    mgensim,
    ScenarioError,
    PyValueError,
    "A scenario that cannot be run: its message is the command line's (every problem at once, \
     each with its line and a \"did you mean\")."
);
pyo3::create_exception!(
    mgensim,
    RunError,
    PyException,
    "A run that stopped on an error: a script's error, a deadlock, a rank that ran away (the \
     instruction or Lua memory limit). `.rank`, `.file`, `.line` say where, `.report` is what the \
     command line prints, `.result` holds the figures up to the stop (partial)."
);
pyo3::create_exception!(
    mgensim,
    Interrupted,
    PyKeyboardInterrupt,
    "Ctrl-C (KeyboardInterrupt) stopped a run or a sweep: `.result` holds what was computed up to \
     then (a partial result, or the points that finished)."
);

/// The engine of mgensim, in-process (see the package `mgensim`).
#[pyo3::pymodule]
mod _native {
    #[pymodule_export]
    use super::report::Report;
    #[pymodule_export]
    use super::scenario::Scenario;
    #[pymodule_export]
    use super::sweep::{axis_values, run_sweep};
    #[pymodule_export]
    use super::value::{dumps, literal, toml_document};
    #[pymodule_export]
    use super::{Interrupted, RunError, ScenarioError};

    #[pymodule_init]
    fn init(m: &pyo3::Bound<'_, pyo3::types::PyModule>) -> pyo3::PyResult<()> {
        use pyo3::types::PyModuleMethods;
        m.add("LUA_DIR", mgensim::library_dir().display().to_string())?;
        m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
        Ok(())
    }
}
