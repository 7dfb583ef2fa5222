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

pub mod api;
mod bind;
mod fast;
pub mod random;
pub mod rank;
#[cfg(unix)]
mod watchdog;
#[cfg(not(unix))]
#[path = "watchdog_none.rs"]
mod watchdog;

use crate::config::Scenario;
use crate::engine::World;
use crate::limits::Limit;
use anyhow::{anyhow, Result};
use mlua::{ffi, Function, Lua, LuaOptions, StdLib, Table, Thread};
use std::cell::{Cell, RefCell};
use std::path::PathBuf;
use std::ptr;
use std::rc::Rc;
use watchdog::Watchdog;

const PRELUDE: &str = include_str!("prelude.lua");

/// What a resumed rank did.
pub enum Outcome {
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
pub struct Scripts {
    lua: Lua,
    spawn: Function,
    /// A rank's first resume (it makes the coroutine).
    run: Function,
    /// What a resume that did not block came to.
    after: Function,
    where_: Function,
    /// Each rank's coroutine once it has one, null before its first resume and after its end.
    /// The prelude's `threads` table keeps every non-null one alive.
    threads: Rc<RefCell<Vec<*mut ffi::lua_State>>>,
    /// Hook runs the running rank may still take in this resume (`limits.instructions`).
    left: Rc<Cell<u64>>,
    /// Hook runs per resume: the budget in [`HOOK_STEP`]s, 0 = no budget.
    steps: u64,
    /// Arms the ranks' count hook once a resume runs long (None: no limit needs the hook, or
    /// the hook is always on; see `watchdog.rs`). Dropped last: it ends its thread.
    watchdog: Option<Watchdog>,
}

/// The project's Lua library folder (`lua/`): `MGENSIM_LUA_DIR`, else the one this binary was
/// built from.
pub fn library_dir() -> PathBuf {
    std::env::var_os("MGENSIM_LUA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/lua")))
}

