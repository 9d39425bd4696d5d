//! Small multiples of lines: one titled panel per group stacked in one SVG, every panel on the same
//! two axes, one line (with its points marked) per series, a series keeping its colour across
//! panels. The parse and realtime labs' "time against N" charts draw with it on log–log axes; the
//! network charts (a metric against round trip or loss) with a linear x axis from zero.

use plotters::prelude::*;

use super::curves::tick_label;
use super::{frame, header, header_height, house_style, line_style};
use super::{Dash, DrawResult, Key, Scale, Ticked, WIDTH};

/// A series' name and its (x, y) points in the units of the two axes.
pub type Line = (String, Vec<(f64, f64)>);

/// Panels of lines and their two axes.
#[derive(Debug, Clone)]
pub struct Lines {
    pub panels: Vec<Panel>,
    pub x: LineAxis,
    pub y: LineAxis,
}

/// One axis of a lines chart: its name, its scale and its tick labels.
#[derive(Debug, Clone, Copy)]
pub struct LineAxis {
    pub desc: &'static str,
    pub scale: AxisScale,
    pub tick: fn(f64) -> String,
}

/// How an axis maps values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisScale {
    /// Log10 from the decade below the smallest value.
    Log,
    /// Linear from zero (a round trip or a loss rate starts at 0, which no log axis holds).
    Linear,
    /// Linear from zero, or log when the values span more than `LOG_SPAN`× (req/s falling 25×
    /// under loss would lie flat on a linear axis).
    Fit,
}

impl LineAxis {
    /// A count on a log axis: `N messages`.
    pub const fn count(desc: &'static str) -> LineAxis {
        LineAxis { desc, scale: AxisScale::Log, tick: super::compact }
    }

    /// A time in microseconds on a log axis, labelled in its own unit (`10 ms`).
    pub const fn time(desc: &'static str) -> LineAxis {
        LineAxis { desc, scale: AxisScale::Log, tick: tick_label }
    }

    /// A linear axis from zero.
    pub const fn linear(desc: &'static str, tick: fn(f64) -> String) -> LineAxis {
        LineAxis { desc, scale: AxisScale::Linear, tick }
    }

    /// Linear from zero unless the values span orders of magnitude.
    pub const fn fit(desc: &'static str, tick: fn(f64) -> String) -> LineAxis {
        LineAxis { desc, scale: AxisScale::Fit, tick }
    }

    fn scale(&self, values: &[f64], headroom: f64) -> Scale {
        match self.scale {
            AxisScale::Log => Scale::log(values, headroom),
            AxisScale::Linear => Scale::linear(values, headroom),
            AxisScale::Fit => Scale::fit(values, headroom),
        }
    }

    fn label(&self, scale: &Scale) -> String {
        if scale.log {
            format!("{} (log scale)", self.desc)
        } else {
            self.desc.to_string()
        }
    }
}

impl Lines {
    /// True when some line has two points or more.
    pub fn drawable(&self) -> bool {
        self.panels.iter().flat_map(|p| &p.lines).any(|(_, points)| points.len() >= 2)
    }
}

/// A titled panel of lines.
#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub lines: Vec<Line>,
}

const PANEL_PLOT: u32 = 240;
/// Room left of the plot for the time labels.
const Y_LABELS: u32 = 84;

/// The SVG of `lines` under `title`. Lines with fewer than two points are left out; `None` when
/// no line is left.
pub fn draw(title: &str, lines: &Lines) -> DrawResult<Option<String>> {
    let (xa, ya) = (lines.x, lines.y);
    let panels: Vec<Panel> = lines
        .panels
        .iter()
        .cloned()
        .map(|p| Panel { lines: p.lines.into_iter().filter(|(_, pts)| pts.len() >= 2).collect(), ..p })
        .filter(|p| !p.lines.is_empty())
        .collect();
    if panels.is_empty() {
        return Ok(None);
    }
    // Series in the order of first appearance across panels, so a series keeps its colour.
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in panels.iter().flat_map(|p| &p.lines) {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let points = || panels.iter().flat_map(|p| p.lines.iter().flat_map(|(_, pts)| pts.iter()));
    let x = xa.scale(&points().map(|&(x, _)| x).collect::<Vec<_>>(), 0.02);
    let y = ya.scale(&points().map(|&(_, y)| y).collect::<Vec<_>>(), 0.05);
    let legend: Vec<(String, Key)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (c, dash) = line_style(i);
            (n.to_string(), Key::Line(c, dash))
        })
        .collect();
    let panel_height = PANEL_PLOT + Y_LABELS + header_height(&[]);
    let height = header_height(&legend) + panel_height * panels.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut rest = header(&root, title, &legend)?;
        for panel in &panels {
            let (area, below) = rest.split_vertically(panel_height);
            rest = below;
            let body = header(&area, &panel.title, &[])?;
            let mut chart = frame(&body, Y_LABELS).build_cartesian_2d(Ticked::from(x), Ticked::from(y))?;
            house_style(&mut chart.configure_mesh())
                .x_label_formatter(&|v| (xa.tick)(x.value(*v)))
                .y_label_formatter(&|v| (ya.tick)(y.value(*v)))
                .x_desc(xa.label(&x))
                .y_desc(ya.label(&y))
                .draw()?;
            for (name, pts) in &panel.lines {
                let i = names.iter().position(|n| n == name).unwrap_or(0);
                let (c, dash) = line_style(i);
                let style = c.stroke_width(2);
                let at: Vec<(f64, f64)> = pts.iter().map(|&(px, py)| (x.at(px), y.at(py))).collect();
                match dash {
                    Dash::Solid => chart.draw_series(LineSeries::new(at.clone(), style))?,
                    Dash::Dashed => chart.draw_series(DashedLineSeries::new(at.clone(), 6, 4, style))?,
                };
                chart.draw_series(at.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
            }
        }
        root.present()?;
    }
    Ok(Some(svg))
}
