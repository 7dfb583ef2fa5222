//! `mgensim replay TRACE`: a trace run directly, as `smpirun -replay` runs one, on the network
//! `--set` gives (`network.dims=[4,4]`), or the one of a scenario (`--scenario`) whose
//! workload the trace replaces. The run is the one of a scenario with `[workload] trace =
//! TRACE`: the same figures.

use super::Scenario;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The keys of a scenario's `[workload]` that the trace replaces: its script and its ranks
/// (the trace's); its arguments (checked as the replay's), placement, seed and name stay.
const REPLACED: [&str; 4] = ["script", "code", "trace", "ranks"];

/// The scenario that replays `trace` (named as the user gave it) with the overrides `sets`:
/// `scenario`'s, its workload replaced, or one of defaults beside the trace. A scenario reads
/// files only below its own folder (the sandbox), the trace included, unless `allow_io`.
pub fn scenario(
    trace: &Path,
    scenario: Option<&Path>,
    sets: &[String],
    allow_io: bool,
) -> Result<Scenario> {
    if !trace.is_file() {
        bail!(
            "the trace {} does not exist (or is not a file)",
            trace.display()
        );
    }
    if crate::replay::kind(trace).is_none() {
        bail!(
            "{} is not a time-independent trace: its first line is neither `RANK ACTION ...` \
             (a trace, every rank's lines in one file) nor the name of a rank's file beside it \
             (an index, one line per rank)",
            trace.display()
        );
    }
    let (anchor, text, named) = match scenario {
        None => {
            let name = trace.file_name().map(PathBuf::from).unwrap_or_default();
            (trace.to_path_buf(), String::new(), name)
        }
        Some(s) => {
            let text = crate::files::read_bounded(s, crate::files::MAX_SOURCE)
                .map_err(|e| anyhow::anyhow!("cannot read scenario {}: {e}", s.display()))?;
            let named = below(trace, s, allow_io)?;
            (s.to_path_buf(), without_workload(&text, s)?, named)
        }
    };
    let mut all = vec![format!(
        "workload.trace={}",
        toml::Value::String(named.to_string_lossy().into_owned())
    )];
    all.extend_from_slice(sets);
    Scenario::from_str_with(&text, &anchor, &all, allow_io)
}

/// The trace as the scenario `s` names it: relative to its folder, which must hold it (the
/// sandbox) unless `allow_io`.
fn below(trace: &Path, s: &Path, allow_io: bool) -> Result<PathBuf> {
    let canon = |p: &Path| {
        p.canonicalize()
            .with_context(|| format!("cannot find {}", p.display()))
    };
    let folder = match s.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let (t, f) = (canon(trace)?, canon(&folder)?);
    match t.strip_prefix(&f) {
        Ok(rel) => Ok(rel.to_path_buf()),
        Err(_) if allow_io => Ok(t),
        Err(_) => bail!(
            "the trace {} is not below the folder of the scenario {} ({}): a scenario reads \
             files only below its own folder (the sandbox). Put the trace there, or give the \
             network with --set instead of --scenario, or lift the sandbox with --allow-io",
            trace.display(),
            s.display(),
            f.display()
        ),
    }
}

/// `text` (the scenario `s`) with the keys of its `[workload]` that the trace replaces made
/// blank, every other byte where it was (a problem found later names the file's own line).
/// A scenario of several jobs (`[[job]]`) is refused: a replay is one job.
fn without_workload(text: &str, s: &Path) -> Result<String> {
    let doc = toml_edit::ImDocument::parse(text)
        .map_err(|e| anyhow::anyhow!("{}: {}", s.display(), e.to_string().trim_end()))?;
    if doc.as_table().contains_key("job") {
        bail!(
            "{}: its [[job]] tables run several jobs; `mgensim replay` replays one trace as \
             one job: give a scenario with one [workload] (or none)",
            s.display()
        );
    }
    let mut spans = Vec::new();
    if let Some(w) = doc.get("workload").and_then(|w| w.as_table_like()) {
        for k in REPLACED {
            if let Some((key, item)) = w.get_key_value(k) {
                let value = item
                    .span()
                    .or_else(|| item.as_value().and_then(|v| v.span()));
                if let (Some(a), Some(b)) = (key.span(), value) {
                    spans.push(a.start..b.end);
                }
            }
        }
    }
    let mut bytes = text.as_bytes().to_vec();
    for r in spans {
        for b in &mut bytes[r] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    // (a key and its value in an inline table are followed by a comma: a blank one before it
    // is still valid TOML only as whitespace, which it is not; such a table is rewritten)
    let blanked = String::from_utf8(bytes).context("a scenario is UTF-8")?;
    if toml::from_str::<toml::Table>(&blanked).is_ok() {
        return Ok(blanked);
    }
    let mut table: toml::Table = toml::from_str(text)
        .map_err(|e| anyhow::anyhow!("{}: {}", s.display(), e.to_string().trim_end()))?;
    if let Some(toml::Value::Table(w)) = table.get_mut("workload") {
        for k in REPLACED {
            w.remove(k);
        }
    }
    Ok(toml::to_string(&table)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_s_workload_is_blanked_line_for_line() {
        let s = Path::new("s.toml");
        let text = "[network]\ndims = [4]\n\n[workload]\nscript = 'w.lua'\nranks = 64\n\
                    args = { flops = 2e9 }\nseed = 3\ncode = '''\nx = 1\n'''\n";
        let out = without_workload(text, s).unwrap();
        assert_eq!(out.lines().count(), text.lines().count());
        let t: toml::Table = toml::from_str(&out).unwrap();
        let w = t["workload"].as_table().unwrap();
        assert_eq!(w.keys().collect::<Vec<_>>(), ["args", "seed"]);
        assert_eq!(out.lines().nth(7), Some("seed = 3"));
        // an inline workload
        let inline = "workload = { script = 'w.lua', seed = 3 }\n";
        let t: toml::Table = toml::from_str(&without_workload(inline, s).unwrap()).unwrap();
        assert_eq!(t["workload"].as_table().unwrap().len(), 1);
        let jobs = "[[job]]\nscript = 'a.lua'\nranks = 2\n";
        let e = without_workload(jobs, s).unwrap_err().to_string();
        assert!(e.contains("replays one trace as one job"), "{e}");
    }
}
