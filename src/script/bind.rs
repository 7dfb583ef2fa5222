//! Shared globals bound once per job: the names a script reads from the shared globals (the
//! MGEN API, the standard library) become read-only locals of the chunk that makes the job's
//! body, so every rank reads them as upvalues instead of looking them up through its own
//! `_ENV` (a miss there, then its metatable's `__index`, then the shared table: two hash
//! lookups and the VM's slow path on every call). The ring barrier at 512 ranks spends about
//! 8 % of its run on those lookups.
//!
//! **Exact, or not at all.** A bound name must mean what the global would have meant on every
//! read:
//! - the script itself assigns a global only by name (`MGEN_Send = f`, `function f() end`),
//!   which the compiler sees: each bound local is `<const>`, and a name the script assigns
//!   makes the compiler refuse it, so it is left unbound ([`body`] compiles again without it),
//!   and that rank-private assignment works as before;
//! - anything else that could change a rank's view of its globals needs a name the script
//!   (or another job's script) must write: `_ENV`, `_G`, `rawset`, `load`, `loadfile`,
//!   `dofile` (a chunk runs with the rank's globals and may assign one), `require` (so may a
//!   module of the script's own), `debug`. With any of them in any job's script, nothing is
//!   bound. (The shared globals themselves are read-only: no rank can change them.)
//!
//! The words are looked for as identifiers outside comments and strings ([`identifiers`]),
//! and names are bound only if the shared table has them when the job's body is made (after
//! the whole API is installed). One thing a script's author can see: Lua's message for
//! misusing a bound value calls it an upvalue (`attempt to call a number value (upvalue
//! 'MGEN_COMM_WORLD')`) where it said global.

use anyhow::{anyhow, Result};
use mlua::{Function, Lua, MultiValue, Table, Value};

/// Identifiers that open a rank's globals to changes its script's assignments do not show
/// (see the module's doc).
const OPEN: [&str; 8] = [
    "_ENV", "_G", "rawset", "load", "loadfile", "dofile", "require", "debug",
];

/// Most names bound per job (a Lua function has at most 200 locals).
const MAX_BOUND: usize = 120;

/// Compiles a job's script (`source`, from the file `name`) into its body,
/// `function(_ENV, ...)`, with the names among `words` that the shared `globals` have now
/// bound to their values (see the module's doc); a name the script assigns is left unbound.
/// A syntax error names the script and the line.
pub(super) fn body(
    lua: &Lua,
    globals: &Table,
    source: &str,
    name: &str,
    words: &[&str],
) -> Result<Function> {
    let mut names: Vec<&str> = Vec::new();
    let mut values = Vec::new();
    for &n in words {
        let v: Value = globals
            .raw_get(n)
            .map_err(|e| anyhow!("cannot set up Lua: {e}"))?;
        if !v.is_nil() && names.len() < MAX_BOUND {
            names.push(n);
            values.push(v);
        }
    }
    loop {
        let chunk = lua
            .load(wrap(source, &names))
            .set_name(format!("@{name}"))
            .into_function();
        match chunk {
            Ok(f) => {
                return f
                    .call(MultiValue::from_vec(values))
                    .map_err(|e| anyhow!("cannot set up Lua: {e}"));
            }
            Err(e) => {
                // a syntax error of the script's own is reported as compiling it alone says
                // it: at its own line, with nothing of the wrapper in it (an unclosed block
                // would otherwise be reported at the wrapper's closing `end`)
                if let Err(alone) = lua
                    .load(source)
                    .set_name(format!("@{name}"))
                    .into_function()
                {
                    return Err(anyhow!("{}", super::lua_message(&alone)));
                }
                let msg = super::lua_message(&e);
                match assigned_const(&msg).and_then(|a| names.iter().position(|&n| n == a)) {
                    Some(k) => {
                        names.remove(k);
                        values.remove(k);
                    }
                    None => return Err(anyhow!("{msg}")),
                }
            }
        }
    }
}

