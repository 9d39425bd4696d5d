//! The realtime lab (`suites/realtime.toml`, `subjects/realtime/`, `web/pages/realtime/`): rows of
//! the browser harness that sends or receives N texts, as series (a protocol, a direction and how
//! the calls were made) under conditions (TLS, HTTP/2, a slowed client, disk writes, another
//! browser), and the extra-header sweep; its charts and `realtime.csv`.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::charts::lines::{self, LineAxis, Lines};
use crate::charts::panels::{self, Axis, Bar, Bars, Group, Panel};
use crate::charts::{color, Key, Plot, Spec};
use crate::numbers::{self, NONE};
use crate::section::{harness_rows, Block, Lab, Para, Run, Section};
use crate::table::{self, error, param, raw, Cell, Column, Csv, Field, Text};

/// The lab.
pub struct RealtimeLab;

impl Lab for RealtimeLab {
    fn id(&self) -> &'static str {
        "realtime"
    }

    fn section(&self, rows: &[&ScenarioSummary], run: &Run<'_>) -> Option<Section> {
        let rows = harness_rows(rows)?;
        let rt = Realtime::of(rows.iter().map(|s| (*s).clone()).collect());
        let mut s = Section::new("realtime", "WebSocket vs HTTP: time for N messages");
        let mut browsers: Vec<&str> = Vec::new();
        for b in rt.rows.iter().filter_map(|r| r.runtime()) {
            if !browsers.contains(&b) {
                browsers.push(b);
            }
        }
        if let Some((first, more)) = browsers.split_first() {
            let mut lede = Text::plain("In ").and_code(*first);
            for (i, b) in more.iter().enumerate() {
                lede = lede.and(if i + 1 == more.len() { " and " } else { ", " }).and_code(*b);
            }
            s.para(Para::Lede, lede.and(", from the page the app serves."));
        }
        for t in rt.tables() {
            s.push(Block::Table(t));
        }
        s.failures("realtime-failures", rt.rows.iter().map(|r| &r.summary), run);
        s.para(Para::Small, NOTE);
        for chart in [rt.chart_by_n(), rt.chart_headers(), rt.chart_conditions()].into_iter().chain(rt.chart_by_rtt()) {
            s.push(Block::Chart(chart));
        }
        s.csv.push(rt.csv());
        Some(s)
    }
}

/// The metric every realtime table shows: seconds for N messages.
pub const DURATION: &str = "duration_s";

/// Every realtime row of a run.
#[derive(Debug, Clone, Default)]
pub struct Realtime {
    /// In the order they ran.
    pub rows: Vec<RealtimeRow>,
}

/// What was sent and how: the lines of a chart, the columns of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Series {
    /// `http`, `socketio` or `ws`, in that order.
    pub protocol: Protocol,
    pub direction: Direction,
    /// HTTP: all N requests at once.
    pub parallel: bool,
    /// WebSocket and Socket.IO: the handshake inside the clock.
    pub connect: bool,
}

/// Download first, as the study's charts put GET before POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    Download,
    Upload,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Protocol {
    Http,
    SocketIo,
    Ws,
}

/// Where the page ran against which server: everything a row changes beside its series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Condition {
    /// HTTP/2 over TLS (HTTP rows of the page served over h2).
    pub h2: bool,
    pub tls: bool,
    /// DevTools' CPU throttling rate (1 = none).
    pub cpu_throttle: u32,
    /// The server wrote each received text to disk.
    pub disk: bool,
    /// The round trip of a network link between browser and app (0: none).
    pub rtt_ms: u32,
    /// The browser the page ran in.
    pub browser: Browser,
}

/// The browsers the harness drives (web/harness/browser.mjs), Chromium first: it runs every
/// condition, the others the cleartext sweep beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Browser {
    Chromium,
    Firefox,
}

impl Browser {
    /// The browser of a row's `runtime` (`firefox@153.8.0`); Chromium for any other.
    pub fn of(runtime: Option<&str>) -> Browser {
        match runtime {
            Some(r) if r.starts_with("firefox@") => Browser::Firefox,
            _ => Browser::Chromium,
        }
    }
}

impl Condition {
    /// The order of the tables: cleartext, TLS, HTTP/2, then the slowed client, then disk writes,
    /// then across a link, nearest first; then the same in the other browsers.
    fn order(&self) -> (Browser, u32, bool, u32, bool, bool) {
        (self.browser, self.rtt_ms, self.disk, self.cpu_throttle, self.tls, self.h2)
    }
}

impl Ord for Condition {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.order().cmp(&other.order())
    }
}

impl PartialOrd for Condition {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The condition every other is compared with: cleartext HTTP/1.1, a full-speed client, no disk,
/// Chromium.
pub const BASE: Condition =
    Condition { h2: false, tls: false, cpu_throttle: 1, disk: false, rtt_ms: 0, browser: Browser::Chromium };

/// One scenario as the realtime tables show it.
#[derive(Debug, Clone)]
pub struct RealtimeRow {
    pub summary: ScenarioSummary,
}

impl Realtime {
    /// The lab's rows, in the order they ran.
    pub fn of(summaries: Vec<ScenarioSummary>) -> Realtime {
        Realtime { rows: summaries.into_iter().map(|summary| RealtimeRow { summary }).collect() }
    }

