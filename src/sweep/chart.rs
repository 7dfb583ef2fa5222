//! A sweep's line plot (`sweep.svg`): a column of its table against the first varied key, a
//! line per value of the others, with a legend that says what each line style means.
//!
//! The varied keys are taken in groups (keys zipped together are one group, named by its first
//! key: `Table::key_groups`). The first group is the x axis; each line is a value of the others,
//! its colour the value of the first of them and of any after the second, its dash the value of
//! the second (only where there is a second: the legend's head says so). Lines with the same
//! values are drawn with distinct markers and the legend says whose values they repeat. Where
//! the points' networks differ, the legend says each line's network, or each x's.

use super::table::{y_column, Table};
use super::*;
use crate::plot::{Legend, Line};

/// The line plot of a table: column `y` against the first varied key, one line per value of
/// the other keys. Axes are logarithmic when all values are positive and span 16× or more.
pub fn plot(t: &Table, y: &str) -> Result<String> {
    plot_about(t, y, "")
}

/// [`plot`], with a second line under the title saying what was swept (`about`: the
/// scenario and its network).
pub(crate) fn plot_about(t: &Table, y: &str, about: &str) -> Result<String> {
    let yi = y_column(t, y, "plot")?;
    let groups = t.key_groups();
    // the x axis: the first group's key that tells its points apart
    let x = groups[0][0];
    // a key of numbers is an axis of numbers; any other is one of names, in table order. So is
    // a key stepped by a constant factor (`2..512:x2`): evenly spaced, as on a log axis, but
    // with every value written under its point
    let values: Vec<f64> = t
        .rows
        .iter()
        .filter_map(|r| r[x].parse::<f64>().ok())
        .collect();
    let numeric = values.len() == t.rows.len() && !geometric(&values);
    let mut names: Vec<String> = Vec::new();
    if !numeric {
        for r in &t.rows {
            if !names.contains(&r[x]) {
                names.push(r[x].clone());
            }
        }
    }
    let ys: Vec<f64> = t
        .rows
        .iter()
        .filter_map(|r| r[yi].parse::<f64>().ok())
        .collect();
    let y_axis = axis(y, &ys);
    let others = groups.get(1..).unwrap_or(&[]);
    // the second group of lines (if any) is their dash, the others their colour
    let dash_group = others.get(1);
    let mut lines: Vec<Line> = Vec::new();
    let mut networks: Vec<Vec<Option<String>>> = Vec::new();
    let (mut colours, mut dashes) = (Vec::new(), Vec::new());
    for r in &t.rows {
        let at = if numeric {
            r[x].parse::<f64>().ok()
        } else {
            names.iter().position(|n| *n == r[x]).map(|i| i as f64)
        };
        let (Some(at), Ok(v)) = (at, r[yi].parse::<f64>()) else {
            continue;
        };
        let v = v * y_axis.1;
        // a line per value of the other groups, each named by its first key's last part
        let label = others
            .iter()
            .map(|g| format!("{}={}", short_key(&t.header[g[0]]), r[g[0]]))
            .collect::<Vec<_>>()
            .join(", ");
        let colour_of: String = others
            .iter()
            .filter(|&g| Some(g) != dash_group)
            .map(|g| r[g[0]].as_str())
            .collect::<Vec<_>>()
            .join("\u{1}");
        let colour = index_of(&mut colours, colour_of);
        let dash = dash_group.map_or(0, |g| index_of(&mut dashes, r[g[0]].clone()));
        match lines.iter().position(|l| l.label == label) {
            Some(i) => {
                lines[i].points.push((at, v));
                networks[i].push(t.network(r));
            }
            None => {
                lines.push(Line {
                    label,
                    points: vec![(at, v)],
                    colour,
                    dash,
                    marker: 0,
                    note: None,
                });
                networks.push(vec![t.network(r)]);
            }
        }
    }
    if lines.is_empty() {
        bail!("nothing to plot: no point has a value of `{y}`");
    }
    same_values(&mut lines);
    let legend = legend(t, x, others, dash_group, &mut lines, &networks);
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
        &format!("{title} against {}\n{about}", t.header[x]),
        &t.header[x],
        &y_desc,
        &lines,
        log,
        &names,
        &legend,
    )
}

/// Lines whose points are those of an earlier line get the next marker of that value and a
/// note saying whose values they repeat: identical curves stay visible, and the legend says
/// why one hides another.
fn same_values(lines: &mut [Line]) {
    for i in 1..lines.len() {
        let twin = (0..i).find(|&j| lines[j].points == lines[i].points);
        if let Some(j) = twin {
            let marker = lines[..i]
                .iter()
                .filter(|l| l.points == lines[i].points)
                .count();
            let note = format!("same values as {}", lines[j].label);
            lines[i].marker = marker;
            lines[i].note = Some(note);
        }
    }
}

/// The legend's head (what colour and dash mean) and tail (the networks of each x, where they
/// differ along it); each line's network is added to its label where every line has one and
/// they differ.
fn legend(
    t: &Table,
    x: usize,
    others: &[Vec<usize>],
    dash_group: Option<&Vec<usize>>,
    lines: &mut [Line],
    networks: &[Vec<Option<String>>],
) -> Legend {
    let name = |g: &Vec<usize>| {
        let n: Vec<&str> = g.iter().map(|&c| short_key(&t.header[c])).collect();
        n.join(" with ")
    };
    let mut head = Vec::new();
    let colour_groups: Vec<String> = others
        .iter()
        .filter(|&g| Some(g) != dash_group)
        .map(name)
        .collect();
    if !colour_groups.is_empty() && lines.len() > 1 {
        head.push(format!("colour: {}", colour_groups.join(", ")));
    }
    if let Some(g) = dash_group {
        head.push(format!("dash: {}", name(g)));
    }
    let mut tail = Vec::new();
    let all: Vec<&String> = networks.iter().flatten().flatten().collect();
    let differ = all.windows(2).any(|w| w[0] != w[1]);
    let per_line: Option<Vec<&String>> = networks
        .iter()
        .map(|n| {
            let first = n.first()?.as_ref()?;
            n.iter().all(|x| x.as_ref() == Some(first)).then_some(first)
        })
        .collect();
    match per_line {
        Some(nets) if differ && nets.len() == lines.len() => {
            for (l, n) in lines.iter_mut().zip(nets) {
                l.label = format!("{} ({n})", l.label);
            }
        }
        _ if differ => {
            // the network of each x, where each has one
            let mut of: Vec<(String, String)> = Vec::new();
            let mut one_each = true;
            for r in &t.rows {
                let Some(n) = t.network(r) else { continue };
                match of.iter().find(|e| e.0 == r[x]) {
                    Some(e) if e.1 != n => one_each = false,
                    Some(_) => {}
                    None => of.push((r[x].clone(), n)),
                }
            }
            if one_each {
                tail.push(format!("the network at each {}:", short_key(&t.header[x])));
                for (v, n) in of {
                    tail.push(format!("{v}: {n}"));
                }
            } else {
                tail.push(
                    "the networks differ point by point: sweep.csv has each one's family, shape, \
                     routers, nodes and links"
                        .to_string(),
                );
            }
        }
        _ => {}
    }
    Legend { head, tail }
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

#[cfg(test)]
mod tests {
    use super::*;

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
