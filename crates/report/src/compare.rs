//! `wirebench compare A B`: req/s and p99 of the scenarios two runs share, with the ratio B/A, its
//! conservative 95 % interval and a verdict that only says "faster" or "slower" when the
//! interval excludes 1; then what a second run is asked to keep: rows and claims whose intervals
//! are disjoint, verdicts that changed (confirmed or differs in size against refuted first),
//! and repeats either run measured while other processes were busy. `--json` prints the same as
//! one object (schemas/compare.schema.json).

use std::collections::BTreeSet;
use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;
use wirebench_core::claims::{Judged, Outcome, Verdict};
use wirebench_core::results::{Results, ScenarioSummary};
use wirebench_core::schema::RunInfo;
use wirebench_core::stats::Summary;

use crate::error::ReportError;
use crate::load::Ratio;
use crate::model::{read_results, Report};
use crate::numbers::{self, NONE};

const HEADER: [&str; 7] = ["scenario", "req/s A", "req/s B", "B/A (95 % interval)", "p99 A", "p99 B", "verdict"];
/// Columns aligned right (numbers).
const NUMERIC: [bool; 7] = [false, true, true, true, true, true, false];

/// Two runs side by side (`wirebench compare A B --json`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Comparison {
    pub a: Side,
    pub b: Side,
    /// What else than the rows changed between the runs (build, machine, pinning, versions).
    pub differs_in: Vec<String>,
    /// The rows both ran, in A's order.
    pub rows: Vec<RowComparison>,
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    /// The claims both judged, in A's order.
    pub claims: Vec<ClaimComparison>,
    /// Rows whose 95 % intervals do not overlap (`RowComparison::disjoint`).
    pub rows_disjoint: usize,
    /// Claims whose intervals do not overlap.
    pub claims_disjoint: usize,
    /// Claims whose verdict changed.
    pub verdicts_changed: usize,
    /// Claims confirmed or differing in size in one run and refuted in the other.
    pub hard_flips: usize,
    /// `--fail-if slower`: the rows of B slower than A's beyond the tolerance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate: Option<Gate>,
}

/// The `slower` gate: a row fails it only when its whole interval is past the tolerance, so a
/// noisy runner does not fail a job on a point value (k6's and Gatling's thresholds do).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Gate {
    /// How much slower still passes, as a share (0.05: 5 %).
    pub tolerance: f64,
    /// Rows B ÷ A: req/s whose whole interval lies below `1 − tolerance`, or p99 latency whose
    /// whole interval lies above `1 + tolerance`.
    pub slower: Vec<Slower>,
}

/// One row past the tolerance.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Slower {
    pub scenario: String,
    /// `rps` or `p99_us`.
    pub metric: String,
    /// B ÷ A with its conservative 95 % interval.
    pub ratio: Value,
}

/// One run of the two.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Side {
    pub dir: String,
    pub suite: String,
    pub run_id: String,
    pub profile: String,
    pub repeats: u32,
    /// Repeats measured while other processes took the run's CPUs (measured again, left out).
    pub contended_repeats: usize,
    /// The slowest probe of the CPUs' speed over the fastest (`run.json`'s `cpu_speed`): above
    /// `speed::UNSTEADY` a core ran slower with nothing the kernel counted; absent without probes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_speed_spread: Option<f64>,
}

/// A value with its 95 % interval, where it has one.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
pub struct Value {
    pub value: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// The mean the interval is around, where the value is a median.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
}

/// One row both runs measured.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RowComparison {
    pub scenario: String,
    /// req/s: the median over the repeats and the 95 % interval of the mean.
    pub rps_a: Option<Value>,
    pub rps_b: Option<Value>,
    /// B ÷ A with its conservative interval.
    pub ratio: Option<Value>,
    /// The median p99 latency, µs.
    pub p99_a_us: Option<f64>,
    pub p99_b_us: Option<f64>,
    /// p99 B ÷ A with its conservative interval (from each side's interval over its repeats).
    pub p99_ratio: Option<Value>,
    /// On `metric`: `faster`, `slower` (req/s), `higher`, `lower` (another metric, named), `same
    /// within noise`, `n/a`, `failed in A`, ...
    pub verdict: String,
    /// The metric `disjoint` and `verdict` compare: req/s, else the first metric a claim may name
    /// that both runs have for the row (a harness's row: `serialize_ns`, `parse_us`, ...).
    pub metric: String,
    /// B ÷ A of `metric` with its conservative interval (the same as `ratio` on req/s).
    pub metric_ratio: Option<Value>,
    /// The two runs' 95 % intervals of `metric` do not overlap.
    pub disjoint: bool,
    pub contended_a: usize,
    pub contended_b: usize,
}

