//! The REST service study (`suites/restcache.toml`, `subjects/restcache/`): its 16 cases (two store
//! states × four thread groups × two user counts) per implementation, one table per store, and the
//! server side's CPU and memory with the service and the database apart; `restcache.csv`.
//!
//! Its rows are load rows that carry the labels `impl`, `store`, `state`, `group` and `users` and
//! run in the closed model; they are in the scenarios table too, this section arranges them.

use wirebench_core::results::ScenarioSummary;
use wirebench_core::stats::Summary;

use crate::charts::panels::{tick, Axis, Bar, Bars, Group, Panel};
use crate::charts::{color, Key, Plot, Spec};
use crate::numbers::{self, NONE};
use crate::section::{Block, Lab, Para, Run, Section};
use crate::table::{error, median, param, raw, Cell, Column, Csv, Field, Row, Table, Text};

/// The lab.
pub struct RestCacheLab;

impl Lab for RestCacheLab {
    fn id(&self) -> &'static str {
        "restcache"
    }

    fn section(&self, rows: &[&ScenarioSummary], _run: &Run<'_>) -> Option<Section> {
        let rc = RestCache::of(rows);
        if rc.cases.is_empty() {
            return None;
        }
        let mut s = Section::new("restcache", "REST service study: every case per implementation");
        for t in rc.case_tables().into_iter().chain(rc.resources_table()) {
            s.push(Block::Table(t));
        }
        s.para(Para::Small, NOTE);
        if let (Some(t), Some(chart)) = (rc.variants_table(), rc.variants_chart()) {
            s.push(Block::Table(t));
            s.para(Para::Small, VARIANTS_NOTE);
            s.push(Block::Chart(chart));
        }
        s.csv.push(rc.csv());
        Some(s)
    }
}

/// Implementations in the study's order, with Rust after them, and their column headers.
pub const IMPLS: &[(&str, &str)] =
    &[("go", "Go"), ("jetty", "Java, Jetty"), ("tomcat", "Java, Tomcat"), ("rust", "Rust")];
/// Stores, the study's kind (a database server) first.
pub const STORES: &[(&str, &str)] = &[("postgres", "PostgreSQL"), ("sqlite", "SQLite")];
const STATES: &[(&str, &str)] = &[("empty", "empty"), ("filled", "pre-filled")];

/// What the section says under its tables.
pub const NOTE: &str = "Each cell: the median req/s over the repeats (every step of the group, JMeter's \
    throughput) and the mean latency; the highest req/s of a case is in bold. CPU per request is the \
    median over a store's cases of the server side's CPU time ÷ the requests it answered; \
    memory is the highest peak over those cases: a lone process's resident set, or for PostgreSQL's \
    processes the sum of their proportional set sizes, so the shared buffers count once. SQLite runs \
    inside the service, so its CPU and memory are the service's.";

/// The variants by case (`RestCache::variant_grid`): the kinds met, in column order, and per
/// case its name, its row as the study ran it, and its row under each kind.
struct VariantGrid<'a> {
    kinds: Vec<String>,
    rows: Vec<VariantRow<'a>>,
}

type VariantRow<'a> = (String, Option<&'a ScenarioSummary>, Vec<Option<&'a ScenarioSummary>>);

fn rps(s: &ScenarioSummary) -> Option<f64> {
    s.get("rps").map(|x| x.median)
}

/// What the section says under the variants table.
pub const VARIANTS_NOTE: &str = "Beyond the study, each against the same case with durable commits on \
    loopback: PostgreSQL's commits relaxed (synchronous_commit=off: answered before the WAL is flushed, so a \
    crash of the server loses the last acknowledged writes), and the users across a network link from the \
    service. The ratio beside a number is its req/s over the durable loopback case's.";

/// The study's rows of a run, and the rows that vary one of its cases.
#[derive(Debug, Clone, Default)]
pub struct RestCache {
    pub cases: Vec<ScenarioSummary>,
    /// Rows of a case under another condition (`variant`): relaxed commits, a network link.
    pub variants: Vec<ScenarioSummary>,
}

/// A table whose first column names each row.
fn table(id: String, title: String, head: Vec<String>, rows: Vec<(String, Vec<Cell>)>) -> Table {
    let mut columns: Vec<Column> = head.into_iter().map(Column::num).collect();
    columns[0].num = false;
    let rows = rows
        .into_iter()
        .map(|(head, cells)| Row {
            head: true,
            cells: std::iter::once(Cell::new(head)).chain(cells).collect(),
            ..Row::default()
        })
        .collect();
    Table::new(id, columns, rows).titled(Text::plain(title))
}

