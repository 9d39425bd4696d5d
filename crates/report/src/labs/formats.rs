//! The formats lab (`suites/formats.toml`, `subjects/formats/`): in-process serialization
//! measurements grouped by dataset, each row with its round-trip total, its speed relative to the
//! fastest of its dataset and language, its flags and, where the study measured the same thing,
//! the published row beside it; its two charts and `formats.csv`.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;
use wirebench_core::suite::PublishedTable;

use crate::charts::panels::{self, Axis, Bar, Bars, Group, Panel};
use crate::charts::{color, Key, Plot, Spec};
use crate::load::{flags_cell, FAILED};
use crate::numbers::{self, NONE};
use crate::section::{harness_rows, Block, Lab, Para, Run, Section};
use crate::table::{self, ci_hi, ci_lo, error, median, param, raw, Badge, Cell, Column, Csv, Field, Text};

/// The lab.
pub struct FormatsLab;

impl Lab for FormatsLab {
    fn id(&self) -> &'static str {
        "formats"
    }

    fn section(&self, rows: &[&ScenarioSummary], run: &Run<'_>) -> Option<Section> {
        let rows = harness_rows(rows)?;
        let f = Formats::of(rows.iter().map(|s| (*s).clone()), run.published);
        let mut s = Section::new("formats-section", "Formats");
        s.push(Block::Table(f.table(run.repeats)));
        if f.has_published() {
            if let Some(note) = slips_note(run.published) {
                s.push(Block::Caution("published-note", Text::plain(note)));
            }
            s.para(Para::Small, caveat());
        }
        s.push(Block::Legend(vec![NOISY, FAILED]));
        s.para(Para::Small, FORMATS_NOTE);
        s.para(
            Para::Plain,
            format!(
                "Each serialization harness measures in its own process. It first checks that every encoding \
                 decodes to a value equal to the input (a pair that fails is reported and never timed); then, in \
                 each of the {} repeats, it times one encode and one decode of the whole dataset as the median of \
                 many samples, after a warm-up. The formats table shows the median over repeats and the 95 % \
                 confidence interval of their mean (Student's t), absent with one repeat.",
                run.repeats
            ),
        );
        s.push(Block::Chart(f.chart_times()));
        s.push(Block::Chart(f.chart_sizes()));
        s.csv.push(f.csv());
        Some(s)
    }
}

/// Serialize or deserialize time varied across repeats (the load table's wording speaks of req/s).
pub const NOISY: Badge = Badge {
    id: "noisy",
    meaning: "serialize or deserialize time varied by more than 10 % (coefficient of variation) across repeats",
};

/// Metric ids of the formats table (`wirebench_core::metrics::METRICS`).
pub const SERIALIZE: &str = "serialize_ns";
/// See `SERIALIZE`.
pub const DESERIALIZE: &str = "deserialize_ns";
/// Sizes in table order: the encoding, then gzip and zstd of it.
pub const SIZES: [&str; 3] = ["size_bytes", "size_gzip_bytes", "size_zstd_bytes"];
/// Heap bytes allocated by one encode and one decode, where the harness's runtime counts them.
pub const ALLOC_BYTES: [&str; 2] = ["serialize_alloc_bytes", "deserialize_alloc_bytes"];
/// Heap allocations (calls) of one encode and one decode.
pub const ALLOCS: [&str; 2] = ["serialize_allocs", "deserialize_allocs"];

/// Every harness row of a run, by dataset.
#[derive(Debug, Clone, Default)]
pub struct Formats {
    /// In order of first appearance in the measurements.
    pub datasets: Vec<Dataset>,
}

/// The rows measured on one dataset.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// `params.dataset`; `None` for rows that do not name one.
    pub name: Option<String>,
    /// `params.objects` of the first row, for the heading.
    pub objects: Option<u64>,
    /// Fastest total first; rows without a total (no repeat completed) last, in run order.
    pub rows: Vec<FormatRow>,
}

/// One (dataset, format, language) as the report shows it.
#[derive(Debug, Clone)]
pub struct FormatRow {
    pub summary: ScenarioSummary,
    pub flags: Vec<Badge>,
    /// Serialize + deserialize; `None` unless both were measured.
    pub total: Option<Total>,
    /// Total ÷ the fastest total of the same dataset and language (1 for the fastest).
    pub relative: Option<f64>,
    /// The study's row for the same dataset, language and format.
    pub published: Option<Published>,
    /// True when the study measured this row's dataset in this row's language (whatever the
    /// format): some row of the same dataset and language has the study's numbers.
    pub studied: bool,
}

/// One encode plus one decode, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Total {
    /// Sum of the two medians.
    pub median_ns: f64,
    /// Sum of the lower bounds .. sum of the upper bounds of the two 95 % intervals: it holds the
    /// sum whenever both intervals hold their means, so it is conservative. `None` unless both
    /// phases have an interval.
    pub interval_ns: Option<(f64, f64)>,
}

impl Total {
    fn of(serialize: &Summary, deserialize: &Summary) -> Total {
        let interval_ns = serialize.ci.zip(deserialize.ci).map(|((sl, sh), (dl, dh))| (sl + dl, sh + dh));
        Total { median_ns: serialize.median + deserialize.median, interval_ns }
    }
}

impl Formats {
    /// Groups the lab's summaries by dataset, each row with the study's numbers from `published`.
    pub fn of(summaries: impl IntoIterator<Item = ScenarioSummary>, published: &[PublishedTable]) -> Formats {
        let mut datasets: Vec<Dataset> = Vec::new();
        for s in summaries {
            let name = s.param("dataset").map(str::to_string);
            let i = datasets.iter().position(|d| d.name == name).unwrap_or_else(|| {
                let objects = s.params.get("objects").and_then(|v| v.as_u64());
                datasets.push(Dataset { name: name.clone(), objects, rows: Vec::new() });
                datasets.len() - 1
            });
            datasets[i].rows.push(FormatRow::of(s, published));
        }
        for d in &mut datasets {
            d.rank();
            let studied: Vec<String> =
                d.rows.iter().filter(|r| r.published.is_some()).map(|r| r.lang().to_string()).collect();
            for r in &mut d.rows {
                r.studied = studied.iter().any(|l| l == r.lang());
            }
        }
        Formats { datasets }
    }

