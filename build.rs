//! Compiles mgensim's own Lua (the prelude and the library under `lua/mgen/`) to Lua bytecode,
//! so that a run loads it rather than parsing 60 KB of Lua each time it starts (see
//! `src/lualib/precompiled.rs`, which uses a chunk only when its source is the one compiled
//! here, and parses the text otherwise).

#[path = "src/lualib/module_text.rs"]
mod module_text;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let prelude = manifest.join("src/script/prelude.lua");
    let library = manifest.join("lua/mgen");
    println!("cargo:rerun-if-changed={}", prelude.display());
    println!("cargo:rerun-if-changed={}", library.display());
    println!("cargo:rerun-if-changed=src/lualib/module_text.rs");

    let lua = mlua::Lua::new();
    // (chunk name, source text as read, compiled chunk)
    let mut chunks: Vec<(String, String, Vec<u8>)> = Vec::new();
    let text = read(&prelude);
    chunks.push((
        "=mgensim prelude".into(),
        text.clone(),
        compile(&lua, &text, "=mgensim prelude"),
    ));
    // library modules, named as the engine names them: "@" and the file's canonical path
    let mut files: Vec<PathBuf> = std::fs::read_dir(&library)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.extension().is_some_and(|e| e == "lua") && !p.to_string_lossy().ends_with(".d.lua")
    });
    files.sort();
    for f in files {
        let Ok(canon) = f.canonicalize() else {
            continue;
        };
        let name = format!("@{}", canon.display());
        let text = read(&f);
        let code = compile(&lua, &module_text::wrap_module(&text), &name);
        chunks.push((name, text, code));
    }

    let mut table = String::from("&[\n");
    for (i, (name, text, code)) in chunks.iter().enumerate() {
        let src = out.join(format!("chunk{i}.lua"));
        let bin = out.join(format!("chunk{i}.luac"));
        std::fs::write(&src, text).unwrap();
        std::fs::write(&bin, code).unwrap();
        writeln!(
            table,
            "    Chunk {{ name: {name:?}, source: include_str!({:?}), code: include_bytes!({:?}) }},",
            src.display().to_string(),
            bin.display().to_string()
        )
        .unwrap();
    }
    table.push(']');
    std::fs::write(out.join("precompiled.rs"), table).unwrap();
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// The chunk's bytecode with its debug information (line numbers for tracebacks), or nothing
/// when it does not compile (the engine then reports the syntax error as for any module).
fn compile(lua: &mlua::Lua, text: &str, name: &str) -> Vec<u8> {
    match lua.load(text).set_name(name).into_function() {
        Ok(f) => f.dump(false),
        Err(_) => Vec::new(),
    }
}
