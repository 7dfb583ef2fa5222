//! Arms the limits' count hook on a rank's coroutine only once a resume has run long.
//!
//! A Lua count hook makes the VM trap on every instruction (Lua 5.4 counts in the trap), which
//! costs about 10 % of a barrier and up to half the speed of a script that computes. Nearly
//! every resume yields within microseconds, long before a hook run would have come. So the
//! ranks' coroutines run unhooked, and one watchdog thread per process looks every [`PERIOD`]
//! at every thread that resumes ranks: a resume still running at two looks in a row has run at
//! least that long, and the watchdog sends *the thread running it* a signal whose handler sets
//! the hook on the running coroutine. From then on the hook charges the budget
//! (`limits.instructions`) and looks at Ctrl-C and the wall clock; the resume's end takes the
//! hook off again.
//!
//! A partition's ranks may be resumed by any of the engine's threads, window after window
//! (`engine/threads.rs`): what is watched is the thread, not the Lua state. Each thread that
//! resumes a rank has a [`Slot`] (made at its first resume, let go when the thread ends); the
//! slot's count of resumes begun and ended is odd while one runs, and the signal goes to the
//! slot's own thread id (`tgkill`), so a thread that has ended since is never signalled.
//!
//! Setting a hook from a signal handler is how Lua's own interpreter (`lua.c`, `laction`)
//! stops a running script: `lua_sethook` is written to be called asynchronously
//! (`ldebug.c`: the hook mask and the frames' `trap` are `volatile sig_atomic_t`, and Lua's
//! loops re-read `trap` on every backward jump). It is never called from the watchdog's own
//! thread, whose writes could race with the running Lua state.
//!
//! Coroutines made by scripts (`coroutine.create`/`wrap`) keep their hook always: the engine
//! does not know when they run.
//!
//! The cost of laziness: the budget is counted from the moment the hook is armed, so a rank
//! stopped at it has run its budget *plus* what it ran in its first [`PERIOD`]s. A run being
//! stopped (Ctrl-C, the wall clock: [`Watchdog::hook_at_once`]) hooks every resume from its
//! start, so that ranks resumed while the run winds down are stopped at once.

use mlua::ffi::{self, lua_Hook, lua_State};
use std::cell::{Cell, OnceCell};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

/// How often the watchdog looks: a resume is hooked after running between one and two of
/// these (wall time).
pub(super) const PERIOD: Duration = Duration::from_millis(10);

/// The signal that arms the hook. Ignored by default, so a stray one does no harm; mgensim
/// uses it for nothing else.
const SIGNAL: libc::c_int = libc::SIGURG;

/// One thread that resumes ranks, as the watchdog sees it.
struct Slot {
    /// Resumes begun and ended on the thread, one count each: odd while a resume runs.
    epoch: AtomicU64,
    /// The thread's id (`gettid`); 0 once the thread has ended.
    tid: AtomicI32,
}

/// What the signal handler needs, per thread: the coroutine the thread is resuming and the
/// hook to set on it.
struct Arming {
    /// The coroutine being resumed now, null between resumes.
    running: Cell<*mut lua_State>,
    /// Every how many instructions the hook runs (the resuming state's step).
    step: Cell<libc::c_int>,
    /// Whether this resume is hooked from its start ([`Watchdog::hook_at_once`]).
    at_once: Cell<bool>,
}

thread_local! {
    static ARMING: Arming = const {
        Arming {
            running: Cell::new(std::ptr::null_mut()),
            step: Cell::new(0),
            at_once: Cell::new(false),
        }
    };
    /// This thread's slot, made at its first resume; marked ended when the thread ends.
    static SLOT: OnceCell<Registered> = const { OnceCell::new() };
}

/// The hook to set (the one the prelude's `debug.sethook` installs: the same C function for
/// every coroutine of every state), as an address; 0 until a coroutine has been adopted.
static HOOK: AtomicUsize = AtomicUsize::new(0);

/// Every thread's slot (ended ones are dropped at the watchdog's next look).
static SLOTS: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());

/// A thread's slot, marked ended when the thread's locals are destroyed.
struct Registered(Arc<Slot>);

impl Drop for Registered {
    fn drop(&mut self) {
        self.0.tid.store(0, Ordering::SeqCst);
    }
}

/// The signal handler: hooks the running coroutine, if any.
extern "C" fn arm(_: libc::c_int) {
    // `ARMING` is a `const` thread-local without a destructor: a plain TLS slot, no
    // allocation, no lock (`try_with`: nothing to do on a thread being torn down)
    let _ = ARMING.try_with(|a| {
        let co = a.running.get();
        let hook = HOOK.load(Ordering::Relaxed);
        if !co.is_null() && hook != 0 {
            // SAFETY: `co` is the coroutine this thread is resuming now (set just before
            // `lua_resume`, cleared just after); `hook` is a `lua_Hook` stored by `adopt`;
            // lua_sethook may be called from a signal handler (the module's documentation).
            unsafe {
                let hook = std::mem::transmute::<usize, lua_Hook>(hook);
                ffi::lua_sethook(co, Some(hook), ffi::LUA_MASKCOUNT, a.step.get())
            };
        }
    });
}

/// Installs the handler and starts the process's watchdog thread, once.
fn start_once() -> std::io::Result<()> {
    static ONCE: Once = Once::new();
    static STARTED: AtomicBool = AtomicBool::new(false);
    let mut failed = None;
    ONCE.call_once(|| {
        // SAFETY: a zeroed sigaction is valid; the handler only touches its thread's TLS slot
        // and calls lua_sethook.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = arm as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(SIGNAL, &sa, std::ptr::null_mut());
        }
        match std::thread::Builder::new()
            .name("mgensim watchdog".into())
            .spawn(watch)
        {
            Ok(_) => STARTED.store(true, Ordering::SeqCst),
            Err(e) => failed = Some(e),
        }
    });
    match failed {
        Some(e) => Err(e),
        None if STARTED.load(Ordering::SeqCst) => Ok(()),
        None => Err(std::io::ErrorKind::Other.into()),
    }
}

