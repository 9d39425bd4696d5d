//! Chart: median req/s of every scenario as horizontal bars with 95 % CI whiskers, coloured by
//! payload group, on a log axis when the scenarios differ by orders of magnitude.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{color, frame, group_label, header, header_height, house_style, label_width, text, whisker};
use super::{compact, DrawResult, Drawn, Key, Scale, Ticked, WIDTH};
use crate::format;
use crate::model::{payload_groups, Report, Row};

const BAR_PITCH: u32 = 28;

/// Skipped when no scenario has a req/s median.
pub fn draw(report: &Report, title: &str) -> DrawResult<Drawn> {
    let bars: Vec<&Row> = report.rows.iter().filter(|r| r.rps().is_some()).collect();
    if bars.is_empty() {
        return Ok(Drawn::Skipped("no scenario measured req/s".into()));
    }
    let groups = payload_groups(bars.iter().copied());
    let group_of = |r: &Row| groups.iter().position(|g| *g == r.payload()).unwrap_or(0);
    let mut legend: Vec<(String, Key)> = if groups == [None] {
        vec![("median req/s".to_string(), Key::Bar(color(0)))]
    } else {
        groups.iter().enumerate().map(|(i, &g)| (group_label(g), Key::Bar(color(i)))).collect()
    };
    legend.push(("95 % CI of the mean".to_string(), Key::Whisker));

    let mut values = Vec::new();
    for r in &bars {
        let s = r.rps().expect("filtered on rps");
        values.push(s.median);
        values.extend(s.ci.map(|(lo, hi)| [lo, hi]).into_iter().flatten());
    }
    let scale = Scale::fit(&values, 0.16);
    let n = bars.len();
    let height = header_height(&legend) + n as u32 * BAR_PITCH + 84;
    let ids: Vec<&str> = bars.iter().map(|r| r.id()).collect();
    // Bar i sits at y = n - i - 0.5 so the first scenario is on top.
    let centre = |i: usize| (n - i) as f64 - 0.5;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let body = header(&root, title, &legend)?;
        let mut chart = frame(&body, label_width(ids.iter().copied()))
            .build_cartesian_2d(Ticked::from(scale), Ticked::new(0.0..n as f64, (0..n).map(centre).collect()))?;
        house_style(&mut chart.configure_mesh())
            .disable_y_mesh()
            .x_label_formatter(&|v| compact(scale.value(*v)))
            .y_label_formatter(&|v| {
                let i = n.saturating_sub(v.ceil() as usize);
                ids.get(i).map_or(String::new(), |id| id.to_string())
            })
            .x_desc(format!("requests per second, median of repeats{}", scale.note()))
            .y_desc("scenario")
            .draw()?;

        let bottom = scale.range().start;
        for (i, r) in bars.iter().enumerate() {
            let s = r.rps().expect("filtered on rps");
            let y = centre(i);
            let c = color(group_of(r));
            chart.draw_series(std::iter::once(Rectangle::new(
                [(bottom, y - 0.32), (scale.at(s.median), y + 0.32)],
                c.filled(),
            )))?;
            let mut label_at = scale.at(s.median);
            if let Some((lo, hi)) = s.ci {
                let (lo, hi) = (scale.at(lo.max(0.0)), scale.at(hi));
                chart.draw_series(whisker(lo, hi, y, 0.18, true))?;
                label_at = label_at.max(hi);
            }
            let label = format::thousands(s.median);
            chart.draw_series(std::iter::once(
                EmptyElement::at((label_at, y))
                    + Text::new(label, (6, 0), text(12.0).pos(Pos::new(HPos::Left, VPos::Center))),
            ))?;
        }
        root.present()?;
    }
    let left_out: Vec<&str> = report.rows.iter().filter(|r| r.rps().is_none()).map(|r| r.id()).collect();
    let note = (!left_out.is_empty()).then(|| format!("Not shown (no req/s measured): {}.", left_out.join(", ")));
    Ok(Drawn::Svg { svg, note })
}
