//! Why a report could not be made (`ReportError`), for every step from reading the run to
//! writing its files.

use wirebench_core::results::ResultsError;

use crate::charts;

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
    #[error("{dir}: no section `{wanted}` in this run's report; it has: {have}")]
    NoSection { dir: String, wanted: String, have: String },
}
