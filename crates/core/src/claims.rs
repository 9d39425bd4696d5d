//! Judging published claims against measurements: confirmed when the whole 95 % interval of the
//! measured value satisfies the claim, refuted when the whole interval contradicts it,
//! inconclusive when the interval straddles the threshold or there are too few repeats.

use serde::Serialize;

use crate::results::ScenarioSummary;
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

/// A claim with our value: the point estimate (ratio of medians for two scenarios) and a
/// conservative interval (the ratio's extremes over both intervals).
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
    let find = |id: &str| summaries.iter().find(|s| s.scenario == id).and_then(|s| s.get(&claim.metric).copied());
    let inconclusive = |reason: String| Judged {
        claim: claim.clone(),
        value: None,
        interval: None,
        verdict: Verdict::Inconclusive,
        reason: Some(reason),
    };
    let Some(num) = find(&claim.numerator) else {
        return inconclusive(format!("no {} measured for {}", claim.metric, claim.numerator));
    };
    let (value, interval) = match &claim.denominator {
        None => (num.median, num.ci),
        Some(den_id) => {
            let Some(den) = find(den_id) else {
                return inconclusive(format!("no {} measured for {den_id}", claim.metric));
            };
            if den.median == 0.0 {
                return inconclusive(format!("{} of {den_id} is zero", claim.metric));
            }
            let interval = match (num.ci, den.ci) {
                (Some((nl, nh)), Some((dl, dh))) if dl > 0.0 => Some((nl / dh, nh / dl)),
                _ => None,
            };
            (num.median / den.median, interval)
        }
    };
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
    use crate::stats::Summary;
    use std::collections::BTreeMap;

    fn summary(id: &str, rps: &[f64]) -> ScenarioSummary {
        ScenarioSummary {
            scenario: id.into(),
            subject: "s".into(),
            lang: "rust".into(),
            protocol: None,
            format: None,
            params: BTreeMap::new(),
            error: None,
            ok_repeats: rps.len(),
            metrics: [("rps", Summary::of(rps).unwrap())].into(),
            latency_curve: vec![],
            instrument_bound: false,
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
