//! HTTP/2 with the `h2` crate: h2c with prior knowledge on the cleartext port, or TLS with ALPN
//! `h2`. One connection carries `streams` concurrent channels (`h2load -m`). Windows are opened
//! wide (as h2load's default -w/-W 30) so 1 MB bodies are not throttled by flow control.

use std::rc::Rc;

use async_trait::async_trait;
use h2::client::SendRequest;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::io::{Counted, Counters};
use crate::{tls, LoadError};
use wirebench_core::runner::Target;

const ALPN: &[u8] = b"h2";
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
        let tcp = TcpStream::connect((target.host.as_str(), target.port)).await.map_err(LoadError::Connect)?;
        tcp.set_nodelay(true).map_err(LoadError::Connect)?;
        let io = Counted::new(tcp, counters.clone());
        let scheme = if target.tls { "https" } else { "http" };
        let send = if target.tls {
            handshake(tls::handshake(&self.tls, io, ALPN).await?).await?
        } else {
            handshake(io).await?
        };
        let uri: http::Uri = format!("{scheme}://{}{}", request.authority, request.path)
            .parse()
            .map_err(|e| LoadError::Protocol(format!("bad request path: {e}")))?;
        Ok((0..streams)
            .map(|_| {
                Box::new(H2 { send: send.clone(), request: request.clone(), uri: uri.clone() }) as Box<dyn Channel>
            })
            .collect())
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
    tokio::task::spawn_local(async move {
        let _ = connection.await;
    });
    Ok(send)
}

struct H2 {
    send: SendRequest<bytes::Bytes>,
    request: Rc<RequestSpec>,
    uri: http::Uri,
}

#[async_trait(?Send)]
impl Channel for H2 {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let err = |e: h2::Error| LoadError::Protocol(format!("h2: {e}"));
        let mut builder = http::Request::builder().method(self.request.method.as_str()).uri(self.uri.clone());
        for (k, v) in &self.request.headers {
            builder = builder.header(k, v);
        }
        let req = builder.body(()).map_err(|e| LoadError::Protocol(format!("bad request: {e}")))?;
        let mut send = self.send.clone().ready().await.map_err(err)?;
        let has_body = !self.request.body.is_empty();
        let (response, mut stream) = send.send_request(req, !has_body).map_err(err)?;
        if has_body {
            // h2 buffers data beyond the peer's window and sends it as the window opens.
            stream.send_data(self.request.body.clone(), true).map_err(err)?;
        }
        let response = response.await.map_err(err)?;
        let status = response.status().as_u16();
        let mut recv = response.into_body();
        let mut body = keep_body.then(Vec::new);
        let mut body_len = 0u64;
        while let Some(chunk) = recv.data().await {
            let chunk = chunk.map_err(err)?;
            body_len += chunk.len() as u64;
            if let Some(b) = &mut body {
                b.extend_from_slice(&chunk);
            }
            let _ = recv.flow_control().release_capacity(chunk.len());
        }
        Ok(Reply { status, body_len, body })
    }
}
