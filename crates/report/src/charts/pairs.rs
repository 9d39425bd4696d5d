//! Chart: pairs of vertical bars per category (median req/s of a 1 KB and a 1 MB response per
//! transport) with 95 % CI whiskers.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{color, compact, frame, header, header_height, house_style, text, whisker};
use super::{DrawResult, Key, Scale, Ticked, WIDTH};

/// Categories along x, two bar slots in each.
#[derive(Debug, Clone)]
pub struct Pairs {
    pub categories: Vec<String>,
    /// Legend labels of the two slots.
    pub slots: [String; 2],
    pub bars: Vec<Bar>,
    pub x_desc: String,
    pub y_desc: String,
}

/// One bar: its category and slot, its value and 95 % interval.
#[derive(Debug, Clone)]
pub struct Bar {
    pub category: usize,
    pub slot: usize,
    pub value: f64,
    pub ci: Option<(f64, f64)>,
}

/// The SVG of `p` (at least one bar).
pub fn draw(title: &str, p: &Pairs) -> DrawResult<String> {
    let categories = &p.categories;
    let legend: Vec<(String, Key)> = vec![
        (p.slots[0].clone(), Key::Bar(color(0))),
        (p.slots[1].clone(), Key::Bar(color(1))),
        ("95 % CI of the mean".to_string(), Key::Whisker),
    ];
    let mut values = Vec::new();
    for b in &p.bars {
        values.push(b.value);
        values.extend(b.ci.map(|(lo, hi)| [lo, hi]).into_iter().flatten());
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
            .x_desc(p.x_desc.as_str())
            .y_desc(format!("{}{}", p.y_desc, y.note()))
            .draw()?;
        let bottom = y.range().start;
        for b in &p.bars {
            let (c, slot) = (b.category, b.slot);
            let (x0, x1) = (c as f64 + 0.14 + slot as f64 * 0.36, c as f64 + 0.14 + slot as f64 * 0.36 + 0.34);
            let mid = (x0 + x1) / 2.0;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, bottom), (x1, y.at(b.value))],
                color(slot).filled(),
            )))?;
            let mut top = y.at(b.value);
            if let Some((lo, hi)) = b.ci {
                let (lo, hi) = (y.at(lo.max(0.0)), y.at(hi));
                chart.draw_series(whisker(lo, hi, mid, 0.05, false))?;
                top = top.max(hi);
            }
            chart.draw_series(std::iter::once(
                EmptyElement::at((mid, top))
                    + Text::new(compact(b.value), (0, -4), text(12.0).pos(Pos::new(HPos::Center, VPos::Bottom))),
            ))?;
        }
        root.present()?;
    }
    Ok(svg)
}
