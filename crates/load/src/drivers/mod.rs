//! One module per protocol; each exposes `new() -> Box<dyn Driver>` and is registered in
//! `crate::registry::DRIVERS`.

pub mod event_stream;
pub mod grpc;
mod head;
pub mod http1;
pub mod http2;
pub mod http3;
pub mod mqtt;
pub mod sse;
pub mod websocket;

/// Refuses more than one stream per connection for protocols that carry one exchange at a time.
pub(crate) fn one_at_a_time(driver: &str, streams: u32) -> Result<(), crate::error::LoadError> {
    if streams == 1 {
        return Ok(());
    }
    Err(crate::error::LoadError::Unsupported(format!(
        "{driver} carries one request at a time per connection: use streams = 1 and more connections"
    )))
}
