//! The hottest API calls as raw Lua C functions (those the API's table, `api/mod.rs`, marks
//! `Fast::Yes`): RDMA (`MGEN_rdma_put`, `MGEN_rdma_get`,
//! `MGEN_rdma_poll`, `MGEN_acp_complete`), messages (`MGEN_Isend`, `MGEN_Irecv`,
//! `MGEN_Wait`, `MGEN_Waitall`), `MGEN_Comp`, `MGEN_Comm_rank`, `MGEN_Comm_size` and the
//! regions (`MGEN_region_begin`, `MGEN_region_end`), which every collective of `mgen.coll`
//! calls; and `MGEN_acp_copy`, which always hands the call on.
//!
//! A call that advances the rank's clock or posts a transfer gives control back to the engine
//! when the limits say so (`Watch::pause_due`: its clock past `limits.simulated_time`, or its
//! turn past `limits.events` posts), even if it never blocks: it yields, and returns its
//! results when resumed. So a rank that computes or sends in an endless loop stops at the
//! limits, at the same call on any partitioning.
//!
//! A barrier, an all-to-all or a replayed trace is little more than these calls, and through
//! mlua each one costs a protected call frame, argument conversion into `Value`s and, for the
//! blocking ones, a Lua wrapper in the prelude that calls the engine and then
//! `coroutine.yield`. Here each is one C function that reads its arguments straight off the
//! Lua stack, acts on the [`Part`] and, for a call that must wait, yields the coroutine
//! itself (`lua_yield`, as `coroutine.yield` does; a wait continues in a continuation that
//! takes the request's status once the engine resumes the rank).
//!
//! Each takes only the **common case**: arguments that are Lua integers (numbers for
//! `MGEN_Comp`) and valid. Anything else (a float where an integer is due, a string, a rank out
//! of range, an unknown request) goes to the function it replaced, the **full** one (the mlua
//! function or the prelude's wrapper), which accepts integral floats and raises the error that
//! names the function, the argument and the script line. Both apply the rules of `calls.rs`,
//! so the fast path decides nothing the full one would decide differently, and every rule and
//! message is written once. A refusal found only after a wait has used something up (a
//! truncated message; in `MGEN_Waitall`, a request after the first) is raised here, with the
//! message and the script line the full function gives.
//!
//! Each function is a C closure with two upvalues: the `Part` (a light userdata: the
//! `RefCell` an `Rc` keeps alive as the Lua state's app data) and the full function
//! (`MGEN_trace_next`, which has none, has the actions' names there).

use crate::api::{Call, Fast, Made};
use crate::calls;
use crate::part::Part;
use crate::probe::profile::Api;
use crate::rdma::OpKind;
use mlua::ffi::{self, lua_State};
use mlua::{Function, Lua};
use std::cell::RefCell;
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

mod wait;

const PART: c_int = ffi::lua_upvalueindex(1);
const FULL: c_int = ffi::lua_upvalueindex(2);

