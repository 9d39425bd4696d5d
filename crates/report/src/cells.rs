//! The scenarios and formats tables as formatted text, one home for their columns and cell
//! formats so the HTML and Markdown tables say the same thing. The text is not escaped: each
//! output escapes it.

use wirebench_core::stats::Summary;

use crate::format::{self, NONE};
use crate::formats::{FormatRow, ALLOCS, ALLOC_BYTES, DESERIALIZE, SERIALIZE, SIZES};
use crate::model::Row;

/// Column headers, and whether the column is numeric (right-aligned).
pub const COLUMNS: &[(&str, bool)] = &[
    ("Scenario", false),
    ("Subject", false),
    ("Protocol", false),
    ("Transport", false),
    ("Conn×streams", true),
    ("req/s (median, 95 % CI)", true),
    ("Messages/s", true),
    ("p50", true),
    ("p90", true),
    ("p99", true),
    ("p99.9", true),
    ("max", true),
    ("Errors", true),
    ("Wire B/call", true),
    ("Envelope ×", true),
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
    /// Messages per second of a streaming row (`—` when each call carries one message).
    pub messages: String,
    /// Under it, for calls answered by a stream: `first 412 µs` (median time to first message).
    pub first_message: String,
    pub latency: [String; 5],
    /// Open-model rows: under p50 and p99, the latency from the actual send time
    /// (`uncorrected 1.2 ms`); empty elsewhere.
    pub uncorrected: [String; 5],
    pub errors: String,
    /// Bytes on the wire per call, both directions.
    pub wire_bytes: String,
    /// Wire bytes per call ÷ payload bytes per call.
    pub envelope: String,
    pub cpu_s: String,
    pub rss_mib: String,
    /// Under CPU and RSS, for subjects with services (a database, a broker): their share,
    /// `services 1.21` / `services 782`; empty otherwise.
    pub service_cpu_s: String,
    pub service_rss_mib: String,
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
            messages: r.messages_per_s().map_or(NONE.to_string(), format::thousands),
            first_message: r
                .metric("first_message_p50_us")
                .map_or(String::new(), |s| format!("first {}", format::latency_us(s.median))),
            latency: LATENCY_METRICS.map(|m| median(m, format::latency_us)),
            uncorrected: LATENCY_METRICS.map(|m| {
                let u = r.metric(&format!("uncorrected_{m}"));
                u.map_or(String::new(), |s| format!("uncorrected {}", format::latency_us(s.median)))
            }),
            errors: r.errors_total().map_or(NONE.to_string(), format::thousands),
            wire_bytes: median("wire_bytes_per_call", format::thousands),
            envelope: r.envelope_overhead().map_or(NONE.to_string(), |x| format!("{x:.3}×")),
            cpu_s: median("cpu_s", format::sig3),
            rss_mib: median("rss_kb", format::mib_from_kib),
            service_cpu_s: r
                .metric("service_cpu_s")
                .map_or(String::new(), |s| format!("services {}", format::sig3(s.median))),
            service_rss_mib: r
                .metric("service_rss_kb")
                .map_or(String::new(), |s| format!("services {}", format::mib_from_kib(s.median))),
            instrument_cpu_s: median("instrument_cpu_s", format::sig3),
            repeats_note: r.failed().then(|| format!("{} of {repeats} repeats completed", r.summary.ok_repeats)),
        }
    }
}

/// What the table's numbers are, for the note under it.
pub const TABLE_NOTE: &str = "Latencies are medians over repeats of each repeat's percentile. \
    Errors are summed over the repeats. CPU and memory are medians. Wire B/call: bytes that crossed \
    the socket in both directions (TLS records, HTTP framing and connection setup included) per \
    completed call; Envelope ×: that over the payload bytes one call carries, so 1.05× means the \
    protocol added 5 % to the payload. Messages/s: for streaming rows, the messages their calls \
    carried (received, sent, or echoed pairs); req/s counts calls. Under it, for calls answered by \
    a stream, the median time from sending the call to its first message. Open-model rows time \
    each request from its intended send time (response time, corrected for coordinated \
    omission); under p50 and p99 they also show it from the actual send time (uncorrected: the \
    service time alone). Subject CPU and RSS are the server side's: the subject and the services \
    it uses (a database, a broker), every process of each; under them, the services' share.";

/// Columns of the formats table before the published ones, and whether each is numeric.
pub const FORMAT_COLUMNS: &[(&str, bool)] = &[
    ("Format", false),
    ("Language", false),
    ("Library", false),
    ("Size (bytes)", true),
    ("gzip (bytes)", true),
    ("zstd (bytes)", true),
    ("Serialize ms (median, 95 % CI)", true),
    ("Deserialize ms (median, 95 % CI)", true),
    (TOTAL_LABEL, true),
    ("× fastest", true),
    (ALLOC_LABEL, true),
];

/// Header of the allocation column, which carries `ALLOC_TITLE`.
pub const ALLOC_LABEL: &str = "Allocated per op (ser / de)";
pub const ALLOC_TITLE: &str = "Heap bytes (and allocation calls) of one encode / one decode, as the language's \
    runtime counts them (Rust: a counting allocator; Go: runtime.MemStats; Java: JMH's gc profiler, bytes only). \
    Not comparable across languages with garbage collectors and without.";

/// Header of the total column, which carries `TOTAL_TITLE`.
pub const TOTAL_LABEL: &str = "Total ms (ser + de)";

/// The published columns, shown when some row of the run has the study's numbers.
pub const PUBLISHED_COLUMNS: &[(&str, bool)] =
    &[("Published total ms", true), ("Published bytes", true), ("Size ÷ published", true)];