    /// Every row, dataset by dataset in table order.
    pub fn rows(&self) -> impl Iterator<Item = &FormatRow> {
        self.datasets.iter().flat_map(|d| &d.rows)
    }

    /// True when some row has the study's numbers beside it.
    pub fn has_published(&self) -> bool {
        self.rows().any(|r| r.published.is_some())
    }
}

impl Dataset {
    /// The heading: the dataset id, or `no dataset` for rows without one.
    pub fn title(&self) -> &str {
        self.name.as_deref().unwrap_or("no dataset")
    }

    /// Sorts by total and fills in each row's ratio to the fastest of its language.
    fn rank(&mut self) {
        // Stable: equal totals and rows without one keep the order they ran in.
        self.rows.sort_by(|a, b| match (&a.total, &b.total) {
            (Some(x), Some(y)) => x.median_ns.total_cmp(&y.median_ns),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        let fastest = |lang: &str| {
            self.rows
                .iter()
                .filter(|r| r.lang() == lang)
                .filter_map(|r| r.total.map(|t| t.median_ns))
                .fold(f64::INFINITY, f64::min)
        };
        let best: Vec<f64> = self.rows.iter().map(|r| fastest(r.lang())).collect();
        for (r, best) in self.rows.iter_mut().zip(best) {
            r.relative = r.total.filter(|_| best > 0.0 && best.is_finite()).map(|t| t.median_ns / best);
        }
    }
}

impl FormatRow {
    fn of(summary: ScenarioSummary, tables: &[PublishedTable]) -> FormatRow {
        let mut flags = Vec::new();
        if summary.error.is_some() {
            flags.push(FAILED);
        }
        if [SERIALIZE, DESERIALIZE].iter().any(|m| summary.get(m).is_some_and(Summary::noisy)) {
            flags.push(NOISY);
        }
        let total = summary.get(SERIALIZE).zip(summary.get(DESERIALIZE)).map(|(s, d)| Total::of(s, d));
        let published = Published::of(tables, &summary.scenario);
        FormatRow { summary, flags, total, relative: None, published, studied: false }
    }

    /// The format id (`msgpack`).
    pub fn format(&self) -> &str {
        self.summary.format.as_deref().unwrap_or("")
    }

    /// The language of the harness (`rust`).
    pub fn lang(&self) -> &str {
        &self.summary.lang
    }

    /// `params.library`, e.g. `rmp-serde@1.3.0`.
    pub fn library(&self) -> Option<&str> {
        self.summary.param("library")
    }

    /// Summary of a metric over the completed repeats.
    pub fn metric(&self, name: &str) -> Option<&Summary> {
        self.summary.get(name)
    }

    /// True when a repeat failed (the error is in `summary.error`).
    pub fn failed(&self) -> bool {
        self.summary.error.is_some()
    }

    /// Our median encoding size ÷ the published one.
    pub fn size_vs_published(&self) -> Option<f64> {
        let ours = self.metric(SIZES[0])?.median;
        let theirs = self.published?.size_bytes as f64;
        (theirs > 0.0).then(|| ours / theirs)
    }
}

/// Columns of the formats table before the published ones, and whether each is numeric.
const COLUMNS: &[(&str, bool)] = &[
    ("Format", false),
    ("Language", false),
    ("Library", false),
    ("Size (bytes)", true),
    ("gzip (bytes)", true),
    ("zstd (bytes)", true),
    ("Serialize ms (median, 95 % CI)", true),
    ("Deserialize ms (median, 95 % CI)", true),
    (TOTAL_LABEL, true),
    ("× fastest", true),
    (ALLOC_LABEL, true),
];

/// Header of the allocation column, which carries `ALLOC_TITLE`.
const ALLOC_LABEL: &str = "Allocated per op (ser / de)";
const ALLOC_TITLE: &str = "Heap bytes (and allocation calls) of one encode / one decode, as the language's \
    runtime counts them (Rust: a counting allocator; Go: runtime.MemStats; Java: JMH's gc profiler, bytes only). \
    Not comparable across languages with garbage collectors and without.";

/// Header of the total column, which carries `TOTAL_TITLE`.
const TOTAL_LABEL: &str = "Total ms (ser + de)";

/// The published columns, shown when some row of the run has the study's numbers.
const PUBLISHED_COLUMNS: &[&str] = &["Published total ms", "Published bytes", "Size ÷ published"];

/// How the total and its interval are made, for the total column's `title`.
pub const TOTAL_TITLE: &str = "Serialize median + deserialize median. Interval: the sum of the two \
    lower bounds to the sum of the two upper bounds of their 95 % CIs (conservative).";

/// What the formats table's numbers are, for the note under it.
const FORMATS_NOTE: &str = "Times are one encode or one decode of the whole dataset: each repeat \
    reports the median of its samples; the table shows the median over repeats and the 95 % CI of \
    their mean. × fastest divides a row's total by the fastest total of the same dataset and \
    language. The total is the serialize median plus the deserialize median; its interval runs from \
    the sum of the two lower bounds to the sum of the two upper bounds. Sizes are the encoding and its \
    gzip and zstd compression; KB = 1,000 bytes.";

/// How far towards white the deserialize bars are.
const DESERIALIZE_TINT: f64 = 0.55;
/// Series labels and palette indices of the three sizes, in `SIZES` order.
const SIZE_SERIES: [(&str, usize); 3] = [("raw", 0), ("gzip", 4), ("zstd", 6)];

impl Formats {
    /// One table, a group of rows per dataset, the study's numbers beside the rows it measured.
    fn table(&self, repeats: u32) -> table::Table {
        let mut columns: Vec<Column> = COLUMNS
            .iter()
            .map(|&(label, num)| {
                let c = if num { Column::num(label) } else { Column::text(label) };
                match label {
                    TOTAL_LABEL => c.titled(TOTAL_TITLE),
                    ALLOC_LABEL => c.titled(ALLOC_TITLE),
                    "Library" => Column { wrap: true, ..c },
                    _ => c,
                }
            })
            .collect();
        let published = self.has_published();
        if published {
            columns.extend(PUBLISHED_COLUMNS.iter().map(|l| Column {
                shade: true,
                sparse: true,
                ..Column::num(*l).titled(SOURCE)
            }));
        }
        columns.push(Column::text("Flags"));
        let groups = self
            .datasets
            .iter()
            .map(|d| {
                let mut heading = Text::plain("Dataset ").and_code(d.title());
                if let Some(n) = d.objects {
                    heading = heading.and(" ").and_muted(format!("{} objects", numbers::thousands(n as f64)));
                }
                table::Group {
                    heading: Some(heading),
                    key: Some(d.title().to_string()),
                    rows: d.rows.iter().map(|r| r.cells(repeats, published)).collect(),
                }
            })
            .collect();
        table::Table { id: "formats".into(), columns, groups, dense: true, ..table::Table::default() }
    }

    /// Serialize and deserialize time per format, one panel per dataset (datasets differ in size
    /// by an order of magnitude, so each gets its own time axis). Within a panel, one group per
    /// format in the table's order (fastest total first); per language a solid serialize bar and a
    /// light deserialize bar in the language's colour, each with its 95 % CI whisker.
    fn chart_times(&self) -> Spec {
        let timed = |r: &FormatRow| r.metric(SERIALIZE).is_some() || r.metric(DESERIALIZE).is_some();
        let langs = languages(self.rows().filter(|r| timed(r)));
        let colors = |lang: &str| {
            let c = color(langs.iter().position(|l| *l == lang).unwrap_or(0));
            (c, panels::tint(c, DESERIALIZE_TINT))
        };
        let mut out = Vec::new();
        for d in &self.datasets {
            let mut groups: Vec<Group> = Vec::new();
            for r in d.rows.iter().filter(|r| timed(r)) {
                let i = groups.iter().position(|g| g.label == r.format()).unwrap_or_else(|| {
                    groups.push(Group { label: r.format().to_string(), bars: Vec::new() });
                    groups.len() - 1
                });
                let (solid, light) = colors(r.lang());
                for (metric, c) in [(SERIALIZE, solid), (DESERIALIZE, light)] {
                    if let Some(s) = r.metric(metric) {
                        let ms = |ns: f64| ns / 1e6;
                        groups[i].bars.push(Bar {
                            value: ms(s.median),
                            ci: s.ci.map(|(lo, hi)| (ms(lo), ms(hi))),
                            color: c,
                            label: numbers::ms_from_ns(s.median),
                        });
                    }
                }
            }
            if !groups.is_empty() {
                out.push(Panel { title: d.panel_title(), groups });
            }
        }
        let mut legend: Vec<(String, Key)> = Vec::new();
        for lang in &langs {
            let (solid, light) = colors(lang);
            legend.push((format!("{lang} serialize"), Key::Bar(solid)));
            legend.push((format!("{lang} deserialize"), Key::Bar(light)));
        }
        legend.push(("95 % CI of the mean".to_string(), Key::Whisker));
        let axis = Axis { desc: "ms per encode or decode of the whole dataset, median of repeats", tick: panels::tick };
        let left_out: Vec<&str> = self.rows().filter(|r| !timed(r)).map(|r| r.summary.scenario.as_str()).collect();
        Spec {
            name: "formats",
            title: "Serialize and deserialize time by format",
            plot: if out.is_empty() {
                Err("no format row measured a time".into())
            } else {
                Ok(Plot::Bars(Bars { legend, panels: out, axis }))
            },
            note: (!left_out.is_empty()).then(|| format!("Not shown (no time measured): {}.", left_out.join(", "))),
        }
    }

    /// Encoded size per format, raw beside gzip and zstd, one panel per dataset. Languages that
    /// produce the same bytes for a format share one group; where they differ (another float
    /// formatting, another field order) each set of sizes gets its own group, named after its
    /// languages.
    fn chart_sizes(&self) -> Spec {
        /// The languages whose encodings of one format have the same sizes.
        struct SameBytes<'a> {
            format: &'a str,
            sizes: [Option<f64>; 3],
            langs: Vec<&'a str>,
        }
        let sizes = |r: &FormatRow| -> Option<[Option<f64>; 3]> {
            let s = SIZES.map(|m| r.metric(m).map(|s| s.median));
            s.iter().any(Option::is_some).then_some(s)
        };
        let mut out = Vec::new();
        for d in &self.datasets {
            // In table order, so the fastest format is on top as in the time chart.
            let mut sets: Vec<SameBytes> = Vec::new();
            for r in &d.rows {
                let Some(s) = sizes(r) else { continue };
                match sets.iter_mut().find(|set| set.format == r.format() && set.sizes == s) {
                    Some(set) => set.langs.push(r.lang()),
                    None => sets.push(SameBytes { format: r.format(), sizes: s, langs: vec![r.lang()] }),
                }
            }
            let groups: Vec<Group> = sets
                .iter()
                .map(|set| {
                    let f = set.format;
                    let shared = sets.iter().filter(|other| other.format == f).count() == 1;
                    let label = if shared { f.to_string() } else { format!("{f} ({})", set.langs.join(", ")) };
                    let bars = set
                        .sizes
                        .iter()
                        .zip(SIZE_SERIES)
                        .filter_map(|(v, (_, c))| {
                            v.map(|b| Bar { value: b, ci: None, color: color(c), label: numbers::kilobytes(b) })
                        })
                        .collect();
                    Group { label, bars }
                })
                .collect();
            if !groups.is_empty() {
                out.push(Panel { title: d.panel_title(), groups });
            }
        }
        let legend: Vec<(String, Key)> =
            SIZE_SERIES.iter().map(|(l, c)| (l.to_string(), Key::Bar(color(*c)))).collect();
        let axis = Axis { desc: "bytes, median of repeats", tick: panels::tick };
        let left_out: Vec<&str> =
            self.rows().filter(|r| sizes(r).is_none()).map(|r| r.summary.scenario.as_str()).collect();
        Spec {
            name: "format-sizes",
            title: "Encoded size by format: raw, gzip, zstd",
            plot: if out.is_empty() {
                Err("no format row measured a size".into())
            } else {
                Ok(Plot::Bars(Bars { legend, panels: out, axis }))
            },
            note: (!left_out.is_empty()).then(|| format!("Not shown (no size measured): {}.", left_out.join(", "))),
        }
    }

    /// `formats.csv`: one line per dataset, format and language, in the order of the table.
    fn csv(&self) -> Csv {
        Csv::of("formats.csv", CSV, self.rows())
    }
}

/// Languages in order of first appearance, so each keeps its colour in every panel.
fn languages<'a>(rows: impl Iterator<Item = &'a FormatRow>) -> Vec<&'a str> {
    let mut langs: Vec<&str> = Vec::new();
    for r in rows {
        if !langs.contains(&r.lang()) {
            langs.push(r.lang());
        }
    }
    langs
}

