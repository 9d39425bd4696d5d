//! Chart: latency percentile curves, one line per scenario and one panel per payload group, on a
//! "nines" x axis (0, 90, 99, 99.9, 99.99: each step is ten times rarer) and a log latency axis.

use plotters::prelude::*;

use super::{frame, header, header_height, house_style, line_style};
use super::{Dash, DrawResult, Key, Scale, Ticked, WIDTH};
use crate::numbers;

/// Panels of curves sharing both axes; one panel is drawn under the chart's title alone.
#[derive(Debug, Clone)]
pub struct Curves {
    pub panels: Vec<CurvePanel>,
}

/// The curves of one group.
#[derive(Debug, Clone)]
pub struct CurvePanel {
    pub subtitle: String,
    /// Each curve's name and its points (nines position, µs); at least two points each.
    pub curves: Vec<(String, Vec<(f64, f64)>)>,
}

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
pub fn tick_label(us: f64) -> String {
    let text = numbers::latency_us(us);
    match text.split_once(' ') {
        Some((n, unit)) if n.contains('.') => format!("{} {unit}", n.trim_end_matches('0').trim_end_matches('.')),
        _ => text,
    }
}

/// Height of one panel's plot, below its title and legend.
const PANEL_PLOT: u32 = 240;

/// A panel with its legend.
struct Panel<'a> {
    subtitle: &'a str,
    curves: Vec<&'a Vec<(f64, f64)>>,
    legend: Vec<(String, Key)>,
}

/// The SVG of `c` (at least one panel with a curve). Line styles restart per panel, so a series
/// keeps its colour across panels when every panel lists them in the same order.
pub fn draw(title: &str, c: &Curves) -> DrawResult<String> {
    let panels: Vec<Panel> = c
        .panels
        .iter()
        .map(|p| Panel {
            subtitle: &p.subtitle,
            curves: p.curves.iter().map(|(_, points)| points).collect(),
            legend: p
                .curves
                .iter()
                .enumerate()
                .map(|(i, (name, _))| {
                    let (c, dash) = line_style(i);
                    (name.clone(), Key::Line(c, dash))
                })
                .collect(),
        })
        .collect();
    let curves: Vec<&Vec<(f64, f64)>> = panels.iter().flat_map(|p| p.curves.iter().copied()).collect();
    let all_us: Vec<f64> = curves.iter().flat_map(|p| p.iter().map(|&(_, us)| us.max(1.0))).collect();
    let y = Scale::log(&all_us, 0.05);
    let x_max = curves.iter().flat_map(|p| p.iter().map(|&(x, _)| x)).fold(MIN_NINES, f64::max).ceil().min(MAX_NINES);
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
            let body = header(&area, if single { title } else { p.subtitle }, &p.legend)?;
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
    Ok(svg)
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
