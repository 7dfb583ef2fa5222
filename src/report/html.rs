//! `report.html`: one self-contained page (no network access, no external script) that a
//! student can open: the summary and what bounded the run (and, for a run that stopped early,
//! why, in the words stderr gave), the values the script reported (`MGEN_report`) as a table,
//! the timeline of the ranks (with message arrows, stuck ranks, and the regions coloured by
//! name and laid out as phases above the ranks), the network drawn as its topology and
//! coloured by link utilization with a time slider that replays the load, and a heat map of
//! every link over time with the links' names. A picture's colour scale runs to the least
//! round share above all but the busiest hundredth of its values ([`Scale::of`]), and the page
//! says where it stops and what was busier, so that a network that was nearly idle shows where
//! its little load went instead of a uniformly dark square.
//!
//! The figures are reduced here, in Rust, so that the page stays small whatever the run: at
//! most [`FRAMES`] frames for the slider, [`HEAT_ROWS`] × [`HEAT_COLUMNS`] cells for the heat
//! map, and [`crate::plot::PAGE_SPANS`] spans of the timeline, which the page's script draws
//! (zoom, hover). Whatever a script named (a region, a rank's note) is data the script sets as
//! text, never markup of the page.

use super::Report;
use serde::Serialize;

/// Most frames of the time slider.
pub(super) const FRAMES: u32 = 64;
/// Most rows (groups of links) of the heat map.
pub(super) const HEAT_ROWS: usize = 240;
/// Most columns (groups of windows) of the heat map.
pub(super) const HEAT_COLUMNS: u32 = 200;

const TEMPLATE: &str = include_str!("report.html");
const SCRIPT: &str = include_str!("report.js");

#[derive(Serialize)]
struct Page<'a> {
    scenario: &'a str,
    shape: &'a str,
    routing: &'a str,
    partial: bool,
    predicted: String,
    ranks: u64,
    finished: u64,
    bound: Option<&'a super::Bound>,
    unfinished: &'a [super::Unfinished],
    /// Why the run stopped early, as stderr said it (None for a run that finished).
    stop: Option<&'a str>,
    /// Whether `stop` lists the unfinished ranks itself (a deadlock's detail does).
    stop_lists_ranks: bool,
    /// The values scripts reported (`MGEN_report`), by name.
    metrics: Vec<MetricRow<'a>>,
    /// Mean utilization of all link directions (NIC links included), 0 to 1.
    link_efficiency: f64,
    /// The busiest link direction's utilization over the run (NIC links included), 0 to 1.
    busiest_link: f32,
    summary: String,
    /// The ranks' timeline, if the run recorded it (drawn by the page's script).
    timeline: Option<crate::plot::PageTimeline>,
    /// Why a picture is missing, if it is.
    missing: Vec<String>,
    topology: Option<Topology>,
    heat: Option<Heat>,
    /// Where the ranks' time went, per call and region (`--profile`), if recorded.
    profile: Option<&'a [crate::probe::profile::ProfileRow]>,
}

/// A value scripts reported, for the page's table.
#[derive(Serialize)]
struct MetricRow<'a> {
    name: &'a str,
    /// Seconds (a name ending in `_s`, the API's convention): shown as times.
    seconds: bool,
    count: u64,
    min: f64,
    mean: f64,
    max: f64,
}

/// A picture's colour scale: colours run from 0 to `top` (a share of the time, 0 to 1), and
/// `above` of the `drawn` values that are not zero are busier than `top`, drawn in its
/// colour; `busiest` is the largest.
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
struct Scale {
    top: f64,
    busiest: f32,
    above: u64,
    drawn: u64,
}

impl Scale {
    /// The scale of `values` (shares, 0 to 1): to [`scale_top`] of the value that all but the
    /// busiest hundredth of those that are not zero are at most (the 99th percentile, by
    /// nearest rank), so that a few busy outliers do not leave the rest dark.
    fn of(values: impl Iterator<Item = f32>) -> Scale {
        let mut v: Vec<f32> = values.filter(|&u| u > 0.0).collect();
        v.sort_by(f32::total_cmp);
        let n = v.len();
        let q = if n == 0 {
            0.0
        } else {
            v[(99 * n).div_ceil(100) - 1]
        };
        let top = scale_top(q);
        Scale {
            top,
            busiest: v.last().copied().unwrap_or(0.0),
            above: v.iter().filter(|&&u| u > top as f32).count() as u64,
            drawn: n as u64,
        }
    }
}

