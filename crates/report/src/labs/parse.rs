//! The parse lab (`suites/parse.toml`, `subjects/parse/`, `web/pages/parse/`): harness rows that
//! fetch and decode objects, grouped by object, each with its decoding time, the I/O around it and
//! the servers' CPU; its two charts and `parse.csv`.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::charts::curves::tick_label;
use crate::charts::lines::{self, Line, LineAxis, Lines};
use crate::charts::panels::{self, Axis, Bar, Bars, Group, Panel};
use crate::charts::{color, Key, Plot, Spec};
use crate::numbers::{self, NONE};
use crate::section::{harness_rows, Block, Lab, Para, Run, Section};
use crate::table::{self, ci_hi, ci_lo, error, median, param, Cell, Column, Csv, Field, Text};

/// The lab.
pub struct ParseLab;

impl Lab for ParseLab {
    fn id(&self) -> &'static str {
        "parse"
    }

    fn section(&self, rows: &[&ScenarioSummary], _run: &Run<'_>) -> Option<Section> {
        let rows = harness_rows(rows)?;
        let p = Parse::of(rows.iter().map(|s| (*s).clone()).collect());
        let mut s = Section::new("parse", "Decoding: JSON vs BSON");
        s.push(Block::Table(p.table()));
        s.para(Para::Small, NOTE);
        s.push(Block::Chart(p.chart_by_n()));
        s.push(Block::Chart(p.chart_io()));
        s.csv.push(p.csv());
        Some(s)
    }
}

/// Metric ids of the parse table (`wirebench_core::metrics::METRICS`).
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

impl Parse {
    /// Groups the lab's summaries by object.
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

impl Parse {
    /// One table, a group of rows per object.
    fn table(&self) -> table::Table {
        let columns = COLUMNS.iter().map(|&(l, num)| if num { Column::num(l) } else { Column::text(l) }).collect();
        let groups = self
            .objects
            .iter()
            .map(|o| table::Group {
                heading: Some(Text::plain("Object ").and_code(o.object.as_str())),
                key: Some(o.object.clone()),
                rows: o.rows.iter().map(ParseRow::cells).collect(),
            })
            .collect();
        table::Table { id: "parse-table".into(), columns, groups, ..table::Table::default() }
    }

    /// Decoding time against N (log–log, one panel per object, one line per parser and format,
    /// objects from the Rust provider, one request per object).
    fn chart_by_n(&self) -> Spec {
        let panels = self
            .objects
            .iter()
            .map(|o| {
                let mut lines: Vec<Line> = Vec::new();
                for r in o.rows.iter().filter(|r| r.provider() == PROVIDER && !r.batch()) {
                    let Some(s) = r.metric(PARSE) else { continue };
                    let name = r.series();
                    match lines.iter_mut().find(|(n, _)| *n == name) {
                        Some((_, points)) => points.push((r.n() as f64, s.median)),
                        None => lines.push((name, vec![(r.n() as f64, s.median)])),
                    }
                }
                lines::Panel { title: format!("Object {}", o.object), lines }
            })
            .collect();
        let lines = Lines { panels, x: LineAxis::count("N objects"), y: LineAxis::time("decoding time") };
        Spec {
            name: "parse-by-n",
            title: "Decoding time against N objects",
            plot: if lines.drawable() {
                Ok(Plot::Lines(lines))
            } else {
                Err("no parser was measured at two N or more".into())
            },
            note: Some(format!(
                "Median decoding time of N objects already in memory, each fetched with its own request from the \
                 {PROVIDER} provider. Parallel lines mean the same cost per object."
            )),
        }
    }

