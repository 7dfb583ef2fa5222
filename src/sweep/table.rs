//! A sweep's table: its CSV (read back for `--merge`), the merge of shards, and where the
//! varied keys and each point's network are in it (the plot is `chart.rs`, the `--table`
//! `pivot.rs`).

use super::*;

/// A sweep's table: header and rows of fields (unquoted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// One row per point.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table of `outcomes` of a sweep over `keys`: `point`, the keys, the point's network
    /// ([`record::COLUMNS`]), the figures, one column per reported metric (their mean over
    /// ranks), and `error`.
    pub fn new(keys: &[String], outcomes: &[Outcome]) -> Table {
        let metrics: std::collections::BTreeSet<&String> = outcomes
            .iter()
            .filter_map(|o| o.result.as_ref().ok())
            .flat_map(|f| f.metrics.keys())
            .collect();
        let mut header = vec!["point".to_string()];
        header.extend(keys.iter().cloned());
        header.extend(record::COLUMNS.iter().map(|s| s.to_string()));
        header.extend(FIGURES.iter().map(|s| s.to_string()));
        header.extend(metrics.iter().map(|m| m.to_string()));
        header.push("error".into());
        let rows =
            outcomes
                .iter()
                .map(|o| {
                    let mut row = vec![o.point.to_string()];
                    row.extend(o.values.iter().map(|v| shown(v)));
                    match &o.record {
                        Some(r) => row.extend(r.fields()),
                        None => row.resize(row.len() + record::COLUMNS.len(), String::new()),
                    }
                    match &o.result {
                        Ok(f) => {
                            row.extend([
                                f.predicted_time_ps.to_string(),
                                f.events.to_string(),
                                f.packet_hops.to_string(),
                                f.link_bytes.to_string(),
                                fixed(f.average_link_bandwidth_bps, 3),
                                significant(f.link_efficiency),
                            ]);
                            row.extend(metrics.iter().map(|m| {
                                f.metrics.get(*m).map_or(String::new(), |&v| metric(m, v))
                            }));
                            row.push(String::new());
                        }
                        Err(e) => {
                            row.resize(row.len() + FIGURES.len() + metrics.len(), String::new());
                            row.push(one_line(e));
                        }
                    }
                    row
                })
                .collect();
        Table { header, rows }
    }

    /// As CSV (RFC 4180: fields with commas, quotes or line breaks are quoted).
    pub fn to_csv(&self) -> String {
        let line = |fields: &[String]| {
            fields
                .iter()
                .map(|f| crate::output::csv_field(f))
                .collect::<Vec<_>>()
                .join(",")
                + "\n"
        };
        let mut out = line(&self.header);
        for r in &self.rows {
            out += &line(r);
        }
        out
    }

    /// Parses a table written by [`Table::to_csv`].
    pub fn from_csv(text: &str) -> Result<Table> {
        let mut records = Vec::new();
        let (mut field, mut record, mut quoted, mut chars) =
            (String::new(), Vec::new(), false, text.chars().peekable());
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                (true, '"') => quoted = false,
                (false, '"') if field.is_empty() => quoted = true,
                (false, ',') => record.push(std::mem::take(&mut field)),
                (false, '\n') => {
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                }
                (false, '\r') => {}
                _ => field.push(c),
            }
        }
        if !field.is_empty() || !record.is_empty() {
            record.push(field);
            records.push(record);
        }
        let mut it = records.into_iter();
        let header = it.next().context("an empty file")?;
        if header.first().map(String::as_str) != Some("point") {
            bail!("not a sweep table (its first column is not `point`)");
        }
        if header.last().map(String::as_str) != Some("error") {
            bail!("its header does not end with the column `error`: the file was cut");
        }
        let rows: Vec<Vec<String>> = it.collect();
        if let Some((i, r)) = rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.len() != header.len())
        {
            bail!(
                "record {} has {} fields, the header {}: {}",
                i + 2,
                r.len(),
                header.len(),
                crate::words::shown(&r.join(","))
            );
        }
        Ok(Table { header, rows })
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// One past the varied keys' columns (they start at 1): where the points' networks begin
    /// (a table written before they were recorded goes straight to the figures).
    pub(super) fn keys_end(&self) -> usize {
        self.column(record::COLUMNS[0])
            .or_else(|| self.column(FIGURES[0]))
            .unwrap_or(1)
    }

    /// Row `r`'s network in words, if the table records it.
    pub(super) fn network(&self, r: &[String]) -> Option<String> {
        let at = self.column(record::COLUMNS[0])?;
        let f = r.get(at..at + record::COLUMNS.len())?;
        (!f[0].is_empty()).then(|| record::words(f))
    }

    /// The varied keys' columns in groups of keys that vary together: a key whose values
    /// follow from the previous key's, or the previous key's from its, row by row (keys zipped
    /// with `--zip`), is in the previous key's group, unless one of the two has one value. Each group's first
    /// column is the key whose values tell its points apart (the first such; the group's first
    /// key where none does): its value names the group's.
    pub(super) fn key_groups(&self) -> Vec<Vec<usize>> {
        // the distinct values of columns `cs` together
        let distinct = |cs: &[usize]| {
            let mut v: Vec<Vec<&str>> = self
                .rows
                .iter()
                .map(|r| cs.iter().map(|&c| r[c].as_str()).collect())
                .collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        };
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for c in 1..self.keys_end() {
            // one follows from the other: the pairs are as many as the values of one of them
            // (a key of one value beside one of more is an axis of its own: varied on
            // purpose, to be shown as one)
            let with_last = c > 1 && {
                let (pairs, a, b) = (distinct(&[c - 1, c]), distinct(&[c - 1]), distinct(&[c]));
                (pairs == a || pairs == b) && (a == 1) == (b == 1)
            };
            match groups.last_mut() {
                Some(g) if with_last => g.push(c),
                _ => groups.push(vec![c]),
            }
        }
        for g in &mut groups {
            let all = distinct(g);
            if let Some(i) = g.iter().position(|&c| distinct(&[c]) == all) {
                let lead = g.remove(i);
                g.insert(0, lead);
            }
        }
        groups
    }
}

