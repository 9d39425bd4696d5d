//! Charts as standalone SVG documents. A lab describes a chart as a `Spec` (its name, title and
//! the data of one kind of plot); `draw` turns it into SVG. Nothing here knows a lab or an output.
//!
//! Drawn with plotters' SVG backend. Built without plotters' `ttf`/`ab_glyph` features, plotters
//! estimates text extents itself and writes `<text>` elements whose glyphs the browser picks, so
//! rendering reads no system font and needs no downloaded one.

pub mod curves;
pub mod lines;
pub mod pairs;
pub mod panels;
pub mod ranked;

use std::ops::Range;

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::numbers;

/// Chart errors are plotters' drawing errors, reported as text.
pub type DrawResult<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// A chart a lab asks for: `charts/<name>.svg`, element id `chart-<name>`.
#[derive(Debug, Clone)]
pub struct Spec {
    pub name: &'static str,
    pub title: &'static str,
    /// The plot, or why there is nothing to draw.
    pub plot: Result<Plot, String>,
    /// What the chart leaves out or how to read it, under it.
    pub note: Option<String>,
}

/// The kinds of plot, each with its data.
#[derive(Debug, Clone)]
pub enum Plot {
    /// Panels of grouped horizontal bars with whiskers (`panels`).
    Bars(panels::Bars),
    /// Panels of lines on log–log axes (`lines`).
    Lines(lines::Lines),
    /// One horizontal bar per item, coloured by group (`ranked`).
    Ranked(ranked::Ranked),
    /// Latency percentile curves on a nines axis (`curves`).
    Curves(curves::Curves),
    /// Pairs of vertical bars per category (`pairs`).
    Pairs(pairs::Pairs),
}

/// A chart drawn, or skipped for lack of data.
#[derive(Debug, Clone)]
pub enum Drawn {
    /// A standalone SVG document, and a note on what it leaves out.
    Svg { svg: String, note: Option<String> },
    /// Why there is nothing to draw.
    Skipped(String),
}

/// A chart of the report, drawn.
#[derive(Debug, Clone)]
pub struct Figure {
    pub name: &'static str,
    pub title: &'static str,
    pub drawn: Drawn,
}

/// Why a chart could not be drawn: plotters' error, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartError {
    pub chart: &'static str,
    pub message: String,
}

/// Draws `spec`.
pub fn draw(spec: Spec) -> Result<Figure, ChartError> {
    let Spec { name, title, plot, note } = spec;
    let drawn = match plot {
        Err(why) => Drawn::Skipped(why),
        Ok(plot) => {
            let svg = match &plot {
                Plot::Bars(b) => panels::draw(title, b).map(Some),
                Plot::Lines(l) => lines::draw(title, l),
                Plot::Ranked(r) => ranked::draw(title, r).map(Some),
                Plot::Curves(c) => curves::draw(title, c).map(Some),
                Plot::Pairs(p) => pairs::draw(title, p).map(Some),
            }
            .map_err(|e| ChartError { chart: name, message: e.to_string().replace('\n', " ") })?;
            match svg {
                Some(svg) => Drawn::Svg { svg: finish(name, title, &svg), note },
                None => Drawn::Skipped("nothing to draw".into()),
            }
        }
    };
    Ok(Figure { name, title, drawn })
}

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "chart `{}`: {}", self.chart, self.message)
    }
}

/// Text escaped for SVG text and attribute values.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// Marks plotters' `<svg>` root so pages and tests can find it (`svg.chart#chart-<name>`) and gives
/// it an accessible title.
fn finish(name: &str, title: &str, svg: &str) -> String {
    let title = escape(title);
    let Some(body) = svg.strip_prefix("<svg ") else { return svg.to_string() };
    let Some(end) = body.find('>') else { return svg.to_string() };
    let (attrs, rest) = body.split_at(end);
    format!(
        "<svg class=\"chart\" id=\"chart-{name}\" role=\"img\" aria-label=\"{title}\" {attrs}>\n<title>{title}</title>{}",
        &rest[1..]
    )
}

