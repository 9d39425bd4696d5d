//! gRPC over HTTP/2, on the `h2` crate: h2c with prior knowledge, or TLS with ALPN h2. A call is a POST of length-prefixed messages (a flag byte, a
//! four-byte big-endian length, the message) answered by messages and trailers with `grpc-status`.
//! The driver frames and unframes messages; it never decodes protobuf, so any service can be
//! loaded with a request message saved as bytes (the scenario's `body_file`).
//!
//! Parameters (the scenario's `params`):
//! - `call`: `unary` (default), `server_stream`, `client_stream` or `bidi`;
//! - `messages`: how many times a `client_stream` or `bidi` call sends the request message
//!   (default 1). A `bidi` call is ping-pong: it sends one message, reads one, and so on.
//!
//! A reply's `status` is the call's `grpc-status` (0 is OK); its body is the received messages
//! without their prefixes; its `messages` is what the call carried in its streaming direction:
//! 1 for unary, messages received for `server_stream`, sent for `client_stream`, round trips
//! for `bidi`.

use std::collections::BTreeMap;
use std::rc::Rc;

use async_trait::async_trait;
use bytes::{BufMut, Bytes, BytesMut};
use h2::client::SendRequest;
use h2::RecvStream;
use tokio::io::{AsyncRead, AsyncWrite};

use super::head::Head;
use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::Counters;
use crate::tls;
use wirebench_core::runner::Target;

const ALPN: &[u8] = b"h2";
/// Our receive windows, opened wide (as h2load's default -w/-W 30) so 1 MB messages are not
/// throttled by flow control.
const WINDOW: u32 = (1 << 30) - 1;

/// The most messages one call may send (a typo's guard, not a protocol limit).
const MAX_MESSAGES: u64 = 1_000_000;

pub struct Grpc;

pub fn new() -> Box<dyn Driver> {
    Box::new(Grpc)
}

/// The four call shapes of gRPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Unary,
    ServerStream,
    ClientStream,
    Bidi,
}

/// What the scenario's parameters ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub call: Call,
    pub messages: u64,
}

impl Params {
    /// Reads `call` and `messages`; anything else, or a value out of range, is an error.
    pub fn of(params: &BTreeMap<String, serde_json::Value>) -> Result<Params, LoadError> {
        let bad = |m: String| LoadError::Unsupported(format!("grpc driver: {m}"));
        if let Some(k) = params.keys().find(|k| !matches!(k.as_str(), "call" | "messages")) {
            return Err(bad(format!("unknown parameter `{k}`; known: call, messages")));
        }
        let call = match params.get("call").map(|v| v.as_str().ok_or(v)) {
            None | Some(Ok("unary")) => Call::Unary,
            Some(Ok("server_stream")) => Call::ServerStream,
            Some(Ok("client_stream")) => Call::ClientStream,
            Some(Ok("bidi")) => Call::Bidi,
            Some(Ok(other)) => {
                return Err(bad(format!("call `{other}`; expected unary, server_stream, client_stream or bidi")))
            }
            Some(Err(v)) => return Err(bad(format!("call must be a string, not {v}"))),
        };
        let messages = match params.get("messages") {
            None => 1,
            Some(v) => match v.as_u64() {
                Some(n) if (1..=MAX_MESSAGES).contains(&n) => n,
                _ => return Err(bad(format!("messages must be an integer from 1 to {MAX_MESSAGES}, not {v}"))),
            },
        };
        if messages != 1 && matches!(call, Call::Unary | Call::ServerStream) {
            return Err(bad("messages applies to client_stream and bidi calls, which send a stream".into()));
        }
        Ok(Params { call, messages })
    }
}

#[async_trait(?Send)]
impl Driver for Grpc {
    async fn connect(
        &self,
        target: &Target,
        request: &Rc<RequestSpec>,
        streams: u32,
        counters: &Rc<Counters>,
    ) -> Result<Vec<Box<dyn Channel>>, LoadError> {
        let params = Params::of(&request.params)?;
        let message = frame(&request.body)?;
        // A client stream's messages go out as one buffer: the same bytes on the wire as one
        // write per message (h2 cuts DATA frames by size either way), without a DATA frame and
        // a lock round per 1 KB message in the instrument.
        let upload = match params.call {
            Call::ClientStream => Bytes::from(message.repeat(params.messages as usize)),
            _ => message.clone(),
        };
        let head = Rc::new(Head::of(&grpc_request(request), target)?);
        let send = open(target, counters).await?;
        Ok((0..streams)
            .map(|_| {
                Box::new(GrpcCall {
                    send: send.clone(),
                    head: head.clone(),
                    message: message.clone(),
                    upload: upload.clone(),
                    params,
                }) as Box<dyn Channel>
            })
            .collect())
    }
}

