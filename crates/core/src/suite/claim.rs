//! Claims (a study's finding and the measured expression that tests it) and the study's own
//! tables, each checking what it can on its own when the suite loads; that the scenarios they
//! name exist is the suite's to check.

use serde::{Deserialize, Serialize};

use super::error::Invalid;
use crate::metrics;

/// A published finding and the measured expression that tests it:
/// `metric(numerator) [/ metric(denominator)] [/ (metric(versus.numerator) /
/// metric(versus.denominator))] <op> threshold`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub id: String,
    /// Whose statement the claim judges: a study's (the default) or the user's own objective.
    #[serde(default, skip_serializing_if = "ClaimKind::is_study")]
    pub kind: ClaimKind,
    pub text: String,
    /// What the study reported, as it reported it; an SLO may leave it out.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub published: String,
    /// The study's number in the claim's own unit (a ratio when the claim divides scenarios): the
    /// size the verdict checks as well as the direction.
    #[serde(default)]
    pub published_value: Option<f64>,
    /// How far, as a factor, our value may lie from `published_value` and still be the study's
    /// size; `claims::SIZE_TOLERANCE` unless the study's words ask for another ("slightly",
    /// "about").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Where in the study the claim is made: `§5.8.2`, `Table 5.1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where the study's own arithmetic or wording is off.
    #[serde(default)]
    pub note: Option<String>,
    /// `kind = "elsewhere"`: the conditions that differ from the study's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<String>,
    pub metric: String,
    pub numerator: String,
    #[serde(default)]
    pub denominator: Option<String>,
    /// A second ratio the first is divided by, for claims about how much one thing degrades
    /// against another ("WSS slows 37.9x from 1 KB to 1 MB, REST 276.9x").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versus: Option<Versus>,
    pub op: Op,
    /// The direction's bound (`op` `>` or `<`); none for `~`, whose band is the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Scenario-id globs of cases a quantified claim leaves out (rows that measure something else).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<String>,
    /// Scenario ids a quantified claim also ranges over, beyond what its `*` matches: rows of the
    /// same comparison whose ids the glob cannot reach (`mqtt-mosquitto-qos1-1mb` beside
    /// `*-1mb-per-call`: MQTT answers by echo and has no per-call twin). Each is a case of its
    /// own, named by its id, standing where the `*`-id stands.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// A table the study published, each of its numbers tied to the row of ours that measures the
/// same thing: the report shows the study's number, ours with its interval, and ours ÷ the study's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedTable {
    pub id: String,
    /// What the table shows, as a heading: "Requests per second by API and transport".
    pub title: String,
    /// Where in the study: `Table 5.1`.
    pub source: String,
    /// The metric both numbers are (a claim metric of `metrics::METRICS`), in its unit (`rps` in req/s,
    /// `mean_us` in µs, `rss_kb` in KiB).
    pub metric: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub rows: Vec<PublishedRow>,
}

impl PublishedTable {
    /// What is wrong with the table on its own (its id's uniqueness and the scenarios its rows
    /// name are the suite's to check): the key inside it and the message.
    pub fn check(&self) -> Result<(), Invalid> {
        check_metric(&self.metric)?;
        for (j, r) in self.rows.iter().enumerate() {
            if !(r.value >= 0.0 && r.value.is_finite()) {
                return Err(Invalid::new(format!("rows[{j}].value"), format!("{} is not a measured amount", r.value)));
            }
        }
        Ok(())
    }
}

/// One number of a published table and the scenario of ours it stands beside.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRow {
    pub scenario: String,
    pub value: f64,
    /// What the study's row was, where it differs from ours ("h2 (with TLS)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The ratio a claim's ratio is divided by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Versus {
    pub numerator: String,
    pub denominator: String,
}

/// Whose statement a claim judges, and under whose conditions: a lab counts each kind apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimKind {
    /// A published study's sentence under the study's conditions: `published` says what it
    /// reported.
    #[default]
    Study,
    /// A study's sentence judged under other conditions, which `conditions` names (a link's round
    /// trip, a protocol it did not measure, causes it measured together judged apart).
    Elsewhere,
    /// A claim of ours beyond the studies: a question they did not ask, or a check of the
    /// instrument.
    Ours,
    /// A service-level objective of the user's own (`p99_us(api-get) < 5000`): no study, no
    /// published number, judged on its interval like every claim; `wirebench run --fail-on`
    /// gates a CI job on it.
    Slo,
}

impl ClaimKind {
    /// Every kind, in the order a report counts them.
    pub const ALL: [ClaimKind; 4] = [ClaimKind::Study, ClaimKind::Elsewhere, ClaimKind::Ours, ClaimKind::Slo];

