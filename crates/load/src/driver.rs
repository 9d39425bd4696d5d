//! The driver contract: a driver opens a connection to a target and hands out `streams` channels
//! over it; a channel performs one request/response exchange at a time. Everything else (stop
//! conditions, rates, timing, histograms) is the worker loop's, shared by all drivers.

use std::rc::Rc;

use async_trait::async_trait;
use bytes::Bytes;

use crate::io::Counters;
use crate::LoadError;
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
}

/// One answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body_len: u64,
    /// The body itself, only when asked for (verification).
    pub body: Option<Vec<u8>>,
}

/// Opens connections. Implementations are registered in `crate::DRIVERS`.
/// Drivers run on single-threaded runtimes, so their futures need not be `Send`.
#[async_trait(?Send)]
pub trait Driver {
    /// Opens one connection to `target` and returns `streams` channels that share it.
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
}
