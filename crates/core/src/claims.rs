//! Judging published claims against measurements.
//!
//! A claim's expression (a metric of one scenario, a ratio of two, or a ratio of two ratios) is
//! estimated with a 95 % interval; the verdict reads the whole interval:
//! - **not run** when a row it divides did not run (the profile or `--only` left it out);
//! - **not judged** when a row it divides had a repeat where the instrument was the bottleneck:
//!   the value is shown, but it measures our client as much as the subject; or when a row was
//!   left with too few repeats for an interval because foreign work contended them on every try;
//! - **no difference** when a direction claim's whole interval lies within the equivalence band
//!   `[threshold ÷ EQUIVALENCE, threshold × EQUIVALENCE]`: closer to the threshold than this
//!   machine resolves between runs, on either side;
//! - **refuted** when it contradicts the claim's direction (`op threshold`) everywhere;
//! - **inconclusive** when it straddles the threshold, when there are too few repeats, or when the
//!   direction holds but the interval crosses an edge of the study's size band;
//! - **differs in size** when the direction holds everywhere but the interval lies wholly outside
//!   the study's size band;
//! - **confirmed** when the direction holds everywhere and, where the study gave a number, the
//!   interval lies within that band. Without a published number only the direction is judged.
//!
//! The size band of a claim that divides rows is read on the **effect**, the logarithm of the
//! ratio (0 for no difference): ours is the study's size when its effect lies within ×/÷
//! `SIZE_TOLERANCE` of the study's effect, widened on each side by the equivalence band, and its
//! value within ×/÷ `SIZE_TOLERANCE` of the study's number. Near 1 the effect binds ("+4.8 %"
//! asks for −1.7…+12.7 %, where a band on the ratio alone let +42 % confirm it); past a ratio of
//! about 2 the number does ("×69" asks for ×46…×104). A claim on one row's metric (no neutral
//! point) and a claim that sets its own `tolerance` keep a band on the value alone:
//! `[published ÷ t, published × t]`. docs/METHODOLOGY.md ("Claims") gives the reasons and the
//! measurements.
//!
//! A claim whose scenario ids hold a `*` ranges over every case it matches ("in every case",
//! "fastest of all"): each case is judged alone, and the claim takes its weakest case's verdict
//! (refuted < no difference < not run < not judged < inconclusive < differs in size <
//! confirmed), value and interval.
//!
//! A ratio of two scenarios measured in the same repeats (1..R of both), or a ratio of two such
//! ratios (`versus`), is estimated from the per-repeat values: their geometric mean, with a
//! Student-t interval on their logarithms. The harnesses interleave their scenarios repeat by
//! repeat, so a slow moment of the machine hits both sides of a pair and cancels; the interval
//! stays positive. Without two such pairs, the ratio of medians with the conservative interval
//! (extremes of both intervals) is used.

use serde::Serialize;

use std::collections::BTreeMap;

use crate::metrics::{self, Read, Spread};
use crate::results::ScenarioSummary;
use crate::stats::{Summary, ALPHA};
use crate::suite::{Claim, Op};

/// How far, as a factor either way, our effect may lie from the study's and still be its size
/// (on a ratio: `ln ours` within `[ln published ÷ 1.5, ln published × 1.5]`, widened by the
/// equivalence band); on one row's value, the factor itself. See docs/METHODOLOGY.md ("Claims").
pub const SIZE_TOLERANCE: f64 = 1.5;

/// Two values within this factor of each other are the same on this machine: the median row
/// moved by a factor of 1.035 and the median claim by 1.044 between two idle runs of protocols
/// `brief` minutes apart (`bench/reproduce`, 2026-11-27), so a difference under 5 % is not one a
/// second run would keep. The "no difference" verdict and the slack of every effect band.
pub const EQUIVALENCE: f64 = 1.05;

/// The band a claim sets itself (`tolerance`), or `SIZE_TOLERANCE` for a band on a value.
pub fn tolerance(claim: &Claim) -> f64 {
    claim.tolerance.unwrap_or(SIZE_TOLERANCE)
}

/// How a claim's size band is made.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BandRule {
    /// On the effect: ×/÷ `SIZE_TOLERANCE` of the study's logarithm, widened by `EQUIVALENCE`,
    /// and within ×/÷ `SIZE_TOLERANCE` of the study's number (the tighter binds: the effect's
    /// below a ratio of about 2, the number's above).
    Effect,
    /// On the value: ×/÷ the factor (the claim's own `tolerance`, or `SIZE_TOLERANCE` on a claim
    /// of one row's metric, which has no neutral point for an effect).
    Factor(f64),
}

/// The values that are the study's size: `(low, high, rule)`, or `None` without a published
/// number.
pub fn size_band(claim: &Claim) -> Option<(f64, f64, BandRule)> {
    let p = claim.published_value?;
    if claim.tolerance.is_none() && claim.denominator.is_some() && p > 0.0 {
        // The slack is what a second run moves; an exact metric does not move.
        let slack = if is_exact(claim) { 0.0 } else { EQUIVALENCE.ln() };
        let e = p.ln();
        let (a, b) = (e / SIZE_TOLERANCE, e * SIZE_TOLERANCE);
        let (lo, hi) = ((a.min(b) - slack).exp(), (a.max(b) + slack).exp());
        // And within the factor of the number itself: past an effect of about 2× the band on
        // the effect grows wider than that (×/÷ 4 around ×69), and a study's 277× is not our 99×.
        let (lo, hi) = (lo.max(p / SIZE_TOLERANCE), hi.min(p * SIZE_TOLERANCE));
        return Some((lo, hi, BandRule::Effect));
    }
    let t = tolerance(claim);
    Some((p / t, p * t, BandRule::Factor(t)))
}

/// The equivalence band around a direction claim's threshold; none on an exact metric (an
/// encoding's length), which a second run repeats to the byte: Avro 1.3 % smaller than
/// MessagePack is smaller, not "no difference".
pub fn equivalence_band(claim: &Claim) -> Option<(f64, f64)> {
    let t = claim.threshold.filter(|_| claim.op != Op::About)?;
    if is_exact(claim) {
        return None;
    }
    Some((t / EQUIVALENCE, t * EQUIVALENCE))
}

/// The repeats a row needs for the claim's interval: an exact metric's one repeat is its value.
fn repeats_needed(claim: &Claim) -> usize {
    if is_exact(claim) {
        1
    } else {
        2
    }
}

/// The claim's metric gives the same value on every run (`metrics::Metric::exact`).
fn is_exact(claim: &Claim) -> bool {
    metrics::find(&claim.metric).is_some_and(|m| m.exact)
}

/// A claim's verdict, weakest first: a quantified claim takes its weakest case's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Refuted,
    /// The whole interval lies within the equivalence band of a direction claim's threshold.
    NoDifference,
    /// A row of the claim did not run.
    NotRun,
    /// A row of the claim had a repeat where the instrument was the bottleneck, or lost its
    /// repeats to foreign work.
    NotJudged,
    Inconclusive,
    DiffersInSize,
    Confirmed,
}