/// Width of every chart in pixels; pages scale it down to fit.
pub const WIDTH: u32 = 960;
const PAD: i32 = 16;
const TITLE_HEIGHT: i32 = 36;
const LEGEND_ROW: i32 = 22;

/// The font stack of the page, so chart text matches the tables.
pub const FONT: &str = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif";
const INK: RGBColor = RGBColor(0x1f, 0x23, 0x28);
const MUTED: RGBColor = RGBColor(0x59, 0x63, 0x6e);
const GRID: RGBColor = RGBColor(0xd8, 0xde, 0xe4);

/// Tableau 10: ten hues chosen to stay distinguishable next to each other.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xed, 0xc9, 0x48),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xba, 0xb0, 0xac),
];

/// The `i`-th series colour, cycling through the palette.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Plotters' font sizes are 1.24× the CSS pixels it writes.
pub fn text(px: f64) -> TextStyle<'static> {
    (FONT, px * 1.24).into_font().color(&INK)
}

fn muted(px: f64) -> TextStyle<'static> {
    (FONT, px * 1.24).into_font().color(&MUTED)
}

/// One legend entry's marker.
#[derive(Debug, Clone, Copy)]
pub enum Key {
    Bar(RGBColor),
    Line(RGBColor, Dash),
    Whisker,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dash {
    Solid,
    Dashed,
}

/// Lines past the palette's ten colours are dashed, so twenty series stay distinguishable.
pub fn line_style(i: usize) -> (RGBColor, Dash) {
    (color(i), if i < PALETTE.len() { Dash::Solid } else { Dash::Dashed })
}

/// A region of an SVG being drawn.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Height of the title and legend block for `legend` on a chart `WIDTH` wide.
pub fn header_height(legend: &[(String, Key)]) -> u32 {
    (TITLE_HEIGHT + legend_rows(legend).len() as i32 * LEGEND_ROW + 8) as u32
}

/// Draws the title and the legend (above the plot, so it never covers data) and returns the
/// area left for the plot.
pub fn header<'a>(root: &Area<'a>, title: &str, legend: &[(String, Key)]) -> DrawResult<Area<'a>> {
    let (top, body) = root.split_vertically(header_height(legend));
    top.draw_text(title, &text(17.0).pos(Pos::new(HPos::Left, VPos::Top)), (PAD, 12))?;
    for (r, row) in legend_rows(legend).iter().enumerate() {
        let y = TITLE_HEIGHT + r as i32 * LEGEND_ROW + LEGEND_ROW / 2;
        let mut x = PAD;
        for &i in row {
            let (label, key) = &legend[i];
            match *key {
                Key::Bar(c) => top.draw(&Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled()))?,
                Key::Line(c, dash) => {
                    let style = c.stroke_width(3);
                    if dash == Dash::Dashed {
                        top.draw(&PathElement::new(vec![(x, y), (x + 5, y)], style))?;
                        top.draw(&PathElement::new(vec![(x + 9, y), (x + 14, y)], style))?;
                    } else {
                        top.draw(&PathElement::new(vec![(x, y), (x + 14, y)], style))?;
                    }
                }
                Key::Whisker => {
                    let style = INK.stroke_width(1);
                    top.draw(&PathElement::new(vec![(x, y), (x + 14, y)], style))?;
                    top.draw(&PathElement::new(vec![(x, y - 5), (x, y + 5)], style))?;
                    top.draw(&PathElement::new(vec![(x + 14, y - 5), (x + 14, y + 5)], style))?;
                }
            }
            top.draw_text(label, &muted(13.0).pos(Pos::new(HPos::Left, VPos::Center)), (x + 20, y))?;
            x += entry_width(label);
        }
    }
    Ok(body)
}

/// Estimated width of a legend entry: marker, gap, text (about 7 px a character at 13 px).
fn entry_width(label: &str) -> i32 {
    20 + label.chars().count() as i32 * 7 + 18
}

