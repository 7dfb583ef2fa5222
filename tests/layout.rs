//! The map of the modules, as a test: it reads `src/`, finds which module uses which, and
//! fails on an import cycle, on a use that docs/architecture.md's table does not list (or a
//! listed one that is gone), and on a backticked file name in the documents that names no file.
//!
//! A module is a top-level module of the library (`part`, `config`, …); `net` counts as four:
//! `topology`, `net/router`, `net/flow` and the rest of `net` (packets, power). A use is any
//! path that reaches another module: `crate::x`, `crate::{x, y}`, `super::` climbing out of
//! one, and a child module's name used from its parent. A parent's `pub use` of its own
//! children is its face, not a use. The binary's side (`main.rs`, `cli/`) uses the library
//! and is not part of the map.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The map's name of a module path (`["net", "router", "credit"]` -> `net/router`).
fn unit(path: &[String]) -> Option<String> {
    let first = path.first()?;
    if first == "net" {
        if let Some(second) = path.get(1) {
            if matches!(second.as_str(), "router" | "flow") {
                return Some(format!("net/{second}"));
            }
        }
    }
    Some(first.clone())
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file under `src/` (`net/router/mod.rs` -> `["net", "router"]`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|s| s.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Colons,
    Open,
    Close,
    Comma,
    Semi,
    Other,
}

/// The tokens of Rust source that matter to paths, each with its line: comments, strings and
/// character literals are dropped.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let b = src.as_bytes();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line += 1;
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += (b[i] == b'\n') as usize;
                    i += 1;
                }
            }
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
            && !(i > 0 && ident(b[i - 1]))
        {
            // a raw string r"..." or r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push((Tok::Ident("r".into()), line));
                i += 1;
                continue;
            }
            j += 1;
            let end: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while j < b.len() && !b[j..].starts_with(&end) {
                line += (b[j] == b'\n') as usize;
                j += 1;
            }
            i = j + end.len();
            out.push((Tok::Other, line));
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                line += (b.get(i) == Some(&b'\n')) as usize;
                i += 1;
            }
            i += 1;
            out.push((Tok::Other, line));
        } else if c == b'\'' {
            // a character literal ('x', '\n', '\'', '"') or a lifetime ('a)
            if b.get(i + 1) == Some(&b'\\') {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&b'\'') {
                i += 3;
            } else {
                i += 1;
            }
            out.push((Tok::Other, line));
        } else if ident(c) {
            let s = i;
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
            out.push((Tok::Ident(src[s..i].to_string()), line));
        } else if b[i..].starts_with(b"::") {
            out.push((Tok::Colons, line));
            i += 2;
        } else {
            out.push((
                match c {
                    b'{' => Tok::Open,
                    b'}' => Tok::Close,
                    b',' => Tok::Comma,
                    b';' => Tok::Semi,
                    _ => Tok::Other,
                },
                line,
            ));
            i += 1;
        }
    }
    out
}

/// A use of another module: from, to, and where.
#[derive(Debug, Clone)]
struct Use {
    from: String,
    to: String,
    file: String,
    line: usize,
}

/// The paths of a file: each as the module path it reaches, with its line and whether it is
/// re-exported (`pub use`).
struct Paths<'a> {
    toks: &'a [(Tok, usize)],
    /// Modules that exist, as paths.
    modules: &'a BTreeSet<Vec<String>>,
    found: Vec<(Vec<String>, usize, bool)>,
}

