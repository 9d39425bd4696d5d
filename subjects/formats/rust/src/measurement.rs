//! One output line of the harness, in the shape of `schemas/measurement.schema.json` (version 1):
//! the runner ingests these lines like its own measurements.

use serde::Serialize;

pub const SCHEMA_VERSION: u32 = 1;
pub const SUITE: &str = "formats";
pub const SUBJECT: &str = "formats-rust";
pub const LANG: &str = "rust";

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measurement {
    pub schema_version: u32,
    pub run_id: String,
    pub suite: &'static str,
    /// `<dataset>-<format>-rust`.
    pub scenario: String,
    pub subject: &'static str,
    pub lang: &'static str,
    pub format: &'static str,
    pub params: Params,
    /// 1-based; 0 for a failure found before any repeat ran (verification).
    pub repeat: u32,
    pub status: Status,
    pub error: Option<String>,
    pub metrics: Metrics,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Params {
    pub dataset: &'static str,
    pub objects: usize,
    pub samples: usize,
    /// `crate@version` of the codec's library.
    pub library: &'static str,
    pub min_sample_ms: u64,
    pub warmup_ms: u64,
    pub gzip_level: u32,
    pub zstd_level: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Failed,
}

/// Empty for a failed row.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Metrics {
    /// Median over the samples of the time of one encode, in nanoseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serialize_ns: Option<f64>,
    /// Median over the samples of the time of one decode, in nanoseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deserialize_ns: Option<f64>,
    /// Length of the encoding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_gzip_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_zstd_bytes: Option<u64>,
    /// Allocation calls of one encode (absent when the counting allocator is not installed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serialize_allocs: Option<u64>,
    /// Bytes those allocations requested (a reallocation counts its new size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serialize_alloc_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deserialize_allocs: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deserialize_alloc_bytes: Option<u64>,
}

impl Measurement {
    /// The scenario id of a dataset and format.
    pub fn scenario(dataset: &str, format: &str) -> String {
        format!("{dataset}-{format}-{LANG}")
    }
}