/// One claim both runs judged.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ClaimComparison {
    pub id: String,
    pub verdict_a: String,
    pub verdict_b: String,
    /// A quantified claim's case whose values `a` and `b` are: the one that decided A's verdict,
    /// read in both runs (none in B where B has no such case): B's may have been decided by another.
    pub case: Option<String>,
    pub a: Option<Value>,
    pub b: Option<Value>,
    /// `none`, `changed`, or `hard` (confirmed or differs in size against refuted).
    pub flip: Flip,
    /// The two intervals do not overlap.
    pub disjoint: bool,
}

/// How a claim's verdict moved between the runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Flip {
    None,
    Changed,
    Hard,
}

/// The rows of `c` whose B is slower than A beyond `tolerance` (a share): the whole req/s
/// interval below `1 − tolerance`, or the whole p99 interval above `1 + tolerance`. A row
/// without an interval (one repeat) cannot fail it.
pub fn slower_gate(c: &Comparison, tolerance: f64) -> Gate {
    let mut slower = Vec::new();
    for r in &c.rows {
        let past = |v: &Option<Value>, below: bool| {
            v.filter(|v| match v.interval() {
                Some((_, hi)) if below => hi < 1.0 - tolerance,
                Some((lo, _)) => lo > 1.0 + tolerance,
                None => false,
            })
        };
        for (metric, ratio) in [("rps", past(&r.ratio, true)), ("p99_us", past(&r.p99_ratio, false))] {
            if let Some(ratio) = ratio {
                slower.push(Slower { scenario: r.scenario.clone(), metric: metric.into(), ratio });
            }
        }
    }
    Gate { tolerance, slower }
}

impl Value {
    fn of(s: &Summary) -> Value {
        Value { value: s.median, low: s.ci.map(|c| c.0), high: s.ci.map(|c| c.1), mean: Some(s.mean) }
    }

    fn ratio(r: Ratio) -> Value {
        Value { value: r.value, low: r.interval.map(|i| i.0), high: r.interval.map(|i| i.1), mean: None }
    }

    fn interval(&self) -> Option<(f64, f64)> {
        self.low.zip(self.high)
    }

    /// Both have intervals and they do not overlap.
    fn disjoint(a: Option<&Value>, b: Option<&Value>) -> bool {
        match (a.and_then(Value::interval), b.and_then(Value::interval)) {
            (Some((al, ah)), Some((bl, bh))) => ah < bl || bh < al,
            _ => false,
        }
    }

    fn text(&self) -> String {
        match self.interval() {
            Some((lo, hi)) => format!("{} [{}, {}]", numbers::sig3(self.value), numbers::sig3(lo), numbers::sig3(hi)),
            None => numbers::sig3(self.value),
        }
    }
}

/// The JSON Schema of `Comparison` (schemas/compare.schema.json).
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Comparison)).expect("a schema serializes") + "\n"
}

/// How `a` became `b`.
fn flip(a: Verdict, b: Verdict) -> Flip {
    let holds = |v: Verdict| matches!(v, Verdict::Confirmed | Verdict::DiffersInSize);
    if a == b {
        Flip::None
    } else if (holds(a) && b == Verdict::Refuted) || (a == Verdict::Refuted && holds(b)) {
        Flip::Hard
    } else {
        Flip::Changed
    }
}

