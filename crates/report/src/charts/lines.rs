//! Small multiples of lines on log–log axes: one titled panel per group stacked in one SVG, every
//! panel on the same two axes, one line (with its points marked) per series, a series keeping its
//! colour across panels. The parse and realtime labs' "time against N" charts draw with it.

use plotters::prelude::*;

use super::curves::tick_label;
use super::{frame, header, header_height, house_style, line_style};
use super::{Dash, DrawResult, Key, Scale, Ticked, WIDTH};

/// A series' name and its (x, y) points; y is a time in microseconds.
pub type Line = (String, Vec<(f64, f64)>);

/// Panels of lines and the names of the two axes (both log scale).
#[derive(Debug, Clone)]
pub struct Lines {
    pub panels: Vec<Panel>,
    pub x_desc: &'static str,
    pub y_desc: &'static str,
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
    let (x_desc, y_desc) = (lines.x_desc, lines.y_desc);
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
    let x = Scale::log(&points().map(|&(n, _)| n).collect::<Vec<_>>(), 0.02);
    let y = Scale::log(&points().map(|&(_, us)| us.max(1.0)).collect::<Vec<_>>(), 0.05);
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
                .x_label_formatter(&|v| super::compact(x.value(*v)))
                .y_label_formatter(&|v| tick_label(y.value(*v)))
                .x_desc(format!("{x_desc} (log scale)"))
                .y_desc(format!("{y_desc} (log scale)"))
                .draw()?;
            for (name, pts) in &panel.lines {
                let i = names.iter().position(|n| n == name).unwrap_or(0);
                let (c, dash) = line_style(i);
                let style = c.stroke_width(2);
                let at: Vec<(f64, f64)> = pts.iter().map(|&(n, us)| (x.at(n), y.at(us.max(1.0)))).collect();
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
