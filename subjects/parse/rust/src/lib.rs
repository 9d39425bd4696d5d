//! parse-rust: the Rust server of the parse lab (study "JSON vs binary encoded objects"), and the
//! library of its driver. The API is `subjects/parse/README.md`: a provider of the formats lab's
//! `numeric` and `dummy` objects as JSON or BSON, and a consumer that fetches them from any
//! provider and times their decoding apart from the I/O around it.
//!
//! [`objects`] encodes and decodes (the formats lab's datasets and codecs), [`consume`] fetches,
//! times and verifies, [`server`] is the actix-web app, [`drive`] the harness that calls the
//! servers and prints measurement lines.

pub mod consume;
pub mod drive;
pub mod objects;
pub mod server;