fn legend_rows(legend: &[(String, Key)]) -> Vec<Vec<usize>> {
    let room = WIDTH as i32 - 2 * PAD;
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = room;
    for (i, (label, _)) in legend.iter().enumerate() {
        let w = entry_width(label);
        if used + w > room {
            rows.push(Vec::new());
            used = 0;
        }
        rows.last_mut().expect("a row was pushed").push(i);
        used += w;
    }
    rows
}

/// Width for category labels on a vertical axis: about 7 px a character at 12 px.
pub fn label_width<'s>(labels: impl Iterator<Item = &'s str>) -> u32 {
    let chars = labels.map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    (chars * 7 + 20).clamp(60, 320)
}

/// A value axis in axis units: linear from zero, or log10 when the values span more than
/// `LOG_SPAN`× (1 KB and 1 MB responses differ by about 100×: linear bars would hide the slow ones).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    pub log: bool,
    lo: f64,
    hi: f64,
}

/// Ratio of largest to smallest value above which `Scale::fit` goes logarithmic.
pub const LOG_SPAN: f64 = 20.0;

impl Scale {
    /// Fits the positive finite `values`, leaving `headroom` (a fraction of the axis) above the
    /// largest one for labels.
    pub fn fit(values: &[f64], headroom: f64) -> Scale {
        let (min, max) = extent(values);
        if max / min > LOG_SPAN {
            Scale::log(values, headroom)
        } else {
            Scale { log: false, lo: 0.0, hi: max * (1.0 + headroom) }
        }
    }

    /// A linear axis from zero to the largest value.
    pub fn linear(values: &[f64], headroom: f64) -> Scale {
        let max = values.iter().copied().filter(|v| v.is_finite()).fold(0.0, f64::max);
        Scale { log: false, lo: 0.0, hi: if max > 0.0 { max * (1.0 + headroom) } else { 1.0 } }
    }

    /// A log10 axis from the decade below the smallest value.
    pub fn log(values: &[f64], headroom: f64) -> Scale {
        let (min, max) = extent(values);
        let lo = min.log10().floor();
        let top = max.log10();
        let hi = (top + (top - lo).max(1.0) * headroom).max(lo + 1.0);
        Scale { log: true, lo, hi }
    }

    /// Axis position of a value (values below a log axis sit on its bottom).
    pub fn at(&self, v: f64) -> f64 {
        if self.log {
            v.max(10f64.powf(self.lo)).log10()
        } else {
            v
        }
    }

    /// The value at an axis position.
    pub fn value(&self, axis: f64) -> f64 {
        if self.log {
            10f64.powf(axis)
        } else {
            axis
        }
    }

    /// The axis extent in axis units.
    pub fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }

    /// Tick positions: decades on a log axis (with 2× and 5× when it spans at most two), round
    /// steps from zero on a linear one.
    pub fn ticks(&self) -> Vec<f64> {
        let mut ticks = Vec::new();
        if self.log {
            let few = self.hi - self.lo <= 2.0;
            let mut d = self.lo;
            while d <= self.hi + 1e-9 {
                ticks.push(d);
                if few {
                    ticks.extend([d + 2f64.log10(), d + 5f64.log10()].into_iter().filter(|&t| t <= self.hi));
                }
                d += 1.0;
            }
        } else {
            let step = nice_step(self.hi / 6.0);
            let mut t = 0.0;
            while t <= self.hi + step * 1e-9 {
                ticks.push(t);
                t += step;
            }
        }
        ticks
    }

    /// `", log scale"` for axis descriptions.
    pub fn note(&self) -> &'static str {
        if self.log {
            ", log scale"
        } else {
            ""
        }
    }
}

