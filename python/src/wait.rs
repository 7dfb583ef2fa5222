//! Work done with the interpreter let go, while the caller still answers Ctrl-C.
//!
//! Python runs its signal handlers only in the main thread, between bytecodes: a run that held
//! the calling thread in Rust for minutes would leave Ctrl-C unanswered. So the work runs on a
//! thread of its own, and the calling thread waits for it [`LOOK`] at a time with the
//! interpreter let go; between two waits it takes the interpreter back, runs the signal
//! handlers (`PyErr_CheckSignals`) and looks at the caller's `cancel` event. Either sets the
//! engine's interrupt flag, which stops the run promptly with its figures so far (the engine
//! looks at it every few thousand events, and in a rank that runs long). Other Python threads
//! run meanwhile.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How long the calling thread waits for the work between two looks at signals.
const LOOK: Duration = Duration::from_millis(50);

/// The stack of the thread a run goes on: that of a process's main thread, which the command
/// line runs on (Lua's C calls and the engine's recursion fit it).
const STACK: usize = 8 << 20;

/// Why a wait ended early.
pub(crate) enum Asked {
    /// Nothing: the work ended by itself.
    Nothing,
    /// `cancel.is_set()` became true.
    Cancel,
    /// Ctrl-C: the KeyboardInterrupt (or whatever a Python signal handler raised).
    Signal(PyErr),
}

/// Runs `work` (given the interrupt flag it must watch) on a thread of its own and waits for
/// it, answering signals and `cancel` (an object with `is_set()`, a `threading.Event`) by
/// setting the flag; returns what `work` returned and what asked it to stop, if anything.
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    cancel: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(Arc<AtomicBool>) -> T + Send,
) -> PyResult<(T, Asked)> {
    let flag = Arc::new(AtomicBool::new(false));
    let mut asked = Asked::Nothing;
    let result = std::thread::scope(|scope| -> PyResult<T> {
        let (tx, mut rx) = mpsc::channel();
        let f = flag.clone();
        std::thread::Builder::new()
            .name("mgensim".into())
            .stack_size(STACK)
            .spawn_scoped(scope, move || {
                let _ = tx.send(work(f));
            })
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
        loop {
            // (the receiver goes along and comes back: a reference to it cannot cross threads)
            let (got, back) = py.detach(move || (rx.recv_timeout(LOOK), rx));
            rx = back;
            match got {
                Ok(t) => return Ok(t),
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(pyo3::exceptions::PyRuntimeError::new_err(
                        "mgensim's run thread ended without a result (a bug: please report it)",
                    ))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if !matches!(asked, Asked::Nothing) {
                continue; // (asked once: the run is stopping)
            }
            if let Err(e) = py.check_signals() {
                flag.store(true, Ordering::SeqCst);
                asked = Asked::Signal(e);
            } else if let Some(c) = cancel {
                match c.call_method0("is_set").and_then(|r| r.is_truthy()) {
                    Ok(false) => {}
                    Ok(true) => {
                        flag.store(true, Ordering::SeqCst);
                        asked = Asked::Cancel;
                    }
                    // (a cancel that cannot be asked stops the run, and says why)
                    Err(e) => {
                        flag.store(true, Ordering::SeqCst);
                        asked = Asked::Signal(e);
                    }
                }
            }
        }
    })?;
    Ok((result, asked))
}
