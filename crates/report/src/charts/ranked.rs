//! Chart: one horizontal bar per item (a scenario's median req/s) with its 95 % CI whisker,
//! coloured by group, on a log axis when the items differ by orders of magnitude.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{color, frame, header, header_height, house_style, label_width, text, whisker};
use super::{compact, DrawResult, Key, Scale, Ticked, WIDTH};
use crate::numbers;

const BAR_PITCH: u32 = 28;

/// The bars, top to bottom, and the groups that colour them.
#[derive(Debug, Clone)]
pub struct Ranked {
    pub bars: Vec<Bar>,
    /// Legend labels of the groups; empty when the bars form one unnamed group.
    pub groups: Vec<String>,
    /// The legend label of one unnamed group.
    pub single: String,
    /// The value axis' description (the scale's note is appended).
    pub axis: String,
    /// The category axis' description.
    pub items: String,
}

/// One bar.
#[derive(Debug, Clone)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub ci: Option<(f64, f64)>,
    /// Index into `Ranked::groups`.
    pub group: usize,
}

/// The SVG of `r` (at least one bar).
pub fn draw(title: &str, r: &Ranked) -> DrawResult<String> {
    let bars = &r.bars;
    let mut legend: Vec<(String, Key)> = if r.groups.is_empty() {
        vec![(r.single.clone(), Key::Bar(color(0)))]
    } else {
        r.groups.iter().enumerate().map(|(i, g)| (g.clone(), Key::Bar(color(i)))).collect()
    };
    legend.push(("95 % CI of the mean".to_string(), Key::Whisker));

    let mut values = Vec::new();
    for b in bars {
        values.push(b.value);
        values.extend(b.ci.map(|(lo, hi)| [lo, hi]).into_iter().flatten());
    }
    let scale = Scale::fit(&values, 0.16);
    let n = bars.len();
    let height = header_height(&legend) + n as u32 * BAR_PITCH + 84;
    let ids: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
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
            .x_desc(format!("{}{}", r.axis, scale.note()))
            .y_desc(r.items.as_str())
            .draw()?;

        let bottom = scale.range().start;
        for (i, b) in bars.iter().enumerate() {
            let y = centre(i);
            let c = color(b.group);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(bottom, y - 0.32), (scale.at(b.value), y + 0.32)],
                c.filled(),
            )))?;
            let mut label_at = scale.at(b.value);
            if let Some((lo, hi)) = b.ci {
                let (lo, hi) = (scale.at(lo.max(0.0)), scale.at(hi));
                chart.draw_series(whisker(lo, hi, y, 0.18, true))?;
                label_at = label_at.max(hi);
            }
            let label = numbers::thousands(b.value);
            chart.draw_series(std::iter::once(
                EmptyElement::at((label_at, y))
                    + Text::new(label, (6, 0), text(12.0).pos(Pos::new(HPos::Left, VPos::Center))),
            ))?;
        }
        root.present()?;
    }
    Ok(svg)
}