impl Dataset {
    /// `Dataset users · 1,000 objects`, the heading of a dataset's chart panel.
    fn panel_title(&self) -> String {
        let objects = self.objects.map_or(String::new(), |n| format!(" · {} objects", numbers::thousands(n as f64)));
        format!("Dataset {}{objects}", self.title())
    }
}

impl FormatRow {
    /// The row's cells; `published` adds the study's three columns.
    fn cells(&self, repeats: u32, published: bool) -> table::Row {
        let r = self;
        let ms = |m: &str| match r.metric(m) {
            Some(s) => Cell::main(numbers::ms_from_ns(s.median))
                .ci(s.ci.map_or(format!("n = {}", s.n), |(lo, hi)| numbers::interval(lo, hi, numbers::ms_from_ns))),
            None => Cell::main(NONE),
        };
        let size = |i: usize| r.metric(SIZES[i]).map(|s| s.median);
        let raw_size = size(0);
        let size_cell = |i: usize| {
            let note = match (i, size(i), raw_size) {
                (0, Some(b), _) => numbers::kilobytes(b),
                (_, Some(b), Some(raw)) if raw > 0.0 => format!("{} of raw", numbers::percent(b / raw)),
                _ => String::new(),
            };
            Cell::new(size(i).map_or(NONE.to_string(), numbers::thousands)).sub(note)
        };
        let total = match r.total {
            Some(t) => {
                let n = [SERIALIZE, DESERIALIZE].iter().filter_map(|m| r.metric(m)).map(|s| s.n).min().unwrap_or(0);
                let ci =
                    t.interval_ns.map_or(format!("n = {n}"), |(lo, hi)| numbers::interval(lo, hi, numbers::ms_from_ns));
                Cell::main(numbers::ms_from_ns(t.median_ns)).ci(ci)
            }
            None => Cell::main(NONE),
        };
        // `name@version`: the version goes under the name, so long module paths wrap less.
        let library = match r.library().unwrap_or(NONE).rsplit_once('@') {
            Some((name, version)) if !name.is_empty() => Cell::new(name).sub(version),
            _ => Cell::new(r.library().unwrap_or(NONE)),
        };
        let mut cells = vec![Cell::code(r.format()), Cell::new(r.lang()), library];
        cells.extend((0..3).map(size_cell));
        cells.extend([
            ms(SERIALIZE),
            ms(DESERIALIZE),
            Cell { title: Some(TOTAL_TITLE.into()), ..total },
            Cell::new(r.relative.map_or(NONE.to_string(), numbers::ratio)),
            Cell::new(pair(r, ALLOC_BYTES, numbers::kilobytes).unwrap_or_else(|| NONE.to_string()))
                .sub(pair(r, ALLOCS, numbers::thousands).map_or(String::new(), |p| format!("{p} allocations"))),
        ]);
        if published {
            // A dash where the study measured this dataset and language but not this format;
            // nothing where it has nothing to compare with. Shaded only on the rows the study
            // measured, so the comparison stands out.
            let missing = if r.studied { NONE } else { "" };
            let p = r.published;
            let shaded = |text: String| Cell { shade: r.studied, ..Cell::new(text) };
            cells.extend([
                Cell {
                    title: p
                        .map(|p| format!("serialize {:.3} + deserialize {:.3} ms", p.serialize_ms, p.deserialize_ms)),
                    ..shaded(p.map_or(missing.to_string(), |p| format!("{:.3}", p.total_ms)))
                },
                shaded(p.map_or(missing.to_string(), |p| numbers::thousands(p.size_bytes as f64))),
                shaded(r.size_vs_published().map_or(missing.to_string(), numbers::ratio)),
            ]);
        }
        cells.push(flags_cell(&r.flags, &r.summary, repeats));
        table::Row { scenario: Some(r.summary.scenario.clone()), failed: r.failed(), head: false, cells }
    }
}

