//! `sweep --table`: a column of a sweep's table as a pivot in readable units, and the network
//! of each row, column or point where the points' networks differ.
//!
//! The varied keys are taken in groups (keys zipped together are one group, named by its
//! first key: the others follow from it, `Table::key_groups`): a row per value of the groups
//! but the last, a column per value of the last (with one group, a row per value).

use super::table::{y_column, Table};
use super::*;

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

/// A group of keys as the table's corner names it: its first key, and how many are zipped
/// with it.
fn group_name(t: &Table, g: &[usize]) -> String {
    match g.len() {
        1 => t.header[g[0]].clone(),
        n => format!("{} (+{} zipped)", t.header[g[0]], n - 1),
    }
}

/// The table as a pivot (`sweep --table`): column `y` in readable units, a row per value of
/// the varied keys' groups but the last (in table order), a column per value of the last; a
/// point that failed says `failed`. Where the points' networks differ, a list under it says
/// each column's, row's or point's network (family, shape, routers, nodes, links).
pub fn pivot(t: &Table, y: &str) -> Result<String> {
    let yi = y_column(t, y, "show")?;
    let err = t.column("error");
    let groups = t.key_groups();
    let (row_groups, col_group) = match groups.split_last() {
        Some((last, rest)) if !rest.is_empty() => (rest, Some(last)),
        _ => (&groups[..], None),
    };
    let row_of = |r: &Vec<String>| {
        row_groups
            .iter()
            .map(|g| r[g[0]].as_str())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut rows: Vec<String> = Vec::new();
    let mut cols: Vec<String> = Vec::new();
    let mut cells: BTreeMap<(usize, usize), String> = Default::default();
    // each row's, column's and point's network, where recorded
    let mut nets: Vec<(usize, usize, String)> = Vec::new();
    for r in &t.rows {
        let name = row_of(r);
        let ri = position(&mut rows, name);
        let col = col_group.map_or_else(|| y.to_string(), |g| r[g[0]].clone());
        let ci = position(&mut cols, col);
        let failed = err.is_some_and(|e| !r[e].is_empty());
        let cell = if failed {
            "failed".to_string()
        } else {
            readable(y, &r[yi])
        };
        cells.insert((ri, ci), cell);
        if let Some(n) = t.network(r) {
            nets.push((ri, ci, n));
        }
    }
    // the corner names the rows' keys, and the columns' key
    let row_names: Vec<String> = row_groups.iter().map(|g| group_name(t, g)).collect();
    let corner = match col_group {
        Some(g) => format!("{} \\ {}", row_names.join(" "), group_name(t, g)),
        None => row_names.join(" "),
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
    out += &networks(&nets, &rows, &cols, col_group.is_some());
    Ok(out)
}

/// The place of `v` in `seen`, added at the end if it is new.
fn position(seen: &mut Vec<String>, v: String) -> usize {
    match seen.iter().position(|s| *s == v) {
        Some(i) => i,
        None => {
            seen.push(v);
            seen.len() - 1
        }
    }
}

/// The list of networks under a pivot, where the points' networks differ: by column when each
/// column has one, else by row when each row has one, else by point (row and column).
fn networks(
    nets: &[(usize, usize, String)],
    rows: &[String],
    cols: &[String],
    by_columns: bool,
) -> String {
    let first = nets.first().map(|n| &n.2);
    if nets.iter().all(|n| Some(&n.2) == first) {
        return String::new();
    }
    // the network of each value of `key` (a row's or a column's), if each has one
    let one_each = |key: fn(&(usize, usize, String)) -> usize| {
        let mut of: BTreeMap<usize, &str> = BTreeMap::new();
        for n in nets {
            if *of.entry(key(n)).or_insert(&n.2) != n.2 {
                return None;
            }
        }
        Some(of)
    };
    let (what, list): (&str, Vec<(String, &str)>) =
        match (one_each(|n| n.1).filter(|_| by_columns), one_each(|n| n.0)) {
            (Some(of), _) => (
                "column",
                of.into_iter().map(|(c, n)| (cols[c].clone(), n)).collect(),
            ),
            (None, Some(of)) => (
                "row",
                of.into_iter().map(|(r, n)| (rows[r].clone(), n)).collect(),
            ),
            (None, None) => {
                let mut l: Vec<(String, &str)> = Vec::new();
                for n in nets {
                    let at = format!("{} | {}", rows[n.0], cols[n.1]);
                    if !l.iter().any(|x| x.0 == at) {
                        l.push((at, &n.2));
                    }
                }
                ("point", l)
            }
        };
    let w = list.iter().map(|x| x.0.chars().count()).max().unwrap_or(0);
    let mut out = format!("the network of each {what}:\n");
    for (at, n) in list {
        out += &format!("  {at:<w$}  {n}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(header: &[&str], rows: &[&[&str]]) -> Table {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: rows
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect(),
        }
    }

    #[test]
    fn a_zipped_group_is_one_axis_named_by_its_first_key_and_networks_are_listed() {
        // ranks (2 values) × (topology zipped with dims, 2 values): the columns are the
        // topologies, not the dims the last key holds; each column's network under the table
        let h = [
            "point",
            "workload.ranks",
            "network.topology",
            "network.dims",
            "family",
            "shape",
            "routers",
            "nodes",
            "links",
            "predicted_time_ps",
            "error",
        ];
        let t = table(
            &h,
            &[
                &[
                    "0", "8", "torus", "[2,2,2]", "torus", "2x2x2", "8", "8", "12", "1000000", "",
                ],
                &[
                    "1",
                    "8",
                    "fattree",
                    "[]",
                    "fattree",
                    "radix 4, 2 levels",
                    "6",
                    "8",
                    "8",
                    "2000000",
                    "",
                ],
                &[
                    "2", "64", "torus", "[2,2,2]", "torus", "2x2x2", "8", "8", "12", "3000000", "",
                ],
                &[
                    "3",
                    "64",
                    "fattree",
                    "[]",
                    "fattree",
                    "radix 4, 2 levels",
                    "6",
                    "8",
                    "8",
                    "",
                    "timed out",
                ],
            ],
        );
        assert_eq!(
            pivot(&t, "predicted_time_ps").unwrap(),
            "predicted_time_ps\n\
             workload.ranks \\ network.topology (+1 zipped)  torus  fattree\n\
             8                                               1 us     2 us\n\
             64                                              3 us   failed\n\
             the network of each column:\n  \
             torus    torus 2x2x2: 8 routers, 8 nodes, 12 links\n  \
             fattree  fattree radix 4, 2 levels: 6 routers, 8 nodes, 8 links\n"
        );
    }

    #[test]
    fn a_zipped_key_of_repeated_values_stays_in_its_group() {
        // topology zipped with dims, two topologies of the same dims: the columns are still
        // the topologies (the key that tells the points apart), whatever order the keys are in
        for (h, a, b) in [("network.topology", 2, 3), ("network.dims", 3, 2)] {
            let mut header = vec![
                "point",
                "workload.ranks",
                "",
                "",
                "predicted_time_ps",
                "error",
            ];
            header[a] = "network.topology";
            header[b] = "network.dims";
            let row = |p: &'static str, r: &'static str, t: &'static str, d: &'static str, y| {
                let mut v = vec![p, r, "", "", y, ""];
                v[a] = t;
                v[b] = d;
                v
            };
            let rows = [
                row("0", "8", "torus", "[2,2]", "1000000"),
                row("1", "8", "mesh", "[2,2]", "2000000"),
                row("2", "8", "fattree", "[]", "3000000"),
                row("3", "16", "torus", "[2,2]", "4000000"),
                row("4", "16", "mesh", "[2,2]", "5000000"),
                row("5", "16", "fattree", "[]", "6000000"),
            ];
            let rows: Vec<&[&str]> = rows.iter().map(|r| r.as_slice()).collect();
            let t = table(&header, &rows);
            assert_eq!(t.key_groups(), [vec![1], vec![a, b]], "{h} first");
            let p = pivot(&t, "predicted_time_ps").unwrap();
            let lines: Vec<&str> = p.lines().collect();
            assert_eq!(lines.len(), 4, "{p}");
            assert!(
                lines[1].ends_with("network.topology (+1 zipped)  torus  mesh  fattree"),
                "{p}"
            );
            assert!(
                lines[2].starts_with("8 ") && lines[2].ends_with("1 us  2 us     3 us"),
                "{p}"
            );
        }
    }
}
