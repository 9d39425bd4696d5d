//! The suite's claims, judged: what the study said and its number, what we measured with its
//! interval, ours over the study's, and the verdict; every case of a claim that ranges over
//! cases; `claims.csv` and `claim_cases.csv`.

use wirebench_core::claims::{size_band, Case, Judged, Reason, Verdict, EQUIVALENCE, SIZE_TOLERANCE};
use wirebench_core::schema::{Sequential, SequentialStop};
use wirebench_core::stats::ALPHA;
use wirebench_core::suite::{Claim, ClaimKind, Op};

use crate::numbers::{self, NONE};
use crate::section::{Block, Para, Section};
use crate::table::{raw, Cell, Column, Csv, Field, Row, Table, Text};

/// The columns of `claims.csv`.
const CSV: &[Field<Judged>] = &[
    ("id", |j| j.claim.id.clone()),
    ("kind", |j| j.claim.kind.as_str().into()),
    ("conditions", |j| j.claim.conditions.clone().unwrap_or_default()),
    ("text", |j| j.claim.text.clone()),
    ("source", |j| j.claim.source.clone().unwrap_or_default()),
    ("published", |j| j.claim.published.clone()),
    ("published_value", |j| raw(j.claim.published_value)),
    ("tolerance", |j| raw(j.claim.tolerance)),
    ("band_lo", |j| raw(size_band(&j.claim).map(|b| b.0))),
    ("band_hi", |j| raw(size_band(&j.claim).map(|b| b.1))),
    ("note", |j| j.claim.note.clone().unwrap_or_default()),
    ("metric", |j| j.claim.metric.clone()),
    ("numerator", |j| j.claim.numerator.clone()),
    ("denominator", |j| j.claim.denominator.clone().unwrap_or_default()),
    ("versus_numerator", |j| j.claim.versus.as_ref().map(|v| v.numerator.clone()).unwrap_or_default()),
    ("versus_denominator", |j| j.claim.versus.as_ref().map(|v| v.denominator.clone()).unwrap_or_default()),
    ("op", |j| j.claim.op.symbol().into()),
    ("threshold", |j| raw(j.claim.threshold)),
    ("cases", |j| if j.claim.is_quantified() { j.cases.len().to_string() } else { String::new() }),
    ("deciding_case", |j| j.deciding.clone().unwrap_or_default()),
    ("value", |j| raw(j.outcome.value)),
    ("ci_lo", |j| raw(j.outcome.interval.map(|i| i.0))),
    ("ci_hi", |j| raw(j.outcome.interval.map(|i| i.1))),
    ("over_published", |j| raw(j.over_published().map(|o| o.0))),
    ("verdict", |j| j.outcome.verdict.as_str().into()),
    ("reason", |j| reason(j)),
];

/// The columns of `claim_cases.csv`: one line per case of a quantified claim.
const CASES_CSV: &[Field<(Claim, Case)>] = &[
    ("claim", |(claim, _)| claim.id.clone()),
    ("case", |(_, c)| c.label.clone()),
    ("scenarios", |(_, c)| c.scenarios.join(" ")),
    ("value", |(_, c)| raw(c.outcome.value)),
    ("ci_lo", |(_, c)| raw(c.outcome.interval.map(|i| i.0))),
    ("ci_hi", |(_, c)| raw(c.outcome.interval.map(|i| i.1))),
    ("verdict", |(_, c)| c.outcome.verdict.as_str().into()),
    ("reason", |(claim, c)| c.outcome.reason.as_ref().map(|r| reason_words(claim, r)).unwrap_or_default()),
];