/// The two runs compared.
pub fn comparison(a: &Path, b: &Path) -> Result<Comparison, ReportError> {
    let (ra, rb) = (read_results(a)?, read_results(b)?);
    let (sa, sb) = (ra.summaries(), rb.summaries());
    let mut rows = Vec::new();
    for x in &sa {
        let Some(y) = sb.iter().find(|y| y.scenario == x.scenario) else { continue };
        let (rps_a, rps_b) = (x.get("rps"), y.get("rps"));
        let ratio = rps_b.zip(rps_a).and_then(|(b, a)| Ratio::of(b, a));
        let (va, vb) = (rps_a.map(Value::of), rps_b.map(Value::of));
        let metric =
            wirebench_core::metrics::claim_ids().find(|m| x.get(m).is_some() && y.get(m).is_some()).unwrap_or("rps");
        let (ma, mb) = (x.get(metric).map(Value::of), y.get(metric).map(Value::of));
        let metric_ratio = y.get(metric).zip(x.get(metric)).and_then(|(b, a)| Ratio::of(b, a));
        rows.push(RowComparison {
            scenario: x.scenario.clone(),
            metric: metric.to_string(),
            metric_ratio: metric_ratio.map(Value::ratio),
            disjoint: Value::disjoint(ma.as_ref(), mb.as_ref()),
            rps_a: va,
            rps_b: vb,
            ratio: ratio.map(Value::ratio),
            p99_a_us: x.get("p99_us").map(|p| p.median),
            p99_b_us: y.get("p99_us").map(|p| p.median),
            p99_ratio: y.get("p99_us").zip(x.get("p99_us")).and_then(|(b, a)| Ratio::of(b, a)).map(Value::ratio),
            verdict: verdict(metric, x.get(metric), y.get(metric), metric_ratio),
            contended_a: x.contended,
            contended_b: y.contended,
        });
    }
    let side = |dir: &Path, r: &Results, s: &[ScenarioSummary]| Side {
        dir: dir.display().to_string(),
        suite: r.run.suite.clone(),
        run_id: r.run.run_id.clone(),
        profile: r.run.profile.clone(),
        repeats: r.run.repeats,
        contended_repeats: s.iter().map(|x| x.contended).sum(),
        cpu_speed_spread: wirebench_core::speed::spread(&r.run.cpu_speed).map(|(ratio, _)| ratio),
    };
    let (side_a, side_b) = (side(a, &ra, &sa), side(b, &rb, &sb));
    let differs_in = differences(&ra.run, &rb.run);
    let (only_in_a, only_in_b) = (only_in(&sa, &sb), only_in(&sb, &sa));
    let (ja, jb) = (Report::of(ra, None).claims, Report::of(rb, None).claims);
    let claims: Vec<ClaimComparison> = ja
        .iter()
        .filter_map(|x| {
            let y = jb.iter().find(|y| y.claim.id == x.claim.id)?;
            let value = |o: &Outcome| {
                let (low, high) = (o.interval.map(|i| i.0), o.interval.map(|i| i.1));
                o.value.map(|value| Value { value, low, high, mean: None })
            };
            // A quantified claim's value is its deciding case's, and the runs may decide on
            // different cases (one went not judged in B): compare A's deciding case in both.
            let case = x.deciding.clone();
            let of_case = |j: &Judged| {
                let label = case.as_deref()?;
                j.cases.iter().find(|c| c.label == label).and_then(|c| value(&c.outcome))
            };
            let (va, vb) = match &case {
                Some(_) => (of_case(x), of_case(y)),
                None => (value(&x.outcome), value(&y.outcome)),
            };
            Some(ClaimComparison {
                id: x.claim.id.clone(),
                verdict_a: x.outcome.verdict.as_str().to_string(),
                verdict_b: y.outcome.verdict.as_str().to_string(),
                case,
                disjoint: Value::disjoint(va.as_ref(), vb.as_ref()),
                a: va,
                b: vb,
                flip: flip(x.outcome.verdict, y.outcome.verdict),
            })
        })
        .collect();
    Ok(Comparison {
        a: side_a,
        b: side_b,
        differs_in,
        rows_disjoint: rows.iter().filter(|r| r.disjoint).count(),
        claims_disjoint: claims.iter().filter(|c| c.disjoint).count(),
        verdicts_changed: claims.iter().filter(|c| c.flip != Flip::None).count(),
        hard_flips: claims.iter().filter(|c| c.flip == Flip::Hard).count(),
        gate: None,
        rows,
        only_in_a,
        only_in_b,
        claims,
    })
}

