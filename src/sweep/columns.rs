//! The columns a sweep's table will have, as far as they are known before any point runs, so
//! that `--y` is checked then, with a "did you mean", and not after the last point: `point`,
//! the varied keys, the figures, the power figures of a point with `[power]` (and the ratios
//! with `--power-baseline`), and the names the scripts report with a literal
//! `MGEN_report("name", ...)`.
//!
//! A script may also report names it builds (`MGEN_report(algo .. "_s", t)`) or that a module
//! it loads reports: then a `--y` that is none of the known columns, nor close to one, is let
//! through, and checked against the table once the points have run.

use crate::config::Scenario;
use crate::words::{closest, shown};
use anyhow::{bail, Result};
use std::collections::BTreeSet;

/// The power figures of a point with `[power]`, and the ratios `--power-baseline` adds.
const POWER: [&str; 4] = [
    "energy_j",
    "average_power_w",
    "low_power_fraction",
    "wakeups",
];
const RATIOS: [&str; 3] = ["energy_ratio", "power_ratio", "time_ratio"];

/// What is known of a sweep's columns before it runs.
#[derive(Default)]
pub(super) struct Columns {
    known: BTreeSet<String>,
    /// The scripts already read (by name).
    read: BTreeSet<String>,
    /// Some script may report a name not known here.
    open: bool,
}

impl Columns {
    /// The columns every table of a sweep over `keys` has.
    pub(super) fn new(keys: &[String]) -> Columns {
        let mut c = Columns::default();
        c.known.insert("point".into());
        c.known.extend(keys.iter().cloned());
        c.known.extend(super::FIGURES.iter().map(|s| s.to_string()));
        c
    }

    /// What point scenario `s` adds (`baseline`: `--power-baseline`).
    pub(super) fn add(&mut self, s: &Scenario, baseline: bool) {
        if s.power.is_some() {
            self.known.extend(POWER.iter().map(|s| s.to_string()));
            if baseline {
                self.known.extend(RATIOS.iter().map(|s| s.to_string()));
            }
        }
        for job in &s.jobs {
            let w = &job.workload;
            if self.read.insert(w.script_name.clone()) {
                self.open |= reported(&w.source, &mut self.known);
            }
        }
    }

    /// `y` (`--y`): a column known, or one a script may report that is close to none known; an
    /// error naming the nearest otherwise.
    pub(super) fn check(&self, y: &str) -> Result<()> {
        if self.known.contains(y) {
            return Ok(());
        }
        let list = self
            .known
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(", ");
        let more = if self.open {
            ", and the names the scripts report"
        } else {
            ""
        };
        match closest(y, self.known.iter().map(String::as_str)) {
            Some(near) => bail!(
                "--y {}: no such column; did you mean `{near}`? (the columns: {list}{more})",
                shown(y)
            ),
            None if !self.open => bail!("--y {}: no such column (the columns: {list})", shown(y)),
            None => Ok(()),
        }
    }
}

/// Adds to `names` the names Lua source `src` reports with a literal `MGEN_report("name", ...)`;
/// true when it may report others too (a name it builds, a module or chunk it loads).
fn reported(src: &str, names: &mut BTreeSet<String>) -> bool {
    let mut open = ["require", "dofile", "loadfile", "load"]
        .iter()
        .any(|w| names_word(src, w));
    for (at, _) in src.match_indices("MGEN_report") {
        let rest = src[at + "MGEN_report".len()..].trim_start();
        let Some(rest) = rest.strip_prefix('(') else {
            open = true;
            continue;
        };
        let rest = rest.trim_start();
        let literal = rest
            .chars()
            .next()
            .filter(|&q| q == '"' || q == '\'')
            .and_then(|q| {
                let body = &rest[1..];
                let end = body.find([q, '\\', '\n'])?;
                (body[end..].starts_with(q)).then(|| &body[..end])
            });
        match literal {
            Some(name) => {
                names.insert(name.to_string());
            }
            None => open = true,
        }
    }
    open
}

/// Whether `src` has `word` as a whole name (`load`, not `payload`).
fn names_word(src: &str, word: &str) -> bool {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    src.match_indices(word).any(|(at, _)| {
        !part(src[..at].chars().next_back()) && !part(src[at + word.len()..].chars().next())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_reports_are_columns_and_built_ones_leave_the_list_open() {
        let mut names = BTreeSet::new();
        let closed = "MGEN_report(\"barrier_s\", t)\nMGEN_report( 'bw_GBps' , b)";
        assert!(!reported(closed, &mut names));
        assert_eq!(names.iter().collect::<Vec<_>>(), ["barrier_s", "bw_GBps"]);
        assert!(reported("MGEN_report(algo .. \"_s\", t)", &mut names));
        assert!(reported("local c = require(\"mgen.coll\")", &mut names));
        assert!(reported("local f = load(text)", &mut names));
        assert!(!reported(
            "local payload = 1 MGEN_report('x', payload)",
            &mut names
        ));
    }

    #[test]
    fn a_misspelt_y_gets_the_nearest_column() {
        let mut c = Columns::new(&["workload.ranks".to_string()]);
        reported("MGEN_report(\"bandwidth_GBps\", b)", &mut c.known);
        assert!(c.check("bandwidth_GBps").is_ok());
        let e = c.check("bandwith_GBps").unwrap_err().to_string();
        assert!(
            e.starts_with("--y bandwith_GBps: no such column; did you mean `bandwidth_GBps`?"),
            "{e}"
        );
        let e = c.check("predicted_time").unwrap_err().to_string();
        assert!(e.contains("did you mean `predicted_time_ps`?"), "{e}");
        // far from every column: an error when no script can report more, else let through
        assert!(c.check("foo").is_err());
        c.open = true;
        assert!(c.check("foo").is_ok());
        assert!(c.check("bandwith_GBps").is_err());
    }
}
