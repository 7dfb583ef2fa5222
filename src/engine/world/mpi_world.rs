//! [`World`](super::World)'s collectives on MPI (the `mpi` crate on the system's library).

use super::{count, Halt, WorldError, PANIC_STATUS};
use mpi::collective::{CommunicatorCollectives, Root, SystemOperation};
use mpi::environment::Universe;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};
use mpi::request::{LocalScope, Request};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;

mod notices;

/// A process's membership of its MPI job.
pub(crate) struct Job {
    /// Held so that MPI is finalized when the job is dropped, after the last collective.
    _universe: Universe,
    comm: SimpleCommunicator,
    /// Exchanges made (their messages' tags).
    exchanges: std::cell::Cell<u32>,
}

impl Drop for Job {
    fn drop(&mut self) {
        // (before MPI is finalized: the receives of notices still posted are cancelled)
        notices::close();
    }
}

/// Waits for collective `req` to complete, looking at the interrupts meanwhile
/// (`notices.rs`): a process waiting here for another whose rank runs long in Lua tells it of
/// its own Ctrl-C, and hears of another's.
fn wait<'a, D: ?Sized>(mut req: Request<'a, D, &LocalScope<'a>>) {
    let mut spins = 0u32;
    loop {
        match req.test() {
            Ok(_) => return,
            Err(r) => req = r,
        }
        spins = spins.wrapping_add(1);
        if spins % notices::LOOK_EVERY == 0 {
            notices::look();
        }
    }
}

/// Initializes MPI for the calling thread, the only one that will call it.
pub(super) fn join() -> Result<super::World, WorldError> {
    let Some((universe, level)) = mpi::initialize_with_threading(Threading::Funneled) else {
        return Err(WorldError(
            "MPI was initialized already in this process".to_string(),
        ));
    };
    if level < Threading::Funneled {
        return Err(WorldError(format!(
            "the MPI library offers threads {level:?}; mgensim needs at least Funneled (one \
             thread calls MPI while others simulate)"
        )));
    }
    // a panic in one process must not leave the others waiting in a collective: once its
    // message is printed, the whole job stops
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        SimpleCommunicator::world().abort(PANIC_STATUS);
    }));
    let comm = universe.world();
    notices::open(&comm);
    Ok(super::World {
        inner: super::Inner::Mpi(Job {
            _universe: universe,
            comm,
            exchanges: std::cell::Cell::new(0),
        }),
    })
}

pub(super) fn rank(j: &Job) -> u32 {
    j.comm.rank() as u32
}

pub(super) fn size(j: &Job) -> u32 {
    j.comm.size() as u32
}

pub(super) fn min(j: &Job, values: &mut [u64]) {
    let mine = values.to_vec();
    mpi::request::scope(|scope| {
        wait(
            j.comm
                .immediate_all_reduce_into(scope, &mine[..], values, SystemOperation::min()),
        )
    });
}

pub(super) fn sum(j: &Job, value: u64) -> u64 {
    let mut total = 0u64;
    mpi::request::scope(|scope| {
        wait(
            j.comm
                .immediate_all_reduce_into(scope, &value, &mut total, SystemOperation::sum()),
        )
    });
    total
}

pub(super) fn share_interrupt(flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
    notices::share(flag);
}

pub(super) fn abort(j: &Job, status: i32) -> ! {
    j.comm.abort(status)
}

/// The tag of the exchange's messages: the exchange's count, modulo this. (Messages of two
/// exchanges never meet: a collective the message's receiver must enter lies between them;
/// the tag makes that a certainty rather than an argument.)
const EXCHANGE_TAGS: u32 = 1 << 14;

