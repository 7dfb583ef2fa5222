//! Pictures (SVG, drawn with plotters): a heat map of link utilization over time, a timeline of
//! the ranks, and the line plot of a sweep (`lines.rs`).
//!
//! The pictures of a run are drawn from the files of its output folder (`links.csv`,
//! `links_timeseries.csv`, `trace.json`), so `mgensim plot DIR` redraws them from a folder
//! alone. However large the run, a picture stays small: links and windows are averaged into at
//! most [`HEAT_ROWS`] × [`HEAT_COLUMNS`] cells, and each rank's row of the timeline into
//! [`TIMELINE_BINS`] bins that show what took most of their time.

mod lines;

use crate::units::Time;
use anyhow::{bail, Context, Result};
pub(crate) use lines::{lines_svg, Legend, Line};
use plotters::prelude::*;
use std::path::Path;

/// The palette of the lines' colours (a sweep's plot, a load-latency curve).
pub(crate) const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Most rows (groups of links) and columns (groups of windows) of the heat map.
pub(crate) const HEAT_ROWS: usize = 200;
/// Columns (time windows) of the heat map at most.
pub(crate) const HEAT_COLUMNS: usize = 300;
/// Bins across the timeline, and most ranks it shows (evenly spread when there are more).
pub(crate) const TIMELINE_BINS: usize = 1200;
/// Ranks drawn in the timeline at most.
pub(crate) const TIMELINE_RANKS: usize = 128;

/// The pictures of output folder `dir`: `heatmap.svg` (if it has a time series) and
/// `timeline.svg` (if it has a trace), as `(file name, SVG)`; `output::draw_folder` writes them.
pub(crate) fn folder_pictures(dir: &Path) -> Result<Vec<(&'static str, String)>> {
    let mut drawn = Vec::new();
    let series = dir.join("links_timeseries.csv");
    if series.exists() {
        drawn.push(("heatmap.svg", Heat::read(dir)?.svg()?));
    }
    let trace = dir.join("trace.json");
    if trace.exists() {
        let text = std::fs::read_to_string(&trace)
            .with_context(|| format!("cannot read {}", trace.display()))?;
        let svg = timeline_svg(&text).with_context(|| format!("{}", trace.display()))?;
        drawn.push(("timeline.svg", svg));
    }
    if drawn.is_empty() {
        bail!(
            "{} has neither links_timeseries.csv nor trace.json to draw (run with --out DIR \
             --plots, or with --interval and --trace DIR/trace.json)",
            dir.display()
        );
    }
    Ok(drawn)
}

