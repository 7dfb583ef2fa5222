//! The file functions scripts call (`io.open`, `io.lines`) and what the prelude's `loadfile`,
//! `dofile` and `require` read through: every decision of the sandbox is made here, on values
//! no script can reach (`files.rs` has the rules).

use super::args::{describe, error};
use crate::files::FileAccess;
use mlua::{Function, Lua, MultiValue, Table, Value};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A file name argument (a string, or a number as Lua would take it).
pub(super) fn name_arg(lua: &Lua, v: &Value, func: &str) -> mlua::Result<String> {
    match v {
        Value::String(s) => Ok(s.to_str()?.to_string()),
        Value::Integer(i) => Ok(i.to_string()),
        other => Err(error(
            lua,
            1,
            format!(
                "{func}: the file name must be a string, got {}",
                describe(other)
            ),
        )),
    }
}

/// The file functions scripts call (`io.open`, `io.lines`) and what the prelude's `loadfile`,
/// `dofile` and `require` read through (`raw.source`, `raw.find_module`): every decision of
/// the sandbox is made here, on values no script can reach (`files.rs` has the rules).
pub(super) fn files_api(
    lua: &Lua,
    raw: &Table,
    files: FileAccess,
    module_dirs: Vec<PathBuf>,
) -> mlua::Result<()> {
    let io: Table = lua.globals().get("io")?;
    let (real_open, real_lines): (Function, Function) = (io.get("open")?, io.get("lines")?);
    let files = Rc::new(files);
    let fa = files.clone();
    raw.set(
        "open",
        lua.create_function(move |lua, (name, mode): (Value, Value)| {
            let name = name_arg(lua, &name, "io.open")?;
            let mode = match &mode {
                Value::Nil => "r".to_string(),
                Value::String(s) => s.to_str()?.to_string(),
                other => {
                    return Err(error(
                        lua,
                        1,
                        format!(
                            "io.open: the mode must be a string, got {}",
                            describe(other)
                        ),
                    ))
                }
            };
            if fa.sandboxed() && mode != "r" && mode != "rb" {
                return Err(error(
                    lua,
                    1,
                    format!(
                        "sandbox: io.open({name:?}, {mode:?}): only reading (mode \"r\") is \
                         allowed in a scenario's script; writing files is not \
                         (mgensim run --allow-io lifts the sandbox)"
                    ),
                ));
            }
            let path = fa.resolve(&name).map_err(|m| error(lua, 1, m))?;
            real_open.call::<MultiValue>((path_string(lua, &path)?, mode))
        })?,
    )?;
    let fa = files.clone();
    raw.set(
        "lines",
        lua.create_function(move |lua, args: MultiValue| {
            let mut args = args.into_vec();
            let name = args.first().cloned().unwrap_or(Value::Nil);
            if name.is_nil() {
                if fa.sandboxed() {
                    return Err(error(
                        lua,
                        1,
                        "sandbox: io.lines() reads standard input, which a scenario's script \
                         may not (mgensim run --allow-io lifts the sandbox)"
                            .into(),
                    ));
                }
                return real_lines.call::<MultiValue>(MultiValue::from_vec(args));
            }
            let name = name_arg(lua, &name, "io.lines")?;
            let path = fa.resolve(&name).map_err(|m| error(lua, 1, m))?;
            args[0] = path_string(lua, &path)?;
            real_lines.call::<MultiValue>(MultiValue::from_vec(args))
        })?,
    )?;
    // (text, name) of a chunk to load, or (nil, message) if it cannot be read
    let fa = files.clone();
    raw.set(
        "source",
        lua.create_function(move |lua, name: Value| {
            if name.is_nil() {
                if fa.sandboxed() {
                    return Err(error(
                        lua,
                        2,
                        "sandbox: loadfile() and dofile() without a file name read standard \
                         input, which a scenario's script may not (mgensim run --allow-io lifts \
                         the sandbox)"
                            .into(),
                    ));
                }
                let mut text = String::new();
                use std::io::Read;
                std::io::stdin()
                    .take(crate::files::MAX_SOURCE)
                    .read_to_string(&mut text)
                    .map_err(|e| error(lua, 2, format!("cannot read standard input: {e}")))?;
                return Ok((Some(text), "stdin".to_string()));
            }
            let name = name_arg(lua, &name, "loadfile")?;
            match fa.read_source(&name) {
                Ok((text, path)) => Ok((Some(text), path.display().to_string())),
                Err(m) if m.starts_with("sandbox:") => Err(error(lua, 2, m)),
                Err(m) => Ok((None, m)),
            }
        })?,
    )?;
    // the file of module `name` on the search path and whether it is mgensim's own library
    // (an error says where it was looked for)
    let fa = files;
    let library = crate::files::library_dir().canonicalize().ok();
    raw.set(
        "find_module",
        lua.create_function(move |lua, name: String| {
            let rel = name.replace('.', "/");
            let mut tried = String::new();
            for d in &module_dirs {
                for cand in [d.join(format!("{rel}.lua")), d.join(&rel).join("init.lua")] {
                    let shown = cand.display().to_string();
                    if let Ok(p) = fa.resolve(&shown) {
                        if p.is_file() {
                            let lib = library.as_ref().is_some_and(|l| p.starts_with(l));
                            return Ok((Some(p.display().to_string()), Some(lib)));
                        }
                    }
                    tried += &format!("\n\tno file '{shown}'");
                }
            }
            Err(error(lua, 2, format!("module '{name}' not found:{tried}")))
        })?,
    )?;
    Ok(())
}

fn path_string(lua: &Lua, p: &Path) -> mlua::Result<Value> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(Value::String(lua.create_string(p.as_os_str().as_bytes())?))
    }
    #[cfg(not(unix))]
    {
        Ok(Value::String(lua.create_string(p.display().to_string())?))
    }
}
