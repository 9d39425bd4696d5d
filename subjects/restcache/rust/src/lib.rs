//! RESTCache in Rust (subjects/restcache/openapi.yaml): the API on axum (`api`) served with the
//! contract's connection limits (`serve`), its two stores (`store`), and the study's pre-filled state (`fill`). Binaries: `restcache-rust`, the
//! service; `restcache-fill`, the loader a suite runs before a pre-filled subject starts.

pub mod api;
pub mod fill;
pub mod serve;
pub mod store;
