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
    w.job_span()
}

/// Argument `bytes` of `func`: a size of one transfer, at most `max` (the partition's
/// [`crate::part::Part::max_bytes`]).
pub(super) fn bytes_arg(lua: &Lua, v: &Value, func: &str, max: u64) -> mlua::Result<u64> {
    let b = int_arg(lua, 1, v, func, "bytes")?;
    crate::calls::bytes(b, max).map_err(|e| call_error(lua, 1, func, e))
}

/// Most arguments a call of the table takes (`MGEN_Sendrecv`'s six).
pub(super) const MOST: usize = 6;

/// An argument's value as its rule decoded it (`api::Rule`).
#[derive(Clone, Debug, Default)]
pub(super) enum Val {
    /// Left out (an optional argument), or kept by no rule (`Comm`, `StatusIgnore`).
    #[default]
    Absent,
    /// An integer (a tag, a handle, a request; a receive's source: a rank of the job or
    /// `MGEN_ANY_SOURCE`).
    Int(i64),
    /// A rank of the caller's job (numbered in the job).
    Rank(u32),
    Bytes(u64),
    Nic(Option<u32>),
    Num(f64),
    Str(String),
    /// A value handed on as it is (a list, a function, a file name).
    Lua(Value),
}

/// What a call's operation is given: its arguments, decoded, by place.
pub(super) struct Args(pub(super) [Val; MOST]);

impl Args {
    /// Argument `i`, an integer (a left-out one: `or`).
    pub(super) fn int_or(&self, i: usize, or: i64) -> i64 {
        match self.0[i] {
            Val::Int(v) => v,
            Val::Absent => or,
            ref v => mismatch(i, v),
        }
    }
    pub(super) fn int(&self, i: usize) -> i64 {
        match self.0[i] {
            Val::Int(v) => v,
            ref v => mismatch(i, v),
        }
    }
    pub(super) fn rank(&self, i: usize) -> u32 {
        match self.0[i] {
            Val::Rank(v) => v,
            ref v => mismatch(i, v),
        }
    }
    pub(super) fn bytes(&self, i: usize) -> u64 {
        match self.0[i] {
            Val::Bytes(v) => v,
            ref v => mismatch(i, v),
        }
    }
    pub(super) fn nic(&self, i: usize) -> Option<u32> {
        match self.0[i] {
            Val::Nic(v) => v,
            Val::Absent => None,
            ref v => mismatch(i, v),
        }
    }
    pub(super) fn num(&self, i: usize) -> f64 {
        match self.0[i] {
            Val::Num(v) => v,
            ref v => mismatch(i, v),
        }
    }
    pub(super) fn take_str(&mut self, i: usize) -> String {
        match std::mem::replace(&mut self.0[i], Val::Absent) {
            Val::Str(s) => s,
            ref v => mismatch(i, v),
        }
    }
    pub(super) fn lua(&self, i: usize) -> &Value {
        match &self.0[i] {
            Val::Lua(v) => v,
            v => mismatch(i, v),
        }
    }
}

/// An operation asked for an argument its rule does not give: the table (`api/mod.rs`) and
/// the operation (`ops.rs`) disagree, a bug of ours.
#[cold]
fn mismatch(i: usize, v: &Val) -> ! {
    panic!(
        "argument {} decoded as {v:?}: the API's table and the operation disagree",
        i + 1
    )
}

/// Decodes the arguments `values` of a call by the rules of `args` (its entry's), in order:
/// the first that breaks its rule is an error naming the function `func` (the call the script
/// made), the argument and the script line.
pub(super) fn decode(
    lua: &Lua,
    w: &std::cell::RefCell<Part>,
    func: &str,
    args: &[crate::api::Arg],
    values: [Option<Value>; MOST],
) -> mlua::Result<Args> {
    use crate::api::Rule;
    let (size, nics, max) = {
        let w = w.borrow();
        let (_, size, nics) = job_span(&w);
        (size, nics, w.max_bytes())
    };
    let mut out = Args(Default::default());
    for ((a, v), slot) in args.iter().zip(values).zip(out.0.iter_mut()) {
        if a.optional && matches!(v, None | Some(Value::Nil)) {
            continue;
        }
        let v = v.unwrap_or(Value::Nil);
        let int = |v: &Value| int_arg(lua, 1, v, func, a.name);
        let rule =
            |r: Result<i64, crate::calls::CallError>| r.map_err(|e| call_error(lua, 1, func, e));
        *slot = match a.rule {
            Rule::Rank => Val::Rank(rank_arg(lua, &v, func, a.name, size)?),
            Rule::RankOrAny => match v {
                Value::Integer(crate::mpi::ANY_SOURCE) => Val::Int(crate::mpi::ANY_SOURCE),
                ref v => Val::Int(rank_arg(lua, v, func, a.name, size)? as i64),
            },
            Rule::Bytes => Val::Bytes(bytes_arg(lua, &v, func, max)?),
            Rule::Int | Rule::Handle | Rule::Request => Val::Int(int(&v)?),
            Rule::SendTag => Val::Int(rule(crate::calls::send_tag(int(&v)?))?),
            Rule::RecvTag => Val::Int(rule(crate::calls::recv_tag(int(&v)?))?),
            Rule::Nic => Val::Nic(nic_arg(lua, Some(v), func, nics)?),
            Rule::Seconds | Rule::Finite => Val::Num(number(lua, &v, func, a)?),
            Rule::Name => Val::Str(str_arg(lua, &v, func, a.name)?),
            Rule::Path => match v {
                Value::String(_) => Val::Lua(v),
                ref other => {
                    let got = describe(other);
                    let msg = format!(
                        "{func}: `{}` must be a file name (a string), got {got}",
                        a.name
                    );
                    return Err(error(lua, 1, msg));
                }
            },
            Rule::Requests | Rule::Function | Rule::Rest => Val::Lua(v),
            Rule::Comm | Rule::StatusIgnore => Val::Absent,
        };
    }
    Ok(out)
}

/// A number argument: seconds (any number: the operation says what is out of range) or a
/// finite number.
fn number(lua: &Lua, v: &Value, func: &str, a: &crate::api::Arg) -> mlua::Result<f64> {
    let finite = a.rule == crate::api::Rule::Finite;
    match *v {
        Value::Integer(i) => Ok(i as f64),
        Value::Number(n) if !finite || n.is_finite() => Ok(n),
        ref other => Err(error(
            lua,
            1,
            format!(
                "{func}: `{}` must be a {}number, got {}",
                a.name,
                if finite { "finite " } else { "" },
                describe(other)
            ),
        )),
    }
}
