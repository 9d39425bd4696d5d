//! One module per protocol; each exposes `new() -> Box<dyn Driver>` and is registered in
//! `crate::registry::DRIVERS`.

pub mod event_stream;
pub mod grpc;
mod head;
pub mod http1;
pub mod http2;
pub mod http3;
pub mod messages;
pub mod mqtt;
pub mod sse;
pub mod websocket;
