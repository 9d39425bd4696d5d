//! The load engine's rows, whatever their lab: the headline (the fastest of each payload group),
//! the scenarios table, each thread group's steps, and the req/s and latency charts, with
//! `scenarios.csv` and `steps.csv`. Every row measured by a driver (`protocol` set) is shown here;
//! labs arrange the same rows their own way in their sections.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::charts::curves::{nines, CurvePanel, Curves};
use crate::charts::ranked::{Bar, Ranked};
use crate::charts::{Plot, Spec};
use crate::model::Ratio;
use crate::numbers::{self, NONE};
use crate::section::{Block, Card, Para, Run, Section};
use crate::table::{raw, Badge, Cell, Column, Csv, Row as TableRow, Table, Text};

/// A row failed some repeat; its numbers cover the repeats that completed.
pub const FAILED: Badge = Badge { id: "failed", meaning: "a repeat failed; numbers cover the repeats that completed" };
/// req/s varied across repeats.
pub const NOISY: Badge =
    Badge { id: "noisy", meaning: "req/s varied by more than 10 % (coefficient of variation) across repeats" };
/// The load generator may have been the bottleneck.
pub const INSTRUMENT_BOUND: Badge = Badge {
    id: "instrument-bound",
    meaning: "the load generator used more CPU than the subject, or nearly all of its own: the number may measure the instrument",
};

/// One load scenario as the report shows it.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    pub summary: &'a ScenarioSummary,
    /// The row's transport label as the runner stamped it (`h1`, `h2c`, `h2+tls`); empty when the
    /// run recorded none.
    pub transport: &'a str,
    /// Open-model arrival rate (requests per second), `None` in the closed model.
    pub rate_rps: Option<f64>,
    pub flags: Vec<Badge>,
}

impl<'a> Row<'a> {
    pub fn of(summary: &'a ScenarioSummary) -> Row<'a> {
        let rate_rps = summary.params.get("rate").and_then(|v| v.as_f64());
        let mut flags = Vec::new();
        if summary.error.is_some() {
            flags.push(FAILED);
        }
        if summary.get("rps").is_some_and(Summary::noisy) {
            flags.push(NOISY);
        }
        let cpu = |m: &str| summary.get(m).map(|s| s.median);
        let instrument_heavier = matches!((cpu("instrument_cpu_s"), cpu("cpu_s")), (Some(i), Some(s)) if i > s);
        if summary.instrument_bound || instrument_heavier {
            flags.push(INSTRUMENT_BOUND);
        }
        Row { summary, transport: summary.transport.as_deref().unwrap_or(""), rate_rps, flags }
    }

    pub fn id(&self) -> &str {
        &self.summary.scenario
    }

    /// Summary of a metric over the completed repeats (ids of `SUMMARY_METRICS`).
    pub fn metric(&self, name: &str) -> Option<&'a Summary> {
        self.summary.get(name)
    }

    /// Summary of req/s; `None` when no repeat completed.
    pub fn rps(&self) -> Option<&'a Summary> {
        self.metric("rps")
    }

    pub fn failed(&self) -> bool {
        self.summary.error.is_some()
    }

    /// The `payload` label (`1KB`, `1MB`), if any.
    pub fn payload(&self) -> Option<&'a str> {
        self.summary.param("payload")
    }

    /// The driver (`http1`, `http2`).
    pub fn protocol(&self) -> &'a str {
        self.summary.protocol.as_deref().unwrap_or("")
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

    /// `h2c · http2 · rest (rust)`.
    fn stack(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if !self.transport.is_empty() {
            parts.push(self.transport.to_string());
        }
        if !self.protocol().is_empty() {
            parts.push(self.protocol().to_string());
        }
        parts.push(format!("{} ({})", self.summary.subject, self.summary.lang));
        parts.join(" · ")
    }
}

/// The distinct payload labels of `rows`, in the order they first appear: the groups of the
/// headline and of the charts.
pub fn payload_groups<'a>(rows: impl IntoIterator<Item = &'a Row<'a>>) -> Vec<Option<&'a str>> {
    let mut groups: Vec<Option<&str>> = Vec::new();
    for r in rows {
        if !groups.contains(&r.payload()) {
            groups.push(r.payload());
        }
    }
    groups
}

