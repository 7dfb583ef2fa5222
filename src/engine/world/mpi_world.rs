//! [`World`](super::World)'s collectives on MPI (the `mpi` crate on the system's library).

use super::{count, displacements, WorldError, PANIC_STATUS};
use mpi::collective::{CommunicatorCollectives, Root, SystemOperation};
use mpi::datatype::{Partition, PartitionMut};
use mpi::environment::Universe;
use mpi::request::{LocalScope, Request};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Threading;

mod notices;

/// A process's membership of its MPI job.
pub(crate) struct Job {
    /// Held so that MPI is finalized when the job is dropped, after the last collective.
    _universe: Universe,
    comm: SimpleCommunicator,
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

/// A buffer never empty: two empty vectors share one dangling address, and an MPI library
/// may refuse a collective whose send and receive buffers are the same address.
fn nonempty(mut v: Vec<u8>) -> Vec<u8> {
    if v.is_empty() {
        v.push(0);
    }
    v
}

pub(super) fn exchange(j: &Job, out: &[Vec<u8>]) -> Result<Vec<Vec<u8>>, WorldError> {
    const WHAT: &str = "the cut messages of a window";
    let send_counts = out
        .iter()
        .map(|b| count(b.len(), WHAT))
        .collect::<Result<Vec<i32>, _>>()?;
    let mut recv_counts = vec![0i32; out.len()];
    // (the first collective after a window: where a process waits for one still in it)
    mpi::request::scope(|scope| {
        wait(
            j.comm
                .immediate_all_to_all_into(scope, &send_counts[..], &mut recv_counts[..]),
        )
    });
    let (send_displs, _) = displacements(&send_counts, WHAT)?;
    let (recv_displs, total) = displacements(&recv_counts, WHAT)?;
    let send = nonempty(out.concat());
    let mut recv = nonempty(vec![0u8; total]);
    {
        let sp = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
        let mut rp = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
        j.comm.all_to_all_varcount_into(&sp, &mut rp);
    }
    Ok(recv_counts
        .iter()
        .zip(&recv_displs)
        .map(|(&c, &d)| recv[d as usize..(d + c) as usize].to_vec())
        .collect())
}

pub(super) fn gather(j: &Job, mine: Vec<u8>) -> Result<Vec<Vec<u8>>, WorldError> {
    const WHAT: &str = "a process's partitions at the end of the run";
    let root = j.comm.process_at_rank(0);
    let n = count(mine.len(), WHAT)?;
    let send = nonempty(mine);
    if j.comm.rank() != 0 {
        root.gather_into(&n);
        root.gather_varcount_into(&send[..n as usize]);
        return Ok(Vec::new());
    }
    let mut counts = vec![0i32; j.comm.size() as usize];
    root.gather_into_root(&n, &mut counts[..]);
    let (displs, total) = displacements(&counts, WHAT)?;
    let mut recv = nonempty(vec![0u8; total]);
    {
        let mut rp = PartitionMut::new(&mut recv[..], &counts[..], &displs[..]);
        root.gather_varcount_into_root(&send[..n as usize], &mut rp);
    }
    Ok(counts
        .iter()
        .zip(&displs)
        .map(|(&c, &d)| recv[d as usize..(d + c) as usize].to_vec())
        .collect())
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
