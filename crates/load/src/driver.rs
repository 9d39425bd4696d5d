//! The driver contract: a driver opens a connection to a target and hands out `streams` channels
//! over it; a channel performs one call at a time (a request and its answer, or a streaming call
//! with its messages). Everything else (stop conditions, rates, timing, histograms) is the worker
//! loop's, shared by all drivers: the worker never learns a protocol.

use std::collections::BTreeMap;
use std::rc::Rc;

use async_trait::async_trait;
use bytes::Bytes;

use crate::error::LoadError;
use crate::io::Counters;
use wirebench_core::runner::Target;

/// The request every exchange of a scenario sends, prepared once.
#[derive(Debug, Clone)]
pub struct RequestSpec {
    pub method: String,
    pub path: String,
    /// `host:port`, for the Host header and the :authority pseudo-header.
    pub authority: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
    /// The scenario's protocol parameters (a gRPC call mode, a message count, ...): only the
    /// driver that reads them knows what they mean; it rejects bad ones at `connect`.
    pub params: BTreeMap<String, serde_json::Value>,
}

impl RequestSpec {
    /// The headers of an HTTP request: the scenario's, then `Content-Type:
    /// application/octet-stream` when there is a body and the scenario named no type. Protocols
    /// that carry the body otherwise (a gRPC message, a WebSocket frame) do not get the default.
    pub fn http_headers(&self) -> impl Iterator<Item = (&str, &str)> {
        let typed = self.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
        let default = (!self.body.is_empty() && !typed).then_some(("Content-Type", "application/octet-stream"));
        self.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).chain(default)
    }
}

/// One answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    /// The protocol's status: the HTTP status, or a gRPC call's `grpc-status`.
    pub status: u16,
    /// Payload bytes received (for a streaming call, of every message).
    pub body_len: u64,
    /// Messages the call carried: 1 for a plain request, K for a stream of K.
    pub messages: u64,
    /// When a streaming call's first message arrived (its time to first message is measured
    /// from the call's send time, like its latency); `None` for calls that are not streams.
    pub first_at: Option<std::time::Instant>,
    /// The body itself, only when asked for (verification).
    pub body: Option<Vec<u8>>,
}

/// Makes a driver; each load thread makes its own.
pub type Constructor = fn() -> Box<dyn Driver>;

/// Opens connections. Implementations are registered in `registry::DRIVERS`.
/// Drivers run on single-threaded runtimes, so their futures need not be `Send`.
#[async_trait(?Send)]
pub trait Driver {
    /// Opens one connection to `target` and returns `streams` channels that share it; never
    /// asked for more than its registry row's `max_streams` (the executor checks first).
    /// Bytes crossing the socket are added to `counters`.
    async fn connect(
        &self,
        target: &Target,
        request: &Rc<RequestSpec>,
        streams: u32,
        counters: &Rc<Counters>,
    ) -> Result<Vec<Box<dyn Channel>>, LoadError>;
}

/// One request at a time over a connection (HTTP/1.1) or a stream slot (HTTP/2).
#[async_trait(?Send)]
pub trait Channel {
    /// Sends the request and reads the whole answer; keeps the body if `keep_body`.
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError>;

    /// Sends `request` instead of the scenario's own (a thread group's step: each has its own
    /// method, path and body) and reads the whole answer. Drivers that cannot refuse.
    async fn exchange_request(&mut self, request: &RequestSpec, keep_body: bool) -> Result<Reply, LoadError> {
        let _ = (request, keep_body);
        Err(LoadError::Unsupported("this driver cannot run thread groups (steps need http1)".into()))
    }

    /// Ends the channel's session when the load is over (a WebSocket close handshake); most
    /// protocols need nothing. The worker bounds it in time and ignores its errors.
    async fn close(&mut self) -> Result<(), LoadError> {
        Ok(())
    }
}