/// Perceptually even colours from dark blue (0) to yellow (1) (viridis, by its five anchors).
pub(crate) fn colour(x: f64) -> RGBColor {
    const ANCHORS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let x = x.clamp(0.0, 1.0) * 4.0;
    let i = (x.floor() as usize).min(3);
    let f = x - i as f64;
    let (a, b) = (ANCHORS[i], ANCHORS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Lines of a CSV file we wrote (no quoting), without the header, split at commas; checks
/// the header names the columns the caller needs and returns their indexes.
/// A row of a CSV file: its line number and its fields.
type Row = (usize, Vec<String>);

/// The rows of CSV file `path` (a regular file), each with its line number, and where the
/// columns `need` are.
fn csv(path: &Path, need: &[&str]) -> Result<(Vec<usize>, Vec<Row>)> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        bail!("{}: not a regular file", path.display());
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let idx = need
        .iter()
        .map(|n| {
            header
                .iter()
                .position(|h| h == n)
                .with_context(|| format!("{}: no column `{n}`", path.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    let rows = lines
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(n, l)| (n + 2, l.split(',').map(str::to_string).collect()))
        .collect();
    Ok((idx, rows))
}

/// Column `i` of row `row` (line `line` of `path`) as a number, or an error that names the
/// file, the line and the column, and quotes at most 40 characters of what is there.
fn num<T: std::str::FromStr>(path: &Path, (line, row): &Row, i: usize, what: &str) -> Result<T> {
    let v = row.get(i).map_or("", String::as_str);
    v.parse().ok().with_context(|| {
        let shown: String = v.chars().take(40).collect();
        let more = if shown.len() < v.len() { "..." } else { "" };
        format!(
            "{} line {line}: `{what}` is `{shown}{more}`, not a number",
            path.display()
        )
    })
}

/// The heat map's data: utilization per (group of links, group of windows).
pub(crate) struct Heat {
    /// Link directions (rows).
    pub(crate) links: usize,
    /// Each link's name (`router 3 port 2 -> router 4`), in the order of `links.csv`.
    pub(crate) names: Vec<String>,
    /// Width of a window (ps).
    pub(crate) window_ps: u64,
    /// Windows (columns).
    pub(crate) windows: usize,
    /// `(link, window, busy_ps, window_ps)` of every line of the time series.
    pub(crate) cells: Vec<(usize, usize, u64, u64)>,
}

impl Heat {
    fn read(dir: &Path) -> Result<Heat> {
        let (li, links) = csv(&dir.join("links.csv"), &["kind", "from", "port", "to"])?;
        let names = links
            .iter()
            .map(|r| {
                let f = |i: usize| r.1.get(li[i]).map(String::as_str).unwrap_or("");
                match f(0) {
                    "injection" => format!("NIC {} -> router {}", f(1), f(3)),
                    "ejection" => format!("router {} port {} -> NIC {}", f(1), f(2), f(3)),
                    _ => format!("router {} port {} -> router {}", f(1), f(2), f(3)),
                }
            })
            .collect();
        let path = dir.join("links_timeseries.csv");
        let (i, rows) = csv(&path, &["link", "window_start_ps", "window_ps", "busy_ps"])?;
        let mut cells = Vec::with_capacity(rows.len());
        let mut width = 0u64;
        let mut end = 0u64;
        for r in &rows {
            let (link, start, len, busy): (usize, u64, u64, u64) = (
                num(&path, r, i[0], "link")?,
                num(&path, r, i[1], "window_start_ps")?,
                num(&path, r, i[2], "window_ps")?,
                num(&path, r, i[3], "busy_ps")?,
            );
            let line = r.0;
            if len == 0 {
                bail!(
                    "{} line {line}: `window_ps` is 0; a window has a width (the run's \
                     --interval)",
                    path.display()
                );
            }
            if busy > len {
                bail!(
                    "{} line {line}: `busy_ps` {busy} is longer than its window ({len} ps)",
                    path.display()
                );
            }
            let Some(window_end) = start.checked_add(len).filter(|&e| e <= Time::HORIZON.ps())
            else {
                bail!(
                    "{} line {line}: the window ends past {}, the latest time a run reaches",
                    path.display(),
                    Time::HORIZON
                );
            };
            if start == 0 || width == 0 {
                width = width.max(len);
            }
            end = end.max(window_end);
            cells.push((link, start, busy, len));
        }
        let width = width.max(1);
        let cells = cells
            .into_iter()
            .map(|(l, s, b, len)| (l, (s / width) as usize, b, len))
            .collect();
        Ok(Heat {
            links: links.len(),
            names,
            window_ps: width,
            windows: end.div_ceil(width) as usize,
            cells,
        })
    }

    /// The heat map as SVG.
    pub(crate) fn svg(&self) -> Result<String> {
        let rb = self.links.div_ceil(HEAT_ROWS).max(1);
        let cb = self.windows.div_ceil(HEAT_COLUMNS).max(1);
        let (nr, nc) = (self.links.div_ceil(rb), self.windows.div_ceil(cb));
        // busy time and covered time per cell
        let mut busy = vec![0u64; nr * nc];
        for &(l, w, b, _) in &self.cells {
            if l < self.links {
                busy[(l / rb) * nc + w / cb] += b;
            }
        }
        let cell_ps = |r: usize, c: usize| {
            let links = rb.min(self.links - r * rb) as f64;
            let wins = cb.min(self.windows - c * cb) as f64;
            links * wins * self.window_ps as f64
        };
        let span_us = self.windows as f64 * self.window_ps as f64 / 1e6;
        let util = |k: usize| busy[k] as f64 / cell_ps(k / nc, k % nc).max(1.0);
        // the colours are the share of the time busy on an absolute scale, 0 to 100 %: the
        // same colour means the same load in every picture (and in report.html)
        let top = 1.0;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (1000, 640)).into_drawing_area();
            root.fill(&WHITE)?;
            let (main, bar) = root.split_horizontally(900);
            // the links by name where each row is one and they fit, else by their number in
            // links.csv and the name of the first of each labelled group
            let named = self.links <= 40;
            let mut chart = ChartBuilder::on(&main)
                .caption(
                    "Link utilization over time (colour: share of the time busy)",
                    ("sans-serif", 20),
                )
                .margin(10)
                .x_label_area_size(40)
                .y_label_area_size(if named { 230 } else { 250 })
                .build_cartesian_2d(0.0..span_us.max(1e-6), self.links.max(1) as f64..0.0)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("simulated time (us)")
                .y_desc(if named {
                    "link direction"
                } else {
                    "link direction (its line in links.csv: name)"
                })
                .y_labels(0)
                .draw()?;
            // one label per row, centred on it, or per group of rows when there are many
            let every = self.links.div_ceil(40).max(1);
            let style = ("sans-serif", 10).into_font().color(&BLACK).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Right,
                    plotters::style::text_anchor::VPos::Center,
                ),
            );
            let area = chart.plotting_area();
            let (px0, _) = area.get_base_pixel();
            for i in (0..self.links).step_by(every) {
                let (_, py) = area.map_coordinate(&(0.0, i as f64 + every as f64 / 2.0));
                let n = self.names.get(i).cloned().unwrap_or_default();
                let text = if named { n } else { format!("{i}: {n}") };
                main.draw(&Text::new(text, (px0 - 6, py), style.clone()))?;
            }
            chart.plotting_area().fill(&colour(0.0))?;
            let w_us = (cb as u64 * self.window_ps) as f64 / 1e6;
            chart.draw_series((0..nr * nc).filter(|&k| busy[k] > 0).map(|k| {
                let (r, c) = (k / nc, k % nc);
                let u = util(k) / top;
                let (x0, y0) = (c as f64 * w_us, (r * rb) as f64);
                let (x1, y1) = (x0 + w_us, ((r + 1) * rb).min(self.links) as f64);
                Rectangle::new([(x0, y0), (x1, y1)], colour(u).filled())
            }))?;
            let mut scale = ChartBuilder::on(&bar)
                .margin_top(40)
                .margin_bottom(50)
                .margin_right(10)
                .y_label_area_size(0)
                .right_y_label_area_size(45)
                .build_cartesian_2d(0.0..1.0, 0.0..top)?;
            scale
                .configure_mesh()
                .disable_mesh()
                .disable_x_axis()
                .y_labels(5)
                .y_label_style(("sans-serif", 12))
                .y_label_formatter(&|v| format!("{:.0} %", v * 100.0))
                .draw()?;
            scale.draw_series((0..50).map(|i| {
                let (a, b) = (i as f64 / 50.0, (i + 1) as f64 / 50.0);
                Rectangle::new(
                    [(0.0, a * top), (1.0, b * top)],
                    colour((a + b) / 2.0).filled(),
                )
            }))?;
            root.present()?;
        }
        Ok(out)
    }
}

