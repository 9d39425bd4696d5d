//! One module per protocol; each exposes `new() -> Box<dyn Driver>` and is registered in
//! `crate::DRIVERS`.

pub mod grpc;
pub mod http1;
pub mod http2;
pub mod sse;
pub mod websocket;