impl Verdict {
    /// Every verdict, weakest first.
    pub const ALL: [Verdict; 7] = [
        Verdict::Refuted,
        Verdict::NoDifference,
        Verdict::NotRun,
        Verdict::NotJudged,
        Verdict::Inconclusive,
        Verdict::DiffersInSize,
        Verdict::Confirmed,
    ];

    /// The id in CSV and the HTML badge's class.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::DiffersInSize => "differs-in-size",
            Verdict::Refuted => "refuted",
            Verdict::NoDifference => "no-difference",
            Verdict::NotRun => "not-run",
            Verdict::NotJudged => "not-judged",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// The verdict of an id (`as_str`), or the error listing every id.
    pub fn parse(id: &str) -> Result<Verdict, String> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == id).ok_or_else(|| {
            let ids: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
            format!("unknown verdict `{id}`: use one of {}", ids.join(", "))
        })
    }

    /// The words a reader sees.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::DiffersInSize => "differs in size",
            Verdict::NoDifference => "no difference",
            Verdict::NotRun => "not run",
            Verdict::NotJudged => "not judged",
            v => v.as_str(),
        }
    }

    /// The verdict answers the claim from the data: the study's words hold, or do not. Not so for
    /// inconclusive, not run and not judged.
    pub fn decided(self) -> bool {
        matches!(self, Verdict::Refuted | Verdict::NoDifference | Verdict::DiffersInSize | Verdict::Confirmed)
    }
}

/// Our value of an expression: the point estimate, its 95 % interval and the verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub value: Option<f64>,
    pub interval: Option<(f64, f64)>,
    pub verdict: Verdict,
    /// Why the verdict is not a plain confirmation.
    pub reason: Option<Reason>,
}

/// Why a verdict is what it is, where a plain confirmation does not say it all; the report puts
/// it in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Reason {
    /// One repeat: no interval.
    OneRepeat,
    NotMeasured {
        metric: String,
        scenario: String,
    },
    /// A divisor is zero.
    Zero {
        metric: String,
        scenario: String,
    },
    /// A quantified claim's globs match no measured scenario. A suite's globs each match one of
    /// its scenarios (`Suite::check`), so here the rows they match did not run.
    NoCase {
        globs: Vec<String>,
    },
    /// The interval straddles the threshold.
    Straddles,
    /// The whole interval contradicts the claim.
    Contradicts,
    /// The direction holds, but the whole interval lies outside the study's size band
    /// `[low, high]`: ours is `over` times the study's number.
    SizeOutside {
        over: f64,
        low: f64,
        high: f64,
    },
    /// The direction holds; the interval crosses an edge of the study's size band.
    SizeCrosses {
        low: f64,
        high: f64,
    },
    /// The whole interval lies within `[low, high]`, the equivalence band of the threshold.
    Equivalent {
        low: f64,
        high: f64,
    },
    /// A row the claim divides did not run.
    NotRun {
        scenario: String,
    },
    /// Rows the claim divides had repeats where the instrument was the bottleneck.
    InstrumentBound {
        scenarios: Vec<String>,
    },
    /// Rows the claim divides lost repeats to foreign work (every try contended), down to fewer
    /// than the interval needs.
    Contended {
        scenarios: Vec<String>,
    },
}

/// One case of a quantified claim, judged.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// What the claim's `*` stood for.
    pub label: String,
    /// The scenarios the case divides, in the claim's order.
    pub scenarios: Vec<String>,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// A claim with our value (see the module note); for a quantified claim, its weakest case's.
#[derive(Debug, Clone, Serialize)]
pub struct Judged {
    pub claim: Claim,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Every case of a quantified claim, in the order of their labels; empty otherwise.
    pub cases: Vec<Case>,
    /// The label of the case that decided a quantified claim's verdict.
    pub deciding: Option<String>,
}

impl Judged {
    /// Our value over the study's, with the interval over it: `None` without both numbers.
    pub fn over_published(&self) -> Option<(f64, Option<(f64, f64)>)> {
        let p = self.claim.published_value?;
        let v = self.outcome.value?;
        Some((v / p, self.outcome.interval.map(|(lo, hi)| (lo / p, hi / p))))
    }
}

/// The claim judged on `summaries` with 95 % intervals.
pub fn judge(claim: &Claim, summaries: &[ScenarioSummary]) -> Judged {
    judge_at(claim, summaries, ALPHA)
}

/// The claim judged with `1 − alpha` intervals (a sequential run's corrected level).
pub fn judge_at(claim: &Claim, summaries: &[ScenarioSummary], alpha: f64) -> Judged {
    if !claim.is_quantified() {
        let factors: Vec<(String, i32)> = claim.factors().iter().map(|&(id, e)| (id.to_string(), e)).collect();
        let outcome = estimate(claim, &factors, summaries, alpha);
        return Judged { claim: claim.clone(), outcome, cases: Vec::new(), deciding: None };
    }
    let ids: Vec<&str> = summaries.iter().map(|s| s.scenario.as_str()).collect();
    let cases: Vec<Case> = claim
        .cases(&ids)
        .into_iter()
        .map(|c| Case {
            outcome: estimate(claim, &c.factors, summaries, alpha),
            scenarios: c.factors.into_iter().map(|(id, _)| id).collect(),
            label: c.label,
        })
        .collect();
    // The weakest verdict decides; among equals, the case nearest to failing: the lowest lower
    // bound of a `>` claim, the highest upper bound of a `<` one.
    let margin = |c: &Case| {
        let (lo, hi) = c.outcome.interval.unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        match claim.op {
            Op::Less => -hi,
            Op::Greater | Op::About => lo,
        }
    };
    let deciding =
        cases.iter().min_by(|a, b| a.outcome.verdict.cmp(&b.outcome.verdict).then(margin(a).total_cmp(&margin(b))));
    let Some(d) = deciding else {
        let globs = claim.factors().into_iter().map(|(id, _)| id.to_string()).filter(|id| id.contains('*')).collect();
        let outcome =
            Outcome { value: None, interval: None, verdict: Verdict::NotRun, reason: Some(Reason::NoCase { globs }) };
        return Judged { claim: claim.clone(), outcome, cases, deciding: None };
    };
    let (outcome, deciding) = (d.outcome.clone(), Some(d.label.clone()));
    Judged { claim: claim.clone(), outcome, cases, deciding }
}