/// Keeps the `Part` the fast functions point at alive as long as the Lua state (app data).
struct KeepPart(#[allow(dead_code)] Rc<RefCell<Part>>);

/// The C function of call `c`, if the API's table gives it a fast path (`Fast::Yes`; a test
/// holds the two together).
fn function(c: Call) -> Option<ffi::lua_CFunction> {
    Some(match c {
        Call::Put => rdma_put,
        Call::Get => rdma_get,
        Call::Poll => rdma_poll,
        Call::Complete => acp_complete,
        Call::Isend => isend,
        Call::Irecv => irecv,
        Call::Wait => wait::wait,
        Call::Waitall => wait::waitall,
        Call::Comp => comp,
        Call::Copy => acp_copy,
        Call::CommRank => comm_rank,
        Call::CommSize => comm_size,
        Call::RegionBegin => region_begin,
        Call::RegionEnd => region_end,
        Call::TraceNext => trace_next,
        _ => return None,
    })
}

/// Whether the global `name` is a fast function that hands unusual calls to a full one (a C
/// frame right above it in a traceback is that full function).
pub(super) fn hands_on(name: &str) -> bool {
    Call::named(name).is_some_and(|c| has_full(c) && function(c).is_some())
}

/// Whether call `c` has a full function (the mlua function or the prelude's wrapper).
fn has_full(c: Call) -> bool {
    c.entry().made != Made::FastOnly
}

/// Replaces the globals of the calls with a fast path (installed by `api.rs` and the prelude)
/// with their fast versions, and sets those that have only one (`MGEN_trace_next`, whose
/// second upvalue is the actions' names, `trace_names`, in place of a full function).
pub(super) fn install(
    lua: &Lua,
    part: &Rc<RefCell<Part>>,
    trace_names: mlua::Table,
) -> mlua::Result<()> {
    let ptr = Rc::as_ptr(part) as *mut std::ffi::c_void;
    lua.set_app_data(KeepPart(part.clone()));
    let globals = lua.globals();
    for &c in Call::ALL {
        if c.entry().fast == Fast::No {
            continue;
        }
        let f = function(c).expect("a call marked fast has a C function (a test holds them)");
        let name = c.name();
        let fast = if has_full(c) {
            let full: Function = globals.get(name)?;
            closure(lua, ptr, f, full)?
        } else {
            closure(lua, ptr, f, trace_names.clone())?
        };
        globals.set(name, fast)?;
    }
    Ok(())
}

/// The C closure of `f` with its two upvalues: the `Part` (`ptr`) and `second`.
fn closure(
    lua: &Lua,
    ptr: *mut std::ffi::c_void,
    f: ffi::lua_CFunction,
    second: impl mlua::IntoLua,
) -> mlua::Result<Function> {
    // SAFETY: pushes a light userdata and makes a closure of it and `second` (on the stack as
    // the call's argument); the pointer outlives the state (KeepPart).
    unsafe {
        lua.exec_raw(second, |l| {
            ffi::lua_pushlightuserdata(l, ptr);
            ffi::lua_insert(l, -2);
            ffi::lua_pushcclosure(l, f, 2);
        })
    }
}

/// `MGEN_trace_next()`: the rank's next traced action as its name, its arguments (a list of
/// numbers), its communicator and, for an action that names something (`region_begin`), the
/// name; nothing at the end of its trace. A trace that cannot be read is an error naming its
/// file and line.
unsafe extern "C-unwind" fn trace_next(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function; the actions' names are upvalue 2; every value pushed is counted in
    // the return.
    unsafe {
        thread_local! {
            /// The action's arguments, copied out of the trace so that nothing is borrowed while
            /// Lua allocates (a memory error unwinds over this frame).
            static ARGS: std::cell::Cell<Vec<f64>> = const { std::cell::Cell::new(Vec::new()) };
            /// Its name, likewise.
            static TEXT: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
        }
        let mut args = ARGS.take();
        let mut text = TEXT.take();
        let next = guarded(l, "MGEN_trace_next", || {
            with_part(l, |w| {
                let me = w.current();
                let next = w.replays().next(me).map(|a| {
                    a.map(|a| {
                        args.clear();
                        args.extend_from_slice(a.args);
                        text.clear();
                        text.push_str(a.text);
                        (a.kind, a.comm)
                    })
                });
                if let Ok(a) = &next {
                    w.profile_action(a.map(|a| a.0));
                }
                Some(next)
            })
        });
        let n = match next {
            None => {
                ARGS.set(args);
                TEXT.set(text);
                busy(l, "MGEN_trace_next")
            }
            Some(Err(e)) => {
                ARGS.set(args);
                TEXT.set(text);
                let msg = format!("replay: {e}");
                drop(e);
                raise(l, msg)
            }
            Some(Ok(None)) => 0,
            Some(Ok(Some((kind, comm)))) => {
                ffi::lua_rawgeti(l, FULL, kind as ffi::lua_Integer + 1);
                ffi::lua_createtable(l, args.len() as c_int, 0);
                for (i, x) in args.iter().enumerate() {
                    ffi::lua_pushnumber(l, *x);
                    ffi::lua_rawseti(l, -2, i as ffi::lua_Integer + 1);
                }
                ffi::lua_pushinteger(l, comm as ffi::lua_Integer);
                if text.is_empty() {
                    3
                } else {
                    ffi::lua_pushlstring(l, text.as_ptr().cast(), text.len());
                    4
                }
            }
        };
        ARGS.set(args);
        TEXT.set(text);
        n
    }
}

/// Argument `i` if it is a Lua integer.
#[inline]
unsafe fn int(l: *mut lua_State, i: c_int) -> Option<i64> {
    // SAFETY: `l` is a live state and `i` an index of its stack (the caller's).
    unsafe {
        (ffi::lua_isinteger(l, i) != 0).then(|| ffi::lua_tointegerx(l, i, std::ptr::null_mut()))
    }
}

/// Runs `f` on the part, unless something holds it already (`None`: the full function then
/// says what). The borrow lasts for `f` only.
#[inline]
unsafe fn with_part<T>(l: *mut lua_State, f: impl FnOnce(&mut Part) -> Option<T>) -> Option<T> {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; upvalue 1 is the light userdata of the `RefCell<Part>` that `KeepPart` keeps alive
    // as long as the state, used on the state's thread only, and borrowed (checked) for `f` alone.
    unsafe {
        let p = ffi::lua_touserdata(l, PART) as *const RefCell<Part>;
        // SAFETY: set by `install`; KeepPart keeps the RefCell alive as long as the state, and
        // this call runs on the state's thread
        let mut w = (*p).try_borrow_mut().ok()?;
        f(&mut w)
    }
}

/// Runs `f` (the fast path: `None` sends the call to the full function); a panic in it, a bug
/// of ours, becomes a Lua error that names the function instead of unwinding through Lua's C.
#[inline]
unsafe fn guarded<T>(l: *mut lua_State, func: &str, f: impl FnOnce() -> Option<T>) -> Option<T> {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; `raise` runs only after the panic's payload is dropped.
    unsafe {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(r) => r,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                drop(payload);
                raise(
                    l,
                    format!("internal error in {func} (please report it): {what}"),
                )
            }
        }
    }
}

