//! The suite's claims, judged: a table of what the study said, what we measured with its interval,
//! and the verdict; and `claims.csv`.

use wirebench_core::claims::{Judged, Verdict};
use wirebench_core::suite::{Claim, Op};

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
            let value = j.value.map_or(NONE.to_string(), |v| claim_value(c, v));
            let mut ours = Cell::new(value);
            if let Some((lo, hi)) = j.interval {
                ours = ours.ci(numbers::interval(lo, hi, |v| claim_value(c, v)));
            }
            Row {
                cells: vec![
                    Cell { code: Some(claim_expression(c)), ..Cell::new(c.text.as_str()) },
                    Cell { note: c.note.clone(), ..Cell::new(c.published.as_str()) },
                    ours,
                    Cell { verdict: Some(j.verdict.as_str()), ..Cell::default() },
                    Cell::new(claim_reason(j)),
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

/// Our value of a judged claim: a ratio (`2.00×`) when the claim divides two scenarios,
/// otherwise the metric with its unit.
fn claim_value(claim: &Claim, v: f64) -> String {
    if claim.denominator.is_some() {
        numbers::ratio(v)
    } else {
        numbers::metric_value(&claim.metric, v)
    }
}

/// The measured expression a claim tests: `rps(a) / rps(b) > 1.5`, `p99_us(a) < 100 ms`.
fn claim_expression(claim: &Claim) -> String {
    let op = match claim.op {
        Op::Greater => ">",
        Op::Less => "<",
    };
    let m = &claim.metric;
    let lhs = match (&claim.denominator, &claim.versus) {
        (Some(d), Some(v)) => {
            format!("({m}({}) / {m}({d})) / ({m}({}) / {m}({}))", claim.numerator, v.numerator, v.denominator)
        }
        (Some(d), None) => format!("{m}({}) / {m}({d})", claim.numerator),
        (None, _) => format!("{m}({})", claim.numerator),
    };
    let threshold =
        if claim.denominator.is_some() { numbers::sig3(claim.threshold) } else { claim_value(claim, claim.threshold) };
    format!("{lhs} {op} {threshold}")
}

/// Why a claim got its verdict: the judge's reason, or what a clear verdict means.
fn claim_reason(j: &Judged) -> &str {
    j.reason.as_deref().unwrap_or(match j.verdict {
        Verdict::Confirmed => "the whole interval satisfies the claim",
        Verdict::Refuted => "the whole interval contradicts the claim",
        Verdict::Inconclusive => "",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_expressions_show_every_scenario_they_divide() {
        let mut claim: Claim = serde_json::from_value(serde_json::json!({
            "id": "c", "text": "t", "published": "p", "metric": "rps", "numerator": "a", "denominator": "b",
            "versus": { "numerator": "c", "denominator": "d" }, "op": "<", "threshold": 1.0,
        }))
        .unwrap();
        assert_eq!(claim_expression(&claim), "(rps(a) / rps(b)) / (rps(c) / rps(d)) < 1.00");
        claim.versus = None;
        assert_eq!(claim_expression(&claim), "rps(a) / rps(b) < 1.00");
    }
}