/// `v` to `decimals` places, without trailing zeros (`519067.489`, not 519067.48880608124).
fn fixed(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        &s
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// `v` to 9 significant digits (more than a ratio of the model's integers means in a plot).
fn significant(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return v.to_string();
    }
    let places = (8 - v.abs().log10().floor() as i64).clamp(0, 30) as usize;
    fixed(v, places)
}

/// A reported value's mean as the table keeps it: a time in seconds (`*_s`) to the model's
/// picosecond, anything else to 9 significant digits.
fn metric(name: &str, v: f64) -> String {
    if name.ends_with("_s") {
        fixed(v, 12)
    } else {
        significant(v)
    }
}

/// An error message on one line (its lines joined with ` | `), at most 400 characters.
fn one_line(e: &str) -> String {
    let s = e
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    match s.char_indices().nth(400) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// Joins the tables of a sweep's shards: the union of their columns (metrics may differ), rows
/// in point order. The varied keys must be the same.
pub fn merge(tables: &[Table]) -> Result<Table> {
    let first = tables.first().context("nothing to merge")?;
    let keys = |t: &Table| -> Vec<String> { t.header[1..t.keys_end()].to_vec() };
    let k = keys(first);
    let mut metrics = std::collections::BTreeSet::new();
    for t in tables {
        if keys(t) != k {
            bail!(
                "the shards vary different keys: {} and {}",
                k.join(", "),
                keys(t).join(", ")
            );
        }
        let from = t.column(FIGURES[FIGURES.len() - 1]).map_or(0, |i| i + 1);
        let to = t.column("error").unwrap_or(t.header.len());
        metrics.extend(t.header[from..to].iter().cloned());
    }
    let mut header = vec!["point".to_string()];
    header.extend(k.iter().cloned());
    // (the points' networks, where any shard recorded them)
    if tables
        .iter()
        .any(|t| t.column(record::COLUMNS[0]).is_some())
    {
        header.extend(record::COLUMNS.iter().map(|s| s.to_string()));
    }
    header.extend(FIGURES.iter().map(|s| s.to_string()));
    header.extend(metrics.iter().cloned());
    header.push("error".into());
    let mut rows: Vec<(usize, Vec<String>)> = Vec::new();
    for t in tables {
        for r in &t.rows {
            let point: usize = r[0].parse().with_context(|| format!("point `{}`", r[0]))?;
            if rows.iter().any(|(p, _)| *p == point) {
                bail!("point {point} is in two shards");
            }
            let row = header
                .iter()
                .map(|h| t.column(h).map_or(String::new(), |i| r[i].clone()))
                .collect();
            rows.push((point, row));
        }
    }
    rows.sort_by_key(|(p, _)| *p);
    Ok(Table {
        header,
        rows: rows.into_iter().map(|(_, r)| r).collect(),
    })
}

/// What is missing from the shards `tables` (read from `files`) for them to be a whole
/// sweep, each said in a few words: the shards their names (`sweep.shard-I-of-N.csv`, as
/// `--shard` writes them) say belong to the set and are not given, and the points between
/// the first and the last that no shard holds. Empty when nothing is seen missing.
pub(crate) fn missing_shards(files: &[std::path::PathBuf], tables: &[Table]) -> Vec<String> {
    let mut said = Vec::new();
    // `…shard-I-of-N.csv`
    let named = |f: &std::path::PathBuf| -> Option<(u64, u64)> {
        let name = f.file_name()?.to_str()?;
        let rest = &name[name.rfind("shard-")? + "shard-".len()..];
        let (i, rest) = rest.split_once("-of-")?;
        let n = rest.strip_suffix(".csv")?;
        Some((i.parse().ok()?, n.parse().ok()?))
    };
    let shards: Vec<(u64, u64)> = files.iter().filter_map(named).collect();
    let sets: std::collections::BTreeSet<u64> = shards.iter().map(|s| s.1).collect();
    if sets.len() > 1 {
        let sets: Vec<String> = sets.iter().map(|n| format!("of {n}")).collect();
        said.push(format!(
            "the files name shards of different sets ({})",
            sets.join(", ")
        ));
    } else if let Some(&n) = sets.first() {
        let given: std::collections::BTreeSet<u64> = shards.iter().map(|s| s.0).collect();
        let absent: Vec<String> = (1..=n.min(1 << 20))
            .filter(|i| !given.contains(i))
            .map(|i| i.to_string())
            .collect();
        if !absent.is_empty() {
            said.push(format!(
                "shard{} {} of {n} (sweep.shard-I-of-{n}.csv)",
                if absent.len() > 1 { "s" } else { "" },
                list(&absent)
            ));
        }
    }
    let mut points: Vec<u64> = tables
        .iter()
        .flat_map(|t| t.rows.iter().filter_map(|r| r.first()?.parse().ok()))
        .collect();
    points.sort_unstable();
    points.dedup();
    let mut gaps = Vec::new();
    let mut next = 0u64;
    for &p in &points {
        gaps.extend(
            (next..p)
                .take(11 - gaps.len().min(11))
                .map(|g| g.to_string()),
        );
        next = p + 1;
    }
    if !gaps.is_empty() {
        said.push(format!(
            "point{} {} (no shard given holds {})",
            if gaps.len() > 1 { "s" } else { "" },
            list(&gaps),
            if gaps.len() > 1 { "them" } else { "it" }
        ));
    }
    said
}

/// At most ten items, comma-separated, and "..." if there are more.
fn list(items: &[String]) -> String {
    let mut s = items[..items.len().min(10)].join(", ");
    if items.len() > 10 {
        s += ", ...";
    }
    s
}

/// Column `y`'s index, to `what` (plot, show) it against the varied keys: an error naming the
/// columns if there is no `y` (with the nearest), or no varied key.
pub(super) fn y_column(t: &Table, y: &str, what: &str) -> Result<usize> {
    let yi = t.column(y).with_context(|| {
        let near = crate::words::closest(y, t.header.iter().map(String::as_str))
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        format!(
            "no column `{}` to {what}{near} (columns: {})",
            crate::words::shown(y),
            t.header.join(", ")
        )
    })?;
    if t.keys_end() < 2 {
        bail!("no varied key to {what} `{y}` against");
    }
    Ok(yi)
}

/// Writes the table as `name.csv` into `dir`, and its plot of `plot_y` as `name.svg` (`about`
/// under its title); returns the files written and, if the plot could not be drawn, why.
pub fn write(
    dir: &Path,
    name: &str,
    t: &Table,
    plot_y: Option<&str>,
    about: &str,
) -> Result<(Vec<String>, Option<String>)> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let csv = format!("{name}.csv");
    crate::output::write_atomic(&dir.join(&csv), t.to_csv().as_bytes())
        .with_context(|| format!("cannot write {}", dir.join(&csv).display()))?;
    let mut files = vec![csv];
    let mut skipped = None;
    if let Some(y) = plot_y {
        match super::chart::plot_about(t, y, about) {
            Ok(svg) => {
                let f = format!("{name}.svg");
                crate::output::write_atomic(&dir.join(&f), svg.as_bytes())
                    .with_context(|| format!("cannot write {}", dir.join(&f).display()))?;
                files.push(f);
            }
            Err(e) => skipped = Some(format!("no plot: {e:#}")),
        }
    }
    Ok((files, skipped))
}