/// Raises `msg` as a Lua error. Nothing of ours with a destructor is alive below this frame
/// when Lua unwinds (longjmp) over it: the message is copied into Lua and dropped first.
#[cold]
unsafe fn raise(l: *mut lua_State, msg: String) -> ! {
    // SAFETY: `l` is a live state with a free slot; `lua_error` does not return (a longjmp): the
    // message was copied into Lua and dropped before, so nothing with a destructor is skipped.
    unsafe {
        ffi::lua_pushlstring(l, msg.as_ptr().cast(), msg.len());
        drop(msg);
        ffi::lua_error(l)
    }
}

/// Calls the full function with this call's arguments and returns what it returns; it may
/// yield (the prelude's wrappers do), hence the continuation.
#[cold]
unsafe fn full(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; the full function (upvalue 2) is called with this call's arguments, and may yield
    // through `full_done`.
    unsafe {
        let n = ffi::lua_gettop(l);
        ffi::lua_pushvalue(l, FULL);
        ffi::lua_insert(l, 1);
        ffi::lua_callk(l, n, ffi::LUA_MULTRET, 0, Some(full_done));
        let n = ffi::lua_gettop(l);
        let pause = with_part(l, |w| Some(w.pause_due())).unwrap_or(false);
        give(l, n, pause)
    }
}

