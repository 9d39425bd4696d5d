//! The wasm lab's chart: JS ÷ wasm per kernel, the study's published ratio beside ours with wasm
//! called the study's way and over a buffer in wasm memory (bars via `panels`, one panel per
//! study table).

use super::panels::{self, Axis, Bar, Group, Panel};
use super::{DrawResult, Drawn, Key};
use crate::format;
use crate::model::Report;
use crate::wasm::{self, Published};

/// Gray for the study's bars.
const STUDY: plotters::style::RGBColor = plotters::style::RGBColor(150, 150, 150);

/// Skipped when no kernel has both a JS and a wasm row.
pub fn draw(report: &Report, title: &str) -> DrawResult<Drawn> {
    let w = &report.wasm;
    let mut out = Vec::new();
    for t in w.tables() {
        // The thread the study ran the table's kernels on.
        let thread = if t.id == "workers" { "worker" } else { "main" };
        let mut groups = Vec::new();
        for k in t.kernels {
            let bar = |value: f64, color| Bar { value, ci: None, color, label: format::ratio(value) };
            let mut bars = Vec::new();
            if let Some(v) = wasm::study(k, Published::Speedup) {
                bars.push(bar(v, STUDY));
            }
            for (i, way) in ["wasm", "wasm-buffer"].iter().enumerate() {
                if let Some(v) = w.ratio(k, ("js", thread), (way, thread)) {
                    bars.push(bar(v, super::color(i)));
                }
            }
            if bars.len() > 1 {
                groups.push(Group { label: (*k).to_string(), bars });
            }
        }
        if !groups.is_empty() {
            out.push(Panel { title: t.title.to_string(), groups });
        }
    }
    if out.is_empty() {
        return Ok(Drawn::Skipped("no kernel has both a JavaScript and a WebAssembly row".into()));
    }
    let legend = vec![
        ("the study".to_string(), Key::Bar(STUDY)),
        ("ours, wasm called as the study did".to_string(), Key::Bar(super::color(0))),
        ("ours, wasm over its own memory".to_string(), Key::Bar(super::color(1))),
    ];
    let axis = Axis { desc: "JS time ÷ wasm time (above 1: wasm is faster)", tick: panels::tick };
    let svg = panels::draw(title, &legend, &out, &axis)?;
    let note = "Ratios of medians. The study's call copies the image in and out of wasm memory inside the timer \
                (filters) or reads each element across the boundary (worker kernels); over its own memory the \
                timer holds the kernel alone."
        .to_string();
    Ok(Drawn::Svg { svg, note: Some(note) })
}
