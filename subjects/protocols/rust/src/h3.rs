//! The REST API over HTTP/3: quinn (QUIC) and h3 on a UDP port of its own, with the certificate
//! of the TCP TLS port. Checks and bodies are `routes`' own, so h1, h2 and h3 rows answer with
//! the same bytes; only the framing differs. actix-web has no HTTP/3, so this is a small router
//! of its own over the same five endpoints.

use std::net::UdpSocket;
use std::sync::Arc;

use anyhow::Context as _;
use bytes::{Buf as _, BufMut as _, Bytes, BytesMut};
use h3::server::RequestStream;
use http::{header, Method, Request, Response, StatusCode};

use crate::routes;

/// ALPN of HTTP/3 (RFC 9114).
pub const ALPN: &[u8] = b"h3";

/// Streams a client may have open at once on one connection: above the suites' 100 per
/// connection (the head-of-line rows), so the limit never throttles a row.
const MAX_STREAMS: u32 = 1024;

/// A request stream of the server.
type Stream = RequestStream<h3_quinn::BidiStream<Bytes>, Bytes>;

/// UDP socket buffers asked for. Linux's default (208 KiB) overflows on loopback when 100
/// connections send 1 MB answers and acknowledgements to one socket: the kernel drops datagrams,
/// QUIC takes them for congestion and slows down. The kernel caps the request at
/// `net.core.rmem_max`/`wmem_max` (4 MiB on Debian).
pub const SOCKET_BUFFER: usize = 4 << 20;

/// Binds `host:port` (UDP) now, so a taken port fails the start with one line; `serve` runs on it.
pub fn bind(host: &str, port: u16) -> anyhow::Result<UdpSocket> {
    let bind = || -> std::io::Result<UdpSocket> {
        let addr = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))?
            .next()
            .ok_or_else(|| std::io::Error::other("no address"))?;
        let socket = socket2::Socket::new(socket2::Domain::for_address(addr), socket2::Type::DGRAM, None)?;
        socket.set_recv_buffer_size(SOCKET_BUFFER)?;
        socket.set_send_buffer_size(SOCKET_BUFFER)?;
        socket.bind(&addr.into())?;
        Ok(socket.into())
    };
    bind().with_context(|| format!("cannot bind UDP {host}:{port}"))
}

/// QUIC congestion controllers quinn offers (its BBR is marked experimental, so not offered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Congestion {
    Cubic,
    Newreno,
}

/// The QUIC server configuration: TLS 1.3 with ALPN h3 and `certificate`, and `congestion`.
pub fn server_config(
    certificate: &crate::tls::Certificate,
    congestion: Congestion,
) -> anyhow::Result<quinn::ServerConfig> {
    let tls = certificate.server_config(&[ALPN], true)?;
    let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls).context("making the QUIC TLS configuration")?;
    let mut config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
    let mut transport = quinn::TransportConfig::default();
    transport.max_concurrent_bidi_streams(MAX_STREAMS.into());
    if congestion == Congestion::Newreno {
        transport.congestion_controller_factory(Arc::new(quinn::congestion::NewRenoConfig::default()));
    }
    config.transport_config(Arc::new(transport));
    Ok(config)
}

/// Accepts connections on `socket` until the process ends; each connection and each request
/// runs as its own task.
pub async fn serve(socket: UdpSocket, config: quinn::ServerConfig) -> anyhow::Result<()> {
    let runtime = Arc::new(quinn::TokioRuntime);
    let endpoint = quinn::Endpoint::new(quinn::EndpointConfig::default(), Some(config), socket, runtime)
        .context("starting the QUIC endpoint")?;
    while let Some(incoming) = endpoint.accept().await {
        tokio::spawn(async move {
            // A failed handshake or a connection closed with an error concerns that client only.
            if let Ok(connection) = incoming.await {
                let _ = connection_loop(connection).await;
            }
        });
    }
    Ok(())
}

