//! The Lua side: one Lua state per simulation, and one coroutine per rank running the workload.
//!
//! Each job's script is compiled **once**, wrapped as `function(_ENV, ...) <script> end` on
//! its first line (so line numbers are the file's), and every rank of the job runs that
//! function as its own coroutine with its own `_ENV`: rank-private globals that fall back to
//! the job's (`MGEN_args`), then to the shared ones (the standard library and the MGEN API).
//! The shared names a script reads are bound once per job, as read-only upvalues of that
//! function, where that cannot change what any read finds (`bind.rs`).
//!
//! The coroutines live in a Lua table, which keeps them alive; Rust holds only their raw
//! `lua_State` pointers, by rank, so the number of ranks is not bounded by mlua's handle
//! slots. After a rank's first resume the engine resumes it with `lua_resume` directly: a
//! resume that blocks (nearly all of them) never enters mlua or the prelude.

pub(crate) mod api;
mod args;
mod bind;
mod fast;
mod io;
mod modules;
pub(crate) mod names;
mod ops;

mod replay_api;
mod unread;
#[cfg(unix)]
mod watchdog;
#[cfg(not(unix))]
#[path = "watchdog_none.rs"]
mod watchdog;

use crate::config::Scenario;
use crate::limits::Limit;
use crate::part::Part;
use anyhow::{anyhow, Result};
use mlua::{ffi, Function, Lua, LuaOptions, StdLib, Table, Thread, Value};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::ptr;
use std::rc::Rc;
use watchdog::Watchdog;

const PRELUDE: &str = include_str!("prelude.lua");

/// What a resumed rank did.
pub(crate) enum Outcome {
    /// It called a blocking function whose condition is not met yet.
    Blocked,
    Finished,
    /// A Lua error, with its message and traceback.
    Failed(String),
    /// A limit (or Ctrl-C) stopped it.
    Stopped(Limit),
}

/// VM instructions between two runs of the limits' count hook (fewer if the budget is less).
const HOOK_STEP: u64 = 10_000;

/// The Lua state and the handles the engine needs.
pub(crate) struct Scripts {
    lua: Lua,
    spawn: Function,
    /// Makes a rank's coroutine and its globals (before its first resume).
    start: Function,
    /// Lets an ended rank's coroutine go.
    forget: Function,
    /// A failed rank's error as text, with its line and traceback.
    failure: Function,
    where_: Function,
    /// The `MGEN_args` keys no rank read (`prelude.lua`'s `unread_args`).
    unread: Function,
    /// Each rank's coroutine once it has one, null before its first resume and after its end.
    /// The prelude's `threads` table keeps every non-null one alive. Indexed by the rank's
    /// place among its partition's ranks (`local`).
    threads: Rc<RefCell<Vec<*mut ffi::lua_State>>>,
    /// Each rank's place among its partition's ranks (global numbering in, local out).
    local: std::sync::Arc<[u32]>,
    /// Hook runs the running rank may still take in this resume (`limits.instructions`).
    left: Rc<Cell<u64>>,
    /// Hook runs per resume: the budget in [`HOOK_STEP`]s, 0 = no budget.
    steps: u64,
    /// The engine's state: whether a stop was recorded.
    part: Rc<RefCell<Part>>,
    /// Arms the ranks' count hook once a resume runs long (None: no limit needs the hook, or
    /// the hook is always on; see `watchdog.rs`). Dropped last: it ends its thread.
    watchdog: Option<Watchdog>,
}

pub(crate) use crate::files::library_dir;
pub(crate) use unread::{unread_args, unread_args_of, Unread};