/// The last column of the formats table.
pub const FLAGS_COLUMN: (&str, bool) = ("Flags", false);

/// How the total and its interval are made, for the total column's `title`.
pub const TOTAL_TITLE: &str = "Serialize median + deserialize median. Interval: the sum of the two \
    lower bounds to the sum of the two upper bounds of their 95 % CIs (conservative).";

/// What the formats table's numbers are, for the note under it.
pub const FORMATS_NOTE: &str = "Times are one encode or one decode of the whole dataset: each repeat \
    reports the median of its samples; the table shows the median over repeats and the 95 % CI of \
    their mean. × fastest divides a row's total by the fastest total of the same dataset and \
    language. The total is the serialize median plus the deserialize median; its interval runs from \
    the sum of the two lower bounds to the sum of the two upper bounds. Sizes are the encoding and its \
    gzip and zstd compression; KB = 1,000 bytes.";

/// One formats row, formatted.
pub struct FormatCells {
    pub scenario: String,
    pub format: String,
    pub lang: String,
    pub library: String,
    /// Encoding, gzip, zstd: bytes with separators.
    pub sizes: [String; 3],
    /// Under each size: `527 KB`, then the compressed sizes' share of the encoding (`25.3 % of raw`).
    pub size_notes: [String; 3],
    pub serialize: String,
    /// `0.741–0.755`, `n = 1`, or empty when not measured.
    pub serialize_ci: String,
    pub deserialize: String,
    pub deserialize_ci: String,
    pub total: String,
    pub total_ci: String,
    /// `1.00×`.
    pub relative: String,
    /// `262 KB / 327 KB`, or `—` when the harness does not count allocations.
    pub allocated: String,
    /// `11 / 6,011 allocations`, or empty when not counted.
    pub allocations: String,
    /// The study's total, bytes and our size ÷ its size: `—` when the study measured this dataset
    /// and language but not this format, empty when it did not measure them.
    pub published_total: String,
    pub published_bytes: String,
    pub size_vs_published: String,
    /// `0 of 3 repeats completed` for failed rows.
    pub repeats_note: Option<String>,
}

impl FormatCells {
    /// Formats `r`; `repeats` is the run's repeat count, for failed rows' progress.
    pub fn of(r: &FormatRow, repeats: u32) -> FormatCells {
        let ms = |m: &str| r.metric(m).map_or((NONE.to_string(), String::new()), ms_cells);
        let size = |i: usize| r.metric(SIZES[i]).map(|s| s.median);
        let raw = size(0);
        let size_notes = [0, 1, 2].map(|i| match (i, size(i), raw) {
            (0, Some(b), _) => format::kilobytes(b),
            (_, Some(b), Some(raw)) if raw > 0.0 => format!("{} of raw", format::percent(b / raw)),
            _ => String::new(),
        });
        let (serialize, serialize_ci) = ms(SERIALIZE);
        let (deserialize, deserialize_ci) = ms(DESERIALIZE);
        let (total, total_ci) = match r.total {
            Some(t) => {
                let n = [SERIALIZE, DESERIALIZE].iter().filter_map(|m| r.metric(m)).map(|s| s.n).min().unwrap_or(0);
                let ci =
                    t.interval_ns.map_or(format!("n = {n}"), |(lo, hi)| format::interval(lo, hi, format::ms_from_ns));
                (format::ms_from_ns(t.median_ns), ci)
            }
            None => (NONE.to_string(), String::new()),
        };
        let published = r.published;
        // A dash where the study measured this dataset and language but not this format; nothing
        // where it has nothing to compare with.
        let missing = if r.studied() { NONE } else { "" };
        FormatCells {
            scenario: r.summary.scenario.clone(),
            format: r.format().to_string(),
            lang: r.lang().to_string(),
            library: r.library().unwrap_or(NONE).to_string(),
            sizes: [0, 1, 2].map(|i| size(i).map_or(NONE.to_string(), format::thousands)),
            size_notes,
            serialize,
            serialize_ci,
            deserialize,
            deserialize_ci,
            total,
            total_ci,
            relative: r.relative.map_or(NONE.to_string(), format::ratio),
            allocated: pair(r, ALLOC_BYTES, format::kilobytes).unwrap_or_else(|| NONE.to_string()),
            allocations: pair(r, ALLOCS, format::thousands).map_or(String::new(), |p| format!("{p} allocations")),
            published_total: published.map_or(missing.to_string(), |p| format!("{:.3}", p.total_ms)),
            published_bytes: published.map_or(missing.to_string(), |p| format::thousands(p.size_bytes as f64)),
            size_vs_published: r.size_vs_published().map_or(missing.to_string(), format::ratio),
            repeats_note: r.failed().then(|| format!("{} of {repeats} repeats completed", r.summary.ok_repeats)),
        }
    }
}

/// `ser / de` of a metric pair, `—` for a missing half; `None` when both are missing.
fn pair(r: &FormatRow, metrics: [&str; 2], show: fn(f64) -> String) -> Option<String> {
    let [ser, de] = metrics.map(|m| r.metric(m).map(|s| show(s.median)));
    (ser.is_some() || de.is_some())
        .then(|| format!("{} / {}", ser.unwrap_or_else(|| NONE.to_string()), de.unwrap_or_else(|| NONE.to_string())))
}

/// A time summary in ns as ms cells: the median, and its interval or `n = 1`.
fn ms_cells(s: &Summary) -> (String, String) {
    let ci = s.ci.map_or(format!("n = {}", s.n), |(lo, hi)| format::interval(lo, hi, format::ms_from_ns));
    (format::ms_from_ns(s.median), ci)
}
