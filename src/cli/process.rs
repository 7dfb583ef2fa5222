//! The process around a run: when it started, what a signal does, the wall clock during the
//! set-up, and the progress line.

use crate::Exit;
use mgensim::Simulation;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// When the process started: `limits.wall_time` covers all of it.
pub(crate) static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// Ctrl-C (or SIGTERM) sets the flag the engine watches; a second one exits at once, unless
/// outputs are being written: then the first asks the writing to stop (what was staged is
/// abandoned, the old outputs stay) and the process ends as soon as it has. Only this
/// process's own signals count: in an MPI job the flag is also set when another process was
/// interrupted (`World::share_interrupt`), and a signal sent to every process (Slurm's
/// `scancel`) that comes after another's notice is still the first here.
///
/// With `setup` (the scenario's name and the flag that says the run's set-up is over), a
/// signal before the set-up is over ends the process at once: nothing has been computed.
pub(crate) fn interrupt_flag(setup: Option<(String, Arc<AtomicBool>)>) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    let signalled = AtomicBool::new(false);
    let _ = ctrlc::set_handler(move || {
        if let Some((name, over)) = &setup {
            if !over.load(Ordering::SeqCst) {
                eprintln!(
                    "error: {name}: interrupted while the run was being set up (reading the \
                     scenario and what it names, building the network and the ranks); \
                     nothing was simulated"
                );
                mgensim::output::remove_temporaries();
                std::process::exit(Exit::Interrupted as i32);
            }
        }
        f.store(true, Ordering::SeqCst);
        let second = signalled.swap(true, Ordering::SeqCst);
        if mgensim::output::may_end_on_signal(second) {
            mgensim::output::remove_temporaries();
            std::process::exit(Exit::Interrupted as i32);
        }
    });
    flag
}

/// Ends the process if `limits.wall_time` (`wall`) passes while the run is still being set up
/// (building the network and the scripts, before the engine's own watch starts): nothing has
/// been computed then, so there is nothing to write. `over` says the set-up is over.
pub(crate) fn watch_setup(scenario: &Path, wall: mgensim::units::Time, over: &Arc<AtomicBool>) {
    if wall.ps() == 0 {
        return;
    }
    let start = *STARTED.get_or_init(std::time::Instant::now);
    let deadline = start + std::time::Duration::from_nanos((wall.ps() / 1000).max(1));
    let (o, name) = (over.clone(), scenario.display().to_string());
    std::thread::spawn(move || {
        let now = std::time::Instant::now();
        if deadline > now {
            std::thread::sleep(deadline - now);
        }
        if !o.load(Ordering::SeqCst) {
            eprintln!(
                "error: {name}: wall-clock limit: `limits.wall_time` = {wall} passed while the \
                 run was being set up (reading the scenario and what it names, building the \
                 network and the ranks); nothing was simulated\n  raise it: --timeout 10min (0 = no limit)"
            );
            mgensim::output::remove_temporaries();
            std::process::exit(Exit::Limit as i32);
        }
    });
}

/// A progress line on stderr, redrawn at most 4 times a second: simulated time, events per
/// second, ranks finished.
pub(crate) fn progress_line(sim: &mut Simulation) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        None,
        indicatif::ProgressDrawTarget::stderr_with_hz(4),
    );
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    let (b, started) = (bar.clone(), std::time::Instant::now());
    sim.on_progress(move |p| {
        let rate = p.events as f64 / started.elapsed().as_secs_f64().max(1e-9);
        b.set_message(format!(
            "simulated {}  {:.1} M events/s  ranks finished {}/{}",
            p.now,
            rate / 1e6,
            p.finished,
            p.ranks
        ));
        b.tick();
    });
    bar
}
