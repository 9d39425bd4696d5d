//! The study's own tables beside ours: each `[[published]]` table of the suite, row by row, with
//! the study's number, ours with its 95 % interval, and ours ÷ the study's; `published.csv`.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;
use wirebench_core::suite::{PublishedRow, PublishedTable};

use crate::numbers::{self, NONE};
use crate::section::{Block, Para, Section};
use crate::table::{raw, Cell, Column, Csv, Field, Row, Table, Text};

/// One line of a published table with our measurement of its row.
struct Line {
    table: PublishedTable,
    row: PublishedRow,
    ours: Option<Summary>,
}

impl Line {
    /// Ours ÷ the study's, with our interval over the study's number.
    fn over(&self) -> Option<(f64, Option<(f64, f64)>)> {
        let s = self.ours?;
        (self.row.value > 0.0)
            .then(|| (s.median / self.row.value, s.ci.map(|(lo, hi)| (lo / self.row.value, hi / self.row.value))))
    }
}

/// The columns of `published.csv`.
const CSV: &[Field<Line>] = &[
    ("table", |l| l.table.id.clone()),
    ("source", |l| l.table.source.clone()),
    ("metric", |l| l.table.metric.clone()),
    ("scenario", |l| l.row.scenario.clone()),
    ("study_label", |l| l.row.label.clone().unwrap_or_default()),
    ("study", |l| l.row.value.to_string()),
    ("ours_median", |l| raw(l.ours.map(|s| s.median))),
    ("ours_ci_lo", |l| raw(l.ours.and_then(|s| s.ci).map(|c| c.0))),
    ("ours_ci_hi", |l| raw(l.ours.and_then(|s| s.ci).map(|c| c.1))),
    ("ours_over_study", |l| raw(l.over().map(|o| o.0))),
];

/// The section of the study's tables, or `None` when the suite has none.
pub fn section(tables: &[PublishedTable], rows: &[ScenarioSummary]) -> Option<Section> {
    if tables.is_empty() {
        return None;
    }
    let mut s = Section::new("published", "The study's tables beside ours");
    s.para(
        Para::Lede,
        "Each number the study published, beside the row of ours that measures the same thing: ours is the median \
         with its 95 % interval. The machines differ, so compare ratios between rows rather than absolute numbers; \
         ours ÷ the study's shows how far each row moved.",
    );
    let mut lines = Vec::new();
    for t in tables {
        let mine: Vec<Line> = t
            .rows
            .iter()
            .map(|row| Line {
                table: PublishedTable { rows: Vec::new(), ..t.clone() },
                row: row.clone(),
                ours: rows.iter().find(|r| r.scenario == row.scenario).and_then(|r| r.get(&t.metric)).copied(),
            })
            .collect();
        s.push(Block::Table(table(t, &mine)));
        lines.extend(mine);
    }
    s.csv.push(Csv::of("published.csv", CSV, &lines));
    Some(s)
}

fn table(t: &PublishedTable, lines: &[Line]) -> Table {
    let value = |v: f64| numbers::metric_value(&t.metric, v);
    let columns = vec![
        Column::text("Row"),
        Column { shade: true, ..Column::num("The study") },
        Column::num("Ours (95 % interval)"),
        Column::num("Ours ÷ study"),
    ];
    let rows = lines
        .iter()
        .map(|l| {
            let mut row_cell = Cell::code(l.row.scenario.as_str());
            if let Some(label) = &l.row.label {
                row_cell = row_cell.sub(format!("the study: {label}"));
            }
            let ours = match l.ours {
                Some(s) => {
                    let cell = Cell::new(value(s.median));
                    match s.ci {
                        Some((lo, hi)) => cell.ci(numbers::interval(lo, hi, value)),
                        None => cell,
                    }
                }
                None => Cell::new(NONE),
            };
            let over = match l.over() {
                Some((v, Some((lo, hi)))) => Cell::new(numbers::ratio(v)).ci(numbers::interval(lo, hi, numbers::ratio)),
                Some((v, None)) => Cell::new(numbers::ratio(v)),
                None => Cell::new(NONE),
            };
            Row {
                scenario: Some(l.row.scenario.clone()),
                head: true,
                cells: vec![row_cell, Cell { shade: true, ..Cell::new(value(l.row.value)) }, ours, over],
                ..Row::default()
            }
        })
        .collect();
    let mut title = Text::plain(format!("{} (the study's {})", t.title, t.source));
    if let Some(n) = &t.note {
        title = title.and(" ").and_muted(n.as_str());
    }
    Table { title: Some(title), ..Table::new(format!("published-{}", t.id), columns, rows) }
}
