//! HTTP/3 with quinn (QUIC) and h3: one QUIC connection, from a UDP socket of its own, carries
//! `streams` concurrent channels (like h2's `-m`). QUIC is always encrypted (TLS 1.3, ALPN
//! `h3`), so the scenario's `tls` flag changes nothing here. Flow-control windows are opened
//! wide, as the http2 driver's are, so 1 MB bodies are not throttled by them.
//!
//! Bytes are counted from QUIC's own statistics (UDP payload sent and received, handshake,
//! acknowledgements and retransmissions included), added to the thread's counters after every
//! exchange: below TLS, like the TCP drivers' counted sockets.

use std::cell::Cell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::{Buf as _, BufMut as _, Bytes};

use super::head::Head;
use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::Counters;
use crate::tls;
use wirebench_core::runner::Target;

pub(crate) const ALPN: &[u8] = b"h3";
/// How long a QUIC handshake may take before the server is taken for absent.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// Per-stream and per-connection receive windows: as wide as the http2 driver's.
const WINDOW: u32 = (1 << 30) - 1;
/// A long answer's bytes are counted this often as they arrive, not only when it ends: a probe
/// (`cap`) reads bytes per 30-ms slice, and a row of 1 MB answers on 100 streams ends some 16 of
/// them in a slice: counted per answer, the probes of the protocols lab's `rest-h3-1mb` had lower
/// bounds 0.25–1.19 under their ratios (two runs, 2 × AMD EPYC VM), where the TCP rows' are
/// within 0.04 of theirs. A 1 KB answer is counted once, as before.
const COUNT_EVERY: u64 = 64 * 1024;

type SendRequest = h3::client::SendRequest<h3_quinn::OpenStreams, Bytes>;

pub struct Http3;

pub fn new() -> Box<dyn Driver> {
    Box::new(Http3)
}

/// The QUIC client configuration for `target`'s certificate check (rustls's is cached per
/// thread by `tls::client_config`).
fn config(target: &Target) -> Result<quinn::ClientConfig, LoadError> {
    let crypto = tls::client_config(ALPN, &[&rustls::version::TLS13], &target.verify, target.client_cert.as_ref())?;
    let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(crypto)
        .map_err(|e| LoadError::Tls(format!("a TLS 1.3 configuration for QUIC: {e}")))?;
    let mut config = quinn::ClientConfig::new(Arc::new(crypto));
    let mut transport = quinn::TransportConfig::default();
    transport
        .stream_receive_window(WINDOW.into())
        .receive_window(WINDOW.into())
        .send_window(u64::from(WINDOW))
        // Loads pause between warm-up and measurement; keep idle connections open across it.
        .keep_alive_interval(Some(Duration::from_secs(2)));
    config.transport_config(Arc::new(transport));
    Ok(config)
}

#[async_trait(?Send)]
impl Driver for Http3 {
    async fn connect(
        &self,
        target: &Target,
        request: &Rc<RequestSpec>,
        streams: u32,
        counters: &Rc<Counters>,
    ) -> Result<Vec<Box<dyn Channel>>, LoadError> {
        let addr = resolve(target).await?;
        let endpoint = endpoint(addr).map_err(LoadError::Connect)?;
        let name = match tls::server_name(target)? {
            rustls::pki_types::ServerName::DnsName(d) => d.as_ref().to_string(),
            other => other.to_str().into_owned(),
        };
        let connecting = endpoint
            .connect_with(config(target)?, addr, &name)
            .map_err(|e| LoadError::Protocol(format!("QUIC: {e}")))?;
        // No UDP error tells a client that nothing listens (ICMP is not reported to an
        // unconnected socket), so the handshake has a deadline of its own.
        let connection = tokio::time::timeout(HANDSHAKE_TIMEOUT, connecting)
            .await
            .map_err(|_| quic_error(&quinn::ConnectionError::TimedOut))?
            .map_err(|e| quic_error(&e))?;
        let agreed = connection
            .handshake_data()
            .and_then(|d| d.downcast::<quinn::crypto::rustls::HandshakeData>().ok())
            .and_then(|d| d.protocol);
        if agreed.as_deref() != Some(ALPN) {
            return Err(LoadError::Tls("server did not agree to ALPN h3".into()));
        }
        let (mut h3, send) = h3::client::new(h3_quinn::Connection::new(connection.clone()))
            .await
            .map_err(|e| LoadError::Protocol(format!("h3: {e}")))?;
        // The connection task handles h3's control stream; it ends with the connection.
        tokio::task::spawn_local(async move {
            let _ = std::future::poll_fn(|cx| h3.poll_close(cx)).await;
        });
        let shared =
            Rc::new(Shared { connection, _endpoint: endpoint, counters: counters.clone(), seen: Cell::new((0, 0)) });
        shared.count();
        let head = Rc::new(Head::of(request, &Target { tls: true, ..target.clone() })?);
        Ok((0..streams)
            .map(|_| {
                Box::new(H3 {
                    send: send.clone(),
                    head: head.clone(),
                    body: request.body.clone(),
                    shared: shared.clone(),
                }) as Box<dyn Channel>
            })
            .collect())
    }
}

