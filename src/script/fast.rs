//! The hottest API calls as raw Lua C functions: RDMA (`MGEN_rdma_put`, `MGEN_rdma_get`,
//! `MGEN_rdma_poll`, `MGEN_acp_complete`), messages (`MGEN_Isend`, `MGEN_Irecv`,
//! `MGEN_Wait`, `MGEN_Waitall`), `MGEN_Comp`, `MGEN_Comm_rank`, `MGEN_Comm_size` and the
//! regions (`MGEN_region_begin`, `MGEN_region_end`), which every collective of `mgen.coll`
//! calls.
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

use crate::calls;
use crate::part::Part;
use crate::probe::profile::Api;
use crate::rank::Call;
use crate::rdma::OpKind;
use mlua::ffi::{self, lua_State};
use mlua::{Function, Lua};
use std::cell::RefCell;
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

const WORLD: c_int = ffi::lua_upvalueindex(1);
const FULL: c_int = ffi::lua_upvalueindex(2);

/// Keeps the `Part` the fast functions point at alive as long as the Lua state (app data).
struct KeepPart(#[allow(dead_code)] Rc<RefCell<Part>>);

/// The functions this module makes fast, by their global names.
pub(super) const NAMES: [&str; 13] = [
    "MGEN_rdma_put",
    "MGEN_rdma_get",
    "MGEN_rdma_poll",
    "MGEN_acp_complete",
    "MGEN_Isend",
    "MGEN_Irecv",
    "MGEN_Wait",
    "MGEN_Waitall",
    "MGEN_Comp",
    "MGEN_Comm_rank",
    "MGEN_Comm_size",
    "MGEN_region_begin",
    "MGEN_region_end",
];

/// Replaces the globals of [`NAMES`] (installed by `api.rs` and the prelude) with their fast
/// versions, and sets `MGEN_trace_next` ([`trace_next`], whose second upvalue is the actions'
/// names, `trace_names`, in place of a full function).
pub(super) fn install(
    lua: &Lua,
    world: &Rc<RefCell<Part>>,
    trace_names: mlua::Table,
) -> mlua::Result<()> {
    let ptr = Rc::as_ptr(world) as *mut std::ffi::c_void;
    lua.set_app_data(KeepPart(world.clone()));
    let globals = lua.globals();
    let fast: [ffi::lua_CFunction; 13] = [
        rdma_put,
        rdma_get,
        rdma_poll,
        acp_complete,
        isend,
        irecv,
        wait,
        waitall,
        comp,
        comm_rank,
        comm_size,
        region_begin,
        region_end,
    ];
    for (name, f) in NAMES.into_iter().zip(fast) {
        let full: Function = globals.get(name)?;
        globals.set(name, closure(lua, ptr, f, full)?)?;
    }
    globals.set(
        "MGEN_trace_next",
        closure(lua, ptr, trace_next, trace_names)?,
    )
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
        with_world(l, |w| {
            let me = w.current;
            let next = w.replays.next(me).map(|a| {
                a.map(|a| {
                    args.clear();
                    args.extend_from_slice(a.args);
                    text.clear();
                    text.push_str(a.text);
                    (a.kind, a.comm)
                })
            });
            if let (Some(p), Ok(a)) = (w.profile.as_deref_mut(), &next) {
                let t = w.ranks[me as usize].clock.ps();
                p.action(me, a.map(|a| a.0), t);
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

/// Argument `i` if it is a Lua integer.
#[inline]
unsafe fn int(l: *mut lua_State, i: c_int) -> Option<i64> {
    (ffi::lua_isinteger(l, i) != 0).then(|| ffi::lua_tointegerx(l, i, std::ptr::null_mut()))
}

/// Runs `f` on the world, unless something holds it already (`None`: the full function then
/// says what). The borrow lasts for `f` only.
#[inline]
unsafe fn with_world<T>(l: *mut lua_State, f: impl FnOnce(&mut Part) -> Option<T>) -> Option<T> {
    let p = ffi::lua_touserdata(l, WORLD) as *const RefCell<Part>;
    // SAFETY: set by `install`; KeepPart keeps the RefCell alive as long as the state, and
    // this call runs on the state's thread
    let mut w = (*p).try_borrow_mut().ok()?;
    f(&mut w)
}

/// Runs `f` (the fast path: `None` sends the call to the full function); a panic in it, a bug
/// of ours, becomes a Lua error that names the function instead of unwinding through Lua's C.
#[inline]
unsafe fn guarded<T>(l: *mut lua_State, func: &str, f: impl FnOnce() -> Option<T>) -> Option<T> {
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

/// Raises `msg` as a Lua error. Nothing of ours with a destructor is alive below this frame
/// when Lua unwinds (longjmp) over it: the message is copied into Lua and dropped first.
#[cold]
unsafe fn raise(l: *mut lua_State, msg: String) -> ! {
    ffi::lua_pushlstring(l, msg.as_ptr().cast(), msg.len());
    drop(msg);
    ffi::lua_error(l)
}

/// Calls the full function with this call's arguments and returns what it returns; it may
/// yield (the prelude's wrappers do), hence the continuation.
#[cold]
unsafe fn full(l: *mut lua_State) -> c_int {
    let n = ffi::lua_gettop(l);
    ffi::lua_pushvalue(l, FULL);
    ffi::lua_insert(l, 1);
    ffi::lua_callk(l, n, ffi::LUA_MULTRET, 0, Some(full_done));
    ffi::lua_gettop(l)
}

/// After a yield in the full function: its results are the stack.
unsafe extern "C-unwind" fn full_done(
    l: *mut lua_State,
    _status: c_int,
    _ctx: ffi::lua_KContext,
) -> c_int {
    ffi::lua_gettop(l)
}

/// The arguments `(peer, bytes, tag, nic?)` of a post, if all are Lua integers (or the NIC
/// nil).
#[inline]
unsafe fn post_args(l: *mut lua_State) -> Option<(i64, i64, i64, Option<i64>)> {
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

/// Returns an integer (a post's handle, a rank), or hands the call to the full function.
#[inline]
unsafe fn push_int(l: *mut lua_State, value: Option<i64>) -> c_int {
    match value {
        Some(h) => {
            ffi::lua_pushinteger(l, h);
            1
        }
        None => full(l),
    }
}

/// `MGEN_rdma_put(dest, bytes, tag, nic?)` / `MGEN_rdma_get(src, bytes, tag, nic?)`: the
/// checks and the call of `api.rs`'s version, for integer arguments.
#[inline]
unsafe fn transfer(l: *mut lua_State, kind: OpKind, func: &str) -> c_int {
    let Some((peer, bytes, tag, nic)) = post_args(l) else {
        return full(l);
    };
    // (the rules of `calls.rs`, as the full function applies them; a refusal goes to it,
    // which raises the error)
    let handle = guarded(l, func, || {
        with_world(l, |w| {
            let (base, size, nics) = super::args::job_span(w);
            let peer = calls::rank(peer, size, "").ok()?;
            let bytes = calls::bytes(bytes, w.max_bytes).ok()?;
            let nic = calls::nic(nic, nics).ok()?;
            Some(w.issue(kind, base + peer, bytes, tag, nic))
        })
    });
    push_int(l, handle)
}

unsafe extern "C-unwind" fn rdma_put(l: *mut lua_State) -> c_int {
    transfer(l, OpKind::Put, "MGEN_rdma_put")
}

unsafe extern "C-unwind" fn rdma_get(l: *mut lua_State) -> c_int {
    transfer(l, OpKind::Get, "MGEN_rdma_get")
}

/// `MGEN_rdma_poll(tag)`: returns at once if a put with `tag` has arrived, else yields (the
/// rank now waits for one; `raw.poll` in `api.rs`).
unsafe extern "C-unwind" fn rdma_poll(l: *mut lua_State) -> c_int {
    let Some(tag) = (ffi::lua_gettop(l) == 1).then(|| int(l, 1)).flatten() else {
        return full(l);
    };
    let arrived = guarded(l, "MGEN_rdma_poll", || {
        with_world(l, |w| Some(calls::poll(w, tag)))
    });
    match arrived {
        Some(true) => 0,
        Some(false) => ffi::lua_yield(l, 0),
        None => full(l),
    }
}

/// `MGEN_acp_complete(handle)`: returns at once if the transfer is complete, else yields (the
/// rank now waits for it; `raw.complete` in `api.rs`).
unsafe extern "C-unwind" fn acp_complete(l: *mut lua_State) -> c_int {
    let Some(h) = (ffi::lua_gettop(l) == 1).then(|| int(l, 1)).flatten() else {
        return full(l);
    };
    let done = guarded(l, "MGEN_acp_complete", || {
        with_world(l, |w| {
            // (a refused handle is not marked used: the full function refuses it again, and
            // says why)
            let seq = calls::take_handle(w, h).ok()?;
            Some(calls::complete(w, seq))
        })
    });
    match done {
        Some(true) => 0,
        Some(false) => ffi::lua_yield(l, 0),
        None => full(l),
    }
}

/// Raises `msg` as the error of the function the script called, at the script's line (the
/// caller of this C function), as the full function's errors read.
#[cold]
unsafe fn raise_at(l: *mut lua_State, func: &str, e: calls::CallError) -> ! {
    let msg = format!("{func}: {e}");
    ffi::luaL_where(l, 1);
    ffi::lua_pushlstring(l, msg.as_ptr().cast(), msg.len());
    drop(msg);
    ffi::lua_concat(l, 2);
    ffi::lua_error(l)
}

/// `MGEN_Isend(dest, bytes, tag, nic?)`: the request's handle.
unsafe extern "C-unwind" fn isend(l: *mut lua_State) -> c_int {
    let Some((dest, bytes, tag, nic)) = post_args(l) else {
        return full(l);
    };
    let handle = guarded(l, "MGEN_Isend", || {
        with_world(l, |w| {
            let (_, size, nics) = super::args::job_span(w);
            let dest = calls::rank(dest, size, "dest").ok()?;
            let nic = calls::nic(nic, nics).ok()?;
            let bytes = calls::bytes(bytes, w.max_bytes).ok()?;
            let tag = calls::send_tag(tag).ok()?;
            Some(calls::isend(w, Api::Isend, dest, bytes, tag, nic))
        })
    });
    push_int(l, handle)
}

/// `MGEN_Irecv(src, bytes, tag)`: the request's handle.
unsafe extern "C-unwind" fn irecv(l: *mut lua_State) -> c_int {
    if ffi::lua_gettop(l) != 3 {
        return full(l);
    }
    let (Some(src), Some(bytes), Some(tag)) = (int(l, 1), int(l, 2), int(l, 3)) else {
        return full(l);
    };
    let handle = guarded(l, "MGEN_Irecv", || {
        with_world(l, |w| {
            let size = super::args::job_span(w).1;
            let src = if src == crate::mpi::ANY_SOURCE {
                src
            } else {
                calls::rank(src, size, "src").ok()? as i64
            };
            let bytes = calls::bytes(bytes, w.max_bytes).ok()?;
            let tag = calls::recv_tag(tag).ok()?;
            Some(calls::irecv(w, Api::Irecv, src, bytes, tag))
        })
    });
    push_int(l, handle)
}

/// Counts a call of `api` (`MGEN_Wait`, `MGEN_Waitall`) in the profile: once per call the
/// script made, here where it begins (the full function it may fall back on counts nothing;
/// neither does a wait taken up again when the rank resumes, nor each request of a list).
unsafe fn counted(l: *mut lua_State, api: Api) {
    guarded(l, api.name(), || {
        with_world(l, |w| {
            let me = w.current;
            w.profile.as_deref_mut().map(|p| p.call(me, api, 0))
        })
    });
}

/// What waiting for one request came to.
enum Waited {
    Done(calls::StatusValues),
    /// Not complete: the rank now waits for it.
    Blocked,
    Refused(calls::CallError),
    /// The world was busy (only in a bug of ours).
    Busy,
}

unsafe fn wait_one(l: *mut lua_State, func: &str, request: i64) -> Waited {
    let r = guarded(l, func, || {
        with_world(l, |w| {
            Some(calls::wait_request(w, request, Call::of(func), true))
        })
    });
    match r {
        Some(Ok(Some(st))) => Waited::Done(st),
        Some(Ok(None)) => Waited::Blocked,
        Some(Err(e)) => Waited::Refused(e),
        None => Waited::Busy,
    }
}

/// Pushes `{ source = , tag = , bytes = }`, the table the full functions return.
unsafe fn push_status(l: *mut lua_State, (source, tag, bytes): calls::StatusValues) {
    ffi::lua_createtable(l, 0, 3);
    ffi::lua_pushinteger(l, source);
    ffi::lua_setfield(l, -2, c"source".as_ptr());
    ffi::lua_pushinteger(l, tag);
    ffi::lua_setfield(l, -2, c"tag".as_ptr());
    ffi::lua_pushinteger(l, bytes);
    ffi::lua_setfield(l, -2, c"bytes".as_ptr());
}

/// Whether argument 2, MGEN_STATUS_IGNORE (`false`) or nothing, asks for no status; anything
/// else is an error (raised before anything is used up).
unsafe fn ignores_status(l: *mut lua_State, func: &str) -> bool {
    match ffi::lua_type(l, 2) {
        ffi::LUA_TNONE | ffi::LUA_TNIL => false,
        ffi::LUA_TBOOLEAN if ffi::lua_toboolean(l, 2) == 0 => true,
        t => {
            let name = match t {
                ffi::LUA_TBOOLEAN => "true",
                ffi::LUA_TNUMBER => "a number",
                ffi::LUA_TSTRING => "a string",
                ffi::LUA_TTABLE => "a table",
                ffi::LUA_TFUNCTION => "a function",
                _ => "a value of another type",
            };
            raise_at(l, func, calls::CallError::NotStatusIgnore(name))
        }
    }
}

/// Returns the status of a wait (nothing with MGEN_STATUS_IGNORE, argument 2).
unsafe fn return_status(l: *mut lua_State, st: calls::StatusValues) -> c_int {
    if ffi::lua_toboolean(l, 2) == 0 && ffi::lua_type(l, 2) == ffi::LUA_TBOOLEAN {
        return 0;
    }
    push_status(l, st);
    1
}

/// `MGEN_Wait(request, status?)`: its status, once it has completed (the rank waits until
/// then); nothing with MGEN_STATUS_IGNORE.
unsafe extern "C-unwind" fn wait(l: *mut lua_State) -> c_int {
    counted(l, Api::Wait);
    let n = ffi::lua_gettop(l);
    if !(1..=2).contains(&n) {
        return full(l);
    }
    ignores_status(l, "MGEN_Wait");
    let Some(request) = int(l, 1) else {
        return full(l);
    };
    match wait_one(l, "MGEN_Wait", request) {
        Waited::Done(st) => return_status(l, st),
        Waited::Blocked => ffi::lua_yieldk(l, 0, request as ffi::lua_KContext, Some(wait_resumed)),
        // (the message is used up: raised here)
        Waited::Refused(e @ calls::CallError::Truncated { .. }) => raise_at(l, "MGEN_Wait", e),
        // (nothing was used up: the full function refuses it again, and says why)
        Waited::Refused(_) | Waited::Busy => full(l),
    }
}

/// `MGEN_Wait` once the engine has resumed the rank: the request has completed.
unsafe extern "C-unwind" fn wait_resumed(
    l: *mut lua_State,
    _status: c_int,
    ctx: ffi::lua_KContext,
) -> c_int {
    let request = ctx as i64;
    match wait_one(l, "MGEN_Wait", request) {
        Waited::Done(st) => return_status(l, st),
        Waited::Blocked => ffi::lua_yieldk(l, 0, ctx, Some(wait_resumed)),
        Waited::Refused(e) => raise_at(l, "MGEN_Wait", e),
        Waited::Busy => busy(l, "MGEN_Wait"),
    }
}

#[cold]
unsafe fn busy(l: *mut lua_State, func: &str) -> ! {
    raise(
        l,
        format!("internal error in {func} (please report it): the engine's state is in use"),
    )
}

/// `MGEN_Waitall(requests, statuses?)`: their statuses, in order, once all have completed;
/// nothing with MGEN_STATUS_IGNORE. The list is checked before any request is used up (a value
/// that is not an integer goes to the full function); the statuses table (or nil) is the C
/// function's second stack slot, kept across yields.
unsafe extern "C-unwind" fn waitall(l: *mut lua_State) -> c_int {
    counted(l, Api::Waitall);
    let n = ffi::lua_gettop(l);
    if !(1..=2).contains(&n) {
        return full(l);
    }
    let ignore = ignores_status(l, "MGEN_Waitall");
    if ffi::lua_type(l, 1) != ffi::LUA_TTABLE {
        return full(l);
    }
    // (a list with a metatable may have its own length: the full function's `#`)
    if ffi::lua_getmetatable(l, 1) != 0 {
        ffi::lua_pop(l, 1);
        return full(l);
    }
    let n = ffi::lua_rawlen(l, 1) as ffi::lua_Integer;
    for i in 1..=n {
        ffi::lua_rawgeti(l, 1, i);
        let ok = ffi::lua_isinteger(l, -1) != 0;
        ffi::lua_pop(l, 1);
        if !ok {
            return full(l);
        }
    }
    ffi::lua_settop(l, 1);
    if ignore {
        ffi::lua_pushnil(l);
    } else {
        ffi::lua_createtable(l, n as c_int, 0);
    }
    waitall_from(l, 1)
}

/// Waits for requests `i..` of `MGEN_Waitall`'s list (stack: the list, the statuses).
unsafe fn waitall_from(l: *mut lua_State, first: ffi::lua_Integer) -> c_int {
    let n = ffi::lua_rawlen(l, 1) as ffi::lua_Integer;
    for i in first..=n {
        ffi::lua_rawgeti(l, 1, i);
        let request = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
        ffi::lua_pop(l, 1);
        match wait_one(l, "MGEN_Waitall", request) {
            Waited::Done(st) => {
                if ffi::lua_type(l, 2) == ffi::LUA_TTABLE {
                    push_status(l, st);
                    ffi::lua_rawseti(l, 2, i);
                }
            }
            Waited::Blocked => {
                return ffi::lua_yieldk(l, 0, i as ffi::lua_KContext, Some(waitall_resumed))
            }
            // the first request: nothing used up yet, the full function says why
            Waited::Refused(e) if i == 1 && !matches!(e, calls::CallError::Truncated { .. }) => {
                return full_waitall(l)
            }
            Waited::Refused(e) => raise_at(l, "MGEN_Waitall", e),
            Waited::Busy if i == 1 => return full_waitall(l),
            Waited::Busy => busy(l, "MGEN_Waitall"),
        }
    }
    // the statuses, or nothing
    if ffi::lua_type(l, 2) == ffi::LUA_TTABLE {
        1
    } else {
        0
    }
}

/// The full `MGEN_Waitall` with the list and the status argument on the stack.
unsafe fn full_waitall(l: *mut lua_State) -> c_int {
    let ignore = ffi::lua_type(l, 2) == ffi::LUA_TNIL;
    ffi::lua_settop(l, 1);
    if ignore {
        ffi::lua_pushboolean(l, 0);
    }
    full(l)
}

unsafe extern "C-unwind" fn waitall_resumed(
    l: *mut lua_State,
    _status: c_int,
    ctx: ffi::lua_KContext,
) -> c_int {
    ffi::lua_settop(l, 2);
    waitall_from(l, ctx as ffi::lua_Integer)
}

/// `MGEN_Comp(seconds)`: the rank computes for `seconds` (its clock advances).
unsafe extern "C-unwind" fn comp(l: *mut lua_State) -> c_int {
    if ffi::lua_gettop(l) != 1 || ffi::lua_type(l, 1) != ffi::LUA_TNUMBER {
        return full(l);
    }
    let seconds = ffi::lua_tonumberx(l, 1, std::ptr::null_mut());
    let done = guarded(l, "MGEN_Comp", || {
        with_world(l, |w| calls::compute(w, seconds).ok())
    });
    match done {
        Some(()) => 0,
        None => full(l),
    }
}

/// `MGEN_Comm_rank(comm?)`: the rank's number in its job.
unsafe extern "C-unwind" fn comm_rank(l: *mut lua_State) -> c_int {
    let r = guarded(l, "MGEN_Comm_rank", || {
        with_world(l, |w| Some(w.current - w.nodes.job(w.current).base))
    });
    push_int(l, r.map(i64::from))
}

/// `MGEN_Comm_size(comm?)`: the number of ranks of the rank's job.
unsafe extern "C-unwind" fn comm_size(l: *mut lua_State) -> c_int {
    let r = guarded(l, "MGEN_Comm_size", || {
        with_world(l, |w| Some(super::args::job_span(w).1))
    });
    push_int(l, r.map(i64::from))
}

/// `MGEN_region_begin(name)`: a region opens on the rank's timeline.
unsafe extern "C-unwind" fn region_begin(l: *mut lua_State) -> c_int {
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
        with_world(l, |w| {
            calls::region_begin(w, name);
            Some(())
        })
    });
    match done {
        Some(()) => 0,
        None => full(l),
    }
}

/// `MGEN_region_end()`: the rank's innermost region closes.
unsafe extern "C-unwind" fn region_end(l: *mut lua_State) -> c_int {
    if ffi::lua_gettop(l) != 0 {
        return full(l);
    }
    let done = guarded(l, "MGEN_region_end", || {
        with_world(l, |w| calls::region_end(w).ok())
    });
    match done {
        Some(()) => 0,
        None => full(l),
    }
}
