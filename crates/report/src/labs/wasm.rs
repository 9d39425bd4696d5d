//! The wasm lab (`suites/wasm.toml`, `subjects/wasm/`, `web/pages/wasm/`): harness rows that time
//! one kernel one way, laid out as the study's Tables 5.4 (Canvas filters) and 5.3 (Web Worker
//! kernels) with its published numbers beside ours; its chart and `wasm.csv`.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;
use wirebench_core::suite::PublishedTable;

use crate::charts::panels::{self, Axis, Bars, Group, Panel};
use crate::charts::{color, Key, Plot, Spec};
use crate::numbers::{self, NONE};
use crate::section::{harness_rows, Block, Lab, Para, Run, Section};
use crate::table::{self, ci_hi, ci_lo, error, median, param, raw, Cell, Column, Csv, Field, Text};

/// The lab.
pub struct WasmLab;

impl Lab for WasmLab {
    fn id(&self) -> &'static str {
        "wasm"
    }

    fn section(&self, rows: &[&ScenarioSummary], run: &Run<'_>) -> Option<Section> {
        let rows = harness_rows(rows)?;
        let w = Wasm::of(rows.iter().map(|s| (*s).clone()).collect(), run.published);
        let mut s = Section::new("wasm", "WebAssembly vs JavaScript: kernel time");
        if let Some(browser) = w.rows.iter().find_map(|r| r.runtime()) {
            s.para(
                Para::Lede,
                Text::plain("In ").and_code(browser).and(format!("; the study's numbers are from {SOURCE}.")),
            );
        }
        for t in w.tables() {
            s.push(Block::Table(w.table(t)));
        }
        s.failures("wasm-failures", w.rows.iter().map(|r| &r.summary), run);
        s.para(Para::Small, NOTE);
        s.push(Block::Chart(w.chart()));
        s.csv.push(w.csv());
        Some(s)
    }
}

/// Metric ids of the wasm tables (`wirebench_core::metrics::METRICS`).
pub const KERNEL: &str = "kernel_ms";
pub const COPY_IN: &str = "copy_in_ms";
pub const COPY_OUT: &str = "copy_out_ms";
pub const ROUNDTRIP: &str = "roundtrip_ms";

/// Every wasm row of a run, in the order they ran.
#[derive(Debug, Clone, Default)]
pub struct Wasm {
    pub rows: Vec<WasmRow>,
    /// The study's times per kernel, in the order its tables give them.
    pub studies: Vec<(String, Study)>,
}

/// One kernel run one way (`js`, `wasm`, `wasm-buffer`, `wasm-simd-buffer`, `native`) on one
/// thread.
#[derive(Debug, Clone)]
pub struct WasmRow {
    pub summary: ScenarioSummary,
    /// The study's JS and wasm times of this row's kernel, in ms.
    pub study: Study,
}

/// The study's published times of one kernel in ms (the suite's `[[published]]` tables on
/// `kernel_ms`), each where a table gives it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Study {
    pub js: Option<f64>,
    pub wasm: Option<f64>,
}

impl Study {
    /// The study's number of `p`: a time, or JS ÷ wasm.
    pub fn get(&self, p: Published) -> Option<f64> {
        match p {
            Published::Js => self.js,
            Published::Wasm => self.wasm,
            Published::Speedup => Some(self.js? / self.wasm?),
        }
    }
}

/// Where a column's number comes from.
#[derive(Debug, Clone, Copy)]
pub enum Source {
    /// Our median kernel time of one way on one thread.
    Ours { way: &'static str, thread: &'static str },
    /// The ratio of two of our medians (JS ÷ wasm: the study's "speedup").
    Ratio { num: (&'static str, &'static str), den: (&'static str, &'static str) },
    /// The study's published JS or wasm time, or its ratio.
    Study(Published),
}

#[derive(Debug, Clone, Copy)]
pub enum Published {
    Js,
    Wasm,
    Speedup,
}

/// A column: its header and its source.
pub type StudyColumn = (&'static str, Source);

/// One of the two tables: the study's table it mirrors, its kernels and its columns.
pub struct Table {
    pub id: &'static str,
    pub title: &'static str,
    pub kernels: &'static [&'static str],
    pub columns: &'static [StudyColumn],
}

