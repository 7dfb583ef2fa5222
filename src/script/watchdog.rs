//! Arms the limits' count hook on a rank's coroutine only once a resume has run long.
//!
//! A Lua count hook makes the VM trap on every instruction (Lua 5.4 counts in the trap), which
//! costs about 10 % of a barrier and up to half the speed of a script that computes. Nearly
//! every resume yields within microseconds, long before a hook run would have come. So the
//! ranks' coroutines run unhooked, and a watchdog thread looks every [`PERIOD`]: a resume
//! still running at two looks in a row has run at least that long, and the watchdog sends the
//! simulation's thread a signal whose handler sets the hook on the running coroutine. From
//! then on the hook charges the budget (`limits.instructions`) and looks at Ctrl-C and the
//! wall clock, as before; the resume's end takes the hook off again.
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
//! stopped at it has run its budget *plus* what it ran in its first [`PERIOD`]s.

use mlua::ffi::{self, lua_Hook, lua_State};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Once};
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// How often the watchdog looks: a resume is hooked after running between one and two of
/// these (wall time).
pub(super) const PERIOD: Duration = Duration::from_millis(10);

/// The signal that arms the hook. Ignored by default, so a stray one does no harm; mgensim
/// uses it for nothing else.
const SIGNAL: libc::c_int = libc::SIGURG;

/// What the signal handler needs, per thread: the handler runs on the simulation's thread,
/// and a sweep runs several simulations, each on a thread of its own.
struct Arming {
    /// The coroutine being resumed now, null between resumes.
    running: Cell<*mut lua_State>,
    /// The hook to set (the one `debug.sethook` installed), and every how many instructions.
    hook: Cell<Option<lua_Hook>>,
    step: Cell<libc::c_int>,
}

thread_local! {
    static ARMING: Arming = const {
        Arming { running: Cell::new(std::ptr::null_mut()), hook: Cell::new(None), step: Cell::new(0) }
    };
}

/// The signal handler: hooks the running coroutine, if any.
extern "C" fn arm(_: libc::c_int) {
    // a `const` thread-local without a destructor is a plain TLS slot: no allocation, no lock
    ARMING.with(|a| {
        let co = a.running.get();
        if let (false, Some(hook)) = (co.is_null(), a.hook.get()) {
            // SAFETY: `co` is the coroutine this thread is resuming now (set just before
            // `lua_resume`, cleared just after), and lua_sethook may be called from a signal
            // handler (see the module's documentation).
            unsafe { ffi::lua_sethook(co, Some(hook), ffi::LUA_MASKCOUNT, a.step.get()) };
        }
    });
}

fn install_handler() {
    static ONCE: Once = Once::new();
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
    });
}

/// Between the watchdog and the simulation's thread.
struct Shared {
    /// Resumes begun and ended, one count each: odd while a resume runs.
    epoch: AtomicU64,
    stop: AtomicBool,
}

/// The watchdog of one simulation; it stops (and its thread ends) when dropped.
pub(super) struct Watchdog {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts watching the calling thread, whose resumes will get the count hook (every
    /// `step` instructions) once they have run long.
    pub(super) fn start(step: u64) -> std::io::Result<Watchdog> {
        install_handler();
        ARMING.with(|a| {
            a.step
                .set(libc::c_int::try_from(step).unwrap_or(libc::c_int::MAX))
        });
        let shared = Arc::new(Shared {
            epoch: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        // SAFETY: pthread_self has no preconditions; the watchdog signals this thread only
        // while a resume runs on it, and this thread joins the watchdog before it can end.
        let target = unsafe { libc::pthread_self() };
        let s = shared.clone();
        let thread = thread::Builder::new()
            .name("mgensim watchdog".into())
            .spawn(move || {
                let (mut last, mut signalled) = (0, 0);
                while !s.stop.load(Ordering::Acquire) {
                    thread::park_timeout(PERIOD);
                    let e = s.epoch.load(Ordering::Acquire);
                    if e % 2 == 1 && e == last && e != signalled {
                        // SAFETY: `target` is alive: it joins this thread when it drops the
                        // watchdog, and it cannot end before that.
                        unsafe { libc::pthread_kill(target, SIGNAL) };
                        signalled = e;
                    }
                    last = e;
                }
            })?;
        Ok(Watchdog {
            shared,
            thread: Some(thread),
        })
    }

    /// A resume of `co` begins (`co` null: a first resume, whose coroutine [`adopt`] names
    /// once it is made).
    #[inline]
    pub(super) fn begin(&self, co: *mut lua_State) {
        ARMING.with(|a| a.running.set(co));
        let e = self.shared.epoch.load(Ordering::Relaxed);
        self.shared.epoch.store(e + 1, Ordering::Release);
    }

    /// The resume has ended; takes the hook off `co` if it was armed. `co` is the coroutine
    /// resumed, or null if it is gone (a first resume that ended the rank).
    ///
    /// # Safety
    /// `co` must be null or alive.
    #[inline]
    pub(super) unsafe fn end(&self, co: *mut lua_State) {
        ARMING.with(|a| a.running.set(std::ptr::null_mut()));
        let e = self.shared.epoch.load(Ordering::Relaxed);
        self.shared.epoch.store(e + 1, Ordering::Release);
        // (a signal arriving from here on finds no running coroutine)
        if !co.is_null() && ffi::lua_gethookmask(co) != 0 {
            ffi::lua_sethook(co, None, 0, 0);
        }
    }
}

/// Takes a coroutine just made, in its first resume, under the watchdog: keeps the hook
/// `debug.sethook` installed on it as the one to arm, and takes it off until a resume runs
/// long.
///
/// # Safety
/// `co` must be a live coroutine of this thread's Lua state, about to run.
pub(super) unsafe fn adopt(co: *mut lua_State) {
    if let Some(h) = ffi::lua_gethook(co) {
        ARMING.with(|a| a.hook.set(Some(h)));
        ffi::lua_sethook(co, None, 0, 0);
    }
    ARMING.with(|a| a.running.set(co));
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}
