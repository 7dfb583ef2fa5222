//! The MGEN API as Rust functions on the Lua state (documented for users in `lua/mgen.d.lua`).
//!
//! Every function acts for the rank that is running, `Part::current`. Non-blocking calls
//! advance that rank's clock and schedule events at it; the blocking ones are thin Lua wrappers
//! (in `prelude.lua`) over `raw.poll` and `raw.complete`, which either satisfy the call at once or
//! record the wait. The four hottest calls (puts, gets, polls, completions) are then replaced
//! by C functions (`fast.rs`) that take the common case themselves and hand every other call,
//! errors included, to the functions defined here.

use super::args::*;
use crate::files::FileAccess;
use crate::limits::Limit;
use crate::mpi::{ANY_SOURCE, ANY_TAG};
use crate::part::Part;
use crate::rdma::OpKind;
use mlua::{Lua, Table, Value, Variadic};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

type W = Rc<RefCell<Part>>;

/// Installs the API in `globals`; returns the private table of raw primitives the prelude wraps.
pub(crate) fn install(
    lua: &Lua,
    globals: &Table,
    world: W,
    scenario_dir: &Path,
    files: FileAccess,
    module_dirs: Vec<PathBuf>,
) -> mlua::Result<Table> {
    ranks_and_time(lua, globals, &world)?;
    rdma(lua, globals, &world)?;
    records(lua, globals, &world, scenario_dir)?;
    messages(lua, globals, &world)?;
    let replay_files = files.clone();
    let raw = raw(lua, &world, files, module_dirs)?;
    super::replay_api::install(lua, globals, &raw, &world, replay_files)?;
    Ok(raw)
}

/// Who the rank is, its clock and its computing: `MGEN_Comm_rank`, `MGEN_Comm_size`,
/// `MGEN_COMM_WORLD`, `MGEN_Wtime`, `MGEN_Comp`.
fn ranks_and_time(lua: &Lua, globals: &Table, world: &W) -> mlua::Result<()> {
    let f = world.clone();
    globals.set(
        "MGEN_Comm_rank",
        lua.create_function(move |_, _comm: Option<Value>| {
            let w = f.borrow();
            Ok(w.current - w.nodes.job(w.current).base)
        })?,
    )?;
    let f = world.clone();
    globals.set(
        "MGEN_Comm_size",
        lua.create_function(move |_, _comm: Option<Value>| Ok(job_span(&f.borrow()).1))?,
    )?;
    globals.set("MGEN_COMM_WORLD", 0)?;

    let f = world.clone();
    globals.set(
        "MGEN_Wtime",
        lua.create_function(move |_, ()| {
            let w = f.borrow();
            Ok(w.ranks[w.current as usize].clock.as_secs_f64())
        })?,
    )?;

    let f = world.clone();
    globals.set(
        "MGEN_Comp",
        lua.create_function(move |lua, secs: Value| {
            let s = match secs {
                Value::Integer(i) => i as f64,
                Value::Number(n) => n,
                ref other => {
                    return Err(error(
                        lua,
                        1,
                        format!(
                            "MGEN_Comp: `seconds` must be a number, got {}",
                            describe(other)
                        ),
                    ))
                }
            };
            let mut w = f.borrow_mut();
            crate::calls::compute(&mut w, s).map_err(|e| call_error(lua, 1, "MGEN_Comp", e))?;
            Ok(())
        })?,
    )?;

    Ok(())
}

