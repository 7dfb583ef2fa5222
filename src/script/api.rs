//! The MGEN API as Lua functions, made from the API's table (`api/mod.rs`; documented for
//! users in `lua/mgen.d.lua`).
//!
//! Every function acts for the rank that is running, `Part::current`. A call made in Rust
//! (`Made::Rust`) is one function: its arguments decoded by their rules (`args.rs`), then its
//! operation (`ops.rs`). A call that may block is a wrapper of the prelude's of its form
//! (`Made::Prelude`), over primitives made here for that call (`raw.calls`: its operation, a
//! post named as it, a wait that records what the rank waits for), so that every error names
//! the function the script called. The calls the table marks fast are then replaced by C
//! functions (`fast.rs`) that take the common case themselves and hand every other call,
//! errors included, to the functions made here.

use super::args::*;
use super::ops::Ops;
use crate::api::{Call, Form, Made};
use crate::files::FileAccess;
use crate::limits::Limit;
use crate::part::Part;
use mlua::{Function, Lua, Table, Value, Variadic};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

type W = Rc<RefCell<Part>>;

/// Installs the API in `globals`; returns the private table of raw primitives the prelude wraps.
pub(crate) fn install(
    lua: &Lua,
    globals: &Table,
    part: W,
    scenario_dir: &Path,
    files: FileAccess,
    module_dirs: Vec<PathBuf>,
) -> mlua::Result<Table> {
    let ops = Rc::new(Ops::new(part.clone(), files.clone()));
    let raw = raw(lua, &part, files, module_dirs)?;
    calls(lua, globals, &raw, &ops)?;
    constants(globals, scenario_dir)?;
    random(lua, globals, &part)?;
    super::replay_api::install(lua, &raw)?;
    Ok(raw)
}

/// Every call of the API's table: a global for those made in Rust, and for those the prelude
/// makes, `raw.calls`: a list of `{ name, form, ... }` with the primitives of the call's form
/// (`now`: the call's operation; `post`, `send`, `recv`: the operation of the call posted,
/// named as this one; `wait`, `test`: a wait on a request, as this call; `begin`, `end`: the
/// names of the calls a region runs between; `status`: whether it returns the status).
fn calls(lua: &Lua, globals: &Table, raw: &Table, ops: &Rc<Ops>) -> mlua::Result<()> {
    let prelude = lua.create_table()?;
    for &c in Call::ALL {
        match c.entry().made {
            Made::Rust => globals.set(c.name(), operation(lua, ops, c, c)?)?,
            Made::RustStrict => globals.set(c.name(), strict(lua, ops, c)?)?,
            Made::Prelude(form) => prelude.push(primitives(lua, ops, c, form)?)?,
            Made::FastOnly => {}
        }
    }
    raw.set("calls", prelude)
}

/// A call's arguments as a function takes them (one more than a call of the table has are
/// ignored, as Lua ignores extra arguments).
type Six = (
    Option<Value>,
    Option<Value>,
    Option<Value>,
    Option<Value>,
    Option<Value>,
    Option<Value>,
);
const _: () = assert!(MOST == 6);

/// The function of call `op`'s operation, its arguments decoded by `op`'s rules, for the call
/// `made` the script made (which errors and the profile name).
fn operation(lua: &Lua, ops: &Rc<Ops>, op: Call, made: Call) -> mlua::Result<Function> {
    let ops = ops.clone();
    lua.create_function(move |lua, v: Six| {
        let values = [v.0, v.1, v.2, v.3, v.4, v.5];
        let a = decode(lua, &ops.part, made.name(), op.entry().args, values)?;
        ops.run(lua, op, made, a)
    })
}

/// As [`operation`], for a call that refuses arguments past those its entry lists.
fn strict(lua: &Lua, ops: &Rc<Ops>, c: Call) -> mlua::Result<Function> {
    let ops = ops.clone();
    lua.create_function(move |lua, v: Variadic<Value>| {
        if v.len() > c.entry().args.len() {
            return Err(error(lua, 1, Ops::too_many(c)));
        }
        let mut v = v.into_iter();
        let values = std::array::from_fn(|_| v.next());
        let a = decode(lua, &ops.part, c.name(), c.entry().args, values)?;
        ops.run(lua, c, c, a)
    })
}

/// The entry of `raw.calls` for call `c`, made by the prelude's `form`.
fn primitives(lua: &Lua, ops: &Rc<Ops>, c: Call, form: Form) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("name", c.name())?;
    let kind = match form {
        Form::Take => {
            t.set("now", operation(lua, ops, c, c)?)?;
            "take"
        }
        Form::Wait => {
            t.set("wait", wait(lua, ops, c, true)?)?;
            "wait"
        }
        Form::WaitAll => {
            t.set("wait", wait(lua, ops, c, true)?)?;
            "waitall"
        }
        Form::Test => {
            t.set("test", wait(lua, ops, c, false)?)?;
            "test"
        }
        Form::PostWait { post, status } => {
            t.set("post", operation(lua, ops, post, c)?)?;
            t.set("wait", wait(lua, ops, c, true)?)?;
            t.set("status", status)?;
            "postwait"
        }
        Form::Exchange { send, recv } => {
            t.set("send", operation(lua, ops, send, c)?)?;
            t.set("recv", operation(lua, ops, recv, c)?)?;
            t.set("wait", wait(lua, ops, c, true)?)?;
            "exchange"
        }
        Form::Region { begin, end } => {
            t.set("begin", begin.name())?;
            t.set("end", end.name())?;
            "region"
        }
        Form::TraceOpen => {
            t.set("now", operation(lua, ops, c, c)?)?;
            "trace_open"
        }
    };
    t.set("form", kind)?;
    Ok(t)
}