impl Paths<'_> {
    fn ident(&self, i: usize) -> Option<&str> {
        match &self.toks.get(i)?.0 {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }

    /// Reads the path that continues at `i` after `base` (just past a `::`), recording every
    /// path it ends in; returns the index after it.
    fn rest(&mut self, mut i: usize, mut base: Vec<String>, line: usize, export: bool) -> usize {
        loop {
            match self.toks.get(i).map(|t| &t.0) {
                Some(Tok::Ident(s)) => {
                    if s == "super" {
                        base.pop();
                    } else if s != "self" {
                        base.push(s.clone());
                    }
                    i += 1;
                    if self.toks.get(i).map(|t| &t.0) == Some(&Tok::Colons) {
                        i += 1;
                        continue;
                    }
                    self.found.push((base, line, export));
                    return i;
                }
                Some(Tok::Open) => {
                    i += 1;
                    loop {
                        match self.toks.get(i).map(|t| &t.0) {
                            Some(Tok::Close) => return i + 1,
                            Some(Tok::Comma) => i += 1,
                            None => return i,
                            _ => {
                                let at = i;
                                i = self.rest(i, base.clone(), self.toks[i].1, export);
                                if i == at {
                                    i += 1;
                                }
                            }
                        }
                    }
                }
                _ => {
                    self.found.push((base, line, export));
                    return i;
                }
            }
        }
    }

    /// Every path of the file whose module is `file_module`.
    fn scan(&mut self, file_module: &[String]) {
        // inline modules (`mod tests { ... }`) by the brace depth they opened at
        let mut here: Vec<String> = file_module.to_vec();
        let mut inline: Vec<usize> = Vec::new();
        let mut depth = 0usize;
        let mut export = false;
        let mut i = 0;
        while i < self.toks.len() {
            let (tok, line) = (&self.toks[i].0, self.toks[i].1);
            match tok {
                Tok::Open => depth += 1,
                Tok::Close => {
                    depth = depth.saturating_sub(1);
                    if inline.last() == Some(&depth) {
                        inline.pop();
                        here.pop();
                    }
                }
                Tok::Semi => export = false,
                Tok::Ident(s) if s == "mod" => {
                    if let (Some(name), Some((Tok::Open, _))) =
                        (self.ident(i + 1), self.toks.get(i + 2))
                    {
                        here.push(name.to_string());
                        inline.push(depth);
                        depth += 1;
                        i += 3;
                        continue;
                    }
                }
                Tok::Ident(s) if s == "use" => {
                    export = i > 0
                        && self.toks[..i]
                            .iter()
                            .rev()
                            .take(4)
                            .any(|t| t.0 == Tok::Ident("pub".into()));
                }
                _ => {}
            }
            let after_colons = i > 0 && self.toks[i - 1].0 == Tok::Colons;
            if let (Tok::Ident(s), false) = (tok, after_colons) {
                if self.toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Colons) {
                    let start: Option<Vec<String>> = match s.as_str() {
                        "crate" => Some(Vec::new()),
                        "super" | "self" => Some(here.clone()),
                        name => {
                            let mut child = here.clone();
                            child.push(name.to_string());
                            self.modules.contains(&child).then_some(here.clone())
                        }
                    };
                    if let Some(base) = start {
                        let from = if s == "crate" { i + 2 } else { i };
                        i = self.rest(from, base, line, export);
                        continue;
                    }
                }
            }
            i += 1;
        }
    }
}

