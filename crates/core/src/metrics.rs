//! Every named metric of a row, in one table (`METRICS`): its id, its unit, how a measurement
//! gives it, whether a claim or a study's table may name it, and whether it is a value of each
//! repeat or the spread of another metric across repeats. The summaries compute each row's
//! metrics from it, the suite loader checks claims' metric names against it, and the report
//! prints values with its units. Adding a metric is one row here plus the code that measures it.

use crate::schema::Measurement;

/// A metric's unit, as the report prints its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Answered requests per second: `12,345 req/s`.
    RequestsPerS,
    /// Other things per second (messages, iterations): a number.
    PerS,
    /// Microseconds: `850 µs`, `1.25 ms`.
    Micros,
    /// Nanoseconds: `512 ns`.
    Nanos,
    /// Milliseconds, from a browser's clock: a number.
    Millis,
    /// Seconds: `0.841 s`.
    Seconds,
    /// Bytes: `2.00 KiB`.
    Bytes,
    /// Kibibytes of memory: `20.0 MiB`.
    KiB,
    /// A factor: `3.46×`.
    Factor,
    /// A share of a whole: `12.3 %`.
    Share,
    /// A count: a number.
    Count,
}

/// How a row's measurement gives a metric.
#[derive(Clone, Copy)]
pub enum Read {
    /// A value of each measurement line (each repeat).
    Line(fn(&Measurement) -> Option<f64>),
    /// A harness's own key in the line's `metrics` (`size_gzip_bytes`, `parse_us`).
    Extra,
    /// The spread of another metric across a row's repeats (its geometric standard deviation):
    /// one value per row, with an interval from the repeats (`Summary::spread_at`).
    SpreadOf(&'static str, Spread),
}

/// How a spread across repeats is estimated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// From the standard deviation of the logs: every repeat counts, one outlier most of all.
    Sd,
    /// From the interquartile range of the logs (÷ 1.349, the normal's): one outlier repeat of
    /// ten cannot decide it (`Summary::robust_spread_at`).
    Quartiles,
}

/// One named metric.
#[derive(Clone, Copy)]
pub struct Metric {
    pub id: &'static str,
    pub unit: Unit,
    pub read: Read,
    /// A claim or a study's table (`[[published]]`) may name it.
    pub claim: bool,
    /// The same input gives the same value on every run (an encoding's length): no noise between
    /// runs, so a claim on it has no equivalence band (`claims::equivalence_band`).
    pub exact: bool,
}

impl std::fmt::Debug for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:?})", self.id, self.unit)
    }
}

const fn line(id: &'static str, unit: Unit, read: fn(&Measurement) -> Option<f64>, claim: bool) -> Metric {
    Metric { id, unit, read: Read::Line(read), claim, exact: false }
}

const fn extra(id: &'static str, unit: Unit, claim: bool) -> Metric {
    Metric { id, unit, read: Read::Extra, claim, exact: false }
}

impl Metric {
    const fn exact(self) -> Metric {
        Metric { exact: true, ..self }
    }
}

use Unit::*;

