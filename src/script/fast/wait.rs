//! The fast path's waits on message requests (`MGEN_Wait`, `MGEN_Waitall`): C functions as
//! those of `fast.rs` (its module doc says the rules), which yield the rank themselves and go
//! on in a continuation once the engine resumes it.

use super::{busy, full, guarded, int, raise_at, with_part};
use crate::api::Call;
use crate::calls;
use crate::probe::profile::Api;
use mlua::ffi::{self, lua_State};
use std::ffi::c_int;

/// Counts a call of `api` (`MGEN_Wait`, `MGEN_Waitall`) in the profile: once per call the
/// script made, here where it begins (the full function it may fall back on counts nothing;
/// neither does a wait taken up again when the rank resumes, nor each request of a list).
unsafe fn counted(l: *mut lua_State, api: Api) {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues.
    unsafe {
        guarded(l, api.name(), || {
            with_part(l, |w| {
                w.profile_call(api, 0);
                Some(())
            })
        });
    }
}

/// What waiting for one request came to.
enum Waited {
    Done(crate::part::StatusValues),
    /// Not complete: the rank now waits for it.
    Blocked,
    Refused(calls::CallError),
    /// The part was busy (only in a bug of ours).
    Busy,
}

unsafe fn wait_one(l: *mut lua_State, call: Call, request: i64) -> Waited {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues.
    unsafe {
        let r = guarded(l, call.name(), || {
            with_part(l, |w| Some(w.wait_request(request, call, true)))
        });
        match r {
            Some(Ok(Some(st))) => Waited::Done(st),
            Some(Ok(None)) => Waited::Blocked,
            Some(Err(e)) => Waited::Refused(e),
            None => Waited::Busy,
        }
    }
}

/// Pushes `{ source = , tag = , bytes = }`, the table the full functions return.
unsafe fn push_status(l: *mut lua_State, (source, tag, bytes): crate::part::StatusValues) {
    // SAFETY: `l` is a live state with room for the table and one value (`LUA_MINSTACK`).
    unsafe {
        ffi::lua_createtable(l, 0, 3);
        ffi::lua_pushinteger(l, source);
        ffi::lua_setfield(l, -2, c"source".as_ptr());
        ffi::lua_pushinteger(l, tag);
        ffi::lua_setfield(l, -2, c"tag".as_ptr());
        ffi::lua_pushinteger(l, bytes);
        ffi::lua_setfield(l, -2, c"bytes".as_ptr());
    }
}

/// Whether argument 2, MGEN_STATUS_IGNORE (`false`) or nothing, asks for no status; anything
/// else is an error (raised before anything is used up).
unsafe fn ignores_status(l: *mut lua_State, func: &str) -> bool {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; index 2 may be absent (`LUA_TNONE`), which `lua_type` allows.
    unsafe {
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
}

/// Returns the status of a wait (nothing with MGEN_STATUS_IGNORE, argument 2).
unsafe fn return_status(l: *mut lua_State, st: crate::part::StatusValues) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; argument 2 is read as `ignores_status` checked it.
    unsafe {
        if ffi::lua_toboolean(l, 2) == 0 && ffi::lua_type(l, 2) == ffi::LUA_TBOOLEAN {
            return 0;
        }
        push_status(l, st);
        1
    }
}

/// `MGEN_Wait(request, status?)`: its status, once it has completed (the rank waits until
/// then); nothing with MGEN_STATUS_IGNORE.
pub(super) unsafe extern "C-unwind" fn wait(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function; the yield carries the request in its context to `wait_resumed`.
    unsafe {
        counted(l, Api::Wait);
        let n = ffi::lua_gettop(l);
        if !(1..=2).contains(&n) {
            return full(l);
        }
        ignores_status(l, "MGEN_Wait");
        let Some(request) = int(l, 1) else {
            return full(l);
        };
        match wait_one(l, Call::Wait, request) {
            Waited::Done(st) => return_status(l, st),
            Waited::Blocked => {
                ffi::lua_yieldk(l, 0, request as ffi::lua_KContext, Some(wait_resumed))
            }
            // (the message is used up: raised here)
            Waited::Refused(e @ calls::CallError::Truncated { .. }) => raise_at(l, "MGEN_Wait", e),
            // (nothing was used up: the full function refuses it again, and says why)
            Waited::Refused(_) | Waited::Busy => full(l),
        }
    }
}