impl Scripts {
    /// Builds the Lua state, installs the API and compiles the workload (a syntax error is
    /// reported with the script's name and line).
    ///
    /// Unless the scenario allows I/O, scripts run in a sandbox (see `prelude.lua`): no
    /// processes, no writing, no C modules or binary chunks, no `debug` beyond tracebacks, and
    /// reading only below the scenario's folder, the script's and mgensim's Lua library.
    pub(crate) fn new(
        part: Rc<RefCell<Part>>,
        s: &Scenario,
        local: std::sync::Arc<[u32]>,
    ) -> Result<Scripts> {
        let w = s.workload();
        // The full standard library: the prelude keeps `debug` for tracebacks and the
        // instruction hook, then hands scripts only the sandboxed parts.
        let lua = unsafe { Lua::unsafe_new_with(StdLib::ALL, LuaOptions::default()) };
        let globals = lua.globals();
        let script_dirs: Vec<PathBuf> = s
            .jobs
            .iter()
            .filter_map(|j| j.workload.script_dir.clone())
            .collect();
        let files = crate::files::FileAccess::new(&w.scenario_dir, &script_dirs, s.allow_io);
        let raw = api::install(
            &lua,
            &globals,
            part.clone(),
            &w.scenario_dir,
            files,
            module_dirs(s),
        )
        .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        set_package_path(&lua, s).map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        let budget = s.limits.instructions;
        let step = if budget > 0 {
            budget.min(HOOK_STEP)
        } else {
            HOOK_STEP
        };
        let steps = budget.div_ceil(step);
        let threads = Rc::new(RefCell::new(Vec::new()));
        let left = Rc::new(Cell::new(0u64));
        // (coroutines a script makes are hooked only when a limit needs it; the ranks' own are
        // watched always, so that Ctrl-C stops a rank that loops whatever the limits)
        let hook = budget > 0 || s.limits.wall_time > crate::units::Time::ZERO;
        // without a watchdog (it could not start) the ranks keep their hook on
        let watchdog = Watchdog::start(step).ok();
        let lazy = watchdog.is_some();
        limits_api(
            &lua,
            &raw,
            part.clone(),
            threads.clone(),
            local.clone(),
            left.clone(),
            steps,
            lazy,
        )
        .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        let opts = lua
            .create_table()
            .and_then(|t| {
                t.set("sandbox", !s.allow_io)?;
                t.set("step", step)?;
                t.set("hook", hook)?;
                t.set("watched", lazy)?;
                Ok(t)
            })
            .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;

        // per job: its size and globals; its compiled script (`body`) once the API is whole
        let jobs = lua
            .create_table()
            .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        for (i, j) in s.jobs.iter().enumerate() {
            let w = &j.workload;
            let job = lua
                .create_table()
                .and_then(|t| {
                    t.set("size", w.ranks)?;
                    t.set(
                        "args",
                        crate::lualib::toml_to_lua(&lua, &toml::Value::Table(w.args.clone()))?,
                    )?;
                    Ok(t)
                })
                .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
            jobs.set(i + 1, job)
                .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        }
        type Returned = (
            Function,
            Function,
            Function,
            Function,
            Function,
            Function,
            Function,
        );
        crate::lualib::precompiled::install(&lua, &raw)
            .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        let (spawn, start, forget, failure, where_, require_slow, unread): Returned =
            crate::lualib::precompiled::load(
                &lua,
                "=mgensim prelude",
                PRELUDE,
                || PRELUDE.into(),
                None,
            )
            .and_then(|f| f.call((globals.clone(), raw.clone(), jobs.clone(), opts)))
            .map_err(|e| anyhow!("internal error in the Lua prelude: {e}"))?;
        let mut firsts = Vec::new();
        let mut first = 0u32;
        for j in &s.jobs {
            firsts.push(first);
            first += j.workload.ranks as u32;
        }
        modules::install_require(&lua, &globals, &raw, part.clone(), require_slow, firsts)
            .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        raw.get("trace_names")
            .and_then(|names| fast::install(&lua, &part, names))
            .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        let words: Vec<Vec<&str>> = s
            .jobs
            .iter()
            .map(|j| bind::identifiers(&j.workload.source))
            .collect();
        let open = bind::open(&words);
        for ((i, j), words) in s.jobs.iter().enumerate().zip(&words) {
            let names: &[&str] = if open { &[] } else { words };
            let w = &j.workload;
            let body = bind::body(&lua, &globals, &w.source, &w.script_name, names)?;
            jobs.get::<Table>(i + 1)
                .and_then(|job| job.set("body", body))
                .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        }
        if s.limits.lua_memory.0 > 0 {
            let limit = usize::try_from(s.limits.lua_memory.0).unwrap_or(usize::MAX);
            lua.set_memory_limit(limit.max(lua.used_memory()))
                .map_err(|e| anyhow!("cannot set the Lua memory limit: {e}"))?;
        }
        Ok(Scripts {
            lua,
            spawn,
            start,
            forget,
            failure,
            where_,
            unread,
            threads,
            local,
            left,
            steps,
            part,
            watchdog,
        })
    }

