//! `report.html`: one self-contained page (no network access, no external script) that a
//! student can open: the summary and what bounded the run, the timeline of the ranks (with
//! message arrows and stuck ranks), the network drawn as its topology and coloured by link
//! utilization with a time slider that replays the load, and a heat map of every link over
//! time with the links' names.
//!
//! The figures are reduced here, in Rust, so that the page stays small whatever the run: at
//! most [`FRAMES`] frames for the slider, [`HEAT_ROWS`] × [`HEAT_COLUMNS`] cells for the heat
//! map, and [`crate::plot::PAGE_SPANS`] spans of the timeline, which the page's script draws
//! (zoom, hover). Whatever a script named (a region, a rank's note) is data the script sets as
//! text, never markup of the page.

use super::{link_name, Report};
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

/// The routers where the topology's family puts them (`net/topology/`) and the links between
/// them, drawn as the family says.
#[derive(Serialize)]
struct Topology {
    /// `network.topology`.
    kind: String,
    /// How links between routers drawn apart are drawn.
    far_links: crate::net::topology::layout::FarLinks,
    /// Labels centred on their place (else starting there).
    centred_labels: bool,
    /// A sentence under the picture.
    note: Option<&'static str>,
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
}

/// The heat map: rows of links (their names), columns of time.
#[derive(Serialize)]
struct Heat {
    rows: Vec<String>,
    columns: u32,
    column_ps: u64,
    /// `[row, column, utilization]` of the cells that are not zero.
    cells: Vec<(u32, u32, f32)>,
    top: f32,
}

/// Rounded for the page: three decimals are more than a colour shows.
fn r3(x: f64) -> f32 {
    ((x * 1000.0).round() / 1000.0) as f32
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
            crate::net::topology::layout::MAX_DRAWN
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
    let routers = layout
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
            let frames = busy
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
    Some(Topology {
        kind: r.network.topology.clone(),
        far_links: layout.far_links,
        centred_labels: layout.centred_labels,
        note: layout.note,
        routers,
        links,
        labels: layout.labels.clone(),
        frame_ps,
        frames,
    })
}

/// A link's name with the places of the routers it joins, where the network is drawn:
/// `router 1 (1,0) port 1 -> router 2 (2,0)`, `NIC 5 -> router 5 (level 1 switch 2)`.
fn placed_link_name(r: &Report, l: &crate::net::router::LinkLoad) -> String {
    let Some(layout) = &r.layout else {
        return link_name(l);
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
    let mut cells = Vec::new();
    let mut top = 0f32;
    for (k, &b) in busy.iter().enumerate() {
        if b == 0 {
            continue;
        }
        let (i, j) = (k / cols as usize, k as u32 % cols);
        let links = (((i + 1) * per_row).min(n) - i * per_row) as f64;
        let windows = (((j + 1) * per_col).min(s.windows) - j * per_col) as f64;
        let u = r3((b as f64 / (links * windows * s.width_ps as f64)).min(1.0));
        top = top.max(u);
        cells.push((i as u32, j, u));
    }
    Some(Heat {
        rows,
        columns: cols,
        column_ps: per_col as u64 * s.width_ps,
        cells,
        top,
    })
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
    fn markup_in_a_name_stays_text() {
        assert_eq!(html_escape("<b>&\""), "&lt;b&gt;&amp;&quot;");
    }
}
