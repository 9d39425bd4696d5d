//! The scenarios table as formatted text, one home for its columns and cell formats so the HTML
//! and Markdown tables say the same thing. The text is not escaped: each output escapes it.

use crate::format::{self, NONE};
use crate::model::Row;

/// Column headers, and whether the column is numeric (right-aligned).
pub const COLUMNS: &[(&str, bool)] = &[
    ("Scenario", false),
    ("Subject", false),
    ("Protocol", false),
    ("Transport", false),
    ("Conn×streams", true),
    ("req/s (median, 95 % CI)", true),
    ("p50", true),
    ("p90", true),
    ("p99", true),
    ("p99.9", true),
    ("max", true),
    ("Errors", true),
    ("Subject CPU s", true),
    ("RSS MiB", true),
    ("Instrument CPU s", true),
    ("Flags", false),
];

/// Latency metrics of the table, in column order.
pub const LATENCY_METRICS: [&str; 5] = ["p50_us", "p90_us", "p99_us", "p999_us", "max_us"];

/// One scenario row, formatted.
pub struct Cells {
    pub id: String,
    pub subject: String,
    pub lang: String,
    pub protocol: String,
    pub transport: String,
    /// `16×8`.
    pub concurrency: String,
    /// `closed` or `open 20,000/s`.
    pub model: String,
    pub rps: String,
    /// `19,006–20,994`, or `n = 1` without an interval; empty without req/s.
    pub rps_ci: String,
    pub latency: [String; 5],
    pub errors: String,
    pub cpu_s: String,
    pub rss_mib: String,
    pub instrument_cpu_s: String,
    /// `failed 0 of 3 repeats completed` under a failed row's badge.
    pub repeats_note: Option<String>,
}

impl Cells {
    /// Formats `r`; `repeats` is the run's repeat count, for failed rows' progress.
    pub fn of(r: &Row, repeats: u32) -> Cells {
        let median = |m: &str, f: fn(f64) -> String| r.metric(m).map_or(NONE.to_string(), |s| f(s.median));
        let (rps, rps_ci) = match r.rps() {
            Some(s) => (
                format::thousands(s.median),
                s.ci.map_or(format!("n = {}", s.n), |(lo, hi)| format::interval(lo, hi, format::thousands)),
            ),
            None => (NONE.to_string(), String::new()),
        };
        Cells {
            id: r.id().to_string(),
            subject: r.summary.subject.clone(),
            lang: r.summary.lang.clone(),
            protocol: r.protocol().to_string(),
            transport: r.transport.clone(),
            concurrency: r.concurrency().unwrap_or_else(|| NONE.to_string()),
            model: r.rate_rps.map_or("closed".to_string(), |rate| format!("open {}/s", format::thousands(rate))),
            rps,
            rps_ci,
            latency: LATENCY_METRICS.map(|m| median(m, format::latency_us)),
            errors: r.errors_total().map_or(NONE.to_string(), format::thousands),
            cpu_s: median("cpu_s", format::sig3),
            rss_mib: median("rss_kb", format::mib_from_kib),
            instrument_cpu_s: median("instrument_cpu_s", format::sig3),
            repeats_note: r.failed().then(|| format!("{} of {repeats} repeats completed", r.summary.ok_repeats)),
        }
    }
}

/// What the table's numbers are, for the note under it.
pub const TABLE_NOTE: &str = "Latencies are medians over repeats of each repeat's percentile. \
    Errors are summed over the repeats. CPU and memory are medians.";