/// `ser / de` of a metric pair, `—` for a missing half; `None` when both are missing.
fn pair(r: &FormatRow, metrics: [&str; 2], show: fn(f64) -> String) -> Option<String> {
    let [ser, de] = metrics.map(|m| r.metric(m).map(|s| show(s.median)));
    (ser.is_some() || de.is_some())
        .then(|| format!("{} / {}", ser.unwrap_or_else(|| NONE.to_string()), de.unwrap_or_else(|| NONE.to_string())))
}

/// The columns of `formats.csv`: times in ns, sizes in bytes, like the measurements;
/// `published_*` are the study's numbers in the same units.
const CSV: &[Field<FormatRow>] = &[
    ("dataset", |r| param(&r.summary, "dataset")),
    ("format", |r| r.format().into()),
    ("lang", |r| r.lang().into()),
    ("scenario", |r| r.summary.scenario.clone()),
    ("subject", |r| r.summary.subject.clone()),
    ("library", |r| r.library().unwrap_or_default().into()),
    ("objects", |r| param(&r.summary, "objects")),
    ("ok_repeats", |r| r.summary.ok_repeats.to_string()),
    ("size_bytes", |r| median(&r.summary, SIZES[0])),
    ("size_gzip_bytes", |r| median(&r.summary, SIZES[1])),
    ("size_zstd_bytes", |r| median(&r.summary, SIZES[2])),
    ("serialize_ns_median", |r| median(&r.summary, SERIALIZE)),
    ("serialize_ns_ci_lo", |r| ci_lo(&r.summary, SERIALIZE)),
    ("serialize_ns_ci_hi", |r| ci_hi(&r.summary, SERIALIZE)),
    ("deserialize_ns_median", |r| median(&r.summary, DESERIALIZE)),
    ("deserialize_ns_ci_lo", |r| ci_lo(&r.summary, DESERIALIZE)),
    ("deserialize_ns_ci_hi", |r| ci_hi(&r.summary, DESERIALIZE)),
    ("total_ns_median", |r| raw(r.total.map(|t| t.median_ns))),
    ("total_ns_ci_lo", |r| raw(r.total.and_then(|t| t.interval_ns).map(|c| c.0))),
    ("total_ns_ci_hi", |r| raw(r.total.and_then(|t| t.interval_ns).map(|c| c.1))),
    ("relative_total", |r| raw(r.relative)),
    ("serialize_alloc_bytes", |r| median(&r.summary, ALLOC_BYTES[0])),
    ("serialize_allocs", |r| median(&r.summary, ALLOCS[0])),
    ("deserialize_alloc_bytes", |r| median(&r.summary, ALLOC_BYTES[1])),
    ("deserialize_allocs", |r| median(&r.summary, ALLOCS[1])),
    // Printed to the microsecond: whole nanoseconds hold it exactly.
    ("published_total_ns", |r| raw(r.published.map(|p| (p.total_ms * 1e6).round()))),
    ("published_size_bytes", |r| raw(r.published.map(|p| p.size_bytes as f64))),
    ("size_vs_published", |r| raw(r.size_vs_published())),
    ("flags", |r| r.flags.iter().map(|f| f.id).collect::<Vec<_>>().join(";")),
    ("error", |r| error(&r.summary)),
];