    pub fn is_study(&self) -> bool {
        *self == ClaimKind::Study
    }

    /// The id in suites and CSV.
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimKind::Study => "study",
            ClaimKind::Elsewhere => "elsewhere",
            ClaimKind::Ours => "ours",
            ClaimKind::Slo => "slo",
        }
    }
}

impl Claim {
    /// What is wrong with the claim on its own: the key inside it and the message.
    pub fn check(&self) -> Result<(), Invalid> {
        match self.kind {
            ClaimKind::Study if self.published.trim().is_empty() => {
                return Err(Invalid::new(
                    "published",
                    "says what the study reported; a claim of your own is `kind = \"slo\"`",
                ))
            }
            ClaimKind::Slo if self.published_value.is_some() => {
                return Err(Invalid::new(
                    "published_value",
                    "an SLO has no study's number: its threshold is the objective",
                ))
            }
            ClaimKind::Slo if self.op == Op::About => {
                return Err(Invalid::new("op", "an SLO is a bound: `<` or `>` its threshold"))
            }
            ClaimKind::Elsewhere if self.published.trim().is_empty() => {
                return Err(Invalid::new("published", "says what the study reported, judged here elsewhere"))
            }
            ClaimKind::Elsewhere if self.conditions.as_deref().is_none_or(|c| c.trim().is_empty()) => {
                return Err(Invalid::new(
                    "conditions",
                    "names how the conditions differ from the study's (`kind = \"elsewhere\"`)",
                ))
            }
            _ => {}
        }
        if self.conditions.is_some() && self.kind != ClaimKind::Elsewhere {
            return Err(Invalid::new("conditions", "belongs to a claim of `kind = \"elsewhere\"`"));
        }
        if self.versus.is_some() && self.denominator.is_none() {
            return Err(Invalid::new("versus", "needs a denominator: it divides one ratio by another"));
        }
        for (key, id) in self.named() {
            if id.matches('*').count() > 1 {
                return Err(Invalid::new(key, format!("`{id}` has more than one `*`: a case is one value of one `*`")));
            }
        }
        if !self.except.is_empty() && !self.is_quantified() {
            return Err(Invalid::new("except", "leaves out cases, but no scenario id has a `*`"));
        }
        if let Some(g) = self.except.iter().find(|g| glob::Pattern::new(g).is_err()) {
            return Err(Invalid::new("except", format!("`{g}` is not a glob")));
        }
        if !self.also.is_empty() && self.factors().iter().filter(|(id, _)| id.contains('*')).count() != 1 {
            return Err(Invalid::new(
                "also",
                "needs exactly one scenario id with a `*`: each id of `also` stands for it",
            ));
        }
        if let Some((j, id)) = self.also.iter().enumerate().find(|(_, id)| id.contains(['*', '?', '['])) {
            return Err(Invalid::new(format!("also[{j}]"), format!("`{id}` is a glob: `also` names scenarios")));
        }
        match (self.op, self.threshold) {
            (Op::About, Some(_)) => {
                return Err(Invalid::new(
                    "threshold",
                    "a `~` claim has no threshold: the band around its published_value is the claim",
                ))
            }
            (Op::About, None) if self.published_value.is_none() => {
                return Err(Invalid::new(
                    "published_value",
                    "a `~` claim needs the study's number: it is judged on the band around it",
                ))
            }
            (Op::Greater | Op::Less, None) => {
                return Err(Invalid::new("threshold", format!("a `{}` claim needs a threshold", self.op.symbol())))
            }
            _ => {}
        }
        match (self.published_value, self.tolerance) {
            (None, Some(_)) => {
                return Err(Invalid::new("tolerance", "needs published_value: it is a band around the study's number"))
            }
            (_, Some(t)) if !(t > 1.0 && t.is_finite()) => {
                return Err(Invalid::new("tolerance", format!("{t} is not a factor above 1")))
            }
            (Some(v), _) if !(v > 0.0 && v.is_finite()) => {
                return Err(Invalid::new(
                    "published_value",
                    format!("{v}: a size band is a factor around a positive number"),
                ))
            }
            (Some(v), _) if !self.direction_holds(v) => {
                return Err(Invalid::new(
                    "published_value",
                    format!(
                        "the study's {v} does not satisfy the claim's `{} {}`: it would refute its own claim",
                        self.op.symbol(),
                        self.threshold.unwrap_or_default()
                    ),
                ))
            }
            _ => {}
        }
        check_metric(&self.metric)
    }

