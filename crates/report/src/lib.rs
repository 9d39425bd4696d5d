//! wirebench-report: turns a results directory into what an engineer reads: `report.html`
//! (self-contained, inline CSS and SVG), `summary.md`, one CSV per table and each chart as
//! `charts/<name>.svg`; and compares two runs as a plain-text table.
//!
//! Pipeline: read the directory into a `model::Report` (everything the outputs say, computed
//! once) → draw the charts → write each output from the model.

mod cells;
mod charts;
mod compare;
mod csv;
mod format;
mod formats;
mod html;
mod markdown;
mod model;
mod parse;
mod published;
mod realtime;
mod restcache;
mod wasm;

#[cfg(test)]
mod fixture;
#[cfg(test)]
mod golden;

use std::path::{Path, PathBuf};

use wirebench_core::results::ResultsError;

pub use compare::compare;
pub use model::RunWarning;

/// File names `render` writes inside the results directory.
pub const HTML_FILE: &str = "report.html";
/// See `HTML_FILE`.
pub const MARKDOWN_FILE: &str = "summary.md";
/// Folder of the standalone chart SVGs.
pub const CHARTS_DIR: &str = "charts";

/// Paths of the files `render` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub html: PathBuf,
    pub markdown: PathBuf,
    /// `scenarios.csv` (when the run has load scenarios), `claims.csv`, `formats.csv` (when it
    /// measured formats).
    pub csv: Vec<PathBuf>,
    /// `charts/<name>.svg` of every chart that had data.
    pub charts: Vec<PathBuf>,
    /// Scenarios (load rows and format rows) with a failed repeat.
    pub failed: usize,
    /// What the report says about the run as a whole, for the command line to repeat.
    pub warnings: Vec<RunWarning>,
}