/// Returns the `n` values on the stack's top to the script, unless the rank must first give
/// control back to the engine (`pause`, [`Part::pause_due`]): it then yields, and returns
/// them once resumed (which a rank past the limits never is).
#[inline]
unsafe fn give(l: *mut lua_State, n: c_int, pause: bool) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this, `n` values on its stack's
    // top; the yield (the C function's return) keeps them there for `given`.
    unsafe {
        if pause {
            return ffi::lua_yieldk(l, 0, n as ffi::lua_KContext, Some(given));
        }
        n
    }
}

/// After [`give`]'s yield: the `n` values it kept (its context) are the stack's top.
unsafe extern "C-unwind" fn given(
    _l: *mut lua_State,
    _status: c_int,
    ctx: ffi::lua_KContext,
) -> c_int {
    ctx as c_int
}

/// After a yield in the full function: its results are the stack.
unsafe extern "C-unwind" fn full_done(
    l: *mut lua_State,
    _status: c_int,
    _ctx: ffi::lua_KContext,
) -> c_int {
    // SAFETY: Lua runs this continuation on the state that yielded, with the stack as the yield
    // left it and the upvalues of the closure that yielded.
    unsafe { ffi::lua_gettop(l) }
}

/// The arguments `(peer, bytes, tag, nic?)` of a post, if all are Lua integers (or the NIC
/// nil).
#[inline]
unsafe fn post_args(l: *mut lua_State) -> Option<(i64, i64, i64, Option<i64>)> {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; only indices up to `lua_gettop` are read.
    unsafe {
        let n = ffi::lua_gettop(l);
        if !(3..=4).contains(&n) {
            return None;
        }
        let nic = if n == 4 && ffi::lua_type(l, 4) != ffi::LUA_TNIL {
            Some(int(l, 4)?)
        } else {
            None
        };
        Some((int(l, 1)?, int(l, 2)?, int(l, 3)?, nic))
    }
}

/// Returns a post's handle, giving control back first if the rank must ([`give`]), or hands
/// the call to the full function.
#[inline]
unsafe fn push_handle(l: *mut lua_State, posted: Option<(i64, bool)>) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues, a free slot for the integer.
    unsafe {
        match posted {
            Some((h, pause)) => {
                ffi::lua_pushinteger(l, h);
                give(l, 1, pause)
            }
            None => full(l),
        }
    }
}

/// Returns an integer (a rank, a size), or hands the call to the full function.
#[inline]
unsafe fn push_int(l: *mut lua_State, value: Option<i64>) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues, a free slot for the integer.
    unsafe {
        match value {
            Some(h) => {
                ffi::lua_pushinteger(l, h);
                1
            }
            None => full(l),
        }
    }
}

/// `MGEN_rdma_put(dest, bytes, tag, nic?)` / `MGEN_rdma_get(src, bytes, tag, nic?)`: the
/// checks and the call of `api.rs`'s version, for integer arguments.
#[inline]
unsafe fn transfer(l: *mut lua_State, kind: OpKind, func: &str) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues.
    unsafe {
        let Some((peer, bytes, tag, nic)) = post_args(l) else {
            return full(l);
        };
        // (the rules of `calls.rs`, as the full function applies them; a refusal goes to it,
        // which raises the error)
        let handle = guarded(l, func, || {
            with_part(l, |w| {
                let (_, size, nics) = super::args::job_span(w);
                let peer = calls::rank(peer, size, "").ok()?;
                let bytes = calls::bytes(bytes, w.max_bytes()).ok()?;
                let nic = calls::nic(nic, nics).ok()?;
                let h = w.issue(kind, peer, bytes, tag, nic);
                Some((h, w.pause_due()))
            })
        });
        push_handle(l, handle)
    }
}

unsafe extern "C-unwind" fn rdma_put(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe { transfer(l, OpKind::Put, "MGEN_rdma_put") }
}

unsafe extern "C-unwind" fn rdma_get(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe { transfer(l, OpKind::Get, "MGEN_rdma_get") }
}

