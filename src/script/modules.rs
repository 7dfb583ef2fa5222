//! `require`'s fast path (see `prelude.lua` for how modules are loaded and shared).

use super::args::error;
use crate::part::Part;
use mlua::{Function, Lua, Table, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// `require`, as a C function: a module the rank can have without loading anything (a
/// standard library, a library module its job has loaded, a module of its own it has loaded
/// before) is looked up here, with no Lua frame on the rank's stack (a Lua wrapper would grow
/// every rank's stack past its first 40 slots: 640 bytes a rank). Anything else goes to the
/// prelude's `require_slow`, which loads the module (see `prelude.lua`).
pub(super) fn install_require(
    lua: &Lua,
    globals: &Table,
    raw: &Table,
    part: Rc<RefCell<Part>>,
    slow: Function,
    job_firsts: Vec<u32>,
) -> mlua::Result<()> {
    let std: Table = raw.get("std_modules")?;
    let jobs: Table = raw.get("job_modules")?;
    let ranks: Table = raw.get("rank_modules")?;
    let require = lua.create_function(move |lua, name: Value| {
        let i = part.borrow().current();
        if let Value::String(_) = &name {
            let v: Value = std.raw_get(&name)?;
            if !v.is_nil() {
                return Ok(v);
            }
            let j = job_firsts.iter().rposition(|&f| i >= f).unwrap_or(0) + 1;
            let v: Value = jobs.raw_get::<Table>(j)?.raw_get(&name)?;
            if !v.is_nil() {
                return Ok(v);
            }
            if let Value::Table(mine) = ranks.raw_get::<Value>(i)? {
                let v: Value = mine.raw_get(&name)?;
                if !v.is_nil() {
                    return Ok(v);
                }
            }
        }
        let (v, err): (Value, Option<String>) = slow.call((name, i))?;
        match err {
            Some(e) => Err(error(lua, 1, e)),
            None => Ok(v),
        }
    })?;
    globals.raw_set("require", require)
}