    /// The N sweeps: rows without extra headers, by condition (`BASE` first), each a table of N
    /// against series.
    pub fn sweeps(&self) -> Vec<Sweep<'_>> {
        let mut conditions: Vec<Condition> =
            self.rows.iter().filter(|r| r.headers() == 0).map(RealtimeRow::condition).collect();
        conditions.sort();
        conditions.dedup();
        conditions
            .into_iter()
            .map(|condition| {
                let rows: Vec<&RealtimeRow> =
                    self.rows.iter().filter(|r| r.headers() == 0 && r.condition() == condition).collect();
                Sweep::of(condition, rows)
            })
            .collect()
    }

    /// The extra-header sweeps, one per condition with header rows (`BASE` first): each a table
    /// of header counts (0 included: the rows without extra headers at the same N) against series.
    pub fn headers(&self) -> Vec<HeaderSweep<'_>> {
        let mut conditions: Vec<Condition> =
            self.rows.iter().filter(|r| r.headers() > 0).map(RealtimeRow::condition).collect();
        conditions.sort();
        conditions.dedup();
        conditions.into_iter().filter_map(|c| self.header_sweep(c)).collect()
    }

    fn header_sweep(&self, condition: Condition) -> Option<HeaderSweep<'_>> {
        let with: Vec<&RealtimeRow> =
            self.rows.iter().filter(|r| r.headers() > 0 && r.condition() == condition).collect();
        let n = with.first()?.n();
        let mut series: Vec<Series> = with.iter().map(|r| r.series()).collect();
        series.sort();
        series.dedup();
        let mut counts: Vec<u64> = with.iter().map(|r| r.headers()).collect();
        counts.push(0);
        counts.sort();
        counts.dedup();
        let at = |h: u64, s: Series| {
            self.rows.iter().find(|r| r.condition() == condition && r.n() == n && r.headers() == h && r.series() == s)
        };
        let cells = counts.iter().map(|&h| series.iter().map(|&s| at(h, s)).collect()).collect();
        Some(HeaderSweep { condition, n, series, counts, cells })
    }

    /// A row of `condition` and `series` at `n` without extra headers.
    pub fn find(&self, condition: Condition, series: Series, n: u64) -> Option<&RealtimeRow> {
        self.rows.iter().find(|r| r.headers() == 0 && r.condition() == condition && r.series() == series && r.n() == n)
    }

    /// A table of N against series per condition, then each condition's header sweep.
    fn tables(&self) -> Vec<table::Table> {
        let columns = |first: &str, series: &[Series]| {
            std::iter::once(Column::num(first)).chain(series.iter().map(|s| Column::num(s.label()))).collect()
        };
        let mut out = Vec::new();
        for sweep in self.sweeps() {
            let rows = sweep
                .ns
                .iter()
                .zip(&sweep.cells)
                .map(|(n, row)| table::Row {
                    head: true,
                    cells: std::iter::once(Cell::new(numbers::thousands(*n as f64)))
                        .chain(row.iter().map(|r| cell(*r, None)))
                        .collect(),
                    ..table::Row::default()
                })
                .collect();
            let id = format!("realtime-{}", sweep.condition.short());
            out.push(table::Table::new(id, columns("N", &sweep.series), rows).titled(sweep.condition.label()));
        }
        for hs in self.headers() {
            let rows = hs
                .counts
                .iter()
                .zip(&hs.cells)
                .enumerate()
                .map(|(i, (count, row))| table::Row {
                    head: true,
                    cells: std::iter::once(Cell::new(count.to_string()))
                        .chain(row.iter().enumerate().map(|(j, r)| cell(*r, hs.slowdown(i, j).filter(|_| i > 0))))
                        .collect(),
                    ..table::Row::default()
                })
                .collect();
            let id = format!("realtime-headers-{}", hs.condition.short());
            let title =
                format!("Extra request headers: {}, N = {}", hs.condition.label(), numbers::thousands(hs.n as f64));
            out.push(table::Table::new(id, columns("Extra headers", &hs.series), rows).titled(title));
        }
        out
    }

    /// Time for N messages against N (log–log, a panel per direction, a line per protocol and way
    /// of calling), cleartext only.
    fn chart_by_n(&self) -> Spec {
        let (name, title) = ("realtime-by-n", "Time for N messages against N");
        let sweeps = self.sweeps();
        let Some(base) = sweeps.iter().find(|s| s.condition == BASE) else {
            return Spec { name, title, plot: Err("no row of the cleartext sweep".into()), note: None };
        };
        let panels = [
            (Direction::Download, "Download: the server sends N texts"),
            (Direction::Upload, "Upload: the page sends N texts"),
        ]
        .into_iter()
        .map(|(direction, title)| lines::Panel {
            title: title.to_string(),
            lines: base
                .series
                .iter()
                .enumerate()
                .filter(|(_, s)| s.direction == direction)
                .map(|(j, s)| (s.label(), base.points(j).into_iter().map(|(n, ms)| (n, ms * 1e3)).collect()))
                .collect(),
        })
        .collect();
        let lines = Lines { panels, x: LineAxis::count("N messages"), y: LineAxis::time("time for N messages") };
        Spec {
            name,
            title,
            plot: if lines.drawable() {
                Ok(Plot::Lines(lines))
            } else {
                Err("no series was measured at two N or more".into())
            },
            note: Some(
                "Cleartext HTTP/1.1, median of the repeats. A line of slope 1 is a fixed cost per message; a flat \
                 start is a fixed cost per call."
                    .into(),
            ),
        }
    }

    /// The extra-header sweeps as bars, a panel per condition.
    fn chart_headers(&self) -> Spec {
        let (name, title) = ("realtime-headers", "Extra request headers");
        let sweeps = self.headers();
        if sweeps.is_empty() {
            return Spec { name, title, plot: Err("no row with extra headers".into()), note: None };
        }
        let mut names: Vec<Series> = sweeps.iter().flat_map(|h| h.series.iter().copied()).collect();
        names.sort();
        names.dedup();
        let panels: Vec<Panel> = sweeps
            .iter()
            .map(|h| {
                let groups = h
                    .counts
                    .iter()
                    .zip(&h.cells)
                    .map(|(&count, row)| Group {
                        label: if count == 0 { "none".into() } else { format!("{count} headers") },
                        bars: row
                            .iter()
                            .zip(&h.series)
                            .enumerate()
                            .filter_map(|(j, (r, s))| {
                                let base = h.cells[0][j].and_then(|b| b.millis()).map(|m| m.median);
                                let c = color(names.iter().position(|x| x == s).unwrap_or(0));
                                bar((*r)?, c, base.filter(|_| count > 0))
                            })
                            .collect(),
                    })
                    .collect();
                Panel { title: format!("{} · N = {}", h.condition.label(), numbers::thousands(h.n as f64)), groups }
            })
            .collect();
        let legend: Vec<(String, Key)> =
            names.iter().enumerate().map(|(j, s)| (s.label(), Key::Bar(color(j)))).collect();
        Spec {
            name,
            title,
            plot: Ok(Plot::Bars(Bars { legend: with_whisker(legend), panels, axis: AXIS })),
            note: Some(
                "Each extra header is `nazwa-i: zawartosc` (the study's), ~19 bytes: 100 headers add ~1.9 KB to \
                 every HTTP/1.1 request. HTTP/2 compresses them (HPACK): after the first request, a repeated header \
                 is an index of a byte or two. The ratio is against the same N without extra headers."
                    .into(),
            ),
        }
    }

    /// Every other condition (TLS, HTTP/2, a slowed client, disk writes) beside cleartext at one N.
    fn chart_conditions(&self) -> Spec {
        let (name, title) = ("realtime-conditions", "TLS, HTTP/2, a slow client, disk writes and Firefox");
        // Across a link the round trips dwarf every other condition: they have a chart of their own.
        let sweeps: Vec<Sweep> = self.sweeps().into_iter().filter(|s| s.condition.rtt_ms == 0).collect();
        let conditions: Vec<Condition> = sweeps.iter().map(|s| s.condition).collect();
        // The largest N that some other condition shares with cleartext.
        let n = sweeps
            .iter()
            .filter(|s| s.condition != BASE)
            .flat_map(|s| s.ns.iter().copied())
            .filter(|&n| sweeps.iter().any(|s| s.condition == BASE && s.ns.contains(&n)))
            .max();
        let (Some(n), true) = (n, conditions.len() > 1) else {
            return Spec {
                name,
                title,
                plot: Err("no condition but cleartext shares an N with it".into()),
                note: None,
            };
        };
        let mut series: Vec<_> = sweeps.iter().flat_map(|s| s.series.iter().map(|x| x.plain())).collect();
        series.sort();
        series.dedup();
        let groups: Vec<Group> = series
            .iter()
            .filter_map(|&s| {
                let base = self.find(BASE, s, n).and_then(|r| r.millis()).map(|m| m.median);
                let bars: Vec<Bar> = conditions
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &c)| bar(self.find(c, s, n)?, color(i), base.filter(|_| c != BASE)))
                    .collect();
                (bars.len() > 1).then(|| Group { label: s.label(), bars })
            })
            .collect();
        if groups.is_empty() {
            let why = format!("no series was measured in two conditions at N = {n}");
            return Spec { name, title, plot: Err(why), note: None };
        }
        let legend: Vec<(String, Key)> =
            conditions.iter().enumerate().map(|(i, c)| (c.short(), Key::Bar(color(i)))).collect();
        let panel = Panel { title: format!("N = {}", numbers::thousands(n as f64)), groups };
        Spec {
            name,
            title,
            plot: Ok(Plot::Bars(Bars { legend: with_whisker(legend), panels: vec![panel], axis: AXIS })),
            note: Some(
                "Each condition changes one thing against cleartext HTTP/1.1 from a full-speed client: TLS (HTTPS \
                 and WSS), HTTP/2 over TLS (HTTP rows), the page's CPU throttled by DevTools (the study's slower \
                 laptop), the server appending each received text to a file (as the study's did), or the page in \
                 Firefox instead of Chromium. The ratio is against cleartext in Chromium."
                    .into(),
            ),
        }
    }

    /// Time for N messages against the round trip of a link between browser and app (0: none), a
    /// panel per direction at N = 10 (the study's "a dozen") and at the largest N measured at every
    /// round trip, a line per protocol: N sequential requests pay N round trips, a WebSocket's
    /// texts share theirs. `None` when no row crossed a link.
    fn chart_by_rtt(&self) -> Option<Spec> {
        let (name, title) = ("realtime-by-rtt", "Time for N messages against round trip");
        // Cleartext from a full-speed client, at every round trip measured.
        if !self.rows.iter().any(|r| r.condition().rtt_ms > 0) {
            return None;
        }
        let sweeps: Vec<Sweep> =
            self.sweeps().into_iter().filter(|s| Condition { rtt_ms: 0, ..s.condition } == BASE).collect();
        if sweeps.len() < 2 {
            let why = "no cleartext sweep across a network link beside one at another round trip".into();
            return Some(Spec { name, title, plot: Err(why), note: None });
        }
        let shared: Vec<u64> =
            sweeps[0].ns.iter().copied().filter(|n| sweeps.iter().all(|s| s.ns.contains(n))).collect();
        let mut ns: Vec<u64> = shared.iter().copied().filter(|&n| n == 10).chain(shared.last().copied()).collect();
        ns.dedup();
        let mut series: Vec<Series> = sweeps.iter().flat_map(|s| s.series.iter().map(|x| x.plain())).collect();
        series.sort();
        series.dedup();
        let mut panels = Vec::new();
        for &n in &ns {
            for (direction, what) in [(Direction::Download, "Download"), (Direction::Upload, "Upload")] {
                let lines = series
                    .iter()
                    .filter(|s| s.direction == direction)
                    .map(|&s| {
                        let points = sweeps
                            .iter()
                            .filter_map(|w| {
                                let m = self.find(w.condition, s, n)?.millis()?;
                                Some((f64::from(w.condition.rtt_ms), m.median * 1e3))
                            })
                            .collect();
                        (s.label(), points)
                    })
                    .collect();
                panels.push(lines::Panel { title: format!("{what}, N = {}", numbers::thousands(n as f64)), lines });
            }
        }
        let lines = Lines {
            panels,
            x: LineAxis::linear("round trip between browser and app, ms", crate::charts::compact),
            y: LineAxis::time("time for N messages"),
        };
        Some(Spec {
            name,
            title,
            plot: if lines.drawable() {
                Ok(Plot::Lines(lines))
            } else {
                Err("no series was measured at two round trips or more".into())
            },
            note: Some(
                "Cleartext HTTP/1.1 from a full-speed client, median of the repeats; 0 is loopback. HTTP's requests \
                 go one after another, so each pays a round trip; a WebSocket's N texts share one."
                    .into(),
            ),
        })
    }

    /// `realtime.csv`: one line per row, in the order they ran.
    fn csv(&self) -> Csv {
        Csv::of("realtime.csv", CSV, &self.rows)
    }
}

