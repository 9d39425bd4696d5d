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
mod labs;
mod load;
mod model;
mod numbers;
mod render;
mod section;
mod table;

#[cfg(test)]
mod fixture;
#[cfg(test)]
mod golden;

use std::path::{Path, PathBuf};

use wirebench_core::results::ResultsError;

pub use compare::compare;
pub use model::RunWarning;

use render::{csv, html, markdown};
use section::Block;

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
    /// One CSV per table of the sections shown (`scenarios.csv`, `claims.csv`, `formats.csv`, …).
    pub csv: Vec<PathBuf>,
    /// `charts/<name>.svg` of every chart that had data.
    pub charts: Vec<PathBuf>,
    /// Scenarios with a failed repeat.
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
    #[error("{0}")]
    Chart(charts::ChartError),
}

/// Reads the results directory `dir` and writes the report files into it, replacing earlier ones.
pub fn render(dir: &Path) -> Result<Rendered, ReportError> {
    let report = model::Report::read(dir)?;
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
    remove_stale(dir, "csv", &csv)?;
    remove_stale(&chart_dir, "svg", &chart_files)?;
    Ok(Rendered {
        html,
        markdown,
        csv,
        charts: chart_files,
        failed: report.failed_scenarios(),
        warnings: report.warnings(),
    })
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

/// Removes the files with extension `ext` in `dir` that this render did not write: the report
/// owns every CSV of a results directory and every SVG of its charts folder.
fn remove_stale(dir: &Path, ext: &str, written: &[PathBuf]) -> Result<(), ReportError> {
    let entries = std::fs::read_dir(dir).map_err(|e| write_error(dir, e))?;
    for entry in entries {
        let path = entry.map_err(|e| write_error(dir, e))?.path();
        if path.extension().is_some_and(|e| e == ext) && !written.contains(&path) {
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(write_error(&path, e)),
                _ => {}
            }
        }
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<PathBuf, ReportError> {
    std::fs::write(path, text).map_err(|source| write_error(path, source))?;
    Ok(path.to_path_buf())
}

fn write_error(path: &Path, source: std::io::Error) -> ReportError {
    ReportError::Write { path: path.display().to_string(), source }
}