/// The top of a colour scale whose busiest value is `busiest` (a share, 0 to 1): the least of
/// 0.1 %, 0.2 %, 0.5 %, 1 %, 2 %, 5 %, ..., 50 %, 100 % that is at least it, so that a nearly
/// idle network shows its load in colour (the page says the scale's top); 100 % when
/// nothing was busy. (Compared as the page's values are, in `f32`: 0.1 % is at most 0.1 %.)
fn scale_top(busiest: f32) -> f64 {
    const STEPS: [f64; 9] = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5];
    if busiest <= 0.0 {
        return 1.0;
    }
    STEPS
        .into_iter()
        .find(|&t| busiest <= t as f32)
        .unwrap_or(1.0)
}

/// The routers where the topology's family puts them (`topology/`) and the links between
/// them, drawn as the family says.
#[derive(Serialize)]
struct Topology {
    /// `network.topology`.
    kind: String,
    /// How links between routers drawn apart are drawn.
    far_links: crate::topology::layout::FarLinks,
    /// Labels centred on their place (else starting there).
    centred_labels: bool,
    /// A sentence under the picture.
    note: Option<&'static str>,
    /// Each router drawn with its number (a graph's).
    numbered: bool,
    /// `[x, y, name, utilization of its output ports]`.
    routers: Vec<(f32, f32, String, f32)>,
    /// Router-to-router link directions: `[from, to, utilization, name]`.
    links: Vec<(u32, u32, f32, String)>,
    /// Labels of the network's parts (planes, levels, groups): `[x, y, text]`.
    labels: Vec<(f32, f32, String)>,
    /// The slider's frames: their width (ps) and, per frame, `[link, utilization]` of the
    /// links that carried something (indexes into `links`).
    frame_ps: u64,
    frames: Vec<Vec<(u32, f32)>>,
    /// The colour scale of the whole run (links and routers) and that of the frames (a
    /// window's load may be far above the run's mean).
    scale: Scale,
    frame_scale: Scale,
}

/// The heat map: rows of links (their names), columns of time.
#[derive(Serialize)]
struct Heat {
    rows: Vec<String>,
    /// Where each router's links begin (then the NICs' injection links): `[row, label]`, for
    /// the rows' labels when there are too many rows to name each.
    groups: Vec<(u32, String)>,
    columns: u32,
    column_ps: u64,
    /// `[row, column, utilization]` of the cells that are not zero.
    cells: Vec<(u32, u32, f32)>,
    scale: Scale,
}

/// A share (0 to 1) rounded for the page to three significant digits (more than a colour
/// shows, on a scale that may run to 0.1 % only): 0.534, 0.00712.
fn r3(x: f64) -> f32 {
    if x <= 0.0 || !x.is_finite() {
        return 0.0;
    }
    let mut k = 1000.0;
    while x * k < 100.0 && k < 1e12 {
        k *= 10.0;
    }
    ((x * k).round() / k) as f32
}