/// The claims section, `claims.csv` and, when a claim ranges over cases, `claim_cases.csv`.
pub fn section(claims: &[Judged], from: Option<&str>, sequential: Option<&Sequential>) -> Section {
    let columns = vec![
        Column::text("Claim"),
        Column::text("The study"),
        Column::num(format!("Ours ({} % interval)", confidence(sequential.map_or(ALPHA, |q| q.claim_alpha)))),
        Column::num("Ours ÷ study").titled(format!(
            "Our value over the study's number. On a ratio, the study's size holds when our whole interval's effect (its \
             logarithm) lies within ×/÷ {} of the study's, give or take {} %; on one row's value, within ×/÷ {} of it; \
             unless the claim sets its own band.",
            numbers::sig3(SIZE_TOLERANCE),
            numbers::sig3((EQUIVALENCE - 1.0) * 100.0),
            numbers::sig3(SIZE_TOLERANCE)
        )),
        Column::text("Verdict"),
        Column::text("Reason"),
    ];
    let mut s = Section::new("claims-section", "Claims");
    let rows = claims.iter().map(row).collect();
    if let Some(q) = sequential {
        s.para(Para::Lede, sequential_text(q));
    }
    if let Some(file) = from {
        s.para(
            Para::Lede,
            Text::plain("The claims as ")
                .and_code(file)
                .and(" states them now, judged on this run's measurements (not the claims the run was made with)."),
        );
    }
    if let Some(t) = tally(claims) {
        s.para(Para::Plain, t);
    }
    s.push(Block::Table(Table {
        empty: Some("The suite states no claims.".into()),
        ..Table::new("claims", columns, rows)
    }));
    s.csv.push(Csv::of("claims.csv", CSV, claims));
    let cases: Vec<(Claim, Case)> =
        claims.iter().flat_map(|j| j.cases.iter().map(|c| (j.claim.clone(), c.clone()))).collect();
    if !cases.is_empty() {
        s.csv.push(Csv::of("claim_cases.csv", CASES_CSV, &cases));
    }
    s
}

/// The verdicts counted by kind of claim, kept apart (the study's sentences under its conditions,
/// under other conditions, ours, SLOs): `None` without claims.
fn tally(claims: &[Judged]) -> Option<String> {
    if claims.is_empty() {
        return None;
    }
    let parts: Vec<String> = ClaimKind::ALL
        .iter()
        .filter_map(|&kind| {
            let mine: Vec<&Judged> = claims.iter().filter(|j| j.claim.kind == kind).collect();
            if mine.is_empty() {
                return None;
            }
            let counts: Vec<String> = Verdict::ALL
                .iter()
                .rev()
                .filter_map(|&v| {
                    let n = mine.iter().filter(|j| j.outcome.verdict == v).count();
                    (n > 0).then(|| format!("{n} {}", v.label()))
                })
                .collect();
            let what = match kind {
                ClaimKind::Study => "The study's, as it ran them",
                ClaimKind::Elsewhere => "The study's, under other conditions",
                ClaimKind::Ours => "Ours, beyond the studies",
                ClaimKind::Slo => "Service-level objectives",
            };
            Some(format!("{what}: {} ({}).", mine.len(), counts.join(", ")))
        })
        .collect();
    let n = claims.len();
    Some(format!("{n} claim{}. {}", if n == 1 { "" } else { "s" }, parts.join(" ")))
}

