//! How a module file of Lua becomes the chunk that is compiled: shared by the engine
//! (`precompiled.rs`) and `build.rs`, which compiles mgensim's own library ahead of time with
//! exactly this rule.

/// The chunk compiled for a module's file `text`: `return function(_ENV, ...) <text> end`, all
/// on the file's first line so that its line numbers stay the file's. A `#!` first line
/// becomes a comment.
pub(crate) fn wrap_module(text: &str) -> String {
    let shebang = if text.starts_with('#') { "--" } else { "" };
    format!("return function(_ENV, ...) {shebang}{text}\nend")
}