    /// Decoding against the I/O around it at the largest N (bars).
    fn chart_io(&self) -> Spec {
        let mut out = Vec::new();
        for o in &self.objects {
            let Some(n) = o.rows.iter().filter(|r| !r.batch() && r.metric(PARSE).is_some()).map(ParseRow::n).max()
            else {
                continue;
            };
            let mut groups = Vec::new();
            for r in o.rows.iter().filter(|r| !r.batch() && r.n() == n) {
                let (Some(parse), Some(io)) = (r.metric(PARSE), r.metric(IO)) else { continue };
                let c = color(["json", "bson"].iter().position(|f| *f == r.format()).unwrap_or(2));
                let ms = |us: f64| us / 1000.0;
                let bar = |s: &Summary, color| Bar {
                    value: ms(s.median),
                    ci: s.ci.map(|(lo, hi)| (ms(lo), ms(hi))),
                    color,
                    label: tick_label(s.median),
                };
                groups.push(Group {
                    label: format!("{} ← {}", r.series(), r.provider()),
                    bars: vec![bar(parse, c), bar(io, panels::tint(c, IO_TINT))],
                });
            }
            if !groups.is_empty() {
                out.push(Panel { title: format!("Object {} · N = {n}", o.object), groups });
            }
        }
        let legend = vec![
            ("JSON decoding".to_string(), Key::Bar(color(0))),
            ("JSON I/O".to_string(), Key::Bar(panels::tint(color(0), IO_TINT))),
            ("BSON decoding".to_string(), Key::Bar(color(1))),
            ("BSON I/O".to_string(), Key::Bar(panels::tint(color(1), IO_TINT))),
            ("95 % CI of the mean".to_string(), Key::Whisker),
        ];
        let axis = Axis { desc: "ms for all N objects, median of repeats", tick: panels::tick };
        Spec {
            name: "parse-io",
            title: "Decoding against I/O at the largest N",
            plot: if out.is_empty() {
                Err("no row measured both decoding and I/O".into())
            } else {
                Ok(Plot::Bars(Bars { legend, panels: out, axis }))
            },
            note: Some(
                "I/O is the time from the first request to the end of decoding, less decoding: what the study's \
                 timers, started as each answer arrived, could let in."
                    .into(),
            ),
        }
    }

    /// `parse.csv`: one line per row in table order, medians over the repeats.
    fn csv(&self) -> Csv {
        Csv::of("parse.csv", CSV, self.objects.iter().flat_map(|o| &o.rows))
    }
}

/// The provider the charts compare parsers on: every parser fetched from it.
const PROVIDER: &str = "rust";
/// How far towards white the I/O bars are.
const IO_TINT: f64 = 0.55;

/// The columns of `parse.csv`.
const CSV: &[Field<ParseRow>] = &[
    ("scenario", |r| r.id().into()),
    ("object", |r| param(&r.summary, "object")),
    ("parser", |r| r.parser().into()),
    ("provider", |r| r.provider().into()),
    ("format", |r| r.format().into()),
    ("n", |r| r.n().to_string()),
    ("batch", |r| r.batch().to_string()),
    ("runtime", |r| r.runtime().unwrap_or_default().into()),
    ("ok_repeats", |r| r.summary.ok_repeats.to_string()),
    ("parse_us_median", |r| median(&r.summary, PARSE)),
    ("parse_us_ci_lo", |r| ci_lo(&r.summary, PARSE)),
    ("parse_us_ci_hi", |r| ci_hi(&r.summary, PARSE)),
    ("total_us_median", |r| median(&r.summary, TOTAL)),
    ("io_us_median", |r| median(&r.summary, IO)),
    ("study_us_median", |r| median(&r.summary, STUDY)),
    ("size_bytes", |r| median(&r.summary, "size_bytes")),
    ("cpu_s", |r| median(&r.summary, "cpu_s")),
    ("provider_cpu_s", |r| median(&r.summary, "provider_cpu_s")),
    ("rss_kb", |r| median(&r.summary, "rss_kb")),
    ("provider_rss_kb", |r| median(&r.summary, "provider_rss_kb")),
    ("error", |r| error(&r.summary)),
];

impl ParseRow {
    /// A chart line's name: `rust json`.
    fn series(&self) -> String {
        format!("{} {}", self.parser(), self.format())
    }

