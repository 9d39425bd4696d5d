//! What the report says, computed once from a results directory: the run, the suite as it ran,
//! its rows, the judged claims and what the reader must know first; and the sections, in reading
//! order: the load rows' (`load`), the claims, every lab's (`labs::LABS`) and the method.

use std::path::Path;

use wirebench_core::claims::{judge, Judged};
use wirebench_core::results::{Results, ScenarioSummary, RUN_FILE};
use wirebench_core::schema::RunInfo;
use wirebench_core::stats::Summary;
use wirebench_core::suite::Suite;

use crate::labs::LABS;
use crate::section::{Para, Run, Section};
use crate::table::Text;
use crate::{claims, load, ReportError};

/// A results directory, summarised.
#[derive(Debug, Clone)]
pub struct Report {
    pub run: RunInfo,
    /// `run.json`'s `parameters` read back as a suite, or why that failed (then no claims).
    pub suite: Result<Suite, String>,
    /// One summary per scenario, in the order they ran.
    pub rows: Vec<ScenarioSummary>,
    pub claims: Vec<Judged>,
    /// The number of a cut-off last line of `measurements.jsonl` that was left out, if any.
    pub torn_last_line: Option<usize>,
}

/// Something the reader must know about the run as a whole, before any number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunWarning {
    pub title: &'static str,
    pub detail: String,
}

/// A ratio of medians `a / b` with a conservative 95 % interval: the extremes of the ratio over
/// both confidence intervals (`lo_a / hi_b .. hi_a / lo_b`), as the claims judge does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    pub value: f64,
    /// `None` when either side has no interval (one repeat); the upper end is infinite when the
    /// divisor's interval reaches zero.
    pub interval: Option<(f64, f64)>,
}

impl Ratio {
    /// `None` when `b`'s median is not positive.
    pub fn of(a: &Summary, b: &Summary) -> Option<Ratio> {
        if b.median <= 0.0 {
            return None;
        }
        let interval = match (a.ci, b.ci) {
            (Some((lo_a, hi_a)), Some((lo_b, hi_b))) if hi_b > 0.0 => {
                let hi = if lo_b > 0.0 { hi_a / lo_b } else { f64::INFINITY };
                Some((lo_a.max(0.0) / hi_b, hi))
            }
            _ => None,
        };
        Some(Ratio { value: a.median / b.median, interval })
    }

    /// True when the interval lies entirely above 1.
    pub fn above_one(&self) -> bool {
        self.interval.is_some_and(|(lo, _)| lo > 1.0)
    }

    /// True when the interval lies entirely below 1.
    pub fn below_one(&self) -> bool {
        self.interval.is_some_and(|(_, hi)| hi < 1.0)
    }
}

impl Report {
    /// Reads `dir` (`run.json` and `measurements.jsonl`) and summarises it.
    pub fn read(dir: &Path) -> Result<Report, ReportError> {
        Ok(Report::of(read_results(dir)?))
    }

    /// Summarises results already read.
    pub fn of(results: Results) -> Report {
        let rows = results.summaries();
        let suite = suite_of(&results.run.parameters)
            .map_err(|e| format!("run.json parameters are not a suite ({e}): claims cannot be judged"));
        let claims = match &suite {
            Ok(s) => s.claims.iter().map(|c| judge(c, &rows)).collect(),
            Err(_) => Vec::new(),
        };
        Report { run: results.run, suite, rows, claims, torn_last_line: results.torn_last_line }
    }

    /// Every section in reading order: the headline, the claims, the load rows' table, steps and
    /// charts, each lab's section, and the method.
    pub fn sections(&self) -> Vec<Section> {
        let run = Run { repeats: self.run.repeats };
        let rows: Vec<&ScenarioSummary> = self.rows.iter().collect();
        let mut load = load::sections(&rows, &run).into_iter();
        let mut out: Vec<Section> = load.next().into_iter().collect();
        out.push(claims::section(&self.claims));
        out.extend(load);
        for lab in LABS {
            let mine: Vec<&ScenarioSummary> = rows.iter().copied().filter(|s| s.lab == lab.id()).collect();
            if !mine.is_empty() {
                out.push(lab.section(&mine, &run));
            }
        }
        out.push(self.method());
        out
    }