impl Scripts {
    /// Builds the Lua state, installs the API and compiles the workload (a syntax error is
    /// reported with the script's name and line).
    ///
    /// Unless the scenario allows I/O, scripts run in a sandbox (see `prelude.lua`): no
    /// processes, no writing, no C modules or binary chunks, no `debug` beyond tracebacks, and
    /// reading only below the scenario's folder, the script's and mgensim's Lua library.
    pub fn new(world: Rc<RefCell<World>>, s: &Scenario) -> Result<Scripts> {
        let w = s.workload();
        // The full standard library: the prelude keeps `debug` for tracebacks and the
        // instruction hook, then hands scripts only the sandboxed parts.
        let lua = unsafe { Lua::unsafe_new_with(StdLib::ALL, LuaOptions::default()) };
        let globals = lua.globals();
        // folders that do not exist (a library folder moved away) grant nothing
        let roots: Vec<PathBuf> = std::iter::once(w.scenario_dir.clone())
            .chain(s.jobs.iter().filter_map(|j| j.workload.script_dir.clone()))
            .chain([library_dir()])
            .filter_map(|p| p.canonicalize().ok())
            .collect();
        let files = api::FileAccess {
            base: w.scenario_dir.clone(),
            roots: (!s.allow_io).then_some(roots),
        };
        let raw = api::install(&lua, &globals, world.clone(), &w.scenario_dir, files)
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
        let hook = budget > 0 || s.limits.wall_time > crate::units::Time::ZERO;
        // without a watchdog (it could not start) the ranks keep their hook on
        let watchdog = if hook {
            Watchdog::start(step).ok()
        } else {
            None
        };
        let lazy = watchdog.is_some();
        limits_api(
            &lua,
            &raw,
            world.clone(),
            threads.clone(),
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
                        api::toml_to_lua(&lua, &toml::Value::Table(w.args.clone()))?,
                    )?;
                    Ok(t)
                })
                .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
            jobs.set(i + 1, job)
                .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        }
        let (spawn, run, after, where_): (Function, Function, Function, Function) = lua
            .load(PRELUDE)
            .set_name("=mgensim prelude")
            .call((globals.clone(), raw, jobs.clone(), opts))
            .map_err(|e| anyhow!("internal error in the Lua prelude: {e}"))?;
        fast::install(&lua, &world).map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
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
            run,
            after,
            where_,
            threads,
            left,
            steps,
            watchdog,
        })
    }

    /// Declares ranks `0..ranks` (numbered job after job), in one call; each rank's coroutine
    /// is made at its first resume.
    pub fn spawn(&self, ranks: u32) -> Result<()> {
        *self.threads.borrow_mut() = vec![ptr::null_mut(); ranks as usize];
        self.spawn
            .call::<()>(ranks)
            .map_err(|e| anyhow!("cannot declare {ranks} ranks: {e}"))
    }

    /// Ends the watchdog's thread now (no resume runs after this). For a state that is never
    /// dropped ([`crate::Simulation::last_in_process`]): the watchdog signals this thread
    /// only while it is alive, which its drop guarantees by joining its thread.
    pub fn stop_watchdog(&mut self) {
        self.watchdog = None;
    }

    /// Resumes rank `i` until it blocks, finishes or fails.
    pub fn resume(&self, i: u32) -> Outcome {
        self.left.set(self.steps);
        let co = self.threads.borrow()[i as usize];
        if co.is_null() {
            if let Some(w) = &self.watchdog {
                w.begin(co);
            }
            let out = self.outcome(i, self.run.call::<(u8, Option<String>)>(i));
            if let Some(w) = &self.watchdog {
                // SAFETY: the rank's coroutine if it is still alive, else null
                unsafe { w.end(self.threads.borrow()[i as usize]) };
            }
            return out;
        }
        // SAFETY: `co` is rank i's coroutine, kept alive by the prelude's `threads` table
        // until the prelude drops it, when its rank finishes or fails; `outcome` then nulls
        // the pointer. It is suspended (every resume ends in a yield, an end or an error, and
        // only a yield leaves it non-null and resumable). Resuming it from no other thread
        // is what `coroutine.resume` does too; mlua's callbacks run inside it as they would
        // there.
        unsafe {
            let mut nres = 0;
            if let Some(w) = &self.watchdog {
                w.begin(co);
            }
            let status = ffi::lua_resume(co, ptr::null_mut(), 0, &mut nres);
            if let Some(w) = &self.watchdog {
                w.end(co);
            }
            if status == ffi::LUA_YIELD {
                ffi::lua_pop(co, nres);
                return Outcome::Blocked;
            }
            // it ended, or failed: the prelude says how (rarely: once per rank at most)
            let ok = status == ffi::LUA_OK;
            if ok {
                ffi::lua_pop(co, nres);
            }
            let r = self
                .lua
                .exec_raw::<(u8, Option<String>)>((&self.after, i, ok), |state| {
                    // the error object moves to the call's stack (`after`'s 4th argument)
                    if !ok {
                        ffi::lua_xmove(co, state, 1);
                    }
                    ffi::lua_call(state, ffi::lua_gettop(state) - 1, ffi::LUA_MULTRET);
                });
            self.outcome(i, r)
        }
    }

    /// The outcome of the prelude's `run` or `after` for rank `i`; forgets the rank's coroutine
    /// if it ended (the prelude has let it go).
    fn outcome(&self, i: u32, r: mlua::Result<(u8, Option<String>)>) -> Outcome {
        if let Ok((1 | 2, _)) = r {
            self.threads.borrow_mut()[i as usize] = ptr::null_mut();
        }
        match r {
            Ok((0, _)) => Outcome::Blocked,
            Ok((1, _)) => Outcome::Finished,
            Ok((3, name)) => Outcome::Stopped(
                name.as_deref()
                    .and_then(Limit::from_name)
                    .unwrap_or(Limit::Interrupt),
            ),
            Ok((_, msg)) => {
                let msg = msg.unwrap_or_default();
                Outcome::Failed(without_prelude(
                    msg.strip_prefix("runtime error: ").unwrap_or(&msg),
                ))
            }
            Err(e) if is_memory_error(&e) => Outcome::Stopped(Limit::LuaMemory),
            Err(e) => Outcome::Failed(lua_message(&e)),
        }
    }

    /// Lifts the Lua memory limit (to report a stop at it: tracebacks need memory too).
    pub fn lift_memory_limit(&self) {
        let _ = self.lua.set_memory_limit(0);
    }

    /// The traceback of a suspended rank.
    pub fn where_(&self, i: u32) -> String {
        self.where_.call::<String>(i).unwrap_or_default()
    }

    /// Bytes the Lua state uses now.
    pub fn memory(&self) -> usize {
        self.lua.used_memory()
    }
}

/// The engine's side of the limits, for the prelude: `raw.stop` (run by the count hook every
/// `opts.step` instructions: charges the running rank's budget, and names the limit the run
/// must stop at, if any) and `raw.thread` (a rank's coroutine, told once when it is made).
fn limits_api(
    lua: &Lua,
    raw: &Table,
    world: Rc<RefCell<World>>,
    threads: Rc<RefCell<Vec<*mut ffi::lua_State>>>,
    left: Rc<Cell<u64>>,
    steps: u64,
    lazy: bool,
) -> mlua::Result<()> {
    raw.set(
        "stop",
        lua.create_function(move |_, ()| {
            if let Some(l) = world.borrow().watch.check() {
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
            threads.borrow_mut()[i as usize] = co;
            if lazy {
                // SAFETY: the coroutine the prelude has just made, about to run its first
                // resume on this thread
                unsafe { watchdog::adopt(co) };
            }
            Ok(())
        })?,
    )
}

fn set_package_path(lua: &Lua, s: &Scenario) -> mlua::Result<()> {
    let package: Table = lua.globals().get("package")?;
    let mut dirs = Vec::new();
    for j in &s.jobs {
        if let Some(d) = &j.workload.script_dir {
            if !dirs.contains(d) {
                dirs.push(d.clone());
            }
        }
    }
    dirs.push(library_dir());
    let path: Vec<String> = dirs
        .iter()
        .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
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
            let raised_by_prelude = l.trim() == "[C]: in function 'error'"
                && lines.get(i + 1).is_some_and(|n| prelude(n));
            !(prelude(l) || raised_by_prelude)
        })
        .map(|(_, l)| *l)
        .collect();
    let fast = |l: &str| {
        let name = l.trim().strip_prefix("[C]: in function '");
        name.and_then(|n| n.strip_suffix('\''))
            .is_some_and(|n| fast::NAMES.contains(&n))
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
