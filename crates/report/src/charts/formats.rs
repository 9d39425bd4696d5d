//! Chart: serialize and deserialize time per format, one panel per dataset (small multiples
//! rather than only the first dataset: datasets differ in size by an order of magnitude, so each
//! gets its own time axis, and no dataset of the run goes unshown). Within a panel, one group per
//! format in the table's order (fastest total first); per language a solid serialize bar and a
//! light deserialize bar in the language's colour, each with its 95 % CI whisker.

use super::panels::{self, Axis, Bar, Group, Panel};
use super::{color, DrawResult, Drawn, Key};
use crate::format;
use crate::formats::{FormatRow, DESERIALIZE, SERIALIZE};
use crate::model::Report;

/// How far towards white the deserialize bars are.
const DESERIALIZE_TINT: f64 = 0.55;

/// Skipped when no format row measured a time.
pub fn draw(report: &Report, title: &str) -> DrawResult<Drawn> {
    let timed = |r: &FormatRow| r.metric(SERIALIZE).is_some() || r.metric(DESERIALIZE).is_some();
    let langs = languages(report.formats.rows().filter(|r| timed(r)));
    let colors = |lang: &str| {
        let c = color(langs.iter().position(|l| *l == lang).unwrap_or(0));
        (c, panels::tint(c, DESERIALIZE_TINT))
    };
    let mut out = Vec::new();
    for d in &report.formats.datasets {
        let rows: Vec<&FormatRow> = d.rows.iter().filter(|r| timed(r)).collect();
        let mut groups: Vec<Group> = Vec::new();
        for r in rows {
            let i = groups.iter().position(|g| g.label == r.format()).unwrap_or_else(|| {
                groups.push(Group { label: r.format().to_string(), bars: Vec::new() });
                groups.len() - 1
            });
            let (solid, light) = colors(r.lang());
            for (metric, c) in [(SERIALIZE, solid), (DESERIALIZE, light)] {
                if let Some(s) = r.metric(metric) {
                    let ms = |ns: f64| ns / 1e6;
                    groups[i].bars.push(Bar {
                        value: ms(s.median),
                        ci: s.ci.map(|(lo, hi)| (ms(lo), ms(hi))),
                        color: c,
                        label: format::ms_from_ns(s.median),
                    });
                }
            }
        }
        if !groups.is_empty() {
            out.push(Panel { title: panels::dataset_title(d), groups });
        }
    }
    if out.is_empty() {
        return Ok(Drawn::Skipped("no format row measured a time".into()));
    }
    let mut legend: Vec<(String, Key)> = Vec::new();
    for lang in &langs {
        let (solid, light) = colors(lang);
        legend.push((format!("{lang} serialize"), Key::Bar(solid)));
        legend.push((format!("{lang} deserialize"), Key::Bar(light)));
    }
    legend.push(("95 % CI of the mean".to_string(), Key::Whisker));
    let axis = Axis { desc: "ms per encode or decode of the whole dataset, median of repeats", tick: panels::tick };
    let svg = panels::draw(title, &legend, &out, &axis)?;
    let left_out: Vec<&str> =
        report.formats.rows().filter(|r| !timed(r)).map(|r| r.summary.scenario.as_str()).collect();
    let note = (!left_out.is_empty()).then(|| format!("Not shown (no time measured): {}.", left_out.join(", ")));
    Ok(Drawn::Svg { svg, note })
}

/// Languages in order of first appearance, so each keeps its colour in every panel.
pub fn languages<'a>(rows: impl Iterator<Item = &'a FormatRow>) -> Vec<&'a str> {
    let mut langs: Vec<&str> = Vec::new();
    for r in rows {
        if !langs.contains(&r.lang()) {
            langs.push(r.lang());
        }
    }
    langs
}
