//! The parse lab's table, computed once: rows of harnesses that fetch and decode objects
//! (summaries with a `parser` parameter: `suites/parse.toml`), grouped by object, each with its
//! decoding time, the I/O around it and the servers' CPU.
//!
//! Depends on no other module of the report: the model holds a `Parse`, the outputs render it.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::format::{self, NONE};

/// Metric ids of the parse table (`wirebench_core::results::SUMMARY_METRICS`).
pub const PARSE: &str = "parse_us";
pub const TOTAL: &str = "total_us";
pub const IO: &str = "io_us";
pub const STUDY: &str = "study_us";

/// Every parse row of a run, by object.
#[derive(Debug, Clone, Default)]
pub struct Parse {
    /// In order of first appearance.
    pub objects: Vec<ObjectRows>,
}

/// The rows of one object (`numeric`, `dummy`).
#[derive(Debug, Clone)]
pub struct ObjectRows {
    pub object: String,
    /// By N, then parser, format and provider; batch rows after the one-per-request rows.
    pub rows: Vec<ParseRow>,
}

/// One consumer × provider × format × N as the report shows it.
#[derive(Debug, Clone)]
pub struct ParseRow {
    pub summary: ScenarioSummary,
}

/// True for a summary the parse table takes.
pub fn is_parse(s: &ScenarioSummary) -> bool {
    s.format.is_none() && s.param("parser").is_some()
}

impl Parse {
    /// Groups the parse summaries by object; `summaries` holds only those (`is_parse`).
    pub fn of(summaries: Vec<ScenarioSummary>) -> Parse {
        let mut objects: Vec<ObjectRows> = Vec::new();
        for s in summaries {
            let object = s.param("object").unwrap_or("").to_string();
            let i = objects.iter().position(|o| o.object == object).unwrap_or_else(|| {
                objects.push(ObjectRows { object, rows: Vec::new() });
                objects.len() - 1
            });
            objects[i].rows.push(ParseRow { summary: s });
        }
        for o in &mut objects {
            o.rows.sort_by(|a, b| a.key().cmp(&b.key()));
        }
        Parse { objects }
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Every row, object by object.
    pub fn rows(&self) -> impl Iterator<Item = &ParseRow> {
        self.objects.iter().flat_map(|o| &o.rows)
    }
}

impl ParseRow {
    fn key(&self) -> (bool, u64, &str, &str, &str) {
        (self.batch(), self.n(), self.parser(), self.format(), self.provider())
    }

    pub fn id(&self) -> &str {
        &self.summary.scenario
    }

    /// `rust`, `java`, `java-raw`, `browser`, `node`.
    pub fn parser(&self) -> &str {
        self.summary.param("parser").unwrap_or("")
    }

    pub fn provider(&self) -> &str {
        self.summary.param("provider").unwrap_or("")
    }

    pub fn format(&self) -> &str {
        self.summary.param("format").unwrap_or("")
    }

    pub fn n(&self) -> u64 {
        self.summary.params.get("n").and_then(|v| v.as_u64()).unwrap_or(0)
    }

    /// One request carried every object.
    pub fn batch(&self) -> bool {
        self.summary.params.get("batch").and_then(|v| v.as_bool()).unwrap_or(false)
    }

    /// The JavaScript runtime of browser and Node rows (`chromium@156…`).
    pub fn runtime(&self) -> Option<&str> {
        self.summary.param("runtime")
    }

    pub fn metric(&self, name: &str) -> Option<&Summary> {
        self.summary.get(name)
    }

    /// Decoding's share of the time with I/O (median parse ÷ median total).
    pub fn parse_share(&self) -> Option<f64> {
        let (p, t) = (self.metric(PARSE)?.median, self.metric(TOTAL)?.median);
        (t > 0.0).then(|| p / t)
    }

    /// Nanoseconds of decoding per object (median).
    pub fn ns_per_object(&self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| self.metric(PARSE).map(|s| s.median * 1000.0 / n as f64)).flatten()
    }

    pub fn failed(&self) -> bool {
        self.summary.error.is_some()
    }
}

/// The table's columns: label, numeric.
pub const COLUMNS: &[(&str, bool)] = &[
    ("Scenario", false),
    ("Parser", false),
    ("Provider", false),
    ("Format", false),
    ("N", true),
    ("Decode (95 % CI)", true),
    ("Per object", true),
    ("With I/O", true),
    ("Decode share", true),
    ("Study's method", true),
    ("CPU s", true),
    ("RSS MiB", true),
];