/// UDP socket buffers asked for (the kernel caps them at `net.core.rmem_max`/`wmem_max`):
/// Linux's 208 KiB default drops datagrams of 1 MB answers on loopback, which QUIC takes for
/// congestion. The subject's socket asks for the same.
const SOCKET_BUFFER: usize = 4 << 20;

/// A client endpoint on a UDP socket of its own, of `peer`'s address family, on the unspecified
/// address so the route picks the source: across a network link the client namespace has no
/// 127.0.0.1 of its own (its loopback is down and 127.0.0.0/8 goes over the link).
fn endpoint(peer: SocketAddr) -> std::io::Result<quinn::Endpoint> {
    let local: SocketAddr = if peer.is_ipv4() { ([0, 0, 0, 0], 0).into() } else { ([0u16; 8], 0).into() };
    let socket = socket2::Socket::new(socket2::Domain::for_address(local), socket2::Type::DGRAM, None)?;
    socket.set_recv_buffer_size(SOCKET_BUFFER)?;
    socket.set_send_buffer_size(SOCKET_BUFFER)?;
    socket.bind(&local.into())?;
    quinn::Endpoint::new(quinn::EndpointConfig::default(), None, socket.into(), Arc::new(quinn::TokioRuntime))
}

async fn resolve(target: &Target) -> Result<SocketAddr, LoadError> {
    let (host, port) = target.address();
    let found = tokio::net::lookup_host((host.as_str(), port)).await.map_err(LoadError::Connect)?.next();
    found.ok_or_else(|| LoadError::Connect(std::io::Error::other(format!("`{host}` has no address"))))
}

fn quic_error(e: &quinn::ConnectionError) -> LoadError {
    match e {
        quinn::ConnectionError::TimedOut => LoadError::Connect(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "no QUIC handshake within {} s (is an HTTP/3 server listening on that UDP port?)",
                HANDSHAKE_TIMEOUT.as_secs()
            ),
        )),
        e => LoadError::Protocol(format!("QUIC: {e}")),
    }
}

/// What the channels of one connection share: the connection (for its byte statistics) and
/// its endpoint, whose UDP socket lives as long as they do.
struct Shared {
    connection: quinn::Connection,
    _endpoint: quinn::Endpoint,
    counters: Rc<Counters>,
    /// UDP bytes (sent, received) already added to `counters`.
    seen: Cell<(u64, u64)>,
}

impl Shared {
    /// Adds the UDP bytes crossed since the last call to the thread's counters.
    fn count(&self) {
        let stats = self.connection.stats();
        let (sent, received) = (stats.udp_tx.bytes, stats.udp_rx.bytes);
        let (seen_sent, seen_received) = self.seen.replace((sent, received));
        self.counters.sent.set(self.counters.sent.get() + sent.saturating_sub(seen_sent));
        self.counters.received.set(self.counters.received.get() + received.saturating_sub(seen_received));
        crate::cap::on_io(self.counters.moved());
    }
}

struct H3 {
    send: SendRequest,
    head: Rc<Head>,
    body: Bytes,
    shared: Rc<Shared>,
}

impl H3 {
    async fn call(&mut self, keep_body: bool) -> Result<Reply, h3::error::StreamError> {
        let mut stream = self.send.send_request(self.head.request()).await?;
        let sent = async {
            if !self.body.is_empty() {
                stream.send_data(self.body.clone()).await?;
            }
            stream.finish().await
        }
        .await;
        // A server may answer before the whole body is in (a 413) and stop the upload: its
        // answer, when there is one, is the reply, not the failed send.
        let response = match (sent, stream.recv_response().await) {
            (_, Ok(response)) => response,
            (Err(e), Err(_)) | (Ok(()), Err(e)) => return Err(e),
        };
        let status = response.status().as_u16();
        let mut body = keep_body.then(Vec::new);
        let mut body_len = 0u64;
        let mut uncounted = 0u64;
        while let Some(chunk) = stream.recv_data().await? {
            body_len += chunk.remaining() as u64;
            uncounted += chunk.remaining() as u64;
            if uncounted >= COUNT_EVERY {
                self.shared.count();
                uncounted = 0;
            }
            if let Some(b) = &mut body {
                b.put(chunk);
            }
        }
        Ok(Reply { status, body_len, messages: 1, body, first_at: None })
    }
}

#[async_trait(?Send)]
impl Channel for H3 {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let reply = self.call(keep_body).await.map_err(|e| LoadError::Protocol(format!("h3: {e}")));
        self.shared.count();
        reply
    }

    async fn close(&mut self) -> Result<(), LoadError> {
        self.shared.count();
        Ok(())
    }
}