/// `MGEN_rdma_poll(tag)`: returns at once if a put with `tag` has arrived, else yields (the
/// rank now waits for one; `calls::poll`, as the full function).
unsafe extern "C-unwind" fn rdma_poll(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function; the yield has no continuation: the call returns nothing once resumed.
    unsafe {
        let Some(tag) = (ffi::lua_gettop(l) == 1).then(|| int(l, 1)).flatten() else {
            return full(l);
        };
        let arrived = guarded(l, "MGEN_rdma_poll", || with_part(l, |w| Some(w.poll(tag))));
        match arrived {
            Some(true) => 0,
            Some(false) => ffi::lua_yield(l, 0),
            None => full(l),
        }
    }
}

/// `MGEN_acp_complete(handle)`: returns at once if the transfer is complete, else yields (the
/// rank now waits for it; `calls::complete`, as the full function).
unsafe extern "C-unwind" fn acp_complete(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function; the yield has no continuation: the call returns nothing once resumed.
    unsafe {
        let Some(h) = (ffi::lua_gettop(l) == 1).then(|| int(l, 1)).flatten() else {
            return full(l);
        };
        let done = guarded(l, "MGEN_acp_complete", || {
            with_part(l, |w| {
                // (a refused handle is not marked used: the full function refuses it again, and
                // says why)
                let seq = w.take_handle(h).ok()?;
                Some(w.complete(seq))
            })
        });
        match done {
            Some(true) => 0,
            Some(false) => ffi::lua_yield(l, 0),
            None => full(l),
        }
    }
}

/// Raises `msg` as the error of the function the script called, at the script's line (the
/// caller of this C function), as the full function's errors read.
#[cold]
unsafe fn raise_at(l: *mut lua_State, func: &str, e: calls::CallError) -> ! {
    // SAFETY: as `raise`: `l` is a live state with free slots (`luaL_where` pushes one, the message
    // a second); the message is dropped before `lua_error` unwinds.
    unsafe {
        let msg = format!("{func}: {e}");
        ffi::luaL_where(l, 1);
        ffi::lua_pushlstring(l, msg.as_ptr().cast(), msg.len());
        drop(msg);
        ffi::lua_concat(l, 2);
        ffi::lua_error(l)
    }
}

/// `MGEN_Isend(dest, bytes, tag, nic?)`: the request's handle.
unsafe extern "C-unwind" fn isend(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe {
        let Some((dest, bytes, tag, nic)) = post_args(l) else {
            return full(l);
        };
        let handle = guarded(l, "MGEN_Isend", || {
            with_part(l, |w| {
                let (_, size, nics) = super::args::job_span(w);
                let dest = calls::rank(dest, size, "dest").ok()?;
                let nic = calls::nic(nic, nics).ok()?;
                let bytes = calls::bytes(bytes, w.max_bytes()).ok()?;
                let tag = calls::send_tag(tag).ok()?;
                let h = w.isend(Api::Isend, dest, bytes, tag, nic);
                Some((h, w.pause_due()))
            })
        });
        push_handle(l, handle)
    }
}

/// `MGEN_Irecv(src, bytes, tag)`: the request's handle.
unsafe extern "C-unwind" fn irecv(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe {
        if ffi::lua_gettop(l) != 3 {
            return full(l);
        }
        let (Some(src), Some(bytes), Some(tag)) = (int(l, 1), int(l, 2), int(l, 3)) else {
            return full(l);
        };
        let handle = guarded(l, "MGEN_Irecv", || {
            with_part(l, |w| {
                let size = super::args::job_span(w).1;
                let src = if src == crate::mpi::ANY_SOURCE {
                    src
                } else {
                    calls::rank(src, size, "src").ok()? as i64
                };
                let bytes = calls::bytes(bytes, w.max_bytes()).ok()?;
                let tag = calls::recv_tag(tag).ok()?;
                let h = w.irecv(Api::Irecv, src, bytes, tag);
                Some((h, w.pause_due()))
            })
        });
        push_handle(l, handle)
    }
}

