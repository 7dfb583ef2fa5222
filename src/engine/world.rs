//! The processes of a run and what they agree on: the world of MPI processes a run started
//! by `mpirun` or `srun` spans (`--features mpi`), or the one process of any other run.
//!
//! NSIM ran as "a message-passing parallel program with MPI" (the NSIM paper, §5): each
//! process simulates its share of the network, processes agree when the next window ends
//! by a reduction of their earliest times, and the events one process sends another are
//! bundled into one transfer per pair. These are the collectives that needs, and no more:
//!
//! | collective | use | MPI |
//! | --- | --- | --- |
//! | [`World::min`] | the next window: the earliest time left, the shortest packet held across a cut, the stop's horizon | `MPI_Allreduce(MIN)` of a few `u64` |
//! | [`World::sum`] | events so far, at the end of an epoch (`limits.events`) | `MPI_Allreduce(SUM)` |
//! | [`World::exchange`] | a window's cut messages, one buffer per pair of processes that has any, and whether some process stopped | `MPI_Isend` of each non-empty buffer; an `MPI_Ireduce_scatter_block(SUM)` says how many to take in (`MPI_Improbe`) and how many processes stopped |
//! | [`World::gather`] | the partitions' end states, to the process that writes the outputs | `MPI_Gather` of the sizes, `MPI_Gatherv` |
//! | [`World::broadcast`] | what the root decided (the exit status, an error) | `MPI_Bcast` |
//!
//! On one process each is the identity, and costs nothing. Only the thread that started MPI
//! calls it (`MPI_THREAD_FUNNELED`): the engine's leader, between phases, while the other
//! threads wait.
//!
//! A process that fails must not leave the others waiting in a collective: a panic aborts
//! the whole job (`MPI_Abort`) once its message is printed, and [`World::abort`] does the
//! same for an error the engine cannot report in order.

use std::cell::RefCell;
use std::fmt;

/// The environment variables by which a launcher tells a process it is one of several
/// (Open MPI's `mpirun`, MPICH's Hydra, PMI and PMIx as Slurm's `srun` sets them).
const LAUNCHER_VARS: [&str; 5] = [
    "OMPI_COMM_WORLD_SIZE",
    "PMI_SIZE",
    "PMIX_RANK",
    "PMI_RANK",
    "MPI_LOCALNRANKS",
];

#[allow(dead_code)] // (read by the MPI build's panic hook)
/// The exit status of a job a panic aborted (`MPI_Abort`): the sysexits code for an
/// internal error, as a panic is one.
const PANIC_STATUS: i32 = 70;

/// Whether the run stops at a window's exchange of cut messages, as every process agrees
/// (the strongest any process asks for).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Halt {
    /// It goes on.
    Go,
    /// It stops once the window's cut messages are taken in: a stop at an epoch's end
    /// (`limits.events`, a full time series), after which one partition would have every
    /// arrival of the epoch in place.
    AfterTakeIn,
    /// It stops before they are taken in: a rank's error or a limit inside the window.
    Now,
}

/// The processes of a run.
pub(crate) struct World {
    inner: Inner,
}

enum Inner {
    /// One process, without MPI.
    One,
    /// A process of an MPI job (MPI is finalized when it is dropped).
    #[cfg(feature = "mpi")]
    Mpi(mpi_world::Job),
}

/// Why a process cannot join its job.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct WorldError(String);

impl fmt::Display for WorldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WorldError {}

/// The launcher variable that says this process is one of several, and its value, if any.
fn launched_as_one_of_many() -> Option<(&'static str, String)> {
    LAUNCHER_VARS
        .iter()
        .find_map(|&k| std::env::var(k).ok().map(|v| (k, v)))
}

/// Whether this process is one of an MPI job's but not its root, as its launcher says (read
/// before MPI starts; never in a build without MPI, which runs such a process alone or
/// refuses it): such a process says nothing a run's root says too (the scenario's
/// warnings), so that the job says it once.
pub(crate) fn follower() -> bool {
    cfg!(feature = "mpi")
        && ["OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"]
            .iter()
            .find_map(|k| std::env::var(k).ok())
            .and_then(|v| v.trim().parse::<u32>().ok())
            .is_some_and(|r| r > 0)
}

