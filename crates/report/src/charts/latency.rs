//! Chart: latency percentile curves, one line per scenario and one panel per payload group, on a
//! "nines" x axis (0, 90, 99, 99.9, 99.99: each step is ten times rarer) and a log latency axis.

use plotters::prelude::*;

use super::{frame, group_label, header, header_height, house_style, line_style};
use super::{Dash, DrawResult, Drawn, Key, Scale, Ticked, WIDTH};
use crate::format;
use crate::model::{payload_groups, Report, Row};

/// The axis always reaches 99.99; it goes further (up to 99.9999) when curves do.
const MIN_NINES: f64 = 4.0;
const MAX_NINES: f64 = 6.0;

/// Position of a percentile on the nines axis: 90 → 1, 99 → 2, 99.9 → 3. `None` for 100 (the
/// maximum has no finite position) and past the axis.
pub fn nines(percentile: f64) -> Option<f64> {
    let x = -(1.0 - percentile / 100.0).log10();
    (x.is_finite() && (0.0..=MAX_NINES + 1e-9).contains(&x)).then_some(x.max(0.0))
}

/// Tick label of a nines position: 0 → `0`, 1 → `90`, 3 → `99.9`.
fn nines_label(x: f64) -> String {
    let k = x.round() as i32;
    if k <= 0 {
        return "0".into();
    }
    format!("{:.*}", (k - 2).max(0) as usize, 100.0 - 100.0 / 10f64.powi(k))
}

/// A latency tick without trailing zeros: `1 ms`, `2.5 ms`, `100 µs`.
pub(super) fn tick_label(us: f64) -> String {
    let text = format::latency_us(us);
    match text.split_once(' ') {
        Some((n, unit)) if n.contains('.') => format!("{} {unit}", n.trim_end_matches('0').trim_end_matches('.')),
        _ => text,
    }
}

/// Height of one panel's plot, below its title and legend.
const PANEL_PLOT: u32 = 240;

/// The scenarios of one payload group: their curves and the legend naming them.
struct Panel<'a> {
    subtitle: String,
    curves: Vec<&'a Vec<(f64, f64)>>,
    legend: Vec<(String, Key)>,
}

/// One panel per payload group (as the req/s chart colours them), so each panel compares the
/// transports on one payload; all panels share both axes. Skipped when no scenario has a latency
/// curve of at least two points below p100.
pub fn draw(report: &Report, title: &str) -> DrawResult<Drawn> {
    let curves: Vec<(&Row, Vec<(f64, f64)>)> = report
        .rows
        .iter()
        .map(|r| {
            let points: Vec<(f64, f64)> =
                r.summary.latency_curve.iter().filter_map(|&(p, us)| Some((nines(p)?, us as f64))).collect();
            (r, points)
        })
        .filter(|(_, points)| points.len() >= 2)
        .collect();
    if curves.is_empty() {
        return Ok(Drawn::Skipped("no scenario recorded a latency curve".into()));
    }
    let groups = payload_groups(curves.iter().map(|&(r, _)| r));
    // Line styles restart per panel, so a transport keeps its colour across panels when every
    // group lists the transports in the same order.
    let panels: Vec<Panel> = groups
        .iter()
        .map(|&g| {
            let members: Vec<&(&Row, Vec<(f64, f64)>)> = curves.iter().filter(|(r, _)| r.payload() == g).collect();
            let legend = members
                .iter()
                .enumerate()
                .map(|(i, (r, _))| {
                    let (c, dash) = line_style(i);
                    (r.id().to_string(), Key::Line(c, dash))
                })
                .collect();
            let subtitle = group_label(g);
            Panel { subtitle, curves: members.iter().map(|(_, points)| points).collect(), legend }
        })
        .collect();
    let all_us: Vec<f64> = curves.iter().flat_map(|(_, p)| p.iter().map(|&(_, us)| us.max(1.0))).collect();
    let y = Scale::log(&all_us, 0.05);
    let x_max =
        curves.iter().flat_map(|(_, p)| p.iter().map(|&(x, _)| x)).fold(MIN_NINES, f64::max).ceil().min(MAX_NINES);
    let single = panels.len() == 1;
    let panel_height = |legend: &[(String, Key)]| header_height(legend) + PANEL_PLOT + 84;
    let height = if single {
        panel_height(&panels[0].legend)
    } else {
        header_height(&[]) + panels.iter().map(|p| panel_height(&p.legend)).sum::<u32>()
    };

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut rest = if single { root.clone() } else { header(&root, title, &[])? };
        for p in &panels {
            let (area, below) = rest.split_vertically(panel_height(&p.legend));
            rest = below;
            let body = header(&area, if single { title } else { &p.subtitle }, &p.legend)?;
            let mut chart = frame(&body, 84).build_cartesian_2d(
                Ticked::new(0.0..x_max, (0..=x_max as usize).map(|k| k as f64).collect()),
                Ticked::from(y),
            )?;
            house_style(&mut chart.configure_mesh())
                .x_label_formatter(&|v| nines_label(*v))
                .y_label_formatter(&|v| tick_label(y.value(*v)))
                .x_desc("percentile (nines scale: 90, 99, 99.9, …)")
                .y_desc("latency (log scale)")
                .draw()?;
            for (i, points) in p.curves.iter().enumerate() {
                let (c, dash) = line_style(i);
                let style = c.stroke_width(2);
                let at: Vec<(f64, f64)> = points.iter().map(|&(x, us)| (x, y.at(us.max(1.0)))).collect();
                match dash {
                    Dash::Solid => {
                        chart.draw_series(LineSeries::new(at, style))?;
                    }
                    Dash::Dashed => {
                        chart.draw_series(DashedLineSeries::new(at, 6, 4, style))?;
                    }
                }
            }
        }
        root.present()?;
    }
    let left_out: Vec<&str> =
        report.rows.iter().map(|r| r.id()).filter(|id| !curves.iter().any(|(r, _)| r.id() == *id)).collect();
    let mut note = String::from("Each line is the repeat with the median p99.");
    if !single {
        note += " One panel per payload; all panels share both axes.";
    }
    if !left_out.is_empty() {
        note += &format!(" Not shown (no latency curve): {}.", left_out.join(", "));
    }
    Ok(Drawn::Svg { svg, note: Some(note) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_map_to_nines() {
        let cases = [(0.0, Some(0.0)), (90.0, Some(1.0)), (99.0, Some(2.0)), (99.9, Some(3.0)), (100.0, None)];
        for (p, want) in cases {
            let got = nines(p);
            assert_eq!(got.is_some(), want.is_some(), "{p}");
            if let (Some(g), Some(w)) = (got, want) {
                assert!((g - w).abs() < 1e-9, "{p}: {g}");
            }
        }
        let labels: Vec<String> = (0..=5).map(|k| nines_label(k as f64)).collect();
        assert_eq!(labels, ["0", "90", "99", "99.9", "99.99", "99.999"]);
        assert_eq!(
            [tick_label(1e6), tick_label(1e4), tick_label(2500.0), tick_label(100.0)],
            ["1 s", "10 ms", "2.5 ms", "100 µs"]
        );
    }
}
