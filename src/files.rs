//! What a scenario and its scripts may read, decided here and nowhere else.
//!
//! A shared scenario is untrusted input. Without `--allow-io`:
//! - its own file references (`workload.script`, `placement.file`) and everything its scripts
//!   read (`io.open`, `io.lines`, `loadfile`, `dofile`, `require`) must be **regular files**
//!   below an allowed folder: the scenario's folder, its scripts' folders, and mgensim's Lua
//!   library (`lua/`);
//! - a path is checked after resolving every folder on it (symbolic links included), so a
//!   link cannot lead out of an allowed folder; a path whose last parts do not exist yet is
//!   checked by its deepest existing folder, and may not climb out of it with `..`;
//! - a device, a pipe, a socket or a folder is refused even below an allowed folder (reading
//!   `/proc/self/fd/0` or a FIFO would read standard input or wait forever).
//!
//! With `--allow-io` any path may be read (and scripts may write): relative paths still start
//! from the scenario's folder. Whatever is read into memory whole (a script, a placement map,
//! a module) is bounded in size in both modes, so an endless file is an error, not a machine
//! out of memory.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// The most a script, a module or a scenario file may hold, in bytes.
pub(crate) const MAX_SOURCE: u64 = 64 << 20;
/// The most a placement map may hold, in bytes (about 16 M lines of `rank node`).
pub(crate) const MAX_PLACEMENT: u64 = 256 << 20;

const LIFT: &str = "(mgensim run --allow-io lifts the sandbox)";

/// The project's Lua library folder (`lua/`): `MGENSIM_LUA_DIR`, else the one this binary was
/// built from.
pub fn library_dir() -> PathBuf {
    std::env::var_os("MGENSIM_LUA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/lua")))
}

/// What may be read, and where relative paths start.
#[derive(Clone, Debug)]
pub(crate) struct FileAccess {
    /// Relative paths are taken from here (the scenario's folder).
    pub(crate) base: PathBuf,
    /// Canonical folders below which reading is allowed; `None` when the sandbox is off.
    pub(crate) roots: Option<Vec<PathBuf>>,
    /// The canonical form of each folder a resolved file was in (a trace's thousands of files
    /// share one or two): see [`canonical`].
    folders: Rc<RefCell<HashMap<PathBuf, PathBuf>>>,
}

impl FileAccess {
    /// The sandbox's rules for a scenario in `base`, also allowing the folders `more` (its
    /// scripts' folders) and mgensim's Lua library; `None` for `allow_io`: no rules.
    pub(crate) fn new(base: &Path, more: &[PathBuf], allow_io: bool) -> FileAccess {
        // folders that do not exist (a library folder moved away) grant nothing
        let roots = (!allow_io).then(|| {
            let mut roots: Vec<PathBuf> = std::iter::once(base.to_path_buf())
                .chain(more.iter().cloned())
                .chain([library_dir()])
                .filter_map(|p| p.canonicalize().ok())
                .collect();
            roots.dedup();
            roots
        });
        FileAccess {
            // (absolute, so that a path it resolved resolves to itself again: a trace's index
            // names its files relative to the index's own folder, which is already resolved)
            base: std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf()),
            roots,
            folders: Default::default(),
        }
    }

    /// Whether the sandbox is on.
    pub(crate) fn sandboxed(&self) -> bool {
        self.roots.is_some()
    }

    /// The path that `name` (relative to the scenario's folder, or absolute) stands for, if it
    /// may be read: canonical in the sandbox. A file that does not exist below an allowed
    /// folder is let through, for the caller's open to say it is missing.
    pub(crate) fn resolve(&self, name: &str) -> Result<PathBuf, String> {
        if name.contains('\0') {
            return Err(format!("sandbox: the file name {name:?} holds a NUL byte"));
        }
        let p = Path::new(name);
        let full = if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.base.join(p)
        };
        let Some(roots) = &self.roots else {
            return Ok(full);
        };
        let refused = |shown: &Path| {
            format!(
                "sandbox: reading {} is not allowed: a scenario's script may read files only \
                 below the scenario's folder {} and mgensim's Lua library {LIFT}",
                shown.display(),
                roots
                    .first()
                    .map_or(String::new(), |r| r.display().to_string())
            )
        };
        let Some(canon) = canonical(&full, &mut self.folders.borrow_mut()) else {
            return Err(refused(&full));
        };
        if !roots.iter().any(|r| canon.starts_with(r)) {
            return Err(refused(&canon));
        }
        match std::fs::metadata(&canon) {
            Ok(m) if m.is_file() => Ok(canon),
            Ok(m) => Err(format!(
                "sandbox: {} is not a regular file ({}): a scenario's script reads only \
                 regular files {LIFT}",
                canon.display(),
                kind(&m)
            )),
            Err(_) => Ok(canon),
        }
    }

    /// Reads the whole of `name` (a script or module), at most [`MAX_SOURCE`] bytes; returns
    /// its text and the path to name it by.
    pub(crate) fn read_source(&self, name: &str) -> Result<(String, PathBuf), String> {
        let path = self.resolve(name)?;
        let text =
            read_bounded(&path, MAX_SOURCE).map_err(|e| format!("cannot read {name}: {e}"))?;
        Ok((text, path))
    }
}