/// The study's published serialization numbers, shown beside ours: the suite's `[[published]]`
/// tables on our `serialize_ns`, `deserialize_ns` and `size_bytes` (Table 5.2 of "Ways to optimize
/// web applications", Rust, 1000 users), and the two places where the study's prose disagrees with
/// its own table.
/// Where the numbers come from, for captions and notes.
pub const SOURCE: &str =
    "Table 5.2 of the study “Ways to optimize web applications” (Rust, the users of its Listing 4.1)";

/// The study's numbers for one of our rows: one encode and one decode of the whole dataset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Published {
    pub serialize_ms: f64,
    pub deserialize_ms: f64,
    /// The study's total, the sum of the two as it printed them.
    pub total_ms: f64,
    pub size_bytes: u64,
}

impl Published {
    /// The study's row for `scenario`, when `tables` give all three of its numbers (times in ns,
    /// the size in bytes, as our metrics are).
    pub fn of(tables: &[PublishedTable], scenario: &str) -> Option<Published> {
        let value = |metric: &str| {
            tables
                .iter()
                .filter(|t| t.metric == metric)
                .flat_map(|t| &t.rows)
                .find(|r| r.scenario == scenario)
                .map(|r| r.value)
        };
        let (ser, de, size) = (value(SERIALIZE)?, value(DESERIALIZE)?, value(SIZES[0])?);
        Some(Published {
            serialize_ms: ser / 1e6,
            deserialize_ms: de / 1e6,
            total_ms: (ser + de) / 1e6,
            size_bytes: size as u64,
        })
    }

    /// The published time of one phase, in ms.
    pub fn ms(&self, phase: Phase) -> f64 {
        match phase {
            Phase::Serialize => self.serialize_ms,
            Phase::Deserialize => self.deserialize_ms,
        }
    }
}

/// Which half of the round trip a number times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Serialize,
    Deserialize,
}

/// A ratio the study's prose states that its own table does not give.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slip {
    /// The study's sentence, paraphrased as a claim.
    pub says: &'static str,
    pub phase: Phase,
    /// The rows of the formats the sentence calls slower and faster: the ratio is slower ÷ faster.
    pub slower: &'static str,
    pub faster: &'static str,
}

/// The two slips of the study's text about Table 5.2.
pub const SLIPS: &[Slip] = &[
    Slip {
        says: "MessagePack serializes 6.0× faster than XML",
        phase: Phase::Serialize,
        slower: "listing41-xml-rust",
        faster: "listing41-msgpack-compact-rust",
    },
    Slip {
        says: "XML deserialization is more than 8× slower than Avro",
        phase: Phase::Deserialize,
        slower: "listing41-xml-rust",
        faster: "listing41-avro-rust",
    },
];

impl Slip {
    /// The two published times (slower, faster) in ms, when `tables` have both rows.
    pub fn table_ms(&self, tables: &[PublishedTable]) -> Option<(f64, f64)> {
        let ms = |id: &str| Published::of(tables, id).map(|p| p.ms(self.phase));
        Some((ms(self.slower)?, ms(self.faster)?))
    }
}