/// Every metric, in report order. Claims may name those marked `claim`; a claim naming another
/// id is refused when its suite loads, with this list's claim metrics in this order.
pub const METRICS: &[Metric] = &[
    line("rps", RequestsPerS, |m| m.metrics.rps, true),
    line("messages_per_s", PerS, |m| m.metrics.messages_per_s, true),
    line("first_message_p50_us", Micros, |m| Some(m.metrics.first_message_us.as_ref()?.p50 as f64), true),
    line("first_message_p99_us", Micros, |m| Some(m.metrics.first_message_us.as_ref()?.p99 as f64), false),
    // Both directions, handshakes included, over the calls that completed.
    line(
        "wire_bytes_per_call",
        Bytes,
        |m| {
            let x = &m.metrics;
            match (x.bytes_sent, x.bytes_received, x.requests) {
                (Some(s), Some(r), Some(n)) if n > 0 => Some((s + r) as f64 / n as f64),
                _ => None,
            }
        },
        true,
    ),
    line("iterations_per_s", PerS, |m| m.metrics.iterations_per_s, true),
    line("mean_us", Micros, |m| Some(m.metrics.latency_us.as_ref()?.mean), true),
    line("p50_us", Micros, |m| Some(m.metrics.latency_us.as_ref()?.p50 as f64), true),
    line("p90_us", Micros, |m| Some(m.metrics.latency_us.as_ref()?.p90 as f64), false),
    line("p99_us", Micros, |m| Some(m.metrics.latency_us.as_ref()?.p99 as f64), true),
    line("p999_us", Micros, |m| Some(m.metrics.latency_us.as_ref()?.p999 as f64), false),
    line("max_us", Micros, |m| Some(m.metrics.latency_us.as_ref()?.max as f64), false),
    // How uneven the answers' times were: the slowest 1 % against the median.
    line(
        "tail_ratio",
        Factor,
        |m| m.metrics.latency_us.as_ref().filter(|l| l.p50 > 0).map(|l| l.p99 as f64 / l.p50 as f64),
        true,
    ),
    line("rps_cv", Share, |m| m.metrics.rps_cv, true),
    line("uncorrected_p50_us", Micros, |m| Some(m.metrics.latency_uncorrected_us.as_ref()?.p50 as f64), false),
    line("uncorrected_p99_us", Micros, |m| Some(m.metrics.latency_uncorrected_us.as_ref()?.p99 as f64), false),
    line("errors", Count, |m| m.metrics.errors.map(|v| v as f64), false),
    line("duration_s", Seconds, |m| m.metrics.duration_s, true),
    // "About 90 ms, sometimes 15 ms": how much a row's repeats differ (METHODOLOGY, "Spread
    // across repeats").
    Metric {
        id: "duration_gsd",
        unit: Factor,
        read: Read::SpreadOf("duration_s", Spread::Sd),
        claim: true,
        exact: false,
    },
    // The same spread from the middle half of the repeats: the previous realtime run confirmed
    // "spreads widely" on one repeat of 13.5 ms among nine of 5.0-7.5 ms.
    Metric {
        id: "duration_rgsd",
        unit: Factor,
        read: Read::SpreadOf("duration_s", Spread::Quartiles),
        claim: true,
        exact: false,
    },
    line("cpu_s", Seconds, |m| m.metrics.cpu_s, true),
    line("rss_kb", KiB, |m| m.metrics.rss_kb.map(|v| v as f64), true),
    line("service_cpu_s", Seconds, |m| m.metrics.service_cpu_s, false),
    line("service_rss_kb", KiB, |m| m.metrics.service_rss_kb.map(|v| v as f64), false),
    line("instrument_cpu_s", Seconds, |m| m.metrics.instrument_cpu_s, false),
    // What processes outside the run took of its CPUs during a repeat (`contention`).
    line("foreign_cpu_s", Seconds, |m| m.metrics.foreign_cpu_s, false),
    line("foreign_share", Share, |m| m.metrics.foreign_share, false),
    line("steal_cpu_s", Seconds, |m| m.metrics.steal_cpu_s, false),
    line("serialize_ns", Nanos, |m| m.metrics.serialize_ns, true),
    line("deserialize_ns", Nanos, |m| m.metrics.deserialize_ns, true),
    // One encode plus one decode in the same repeat: the study's "total processing time". Summed
    // per repeat, so its interval is the repeats' own, not the sum of two intervals.
    line("serde_total_ns", Nanos, |m| Some(m.metrics.serialize_ns? + m.metrics.deserialize_ns?), true),
    // An encoding's length, and its length compressed: fixed by the data and the library.
    line("size_bytes", Bytes, |m| m.metrics.size_bytes.map(|v| v as f64), true).exact(),
    extra("size_gzip_bytes", Bytes, true).exact(),
    extra("size_zstd_bytes", Bytes, false).exact(),
    extra("serialize_alloc_bytes", Bytes, false),
    extra("serialize_allocs", Count, false),
    extra("deserialize_alloc_bytes", Bytes, false),
    extra("deserialize_allocs", Count, false),
    // A warm-up repeated until steady (`warmup_until_steady`): its windows, and the last one's
    // req/s over the first's (how much the subject sped up while warming).
    extra("warmup_windows", Count, false),
    extra("warmup_gain", Factor, false),
    // The probe after a repeat the CPU test flagged (`bottleneck`): the capped slices' bytes over
    // the free ones', its 95 % interval, and the share of the capped slices' time the load slept.
    extra("capped_ratio", Factor, false),
    extra("capped_lo", Factor, false),
    extra("capped_hi", Factor, false),
    extra("capped_paused", Share, false),
    extra("parse_us", Micros, true),
    extra("total_us", Micros, true),
    extra("io_us", Micros, false),
    extra("study_us", Micros, false),
    extra("provider_cpu_s", Seconds, false),
    extra("provider_rss_kb", KiB, false),
    // The wasm lab: a kernel's time, the copies into and out of wasm memory around it, and a
    // Web Worker's round trip.
    extra("kernel_ms", Millis, true),
    extra("copy_in_ms", Millis, false),
    extra("copy_out_ms", Millis, false),
    extra("roundtrip_ms", Millis, false),
];