    /// The row's cells in `COLUMNS` order.
    fn cells(&self) -> table::Row {
        let r = self;
        let median = |m: &str| r.metric(m).map_or(NONE.to_string(), |s| numbers::latency_us(s.median));
        let parser = match r.runtime() {
            Some(v) => format!("{} ({v})", r.parser()),
            None => r.parser().to_string(),
        };
        let batch = if r.batch() { " (batch)" } else { "" };
        let ci = r
            .metric(PARSE)
            .and_then(|s| s.ci)
            .map_or(String::new(), |(lo, hi)| numbers::interval(lo, hi, numbers::latency_us));
        let rss = match (r.metric("rss_kb"), r.metric("provider_rss_kb")) {
            (Some(c), Some(p)) => format!("{} + {}", numbers::mib_from_kib(c.median), numbers::mib_from_kib(p.median)),
            (Some(c), None) => numbers::mib_from_kib(c.median),
            _ => NONE.to_string(),
        };
        table::Row {
            scenario: Some(r.id().to_string()),
            failed: r.failed(),
            head: false,
            cells: vec![
                Cell { error: r.summary.error.clone(), ..Cell::code(r.id()) },
                Cell::new(parser),
                Cell::new(r.provider()),
                Cell::new(r.format()),
                Cell::new(format!("{}{batch}", numbers::thousands(r.n() as f64))),
                Cell::main(median(PARSE)).ci(ci),
                Cell::new(r.ns_per_object().map_or(NONE.to_string(), |ns| format!("{} ns", numbers::number(ns)))),
                Cell::new(median(TOTAL)),
                Cell::new(r.parse_share().map_or(NONE.to_string(), numbers::percent)),
                Cell::new(median(STUDY)),
                Cell::new(r.metric("cpu_s").map_or(NONE.to_string(), |s| numbers::sig3(s.median))),
                Cell::new(rss),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::fixture::{self, element, read};
    use crate::render;
    use std::io::Write as _;

    #[test]
    fn parse_rows_get_their_own_table_csv_and_charts() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        for (parser, format, scale) in [("rust", "json", 1.0), ("rust", "bson", 1.1), ("java", "json", 1.5)] {
            for n in [100u64, 1000] {
                for repeat in 1..=3 {
                    let us = scale * n as f64 * (1.0 + repeat as f64 / 100.0);
                    writeln!(f, "{}", fixture::parse_line(parser, format, n, repeat, us)).unwrap();
                }
            }
        }
        drop(f);
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        let table = element(&html, r#"<section id="parse">"#, "</section>");
        assert!(table.contains(r#"data-scenario="dummy-bson-rust-from-rust-1000""#));
        assert!(table.contains("<strong>1.12 ms</strong>"), "median decode of 1,000 rust bson: 1.1 × 1,000 × 1.02 µs");
        for chart in ["chart-parse-by-n", "chart-parse-io"] {
            assert!(table.contains(&format!(r#"id="{chart}""#)), "{chart} drawn in the section");
        }
        // The parse rows stay out of the load table, and the load table stays.
        let scenarios = element(&html, r#"<table id="scenarios""#, "</table>");
        assert!(!scenarios.contains("from-rust"));
        let csv = read(&dir.path().join("parse.csv"));
        assert!(csv.starts_with("scenario,object,parser,provider,format,n,batch,"));
        assert_eq!(csv.lines().count(), 1 + 6);
        assert!(read(&r.markdown).contains("## Decoding: JSON vs BSON"));
    }

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
            contended: 0,
            lost_repeats: 0,
            metrics: [(PARSE, one(parse)), (TOTAL, one(total))].into(),
            by_repeat: BTreeMap::new(),
            latency_curve: vec![],
            instrument_bound: false,
            net_bound: false,
            steps: vec![],
            workers: vec![],
            worker_skew_ms: None,
            lab: "parse".into(),
            transport: None,
            net: None,
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
    }
}
