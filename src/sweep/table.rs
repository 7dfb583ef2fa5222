//! A sweep's table: its CSV (read back for `--merge`), the merge of shards, and the plot.

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
    /// The table of `outcomes` of a sweep over `keys`: `point`, the keys, the figures, one
    /// column per reported metric (their mean over ranks), and `error`.
    pub fn new(keys: &[String], outcomes: &[Outcome]) -> Table {
        let metrics: std::collections::BTreeSet<&String> = outcomes
            .iter()
            .filter_map(|o| o.result.as_ref().ok())
            .flat_map(|f| f.metrics.keys())
            .collect();
        let mut header = vec!["point".to_string()];
        header.extend(keys.iter().cloned());
        header.extend(FIGURES.iter().map(|s| s.to_string()));
        header.extend(metrics.iter().map(|m| m.to_string()));
        header.push("error".into());
        let rows =
            outcomes
                .iter()
                .map(|o| {
                    let mut row = vec![o.point.to_string()];
                    row.extend(o.values.iter().map(|v| shown(v)));
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
    let keys = |t: &Table| -> Vec<String> {
        let end = t.column(FIGURES[0]).unwrap_or(1);
        t.header[1..end].to_vec()
    };
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
pub fn missing_shards(files: &[std::path::PathBuf], tables: &[Table]) -> Vec<String> {
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

/// A value of column `name` in readable units: `..._ps` and `..._s` columns as times (`14.4
/// us`), others as written.
fn readable(name: &str, value: &str) -> String {
    let time = if name.ends_with("_ps") {
        value.parse::<u64>().ok().map(crate::units::Time)
    } else if name.ends_with("_s") {
        value
            .parse::<f64>()
            .ok()
            .and_then(crate::units::Time::from_secs_f64)
    } else {
        None
    };
    match time {
        Some(t) => t.to_string(),
        None => value.to_string(),
    }
}

/// Column `y`'s index and the end of the varied keys' columns (they start at 1), to `what`
/// (plot, show) the one against the others: an error naming the columns if there is no `y`,
/// or no varied key.
fn y_against_keys(t: &Table, y: &str, what: &str) -> Result<(usize, usize)> {
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
    let end = t.column(FIGURES[0]).unwrap_or(1);
    if end < 2 {
        bail!("no varied key to {what} `{y}` against");
    }
    Ok((yi, end))
}

/// The table as a pivot (`sweep --table`): column `y` in readable units, a row per value of
/// the varied keys but the last (in table order), a column per value of the last; a point that
/// failed says `failed`. With one varied key, a row per value.
pub fn pivot(t: &Table, y: &str) -> Result<String> {
    let (yi, end) = y_against_keys(t, y, "show")?;
    let err = t.column("error");
    let keys = &t.header[1..end];
    // rows: the values of the keys but the last; columns: the last key's values
    let (row_keys, col_key) = if keys.len() == 1 {
        (&keys[..1], None)
    } else {
        (&keys[..keys.len() - 1], Some(end - 1))
    };
    let row_of = |r: &Vec<String>| r[1..1 + row_keys.len()].join(" ");
    let mut rows: Vec<String> = Vec::new();
    let mut cols: Vec<String> = Vec::new();
    let mut cells: std::collections::BTreeMap<(usize, usize), String> = Default::default();
    for r in &t.rows {
        let name = row_of(r);
        let ri = rows.iter().position(|x| *x == name).unwrap_or_else(|| {
            rows.push(name);
            rows.len() - 1
        });
        let col = col_key.map_or_else(|| y.to_string(), |c| r[c].clone());
        let ci = cols.iter().position(|x| *x == col).unwrap_or_else(|| {
            cols.push(col);
            cols.len() - 1
        });
        let failed = err.is_some_and(|e| !r[e].is_empty());
        let cell = if failed {
            "failed".to_string()
        } else {
            readable(y, &r[yi])
        };
        cells.insert((ri, ci), cell);
    }
    // the corner names the rows' keys, and the columns' key
    let corner = match col_key {
        Some(c) => format!("{} \\ {}", row_keys.join(" "), t.header[c]),
        None => row_keys.join(" "),
    };
    let mut grid = vec![std::iter::once(corner)
        .chain(cols.iter().cloned())
        .collect::<Vec<_>>()];
    for (ri, name) in rows.iter().enumerate() {
        let mut line = vec![name.clone()];
        for ci in 0..cols.len() {
            line.push(cells.get(&(ri, ci)).cloned().unwrap_or_default());
        }
        grid.push(line);
    }
    let widths: Vec<usize> = (0..grid[0].len())
        .map(|c| grid.iter().map(|l| l[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = format!("{y}\n");
    for line in &grid {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        out += cells.join("  ").trim_end();
        out.push('\n');
    }
    Ok(out)
}

/// The line plot of a table: column `y` against the first varied key, one line per value of
/// the other keys. Axes are logarithmic when all values are positive and span 16× or more.
pub fn plot(t: &Table, y: &str) -> Result<String> {
    plot_about(t, y, "")
}

/// [`plot`], with a second line under the title saying what was swept (`about`: the
/// scenario and its network).
pub fn plot_about(t: &Table, y: &str, about: &str) -> Result<String> {
    let (yi, end) = y_against_keys(t, y, "plot")?;
    // a key of numbers is an axis of numbers; any other is one of names, in table order. So is
    // a key stepped by a constant factor (`2..512:x2`): evenly spaced, as on a log axis, but
    // with every value written under its point
    let values: Vec<f64> = t
        .rows
        .iter()
        .filter_map(|r| r[1].parse::<f64>().ok())
        .collect();
    let numeric = values.len() == t.rows.len() && !geometric(&values);
    let mut names: Vec<String> = Vec::new();
    if !numeric {
        for r in &t.rows {
            if !names.contains(&r[1]) {
                names.push(r[1].clone());
            }
        }
    }
    let ys: Vec<f64> = t
        .rows
        .iter()
        .filter_map(|r| r[yi].parse::<f64>().ok())
        .collect();
    let y_axis = axis(y, &ys);
    let mut lines: Vec<crate::plot::Line> = Vec::new();
    let (mut colours, mut dashes) = (Vec::new(), Vec::new());
    for r in &t.rows {
        let x = if numeric {
            r[1].parse::<f64>().ok()
        } else {
            names.iter().position(|n| *n == r[1]).map(|i| i as f64)
        };
        let (Some(x), Ok(v)) = (x, r[yi].parse::<f64>()) else {
            continue;
        };
        let v = v * y_axis.1;
        // a line per value of the other keys, each named by its last part (`ranks=16`); the
        // second of them (if any) is the line's dash, the others its colour
        let label = (2..end)
            .map(|i| format!("{}={}", short_key(&t.header[i]), r[i]))
            .collect::<Vec<_>>()
            .join(", ");
        let dash_key = (end > 3).then_some(3);
        let colour_of: String = (2..end)
            .filter(|&i| Some(i) != dash_key)
            .map(|i| r[i].as_str())
            .collect::<Vec<_>>()
            .join("\u{1}");
        let colour = index_of(&mut colours, colour_of);
        let dash = dash_key.map_or(0, |i| index_of(&mut dashes, r[i].clone()));
        match lines.iter_mut().find(|l| l.label == label) {
            Some(l) => l.points.push((x, v)),
            None => lines.push(crate::plot::Line {
                label,
                points: vec![(x, v)],
                colour,
                dash,
            }),
        }
    }
    if lines.is_empty() {
        bail!("nothing to plot: no point has a value of `{y}`");
    }
    let spans = |f: &dyn Fn(&(f64, f64)) -> f64| {
        let v: Vec<f64> = lines.iter().flat_map(|l| l.points.iter().map(f)).collect();
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        lo > 0.0 && hi >= 16.0 * lo
    };
    let log = (numeric && spans(&|p| p.0), spans(&|p| p.1));
    let y_desc = y_axis.0;
    let title = y_desc.split(" (").next().unwrap_or(&y_desc).to_string();
    crate::plot::lines_svg(
        &format!("{title} against {}\n{about}", t.header[1]),
        &t.header[1],
        &y_desc,
        &lines,
        log,
        &names,
    )
}

/// The place of `v` in `seen`, added at the end if it is new.
fn index_of(seen: &mut Vec<String>, v: String) -> usize {
    match seen.iter().position(|s| *s == v) {
        Some(i) => i,
        None => {
            seen.push(v);
            seen.len() - 1
        }
    }
}

/// A key as a legend names it: its last part (`workload.ranks` is `ranks`).
fn short_key(key: &str) -> &str {
    key.rsplit('.').next().unwrap_or(key)
}

/// Whether `v` (three values or more, all positive) steps by one constant factor other than 1.
fn geometric(v: &[f64]) -> bool {
    let mut sorted = v.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    if sorted.len() < 3 || sorted[0] <= 0.0 {
        return false;
    }
    let f = sorted[1] / sorted[0];
    f > 1.0 + 1e-9
        && sorted
            .windows(2)
            .all(|w| ((w[1] / w[0]) / f - 1.0).abs() < 1e-6)
}

/// The label of column `col` of a sweep's table with its unit, and the factor that turns the
/// column's values (`values`) into that unit: times in the unit that suits their largest
/// value, rates in GB/s, shares in %, bytes in KB, MB or GB.
fn axis(col: &str, values: &[f64]) -> (String, f64) {
    let top = values.iter().fold(0.0f64, |a, &v| a.max(v.abs()));
    let time = |name: &str, per_second: f64| {
        let secs = top / per_second;
        let (unit, f) = [(1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")]
            .into_iter()
            .find(|&(u, _)| secs >= u)
            .map_or(("ps", 1e12), |(u, n)| (n, 1.0 / u));
        (format!("{name} ({unit})"), f / per_second)
    };
    let bytes = |name: &str| {
        let (unit, f) = [(1e9, "GB"), (1e6, "MB"), (1e3, "KB")]
            .into_iter()
            .find(|&(u, _)| top >= u)
            .map_or(("B", 1.0), |(u, n)| (n, 1.0 / u));
        (format!("{name} ({unit})"), f)
    };
    match col {
        "predicted_time_ps" => time("predicted time", 1e12),
        "events" => ("events processed".into(), 1.0),
        "packet_hops" => ("packet-hops (link traversals)".into(), 1.0),
        "link_bytes" => bytes("bytes over links"),
        "average_link_bandwidth_bps" => ("mean link bandwidth (GB/s)".into(), 1e-9),
        "link_efficiency" => ("mean link utilization (%)".into(), 100.0),
        c if c.ends_with("_ps") => time(c, 1e12),
        c if c.ends_with("_s") => time(c, 1.0),
        c if c.ends_with("_GBps") => (format!("{c} (GB/s)"), 1.0),
        c if c.ends_with("_bps") => (format!("{c} (GB/s)"), 1e-9),
        c if c.ends_with("_bytes") => bytes(c),
        c => (c.to_string(), 1.0),
    }
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
        match plot_about(t, y, about) {
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
fn shown(v: &str) -> String {
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

    #[test]
    fn axes_carry_their_units() {
        let close = |(l, f): (String, f64), label: &str, factor: f64| {
            assert_eq!(l, label);
            assert!((f / factor - 1.0).abs() < 1e-12, "{f} against {factor}");
        };
        // a time in the unit of its largest value
        close(
            axis("predicted_time_ps", &[2.5e9]),
            "predicted time (ms)",
            1e-9,
        );
        close(
            axis("predicted_time_ps", &[800.0]),
            "predicted time (ps)",
            1.0,
        );
        close(axis("barrier_s", &[1.4e-5, 2e-6]), "barrier_s (us)", 1e6);
        close(
            axis("link_efficiency", &[0.5]),
            "mean link utilization (%)",
            100.0,
        );
        close(axis("link_bytes", &[3e7]), "bytes over links (MB)", 1e-6);
        close(
            axis("average_link_bandwidth_bps", &[3e9]),
            "mean link bandwidth (GB/s)",
            1e-9,
        );
        close(axis("my_count", &[3.0]), "my_count", 1.0);
    }

    #[test]
    fn a_range_stepped_by_a_factor_is_an_axis_of_its_values() {
        assert!(geometric(&[2.0, 4.0, 8.0, 16.0]));
        assert!(
            geometric(&[16.0, 2.0, 8.0, 4.0, 4.0]),
            "in any order, repeated"
        );
        assert!(!geometric(&[1.0, 2.0, 3.0]));
        assert!(!geometric(&[2.0, 4.0]), "two points say nothing");
        let t = Table {
            header: ["point", "workload.ranks", "predicted_time_ps"]
                .map(String::from)
                .to_vec(),
            rows: [
                (2, 1_000_000),
                (4, 2_000_000),
                (8, 4_000_000),
                (16, 9_000_000),
            ]
            .iter()
            .enumerate()
            .map(|(i, (x, y))| vec![i.to_string(), x.to_string(), y.to_string()])
            .collect(),
        };
        let svg = plot(&t, "predicted_time_ps").unwrap();
        for label in ["2", "4", "8", "16", "predicted time (us)"] {
            assert!(
                svg.contains(&format!(">\n{label}\n<")) || svg.contains(&format!(">{label}<")),
                "{label}"
            );
        }
    }
}
