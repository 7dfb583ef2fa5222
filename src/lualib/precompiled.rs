//! mgensim's own Lua compiled ahead of time (`build.rs`): the prelude and the library modules
//! under `lua/mgen/`, as Lua bytecode with their debug information.
//!
//! Parsing that Lua (about 60 KB) was half of the instructions of a small replay. A chunk is
//! used only when its name (`@` and the module's canonical path) and its source are exactly
//! the ones `build.rs` compiled: a library edited since the build, or read from another folder
//! (`MGENSIM_LUA_DIR`), is parsed from its text as before. Bytecode that this Lua refuses (a
//! build for another platform) is parsed from its text as well, so the fallback decides
//! nothing differently: the same source makes the same function, and tracebacks name the same
//! files and lines.

use super::module_text::wrap_module;
use mlua::{ChunkMode, Function, Lua, Table};

/// One compiled chunk: what it was compiled from, and the bytecode.
struct Chunk {
    name: &'static str,
    source: &'static str,
    code: &'static [u8],
}

static CHUNKS: &[Chunk] = include!(concat!(env!("OUT_DIR"), "/precompiled.rs"));

/// The bytecode of `source` compiled under `name`, if `build.rs` compiled exactly that.
fn find(name: &str, source: &str) -> Option<&'static [u8]> {
    CHUNKS
        .iter()
        .find(|c| c.name == name && c.source == source && !c.code.is_empty())
        .map(|c| c.code)
}

/// Loads `source` as the chunk `name` (`=...` or `@file`) in `env` (or the globals): from its
/// bytecode when it is one compiled ahead, from `text` (the source as compiled) otherwise.
pub(crate) fn load(
    lua: &Lua,
    name: &str,
    source: &str,
    text: impl FnOnce() -> String,
    env: Option<Table>,
) -> mlua::Result<Function> {
    fn named<'a>(c: mlua::Chunk<'a>, name: &str, env: &Option<Table>) -> mlua::Chunk<'a> {
        match env {
            Some(e) => c.set_name(name).set_environment(e.clone()),
            None => c.set_name(name),
        }
    }
    if let Some(code) = find(name, source) {
        let f = named(lua.load(code), name, &env).set_mode(ChunkMode::Binary);
        if let Ok(f) = f.into_function() {
            return Ok(f);
        }
    }
    named(lua.load(text()), name, &env)
        .set_mode(ChunkMode::Text)
        .into_function()
}

/// The function a module file of mgensim's library (`text`, read from `path`, a canonical
/// path) compiles to, `function(_ENV, ...)`: from its bytecode when it is the one compiled
/// ahead (for a look at the library outside a run: `replay/check.rs`).
pub(crate) fn module(lua: &Lua, path: &std::path::Path, text: &str) -> mlua::Result<Function> {
    let name = format!("@{}", path.display());
    load(lua, &name, text, || wrap_module(text), None)?.call(())
}

/// `raw.module_chunk(text, fname)`, for the prelude's `require`: the function a module's file
/// compiles to (`return function(_ENV, ...) <text> end`, in an empty environment), or nothing
/// when it does not compile (the prelude then reports the module's own syntax error).
pub(crate) fn install(lua: &Lua, raw: &Table) -> mlua::Result<()> {
    raw.set(
        "module_chunk",
        lua.create_function(|lua, (text, fname): (mlua::String, String)| {
            let text = text.to_str()?;
            let name = format!("@{fname}");
            let env = lua.create_table()?;
            Ok(load(lua, &name, &text, || wrap_module(&text), Some(env)).ok())
        })?,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prelude and every library module are compiled ahead, and each chunk gives the same
    /// function as its text: the same result and the same line in an error's message.
    #[test]
    fn the_library_is_compiled_ahead_and_loads_as_its_text_does() {
        let names: Vec<&str> = CHUNKS.iter().map(|c| c.name).collect();
        assert!(names.contains(&"=mgensim prelude"), "{names:?}");
        for m in ["coll", "replay", "util", "tracerp"] {
            assert!(
                names
                    .iter()
                    .any(|n| n.ends_with(&format!("/lua/mgen/{m}.lua"))),
                "{m} missing from {names:?}"
            );
        }
        for c in CHUNKS {
            assert!(!c.code.is_empty(), "{} did not compile", c.name);
            assert_eq!(find(c.name, c.source), Some(c.code));
        }
        // an edited source is not the one compiled
        let c = &CHUNKS[1];
        assert_eq!(find(c.name, &format!("{} ", c.source)), None);
        assert_eq!(find("@elsewhere.lua", c.source), None);

        // each chunk is what this Lua makes of the text the engine would parse otherwise
        let lua = Lua::new();
        for c in CHUNKS {
            let text = if c.name.starts_with('@') {
                wrap_module(c.source)
            } else {
                c.source.to_string()
            };
            let parsed = lua.load(text).set_name(c.name).into_function().unwrap();
            assert!(
                parsed.dump(false) == c.code,
                "{} differs from its text",
                c.name
            );
            load(&lua, c.name, c.source, || unreachable!(), None).unwrap();
        }
    }
}
