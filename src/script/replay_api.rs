//! Trace replay as the API (`MGEN_trace_open`, `MGEN_trace_where`, `MGEN_trace_note`; and
//! `MGEN_trace_next`, a C function of `fast.rs`; reference: `lua/mgen.d.lua`): each rank
//! reads its own trace through the run's [`crate::replay::Replays`], files checked by the
//! sandbox like any other a script reads.

use crate::files::FileAccess;
use crate::part::Part;
use mlua::{Lua, Table, Value};
use std::cell::RefCell;
use std::rc::Rc;

type W = Rc<RefCell<Part>>;

/// Installs the replay functions in `globals`.
pub(super) fn install(
    lua: &Lua,
    globals: &Table,
    raw: &Table,
    world: &W,
    files: FileAccess,
) -> mlua::Result<()> {
    let files = Rc::new(files);
    let f = world.clone();
    let access = files.clone();
    raw.set(
        "trace_open",
        lua.create_function(move |_, path: Value| {
            let Value::String(path) = path else {
                return Err(mlua::Error::runtime(
                    "MGEN_trace_open: the trace must be a file name (a string)",
                ));
            };
            let name = path.to_str()?.to_string();
            // (every rank of a job checks the same index: the sandbox keeps its folder's
            // canonical form, so each check after the first is one `lstat`)
            let index = access
                .resolve(&name)
                .map_err(|e| mlua::Error::runtime(format!("MGEN_trace_open: {e}")))?;
            let mut w = f.borrow_mut();
            let (job, me) = (w.nodes.job_index(w.current), w.current);
            let rank = me - w.nodes.job(me).base;
            let check = |p: &std::path::Path| access.resolve(&p.to_string_lossy());
            let ranks = w
                .replays
                .open(job, me, rank, &index, check)
                .map_err(|e| mlua::Error::runtime(format!("MGEN_trace_open: {e}")))?;
            Ok(ranks)
        })?,
    )?;
    // the bytes of each datatype number, indexed by the number: one table, which the prelude
    // gives every rank read-only with MGEN_trace_open
    let sizes = lua.create_table()?;
    let mut id = 0;
    while let Some(b) = crate::replay::datatype_bytes(id) {
        sizes.raw_set(id, b)?;
        id += 1;
    }
    raw.set("trace_sizes", sizes)?;
    // the actions' names, by number: `MGEN_trace_next` (script/fast.rs) returns them
    let names = lua.create_sequence_from(crate::replay::ACTIONS.iter().map(|a| a.0))?;
    raw.set("trace_names", names)?;
    let f = world.clone();
    globals.set(
        "MGEN_trace_where",
        lua.create_function(move |_, ()| {
            let w = f.borrow();
            Ok(w.replays.position(w.current).unwrap_or_default())
        })?,
    )?;
    let f = world.clone();
    globals.set(
        "MGEN_trace_note",
        lua.create_function(move |_, what: String| {
            let mut w = f.borrow_mut();
            let me = w.current;
            w.replays.note(me, &what).map_err(mlua::Error::runtime)
        })?,
    )?;
    Ok(())
}
