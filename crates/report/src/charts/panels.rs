//! Small multiples of grouped horizontal bars: one titled panel per dataset stacked in one SVG,
//! each with its own value axis, a labelled group of bars per category. The formats charts draw
//! with it.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{header, header_height, house_style, label_width, text, whisker};
use super::{DrawResult, Key, Scale, Ticked, PAD, WIDTH};

/// One bar: its value, 95 % interval (drawn as a whisker) and the text at its end.
#[derive(Debug, Clone)]
pub struct Bar {
    pub value: f64,
    pub ci: Option<(f64, f64)>,
    pub color: RGBColor,
    pub label: String,
}

/// Bars under one category label (a format).
#[derive(Debug, Clone)]
pub struct Group {
    pub label: String,
    pub bars: Vec<Bar>,
}

/// A titled plot (a dataset) with its own value axis.
#[derive(Debug, Clone)]
pub struct Panel {
    pub title: String,
    pub groups: Vec<Group>,
}

/// Panels under one title and legend.
#[derive(Debug, Clone)]
pub struct Bars {
    pub legend: Vec<(String, Key)>,
    pub panels: Vec<Panel>,
    pub axis: Axis,
}

/// The value axis of every panel: its description (the scale's note is appended) and tick text.
#[derive(Debug, Clone, Copy)]
pub struct Axis {
    pub desc: &'static str,
    pub tick: fn(f64) -> String,
}

/// Pixels per bar; groups are `GAP` bars apart and panels keep `EDGE` bars above and below.
const BAR_PX: f64 = 15.0;
const GAP: f64 = 0.8;
const EDGE: f64 = 0.4;
const PANEL_TITLE: u32 = 30;
const X_AXIS: u32 = 46;
const MARGIN_BOTTOM: u32 = 10;

/// Height of the bars of a panel, in bar units.
fn units(p: &Panel) -> f64 {
    let bars: usize = p.groups.iter().map(|g| g.bars.len()).sum();
    bars as f64 + GAP * p.groups.len().saturating_sub(1) as f64 + 2.0 * EDGE
}

fn panel_height(p: &Panel) -> u32 {
    PANEL_TITLE + (units(p) * BAR_PX).ceil() as u32 + X_AXIS + MARGIN_BOTTOM
}

/// The standalone SVG of `panels` under one title and legend.
pub fn draw(title: &str, bars: &Bars) -> DrawResult<String> {
    let Bars { legend, panels, axis } = bars;
    let height = header_height(legend) + panels.iter().map(panel_height).sum::<u32>();
    // One label width for every panel, so their value axes line up.
    let label_w = label_width(panels.iter().flat_map(|p| &p.groups).map(|g| g.label.as_str()));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut rest = header(&root, title, legend)?;
        for p in panels {
            let (area, below) = rest.split_vertically(panel_height(p));
            rest = below;
            draw_panel(&area, p, label_w, axis)?;
        }
        root.present()?;
    }
    Ok(svg)
}

fn draw_panel(area: &super::Area<'_>, p: &Panel, label_w: u32, axis: &Axis) -> DrawResult<()> {
    let (top, plot) = area.split_vertically(PANEL_TITLE);
    top.draw_text(&p.title, &text(14.0).pos(Pos::new(HPos::Left, VPos::Bottom)), (PAD, PANEL_TITLE as i32 - 6))?;

    // Bar centres from the top down (plotters' y grows upwards); a group's tick sits at its middle.
    let total = units(p);
    let mut cursor = total - EDGE;
    let mut placed: Vec<(f64, &Bar)> = Vec::new();
    let mut ticks: Vec<(f64, &str)> = Vec::new();
    for g in &p.groups {
        let first = cursor - 0.5;
        for b in &g.bars {
            placed.push((cursor - 0.5, b));
            cursor -= 1.0;
        }
        ticks.push(((first + cursor + 0.5) / 2.0, g.label.as_str()));
        cursor -= GAP;
    }
    let mut values = Vec::new();
    for (_, b) in &placed {
        values.push(b.value);
        values.extend(b.ci.map(|(lo, hi)| [lo, hi]).into_iter().flatten());
    }
    let scale = Scale::fit(&values, 0.18);

    let mut chart = ChartBuilder::on(&plot)
        .margin_left(16)
        .margin_right(28)
        .margin_bottom(MARGIN_BOTTOM)
        .x_label_area_size(X_AXIS)
        .y_label_area_size(label_w)
        .build_cartesian_2d(Ticked::from(scale), Ticked::new(0.0..total, ticks.iter().map(|t| t.0).collect()))?;
    house_style(&mut chart.configure_mesh())
        .disable_y_mesh()
        .x_label_formatter(&|v| (axis.tick)(scale.value(*v)))
        .y_label_formatter(&|v| {
            ticks.iter().find(|t| (t.0 - v).abs() < 1e-6).map_or(String::new(), |t| t.1.to_string())
        })
        .x_desc(format!("{}{}", axis.desc, scale.note()))
        .draw()?;

    let bottom = scale.range().start;
    for &(y, b) in &placed {
        chart.draw_series(std::iter::once(Rectangle::new(
            [(bottom, y - 0.42), (scale.at(b.value), y + 0.42)],
            b.color.filled(),
        )))?;
        let mut label_at = scale.at(b.value);
        if let Some((lo, hi)) = b.ci {
            let (lo, hi) = (scale.at(lo.max(0.0)), scale.at(hi));
            chart.draw_series(whisker(lo, hi, y, 0.25, true))?;
            label_at = label_at.max(hi);
        }
        chart.draw_series(std::iter::once(
            EmptyElement::at((label_at, y))
                + Text::new(b.label.clone(), (5, 0), text(11.0).pos(Pos::new(HPos::Left, VPos::Center))),
        ))?;
    }
    Ok(())
}

/// A lighter tint of `c`: `f` of the way to white.
pub fn tint(c: RGBColor, f: f64) -> RGBColor {
    let mix = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * f).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// A tick value without trailing zeros: `0.5`, `2`, `12.5`, `2.5k`.
pub fn tick(v: f64) -> String {
    let text = super::compact(v);
    if text.contains('.') && !text.ends_with(['k', 'M']) {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_and_tints() {
        assert_eq!(tick(0.5), "0.5");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(2.0), "2");
        assert_eq!(tick(2500.0), "2.5k");
        assert_eq!(tint(RGBColor(0, 100, 255), 0.5), RGBColor(128, 178, 255));
    }
}