/// The headline of one group of comparable scenarios (same `payload` label).
#[derive(Debug, Clone)]
pub struct Group {
    pub payload: Option<String>,
    /// Index of the scenario with the highest median req/s.
    pub fastest: usize,
    /// The runner-up's index and the fastest's advantage over it.
    pub next: Option<(usize, Ratio)>,
}

/// Per payload group (in order of first appearance), the closed-model scenario with the highest
/// median req/s and its ratio over the runner-up. Scenarios without a req/s median (all repeats
/// failed) are left out; the failures are called out separately.
pub fn headline(rows: &[Row]) -> Vec<Group> {
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
            let next = ranked.get(1).and_then(|&row| Some((row, Ratio::of(rows[fastest].rps()?, rows[row].rps()?)?)));
            Some(Group { payload: key.map(str::to_string), fastest, next })
        })
        .collect()
}

/// How a group's fastest compares with its runner-up.
fn versus(rows: &[Row], g: &Group) -> Text {
    let Some((next, r)) = g.next else { return Text::plain("The only scenario measured in this group.") };
    let other = &rows[next];
    let other_rps = other.rps().map_or(String::new(), |s| numbers::metric_value("rps", s.median));
    let ratio = numbers::ratio(r.value);
    match r.interval {
        None => Text::plain(format!("{ratio} the next, "))
            .and_code(other.id())
            .and(format!(" ({other_rps}); one repeat, so no interval: treat the gap as unproven.")),
        Some((lo, hi)) if r.above_one() => Text::plain(format!("{ratio} the next, "))
            .and_code(other.id())
            .and(format!(" ({other_rps}); 95 % interval of the ratio {}.", numbers::interval(lo, hi, numbers::ratio))),
        Some((lo, hi)) => Text::plain("Not distinguishable from ").and_code(other.id()).and(format!(
            " ({other_rps}): the ratio {ratio} has a 95 % interval {} that includes 1×.",
            numbers::interval(lo, hi, numbers::ratio)
        )),
    }
}

/// The headline section, the scenarios table, the thread groups' steps and the load charts, for
/// the load rows among `summaries`; nothing when there are none.
pub fn sections(summaries: &[&ScenarioSummary], run: &Run) -> Vec<Section> {
    let rows: Vec<Row> = summaries.iter().filter(|s| s.protocol.is_some()).map(|s| Row::of(s)).collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let mut out = vec![headline_section(&rows, run), scenarios_section(&rows, run)];
    out.extend(steps_section(&rows));
    out.push(charts_section(&rows));
    out
}

fn headline_section(rows: &[Row], run: &Run) -> Section {
    let groups = headline(rows);
    let mut s = Section::new("headline", "Headline");
    let single = groups.len() == 1;
    let cards: Vec<Card> = groups
        .iter()
        .map(|g| {
            let row = &rows[g.fastest];
            let rps = row.rps().expect("headline rows have req/s");
            Card {
                group: match &g.payload {
                    Some(p) => format!("Payload {p}"),
                    None if single => "All scenarios".into(),
                    None => "No payload label".into(),
                },
                scenario: row.id().to_string(),
                stack: row.stack(),
                value: numbers::thousands(rps.median),
                unit: "req/s",
                ci: rps.ci.map(|(lo, hi)| numbers::interval(lo, hi, numbers::thousands)),
                versus: versus(rows, g),
            }
        })
        .collect();
    if cards.is_empty() {
        s.para(Para::Lede, "No scenario measured req/s.");
    } else {
        s.push(Block::Cards(cards));
    }
    s.failures("failures", rows.iter().map(|r| r.summary), run);
    for flag in [NOISY, INSTRUMENT_BOUND] {
        let ids: Vec<String> = rows.iter().filter(|r| r.flags.contains(&flag)).map(|r| r.id().to_string()).collect();
        if !ids.is_empty() {
            s.push(Block::Flagged(flag, ids));
        }
    }
    s
}