/// RDMA: `MGEN_rdma_put`, `MGEN_rdma_get`, `MGEN_acp_copy` (the blocking poll and completion
/// are the prelude's, over `raw.poll` and `raw.complete`).
fn rdma(lua: &Lua, globals: &Table, world: &W) -> mlua::Result<()> {
    // MGEN_rdma_put(dest, bytes, tag, nic?) and MGEN_rdma_get(src, bytes, tag, nic?)
    for (func, kind, peer_name) in [
        ("MGEN_rdma_put", OpKind::Put, "dest"),
        ("MGEN_rdma_get", OpKind::Get, "src"),
    ] {
        let f = world.clone();
        globals.set(
            func,
            lua.create_function(
                move |lua, (peer, bytes, tag, nic): (Value, Value, Value, Option<Value>)| {
                    let (base, size, nics) = job_span(&f.borrow());
                    let peer = base + rank_arg(lua, &peer, func, peer_name, size)?;
                    let bytes = bytes_arg(lua, &bytes, func, f.borrow().max_bytes)?;
                    let tag = int_arg(lua, 1, &tag, func, "tag")?;
                    let nic = nic_arg(lua, nic, func, nics)?;
                    Ok(f.borrow_mut().issue(kind, peer, bytes, tag, nic))
                },
            )?,
        )?;
    }

    let f = world.clone();
    globals.set(
        "MGEN_acp_copy",
        lua.create_function(move |lua, (src, dst, bytes, tag, nic): (Value, Value, Value, Option<Value>, Option<Value>)| {
            let (base, size, nics) = job_span(&f.borrow());
            let src = base + rank_arg(lua, &src, "MGEN_acp_copy", "src", size)?;
            let dst = base + rank_arg(lua, &dst, "MGEN_acp_copy", "dst", size)?;
            let bytes = bytes_arg(lua, &bytes, "MGEN_acp_copy", f.borrow().max_bytes)?;
            let tag = match tag {
                None | Some(Value::Nil) => 0,
                Some(t) => int_arg(lua, 1, &t, "MGEN_acp_copy", "tag")?,
            };
            let nic = nic_arg(lua, nic, "MGEN_acp_copy", nics)?;
            let mut w = f.borrow_mut();
            let me = w.current;
            if src == me {
                Ok(w.issue(OpKind::Put, dst, bytes, tag, nic))
            } else if dst == me {
                Ok(w.issue(OpKind::Get, src, bytes, tag, nic))
            } else {
                Err(error(
                    lua,
                    1,
                    format!(
                        "MGEN_acp_copy: rank {} is neither `src` ({}) nor `dst` ({}); third-party copies are not modelled",
                        me - base, src - base, dst - base
                    ),
                ))
            }
        })?,
    )?;

    Ok(())
}

