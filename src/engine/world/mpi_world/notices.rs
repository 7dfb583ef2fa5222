//! Ctrl-C across processes: a process whose interrupt flag a signal set tells every other
//! process, which sets its own, so that a rank of another process that runs long in Lua (the
//! watchdog's hook looks at that flag) stops as if the signal had come to it. Without this,
//! a signal to one process would leave it waiting in a collective for another whose rank
//! loops, for ever.
//!
//! Each process posts, when it joins, one receive of a byte from every other process on a
//! communicator of their own (a duplicate of the world's: no notice is ever taken for a
//! collective's message), and [`look`]s: at the limits' looks (`Watch::check` in
//! `limits.rs`: between events and in the watchdog's hook), while its leader waits for its
//! other threads, and while it waits in a collective after a window. Only the thread that
//! joined MPI looks (the job is `MPI_THREAD_FUNNELED`); another thread's look does nothing.
//! A process tells each other process at most once, and each notice is taken by the receive
//! posted for its sender, so none is left unmatched when MPI is finalized.

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

/// A collective's wait looks every this many of its tests.
pub(super) const LOOK_EVERY: u32 = 64;

/// The tag of a notice (its communicator carries nothing else).
const TAG: i32 = 1;

/// What one process needs to tell and hear.
struct Notices {
    /// The world's duplicate, for notices only.
    comm: SimpleCommunicator,
    /// The receive posted for each process (this one's is `MPI_REQUEST_NULL`, and so is
    /// one whose notice came).
    recvs: Vec<ffi::MPI_Request>,
    /// Where each receive puts its byte.
    bytes: Box<[u8]>,
    /// This process's interrupt flag, once the run has one (`Simulation::set_interrupt`).
    flag: Option<Arc<AtomicBool>>,
    /// Whether the others were told, or need not be (one of them told this one).
    told: bool,
    /// The thread that joined MPI: the only one that may call it.
    thread: ThreadId,
}

// SAFETY: MPI's handles, used only on `thread` (every use checks it first)
unsafe impl Send for Notices {}

static NOTICES: Mutex<Option<Notices>> = Mutex::new(None);

/// Posts this process's receives of notices (on the thread that joined MPI, once).
pub(super) fn open(world: &SimpleCommunicator) {
    let comm = world.duplicate();
    let (me, size) = (comm.rank(), comm.size());
    let mut bytes = vec![0u8; size as usize].into_boxed_slice();
    let mut recvs = Vec::with_capacity(size as usize);
    for p in 0..size {
        // SAFETY: a null request is a valid handle to hold
        let mut req = unsafe { ffi::RSMPI_REQUEST_NULL };
        if p != me {
            // SAFETY: one byte of `bytes`, which lives (on the heap, never moved) until
            // `close` has completed or cancelled this receive
            unsafe {
                ffi::MPI_Irecv(
                    bytes.as_mut_ptr().add(p as usize).cast(),
                    1,
                    ffi::RSMPI_UINT8_T,
                    p,
                    TAG,
                    comm.as_raw(),
                    &mut req,
                );
            }
        }
        recvs.push(req);
    }
    install(Notices {
        comm,
        recvs,
        bytes,
        flag: None,
        told: false,
        thread: std::thread::current().id(),
    });
}

fn install(n: Notices) {
    *NOTICES.lock().unwrap_or_else(|e| e.into_inner()) = Some(n);
    crate::limits::look_elsewhere_with(look);
}

/// The flag a signal sets in this process: what a notice sets, and what makes this process
/// tell the others.
pub(super) fn share(flag: Arc<AtomicBool>) {
    if let Some(n) = NOTICES.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        n.flag = Some(flag);
    }
}

/// Tells the others if this process was interrupted, and takes in what they told: returns
/// whether this process must stop as interrupted (its flag is set). Nothing, and `false`,
/// on any other thread than the one that joined MPI.
pub(crate) fn look() -> bool {
    let Ok(mut guard) = NOTICES.try_lock() else {
        return false;
    };
    let Some(n) = guard.as_mut() else {
        return false;
    };
    if n.thread != std::thread::current().id() {
        return false;
    }
    let Some(flag) = n.flag.clone() else {
        return false;
    };
    if flag.load(Ordering::SeqCst) && !n.told {
        tell(n);
    }
    loop {
        let (mut index, mut done) = (0i32, 0i32);
        // SAFETY: the posted (or null) requests of this process, on its MPI thread
        unsafe {
            ffi::MPI_Testany(
                n.recvs.len() as i32,
                n.recvs.as_mut_ptr(),
                &mut index,
                &mut done,
                ffi::RSMPI_STATUS_IGNORE,
            );
        }
        // (`index` is MPI_UNDEFINED, negative, when no request is active)
        if done == 0 || index < 0 {
            break;
        }
        // (MPI made the request null; the sender told every process)
        n.told = true;
        flag.store(true, Ordering::SeqCst);
    }
    flag.load(Ordering::SeqCst)
}

/// Sends every other process a notice (at most once).
fn tell(n: &mut Notices) {
    static ONE: u8 = 1;
    n.told = true;
    let (me, size) = (n.comm.rank(), n.comm.size());
    for p in (0..size).filter(|&p| p != me) {
        // SAFETY: a static byte; the request is freed at once, the send completing on its own
        unsafe {
            let mut req = ffi::RSMPI_REQUEST_NULL;
            ffi::MPI_Isend(
                (&ONE as *const u8).cast(),
                1,
                ffi::RSMPI_UINT8_T,
                p,
                TAG,
                n.comm.as_raw(),
                &mut req,
            );
            ffi::MPI_Request_free(&mut req);
        }
    }
}

/// Cancels the receives still posted, before MPI is finalized.
pub(super) fn close() {
    let Some(mut n) = NOTICES.lock().unwrap_or_else(|e| e.into_inner()).take() else {
        return;
    };
    for req in &mut n.recvs {
        // SAFETY: this process's requests, on its MPI thread (the job is dropped there)
        unsafe {
            if *req != ffi::RSMPI_REQUEST_NULL {
                ffi::MPI_Cancel(req);
                ffi::MPI_Wait(req, ffi::RSMPI_STATUS_IGNORE);
            }
        }
    }
    let _ = &n.bytes;
    // (the duplicate communicator is freed as `n` is dropped)
}
