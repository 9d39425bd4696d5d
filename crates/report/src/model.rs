//! What the report says, computed once from a results directory: the run, the suite as it ran,
//! one row per scenario with its flags, the judged claims and the headline. Every output (HTML,
//! Markdown, CSV, charts) renders this and decides nothing of its own.

use std::path::Path;

use wirebench_core::claims::{judge, Judged};
use wirebench_core::results::{Results, ScenarioSummary, RUN_FILE};
use wirebench_core::schema::RunInfo;
use wirebench_core::stats::Summary;
use wirebench_core::suite::Suite;

use crate::format;
use crate::formats::Formats;
use crate::parse::{self, Parse};
use crate::realtime::{self, Realtime};
use crate::restcache::RestCache;
use crate::wasm::{self, Wasm};
use crate::ReportError;

/// A results directory, summarised.
#[derive(Debug, Clone)]
pub struct Report {
    pub run: RunInfo,
    /// `run.json`'s `parameters` read back as a suite, or why that failed (then no claims).
    pub suite: Result<Suite, String>,
    /// One row per load scenario (every summary without a `format`), in the order they ran.
    pub rows: Vec<Row>,
    /// The in-process harness rows (summaries with a `format`), by dataset.
    pub formats: Formats,
    /// The parse lab's rows (summaries with a `parser`), by object.
    pub parse: Parse,
    /// The realtime lab's rows (summaries with `lab = "realtime"`).
    pub realtime: Realtime,
    /// The wasm lab's rows (summaries with `kernel` and `impl`).
    pub wasm: Wasm,
    /// The REST service study's cases: load rows with its labels, also in `rows`.
    pub restcache: RestCache,
    pub claims: Vec<Judged>,
    /// The fastest closed-model scenario per payload group.
    pub headline: Vec<Group>,
    /// The number of a cut-off last line of `measurements.jsonl` that was left out, if any.
    pub torn_last_line: Option<usize>,
}

/// Something the reader must know about the run as a whole, before any number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunWarning {
    pub title: &'static str,
    pub detail: String,
}

/// The parts of the report that a run may or may not have rows for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Headline, scenarios table and the req/s, latency and payload charts.
    Load,
    /// The formats table and its charts.
    Formats,
    /// The parse lab's table and its charts.
    Parse,
    /// The realtime lab's tables and charts.
    Realtime,
    /// The wasm lab's two tables and its chart.
    Wasm,
    /// Thread-group rows' steps by label (part of the load section, with a CSV of its own).
    Steps,
    /// The REST service study's cases per implementation and store (part of the load section).
    RestCache,
}

/// One scenario as the report shows it.
#[derive(Debug, Clone)]
pub struct Row {
    pub summary: ScenarioSummary,
    /// The `transport` label, or one derived from the driver and `tls` (`h1`, `h2c`, `h2+tls`).
    pub transport: String,
    /// Open-model arrival rate (requests per second), `None` in the closed model.
    pub rate_rps: Option<f64>,
    pub flags: Vec<Flag>,
}

/// A warning attached to a scenario row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    Failed,
    Noisy,
    InstrumentBound,
}

impl Flag {
    /// The id used as CSS class, CSV value and badge text.
    pub fn id(self) -> &'static str {
        match self {
            Flag::Failed => "failed",
            Flag::Noisy => "noisy",
            Flag::InstrumentBound => "instrument-bound",
        }
    }

    /// What the flag means, for tooltips and the legend under the table.
    pub fn meaning(self) -> &'static str {
        match self {
            Flag::Failed => "a repeat failed; numbers cover the repeats that completed",
            Flag::Noisy => "req/s varied by more than 10 % (coefficient of variation) across repeats",
            Flag::InstrumentBound => {
                "the load generator used more CPU than the subject, or nearly all of its own: the number may measure the instrument"
            }
        }
    }
}

/// The headline of one group of comparable scenarios (same `payload` label).
#[derive(Debug, Clone)]
pub struct Group {
    /// The shared `payload` label, or `None` for scenarios without one.
    pub payload: Option<String>,
    /// Index into `Report::rows` of the scenario with the highest median req/s.
    pub fastest: usize,
    /// The runner-up and the fastest's advantage over it.
    pub next: Option<RunnerUp>,
}

