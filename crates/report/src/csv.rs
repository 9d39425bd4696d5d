//! One CSV file per table, RFC 4180 quoting (a field is quoted when it holds a comma, quote or
//! line break), lines ending in `\n`. Numbers are raw, in the units their column names say, for
//! spreadsheets and scripts; column names are the metric ids of the results schema.

use wirebench_core::suite::Op;

use crate::cells::LATENCY_METRICS;
use crate::formats::{ALLOCS, ALLOC_BYTES, DESERIALIZE, SERIALIZE, SIZES};
use crate::model::{Report, Section};
use crate::parse::{IO, PARSE, STUDY, TOTAL};
use crate::restcache::RestCache;
use crate::wasm::{self, COPY_IN, COPY_OUT, KERNEL, ROUNDTRIP};

/// Writes one table from the report.
pub type Table = fn(&Report) -> String;

/// Every table: file name, the section whose rows it holds (`None`: written for every run) and
/// the function that writes it.
pub const TABLES: &[(&str, Option<Section>, Table)] = &[
    ("scenarios.csv", Some(Section::Load), scenarios),
    ("claims.csv", None, claims),
    ("formats.csv", Some(Section::Formats), formats),
    ("parse.csv", Some(Section::Parse), parse),
    ("realtime.csv", Some(Section::Realtime), realtime),
    ("wasm.csv", Some(Section::Wasm), kernels),
    ("steps.csv", Some(Section::Steps), steps),
    ("restcache.csv", Some(Section::RestCache), restcache_cases),
];