/// What a rank records and draws: regions, `MGEN_report`, `MGEN_SCENARIO_DIR`, and its own
/// `math.random`.
fn records(lua: &Lua, globals: &Table, world: &W, scenario_dir: &Path) -> mlua::Result<()> {
    // MGEN_region_begin(name) / MGEN_region_end(): a named span on the rank's timeline
    let f = world.clone();
    globals.set(
        "MGEN_region_begin",
        lua.create_function(move |lua, name: Value| {
            let name = str_arg(lua, &name, "MGEN_region_begin", "name")?;
            crate::calls::region_begin(&mut f.borrow_mut(), &name);
            Ok(())
        })?,
    )?;
    let f = world.clone();
    globals.set(
        "MGEN_region_end",
        lua.create_function(move |lua, args: mlua::MultiValue| {
            if !args.is_empty() {
                return Err(error(
                    lua,
                    1,
                    "MGEN_region_end takes no arguments: it ends the innermost region".into(),
                ));
            }
            crate::calls::region_end(&mut f.borrow_mut())
                .map_err(|e| call_error(lua, 1, "MGEN_region_end", e))
        })?,
    )?;

    let f = world.clone();
    globals.set(
        "MGEN_report",
        lua.create_function(move |lua, (name, value): (Value, Value)| {
            let name = str_arg(lua, &name, "MGEN_report", "name")?;
            let v = match value {
                Value::Integer(i) => i as f64,
                Value::Number(n) if n.is_finite() => n,
                ref other => {
                    return Err(error(
                        lua,
                        1,
                        format!(
                            "MGEN_report: `value` must be a finite number, got {}",
                            describe(other)
                        ),
                    ))
                }
            };
            f.borrow_mut().report(name, v);
            Ok(())
        })?,
    )?;

    let dir = scenario_dir
        .canonicalize()
        .unwrap_or_else(|_| scenario_dir.to_path_buf());
    globals.set("MGEN_SCENARIO_DIR", dir.display().to_string())?;

    // per-rank math.random
    let math: Table = globals.get("math")?;
    let f = world.clone();
    math.set(
        "random",
        lua.create_function(move |lua, args: Variadic<Value>| {
            let mut w = f.borrow_mut();
            let cur = w.current as usize;
            let rng = &mut w.ranks[cur].rng;
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
    // MGEN_random_ring(n, x): x's neighbours in util.permutation(n)'s ring, drawn once for
    // every rank whose generator is in the same state (the 64K ranks of a random ring would
    // otherwise each draw, and search, a permutation of 64K: 2^32 steps of Lua)
    let f = world.clone();
    let drawn: RefCell<Option<RingDraw>> = RefCell::new(None);
    globals.set(
        "MGEN_random_ring",
        lua.create_function(move |lua, (n, x): (Value, Value)| {
            let n = int_arg(lua, 1, &n, "MGEN_random_ring", "n")?;
            let x = int_arg(lua, 1, &x, "MGEN_random_ring", "x")?;
            if !(1..=1 << 31).contains(&n) {
                return Err(error(
                    lua,
                    1,
                    format!("MGEN_random_ring: `n` must be in 1..2^31, got {n}"),
                ));
            }
            if !(0..n).contains(&x) {
                return Err(error(
                    lua,
                    1,
                    format!("MGEN_random_ring: `x` must be in 0..{}, got {x}", n - 1),
                ));
            }
            let mut w = f.borrow_mut();
            let cur = w.current as usize;
            let rng = &mut w.ranks[cur].rng;
            let mut d = drawn.borrow_mut();
            if !d
                .as_ref()
                .is_some_and(|d| d.before == *rng && d.pos.len() == n as usize)
            {
                *d = Some(RingDraw::draw(*rng, n as u32));
            }
            let d = d.as_ref().expect("drawn above");
            *rng = d.after;
            let n = n as usize;
            let p = d.pos[x as usize] as usize;
            Ok((d.perm[(p + n - 1) % n], d.perm[(p + 1) % n]))
        })?,
    )?;
    let f = world.clone();
    math.set(
        "randomseed",
        lua.create_function(move |lua, x: Option<Value>| {
            let s = match x {
                None | Some(Value::Nil) => {
                    let w = f.borrow();
                    w.nodes.job(w.current).seed
                }
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
            let mut w = f.borrow_mut();
            let cur = w.current as usize;
            w.ranks[cur].rng = crate::random::Xoshiro::from_seed(s);
            Ok(())
        })?,
    )?;

    Ok(())
}

/// One permutation drawn for `MGEN_random_ring`: the generator's state before and after the
/// draw, the permutation and each element's position in it.
struct RingDraw {
    before: crate::random::Xoshiro,
    after: crate::random::Xoshiro,
    perm: Vec<u32>,
    pos: Vec<u32>,
}

impl RingDraw {
    /// `util.permutation(n)`'s Fisher-Yates, draw for draw: for `i = n..2`, swap element `i`
    /// with element `math.random(i)` (1-based).
    fn draw(mut rng: crate::random::Xoshiro, n: u32) -> RingDraw {
        let before = rng;
        let mut perm: Vec<u32> = (0..n).collect();
        for i in (2..=n as i64).rev() {
            let j = rng.range(1, i);
            perm.swap(i as usize - 1, j as usize - 1);
        }
        let mut pos = vec![0u32; n as usize];
        for (p, &v) in perm.iter().enumerate() {
            pos[v as usize] = p as u32;
        }
        RingDraw {
            before,
            after: rng,
            perm,
            pos,
        }
    }
}

/// Message passing: `MGEN_Isend`, `MGEN_Irecv` and their constants (the waits are the
/// prelude's, over `raw.wait` and `raw.test`).
fn messages(lua: &Lua, globals: &Table, world: &W) -> mlua::Result<()> {
    globals.set("MGEN_ANY_SOURCE", ANY_SOURCE)?;
    globals.set("MGEN_ANY_TAG", ANY_TAG)?;
    let f = world.clone();
    globals.set(
        "MGEN_Isend",
        lua.create_function(
            move |lua, (dest, bytes, tag, nic): (Value, Value, Value, Option<Value>)| {
                isend(lua, &f, "MGEN_Isend", dest, bytes, tag, nic)
            },
        )?,
    )?;
    let f = world.clone();
    globals.set(
        "MGEN_Irecv",
        lua.create_function(move |lua, (src, bytes, tag): (Value, Value, Value)| {
            irecv(lua, &f, "MGEN_Irecv", src, bytes, tag)
        })?,
    )?;
    Ok(())
}

/// The same as `MGEN_Isend` and `MGEN_Irecv`, for the prelude's blocking calls built on them
/// (`MGEN_Send`, `MGEN_Recv`, `MGEN_Sendrecv`): one each, whose errors name that function.
fn messages_as(lua: &Lua, raw: &Table, world: &W) -> mlua::Result<()> {
    for (name, func) in [
        ("isend_send", "MGEN_Send"),
        ("isend_sendrecv", "MGEN_Sendrecv"),
    ] {
        let f = world.clone();
        raw.set(
            name,
            lua.create_function(
                move |lua, (dest, bytes, tag, nic): (Value, Value, Value, Option<Value>)| {
                    isend(lua, &f, func, dest, bytes, tag, nic)
                },
            )?,
        )?;
    }
    for (name, func) in [
        ("irecv_recv", "MGEN_Recv"),
        ("irecv_sendrecv", "MGEN_Sendrecv"),
    ] {
        let f = world.clone();
        raw.set(
            name,
            lua.create_function(move |lua, (src, bytes, tag): (Value, Value, Value)| {
                irecv(lua, &f, func, src, bytes, tag)
            })?,
        )?;
    }
    Ok(())
}

/// The profile's call of the script's function `func` (`MGEN_Send`: [`Api::Send`], ...).
fn api_of(func: &str) -> crate::probe::profile::Api {
    use crate::probe::profile::Api;
    match func {
        "MGEN_Send" => Api::Send,
        "MGEN_Recv" => Api::Recv,
        "MGEN_Sendrecv" => Api::Sendrecv,
        "MGEN_Irecv" => Api::Irecv,
        _ => Api::Isend,
    }
}

/// `MGEN_Isend(dest, bytes, tag, nic?)` as the script's function `func`: the request handle.
#[allow(clippy::too_many_arguments)]
fn isend(
    lua: &Lua,
    f: &W,
    func: &str,
    dest: Value,
    bytes: Value,
    tag: Value,
    nic: Option<Value>,
) -> mlua::Result<i64> {
    let (_, size, nics) = job_span(&f.borrow());
    let dest = rank_arg(lua, &dest, func, "dest", size)?;
    let nic = nic_arg(lua, nic, func, nics)?;
    let bytes = bytes_arg(lua, &bytes, func, f.borrow().max_bytes)?;
    let tag = int_arg(lua, 1, &tag, func, "tag")?;
    let tag = crate::calls::send_tag(tag).map_err(|e| call_error(lua, 1, func, e))?;
    Ok(crate::calls::isend(
        &mut f.borrow_mut(),
        api_of(func),
        dest,
        bytes,
        tag,
        nic,
    ))
}

/// `MGEN_Irecv(src, bytes, tag)` as the script's function `func`: the request handle.
fn irecv(lua: &Lua, f: &W, func: &str, src: Value, bytes: Value, tag: Value) -> mlua::Result<i64> {
    let (_, size, _) = job_span(&f.borrow());
    let src = match src {
        Value::Integer(ANY_SOURCE) => ANY_SOURCE,
        ref v => rank_arg(lua, v, func, "src", size)? as i64,
    };
    let bytes = bytes_arg(lua, &bytes, func, f.borrow().max_bytes)?;
    let tag = int_arg(lua, 1, &tag, func, "tag")?;
    let tag = crate::calls::recv_tag(tag).map_err(|e| call_error(lua, 1, func, e))?;
    Ok(crate::calls::irecv(
        &mut f.borrow_mut(),
        api_of(func),
        src,
        bytes,
        tag,
    ))
}

/// The raw primitives, seen only by the prelude: waits, poll and completion, the sandbox's
/// file functions, the limits, and `print`.
fn raw(lua: &Lua, world: &W, files: FileAccess, module_dirs: Vec<PathBuf>) -> mlua::Result<Table> {
    // raw primitives, seen only by the prelude
    let raw = lua.create_table()?;
    messages_as(lua, &raw, world)?;
    for t in ["std_modules", "job_modules", "rank_modules"] {
        raw.set(t, lua.create_table()?)?;
    }
    // one wait per function the script may have called, so that an error names it (MGEN_Recv
    // and friends wait through these; a name is not an argument: nothing more to convert)
    for (name, func, blocking) in [
        ("wait", "MGEN_Wait", true),
        ("wait_send", "MGEN_Send", true),
        ("wait_recv", "MGEN_Recv", true),
        ("wait_sendrecv", "MGEN_Sendrecv", true),
        ("wait_waitall", "MGEN_Waitall", true),
        ("test", "MGEN_Test", false),
    ] {
        let f = world.clone();
        raw.set(
            name,
            lua.create_function(move |lua, h: Value| {
                let hv = int_arg(lua, 1, &h, func, "request")?;
                let mut w = f.borrow_mut();
                let call = crate::rank::Call::of(func);
                match crate::calls::wait_request(&mut w, hv, call, blocking) {
                    Err(e) => Err(call_error(lua, 1, func, e)),
                    Ok(Some((source, tag, bytes))) => Ok(mlua::MultiValue::from_iter([
                        Value::Integer(source),
                        Value::Integer(tag),
                        Value::Integer(bytes),
                    ])),
                    Ok(None) if blocking => Ok(mlua::MultiValue::from_iter([Value::Nil])),
                    Ok(None) => Ok(mlua::MultiValue::from_iter([Value::Boolean(false)])),
                }
            })?,
        )?;
    }
    let f = world.clone();
    raw.set(
        "poll",
        lua.create_function(move |lua, tag: Value| {
            let tag = int_arg(lua, 2, &tag, "MGEN_rdma_poll", "tag")?;
            Ok(crate::calls::poll(&mut f.borrow_mut(), tag))
        })?,
    )?;
    let f = world.clone();
    raw.set(
        "complete",
        lua.create_function(move |lua, h: Value| {
            let hv = int_arg(lua, 2, &h, "MGEN_acp_complete", "handle")?;
            let mut w = f.borrow_mut();
            let seq = crate::calls::take_handle(&mut w, hv)
                .map_err(|e| call_error(lua, 2, "MGEN_acp_complete", e))?;
            Ok(crate::calls::complete(&mut w, seq))
        })?,
    )?;
    super::io::files_api(lua, &raw, files, module_dirs)?;
    rank_api(lua, &raw, world.clone())?;
    let f = world.clone();
    raw.set(
        "stopped",
        lua.create_function(move |_, (name, at): (String, Option<String>)| {
            let mut w = f.borrow_mut();
            let rank = w.current;
            if let Some(l) = Limit::from_name(&name) {
                w.watch.record(l, Some(rank), at);
            }
            Ok(())
        })?,
    )?;
    let f = world.clone();
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
fn rank_api(lua: &Lua, raw: &Table, world: W) -> mlua::Result<()> {
    let f = world.clone();
    raw.set(
        "current",
        lua.create_function(move |_, ()| Ok(f.borrow().current))?,
    )?;
    let f = world.clone();
    raw.set(
        "engine_took",
        lua.create_function(move |_, ()| {
            let w = f.borrow();
            Ok(w.ranks[w.current as usize].status != crate::rank::Status::Running)
        })?,
    )?;
    let f = world;
    raw.set(
        "sync",
        lua.create_function(move |_, ()| {
            let mut guard = f.borrow_mut();
            let w = &mut *guard;
            let cur = w.current;
            let rank = &mut w.ranks[cur as usize];
            let clock = rank.clock;
            rank.wake(cur, clock, &mut w.queue);
            Ok(())
        })?,
    )
}