#[derive(Debug, Clone)]
pub struct RunnerUp {
    /// Index into `Report::rows`.
    pub row: usize,
    pub ratio: Ratio,
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
        let summaries = results.summaries();
        let suite = suite_of(&results.run.parameters)
            .map_err(|e| format!("run.json parameters are not a suite ({e}): claims cannot be judged"));
        let claims = match &suite {
            Ok(s) => s.claims.iter().map(|c| judge(c, &summaries)).collect(),
            Err(_) => Vec::new(),
        };
        let (harness, rest): (Vec<_>, Vec<_>) = summaries.into_iter().partition(|s| s.format.is_some());
        let (parsed, rest): (Vec<_>, Vec<_>) = rest.into_iter().partition(parse::is_parse);
        let (timed, rest): (Vec<_>, Vec<_>) = rest.into_iter().partition(realtime::is_realtime);
        let (kernels, load): (Vec<_>, Vec<_>) = rest.into_iter().partition(wasm::is_wasm);
        let restcache = RestCache::of(&load);
        let rows: Vec<Row> = load.into_iter().map(Row::of).collect();
        let headline = headline(&rows);
        let torn_last_line = results.torn_last_line;
        let (formats, parse, realtime) = (Formats::of(harness), Parse::of(parsed), Realtime::of(timed));
        let wasm = Wasm::of(kernels);
        Report {
            run: results.run,
            suite,
            rows,
            formats,
            parse,
            realtime,
            wasm,
            restcache,
            claims,
            headline,
            torn_last_line,
        }
    }

    /// The run did not finish, a measurement line was cut off, or the suite could not be read.
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
        out
    }

    /// Whether `section` is shown. The load sections are left out only when harness rows are all
    /// there is, so an empty run still says that nothing was measured.
    pub fn shows(&self, section: Section) -> bool {
        match section {
            Section::Load => {
                !self.rows.is_empty()
                    || (self.formats.is_empty()
                        && self.parse.is_empty()
                        && self.realtime.is_empty()
                        && self.wasm.is_empty())
            }
            Section::Formats => !self.formats.is_empty(),
            Section::Parse => !self.parse.is_empty(),
            Section::Realtime => !self.realtime.is_empty(),
            Section::Wasm => !self.wasm.is_empty(),
            Section::Steps => self.rows.iter().any(|r| !r.summary.steps.is_empty()),
            Section::RestCache => !self.restcache.is_empty(),
        }
    }

    /// Load rows and format rows with a failed repeat.
    pub fn failed_scenarios(&self) -> usize {
        let formats = self.formats.datasets.iter().flat_map(|d| &d.rows).filter(|r| r.failed()).count();
        self.failed().count()
            + formats
            + self.parse.rows().filter(|r| r.failed()).count()
            + self.realtime.failed().count()
            + self.wasm.failed().count()
    }

    /// Rows with a failed repeat.
    pub fn failed(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.failed())
    }

    /// Rows carrying `flag`.
    pub fn flagged(&self, flag: Flag) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(move |r| r.flags.contains(&flag))
    }

    /// The suite's description, if the suite could be read.
    pub fn description(&self) -> Option<&str> {
        self.suite.as_ref().ok().map(|s| s.description.as_str()).filter(|d| !d.is_empty())
    }

    /// A group's heading: `Payload 1KB`, or for scenarios without a payload label `All scenarios`
    /// (when they are the only group) or `No payload label`.
    pub fn group_title(&self, g: &Group) -> String {
        match &g.payload {
            Some(p) => format!("Payload {p}"),
            None if self.headline.len() == 1 => "All scenarios".into(),
            None => "No payload label".into(),
        }
    }

    /// The headline sentence comparing a group's fastest scenario with the runner-up; `code`
    /// renders a scenario id (escaped and quoted as the output needs).
    pub fn versus(&self, g: &Group, code: impl Fn(&str) -> String) -> String {
        let Some(next) = &g.next else { return "The only scenario measured in this group.".into() };
        let other = &self.rows[next.row];
        let other_rps = other.rps().map_or(String::new(), |s| format::metric_value("rps", s.median));
        let r = next.ratio;
        match r.interval {
            None => format!(
                "{} the next, {} ({other_rps}); one repeat, so no interval: treat the gap as unproven.",
                format::ratio(r.value),
                code(other.id())
            ),
            Some((lo, hi)) if r.above_one() => format!(
                "{} the next, {} ({other_rps}); 95 % interval of the ratio {}.",
                format::ratio(r.value),
                code(other.id()),
                format::interval(lo, hi, format::ratio)
            ),
            Some((lo, hi)) => format!(
                "Not distinguishable from {} ({other_rps}): the ratio {} has a 95 % interval {} that includes 1×.",
                code(other.id()),
                format::ratio(r.value),
                format::interval(lo, hi, format::ratio)
            ),
        }
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

impl Row {
    fn of(summary: ScenarioSummary) -> Row {
        let transport = transport(&summary);
        let rate_rps = summary.params.get("rate").and_then(|v| v.as_f64());
        let mut flags = Vec::new();
        if summary.error.is_some() {
            flags.push(Flag::Failed);
        }
        if summary.get("rps").is_some_and(Summary::noisy) {
            flags.push(Flag::Noisy);
        }
        let cpu = |m: &str| summary.get(m).map(|s| s.median);
        let instrument_heavier = matches!((cpu("instrument_cpu_s"), cpu("cpu_s")), (Some(i), Some(s)) if i > s);
        if summary.instrument_bound || instrument_heavier {
            flags.push(Flag::InstrumentBound);
        }
        Row { summary, transport, rate_rps, flags }
    }

    /// The scenario id.
    pub fn id(&self) -> &str {
        &self.summary.scenario
    }

    /// Summary of a metric over the completed repeats (ids of `SUMMARY_METRICS`).
    pub fn metric(&self, name: &str) -> Option<&Summary> {
        self.summary.get(name)
    }

    /// Summary of req/s; `None` when no repeat completed.
    pub fn rps(&self) -> Option<&Summary> {
        self.metric("rps")
    }

    /// True when a repeat failed (the error is in `summary.error`).
    pub fn failed(&self) -> bool {
        self.summary.error.is_some()
    }

    /// The `payload` label (`1KB`, `1MB`), if any.
    pub fn payload(&self) -> Option<&str> {
        self.summary.param("payload")
    }

    /// The driver (`http1`, `http2`) or, for in-process harnesses, the format.
    pub fn protocol(&self) -> &str {
        self.summary.protocol.as_deref().or(self.summary.format.as_deref()).unwrap_or("")
    }

    /// `connections×streams`, e.g. `64×1`; `None` when the scenario records neither.
    pub fn concurrency(&self) -> Option<String> {
        let p = |k: &str| self.summary.params.get(k).and_then(|v| v.as_u64());
        let c = p("connections")?;
        Some(format!("{c}×{}", p("streams").unwrap_or(1)))
    }

    /// Wire bytes per call (both directions) over the payload bytes one call carries: what the
    /// protocol's envelope, headers and framing add. `None` without a `payload_bytes` parameter.
    pub fn envelope_overhead(&self) -> Option<f64> {
        let payload = self.summary.params.get("payload_bytes").and_then(|v| v.as_f64()).filter(|&p| p > 0.0)?;
        Some(self.metric("wire_bytes_per_call")?.median / payload)
    }

    /// Median messages/s of a streaming row (more than one message per call); `None` for rows
    /// whose calls carry one message each, where it would repeat req/s.
    pub fn messages_per_s(&self) -> Option<f64> {
        let messages = self.metric("messages_per_s")?.median;
        (messages > self.rps()?.median * 1.001).then_some(messages)
    }

    /// Errors summed over the repeats that completed.
    pub fn errors_total(&self) -> Option<f64> {
        self.metric("errors").map(|s| (s.mean * s.n as f64).round())
    }
}

fn transport(s: &ScenarioSummary) -> String {
    if let Some(t) = s.param("transport") {
        return t.to_string();
    }
    let tls = s.params.get("tls").and_then(|v| v.as_bool()).unwrap_or(false);
    match (s.protocol.as_deref(), tls) {
        (Some("http1"), false) => "h1".into(),
        (Some("http1"), true) => "h1+tls".into(),
        (Some("http2"), false) => "h2c".into(),
        (Some("http2"), true) => "h2+tls".into(),
        (Some(p), true) => format!("{p}+tls"),
        (Some(p), false) => p.to_string(),
        (None, _) => String::new(),
    }
}

/// Per payload group (in order of first appearance), the closed-model scenario with the highest
/// median req/s and its ratio over the runner-up. Scenarios without a req/s median (all repeats
/// failed) are left out; the failures are called out separately.
/// The distinct payload labels of `rows`, in the order they first appear: the groups of the
/// headline and of the charts.
pub fn payload_groups<'a>(rows: impl IntoIterator<Item = &'a Row>) -> Vec<Option<&'a str>> {
    let mut groups: Vec<Option<&str>> = Vec::new();
    for r in rows {
        if !groups.contains(&r.payload()) {
            groups.push(r.payload());
        }
    }
    groups
}