    /// Declares the ranks `mine` (this state's: its partition's, in order), in one call;
    /// each rank's coroutine is made at its first resume.
    pub(crate) fn spawn(&self, mine: &[u32]) -> Result<()> {
        *self.threads.borrow_mut() = vec![ptr::null_mut(); mine.len()];
        let n = mine.len();
        self.lua
            .create_sequence_from(mine.iter().copied())
            .and_then(|list| self.spawn.call::<()>(list))
            .map_err(|e| anyhow!("cannot declare {n} ranks: {e}"))
    }

    /// Ends the watchdog's thread now (no resume runs after this). For a state that is never
    /// dropped ([`crate::Simulation::last_in_process`]): the watchdog signals this thread
    /// only while it is alive, which its drop guarantees by joining its thread.
    pub(crate) fn stop_watchdog(&mut self) {
        self.watchdog = None;
    }

    /// From now on, every rank's resume is hooked from its start: the run is being stopped
    /// (Ctrl-C, the wall clock), and a rank resumed meanwhile is stopped at once.
    pub(crate) fn hook_at_once(&self) {
        if let Some(w) = &self.watchdog {
            w.hook_at_once();
        }
    }

    /// Resumes rank `i` until it blocks, finishes or fails. What it came to is the engine's
    /// word only: a stop is one the engine recorded (a script cannot fake one by raising an
    /// error that looks like it), and a memory stop is Lua's own allocation failure.
    ///
    /// The common case, a rank that blocks again, is inlined at the caller; its first resume
    /// and its end are calls.
    #[inline]
    pub(crate) fn resume(&self, i: u32) -> Outcome {
        self.left.set(self.steps);
        let li = self.local[i as usize] as usize;
        let co = self.threads.borrow()[li];
        if co.is_null() {
            return self.resume_first(i, li);
        }
        // SAFETY: `co` is rank i's coroutine, kept alive by the prelude's `threads` table
        // until `forget` or `failure` lets it go, after which its pointer is nulled here. It
        // is suspended (new, or ended its last resume in a yield). Resuming it from no other
        // thread is what `coroutine.resume` does too; mlua's callbacks run inside it as they
        // would there.
        unsafe { self.resume_thread(co, 0, i, li) }
    }

    /// [`Scripts::resume`] of a rank not yet started: makes its coroutine; its globals go onto
    /// its stack, its first resume's argument.
    #[cold]
    #[inline(never)]
    fn resume_first(&self, i: u32, li: usize) -> Outcome {
        // SAFETY: `start` returns a new coroutine and a table; the table moves onto the
        // coroutine's stack (both belong to this state) and the coroutine is popped (the
        // prelude's `threads` keeps it alive).
        let made = unsafe {
            self.lua.exec_raw::<()>((&self.start, i), |state| {
                ffi::lua_call(state, 1, 2);
                let co = ffi::lua_tothread(state, -2);
                ffi::lua_xmove(state, co, 1);
                ffi::lua_pop(state, 1);
            })
        };
        if let Err(e) = made {
            return if is_memory_error(&e) {
                Outcome::Stopped(Limit::LuaMemory)
            } else {
                Outcome::Failed(lua_message(&e))
            };
        }
        let co = self.threads.borrow()[li];
        // SAFETY: as in `resume`: the coroutine just made, with its argument on its stack
        unsafe { self.resume_thread(co, 1, i, li) }
    }

    /// Resumes coroutine `co` of rank `i` (at `li` in `threads`) with `nargs` arguments on its
    /// stack.
    ///
    /// # Safety
    /// `co` must be rank `i`'s coroutine, alive and suspended.
    #[inline(always)]
    unsafe fn resume_thread(
        &self,
        co: *mut ffi::lua_State,
        nargs: i32,
        i: u32,
        li: usize,
    ) -> Outcome {
        let mut nres = 0;
        if let Some(w) = &self.watchdog {
            w.begin(co);
        }
        // SAFETY: `co` is rank `i`'s coroutine, alive and suspended (the caller's contract),
        // with `nargs` values pushed for it; the watchdog is given the coroutine it runs.
        unsafe {
            let status = ffi::lua_resume(co, ptr::null_mut(), nargs, &mut nres);
            if let Some(w) = &self.watchdog {
                w.end(co);
            }
            if status == ffi::LUA_YIELD {
                ffi::lua_pop(co, nres);
                return Outcome::Blocked;
            }
            self.ended(co, status, nres, i, li)
        }
    }