    /// The scenario ids the claim names, each with its key: `numerator`, `denominator`,
    /// `versus.numerator`, `versus.denominator`, `also[j]`.
    pub fn named(&self) -> Vec<(String, &str)> {
        let versus = self.versus.as_ref();
        [
            ("numerator", Some(&self.numerator)),
            ("denominator", self.denominator.as_ref()),
            ("versus.numerator", versus.map(|v| &v.numerator)),
            ("versus.denominator", versus.map(|v| &v.denominator)),
        ]
        .into_iter()
        .filter_map(|(k, id)| Some((k.to_string(), id?.as_str())))
        .chain(self.also.iter().enumerate().map(|(j, id)| (format!("also[{j}]"), id.as_str())))
        .collect()
    }

    /// The scenarios of the claim's expression with their exponents: the value is the product
    /// of `metric(id)^exponent`.
    pub fn factors(&self) -> Vec<(&str, i32)> {
        let mut f = vec![(self.numerator.as_str(), 1)];
        f.extend(self.denominator.as_deref().map(|d| (d, -1)));
        if let Some(v) = &self.versus {
            f.extend([(v.numerator.as_str(), -1), (v.denominator.as_str(), 1)]);
        }
        f
    }

    /// True when `value` lies on the claim's side of its threshold (always, for `~`).
    pub fn direction_holds(&self, value: f64) -> bool {
        self.threshold.is_none_or(|t| self.op.holds(value, t))
    }

    /// True when the claim ranges over cases: one of its scenario ids holds a `*`.
    pub fn is_quantified(&self) -> bool {
        self.factors().iter().any(|(id, _)| id.contains('*'))
    }

    /// The cases a quantified claim ranges over among `ids`: each value of its `*` that some
    /// globbed scenario id matches, with every factor's id filled in, then each id of `also`. A
    /// case is left out when two of its factors name the same scenario (the row against itself)
    /// or one matches `except`.
    /// A case may name a scenario that is not in `ids`: it was not measured.
    pub fn cases(&self, ids: &[&str]) -> Vec<ClaimCase> {
        let factors = self.factors();
        let except: Vec<glob::Pattern> = self.except.iter().filter_map(|g| glob::Pattern::new(g).ok()).collect();
        let mut captures: Vec<&str> = factors
            .iter()
            .filter(|(f, _)| f.contains('*'))
            .flat_map(|(f, _)| ids.iter().filter_map(|id| capture(f, id)))
            .collect();
        captures.sort_unstable();
        captures.dedup();
        let also = self.also.iter().map(|id| ClaimCase {
            label: id.clone(),
            factors: factors
                .iter()
                .map(|&(f, e)| (if f.contains('*') { id.clone() } else { f.to_string() }, e))
                .collect(),
        });
        captures
            .into_iter()
            .map(|c| ClaimCase {
                label: c.to_string(),
                factors: factors.iter().map(|&(f, e)| (f.replacen('*', c, 1), e)).collect(),
            })
            .chain(also)
            .filter(|case| {
                let mut seen: Vec<&str> = case.factors.iter().map(|(id, _)| id.as_str()).collect();
                seen.sort_unstable();
                let distinct = seen.windows(2).all(|w| w[0] != w[1]);
                distinct && !case.factors.iter().any(|(id, _)| except.iter().any(|p| p.matches(id)))
            })
            .collect()
    }
}

/// One case of a quantified claim: the value its `*` took, and the claim's factors with it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimCase {
    pub label: String,
    pub factors: Vec<(String, i32)>,
}

/// What `*` stands for when the one-`*` pattern matches `id` (at least one character).
pub fn capture<'a>(pattern: &str, id: &'a str) -> Option<&'a str> {
    let (prefix, suffix) = pattern.split_once('*')?;
    let middle = id.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!middle.is_empty()).then_some(middle)
}

/// A claim's direction: above or below its threshold, or `~`, "about the study's number"
/// ("comparable", "the same", "equal"), which has no direction and is judged on its size band
/// alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    #[serde(rename = ">")]
    Greater,
    #[serde(rename = "<")]
    Less,
    #[serde(rename = "~")]
    About,
}

impl Op {
    /// `value op threshold`; always true for `~`.
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Op::Greater => value > threshold,
            Op::Less => value < threshold,
            Op::About => true,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Op::Greater => ">",
            Op::Less => "<",
            Op::About => "≈",
        }
    }
}

/// A metric a claim or a published table may name, or the error listing those it may.
fn check_metric(metric: &str) -> Result<(), Invalid> {
    if metrics::find(metric).is_some_and(|m| m.claim) {
        return Ok(());
    }
    let known: Vec<&str> = metrics::claim_ids().collect();
    Err(Invalid::new("metric", format!("unknown metric `{metric}`; known: {}", known.join(", "))))
}
