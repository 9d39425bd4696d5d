//! The suite's claims, judged: a table of what the study said, what we measured with its interval,
//! and the verdict; and `claims.csv`.

use wirebench_core::claims::Judged;
use wirebench_core::suite::Op;

use crate::numbers::{self, NONE};
use crate::section::{Block, Section};
use crate::table::{raw, Cell, Column, Csv, Field, Row, Table};

/// The columns of `claims.csv`.
const CSV: &[Field<Judged>] = &[
    ("id", |j| j.claim.id.clone()),
    ("text", |j| j.claim.text.clone()),
    ("published", |j| j.claim.published.clone()),
    ("published_value", |j| raw(j.claim.published_value)),
    ("note", |j| j.claim.note.clone().unwrap_or_default()),
    ("metric", |j| j.claim.metric.clone()),
    ("numerator", |j| j.claim.numerator.clone()),
    ("denominator", |j| j.claim.denominator.clone().unwrap_or_default()),
    ("versus_numerator", |j| j.claim.versus.as_ref().map(|v| v.numerator.clone()).unwrap_or_default()),
    ("versus_denominator", |j| j.claim.versus.as_ref().map(|v| v.denominator.clone()).unwrap_or_default()),
    ("op", |j| match j.claim.op {
        Op::Greater => ">".into(),
        Op::Less => "<".into(),
    }),
    ("threshold", |j| j.claim.threshold.to_string()),
    ("value", |j| raw(j.value)),
    ("ci_lo", |j| raw(j.interval.map(|i| i.0))),
    ("ci_hi", |j| raw(j.interval.map(|i| i.1))),
    ("verdict", |j| j.verdict.as_str().into()),
    ("reason", |j| j.reason.clone().unwrap_or_default()),
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
    Csv::of("claims.csv", CSV, claims)
}