/// The value of the claim's expression over `factors` (`metric(id)^exponent` multiplied), its
/// interval and verdict.
fn estimate(claim: &Claim, factors: &[(String, i32)], summaries: &[ScenarioSummary], alpha: f64) -> Outcome {
    let scenario = |id: &str| summaries.iter().find(|s| s.scenario == id);
    let inconclusive =
        |reason: Reason| Outcome { value: None, interval: None, verdict: Verdict::Inconclusive, reason: Some(reason) };
    if let Some((id, _)) = factors.iter().find(|(id, _)| scenario(id).is_none()) {
        let reason = Some(Reason::NotRun { scenario: id.clone() });
        return Outcome { value: None, interval: None, verdict: Verdict::NotRun, reason };
    }
    // A row that lost repeats to foreign work, down to fewer than an interval needs: the machine
    // was busy, not the claim open. Said as such, so that a gate on `not-judged` fails a run on a
    // machine busy throughout instead of passing it for want of a verdict.
    let busy: Vec<String> = factors
        .iter()
        .filter_map(|(id, _)| scenario(id).filter(|s| s.lost_repeats > 0 && s.ok_repeats < repeats_needed(claim)))
        .map(|s| s.scenario.clone())
        .collect();
    if !busy.is_empty() {
        let reason = Some(Reason::Contended { scenarios: busy });
        return Outcome { value: None, interval: None, verdict: Verdict::NotJudged, reason };
    }
    let mut measured = Vec::new();
    for (id, exponent) in factors {
        let Some(s) = scenario(id).and_then(|s| at_level(s, &claim.metric, alpha)) else {
            return inconclusive(Reason::NotMeasured { metric: claim.metric.clone(), scenario: id.clone() });
        };
        if *exponent < 0 && s.median == 0.0 {
            return inconclusive(Reason::Zero { metric: claim.metric.clone(), scenario: id.clone() });
        }
        measured.push((s, *exponent));
    }
    let bound: Vec<String> = factors
        .iter()
        .filter(|(id, _)| scenario(id).is_some_and(|s| s.instrument_bound))
        .map(|(id, _)| id.clone())
        .collect();
    let (value, interval) = if factors.len() == 1 {
        (measured[0].0.median, measured[0].0.ci)
    } else {
        let repeats: Option<Vec<_>> =
            factors.iter().map(|(id, e)| Some((scenario(id)?.by_repeat.get(claim.metric.as_str())?, *e))).collect();
        match repeats.and_then(|r| paired_ratio(&r, alpha)) {
            Some((value, interval)) => (value, Some(interval)),
            // The ratio of medians, with the conservative interval: each factor at the end of its
            // own interval that moves the value most.
            None => (
                measured.iter().map(|(s, e)| s.median.powi(*e)).product(),
                measured.iter().try_fold((1.0, 1.0), |(lo, hi), (s, e)| match s.ci {
                    Some((l, h)) if *e > 0 => Some((lo * l, hi * h)),
                    Some((l, h)) if l > 0.0 => Some((lo / h, hi / l)),
                    _ => None,
                }),
            ),
        }
    };
    if !bound.is_empty() {
        // The value is shown; no verdict rests on a repeat that measured our client.
        let reason = Some(Reason::InstrumentBound { scenarios: bound });
        return Outcome { value: Some(value), interval, verdict: Verdict::NotJudged, reason };
    }
    decide(claim, value, interval)
}

/// The scenario's summary of `metric` with a `1 − alpha` interval; a spread across repeats
/// (`metrics::Read::SpreadOf`) from the repeats of the metric it spreads.
fn at_level(s: &ScenarioSummary, metric: &str, alpha: f64) -> Option<Summary> {
    if let Some(Read::SpreadOf(over, how)) = metrics::find(metric).map(|m| m.read) {
        let values: Vec<f64> = s.by_repeat.get(over)?.values().copied().collect();
        return match how {
            Spread::Sd => Summary::spread_at(&values, alpha),
            Spread::Quartiles => Summary::robust_spread_at(&values, alpha),
        };
    }
    let summary = *s.get(metric)?;
    if alpha == ALPHA {
        return Some(summary);
    }
    let values: Vec<f64> = s.by_repeat.get(metric)?.values().copied().collect();
    Summary::of_measured_at(&values, alpha)
}

/// Geometric mean over the repeats every factor has of the per-repeat products
/// `Π metric[r]^exponent` (a ratio, or a ratio of ratios), and its `1 − alpha` interval; `None`
/// with fewer than two repeats where every factor is positive.
fn paired_ratio(factors: &[(&BTreeMap<u32, f64>, i32)], alpha: f64) -> Option<(f64, (f64, f64))> {
    let (first, _) = factors.first()?;
    let logs: Vec<f64> = first
        .keys()
        .filter_map(|r| {
            factors.iter().try_fold(0.0, |sum, (values, e)| {
                values.get(r).filter(|&&v| v > 0.0).map(|v| sum + f64::from(*e) * v.ln())
            })
        })
        .collect();
    let s = Summary::of_at(&logs, alpha)?;
    let (lo, hi) = s.ci?;
    Some((s.mean.exp(), (lo.exp(), hi.exp())))
}