/// The page of report `r`.
pub fn page(r: &Report) -> String {
    let mut missing = Vec::new();
    let timeline = match &r.trace {
        Some(t) => match crate::plot::page_timeline(t) {
            Ok(tl) => {
                if tl.left_out > 0 {
                    missing.push(format!(
                        "The timeline on this page stops at {:.6} us: it holds {} spans, and                          {} more were left out (the trace file has them all: --trace FILE).",
                        tl.left_out_from_us,
                        crate::plot::PAGE_SPANS,
                        tl.left_out
                    ));
                }
                Some(tl)
            }
            Err(e) => {
                missing.push(format!("The timeline could not be drawn: {e:#}."));
                None
            }
        },
        None => {
            missing.push(format!(
                "The timeline was not recorded: a run of more than {} ranks records it only \
                 when asked (--plots or --trace FILE).",
                crate::probe::REPORT_RANKS
            ));
            None
        }
    };
    if r.trace_dropped.0 > 0 {
        missing.push(format!(
            "The timeline stops at {}: a timeline recorded unasked keeps {} spans, and {} more \
             were left out (--trace FILE or --plots records the whole).",
            crate::units::Time(r.trace_dropped.1),
            crate::probe::REPORT_SPANS,
            r.trace_dropped.0
        ));
    }
    if r.series.is_none() {
        missing.push(format!(
            "The time series was not recorded (no slider, no heat map): a network of more \
             than {} link directions records it only when asked (--plots or --interval TIME).",
            crate::probe::REPORT_CHANNELS
        ));
    }
    let topology = topology(r);
    if topology.is_none() {
        missing.push(format!(
            "The network is not drawn: it has more than {} routers.",
            crate::topology::layout::MAX_DRAWN
        ));
    }
    let page = Page {
        scenario: &r.scenario,
        shape: &r.network.shape,
        routing: &r.network.routing,
        partial: r.partial,
        predicted: crate::units::Time(r.predicted_time_ps).to_string(),
        ranks: r.ranks.count,
        finished: r.ranks.finished,
        bound: r.bound.as_ref(),
        unfinished: &r.ranks.unfinished,
        stop: r.stop.as_deref(),
        stop_lists_ranks: r
            .stop
            .as_deref()
            .is_some_and(|s| s.starts_with("deadlock at")),
        metrics: r
            .metrics
            .iter()
            .map(|(name, m)| MetricRow {
                name,
                seconds: name.ends_with("_s"),
                count: m.count,
                min: m.min,
                mean: m.mean,
                max: m.max,
            })
            .collect(),
        link_efficiency: r.network.link_efficiency,
        busiest_link: r3(
            r.per_link.iter().map(|l| l.busy.ps()).max().unwrap_or(0) as f64
                / r.span_ps().max(1) as f64,
        ),
        // (without the host's line: the page, like every output but `host`, is the same byte
        // for byte for the same scenario and seed)
        summary: r
            .to_string()
            .lines()
            .filter(|l| !l.starts_with("host "))
            .map(|l| format!("{l}\n"))
            .collect(),
        timeline,
        missing,
        profile: r.profile.as_deref(),
        topology,
        heat: heat(r),
    };
    // (`<` written as an escape: the data cannot close its script element)
    let data = serde_json::to_string(&page)
        .unwrap_or_else(|_| "{}".into())
        .replace('<', "\\u003c");
    let title = html_escape(&format!("mgensim: {}", r.scenario));
    fill(
        TEMPLATE,
        &[("TITLE", &title), ("DATA", &data), ("SCRIPT", SCRIPT)],
    )
}