    /// What rank `i`'s resume that did not yield came to: it finished, or failed.
    ///
    /// # Safety
    /// As [`Scripts::resume_thread`]; `status` and `nres` are what its `lua_resume` gave.
    #[cold]
    #[inline(never)]
    unsafe fn ended(
        &self,
        co: *mut ffi::lua_State,
        status: i32,
        nres: i32,
        i: u32,
        li: usize,
    ) -> Outcome {
        if status == ffi::LUA_OK {
            // SAFETY: the `nres` results of the resume that ended are on `co`'s stack.
            unsafe { ffi::lua_pop(co, nres) };
            let _ = self.forget.call::<()>(i);
            self.threads.borrow_mut()[li] = ptr::null_mut();
            return Outcome::Finished;
        }
        // an error: the engine says whether it was one of its stops
        if let Some(limit) = self.part.borrow().stop_recorded() {
            return Outcome::Stopped(limit);
        }
        if status == ffi::LUA_ERRMEM {
            return Outcome::Stopped(Limit::LuaMemory);
        }
        // the error object moves to the main state, then to the prelude's `failure`
        // SAFETY: the failed resume left its error object on top of `co`, a thread of this
        // state; `exec_raw` runs on the main state with room for it.
        let err = unsafe {
            self.lua.exec_raw::<Value>((), |state| {
                ffi::lua_xmove(co, state, 1);
            })
        };
        self.threads.borrow_mut()[li] = ptr::null_mut();
        let msg = match err {
            Ok(Value::Error(e)) if is_memory_error(&e) => {
                return Outcome::Stopped(Limit::LuaMemory)
            }
            // raised by the engine's own functions: their message has its line and
            // traceback already
            Ok(Value::Error(e)) => {
                let _ = self.forget.call::<()>(i);
                lua_message(&e)
            }
            Ok(v) => match self.failure.call::<String>((i, v)) {
                Ok(m) => m,
                Err(e) if is_memory_error(&e) => return Outcome::Stopped(Limit::LuaMemory),
                Err(e) => lua_message(&e),
            },
            Err(e) => lua_message(&e),
        };
        Outcome::Failed(with_hint(without_prelude(
            msg.strip_prefix("runtime error: ").unwrap_or(&msg),
        )))
    }

    /// Lifts the Lua memory limit (to report a stop at it: tracebacks need memory too).
    pub(crate) fn lift_memory_limit(&self) {
        let _ = self.lua.set_memory_limit(0);
    }

    /// The traceback of a suspended rank.
    pub(crate) fn where_(&self, i: u32) -> String {
        self.where_.call::<String>(i).unwrap_or_default()
    }

    /// For each job some rank of this state looked at `MGEN_args` for: the keys none of them
    /// read, and the names they asked for instead, in no order (see [`unread_args`]).
    pub(crate) fn unread_keys(&self) -> Unread {
        let Ok(rows) = self.unread.call::<Vec<Table>>(()) else {
            return Vec::new();
        };
        rows.into_iter()
            .filter_map(|row| {
                Some((
                    row.raw_get::<usize>(1).ok()?,
                    row.raw_get::<Vec<String>>(2).ok()?,
                    row.raw_get::<Vec<String>>(3).ok()?,
                ))
            })
            .collect()
    }

    /// Bytes the Lua state uses now.
    pub(crate) fn memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// Frees at once what the ended ranks left behind (their coroutines, stacks, tables):
    /// the incremental collector would take it only at its next steps, and once the last rank
    /// has ended no script runs to give it any. Blocked ranks and the prelude's own tables
    /// stay (a collection frees only what nothing reaches), so what the state tells later
    /// (unread arguments, a rank's line) is unchanged.
    pub(crate) fn collect(&self) {
        // (the sandbox refuses finalizers: a collection runs no script code; it cannot fail
        // for want of memory either, since it only frees)
        let _ = self.lua.gc_collect();
    }
}

/// A script error with, after its first line, a "did you mean" when it called a nil name
/// close to one of the API's ([`names::hint`]).
fn with_hint(message: String) -> String {
    match names::hint(&message) {
        Some(h) => match message.split_once('\n') {
            Some((first, rest)) => format!("{first}\n  {h}\n{rest}"),
            None => format!("{message}\n  {h}"),
        },
        None => message,
    }
}