const JS_MAIN: (&str, &str) = ("js", "main");
const WASM_MAIN: (&str, &str) = ("wasm", "main");
const JS_WORKER: (&str, &str) = ("js", "worker");
const WASM_WORKER: (&str, &str) = ("wasm", "worker");

/// The study's Table 5.4 and Table 5.3, with ours first.
pub const TABLES: &[Table] = &[
    Table {
        id: "filters",
        title: "Canvas filters on a 4K image (the study's Table 5.4)",
        kernels: &["grayscale", "brightness", "contrast", "blur"],
        columns: &[
            ("JS", Source::Ours { way: "js", thread: "main" }),
            ("wasm, the study's call", Source::Ours { way: "wasm", thread: "main" }),
            ("JS ÷ wasm", Source::Ratio { num: JS_MAIN, den: WASM_MAIN }),
            ("wasm, buffer", Source::Ours { way: "wasm-buffer", thread: "main" }),
            ("wasm SIMD, buffer", Source::Ours { way: "wasm-simd-buffer", thread: "main" }),
            ("native Rust", Source::Ours { way: "native", thread: "main" }),
            ("study: JS", Source::Study(Published::Js)),
            ("study: wasm", Source::Study(Published::Wasm)),
            ("study: JS ÷ wasm", Source::Study(Published::Speedup)),
        ],
    },
    Table {
        id: "workers",
        title: "Web Worker kernels (the study's Table 5.3)",
        kernels: &["small", "large"],
        columns: &[
            ("JS, worker", Source::Ours { way: "js", thread: "worker" }),
            ("wasm per element, worker", Source::Ours { way: "wasm", thread: "worker" }),
            ("JS ÷ wasm", Source::Ratio { num: JS_WORKER, den: WASM_WORKER }),
            ("wasm, buffer, worker", Source::Ours { way: "wasm-buffer", thread: "worker" }),
            ("wasm SIMD, buffer, worker", Source::Ours { way: "wasm-simd-buffer", thread: "worker" }),
            ("JS, page thread", Source::Ours { way: "js", thread: "main" }),
            ("wasm per element, page thread", Source::Ours { way: "wasm", thread: "main" }),
            ("native Rust", Source::Ours { way: "native", thread: "main" }),
            ("study: JS", Source::Study(Published::Js)),
            ("study: wasm", Source::Study(Published::Wasm)),
            ("study: JS ÷ wasm", Source::Study(Published::Speedup)),
        ],
    },
];

/// Where the published numbers come from.
pub const SOURCE: &str = "Tables 5.3 and 5.4 of the study \u{201c}Ways to optimize web applications\u{201d}";

/// What the section says under its tables.
pub const NOTE: &str = "Kernel time: the median of the repeats with, below it, the 95 % interval of the mean. \
    \u{201c}The study's call\u{201d} is wasm as the study called it: a filter takes the image as wasm-bindgen's \
    &mut [u8], whose glue copies it into wasm memory and back inside the timer; a worker kernel reads the \
    Float64Array one element at a time across the JS\u{2194}wasm boundary. \u{201c}Buffer\u{201d} keeps the data in wasm \
    memory: the timer holds the kernel alone, and the copies in and out are shown below it. Every result \
    was checked against native Rust before any time counted. JS \u{f7} wasm above 1 means wasm is faster.";

impl Wasm {
    /// The rows and the study's times per kernel from `published`. A table row names one of our
    /// rows the suite's way, `{kernel}-{js|wasm}[-…]` (`grayscale-js`, `large-wasm-per-element-worker`),
    /// which says the kernel and the way even when that row did not run.
    pub fn of(summaries: Vec<ScenarioSummary>, published: &[PublishedTable]) -> Wasm {
        let mut studies: Vec<(String, Study)> = Vec::new();
        for p in published.iter().filter(|t| t.metric == KERNEL).flat_map(|t| &t.rows) {
            let mut parts = p.scenario.split('-');
            let (Some(kernel), Some(way)) = (parts.next(), parts.next()) else { continue };
            let i = studies.iter().position(|(k, _)| k == kernel).unwrap_or_else(|| {
                studies.push((kernel.to_string(), Study::default()));
                studies.len() - 1
            });
            match way {
                "js" => studies[i].1.js = Some(p.value),
                "wasm" => studies[i].1.wasm = Some(p.value),
                _ => {}
            }
        }
        let study = |kernel: Option<&str>| {
            studies.iter().find(|(k, _)| Some(k.as_str()) == kernel).map_or_else(Study::default, |(_, s)| *s)
        };
        let rows =
            summaries.into_iter().map(|summary| WasmRow { study: study(summary.param("kernel")), summary }).collect();
        Wasm { rows, studies }
    }

