//! The one table model: what every lab builds and every output renders. A table is built once;
//! HTML and Markdown each supply only the syntax (hyperfine's `export/markup.rs` is the model), so
//! no renderer knows which lab a table came from.
//!
//! Text here is plain and unescaped; each renderer escapes it.

use wirebench_core::claims::Verdict;
use wirebench_core::results::ScenarioSummary;

/// A run of text with code spans and muted asides.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Text(pub Vec<Span>);

/// One piece of a `Text`.
#[derive(Debug, Clone, PartialEq)]
pub enum Span {
    Plain(String),
    /// An id, shown as code.
    Code(String),
    /// An aside: a muted span in HTML, in parentheses in Markdown.
    Muted(String),
}

impl Text {
    pub fn plain(s: impl Into<String>) -> Text {
        Text(vec![Span::Plain(s.into())])
    }

    pub fn code(s: impl Into<String>) -> Text {
        Text(vec![Span::Code(s.into())])
    }

    /// Appends plain text.
    pub fn and(mut self, s: impl Into<String>) -> Text {
        self.0.push(Span::Plain(s.into()));
        self
    }

    /// Appends a code span.
    pub fn and_code(mut self, s: impl Into<String>) -> Text {
        self.0.push(Span::Code(s.into()));
        self
    }

    /// Appends a muted aside.
    pub fn and_muted(mut self, s: impl Into<String>) -> Text {
        self.0.push(Span::Muted(s.into()));
        self
    }

    /// True when the text has no characters.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|s| match s {
            Span::Plain(t) | Span::Code(t) | Span::Muted(t) => t.is_empty(),
        })
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::plain(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::plain(s)
    }
}

/// A warning badge on a row: its id (the CSS class, the CSV value, the badge text) and what it
/// means (the tooltip and the legend).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Badge {
    pub id: &'static str,
    pub meaning: &'static str,
}

/// A table: columns, then groups of rows (a group with a heading is its own table in Markdown and
/// a `tbody` with a heading row in HTML).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// The element id in HTML (`scenarios`, `formats`), unique on the page.
    pub id: String,
    /// A heading above the table (`<h3>`, `###`).
    pub title: Option<Text>,
    pub columns: Vec<Column>,
    pub groups: Vec<Group>,
    /// What to say when there are no rows.
    pub empty: Option<String>,
    /// Smaller type and tighter cells, for wide tables.
    pub dense: bool,
}

/// A column's header and how its cells sit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Column {
    pub label: String,
    /// Right-aligned figures.
    pub num: bool,
    /// A tooltip on the header, saying how the numbers are made.
    pub title: Option<String>,
    /// Numbers from elsewhere (a study's), shaded apart from ours.
    pub shade: bool,
    /// Left out of a Markdown table whose group has nothing in it.
    pub sparse: bool,
    /// Long names (module paths, Maven coordinates) that may wrap after separators.
    pub wrap: bool,
}

impl Column {
    pub fn text(label: impl Into<String>) -> Column {
        Column { label: label.into(), ..Column::default() }
    }

    pub fn num(label: impl Into<String>) -> Column {
        Column { label: label.into(), num: true, ..Column::default() }
    }

    pub fn titled(mut self, title: impl Into<String>) -> Column {
        self.title = Some(title.into());
        self
    }
}

/// Rows under an optional heading.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Group {
    pub heading: Option<Text>,
    /// An id for the group (`data-group` in HTML), e.g. a dataset.
    pub key: Option<String>,
    pub rows: Vec<Row>,
}

/// One row: its cells in column order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    /// The scenario the row shows (`data-scenario` in HTML), if it shows one.
    pub scenario: Option<String>,
    pub failed: bool,
    /// The first cell names the row (a row header).
    pub head: bool,
    pub cells: Vec<Cell>,
}