/// `MGEN_Wait` once the engine has resumed the rank: the request has completed.
unsafe extern "C-unwind" fn wait_resumed(
    l: *mut lua_State,
    _status: c_int,
    ctx: ffi::lua_KContext,
) -> c_int {
    // SAFETY: Lua runs this continuation on the state that yielded, with the stack as the yield
    // left it and the upvalues of the closure that yielded; `ctx` is the request `wait` yielded
    // with.
    unsafe {
        let request = ctx as i64;
        match wait_one(l, Call::Wait, request) {
            Waited::Done(st) => return_status(l, st),
            Waited::Blocked => ffi::lua_yieldk(l, 0, ctx, Some(wait_resumed)),
            Waited::Refused(e) => raise_at(l, "MGEN_Wait", e),
            Waited::Busy => busy(l, "MGEN_Wait"),
        }
    }
}

/// `MGEN_Waitall(requests, statuses?)`: their statuses, in order, once all have completed;
/// nothing with MGEN_STATUS_IGNORE. The list is checked before any request is used up (a value
/// that is not an integer goes to the full function); the statuses table (or nil) is the C
/// function's second stack slot, kept across yields.
pub(super) unsafe extern "C-unwind" fn waitall(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state Lua called this C closure on (made by `install`: upvalue 1 the
    // `Part`, 2 the full function), its arguments on the stack, with the `LUA_MINSTACK` free slots
    // Lua gives a C function; index 1 is checked to be a table without a metatable before
    // `lua_rawlen` and `lua_rawgeti` read it.
    unsafe {
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
}

/// Waits for requests `i..` of `MGEN_Waitall`'s list (stack: the list, the statuses).
unsafe fn waitall_from(l: *mut lua_State, first: ffi::lua_Integer) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; the stack is the list (1, a plain table) and the statuses (2, a table or nil), as
    // `waitall` and `waitall_resumed` leave it.
    unsafe {
        let n = ffi::lua_rawlen(l, 1) as ffi::lua_Integer;
        for i in first..=n {
            ffi::lua_rawgeti(l, 1, i);
            let request = ffi::lua_tointegerx(l, -1, std::ptr::null_mut());
            ffi::lua_pop(l, 1);
            match wait_one(l, Call::Waitall, request) {
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
                Waited::Refused(e)
                    if i == 1 && !matches!(e, calls::CallError::Truncated { .. }) =>
                {
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
}

/// The full `MGEN_Waitall` with the list and the status argument on the stack.
unsafe fn full_waitall(l: *mut lua_State) -> c_int {
    // SAFETY: `l` is the state of the C closure that called this (see `install`), with its
    // upvalues; the stack holds the list and the statuses slot.
    unsafe {
        let ignore = ffi::lua_type(l, 2) == ffi::LUA_TNIL;
        ffi::lua_settop(l, 1);
        if ignore {
            ffi::lua_pushboolean(l, 0);
        }
        full(l)
    }
}

unsafe extern "C-unwind" fn waitall_resumed(
    l: *mut lua_State,
    _status: c_int,
    ctx: ffi::lua_KContext,
) -> c_int {
    // SAFETY: Lua runs this continuation on the state that yielded, with the stack as the yield
    // left it and the upvalues of the closure that yielded; `ctx` is the index `waitall_from`
    // yielded at, and slots 1 and 2 are its list and statuses.
    unsafe {
        ffi::lua_settop(l, 2);
        waitall_from(l, ctx as ffi::lua_Integer)
    }
}
