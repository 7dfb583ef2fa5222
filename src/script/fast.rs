//! The hottest API calls as raw Lua C functions: `MGEN_rdma_put`, `MGEN_rdma_get`,
//! `MGEN_rdma_poll` and `MGEN_acp_complete`.
//!
//! A barrier or an all-to-all is little more than these four calls, and through mlua each
//! one costs a protected call frame, argument conversion into `Value`s and, for the blocking
//! two, a Lua wrapper in the prelude that calls the engine and then `coroutine.yield`. Here
//! each is one C function that reads its integer arguments straight off the Lua stack, acts
//! on the [`World`] and, for a poll or a completion that must wait, yields the coroutine
//! itself (`lua_yield`, as `coroutine.yield` does).
//!
//! Each takes only the **common case**: arguments that are Lua integers and valid. Anything
//! else (a float, a string, a rank out of range, a used handle) goes to the function it
//! replaced, the **full** one (the mlua function or the prelude's wrapper), which accepts
//! integral floats and raises the error that names the function, the argument and the script
//! line. Both apply the rules of `calls.rs`, so the fast path decides nothing the full one
//! would decide differently, and every rule and message is written once.
//!
//! Each function is a C closure with two upvalues: the `World` (a light userdata: the
//! `RefCell` an `Rc` keeps alive as the Lua state's app data) and the full function.

use crate::calls;
use crate::rdma::OpKind;
use crate::world::World;
use mlua::ffi::{self, lua_State};
use mlua::{Function, Lua};
use std::cell::RefCell;
use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

const WORLD: c_int = ffi::lua_upvalueindex(1);
const FULL: c_int = ffi::lua_upvalueindex(2);

/// Keeps the `World` the fast functions point at alive as long as the Lua state (app data).
struct KeepWorld(#[allow(dead_code)] Rc<RefCell<World>>);

/// The functions this module makes fast, by their global names.
pub(super) const NAMES: [&str; 4] = [
    "MGEN_rdma_put",
    "MGEN_rdma_get",
    "MGEN_rdma_poll",
    "MGEN_acp_complete",
];

/// Replaces the four globals (installed by `api.rs` and the prelude) with their fast versions.
pub(super) fn install(lua: &Lua, world: &Rc<RefCell<World>>) -> mlua::Result<()> {
    let ptr = Rc::as_ptr(world) as *mut std::ffi::c_void;
    lua.set_app_data(KeepWorld(world.clone()));
    let globals = lua.globals();
    let fast: [ffi::lua_CFunction; 4] = [rdma_put, rdma_get, rdma_poll, acp_complete];
    for (name, f) in NAMES.into_iter().zip(fast) {
        let full: Function = globals.get(name)?;
        // SAFETY: pushes a light userdata and makes a closure of it and `full` (on the stack
        // as the call's argument); the pointer outlives the state (KeepWorld).
        let closure: Function = unsafe {
            lua.exec_raw(full, |l| {
                ffi::lua_pushlightuserdata(l, ptr);
                ffi::lua_insert(l, -2);
                ffi::lua_pushcclosure(l, f, 2);
            })?
        };
        globals.set(name, closure)?;
    }
    Ok(())
}

/// Argument `i` if it is a Lua integer.
#[inline]
unsafe fn int(l: *mut lua_State, i: c_int) -> Option<i64> {
    (ffi::lua_isinteger(l, i) != 0).then(|| ffi::lua_tointegerx(l, i, std::ptr::null_mut()))
}

/// Runs `f` on the world, unless something holds it already (`None`: the full function then
/// says what). The borrow lasts for `f` only.
#[inline]
unsafe fn with_world<T>(l: *mut lua_State, f: impl FnOnce(&mut World) -> Option<T>) -> Option<T> {
    let p = ffi::lua_touserdata(l, WORLD) as *const RefCell<World>;
    // SAFETY: set by `install`; KeepWorld keeps the RefCell alive as long as the state, and
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

/// `MGEN_rdma_put(dest, bytes, tag, nic?)` / `MGEN_rdma_get(src, bytes, tag, nic?)`: the
/// checks and the call of `api.rs`'s version, for integer arguments.
#[inline]
unsafe fn transfer(l: *mut lua_State, kind: OpKind, func: &str) -> c_int {
    let n = ffi::lua_gettop(l);
    if !(3..=4).contains(&n) {
        return full(l);
    }
    let (Some(peer), Some(bytes), Some(tag)) = (int(l, 1), int(l, 2), int(l, 3)) else {
        return full(l);
    };
    let nic = if n == 4 && ffi::lua_type(l, 4) != ffi::LUA_TNIL {
        match int(l, 4) {
            Some(x) => Some(x),
            None => return full(l),
        }
    } else {
        None
    };
    // (the rules of `calls.rs`, as the full function applies them; a refusal goes to it,
    // which raises the error)
    let handle = guarded(l, func, || {
        with_world(l, |w| {
            let (base, size, nics) = super::args::job_span(w);
            let peer = calls::rank(peer, size, "").ok()?;
            let bytes = calls::bytes(bytes).ok()?;
            let nic = calls::nic(nic, nics).ok()?;
            Some(w.issue(kind, base + peer, bytes, tag, nic))
        })
    });
    match handle {
        Some(h) => {
            ffi::lua_pushinteger(l, h);
            1
        }
        None => full(l),
    }
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
        with_world(l, |w| {
            let cur = w.current as usize;
            Some(w.ranks[cur].try_poll(tag))
        })
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
            let me = w.current as usize;
            Some(w.ranks[me].try_complete(seq))
        })
    });
    match done {
        Some(true) => 0,
        Some(false) => ffi::lua_yield(l, 0),
        None => full(l),
    }
}