/// Every use of one module by another in `src/` (the library's files).
fn uses(root: &Path) -> Vec<Use> {
    let src = root.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let rel = |p: &PathBuf| p.strip_prefix(&src).unwrap().to_path_buf();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|p| module_of(&rel(p))).collect();
    // what lib.rs re-exports at the top (`crate::Simulation` is `crate::engine::Simulation`)
    let lib = tokens(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut top = Paths {
        toks: &lib,
        modules: &modules,
        found: Vec::new(),
    };
    top.scan(&[]);
    let reexported: BTreeMap<String, Vec<String>> = top
        .found
        .into_iter()
        .filter(|(path, _, export)| *export && path.len() > 1)
        .map(|(path, _, _)| (path.last().unwrap().clone(), path))
        .collect();
    let mut out = Vec::new();
    for p in &files {
        let r = rel(p);
        let first = r.iter().next().unwrap().to_string_lossy();
        if first == "main.rs" || first == "lib.rs" || first == "cli" {
            continue;
        }
        let me = module_of(&r);
        let from = unit(&me).unwrap();
        let text = std::fs::read_to_string(p).unwrap();
        let toks = tokens(&text);
        let mut paths = Paths {
            toks: &toks,
            modules: &modules,
            found: Vec::new(),
        };
        paths.scan(&me);
        for (path, line, export) in paths.found {
            // a parent's face: `pub use` of its own descendants
            if export && path.starts_with(&me) {
                continue;
            }
            // the longest existing module the path reaches
            let mut m = match path.first().and_then(|name| reexported.get(name)) {
                Some(full) => full.clone(),
                None => path.clone(),
            };
            while !m.is_empty() && !modules.contains(&m) {
                m.pop();
            }
            let Some(to) = unit(&m) else { continue };
            if to != from && !(to == "lib" || to == "main") {
                out.push(Use {
                    from: from.clone(),
                    to,
                    file: format!("src/{}", r.display()),
                    line,
                });
            }
        }
    }
    out
}

/// docs/architecture.md's table of modules: each module the row names, with the ones its
/// `uses` column lists (a parenthesis says more and is not a module; `—` is none).
fn declared(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let text = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let start = text
        .find("| module | what it models or does | uses |")
        .expect("the module table");
    let mut map = BTreeMap::new();
    for row in text[start..].lines().skip(2) {
        if !row.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        assert_eq!(
            cells.len(),
            3,
            "docs/architecture.md: a row of the module table has 3 cells: {row}"
        );
        let mut uses = cells[2].to_string();
        while let (Some(a), Some(b)) = (uses.find('('), uses.find(')')) {
            if b < a {
                break;
            }
            uses.replace_range(a..=b, "");
        }
        let uses: BTreeSet<String> = uses
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty() && s != "—")
            .collect();
        for name in cells[0].split('`').skip(1).step_by(2) {
            let name = name
                .trim_end_matches('/')
                .trim_end_matches(".rs")
                .to_string();
            map.insert(name, uses.clone());
        }
    }
    map
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The modules' uses form no cycle: each strongly connected group of more than one module is
/// named with the uses that tie it, and where each is.
#[test]
fn no_module_uses_itself_through_others() {
    let uses = uses(&root());
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for u in &uses {
        next.entry(&u.from).or_default().insert(&u.to);
    }
    // reachability by repeated search: the map has a few dozen modules
    let reach = |a: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![a.to_string()];
        while let Some(m) = stack.pop() {
            for n in next.get(m.as_str()).into_iter().flatten() {
                if seen.insert(n.to_string()) {
                    stack.push(n.to_string());
                }
            }
        }
        seen
    };
    let mut tied: Vec<String> = Vec::new();
    for u in &uses {
        if reach(&u.to).contains(&u.from) {
            tied.push(format!("{} -> {} ({}:{})", u.from, u.to, u.file, u.line));
        }
    }
    tied.dedup();
    assert!(
        tied.is_empty(),
        "uses that are part of a cycle:\n{}",
        tied.join("\n")
    );
}