/// The comparison as plain text, ending in a newline.
pub fn compare(a: &Path, b: &Path) -> Result<String, ReportError> {
    Ok(text(&comparison(a, b)?))
}

/// A comparison as plain text, ending in a newline.
pub fn text(c: &Comparison) -> String {
    let mut rows: Vec<[String; 7]> = vec![HEADER.map(str::to_string)];
    for r in &c.rows {
        // A row without req/s (a harness's) shows its own metric's ratio, which its verdict names.
        let ratio_text = match r.ratio.as_ref().or(r.metric_ratio.as_ref()) {
            None => NONE.to_string(),
            Some(v) => match v.interval() {
                Some((lo, hi)) => format!("{} [{}]", numbers::ratio(v.value), numbers::interval(lo, hi, numbers::sig3)),
                None => numbers::ratio(v.value),
            },
        };
        let p99 = |p: Option<f64>| p.map_or(NONE.to_string(), numbers::latency_us);
        rows.push([
            r.scenario.clone(),
            rps(r.rps_a.as_ref()),
            rps(r.rps_b.as_ref()),
            ratio_text,
            p99(r.p99_a_us),
            p99(r.p99_b_us),
            r.verdict.clone(),
        ]);
    }
    let mut out = format!("A: {}\nB: {}\n", describe(&c.a), describe(&c.b));
    if !c.differs_in.is_empty() {
        out += &format!("The runs also differ in: {}. A ratio may come from these.\n", c.differs_in.join("; "));
    }
    out.push('\n');
    if rows.len() == 1 {
        out.push_str("No scenario ran in both.\n");
    } else {
        out += &table(&rows);
    }
    let only = [("A", &c.only_in_a), ("B", &c.only_in_b)];
    if only.iter().any(|(_, ids)| !ids.is_empty()) {
        out.push('\n');
    }
    for (label, ids) in only {
        if !ids.is_empty() {
            out += &format!("only in {label}: {}\n", ids.join(", "));
        }
    }
    out += &format!(
        "\nRows whose intervals are disjoint (req/s, else a row's first claim metric): {} of {}. Contended repeats: A {}, B {}.\n",
        c.rows_disjoint,
        c.rows.len(),
        c.a.contended_repeats,
        c.b.contended_repeats
    );
    if c.a.cpu_speed_spread.is_some() || c.b.cpu_speed_spread.is_some() {
        let spread = |s: Option<f64>| s.map_or("not probed".to_string(), |x| format!("{x:.2}×"));
        out += &format!(
            "CPUs' speed, the slowest probe over the fastest: A {}, B {} (over {:.2}×, a core ran slower unseen).\n",
            spread(c.a.cpu_speed_spread),
            spread(c.b.cpu_speed_spread),
            wirebench_core::speed::UNSTEADY
        );
    }
    if !c.claims.is_empty() {
        out += &format!(
            "Claims: {} of {} verdicts changed, {} between confirmed or differs in size and refuted; {} claims' intervals are disjoint.\n",
            c.verdicts_changed,
            c.claims.len(),
            c.hard_flips,
            c.claims_disjoint
        );
        let mut changed: Vec<&ClaimComparison> =
            c.claims.iter().filter(|x| x.flip != Flip::None || x.disjoint).collect();
        changed.sort_by_key(|x| (x.flip != Flip::Hard, x.flip == Flip::None));
        for x in changed {
            let value = |v: &Option<Value>| v.as_ref().map_or(NONE.to_string(), Value::text);
            let mark = match (x.flip, x.disjoint) {
                (Flip::Hard, _) => "  (flipped)",
                (_, true) => "  (disjoint)",
                _ => "",
            };
            // The JSON keeps the verdicts' ids; the text reads them as words.
            let words = |id: &str| id.replace('-', " ");
            let case = x.case.as_ref().map_or(String::new(), |c| format!(" (case {c})"));
            out += &format!(
                "  {}{case}: {} {} → {} {}{mark}\n",
                x.id,
                words(&x.verdict_a),
                value(&x.a),
                words(&x.verdict_b),
                value(&x.b)
            );
        }
    }
    if let Some(g) = &c.gate {
        // 5 %, 2.5 %: a tolerance as the user wrote it.
        let pct = (g.tolerance * 1000.0).round() / 10.0;
        if g.slower.is_empty() {
            out += &format!("Slower by more than {pct} % (the whole interval past it): none.\n");
        } else {
            out += &format!("Slower by more than {pct} % (the whole interval past it):\n");
            for x in &g.slower {
                let what = if x.metric == "rps" { "req/s" } else { "p99" };
                out += &format!("  {}: {what} B/A {}\n", x.scenario, x.ratio.text());
            }
        }
    }
    out
}