/// The scenario's request as a gRPC call: always POST, with the content type and `te: trailers`
/// the protocol requires unless the scenario sets its own.
fn grpc_request(r: &RequestSpec) -> RequestSpec {
    let mut r = r.clone();
    r.method = "POST".into();
    for (name, value) in [("content-type", "application/grpc"), ("te", "trailers")] {
        if !r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name)) {
            r.headers.push((name.into(), value.into()));
        }
    }
    r
}

/// One message with its five-byte prefix (uncompressed).
pub fn frame(message: &[u8]) -> Result<Bytes, LoadError> {
    let len = u32::try_from(message.len())
        .map_err(|_| LoadError::Unsupported(format!("a gRPC message is at most 4 GiB, not {} bytes", message.len())))?;
    let mut b = BytesMut::with_capacity(5 + message.len());
    b.put_u8(0);
    b.put_u32(len);
    b.put_slice(message);
    Ok(b.freeze())
}

/// Splits received DATA chunks into messages, counting them and their bytes (and keeping the
/// bytes when asked); a message may span chunks and a chunk may hold several.
#[derive(Debug, Default)]
pub struct Deframer {
    prefix: [u8; 5],
    have: usize,
    /// Bytes of the current message still to come; `None` between messages.
    left: Option<u64>,
    pub messages: u64,
    pub bytes: u64,
    pub body: Option<Vec<u8>>,
    /// When the first message was complete.
    pub first_at: Option<std::time::Instant>,
}

impl Deframer {
    pub fn new(keep_body: bool) -> Deframer {
        Deframer { body: keep_body.then(Vec::new), ..Deframer::default() }
    }

    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<(), LoadError> {
        while !chunk.is_empty() {
            match self.left {
                Some(left) => {
                    let n = (left as usize).min(chunk.len());
                    if let Some(b) = &mut self.body {
                        b.extend_from_slice(&chunk[..n]);
                    }
                    self.bytes += n as u64;
                    chunk = &chunk[n..];
                    self.left = Some(left - n as u64);
                }
                None => {
                    let n = (5 - self.have).min(chunk.len());
                    self.prefix[self.have..self.have + n].copy_from_slice(&chunk[..n]);
                    self.have += n;
                    chunk = &chunk[n..];
                    if self.have == 5 {
                        self.have = 0;
                        if self.prefix[0] != 0 {
                            return Err(LoadError::Protocol(format!(
                                "gRPC message with flags {:#04x}: compression was not negotiated",
                                self.prefix[0]
                            )));
                        }
                        let len = u32::from_be_bytes([self.prefix[1], self.prefix[2], self.prefix[3], self.prefix[4]]);
                        self.left = Some(u64::from(len));
                    }
                }
            }
            if self.left == Some(0) {
                self.left = None;
                self.messages += 1;
                if self.messages == 1 {
                    self.first_at = Some(std::time::Instant::now());
                }
            }
        }
        Ok(())
    }

    /// The stream ended: an error if it ended inside a message.
    pub fn finish(&self) -> Result<(), LoadError> {
        match (self.have, self.left) {
            (0, None) => Ok(()),
            _ => Err(LoadError::Protocol("gRPC stream ended inside a message".into())),
        }
    }
}

struct GrpcCall {
    send: SendRequest<Bytes>,
    head: Rc<Head>,
    /// The request message, framed once.
    message: Bytes,
    /// What a call sends before reading: every message of a client stream, else one.
    upload: Bytes,
    params: Params,
}

fn h2_error(e: h2::Error) -> LoadError {
    LoadError::Protocol(format!("h2: {e}"))
}

#[async_trait(?Send)]
impl Channel for GrpcCall {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        std::future::poll_fn(|cx| self.send.poll_ready(cx)).await.map_err(h2_error)?;
        let (response, mut out) = self.send.send_request(self.head.request(), false).map_err(h2_error)?;
        let n = self.params.messages;
        // Everything a client sends goes first, except bidi's later messages, which wait for
        // the echo of the one before. h2 buffers data beyond the peer's window.
        let last = self.params.call != Call::Bidi || n == 1;
        out.send_data(self.upload.clone(), last).map_err(h2_error)?;
        let response = response.await.map_err(h2_error)?;
        if response.status() != http::StatusCode::OK {
            return Err(LoadError::Protocol(format!(
                "HTTP status {}, expected 200 for a gRPC call",
                response.status()
            )));
        }
        let (parts, mut recv) = response.into_parts();
        let mut got = Deframer::new(keep_body);
        if self.params.call == Call::Bidi {
            for i in 1..=n {
                if !read_until(&mut recv, &mut got, i).await? {
                    break; // the server ended the call early: its status says why
                }
                if i < n {
                    out.send_data(self.message.clone(), i + 1 == n).map_err(h2_error)?;
                }
            }
        }
        read_until(&mut recv, &mut got, u64::MAX).await?;
        got.finish()?;
        let trailers = if recv.is_end_stream() { None } else { recv.trailers().await.map_err(h2_error)? };
        // A call that fails before any message answers with headers only ("Trailers-Only").
        let status = trailers
            .as_ref()
            .and_then(|t| t.get("grpc-status"))
            .or_else(|| parts.headers.get("grpc-status"))
            .ok_or_else(|| LoadError::Protocol("the gRPC call ended without grpc-status".into()))?;
        let status = status
            .to_str()
            .ok()
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or_else(|| LoadError::Protocol(format!("grpc-status {status:?} is not a number")))?;
        let messages = if self.params.call == Call::ClientStream { n } else { got.messages };
        // Calls whose answer is a stream have a time to first message.
        let first_at = got.first_at.filter(|_| matches!(self.params.call, Call::ServerStream | Call::Bidi));
        Ok(Reply { status, body_len: got.bytes, messages, body: got.body, first_at })
    }
}