/// What the published columns are and how to read them beside ours.
pub fn caveat() -> String {
    format!(
        "Published columns: {SOURCE}. The listing41 rows are that data (10,000 users: the count \
         the table's sizes imply, though the study's text says 1,000), so a size ÷ published of 1 is \
         the study's byte count; times are another machine's, so compare them between formats, as \
         ratios, rather than as milliseconds."
    )
}

/// One sentence on the study's slips, with the ratios its table gives; `None` when the tables
/// lack the rows a slip names.
pub fn slips_note(tables: &[PublishedTable]) -> Option<String> {
    let parts = SLIPS
        .iter()
        .map(|s| {
            let (slow, fast) = s.table_ms(tables)?;
            Some(format!(
                "“{}”, but the table gives {slow:.3} / {fast:.3} = {}",
                s.says,
                crate::numbers::ratio(slow / fast)
            ))
        })
        .collect::<Option<Vec<String>>>()?;
    Some(format!("the study's text disagrees with its own table: it says {}.", parts.join("; and ")))
}

#[cfg(test)]
mod published_tests {
    use super::*;

    /// The suite's own tables, as a run of it records them.
    fn suite_tables() -> Vec<PublishedTable> {
        crate::fixture::formats_suite().published
    }

    #[test]
    fn the_suite_gives_each_studied_row_its_three_numbers() {
        let tables = suite_tables();
        let msgpack = Published::of(&tables, "listing41-msgpack-compact-rust").unwrap();
        assert_eq!(msgpack.size_bytes, 527_431);
        // The study printed its totals: ours, summed from its two columns, are the same.
        assert_eq!(format!("{:.3}", msgpack.total_ms), "2.995");
        assert_eq!(format!("{:.3}", Published::of(&tables, "listing41-xml-rust").unwrap().total_ms), "23.351");
        for absent in ["listing41-msgpack-go", "numeric-msgpack-rust", "listing41-cbor-rust", "users-json-rust"] {
            assert!(Published::of(&tables, absent).is_none(), "{absent}");
        }
    }

    #[test]
    fn slips_are_what_the_table_gives() {
        let tables = suite_tables();
        let ratios: Vec<f64> = SLIPS
            .iter()
            .map(|s| s.table_ms(&tables).unwrap())
            .map(|(slow, fast)| (slow / fast * 100.0).round() / 100.0)
            .collect();
        assert_eq!(ratios, [7.05, 3.02]);
    }

    #[test]
    fn the_note_states_both_slips_with_the_table_arithmetic() {
        let note = slips_note(&suite_tables()).unwrap();
        assert!(
            note.contains("“MessagePack serializes 6.0× faster than XML”, but the table gives 5.273 / 0.748 = 7.05×")
        );
        assert!(note.contains("but the table gives 18.078 / 5.988 = 3.02×"), "{note}");
    }

    #[test]
    fn without_the_rows_a_slip_names_there_is_no_note() {
        let mut tables = suite_tables();
        for t in &mut tables {
            t.rows.retain(|r| r.scenario != "listing41-avro-rust");
        }
        assert!(slips_note(&tables).is_none());
        assert!(slips_note(&[]).is_none());
    }
}

#[cfg(test)]
mod tests {
    use crate::fixture::{self, element, file_names, read, scenario_ids};
    use crate::{render, Rendered};

    use std::path::Path;

    fn formats_rendered() -> (tempfile::TempDir, Rendered) {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let r = render(dir.path()).unwrap();
        (dir, r)
    }

    #[test]
    fn formats_only_runs_leave_the_load_sections_out() {
        let (dir, r) = formats_rendered();
        assert_eq!(file_names(&r.csv), ["claims.csv", "published.csv", "formats.csv"]);
        assert_eq!(file_names(&r.charts), ["formats.svg", "format-sizes.svg"]);
        assert!(!dir.path().join("scenarios.csv").exists());
        let html = read(&r.html);
        for absent in
            ["id=\"headline\"", "id=\"scenarios", "id=\"charts\"", "chart-rps", "chart-latency", "chart-payload"]
        {
            assert!(!html.contains(absent), "{absent}");
        }
        assert!(!html.contains("req/s"), "no load wording");
        assert!(html.contains("<section id=\"formats-section\">") && html.contains("<table id=\"formats\""));
        let claims = element(&html, "<table id=\"claims\">", "</table>");
        assert!(
            claims
                .contains("serialize_ns(listing41-xml-rust) / serialize_ns(listing41-msgpack-compact-rust) &gt; 5.00"),
            "{claims}"
        );
        assert!(claims.contains("badge confirmed"), "{claims}");
        assert!(html.contains("Each serialization harness measures in its own process"));
        assert!(
            html.contains("<a href=\"claims.csv\">claims.csv</a> · <a href=\"formats.csv\">formats.csv</a></footer>")
                || html.contains("<a href=\"formats.csv\">formats.csv</a> · charts"),
            "footer links the CSVs written"
        );

        let md = read(&r.markdown);
        assert!(!md.contains("## Headline") && !md.contains("## Scenarios"), "{md}");
        assert!(md.contains("## Claims") && md.contains("## Formats"));
    }

