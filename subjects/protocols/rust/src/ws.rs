//! WebSocket with tokio-tungstenite (the study used tungstenite): `ws://` on the cleartext port
//! and `wss://` on the TLS port (ALPN `http/1.1`), path `/ws`, beside `GET /health`. hyper
//! serves the HTTP/1.1 side and hands the upgraded connection to tungstenite.
//!
//! Every text message from a client is a command:
//! - `<size>` — one text frame of exactly `size` bytes (the study's "test" and
//!   "test_high_payload" requests, with the size named);
//! - `push <size> <count>` — `count` such frames (the study's "stream" command).
//!
//! Bad input closes that connection with the close code RFC 6455 gives it, and the server goes
//! on serving the others: a frame or message over 64 KiB (commands are short) → 1009, a text
//! frame that is not UTF-8 → 1007, an unmasked client frame or another protocol violation →
//! 1002, a binary frame → 1003, a command that does not parse or is out of range → 1008.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use bytes::Bytes;
use futures_util::{SinkExt as _, StreamExt as _};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONNECTION, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY, SEC_WEBSOCKET_VERSION, UPGRADE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::{Error, Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

use crate::cli::Cli;
use crate::routes::{message_bytes, PAYLOAD_MAX, STREAM_MAX_CHUNKS};

/// The largest frame or message a client may send: commands are a few bytes.
pub const CLIENT_MESSAGE_MAX: usize = 64 << 10;
/// How long a closing connection waits for the client's close frame.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// What a client asked for: `count` frames of `size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    pub size: usize,
    pub count: usize,
}

impl Command {
    /// Parses `<size>` or `push <size> <count>`.
    pub fn parse(text: &str) -> Result<Command, String> {
        let words: Vec<&str> = text.split_ascii_whitespace().collect();
        let (size, count) = match words.as_slice() {
            [size] => (*size, "1"),
            ["push", size, count] => (*size, *count),
            _ => return Err("expected `<size>` or `push <size> <count>`".into()),
        };
        let size: usize = size.parse().map_err(|_| format!("size `{size}` is not a number"))?;
        let count: usize = count.parse().map_err(|_| format!("count `{count}` is not a number"))?;
        if !(1..=PAYLOAD_MAX).contains(&size) {
            return Err(format!("size must be 1 to {PAYLOAD_MAX}"));
        }
        if !(1..=STREAM_MAX_CHUNKS).contains(&count) {
            return Err(format!("count must be 1 to {STREAM_MAX_CHUNKS}"));
        }
        Ok(Command { size, count })
    }
}

/// One text frame's payload of `size` bytes, sharing the cached message.
fn text(size: usize) -> Utf8Bytes {
    // SAFETY: `message_bytes` shares an `Arc<str>`, which is UTF-8 by its type.
    unsafe { Utf8Bytes::from_bytes_unchecked(message_bytes(size)) }
}

fn config() -> WebSocketConfig {
    WebSocketConfig::default().max_message_size(Some(CLIENT_MESSAGE_MAX)).max_frame_size(Some(CLIENT_MESSAGE_MAX))
}

/// Serves on a multi-threaded runtime of `cli.workers()` threads until the process is stopped.
pub fn run(cli: &Cli) -> anyhow::Result<()> {
    cli.runtime().context("starting the runtime")?.block_on(serve(cli))
}

async fn serve(cli: &Cli) -> anyhow::Result<()> {
    let plain = crate::bind(&cli.host, cli.port).await?;
    let secure = match cli.tls_port {
        Some(port) => {
            let mut config = crate::tls::server_config()?;
            // WebSocket over HTTP/2 (RFC 8441) is another protocol; wss:// upgrades HTTP/1.1.
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Some((crate::bind(&cli.host, port).await?, tokio_rustls::TlsAcceptor::from(Arc::new(config))))
        }
        None => None,
    };
    loop {
        let accepted = match &secure {
            Some((listener, acceptor)) => tokio::select! {
                a = plain.accept() => a.map(|(s, _)| (s, None)),
                a = listener.accept() => a.map(|(s, _)| (s, Some(acceptor.clone()))),
            },
            None => plain.accept().await.map(|(s, _)| (s, None)),
        };
        // A failed accept (e.g. too many open files) drops that one connection, not the server.
        let Ok((socket, tls)) = accepted else { continue };
        let _ = socket.set_nodelay(true);
        tokio::spawn(async move {
            match tls {
                Some(acceptor) => {
                    if let Ok(stream) = acceptor.accept(socket).await {
                        http(stream).await;
                    }
                }
                None => http(socket).await,
            }
        });
    }
}

/// Serves one HTTP/1.1 connection: `/health`, or the upgrade to WebSocket on `/ws`.
async fn http<S: AsyncRead + AsyncWrite + Unpin + Send + 'static>(io: S) {
    let service = hyper::service::service_fn(handle);
    let _ =
        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(io), service).with_upgrades().await;
}