/// The metric of this id.
pub fn find(id: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.id == id)
}

/// The ids a claim may name, in table order.
pub fn claim_ids() -> impl Iterator<Item = &'static str> {
    METRICS.iter().filter(|m| m.claim).map(|m| m.id)
}

/// A metric's value in one measurement line: a line's metric, or a harness's own key (any key of
/// the line's `metrics`, named in the table or not); `None` for a spread, which is a row's.
pub fn value(m: &Measurement, id: &str) -> Option<f64> {
    match find(id).map(|metric| metric.read) {
        Some(Read::Line(read)) => read(m),
        Some(Read::SpreadOf(..)) => None,
        Some(Read::Extra) | None => m.metrics.extra.get(id).copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_spreads_name_a_line_metric() {
        for (i, m) in METRICS.iter().enumerate() {
            assert!(METRICS[..i].iter().all(|o| o.id != m.id), "{} twice", m.id);
            if let Read::SpreadOf(of, _) = m.read {
                assert!(matches!(find(of).map(|o| o.read), Some(Read::Line(_))), "{}: {of}", m.id);
            }
        }
    }

    #[test]
    fn a_line_gives_its_metrics_and_a_harness_its_own_keys() {
        let line = r#"{"schema_version": 1, "run_id": "r", "suite": "x", "scenario": "s", "subject": "y",
            "lang": "rust", "repeat": 1, "status": "ok",
            "metrics": {"requests": 4, "bytes_sent": 100, "bytes_received": 300, "rps": 2.0,
            "latency_us": {"min": 1, "p50": 10, "p90": 20, "p99": 40, "p999": 50, "max": 60, "mean": 12.5},
            "parse_us": 7.5, "colour": 3.0}}"#;
        let m: Measurement = serde_json::from_str(line).unwrap();
        assert_eq!(value(&m, "rps"), Some(2.0));
        assert_eq!(value(&m, "wire_bytes_per_call"), Some(100.0));
        assert_eq!(value(&m, "tail_ratio"), Some(4.0));
        assert_eq!(value(&m, "parse_us"), Some(7.5));
        assert_eq!(value(&m, "colour"), Some(3.0), "a harness's key the table does not name");
        assert_eq!(value(&m, "duration_gsd"), None, "a spread is a row's, not a line's");
        assert_eq!(value(&m, "cpu_s"), None);
    }
}
