//! The line plot of a sweep (`sweep.svg`): lines of colours, dashes and markers, and a legend
//! beside the plot that says what they mean; the picture grows to hold the whole legend.

use anyhow::{bail, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One line of a sweep's plot: its label, its points, its colour, dash and marker.
pub(crate) struct Line {
    /// The line's label.
    pub(crate) label: String,
    /// Its points, in plot units.
    pub(crate) points: Vec<(f64, f64)>,
    /// Its colour (an index into the palette: the value of the first key the lines differ
    /// in) and its dash (0 solid, then shorter and shorter dashes: the value of the second).
    pub(crate) colour: usize,
    /// See `colour`.
    pub(crate) dash: usize,
    /// Its points' marker: 0 a dot, then a square, a triangle, a cross and a ring, each drawn
    /// around the ones before (a line that repeats another's values stays visible).
    pub(crate) marker: usize,
    /// A few words after the label (`same values as ...`).
    pub(crate) note: Option<String>,
}

/// What the legend says besides the lines: above them, what their styles mean (`colour:
/// ranks`, `dash: algo`); below them, anything else (the network at each x).
#[derive(Default)]
pub(crate) struct Legend {
    /// Lines above the lines' entries.
    pub(crate) head: Vec<String>,
    /// Lines below them.
    pub(crate) tail: Vec<String>,
}

/// Most characters of a legend's line: a longer label is wrapped after a comma.
const LEGEND_CHARS: usize = 60;

use super::PALETTE;

/// Pixels from one legend line to the next.
const ROW: i32 = 16;

/// `text` in lines of at most [`LEGEND_CHARS`], cut after a comma or a space where it can be.
fn wrap(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.chars().count() > LEGEND_CHARS {
        let cut = rest
            .char_indices()
            .take(LEGEND_CHARS)
            .filter(|&(_, c)| c == ',' || c == ' ')
            .map(|(i, c)| i + c.len_utf8())
            .last()
            .unwrap_or_else(|| {
                rest.char_indices()
                    .nth(LEGEND_CHARS)
                    .map_or(rest.len(), |(i, _)| i)
            });
        out.push(rest[..cut].trim_end().to_string());
        rest = rest[cut..].trim_start();
    }
    out.push(rest.to_string());
    // (the lines after the first indented, to read as one entry)
    for l in out.iter_mut().skip(1) {
        l.insert_str(0, "   ");
    }
    out
}

/// What a legend's row begins with.
#[derive(Clone, Copy, PartialEq)]
enum Row {
    /// Nothing: a row of text alone, at the legend's left edge.
    Text,
    /// The sample (colour, dash, marker) of the line of this index, then its label.
    Line(usize),
    /// Nothing, its text beside the samples: the rest of a line's label.
    Beside,
}

/// Pixels from the legend's left edge to a line's label.
const LABEL_X: i32 = 40;

/// The legend's rows: what each begins with, and its text.
fn legend_rows(lines: &[Line], legend: &Legend) -> Vec<(Row, String)> {
    let mut rows: Vec<(Row, String)> = Vec::new();
    for h in &legend.head {
        rows.extend(wrap(h).into_iter().map(|t| (Row::Text, t)));
    }
    for (i, l) in lines.iter().enumerate() {
        if lines.len() == 1 && l.label.is_empty() && l.note.is_none() {
            // (one line of no name: the legend says only what its head and tail do)
            continue;
        }
        let text = match &l.note {
            Some(n) => format!("{} ({n})", l.label),
            None => l.label.clone(),
        };
        for (k, t) in wrap(&text).into_iter().enumerate() {
            rows.push((if k == 0 { Row::Line(i) } else { Row::Beside }, t));
        }
    }
    for t in &legend.tail {
        rows.extend(wrap(t).into_iter().map(|t| (Row::Text, t)));
    }
    rows
}

/// Draws the legend's `rows` on `side`: each line's sample (colour, dash, marker) and text.
fn draw_legend(
    side: &DrawingArea<SVGBackend<'_>, Shift>,
    lines: &[Line],
    rows: &[(Row, String)],
) -> Result<()> {
    for (k, (row, text)) in rows.iter().enumerate() {
        let y = 20 + k as i32 * ROW;
        let x = match *row {
            Row::Line(i) => {
                let l = &lines[i];
                let c = PALETTE[l.colour % PALETTE.len()];
                let style = c.stroke_width(2);
                if l.dash == 0 {
                    side.draw(&PathElement::new(vec![(4, y), (34, y)], style))?;
                } else {
                    let (on, off) = dash_of(l.dash);
                    side.draw(&plotters::element::DashedPathElement::new(
                        vec![(4, y), (34, y)],
                        on,
                        off,
                        style,
                    ))?;
                }
                marker(side, l.marker, (19, y), c)?;
                LABEL_X
            }
            Row::Beside => LABEL_X,
            Row::Text => 4,
        };
        side.draw(&Text::new(text.clone(), (x, y - 6), ("sans-serif", 12)))?;
    }
    Ok(())
}

/// Marker `m` of colour `c` at pixel `at` of `area`: a dot, then larger hollow shapes that
/// frame the ones before.
fn marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    m: usize,
    at: (i32, i32),
    c: RGBColor,
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let line = c.stroke_width(1);
    match m % 5 {
        0 => area.draw(&Circle::new(at, 3, c.filled()))?,
        1 => area.draw(&Rectangle::new(
            [(at.0 - 5, at.1 - 5), (at.0 + 5, at.1 + 5)],
            line,
        ))?,
        2 => area.draw(&TriangleMarker::new(at, 8, line))?,
        3 => area.draw(&Cross::new(at, 6, line))?,
        _ => area.draw(&Circle::new(at, 8, line))?,
    }
    Ok(())
}

