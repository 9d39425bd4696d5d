//! Chart: encoded size per format, raw beside gzip and zstd, one panel per dataset (as the time
//! chart). Languages that produce the same bytes for a format share one group; where they differ
//! (another float formatting, another field order) each set of sizes gets its own group, named
//! after its languages.

use super::panels::{self, Axis, Bar, Group, Panel};
use super::{color, DrawResult, Drawn, Key};
use crate::format;
use crate::formats::{FormatRow, SIZES};
use crate::model::Report;

/// Series labels and palette indices of the three sizes, in `SIZES` order.
const SERIES: [(&str, usize); 3] = [("raw", 0), ("gzip", 4), ("zstd", 6)];

/// Median sizes in `SIZES` order, each `None` when not measured.
type Sizes = [Option<f64>; 3];

/// The languages whose encodings of one format have the same sizes.
struct SameBytes<'a> {
    format: &'a str,
    sizes: Sizes,
    langs: Vec<&'a str>,
}

/// Skipped when no format row measured a size.
pub fn draw(report: &Report, title: &str) -> DrawResult<Drawn> {
    let sizes = |r: &FormatRow| -> Option<Sizes> {
        let s = SIZES.map(|m| r.metric(m).map(|s| s.median));
        s.iter().any(Option::is_some).then_some(s)
    };
    let mut out = Vec::new();
    for d in &report.formats.datasets {
        // In table order, so the fastest format is on top as in the time chart.
        let mut sets: Vec<SameBytes> = Vec::new();
        for r in &d.rows {
            let Some(s) = sizes(r) else { continue };
            match sets.iter_mut().find(|set| set.format == r.format() && set.sizes == s) {
                Some(set) => set.langs.push(r.lang()),
                None => sets.push(SameBytes { format: r.format(), sizes: s, langs: vec![r.lang()] }),
            }
        }
        let groups: Vec<Group> = sets
            .iter()
            .map(|set| {
                let f = set.format;
                let shared = sets.iter().filter(|other| other.format == f).count() == 1;
                let label = if shared { f.to_string() } else { format!("{f} ({})", set.langs.join(", ")) };
                let bars = set
                    .sizes
                    .iter()
                    .zip(SERIES)
                    .filter_map(|(v, (_, c))| {
                        v.map(|b| Bar { value: b, ci: None, color: color(c), label: format::kilobytes(b) })
                    })
                    .collect();
                Group { label, bars }
            })
            .collect();
        if !groups.is_empty() {
            out.push(Panel { title: panels::dataset_title(d), groups });
        }
    }
    if out.is_empty() {
        return Ok(Drawn::Skipped("no format row measured a size".into()));
    }
    let legend: Vec<(String, Key)> = SERIES.iter().map(|(l, c)| (l.to_string(), Key::Bar(color(*c)))).collect();
    let axis = Axis { desc: "bytes, median of repeats", tick: panels::tick };
    let svg = panels::draw(title, &legend, &out, &axis)?;
    let left_out: Vec<&str> =
        report.formats.rows().filter(|r| sizes(r).is_none()).map(|r| r.summary.scenario.as_str()).collect();
    let note = (!left_out.is_empty()).then(|| format!("Not shown (no size measured): {}.", left_out.join(", ")));
    Ok(Drawn::Svg { svg, note })
}