/// A table cell of one row, with its ratio against a base beside it.
fn cell(r: Option<&RealtimeRow>, ratio: Option<f64>) -> Cell {
    match r {
        Some(r) => Cell {
            aside: ratio.map(numbers::ratio),
            scenario: Some(r.id().to_string()),
            failed: r.failed(),
            ..Cell::main(r.time_text())
        }
        .ci(r.ci_text())
        .sub(r.p95_text()),
        None => Cell::new(NONE),
    }
}

fn bar(r: &RealtimeRow, color: plotters::style::RGBColor, against: Option<f64>) -> Option<Bar> {
    let s = r.millis()?;
    let ratio = against.filter(|b| *b > 0.0).map_or(String::new(), |b| format!(" ({})", numbers::ratio(s.median / b)));
    Some(Bar { value: s.median, ci: s.ci, color, label: format!("{}{ratio}", ms(s.median)) })
}

const AXIS: Axis = Axis { desc: "ms for N messages, median of repeats", tick: panels::tick };

fn with_whisker(mut legend: Vec<(String, Key)>) -> Vec<(String, Key)> {
    legend.push(("95 % CI of the mean".to_string(), Key::Whisker));
    legend
}

/// The columns of `realtime.csv`: times in ms.
const CSV: &[Field<RealtimeRow>] = &[
    ("scenario", |r| r.id().into()),
    ("protocol", |r| param(&r.summary, "protocol")),
    ("direction", |r| param(&r.summary, "direction")),
    ("n", |r| r.n().to_string()),
    ("headers", |r| r.headers().to_string()),
    ("parallel", |r| r.series().parallel.to_string()),
    ("connect", |r| r.series().connect.to_string()),
    ("http", |r| if r.condition().h2 { "h2" } else { "http/1.1" }.into()),
    ("tls", |r| r.condition().tls.to_string()),
    ("cpu_throttle", |r| r.condition().cpu_throttle.to_string()),
    ("disk", |r| r.condition().disk.to_string()),
    ("rtt_ms", |r| r.condition().rtt_ms.to_string()),
    ("runtime", |r| r.runtime().unwrap_or_default().into()),
    ("ok_repeats", |r| r.summary.ok_repeats.to_string()),
    ("duration_ms_median", |r| raw(r.millis().map(|s| s.median))),
    ("duration_ms_ci_lo", |r| raw(r.millis().and_then(|s| s.ci).map(|c| c.0))),
    ("duration_ms_ci_hi", |r| raw(r.millis().and_then(|s| s.ci).map(|c| c.1))),
    ("duration_ms_p95", |r| raw(r.p95_ms())),
    ("ms_per_message", |r| raw(r.ms_per_message())),
    ("error", |r| error(&r.summary)),
];