/// The verdict of a value and its interval: the direction first, then the size.
fn decide(claim: &Claim, value: f64, interval: Option<(f64, f64)>) -> Outcome {
    // One repeat of an exact metric is its value: a second would repeat it to the byte.
    let interval = interval.or_else(|| is_exact(claim).then_some((value, value)));
    let outcome = |verdict, reason| Outcome { value: Some(value), interval, verdict, reason };
    let Some((lo, hi)) = interval else {
        return outcome(Verdict::Inconclusive, Some(Reason::OneRepeat));
    };
    // A relative hair of slack, so a value exactly at an edge is not pushed out by the last bit
    // of a logarithm's rounding.
    let within = |(low, high): (f64, f64)| lo >= low * (1.0 - 1e-12) && hi <= high * (1.0 + 1e-12);
    if let Some((low, high)) = equivalence_band(claim).filter(|&b| within(b)) {
        return outcome(Verdict::NoDifference, Some(Reason::Equivalent { low, high }));
    }
    let holds = |v| claim.direction_holds(v);
    match (holds(lo), holds(hi)) {
        (true, true) => {}
        (false, false) => return outcome(Verdict::Refuted, Some(Reason::Contradicts)),
        _ => return outcome(Verdict::Inconclusive, Some(Reason::Straddles)),
    }
    let (Some(published), Some((low, high, _))) = (claim.published_value, size_band(claim)) else {
        return outcome(Verdict::Confirmed, None);
    };
    // "About the study's number" has no direction: outside its band, the claim is wrong.
    let outside = if claim.op == Op::About { Verdict::Refuted } else { Verdict::DiffersInSize };
    if within((low, high)) {
        outcome(Verdict::Confirmed, None)
    } else if hi < low * (1.0 - 1e-12) || lo > high * (1.0 + 1e-12) {
        outcome(outside, Some(Reason::SizeOutside { over: value / published, low, high }))
    } else {
        outcome(Verdict::Inconclusive, Some(Reason::SizeCrosses { low, high }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn summary(id: &str, rps: &[f64]) -> ScenarioSummary {
        ScenarioSummary {
            scenario: id.into(),
            subject: "s".into(),
            lang: "rust".into(),
            lab: "protocols".into(),
            transport: None,
            net: None,
            protocol: None,
            format: None,
            params: BTreeMap::new(),
            error: None,
            ok_repeats: rps.len(),
            contended: 0,
            lost_repeats: 0,
            metrics: [("rps", Summary::of(rps).unwrap())].into(),
            by_repeat: BTreeMap::new(),
            latency_curve: vec![],
            instrument_bound: false,
            net_bound: false,
            steps: vec![],
            workers: vec![],
            worker_skew_ms: None,
        }
    }

    fn claim(op: Op, threshold: f64) -> Claim {
        Claim {
            id: "c".into(),
            kind: Default::default(),
            conditions: None,
            text: "a beats b".into(),
            published: "69x".into(),
            published_value: None,
            tolerance: None,
            source: None,
            note: None,
            metric: "rps".into(),
            numerator: "a".into(),
            denominator: Some("b".into()),
            versus: None,
            op,
            threshold: Some(threshold),
            except: Vec::new(),
            also: Vec::new(),
        }
    }

    #[test]
    fn verdicts_follow_the_interval() {
        let s = vec![summary("a", &[1000.0, 1010.0, 990.0]), summary("b", &[10.0, 10.1, 9.9])];
        let j = judge(&claim(Op::Greater, 10.0), &s);
        assert_eq!(j.outcome.verdict, Verdict::Confirmed);
        assert!((j.outcome.value.unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(judge(&claim(Op::Greater, 500.0), &s).outcome.verdict, Verdict::Refuted);
        assert_eq!(judge(&claim(Op::Less, 500.0), &s).outcome.verdict, Verdict::Confirmed);
        let (lo, hi) = j.outcome.interval.unwrap();
        assert_eq!(judge(&claim(Op::Greater, (lo + hi) / 2.0), &s).outcome.verdict, Verdict::Inconclusive);
    }

    /// `summary` with its values as repeats 1, 2, ...
    fn paired(id: &str, rps: &[f64]) -> ScenarioSummary {
        let by_repeat = rps.iter().enumerate().map(|(i, &v)| (i as u32 + 1, v)).collect();
        ScenarioSummary { by_repeat: [("rps", by_repeat)].into(), ..summary(id, rps) }
    }

    #[test]
    fn paired_repeats_cancel_a_slow_moment_that_hits_both_sides() {
        // Repeat 2 ran on a slow machine: 3× slower on both sides, so each ratio is 10.
        let (a, b) = ([100.0, 300.0, 100.0], [10.0, 30.0, 10.0]);
        let j = judge(&claim(Op::Greater, 9.0), &[paired("a", &a), paired("b", &b)]);
        assert_eq!(j.outcome.verdict, Verdict::Confirmed);
        assert!((j.outcome.value.unwrap() - 10.0).abs() < 1e-9);
        let (lo, hi) = j.outcome.interval.unwrap();
        assert!((lo - 10.0).abs() < 1e-9 && (hi - 10.0).abs() < 1e-9, "{lo} {hi}");
        // Unpaired, the same numbers are inconclusive: 100/30 .. 300/10 straddles 9.
        let j = judge(&claim(Op::Greater, 9.0), &[summary("a", &a), summary("b", &b)]);
        assert_eq!(j.outcome.verdict, Verdict::Inconclusive);
        // Differing ratios give a positive interval around their geometric mean.
        let j = judge(&claim(Op::Greater, 1.0), &[paired("a", &[20.0, 40.0, 30.0]), paired("b", &[10.0, 10.0, 10.0])]);
        let (lo, hi) = j.outcome.interval.unwrap();
        assert!(lo > 0.0 && lo < 2.0 && hi > 4.0, "{lo} {hi}");
        assert!((j.outcome.value.unwrap() - 24_f64.cbrt()).abs() < 1e-9);
    }

    #[test]
    fn a_paired_interval_may_reach_below_one_when_every_ratio_is_above() {
        // Ratios 1.01, 1.01, 1.65: all above 1, but too spread to rule out a mean below 1.
        let num: BTreeMap<u32, f64> = [(1, 101.0), (2, 101.0), (3, 165.0)].into();
        let den: BTreeMap<u32, f64> = [(1, 100.0), (2, 100.0), (3, 100.0)].into();
        let (_, (lo, hi)) = paired_ratio(&[(&num, 1), (&den, -1)], ALPHA).unwrap();
        assert!(lo < 1.0 && hi > 1.65, "{lo} {hi}");
    }

    /// "WSS degrades less than REST from 1 KB to 1 MB": (wss1k/wss1m) / (rest1k/rest1m) < 1.
    #[test]
    fn a_ratio_of_ratios_pairs_all_four_scenarios_or_takes_the_conservative_interval() {
        let versus = Claim {
            numerator: "ws-1kb".into(),
            denominator: Some("ws-1mb".into()),
            versus: Some(crate::suite::Versus { numerator: "rest-1kb".into(), denominator: "rest-1mb".into() }),
            ..claim(Op::Less, 1.0)
        };
        // WS slows 40x, REST 280x, with a slow repeat 2 everywhere: 40 / 280 = 1/7 exactly.
        let rows = |f: fn(&str, &[f64]) -> ScenarioSummary| {
            vec![
                f("ws-1kb", &[120_000.0, 60_000.0, 120_000.0]),
                f("ws-1mb", &[3_000.0, 1_500.0, 3_000.0]),
                f("rest-1kb", &[700_000.0, 350_000.0, 700_000.0]),
                f("rest-1mb", &[2_500.0, 1_250.0, 2_500.0]),
            ]
        };
        let j = judge(&versus, &rows(paired));
        assert_eq!(j.outcome.verdict, Verdict::Confirmed);
        assert!((j.outcome.value.unwrap() - 1.0 / 7.0).abs() < 1e-9, "{:?}", j.outcome.value);
        let j = judge(&versus, &rows(summary));
        assert!((j.outcome.value.unwrap() - 1.0 / 7.0).abs() < 1e-9);
        let (lo, hi) = j.outcome.interval.unwrap();
        assert!(lo < 1.0 / 7.0 && hi > 1.0 / 7.0, "{lo} {hi}");
        let missing = judge(&versus, &rows(paired)[..3]);
        assert_eq!(
            (missing.outcome.verdict, missing.outcome.reason),
            (Verdict::NotRun, Some(Reason::NotRun { scenario: "rest-1mb".into() }))
        );
    }

    #[test]
    fn a_single_repeat_is_inconclusive_and_a_row_that_did_not_run_is_not_run() {
        let s = vec![summary("a", &[1000.0]), summary("b", &[10.0])];
        let j = judge(&claim(Op::Greater, 10.0), &s);
        assert_eq!((j.outcome.verdict, j.outcome.value), (Verdict::Inconclusive, Some(100.0)));
        let j = judge(&claim(Op::Greater, 10.0), &s[..1]);
        assert_eq!(
            (j.outcome.verdict, j.outcome.reason),
            (Verdict::NotRun, Some(Reason::NotRun { scenario: "b".into() }))
        );
        // A row that ran but measured nothing of the metric (it failed) leaves the claim open.
        let failed = ScenarioSummary { metrics: BTreeMap::new(), ok_repeats: 0, ..summary("b", &[10.0]) };
        let j = judge(&claim(Op::Greater, 10.0), &[s[0].clone(), failed]);
        assert_eq!(j.outcome.verdict, Verdict::Inconclusive);
        assert_eq!(j.outcome.reason, Some(Reason::NotMeasured { metric: "rps".into(), scenario: "b".into() }));
    }

    #[test]
    fn a_row_where_the_instrument_was_the_bottleneck_shows_its_value_and_decides_nothing() {
        let bound = ScenarioSummary { instrument_bound: true, ..paired("a", &[300.0, 310.0, 290.0]) };
        let rows = [bound, paired("b", &[100.0, 101.0, 99.0])];
        let j = judge(&claim(Op::Greater, 1.0), &rows);
        assert_eq!(j.outcome.verdict, Verdict::NotJudged, "it would be confirmed: {:?}", j.outcome);
        assert_eq!(j.outcome.reason, Some(Reason::InstrumentBound { scenarios: vec!["a".into()] }));
        assert!((j.outcome.value.unwrap() - 3.0).abs() < 0.02 && j.outcome.interval.is_some(), "the value is shown");
        // Nor does it refute.
        assert_eq!(judge(&claim(Op::Less, 1.0), &rows).outcome.verdict, Verdict::NotJudged);
    }

    /// A row whose repeats were contended on every try has nothing to judge: "not judged", for the
    /// busy machine, not "inconclusive" (a gate on `not-judged` then fails such a run). A row that
    /// lost one repeat of three is judged on the other two.
    #[test]
    fn a_row_that_lost_its_repeats_to_foreign_work_is_not_judged() {
        let busy = ScenarioSummary {
            metrics: BTreeMap::new(),
            ok_repeats: 0,
            contended: 9,
            lost_repeats: 3,
            ..summary("a", &[1.0])
        };
        let quiet = summary("b", &[100.0, 101.0, 99.0]);
        let j = judge(&claim(Op::Greater, 1.0), &[busy.clone(), quiet.clone()]);
        assert_eq!(
            (j.outcome.verdict, j.outcome.reason),
            (Verdict::NotJudged, Some(Reason::Contended { scenarios: vec!["a".into()] }))
        );
        let one_left = ScenarioSummary { ok_repeats: 1, lost_repeats: 2, ..summary("a", &[300.0]) };
        assert_eq!(judge(&claim(Op::Greater, 1.0), &[one_left, quiet.clone()]).outcome.verdict, Verdict::NotJudged);
        let two_left = ScenarioSummary { contended: 3, lost_repeats: 1, ..summary("a", &[300.0, 310.0]) };
        assert_eq!(judge(&claim(Op::Greater, 1.0), &[two_left, quiet.clone()]).outcome.verdict, Verdict::Confirmed);
        // Contended tries measured again quietly lose nothing: the claim is judged as ever.
        let retried = ScenarioSummary { contended: 2, ..summary("a", &[300.0, 310.0, 290.0]) };
        assert_eq!(judge(&claim(Op::Greater, 1.0), &[retried, quiet]).outcome.verdict, Verdict::Confirmed);
    }

    /// A ratio claim `a / b > 1` whose study said `published`, over paired repeats of `ratios`.
    fn sized(published: f64, tolerance: Option<f64>, ratios: &[f64]) -> Judged {
        let b = vec![100.0; ratios.len()];
        let a: Vec<f64> = ratios.iter().map(|r| r * 100.0).collect();
        let c = Claim { published_value: Some(published), tolerance, ..claim(Op::Greater, 1.0) };
        judge(&c, &[paired("a", &a), paired("b", &b)])
    }

    #[test]
    fn a_direction_that_holds_at_another_size_differs_in_size() {
        // The study's 3.85x, ours 1.45x (h1-beats-h2tls-1kb): the direction holds, the size does not.
        let j = sized(3.85, None, &[1.44, 1.45, 1.46]);
        assert_eq!(j.outcome.verdict, Verdict::DiffersInSize);
        let Some(Reason::SizeOutside { over, low, high }) = j.outcome.reason else { panic!("{:?}", j.outcome) };
        assert!((over - 1.45 / 3.85).abs() < 1e-3, "{over}");
        // The band is on the effect: ln 3.85 ×/÷ 1.5, widened by ln 1.05 each side.
        let effect = 3.85f64.ln();
        // The band on the effect (ln 3.85 ×/÷ 1.5, widened by ln 1.05 each side) within ×/÷ 1.5 of
        // 3.85: the number binds at this size.
        assert!((low - 3.85 / 1.5).abs() < 1e-9 && (high - 3.85 * 1.5).abs() < 1e-9, "{low} {high}");
        assert!((effect / 1.5 - 1.05f64.ln()).exp() < low && (effect * 1.5 + 1.05f64.ln()).exp() > high);
        let (ratio, _) = j.over_published().unwrap();
        assert!((ratio - over).abs() < 1e-12);
        // Within the band: confirmed, on either side of the study's number.
        assert_eq!(sized(3.85, None, &[3.0, 3.05, 3.1]).outcome.verdict, Verdict::Confirmed);
        assert_eq!(sized(3.85, None, &[5.0, 5.1, 5.2]).outcome.verdict, Verdict::Confirmed);
        // Past it: differs (at 6.0 the effect is within a third of the study's, but the number
        // is more than 1.5 times it).
        assert_eq!(sized(3.85, None, &[6.0, 6.1, 6.2]).outcome.verdict, Verdict::DiffersInSize);
        // The direction failing is still refuted, whatever the size.
        assert_eq!(sized(3.85, None, &[0.5, 0.51, 0.52]).outcome.verdict, Verdict::Refuted);
    }

    /// The four claims a band on the ratio confirmed at several times the study's effect: on the
    /// effect each differs in size, and the study's own effect (or one near it) is confirmed.
    #[test]
    fn a_small_effect_is_not_confirmed_by_several_times_its_size() {
        let judged = |op: Op, published: f64, ours: f64| {
            let c = Claim { published_value: Some(published), ..claim(op, 1.0) };
            let a: Vec<f64> = [0.995, 1.0, 1.005].iter().map(|k| k * ours * 100.0).collect();
            judge(&c, &[paired("a", &a), paired("b", &[100.0, 100.0, 100.0])]).outcome.verdict
        };
        // soap-h1-beats-rest-h1-1mb: +4.8 % (§5.6.1), ours +42 %.
        assert_eq!(judged(Op::Greater, 1.048, 1.42), Verdict::DiffersInSize);
        // wss-costs-1kb: −9 %, ours −21 %.
        assert_eq!(judged(Op::Less, 0.91, 0.79), Verdict::DiffersInSize);
        // ws-42pct-over-grpc-1mb: +42 %, ours +91 %.
        assert_eq!(judged(Op::Greater, 1.42, 1.91), Verdict::DiffersInSize);
        // graphql-h1-76pct-of-rest-1kb: −24 %, ours −43 %.
        assert_eq!(judged(Op::Less, 0.76, 0.57), Verdict::DiffersInSize);
        // Each at the study's own effect, or a third off it, is its size.
        for (op, published) in [(Op::Greater, 1.42), (Op::Less, 0.91), (Op::Less, 0.76)] {
            assert_eq!(judged(op, published, published), Verdict::Confirmed, "{published}");
            let third_off = (published.ln() * 1.3).exp();
            assert_eq!(judged(op, published, third_off), Verdict::Confirmed, "{published}: {third_off}");
        }
        // Near 1 the band on the effect binds; at ×69 the band on the number (a study's 277× is
        // not our 99×).
        let band = |p: f64| size_band(&Claim { published_value: Some(p), ..claim(Op::Greater, 1.0) }).unwrap();
        let (lo, hi, rule) = band(1.048);
        let slack = EQUIVALENCE.ln();
        assert_eq!(rule, BandRule::Effect);
        assert!(((lo.ln() + slack) * 1.5 - 1.048f64.ln()).abs() < 1e-9, "{lo}");
        assert!(((hi.ln() - slack) / 1.5 - 1.048f64.ln()).abs() < 1e-9, "{hi}");
        let (lo, hi, _) = band(69.0);
        assert!((lo - 46.0).abs() < 1e-9 && (hi - 103.5).abs() < 1e-9, "{lo} {hi}");
        assert_eq!(judged(Op::Greater, 277.0, 99.0), Verdict::DiffersInSize);
    }

    #[test]
    fn the_size_band_edges_are_inside_and_a_crossing_interval_is_undecided() {
        let (low, high, _) = size_band(&Claim { published_value: Some(2.0), ..claim(Op::Greater, 1.0) }).unwrap();
        // Exactly at the band's edges (every repeat alike): inside.
        assert_eq!(sized(2.0, None, &[high, high, high]).outcome.verdict, Verdict::Confirmed);
        assert_eq!(sized(2.0, None, &[low, low]).outcome.verdict, Verdict::Confirmed);
        // Just past an edge: outside.
        let past = high * 1.003;
        assert_eq!(sized(2.0, None, &[past, past, past]).outcome.verdict, Verdict::DiffersInSize);
        // An interval reaching over the upper edge: neither the study's size nor another.
        let j = sized(2.0, None, &[high * 0.8, high * 1.2, high]);
        assert_eq!(
            (j.outcome.verdict, j.outcome.reason),
            (Verdict::Inconclusive, Some(Reason::SizeCrosses { low, high }))
        );
        // A claim's own tolerance ("slightly": x/÷ 1.1) sets a band on the value instead.
        let own = Claim { published_value: Some(1.05), tolerance: Some(1.1), ..claim(Op::Greater, 1.0) };
        assert_eq!(size_band(&own), Some((1.05 / 1.1, 1.05 * 1.1, BandRule::Factor(1.1))));
        assert_eq!(sized(1.05, Some(1.1), &[1.2, 1.2, 1.2]).outcome.verdict, Verdict::DiffersInSize);
        // A claim on one row's value has no neutral point: its band is on the value.
        let one_row = Claim { published_value: Some(90.0), denominator: None, ..claim(Op::Greater, 1.0) };
        assert_eq!(size_band(&one_row), Some((60.0, 135.0, BandRule::Factor(SIZE_TOLERANCE))));
        // One repeat: no interval, so neither the direction nor the size is decided.
        assert_eq!(sized(2.0, None, &[2.0]).outcome.reason, Some(Reason::OneRepeat));
    }

    #[test]
    fn an_interval_within_the_equivalence_band_is_no_difference() {
        // hol-h2-over-h1-equal-inflight: 1.002 [0.987, 1.017] for "HTTP/2 beats HTTP/1.1".
        let j = sized(1.5, None, &[0.99, 1.002, 1.015]);
        assert_eq!(j.outcome.verdict, Verdict::NoDifference, "{:?}", j.outcome);
        assert_eq!(j.outcome.reason, Some(Reason::Equivalent { low: 1.0 / EQUIVALENCE, high: EQUIVALENCE }));
        // Wholly above the threshold, yet closer to it than the machine resolves: no difference too.
        assert_eq!(sized(1.5, None, &[1.02, 1.025, 1.03]).outcome.verdict, Verdict::NoDifference);
        // Reaching past the band: decided by the direction as before.
        assert_eq!(sized(1.5, None, &[0.99, 1.03, 1.07]).outcome.verdict, Verdict::Inconclusive);
        assert_eq!(
            judge(&claim(Op::Greater, 1.0), &[paired("a", &[106.0, 107.0]), paired("b", &[100.0, 100.0])])
                .outcome
                .verdict,
            Verdict::Confirmed
        );
        // The band sits around the threshold, whatever it is.
        assert_eq!(equivalence_band(&claim(Op::Less, 10.0)), Some((10.0 / EQUIVALENCE, 10.0 * EQUIVALENCE)));
        // A `~` claim is judged on its own band: never "no difference".
        let about = Claim { op: Op::About, threshold: None, published_value: Some(1.0), ..claim(Op::Greater, 1.0) };
        assert_eq!(equivalence_band(&about), None);
        let j = judge(&about, &[paired("a", &[100.0, 100.5, 99.5]), paired("b", &[100.0, 100.0, 100.0])]);
        assert_eq!(j.outcome.verdict, Verdict::Confirmed);
    }

    /// An encoding's length does not move between runs: no equivalence band and no slack on the
    /// effect. The study's Avro 1.3 % smaller than MessagePack is smaller (avro-smallest), and its
    /// "only 1.1 % larger" is confirmed by 1.28 % (msgpack-only-1pct-larger-than-avro), where
    /// the band for times read both as "no difference".
    #[test]
    fn an_exact_metric_has_no_equivalence_band() {
        let sizes = |id: &str, bytes: f64| {
            let s = summary(id, &[bytes; 3]);
            let metric = Summary::of(&[bytes; 3]).unwrap();
            let by_repeat = (1..=3).map(|r| (r, bytes)).collect();
            ScenarioSummary {
                metrics: [("size_bytes", metric)].into(),
                by_repeat: [("size_bytes", by_repeat)].into(),
                ..s
            }
        };
        let rows = [sizes("avro", 520_758.0), sizes("msgpack", 527_431.0)];
        let size = |op, published| Claim {
            metric: "size_bytes".into(),
            numerator: if op == Op::Less { "avro" } else { "msgpack" }.into(),
            denominator: Some(if op == Op::Less { "msgpack" } else { "avro" }.into()),
            published_value: published,
            ..claim(op, 1.0)
        };
        assert_eq!(equivalence_band(&size(Op::Less, None)), None);
        assert_eq!(judge(&size(Op::Less, None), &rows).outcome.verdict, Verdict::Confirmed);
        let j = judge(&size(Op::Greater, Some(1.011)), &rows);
        assert_eq!(j.outcome.verdict, Verdict::Confirmed, "{:?}", j.outcome);
        // On the effect alone, without slack: 1.011 asks for 1.0073 to 1.0165.
        let (lo, hi, _) = size_band(&size(Op::Greater, Some(1.011))).unwrap();
        assert!((lo.ln() * 1.5 - 1.011f64.ln()).abs() < 1e-12 && (hi.ln() / 1.5 - 1.011f64.ln()).abs() < 1e-12);
        assert_eq!(judge(&size(Op::Greater, Some(1.05)), &rows).outcome.verdict, Verdict::DiffersInSize);
        // One repeat of a length is its value (a smoke run): decided, where a time would not be.
        let once = |id: &str, bytes: f64| {
            let metric = Summary::of(&[bytes]).unwrap();
            ScenarioSummary { metrics: [("size_bytes", metric)].into(), ..summary(id, &[bytes]) }
        };
        let j = judge(&size(Op::Less, None), &[once("avro", 520_758.0), once("msgpack", 527_431.0)]);
        assert_eq!((j.outcome.verdict, j.outcome.interval.map(|(l, h)| l == h)), (Verdict::Confirmed, Some(true)));
        // The same ratio of times is within what a second run moves.
        let times = [paired("msgpack", &[1012.8; 3]), paired("avro", &[1000.0; 3])];
        let c = Claim { numerator: "msgpack".into(), denominator: Some("avro".into()), ..claim(Op::Greater, 1.0) };
        assert_eq!(judge(&c, &times).outcome.verdict, Verdict::NoDifference);
    }

    /// "Go beats Java in every case": go-{case} / java-{case} > 1 over every case measured.
    fn every_case(cases: &[(&str, f64)]) -> (Claim, Vec<ScenarioSummary>) {
        let mut rows = Vec::new();
        for (case, ratio) in cases {
            rows.push(paired(&format!("go-{case}"), &[ratio * 100.0, ratio * 101.0, ratio * 99.0]));
            rows.push(paired(&format!("java-{case}"), &[100.0, 101.0, 99.0]));
        }
        let c = Claim { numerator: "go-*".into(), denominator: Some("java-*".into()), ..claim(Op::Greater, 1.0) };
        (c, rows)
    }

    #[test]
    fn a_quantified_claim_takes_its_weakest_case() {
        let (c, rows) = every_case(&[("g1", 2.0), ("g2", 1.5), ("g3", 3.0)]);
        let j = judge(&c, &rows);
        assert_eq!(j.outcome.verdict, Verdict::Confirmed);
        let labels: Vec<&str> = j.cases.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["g1", "g2", "g3"]);
        assert_eq!(j.cases[1].scenarios, ["go-g2", "java-g2"]);
        // The least of the confirmed cases is shown: g2's 1.5x.
        assert_eq!(j.deciding.as_deref(), Some("g2"));
        assert!((j.outcome.value.unwrap() - 1.5).abs() < 1e-9);
        // One case of three refutes the claim: the claim is refuted, and says which.
        let (c, rows) = every_case(&[("g1", 2.0), ("g2", 0.8), ("g3", 3.0)]);
        let j = judge(&c, &rows);
        assert_eq!((j.outcome.verdict, j.deciding.as_deref()), (Verdict::Refuted, Some("g2")));
        // A case with a side that did not run is not run, so the claim is not decided.
        let (c, mut rows) = every_case(&[("g1", 2.0), ("g2", 2.0)]);
        rows.retain(|r| r.scenario != "java-g2");
        let j = judge(&c, &rows);
        assert_eq!(j.outcome.verdict, Verdict::NotRun);
        assert_eq!(j.outcome.reason, Some(Reason::NotRun { scenario: "java-g2".into() }));
    }

    #[test]
    fn fastest_of_all_leaves_out_itself_and_the_excepted_rows() {
        // "ws-1mb is the fastest 1 MB row": ws-1mb / *-1mb > 1 for every other 1 MB row.
        let rows = vec![
            paired("ws-1mb", &[300.0, 310.0, 290.0]),
            paired("rest-h1-1mb", &[100.0, 101.0, 99.0]),
            paired("grpc-1mb", &[200.0, 202.0, 198.0]),
            paired("push-1mb", &[900.0, 909.0, 891.0]),
            paired("rest-h1-1kb", &[9000.0, 9090.0, 8910.0]),
        ];
        let c = Claim {
            numerator: "ws-1mb".into(),
            denominator: Some("*-1mb".into()),
            except: vec!["push-*".into()],
            ..claim(Op::Greater, 1.0)
        };
        let j = judge(&c, &rows);
        let labels: Vec<&str> = j.cases.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["grpc", "rest-h1"]);
        assert_eq!((j.outcome.verdict, j.deciding.as_deref()), (Verdict::Confirmed, Some("grpc")));
        // Without `except`, the faster push row refutes it.
        let j = judge(&Claim { except: vec![], ..c.clone() }, &rows);
        assert_eq!((j.outcome.verdict, j.deciding.as_deref()), (Verdict::Refuted, Some("push")));
        // Nothing matched: the rows did not run (a suite's globs each match one of its
        // scenarios), naming the glob.
        let j = judge(&Claim { denominator: Some("*-10mb".into()), ..c }, &rows);
        assert_eq!(j.outcome.verdict, Verdict::NotRun);
        assert_eq!(j.outcome.reason, Some(Reason::NoCase { globs: vec!["*-10mb".into()] }));
    }

    #[test]
    fn also_adds_rows_the_glob_cannot_reach() {
        // "ws-1mb-per-call is the fastest 1 MB row" of a table that has an MQTT row with no
        // per-call twin: `also` brings it in as a case of its own, and here it decides.
        let rows = vec![
            paired("ws-1mb-per-call", &[300.0, 310.0, 290.0]),
            paired("rest-1mb-per-call", &[100.0, 101.0, 99.0]),
            paired("mqtt-1mb", &[400.0, 404.0, 396.0]),
        ];
        let c = Claim {
            numerator: "ws-1mb-per-call".into(),
            denominator: Some("*-1mb-per-call".into()),
            ..claim(Op::Greater, 1.0)
        };
        assert_eq!(judge(&c, &rows).outcome.verdict, Verdict::Confirmed);
        let c = Claim { also: vec!["mqtt-1mb".into()], ..c };
        let j = judge(&c, &rows);
        let labels: Vec<&str> = j.cases.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["rest", "mqtt-1mb"]);
        assert_eq!(j.cases[1].scenarios, ["ws-1mb-per-call", "mqtt-1mb"]);
        assert_eq!((j.outcome.verdict, j.deciding.as_deref()), (Verdict::Refuted, Some("mqtt-1mb")));
        // Two `*`s: which one would the id stand for?
        let two = Claim { numerator: "*-1kb-per-call".into(), ..c.clone() };
        assert_eq!(two.check().unwrap_err().key, "also");
        let glob = Claim { also: vec!["mqtt-*".into()], ..c };
        assert_eq!(glob.check().unwrap_err().key, "also[0]");
    }

    #[test]
    fn an_about_claim_is_its_band_and_is_refuted_outside_it() {
        // "Rust decodes JSON and BSON in about the same time": a ratio of 1 within ×/÷ 1.25.
        let about = |ratios: &[f64]| {
            let b = vec![100.0; ratios.len()];
            let a: Vec<f64> = ratios.iter().map(|r| r * 100.0).collect();
            let c = Claim {
                op: Op::About,
                threshold: None,
                published_value: Some(1.0),
                tolerance: Some(1.25),
                ..claim(Op::Greater, 1.0)
            };
            judge(&c, &[paired("a", &a), paired("b", &b)]).outcome
        };
        assert_eq!(about(&[0.9, 0.92, 0.91]).verdict, Verdict::Confirmed, "either side of the number");
        assert_eq!(about(&[1.1, 1.12, 1.11]).verdict, Verdict::Confirmed);
        let far = about(&[1.5, 1.52, 1.51]);
        assert_eq!(far.verdict, Verdict::Refuted, "outside the band the claim is wrong, not of another size");
        assert!(matches!(far.reason, Some(Reason::SizeOutside { .. })));
        assert_eq!(about(&[0.7, 0.71, 0.72]).verdict, Verdict::Refuted);
        assert_eq!(about(&[1.0, 1.5, 1.2]).verdict, Verdict::Inconclusive, "an interval over the edge");
    }

    /// "About 90 ms, sometimes as little as 15 ms": one row's repeats spread by a factor.
    #[test]
    fn a_spread_claim_judges_one_rows_repeats_by_their_geometric_sd() {
        let row = |durations: &[f64]| {
            let by_repeat = durations.iter().enumerate().map(|(i, &v)| (i as u32 + 1, v)).collect();
            ScenarioSummary { by_repeat: [("duration_s", by_repeat)].into(), ..summary("ws", &[1.0]) }
        };
        let c = Claim {
            metric: "duration_gsd".into(),
            numerator: "ws".into(),
            denominator: None,
            op: Op::About,
            threshold: None,
            published_value: Some(1.8),
            ..claim(Op::Greater, 1.0)
        };
        // Ten repeats within 4 % of each other: far below a spread of 1.8 (band 1.2-2.7).
        let steady = [0.050, 0.051, 0.049, 0.052, 0.050, 0.048, 0.051, 0.050, 0.049, 0.052];
        let j = judge(&c, &[row(&steady)]);
        assert_eq!(j.outcome.verdict, Verdict::Refuted, "{:?}", j.outcome);
        assert!(j.outcome.value.unwrap() < 1.05 && j.outcome.interval.unwrap().1 < 1.2);
        // Repeats from 15 to 90 ms, as the study's: a spread of 1.80, but ten repeats bound it
        // only to [1.50, 2.93] (χ², 9 degrees of freedom), over the band's upper edge.
        let wide = [0.015, 0.090, 0.030, 0.060, 0.020, 0.045, 0.080, 0.025, 0.050, 0.035];
        let j = judge(&c, &[row(&wide)]);
        assert_eq!(j.outcome.verdict, Verdict::Inconclusive, "{:?}", j.outcome);
        assert!(matches!(j.outcome.reason, Some(Reason::SizeCrosses { .. })));
        let (lo, hi) = j.outcome.interval.unwrap();
        assert!((j.outcome.value.unwrap() - 1.80).abs() < 0.01 && (lo - 1.50).abs() < 0.01 && (hi - 2.93).abs() < 0.02);
        // The spread compares across rows too, as a ratio of two rows' spreads.
        let versus =
            Claim { op: Op::Greater, threshold: Some(1.0), published_value: None, denominator: Some("b".into()), ..c };
        let b = |durations: &[f64]| ScenarioSummary { scenario: "b".into(), ..row(durations) };
        assert_eq!(judge(&versus, &[row(&wide), b(&steady)]).outcome.verdict, Verdict::Confirmed);
        // Two repeats are too few: not measured, so inconclusive.
        let few = judge(&versus, &[row(&wide[..2]), b(&steady)]).outcome;
        assert_eq!(few.verdict, Verdict::Inconclusive);
        assert!(matches!(few.reason, Some(Reason::NotMeasured { ref scenario, .. }) if scenario == "ws"), "{few:?}");
    }

    /// "Spreads widely" must not rest on one repeat: nine steady repeats of 5-7.5 ms and one of
    /// 20 ms make the standard deviation's spread of the study's size; the quartiles' stays steady.
    #[test]
    fn one_outlier_repeat_decides_the_sd_spread_but_not_the_quartiles_one() {
        let steady = [5.0, 5.5, 6.0, 6.5, 7.0, 7.5, 5.2, 6.2, 6.8, 5.8];
        let mut outlier = steady;
        outlier[9] = 20.0;
        let row = |durations: &[f64]| {
            let by_repeat = durations.iter().enumerate().map(|(i, &v)| (i as u32 + 1, v / 1e3)).collect();
            ScenarioSummary { by_repeat: [("duration_s", by_repeat)].into(), ..summary("ws", &[1.0]) }
        };
        let spread = |metric: &str, d: &[f64]| {
            let c = Claim {
                metric: metric.into(),
                numerator: "ws".into(),
                denominator: None,
                op: Op::About,
                threshold: None,
                published_value: Some(1.79),
                ..claim(Op::Greater, 1.0)
            };
            judge(&c, &[row(d)]).outcome
        };
        let (sd, robust) = (spread("duration_gsd", &outlier), spread("duration_rgsd", &outlier));
        assert!(sd.value.unwrap() > 1.4, "the outlier makes a wide spread: {sd:?}");
        let steady_robust = spread("duration_rgsd", &steady).value.unwrap();
        assert!((robust.value.unwrap() / steady_robust - 1.0).abs() < 0.1, "{robust:?} against {steady_robust}");
        // One outlier confirms the study's "about 1.79" on the standard deviation; not on the quartiles.
        assert_eq!(sd.verdict, Verdict::Confirmed, "{sd:?}");
        assert_ne!(robust.verdict, Verdict::Confirmed, "{robust:?}");
        // The quartiles hold less than every repeat: their interval is the wider.
        let width = |o: &Outcome| o.interval.map(|(lo, hi)| hi / lo).unwrap();
        assert!(width(&spread("duration_rgsd", &steady)) > width(&spread("duration_gsd", &steady)));
    }

    #[test]
    fn verdicts_order_weakest_first() {
        let mut v = Verdict::ALL;
        v.reverse();
        v.sort();
        assert_eq!(v, Verdict::ALL);
        assert_eq!(v.iter().filter(|v| v.decided()).count(), 4);
    }
}
