//! Charts of the parse lab: decoding time against N (log–log, one panel per object, one line per
//! parser and format, objects from the Rust provider, one request per object), and decoding
//! against the I/O around it at the largest N (bars, via `panels`).

use super::latency::tick_label;
use super::lines::{self, Line};
use super::panels::{self, Axis, Bar, Group, Panel};
use super::{DrawResult, Drawn, Key};
use crate::model::Report;
use crate::parse::{ParseRow, IO, PARSE};

/// The provider the charts compare parsers on: every parser fetched from it.
const PROVIDER: &str = "rust";
/// How far towards white the I/O bars are.
const IO_TINT: f64 = 0.55;

fn series_of(r: &ParseRow) -> String {
    format!("{} {}", r.parser(), r.format())
}

/// Skipped when no parser was measured at two N or more.
pub fn draw_by_n(report: &Report, title: &str) -> DrawResult<Drawn> {
    let panels = report
        .parse
        .objects
        .iter()
        .map(|o| {
            let mut lines: Vec<Line> = Vec::new();
            for r in o.rows.iter().filter(|r| r.provider() == PROVIDER && !r.batch()) {
                let Some(s) = r.metric(PARSE) else { continue };
                let name = series_of(r);
                match lines.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, points)) => points.push((r.n() as f64, s.median)),
                    None => lines.push((name, vec![(r.n() as f64, s.median)])),
                }
            }
            lines::Panel { title: format!("Object {}", o.object), lines }
        })
        .collect();
    let Some(svg) = lines::draw(title, panels, "N objects", "decoding time")? else {
        return Ok(Drawn::Skipped("no parser was measured at two N or more".into()));
    };
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
