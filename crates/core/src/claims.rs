//! Judging published claims against measurements: confirmed when the whole 95 % interval of the
//! measured value satisfies the claim, refuted when the whole interval contradicts it,
//! inconclusive when the interval straddles the threshold or there are too few repeats.
//!
//! A ratio of two scenarios measured in the same repeats (1..R of both), or a ratio of two such
//! ratios (`versus`), is estimated from the per-repeat values: their geometric mean, with a Student-t interval on their logarithms. The
//! harnesses interleave their scenarios repeat by repeat, so a slow moment of the machine hits
//! both sides of a pair and cancels; the interval stays positive. Without two such pairs, the
//! ratio of medians with the conservative interval (extremes of both intervals) is used.

use serde::Serialize;

use std::collections::BTreeMap;

use crate::results::ScenarioSummary;
use crate::stats::Summary;
use crate::suite::{Claim, Op};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Confirmed,
    Refuted,
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Refuted => "refuted",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// A claim with our value: the point estimate and its 95 % interval (see the module note).
#[derive(Debug, Clone, Serialize)]
pub struct Judged {
    pub claim: Claim,
    pub value: Option<f64>,
    pub interval: Option<(f64, f64)>,
    pub verdict: Verdict,
    /// Why the verdict is inconclusive without a value or interval.
    pub reason: Option<String>,
}

pub fn judge(claim: &Claim, summaries: &[ScenarioSummary]) -> Judged {
    let scenario = |id: &str| summaries.iter().find(|s| s.scenario == id);
    let inconclusive = |reason: String| Judged {
        claim: claim.clone(),
        value: None,
        interval: None,
        verdict: Verdict::Inconclusive,
        reason: Some(reason),
    };
    let factors = claim.factors();
    let mut measured = Vec::new();
    for &(id, exponent) in &factors {
        let Some(s) = scenario(id).and_then(|s| s.get(&claim.metric).copied()) else {
            return inconclusive(format!("no {} measured for {id}", claim.metric));
        };
        if exponent < 0 && s.median == 0.0 {
            return inconclusive(format!("{} of {id} is zero", claim.metric));
        }
        measured.push((s, exponent));
    }
    if factors.len() == 1 {
        return decide(claim, measured[0].0.median, measured[0].0.ci);
    }
    let repeats: Option<Vec<_>> =
        factors.iter().map(|&(id, e)| Some((scenario(id)?.by_repeat.get(claim.metric.as_str())?, e))).collect();
    if let Some(paired) = repeats.and_then(|r| paired_ratio(&r)) {
        return decide(claim, paired.0, Some(paired.1));
    }
    // The ratio of medians, with the conservative interval: each factor at the end of its own
    // interval that moves the value most.
    let value = measured.iter().map(|(s, e)| s.median.powi(*e)).product();
    let interval = measured.iter().try_fold((1.0, 1.0), |(lo, hi), (s, e)| match s.ci {
        Some((l, h)) if *e > 0 => Some((lo * l, hi * h)),
        Some((l, h)) if l > 0.0 => Some((lo / h, hi / l)),
        _ => None,
    });
    decide(claim, value, interval)
}

/// Geometric mean over the repeats every factor has of the per-repeat products
/// `Π metric[r]^exponent` (a ratio, or a ratio of ratios), and its 95 % interval; `None` with
/// fewer than two repeats where every factor is positive.
fn paired_ratio(factors: &[(&BTreeMap<u32, f64>, i32)]) -> Option<(f64, (f64, f64))> {
    let (first, _) = factors.first()?;
    let logs: Vec<f64> = first
        .keys()
        .filter_map(|r| {
            factors.iter().try_fold(0.0, |sum, (values, e)| {
                values.get(r).filter(|&&v| v > 0.0).map(|v| sum + f64::from(*e) * v.ln())
            })
        })
        .collect();
    let s = Summary::of(&logs)?;
    let (lo, hi) = s.ci?;
    Some((s.mean.exp(), (lo.exp(), hi.exp())))
}