    /// How the numbers were made.
    fn method(&self) -> Section {
        let mut s = Section::new("method", "Method");
        let load = self.rows.iter().any(|r| r.protocol.is_some());
        let mut text = Text::plain(format!("Each scenario ran {} times (profile ", self.run.repeats))
            .and_code(self.run.profile.as_str())
            .and(
                "). Numbers are the median over those repeats; the range beside them is the 95 % confidence \
                 interval of the mean (Student's t), which narrows as repeats are added and is absent with one \
                 repeat. ",
            );
        if load {
            text = text.and(
                "In the closed model each stream sends its next request as soon as the previous one is answered, \
                 so req/s is the capacity at that concurrency; in the open model requests arrive at a fixed rate \
                 and latency is measured from each request's intended send time, so it is corrected for \
                 coordinated omission. ",
            );
        }
        text = text.and(
            "A claim is confirmed only when its whole interval satisfies it and refuted only when its whole \
             interval contradicts it; ratios take the conservative interval (low ÷ high to high ÷ low).",
        );
        if load {
            text = text
                .and(" The headline ranks closed-model scenarios only, since open-model req/s is the offered rate.");
        }
        s.para(Para::Plain, text);
        s
    }

    /// The run did not finish, a measurement line was cut off, the suite could not be read, or rows
    /// name a lab the report does not know.
    pub fn warnings(&self) -> Vec<RunWarning> {
        let mut out = Vec::new();
        if self.run.finished_at.is_none() {
            out.push(RunWarning {
                title: "The run did not finish.",
                detail: "Scenarios after the interruption are missing.".into(),
            });
        }
        if let Some(line) = self.torn_last_line {
            out.push(RunWarning {
                title: "A measurement was cut off.",
                detail: format!(
                    "Line {line} of measurements.jsonl was being written when the runner stopped; it is left out."
                ),
            });
        }
        if let Err(why) = &self.suite {
            out.push(RunWarning { title: "Claims not judged.", detail: why.clone() });
        }
        let mut unknown: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| r.protocol.is_none() && !LABS.iter().any(|l| l.id() == r.lab))
            .map(|r| r.lab.as_str())
            .collect();
        unknown.dedup();
        if !unknown.is_empty() {
            out.push(RunWarning {
                title: "Rows of an unknown lab.",
                detail: format!(
                    "Rows of lab {} have no section in this report; they are in measurements.jsonl.",
                    unknown.join(", ")
                ),
            });
        }
        out
    }

    /// Scenarios with a failed repeat.
    pub fn failed_scenarios(&self) -> usize {
        self.rows.iter().filter(|r| r.error.is_some()).count()
    }

    /// The suite's description, if the suite could be read.
    pub fn description(&self) -> Option<&str> {
        self.suite.as_ref().ok().map(|s| s.description.as_str()).filter(|d| !d.is_empty())
    }
}

/// `Results::read`, with a missing `run.json` reported as "not a results directory".
pub fn read_results(dir: &Path) -> Result<Results, ReportError> {
    let run = dir.join(RUN_FILE);
    if !run.is_file() {
        return Err(ReportError::NotResults { run_file: run.display().to_string() });
    }
    Ok(Results::read(dir)?)
}

/// The suite as it ran, from `run.json`'s `parameters`.
fn suite_of(parameters: &serde_json::Value) -> Result<Suite, serde_json::Error> {
    serde_json::from_value(parameters.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    #[test]
    fn ratio_interval_is_conservative_and_open_ended_at_zero() {
        let a = Summary::of(&[200.0, 210.0, 190.0]).unwrap();
        let b = Summary::of(&[100.0, 105.0, 95.0]).unwrap();
        let r = Ratio::of(&a, &b).unwrap();
        let ((lo_a, hi_a), (lo_b, hi_b)) = (a.ci.unwrap(), b.ci.unwrap());
        assert_eq!(r.interval, Some((lo_a / hi_b, hi_a / lo_b)));
        assert!(r.above_one() && !r.below_one());
        let wild = Summary::of(&[1.0, 100.0, 200.0]).unwrap();
        assert_eq!(Ratio::of(&a, &wild).unwrap().interval.unwrap().1, f64::INFINITY);
        let one = Summary::of(&[100.0]).unwrap();
        let r = Ratio::of(&a, &one).unwrap();
        assert!(r.interval.is_none() && !r.above_one() && !r.below_one());
    }

    #[test]
    fn parameters_that_are_not_a_suite_leave_claims_out_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut results = read_results(dir.path()).unwrap();
        results.run.parameters = serde_json::json!({"scenarios": 3});
        let r = Report::of(results);
        assert!(r.claims.is_empty());
        assert!(r.suite.unwrap_err().contains("not a suite"));
    }

    #[test]
    fn rows_go_to_the_section_of_their_lab() {
        let dir = tempfile::tempdir().unwrap();
        fixture::every_lab(dir.path());
        let r = Report::read(dir.path()).unwrap();
        let ids: Vec<String> = r.sections().iter().map(|s| s.id.clone()).collect();
        assert_eq!(
            ids,
            [
                "headline",
                "claims-section",
                "scenarios-section",
                "steps",
                "charts",
                "protocols",
                "restcache",
                "formats-section",
                "parse",
                "realtime",
                "wasm",
                "method"
            ]
        );
        assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    }
}