/// `1 − alpha` in percent to three decimals, trailing zeros dropped: `95`, `98.75`, `99.375`.
fn confidence(alpha: f64) -> String {
    let text = format!("{:.3}", 100.0 * (1.0 - alpha));
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What a sequential run did, for the reader of its claims.
fn sequential_text(q: &Sequential) -> Text {
    let repeated: usize = q.rounds.iter().map(|r| r.rows.len()).sum();
    let mut t = Text::plain(format!(
        "Repeated until decided: after {} repeats of every row, {} round{} of one more repeat ran ({repeated} row repeats in all) \
         for the rows of claims still undecided, up to {} repeats and {} s. So that stopping when an interval first \
         clears its threshold cannot make a claim look surer than it is, every claim here is judged at {} % per look \
         (5 % shared among {} looks, Bonferroni) instead of 95 %. ",
        q.min_repeats,
        q.rounds.len(),
        if q.rounds.len() == 1 { "" } else { "s" },
        q.max_repeats,
        numbers::sig3(q.budget_s),
        confidence(q.claim_alpha),
        q.looks,
    ));
    t = t.and(match q.stopped {
        SequentialStop::Decided => "It stopped when no claim was left undecided for want of repeats.".to_string(),
        SequentialStop::MaxRepeats => format!("It stopped at {} repeats.", q.max_repeats),
        SequentialStop::Budget => "It stopped when its time budget was spent.".to_string(),
    });
    if !q.undecided.is_empty() {
        t = t.and(" Still undecided: ");
        for (i, id) in q.undecided.iter().enumerate() {
            if i > 0 {
                t = t.and(", ");
            }
            t = t.and_code(id.as_str());
        }
        t = t.and(".");
    }
    t
}

fn row(j: &Judged) -> Row {
    let c = &j.claim;
    let mut claim = Cell { code: Some(claim_expression(c)), ..Cell::new(c.text.as_str()) };
    if let Some(src) = &c.source {
        claim = claim.sub(src.as_str());
    }
    // An SLO is the user's own objective: no study stands behind it.
    let said = match c.kind {
        ClaimKind::Slo => slo_words(c),
        ClaimKind::Ours if c.published.is_empty() => "ours".to_string(),
        ClaimKind::Ours => format!("ours: {}", c.published),
        ClaimKind::Study | ClaimKind::Elsewhere => c.published.clone(),
    };
    let mut study = Cell { note: c.note.clone(), ..Cell::new(said) };
    if let Some(conditions) = &c.conditions {
        study = study.sub(format!("under other conditions: {conditions}"));
    }
    if let (Some(v), Some((lo, hi, _))) = (c.published_value, size_band(c)) {
        study = study.sub(format!("{}, band {}", claim_value(c, v), band_words(c, lo, hi)));
    }
    let mut ours = value_cell(c, j.outcome.value, j.outcome.interval);
    for case in &j.cases {
        let value = case.outcome.value.map_or(NONE.to_string(), |v| claim_value(c, v));
        let interval =
            case.outcome.interval.map(|(lo, hi)| format!(" [{}]", numbers::interval(lo, hi, |v| claim_value(c, v))));
        ours = ours.sub(format!(
            "{}: {value}{} {}",
            case.label,
            interval.unwrap_or_default(),
            case.outcome.verdict.label()
        ));
    }
    let over = match j.over_published() {
        Some((v, interval)) => {
            let cell = Cell::new(numbers::ratio(v));
            match interval {
                Some((lo, hi)) => cell.ci(numbers::interval(lo, hi, numbers::ratio)),
                None => cell,
            }
        }
        None => Cell::new(NONE),
    };
    Row {
        cells: vec![
            claim,
            study,
            ours,
            over,
            Cell { verdict: Some(j.outcome.verdict), ..Cell::default() },
            Cell::new(Text::plain(reason(j))),
        ],
        ..Row::default()
    }
}

/// What an SLO asks, in the study's column: `SLO: below 5.00 ms`.
fn slo_words(c: &Claim) -> String {
    let bound = c.threshold.map(|t| if c.denominator.is_some() { numbers::ratio(t) } else { claim_value(c, t) });
    let side = if c.op == Op::Less { "below" } else { "above" };
    let mut words = format!("SLO: {side} {}", bound.unwrap_or_default());
    if !c.published.is_empty() {
        words = format!("{words} ({})", c.published);
    }
    words
}

/// A value with its interval under it.
fn value_cell(c: &Claim, value: Option<f64>, interval: Option<(f64, f64)>) -> Cell {
    let cell = Cell::new(value.map_or(NONE.to_string(), |v| claim_value(c, v)));
    match interval {
        Some((lo, hi)) => cell.ci(numbers::interval(lo, hi, |v| claim_value(c, v))),
        None => cell,
    }
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

/// The measured expression a claim tests: `rps(a) / rps(b) > 1.5`, `p99_us(a) < 100 ms`; a
/// quantified claim's `*` stands for each case.
fn claim_expression(claim: &Claim) -> String {
    let m = &claim.metric;
    let lhs = match (&claim.denominator, &claim.versus) {
        (Some(d), Some(v)) => {
            format!("({m}({}) / {m}({d})) / ({m}({}) / {m}({}))", claim.numerator, v.numerator, v.denominator)
        }
        (Some(d), None) => format!("{m}({}) / {m}({d})", claim.numerator),
        (None, _) => format!("{m}({})", claim.numerator),
    };
    let bound = |v: f64| if claim.denominator.is_some() { numbers::sig3(v) } else { claim_value(claim, v) };
    // A `~` claim's bound is its band around the study's number.
    let rhs = match (claim.threshold, claim.published_value) {
        (Some(t), _) => bound(t),
        (None, Some(p)) => match size_band(claim) {
            Some((lo, hi, _)) => format!("{} ({}–{})", bound(p), bound(lo), bound(hi)),
            None => bound(p),
        },
        (None, None) => String::new(),
    };
    let every = match (claim.is_quantified(), claim.also.is_empty()) {
        (false, _) => String::new(),
        (true, true) => "for every *: ".to_string(),
        (true, false) => format!("for every * and {}: ", claim.also.join(", ")),
    };
    let except = if claim.except.is_empty() { String::new() } else { format!(" except {}", claim.except.join(", ")) };
    format!("{every}{lhs} {} {rhs}{except}", claim.op.symbol())
}

/// Why a claim got its verdict, in words; a quantified claim's names its cases.
fn reason(j: &Judged) -> String {
    let c = &j.claim;
    let plain = match (&j.outcome.reason, j.outcome.verdict) {
        (Some(r), _) => reason_words(c, r),
        (None, _) if c.published_value.is_some() => {
            "the whole interval satisfies the claim, within the study's size".to_string()
        }
        (None, _) => "the whole interval satisfies the claim".to_string(),
    };
    match &j.deciding {
        Some(label) if !j.cases.is_empty() => {
            let n = j.cases.len();
            let held = j.cases.iter().filter(|c| c.outcome.verdict == Verdict::Confirmed).count();
            if j.outcome.verdict == Verdict::Confirmed {
                format!("all {n} cases hold; the closest to failing is {label}: {plain}")
            } else {
                format!("{held} of {n} cases confirmed; {label}: {plain}")
            }
        }
        _ => plain,
    }
}

/// A band as the reader sees it: `1.03×–1.07×`, `60.0 ms–135 ms`.
fn band_words(c: &Claim, lo: f64, hi: f64) -> String {
    format!("{}–{}", claim_value(c, lo), claim_value(c, hi))
}

fn reason_words(c: &Claim, r: &Reason) -> String {
    let band = |lo: f64, hi: f64| match c.published_value {
        Some(p) => format!("{}, the study's {}", band_words(c, lo, hi), claim_value(c, p)),
        None => band_words(c, lo, hi),
    };
    match r {
        Reason::OneRepeat => "one repeat: no confidence interval (use --profile quick or full)".into(),
        Reason::NotMeasured { metric, scenario } => format!("no {metric} measured for {scenario}"),
        Reason::Zero { metric, scenario } => format!("{metric} of {scenario} is zero"),
        Reason::NoCase { globs } => {
            format!("no scenario matching {} ran (the profile or --only left them out)", globs.join(" or "))
        }
        Reason::NotRun { scenario } => format!("{scenario} did not run (the profile or --only left it out)"),
        Reason::InstrumentBound { scenarios } => format!(
            "the instrument was the bottleneck on {}: the value measures our client as much as the subject",
            scenarios.join(", ")
        ),
        Reason::Contended { scenarios } => format!(
            "other processes were busy on every try of repeats of {}: too few quiet repeats were left to judge",
            scenarios.join(", ")
        ),
        Reason::Equivalent { low, high } => format!(
            "the whole interval lies within {}, closer to the threshold than two runs of this machine agree",
            band_words(c, *low, *high)
        ),
        Reason::Straddles => "the confidence interval straddles the threshold".into(),
        Reason::Contradicts => "the whole interval contradicts the claim".into(),
        // An "about" claim has no direction: its band is the whole claim.
        Reason::SizeOutside { over, low, high } if c.op == Op::About => {
            format!("at {} the study's number (outside {})", numbers::ratio(*over), band(*low, *high))
        }
        Reason::SizeCrosses { low, high } if c.op == Op::About => {
            format!("the interval crosses an edge of {}", band(*low, *high))
        }
        Reason::SizeOutside { over, low, high } => {
            format!(
                "the direction holds, at {} the study's size (outside {})",
                numbers::ratio(*over),
                band(*low, *high)
            )
        }
        Reason::SizeCrosses { low, high } => {
            format!("the direction holds; the interval crosses an edge of {}", band(*low, *high))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_about_claim_is_not_said_to_hold_a_direction() {
        let about = Claim {
            id: "c".into(),
            kind: Default::default(),
            conditions: None,
            text: "about 1.8".into(),
            published: "15-90 ms".into(),
            published_value: Some(1.8),
            tolerance: None,
            source: None,
            note: None,
            metric: "duration_gsd".into(),
            numerator: "a".into(),
            denominator: None,
            versus: None,
            op: Op::About,
            threshold: None,
            except: Vec::new(),
            also: Vec::new(),
        };
        let outside = reason_words(&about, &Reason::SizeOutside { over: 0.6, low: 1.2, high: 2.7 });
        assert_eq!(outside, "at 0.600× the study's number (outside 1.20×–2.70×, the study's 1.80×)");
        let crosses = reason_words(&about, &Reason::SizeCrosses { low: 1.2, high: 2.7 });
        assert!(!crosses.contains("direction"), "{crosses}");
        let directed = Claim { op: Op::Greater, threshold: Some(1.0), ..about };
        assert!(reason_words(&directed, &Reason::SizeOutside { over: 0.6, low: 1.2, high: 2.7 })
            .starts_with("the direction holds"));
    }

    #[test]
    fn confidence_levels_keep_the_digits_they_need() {
        assert_eq!(confidence(0.05), "95");
        assert_eq!(confidence(0.05 / 4.0), "98.75");
        assert_eq!(confidence(0.05 / 8.0), "99.375");
    }

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