fn plain(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *r.status_mut() = status;
    r
}

async fn handle(mut req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    match req.uri().path() {
        "/health" => Ok(plain(StatusCode::OK, "ok")),
        "/ws" => Ok(upgrade(&mut req)),
        _ => Ok(plain(StatusCode::NOT_FOUND, "not found: /ws is the WebSocket endpoint\n")),
    }
}

/// Answers the opening handshake (RFC 6455 §4.2.2) and runs the session on the upgraded stream.
fn upgrade(req: &mut Request<Incoming>) -> Response<Full<Bytes>> {
    let h = req.headers();
    let has = |name, token: &str| {
        h.get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case(token)))
    };
    if req.method() != hyper::Method::GET || !has(UPGRADE, "websocket") || !has(CONNECTION, "upgrade") {
        let mut r = plain(StatusCode::UPGRADE_REQUIRED, "this endpoint speaks WebSocket\n");
        r.headers_mut().insert(UPGRADE, HeaderValue::from_static("websocket"));
        return r;
    }
    if h.get(SEC_WEBSOCKET_VERSION).is_none_or(|v| v != "13") {
        let mut r = plain(StatusCode::UPGRADE_REQUIRED, "WebSocket version 13 only\n");
        r.headers_mut().insert(SEC_WEBSOCKET_VERSION, HeaderValue::from_static("13"));
        return r;
    }
    let Some(key) = h.get(SEC_WEBSOCKET_KEY) else {
        return plain(StatusCode::BAD_REQUEST, "missing Sec-WebSocket-Key\n");
    };
    let accept = derive_accept_key(key.as_bytes());
    let upgraded = hyper::upgrade::on(req);
    tokio::spawn(async move {
        if let Ok(io) = upgraded.await {
            session(WebSocketStream::from_raw_socket(TokioIo::new(io), Role::Server, Some(config())).await).await;
        }
    });
    let mut r = plain(StatusCode::SWITCHING_PROTOCOLS, "");
    let headers = r.headers_mut();
    headers.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(SEC_WEBSOCKET_ACCEPT, HeaderValue::from_str(&accept).expect("base64 is a valid header value"));
    r
}

/// Answers commands until the client closes, or closes with the code a bad message earns.
pub async fn session<S: AsyncRead + AsyncWrite + Unpin>(mut ws: WebSocketStream<S>) {
    let (code, reason) = loop {
        let Some(message) = ws.next().await else { return };
        match message {
            Ok(Message::Text(t)) => match Command::parse(&t) {
                Ok(Command { size, count }) => {
                    let frame = text(size);
                    // Queued, then written in one flush: a push is one burst of frames.
                    for _ in 0..count {
                        if ws.feed(Message::Text(frame.clone())).await.is_err() {
                            return;
                        }
                    }
                    if ws.flush().await.is_err() {
                        return;
                    }
                }
                Err(e) => break (CloseCode::Policy, e),
            },
            Ok(Message::Binary(_)) => break (CloseCode::Unsupported, "commands are text frames".into()),
            // tungstenite answers pings and the client's close frame itself.
            Ok(_) => {}
            Err(Error::Capacity(e)) => break (CloseCode::Size, e.to_string()),
            Err(Error::Utf8(e)) => break (CloseCode::Invalid, format!("text frame is not UTF-8: {e}")),
            Err(Error::Protocol(e)) => break (CloseCode::Protocol, e.to_string()),
            Err(_) => return,
        }
    };
    // A close reason is at most 123 bytes (RFC 6455 §5.5).
    let mut reason = reason;
    while reason.len() > 123 {
        reason.pop();
    }
    let _ = ws.close(Some(CloseFrame { code, reason: reason.into() })).await;
    // Wait briefly for the client's close frame, then drop the connection.
    let _ = tokio::time::timeout(CLOSE_WAIT, async { while let Some(Ok(_)) = ws.next().await {} }).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_and_reject_the_rest() {
        assert_eq!(Command::parse("1024"), Ok(Command { size: 1024, count: 1 }));
        assert_eq!(Command::parse(" push 10 100 "), Ok(Command { size: 10, count: 100 }));
        for (bad, says) in [
            ("", "expected"),
            ("test", "not a number"),
            ("push 10", "expected"),
            ("0", "size must be"),
            ("push 1 0", "count must be"),
            (&format!("{}", PAYLOAD_MAX + 1), "size must be"),
        ] {
            assert!(Command::parse(bad).unwrap_err().contains(says), "{bad}");
        }
    }

    #[test]
    fn frames_share_the_cached_message() {
        assert_eq!(text(5).as_str(), "xxxxx");
        assert_eq!(text(1 << 20).len(), 1 << 20);
    }
}
