//! The suite's claims, judged: a table of what the study said, what we measured with its interval,
//! and the verdict; and `claims.csv`.

use wirebench_core::claims::Judged;
use wirebench_core::suite::Op;

use crate::numbers::{self, NONE};
use crate::section::{Block, Section};
use crate::table::{raw, Cell, Column, Csv, Row, Table};

/// Header of `claims.csv`.
pub const CLAIM_COLUMNS: &[&str] = &[
    "id",
    "text",
    "published",
    "published_value",
    "note",
    "metric",
    "numerator",
    "denominator",
    "versus_numerator",
    "versus_denominator",
    "op",
    "threshold",
    "value",
    "ci_lo",
    "ci_hi",
    "verdict",
    "reason",
];

/// The claims section and `claims.csv`.
pub fn section(claims: &[Judged]) -> Section {
    let columns = vec![
        Column::text("Claim"),
        Column::text("Published"),
        Column::num("Ours (95 % interval)"),
        Column::text("Verdict"),
        Column::text("Reason"),
    ];
    let rows = claims
        .iter()
        .map(|j| {
            let c = &j.claim;
            let value = j.value.map_or(NONE.to_string(), |v| numbers::claim_value(c, v));
            let mut ours = Cell::new(value);
            if let Some((lo, hi)) = j.interval {
                ours = ours.ci(numbers::interval(lo, hi, |v| numbers::claim_value(c, v)));
            }
            Row {
                cells: vec![
                    Cell { code: Some(numbers::claim_expression(c)), ..Cell::new(c.text.as_str()) },
                    Cell { note: c.note.clone(), ..Cell::new(c.published.as_str()) },
                    ours,
                    Cell { verdict: Some(j.verdict.as_str()), ..Cell::default() },
                    Cell::new(numbers::claim_reason(j)),
                ],
                ..Row::default()
            }
        })
        .collect();
    let mut s = Section::new("claims-section", "Claims");
    s.push(Block::Table(Table {
        empty: Some("The suite states no claims.".into()),
        ..Table::new("claims", columns, rows)
    }));
    s.csv.push(csv(claims));
    s
}

/// `claims.csv`: one line per claim with our value, interval and verdict.
fn csv(claims: &[Judged]) -> Csv {
    let lines = claims
        .iter()
        .map(|j| {
            let c = &j.claim;
            let op = match c.op {
                Op::Greater => ">",
                Op::Less => "<",
            };
            vec![
                c.id.clone(),
                c.text.clone(),
                c.published.clone(),
                raw(c.published_value),
                c.note.clone().unwrap_or_default(),
                c.metric.clone(),
                c.numerator.clone(),
                c.denominator.clone().unwrap_or_default(),
                c.versus.as_ref().map(|v| v.numerator.clone()).unwrap_or_default(),
                c.versus.as_ref().map(|v| v.denominator.clone()).unwrap_or_default(),
                op.to_string(),
                c.threshold.to_string(),
                raw(j.value),
                raw(j.interval.map(|i| i.0)),
                raw(j.interval.map(|i| i.1)),
                j.verdict.as_str().to_string(),
                j.reason.clone().unwrap_or_default(),
            ]
        })
        .collect();
    Csv { name: "claims.csv", header: CLAIM_COLUMNS.to_vec(), lines }
}