/// One cell: a main text and what sits under or beside it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cell {
    pub text: Text,
    /// The value the eye should find first (bold in HTML only).
    pub main: bool,
    /// The best of its row or column (bold in every output).
    pub best: bool,
    /// A short aside right after the text (a ratio).
    pub aside: Option<String>,
    /// Intervals and measured extras under the value (`[…]` in Markdown).
    pub ci: Vec<String>,
    /// Other lines under the value (`(…)` in Markdown).
    pub sub: Vec<String>,
    /// An expression under the text, as code.
    pub code: Option<String>,
    /// A caution under the text.
    pub note: Option<String>,
    pub badges: Vec<Badge>,
    pub error: Option<String>,
    /// The scenario this cell shows, where a row shows several.
    pub scenario: Option<String>,
    pub failed: bool,
    /// A tooltip.
    pub title: Option<String>,
    /// The number is from elsewhere (see `Column::shade`); shades the cell.
    pub shade: bool,
    /// A verdict badge.
    pub verdict: Option<Verdict>,
}

impl Cell {
    pub fn new(text: impl Into<Text>) -> Cell {
        Cell { text: text.into(), ..Cell::default() }
    }

    pub fn code(id: impl Into<String>) -> Cell {
        Cell::new(Text::code(id))
    }

    /// The row's main value.
    pub fn main(text: impl Into<Text>) -> Cell {
        Cell { text: text.into(), main: true, ..Cell::default() }
    }

    /// Adds a line of interval or measured extra under the value; empty lines are left out.
    pub fn ci(mut self, line: impl Into<String>) -> Cell {
        let line = line.into();
        if !line.is_empty() {
            self.ci.push(line);
        }
        self
    }

    /// Adds a line under the value; empty lines are left out.
    pub fn sub(mut self, line: impl Into<String>) -> Cell {
        let line = line.into();
        if !line.is_empty() {
            self.sub.push(line);
        }
        self
    }

    /// True when the cell holds nothing at all.
    pub fn is_blank(&self) -> bool {
        self.text.is_empty() && self.ci.is_empty() && self.sub.is_empty() && self.badges.is_empty()
    }
}

impl Table {
    /// A table of one group without a heading.
    pub fn new(id: impl Into<String>, columns: Vec<Column>, rows: Vec<Row>) -> Table {
        Table { id: id.into(), columns, groups: vec![Group { rows, ..Group::default() }], ..Table::default() }
    }

    pub fn titled(mut self, title: impl Into<Text>) -> Table {
        self.title = Some(title.into());
        self
    }

    /// Every row, group by group.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.groups.iter().flat_map(|g| &g.rows)
    }
}

/// A CSV file: its name, its header and its lines of raw values (numbers unformatted, in the
/// units their column names say).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Csv {
    pub name: &'static str,
    pub header: Vec<&'static str>,
    pub lines: Vec<Vec<String>>,
}

/// A CSV column: its name and a row's value in it.
pub type Field<R> = (&'static str, fn(&R) -> String);

impl Csv {
    /// A line per row of `rows`, a field per column of `columns`.
    pub fn of<'a, R: 'a, F: Fn(&R) -> String>(
        name: &'static str,
        columns: &[(&'static str, F)],
        rows: impl IntoIterator<Item = &'a R>,
    ) -> Csv {
        let lines = rows.into_iter().map(|r| columns.iter().map(|(_, value)| value(r)).collect()).collect();
        Csv { name, header: columns.iter().map(|&(c, _)| c).collect(), lines }
    }
}

/// The median of a row's metric over its repeats, raw; empty when not measured.
pub fn median(s: &ScenarioSummary, metric: &str) -> String {
    raw(s.get(metric).map(|x| x.median))
}

/// The lower end of the 95 % interval of a row's metric, raw.
pub fn ci_lo(s: &ScenarioSummary, metric: &str) -> String {
    raw(s.get(metric).and_then(|x| x.ci).map(|c| c.0))
}

/// The upper end of the 95 % interval of a row's metric, raw.
pub fn ci_hi(s: &ScenarioSummary, metric: &str) -> String {
    raw(s.get(metric).and_then(|x| x.ci).map(|c| c.1))
}

/// A parameter as text: strings bare, other values as JSON; empty when absent.
pub fn param(s: &ScenarioSummary, key: &str) -> String {
    s.params.get(key).map_or(String::new(), |v| v.as_str().map_or(v.to_string(), str::to_string))
}

/// The row's error, or nothing.
pub fn error(s: &ScenarioSummary) -> String {
    s.error.clone().unwrap_or_default()
}

/// A raw number for CSV: Rust's shortest round-trip form, empty when absent.
pub fn raw(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}
