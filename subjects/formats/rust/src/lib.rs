//! formats-rust: the Rust subject of the formats lab. Datasets from `schema/datasets.json`, one
//! codec per serialization format, golden vectors and a bad-input corpus, and the in-process
//! harness that prints measurements.
//!
//! The pipeline: [`dataset`] generates → [`codecs`] encode and decode → [`vectors`] pins the bytes
//! → [`harness`] verifies and times → [`measurement`] is the line it prints. [`wire_schema`]
//! writes the .proto and .avsc files from the same `datasets.json`.

pub mod alloc_count;
pub mod codecs;
pub mod dataset;
pub mod fuzz;
pub mod harness;
pub mod measurement;
pub mod vectors;
pub mod wire_schema;