/// The axes' ranges of points `all` (not empty), `(x0, x1, log_x), (y0, y1, log_y)`: a margin
/// beyond the first and last points, the y axis from 0 unless logarithmic; an axis is
/// logarithmic where asked and its values are all positive.
#[allow(clippy::type_complexity)]
fn ranges(all: &[(f64, f64)], log_x: bool, log_y: bool) -> ((f64, f64, bool), (f64, f64, bool)) {
    let (mut x0, mut x1) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (mut y0, mut y1) = all
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let log_x = log_x && x0 > 0.0;
    let log_y = log_y && y0 > 0.0;
    if x1 <= x0 {
        (x0, x1) = (x0 - 1.0, x1 + 1.0);
    }
    if y1 <= y0 {
        (y0, y1) = (y0 * 0.9 - 1e-12, y1 * 1.1 + 1e-12);
    }
    // a margin, so that the first and last points are not on the frame
    if log_x {
        (x0, x1) = (x0 / 1.15, x1 * 1.15);
    } else {
        let pad = (x1 - x0) * 0.03;
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    if log_y {
        (y0, y1) = (y0 / 1.3, y1 * 1.3);
    } else {
        y0 = y0.min(0.0);
        y1 *= 1.05;
    }
    ((x0, x1, log_x), (y0, y1, log_y))
}

/// A line plot of a sweep: `y` against `x`, one line per value of the other keys (colours,
/// dashes and markers as `lines` say), the legend beside the plot, never over its lines nor
/// cut (the picture is as tall as the legend needs, and wide enough for its longest line).
/// Axes are logarithmic where asked (for ranges stepped by a factor). `title` may have a
/// second line (after `\n`), drawn smaller.
pub(crate) fn lines_svg(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    lines: &[Line],
    (log_x, log_y): (bool, bool),
    x_names: &[String],
    legend: &Legend,
) -> Result<String> {
    let all: Vec<(f64, f64)> = lines.iter().flat_map(|l| l.points.clone()).collect();
    if all.is_empty() {
        bail!("nothing to plot: no point has a value");
    }
    let ((x0, x1, log_x), (y0, y1, log_y)) = ranges(&all, log_x, log_y);
    let mut out = String::new();
    {
        let labelled = lines.len() > 1
            || !lines[0].label.is_empty()
            || !legend.head.is_empty()
            || !legend.tail.is_empty();
        let rows = if labelled {
            legend_rows(lines, legend)
        } else {
            Vec::new()
        };
        let legend_w = rows
            .iter()
            .map(|(r, t)| t.chars().count() as u32 * 7 + if *r == Row::Text { 14 } else { 50 })
            .max()
            .map_or(0, |w| w.max(120));
        let height = (55 + 30 + rows.len() as u32 * ROW as u32).max(600);
        let whole = SVGBackend::with_string(&mut out, (900 + legend_w, height)).into_drawing_area();
        whole.fill(&WHITE)?;
        let (head, body) = whole.split_vertically(55);
        let (first, second) = title.split_once('\n').unwrap_or((title, ""));
        let centre = ((900 + legend_w) / 2) as i32;
        let centred = |size: u32| {
            ("sans-serif", size).into_font().color(&BLACK).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Center,
                    plotters::style::text_anchor::VPos::Top,
                ),
            )
        };
        head.draw(&Text::new(first.to_string(), (centre, 8), centred(20)))?;
        head.draw(&Text::new(second.to_string(), (centre, 33), centred(13)))?;
        let (left, side) = body.split_horizontally(900);
        let (root, _) = left.split_vertically(545);
        // the legend: beside the plot, a sample of each line's colour, dash and marker, and
        // its label
        draw_legend(&side, lines, &rows)?;
        macro_rules! draw {
            ($xr:expr, $yr:expr) => {{
                let mut chart = ChartBuilder::on(&root)
                    .margin(15)
                    .x_label_area_size(45)
                    .y_label_area_size(90)
                    .build_cartesian_2d($xr, $yr)?;
                chart
                    .configure_mesh()
                    .x_desc(x_desc)
                    .y_desc(y_desc)
                    .x_label_formatter(&|x| {
                        if x_names.is_empty() {
                            short(*x)
                        } else if (x - x.round()).abs() < 1e-9 {
                            x_names.get(x.round() as usize).cloned().unwrap_or_default()
                        } else {
                            String::new()
                        }
                    })
                    .y_label_formatter(&|y| short(*y))
                    .light_line_style(TRANSPARENT)
                    .bold_line_style(BLACK.mix(0.12))
                    // (names: a label at each, none between)
                    .x_labels(if x_names.is_empty() {
                        10
                    } else {
                        x_names.len().max(2)
                    })
                    .y_labels(if log_y { 30 } else { 10 })
                    .draw()?;
                // a logarithmic axis labels whole decades and what is in them; the partial
                // decade at its foot (4 to 9 us under the first 10 us) gets labels here
                if log_y {
                    let d = 10f64.powf(y0.log10().floor());
                    let area = chart.plotting_area();
                    let (left, _) = area.get_base_pixel();
                    let style = ("sans-serif", 11).into_font().color(&BLACK).pos(
                        plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Right,
                            plotters::style::text_anchor::VPos::Center,
                        ),
                    );
                    for m in 1..10 {
                        let v = m as f64 * d;
                        if v >= y0 && v <= y1 {
                            let (_, py) = area.map_coordinate(&(x0, v));
                            // (pixels of the whole picture: what map_coordinate gives)
                            whole
                                .draw(&PathElement::new(vec![(left - 5, py), (left, py)], BLACK))?;
                            whole.draw(&Text::new(short(v), (left - 8, py), style.clone()))?;
                        }
                    }
                }
                for l in lines {
                    let c = PALETTE[l.colour % PALETTE.len()];
                    if l.dash == 0 {
                        chart.draw_series(LineSeries::new(l.points.clone(), c.stroke_width(2)))?;
                    } else {
                        let (on, off) = dash_of(l.dash);
                        chart.draw_series(DashedLineSeries::new(
                            l.points.clone(),
                            on,
                            off,
                            c.stroke_width(2),
                        ))?;
                    }
                    let area = chart.plotting_area();
                    for p in &l.points {
                        // (pixels of the whole picture: what map_coordinate gives)
                        marker(&whole, l.marker, area.map_coordinate(p), c)?;
                    }
                }
            }};
        }
        match (log_x, log_y) {
            (true, true) => draw!((x0..x1).log_scale(), (y0..y1).log_scale()),
            (true, false) => draw!((x0..x1).log_scale(), y0..y1),
            (false, true) => draw!(x0..x1, (y0..y1).log_scale()),
            (false, false) => draw!(x0..x1, y0..y1),
        }
        whole.present()?;
    }
    Ok(out)
}

/// Dash `k` (1, 2, ...): its dash and gap in pixels, shorter for each.
fn dash_of(k: usize) -> (u32, u32) {
    let on = [10u32, 5, 2, 8][(k - 1) % 4];
    (on, if on == 8 { 3 } else { 4 })
}

/// A tick label: no trailing `.0`, and powers of ten for the very large or small.
fn short(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e6 || v.abs() < 1e-3) {
        format!("{v:.1e}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}