/// True for a summary the study's tables take: a case of the closed model, on loopback, with
/// durable commits.
pub fn is_case(s: &ScenarioSummary) -> bool {
    is_labelled(s) && s.param("model").is_none() && variant(s).is_none()
}

fn is_labelled(s: &ScenarioSummary) -> bool {
    ["impl", "store", "state", "group", "users"].iter().all(|k| s.param(k).is_some())
}

/// What a row changes against its case, named for a column: `relaxed commits`, `across
/// rtt=20ms`; `None` for a case as the study ran it.
pub fn variant(s: &ScenarioSummary) -> Option<String> {
    let mut parts = vec![];
    if let Some(commit) = s.param("commit") {
        parts.push(format!("{commit} commits"));
    }
    if let Some(net) = &s.net {
        parts.push(format!("across {net}"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// One case's server-side figures, from the medians of its repeats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Use {
    /// CPU microseconds per request: the service's own, and the database's (0 for SQLite).
    pub service_cpu_us: f64,
    pub database_cpu_us: f64,
    pub service_kb: f64,
    pub database_kb: f64,
}

impl RestCache {
    pub fn of(summaries: &[&ScenarioSummary]) -> RestCache {
        let pick = |keep: &dyn Fn(&ScenarioSummary) -> bool| {
            summaries.iter().filter(|s| keep(s)).map(|s| (*s).clone()).collect::<Vec<_>>()
        };
        RestCache {
            cases: pick(&is_case),
            variants: pick(&|s| is_labelled(s) && s.param("model").is_none() && variant(s).is_some()),
        }
    }

    fn find(&self, store: &str, state: &str, group: &str, users: &str, imp: &str) -> Option<&ScenarioSummary> {
        self.cases.iter().find(|s| {
            s.param("store") == Some(store)
                && s.param("state") == Some(state)
                && s.param("group") == Some(group)
                && s.param("users") == Some(users)
                && s.param("impl") == Some(imp)
        })
    }

    /// Values of a label in the order the run met them (`G1`…, `100`, `250`).
    fn values(&self, key: &str) -> Vec<String> {
        let mut out: Vec<String> = vec![];
        for s in &self.cases {
            let v = s.param(key).unwrap_or_default().to_string();
            if !out.contains(&v) {
                out.push(v);
            }
        }
        out
    }

    /// The implementations measured, in `IMPLS` order.
    fn impls(&self) -> Vec<(&'static str, &'static str)> {
        IMPLS.iter().copied().filter(|(id, _)| self.cases.iter().any(|s| s.param("impl") == Some(id))).collect()
    }

    /// One table per store: a row per case (state, group, users), a column per implementation.
    pub fn case_tables(&self) -> Vec<Table> {
        let impls = self.impls();
        let (groups, users) = (self.values("group"), self.values("users"));
        let mut tables = vec![];
        for &(store, store_name) in STORES {
            let mut rows = vec![];
            for &(state, state_name) in STATES {
                for g in &groups {
                    for u in &users {
                        let found: Vec<Option<&ScenarioSummary>> =
                            impls.iter().map(|(i, _)| self.find(store, state, g, u, i)).collect();
                        if found.iter().all(Option::is_none) {
                            continue;
                        }
                        let best = found.iter().flatten().filter_map(|s| rps(s)).fold(f64::NAN, f64::max);
                        let cells = found
                            .iter()
                            .map(|s| match s {
                                None => Cell::new(NONE),
                                Some(s) => Cell {
                                    scenario: Some(s.scenario.clone()),
                                    best: rps(s) == Some(best) && found.iter().flatten().count() > 1,
                                    failed: s.error.is_some(),
                                    ..Cell::new(
                                        rps(s).map_or(NONE.to_string(), |r| format!("{} req/s", numbers::thousands(r))),
                                    )
                                }
                                .sub(
                                    s.get("mean_us")
                                        .map_or(String::new(), |m| format!("{} mean", numbers::latency_us(m.median))),
                                ),
                            })
                            .collect();
                        rows.push((format!("{state_name}, {g}, {u} users"), cells));
                    }
                }
            }
            if !rows.is_empty() {
                let mut head = vec!["Case".to_string()];
                head.extend(impls.iter().map(|(_, name)| name.to_string()));
                tables.push(table(
                    format!("restcache-{store}"),
                    format!("{store_name}: the study's cases"),
                    head,
                    rows,
                ));
            }
        }
        tables
    }

    /// The variants by case: the kinds met (column order) and, per case, its row as the study
    /// ran it and each kind's row; `None` without variants.
    fn variant_grid(&self) -> Option<VariantGrid<'_>> {
        if self.variants.is_empty() {
            return None;
        }
        let mut kinds: Vec<String> = vec![];
        for v in &self.variants {
            let kind = variant(v).expect("variants have one");
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        let key = |s: &ScenarioSummary| {
            ["store", "state", "group", "users", "impl"].map(|k| s.param(k).unwrap_or_default().to_string())
        };
        let mut cases: Vec<[String; 5]> = vec![];
        for v in &self.variants {
            if !cases.contains(&key(v)) {
                cases.push(key(v));
            }
        }
        let rows = cases
            .into_iter()
            .map(|k| {
                let [store, state, group, users, imp] = &k;
                let base = self.find(store, state, group, users, imp);
                let others = kinds
                    .iter()
                    .map(|kind| self.variants.iter().find(|v| key(v) == k && variant(v).as_deref() == Some(kind)))
                    .collect();
                let name = IMPLS.iter().find(|(i, _)| i == imp).map_or(imp.as_str(), |(_, n)| n);
                let store = STORES.iter().find(|(i, _)| i == store).map_or(store.as_str(), |(_, n)| n);
                (format!("{name}, {store}, {state}, {group}, {users} users"), base, others)
            })
            .collect();
        Some(VariantGrid { kinds, rows })
    }

    /// Each variant beside its case: a row per implementation and case, a column per variant,
    /// req/s with the ratio over the case's; `None` without variants.
    pub fn variants_table(&self) -> Option<Table> {
        let grid = self.variant_grid()?;
        let cell = |s: Option<&ScenarioSummary>, base: Option<f64>| match s {
            None => Cell::new(NONE),
            Some(s) => Cell {
                scenario: Some(s.scenario.clone()),
                failed: s.error.is_some(),
                aside: rps(s).zip(base).filter(|(_, b)| *b > 0.0).map(|(r, b)| numbers::ratio(r / b)),
                ..Cell::new(rps(s).map_or(NONE.to_string(), |r| format!("{} req/s", numbers::thousands(r))))
            },
        };
        let rows = grid
            .rows
            .iter()
            .map(|(case, base, others)| {
                let mut cells = vec![cell(*base, None)];
                cells.extend(others.iter().map(|v| cell(*v, base.and_then(rps))));
                (case.clone(), cells)
            })
            .collect();
        let mut head = vec!["Implementation, case".to_string(), "as the study ran it".to_string()];
        head.extend(grid.kinds);
        Some(table("restcache-variants".into(), "Beyond the study: one case under other conditions".into(), head, rows))
    }

    /// The variants table as bars: a group per implementation and case, a bar per condition
    /// (median req/s, its interval, the ratio over the case's); `None` without variants.
    pub fn variants_chart(&self) -> Option<Spec> {
        let grid = self.variant_grid()?;
        let bar = |s: &ScenarioSummary, color, base: Option<f64>| {
            let r = s.get("rps")?;
            let ratio =
                base.filter(|b| *b > 0.0).map_or(String::new(), |b| format!(" ({})", numbers::ratio(r.median / b)));
            Some(Bar { value: r.median, ci: r.ci, color, label: format!("{}{ratio}", numbers::sig3(r.median)) })
        };
        let groups = grid
            .rows
            .iter()
            .map(|(case, base, others)| {
                let b = base.and_then(rps);
                let bars = std::iter::once(base.and_then(|s| bar(s, color(0), None)))
                    .chain(others.iter().enumerate().map(|(i, v)| v.and_then(|s| bar(s, color(i + 1), b))))
                    .flatten()
                    .collect();
                Group { label: case.clone(), bars }
            })
            .collect();
        let mut legend: Vec<(String, Key)> = std::iter::once("as the study ran it".to_string())
            .chain(grid.kinds.iter().cloned())
            .enumerate()
            .map(|(i, k)| (k, Key::Bar(color(i))))
            .collect();
        legend.push(("95 % CI of the mean".into(), Key::Whisker));
        let panel = Panel { title: "Requests per second".into(), groups };
        Some(Spec {
            name: "restcache-variants",
            title: "Beyond the study: one case under other conditions",
            plot: Ok(Plot::Bars(Bars {
                legend,
                panels: vec![panel],
                axis: Axis { desc: "requests per second, median", tick },
            })),
            note: Some(
                "The ratio beside a bar is its req/s over the case as the study ran it (durable commits, loopback)."
                    .into(),
            ),
        })
    }

    /// One case's server-side use, when its CPU and requests were measured.
    pub fn use_of(s: &ScenarioSummary) -> Option<Use> {
        let m = |k: &str| s.get(k).map(|x| x.median);
        let requests = m("rps")? * m("duration_s")?;
        if requests <= 0.0 {
            return None;
        }
        let (cpu, db_cpu) = (m("cpu_s")?, m("service_cpu_s").unwrap_or(0.0));
        let (kb, db_kb) = (m("rss_kb").unwrap_or(0.0), m("service_rss_kb").unwrap_or(0.0));
        Some(Use {
            service_cpu_us: (cpu - db_cpu).max(0.0) / requests * 1e6,
            database_cpu_us: db_cpu / requests * 1e6,
            service_kb: (kb - db_kb).max(0.0),
            database_kb: db_kb,
        })
    }

    /// The server side per implementation and store: CPU per request and peak memory, the
    /// service and the database apart.
    pub fn resources_table(&self) -> Option<Table> {
        let mut rows = vec![];
        for &(store, store_name) in STORES {
            for (imp, name) in self.impls() {
                let uses: Vec<Use> = self
                    .cases
                    .iter()
                    .filter(|s| s.param("store") == Some(store) && s.param("impl") == Some(imp))
                    .filter_map(RestCache::use_of)
                    .collect();
                if uses.is_empty() {
                    continue;
                }
                let median = |f: fn(&Use) -> f64| median_of(uses.iter().map(f).collect());
                let peak = |f: fn(&Use) -> f64| uses.iter().map(f).fold(0.0, f64::max);
                let database = store != "sqlite";
                let db = |text: String| Cell::new(if database { text } else { "in the service".into() });
                let cells = vec![
                    Cell::new(cpu_us(median(|u| u.service_cpu_us))),
                    db(cpu_us(median(|u| u.database_cpu_us))),
                    Cell::new(mib(peak(|u| u.service_kb))),
                    db(mib(peak(|u| u.database_kb))),
                ];
                rows.push((format!("{name}, {store_name}"), cells));
            }
        }
        (!rows.is_empty()).then(|| {
            let head = [
                "Implementation, store",
                "Service CPU per request",
                "Database CPU per request",
                "Service memory, peak",
                "Database memory, peak",
            ]
            .map(String::from)
            .to_vec();
            table("restcache-resources".into(), "The server side: service and database apart".into(), head, rows)
        })
    }

    /// `restcache.csv`: one line per case, in the order they ran, with the server side's use split
    /// between the service and the database.
    fn csv(&self) -> Csv {
        Csv::of("restcache.csv", CSV, &self.cases)
    }
}

/// The columns of `restcache.csv`.
const CSV: &[Field<ScenarioSummary>] = &[
    ("scenario", |s| s.scenario.clone()),
    ("store", |s| param(s, "store")),
    ("state", |s| param(s, "state")),
    ("group", |s| param(s, "group")),
    ("users", |s| param(s, "users")),
    ("impl", |s| param(s, "impl")),
    ("ok_repeats", |s| s.ok_repeats.to_string()),
    ("rps_median", |s| median(s, "rps")),
    ("mean_us", |s| median(s, "mean_us")),
    ("service_cpu_us_per_request", |s| raw(RestCache::use_of(s).map(|u| u.service_cpu_us))),
    ("database_cpu_us_per_request", |s| raw(RestCache::use_of(s).map(|u| u.database_cpu_us))),
    ("service_kb", |s| raw(RestCache::use_of(s).map(|u| u.service_kb))),
    ("database_kb", |s| raw(RestCache::use_of(s).map(|u| u.database_kb))),
    ("error", |s| error(s)),
];

/// CPU time per request: `48.2 µs`.
fn cpu_us(us: f64) -> String {
    numbers::latency_us(us)
}

fn median_of(v: Vec<f64>) -> f64 {
    Summary::of(&v).map_or(f64::NAN, |s| s.median)
}

fn mib(kib: f64) -> String {
    format!("{} MiB", numbers::mib_from_kib(kib))
}

#[cfg(test)]
mod tests {
    use crate::fixture::{self, element, read};
    use crate::render;
    use std::io::Write as _;

    #[test]
    fn rest_study_cases_get_a_table_per_store_and_the_server_side_split() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        for repeat in 1..=3 {
            // Go: 9,000 requests, 2.1 CPU-s of its own and 0.9 of PostgreSQL's; 512 MiB each.
            writeln!(f, "{}", fixture::case_line("go", "postgres", repeat, 9000.0, (3.0, 0.9), (1048576, 524288)))
                .unwrap();
            // Jetty: 5,000 requests, 3.0 + 1.0 CPU-s; 768 MiB of its own.
            writeln!(f, "{}", fixture::case_line("jetty", "postgres", repeat, 5000.0, (4.0, 1.0), (1310720, 524288)))
                .unwrap();
            writeln!(f, "{}", fixture::case_line("go", "sqlite", repeat, 4000.0, (1.0, 0.0), (65536, 0))).unwrap();
            // Go's case with relaxed commits (1.5x) and across a link (0.5x): variants, not cases.
            let variant = |rps: f64, id: &str, with: &dyn Fn(&mut serde_json::Value)| {
                let line = fixture::case_line("go", "postgres", repeat, rps, (3.0, 0.9), (1048576, 524288));
                let mut v: serde_json::Value = serde_json::from_str(&line).unwrap();
                v["scenario"] = id.into();
                with(&mut v);
                v.to_string()
            };
            writeln!(
                f,
                "{}",
                variant(13500.0, "relaxed-g3-u100-go-postgres", &|v| v["params"]["commit"] = "relaxed".into())
            )
            .unwrap();
            writeln!(f, "{}", variant(4500.0, "net-g3-u100-go-postgres", &|v| v["net"] = "rtt=20ms".into())).unwrap();
        }
        drop(f);
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        let section = element(&html, r#"<section id="restcache">"#, "</section>");
        let pg = element(section, r#"id="restcache-postgres""#, "</table>");
        assert!(pg.contains("<th scope=\"row\">empty, G3, 100 users</th>"), "{pg}");
        assert!(pg.contains("<strong>9,000 req/s</strong>") && pg.contains(">5,000 req/s<"), "the best in bold: {pg}");
        assert!(!pg.contains("Rust") && pg.contains("Java, Jetty"), "only the implementations measured: {pg}");
        let sqlite = element(section, r#"id="restcache-sqlite""#, "</table>");
        assert!(sqlite.contains("4,000 req/s") && !sqlite.contains("<strong>"), "one implementation: {sqlite}");
        let res = element(section, r#"id="restcache-resources""#, "</table>");
        let row = element(res, "Go, PostgreSQL", "</tr>");
        assert!(row.contains("233 µs") && row.contains("100 µs") && row.matches("512 MiB").count() == 2, "{row}");
        let row = element(res, "Java, Jetty, PostgreSQL", "</tr>");
        assert!(row.contains("600 µs") && row.contains("200 µs") && row.contains("768 MiB"), "{row}");
        assert!(element(res, "Go, SQLite", "</tr>").contains("in the service"), "{res}");
        assert!(!pg.contains("13,500") && !pg.contains("4,500"), "variants are not the study's cases: {pg}");
        let variants = element(section, r#"id="restcache-variants""#, "</table>");
        assert!(variants.contains(">relaxed commits<") && variants.contains(">across rtt=20ms<"), "{variants}");
        let row = element(variants, "Go, PostgreSQL, empty, G3, 100 users", "</tr>");
        assert!(row.contains("9,000 req/s") && row.contains("1.50×") && row.contains("0.500×"), "{row}");
        assert!(section.contains(r#"id="chart-restcache-variants""#), "the variants drawn too");
        assert!(dir.path().join("charts/restcache-variants.svg").exists());
        // The cases stay in the scenarios table.
        assert!(element(&html, r#"<table id="scenarios""#, "</table>").contains("g3-u100-jetty-postgres"));
        let csv = read(&dir.path().join("restcache.csv"));
        assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
        assert!(csv.contains("g3-u100-go-postgres,postgres,empty,G3,100,go,3,9000,900,"), "{csv}");
        let markdown = read(&r.markdown);
        assert!(markdown.contains("## REST service study: every case per implementation"));
        assert!(markdown.contains("| empty, G3, 100 users | **9,000 req/s** (900 µs mean) |"), "{markdown}");
    }
}