/// Sends `out[p]` to each process `p` whose buffer is not empty, takes in what the others
/// send this one, and agrees the [`Halt`] (the strongest any process asks for). Returns that
/// agreement and the buffers received, by sender (empty where a process sent nothing).
///
/// A sparse exchange: each non-empty buffer goes as its own message (`MPI_Isend`), while one
/// `MPI_Ireduce_scatter_block(SUM)` of a pair per process, (1 if this one sends it a buffer,
/// `halt`: 1 after the take-in, 2³² now), tells each process how many buffers to take in (by
/// `MPI_Improbe` from any sender, the exchange's tag) and how many processes asked for each
/// halt. A window thus costs each
/// process its own messages (a cut is between a few neighbours, plus records for the
/// partitions of far NICs) and one reduction of `O(log P)` latency (its vector, `2P` words,
/// is a few kilobytes at thousands of processes), where the `MPI_Alltoall` of the counts and
/// the `MPI_Alltoallv` it replaces cost `O(P)` (measured: docs/performance.md, "Across
/// machines").
pub(super) fn exchange(
    j: &Job,
    out: &[Vec<u8>],
    halt: Halt,
) -> Result<(Halt, Vec<Vec<u8>>), WorldError> {
    const WHAT: &str = "the cut messages of a window";
    for b in out {
        count(b.len(), WHAT)?;
    }
    let me = j.comm.rank() as usize;
    let tag = (j.exchanges.get() % EXCHANGE_TAGS) as i32;
    j.exchanges.set(j.exchanges.get().wrapping_add(1));
    const NOW: u64 = 1 << 32;
    let asked = match halt {
        Halt::Go => 0,
        Halt::AfterTakeIn => 1,
        Halt::Now => NOW,
    };
    let mut told = vec![0u64; 2 * out.len()];
    for (p, b) in out.iter().enumerate() {
        told[2 * p] = (p != me && !b.is_empty()) as u64;
        told[2 * p + 1] = asked;
    }
    let mut mine = [0u64; 2];
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); out.len()];
    let mut spins = 0u32;
    let mut look = || {
        spins = spins.wrapping_add(1);
        if spins % notices::LOOK_EVERY == 0 {
            notices::look();
        }
    };
    mpi::request::scope(|scope| {
        let mut sends: Vec<_> = out
            .iter()
            .enumerate()
            .filter(|&(p, b)| p != me && !b.is_empty())
            .map(|(p, b)| {
                j.comm
                    .process_at_rank(p as i32)
                    .immediate_send_with_tag(scope, &b[..], tag)
            })
            .collect();
        // (the first wait after a window: where a process waits for one still in it)
        mpi::request::scope(|counting| {
            let mut req = j.comm.immediate_reduce_scatter_block_into(
                counting,
                &told[..],
                &mut mine[..],
                SystemOperation::sum(),
            );
            loop {
                match req.test() {
                    Ok(_) => break,
                    Err(r) => req = r,
                }
                look();
            }
        });
        let mut left = mine[0];
        while left > 0 {
            match j.comm.any_process().immediate_matched_probe_with_tag(tag) {
                Some(probed) => {
                    let from = probed.1.source_rank() as usize;
                    got[from] = probed.matched_receive_vec::<u8>().0;
                    left -= 1;
                }
                None => look(),
            }
        }
        while !sends.is_empty() {
            sends = sends.into_iter().filter_map(|r| r.test().err()).collect();
            look();
        }
    });
    if me < out.len() {
        got[me] = out[me].clone();
    }
    let agreed = if mine[1] >= NOW {
        Halt::Now
    } else if mine[1] > 0 {
        Halt::AfterTakeIn
    } else {
        Halt::Go
    };
    Ok((agreed, got))
}

/// The tag of the end of the run's messages to the root (the exchange's are below it).
const GATHER_TAG: i32 = EXCHANGE_TAGS as i32;

pub(super) fn gather_each<F: FnMut(usize, &[u8]) -> Result<(), String>>(
    j: &Job,
    mine: Vec<u8>,
    take: &mut F,
) -> Result<Result<(), String>, WorldError> {
    const WHAT: &str = "a process's partitions at the end of the run";
    count(mine.len(), WHAT)?;
    if j.comm.rank() != 0 {
        j.comm
            .process_at_rank(0)
            .send_with_tag(&mine[..], GATHER_TAG);
        return Ok(Ok(()));
    }
    let mut done = take(0, &mine);
    drop(mine);
    for q in 1..j.comm.size() {
        let probed = j.comm.process_at_rank(q).matched_probe_with_tag(GATHER_TAG);
        let bytes = probed.matched_receive_vec::<u8>().0;
        if done.is_ok() {
            done = take(q as usize, &bytes);
        }
    }
    Ok(done)
}

pub(super) fn broadcast(j: &Job, bytes: Vec<u8>) -> Result<Vec<u8>, WorldError> {
    let root = j.comm.process_at_rank(0);
    let mut len = count(bytes.len(), "what the root tells every process")? as u64;
    root.broadcast_into(&mut len);
    let mut buf = if j.comm.rank() == 0 {
        bytes
    } else {
        vec![0u8; len as usize]
    };
    if len > 0 {
        root.broadcast_into(&mut buf[..]);
    }
    Ok(buf)
}