    /// The study's times of `kernel`.
    pub fn study(&self, kernel: &str) -> Study {
        self.studies.iter().find(|(k, _)| k == kernel).map_or_else(Study::default, |(_, s)| *s)
    }

    /// The row of `kernel` run `way` on `thread`.
    pub fn find(&self, kernel: &str, way: &str, thread: &str) -> Option<&WasmRow> {
        self.rows.iter().find(|r| r.kernel() == kernel && r.way() == way && r.thread() == thread)
    }

    /// The tables with at least one of their kernels measured.
    pub fn tables(&self) -> impl Iterator<Item = &'static Table> + '_ {
        TABLES.iter().filter(|t| t.kernels.iter().any(|k| self.rows.iter().any(|r| r.kernel() == *k)))
    }

    /// The median of one way ÷ the median of another (JS ÷ wasm).
    pub fn ratio(&self, kernel: &str, num: (&str, &str), den: (&str, &str)) -> Option<f64> {
        let m = |(way, thread)| self.find(kernel, way, thread)?.kernel_ms().map(|s| s.median);
        let (a, b) = (m(num)?, m(den)?);
        (b > 0.0).then(|| a / b)
    }

    /// One cell's text: the main line, the line below it (interval, copies), and the row it shows.
    pub fn cell(&self, kernel: &str, source: Source) -> WasmCell<'_> {
        match source {
            Source::Ours { way, thread } => match self.find(kernel, way, thread) {
                Some(r) => WasmCell { text: r.time_text(), sub: r.sub_text(), row: Some(r) },
                None => WasmCell::text(NONE.to_string()),
            },
            Source::Ratio { num, den } => {
                WasmCell::text(self.ratio(kernel, num, den).map_or(NONE.to_string(), numbers::ratio))
            }
            Source::Study(p) => WasmCell::text(self.study(kernel).get(p).map_or(NONE.to_string(), |v| match p {
                Published::Speedup => numbers::ratio(v),
                _ => ms(v),
            })),
        }
    }
    /// One of the study's tables, ours beside its numbers.
    fn table(&self, t: &Table) -> table::Table {
        let mut columns = vec![Column::text("Kernel")];
        columns.extend(
            t.columns
                .iter()
                .map(|(label, source)| Column { shade: matches!(source, Source::Study(_)), ..Column::num(*label) }),
        );
        let rows = t
            .kernels
            .iter()
            .map(|k| {
                let mut cells = vec![Cell::code(*k)];
                cells.extend(t.columns.iter().map(|&(_, source)| {
                    let c = self.cell(k, source);
                    Cell {
                        main: matches!(source, Source::Ours { .. } | Source::Ratio { .. }),
                        ci: c.sub,
                        scenario: c.row.map(|r| r.id().to_string()),
                        failed: c.row.is_some_and(|r| r.failed()),
                        shade: matches!(source, Source::Study(_)),
                        ..Cell::new(c.text)
                    }
                }));
                table::Row { head: true, cells, ..table::Row::default() }
            })
            .collect();
        table::Table::new(t.id, columns, rows).titled(t.title)
    }

    /// JS ÷ wasm per kernel, the study's published ratio beside ours with wasm called the study's
    /// way and over a buffer in wasm memory, a panel per study table.
    fn chart(&self) -> Spec {
        let mut out = Vec::new();
        for t in self.tables() {
            // The thread the study ran the table's kernels on.
            let thread = if t.id == "workers" { "worker" } else { "main" };
            let mut groups = Vec::new();
            for k in t.kernels {
                let bar = |value: f64, color| panels::Bar { value, ci: None, color, label: numbers::ratio(value) };
                let mut bars = Vec::new();
                if let Some(v) = self.study(k).get(Published::Speedup) {
                    bars.push(bar(v, STUDY_GRAY));
                }
                for (i, way) in ["wasm", "wasm-buffer"].iter().enumerate() {
                    if let Some(v) = self.ratio(k, ("js", thread), (way, thread)) {
                        bars.push(bar(v, color(i)));
                    }
                }
                if bars.len() > 1 {
                    groups.push(Group { label: (*k).to_string(), bars });
                }
            }
            if !groups.is_empty() {
                out.push(Panel { title: t.title.to_string(), groups });
            }
        }
        let legend = vec![
            ("the study".to_string(), Key::Bar(STUDY_GRAY)),
            ("ours, wasm called as the study did".to_string(), Key::Bar(color(0))),
            ("ours, wasm over its own memory".to_string(), Key::Bar(color(1))),
        ];
        let axis = Axis { desc: "JS time ÷ wasm time (above 1: wasm is faster)", tick: panels::tick };
        Spec {
            name: "wasm-speedup",
            title: "JavaScript ÷ WebAssembly: the study and ours",
            plot: if out.is_empty() {
                Err("no kernel has both a JavaScript and a WebAssembly row".into())
            } else {
                Ok(Plot::Bars(Bars { legend, panels: out, axis }))
            },
            note: Some(
                "Ratios of medians. The study's call copies the image in and out of wasm memory inside the timer \
                 (filters) or reads each element across the boundary (worker kernels); over its own memory the \
                 timer holds the kernel alone."
                    .into(),
            ),
        }
    }

    /// `wasm.csv`: one line per kernel and way, in the order they ran, with the study's times.
    fn csv(&self) -> Csv {
        Csv::of("wasm.csv", CSV, &self.rows)
    }
}