/// A value as the table shows it: a TOML string without its quotes (`"4 GB/s"` is `4 GB/s`),
/// anything else as written.
pub(super) fn shown(v: &str) -> String {
    match toml::from_str::<toml::Table>(&format!("v = {v}")) {
        Ok(t) => match t.get("v") {
            Some(toml::Value::String(s)) => s.clone(),
            _ => v.to_string(),
        },
        Err(_) => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_shown_without_their_toml_quotes() {
        assert_eq!(shown("\"4 GB/s\""), "4 GB/s");
        assert_eq!(shown("'ring'"), "ring");
        assert_eq!(shown("ring"), "ring");
        assert_eq!(shown("[8,8,8]"), "[8,8,8]");
        assert_eq!(shown("512"), "512");
    }

    #[test]
    fn csv_round_trips_with_quotes() {
        let t = Table {
            header: vec!["point".into(), "network.dims".into(), "error".into()],
            rows: vec![
                vec!["0".into(), "[4,4]".into(), "".into()],
                vec!["1".into(), "a\"b".into(), "x,\ny".into()],
            ],
        };
        let csv = t.to_csv();
        assert!(csv.contains("\"[4,4]\""));
        assert_eq!(Table::from_csv(&csv).unwrap(), t);
    }

    #[test]
    fn shards_merge_back_in_point_order_with_the_union_of_metrics() {
        let t = |rows: Vec<Vec<&str>>, metric: &str| Table {
            header: ["point", "k"]
                .iter()
                .chain(FIGURES.iter())
                .chain([metric, "error"].iter())
                .map(|s| s.to_string())
                .collect(),
            rows: rows
                .into_iter()
                .map(|r| r.into_iter().map(String::from).collect())
                .collect(),
        };
        let a = t(
            vec![vec!["1", "4", "10", "", "", "", "", "", "0.5", ""]],
            "m1",
        );
        let b = t(vec![vec!["0", "2", "5", "", "", "", "", "", "7", ""]], "m2");
        let m = merge(&[a.clone(), b]).unwrap();
        assert_eq!(m.rows.len(), 2);
        assert_eq!(m.rows[0][0], "0");
        assert_eq!(m.rows[0][m.column("m2").unwrap()], "7");
        assert_eq!(m.rows[0][m.column("m1").unwrap()], "");
        assert_eq!(m.rows[1][m.column("m1").unwrap()], "0.5");
        assert!(merge(&[a.clone(), a])
            .unwrap_err()
            .to_string()
            .contains("two shards"));
        assert_eq!(parse_shard("2/4").unwrap(), (2, 4));
        assert!(parse_shard("0/4").is_err() && parse_shard("5/4").is_err());
    }

    #[test]
    fn values_are_kept_to_the_model_s_precision() {
        // a rate to the milli-byte per second, a share to 9 significant digits
        assert_eq!(fixed(519067.48880608124, 3), "519067.489");
        assert_eq!(fixed(2.0, 3), "2");
        assert_eq!(significant(0.0001297668722015203), "0.000129766872");
        assert_eq!(significant(1.7351475212345), "1.73514752");
        assert_eq!(significant(0.0), "0");
        // a time in seconds to the picosecond: a mean of ps values that binary fractions blur
        assert_eq!(
            metric("barrier_s", 0.000057702108000000004),
            "0.000057702108"
        );
        assert_eq!(metric("barrier_s", 1.5e-13), "0");
        assert_eq!(metric("bandwidth_GBps", 2.324000660001), "2.32400066");
    }
}