// (the collectives are the window protocol's, which the engine takes up once partitions run
// across processes: until then only their tests call them)
#[allow(dead_code)]
impl World {
    /// A world of one process, without MPI.
    pub(crate) fn one() -> World {
        World { inner: Inner::One }
    }

    /// This process's world: the MPI job a launcher started it in (MPI is initialized here,
    /// once per process), or one process when no launcher did. A process a launcher started
    /// in a build without MPI is an error, unless its job has one process: it would run the
    /// whole simulation alone, once per process.
    pub(crate) fn join() -> Result<World, WorldError> {
        let Some((var, value)) = launched_as_one_of_many() else {
            return Ok(World::one());
        };
        #[cfg(feature = "mpi")]
        {
            let _ = (var, value);
            mpi_world::join()
        }
        #[cfg(not(feature = "mpi"))]
        {
            let many = match var {
                "OMPI_COMM_WORLD_SIZE" | "PMI_SIZE" | "MPI_LOCALNRANKS" => {
                    value.trim().parse::<u32>().map_or(true, |n| n > 1)
                }
                _ => true,
            };
            if !many {
                return Ok(World::one());
            }
            Err(WorldError(format!(
                "this process was started by an MPI launcher ({var}={value}), but this mgensim \
                 was built without MPI: every process would run the whole simulation alone. \
                 Build it with `cargo build --release --features mpi` (needs an MPI library: \
                 Debian's libopenmpi-dev openmpi-bin libclang-dev), or run it without mpirun"
            )))
        }
    }

    /// This process's number in its job (0: the root, which writes the outputs).
    pub(crate) fn rank(&self) -> u32 {
        match &self.inner {
            Inner::One => 0,
            #[cfg(feature = "mpi")]
            Inner::Mpi(c) => mpi_world::rank(c),
        }
    }

    /// The processes in the job.
    pub(crate) fn size(&self) -> u32 {
        match &self.inner {
            Inner::One => 1,
            #[cfg(feature = "mpi")]
            Inner::Mpi(c) => mpi_world::size(c),
        }
    }

    /// Whether this process writes the outputs.
    pub(crate) fn is_root(&self) -> bool {
        self.rank() == 0
    }

    /// Makes each of `values` the least of its value in every process.
    pub(crate) fn min(&self, values: &mut [u64]) {
        match &self.inner {
            Inner::One => {
                let _ = values;
            }
            #[cfg(feature = "mpi")]
            Inner::Mpi(c) => mpi_world::min(c, values),
        }
    }

    /// The sum of `value` over the processes.
    pub(crate) fn sum(&self, value: u64) -> u64 {
        match &self.inner {
            Inner::One => value,
            #[cfg(feature = "mpi")]
            Inner::Mpi(c) => mpi_world::sum(c, value),
        }
    }

    /// Sends `out[p]` to process `p` (one buffer per process, this one's included; an empty
    /// one is not sent) and returns the [`Halt`] every process agrees on (the strongest any
    /// asked for), and what each process sent this one, by sender (empty from a process that
    /// sent nothing). Every process must call it; its cost is each process's own messages and
    /// one reduction (`mpi_world.rs`).
    pub(crate) fn exchange(
        &self,
        out: Vec<Vec<u8>>,
        halt: Halt,
    ) -> Result<(Halt, Vec<Vec<u8>>), WorldError> {
        assert_eq!(out.len(), self.size() as usize, "one buffer per process");
        match &self.inner {
            Inner::One => Ok((halt, out)),
            #[cfg(feature = "mpi")]
            Inner::Mpi(c) => mpi_world::exchange(c, &out, halt),
        }
    }

    /// Every process's `mine`, handed to `take` at the root one process at a time, in the
    /// processes' order (the root's own first), each freed before the next is received: the
    /// root never holds more than its own and one other's. `take` is called at the root
    /// only; its error stops the gather (the others' bytes are then received and dropped).
    pub(crate) fn gather_each(
        &self,
        mine: Vec<u8>,
        mut take: impl FnMut(usize, &[u8]) -> Result<(), String>,
    ) -> Result<Result<(), String>, WorldError> {
        match &self.inner {
            Inner::One => Ok(take(0, &mine)),
            #[cfg(feature = "mpi")]
            Inner::Mpi(c) => mpi_world::gather_each(c, mine, &mut take),
        }
    }