/// One condition's N sweep: `cells[i][j]` is N = `ns[i]` of `series[j]`.
#[derive(Debug, Clone)]
pub struct Sweep<'a> {
    pub condition: Condition,
    pub series: Vec<Series>,
    pub ns: Vec<u64>,
    pub cells: Vec<Vec<Option<&'a RealtimeRow>>>,
}

impl<'a> Sweep<'a> {
    fn of(condition: Condition, rows: Vec<&'a RealtimeRow>) -> Sweep<'a> {
        let mut series: Vec<Series> = rows.iter().map(|r| r.series()).collect();
        series.sort();
        series.dedup();
        let mut ns: Vec<u64> = rows.iter().map(|r| r.n()).collect();
        ns.sort();
        ns.dedup();
        let cells = ns
            .iter()
            .map(|&n| series.iter().map(|&s| rows.iter().copied().find(|r| r.n() == n && r.series() == s)).collect())
            .collect();
        Sweep { condition, series, ns, cells }
    }

    /// The points of one series: (N, median ms) of the rows measured.
    pub fn points(&self, j: usize) -> Vec<(f64, f64)> {
        self.ns.iter().zip(&self.cells).filter_map(|(&n, row)| Some((n as f64, row[j]?.millis()?.median))).collect()
    }
}

/// The header sweep of one condition at one N: `cells[i][j]` is `counts[i]` extra headers of
/// `series[j]`.
#[derive(Debug, Clone)]
pub struct HeaderSweep<'a> {
    pub condition: Condition,
    pub n: u64,
    pub series: Vec<Series>,
    pub counts: Vec<u64>,
    pub cells: Vec<Vec<Option<&'a RealtimeRow>>>,
}

