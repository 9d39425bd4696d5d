//! The formats table, computed once: in-process serialization measurements (summaries with a
//! `format`) grouped by `params.dataset`, each row with its round-trip total, its speed relative to
//! the fastest of its dataset and language, its flags and, where the study measured the same
//! thing, the published row beside it.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::model::Flag;
use crate::published::{self, Published};

/// Metric ids of the formats table (`wirebench_core::results::SUMMARY_METRICS`).
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
    pub flags: Vec<Flag>,
    /// Serialize + deserialize; `None` unless both were measured.
    pub total: Option<Total>,
    /// Total ÷ the fastest total of the same dataset and language (1 for the fastest).
    pub relative: Option<f64>,
    /// The study's row for the same dataset, language and format.
    pub published: Option<&'static Published>,
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

/// What the formats table's flags mean (the load table's wording speaks of req/s).
pub fn flag_meaning(flag: Flag) -> &'static str {
    match flag {
        Flag::Noisy => {
            "serialize or deserialize time varied by more than 10 % (coefficient of variation) across repeats"
        }
        other => other.meaning(),
    }
}

impl Formats {
    /// Groups the harness summaries (those with a `format`) by dataset; others are ignored.
    pub fn of(summaries: impl IntoIterator<Item = ScenarioSummary>) -> Formats {
        let mut datasets: Vec<Dataset> = Vec::new();
        for s in summaries.into_iter().filter(|s| s.format.is_some()) {
            let name = s.param("dataset").map(str::to_string);
            let i = datasets.iter().position(|d| d.name == name).unwrap_or_else(|| {
                let objects = s.params.get("objects").and_then(|v| v.as_u64());
                datasets.push(Dataset { name: name.clone(), objects, rows: Vec::new() });
                datasets.len() - 1
            });
            datasets[i].rows.push(FormatRow::of(s));
        }
        for d in &mut datasets {
            d.rank();
        }
        Formats { datasets }
    }

    /// True when the run measured no format.
    pub fn is_empty(&self) -> bool {
        self.datasets.is_empty()
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

    /// True when some row of this dataset has the study's numbers beside it.
    pub fn has_published(&self) -> bool {
        self.rows.iter().any(|r| r.published.is_some())
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
    fn of(summary: ScenarioSummary) -> FormatRow {
        let mut flags = Vec::new();
        if summary.error.is_some() {
            flags.push(Flag::Failed);
        }
        if [SERIALIZE, DESERIALIZE].iter().any(|m| summary.get(m).is_some_and(Summary::noisy)) {
            flags.push(Flag::Noisy);
        }
        let total = summary.get(SERIALIZE).zip(summary.get(DESERIALIZE)).map(|(s, d)| Total::of(s, d));
        let published = summary
            .param("dataset")
            .zip(summary.format.as_deref())
            .and_then(|(dataset, format)| published::lookup(dataset, &summary.lang, format));
        FormatRow { summary, flags, total, relative: None, published }
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

    /// True when the study measured this row's dataset in this row's language (whatever the format).
    pub fn studied(&self) -> bool {
        self.summary.param("dataset") == Some(published::DATASET) && self.lang() == published::LANG
    }

    /// Our median encoding size ÷ the published one.
    pub fn size_vs_published(&self) -> Option<f64> {
        let ours = self.metric(SIZES[0])?.median;
        let theirs = self.published?.size_bytes as f64;
        (theirs > 0.0).then(|| ours / theirs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use crate::model::Report;

    #[test]
    fn rows_group_by_dataset_and_sort_by_total() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let f = Report::read(dir.path()).unwrap().formats;
        let names: Vec<&str> = f.datasets.iter().map(Dataset::title).collect();
        assert_eq!(names, ["users", "numeric"]);
        let users: Vec<String> = f.datasets[0].rows.iter().map(|r| format!("{}/{}", r.format(), r.lang())).collect();
        assert_eq!(
            users,
            ["msgpack/rust", "msgpack/go", "json/rust", "json/go", "xml/rust", "xml/go", "protobuf/go"],
            "fastest total first, the failed row last"
        );
        let totals: Vec<f64> = f.datasets[0].rows.iter().filter_map(|r| r.total).map(|t| t.median_ns).collect();
        assert!(totals.windows(2).all(|w| w[0] <= w[1]), "{totals:?}");
    }

    #[test]
    fn totals_add_medians_and_interval_bounds() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let f = Report::read(dir.path()).unwrap().formats;
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
        let f = Report::read(dir.path()).unwrap().formats;
        for d in &f.datasets {
            for lang in ["rust", "go"] {
                let rel: Vec<f64> = d.rows.iter().filter(|r| r.lang() == lang).filter_map(|r| r.relative).collect();
                assert_eq!(rel.first(), Some(&1.0), "{} {lang}", d.title());
                assert!(rel[1..].iter().all(|&r| r > 1.0), "{} {lang}: {rel:?}", d.title());
            }
        }
        let failed = f.rows().find(|r| r.failed()).unwrap();
        assert!(failed.total.is_none() && failed.relative.is_none());
        assert_eq!(failed.flags, [Flag::Failed]);
    }

    #[test]
    fn published_rows_attach_to_users_in_rust_only() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let f = Report::read(dir.path()).unwrap().formats;
        let with: Vec<String> =
            f.rows().filter(|r| r.published.is_some()).map(|r| format!("{}/{}", r.format(), r.lang())).collect();
        assert_eq!(with, ["msgpack/rust", "json/rust", "xml/rust"]);
        assert!(f.has_published() && f.datasets[0].has_published() && !f.datasets[1].has_published());
    }
}
