//! wirebench-report: turns a results directory into what an engineer reads: `report.html`
//! (self-contained, inline CSS and SVG), `summary.md`, one CSV per table and each chart as
//! `charts/<name>.svg`; and compares two runs as a plain-text table.
//!
//! Pipeline: read the directory into a `model::Report` → its sections (the load rows', the
//! claims, each lab's from `labs::LABS`, the method), each a list of blocks over one table model →
//! draw the charts the sections ask for → render every section in HTML, Markdown and CSV.

mod charts;
mod claims;
mod compare;
mod error;
mod files;
mod labs;
mod load;
mod model;
mod numbers;
mod pace;
mod published;
mod render;
mod section;
mod table;
mod timeline;

#[cfg(test)]
mod fixture;
#[cfg(test)]
mod golden;
#[cfg(test)]
mod layers;

use std::path::{Path, PathBuf};

/// A comparison as text (`wirebench compare A B`).
pub use compare::text as comparison_text;
pub use compare::{compare, comparison, json_schema as comparison_schema, slower_gate, Comparison, Flip, Gate};
pub use error::ReportError;
pub use files::{CHARTS_DIR, HTML_FILE, MARKDOWN_FILE, WRITTEN_FILE};
pub use model::{ClaimsFrom, RunWarning};

use render::{csv, html, markdown};
use section::Block;
use wirebench_core::claims::Verdict;

/// Paths of the files `render` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub html: PathBuf,
    pub markdown: PathBuf,
    /// One CSV per table of the sections shown (`scenarios.csv`, `claims.csv`, `formats.csv`, …).
    pub csv: Vec<PathBuf>,
    /// `charts/<name>.svg` of every chart that had data.
    pub charts: Vec<PathBuf>,
    /// Scenarios with a failed repeat.
    pub failed: usize,
    /// What the report says about the run as a whole, for the command line to repeat.
    pub warnings: Vec<RunWarning>,
    /// Every claim's id and verdict, in the suite's order (`wirebench run --fail-on`).
    pub verdicts: Vec<(String, Verdict)>,
}

/// Reads the results directory `dir` and writes the report files into it, replacing earlier ones.
pub fn render(dir: &Path) -> Result<Rendered, ReportError> {
    render_with(dir, None)
}

