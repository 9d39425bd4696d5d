//! Chart: 1 KB vs 1 MB responses, grouped bars of median req/s per transport with 95 % CI
//! whiskers, for scenarios whose `payload` label is `1KB` or `1MB`.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{color, compact, frame, header, header_height, house_style, text, whisker};
use super::{DrawResult, Drawn, Key, Scale, Ticked, WIDTH};
use crate::model::{Report, Row};

/// The payload labels compared, in bar order.
const PAYLOADS: [&str; 2] = ["1KB", "1MB"];

/// Skipped when no scenario labelled `1KB` or `1MB` has a req/s median.
pub fn draw(report: &Report, title: &str) -> DrawResult<Drawn> {
    let payload_of = |r: &Row| PAYLOADS.iter().position(|p| r.payload().is_some_and(|q| q.eq_ignore_ascii_case(p)));
    let rows: Vec<(&Row, usize)> =
        report.rows.iter().filter(|r| r.rps().is_some()).filter_map(|r| Some((r, payload_of(r)?))).collect();
    if rows.is_empty() {
        return Ok(Drawn::Skipped("no scenario with a 1KB or 1MB payload label measured req/s".into()));
    }
    // A category is the transport, plus the api and subject when those vary, so that different
    // stacks on the same transport get their own pair of bars.
    let varies = |f: &dyn Fn(&Row) -> String| rows.iter().any(|(r, _)| f(r) != f(rows[0].0));
    let api = |r: &Row| r.summary.param("api").unwrap_or("").to_string();
    let subject = |r: &Row| r.summary.subject.clone();
    let (api_varies, subject_varies) = (varies(&api), varies(&subject));
    let category = |r: &Row| {
        let mut parts = vec![if r.transport.is_empty() { r.protocol().to_string() } else { r.transport.clone() }];
        if api_varies {
            parts.push(api(r));
        }
        if subject_varies {
            parts.push(subject(r));
        }
        parts.join(" · ")
    };
    let mut categories: Vec<String> = Vec::new();
    let mut bars: Vec<(usize, usize, &Row)> = Vec::new();
    let mut duplicates: Vec<&str> = Vec::new();
    for &(r, p) in &rows {
        let name = category(r);
        let c = categories.iter().position(|c| *c == name).unwrap_or_else(|| {
            categories.push(name);
            categories.len() - 1
        });
        if bars.iter().any(|&(bc, bp, _)| (bc, bp) == (c, p)) {
            duplicates.push(r.id());
        } else {
            bars.push((c, p, r));
        }
    }
    let legend: Vec<(String, Key)> = vec![
        ("1 KB response".to_string(), Key::Bar(color(0))),
        ("1 MB response".to_string(), Key::Bar(color(1))),
        ("95 % CI of the mean".to_string(), Key::Whisker),
    ];
    let mut values = Vec::new();
    for (_, _, r) in &bars {
        let s = r.rps().expect("filtered on rps");
        values.push(s.median);
        values.extend(s.ci.map(|(lo, hi)| [lo, hi]).into_iter().flatten());
    }
    let y = Scale::fit(&values, 0.12);
    let n = categories.len();
    let height = header_height(&legend) + 440;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let body = header(&root, title, &legend)?;
        let mut chart = frame(&body, 72).build_cartesian_2d(
            Ticked::new(0.0..n as f64, (0..n).map(|k| k as f64 + 0.5).collect()),
            Ticked::from(y),
        )?;
        house_style(&mut chart.configure_mesh())
            .disable_x_mesh()
            .x_label_formatter(&|v| categories.get(v.floor() as usize).cloned().unwrap_or_default())
            .y_label_formatter(&|v| compact(y.value(*v)))
            .x_desc("transport")
            .y_desc(format!("requests per second, median{}", y.note()))
            .draw()?;
        let bottom = y.range().start;
        for &(c, p, r) in &bars {
            let s = r.rps().expect("filtered on rps");
            let (x0, x1) = (c as f64 + 0.14 + p as f64 * 0.36, c as f64 + 0.14 + p as f64 * 0.36 + 0.34);
            let mid = (x0 + x1) / 2.0;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, bottom), (x1, y.at(s.median))],
                color(p).filled(),
            )))?;
            let mut top = y.at(s.median);
            if let Some((lo, hi)) = s.ci {
                let (lo, hi) = (y.at(lo.max(0.0)), y.at(hi));
                chart.draw_series(whisker(lo, hi, mid, 0.05, false))?;
                top = top.max(hi);
            }
            chart.draw_series(std::iter::once(
                EmptyElement::at((mid, top))
                    + Text::new(compact(s.median), (0, -4), text(12.0).pos(Pos::new(HPos::Center, VPos::Bottom))),
            ))?;
        }
        root.present()?;
    }
    let note = (!duplicates.is_empty())
        .then(|| format!("Not shown (same transport and payload as an earlier bar): {}.", duplicates.join(", ")));
    Ok(Drawn::Svg { svg, note })
}