async fn connection_loop(connection: quinn::Connection) -> Result<(), h3::error::ConnectionError> {
    let mut h3 = h3::server::Connection::<_, Bytes>::new(h3_quinn::Connection::new(connection)).await?;
    while let Some(resolver) = h3.accept().await? {
        tokio::spawn(async move {
            // A malformed request stream is answered by h3 itself (a stream or connection error
            // with the RFC 9114 code); nothing is left to send on it.
            if let Ok((request, stream)) = resolver.resolve_request().await {
                let _ = respond(request, stream).await;
            }
        });
    }
    Ok(())
}

/// What a request gets: a status, a content type and the body, written as one or many writes.
struct Answer {
    status: StatusCode,
    content_type: Option<http::HeaderValue>,
    cache_control: Option<&'static str>,
    /// The methods a 405 names (RFC 9110 §15.5.6: the `Allow` header is required).
    allow: Option<String>,
    body: Box<dyn Iterator<Item = Bytes> + Send>,
}

impl Answer {
    fn new(status: StatusCode, content_type: &'static str, body: impl Iterator<Item = Bytes> + Send + 'static) -> Self {
        Answer {
            status,
            content_type: Some(http::HeaderValue::from_static(content_type)),
            cache_control: None,
            allow: None,
            body: Box::new(body),
        }
    }

    fn text(status: StatusCode, text: &'static str) -> Self {
        Answer::new(status, "text/plain; charset=utf-8", std::iter::once(Bytes::from_static(text.as_bytes())))
    }

    fn bad_request(msg: &'static str) -> Self {
        Answer::text(StatusCode::BAD_REQUEST, msg)
    }

    fn empty(status: StatusCode) -> Self {
        Answer { status, content_type: None, cache_control: None, allow: None, body: Box::new(std::iter::empty()) }
    }
}

async fn respond(request: Request<()>, mut stream: Stream) -> Result<(), h3::error::StreamError> {
    let answer = route(&request, &mut stream).await?;
    if request.uri().path() != "/echo" {
        // Read the request to its end (a GET's is there already). A request stream dropped
        // unread makes quinn send STOP_SENDING with code 0, which is no HTTP/3 error code (RFC
        // 9114 §8.1; H3_NO_ERROR is 0x100), and aioquic's client then now and then lost the
        // answer that followed it. A body past `DRAIN_BYTES` is refused the way §4.1.1 says.
        drain(&mut stream).await?;
    }
    let mut response = Response::builder().status(answer.status);
    if let Some(content_type) = answer.content_type {
        response = response.header(header::CONTENT_TYPE, content_type);
    }
    if let Some(cache_control) = answer.cache_control {
        response = response.header(header::CACHE_CONTROL, cache_control);
    }
    if let Some(allow) = answer.allow {
        response = response.header(header::ALLOW, allow);
    }
    let response = response.body(()).expect("status and headers are valid");
    stream.send_response(response).await?;
    // HEAD: the headers GET would get, and no content (RFC 9110 §9.3.2).
    if request.method() != Method::HEAD {
        for chunk in answer.body {
            stream.send_data(chunk).await?;
        }
    }
    stream.finish().await
}