/// The identifiers of Lua source `src` that may name globals: outside comments and strings,
/// not a field or method name (`t.x`, `t:x`), not a keyword; each once, in order of first
/// appearance. A lexer for this one purpose: it does not check the syntax (the compiler does).
pub(super) fn identifiers(src: &str) -> Vec<&str> {
    let b = src.as_bytes();
    let mut out: Vec<&str> = Vec::new();
    // (each once: a set, so that a script of millions of names costs their count, not its square)
    let mut seen = std::collections::HashSet::new();
    let mut i = 0;
    // the last significant character before the current token, and the one before it
    let (mut prev, mut prev2) = (b' ', b' ');
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            // a comment: long (`--[==[ ... ]==]`) or to the end of the line
            i += 2;
            if let Some(end) = long_bracket_end(b, i) {
                i = end;
            } else {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            continue;
        }
        if c == b'[' {
            if let Some(end) = long_bracket_end(b, i) {
                i = end;
                (prev2, prev) = (prev, b'"');
                continue;
            }
        }
        if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            (prev2, prev) = (prev, b'"');
            continue;
        }
        if c.is_ascii_digit() {
            // a number, with its letters (hex digits, exponents) and point
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                let e = b[i] | 0x20;
                i += 1;
                if (e == b'e' || e == b'p') && i < b.len() && (b[i] == b'+' || b[i] == b'-') {
                    i += 1;
                }
            }
            (prev2, prev) = (prev, b'0');
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &src[start..i];
            let field = prev == b':' && prev2 != b':' || prev == b'.' && prev2 != b'.';
            if !field && !KEYWORDS.contains(&word) && seen.insert(word) {
                out.push(word);
            }
            (prev2, prev) = (prev, b'a');
            continue;
        }
        (prev2, prev) = (prev, c);
        i += 1;
    }
    out
}

/// Where the long bracket opening at `b[i]` (`[[`, `[=[`, ...) closes (the index after it),
/// or `None` if `b[i..]` does not open one. An unclosed one runs to the end.
fn long_bracket_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let mut j = i + 1;
    while b.get(j) == Some(&b'=') {
        j += 1;
    }
    if b.get(j) != Some(&b'[') {
        return None;
    }
    let level = j - i - 1;
    let mut k = j + 1;
    while k < b.len() {
        if b[k] == b']' {
            let mut m = k + 1;
            while m < b.len() && b[m] == b'=' {
                m += 1;
            }
            if m - k - 1 == level && b.get(m) == Some(&b']') {
                return Some(m + 1);
            }
        }
        k += 1;
    }
    Some(b.len())
}

const KEYWORDS: [&str; 22] = [
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// Whether any of the scripts opens the ranks' globals to changes the compiler cannot see
/// (see the module's doc): then nothing is bound, in any job.
pub(super) fn open(scripts: &[Vec<&str>]) -> bool {
    scripts.iter().flatten().any(|w| OPEN.contains(w))
}

/// The chunk that makes a job's body: its bound names as `<const>` locals set from the
/// chunk's arguments, then `function(_ENV, ...) <script> end`, all of it before the script
/// on its first line (so line numbers are the file's).
fn wrap(source: &str, names: &[&str]) -> String {
    let mut s = String::with_capacity(source.len() + 64 + names.len() * 24);
    if !names.is_empty() {
        s.push_str("local ");
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(n);
            s.push_str(" <const>");
        }
        s.push_str(" = ...; ");
    }
    s.push_str("return function(_ENV, ...) ");
    s.push_str(source);
    s.push_str("\nend");
    s
}