/// Every use between modules is one docs/architecture.md's table lists, and every use it lists
/// is one the code makes.
#[test]
fn the_architecture_table_lists_every_use_and_no_other() {
    let root = root();
    let uses = uses(&root);
    let declared = declared(&root);
    let mut problems = Vec::new();
    let mut made: BTreeSet<(String, String)> = BTreeSet::new();
    for u in &uses {
        made.insert((u.from.clone(), u.to.clone()));
    }
    let mut shown = BTreeSet::new();
    for u in &uses {
        match declared.get(&u.from) {
            None if shown.insert(u.from.clone()) => problems.push(format!(
                "module `{}` has no row in the table ({}:{})",
                u.from, u.file, u.line
            )),
            Some(d) if !d.contains(&u.to) && shown.insert(format!("{}>{}", u.from, u.to)) => {
                problems.push(format!(
                    "{} uses {} ({}:{}), which its row does not list",
                    u.from, u.to, u.file, u.line
                ))
            }
            _ => {}
        }
    }
    for (m, d) in &declared {
        for to in d {
            if !made.contains(&(m.clone(), to.clone())) {
                problems.push(format!(
                    "the row of `{m}` lists {to}, which it does not use"
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "docs/architecture.md's module table:\n{}",
        problems.join("\n")
    );
}

/// The tracked files of the repository (those under its folders, without `target/`).
fn repo_files(dir: &Path, root: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            out.push(format!("{rel}/"));
            repo_files(&p, root, out);
        } else {
            out.push(rel);
        }
    }
}

/// Lines a file of code may hold: a reader finds one thing in a file that fits in a sitting.
const MAX_FILE_LINES: usize = 800;

/// No file of code (Rust, Lua, Python, shell, the `bench/` scripts), source or test, is
/// longer than [`MAX_FILE_LINES`].
#[test]
fn no_file_of_code_is_longer_than_800_lines() {
    let root = root();
    let mut files = Vec::new();
    repo_files(&root, &root, &mut files);
    let code = |f: &str| {
        let bench_script = f.starts_with("bench/") && !f[6..].contains(['.', '/']);
        [".rs", ".lua", ".py", ".sh"].iter().any(|e| f.ends_with(e)) || bench_script
    };
    let mut long = Vec::new();
    for f in files.iter().filter(|f| code(f)) {
        let Ok(text) = std::fs::read_to_string(root.join(f)) else {
            continue;
        };
        let n = text.lines().count();
        if n > MAX_FILE_LINES {
            long.push(format!("{f}: {n} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "split these (at most {MAX_FILE_LINES} lines a file):\n{}",
        long.join("\n")
    );
}

/// Every backticked file name in the README and docs/ names a file of the repository: a `.rs`
/// or `.md` file, or a path with a `/` (`lua/mgen.d.lua`, `net/router/`), as written from the
/// top or as the end of a file's path (`net/router/credit.rs`, `part.rs`). A bare name of
/// another kind (`my.lua`, `s.toml`) is the user's file and is not looked for.
#[test]
fn the_documents_name_files_that_exist() {
    let root = root();
    let mut files = Vec::new();
    repo_files(&root, &root, &mut files);
    let mut docs = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            docs.push(p);
        }
    }
    docs.sort();
    let mut missing = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for (n, line) in text.lines().enumerate() {
            for name in line.split('`').skip(1).step_by(2) {
                let kinds = [".rs", ".lua", ".md", ".py", ".sh", ".toml"];
                let looks_like_file = name.ends_with(".rs")
                    || name.ends_with(".md")
                    || (name.contains('/') && kinds.iter().any(|x| name.ends_with(x)))
                    || (name.ends_with('/') && name.len() > 1);
                let plain = name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
                if !looks_like_file || !plain || name.starts_with('/') || name.starts_with("../") {
                    continue;
                }
                let name = name.trim_start_matches("./");
                let found = files
                    .iter()
                    .any(|f| f == name || f.ends_with(&format!("/{name}")));
                if !found {
                    missing.push(format!(
                        "{}:{}: `{name}`",
                        doc.strip_prefix(&root).unwrap().display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "file names that name no file:\n{}",
        missing.join("\n")
    );
}

/// The scanner itself: the uses it finds in a file written for it (so that a change to it
/// that stopped finding them fails here, not by a cycle going unseen).
/// The most `pub` items and `pub` fields `src/` may have (see
/// [`the_public_surface_stays_small`]).
const MAX_PUB_ITEMS: usize = 152;
const MAX_PUB_FIELDS: usize = 200;

/// The public surface, counted over every `.rs` file under `src/`. A `pub` item is a line that
/// starts, after its indentation, with `pub fn`, `pub struct`, `pub enum`, `pub const`,
/// `pub static`, `pub type`, `pub trait`, `pub mod`, `pub use` or `pub unsafe fn` (a `pub use`
/// of several names is one item); a `pub` field is an indented line `pub name:`. `pub(crate)`,
/// `pub(super)` and `pub(in …)` are not counted: they are internal. The face (`lib.rs`) is what
/// the command line, the Python module, the tests and the benches use (docs/architecture.md,
/// "The public surface"); this prints both counts and fails above [`MAX_PUB_ITEMS`] items or
/// [`MAX_PUB_FIELDS`] fields.
#[test]
fn the_public_surface_stays_small() {
    const KINDS: [&str; 10] = [
        "fn ",
        "struct ",
        "enum ",
        "const ",
        "static ",
        "type ",
        "trait ",
        "mod ",
        "use ",
        "unsafe fn ",
    ];
    let src = root().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let (mut items, mut fields) = (Vec::new(), Vec::new());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(&src).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            let body = line.trim_start();
            let Some(rest) = body.strip_prefix("pub ") else {
                continue;
            };
            let at = format!("{rel}:{}", n + 1);
            if KINDS.iter().any(|k| rest.starts_with(k)) {
                items.push(at);
            } else if body.len() < line.len() {
                // an indented `pub name:` (a field of a struct)
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                let first_ok = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_');
                if first_ok && rest[name.len()..].starts_with(':') {
                    fields.push(at);
                }
            }
        }
    }
    println!("pub items: {} (at most {MAX_PUB_ITEMS})", items.len());
    println!("pub fields: {} (at most {MAX_PUB_FIELDS})", fields.len());
    assert!(
        items.len() <= MAX_PUB_ITEMS && fields.len() <= MAX_PUB_FIELDS,
        "the public surface grew: {} pub items (at most {MAX_PUB_ITEMS}), {} pub fields (at \
         most {MAX_PUB_FIELDS}); what is not used outside the library is pub(crate). Items: \
         {items:?}",
        items.len(),
        fields.len()
    );
}

#[test]
fn the_scanner_finds_every_kind_of_use() {
    let src = r#"
        use crate::{config::Scenario, units::{Time, Bytes}};
        use super::super::packet::Packet; // crate::commented
        pub use child::Thing;
        fn f() { let s = "crate::strings"; crate::sim::run(); child::g(); }
        mod tests { use super::*; use crate::event::Event; }
    "#;
    let toks = tokens(src);
    let modules: BTreeSet<Vec<String>> = [
        vec!["net"],
        vec!["net", "router"],
        vec!["net", "router", "child"],
        vec!["net", "packet"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect();
    let mut p = Paths {
        toks: &toks,
        modules: &modules,
        found: Vec::new(),
    };
    let me: Vec<String> = vec!["net".into(), "router".into()];
    p.scan(&me);
    let got: Vec<String> = p
        .found
        .iter()
        .map(|(path, _, export)| {
            format!("{}{}", path.join("::"), if *export { " (pub)" } else { "" })
        })
        .collect();
    assert_eq!(
        got,
        [
            "config::Scenario",
            "units::Time",
            "units::Bytes",
            "packet::Packet",
            "net::router::child::Thing (pub)",
            "sim::run",
            "net::router::child::g",
            "net::router",
            "event::Event",
        ]
        .map(String::from)
        .to_vec()
    );
}

/// Prints each module's uses as the table's `uses` column lists them (for writing the table:
/// `cargo test --test layout -- --ignored --nocapture the_uses_as_the_table_lists_them`).
#[test]
#[ignore]
fn the_uses_as_the_table_lists_them() {
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for u in uses(&root()) {
        map.entry(u.from).or_default().insert(u.to);
    }
    for (m, d) in map {
        println!("{m}: {}", d.into_iter().collect::<Vec<_>>().join(", "));
    }
}
