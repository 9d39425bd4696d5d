//! Charts of the parse lab: decoding time against N (log–log, one panel per object, one line per
//! parser and format, objects from the Rust provider, one request per object), and decoding
//! against the I/O around it at the largest N (bars, via `panels`).

use plotters::prelude::*;

use super::latency::tick_label;
use super::panels::{self, Axis, Bar, Group, Panel};
use super::{frame, header, header_height, house_style, line_style};
use super::{Dash, DrawResult, Drawn, Key, Scale, Ticked, WIDTH};
use crate::model::Report;
use crate::parse::{ParseRow, IO, PARSE};

/// The provider the charts compare parsers on: every parser fetched from it.
const PROVIDER: &str = "rust";
const PANEL_PLOT: u32 = 240;
/// How far towards white the I/O bars are.
const IO_TINT: f64 = 0.55;

/// A series' name and its (N, decoding µs) points.
type Line = (String, Vec<(f64, f64)>);

fn series_of(r: &ParseRow) -> String {
    format!("{} {}", r.parser(), r.format())
}

/// Skipped when no parser was measured at two N or more.
pub fn draw_by_n(report: &Report, title: &str) -> DrawResult<Drawn> {
    // Series in the order of first appearance across objects, so a series keeps its colour.
    let mut names: Vec<String> = Vec::new();
    let mut panels: Vec<(&str, Vec<Line>)> = Vec::new();
    for o in &report.parse.objects {
        let mut lines: Vec<Line> = Vec::new();
        for r in o.rows.iter().filter(|r| r.provider() == PROVIDER && !r.batch()) {
            let Some(s) = r.metric(PARSE) else { continue };
            let name = series_of(r);
            if !names.contains(&name) {
                names.push(name.clone());
            }
            match lines.iter_mut().find(|(n, _)| *n == name) {
                Some((_, points)) => points.push((r.n() as f64, s.median)),
                None => lines.push((name, vec![(r.n() as f64, s.median)])),
            }
        }
        lines.retain(|(_, p)| p.len() >= 2);
        if !lines.is_empty() {
            panels.push((&o.object, lines));
        }
    }
    if panels.is_empty() {
        return Ok(Drawn::Skipped("no parser was measured at two N or more".into()));
    }
    let points = || panels.iter().flat_map(|(_, l)| l.iter().flat_map(|(_, p)| p.iter()));
    let x = Scale::log(&points().map(|&(n, _)| n).collect::<Vec<_>>(), 0.02);
    let y = Scale::log(&points().map(|&(_, us)| us.max(1.0)).collect::<Vec<_>>(), 0.05);
    let legend: Vec<(String, Key)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let (c, dash) = line_style(i);
            (n.clone(), Key::Line(c, dash))
        })
        .collect();
    let panel_height = PANEL_PLOT + 84 + header_height(&[]);
    let height = header_height(&legend) + panel_height * panels.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut rest = header(&root, title, &legend)?;
        for (object, lines) in &panels {
            let (area, below) = rest.split_vertically(panel_height);
            rest = below;
            let body = header(&area, &format!("Object {object}"), &[])?;
            let mut chart = frame(&body, 84).build_cartesian_2d(Ticked::from(x), Ticked::from(y))?;
            house_style(&mut chart.configure_mesh())
                .x_label_formatter(&|v| super::compact(x.value(*v)))
                .y_label_formatter(&|v| tick_label(y.value(*v)))
                .x_desc("N objects (log scale)")
                .y_desc("decoding time (log scale)")
                .draw()?;
            for (name, points) in lines {
                let i = names.iter().position(|n| n == name).unwrap_or(0);
                let (c, dash) = line_style(i);
                let style = c.stroke_width(2);
                let at: Vec<(f64, f64)> = points.iter().map(|&(n, us)| (x.at(n), y.at(us.max(1.0)))).collect();
                match dash {
                    Dash::Solid => chart.draw_series(LineSeries::new(at.clone(), style))?,
                    Dash::Dashed => chart.draw_series(DashedLineSeries::new(at.clone(), 6, 4, style))?,
                };
                chart.draw_series(at.into_iter().map(|p| Circle::new(p, 3, c.filled())))?;
            }
        }
        root.present()?;
    }
    let note = format!(
        "Median decoding time of N objects already in memory, each fetched with its own request from the {PROVIDER} \
         provider. Parallel lines mean the same cost per object."
    );
    Ok(Drawn::Svg { svg, note: Some(note) })
}

/// Skipped when no row measured both decoding and I/O.
pub fn draw_io(report: &Report, title: &str) -> DrawResult<Drawn> {
    let mut out = Vec::new();
    for o in &report.parse.objects {
        let Some(n) = o.rows.iter().filter(|r| !r.batch() && r.metric(PARSE).is_some()).map(ParseRow::n).max() else {
            continue;
        };
        let mut groups = Vec::new();
        for r in o.rows.iter().filter(|r| !r.batch() && r.n() == n) {
            let (Some(parse), Some(io)) = (r.metric(PARSE), r.metric(IO)) else { continue };
            let c = super::color(["json", "bson"].iter().position(|f| *f == r.format()).unwrap_or(2));
            let ms = |us: f64| us / 1000.0;
            let bar = |s: &wirebench_core::stats::Summary, color| Bar {
                value: ms(s.median),
                ci: s.ci.map(|(lo, hi)| (ms(lo), ms(hi))),
                color,
                label: tick_label(s.median),
            };
            groups.push(Group {
                label: format!("{} ← {}", series_of(r), r.provider()),
                bars: vec![bar(parse, c), bar(io, panels::tint(c, IO_TINT))],
            });
        }
        if !groups.is_empty() {
            out.push(Panel { title: format!("Object {} · N = {n}", o.object), groups });
        }
    }
    if out.is_empty() {
        return Ok(Drawn::Skipped("no row measured both decoding and I/O".into()));
    }
    let legend = vec![
        ("JSON decoding".to_string(), Key::Bar(super::color(0))),
        ("JSON I/O".to_string(), Key::Bar(panels::tint(super::color(0), IO_TINT))),
        ("BSON decoding".to_string(), Key::Bar(super::color(1))),
        ("BSON I/O".to_string(), Key::Bar(panels::tint(super::color(1), IO_TINT))),
        ("95 % CI of the mean".to_string(), Key::Whisker),
    ];
    let axis = Axis { desc: "ms for all N objects, median of repeats", tick: panels::tick };
    let svg = panels::draw(title, &legend, &out, &axis)?;
    let note = "I/O is the time from the first request to the end of decoding, less decoding: what the study's \
                timers, started as each answer arrived, could let in."
        .to_string();
    Ok(Drawn::Svg { svg, note: Some(note) })
}