/// Ids of the scenarios of `xs` that `ys` lacks.
fn only_in(xs: &[ScenarioSummary], ys: &[ScenarioSummary]) -> Vec<String> {
    xs.iter().filter(|x| !ys.iter().any(|y| y.scenario == x.scenario)).map(|x| x.scenario.clone()).collect()
}

/// `12,345 ± 678` (median ± half-width of the 95 % CI), or the median alone with one repeat.
/// The half-width is measured above the mean: below, the interval may be cut at 0.
fn rps(v: Option<&Value>) -> String {
    match v {
        None => NONE.to_string(),
        Some(v) => match (v.high, v.mean) {
            (Some(hi), Some(mean)) => format!("{} ± {}", numbers::thousands(v.value), numbers::thousands(hi - mean)),
            _ => numbers::thousands(v.value),
        },
    }
}

/// `faster`/`slower` (req/s) or `<metric> higher`/`lower` only when the ratio's interval
/// excludes 1.
fn verdict(metric: &str, a: Option<&Summary>, b: Option<&Summary>, ratio: Option<Ratio>) -> String {
    match (a, b) {
        (None, None) => return "failed in both".into(),
        (None, Some(_)) => return "failed in A".into(),
        (Some(_), None) => return "failed in B".into(),
        _ => {}
    }
    let (up, down) = if metric == "rps" { ("faster", "slower") } else { ("higher", "lower") };
    let named = |word: &str| if metric == "rps" { word.to_string() } else { format!("{metric} {word}") };
    match ratio {
        Some(r) if r.interval.is_none() => "n/a".into(),
        Some(r) if r.above_one() => named(up),
        Some(r) if r.below_one() => named(down),
        Some(_) => named("same within noise"),
        None => "n/a".into(),
    }
}

/// What else than the scenarios changed between the runs: build, machine, pinning, profile,
/// library versions. Each is a possible cause of a ratio.
fn differences(a: &RunInfo, b: &RunInfo) -> Vec<String> {
    let mut out = Vec::new();
    let mut differ = |what: &str, x: String, y: String| {
        if x != y {
            out.push(format!("{what} {x} → {y}"));
        }
    };
    let git = |r: &RunInfo| r.git_revision.clone().unwrap_or_else(|| "unknown".into());
    differ("git", git(a), git(b));
    let machine = |r: &RunInfo| format!("{} ({} cores, {})", r.machine.cpu_model, r.machine.cores, r.machine.kernel);
    differ("machine", machine(a), machine(b));
    differ("pinning", numbers::pinning(&a.cpus), numbers::pinning(&b.cpus));
    differ("profile", a.profile.clone(), b.profile.clone());
    let keys: BTreeSet<&String> = a.versions.keys().chain(b.versions.keys()).collect();
    for key in keys {
        let version = |r: &RunInfo| r.versions.get(key).cloned().unwrap_or_else(|| NONE.to_string());
        differ(key, version(a), version(b));
    }
    out
}

fn describe(s: &Side) -> String {
    format!("{} (suite {}, run {}, profile {}, {} repeats)", s.dir, s.suite, s.run_id, s.profile, s.repeats)
}

