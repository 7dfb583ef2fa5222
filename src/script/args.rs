//! Decoding the API's arguments: each check once, each error naming the function, the
//! argument and the script line that made the call.

use crate::part::Part;
use mlua::{Lua, Value};

/// `file:line` of the script line that called the API: the first Lua frame from `level` up
/// that is not the engine's own prelude (whose wrappers sit between the script and Rust).
pub(super) fn location(lua: &Lua, level: usize) -> String {
    for l in level..level + 8 {
        let Some(d) = lua.inspect_stack(l) else { break };
        let src = d.source().short_src.unwrap_or_default().to_string();
        let line = d.curr_line();
        if line > 0 && src != "mgensim prelude" {
            return format!("{src}:{line}");
        }
    }
    String::new()
}

pub(super) fn error(lua: &Lua, level: usize, msg: String) -> mlua::Error {
    let at = location(lua, level);
    mlua::Error::RuntimeError(if at.is_empty() {
        msg
    } else {
        format!("{at}: {msg}")
    })
}

/// An integer argument; a float with an integral value is accepted, anything else is an error
/// that names the function and the argument.
pub(super) fn int_arg(
    lua: &Lua,
    level: usize,
    v: &Value,
    func: &str,
    arg: &str,
) -> mlua::Result<i64> {
    match v {
        Value::Integer(i) => Ok(*i),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => Ok(*n as i64),
        other => Err(error(
            lua,
            level,
            format!(
                "{func}: `{arg}` must be an integer, got {}",
                describe(other)
            ),
        )),
    }
}

pub(super) fn describe(v: &Value) -> String {
    match v {
        Value::Nil => "nil".into(),
        Value::Number(n) => format!("{n}"),
        Value::String(s) => format!("the string {:?}", s.to_string_lossy()),
        other => other.type_name().to_string(),
    }
}

/// A string argument, or an error naming the function and the argument.
pub(super) fn str_arg(lua: &Lua, v: &Value, func: &str, arg: &str) -> mlua::Result<String> {
    match v {
        Value::String(s) => Ok(s.to_str()?.to_string()),
        other => Err(error(
            lua,
            1,
            format!("{func}: `{arg}` must be a string, got {}", describe(other)),
        )),
    }
}

/// A rank of the job (`arg` names the argument), by the rule of `calls.rs`.
pub(super) fn rank_arg(
    lua: &Lua,
    v: &Value,
    func: &str,
    arg: &'static str,
    size: u32,
) -> mlua::Result<u32> {
    let r = int_arg(lua, 1, v, func, arg)?;
    crate::calls::rank(r, size, arg).map_err(|e| call_error(lua, 1, func, e))
}

/// The optional `nic` argument: an index among the node's NICs (None: the next in turn).
pub(super) fn nic_arg(
    lua: &Lua,
    v: Option<Value>,
    func: &str,
    nics: u32,
) -> mlua::Result<Option<u32>> {
    let n = match v {
        None | Some(Value::Nil) => None,
        Some(v) => Some(int_arg(lua, 1, &v, func, "nic")?),
    };
    crate::calls::nic(n, nics).map_err(|e| call_error(lua, 1, func, e))
}

/// A refused value as a Lua error: the function's name, then what `calls.rs` says, with the
/// script line (from `level` up).
pub(super) fn call_error(
    lua: &Lua,
    level: usize,
    func: &str,
    e: crate::calls::CallError,
) -> mlua::Error {
    error(lua, level, format!("{func}: {e}"))
}

/// The running rank's job: its first global rank, its size, and NICs per node.
pub(super) fn job_span(w: &Part) -> (u32, u32, u32) {
    let j = w.nodes.job(w.current);
    (j.base, j.size, w.nodes.nics_per_node)
}

/// Argument `bytes` of `func`: a size of one transfer, at most `max` (the partition's
/// [`crate::part::Part::max_bytes`]).
pub(super) fn bytes_arg(lua: &Lua, v: &Value, func: &str, max: u64) -> mlua::Result<u64> {
    let b = int_arg(lua, 1, v, func, "bytes")?;
    crate::calls::bytes(b, max).map_err(|e| call_error(lua, 1, func, e))
}