/// What a span of the timeline is, for its colour.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Compute = 0,
    Poll = 1,
    Complete = 2,
    MpiWait = 3,
    Call = 4,
    Stuck = 5,
}

const KINDS: [(Kind, &str, RGBColor); 6] = [
    (Kind::Compute, "MGEN_Comp", RGBColor(31, 119, 180)),
    (Kind::Poll, "wait: MGEN_rdma_poll", RGBColor(214, 39, 40)),
    (
        Kind::Complete,
        "wait: MGEN_acp_complete",
        RGBColor(255, 127, 14),
    ),
    (
        Kind::MpiWait,
        "wait: MGEN_Recv, MGEN_Wait, ...",
        RGBColor(148, 103, 189),
    ),
    (Kind::Call, "put / get / send", RGBColor(127, 127, 127)),
    (Kind::Stuck, "stuck until the stop", RGBColor(20, 20, 20)),
];

/// Most message arrows the timeline draws (the first ones in time; more would hide the rows).
pub(crate) const TIMELINE_ARROWS: usize = 4000;

/// What the timeline shows, read from a Chrome trace mgensim wrote.
pub(crate) struct TimelineData {
    /// Rank tracks (`tid`), in order, and their names.
    pub(crate) tids: Vec<u64>,
    /// Name of each track (`rank 3`, or `rank 3` of a job's process).
    pub(crate) names: std::collections::BTreeMap<u64, String>,
    /// Spans `(tid, start us, end us, kind or None for a region, label, what it was in
    /// words: the call, its peer, bytes and tag)`.
    spans: Vec<(u64, f64, f64, Option<Kind>, String, String)>,
    /// Message arrows `(from tid, at us, to tid, at us)`, in the order of their start.
    pub(crate) arrows: Vec<(u64, f64, u64, f64)>,
    /// Stuck ranks: `(tid, since us, what it waits for, at)`.
    pub(crate) stuck: Vec<(u64, f64, String, String)>,
    /// The end of the timeline (us).
    pub(crate) end: f64,
}

