//! `curve.svg`: mean packet latency against offered load, one line per case, each with its
//! own colour and marker (lines that coincide stay told apart), stable loads filled and
//! unstable ones hollow, the routes' ideal bound of each case as a dashed vertical line of its
//! colour, and the legend beside the plot (never over it), saying each case's saturation.
//!
//! Latency past saturation grows without bound: the vertical axis stops at twice the highest
//! latency of a stable load (or at the highest latency, if none is stable), and a point above
//! it is drawn on the top edge, hollow (`curve.csv` has its value).

use super::{Case, Point, Saturation};
use anyhow::{bail, Result};
use plotters::prelude::*;

use crate::plot::PALETTE;

/// Pixels of the plot (the legend is beside it).
const W: u32 = 860;
const H: u32 = 560;

/// A marker of shape `shape` (0 circle, 1 triangle, 2 square, 3 diamond) at `at`, filled or not.
fn marker(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    at: (i32, i32),
    shape: usize,
    c: RGBColor,
    filled: bool,
) -> Result<()> {
    let style = if filled {
        c.filled()
    } else {
        c.stroke_width(2)
    };
    let (x, y) = at;
    match shape % 4 {
        0 => area.draw(&Circle::new(at, 4, style))?,
        1 => area.draw(&Polygon::new(
            vec![(x, y - 5), (x - 5, y + 4), (x + 5, y + 4)],
            style,
        ))?,
        2 => area.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style))?,
        _ => area.draw(&Polygon::new(
            vec![(x, y - 5), (x - 5, y), (x, y + 5), (x + 5, y)],
            style,
        ))?,
    }
    Ok(())
}

/// The plot's title: the first case's traffic, without its load.
fn title(cases: &[Case]) -> String {
    let traffic = cases[0]
        .scenario
        .jobs
        .iter()
        .find_map(|j| j.workload.traffic.as_ref())
        .map(|t| t.describe())
        .unwrap_or_default();
    let traffic = traffic
        .rsplit_once(", load")
        .map_or(traffic.as_str(), |t| t.0);
    format!("Load-latency: {traffic}")
}

/// The picture, titled with the first case's traffic.
pub(crate) fn svg(cases: &[Case], points: &[Point], sats: &[Saturation]) -> Result<String> {
    let title = title(cases);
    if points.iter().all(|p| p.summary.packet_latency_ps.is_none()) {
        bail!("nothing to draw: no run delivered a measured packet");
    }
    let lat = |p: &Point| {
        p.summary
            .packet_latency_ps
            .as_ref()
            .map(|l| l.mean as f64 / 1e6)
    };
    let stable_top = points
        .iter()
        .filter(|p| p.unstable.is_none())
        .filter_map(lat)
        .fold(0.0, f64::max);
    let all_top = points.iter().filter_map(lat).fold(0.0, f64::max);
    let y1 = if stable_top > 0.0 {
        (stable_top * 2.0).min(all_top * 1.05)
    } else {
        all_top * 1.05
    };
    let y1 = if y1 > 0.0 { y1 } else { 1.0 };
    let x1 = points.iter().map(|p| p.load).fold(0.0, f64::max).max(
        cases
            .iter()
            .filter_map(|c| c.ideal.as_ref().map(|i| i.0))
            .fold(0.0, f64::max),
    ) * 1.05;
    let labels: Vec<String> = cases
        .iter()
        .zip(sats)
        .map(|(c, s)| {
            let sat = match s.unstable {
                Some(_) => format!("saturation {:.3}", s.stable),
                None => format!("stable to {:.3}", s.stable),
            };
            let ideal = c
                .ideal
                .as_ref()
                .map_or(String::new(), |i| format!(", ideal {:.3}", i.0));
            format!("{} ({sat}{ideal})", c.label)
        })
        .collect();
    let longest = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(34);
    let legend_w = (longest as u32 * 7 + 50).clamp(200, 1400);
    let mut out = String::new();
    {
        let whole = SVGBackend::with_string(&mut out, (W + legend_w, H + 55)).into_drawing_area();
        whole.fill(&WHITE)?;
        let (head, body) = whole.split_vertically(55);
        let centre = ((W + legend_w) / 2) as i32;
        let font = ("sans-serif", 18).into_font().color(&BLACK).pos(
            plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            ),
        );
        head.draw(&Text::new(title.to_string(), (centre, 12), font))?;
        let (root, side) = body.split_horizontally(W);
        for (i, label) in labels.iter().enumerate() {
            let y = 20 + i as i32 * 20;
            let c = PALETTE[i % PALETTE.len()];
            side.draw(&PathElement::new(vec![(4, y), (34, y)], c.stroke_width(2)))?;
            marker(&side, (19, y), i, c, true)?;
            side.draw(&Text::new(label.clone(), (42, y - 7), ("sans-serif", 12)))?;
        }
        let y = 30 + labels.len() as i32 * 20;
        for (k, note) in [
            "filled: stable; hollow: unstable (or off the scale, on the top edge)",
            "dashed vertical: the routes' ideal bound, in the case's colour",
        ]
        .iter()
        .enumerate()
        {
            side.draw(&Text::new(
                note.to_string(),
                (4, y + k as i32 * 16),
                ("sans-serif", 11),
            ))?;
        }
        let mut chart = ChartBuilder::on(&root)
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x1, 0.0..y1)?;
        chart
            .configure_mesh()
            .x_desc("offered load (fraction of each node's injection bandwidth)")
            .y_desc("mean packet latency (us)")
            .light_line_style(TRANSPARENT)
            .bold_line_style(BLACK.mix(0.12))
            .draw()?;
        for (c, case) in cases.iter().enumerate() {
            let colour = PALETTE[c % PALETTE.len()];
            if let Some((b, _)) = case.ideal {
                chart.draw_series(DashedLineSeries::new(
                    vec![(b, 0.0), (b, y1)],
                    6,
                    4,
                    colour.mix(0.8).stroke_width(1),
                ))?;
            }
            let mine: Vec<(f64, f64, bool)> = points
                .iter()
                .filter(|p| p.case == c)
                .filter_map(|p| lat(p).map(|l| (p.load, l, p.unstable.is_none())))
                .collect();
            let line: Vec<(f64, f64)> = mine.iter().map(|&(x, y, _)| (x, y.min(y1))).collect();
            chart.draw_series(LineSeries::new(line, colour.stroke_width(2)))?;
            let area = chart.plotting_area();
            for &(x, y, stable) in &mine {
                let at = area.map_coordinate(&(x, y.min(y1)));
                // (pixels of the whole picture: what map_coordinate gives)
                marker(&whole, at, c, colour, stable && y <= y1)?;
            }
        }
        whole.present()?;
    }
    Ok(out)
}