    /// The root's `bytes`, in every process (`bytes` is read at the root only).
    pub(crate) fn broadcast(&self, bytes: Vec<u8>) -> Result<Vec<u8>, WorldError> {
        match &self.inner {
            Inner::One => Ok(bytes),
            #[cfg(feature = "mpi")]
            Inner::Mpi(c) => mpi_world::broadcast(c, bytes),
        }
    }

    /// Stops every process of the job at once, with `status`, after printing `why` (for a
    /// failure the processes cannot agree on in order; never returns).
    pub(crate) fn abort(&self, status: i32, why: &str) -> ! {
        eprintln!("error: {why}");
        match &self.inner {
            Inner::One => std::process::exit(status),
            #[cfg(feature = "mpi")]
            Inner::Mpi(j) => mpi_world::abort(j, status),
        }
    }
}

/// The largest buffer one MPI call moves: its counts are C `int`s.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
const MAX_COUNT: usize = i32::MAX as usize;

/// A buffer's length as an MPI count, or why it cannot be one.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
fn count(len: usize, what: &str) -> Result<i32, WorldError> {
    if len > MAX_COUNT {
        return Err(WorldError(format!(
            "{what}: {len} bytes in one MPI transfer, more than its counts can hold \
             ({MAX_COUNT} bytes): run on more processes"
        )));
    }
    Ok(len as i32)
}

thread_local! {
    /// The root's world between the run's end and the process's: the others wait for its
    /// exit status until every output is written and every error printed ([`end_job`]).
    static HELD: RefCell<Option<World>> = const { RefCell::new(None) };
}

/// Keeps the root's `world` until [`end_job`]: the other processes wait in its last
/// collective, so that none ends (and makes the launcher kill the job) before the root has
/// said everything.
pub(crate) fn hold(world: World) {
    HELD.with(|h| *h.borrow_mut() = Some(world));
}

/// The end of this process's part of a job: the root tells every other process its exit
/// `status` (they exit with it) and MPI is finalized. Nothing when no world is held (one
/// process, or a process that is not the root).
pub(crate) fn end_job(status: u8) {
    if let Some(world) = HELD.with(|h| h.borrow_mut().take()) {
        ignore_interrupts();
        if let Err(e) = world.broadcast(vec![status]) {
            world.abort(70, &e.to_string());
        }
        // (MPI is finalized as the world is dropped)
        #[allow(clippy::drop_non_drop)]
        drop(world);
    }
}

/// `flag`, which a signal sets, is also set when another process of the job was interrupted,
/// and this process tells the others when it is set (`world/mpi_world/notices.rs`). Nothing
/// in a run of one process.
pub(crate) fn share_interrupt(flag: &std::sync::Arc<std::sync::atomic::AtomicBool>) {
    #[cfg(feature = "mpi")]
    mpi_world::share_interrupt(flag.clone());
    #[cfg(not(feature = "mpi"))]
    let _ = flag;
}

/// Makes SIGINT and SIGTERM do nothing in this process from now on: its part of the job is
/// over (all it had is with the root, or every output is written and every error printed),
/// and all that is left is the exit status, MPI's finalize and the exit. A launcher that
/// stops the job as its first process exits (Open MPI's mpirun sends the others SIGTERM) must
/// not make a process print a second error ("interrupted while the run was being set up")
/// or end with another status; it sends SIGKILL after, if it must.
fn ignore_interrupts() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: signal(2) setting a disposition; no handler of ours runs
        unsafe { libc::signal(sig, libc::SIG_IGN) };
    }
}

/// A process other than the root, once it has given the root all it has: waits for the
/// root's exit status (sent once the root has written every output and printed every
/// error), finalizes MPI and exits with it.
pub(crate) fn follow_root(world: World) -> ! {
    ignore_interrupts();
    let status = world
        .broadcast(Vec::new())
        .unwrap_or_else(|e| world.abort(70, &e.to_string()));
    // (MPI is finalized as the world is dropped, before the exit)
    #[allow(clippy::drop_non_drop)]
    drop(world);
    std::process::exit(status.first().copied().unwrap_or(1) as i32)
}

#[cfg(feature = "mpi")]
mod mpi_world;

#[cfg(test)]
mod tests;
