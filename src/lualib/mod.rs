//! mgensim's own Lua as the engine loads it, below every layer that runs Lua: the library
//! compiled ahead of time (`precompiled.rs`), the rule that makes a module's file a chunk
//! (`module_text.rs`, shared with `build.rs`) and a scenario's TOML values as Lua values
//! (`toml_to_lua`). The ranks' states (`script/`) and the replay's look at a trace before the
//! run (`replay/check.rs`) both use it.

mod module_text;
pub(crate) mod precompiled;

use mlua::{Lua, Value};

/// The scenario's `args` as a Lua value (dates become strings).
pub(crate) fn toml_to_lua(lua: &Lua, v: &toml::Value) -> mlua::Result<Value> {
    Ok(match v {
        toml::Value::String(s) => Value::String(lua.create_string(s)?),
        toml::Value::Integer(i) => Value::Integer(*i),
        toml::Value::Float(x) => Value::Number(*x),
        toml::Value::Boolean(b) => Value::Boolean(*b),
        toml::Value::Datetime(d) => Value::String(lua.create_string(d.to_string())?),
        toml::Value::Array(a) => {
            let t = lua.create_table_with_capacity(a.len(), 0)?;
            for (i, x) in a.iter().enumerate() {
                t.raw_set(i + 1, toml_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
        toml::Value::Table(m) => {
            let t = lua.create_table_with_capacity(0, m.len())?;
            for (k, x) in m {
                t.raw_set(k.as_str(), toml_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}