impl HeaderSweep<'_> {
    /// Median time of `counts[i]` headers over no extra headers, for `series[j]`.
    pub fn slowdown(&self, i: usize, j: usize) -> Option<f64> {
        let base = self.cells.first()?.get(j).copied().flatten()?.millis()?.median;
        let this = self.cells.get(i)?.get(j).copied().flatten()?.millis()?.median;
        (base > 0.0).then(|| this / base)
    }
}

impl Series {
    /// `HTTP GET`, `POST parallel`, `Socket.IO receive`, `WebSocket send + handshake`, …
    pub fn label(&self) -> String {
        let verb = match (self.protocol, self.direction) {
            (Protocol::Http, Direction::Download) => "HTTP GET",
            (Protocol::Http, Direction::Upload) => "HTTP POST",
            (Protocol::SocketIo, Direction::Download) => "Socket.IO receive",
            (Protocol::SocketIo, Direction::Upload) => "Socket.IO send",
            (Protocol::Ws, Direction::Download) => "WebSocket receive",
            (Protocol::Ws, Direction::Upload) => "WebSocket send",
        };
        let how = match (self.parallel, self.connect) {
            (true, _) => " parallel",
            (_, true) => " + handshake",
            _ => "",
        };
        format!("{verb}{how}")
    }

    /// The series a variant is measured against: itself without `parallel` and `connect`.
    pub fn plain(&self) -> Series {
        Series { parallel: false, connect: false, ..*self }
    }
}

impl Condition {
    /// What differs from `BASE`, each as a long or a short name.
    fn parts(&self, long: bool) -> Vec<String> {
        let name = |l: &str, s: &str| if long { l.to_string() } else { s.to_string() };
        let mut parts = Vec::new();
        if self.browser == Browser::Firefox {
            parts.push("Firefox".to_string());
        }
        if self.h2 {
            parts.push(name("HTTP/2 over TLS", "h2+TLS"));
        } else if self.tls {
            parts.push(name("TLS (HTTPS, WSS)", "TLS"));
        }
        if self.cpu_throttle > 1 {
            let r = self.cpu_throttle;
            parts.push(name(&format!("client CPU throttled {r}×"), &format!("CPU ÷{r}")));
        }
        if self.disk {
            parts.push(name("server writes each text to disk", "disk"));
        }
        if self.rtt_ms > 0 {
            let r = self.rtt_ms;
            parts.push(name(&format!("across {r} ms of round trip"), &format!("{r} ms")));
        }
        parts
    }

    /// `Cleartext, HTTP/1.1, full-speed client`, `TLS (HTTPS, WSS)`, `HTTP/2 over TLS`, `Client
    /// CPU throttled 4×`, `Server writes each text to disk`, or a combination.
    pub fn label(&self) -> String {
        let parts = self.parts(true);
        if parts.is_empty() {
            return "Cleartext, HTTP/1.1, full-speed client".into();
        }
        let mut s = parts.join(", ");
        s[..1].make_ascii_uppercase();
        s
    }

    /// A short name for chart bars: `cleartext`, `TLS`, `h2+TLS`, `CPU ÷4`, `disk`.
    pub fn short(&self) -> String {
        let parts = self.parts(false);
        if parts.is_empty() {
            "cleartext".into()
        } else {
            parts.join(" ")
        }
    }
}

impl RealtimeRow {
    pub fn id(&self) -> &str {
        &self.summary.scenario
    }