/// Reads DATA until `got` holds `messages` messages or the stream's data ends; `false` when it
/// ended first.
async fn read_until(recv: &mut RecvStream, got: &mut Deframer, messages: u64) -> Result<bool, LoadError> {
    while got.messages < messages {
        if recv.is_end_stream() {
            return Ok(false);
        }
        let Some(chunk) = recv.data().await else { return Ok(false) };
        let chunk = chunk.map_err(h2_error)?;
        got.feed(&chunk)?;
        let _ = recv.flow_control().release_capacity(chunk.len());
    }
    Ok(true)
}

/// Opens one HTTP/2 connection to `target`: h2c with prior knowledge, or TLS with ALPN h2.
async fn open(target: &Target, counters: &Rc<Counters>) -> Result<SendRequest<bytes::Bytes>, LoadError> {
    let io = crate::io::connect(target, counters).await?;
    if target.tls {
        handshake(tls::handshake(target, io, ALPN).await?).await
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

#[cfg(test)]
mod tests {
    use super::*;

    fn params(json: &str) -> Result<Params, LoadError> {
        Params::of(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn params_default_to_one_unary_message_and_reject_the_rest() {
        assert_eq!(params("{}").unwrap(), Params { call: Call::Unary, messages: 1 });
        assert_eq!(params(r#"{"call":"bidi","messages":5}"#).unwrap(), Params { call: Call::Bidi, messages: 5 });
        assert_eq!(params(r#"{"call":"server_stream"}"#).unwrap().call, Call::ServerStream);
        for (bad, says) in [
            (r#"{"call":"duplex"}"#, "call `duplex`"),
            (r#"{"call":1}"#, "call must be a string"),
            (r#"{"messages":0,"call":"bidi"}"#, "messages must be"),
            (r#"{"messages":"3","call":"bidi"}"#, "messages must be"),
            (r#"{"messages":3}"#, "applies to client_stream and bidi"),
            (r#"{"mode":"unary"}"#, "unknown parameter `mode`"),
        ] {
            let e = params(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn deframer_counts_messages_split_and_joined_across_chunks() {
        let mut wire = Vec::new();
        for m in [&b"hello"[..], b"", b"world!"] {
            wire.extend_from_slice(&frame(m).unwrap());
        }
        // Every split point, one byte at a time, and all at once.
        for size in [1, 2, 3, 7, wire.len()] {
            let mut d = Deframer::new(true);
            for chunk in wire.chunks(size) {
                d.feed(chunk).unwrap();
            }
            d.finish().unwrap();
            assert_eq!((d.messages, d.bytes), (3, 11), "chunks of {size}");
            assert_eq!(d.body.as_deref(), Some(&b"helloworld!"[..]));
        }
    }

    #[test]
    fn deframer_rejects_compressed_and_truncated_messages() {
        let mut d = Deframer::new(false);
        assert!(d.feed(&[1, 0, 0, 0, 1, b'x']).unwrap_err().to_string().contains("compression"));
        let mut d = Deframer::new(false);
        d.feed(&[0, 0, 0, 0, 4, b'a']).unwrap();
        assert!(d.finish().is_err());
        let mut d = Deframer::new(false);
        d.feed(&[0, 0]).unwrap();
        assert!(d.finish().is_err());
    }

    #[test]
    fn calls_are_posts_of_application_grpc() {
        let spec = RequestSpec {
            method: "GET".into(),
            path: "/pkg.Svc/Unary".into(),
            authority: "127.0.0.1:1".into(),
            headers: vec![("x-id".into(), "7".into())],
            body: Bytes::from_static(b"\x08\x01"),
            params: BTreeMap::new(),
        };
        let r = grpc_request(&spec);
        assert_eq!(r.method, "POST");
        let h: Vec<_> = r.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(h, [("x-id", "7"), ("content-type", "application/grpc"), ("te", "trailers")]);
        assert!(r.http_headers().eq(h.iter().copied()), "no octet-stream default beside application/grpc");
    }
}