    #[test]
    fn formats_table_groups_datasets_sorted_by_total_with_failures_last() {
        let (_dir, r) = formats_rendered();
        let html = read(&r.html);
        let table = element(&html, "<table id=\"formats\"", "</table>");
        let listing = element(table, "<tbody data-group=\"listing41\">", "</tbody>");
        assert!(listing.contains("Dataset <code>listing41</code> <span class=\"muted\">10,000 objects</span>"));
        assert_eq!(
            scenario_ids(listing),
            [
                "listing41-msgpack-compact-rust",
                "listing41-msgpack-go",
                "listing41-json-rust",
                "listing41-json-go",
                "listing41-xml-rust",
                "listing41-xml-go",
                "listing41-protobuf-go"
            ]
        );
        let numeric = element(table, "<tbody data-group=\"numeric\">", "</tbody>");
        assert_eq!(
            scenario_ids(numeric),
            [
                "numeric-msgpack-rust",
                "numeric-msgpack-go",
                "numeric-json-rust",
                "numeric-json-go",
                "numeric-xml-rust",
                "numeric-xml-go"
            ]
        );

        // msgpack/rust: 0.748 + 2.247 ms over three repeats ±1 %; the total's interval adds the bounds.
        let msgpack = element(listing, "data-scenario=\"listing41-msgpack-compact-rust\"", "</tr>");
        assert!(msgpack.contains("<td class=\"wrap\">rmp-serde<div class=\"sub\">1.3.0</div></td>"), "{msgpack}");
        assert!(msgpack.contains("<td class=\"num\">112,310<div class=\"sub\">112 KB</div></td>"), "{msgpack}");
        assert!(msgpack.contains("29,870<div class=\"sub\">26.6 % of raw</div>"), "{msgpack}");
        assert!(msgpack.contains("<strong>0.748</strong><div class=\"ci\">0.729–0.767</div>"), "{msgpack}");
        assert!(msgpack.contains("<strong>2.25</strong><div class=\"ci\">2.19–2.30</div>"), "{msgpack}");
        assert!(
            msgpack.contains(&format!(
                "<td class=\"num\" title=\"{}\"><strong>3.00</strong><div class=\"ci\">2.92–3.07</div></td>\
                 <td class=\"num\">1.00×</td>",
                crate::render::html::Esc(super::TOTAL_TITLE)
            )),
            "{msgpack}"
        );
        assert!(super::TOTAL_TITLE.contains("sum of the two lower bounds to the sum of the two upper bounds"));
        // × fastest is within a dataset and language: Go's fastest is Go's msgpack.
        for (id, relative) in
            [("listing41-msgpack-go", "1.00×"), ("listing41-json-go", "1.79×"), ("listing41-xml-rust", "7.80×")]
        {
            let row = element(listing, &format!("data-scenario=\"{id}\""), "</tr>");
            assert!(row.contains(&format!("</td><td class=\"num\">{relative}</td>")), "{id}: {row}");
        }

        let failed = element(listing, "data-scenario=\"listing41-protobuf-go\"", "</tr>");
        assert!(listing.contains("<tr class=\"failed\" data-scenario=\"listing41-protobuf-go\">"));
        assert!(failed.contains(">failed<") && failed.contains("0 of 3 repeats completed"), "{failed}");
        assert!(failed.contains("verification failed: decoded &lt;User&gt; #3 differs from the input"), "{failed}");
        let noisy = element(numeric, "data-scenario=\"numeric-xml-go\"", "</tr>");
        assert!(noisy.contains("<span class=\"badge flag noisy\""), "{noisy}");
    }

    #[test]
    fn published_columns_sit_beside_rust_users_rows_with_the_study_slips_below() {
        let (_dir, r) = formats_rendered();
        let html = read(&r.html);
        let table = element(&html, "<table id=\"formats\"", "</table>");
        for label in ["Published total ms", "Published bytes", "Size ÷ published"] {
            assert!(table.contains(&format!("{label}</th>")), "{label}");
        }
        let row = element(table, "data-scenario=\"listing41-msgpack-compact-rust\"", "</tr>");
        assert!(
            row.contains(
                "<td class=\"num shade\" title=\"serialize 0.748 + deserialize 2.247 ms\">2.995</td>\
                 <td class=\"num shade\">527,431</td><td class=\"num shade\">0.213×</td>"
            ),
            "{row}"
        );
        assert!(row.contains(">225 KB / 337 KB<div class=\"sub\">12 / 6,011 allocations</div></td>"), "{row}");
        assert!(table.contains("<th class=\"num\" title=\"Heap bytes (and allocation calls)"), "alloc column titled");
        let xml = element(table, "data-scenario=\"listing41-xml-rust\"", "</tr>");
        assert!(xml.contains(">23.351</td>") && xml.contains(">1,761,825</td>"), "{xml}");
        for id in ["listing41-msgpack-go", "numeric-msgpack-rust"] {
            let row = element(table, &format!("data-scenario=\"{id}\""), "</tr>");
            assert!(!row.contains("shade") && row.contains("<td class=\"num\"></td><td class=\"num\"></td>"), "{row}");
        }
        let note = element(&html, "<div class=\"note\" id=\"published-note\">", "</div>");
        assert!(
            note.contains("“MessagePack serializes 6.0× faster than XML”, but the table gives 5.273 / 0.748 = 7.05×")
        );
        assert!(note.contains("but the table gives 18.078 / 5.988 = 3.02×"), "{note}");
        assert!(html.contains("Table 5.2 of the study “Ways to optimize web applications”"));

        let md = read(&r.markdown);
        let users = md.lines().find(|l| l.starts_with("| `msgpack-compact` | rust |")).unwrap();
        assert!(
            users.contains(
                "| 3.00 [2.92–3.07] | 1.00× | 225 KB / 337 KB (12 / 6,011 allocations) | 2.995 | 527,431 | 0.213× |"
            ),
            "{users}"
        );
        assert_eq!(users.matches(" | ").count() + 1, 15, "{users}");
        let go = md.lines().find(|l| l.starts_with("| `msgpack` | go |")).unwrap();
        assert!(go.contains(" | — | "), "a harness without allocation counts shows a dash: {go}");
        let numeric = &md[md.find("### Dataset `numeric`").unwrap()..];
        assert!(!numeric.lines().nth(2).unwrap().contains("Published"), "{numeric}");
        assert!(md.contains("> **Note:** the study's text disagrees with its own table"), "{md}");
        assert!(md.contains("decoded &lt;User&gt; #3"), "{md}");
    }