    fn flag(&self, key: &str) -> bool {
        self.summary.params.get(key).and_then(|v| v.as_bool()).unwrap_or(false)
    }

    fn number(&self, key: &str) -> u64 {
        self.summary.params.get(key).and_then(|v| v.as_u64()).unwrap_or(0)
    }

    pub fn series(&self) -> Series {
        let protocol = match self.summary.param("protocol") {
            Some("socketio") => Protocol::SocketIo,
            Some("ws") => Protocol::Ws,
            _ => Protocol::Http,
        };
        Series {
            protocol,
            direction: if self.summary.param("direction") == Some("upload") {
                Direction::Upload
            } else {
                Direction::Download
            },
            parallel: self.flag("parallel"),
            connect: self.flag("connect"),
        }
    }

    pub fn condition(&self) -> Condition {
        Condition {
            h2: self.summary.param("http") == Some("h2"),
            tls: self.flag("tls"),
            cpu_throttle: self.number("cpu_throttle").max(1) as u32,
            disk: self.flag("disk"),
            rtt_ms: self.number("rtt_ms") as u32,
            browser: Browser::of(self.runtime()),
        }
    }

    /// Messages per call.
    pub fn n(&self) -> u64 {
        self.number("n")
    }

    /// Extra request headers (HTTP rows of the header sweep).
    pub fn headers(&self) -> u64 {
        self.number("headers")
    }

    /// The browser the page ran in (`chromium@156…`).
    pub fn runtime(&self) -> Option<&str> {
        self.summary.param("runtime")
    }

    /// Milliseconds for N messages: the median, interval and repeats of `duration_s`, scaled.
    pub fn millis(&self) -> Option<Summary> {
        let s = self.summary.get(DURATION)?;
        Some(Summary {
            median: s.median * 1e3,
            mean: s.mean * 1e3,
            ci: s.ci.map(|(lo, hi)| (lo * 1e3, hi * 1e3)),
            ..*s
        })
    }

    /// The 95th percentile of the repeats' times in milliseconds (nearest rank: with 10 repeats,
    /// the slowest; with 20, the second slowest).
    pub fn p95_ms(&self) -> Option<f64> {
        let mut v: Vec<f64> = self.summary.by_repeat.get(DURATION)?.values().map(|s| s * 1e3).collect();
        v.sort_by(f64::total_cmp);
        let rank = ((v.len() as f64) * 0.95).ceil() as usize;
        v.get(rank.max(1) - 1).copied()
    }

    /// Milliseconds per message (median).
    pub fn ms_per_message(&self) -> Option<f64> {
        let n = self.n();
        (n > 0).then(|| self.millis().map(|s| s.median / n as f64)).flatten()
    }

    pub fn failed(&self) -> bool {
        self.summary.error.is_some()
    }

    /// The median time for N messages (`12.3 ms`), or `—`.
    pub fn time_text(&self) -> String {
        self.millis().map_or(NONE.to_string(), |s| ms(s.median))
    }

    /// The 95 % interval (`11.9 ms–12.8 ms`), or empty.
    pub fn ci_text(&self) -> String {
        self.millis().and_then(|s| s.ci).map_or(String::new(), |(lo, hi)| numbers::interval(lo, hi, ms))
    }

    /// `p95 13.1 ms` over the repeats, or empty with fewer than two.
    pub fn p95_text(&self) -> String {
        match self.p95_ms() {
            Some(p) if self.summary.ok_repeats > 1 => format!("p95 {}", ms(p)),
            _ => String::new(),
        }
    }
}

/// Milliseconds as the tables write them.
pub fn ms(x: f64) -> String {
    numbers::latency_us(x * 1e3)
}

/// What the section says under its tables.
pub const NOTE: &str = "Time for N messages: from the first message on an open connection (HTTP: a keep-alive \
    connection warmed by one request; WebSocket and Socket.IO: after the handshake, or before it in the \
    \u{201c}+ handshake\u{201d} columns) until the last one is verified: the median of the repeats, below it the \
    95 % interval of the mean and the repeats' 95th percentile. HTTP requests go one after the other unless the column says parallel (the browser then opens up \
    to 6 connections over HTTP/1.1, or multiplexes one over HTTP/2). \u{201c}X % faster\u{201d} means \
    (slower time \u{f7} faster time \u{2212} 1) \u{d7} 100 %.";

#[cfg(test)]
mod tests {
    use crate::fixture::{self, element, read};
    use crate::render;
    use std::io::Write as _;