/// A linear axis over a range (in axis units) whose ticks are exactly the given positions.
// plotters 0.3.7's `WithKeyPoints` over f64 lacks the label formatter `configure_mesh` needs, so
// this small coordinate stands in for it.
#[derive(Debug, Clone)]
pub struct Ticked {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl Ticked {
    /// `ticks` must lie within `range`.
    pub fn new(range: Range<f64>, ticks: Vec<f64>) -> Ticked {
        Ticked { range, ticks }
    }
}

impl From<Scale> for Ticked {
    fn from(s: Scale) -> Ticked {
        Ticked::new(s.range(), s.ticks())
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = if span > 0.0 { (v - self.range.start) / span } else { 0.5 };
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

fn extent(values: &[f64]) -> (f64, f64) {
    let pos = values.iter().copied().filter(|v| v.is_finite() && *v > 0.0);
    let min = pos.clone().fold(f64::INFINITY, f64::min);
    let max = pos.fold(0.0, f64::max);
    if max > 0.0 {
        (min, max)
    } else {
        (1.0, 10.0)
    }
}

/// 1, 2 or 5 × a power of ten, at least `x`.
fn nice_step(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&s| s >= x * (1.0 - 1e-9)).unwrap_or(10.0 * p)
}

/// Short tick labels: `500`, `2.5k`, `100k`, `1.2M`.
pub fn compact(v: f64) -> String {
    let trim = |s: String| if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(format!("{:.1}", v / 1e6)))
    } else if a >= 1e3 {
        format!("{}k", trim(format!("{:.1}", v / 1e3)))
    } else if a >= 1.0 || a == 0.0 {
        trim(format!("{v:.1}"))
    } else {
        numbers::sig3(v)
    }
}

/// A mesh style shared by the charts: light grid, muted labels.
pub fn mesh_label() -> TextStyle<'static> {
    muted(12.0)
}

/// Axis descriptions: ink, 13 px.
pub fn axis_desc() -> TextStyle<'static> {
    text(13.0)
}

/// Grid lines at the ticks.
pub fn grid() -> ShapeStyle {
    GRID.stroke_width(1)
}

/// A chart frame on `body` with the margins and x-axis band every single-panel chart uses.
pub fn frame<'a, 'b>(body: &'a Area<'b>, y_label_width: u32) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(body);
    builder.margin_left(16).margin_right(28).margin_bottom(12).x_label_area_size(52).y_label_area_size(y_label_width);
    builder
}

/// The three strokes of a confidence-interval whisker from `lo` to `hi` on the value axis, at
/// `at` on the category axis, with caps `cap` wide on each side. `horizontal`: values run along x.
pub fn whisker(lo: f64, hi: f64, at: f64, cap: f64, horizontal: bool) -> [PathElement<(f64, f64)>; 3] {
    let point = |value: f64, across: f64| if horizontal { (value, across) } else { (across, value) };
    [
        PathElement::new(vec![point(lo, at), point(hi, at)], ink()),
        PathElement::new(vec![point(lo, at - cap), point(lo, at + cap)], ink()),
        PathElement::new(vec![point(hi, at - cap), point(hi, at + cap)], ink()),
    ]
}

/// Every chart's grid, axes and label styles; the caller adds formatters and descriptions.
pub fn house_style<'m, 'a, 'b, X, Y, XT, YT, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
    DB: DrawingBackend,
{
    mesh.bold_line_style(grid()).axis_style(ink()).label_style(mesh_label()).axis_desc_style(axis_desc())
}

/// Axes and whiskers.
pub fn ink() -> ShapeStyle {
    INK.stroke_width(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_turn_logarithmic_across_orders_of_magnitude() {
        let lin = Scale::fit(&[900.0, 1000.0], 0.1);
        assert!(!lin.log);
        assert_eq!(lin.ticks()[..3], [0.0, 200.0, 400.0]);
        let log = Scale::fit(&[200.0, 20_000.0], 0.0);
        assert!(log.log);
        assert_eq!(log.ticks(), [2.0, 3.0, 4.0]);
        assert_eq!(log.at(1.0), 2.0, "values below the axis sit on its bottom");
        assert!((log.value(log.at(5000.0)) - 5000.0).abs() < 1e-6);
        assert_eq!(compact(2500.0), "2.5k");
        assert_eq!(compact(100_000.0), "100k");
        assert_eq!(compact(1_000_000.0), "1M");
        assert_eq!(compact(0.0), "0");
    }
}
