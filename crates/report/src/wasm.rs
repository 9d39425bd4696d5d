//! The wasm lab's tables, computed once: rows of harnesses that time one kernel one way
//! (summaries with `kernel` and `impl` parameters: `suites/wasm.toml`), laid out as the study's
//! Tables 5.4 (Canvas filters) and 5.3 (Web Worker kernels) with its published numbers beside ours.
//!
//! Depends on no other module of the report but `format`: the model holds a `Wasm`, the outputs
//! render it.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::format::{self, NONE};

/// Metric ids of the wasm tables (`wirebench_core::results::SUMMARY_METRICS`).
pub const KERNEL: &str = "kernel_ms";
pub const COPY_IN: &str = "copy_in_ms";
pub const COPY_OUT: &str = "copy_out_ms";
pub const ROUNDTRIP: &str = "roundtrip_ms";

/// Every wasm row of a run, in the order they ran.
#[derive(Debug, Clone, Default)]
pub struct Wasm {
    pub rows: Vec<WasmRow>,
}

/// One kernel run one way (`js`, `wasm`, `wasm-buffer`, `wasm-simd-buffer`, `native`) on one
/// thread.
#[derive(Debug, Clone)]
pub struct WasmRow {
    pub summary: ScenarioSummary,
}

/// True for a summary the wasm tables take.
pub fn is_wasm(s: &ScenarioSummary) -> bool {
    s.format.is_none() && s.param("kernel").is_some() && s.param("impl").is_some()
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
pub type Column = (&'static str, Source);

/// One of the two tables: the study's table it mirrors, its kernels and its columns.
pub struct Table {
    pub id: &'static str,
    pub title: &'static str,
    pub kernels: &'static [&'static str],
    pub columns: &'static [Column],
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

/// The study's published times in ms, JS and wasm (Tables 5.4 and 5.3 as printed).
pub const STUDY: &[(&str, f64, f64)] = &[
    ("grayscale", 23.6, 26.3),
    ("brightness", 22.1, 34.3),
    ("contrast", 28.4, 51.1),
    ("blur", 1308.5, 371.3),
    ("small", 9.6, 43.1),
    ("large", 113.3, 91.69),
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
    pub fn of(summaries: Vec<ScenarioSummary>) -> Wasm {
        Wasm { rows: summaries.into_iter().map(|summary| WasmRow { summary }).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn failed(&self) -> impl Iterator<Item = &WasmRow> {
        self.rows.iter().filter(|r| r.failed())
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
    pub fn cell(&self, kernel: &str, source: Source) -> Cell<'_> {
        match source {
            Source::Ours { way, thread } => match self.find(kernel, way, thread) {
                Some(r) => Cell { text: r.time_text(), sub: r.sub_text(), row: Some(r) },
                None => Cell::text(NONE.to_string()),
            },
            Source::Ratio { num, den } => {
                Cell::text(self.ratio(kernel, num, den).map_or(NONE.to_string(), format::ratio))
            }
            Source::Study(p) => Cell::text(study(kernel, p).map_or(NONE.to_string(), |v| match p {
                Published::Speedup => format::ratio(v),
                _ => ms(v),
            })),
        }
    }
}

/// A table cell.
pub struct Cell<'a> {
    pub text: String,
    /// Lines under the number: the interval, the copies.
    pub sub: Vec<String>,
    pub row: Option<&'a WasmRow>,
}

impl Cell<'_> {
    fn text(text: String) -> Self {
        Cell { text, sub: Vec::new(), row: None }
    }
}

/// The study's number for a kernel.
pub fn study(kernel: &str, p: Published) -> Option<f64> {
    let &(_, js, wasm) = STUDY.iter().find(|(k, _, _)| *k == kernel)?;
    Some(match p {
        Published::Js => js,
        Published::Wasm => wasm,
        Published::Speedup => js / wasm,
    })
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
            parts.push(format::interval(lo, hi, ms));
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
    format::latency_us(x * 1e3)
}