/// The tables this report writes: those of the sections it shows.
pub fn written(report: &Report) -> impl Iterator<Item = (&'static str, Table)> + '_ {
    TABLES.iter().filter(|(_, section, _)| section.is_none_or(|s| report.shows(s))).map(|&(name, _, t)| (name, t))
}

/// Header of `scenarios.csv`.
pub const SCENARIO_COLUMNS: &[&str] = &[
    "scenario",
    "subject",
    "lang",
    "protocol",
    "transport",
    "connections",
    "streams",
    "rate_rps",
    "ok_repeats",
    "rps_median",
    "rps_ci_lo",
    "rps_ci_hi",
    "rps_cv",
    "p50_us",
    "p90_us",
    "p99_us",
    "p999_us",
    "max_us",
    "uncorrected_p50_us",
    "uncorrected_p99_us",
    "errors",
    "payload_bytes",
    "wire_bytes_per_call",
    "envelope_overhead",
    "messages_per_s",
    "first_message_p50_us",
    "first_message_p99_us",
    "cpu_s",
    "rss_kb",
    "service_cpu_s",
    "service_rss_kb",
    "instrument_cpu_s",
    "flags",
    "error",
];

/// Header of `claims.csv`.
pub const CLAIM_COLUMNS: &[&str] = &[
    "id",
    "text",
    "published",
    "published_value",
    "note",
    "metric",
    "numerator",
    "denominator",
    "versus_numerator",
    "versus_denominator",
    "op",
    "threshold",
    "value",
    "ci_lo",
    "ci_hi",
    "verdict",
    "reason",
];

/// Header of `formats.csv`: times in ns, sizes in bytes, like the measurements; `published_*`
/// are the study's numbers in the same units.
pub const FORMAT_COLUMNS: &[&str] = &[
    "dataset",
    "format",
    "lang",
    "scenario",
    "subject",
    "library",
    "objects",
    "ok_repeats",
    "size_bytes",
    "size_gzip_bytes",
    "size_zstd_bytes",
    "serialize_ns_median",
    "serialize_ns_ci_lo",
    "serialize_ns_ci_hi",
    "deserialize_ns_median",
    "deserialize_ns_ci_lo",
    "deserialize_ns_ci_hi",
    "total_ns_median",
    "total_ns_ci_lo",
    "total_ns_ci_hi",
    "relative_total",
    "serialize_alloc_bytes",
    "serialize_allocs",
    "deserialize_alloc_bytes",
    "deserialize_allocs",
    "published_total_ns",
    "published_size_bytes",
    "size_vs_published",
    "flags",
    "error",
];

/// A field, quoted when it must be.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

fn line(out: &mut String, fields: &[String]) {
    let quoted: Vec<String> = fields.iter().map(|f| field(f)).collect();
    out.push_str(&quoted.join(","));
    out.push('\n');
}

fn header(columns: &[&str]) -> String {
    columns.join(",") + "\n"
}

/// `steps.csv`: one line per step of each thread-group scenario.
pub fn steps(report: &Report) -> String {
    let mut out =
        header(&["scenario", "subject", "step", "samples", "errors", "mean_us", "p50_us", "p99_us", "max_us"]);
    for r in &report.rows {
        for st in &r.summary.steps {
            let fields = [
                r.summary.scenario.clone(),
                r.summary.subject.clone(),
                st.label.clone(),
                st.requests.to_string(),
                st.errors.to_string(),
                num(Some(st.mean_us)),
                num(Some(st.p50_us)),
                num(Some(st.p99_us)),
                num(Some(st.max_us)),
            ];
            line(&mut out, &fields);
        }
    }
    out
}

/// `scenarios.csv`: one line per scenario, medians over the repeats.
pub fn scenarios(report: &Report) -> String {
    let mut out = header(SCENARIO_COLUMNS);
    for r in &report.rows {
        let s = &r.summary;
        let median = |m: &str| num(r.metric(m).map(|s| s.median));
        let param =
            |k: &str| s.params.get(k).map_or(String::new(), |v| v.as_str().map_or(v.to_string(), str::to_string));
        let rps = r.rps();
        let mut fields = vec![
            s.scenario.clone(),
            s.subject.clone(),
            s.lang.clone(),
            r.protocol().to_string(),
            r.transport.clone(),
            param("connections"),
            param("streams"),
            num(r.rate_rps),
            s.ok_repeats.to_string(),
            num(rps.map(|s| s.median)),
            num(rps.and_then(|s| s.ci).map(|c| c.0)),
            num(rps.and_then(|s| s.ci).map(|c| c.1)),
            num(rps.and_then(|s| s.cv)),
        ];
        fields.extend(LATENCY_METRICS.iter().map(|m| median(m)));
        fields.extend([
            median("uncorrected_p50_us"),
            median("uncorrected_p99_us"),
            num(r.errors_total()),
            param("payload_bytes"),
            median("wire_bytes_per_call"),
            num(r.envelope_overhead()),
            median("messages_per_s"),
            median("first_message_p50_us"),
            median("first_message_p99_us"),
            median("cpu_s"),
            median("rss_kb"),
            median("service_cpu_s"),
            median("service_rss_kb"),
            median("instrument_cpu_s"),
            r.flags.iter().map(|f| f.id()).collect::<Vec<_>>().join(";"),
            s.error.clone().unwrap_or_default(),
        ]);
        line(&mut out, &fields);
    }
    out
}

/// Header of `parse.csv`.
pub const PARSE_COLUMNS: &[&str] = &[
    "scenario",
    "object",
    "parser",
    "provider",
    "format",
    "n",
    "batch",
    "runtime",
    "ok_repeats",
    "parse_us_median",
    "parse_us_ci_lo",
    "parse_us_ci_hi",
    "total_us_median",
    "io_us_median",
    "study_us_median",
    "size_bytes",
    "cpu_s",
    "provider_cpu_s",
    "rss_kb",
    "provider_rss_kb",
    "error",
];

/// `parse.csv`: one line per parse row, medians over the repeats.
pub fn parse(report: &Report) -> String {
    let mut out = header(PARSE_COLUMNS);
    for o in &report.parse.objects {
        for r in &o.rows {
            let median = |m: &str| num(r.metric(m).map(|s| s.median));
            let ci = r.metric(PARSE).and_then(|s| s.ci);
            line(
                &mut out,
                &[
                    r.id().to_string(),
                    o.object.clone(),
                    r.parser().to_string(),
                    r.provider().to_string(),
                    r.format().to_string(),
                    r.n().to_string(),
                    r.batch().to_string(),
                    r.runtime().unwrap_or_default().to_string(),
                    r.summary.ok_repeats.to_string(),
                    median(PARSE),
                    num(ci.map(|c| c.0)),
                    num(ci.map(|c| c.1)),
                    median(TOTAL),
                    median(IO),
                    median(STUDY),
                    median("size_bytes"),
                    median("cpu_s"),
                    median("provider_cpu_s"),
                    median("rss_kb"),
                    median("provider_rss_kb"),
                    r.summary.error.clone().unwrap_or_default(),
                ],
            );
        }
    }
    out
}

/// Header of `realtime.csv`.
pub const REALTIME_COLUMNS: &[&str] = &[
    "scenario",
    "protocol",
    "direction",
    "n",
    "headers",
    "parallel",
    "connect",
    "http",
    "tls",
    "cpu_throttle",
    "disk",
    "runtime",
    "ok_repeats",
    "duration_ms_median",
    "duration_ms_ci_lo",
    "duration_ms_ci_hi",
    "duration_ms_p95",
    "ms_per_message",
    "error",
];

/// `realtime.csv`: one line per realtime row, in the order they ran.
pub fn realtime(report: &Report) -> String {
    let mut out = header(REALTIME_COLUMNS);
    for r in &report.realtime.rows {
        let (series, condition) = (r.series(), r.condition());
        let millis = r.millis();
        let ci = millis.as_ref().and_then(|s| s.ci);
        line(
            &mut out,
            &[
                r.id().to_string(),
                r.summary.param("protocol").unwrap_or_default().to_string(),
                r.summary.param("direction").unwrap_or_default().to_string(),
                r.n().to_string(),
                r.headers().to_string(),
                series.parallel.to_string(),
                series.connect.to_string(),
                if condition.h2 { "h2" } else { "http/1.1" }.to_string(),
                condition.tls.to_string(),
                condition.cpu_throttle.to_string(),
                condition.disk.to_string(),
                r.runtime().unwrap_or_default().to_string(),
                r.summary.ok_repeats.to_string(),
                num(millis.map(|s| s.median)),
                num(ci.map(|c| c.0)),
                num(ci.map(|c| c.1)),
                num(r.p95_ms()),
                num(r.ms_per_message()),
                r.summary.error.clone().unwrap_or_default(),
            ],
        );
    }
    out
}

/// Header of `restcache.csv`.
pub const RESTCACHE_COLUMNS: &[&str] = &[
    "scenario",
    "store",
    "state",
    "group",
    "users",
    "impl",
    "ok_repeats",
    "rps_median",
    "mean_us",
    "service_cpu_us_per_request",
    "database_cpu_us_per_request",
    "service_kb",
    "database_kb",
    "error",
];

/// `restcache.csv`: one line per case of the REST service study, in the order they ran, with the
/// server side's use split between the service and the database.
pub fn restcache_cases(report: &Report) -> String {
    let mut out = header(RESTCACHE_COLUMNS);
    for s in &report.restcache.cases {
        let p = |k: &str| s.param(k).unwrap_or_default().to_string();
        let u = RestCache::use_of(s);
        line(
            &mut out,
            &[
                s.scenario.clone(),
                p("store"),
                p("state"),
                p("group"),
                p("users"),
                p("impl"),
                s.ok_repeats.to_string(),
                num(s.get("rps").map(|x| x.median)),
                num(s.get("mean_us").map(|x| x.median)),
                num(u.map(|u| u.service_cpu_us)),
                num(u.map(|u| u.database_cpu_us)),
                num(u.map(|u| u.service_kb)),
                num(u.map(|u| u.database_kb)),
                s.error.clone().unwrap_or_default(),
            ],
        );
    }
    out
}

/// Header of `wasm.csv`.
pub const WASM_COLUMNS: &[&str] = &[
    "scenario",
    "kernel",
    "impl",
    "thread",
    "crossing",
    "simd",
    "width",
    "height",
    "len",
    "runtime",
    "ok_repeats",
    "kernel_ms_median",
    "kernel_ms_ci_lo",
    "kernel_ms_ci_hi",
    "copy_in_ms",
    "copy_out_ms",
    "roundtrip_ms",
    "study_js_ms",
    "study_wasm_ms",
    "error",
];

/// `wasm.csv`: one line per kernel and way, in the order they ran, with the study's times.
pub fn kernels(report: &Report) -> String {
    let mut out = header(WASM_COLUMNS);
    for r in &report.wasm.rows {
        let p =
            |k: &str| r.summary.params.get(k).map_or(String::new(), |v| v.as_str().map_or(v.to_string(), String::from));
        let kernel = r.summary.get(KERNEL);
        let ci = kernel.and_then(|s| s.ci);
        line(
            &mut out,
            &[
                r.id().to_string(),
                r.kernel().to_string(),
                r.way().to_string(),
                r.thread().to_string(),
                p("crossing"),
                p("simd"),
                p("width"),
                p("height"),
                p("len"),
                r.runtime().unwrap_or_default().to_string(),
                r.summary.ok_repeats.to_string(),
                num(kernel.map(|s| s.median)),
                num(ci.map(|c| c.0)),
                num(ci.map(|c| c.1)),
                num(r.median(COPY_IN)),
                num(r.median(COPY_OUT)),
                num(r.median(ROUNDTRIP)),
                num(wasm::study(r.kernel(), wasm::Published::Js)),
                num(wasm::study(r.kernel(), wasm::Published::Wasm)),
                r.summary.error.clone().unwrap_or_default(),
            ],
        );
    }
    out
}

/// `claims.csv`: one line per claim with our value, interval and verdict.
pub fn claims(report: &Report) -> String {
    let mut out = header(CLAIM_COLUMNS);
    for j in &report.claims {
        let c = &j.claim;
        let op = match c.op {
            Op::Greater => ">",
            Op::Less => "<",
        };
        line(
            &mut out,
            &[
                c.id.clone(),
                c.text.clone(),
                c.published.clone(),
                num(c.published_value),
                c.note.clone().unwrap_or_default(),
                c.metric.clone(),
                c.numerator.clone(),
                c.denominator.clone().unwrap_or_default(),
                c.versus.as_ref().map(|v| v.numerator.clone()).unwrap_or_default(),
                c.versus.as_ref().map(|v| v.denominator.clone()).unwrap_or_default(),
                op.to_string(),
                c.threshold.to_string(),
                num(j.value),
                num(j.interval.map(|i| i.0)),
                num(j.interval.map(|i| i.1)),
                j.verdict.as_str().to_string(),
                j.reason.clone().unwrap_or_default(),
            ],
        );
    }
    out
}

/// `formats.csv`: one line per dataset, format and language, in the order of the report's table.
pub fn formats(report: &Report) -> String {
    let mut out = header(FORMAT_COLUMNS);
    for d in &report.formats.datasets {
        for r in &d.rows {
            let s = &r.summary;
            let median = |m: &str| num(r.metric(m).map(|s| s.median));
            let ci = |m: &str| r.metric(m).and_then(|s| s.ci);
            let total = r.total;
            let mut fields = vec![
                d.name.clone().unwrap_or_default(),
                r.format().to_string(),
                s.lang.clone(),
                s.scenario.clone(),
                s.subject.clone(),
                r.library().unwrap_or_default().to_string(),
                d.objects.map_or(String::new(), |n| n.to_string()),
                s.ok_repeats.to_string(),
            ];
            fields.extend(SIZES.iter().map(|m| median(m)));
            for m in [SERIALIZE, DESERIALIZE] {
                fields.extend([median(m), num(ci(m).map(|c| c.0)), num(ci(m).map(|c| c.1))]);
            }
            fields.extend([
                num(total.map(|t| t.median_ns)),
                num(total.and_then(|t| t.interval_ns).map(|c| c.0)),
                num(total.and_then(|t| t.interval_ns).map(|c| c.1)),
                num(r.relative),
                median(ALLOC_BYTES[0]),
                median(ALLOCS[0]),
                median(ALLOC_BYTES[1]),
                median(ALLOCS[1]),
                // Printed to the microsecond: whole nanoseconds hold it exactly.
                num(r.published.map(|p| (p.total_ms * 1e6).round())),
                num(r.published.map(|p| p.size_bytes as f64)),
                num(r.size_vs_published()),
                r.flags.iter().map(|f| f.id()).collect::<Vec<_>>().join(";"),
                s.error.clone().unwrap_or_default(),
            ]);
            line(&mut out, &fields);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_when_needed() {
        let cases = [
            ("plain", "plain"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            ("two\nlines", "\"two\nlines\""),
        ];
        for (input, want) in cases {
            assert_eq!(field(input), want);
        }
    }
}
