//! The load engine's rows, whatever their lab: the headline (the fastest of each payload group),
//! the scenarios table, each thread group's steps, and the req/s and latency charts, with
//! `scenarios.csv` and `steps.csv`. Every row the load engine measured (the runner stamps its
//! `transport`; a harness's rows have none) is shown here, whatever its lab; labs arrange the
//! same rows their own way in their sections.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::charts::curves::{nines, CurvePanel, Curves};
use crate::charts::ranked::{Bar, Ranked};
use crate::charts::{Plot, Spec};
use crate::numbers::{self, NONE};
use crate::section::{Block, Card, Para, Run, Section};
use crate::table::{ci_hi, ci_lo, error, median, param, raw, Badge, Cell, Column, Csv, Row as TableRow, Table, Text};

/// A row failed some repeat; its numbers cover the repeats that completed.
pub const FAILED: Badge = Badge { id: "failed", meaning: "a repeat failed; numbers cover the repeats that completed" };
/// req/s varied across repeats.
pub const NOISY: Badge =
    Badge { id: "noisy", meaning: "req/s varied by more than 10 % (coefficient of variation) across repeats" };
/// The load generator may have been the bottleneck.
pub const LINK_BOUND: Badge = Badge {
    id: "link-bound",
    meaning: "the network link's forwarder fell behind (over 1 % of packets more than 1 ms late): the link was slower than its settings",
};
pub const CONTENDED: Badge = Badge {
    id: "contended",
    meaning: "other processes took over 15 % of the subject's or the load's CPUs during some repeats: each was measured again, and none of them is in the numbers",
};
pub const PROBED: Badge = Badge {
    id: "probed",
    meaning: "the load generator's CPU made some repeats look instrument-bound, and the same load with it allowed 90 % of its CPU time in every other 30-ms slice moved as many bytes in those slices (capped ÷ free at least 0.95 at the 95 % interval's low end): the subject set the pace",
};
pub const INSTRUMENT_BOUND: Badge = Badge {
    id: "instrument-bound",
    meaning: "the load generator was busy and used more CPU than the subject, or nearly all of its own, and (where the run probed it) the same load with it allowed 90 % of its CPU time in every other 30-ms slice moved fewer bytes in those slices, or the probe could not tell: the number may measure the instrument",
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
        // The runner's flag alone, the one the claims read: it has both CPUs and the probe.
        if summary.instrument_bound {
            flags.push(INSTRUMENT_BOUND);
        } else if summary.get("capped_ratio").is_some() {
            flags.push(PROBED);
        }
        if summary.net_bound {
            flags.push(LINK_BOUND);
        }
        if summary.contended > 0 {
            flags.push(CONTENDED);
        }
        Row { summary, transport: summary.transport.as_deref().unwrap_or_default(), rate_rps, flags }
    }

    pub fn id(&self) -> &str {
        &self.summary.scenario
    }

    /// Summary of a metric over the completed repeats (ids of `wirebench_core::metrics::METRICS`).
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
    let rows: Vec<Row> = summaries.iter().filter(|s| s.transport.is_some()).map(|s| Row::of(s)).collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let mut out = vec![headline_section(&rows, run), scenarios_section(&rows, run)];
    out.extend(steps_section(&rows));
    out.extend(workers_section(&rows));
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
    for flag in [NOISY, INSTRUMENT_BOUND, PROBED, LINK_BOUND, CONTENDED] {
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
    let mut legend = vec![NOISY, INSTRUMENT_BOUND, FAILED];
    if rows.iter().any(|r| r.flags.contains(&PROBED)) {
        legend.insert(2, PROBED);
    }
    if rows.iter().any(|r| r.flags.contains(&LINK_BOUND)) {
        legend.insert(2, LINK_BOUND);
    }
    s.push(Block::Legend(legend));
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

/// Rows loaded by several workers (`wirebench run --workers N`): each worker's share beside the
/// row, whose own numbers are the workers' added up (latency over every worker's samples).
fn workers_section(rows: &[Row]) -> Option<Section> {
    let shared: Vec<&Row> = rows.iter().filter(|r| !r.summary.workers.is_empty()).collect();
    if shared.is_empty() {
        return None;
    }
    let mut s = Section::new("workers", "Workers: each one's share");
    s.para(
        Para::Lede,
        "Each row's load came from several workers that started together; the row's counts are their sum and its \
         latency percentiles are over every worker's samples (their histograms added), not an average of theirs. \
         Requests over all repeats; the rest the median of the repeats'. A saturated worker used 90 % or more of its \
         CPUs' time and may have set the pace.",
    );
    let columns = vec![
        Column::text("Scenario"),
        Column::text("Worker"),
        Column::text("Host"),
        Column::num("Requests"),
        Column::num("req/s"),
        Column::num("p99"),
        Column::num("CPU s"),
        Column::text("Saturated"),
    ];
    let mut csv = Csv {
        name: "workers.csv",
        header: vec![
            "scenario",
            "worker",
            "host",
            "requests",
            "errors",
            "rps",
            "p99_us",
            "cpu_s",
            "cpus",
            "saturated",
            "skew_ms",
        ],
        lines: Vec::new(),
    };
    let mut table_rows = Vec::new();
    for r in shared {
        let sm = r.summary;
        for (i, w) in sm.workers.iter().enumerate() {
            table_rows.push(TableRow {
                scenario: (i == 0).then(|| sm.scenario.clone()),
                cells: vec![
                    Cell::new(if i == 0 { sm.scenario.as_str() } else { "" }),
                    Cell::new(w.worker.as_str()),
                    Cell::new(w.host.as_str()),
                    Cell::new(numbers::thousands(w.requests as f64)),
                    Cell::new(numbers::number(w.rps)),
                    Cell::new(w.p99_us.map_or(NONE.to_string(), numbers::latency_us)),
                    Cell::new(format!("{:.3}", w.cpu_s)),
                    Cell::new(if w.bound { "yes" } else { "" }),
                ],
                ..TableRow::default()
            });
            csv.lines.push(vec![
                sm.scenario.clone(),
                w.worker.clone(),
                w.host.clone(),
                w.requests.to_string(),
                w.errors.to_string(),
                raw(Some(w.rps)),
                raw(w.p99_us),
                raw(Some(w.cpu_s)),
                w.cpus.to_string(),
                w.bound.to_string(),
                raw(sm.worker_skew_ms),
            ]);
        }
    }
    s.push(Block::Table(Table { dense: true, ..Table::new("workers", columns, table_rows) }));
    let worst = rows.iter().filter_map(|r| r.summary.worker_skew_ms).reduce(f64::max).unwrap_or(0.0);
    s.para(Para::Small, format!("The workers of a repeat started at most {worst:.1} ms apart."));
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

/// A column of `scenarios.csv`. Not `Field<Row>`: a lifetime elided inside `fn(&Row)` is any
/// row's, where `Field<Row>` would fix it to `'static`.
type ScenarioField = (&'static str, fn(&Row) -> String);

/// The columns of `scenarios.csv`.
const SCENARIO_CSV: &[ScenarioField] = &[
    ("scenario", |r| r.summary.scenario.clone()),
    ("subject", |r| r.summary.subject.clone()),
    ("lang", |r| r.summary.lang.clone()),
    ("protocol", |r| r.protocol().into()),
    ("transport", |r| r.transport.into()),
    ("connections", |r| param(r.summary, "connections")),
    ("streams", |r| param(r.summary, "streams")),
    ("rate_rps", |r| raw(r.rate_rps)),
    ("ok_repeats", |r| r.summary.ok_repeats.to_string()),
    ("rps_median", |r| median(r.summary, "rps")),
    ("rps_ci_lo", |r| ci_lo(r.summary, "rps")),
    ("rps_ci_hi", |r| ci_hi(r.summary, "rps")),
    ("rps_cv", |r| raw(r.summary.get("rps").and_then(|x| x.cv))),
    ("p50_us", |r| median(r.summary, "p50_us")),
    ("p90_us", |r| median(r.summary, "p90_us")),
    ("p99_us", |r| median(r.summary, "p99_us")),
    ("p999_us", |r| median(r.summary, "p999_us")),
    ("max_us", |r| median(r.summary, "max_us")),
    ("uncorrected_p50_us", |r| median(r.summary, "uncorrected_p50_us")),
    ("uncorrected_p99_us", |r| median(r.summary, "uncorrected_p99_us")),
    ("errors", |r| raw(r.errors_total())),
    ("payload_bytes", |r| param(r.summary, "payload_bytes")),
    ("wire_bytes_per_call", |r| median(r.summary, "wire_bytes_per_call")),
    ("envelope_overhead", |r| raw(r.envelope_overhead())),
    ("messages_per_s", |r| median(r.summary, "messages_per_s")),
    ("first_message_p50_us", |r| median(r.summary, "first_message_p50_us")),
    ("first_message_p99_us", |r| median(r.summary, "first_message_p99_us")),
    ("cpu_s", |r| median(r.summary, "cpu_s")),
    ("rss_kb", |r| median(r.summary, "rss_kb")),
    ("service_cpu_s", |r| median(r.summary, "service_cpu_s")),
    ("service_rss_kb", |r| median(r.summary, "service_rss_kb")),
    ("instrument_cpu_s", |r| median(r.summary, "instrument_cpu_s")),
    ("flags", |r| r.flags.iter().map(|f| f.id).collect::<Vec<_>>().join(";")),
    ("error", |r| error(r.summary)),
];

/// `scenarios.csv`: one line per scenario, medians over the repeats.
fn scenarios_csv(rows: &[Row]) -> Csv {
    Csv::of("scenarios.csv", SCENARIO_CSV, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{self, element, read, rendered};
    use crate::{render, CHARTS_DIR};

    /// The load rows of the run in `dir`.
    fn report(dir: &Path) -> crate::model::Report {
        crate::model::Report::read(dir, None).unwrap()
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
    fn a_row_the_probe_cleared_says_so_and_one_it_did_not_stays_instrument_bound() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let r = report(dir.path());
        let probe = Summary::of(&[1.01, 0.99, 1.02]).unwrap();
        let mut cleared = r.rows[0].clone();
        cleared.metrics.insert("capped_ratio", probe);
        assert!(Row::of(&cleared).flags.contains(&PROBED));
        let mut bound = r.rows[1].clone();
        assert!(bound.instrument_bound);
        bound.metrics.insert("capped_ratio", probe);
        let flags = Row::of(&bound).flags;
        assert!(
            flags.contains(&INSTRUMENT_BOUND) && !flags.contains(&PROBED),
            "a flag that stands is not also cleared"
        );
        assert!(Row::of(&r.rows[2]).flags.iter().all(|f| *f != PROBED), "a row never probed");
    }

    #[test]
    fn rows_flags_and_headline_follow_the_measurements() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let r = report(dir.path());
        let rows: Vec<Row> = r.rows.iter().map(Row::of).collect();
        let ids: Vec<&str> = rows.iter().map(Row::id).collect();
        assert_eq!(ids, ["h2c-1kb", "h2c-1mb", "h1-1kb", "broken"]);
        assert_eq!(rows[0].transport, "h2c");
        assert_eq!(rows[2].transport, "h1", "stamped from the driver when the scenario has no label");
        assert_eq!(rows[0].concurrency().as_deref(), Some("16×8"));
        assert_eq!(rows[3].flags, [FAILED]);
        assert!(rows[2].flags.contains(&NOISY), "{:?}", rows[2].flags);
        assert!(rows[1].flags.contains(&INSTRUMENT_BOUND));

        // 1KB: h2c-1kb (~20,000) beats h1-1kb (~10,000); 1MB has one scenario; broken has no data.
        let groups = headline(&rows);
        let fastest: Vec<(Option<&str>, &str)> =
            groups.iter().map(|g| (g.payload.as_deref(), rows[g.fastest].id())).collect();
        assert_eq!(fastest, [(Some("1KB"), "h2c-1kb"), (Some("1MB"), "h2c-1mb")]);
        let (next, ratio) = groups[0].next.unwrap();
        assert_eq!(rows[next].id(), "h1-1kb");
        assert!((ratio.value - 2.0).abs() < 0.1, "{ratio:?}");
        assert!(groups[1].next.is_none());
    }

    #[test]
    fn streaming_rows_show_messages_per_second_and_others_a_dash() {
        let dir = tempfile::tempdir().unwrap();
        let stream = fixture::Spec {
            messages_per_call: 100,
            ..fixture::Spec::new("stream", "http2", "1KB", &[300.0, 310.0, 290.0])
        };
        fixture::write(dir.path(), &[stream, fixture::Spec::new("unary", "http2", "1KB", &[900.0, 910.0, 890.0])], "");
        let r = render(dir.path()).unwrap();
        let report = report(dir.path());
        let rows: Vec<Row> = report.rows.iter().map(Row::of).collect();
        let row = |id: &str| rows.iter().find(|row| row.id() == id).unwrap();
        assert_eq!(row("stream").messages_per_s(), Some(30_000.0));
        assert_eq!(row("unary").messages_per_s(), None, "one message per call repeats req/s");
        let html = read(&r.html);
        assert!(html.contains("<th class=\"num\">Messages/s</th>") && html.contains(">30,000<"), "messages column");
        // Little's law in the fixture: 128 in flight at 300 calls/s is a 427 ms median; the
        // first message arrives at a fifth of it.
        assert!(html.contains("<div class=\"sub\">first 85.3 ms</div>"), "time to first message");
        let md = read(&r.markdown);
        assert!(md.contains("| 30,000 (first 85.3 ms) |"), "{md}");
        assert_eq!(row("unary").metric("first_message_p50_us"), None);
    }

    #[test]
    fn envelope_overhead_is_wire_bytes_per_call_over_payload_bytes() {
        let (dir, r) = rendered();
        let report = report(dir.path());
        let rows: Vec<Row> = report.rows.iter().map(Row::of).collect();
        let row = |id: &str| rows.iter().find(|row| row.id() == id).unwrap();
        // The fixture sends 100 bytes and receives the payload per call.
        let kb = row("h2c-1kb").envelope_overhead().unwrap();
        assert!((kb - 1124.0 / 1024.0).abs() < 1e-9, "{kb}");
        let mb = row("h2c-1mb").envelope_overhead().unwrap();
        assert!((mb - (1_048_576.0 + 100.0) / 1_048_576.0).abs() < 1e-9, "{mb}");
        assert_eq!(row("broken").envelope_overhead(), None, "no repeat, no bytes");
        let html = read(&r.html);
        assert!(html.contains("<th class=\"num\">Envelope ×</th>") && html.contains(">1.098×<"), "envelope column");
    }
    use std::io::Write as _;
    use std::path::Path;

    #[test]
    fn thread_group_rows_list_their_steps_and_open_rows_both_latencies() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        for (repeat, p50) in [(1, 500), (2, 700), (3, 600)] {
            writeln!(f, "{}", fixture::group_line(repeat, p50)).unwrap();
        }
        drop(f);
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        let steps = element(&html, r#"<section id="steps">"#, "</section>");
        let table = element(steps, r#"id="steps-g3-open-go""#, "</table>");
        // Samples and errors summed over the repeats, latency the median of the repeats' p50.
        assert!(table.contains("<td>create</td><td class=\"num\">600</td><td class=\"num\">3</td>"), "{table}");
        assert!(table.contains("600 µs"), "median p50 of 500, 700, 600: {table}");
        assert!(steps.contains("200 iterations/s"), "{steps}");
        let scenarios = element(&html, r#"<table id="scenarios""#, "</table>");
        assert!(scenarios.contains("uncorrected 450 µs"), "{scenarios}");
        // The database's share of the server side's CPU and memory, under them.
        assert!(scenarios.contains("services 1.25") && scenarios.contains("services 512"), "{scenarios}");
        let csv = read(&dir.path().join("steps.csv"));
        assert_eq!(csv.lines().count(), 1 + 2, "{csv}");
        assert!(csv.contains("g3-open-go,restcache-go,create,600,3,"), "{csv}");
        let scenarios_csv = read(&dir.path().join("scenarios.csv"));
        assert!(
            scenarios_csv.lines().any(|l| l.starts_with("g3-open-go,") && l.contains(",1048576,1.25,524288,")),
            "{scenarios_csv}"
        );
        assert!(
            scenarios_csv.lines().any(|l| l.starts_with("g3-open-go,") && l.contains(",450,900,")),
            "{scenarios_csv}"
        );
        assert!(read(&r.markdown).contains("## Thread groups: each step"));
    }

    #[test]
    fn html_tables_show_scenarios_numbers_flags_and_failures() {
        let (_dir, r) = rendered();
        let html = read(&r.html);
        // Versions are one click away, so the headline is the first thing on screen.
        let versions = element(&html, "<details class=\"versions\">", "</details>");
        assert!(versions.contains("<th scope=\"row\">rustc</th><td><code>1.95.0</code>"), "{versions}");
        let table = element(&html, "<table id=\"scenarios\"", "</table>");
        for id in ["h2c-1kb", "h2c-1mb", "h1-1kb", "broken"] {
            assert!(table.contains(&format!("<code>{id}</code>")), "{id}");
        }
        // Median req/s with separators and its interval; latency in readable units.
        assert!(table.contains("<strong>20,000</strong><div class=\"ci\">19,006–20,994</div>"), "{table}");
        assert!(table.contains("16×8"));
        assert!(table.contains("15.4 ms"), "p99 of h2c-1kb (128 in flight at 20,000 req/s × 2.4)");
        assert!(table.contains(">noisy<") && table.contains(">instrument-bound<") && table.contains(">failed<"));
        let broken = element(table, "data-scenario=\"broken\"", "</tr>");
        assert!(broken.contains("subject `broken` exited: exit status: 1: &lt;b&gt;boom&lt;/b&gt;"), "{broken}");
        assert!(broken.contains("0 of 3 repeats completed"));

        let headline = element(&html, "<section id=\"headline\">", "</section>");
        assert!(headline.contains("Payload 1KB") && headline.contains("<code>h2c-1kb</code>"));
        assert!(headline.contains("2.00× the next, <code>h1-1kb</code>"), "{headline}");
        assert!(headline.contains("class=\"callout failed\"") && headline.contains("&lt;b&gt;boom"));

        let claims = element(&html, "<table id=\"claims\">", "</table>");
        assert!(claims.contains("<span class=\"badge inconclusive\">inconclusive</span>"), "{claims}");
        assert!(claims.contains("the confidence interval straddles the threshold"));
        assert!(claims.contains("rps(h2c-1kb) / rps(h1-1kb) &gt; 1.50"));
        assert!(claims.contains("2x<div class=\"note\"><strong>Note:</strong> the study&#39;s table"));
        assert_eq!(html.matches("<svg class=\"chart\"").count(), 3);
    }

    #[test]
    fn latency_chart_has_one_panel_per_payload_only_when_there_are_several() {
        let (dir, r) = rendered();
        let svg = read(&dir.path().join(CHARTS_DIR).join("latency.svg"));
        for panel in ["payload 1KB", "payload 1MB"] {
            assert_eq!(svg.matches(&format!("\n{panel}\n</text>")).count(), 1, "{panel}");
        }
        // h1-1kb and h2c-1kb share a panel; h2c-1mb has one to itself (the broken row has no curve).
        let panel_1kb = &svg[svg.find("\npayload 1KB\n").unwrap()..svg.find("\npayload 1MB\n").unwrap()];
        assert!(
            panel_1kb.contains("\nh2c-1kb\n") && panel_1kb.contains("\nh1-1kb\n") && !panel_1kb.contains("\nh2c-1mb\n")
        );
        assert!(read(&r.html).contains("One panel per payload"));

        let one = tempfile::tempdir().unwrap();
        fixture::write(one.path(), &[fixture::Spec::new("a", "http1", "", &[1000.0, 1100.0])], "");
        render(one.path()).unwrap();
        let svg = read(&one.path().join(CHARTS_DIR).join("latency.svg"));
        assert!(!svg.contains("\npayload") && svg.contains("\nLatency percentiles\n</text>"));
    }

    #[test]
    fn one_repeat_renders_without_intervals() {
        let dir = tempfile::tempdir().unwrap();
        let specs =
            vec![fixture::Spec::new("a", "http1", "", &[1000.0]), fixture::Spec::new("b", "http2", "", &[2000.0])];
        fixture::write(dir.path(), &specs, "");
        let stale = dir.path().join(CHARTS_DIR).join("payload.svg");
        std::fs::create_dir_all(stale.parent().unwrap()).unwrap();
        std::fs::write(&stale, "from an earlier render").unwrap();
        std::fs::write(dir.path().join(crate::WRITTEN_FILE), "charts/payload.svg\n").unwrap();
        let r = render(dir.path()).unwrap();
        assert!(!stale.exists(), "a skipped chart's old file is removed");
        let html = read(&r.html);
        assert!(html.contains("All scenarios"));
        assert!(html.contains("2.00× the next, <code>a</code> (1,000 req/s); one repeat, so no interval"), "{html}");
        assert!(html.contains("<div class=\"ci\">n = 1</div>"));
        assert!(html.contains("The suite states no claims."));
        let names: Vec<_> = r.charts.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["rps.svg", "latency.svg"], "no 1KB/1MB labels: no payload chart");
        assert!(html.contains("id=\"figure-payload\"><strong>1 KB vs 1 MB responses by transport</strong>: not drawn"));
    }
}