#[cold]
unsafe fn busy(l: *mut lua_State, func: &str) -> ! {
    // SAFETY: as `raise`.
    unsafe {
        raise(
            l,
            format!("internal error in {func} (please report it): the engine's state is in use"),
        )
    }
}

/// `MGEN_Comp(seconds)`: the rank computes for `seconds` (its clock advances).
unsafe extern "C-unwind" fn comp(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe {
        if ffi::lua_gettop(l) != 1 || ffi::lua_type(l, 1) != ffi::LUA_TNUMBER {
            return full(l);
        }
        let seconds = ffi::lua_tonumberx(l, 1, std::ptr::null_mut());
        let done = guarded(l, "MGEN_Comp", || {
            with_part(l, |w| {
                w.compute(seconds).ok()?;
                Some(w.pause_due())
            })
        });
        match done {
            Some(pause) => give(l, 0, pause),
            None => full(l),
        }
    }
}

/// `MGEN_acp_copy(src, dst, bytes, tag?, nic?)`: the full function's put or get, after which
/// the rank gives control back if it must ([`full`]).
unsafe extern "C-unwind" fn acp_copy(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack.
    unsafe { full(l) }
}

/// `MGEN_Comm_rank(comm?)`: the rank's number in its job.
unsafe extern "C-unwind" fn comm_rank(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe {
        let r = guarded(l, "MGEN_Comm_rank", || {
            with_part(l, |w| Some(w.comm_rank()))
        });
        push_int(l, r.map(i64::from))
    }
}

/// `MGEN_Comm_size(comm?)`: the number of ranks of the rank's job.
unsafe extern "C-unwind" fn comm_size(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe {
        let r = guarded(l, "MGEN_Comm_size", || {
            with_part(l, |w| Some(super::args::job_span(w).1))
        });
        push_int(l, r.map(i64::from))
    }
}

/// `MGEN_region_begin(name)`: a region opens on the rank's timeline.
unsafe extern "C-unwind" fn region_begin(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function; the name's bytes are Lua's, kept by argument 1 for the whole call.
    unsafe {
        if ffi::lua_gettop(l) != 1 || ffi::lua_type(l, 1) != ffi::LUA_TSTRING {
            return full(l);
        }
        let mut len = 0usize;
        let p = ffi::lua_tolstring(l, 1, &mut len);
        // SAFETY: Lua's string stays on the stack (argument 1) for the whole call
        let Ok(name) = std::str::from_utf8(std::slice::from_raw_parts(p.cast::<u8>(), len)) else {
            return full(l);
        };
        let done = guarded(l, "MGEN_region_begin", || {
            with_part(l, |w| {
                w.region_begin(name);
                Some(())
            })
        });
        match done {
            Some(()) => 0,
            None => full(l),
        }
    }
}

/// `MGEN_region_end()`: the rank's innermost region closes.
unsafe extern "C-unwind" fn region_end(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function.
    unsafe {
        if ffi::lua_gettop(l) != 0 {
            return full(l);
        }
        let done = guarded(l, "MGEN_region_end", || {
            with_part(l, |w| w.region_end().ok())
        });
        match done {
            Some(()) => 0,
            None => full(l),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The calls with a C function are those the API's table marks fast, and only the one
    /// made by nothing else lacks a full function.
    #[test]
    fn the_fast_functions_are_the_table_s() {
        let mut fast = Vec::new();
        for &c in Call::ALL {
            assert_eq!(
                function(c).is_some(),
                c.entry().fast == Fast::Yes,
                "{}",
                c.name()
            );
            if function(c).is_some() {
                fast.push(c.name());
            }
        }
        assert_eq!(fast.len(), 15, "{fast:?}");
        assert!(hands_on("MGEN_rdma_put") && hands_on("MGEN_Waitall"));
        assert!(!hands_on("MGEN_trace_next") && !hands_on("MGEN_Wtime"));
        assert!(!hands_on("MGEN_Test") && !hands_on("print"));
    }
}