fn decide(claim: &Claim, value: f64, interval: Option<(f64, f64)>) -> Judged {
    let verdict = match interval {
        None => Verdict::Inconclusive,
        Some((lo, hi)) => {
            let (all_true, all_false) = match claim.op {
                Op::Greater => (lo > claim.threshold, hi <= claim.threshold),
                Op::Less => (hi < claim.threshold, lo >= claim.threshold),
            };
            if all_true {
                Verdict::Confirmed
            } else if all_false {
                Verdict::Refuted
            } else {
                Verdict::Inconclusive
            }
        }
    };
    let reason = match (interval, verdict) {
        (None, _) => Some("one repeat: no confidence interval (use --profile quick or full)".into()),
        (Some(_), Verdict::Inconclusive) => Some("the confidence interval straddles the threshold".into()),
        _ => None,
    };
    Judged { claim: claim.clone(), value: Some(value), interval, verdict, reason }
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
            protocol: None,
            format: None,
            params: BTreeMap::new(),
            error: None,
            ok_repeats: rps.len(),
            metrics: [("rps", Summary::of(rps).unwrap())].into(),
            by_repeat: BTreeMap::new(),
            latency_curve: vec![],
            instrument_bound: false,
            steps: vec![],
        }
    }

    fn claim(op: Op, threshold: f64) -> Claim {
        Claim {
            id: "c".into(),
            text: "a beats b".into(),
            published: "69x".into(),
            published_value: Some(69.0),
            note: None,
            metric: "rps".into(),
            numerator: "a".into(),
            denominator: Some("b".into()),
            versus: None,
            op,
            threshold,
        }
    }

    #[test]
    fn verdicts_follow_the_interval() {
        let s = vec![summary("a", &[1000.0, 1010.0, 990.0]), summary("b", &[10.0, 10.1, 9.9])];
        let j = judge(&claim(Op::Greater, 10.0), &s);
        assert_eq!(j.verdict, Verdict::Confirmed);
        assert!((j.value.unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(judge(&claim(Op::Greater, 500.0), &s).verdict, Verdict::Refuted);
        assert_eq!(judge(&claim(Op::Less, 500.0), &s).verdict, Verdict::Confirmed);
        let (lo, hi) = j.interval.unwrap();
        assert_eq!(judge(&claim(Op::Greater, (lo + hi) / 2.0), &s).verdict, Verdict::Inconclusive);
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
        assert_eq!(j.verdict, Verdict::Confirmed);
        assert!((j.value.unwrap() - 10.0).abs() < 1e-9);
        let (lo, hi) = j.interval.unwrap();
        assert!((lo - 10.0).abs() < 1e-9 && (hi - 10.0).abs() < 1e-9, "{lo} {hi}");
        // Unpaired, the same numbers are inconclusive: 100/30 .. 300/10 straddles 9.
        let j = judge(&claim(Op::Greater, 9.0), &[summary("a", &a), summary("b", &b)]);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        // Differing ratios give a positive interval around their geometric mean.
        let j = judge(&claim(Op::Greater, 1.0), &[paired("a", &[20.0, 40.0, 30.0]), paired("b", &[10.0, 10.0, 10.0])]);
        let (lo, hi) = j.interval.unwrap();
        assert!(lo > 0.0 && lo < 2.0 && hi > 4.0, "{lo} {hi}");
        assert!((j.value.unwrap() - 24_f64.cbrt()).abs() < 1e-9);
    }

    #[test]
    fn a_paired_interval_may_reach_below_one_when_every_ratio_is_above() {
        // Ratios 1.01, 1.01, 1.65: all above 1, but too spread to rule out a mean below 1.
        let num: BTreeMap<u32, f64> = [(1, 101.0), (2, 101.0), (3, 165.0)].into();
        let den: BTreeMap<u32, f64> = [(1, 100.0), (2, 100.0), (3, 100.0)].into();
        let (_, (lo, hi)) = paired_ratio(&[(&num, 1), (&den, -1)]).unwrap();
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
        assert_eq!(j.verdict, Verdict::Confirmed);
        assert!((j.value.unwrap() - 1.0 / 7.0).abs() < 1e-9, "{:?}", j.value);
        let j = judge(&versus, &rows(summary));
        assert!((j.value.unwrap() - 1.0 / 7.0).abs() < 1e-9);
        let (lo, hi) = j.interval.unwrap();
        assert!(lo < 1.0 / 7.0 && hi > 1.0 / 7.0, "{lo} {hi}");
        let missing = judge(&versus, &rows(paired)[..3]);
        assert_eq!(missing.reason.as_deref(), Some("no rps measured for rest-1mb"));
    }

    #[test]
    fn single_repeat_or_missing_scenario_is_inconclusive() {
        let s = vec![summary("a", &[1000.0]), summary("b", &[10.0])];
        let j = judge(&claim(Op::Greater, 10.0), &s);
        assert_eq!((j.verdict, j.value), (Verdict::Inconclusive, Some(100.0)));
        let j = judge(&claim(Op::Greater, 10.0), &s[..1]);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert!(j.reason.unwrap().contains("no rps measured for b"));
    }
}
