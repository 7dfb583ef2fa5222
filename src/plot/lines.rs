//! The line plot of a sweep (`sweep.svg`).

use anyhow::{bail, Result};
use plotters::prelude::*;

/// One line of a sweep's plot: its label, its points, its colour and dash.
pub struct Line {
    /// The line's label.
    pub label: String,
    /// Its points, in plot units.
    pub points: Vec<(f64, f64)>,
    /// Its colour (an index into the palette: the value of the first key the lines differ
    /// in) and its dash (0 solid, then shorter and shorter dashes: the value of the second).
    pub colour: usize,
    /// See `colour`.
    pub dash: usize,
}

/// A line plot of a sweep: `y` against `x`, one line per value of a second key (colours) and
/// of a third (dashes), the legend beside the plot, never over its lines. Axes are
/// logarithmic where asked (for ranges stepped by a factor). `title` may have a second line
/// (after `\n`), drawn smaller.
pub fn lines_svg(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    lines: &[Line],
    (log_x, log_y): (bool, bool),
    x_names: &[String],
) -> Result<String> {
    let all: Vec<(f64, f64)> = lines.iter().flat_map(|l| l.points.clone()).collect();
    if all.is_empty() {
        bail!("nothing to plot: no point has a value");
    }
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
    let palette = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    let mut out = String::new();
    {
        let labelled = lines.len() > 1 || !lines[0].label.is_empty();
        let legend_w = if labelled {
            let longest = lines
                .iter()
                .map(|l| l.label.chars().count())
                .max()
                .unwrap_or(0);
            (longest as u32 * 7 + 50).clamp(120, 320)
        } else {
            0
        };
        let whole = SVGBackend::with_string(&mut out, (900 + legend_w, 600)).into_drawing_area();
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
        let (root, side) = body.split_horizontally(900);
        // the legend: beside the plot, a sample of each line's colour and dash, and its label
        for (i, l) in lines.iter().enumerate().filter(|_| labelled) {
            let y = 20 + i as i32 * 18;
            let c = palette[l.colour % palette.len()];
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
            side.draw(&Text::new(l.label.clone(), (40, y - 6), ("sans-serif", 12)))?;
        }
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
                    .x_labels(10)
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
                    let c = palette[l.colour % palette.len()];
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
                    chart.draw_series(l.points.iter().map(|&p| Circle::new(p, 3, c.filled())))?;
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
