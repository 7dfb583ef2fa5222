//! What the prelude and the fast path need for trace replay beside the calls themselves
//! (`MGEN_trace_open`, `MGEN_trace_where`, `MGEN_trace_note` are the API's table's, their
//! operations in `ops.rs`; `MGEN_trace_next` is a C function of `fast.rs`; reference:
//! `lua/mgen.d.lua`): the datatypes' sizes and the actions' names.

use mlua::{Lua, Table};

/// Sets `raw.trace_sizes` and `raw.trace_names`.
pub(super) fn install(lua: &Lua, raw: &Table) -> mlua::Result<()> {
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
    raw.set("trace_names", names)
}