/// The endpoint for the request's path; a known path with another method gets 405 with `Allow`,
/// an unknown 404. What answers GET answers HEAD (RFC 9110 §9.1), as on the TCP port.
async fn route(request: &Request<()>, stream: &mut Stream) -> Result<Answer, h3::error::StreamError> {
    let path = request.uri().path();
    let query = request.uri().query().unwrap_or("");
    let method = request.method();
    let allowed: &[Method] = match path {
        "/echo" => &[Method::POST],
        "/health" | "/hol" | "/stream" | "/sse" => &[Method::GET, Method::HEAD],
        p if p.starts_with("/payload/") => &[Method::GET, Method::HEAD],
        _ => return Ok(Answer::empty(StatusCode::NOT_FOUND)),
    };
    if !allowed.contains(method) {
        let allow = allowed.iter().map(Method::as_str).collect::<Vec<_>>().join(", ");
        return Ok(Answer { allow: Some(allow), ..Answer::empty(StatusCode::METHOD_NOT_ALLOWED) });
    }
    Ok(match path {
        "/health" => Answer::text(StatusCode::OK, "ok"),
        "/echo" => return echo(request, stream).await,
        "/hol" => match parse_query(query).map(|q| routes::hol_delay(&q)) {
            Ok(Ok(delay)) => {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                Answer::text(StatusCode::OK, "ok")
            }
            Ok(Err(msg)) | Err(msg) => Answer::bad_request(msg),
        },
        "/stream" => match parse_query(query).map(|q| routes::stream_body(&q)) {
            Ok(Ok(chunks)) => Answer::new(StatusCode::OK, "text/plain; charset=utf-8", chunks),
            Ok(Err(msg)) | Err(msg) => Answer::bad_request(msg),
        },
        "/sse" => match parse_query(query).map(|q| routes::sse_body(&q)) {
            Ok(Ok(events)) => {
                Answer { cache_control: Some("no-cache"), ..Answer::new(StatusCode::OK, "text/event-stream", events) }
            }
            Ok(Err(msg)) | Err(msg) => Answer::bad_request(msg),
        },
        _ => {
            let size = &path["/payload/".len()..];
            match size.parse::<usize>().map_err(|_| "size must be a decimal integer").and_then(routes::payload_checked)
            {
                Ok(body) => Answer::new(StatusCode::OK, "application/json", std::iter::once(body)),
                Err(msg) => Answer::bad_request(msg),
            }
        }
    })
}

fn parse_query<T: serde::de::DeserializeOwned>(query: &str) -> Result<T, &'static str> {
    serde_urlencoded::from_str(query).map_err(|_| "query values must be decimal integers")
}

/// `POST /echo`: the body back with the request's content type; over `routes::ECHO_LIMIT`, a
/// 413 with no body (the rest of the upload is refused with STOP_SENDING).
async fn echo(request: &Request<()>, stream: &mut Stream) -> Result<Answer, h3::error::StreamError> {
    let declared =
        request.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > routes::ECHO_LIMIT as u64) {
        return Ok(too_large(stream));
    }
    let mut body = BytesMut::with_capacity(declared.map_or(0, |len| len as usize));
    while let Some(chunk) = stream.recv_data().await? {
        if body.len() + chunk.remaining() > routes::ECHO_LIMIT {
            return Ok(too_large(stream));
        }
        body.put(chunk);
    }
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .cloned()
        .unwrap_or(http::HeaderValue::from_static("application/octet-stream"));
    Ok(Answer {
        status: StatusCode::OK,
        content_type: Some(content_type),
        cache_control: None,
        allow: None,
        body: Box::new(std::iter::once(body.freeze())),
    })
}

/// Bytes of a request body read and dropped before an answer that does not need them.
const DRAIN_BYTES: usize = 1 << 20;

/// Reads the rest of a request body the answer does not need, up to `DRAIN_BYTES`; past that,
/// asks the client to stop sending with H3_NO_ERROR (RFC 9114 §4.1.1).
async fn drain(stream: &mut Stream) -> Result<(), h3::error::StreamError> {
    let mut read = 0;
    while let Some(chunk) = stream.recv_data().await? {
        read += chunk.remaining();
        if read > DRAIN_BYTES {
            stream.stop_sending(h3::error::Code::H3_NO_ERROR);
            break;
        }
    }
    Ok(())
}

/// A 413, and the client asked to stop sending the body (H3_NO_ERROR: the response says why).
fn too_large(stream: &mut Stream) -> Answer {
    stream.stop_sending(h3::error::Code::H3_NO_ERROR);
    Answer::empty(StatusCode::PAYLOAD_TOO_LARGE)
}