/// A wait on one request as call `call` (`MGEN_Recv` waits through its own, so that an error
/// names it): its status `(source, tag, bytes)` once complete; else, if `blocking`, nil (the
/// rank now waits for it), or false (`MGEN_Test`).
fn wait(lua: &Lua, ops: &Rc<Ops>, call: Call, blocking: bool) -> mlua::Result<Function> {
    let f = ops.part.clone();
    lua.create_function(move |lua, h: Value| {
        let func = call.name();
        let hv = int_arg(lua, 1, &h, func, "request")?;
        let mut w = f.borrow_mut();
        match w.wait_request(hv, call, blocking) {
            Err(e) => Err(call_error(lua, 1, func, e)),
            Ok(Some((source, tag, bytes))) => Ok(mlua::MultiValue::from_iter([
                Value::Integer(source),
                Value::Integer(tag),
                Value::Integer(bytes),
            ])),
            Ok(None) if blocking => Ok(mlua::MultiValue::from_iter([Value::Nil])),
            Ok(None) => Ok(mlua::MultiValue::from_iter([Value::Boolean(false)])),
        }
    })
}

/// The API's constants (`api::CONSTANTS`), and `MGEN_SCENARIO_DIR` (`MGEN_args` is each
/// job's, set by the prelude).
fn constants(globals: &Table, scenario_dir: &Path) -> mlua::Result<()> {
    use crate::api::Value as V;
    for &(name, value) in crate::api::CONSTANTS {
        match value {
            V::Int(i) => globals.set(name, i)?,
            V::False => globals.set(name, false)?,
            V::OfTheRun => {}
        }
    }
    let dir = scenario_dir
        .canonicalize()
        .unwrap_or_else(|_| scenario_dir.to_path_buf());
    globals.set("MGEN_SCENARIO_DIR", dir.display().to_string())
}

/// The rank's own `math.random` and `math.randomseed` (each rank has its generator).
fn random(lua: &Lua, globals: &Table, part: &W) -> mlua::Result<()> {
    // per-rank math.random
    let math: Table = globals.get("math")?;
    let f = part.clone();
    math.set(
        "random",
        lua.create_function(move |lua, args: Variadic<Value>| {
            let mut w = f.borrow_mut();
            let rng = w.rng();
            let (lo, hi) = match args.len() {
                0 => return Ok(Value::Number(rng.next_f64())),
                1 => (1, int_arg(lua, 1, &args[0], "math.random", "m")?),
                _ => (
                    int_arg(lua, 1, &args[0], "math.random", "m")?,
                    int_arg(lua, 1, &args[1], "math.random", "n")?,
                ),
            };
            if lo > hi {
                return Err(error(
                    lua,
                    1,
                    format!("math.random: interval is empty ({lo} > {hi})"),
                ));
            }
            Ok(Value::Integer(rng.range(lo, hi)))
        })?,
    )?;
    let f = part.clone();
    math.set(
        "randomseed",
        lua.create_function(move |lua, x: Option<Value>| {
            let s = match x {
                None | Some(Value::Nil) => f.borrow().job_seed(),
                Some(Value::Integer(i)) => i as u64,
                Some(Value::Number(n)) => n.to_bits(),
                Some(other) => {
                    return Err(error(
                        lua,
                        1,
                        format!(
                            "math.randomseed: `x` must be a number, got {}",
                            describe(&other)
                        ),
                    ))
                }
            };
            *f.borrow_mut().rng() = crate::random::Xoshiro::from_seed(s);
            Ok(())
        })?,
    )?;

    Ok(())
}

/// The raw primitives, seen only by the prelude: the sandbox's file functions, the limits,
/// `print` and what it asks about the running rank (the API's own are made by [`calls`]).
fn raw(lua: &Lua, part: &W, files: FileAccess, module_dirs: Vec<PathBuf>) -> mlua::Result<Table> {
    // raw primitives, seen only by the prelude
    let raw = lua.create_table()?;
    for t in ["std_modules", "job_modules", "rank_modules"] {
        raw.set(t, lua.create_table()?)?;
    }
    super::io::files_api(lua, &raw, files, module_dirs)?;
    rank_api(lua, &raw, part.clone())?;
    let f = part.clone();
    raw.set(
        "stopped",
        lua.create_function(move |_, (name, at): (String, Option<String>)| {
            if let Some(l) = Limit::from_name(&name) {
                f.borrow_mut().record_stop(l, at);
            }
            Ok(())
        })?,
    )?;
    let f = part.clone();
    raw.set(
        "write",
        lua.create_function(move |_, (s, partial): (mlua::String, Option<bool>)| {
            let text = s.to_string_lossy();
            f.borrow_mut().say(&text, partial.unwrap_or(false));
            Ok(())
        })?,
    )?;
    Ok(raw)
}

/// What the prelude asks about the running rank: its number (`raw.current`), whether the
/// engine has taken it (`raw.engine_took`: it waits, or is scheduled to go on at its clock,
/// so a coroutine of its that yielded must yield the rank too) and `raw.sync` (`MGEN_Test`:
/// let the engine catch up with the rank's clock before it answers).
fn rank_api(lua: &Lua, raw: &Table, part: W) -> mlua::Result<()> {
    let f = part.clone();
    raw.set(
        "current",
        lua.create_function(move |_, ()| Ok(f.borrow().current()))?,
    )?;
    let f = part.clone();
    raw.set(
        "engine_took",
        lua.create_function(move |_, ()| Ok(f.borrow().engine_took()))?,
    )?;
    let f = part;
    raw.set(
        "sync",
        lua.create_function(move |_, ()| {
            f.borrow_mut().sync();
            Ok(())
        })?,
    )
}