/// Why a report could not be made; `Display` is one line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{run_file}: not found: pass a results directory written by `wirebench run`")]
    NotResults { run_file: String },
    #[error(transparent)]
    Results(#[from] ResultsError),
    #[error("{path}: cannot write: {source}")]
    Write { path: String, source: std::io::Error },
    #[error("chart `{chart}`: {message}")]
    Chart { chart: &'static str, message: String },
}

/// Reads the results directory `dir` and writes the report files into it, replacing earlier ones.
pub fn render(dir: &Path) -> Result<Rendered, ReportError> {
    let report = model::Report::read(dir)?;
    let charts = charts::draw_all(&report)?;
    let html = write(&dir.join(HTML_FILE), &html::page(&report, &charts))?;
    let markdown = write(&dir.join(MARKDOWN_FILE), &markdown::summary(&report))?;
    let csv = csv::written(&report)
        .map(|(name, table)| write(&dir.join(name), &table(&report)))
        .collect::<Result<Vec<_>, _>>()?;
    // A table or chart not written now must not leave the previous render's file behind.
    for (name, _, _) in csv::TABLES {
        let path = dir.join(name);
        if !csv.contains(&path) {
            remove_stale(&path)?;
        }
    }
    let chart_dir = dir.join(CHARTS_DIR);
    std::fs::create_dir_all(&chart_dir).map_err(|source| write_error(&chart_dir, source))?;
    let mut chart_files = Vec::new();
    for chart in &charts {
        if let charts::Drawn::Svg { svg, .. } = &chart.drawn {
            let path = chart_dir.join(format!("{}.svg", chart.name));
            chart_files.push(write(&path, &format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{svg}"))?);
        }
    }
    for (name, ..) in charts::CHARTS {
        let path = chart_dir.join(format!("{name}.svg"));
        if !chart_files.contains(&path) {
            remove_stale(&path)?;
        }
    }
    Ok(Rendered {
        html,
        markdown,
        csv,
        charts: chart_files,
        failed: report.failed_scenarios(),
        warnings: report.warnings(),
    })
}

fn remove_stale(path: &Path) -> Result<(), ReportError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(write_error(path, e)),
        _ => Ok(()),
    }
}

fn write(path: &Path, text: &str) -> Result<PathBuf, ReportError> {
    std::fs::write(path, text).map_err(|source| write_error(path, source))?;
    Ok(path.to_path_buf())
}

fn write_error(path: &Path, source: std::io::Error) -> ReportError {
    ReportError::Write { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    fn rendered() -> (tempfile::TempDir, Rendered) {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let r = render(dir.path()).unwrap();
        (dir, r)
    }

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap()
    }

    fn element<'a>(html: &'a str, open: &str, close: &str) -> &'a str {
        let start = html.find(open).unwrap_or_else(|| panic!("no {open}"));
        let end = start + html[start..].find(close).unwrap_or_else(|| panic!("no {close} after {open}"));
        &html[start..end]
    }


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
        let table = element(steps, r#"data-scenario="g3-open-go""#, "</table>");
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
    fn rest_study_cases_get_a_table_per_store_and_the_server_side_split() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        for repeat in 1..=3 {
            // Go: 9,000 requests, 2.1 CPU-s of its own and 0.9 of PostgreSQL's; 512 MiB each.
            writeln!(f, "{}", fixture::case_line("go", "postgres", repeat, 9000.0, (3.0, 0.9), (1048576, 524288))).unwrap();
            // Jetty: 5,000 requests, 3.0 + 1.0 CPU-s; 768 MiB of its own.
            writeln!(f, "{}", fixture::case_line("jetty", "postgres", repeat, 5000.0, (4.0, 1.0), (1310720, 524288))).unwrap();
            writeln!(f, "{}", fixture::case_line("go", "sqlite", repeat, 4000.0, (1.0, 0.0), (65536, 0))).unwrap();
        }
        drop(f);
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        let section = element(&html, r#"<section id="restcache">"#, "</section>");
        let pg = element(section, r#"data-table="restcache-postgres""#, "</table>");
        assert!(pg.contains("<th scope=\"row\">empty, G3, 100 users</th>"), "{pg}");
        assert!(pg.contains("<strong>9,000 req/s</strong>") && pg.contains(">5,000 req/s<"), "the best in bold: {pg}");
        assert!(!pg.contains("Rust") && pg.contains("Java, Jetty"), "only the implementations measured: {pg}");
        let sqlite = element(section, r#"data-table="restcache-sqlite""#, "</table>");
        assert!(sqlite.contains("4,000 req/s") && !sqlite.contains("<strong>"), "one implementation: {sqlite}");
        let res = element(section, r#"data-table="restcache-resources""#, "</table>");
        let row = element(res, "Go, PostgreSQL", "</tr>");
        assert!(row.contains("233 µs") && row.contains("100 µs") && row.matches("512 MiB").count() == 2, "{row}");
        let row = element(res, "Java, Jetty, PostgreSQL", "</tr>");
        assert!(row.contains("600 µs") && row.contains("200 µs") && row.contains("768 MiB"), "{row}");
        assert!(element(res, "Go, SQLite", "</tr>").contains("in the service"), "{res}");
        // The cases stay in the scenarios table.
        assert!(element(&html, r#"<table id="scenarios""#, "</table>").contains("g3-u100-jetty-postgres"));
        let csv = read(&dir.path().join("restcache.csv"));
        assert_eq!(csv.lines().count(), 1 + 3, "{csv}");
        assert!(csv.contains("g3-u100-go-postgres,postgres,empty,G3,100,go,3,9000,900,"), "{csv}");
        let markdown = read(&r.markdown);
        assert!(markdown.contains("## REST service study: every case per implementation"));
        assert!(markdown.contains("| empty, G3, 100 users | **9,000 req/s** (900 µs mean) |"), "{markdown}");
    }

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
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        let section = element(&html, r#"<section id="wasm">"#, "</section>");
        let filters = element(section, r#"data-table="filters""#, "</table>");
        // Ours (median of 30.6 ms, JS ÷ wasm 1.5×) beside the study's (23.6 ms, 0.897×).
        assert!(
            filters.contains("<strong>30.6 ms</strong>") && filters.contains("<strong>1.50×</strong>"),
            "{filters}"
        );
        assert!(filters.contains("23.6 ms") && filters.contains("0.897×"), "the study's numbers: {filters}");
        assert!(filters.contains("copies 2.50 ms + 2.50 ms"), "the buffer row's copies: {filters}");
        let workers = element(section, r#"data-table="workers""#, "</table>");
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
                            writeln!(f, "{}", fixture::realtime_line(protocol, direction, n, 0, tls, repeat, s)).unwrap();
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
        let clear = element(section, r#"data-condition="cleartext""#, "</table>");
        assert!(clear.contains("<th class=\"num\">HTTP GET</th><th class=\"num\">HTTP POST</th><th class=\"num\">WebSocket receive</th>"), "{clear}");
        // 100 GETs at 2.5 ms each, median repeat (× 1.02).
        let cell = element(clear, r#"data-scenario="http-download-h0-n100">"#, "</td>");
        assert!(cell.contains("<strong>255 ms</strong>") && cell.contains("p95 25"), "{cell}");
        assert!(section.contains(r#"data-condition="TLS""#));
        let headers = element(section, r#"class="realtime headers" data-condition="cleartext""#, "</table>");
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
                "http-upload-h100-n100,http,upload,100,100,false,false,http/1.1,false,1,false,chromium@156,3,306,"
            ),
            "{csv}"
        );
        let md = read(&r.markdown);
        assert!(
            md.contains("## WebSocket vs HTTP: time for N messages") && md.contains("### TLS (HTTPS, WSS)"),
            "{md}"
        );
    }

    #[test]
    fn render_writes_every_file_into_the_directory() {
        let (dir, r) = rendered();
        assert_eq!(r.html, dir.path().join("report.html"));
        assert_eq!(r.markdown, dir.path().join("summary.md"));
        assert_eq!(r.csv, [dir.path().join("scenarios.csv"), dir.path().join("claims.csv")]);
        let names: Vec<_> = r.charts.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["rps.svg", "latency.svg", "payload.svg"]);
        for p in r.charts.iter().chain([&r.html, &r.markdown]).chain(&r.csv) {
            assert!(p.is_file(), "{}", p.display());
        }
        // Rendering again overwrites in place.
        std::fs::write(&r.html, "stale").unwrap();
        assert_eq!(render(dir.path()).unwrap(), r);
        assert!(read(&r.html).starts_with("<!DOCTYPE html>"));
    }

    #[test]
    fn html_tables_show_scenarios_numbers_flags_and_failures() {
        let (_dir, r) = rendered();
        let html = read(&r.html);
        // Versions are one click away, so the headline is the first thing on screen.
        let versions = element(&html, "<details class=\"versions\">", "</details>");
        assert!(versions.contains("<th scope=\"row\">rustc</th><td><code>1.95.0</code>"), "{versions}");
        let table = element(&html, "<table id=\"scenarios\">", "</table>");
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
    fn text_from_files_cannot_inject_markup() {
        let dir = tempfile::tempdir().unwrap();
        let mut specs = fixture::standard_specs(1.0);
        specs[0].id = "<img src=x onerror=alert(1)>";
        let claims = fixture::CLAIMS.replace("\"h2c-1kb\"", "\"<img src=x onerror=alert(1)>\"");
        fixture::write(dir.path(), &specs, &claims);
        let r = render(dir.path()).unwrap();
        let html = read(&r.html);
        assert!(!html.contains("<script>alert"), "claim text got through");
        assert!(html.contains("h2c serves &lt;script&gt;alert(1)&lt;/script&gt; more &amp; faster"));
        assert!(!html.contains("<img"), "scenario id got through");
        assert!(!html.contains("<b>boom"), "error text got through");
        // The id also reaches chart labels: those are escaped by the SVG writer.
        for chart in &r.charts {
            let svg = read(chart);
            assert!(!svg.contains("<img") && !svg.contains("<script"), "{}", chart.display());
            roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}", chart.display()));
        }
        let md = read(&r.markdown);
        assert!(md.contains("h2c serves &lt;script&gt;alert(1)&lt;/script&gt; more &amp; faster"), "{md}");
    }

    #[test]
    fn chart_files_are_well_formed_xml() {
        let (_dir, r) = rendered();
        for chart in &r.charts {
            let svg = read(chart);
            let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{}: {e}", chart.display()));
            assert_eq!(doc.root_element().tag_name().name(), "svg");
            assert_eq!(doc.root_element().tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
        }
    }

    #[test]
    fn csv_tables_have_a_header_and_one_line_per_row() {
        let (_dir, r) = rendered();
        let scenarios = read(&r.csv[0]);
        let lines: Vec<&str> = scenarios.lines().collect();
        assert_eq!(lines.len(), 1 + 4);
        assert_eq!(lines[0], csv::SCENARIO_COLUMNS.join(","));
        for l in &lines {
            // No field of the fixture holds a comma, so a split counts the columns.
            assert_eq!(l.split(',').count(), csv::SCENARIO_COLUMNS.len(), "{l}");
        }
        assert!(lines[1].starts_with("h2c-1kb,rest,rust,http2,h2c,16,8,,3,20000,"), "{}", lines[1]);
        assert!(
            lines[4].starts_with("broken,broken,go,http1,h1,")
                && lines[4].ends_with(",failed,subject `broken` exited: exit status: 1: <b>boom</b>"),
            "{}",
            lines[4]
        );

        let claims = read(&r.csv[1]);
        let lines: Vec<&str> = claims.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0], csv::CLAIM_COLUMNS.join(","));
        assert!(lines[1].starts_with("h2c-beats-h1,h2c serves <script>alert(1)</script> more & faster,2x,2,"));
        assert!(lines[1].contains(",inconclusive,"), "{}", lines[1]);
    }

    #[test]
    fn markdown_has_headline_claims_and_scenarios() {
        let (_dir, r) = rendered();
        let md = read(&r.markdown);
        assert!(
            md.contains("- **Payload 1KB**: `h2c-1kb` is fastest at 20,000 req/s (95 % CI 19,006–20,994)."),
            "{md}"
        );
        assert!(
            md.contains("- **Failed** `broken`: subject \\`broken\\` exited: exit status: 1: &lt;b&gt;boom&lt;/b&gt;"),
            "{md}"
        );
        assert!(md.contains("| **inconclusive** |"));
        let scenario_rows = md.lines().filter(|l| l.starts_with("| `")).count();
        assert_eq!(scenario_rows, 4);
        let h2c = md.lines().find(|l| l.starts_with("| `h2c-1kb`")).unwrap();
        assert!(h2c.contains("| 20,000 [19,006–20,994] |"), "{h2c}");
        assert_eq!(h2c.matches(" | ").count() + 1, cells::COLUMNS.len(), "{h2c}");
    }

    #[test]
    fn unreadable_directories_give_one_line_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = render(&dir.path().join("absent")).unwrap_err().to_string();
        assert!(missing.contains("absent/run.json: not found"), "{missing}");

        fixture::standard(dir.path());
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        // A bad line followed by a good one: not a torn last line, so it is an error.
        writeln!(f, "{{\"schema_version\": 1, oops").unwrap();
        let good = read(&dir.path().join("measurements.jsonl")).lines().next().unwrap().to_string();
        writeln!(f, "{good}").unwrap();
        let bad = render(dir.path()).unwrap_err().to_string();
        assert!(bad.contains("measurements.jsonl: line 11: not a measurement"), "{bad}");
        for e in [missing, bad] {
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn a_cut_off_last_line_is_left_out_and_said() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let whole = render(dir.path()).unwrap();
        assert!(!read(&whole.html).contains("was cut off"));
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join("measurements.jsonl")).unwrap();
        write!(f, "{{\"schema_version\": 1, \"scen").unwrap(); // what SIGKILL mid-write leaves
        let r = render(dir.path()).unwrap();
        let warning = "A measurement was cut off.</strong> Line 11 of measurements.jsonl was being written";
        assert!(read(&r.html).contains(warning), "{}", read(&r.html));
        assert!(read(&r.markdown).contains("> **A measurement was cut off.** Line 11 of measurements.jsonl"));
        assert_eq!(read(&r.html).matches("<tr").count(), read(&whole.html).matches("<tr").count());
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

    fn formats_rendered() -> (tempfile::TempDir, Rendered) {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        let r = render(dir.path()).unwrap();
        (dir, r)
    }

    fn file_names(paths: &[PathBuf]) -> Vec<&str> {
        paths.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect()
    }

    /// The `data-scenario` of every row in `html`, in order.
    fn scenario_ids(html: &str) -> Vec<&str> {
        html.split("data-scenario=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]).collect()
    }

    #[test]
    fn formats_only_runs_leave_the_load_sections_out() {
        let (dir, r) = formats_rendered();
        assert_eq!(file_names(&r.csv), ["claims.csv", "formats.csv"]);
        assert_eq!(file_names(&r.charts), ["formats.svg", "format-sizes.svg"]);
        assert!(!dir.path().join("scenarios.csv").exists());
        let html = read(&r.html);
        for absent in
            ["id=\"headline\"", "id=\"scenarios", "id=\"charts\"", "chart-rps", "chart-latency", "chart-payload"]
        {
            assert!(!html.contains(absent), "{absent}");
        }
        assert!(!html.contains("req/s"), "no load wording");
        assert!(html.contains("<section id=\"formats-section\">") && html.contains("<table id=\"formats\">"));
        let claims = element(&html, "<table id=\"claims\">", "</table>");
        assert!(
            claims.contains("serialize_ns(users-xml-rust) / serialize_ns(users-msgpack-rust) &gt; 5.00"),
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
        let table = element(&html, "<table id=\"formats\">", "</table>");
        let users = element(table, "<tbody data-dataset=\"users\">", "</tbody>");
        assert!(users.contains("Dataset <code>users</code> <span class=\"muted\">1,000 objects</span>"));
        assert_eq!(
            scenario_ids(users),
            [
                "users-msgpack-rust",
                "users-msgpack-go",
                "users-json-rust",
                "users-json-go",
                "users-xml-rust",
                "users-xml-go",
                "users-protobuf-go"
            ]
        );
        let numeric = element(table, "<tbody data-dataset=\"numeric\">", "</tbody>");
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
        let msgpack = element(users, "data-scenario=\"users-msgpack-rust\"", "</tr>");
        assert!(msgpack.contains("<td class=\"lib\">rmp-serde<div class=\"sub\">1.3.0</div></td>"), "{msgpack}");
        assert!(msgpack.contains("<td class=\"num\">112,310<div class=\"sub\">112 KB</div></td>"), "{msgpack}");
        assert!(msgpack.contains("29,870<div class=\"sub\">26.6 % of raw</div>"), "{msgpack}");
        assert!(msgpack.contains("<strong>0.748</strong><div class=\"ci\">0.729–0.767</div>"), "{msgpack}");
        assert!(msgpack.contains("<strong>2.25</strong><div class=\"ci\">2.19–2.30</div>"), "{msgpack}");
        assert!(
            msgpack.contains(&format!(
                "<td class=\"num total\" title=\"{}\"><strong>3.00</strong><div class=\"ci\">2.92–3.07</div></td>\
                 <td class=\"num\">1.00×</td>",
                html::Esc(cells::TOTAL_TITLE)
            )),
            "{msgpack}"
        );
        assert!(cells::TOTAL_TITLE.contains("sum of the two lower bounds to the sum of the two upper bounds"));
        // × fastest is within a dataset and language: Go's fastest is Go's msgpack.
        for (id, relative) in [("users-msgpack-go", "1.00×"), ("users-json-go", "1.79×"), ("users-xml-rust", "7.80×")]
        {
            let row = element(users, &format!("data-scenario=\"{id}\""), "</tr>");
            assert!(row.contains(&format!("</td><td class=\"num\">{relative}</td>")), "{id}: {row}");
        }

        let failed = element(users, "data-scenario=\"users-protobuf-go\"", "</tr>");
        assert!(users.contains("<tr class=\"failed\" data-scenario=\"users-protobuf-go\">"));
        assert!(failed.contains(">failed<") && failed.contains("0 of 3 repeats completed"), "{failed}");
        assert!(failed.contains("verification failed: decoded &lt;User&gt; #3 differs from the input"), "{failed}");
        let noisy = element(numeric, "data-scenario=\"numeric-xml-go\"", "</tr>");
        assert!(noisy.contains("<span class=\"badge flag noisy\""), "{noisy}");
    }

    #[test]
    fn published_columns_sit_beside_rust_users_rows_with_the_study_slips_below() {
        let (_dir, r) = formats_rendered();
        let html = read(&r.html);
        let table = element(&html, "<table id=\"formats\">", "</table>");
        for label in ["Published total ms", "Published bytes", "Size ÷ published"] {
            assert!(table.contains(&format!("{label}</th>")), "{label}");
        }
        let row = element(table, "data-scenario=\"users-msgpack-rust\"", "</tr>");
        assert!(
            row.contains(
                "<td class=\"num pub\" title=\"serialize 0.748 + deserialize 2.247 ms\">2.995</td>\
                 <td class=\"num pub\">527,431</td><td class=\"num pub\">0.213×</td>"
            ),
            "{row}"
        );
        assert!(row.contains(">225 KB / 337 KB<div class=\"sub\">12 / 6,011 allocations</div></td>"), "{row}");
        assert!(table.contains("<th class=\"num\" title=\"Heap bytes (and allocation calls)"), "alloc column titled");
        let xml = element(table, "data-scenario=\"users-xml-rust\"", "</tr>");
        assert!(xml.contains(">23.351</td>") && xml.contains(">1,761,825</td>"), "{xml}");
        for id in ["users-msgpack-go", "numeric-msgpack-rust"] {
            let row = element(table, &format!("data-scenario=\"{id}\""), "</tr>");
            assert!(!row.contains("pub") && row.contains("<td class=\"num\"></td><td class=\"num\"></td>"), "{row}");
        }
        let note = element(&html, "<div class=\"note\" id=\"published-note\">", "</div>");
        assert!(
            note.contains("“MessagePack serializes 6.0× faster than XML”, but the table gives 5.273 / 0.748 = 7.05×")
        );
        assert!(note.contains("but the table gives 18.078 / 5.988 = 3.02×"), "{note}");
        assert!(html.contains("Table 5.2 of the study “Ways to optimize web applications”"));

        let md = read(&r.markdown);
        let users = md.lines().find(|l| l.starts_with("| `msgpack` | rust |")).unwrap();
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
            for t in ["Dataset users · 1,000 objects", "Dataset numeric · 100 objects", "msgpack", "xml"] {
                assert!(texts.contains(t), "{id}: no {t}");
            }
        }
        let sizes = read(&r.charts[1]);
        assert!(sizes.contains("json (rust)") && sizes.contains("json (go)"), "different bytes, separate groups");
        let html = read(&r.html);
        let section = element(&html, "<section id=\"formats-section\">", "</section>");
        assert!(section.contains("<svg class=\"chart\" id=\"chart-formats\""));
        assert!(section.contains("<figcaption>Not shown (no time measured): users-protobuf-go.</figcaption>"));

        let csv = read(&r.csv[1]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 1 + 13);
        assert_eq!(lines[0], csv::FORMAT_COLUMNS.join(","));
        for l in &lines {
            assert_eq!(l.split(',').count(), csv::FORMAT_COLUMNS.len(), "{l}");
        }
        assert!(
            lines[1].starts_with(
                "users,msgpack,rust,users-msgpack-rust,formats-rust,rmp-serde@1.3.0,1000,3,112310,29870,26400,748000,"
            ),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with(",1,224620,12,336930,6011,2995000,527431,0.2129378060826914,,"), "{}", lines[1]);
        assert!(
            lines[7].starts_with("users,protobuf,go,")
                && lines[7].ends_with(",failed,verification failed: decoded <User> #3 differs from the input")
        );
    }

    #[test]
    fn mixed_runs_render_both_and_keep_them_apart() {
        let dir = tempfile::tempdir().unwrap();
        fixture::mixed(dir.path());
        let r = render(dir.path()).unwrap();
        assert_eq!(file_names(&r.csv), ["scenarios.csv", "claims.csv", "formats.csv"]);
        assert_eq!(file_names(&r.charts), ["rps.svg", "latency.svg", "payload.svg", "formats.svg", "format-sizes.svg"]);
        let html = read(&r.html);
        let scenarios = element(&html, "<table id=\"scenarios\">", "</table>");
        assert_eq!(scenario_ids(scenarios), ["h2c-1kb", "h2c-1mb", "h1-1kb", "broken"]);
        let formats = element(&html, "<table id=\"formats\">", "</table>");
        assert_eq!(scenario_ids(formats).len(), 13);
        let headline = element(&html, "<section id=\"headline\">", "</section>");
        assert!(headline.contains("<code>h2c-1kb</code>") && !headline.contains("users-"), "{headline}");
        let charts = element(&html, "<section id=\"charts\">", "</section>");
        assert!(!charts.contains("chart-formats"), "formats charts live in their section");
        for load in &r.charts[..3] {
            assert!(!read(load).contains("users-"), "{}", load.display());
        }
        assert_eq!(read(&r.csv[0]).lines().count(), 1 + 4);
        assert!(html.contains("Each scenario ran 3 times") && html.contains("Each serialization harness"));
        let md = read(&r.markdown);
        assert!(md.contains("\n## Scenarios\n") && md.contains("\n\n## Formats\n"), "{md}");
    }

    #[test]
    fn outputs_of_a_section_the_run_lacks_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        fixture::formats_only(dir.path());
        render(dir.path()).unwrap();
        assert!(dir.path().join("formats.csv").exists() && dir.path().join("charts/formats.svg").exists());
        std::fs::remove_file(dir.path().join("measurements.jsonl")).unwrap();
        fixture::standard(dir.path());
        let r = render(dir.path()).unwrap();
        assert!(!dir.path().join("formats.csv").exists());
        assert!(
            !dir.path().join("charts/formats.svg").exists() && !dir.path().join("charts/format-sizes.svg").exists()
        );
        assert!(!read(&r.html).contains("formats"));
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
        let table = element(&html, "<table id=\"formats\">", "</table>");
        assert_eq!(scenario_ids(table).len(), 3 * 7 * 4);
        assert_eq!(r.charts.len(), 2);
    }

    /// `WIREBENCH_REPORT_SAMPLE=/some/dir cargo test -p wirebench-report sample` writes a fuller
    /// sample run and its report there, for looking at in a browser.
    #[test]
    fn sample_report_renders() {
        let target = std::env::var_os("WIREBENCH_REPORT_SAMPLE");
        let tmp = tempfile::tempdir().unwrap();
        let dir = target.as_ref().map_or(tmp.path(), Path::new);
        if dir.join("measurements.jsonl").exists() {
            std::fs::remove_file(dir.join("measurements.jsonl")).unwrap();
        }
        fixture::showcase(dir);
        let r = render(dir).unwrap();
        let html = read(&r.html);
        assert!(html.contains("badge confirmed") && html.contains("badge refuted"), "showcase covers verdicts");
        assert_eq!(r.charts.len(), 3);
    }
}
