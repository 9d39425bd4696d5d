//! `wirebench compare A B`: req/s and p99 of the scenarios two runs share, with the ratio B/A, its
//! conservative 95 % interval and a verdict that only says "faster" or "slower" when the
//! interval excludes 1.

use std::collections::BTreeSet;
use std::path::Path;

use wirebench_core::results::{Results, ScenarioSummary};
use wirebench_core::schema::RunInfo;
use wirebench_core::stats::Summary;

use crate::error::ReportError;
use crate::load::Ratio;
use crate::model::read_results;
use crate::numbers::{self, NONE};

const HEADER: [&str; 7] = ["scenario", "req/s A", "req/s B", "B/A (95 % interval)", "p99 A", "p99 B", "verdict"];
/// Columns aligned right (numbers).
const NUMERIC: [bool; 7] = [false, true, true, true, true, true, false];

/// The comparison as plain text, ending in a newline.
pub fn compare(a: &Path, b: &Path) -> Result<String, ReportError> {
    let (ra, rb) = (read_results(a)?, read_results(b)?);
    let (sa, sb) = (ra.summaries(), rb.summaries());
    let mut rows: Vec<[String; 7]> = vec![HEADER.map(str::to_string)];
    for x in &sa {
        let Some(y) = sb.iter().find(|y| y.scenario == x.scenario) else { continue };
        let (rps_a, rps_b) = (x.get("rps"), y.get("rps"));
        let ratio = rps_b.zip(rps_a).and_then(|(b, a)| Ratio::of(b, a));
        let ratio_text = match ratio {
            None => NONE.to_string(),
            Some(r) => match r.interval {
                Some((lo, hi)) => format!("{} [{}]", numbers::ratio(r.value), numbers::interval(lo, hi, numbers::sig3)),
                None => numbers::ratio(r.value),
            },
        };
        rows.push([
            x.scenario.clone(),
            rps(rps_a),
            rps(rps_b),
            ratio_text,
            p99(x),
            p99(y),
            verdict(rps_a, rps_b, ratio).to_string(),
        ]);
    }
    let mut out = format!("A: {}\nB: {}\n", describe(a, &ra), describe(b, &rb));
    let differs = differences(&ra.run, &rb.run);
    if !differs.is_empty() {
        out += &format!("The runs also differ in: {}. A ratio may come from these.\n", differs.join("; "));
    }
    out.push('\n');
    if rows.len() == 1 {
        out.push_str("No scenario ran in both.\n");
    } else {
        out += &table(&rows);
    }
    let only = [("A", only_in(&sa, &sb)), ("B", only_in(&sb, &sa))];
    if only.iter().any(|(_, ids)| !ids.is_empty()) {
        out.push('\n');
    }
    for (label, ids) in only {
        if !ids.is_empty() {
            out += &format!("only in {label}: {}\n", ids.join(", "));
        }
    }
    Ok(out)
}

/// Ids of the scenarios of `xs` that `ys` lacks.
fn only_in(xs: &[ScenarioSummary], ys: &[ScenarioSummary]) -> Vec<String> {
    xs.iter().filter(|x| !ys.iter().any(|y| y.scenario == x.scenario)).map(|x| x.scenario.clone()).collect()
}

fn p99(s: &ScenarioSummary) -> String {
    s.get("p99_us").map_or(NONE.to_string(), |p| numbers::latency_us(p.median))
}

/// `12,345 ± 678` (median ± half-width of the 95 % CI), or the median alone with one repeat.
/// The half-width is measured above the mean: below, the interval may be cut at 0.
fn rps(s: Option<&Summary>) -> String {
    match s {
        None => NONE.to_string(),
        Some(s) => match s.ci {
            Some((_, hi)) => format!("{} ± {}", numbers::thousands(s.median), numbers::thousands(hi - s.mean)),
            None => numbers::thousands(s.median),
        },
    }
}

/// `faster`/`slower` only when the ratio's interval excludes 1.
fn verdict(a: Option<&Summary>, b: Option<&Summary>, ratio: Option<Ratio>) -> &'static str {
    match (a, b) {
        (None, None) => return "failed in both",
        (None, Some(_)) => return "failed in A",
        (Some(_), None) => return "failed in B",
        _ => {}
    }
    match ratio {
        Some(r) if r.interval.is_none() => "n/a",
        Some(r) if r.above_one() => "faster",
        Some(r) if r.below_one() => "slower",
        Some(_) => "same within noise",
        None => "n/a",
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

fn describe(dir: &Path, r: &Results) -> String {
    format!(
        "{} (suite {}, run {}, profile {}, {} repeats)",
        dir.display(),
        r.run.suite,
        r.run.run_id,
        r.run.profile,
        r.run.repeats
    )
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
        assert!(text.ends_with("\n\nonly in A: h1-1kb\nonly in B: h3-1kb\n"), "{text}");

        let back = compare(b.path(), a.path()).unwrap();
        assert!(line(&back, "h2c-1kb").trim_end().ends_with("slower"), "{back}");
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
