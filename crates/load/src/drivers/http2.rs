//! HTTP/2 with the `h2` crate: h2c with prior knowledge on the cleartext port, or TLS with ALPN
//! `h2`. One connection carries `streams` concurrent channels (`h2load -m`). Windows are opened
//! wide (as h2load's default -w/-W 30) so 1 MB bodies are not throttled by flow control.

use std::rc::Rc;

use async_trait::async_trait;
use h2::client::SendRequest;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::Counters;
use crate::tls;
use wirebench_core::runner::Target;

pub(crate) const ALPN: &[u8] = b"h2";
const WINDOW: u32 = (1 << 30) - 1;

pub struct Http2 {
    tls: tokio_rustls::TlsConnector,
}

pub fn new() -> Box<dyn Driver> {
    Box::new(Http2 { tls: tls::connector(ALPN) })
}

#[async_trait(?Send)]
impl Driver for Http2 {
    async fn connect(
        &self,
        target: &Target,
        request: &Rc<RequestSpec>,
        streams: u32,
        counters: &Rc<Counters>,
    ) -> Result<Vec<Box<dyn Channel>>, LoadError> {
        let send = open(&self.tls, target, counters).await?;
        let head = Rc::new(Head::of(request, target)?);
        Ok((0..streams)
            .map(|_| {
                Box::new(H2 { send: send.clone(), head: head.clone(), body: request.body.clone() }) as Box<dyn Channel>
            })
            .collect())
    }
}

/// Opens one HTTP/2 connection to `target`: h2c with prior knowledge, or TLS with ALPN h2.
/// `tls` is a connector made with ALPN `h2` (see `new`). Shared with the gRPC driver.
pub(crate) async fn open(
    tls: &tokio_rustls::TlsConnector,
    target: &Target,
    counters: &Rc<Counters>,
) -> Result<SendRequest<bytes::Bytes>, LoadError> {
    let io = crate::io::connect(target, counters).await?;
    if target.tls {
        handshake(tls::handshake(tls, io, ALPN).await?).await
    } else {
        handshake(io).await
    }
}

async fn handshake<S: AsyncRead + AsyncWrite + Unpin + 'static>(io: S) -> Result<SendRequest<bytes::Bytes>, LoadError> {
    let (send, connection) = h2::client::Builder::new()
        .initial_window_size(WINDOW)
        .initial_connection_window_size(WINDOW)
        .max_frame_size(1 << 14)
        .handshake(io)
        .await
        .map_err(|e| LoadError::Protocol(format!("h2 handshake: {e}")))?;
    // The connection task drives frames for all channels; it ends when they are all dropped.
    // Unconstrained like the worker loop (see `worker::thread_main`).
    tokio::task::spawn_local(tokio::task::unconstrained(async move {
        let _ = connection.await;
    }));
    Ok(send)
}

/// The request head, parsed once per connection and cloned per exchange.
pub(crate) struct Head {
    method: http::Method,
    uri: http::Uri,
    headers: http::HeaderMap,
}

impl Head {
    pub(crate) fn of(r: &RequestSpec, target: &Target) -> Result<Head, LoadError> {
        let scheme = if target.tls { "https" } else { "http" };
        let bad = |e: String| LoadError::Protocol(format!("bad request: {e}"));
        let mut headers = http::HeaderMap::new();
        for (k, v) in r.http_headers() {
            let name = http::HeaderName::from_bytes(k.as_bytes()).map_err(|e| bad(e.to_string()))?;
            headers.append(name, http::HeaderValue::from_str(v).map_err(|e| bad(e.to_string()))?);
        }
        Ok(Head {
            method: r.method.parse().map_err(|e: http::method::InvalidMethod| bad(e.to_string()))?,
            uri: format!("{scheme}://{}{}", r.authority, r.path)
                .parse()
                .map_err(|e: http::uri::InvalidUri| bad(e.to_string()))?,
            headers,
        })
    }

    pub(crate) fn request(&self) -> http::Request<()> {
        let mut req = http::Request::new(());
        *req.method_mut() = self.method.clone();
        *req.uri_mut() = self.uri.clone();
        *req.headers_mut() = self.headers.clone();
        req
    }
}

struct H2 {
    send: SendRequest<bytes::Bytes>,
    head: Rc<Head>,
    body: bytes::Bytes,
}

#[async_trait(?Send)]
impl Channel for H2 {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let err = |e: h2::Error| LoadError::Protocol(format!("h2: {e}"));
        // Wait for a stream slot in place: no clone of the handle per request.
        std::future::poll_fn(|cx| self.send.poll_ready(cx)).await.map_err(err)?;
        let has_body = !self.body.is_empty();
        let (response, mut stream) = self.send.send_request(self.head.request(), !has_body).map_err(err)?;
        if has_body {
            // h2 buffers data beyond the peer's window and sends it as the window opens.
            stream.send_data(self.body.clone(), true).map_err(err)?;
        }
        let response = response.await.map_err(err)?;
        let status = response.status().as_u16();
        let mut recv = response.into_body();
        let mut body = keep_body.then(Vec::new);
        let mut body_len = 0u64;
        // Checking for the end first saves a poll (and h2's lock) after the last frame.
        while !recv.is_end_stream() {
            let Some(chunk) = recv.data().await else { break };
            let chunk = chunk.map_err(err)?;
            body_len += chunk.len() as u64;
            if let Some(b) = &mut body {
                b.extend_from_slice(&chunk);
            }
            let _ = recv.flow_control().release_capacity(chunk.len());
        }
        Ok(Reply { status, body_len, messages: 1, body, first_at: None })
    }
}