/// Gray for the study's bars.
const STUDY_GRAY: plotters::style::RGBColor = plotters::style::RGBColor(150, 150, 150);

/// The columns of `wasm.csv`: times in ms.
const CSV: &[Field<WasmRow>] = &[
    ("scenario", |r| r.id().into()),
    ("kernel", |r| r.kernel().into()),
    ("impl", |r| r.way().into()),
    ("thread", |r| r.thread().into()),
    ("crossing", |r| param(&r.summary, "crossing")),
    ("simd", |r| param(&r.summary, "simd")),
    ("width", |r| param(&r.summary, "width")),
    ("height", |r| param(&r.summary, "height")),
    ("len", |r| param(&r.summary, "len")),
    ("runtime", |r| r.runtime().unwrap_or_default().into()),
    ("ok_repeats", |r| r.summary.ok_repeats.to_string()),
    ("kernel_ms_median", |r| median(&r.summary, KERNEL)),
    ("kernel_ms_ci_lo", |r| ci_lo(&r.summary, KERNEL)),
    ("kernel_ms_ci_hi", |r| ci_hi(&r.summary, KERNEL)),
    ("copy_in_ms", |r| median(&r.summary, COPY_IN)),
    ("copy_out_ms", |r| median(&r.summary, COPY_OUT)),
    ("roundtrip_ms", |r| median(&r.summary, ROUNDTRIP)),
    ("study_js_ms", |r| raw(r.study.js)),
    ("study_wasm_ms", |r| raw(r.study.wasm)),
    ("error", |r| error(&r.summary)),
];

/// A table cell as the lab computes it.
pub struct WasmCell<'a> {
    pub text: String,
    /// Lines under the number: the interval, the copies.
    pub sub: Vec<String>,
    pub row: Option<&'a WasmRow>,
}

impl WasmCell<'_> {
    fn text(text: String) -> Self {
        WasmCell { text, sub: Vec::new(), row: None }
    }
}

impl WasmRow {
    pub fn id(&self) -> &str {
        &self.summary.scenario
    }

    pub fn kernel(&self) -> &str {
        self.summary.param("kernel").unwrap_or("")
    }