/// `render`, judging `claims` instead of the run's own when given.
pub fn render_with(dir: &Path, claims: Option<&ClaimsFrom>) -> Result<Rendered, ReportError> {
    let report = model::Report::read(dir, claims)?;
    let mut sections = report.sections();
    let figures = draw_charts(&mut sections)?;
    let tables: Vec<&table::Csv> = sections.iter().flat_map(|s| &s.csv).collect();
    let names: Vec<&str> = tables.iter().map(|t| t.name).collect();
    let html = write(&dir.join(HTML_FILE), &html::page(&report, &sections, &names))?;
    let markdown = write(&dir.join(MARKDOWN_FILE), &markdown::summary(&report, &sections))?;
    let csv = tables.iter().map(|t| write(&dir.join(t.name), &csv::text(t))).collect::<Result<Vec<_>, _>>()?;
    let chart_dir = dir.join(CHARTS_DIR);
    std::fs::create_dir_all(&chart_dir).map_err(|source| write_error(&chart_dir, source))?;
    let mut chart_files = Vec::new();
    for (name, svg) in figures {
        let path = chart_dir.join(format!("{name}.svg"));
        chart_files.push(write(&path, &format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{svg}"))?);
    }
    // A table or chart not written now must not leave the previous render's file behind.
    let written: Vec<PathBuf> = csv.iter().chain(&chart_files).cloned().collect();
    remove_stale(dir, &written)?;
    Ok(Rendered {
        html,
        markdown,
        csv,
        charts: chart_files,
        failed: report.failed_scenarios(),
        verdicts: report.claims.iter().map(|j| (j.claim.id.clone(), j.outcome.verdict)).collect(),
        warnings: report.warnings(),
    })
}

/// The Markdown of the results directory `dir` without writing anything: the whole `summary.md`,
/// or only the sections whose ids `sections` names (in the report's order), without charts. The
/// documents' generated blocks are made with it (`wirebench report DIR --markdown --section ID`).
pub fn markdown(dir: &Path, sections: &[String]) -> Result<String, ReportError> {
    markdown_with(dir, sections, None)
}

/// `markdown`, judging `claims` instead of the run's own when given.
pub fn markdown_with(dir: &Path, sections: &[String], claims: Option<&ClaimsFrom>) -> Result<String, ReportError> {
    let report = model::Report::read(dir, claims)?;
    let all = report.sections();
    if sections.is_empty() {
        return Ok(markdown::summary(&report, &all));
    }
    for wanted in sections {
        if !all.iter().any(|s| &s.id == wanted) {
            let have: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
            return Err(ReportError::NoSection {
                dir: dir.display().to_string(),
                wanted: wanted.clone(),
                have: have.join(", "),
            });
        }
    }
    let mut out = String::new();
    for s in all.iter().filter(|s| sections.contains(&s.id)) {
        markdown::section(&mut out, s);
    }
    Ok(out)
}

/// Draws every chart the sections ask for, in place, and returns the SVG of each drawn one.
fn draw_charts(sections: &mut [section::Section]) -> Result<Vec<(&'static str, String)>, ReportError> {
    let mut svgs = Vec::new();
    for block in sections.iter_mut().flat_map(|s| s.blocks.iter_mut()) {
        if let Block::Chart(spec) = block {
            let figure = charts::draw(spec.clone()).map_err(ReportError::Chart)?;
            if let charts::Drawn::Svg { svg, .. } = &figure.drawn {
                svgs.push((figure.name, svg.clone()));
            }
            *block = Block::Figure(figure);
        }
    }
    Ok(svgs)
}

/// Removes the files the previous render listed in `WRITTEN_FILE` that this one did not write
/// (`written`), and lists this render's. Only the report's own files go: a CSV or an image a user
/// put beside the results stays.
fn remove_stale(dir: &Path, written: &[PathBuf]) -> Result<(), ReportError> {
    let list = dir.join(WRITTEN_FILE);
    let before = std::fs::read_to_string(&list).unwrap_or_default();
    // Only names this function could have written: a file, or one in the charts folder.
    let ours = |rel: &Path| {
        let parts: Vec<_> = rel.components().collect();
        let normal = parts.iter().all(|c| matches!(c, std::path::Component::Normal(_)));
        normal && (parts.len() == 1 || (parts.len() == 2 && rel.starts_with(CHARTS_DIR)))
    };
    for rel in before.lines().map(Path::new).filter(|rel| ours(rel)) {
        let path = dir.join(rel);
        if !written.contains(&path) {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(write_error(&path, e)),
                _ => {}
            }
        }
    }
    let names: Vec<String> =
        written.iter().filter_map(|p| p.strip_prefix(dir).ok()).map(|rel| rel.display().to_string() + "\n").collect();
    write(&list, &names.concat()).map(|_| ())
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
    use crate::fixture::{element, file_names, read, rendered, scenario_ids};
    use std::io::Write as _;

    #[test]
    fn markdown_of_chosen_sections_writes_nothing_and_names_the_sections_there_are() {
        let dir = tempfile::tempdir().unwrap();
        fixture::every_lab(dir.path());
        let md = markdown(dir.path(), &["claims-section".into(), "wasm".into()]).unwrap();
        assert!(md.starts_with("## Claims\n") && md.contains("## WebAssembly vs JavaScript: kernel time"), "{md}");
        assert!(!md.contains("## Formats") && !md.contains("!["), "only those sections, no charts: {md}");
        assert!(!dir.path().join(MARKDOWN_FILE).exists(), "nothing written");
        let whole = markdown(dir.path(), &[]).unwrap();
        assert!(whole.starts_with("# wirebench report: protocols") && whole.contains("## Formats"));
        let e = markdown(dir.path(), &["nope".into()]).unwrap_err().to_string();
        assert!(e.contains("no section `nope`") && e.contains("formats-section, parse, realtime, wasm, method"), "{e}");
    }

    #[test]
    fn render_writes_every_file_into_the_directory() {
        let (dir, r) = rendered();
        assert_eq!(r.html, dir.path().join("report.html"));
        assert_eq!(r.markdown, dir.path().join("summary.md"));
        assert_eq!(r.csv, [dir.path().join("claims.csv"), dir.path().join("scenarios.csv")]);
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
        let scenarios = read(&r.csv[1]);
        let lines: Vec<&str> = scenarios.lines().collect();
        assert_eq!(lines.len(), 1 + 4);
        assert!(
            lines[0].starts_with("scenario,subject,lang,protocol,transport,") && lines[0].ends_with(",flags,error")
        );
        for l in &lines {
            // No field of the fixture holds a comma, so a split counts the columns.
            assert_eq!(l.split(',').count(), 34, "{l}");
        }
        assert!(lines[1].starts_with("h2c-1kb,rest,rust,http2,h2c,16,8,,3,20000,"), "{}", lines[1]);
        assert!(
            lines[4].starts_with("broken,broken,go,http1,h1,")
                && lines[4].ends_with(",failed,subject `broken` exited: exit status: 1: <b>boom</b>"),
            "{}",
            lines[4]
        );

        let claims = read(&r.csv[0]);
        let lines: Vec<&str> = claims.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with("id,kind,conditions,text,source,published,published_value,tolerance,")
                && lines[0].ends_with(",verdict,reason")
        );
        assert!(lines[1].starts_with("h2c-beats-h1,study,,h2c serves <script>alert(1)</script> more & faster,,2x,2,,"));
        assert!(lines[1].contains(",inconclusive,"), "{}", lines[1]);
    }

    /// A sequential run's report says what it repeated and why it stopped, and judges its claims
    /// at the corrected level the run used: a claim 95 % intervals confirm may not be confirmed.
    #[test]
    fn a_sequential_run_is_judged_at_its_corrected_level_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        fixture::showcase(dir.path());
        let confirmed_at_95 = markdown(dir.path(), &["claims-section".into()]).unwrap();
        let multiplexing = |md: &str| md.lines().find(|l| l.contains("HTTP/2 multiplexing")).unwrap().to_string();
        assert!(multiplexing(&confirmed_at_95).contains("**confirmed**"));
        let run_file = dir.path().join("run.json");
        let mut run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&run_file).unwrap()).unwrap();
        run["sequential"] = serde_json::json!({
            "min_repeats": 3, "max_repeats": 1000, "budget_s": 600.0, "looks": 998, "claim_alpha": 0.05 / 998.0,
            "rounds": [], "stopped": "budget", "undecided": ["h2-multiplexing"],
        });
        std::fs::write(&run_file, run.to_string()).unwrap();
        let md = markdown(dir.path(), &["claims-section".into()]).unwrap();
        assert!(md.contains("judged at 99.995 % per look (5 % shared among 998 looks"), "{md}");
        assert!(md.contains("| Ours (99.995 % interval) |"), "{md}");
        assert!(md.contains("It stopped when its time budget was spent. Still undecided: `h2-multiplexing`."), "{md}");
        assert!(multiplexing(&md).contains("**inconclusive**"), "{}", multiplexing(&md));
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
        assert_eq!(h2c.matches(" | ").count() + 1, 19, "{h2c}");
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
    fn mixed_runs_render_both_and_keep_them_apart() {
        let dir = tempfile::tempdir().unwrap();
        fixture::mixed(dir.path());
        let r = render(dir.path()).unwrap();
        assert_eq!(file_names(&r.csv), ["claims.csv", "published.csv", "scenarios.csv", "formats.csv"]);
        assert_eq!(file_names(&r.charts), ["rps.svg", "latency.svg", "payload.svg", "formats.svg", "format-sizes.svg"]);
        let html = read(&r.html);
        let scenarios = element(&html, "<table id=\"scenarios\"", "</table>");
        assert_eq!(scenario_ids(scenarios), ["h2c-1kb", "h2c-1mb", "h1-1kb", "broken"]);
        let formats = element(&html, "<table id=\"formats\"", "</table>");
        assert_eq!(scenario_ids(formats).len(), 13);
        let headline = element(&html, "<section id=\"headline\">", "</section>");
        assert!(headline.contains("<code>h2c-1kb</code>") && !headline.contains("users-"), "{headline}");
        let charts = element(&html, "<section id=\"charts\">", "</section>");
        assert!(!charts.contains("chart-formats"), "formats charts live in their section");
        for load in &r.charts[..3] {
            assert!(!read(load).contains("users-"), "{}", load.display());
        }
        assert_eq!(read(&r.csv[2]).lines().count(), 1 + 4);
        assert!(html.contains("Each scenario ran 3 times") && html.contains("Each serialization harness"));
        let md = read(&r.markdown);
        assert!(md.contains("\n## Scenarios\n") && md.contains("\n\n## Formats\n"), "{md}");
    }

    #[test]
    fn files_a_user_put_beside_the_results_stay() {
        let (dir, _) = rendered();
        std::fs::write(dir.path().join("mine.csv"), "a,b\n").unwrap();
        std::fs::write(dir.path().join(CHARTS_DIR).join("mine.svg"), "<svg/>").unwrap();
        // A listed name outside the results directory is never touched.
        let outside = tempfile::NamedTempFile::new().unwrap();
        let list = read(&dir.path().join(WRITTEN_FILE));
        std::fs::write(dir.path().join(WRITTEN_FILE), format!("{list}{}\n../x.csv\n", outside.path().display()))
            .unwrap();
        render(dir.path()).unwrap();
        assert!(dir.path().join("mine.csv").exists() && dir.path().join(CHARTS_DIR).join("mine.svg").exists());
        assert!(outside.path().exists());
        assert!(read(&dir.path().join(WRITTEN_FILE)).lines().any(|l| l == "charts/rps.svg"));
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
        for v in ["confirmed", "refuted", "differs-in-size"] {
            assert!(html.contains(&format!("badge {v}")), "showcase covers the verdict {v}");
        }
        assert_eq!(file_names(&r.csv), ["claims.csv", "claim_cases.csv", "published.csv", "scenarios.csv"]);
        let published = read(&r.csv[2]);
        let h1 = published.lines().find(|l| l.contains(",h1-1kb,")).unwrap();
        let ours: f64 = h1.split(',').nth(6).unwrap().parse().unwrap();
        let over: f64 = h1.split(',').nth(9).unwrap().parse().unwrap();
        assert!((over - ours / 82_000.0).abs() < 1e-12, "ours ÷ the study's: {h1}");
        assert!(html.contains("the study: h2 (always with TLS)"), "the study's own row label is shown");
        assert!(read(&r.csv[1]).contains("h1-tls-slowest-1kb,h2c,h1-tls-1kb h2c-1kb,"), "every case is listed");
        assert_eq!(r.charts.len(), 3);
    }
}