    #[test]
    fn realtime_rows_get_their_own_tables_csv_and_charts() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        for repeat in 1..=3 {
            let jitter = 1.0 + repeat as f64 / 100.0;
            for n in [1u64, 10, 100] {
                for (protocol, per) in [("http", 0.0025), ("ws", 0.0001)] {
                    for direction in ["download", "upload"] {
                        for tls in [false, true] {
                            let s = per * n as f64 * jitter * if tls { 1.1 } else { 1.0 };
                            writeln!(f, "{}", fixture::realtime_line(protocol, direction, n, 0, tls, repeat, s))
                                .unwrap();
                        }
                    }
                }
            }
            let s = 0.25 * 1.2 * jitter;
            writeln!(f, "{}", fixture::realtime_line("http", "upload", 100, 100, false, repeat, s)).unwrap();
        }
        drop(f);
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        let section = element(&html, r#"<section id="realtime">"#, "</section>");
        let clear = element(section, r#"id="realtime-cleartext""#, "</table>");
        assert!(clear.contains("<th class=\"num\">HTTP GET</th><th class=\"num\">HTTP POST</th><th class=\"num\">WebSocket receive</th>"), "{clear}");
        // 100 GETs at 2.5 ms each, median repeat (× 1.02).
        let cell = element(clear, r#"data-scenario="http-download-h0-n100">"#, "</td>");
        assert!(cell.contains("<strong>255 ms</strong>") && cell.contains("p95 25"), "{cell}");
        assert!(section.contains(r#"id="realtime-TLS""#));
        let headers = element(section, r#"id="realtime-headers-cleartext""#, "</table>");
        assert!(headers.contains("1.20×"), "100 headers over none: {headers}");
        for chart in ["chart-realtime-by-n", "chart-realtime-headers", "chart-realtime-conditions"] {
            assert!(section.contains(&format!(r#"id="{chart}""#)), "{chart} drawn in the section");
        }
        // The realtime rows stay out of the load table.
        let scenarios = element(&html, r#"<table id="scenarios""#, "</table>");
        assert!(!scenarios.contains("http-download"));
        let csv = read(&dir.path().join("realtime.csv"));
        assert!(csv.starts_with("scenario,protocol,direction,n,headers,"));
        assert_eq!(csv.lines().count(), 1 + 25);
        assert!(
            csv.contains(
                "http-upload-h100-n100,http,upload,100,100,false,false,http/1.1,false,1,false,0,chromium@156,3,306,"
            ),
            "{csv}"
        );
        let md = read(&r.markdown);
        assert!(
            md.contains("## WebSocket vs HTTP: time for N messages") && md.contains("### TLS (HTTPS, WSS)"),
            "{md}"
        );
    }

    use super::*;
    use std::collections::BTreeMap;

    fn summary(id: &str, params: serde_json::Value, seconds: f64) -> ScenarioSummary {
        let all: BTreeMap<String, serde_json::Value> = serde_json::from_value(params).unwrap();
        ScenarioSummary {
            scenario: id.into(),
            subject: "realtime-node".into(),
            lang: "ts".into(),
            protocol: None,
            format: None,
            params: all,
            error: None,
            ok_repeats: 1,
            contended: 0,
            lost_repeats: 0,
            metrics: [(DURATION, Summary::of_measured(&[seconds]).unwrap())].into(),
            by_repeat: BTreeMap::new(),
            latency_curve: vec![],
            instrument_bound: false,
            net_bound: false,
            steps: vec![],
            workers: vec![],
            worker_skew_ms: None,
            lab: "realtime".into(),
            transport: None,
            net: None,
        }
    }

    fn p(protocol: &str, direction: &str, n: u64) -> serde_json::Value {
        serde_json::json!({"protocol": protocol, "direction": direction, "n": n, "headers": 0, "parallel": false,
            "connect": false, "tls": false, "cpu_throttle": 1, "disk": false})
    }

    fn with(mut v: serde_json::Value, key: &str, value: serde_json::Value) -> serde_json::Value {
        v[key] = value;
        v
    }

    #[test]
    fn sweeps_pivot_n_against_series_per_condition_base_first() {
        let rt = Realtime::of(vec![
            summary("ws-send-n10-tls", with(p("ws", "upload", 10), "tls", true.into()), 0.004),
            summary("http-get-n10", p("http", "download", 10), 0.030),
            summary("ws-send-n1", p("ws", "upload", 1), 0.002),
            summary("http-get-n1", p("http", "download", 1), 0.003),
            summary("http-get-parallel-n10", with(p("http", "download", 10), "parallel", true.into()), 0.020),
            summary("http-post-h10-n10", with(p("http", "upload", 10), "headers", 10.into()), 0.040),
            summary("http-get-n10-firefox", with(p("http", "download", 10), "runtime", "firefox@153.8.0".into()), 0.02),
        ]);
        let sweeps = rt.sweeps();
        let firefox = Condition { browser: Browser::Firefox, ..BASE };
        assert_eq!(
            sweeps.iter().map(|s| s.condition).collect::<Vec<_>>(),
            [BASE, Condition { tls: true, ..BASE }, firefox]
        );
        assert_eq!(sweeps[2].cells[0][0].map(RealtimeRow::id), Some("http-get-n10-firefox"));
        assert_eq!((firefox.label(), firefox.short()), ("Firefox".to_string(), "Firefox".to_string()));
        assert_eq!(Browser::of(Some("chromium@156.0.7467.2")), Browser::Chromium);
        let base = &sweeps[0];
        assert_eq!(base.ns, [1, 10]);
        let labels: Vec<String> = base.series.iter().map(Series::label).collect();
        assert_eq!(labels, ["HTTP GET", "HTTP GET parallel", "WebSocket send"]);
        assert_eq!(base.cells[0][1].map(RealtimeRow::id), None);
        assert_eq!(base.cells[1][1].map(RealtimeRow::id), Some("http-get-parallel-n10"));
        assert_eq!(base.points(0), [(1.0, 3.0), (10.0, 30.0)]);
        assert_eq!(base.cells[1][0].unwrap().ms_per_message(), Some(3.0));
        let mut ten = summary("t", p("ws", "upload", 1), 0.001);
        ten.by_repeat.insert(DURATION, (1..=10).map(|r| (r, r as f64 / 1000.0)).collect());
        ten.ok_repeats = 10;
        let ten = RealtimeRow { summary: ten };
        assert_eq!(ten.p95_ms(), Some(10.0));
        assert_eq!(ten.p95_text(), "p95 10.0 ms");
        assert_eq!(sweeps[1].condition.label(), "TLS (HTTPS, WSS)");
        assert_eq!(BASE.short(), "cleartext");
        let tls = Condition { tls: true, ..BASE };
        let mut all = [
            Condition { tls: true, ..firefox },
            Condition { disk: true, ..BASE },
            Condition { h2: true, ..tls },
            Condition { cpu_throttle: 4, ..BASE },
            tls,
            BASE,
        ];
        all.sort();
        let names: Vec<String> = all.iter().map(Condition::short).collect();
        assert_eq!(names, ["cleartext", "TLS", "h2+TLS", "CPU ÷4", "disk", "Firefox TLS"]);
    }

    #[test]
    fn time_against_round_trip_is_a_line_per_protocol_at_ten_and_the_largest_shared_n() {
        let mut rows = Vec::new();
        for rtt in [0u32, 20, 80] {
            let suffix = if rtt > 0 { format!("-rtt{rtt}") } else { String::new() };
            for n in [1u64, 10, 100] {
                // HTTP pays a round trip per request, the WebSocket one for all N.
                let http = n as f64 * (0.001 + f64::from(rtt) / 1e3);
                let ws = 0.0001 * n as f64 + f64::from(rtt) / 1e3;
                rows.push(summary(
                    &format!("http-get-n{n}{suffix}"),
                    with(p("http", "download", n), "rtt_ms", rtt.into()),
                    http,
                ));
                rows.push(summary(
                    &format!("ws-receive-n{n}{suffix}"),
                    with(p("ws", "download", n), "rtt_ms", rtt.into()),
                    ws,
                ));
            }
        }
        // Another condition and an N measured only on loopback are not on the chart.
        rows.push(summary("http-get-n1000", p("http", "download", 1000), 1.0));
        rows.push(summary("http-get-n10-tls", with(p("http", "download", 10), "tls", true.into()), 0.5));
        let rt = Realtime::of(rows);
        let Ok(Plot::Lines(l)) = rt.chart_by_rtt().expect("rows crossed a link").plot else { panic!("lines") };
        let titles: Vec<&str> = l.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["Download, N = 10", "Upload, N = 10", "Download, N = 100", "Upload, N = 100"]);
        assert!(
            l.x.scale == crate::charts::lines::AxisScale::Linear && l.y.scale == crate::charts::lines::AxisScale::Log
        );
        let (name, points) = &l.panels[2].lines[0];
        assert_eq!(name, "HTTP GET");
        // 100 GETs at 80 ms: 100 × 81 ms.
        assert_eq!(points.iter().map(|&(x, _)| x).collect::<Vec<_>>(), [0.0, 20.0, 80.0]);
        assert!((points[2].1 - 8.1e6).abs() < 1.0, "{points:?}");
        assert!(l.panels[1].lines.iter().all(|(_, pts)| pts.is_empty()), "no upload row");
        // The conditions chart leaves the links to this one.
        let Ok(Plot::Bars(b)) = rt.chart_conditions().plot else { panic!("bars") };
        assert!(
            b.legend.iter().all(|(label, _)| !label.contains("rtt")),
            "{:?}",
            b.legend.iter().map(|l| &l.0).collect::<Vec<_>>()
        );
        let loopback = Realtime::of(vec![summary("http-get-n10", p("http", "download", 10), 0.01)]);
        assert!(loopback.chart_by_rtt().is_none());
        let one_link = Realtime::of(vec![summary(
            "http-get-n10-rtt20",
            with(p("http", "download", 10), "rtt_ms", 20.into()),
            0.2,
        )]);
        assert!(one_link.chart_by_rtt().expect("a row crossed a link").plot.is_err(), "no loopback sweep beside it");
    }

    #[test]
    fn the_header_sweep_starts_at_the_rows_without_extra_headers() {
        let rt = Realtime::of(vec![
            summary("http-post-n100", p("http", "upload", 100), 0.2),
            summary("http-post-h10-n100", with(p("http", "upload", 100), "headers", 10.into()), 0.21),
            summary("http-post-h100-n100", with(p("http", "upload", 100), "headers", 100.into()), 0.25),
            summary("http-post-n10", p("http", "upload", 10), 0.02),
        ]);
        let all = rt.headers();
        assert_eq!(all.len(), 1);
        let h = &all[0];
        assert_eq!((h.n, h.counts.as_slice()), (100, [0, 10, 100].as_slice()));
        assert_eq!(h.cells[0][0].map(RealtimeRow::id), Some("http-post-n100"));
        assert!((h.slowdown(2, 0).unwrap() - 1.25).abs() < 1e-9);
        assert!(Realtime::of(vec![summary("x", p("ws", "upload", 1), 0.1)]).headers().is_empty());
    }
}
