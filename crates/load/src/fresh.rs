//! A new connection for every request (`reconnect`): each exchange opens its own connection,
//! sends one request on it, and closes it, so the request's latency holds the connection's
//! handshakes (TCP, TLS, QUIC), as a client that does not keep connections alive pays them. A
//! channel like any other: the worker loop times and counts it without knowing.

use std::rc::Rc;

use async_trait::async_trait;

use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::Counters;
use wirebench_core::runner::Target;

pub struct Fresh {
    pub driver: Rc<dyn Driver>,
    pub target: Target,
    pub request: Rc<RequestSpec>,
    pub counters: Rc<Counters>,
}

impl Fresh {
    /// One connection with one channel on it.
    async fn open(&self) -> Result<Box<dyn Channel>, LoadError> {
        let mut channels = self.driver.connect(&self.target, &self.request, 1, &self.counters).await?;
        channels.pop().ok_or_else(|| LoadError::Protocol("the driver opened a connection with no channel".into()))
    }
}

#[async_trait(?Send)]
impl Channel for Fresh {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let mut channel = self.open().await?;
        let reply = channel.exchange(keep_body).await;
        // Closed as the load's end closes any channel, then dropped with its connection. The
        // close is inside the request's time: nothing for HTTP, whose close does no exchange; a
        // WebSocket's close handshake, which a client without keep-alive pays too.
        let _ = channel.close().await;
        reply
    }

    async fn exchange_request(&mut self, request: &RequestSpec, keep_body: bool) -> Result<Reply, LoadError> {
        let mut channel = self.open().await?;
        let reply = channel.exchange_request(request, keep_body).await;
        let _ = channel.close().await;
        reply
    }
}