    /// `js`, `wasm` (the study's call), `wasm-buffer`, `wasm-simd-buffer`, `native`.
    pub fn way(&self) -> &str {
        self.summary.param("impl").unwrap_or("")
    }

    /// `main` (the page's thread, or the native process) or `worker`.
    pub fn thread(&self) -> &str {
        self.summary.param("thread").unwrap_or("main")
    }

    /// The browser of page rows (`chromium@156…`).
    pub fn runtime(&self) -> Option<&str> {
        self.summary.param("runtime")
    }

    pub fn kernel_ms(&self) -> Option<&Summary> {
        self.summary.get(KERNEL)
    }

    pub fn median(&self, metric: &str) -> Option<f64> {
        self.summary.get(metric).map(|s| s.median)
    }

    pub fn failed(&self) -> bool {
        self.summary.error.is_some()
    }

    /// `12.3 ms`, or a dash.
    pub fn time_text(&self) -> String {
        self.kernel_ms().map_or(NONE.to_string(), |s| ms(s.median))
    }

    /// The interval, then the copies of buffer rows: `11.9 ms–12.8 ms`, `copies 2.7 ms + 2.9 ms`.
    pub fn sub_text(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if let Some((lo, hi)) = self.kernel_ms().and_then(|s| s.ci) {
            parts.push(numbers::interval(lo, hi, ms));
        }
        if let (Some(i), Some(o)) = (self.median(COPY_IN), self.median(COPY_OUT)) {
            parts.push(format!("copies {} + {}", ms(i), ms(o)));
        } else if let Some(i) = self.median(COPY_IN) {
            parts.push(format!("copy in {}", ms(i)));
        }
        parts
    }
}

/// Milliseconds as the tables write them.
fn ms(x: f64) -> String {
    numbers::latency_us(x * 1e3)
}

#[cfg(test)]
mod tests {
    use crate::fixture::{self, element, read};
    use crate::render;
    use std::io::Write as _;

    #[test]
    fn wasm_rows_get_the_study_tables_beside_its_numbers_csv_and_chart() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        for repeat in 1..=3 {
            let jitter = 1.0 + f64::from(repeat) / 100.0;
            for (way, ms) in [("js", 30.0), ("wasm", 20.0), ("wasm-buffer", 12.0), ("native", 9.0)] {
                writeln!(f, "{}", fixture::wasm_line("grayscale", way, "main", repeat, ms * jitter)).unwrap();
            }
            for (way, ms) in [("js", 6.0), ("wasm", 18.0)] {
                writeln!(f, "{}", fixture::wasm_line("small", way, "worker", repeat, ms * jitter)).unwrap();
            }
        }
        drop(f);
        fixture::add_published(dir.path(), "wasm");
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        let section = element(&html, r#"<section id="wasm">"#, "</section>");
        let filters = element(section, r#"id="filters""#, "</table>");
        // Ours (median of 30.6 ms, JS ÷ wasm 1.5×) beside the study's (23.6 ms, 0.897×).
        assert!(
            filters.contains("<strong>30.6 ms</strong>") && filters.contains("<strong>1.50×</strong>"),
            "{filters}"
        );
        assert!(filters.contains("23.6 ms") && filters.contains("0.897×"), "the study's numbers: {filters}");
        assert!(filters.contains("copies 2.50 ms + 2.50 ms"), "the buffer row's copies: {filters}");
        let workers = element(section, r#"id="workers""#, "</table>");
        assert!(workers.contains("<strong>0.333×</strong>") && workers.contains("43.1 ms"), "{workers}");
        assert!(section.contains(r#"id="chart-wasm-speedup""#));
        // The wasm rows stay out of the load table.
        let scenarios = element(&html, r#"<table id="scenarios""#, "</table>");
        assert!(!scenarios.contains("grayscale-js"));
        let csv = read(&dir.path().join("wasm.csv"));
        assert!(csv.starts_with("scenario,kernel,impl,thread,"));
        assert_eq!(csv.lines().count(), 1 + 6);
        assert!(csv.contains(",23.6,26.3,"), "the study's times per row: {csv}");
        assert!(read(&r.markdown).contains("## WebAssembly vs JavaScript: kernel time"));
    }
}