fn table(rows: &[[String; 7]]) -> String {
    let mut widths = [0usize; 7];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .zip(NUMERIC)
            .map(|((cell, w), right)| if right { format!("{cell:>w$}") } else { format!("{cell:<w$}") })
            .collect();
        out += cells.join("  ").trim_end();
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, Spec};

    fn line<'a>(text: &'a str, scenario: &str) -> &'a str {
        text.lines().find(|l| l.starts_with(&format!("{scenario} "))).unwrap_or_else(|| panic!("{scenario} in\n{text}"))
    }

    /// A harness's row has no req/s: its ratio and verdict are on its first claim metric, named,
    /// where they read "failed in both".
    #[test]
    fn a_harness_row_is_compared_on_its_own_metric() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::formats_only(a.path());
        let mut specs = fixture::formats_specs();
        for t in &mut specs[0].times_ms {
            t.0 *= 2.0;
        }
        fixture::write_run(b.path(), &[], &specs, fixture::FORMAT_CLAIMS);
        let c = comparison(a.path(), b.path()).unwrap();
        let text = text(&c);
        let doubled = line(&text, &specs[0].scenario());
        assert!(doubled.contains("2.00× [") && doubled.trim_end().ends_with("serialize_ns higher"), "{doubled}");
        let same = line(&text, &specs[1].scenario());
        assert!(same.contains("1.00× [") && same.trim_end().ends_with("serialize_ns same within noise"), "{same}");
        let row = c.rows.iter().find(|r| r.scenario == specs[0].scenario()).unwrap();
        assert_eq!((row.metric.as_str(), row.ratio.is_none()), ("serialize_ns", true));
        assert!((row.metric_ratio.as_ref().unwrap().value - 2.0).abs() < 1e-9);
    }

    #[test]
    fn ratio_and_verdict_follow_the_intervals() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::write(a.path(), &fixture::standard_specs(1.0), "");
        let mut specs = fixture::standard_specs(1.5);
        // Same numbers in B for h2c-1mb: "same within noise"; h1-1kb gone, one new scenario.
        specs[1].rps = vec![200.0, 204.0, 196.0];
        specs.retain(|s| s.id != "h1-1kb");
        specs.push(Spec::new("h3-1kb", "http2", "1KB", &[1.0, 2.0, 3.0]));
        fixture::write(b.path(), &specs, "");

        let text = compare(a.path(), b.path()).unwrap();
        assert!(text.ends_with('\n'));
        let fast = line(&text, "h2c-1kb");
        assert!(fast.contains("20,000 ± 994") && fast.contains("30,000 ± 1,491"), "{fast}");
        assert!(fast.contains("1.50× [1.36–1.66]"), "{fast}");
        assert!(fast.trim_end().ends_with("faster"), "{fast}");
        assert!(line(&text, "h2c-1mb").trim_end().ends_with("same within noise"));
        assert!(line(&text, "broken").trim_end().ends_with("failed in both"));
        assert!(text.contains("\n\nonly in A: h1-1kb\nonly in B: h3-1kb\n"), "{text}");
        assert!(
            text.ends_with(
                "Rows whose intervals are disjoint (req/s, else a row's first claim metric): 1 of 3. Contended repeats: A 0, B 0.\n"
            ),
            "{text}"
        );
        let c = comparison(a.path(), b.path()).unwrap();
        assert!(c.rows.iter().all(|r| r.metric == "rps"), "load rows compare req/s");

        let back = compare(b.path(), a.path()).unwrap();
        assert!(line(&back, "h2c-1kb").trim_end().ends_with("slower"), "{back}");
    }

    /// A "for every" claim's value is its deciding case's: where B decides on another case, both
    /// runs' values are still A's deciding case's, named in the JSON and the text.
    #[test]
    fn a_quantified_claim_is_compared_on_one_case_in_both_runs() {
        let claims = r#"
[[claims]]
id = "every-1kb-above-5k"
text = "t"
published = "p"
metric = "rps"
numerator = "*-1kb"
op = ">"
threshold = 5000.0
"#;
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::write(a.path(), &fixture::standard_specs(1.0), claims);
        let mut specs = fixture::standard_specs(1.0);
        // h1 (~10,000 in A, the lowest, deciding) becomes the highest in B: B decides on h2c.
        specs[2].rps = vec![30_000.0, 30_600.0, 29_400.0];
        fixture::write(b.path(), &specs, claims);
        let jb = Report::of(read_results(b.path()).unwrap(), None).claims;
        assert_eq!(jb[0].deciding.as_deref(), Some("h2c"), "the fixture makes B decide on another case");
        let c = comparison(a.path(), b.path()).unwrap();
        let x = &c.claims[0];
        assert_eq!(x.case.as_deref(), Some("h1"));
        let (va, vb) = (x.a.unwrap().value, x.b.unwrap().value);
        assert!((va - 10_000.0).abs() < 1.0 && (vb - 30_000.0).abs() < 1.0, "{x:?}");
        assert!(x.disjoint);
        assert!(text(&c).contains("  every-1kb-above-5k (case h1): confirmed 10,000 ["), "{}", text(&c));
    }

    /// A claim confirmed in one run and refuted in the other is a hard flip, listed first; one
    /// whose intervals merely moved apart is disjoint; the JSON says the same.
    #[test]
    fn verdicts_that_flip_and_intervals_that_part_are_listed() {
        let claims = r#"
[[claims]]
id = "above-25k"
text = "t"
published = "p"
metric = "rps"
numerator = "h2c-1kb"
op = ">"
threshold = 25000.0

[[claims]]
id = "above-100"
text = "t"
published = "p"
metric = "rps"
numerator = "h2c-1mb"
op = ">"
threshold = 100.0
"#;
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::write(a.path(), &fixture::standard_specs(1.0), claims);
        let mut specs = fixture::standard_specs(1.5);
        specs[1].rps = vec![300.0, 306.0, 294.0];
        fixture::write(b.path(), &specs, claims);
        let c = comparison(a.path(), b.path()).unwrap();
        let by_id = |id: &str| c.claims.iter().find(|x| x.id == id).unwrap();
        let flipped = by_id("above-25k");
        assert_eq!(
            (flipped.verdict_a.as_str(), flipped.verdict_b.as_str(), flipped.flip),
            ("refuted", "confirmed", Flip::Hard)
        );
        let parted = by_id("above-100");
        assert_eq!((parted.flip, parted.disjoint), (Flip::None, true), "{parted:?}");
        assert_eq!((c.hard_flips, c.verdicts_changed, c.claims_disjoint), (1, 1, 2));
        let text = text(&c);
        let listed: Vec<&str> = text.lines().filter(|l| l.starts_with("  above-")).collect();
        assert!(listed[0].starts_with("  above-25k: refuted 20,000 [") && listed[0].ends_with("(flipped)"), "{text}");
        // h2c-1mb is instrument-bound in both: its claim is not judged, its value still compared.
        assert!(listed[1].starts_with("  above-100: not judged 200 [") && listed[1].ends_with("(disjoint)"), "{text}");
        assert!(text.contains("Claims: 1 of 2 verdicts changed, 1 between confirmed or differs in size and refuted; 2 claims' intervals are disjoint."));
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["hard_flips"], 1);
        assert_eq!(json["claims"][0]["flip"], "hard");
        let schema: serde_json::Value = serde_json::from_str(&crate::compare::json_schema()).unwrap();
        assert_eq!(schema["title"], "Comparison");
    }

    /// Each run's CPUs' speed is told beside its contended repeats, and only where a run was
    /// probed: a second run that disagrees may have met a slower machine.
    #[test]
    fn each_runs_cpu_speed_is_told_where_it_was_probed() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::write(a.path(), &fixture::standard_specs(1.0), "");
        fixture::write(b.path(), &fixture::standard_specs(1.0), "");
        assert!(!compare(a.path(), b.path()).unwrap().contains("CPUs' speed"), "no probes, no line");
        let run = b.path().join(wirebench_core::results::RUN_FILE);
        let mut info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
        let probe = |cpu: usize, us: u64| serde_json::json!({"at": "end", "cpu": cpu, "slices_us": vec![us; 8]});
        info["cpu_speed"] = serde_json::json!([probe(0, 8000), probe(1, 14_960)]);
        std::fs::write(&run, info.to_string()).unwrap();
        let text = compare(a.path(), b.path()).unwrap();
        assert!(
            text.contains("CPUs' speed, the slowest probe over the fastest: A not probed, B 1.87× (over 1.18×"),
            "{text}"
        );
    }

    /// B at 0.8 of A's req/s on every row: the tight rows are slower past 5 % and fail the
    /// gate; h1-1kb's wide interval reaches past 0.95, so it does not; a 20 % tolerance passes
    /// them all; A against itself passes.
    #[test]
    fn the_slower_gate_fails_a_row_only_when_its_whole_interval_is_past_the_tolerance() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::write(a.path(), &fixture::standard_specs(1.0), fixture::CLAIMS);
        fixture::write(b.path(), &fixture::standard_specs(0.8), fixture::CLAIMS);
        let c = comparison(a.path(), b.path()).unwrap();
        let gate = slower_gate(&c, 0.05);
        let ids: Vec<(&str, &str)> = gate.slower.iter().map(|x| (x.scenario.as_str(), x.metric.as_str())).collect();
        // The fixture's latency grows as its rate falls: p99 fails beside req/s.
        assert_eq!(ids, [("h2c-1kb", "rps"), ("h2c-1kb", "p99_us"), ("h2c-1mb", "rps"), ("h2c-1mb", "p99_us")]);
        let h1 = c.rows.iter().find(|r| r.scenario == "h1-1kb").unwrap().ratio.unwrap();
        assert!(h1.value < 0.95 && h1.high.unwrap() > 0.95, "slower at the point, not over its interval: {h1:?}");
        assert!(slower_gate(&c, 0.2).slower.is_empty());
        assert!(slower_gate(&comparison(a.path(), a.path()).unwrap(), 0.0).slower.is_empty());
        let text = text(&Comparison { gate: Some(gate), ..c });
        assert!(text.contains("Slower by more than 5 % (the whole interval past it):\n  h2c-1kb: req/s B/A 0.800 [0.724, 0.884]\n  h2c-1kb: p99 B/A 1.25"), "{text}");
    }

    #[test]
    fn the_committed_schema_is_up_to_date() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/compare.schema.json");
        if std::env::var_os("WIREBENCH_BLESS").is_some() {
            std::fs::write(&path, json_schema()).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(committed, json_schema(), "schemas/compare.schema.json is stale: run `make schemas`");
    }

    #[test]
    fn what_else_differs_between_the_runs_is_said() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::standard(a.path());
        fixture::standard(b.path());
        assert!(!compare(a.path(), b.path()).unwrap().contains("differ in"));
        let run_file = b.path().join("run.json");
        let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run_file).unwrap()).unwrap();
        run["git_revision"] = "0123abc".into();
        run["versions"]["hyper"] = "1.8.0".into();
        run["versions"]["h2"] = "0.4.20".into();
        run["cpus"]["subject"] = serde_json::json!([]);
        std::fs::write(&run_file, run.to_string()).unwrap();
        let text = compare(a.path(), b.path()).unwrap();
        let note = text.lines().nth(2).unwrap();
        assert!(note.starts_with("The runs also differ in: git "), "{text}");
        for part in [
            "→ 0123abc",
            "pinning subject 0 · load 1 → subject not pinned · load 1",
            "h2 — → 0.4.20",
            "hyper 1.7.0 → 1.8.0",
        ] {
            assert!(note.contains(part), "{part} in {note}");
        }
    }

    #[test]
    fn one_repeat_gives_no_verdict() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fixture::write(a.path(), &[Spec::new("x", "http1", "1KB", &[100.0])], "");
        fixture::write(b.path(), &[Spec::new("x", "http1", "1KB", &[300.0])], "");
        let text = compare(a.path(), b.path()).unwrap();
        let x = line(&text, "x");
        assert!(x.contains("3.00×") && x.trim_end().ends_with("n/a"), "{x}");
    }

    #[test]
    fn a_missing_directory_is_named() {
        let a = tempfile::tempdir().unwrap();
        fixture::standard(a.path());
        let missing = a.path().join("nope");
        let err = compare(a.path(), &missing).unwrap_err().to_string();
        assert!(err.contains("nope/run.json") && !err.contains('\n'), "{err}");
    }
}
