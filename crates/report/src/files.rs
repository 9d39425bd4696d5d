//! The names of the files a render writes inside the results directory.

/// File names `render` writes inside the results directory.
pub const HTML_FILE: &str = "report.html";
/// See `HTML_FILE`.
pub const MARKDOWN_FILE: &str = "summary.md";
/// Folder of the standalone chart SVGs.
pub const CHARTS_DIR: &str = "charts";

/// The CSV and chart files a render wrote, relative to the results directory, one per line.
pub const WRITTEN_FILE: &str = ".report-files";