/// The engine's side of the limits, for the prelude: `raw.stop` (run by the count hook every
/// `opts.step` instructions: charges the running rank's budget, and names the limit the run
/// must stop at, if any) and `raw.thread` (a rank's coroutine, told once when it is made).
#[allow(clippy::too_many_arguments)]
fn limits_api(
    lua: &Lua,
    raw: &Table,
    part: Rc<RefCell<Part>>,
    threads: Rc<RefCell<Vec<*mut ffi::lua_State>>>,
    local: std::sync::Arc<[u32]>,
    left: Rc<Cell<u64>>,
    steps: u64,
    lazy: bool,
) -> mlua::Result<()> {
    raw.set(
        "stop",
        lua.create_function(move |_, ()| {
            if let Some(l) = part.borrow().limit_passed() {
                return Ok(Some(l.name()));
            }
            if steps > 0 {
                let n = left.get().saturating_sub(1);
                left.set(n);
                if n == 0 {
                    return Ok(Some(Limit::Instructions.name()));
                }
            }
            Ok(None)
        })?,
    )?;
    raw.set(
        "thread",
        lua.create_function(move |_, (i, co): (u32, Thread)| {
            // a thread's pointer is its lua_State (lua_topointer)
            let co = co.to_pointer() as *mut ffi::lua_State;
            threads.borrow_mut()[local[i as usize] as usize] = co;
            if lazy {
                // SAFETY: the coroutine the prelude has just made, about to run its first
                // resume on this thread
                unsafe { watchdog::adopt(co) };
            }
            Ok(())
        })?,
    )
}

/// The folders `require` searches, in order: the scripts' folders, then mgensim's library.
fn module_dirs(s: &Scenario) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for j in &s.jobs {
        if let Some(d) = &j.workload.script_dir {
            if !dirs.contains(d) {
                dirs.push(d.clone());
            }
        }
    }
    dirs.push(library_dir());
    dirs.iter()
        .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
        .collect()
}

fn set_package_path(lua: &Lua, s: &Scenario) -> mlua::Result<()> {
    let package: Table = lua.globals().get("package")?;
    let path: Vec<String> = module_dirs(s)
        .iter()
        .flat_map(|d| {
            let d = d.display().to_string();
            [format!("{d}/?.lua"), format!("{d}/?/init.lua")]
        })
        .collect();
    package.set("path", path.join(";"))?;
    package.set("cpath", "")?;
    Ok(())
}

/// A traceback without the frames of the engine's own prelude (and the `error` call that
/// raised from one), nor the full function a fast API function handed an unusual call to
/// (`fast.rs`: the C frame right above one of theirs is always that), which mean nothing to
/// the script's author.
fn without_prelude(tb: &str) -> String {
    let lines: Vec<&str> = tb.lines().collect();
    let prelude = |l: &str| l.contains("mgensim prelude:");
    let kept: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|&(i, l)| {
            // a C function (`error`) the prelude called to raise
            let raised_by_prelude =
                l.trim().starts_with("[C]: in ") && lines.get(i + 1).is_some_and(|n| prelude(n));
            !(prelude(l) || raised_by_prelude)
        })
        .map(|(_, l)| *l)
        .collect();
    let fast = |l: &str| {
        let name = l.trim().strip_prefix("[C]: in function '");
        name.and_then(|n| n.strip_suffix('\''))
            .is_some_and(fast::hands_on)
    };
    let kept: Vec<&str> = kept
        .iter()
        .enumerate()
        .filter(|&(i, l)| {
            !(l.trim().starts_with("[C]:") && kept.get(i + 1).is_some_and(|n| fast(n)))
        })
        .map(|(_, l)| *l)
        .collect();
    kept.join("\n")
}

fn is_memory_error(e: &mlua::Error) -> bool {
    match e {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::CallbackError { cause, .. } => is_memory_error(cause),
        _ => false,
    }
}

/// The message of a Lua error without mlua's wrapping.
fn lua_message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::SyntaxError { message, .. } => format!("syntax error: {message}"),
        mlua::Error::RuntimeError(m) => m.clone(),
        mlua::Error::CallbackError { cause, traceback } => {
            format!("{}\n{traceback}", lua_message(cause))
        }
        other => other.to_string(),
    }
}
