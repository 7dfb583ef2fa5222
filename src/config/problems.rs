//! Everything wrong with a scenario, collected so that `mgensim check` can list it all at once.
//!
//! Each problem is tied to a key path (`network.link_bandwidth`) when it has one; the key's
//! line in the file is found from the TOML document's spans, and a key that came from
//! `--set` says so instead. What a problem quotes of the input is cut to bounds
//! ([`bounded`]), and at most [`MAX_SHOWN`] problems are listed.

use crate::words::bounded;
use std::fmt::Display;

/// The most problems listed (the first in the order of the file; the count says how many
/// more there are).
const MAX_SHOWN: usize = 100;

/// The problems found in one scenario file.
pub(super) struct Problems<'a> {
    file: String,
    text: &'a str,
    doc: Option<toml_edit::ImDocument<&'a str>>,
    /// Key paths given with `--set`, which have no line in the file.
    overridden: Vec<String>,
    list: Vec<(usize, String)>,
}

impl<'a> Problems<'a> {
    /// `file` names the scenario in messages; `text` is its content.
    pub(super) fn new(file: String, text: &'a str) -> Problems<'a> {
        Problems {
            file,
            text,
            doc: toml_edit::ImDocument::parse(text).ok(),
            overridden: Vec::new(),
            list: Vec::new(),
        }
    }

    /// Records that `key` was set on the command line.
    pub(super) fn overridden(&mut self, key: &str) {
        self.overridden.push(key.to_string());
    }

    /// A problem with `key` (a dotted path; `[i]` indices are allowed).
    pub(super) fn key(&mut self, key: &str, msg: impl Display) {
        let from_set = self
            .overridden
            .iter()
            .any(|o| key == o || key.starts_with(&format!("{o}.")));
        let line = if from_set { None } else { self.line_of(key) };
        let at = match line {
            Some(l) => format!("{}:{l}", self.file),
            None => self.file.clone(),
        };
        let origin = if from_set { " (from --set)" } else { "" };
        let text = format!("{at}: key `{key}`{origin}: {msg}");
        self.list
            .push((line.unwrap_or(usize::MAX), bounded(&text).into_owned()));
    }

    /// A problem with the file as a whole.
    pub(super) fn general(&mut self, msg: impl Display) {
        let text = format!("{}: {msg}", self.file);
        self.list.push((0, bounded(&text).into_owned()));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// All problems, one per line, in the order of the file; `Ok` if there are none.
    pub(super) fn into_result(mut self) -> anyhow::Result<()> {
        if self.list.is_empty() {
            return Ok(());
        }
        self.list.sort_by_key(|&(line, _)| line);
        let n = self.list.len();
        let mut lines: Vec<String> = self
            .list
            .into_iter()
            .take(MAX_SHOWN)
            .map(|(_, m)| m)
            .collect();
        if n > MAX_SHOWN {
            lines.push(format!("... and {} more", n - MAX_SHOWN));
        }
        let head = if n > 1 {
            format!("{n} problems in the scenario:\n")
        } else {
            String::new()
        };
        anyhow::bail!("{head}{}", lines.join("\n"))
    }

    /// The 1-based line where `key` is written in the file.
    fn line_of(&self, key: &str) -> Option<usize> {
        let doc = self.doc.as_ref()?;
        let mut table: &dyn toml_edit::TableLike = doc.as_table();
        let parts: Vec<&str> = key.split('.').collect();
        let mut span = None;
        for (i, part) in parts.iter().enumerate() {
            // `job[2]`: the third table of an array of tables
            let (name, index) = match part.split_once('[') {
                Some((n, rest)) => (n, rest.trim_end_matches(']').parse().unwrap_or(0)),
                None => (*part, 0),
            };
            // a key that is missing (`ranks` left out) is reported on its table's line
            let Some((k, item)) = table.get_key_value(name) else {
                break;
            };
            span = k.span().or_else(|| item.span()).or(span);
            if i + 1 < parts.len() {
                table = match item {
                    toml_edit::Item::ArrayOfTables(a) => {
                        let t = a.get(index)?;
                        span = t.span().or(span);
                        t
                    }
                    other => other.as_table_like()?,
                };
            }
        }
        let at = span?.start;
        Some(self.text[..at.min(self.text.len())].matches('\n').count() + 1)
    }
}

/// The table keys of a serde path: `network.dims[2]` is `["network", "dims"]`.
pub(super) fn key_parts(path: &str) -> Vec<&str> {
    path.split('.')
        .map(|p| p.split('[').next().unwrap_or(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_name_the_line_of_their_key() {
        let text = "[network]\ndims = [4]\n\nlink_bandwidth = 4\n[node]\nx = 1\n";
        let mut p = Problems::new("s.toml".into(), text);
        p.key("node.x", "unknown");
        p.key("network.link_bandwidth", "needs a unit");
        p.key("network.dims[0]", "too small");
        let msg = p.into_result().unwrap_err().to_string();
        let lines: Vec<&str> = msg.lines().collect();
        assert_eq!(lines[0], "3 problems in the scenario:");
        assert_eq!(lines[1], "s.toml:2: key `network.dims[0]`: too small");
        assert_eq!(
            lines[2],
            "s.toml:4: key `network.link_bandwidth`: needs a unit"
        );
        assert_eq!(lines[3], "s.toml:6: key `node.x`: unknown");
    }

    #[test]
    fn keys_from_the_command_line_say_so() {
        let mut p = Problems::new("s.toml".into(), "[network]\ndims = [4]\n");
        p.overridden("network.dims");
        p.key("network.dims", "bad");
        let msg = p.into_result().unwrap_err().to_string();
        assert_eq!(msg, "s.toml: key `network.dims` (from --set): bad");
    }

    #[test]
    fn long_input_is_quoted_within_bounds_and_the_list_is_bounded() {
        let long = "x".repeat(1 << 20);
        let mut p = Problems::new("s.toml".into(), "");
        p.key(
            &format!("network.{long}"),
            format!("cannot read \"{long}\""),
        );
        for i in 0..150 {
            p.general(format!("problem {i}"));
        }
        let msg = p.into_result().unwrap_err().to_string();
        assert!(msg.len() < 10_000, "{} bytes", msg.len());
        assert!(msg.starts_with("151 problems in the scenario:\n"));
        assert!(
            msg.ends_with("\n... and 51 more"),
            "{}",
            &msg[msg.len() - 100..]
        );
    }
}