    #[test]
    fn formats_charts_and_csv() {
        let (_dir, r) = formats_rendered();
        for (chart, id) in r.charts.iter().zip(["chart-formats", "chart-format-sizes"]) {
            let svg = read(chart);
            let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}", chart.display()));
            assert_eq!(doc.root_element().attribute("id"), Some(id));
            assert_eq!(doc.root_element().attribute("class"), Some("chart"));
            let texts: String = doc.descendants().filter_map(|n| n.text()).collect();
            for t in ["Dataset listing41 · 10,000 objects", "Dataset numeric · 100 objects", "msgpack", "xml"] {
                assert!(texts.contains(t), "{id}: no {t}");
            }
        }
        let sizes = read(&r.charts[1]);
        assert!(sizes.contains("json (rust)") && sizes.contains("json (go)"), "different bytes, separate groups");
        let html = read(&r.html);
        let section = element(&html, "<section id=\"formats-section\">", "</section>");
        assert!(section.contains("<svg class=\"chart\" id=\"chart-formats\""));
        assert!(section.contains("<figcaption>Not shown (no time measured): listing41-protobuf-go.</figcaption>"));

        let csv = read(r.csv.iter().find(|p| p.ends_with("formats.csv")).unwrap());
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + 13);
        assert_eq!(lines[0], super::CSV.iter().map(|c| c.0).collect::<Vec<_>>().join(","));
        for l in &lines {
            assert_eq!(l.split(',').count(), super::CSV.len(), "{l}");
        }
        assert!(
            lines[1].starts_with(
                "listing41,msgpack-compact,rust,listing41-msgpack-compact-rust,formats-rust,rmp-serde@1.3.0,10000,3,112310,29870,26400,748000,"
            ),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with(",1,224620,12,336930,6011,2995000,527431,0.2129378060826914,,"), "{}", lines[1]);
        assert!(
            lines[7].starts_with("listing41,protobuf,go,")
                && lines[7].ends_with(",failed,verification failed: decoded <User> #3 differs from the input")
        );
    }

    /// `WIREBENCH_REPORT_FORMATS_SAMPLE=/some/dir cargo test -p wirebench-report formats_sample`
    /// writes a fuller formats run (four languages, three datasets) and its report there.
    #[test]
    fn formats_sample_report_renders() {
        let target = std::env::var_os("WIREBENCH_REPORT_FORMATS_SAMPLE");
        let tmp = tempfile::tempdir().unwrap();
        let dir = target.as_ref().map_or(tmp.path(), Path::new);
        if dir.join("measurements.jsonl").exists() {
            std::fs::remove_file(dir.join("measurements.jsonl")).unwrap();
        }
        fixture::formats_showcase(dir);
        let r = render(dir).unwrap();
        let html = read(&r.html);
        let table = element(&html, "<table id=\"formats\"", "</table>");
        assert_eq!(scenario_ids(table).len(), 3 * 7 * 4);
        assert_eq!(r.charts.len(), 2);
    }

    use super::*;
    use crate::model::Report;

    /// The formats lab's rows of the run in `dir`, as the lab groups them.
    fn formats_of(dir: &std::path::Path) -> Formats {
        let r = Report::read(dir, None).unwrap();
        Formats::of(r.rows.into_iter().filter(|s| s.lab == "formats"), &r.published)
    }

    #[test]
    fn rows_group_by_dataset_and_sort_by_total() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let f = formats_of(dir.path());
        let names: Vec<&str> = f.datasets.iter().map(Dataset::title).collect();
        assert_eq!(names, ["listing41", "numeric"]);
        let users: Vec<String> = f.datasets[0].rows.iter().map(|r| format!("{}/{}", r.format(), r.lang())).collect();
        assert_eq!(
            users,
            ["msgpack-compact/rust", "msgpack/go", "json/rust", "json/go", "xml/rust", "xml/go", "protobuf/go"],
            "fastest total first, the failed row last"
        );
        let totals: Vec<f64> = f.datasets[0].rows.iter().filter_map(|r| r.total).map(|t| t.median_ns).collect();
        assert!(totals.windows(2).all(|w| w[0] <= w[1]), "{totals:?}");
    }

    #[test]
    fn totals_add_medians_and_interval_bounds() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let f = formats_of(dir.path());
        let row = &f.datasets[0].rows[0];
        let (s, d) = (row.metric(SERIALIZE).unwrap(), row.metric(DESERIALIZE).unwrap());
        let t = row.total.unwrap();
        assert_eq!(t.median_ns, s.median + d.median);
        let ((sl, sh), (dl, dh)) = (s.ci.unwrap(), d.ci.unwrap());
        assert_eq!(t.interval_ns, Some((sl + dl, sh + dh)));
    }

    #[test]
    fn relative_speed_is_within_dataset_and_language() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let f = formats_of(dir.path());
        for d in &f.datasets {
            for lang in ["rust", "go"] {
                let rel: Vec<f64> = d.rows.iter().filter(|r| r.lang() == lang).filter_map(|r| r.relative).collect();
                assert_eq!(rel.first(), Some(&1.0), "{} {lang}", d.title());
                assert!(rel[1..].iter().all(|&r| r > 1.0), "{} {lang}: {rel:?}", d.title());
            }
        }
        let failed = f.rows().find(|r| r.failed()).unwrap();
        assert!(failed.total.is_none() && failed.relative.is_none());
        assert_eq!(failed.flags, [FAILED]);
    }

    #[test]
    fn published_rows_attach_to_listing41_in_rust_only() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let f = formats_of(dir.path());
        let with: Vec<String> =
            f.rows().filter(|r| r.published.is_some()).map(|r| format!("{}/{}", r.format(), r.lang())).collect();
        assert_eq!(with, ["msgpack-compact/rust", "json/rust", "xml/rust"]);
        assert!(f.has_published());
    }
}