/// The watchdog thread: every [`PERIOD`], signals each thread whose resume has been running
/// since the last look. Lives as long as the process (it sleeps between looks).
fn watch() {
    // (per slot: the epoch seen at the last look, and the one signalled)
    let mut seen: Vec<(Arc<Slot>, u64, u64)> = Vec::new();
    loop {
        std::thread::sleep(PERIOD);
        {
            let mut slots = SLOTS.lock().unwrap_or_else(|e| e.into_inner());
            slots.retain(|s| s.tid.load(Ordering::SeqCst) != 0);
            seen.retain(|(s, ..)| s.tid.load(Ordering::SeqCst) != 0);
            for s in slots.iter() {
                if !seen.iter().any(|(t, ..)| Arc::ptr_eq(t, s)) {
                    seen.push((s.clone(), 0, 0));
                }
            }
        }
        for (slot, last, signalled) in &mut seen {
            let e = slot.epoch.load(Ordering::Acquire);
            if e % 2 == 1 && e == *last && e != *signalled {
                let tid = slot.tid.load(Ordering::SeqCst);
                if tid != 0 {
                    // SAFETY: tgkill to a thread of this process: one that has ended since
                    // gives ESRCH (its id is never another process's thread).
                    unsafe {
                        libc::syscall(
                            libc::SYS_tgkill,
                            libc::getpid() as libc::c_long,
                            tid as libc::c_long,
                            SIGNAL as libc::c_long,
                        )
                    };
                }
                *signalled = e;
            }
            *last = e;
        }
    }
}

/// The calling thread's slot, made (and shown to the watchdog) at its first resume.
#[inline]
fn slot<R>(f: impl FnOnce(&Slot) -> R) -> R {
    SLOT.with(|s| {
        let r = s.get_or_init(|| {
            // SAFETY: gettid has no preconditions
            let tid = unsafe { libc::syscall(libc::SYS_gettid) } as i32;
            let slot = Arc::new(Slot {
                epoch: AtomicU64::new(0),
                tid: AtomicI32::new(tid),
            });
            SLOTS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(slot.clone());
            Registered(slot)
        });
        f(&r.0)
    })
}

/// The watchdog as one Lua state sees it: its hook's step, and whether a stop is under way.
pub(super) struct Watchdog {
    step: libc::c_int,
    /// Hook every resume from its start (the run is being stopped).
    at_once: Cell<bool>,
}

impl Watchdog {
    /// Watches the resumes of a Lua state whose hook runs every `step` instructions (starting
    /// the process's watchdog thread if it is not yet running).
    pub(super) fn start(step: u64) -> std::io::Result<Watchdog> {
        start_once()?;
        Ok(Watchdog {
            step: libc::c_int::try_from(step).unwrap_or(libc::c_int::MAX),
            at_once: Cell::new(false),
        })
    }

    /// From now on, every resume is hooked from its start: the run is being stopped by Ctrl-C
    /// or the wall clock, and a rank resumed meanwhile is to be stopped at once.
    pub(super) fn hook_at_once(&self) {
        self.at_once.set(true);
    }

    /// A resume of `co` begins on this thread (`co` null: a first resume, whose coroutine
    /// [`adopt`] names once it is made).
    #[inline]
    pub(super) fn begin(&self, co: *mut lua_State) {
        let at_once = self.at_once.get();
        ARMING.with(|a| {
            a.running.set(co);
            a.step.set(self.step);
            a.at_once.set(at_once);
        });
        if at_once && !co.is_null() {
            arm(SIGNAL);
        }
        slot(|s| {
            let e = s.epoch.load(Ordering::Relaxed);
            s.epoch.store(e + 1, Ordering::Release);
        });
    }

    /// The resume has ended; takes the hook off `co` if it was armed. `co` is the coroutine
    /// resumed, or null if it is gone (a first resume that ended the rank).
    ///
    /// # Safety
    /// `co` must be null or alive.
    #[inline]
    pub(super) unsafe fn end(&self, co: *mut lua_State) {
        ARMING.with(|a| a.running.set(std::ptr::null_mut()));
        slot(|s| {
            let e = s.epoch.load(Ordering::Relaxed);
            s.epoch.store(e + 1, Ordering::Release);
        });
        // (a signal arriving from here on finds no running coroutine)
        // SAFETY: `co` is not null, hence alive (the caller's contract), and of this thread.
        if !co.is_null() && unsafe { ffi::lua_gethookmask(co) } != 0 {
            unsafe { ffi::lua_sethook(co, None, 0, 0) };
        }
    }
}

/// Takes a coroutine just made, in its first resume, under the watchdog: keeps the hook
/// `debug.sethook` installed on it as the one to arm, and takes it off until a resume runs
/// long (or at once, if the run is being stopped).
///
/// # Safety
/// `co` must be a live coroutine of this thread's Lua state, about to run.
pub(super) unsafe fn adopt(co: *mut lua_State) {
    // SAFETY: `co` is a live coroutine of this thread's state (the caller's contract).
    if let Some(h) = unsafe { ffi::lua_gethook(co) } {
        HOOK.store(h as usize, Ordering::Relaxed);
        if !ARMING.with(|a| a.at_once.get()) {
            // SAFETY: as above.
            unsafe { ffi::lua_sethook(co, None, 0, 0) };
        }
    }
    ARMING.with(|a| a.running.set(co));
}