impl TimelineData {
    /// Reads the trace-event JSON `trace`.
    pub(crate) fn read(trace: &str) -> Result<TimelineData> {
        let v: serde_json::Value = serde_json::from_str(trace).context("not a JSON trace")?;
        let events = v["traceEvents"]
            .as_array()
            .context("no `traceEvents` array")?;
        let mut spans = Vec::new();
        let mut tids: Vec<u64> = Vec::new();
        let mut names = std::collections::BTreeMap::new();
        let mut starts: std::collections::HashMap<(String, u64), (u64, f64)> =
            std::collections::HashMap::new();
        let mut arrows = Vec::new();
        let mut stuck = Vec::new();
        for e in events {
            let tid = e["tid"].as_u64();
            match (e["ph"].as_str(), tid) {
                (Some("M"), Some(t)) if e["name"] == "thread_name" => {
                    tids.push(t);
                    names.insert(t, e["args"]["name"].as_str().unwrap_or("").to_string());
                }
                (Some("X"), Some(t)) => {
                    let ts = e["ts"].as_f64().unwrap_or(0.0);
                    let dur = e["dur"].as_f64().unwrap_or(0.0);
                    let name = e["name"].as_str().unwrap_or("");
                    let kind = match (e["cat"].as_str(), name) {
                        (Some("compute"), _) => Some(Kind::Compute),
                        (Some("wait"), "MGEN_rdma_poll") => Some(Kind::Poll),
                        (Some("wait"), "MGEN_acp_complete") => Some(Kind::Complete),
                        (Some("wait"), _) => Some(Kind::MpiWait),
                        (Some("call"), _) => Some(Kind::Call),
                        (Some("stuck"), _) => {
                            let a = &e["args"];
                            stuck.push((
                                t,
                                ts,
                                a["waits_for"].as_str().unwrap_or("").to_string(),
                                a["at"].as_str().unwrap_or("").to_string(),
                            ));
                            Some(Kind::Stuck)
                        }
                        (Some("region"), _) => None,
                        _ => continue,
                    };
                    let a = &e["args"];
                    let detail = match kind {
                        Some(Kind::Call) => format!(
                            "{name} to rank {}, {}, {}",
                            a["peer"],
                            crate::units::Bytes(a["bytes"].as_u64().unwrap_or(0)),
                            crate::tags::tag_words(a["tag"].as_i64().unwrap_or(0))
                        ),
                        Some(Kind::Poll) => format!("blocked in {name}(tag {})", a["tag"]),
                        Some(Kind::Complete) => format!("blocked in {name}"),
                        Some(Kind::MpiWait) => format!("blocked in {name}"),
                        Some(Kind::Stuck) => format!(
                            "{name}: {}{}",
                            a["waits_for"].as_str().unwrap_or(""),
                            match a["at"].as_str() {
                                Some(at) if !at.is_empty() => format!(" (at {at})"),
                                _ => String::new(),
                            }
                        ),
                        Some(Kind::Compute) => "MGEN_Comp".to_string(),
                        None => format!("region {name}"),
                    };
                    spans.push((t, ts, ts + dur, kind, name.to_string(), detail));
                }
                (Some(ph @ ("s" | "f")), Some(t)) => {
                    let key = (
                        e["name"].as_str().unwrap_or("").to_string(),
                        e["id"].as_u64().unwrap_or(0),
                    );
                    let ts = e["ts"].as_f64().unwrap_or(0.0);
                    if ph == "s" {
                        starts.insert(key, (t, ts));
                    } else if let Some((from, at)) = starts.remove(&key) {
                        arrows.push((from, at, t, ts));
                    }
                }
                _ => {}
            }
        }
        tids.sort_unstable();
        tids.dedup();
        if tids.is_empty() {
            bail!("the trace has no ranks");
        }
        arrows.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        let end = spans.iter().map(|s| s.2).fold(0.0f64, f64::max).max(1e-6);
        Ok(TimelineData {
            tids,
            names,
            spans,
            arrows,
            stuck,
            end,
        })
    }
}