fn headline(rows: &[Row]) -> Vec<Group> {
    payload_groups(rows)
        .into_iter()
        .filter_map(|key| {
            // Open-model req/s is the offered rate, not a capacity: only closed-model rows compete.
            let mut ranked: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i].payload() == key && rows[i].rps().is_some() && rows[i].rate_rps.is_none())
                .collect();
            let median = |i: usize| rows[i].rps().map_or(0.0, |s| s.median);
            ranked.sort_by(|&a, &b| median(b).total_cmp(&median(a)));
            let fastest = *ranked.first()?;
            let next = ranked.get(1).and_then(|&row| {
                let ratio = Ratio::of(rows[fastest].rps()?, rows[row].rps()?)?;
                Some(RunnerUp { row, ratio })
            });
            Some(Group { payload: key.map(str::to_string), fastest, next })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, Spec};

    #[test]
    fn rows_flags_and_headline_follow_the_measurements() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let r = Report::read(dir.path()).unwrap();
        let ids: Vec<&str> = r.rows.iter().map(Row::id).collect();
        assert_eq!(ids, ["h2c-1kb", "h2c-1mb", "h1-1kb", "broken"]);
        assert_eq!(r.rows[0].transport, "h2c");
        assert_eq!(r.rows[0].concurrency().as_deref(), Some("16×8"));
        assert_eq!(r.rows[3].flags, [Flag::Failed]);
        assert!(r.rows[2].flags.contains(&Flag::Noisy), "{:?}", r.rows[2].flags);
        assert!(r.rows[1].flags.contains(&Flag::InstrumentBound));

        // 1KB: h2c-1kb (~20,000) beats h1-1kb (~10,000); 1MB has one scenario; broken has no data.
        let groups: Vec<(Option<&str>, &str)> =
            r.headline.iter().map(|g| (g.payload.as_deref(), r.rows[g.fastest].id())).collect();
        assert_eq!(groups, [(Some("1KB"), "h2c-1kb"), (Some("1MB"), "h2c-1mb")]);
        let next = r.headline[0].next.as_ref().unwrap();
        assert_eq!(r.rows[next.row].id(), "h1-1kb");
        assert!((next.ratio.value - 2.0).abs() < 0.1, "{:?}", next.ratio);
        assert!(r.headline[1].next.is_none());
        assert_eq!(r.claims.len(), 1);
    }

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
    fn streaming_rows_show_messages_per_second_and_others_a_dash() {
        let dir = tempfile::tempdir().unwrap();
        let stream = Spec { messages_per_call: 100, ..Spec::new("stream", "http2", "1KB", &[300.0, 310.0, 290.0]) };
        fixture::write(dir.path(), &[stream, Spec::new("unary", "http2", "1KB", &[900.0, 910.0, 890.0])], "");
        let r = Report::of(read_results(dir.path()).unwrap());
        let row = |id: &str| r.rows.iter().find(|row| row.id() == id).unwrap();
        assert_eq!(row("stream").messages_per_s(), Some(30_000.0));
        assert_eq!(row("unary").messages_per_s(), None, "one message per call repeats req/s");
        let html = crate::html::page(&r, &[]);
        assert!(html.contains("<th class=\"num\">Messages/s</th>") && html.contains(">30,000<"), "messages column");
        // Little's law in the fixture: 128 in flight at 300 calls/s is a 427 ms median; the
        // first message arrives at a fifth of it.
        assert!(html.contains("<div class=\"sub\">first 85.3 ms</div>"), "time to first message");
        let md = crate::markdown::summary(&r);
        assert!(md.contains("| 30,000 (first 85.3 ms) |"), "{md}");
        assert_eq!(row("unary").metric("first_message_p50_us"), None);
    }

    #[test]
    fn envelope_overhead_is_wire_bytes_per_call_over_payload_bytes() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let r = Report::of(read_results(dir.path()).unwrap());
        let row = |id: &str| r.rows.iter().find(|row| row.id() == id).unwrap();
        // The fixture sends 100 bytes and receives the payload per call.
        let kb = row("h2c-1kb").envelope_overhead().unwrap();
        assert!((kb - 1124.0 / 1024.0).abs() < 1e-9, "{kb}");
        let mb = row("h2c-1mb").envelope_overhead().unwrap();
        assert!((mb - (1_048_576.0 + 100.0) / 1_048_576.0).abs() < 1e-9, "{mb}");
        assert_eq!(row("broken").envelope_overhead(), None, "no repeat, no bytes");
        let html = crate::html::page(&r, &[]);
        assert!(html.contains("<th class=\"num\">Envelope ×</th>") && html.contains(">1.098×<"), "envelope column");
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
}