/// Column headers of the scenarios table.
const COLUMNS: &[(&str, bool)] = &[
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
const LATENCY_METRICS: [&str; 5] = ["p50_us", "p90_us", "p99_us", "p999_us", "max_us"];

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

/// One scenario's cells in `COLUMNS` order.
fn cells(r: &Row, repeats: u32) -> Vec<Cell> {
    let median = |m: &str, f: fn(f64) -> String| r.metric(m).map_or(NONE.to_string(), |s| f(s.median));
    let rps = match r.rps() {
        Some(s) => Cell::main(numbers::thousands(s.median))
            .ci(s.ci.map_or(format!("n = {}", s.n), |(lo, hi)| numbers::interval(lo, hi, numbers::thousands))),
        None => Cell::main(NONE),
    };
    let first = r.metric("first_message_p50_us").map(|s| format!("first {}", numbers::latency_us(s.median)));
    let mut out = vec![
        Cell::code(r.id()),
        Cell::new(r.summary.subject.as_str()).sub(r.summary.lang.as_str()),
        Cell::new(r.protocol()),
        Cell::new(r.transport),
        Cell::new(r.concurrency().unwrap_or_else(|| NONE.to_string()))
            .sub(r.rate_rps.map_or("closed".to_string(), |rate| format!("open {}/s", numbers::thousands(rate)))),
        rps,
        Cell::new(r.messages_per_s().map_or(NONE.to_string(), numbers::thousands)).sub(first.unwrap_or_default()),
    ];
    out.extend(LATENCY_METRICS.map(|m| {
        let uncorrected = r.metric(&format!("uncorrected_{m}"));
        Cell::new(median(m, numbers::latency_us))
            .sub(uncorrected.map_or(String::new(), |s| format!("uncorrected {}", numbers::latency_us(s.median))))
    }));
    let services =
        |m: &str, f: fn(f64) -> String| r.metric(m).map_or(String::new(), |s| format!("services {}", f(s.median)));
    out.extend([
        Cell::new(r.errors_total().map_or(NONE.to_string(), numbers::thousands)),
        Cell::new(median("wire_bytes_per_call", numbers::thousands)),
        Cell::new(r.envelope_overhead().map_or(NONE.to_string(), |x| format!("{x:.3}×"))),
        Cell::new(median("cpu_s", numbers::sig3)).sub(services("service_cpu_s", numbers::sig3)),
        Cell::new(median("rss_kb", numbers::mib_from_kib)).sub(services("service_rss_kb", numbers::mib_from_kib)),
        Cell::new(median("instrument_cpu_s", numbers::sig3)),
    ]);
    out.push(flags_cell(&r.flags, r.summary, repeats));
    out
}

/// The last cell of a table of scenarios: the row's badges, its error and how far it got.
pub fn flags_cell(flags: &[Badge], s: &ScenarioSummary, repeats: u32) -> Cell {
    let mut c = Cell { badges: flags.to_vec(), error: s.error.clone(), ..Cell::default() };
    if s.error.is_some() {
        c = c.sub(format!("{} of {repeats} repeats completed", s.ok_repeats));
    }
    c
}

fn scenarios_section(rows: &[Row], run: &Run) -> Section {
    let columns = COLUMNS.iter().map(|&(l, num)| if num { Column::num(l) } else { Column::text(l) }).collect();
    let table_rows = rows
        .iter()
        .map(|r| TableRow {
            scenario: Some(r.id().to_string()),
            failed: r.failed(),
            head: false,
            cells: cells(r, run.repeats),
        })
        .collect();
    let mut s = Section::new("scenarios-section", "Scenarios");
    s.push(Block::Table(Table { dense: true, ..Table::new("scenarios", columns, table_rows) }));
    s.push(Block::Legend(vec![NOISY, INSTRUMENT_BOUND, FAILED]));
    s.para(Para::Small, TABLE_NOTE);
    s.csv.push(scenarios_csv(rows));
    s
}

/// Thread-group rows: each step's samples, errors and latency by label, as JMeter's aggregate
/// report (counts over the repeats, latencies the median of the repeats').
fn steps_section(rows: &[Row]) -> Option<Section> {
    let grouped: Vec<&Row> = rows.iter().filter(|r| !r.summary.steps.is_empty()).collect();
    if grouped.is_empty() {
        return None;
    }
    let mut s = Section::new("steps", "Thread groups: each step");
    s.para(
        Para::Lede,
        "Virtual users loop over their group's steps; a wrong answer is its step's error and ends the iteration. \
         Samples and errors over all repeats; latencies are the median of the repeats'.",
    );
    let columns = vec![
        Column::text("Step"),
        Column::num("Samples"),
        Column::num("Errors"),
        Column::num("Mean"),
        Column::num("p50"),
        Column::num("p99"),
        Column::num("Max"),
    ];
    let mut csv = Csv {
        name: "steps.csv",
        header: vec!["scenario", "subject", "step", "samples", "errors", "mean_us", "p50_us", "p99_us", "max_us"],
        lines: Vec::new(),
    };
    for r in grouped {
        let sm = r.summary;
        let rate = sm.get("iterations_per_s").map_or(NONE.to_string(), |x| numbers::number(x.median));
        let table_rows = sm
            .steps
            .iter()
            .map(|st| TableRow {
                cells: vec![
                    Cell::new(st.label.as_str()),
                    Cell::new(numbers::thousands(st.requests as f64)),
                    Cell::new(numbers::thousands(st.errors as f64)),
                    Cell::new(numbers::latency_us(st.mean_us)),
                    Cell::new(numbers::latency_us(st.p50_us)),
                    Cell::new(numbers::latency_us(st.p99_us)),
                    Cell::new(numbers::latency_us(st.max_us)),
                ],
                ..TableRow::default()
            })
            .collect();
        let mut table = Table::new(format!("steps-{}", sm.scenario), columns.clone(), table_rows);
        table.groups[0].key = Some(sm.scenario.clone());
        s.push(Block::Details(Text::code(sm.scenario.as_str()).and(format!(" · {rate} iterations/s")), table));
        for st in &sm.steps {
            csv.lines.push(vec![
                sm.scenario.clone(),
                sm.subject.clone(),
                st.label.clone(),
                st.requests.to_string(),
                st.errors.to_string(),
                raw(Some(st.mean_us)),
                raw(Some(st.p50_us)),
                raw(Some(st.p99_us)),
                raw(Some(st.max_us)),
            ]);
        }
    }
    s.csv.push(csv);
    Some(s)
}

fn charts_section(rows: &[Row]) -> Section {
    let mut s = Section::new("charts", "Charts");
    s.push(Block::Chart(rps_chart(rows)));
    s.push(Block::Chart(latency_chart(rows)));
    s
}

/// A payload group's name in a legend or panel title: `payload 1KB`.
fn group_label(payload: Option<&str>) -> String {
    payload.map_or("no payload label".to_string(), |p| format!("payload {p}"))
}

/// Median req/s of every scenario as bars with 95 % CI whiskers, coloured by payload group.
fn rps_chart(rows: &[Row]) -> Spec {
    let measured: Vec<&Row> = rows.iter().filter(|r| r.rps().is_some()).collect();
    let groups = payload_groups(measured.iter().copied());
    let bars: Vec<Bar> = measured
        .iter()
        .map(|r| {
            let s = r.rps().expect("filtered on rps");
            Bar {
                label: r.id().to_string(),
                value: s.median,
                ci: s.ci,
                group: groups.iter().position(|g| *g == r.payload()).unwrap_or(0),
            }
        })
        .collect();
    let left_out: Vec<&str> = rows.iter().filter(|r| r.rps().is_none()).map(|r| r.id()).collect();
    Spec {
        name: "rps",
        title: "Requests per second by scenario",
        plot: if bars.is_empty() {
            Err("no scenario measured req/s".into())
        } else {
            Ok(Plot::Ranked(Ranked {
                bars,
                groups: if groups == [None] { Vec::new() } else { groups.iter().map(|&g| group_label(g)).collect() },
                single: "median req/s".into(),
                axis: "requests per second, median of repeats".into(),
                items: "scenario".into(),
            }))
        },
        note: (!left_out.is_empty()).then(|| format!("Not shown (no req/s measured): {}.", left_out.join(", "))),
    }
}

/// Latency percentile curves, a panel per payload group (as the req/s chart colours them), so
/// each panel compares the transports on one payload.
fn latency_chart(rows: &[Row]) -> Spec {
    let curves: Vec<(&Row, Vec<(f64, f64)>)> = rows
        .iter()
        .map(|r| {
            let points: Vec<(f64, f64)> =
                r.summary.latency_curve.iter().filter_map(|&(p, us)| Some((nines(p)?, us as f64))).collect();
            (r, points)
        })
        .filter(|(_, points)| points.len() >= 2)
        .collect();
    let (title, name) = ("Latency percentiles", "latency");
    if curves.is_empty() {
        return Spec { name, title, plot: Err("no scenario recorded a latency curve".into()), note: None };
    }
    let groups = payload_groups(curves.iter().map(|&(r, _)| r));
    let panels: Vec<CurvePanel> = groups
        .iter()
        .map(|&g| CurvePanel {
            subtitle: group_label(g),
            curves: curves
                .iter()
                .filter(|(r, _)| r.payload() == g)
                .map(|(r, points)| (r.id().to_string(), points.clone()))
                .collect(),
        })
        .collect();
    let left_out: Vec<&str> =
        rows.iter().map(|r| r.id()).filter(|id| !curves.iter().any(|(r, _)| r.id() == *id)).collect();
    let mut note = String::from("Each line is the repeat with the median p99.");
    if panels.len() > 1 {
        note += " One panel per payload; all panels share both axes.";
    }
    if !left_out.is_empty() {
        note += &format!(" Not shown (no latency curve): {}.", left_out.join(", "));
    }
    Spec { name, title, plot: Ok(Plot::Curves(Curves { panels })), note: Some(note) }
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

/// A parameter as CSV text: strings bare, other values as JSON.
pub fn param_text(s: &ScenarioSummary, k: &str) -> String {
    s.params.get(k).map_or(String::new(), |v| v.as_str().map_or(v.to_string(), str::to_string))
}

/// `scenarios.csv`: one line per scenario, medians over the repeats.
fn scenarios_csv(rows: &[Row]) -> Csv {
    let lines = rows
        .iter()
        .map(|r| {
            let s = r.summary;
            let median = |m: &str| raw(r.metric(m).map(|s| s.median));
            let rps = r.rps();
            let mut fields = vec![
                s.scenario.clone(),
                s.subject.clone(),
                s.lang.clone(),
                r.protocol().to_string(),
                r.transport.to_string(),
                param_text(s, "connections"),
                param_text(s, "streams"),
                raw(r.rate_rps),
                s.ok_repeats.to_string(),
                raw(rps.map(|s| s.median)),
                raw(rps.and_then(|s| s.ci).map(|c| c.0)),
                raw(rps.and_then(|s| s.ci).map(|c| c.1)),
                raw(rps.and_then(|s| s.cv)),
            ];
            fields.extend(LATENCY_METRICS.iter().map(|m| median(m)));
            fields.extend([
                median("uncorrected_p50_us"),
                median("uncorrected_p99_us"),
                raw(r.errors_total()),
                param_text(s, "payload_bytes"),
                median("wire_bytes_per_call"),
                raw(r.envelope_overhead()),
                median("messages_per_s"),
                median("first_message_p50_us"),
                median("first_message_p99_us"),
                median("cpu_s"),
                median("rss_kb"),
                median("service_cpu_s"),
                median("service_rss_kb"),
                median("instrument_cpu_s"),
                r.flags.iter().map(|f| f.id).collect::<Vec<_>>().join(";"),
                s.error.clone().unwrap_or_default(),
            ]);
            fields
        })
        .collect();
    Csv { name: "scenarios.csv", header: SCENARIO_COLUMNS.to_vec(), lines }
}