/// The timeline of the ranks from a Chrome trace mgensim wrote, as SVG: every rank shown is
/// labelled, regions are bands with their names, blocked ranks' waits run to the stop in
/// black, and arrows join each put or send to its arrival (the first [`TIMELINE_ARROWS`]).
pub fn timeline_svg(trace: &str) -> Result<String> {
    let d = TimelineData::read(trace)?;
    let tids = &d.tids;
    let step = tids.len().div_ceil(TIMELINE_RANKS);
    let shown: Vec<u64> = tids.iter().copied().step_by(step).collect();
    let row_of: std::collections::HashMap<u64, usize> =
        shown.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    let end = d.end;
    let bin = end / TIMELINE_BINS as f64;
    let time = time_per_bin(&d, &row_of, shown.len(), bin);
    let mut out = String::new();
    {
        let rows = shown.len();
        let row_px = if rows <= 32 { 26 } else { 14 };
        let height = (140 + row_px * rows).clamp(300, 2000) as u32;
        let root = SVGBackend::with_string(&mut out, (1100, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let (top, main) = root.split_vertically(40);
        let mut x = 10;
        for (_, label, c) in KINDS.iter() {
            top.draw(&Rectangle::new([(x, 14), (x + 14, 28)], c.filled()))?;
            top.draw(&Text::new(*label, (x + 20, 16), ("sans-serif", 13)))?;
            x += 34 + 7 * label.len() as i32;
        }
        top.draw(&Rectangle::new(
            [(x, 14), (x + 14, 28)],
            RGBColor(44, 160, 44).mix(0.35).filled(),
        ))?;
        top.draw(&Text::new("region", (x + 20, 16), ("sans-serif", 13)))?;
        let mut chart = ChartBuilder::on(&main)
            .caption(
                if step > 1 {
                    format!("Ranks over time (every {step}th rank of {})", tids.len())
                } else {
                    "Ranks over time".to_string()
                },
                ("sans-serif", 20),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(110)
            .build_cartesian_2d(0.0..end, rows as f64..0.0)?;
        // the rank names are drawn one per row below (the mesh's own labels skip rows)
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("simulated time (us)")
            .y_labels(0)
            .draw()?;
        let label_style = ("sans-serif", if rows <= 32 { 13 } else { 10 })
            .into_font()
            .color(&BLACK)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Right,
                plotters::style::text_anchor::VPos::Center,
            ));
        let stuck_rows: std::collections::HashSet<u64> = d.stuck.iter().map(|s| s.0).collect();
        {
            let area = chart.plotting_area();
            let (px0, _) = area.get_base_pixel();
            for (i, t) in shown.iter().enumerate() {
                let (_, py) = area.map_coordinate(&(0.0, i as f64 + 0.5));
                let mut name = d.names.get(t).cloned().unwrap_or_default();
                if stuck_rows.contains(t) {
                    name.push_str(" (stuck)");
                }
                root.draw(&Text::new(name, (px0 - 6, py), label_style.clone()))?;
            }
        }
        // regions: a band behind the row, with its name where it is wide enough
        let regions: Vec<_> = d
            .spans
            .iter()
            .filter(|s| s.3.is_none())
            .filter_map(|s| Some((*row_of.get(&s.0)? as f64, s)))
            .collect();
        chart.draw_series(regions.iter().map(|(row, s)| {
            Rectangle::new(
                [(s.1, row + 0.04), (s.2, row + 0.96)],
                RGBColor(44, 160, 44).mix(0.35).filled(),
            )
        }))?;
        chart.draw_series(regions.iter().map(|(row, s)| {
            Rectangle::new(
                [(s.1, row + 0.04), (s.2, row + 0.96)],
                RGBColor(30, 110, 30).stroke_width(1),
            )
        }))?;
        if rows <= 8 {
            let min_width = end / 12.0;
            chart.draw_series(regions.iter().filter(|(_, s)| s.2 - s.1 >= min_width).map(
                |(row, s)| {
                    Text::new(
                        s.4.clone(),
                        (s.1 + end / 400.0, row + 0.18),
                        ("sans-serif", 11).into_font().color(&RGBColor(20, 80, 20)),
                    )
                },
            ))?;
        }
        let bars = runs_of_bins(&time, rows, bin);
        chart.draw_series(bars.into_iter().map(|(row, a, b, kind)| {
            let r = row as f64;
            Rectangle::new(
                [(a as f64 * bin, r + 0.28), (b as f64 * bin, r + 0.72)],
                KINDS[kind].2.filled(),
            )
        }))?;
        // who sent to whom: an arrow from the call to the arrival
        let arrow = RGBColor(60, 60, 60).mix(0.55);
        let arrows: Vec<_> = d
            .arrows
            .iter()
            .filter_map(|&(f, a, t, b)| {
                Some((*row_of.get(&f)? as f64, a, *row_of.get(&t)? as f64, b))
            })
            .take(TIMELINE_ARROWS)
            .collect();
        chart.draw_series(arrows.iter().map(|&(r0, a, r1, b)| {
            PathElement::new(vec![(a, r0 + 0.5), (b, r1 + 0.5)], arrow.stroke_width(1))
        }))?;
        chart.draw_series(
            arrows
                .iter()
                .map(|&(_, _, r1, b)| Circle::new((b, r1 + 0.5), 2, arrow.filled())),
        )?;
        root.present()?;
    }
    Ok(out)
}

/// The time each shown rank (its row in `row_of`, `rows` of them) spent in each kind of
/// span, per bin of `bin` microseconds: `[row * TIMELINE_BINS + bin][kind]`.
fn time_per_bin(
    d: &TimelineData,
    row_of: &std::collections::HashMap<u64, usize>,
    rows: usize,
    bin: f64,
) -> Vec<[f64; KINDS.len()]> {
    let mut time = vec![[0.0f64; KINDS.len()]; rows * TIMELINE_BINS];
    for (t, a, b, kind, _, _) in &d.spans {
        let (Some(&row), Some(k)) = (row_of.get(t), kind) else {
            continue;
        };
        let (first, last) = (
            (a / bin) as usize,
            ((b / bin) as usize).min(TIMELINE_BINS - 1),
        );
        for i in first..=last {
            let (lo, hi) = (i as f64 * bin, (i + 1) as f64 * bin);
            let overlap = b.min(hi) - a.max(lo);
            if overlap > 0.0 {
                time[row * TIMELINE_BINS + i][*k as usize] += overlap;
            }
        }
    }
    time
}

/// What took most of each bin of each row (a kind that filled at least a quarter of the bin),
/// merged into runs: `(row, first bin, bin after the last, kind)`.
fn runs_of_bins(
    time: &[[f64; KINDS.len()]],
    rows: usize,
    bin: f64,
) -> Vec<(usize, usize, usize, usize)> {
    let mut bars = Vec::new();
    for row in 0..rows {
        let mut run: Option<(usize, usize)> = None; // (start bin, kind)
        for i in 0..=TIMELINE_BINS {
            let k = (i < TIMELINE_BINS).then(|| {
                let t = &time[row * TIMELINE_BINS + i];
                let (k, &most) = t
                    .iter()
                    .enumerate()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .unwrap_or((0, &0.0));
                (most > 0.0 && t.iter().sum::<f64>() >= bin * 0.25).then_some(k)
            });
            let k = k.flatten();
            if run.map(|r| r.1) != k {
                if let Some((s, kind)) = run {
                    bars.push((row, s, i, kind));
                }
                run = k.map(|k| (i, k));
            }
        }
    }
    bars
}

/// Most spans (calls, waits) the timeline of `report.html` holds; later ones are left out,
/// and the page says from when.
pub(crate) const PAGE_SPANS: usize = 60_000;

/// The timeline as `report.html` draws it (in its script, with zoom and hover): the ranks
/// shown (every `every`th of `ranks`, at most [`TIMELINE_RANKS`]), their spans and regions,
/// the message arrows, and the words each span's tip shows. Times are microseconds.
#[derive(serde::Serialize)]
pub(crate) struct PageTimeline {
    /// The end of the run.
    pub(crate) end_us: f64,
    /// The names of the rows (`rank 3`, `rank 3 (stuck)`).
    pub(crate) rows: Vec<String>,
    /// Ranks in the run, and the step between the ranks shown.
    pub(crate) ranks: usize,
    /// See `ranks`.
    pub(crate) every: usize,
    /// Each kind of span: its legend and its colour (CSS).
    pub(crate) kinds: Vec<(String, String)>,
    /// `[row, start, end, kind, text]`, by row and then start; `text` indexes `texts`.
    pub(crate) spans: Vec<(u32, f64, f64, u8, u32)>,
    /// Regions: `[row, start, end, text]` (their names), by row and then start.
    pub(crate) regions: Vec<(u32, f64, f64, u32)>,
    /// Message arrows `[from row, at, to row, at]`, the first [`TIMELINE_ARROWS`].
    pub(crate) arrows: Vec<(u32, f64, u32, f64)>,
    /// The words of the spans and regions.
    pub(crate) texts: Vec<String>,
    /// Spans left out past [`PAGE_SPANS`], and the earliest start among them (us).
    pub(crate) left_out: usize,
    /// See `left_out`.
    pub(crate) left_out_from_us: f64,
}

/// The timeline of the Chrome trace `trace` (as mgensim writes it) for `report.html`.
pub(crate) fn page_timeline(trace: &str) -> Result<PageTimeline> {
    let d = TimelineData::read(trace)?;
    let every = d.tids.len().div_ceil(TIMELINE_RANKS);
    let shown: Vec<u64> = d.tids.iter().copied().step_by(every).collect();
    let row_of: std::collections::HashMap<u64, u32> = shown
        .iter()
        .enumerate()
        .map(|(i, &t)| (t, i as u32))
        .collect();
    let stuck: std::collections::HashSet<u64> = d.stuck.iter().map(|s| s.0).collect();
    let rows = shown
        .iter()
        .map(|t| {
            let name = d.names.get(t).cloned().unwrap_or_default();
            if stuck.contains(t) {
                format!("{name} (stuck)")
            } else {
                name
            }
        })
        .collect();
    let mut texts: Vec<String> = Vec::new();
    let mut text_id: std::collections::HashMap<String, u32> = Default::default();
    let mut id = |s: &str| -> u32 {
        if let Some(&i) = text_id.get(s) {
            return i;
        }
        texts.push(s.to_string());
        text_id.insert(s.to_string(), texts.len() as u32 - 1);
        texts.len() as u32 - 1
    };
    let mut calls: Vec<(u32, f64, f64, u8, &str)> = Vec::new();
    let mut regions: Vec<(u32, f64, f64, &str)> = Vec::new();
    for (t, a, b, kind, name, detail) in &d.spans {
        let Some(&row) = row_of.get(t) else { continue };
        match kind {
            Some(k) => calls.push((row, *a, *b, *k as u8, detail)),
            None => regions.push((row, *a, *b, name)),
        }
    }
    // the earliest spans, as the trace keeps them (stuck waits always)
    calls.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
    let stuck_kind = Kind::Stuck as u8;
    let (mut kept, mut left_out, mut left_out_from_us) = (Vec::new(), 0, f64::INFINITY);
    for c in calls {
        if kept.len() < PAGE_SPANS || c.3 == stuck_kind {
            kept.push(c);
        } else {
            left_out += 1;
            left_out_from_us = left_out_from_us.min(c.1);
        }
    }
    kept.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
    regions.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.total_cmp(&y.1)));
    let spans = kept
        .into_iter()
        .map(|(r, a, b, k, w)| (r, a, b, k, id(w)))
        .collect();
    let regions = regions
        .into_iter()
        .map(|(r, a, b, w)| (r, a, b, id(w)))
        .collect();
    let arrows = d
        .arrows
        .iter()
        .filter_map(|&(f, a, t, b)| Some((*row_of.get(&f)?, a, *row_of.get(&t)?, b)))
        .take(TIMELINE_ARROWS)
        .collect();
    Ok(PageTimeline {
        end_us: d.end,
        rows,
        ranks: d.tids.len(),
        every,
        kinds: KINDS
            .iter()
            .map(|(_, label, c)| (label.to_string(), format!("rgb({},{},{})", c.0, c.1, c.2)))
            .collect(),
        spans,
        regions,
        arrows,
        texts,
        left_out,
        left_out_from_us: if left_out > 0 { left_out_from_us } else { 0.0 },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_colour_scale_runs_from_dark_to_light() {
        assert_eq!(colour(0.0), RGBColor(68, 1, 84));
        assert_eq!(colour(1.0), RGBColor(253, 231, 37));
        assert_eq!(colour(2.0), colour(1.0), "clamped");
        let lum = |c: RGBColor| c.0 as u32 * 3 + c.1 as u32 * 6 + c.2 as u32;
        assert!((0..10).all(|i| lum(colour(i as f64 / 10.0)) < lum(colour((i + 1) as f64 / 10.0))));
    }
}