/// The name of the const variable a compile error says the script assigns, if it is one.
fn assigned_const(message: &str) -> Option<&str> {
    let rest = message
        .split("attempt to assign to const variable '")
        .nth(1)?;
    rest.split('\'').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_skip_comments_strings_fields_and_keywords() {
        let src = r#"
            local rank = MGEN_Comm_rank() -- require "x" in a comment
            --[==[ load(
               dofile ]] still comment ]==]
            local s = "debug \" _G" .. 'rawset' .. [[_ENV]] .. [=[ loadfile ]=]
            t.field = string.format("%d", 0x1fp-2 + 1e+3) .. math.pi
            obj:method(a..b) ; x = y..z
        "#;
        assert_eq!(
            identifiers(src),
            [
                "rank",
                "MGEN_Comm_rank",
                "s",
                "t",
                "string",
                "math",
                "obj",
                "a",
                "b",
                "x",
                "y",
                "z"
            ]
        );
    }

    #[test]
    fn open_words_are_found_only_as_identifiers() {
        let quiet = identifiers("local t = {} -- require\nt.load = 1 print('_G')");
        assert!(!open(&[quiet]));
        for src in [
            "require('m')",
            "x = _G.y",
            "_ENV.x = 1",
            "load('x')()",
            "debug.traceback()",
        ] {
            assert!(open(&[identifiers(src)]), "{src}");
        }
    }

    #[test]
    fn wrap_keeps_the_script_on_its_first_line() {
        let w = wrap("a()\nb()", &["a", "b"]);
        assert_eq!(
            w,
            "local a <const>, b <const> = ...; return function(_ENV, ...) a()\nb()\nend"
        );
        assert_eq!(wrap("x()", &[]), "return function(_ENV, ...) x()\nend");
    }

    /// The body reads a bound name from its upvalue, and a name it assigns from its `_ENV`.
    #[test]
    fn bound_names_are_upvalues_and_assigned_ones_stay_globals() {
        // SAFETY: a state of this test's own, with `debug` to read the upvalues' names
        let lua = unsafe { Lua::unsafe_new_with(mlua::StdLib::ALL, mlua::LuaOptions::default()) };
        let g = lua.globals();
        lua.load("f = function() return 1 end; n = 10")
            .exec()
            .unwrap();
        let src = "n = n + f()\nreturn n, f, missing";
        let words = identifiers(src);
        assert_eq!(words, ["n", "f", "missing"]);
        let body = body(&lua, &g, src, "t.lua", &words).unwrap();
        // the upvalues of the body: only `f` (`n` is assigned, `missing` is not a global)
        let upvalues: Vec<String> = lua
            .load("local b = ... local t = {} for i = 1, 10 do local n = debug.getupvalue(b, i) if not n then break end t[i] = n end return t")
            .call::<Vec<String>>(body.clone())
            .unwrap();
        assert_eq!(upvalues, ["f"]);
        let env: Table = lua
            .load("return setmetatable({}, { __index = _G })")
            .eval()
            .unwrap();
        let (n, f): (i64, Function) = body.call(env.clone()).unwrap();
        assert_eq!(n, 11);
        assert_eq!(
            env.raw_get::<i64>("n").unwrap(),
            11,
            "n went into the rank's _ENV"
        );
        assert_eq!(
            g.get::<i64>("n").unwrap(),
            10,
            "and not into the shared globals"
        );
        assert_eq!(f, g.get::<Function>("f").unwrap());
        // a syntax error still names the file and the line
        let err = body_err(&lua, "x = 1\nif then");
        assert!(err.starts_with("syntax error: t.lua:2:"), "{err}");
    }

    fn body_err(lua: &Lua, src: &str) -> String {
        let g = lua.globals();
        match body(lua, &g, src, "t.lua", &identifiers(src)) {
            Ok(_) => panic!("compiled"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_assigned_const_is_named() {
        let m = "script.lua:3: attempt to assign to const variable 'MGEN_Send'";
        assert_eq!(assigned_const(m), Some("MGEN_Send"));
        assert_eq!(assigned_const("script.lua:3: unexpected symbol"), None);
    }
}
