//! One CSV file per table, RFC 4180 quoting (a field is quoted when it holds a comma, quote or
//! line break), lines ending in `\n`. Numbers are raw, in the units their column names say, for
//! spreadsheets and scripts; column names are the metric ids of the results schema.

use wirebench_core::suite::Op;

use crate::cells::LATENCY_METRICS;
use crate::model::Report;

/// Writes one table from the report.
pub type Table = fn(&Report) -> String;

/// Every table: file name and the function that writes it.
pub const TABLES: &[(&str, Table)] = &[("scenarios.csv", scenarios), ("claims.csv", claims)];

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
    "errors",
    "cpu_s",
    "rss_kb",
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
    "op",
    "threshold",
    "value",
    "ci_lo",
    "ci_hi",
    "verdict",
    "reason",
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
            num(r.errors_total()),
            median("cpu_s"),
            median("rss_kb"),
            median("instrument_cpu_s"),
            r.flags.iter().map(|f| f.id()).collect::<Vec<_>>().join(";"),
            s.error.clone().unwrap_or_default(),
        ]);
        line(&mut out, &fields);
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