/// `template` with each `{{NAME}}` of `values` replaced by its value, in one pass over the
/// template: what a value contains (a scenario named `{{DATA}}`) is never read as a
/// placeholder. A `{{` that names no value is left as it is.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let hit = values
            .iter()
            .find(|(name, _)| after.starts_with(name) && after[name.len()..].starts_with("}}"));
        match hit {
            Some((name, value)) => {
                out.push_str(value);
                rest = &after[name.len() + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn topology(r: &Report) -> Option<Topology> {
    let layout = r.layout.as_ref()?;
    let span = r.span_ps().max(1) as f64;
    let loads = r.router_loads();
    let routers: Vec<_> = layout
        .places
        .iter()
        .enumerate()
        .map(|(i, (x, y, name))| {
            let u = loads
                .get(i)
                .map_or(0.0, |l| l.busy_ps as f64 / (l.ports.max(1) as f64 * span));
            (*x, *y, name.clone(), r3(u))
        })
        .collect();
    // router-to-router link directions, and where each is in `links.csv`
    let mut index = vec![u32::MAX; r.per_link.len()];
    let mut links = Vec::new();
    for (i, l) in r.per_link.iter().enumerate() {
        if l.port.is_some() && !l.to_nic {
            index[i] = links.len() as u32;
            links.push((
                l.from,
                l.to,
                r3(l.busy.ps() as f64 / span),
                placed_link_name(r, l),
            ));
        }
    }
    let (frame_ps, frames) = match &r.series {
        Some(s) => {
            let per = s.windows.div_ceil(FRAMES).max(1);
            let n = s.windows.div_ceil(per) as usize;
            let width = per as u64 * s.width_ps;
            let mut busy = vec![std::collections::BTreeMap::<u32, u64>::new(); n];
            for row in &s.rows {
                let k = index.get(row.link as usize).copied().unwrap_or(u32::MAX);
                if k != u32::MAX && row.counts.busy_ps > 0 {
                    *busy[(row.window / per) as usize].entry(k).or_default() += row.counts.busy_ps;
                }
            }
            let frames: Vec<Vec<(u32, f32)>> = busy
                .into_iter()
                .map(|m| {
                    m.into_iter()
                        .map(|(k, b)| (k, r3((b as f64 / width as f64).min(1.0))))
                        .collect()
                })
                .collect();
            (width, frames)
        }
        None => (0, Vec::new()),
    };
    let scale = Scale::of(links.iter().map(|l| l.2).chain(routers.iter().map(|r| r.3)));
    let frame_scale = Scale::of(frames.iter().flat_map(|f| f.iter().map(|c| c.1)));
    Some(Topology {
        kind: r.network.topology.clone(),
        far_links: layout.far_links,
        centred_labels: layout.centred_labels,
        note: layout.note,
        numbered: layout.numbered,
        routers,
        links,
        labels: layout.labels.clone(),
        frame_ps,
        frames,
        scale,
        frame_scale,
    })
}

/// A link's name with the places of the routers it joins, where the network is drawn:
/// `router 1 (1,0) port 1 -> router 2 (2,0)`, `NIC 5 -> router 5 (level 1 switch 2)`.
fn placed_link_name(r: &Report, l: &crate::net::router::LinkLoad) -> String {
    let Some(layout) = &r.layout else {
        return l.name();
    };
    // (a cube's places are coordinates in brackets already)
    let at = |router: u32| match layout.places.get(router as usize) {
        Some(p) if p.2.starts_with('(') => format!(" {}", p.2),
        Some(p) => format!(" ({})", p.2),
        None => String::new(),
    };
    match (l.port, l.to_nic) {
        (None, _) => format!("NIC {} -> router {}{}", l.from, l.to, at(l.to)),
        (Some(q), true) => format!("router {}{} port {q} -> NIC {}", l.from, at(l.from), l.to),
        (Some(q), false) => format!(
            "router {}{} port {q} -> router {}{}",
            l.from,
            at(l.from),
            l.to,
            at(l.to)
        ),
    }
}

fn heat(r: &Report) -> Option<Heat> {
    let s = r.series.as_ref()?;
    let n = r.per_link.len();
    let per_row = n.div_ceil(HEAT_ROWS).max(1);
    let rows_n = n.div_ceil(per_row);
    let per_col = s.windows.div_ceil(HEAT_COLUMNS).max(1);
    let cols = s.windows.div_ceil(per_col);
    let mut busy = vec![0u64; rows_n * cols as usize];
    for row in &s.rows {
        let (a, b) = (row.link as usize / per_row, row.window / per_col);
        if a < rows_n {
            busy[a * cols as usize + b as usize] += row.counts.busy_ps;
        }
    }
    let rows = (0..rows_n)
        .map(|i| {
            let (a, b) = (i * per_row, ((i + 1) * per_row).min(n) - 1);
            if a == b {
                placed_link_name(r, &r.per_link[a])
            } else {
                format!(
                    "links {a}-{b} of links.csv ({} ... {})",
                    placed_link_name(r, &r.per_link[a]),
                    placed_link_name(r, &r.per_link[b])
                )
            }
        })
        .collect();
    let groups = row_groups(r, per_row, rows_n);
    let mut cells = Vec::new();
    for (k, &b) in busy.iter().enumerate() {
        if b == 0 {
            continue;
        }
        let (i, j) = (k / cols as usize, k as u32 % cols);
        let links = (((i + 1) * per_row).min(n) - i * per_row) as f64;
        let windows = (((j + 1) * per_col).min(s.windows) - j * per_col) as f64;
        let u = r3((b as f64 / (links * windows * s.width_ps as f64)).min(1.0));
        cells.push((i as u32, j, u));
    }
    let scale = Scale::of(cells.iter().map(|c| c.2));
    Some(Heat {
        rows,
        groups,
        columns: cols,
        column_ps: per_col as u64 * s.width_ps,
        cells,
        scale,
    })
}

/// The heat map's rows (`per_row` links each, `rows` of them) in groups: where the links of
/// each router begin (`router 3 (1,0)`, with its place where the network is drawn), then the
/// NICs' injection links; a row starts the group of its first link.
fn row_groups(r: &Report, per_row: usize, rows: usize) -> Vec<(u32, String)> {
    let mut groups: Vec<(u32, String)> = Vec::new();
    let mut last = None;
    for i in 0..rows {
        let Some(l) = r.per_link.get(i * per_row) else {
            break;
        };
        let key = l.port.map(|_| l.from);
        if i > 0 && key == last {
            continue;
        }
        last = key;
        let label = match key {
            None => "NICs' injection links".to_string(),
            Some(router) => {
                let at = match r
                    .layout
                    .as_ref()
                    .and_then(|x| x.places.get(router as usize))
                {
                    Some(p) if p.2.starts_with('(') => format!(" {}", p.2),
                    Some(p) => format!(" ({})", p.2),
                    None => String::new(),
                };
                format!("router {router}{at}")
            }
        };
        groups.push((i as u32, label));
    }
    groups
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_filled_in_one_pass() {
        let page = fill("<{{A}}|{{B}}|{{C}}|{{A}", &[("A", "{{B}}"), ("B", "b")]);
        assert_eq!(page, "<{{B}}|b|{{C}}|{{A}");
    }

    #[test]
    fn a_colour_scale_runs_to_the_least_round_share_above_its_busiest_value() {
        assert_eq!(scale_top(0.0), 1.0, "an idle network: the full scale");
        assert_eq!(scale_top(0.0007), 0.001);
        assert_eq!(scale_top(0.001), 0.001);
        assert_eq!(scale_top(r3(0.001)), 0.001, "as the page rounds it");
        assert_eq!(scale_top(0.0026), 0.005);
        assert_eq!(scale_top(0.009), 0.01);
        assert_eq!(scale_top(0.143), 0.2);
        assert_eq!(scale_top(0.5), 0.5);
        assert_eq!(scale_top(0.51), 1.0);
        assert_eq!(scale_top(1.0), 1.0);
    }

    #[test]
    fn a_scale_leaves_the_busiest_hundredth_above_its_top() {
        // 200 values of 0.4 %, 2 of 8 % (the hundredth): the scale stops at 0.5 %
        let v = std::iter::repeat_n(0.004f32, 200).chain([0.08, 0.08]);
        let s = Scale::of(v.chain([0.0; 50]));
        assert_eq!((s.top, s.busiest, s.above, s.drawn), (0.005, 0.08, 2, 202));
        // 3 of 202 are more than a hundredth: they set the scale
        let v = std::iter::repeat_n(0.004f32, 199).chain([0.08, 0.08, 0.08]);
        let s = Scale::of(v);
        assert_eq!((s.top, s.above), (0.1, 0));
        let s = Scale::of(std::iter::empty());
        assert_eq!((s.top, s.busiest, s.drawn), (1.0, 0.0, 0));
    }

    #[test]
    fn shares_keep_three_significant_digits() {
        assert_eq!(r3(0.53449), 0.534);
        assert_eq!(r3(0.0071249), 0.00712);
        assert_eq!(r3(1.0), 1.0);
        assert_eq!(r3(0.0), 0.0);
        assert_eq!(r3(2.6e-5), 2.6e-5);
    }

    #[test]
    fn markup_in_a_name_stays_text() {
        assert_eq!(html_escape("<b>&\""), "&lt;b&gt;&amp;&quot;");
    }
}