/// What the table says under itself.
pub const NOTE: &str = "Decode: one timer around decoding all N objects already in memory (median of repeats, \
    95 % interval). With I/O: from the first request to the end of decoding, so decode share is how much of \
    that the parser is. Study's method (browser and Node rows): the study's per-object timers, started when \
    an answer's headers arrive and stopped when its object exists, summed. CPU s: both servers' CPU during \
    the call; RSS MiB: the consumer's + the provider's after it (neither is measured for browser and Node \
    rows). One request per object unless N says batch (one request for all N).";

/// A row's cells as text, shared by the HTML and Markdown tables.
#[derive(Debug, Clone)]
pub struct Cells {
    pub scenario: String,
    pub parser: String,
    pub provider: String,
    pub format: String,
    pub n: String,
    pub parse: String,
    pub parse_ci: String,
    pub per_object: String,
    pub total: String,
    pub share: String,
    pub study: String,
    pub cpu: String,
    pub rss: String,
}

impl Cells {
    pub fn of(r: &ParseRow) -> Cells {
        let median = |m: &str| r.metric(m).map_or(NONE.to_string(), |s| format::latency_us(s.median));
        let parser = match r.runtime() {
            Some(v) => format!("{} ({v})", r.parser()),
            None => r.parser().to_string(),
        };
        let batch = if r.batch() { " (batch)" } else { "" };
        Cells {
            scenario: r.id().to_string(),
            parser,
            provider: r.provider().to_string(),
            format: r.format().to_string(),
            n: format!("{}{batch}", format::thousands(r.n() as f64)),
            parse: median(PARSE),
            parse_ci: r
                .metric(PARSE)
                .and_then(|s| s.ci)
                .map_or(String::new(), |(lo, hi)| format::interval(lo, hi, format::latency_us)),
            per_object: r.ns_per_object().map_or(NONE.to_string(), |ns| format!("{} ns", format::number(ns))),
            total: median(TOTAL),
            share: r.parse_share().map_or(NONE.to_string(), format::percent),
            study: median(STUDY),
            cpu: r.metric("cpu_s").map_or(NONE.to_string(), |s| format::sig3(s.median)),
            rss: match (r.metric("rss_kb"), r.metric("provider_rss_kb")) {
                (Some(c), Some(p)) => {
                    format!("{} + {}", format::mib_from_kib(c.median), format::mib_from_kib(p.median))
                }
                (Some(c), None) => format::mib_from_kib(c.median),
                _ => NONE.to_string(),
            },
        }
    }

    /// In `COLUMNS` order, the decode interval apart.
    pub fn texts(&self) -> [&str; 12] {
        [
            &self.scenario,
            &self.parser,
            &self.provider,
            &self.format,
            &self.n,
            &self.parse,
            &self.per_object,
            &self.total,
            &self.share,
            &self.study,
            &self.cpu,
            &self.rss,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn summary(id: &str, params: serde_json::Value, parse: f64, total: f64) -> ScenarioSummary {
        let params: BTreeMap<String, serde_json::Value> = serde_json::from_value(params).unwrap();
        let one = |v: f64| Summary::of_measured(&[v]).unwrap();
        ScenarioSummary {
            scenario: id.into(),
            subject: "parse-rust".into(),
            lang: "rust".into(),
            protocol: None,
            format: None,
            params,
            error: None,
            ok_repeats: 1,
            metrics: [(PARSE, one(parse)), (TOTAL, one(total))].into(),
            by_repeat: BTreeMap::new(),
            latency_curve: vec![],
            instrument_bound: false,
            steps: vec![],
        }
    }

    #[test]
    fn rows_group_by_object_and_sort_by_n_then_parser() {
        let p = |object: &str, parser: &str, n: u64, batch: bool| serde_json::json!({"object": object, "parser": parser, "provider": "rust", "format": "json", "n": n, "batch": batch});
        let parse = Parse::of(vec![
            summary("a", p("dummy", "rust", 1000, true), 10.0, 40.0),
            summary("b", p("dummy", "java", 1000, false), 30.0, 60.0),
            summary("c", p("numeric", "rust", 100, false), 1.0, 2.0),
            summary("d", p("dummy", "rust", 100, false), 2.0, 8.0),
        ]);
        let ids: Vec<Vec<&str>> = parse.objects.iter().map(|o| o.rows.iter().map(ParseRow::id).collect()).collect();
        assert_eq!(ids, [vec!["d", "b", "a"], vec!["c"]]);
        let d = &parse.objects[0].rows[0];
        assert_eq!(d.parse_share(), Some(0.25));
        assert_eq!(d.ns_per_object(), Some(20.0));
        assert!(!is_parse(&summary("x", serde_json::json!({}), 1.0, 1.0)));
        assert!(is_parse(&d.summary));
    }
}