/// The canonical form of `p`: its deepest existing ancestor resolved (links included), and
/// the parts below it, which do not exist, appended as they are; `None` if those parts climb
/// with `..` (they could not be checked) or nothing of the path exists.
///
/// `folders` holds the canonical form of folders met before. A file that is not a link, in
/// one of them, is that folder's form and its name: one `lstat` rather than a `readlink` for
/// each part of its path (65,536 trace files in one folder).
fn canonical(p: &Path, folders: &mut HashMap<PathBuf, PathBuf>) -> Option<PathBuf> {
    let not_a_link =
        |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| !m.file_type().is_symlink());
    let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
    let name = match p.components().next_back() {
        Some(Component::Normal(n)) => Some(n),
        _ => None,
    };
    if let (Some(dir), Some(name)) = (parent, name) {
        if let Some(c) = folders.get(dir) {
            if not_a_link(p) {
                return Some(c.join(name));
            }
        }
    }
    if let Ok(c) = p.canonicalize() {
        if let (Some(dir), Some(_), Some(cdir)) = (parent, name, c.parent()) {
            if not_a_link(p) {
                folders.insert(dir.to_path_buf(), cdir.to_path_buf());
            }
        }
        return Some(c);
    }
    for anc in p.ancestors().skip(1) {
        let anc_path = if anc.as_os_str().is_empty() {
            Path::new(".")
        } else {
            anc
        };
        if let Ok(c) = anc_path.canonicalize() {
            let rest = p.strip_prefix(anc).ok()?;
            let mut out = c;
            for comp in rest.components() {
                match comp {
                    Component::Normal(x) => out.push(x),
                    Component::CurDir => {}
                    _ => return None,
                }
            }
            return Some(out);
        }
    }
    None
}

/// What a file that is not regular is, in words.
fn kind(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a pipe";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if m.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

/// Reads a scenario file (or a script, a module) whole as UTF-8 text, up to [`MAX_SOURCE`]
/// bytes; it may be a pipe (`<(...)`).
pub fn read_source(path: &Path) -> Result<String, String> {
    read_bounded(path, MAX_SOURCE)
}

/// Reads `path` whole as UTF-8 text, refusing more than `max` bytes (an endless file such as
/// `/dev/zero` is an error after `max` bytes, not a machine out of memory).
pub(crate) fn read_bounded(path: &Path, max: u64) -> Result<String, String> {
    let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    f.take(max + 1)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    if buf.len() as u64 > max {
        return Err(format!(
            "it holds more than {} (the most mgensim reads of such a file)",
            crate::units::Bytes(max)
        ));
    }
    String::from_utf8(buf).map_err(|e| {
        format!(
            "it is not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads a file a scenario names (its script, its placement map): relative to the scenario's
/// folder `base`; without `allow_io` it must be a regular file below that folder or mgensim's
/// Lua library. Returns the path it was read from and its text; the error says why not.
pub(crate) fn read_referenced(
    base: &Path,
    name: &Path,
    allow_io: bool,
    max: u64,
) -> Result<(PathBuf, String), String> {
    let full = if name.is_absolute() || base == Path::new(".") {
        name.to_path_buf()
    } else {
        base.join(name)
    };
    if !allow_io {
        let access = FileAccess::new(base, &[], false);
        let shown = full.display().to_string();
        match access.resolve(&name.to_string_lossy()) {
            Err(e) => {
                return Err(e.replace(
                    "a scenario's script may read files only below the scenario's folder",
                    "a scenario may name files only below its own folder",
                ))
            }
            Ok(c) if !c.exists() => return Err(format!("cannot read {shown}: no such file")),
            Ok(_) => {}
        }
    }
    let text =
        read_bounded(&full, max).map_err(|e| format!("cannot read {}: {e}", full.display()))?;
    Ok((full, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_checked_after_resolving_their_folders() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("s");
        std::fs::create_dir_all(root.join("d")).unwrap();
        std::fs::write(root.join("d/in.txt"), "x").unwrap();
        std::fs::write(outer.path().join("secret"), "y").unwrap();
        let a = FileAccess::new(&root, &[], false);
        assert!(a.resolve("d/in.txt").unwrap().ends_with("s/d/in.txt"));
        // missing below the root: let through (the open says it is missing)
        assert!(a.resolve("d/new/deeper.txt").is_ok());
        // climbing out, directly or below a missing folder
        assert!(a
            .resolve("../secret")
            .unwrap_err()
            .starts_with("sandbox: reading"));
        assert!(a.resolve("missing/../../secret").is_err());
        // a folder is not a regular file
        assert!(a.resolve("d").unwrap_err().contains("a folder"));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outer.path().join("secret"), root.join("l")).unwrap();
            assert!(a.resolve("l").unwrap_err().starts_with("sandbox: reading"));
            assert!(a.resolve("/proc/self/fd/0").is_err());
            // a folder already resolved: a link beside a file read before is still followed
            std::os::unix::fs::symlink(outer.path().join("secret"), root.join("d/l")).unwrap();
            std::fs::write(root.join("d/b.txt"), "x").unwrap();
            assert!(a.resolve("d/in.txt").is_ok() && a.resolve("d/b.txt").is_ok());
            assert!(a
                .resolve("d/l")
                .unwrap_err()
                .starts_with("sandbox: reading"));
            // and a folder that is a link out of the root is refused as before
            std::os::unix::fs::symlink(outer.path(), root.join("d/up")).unwrap();
            assert!(a.resolve("d/up/secret").is_err());
        }
        // the sandbox off: anything, relative to the base
        let open = FileAccess::new(&root, &[], true);
        assert_eq!(open.resolve("../secret").unwrap(), root.join("../secret"));
    }

    #[test]
    fn reading_is_bounded() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("big");
        std::fs::write(&p, vec![b'a'; 100]).unwrap();
        assert_eq!(read_bounded(&p, 100).unwrap().len(), 100);
        assert!(read_bounded(&p, 99).unwrap_err().contains("more than 99 B"));
    }
}
