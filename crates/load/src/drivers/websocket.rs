//! WebSocket (RFC 6455): `ws://` over TCP or `wss://` over TLS (ALPN `http/1.1`). Each connection
//! is one upgraded session carrying one exchange at a time: the scenario's body goes out as one
//! masked frame (the request: text when it is UTF-8, else binary), and `frames` data messages
//! come back (default 1), each counted and, when verifying, kept. At the end of the load the
//! session ends with a close handshake.
//!
//! Parameters (the scenario's `params`): `frames`, the data messages one request is answered
//! with. A reply's `status` is 101, the upgrade's (a failure after it is an error, not a status);
//! its body is the messages' payloads; its `messages` the messages received.
//!
//! The session is read and written here, with tungstenite's frame header codec, key and accept
//! derivation (decision 0029): tokio-tungstenite zeroed 128 KiB of its read buffer before every
//! read (12 % of the instrument's CPU on 1 KB answers) and gathered every frame into a message
//! before it could be counted. Here the socket is read into one buffer zeroed once per
//! connection, and payloads are counted (and kept when verifying) as they arrive. A text
//! message is checked as UTF-8 when it is kept, as RFC 6455 §8.1 asks of an endpoint that
//! interprets it; under load its bytes are only counted.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::rc::Rc;

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio_tungstenite::tungstenite::handshake::{client::generate_key, derive_accept_key};
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{Frame, FrameHeader};

use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::{read_ahead, Counters};
use crate::tls;
use wirebench_core::runner::Target;

const ALPN: &[u8] = b"http/1.1";
/// The most frames one request may ask for (a typo's guard).
const MAX_FRAMES: u64 = 1_000_000;
/// The status every good exchange reports: the upgrade's.
const SWITCHING_PROTOCOLS: u16 = 101;
/// The read buffer: a 1 MB message streams through it, a 1 KB answer fits many times.
const READ_BUFFER: usize = 64 * 1024;
/// The longest answer head the handshake reads (into the read buffer).
const MAX_HEAD: usize = 16 * 1024;
const _: () = assert!(MAX_HEAD <= READ_BUFFER);
/// The largest frame accepted (a runaway server's guard, as tungstenite's limit was).
const MAX_FRAME: u64 = 1 << 30;

pub struct WebSocket;

pub fn new() -> Box<dyn Driver> {
    Box::new(WebSocket)
}

/// Reads `frames`; anything else, or a value out of range, is an error.
pub fn frames_param(params: &BTreeMap<String, serde_json::Value>) -> Result<u64, LoadError> {
    let bad = |m: String| LoadError::Unsupported(format!("websocket driver: {m}"));
    if let Some(k) = params.keys().find(|k| k.as_str() != "frames") {
        return Err(bad(format!("unknown parameter `{k}`; known: frames")));
    }
    match params.get("frames") {
        None => Ok(1),
        Some(v) => v
            .as_u64()
            .filter(|n| (1..=MAX_FRAMES).contains(n))
            .ok_or_else(|| bad(format!("frames must be an integer from 1 to {MAX_FRAMES}, not {v}"))),
    }
}

#[async_trait(?Send)]
impl Driver for WebSocket {
    async fn connect(
        &self,
        target: &Target,
        request: &Rc<RequestSpec>,
        // One: the registry's `max_streams`, checked before any connection.
        _streams: u32,
        counters: &Rc<Counters>,
    ) -> Result<Vec<Box<dyn Channel>>, LoadError> {
        let frames = frames_param(&request.params)?;
        let opcode = match std::str::from_utf8(&request.body) {
            Ok(_) => OpCode::Data(Data::Text),
            Err(_) => OpCode::Data(Data::Binary),
        };
        let key = generate_key();
        let head = upgrade_request(request, &key)?;
        let io = crate::io::connect(target, counters).await?;
        Ok(vec![if target.tls {
            // rustls reads the socket in large pieces (decision 0027).
            let tls = tls::handshake(target, read_ahead(io), ALPN).await?;
            Box::new(Session::open(tls, &head, &key, request, opcode, frames).await?)
        } else {
            Box::new(Session::open(io, &head, &key, request, opcode, frames).await?)
        }])
    }
}

/// The upgrade request (RFC 6455 §4.1) with the scenario's headers.
fn upgrade_request(r: &RequestSpec, key: &str) -> Result<Vec<u8>, LoadError> {
    let bad = |e: String| LoadError::Protocol(format!("bad WebSocket request: {e}"));
    let path = if r.path.is_empty() { "/" } else { r.path.as_str() };
    if !path.starts_with('/') || path.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
        return Err(bad(format!("path `{path}`")));
    }
    let mut head = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n",
        r.authority
    );
    for (k, v) in &r.headers {
        http::HeaderName::from_bytes(k.as_bytes()).map_err(|e| bad(e.to_string()))?;
        http::HeaderValue::from_str(v).map_err(|e| bad(e.to_string()))?;
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    Ok(head.into_bytes())
}

/// A data message being read: its payload bytes still to come in the current frame.
#[derive(Default)]
struct Reading {
    /// Payload bytes of the current data frame not yet read.
    left: u64,
    /// The current data frame is its message's last.
    last: bool,
    /// The message is text (for the UTF-8 check of a kept body).
    text: bool,
    /// Where the message starts in the kept body.
    from: usize,
}

struct Session<S> {
    io: S,
    /// The request's payload and its opcode; framed and masked afresh for every exchange.
    request: bytes::Bytes,
    opcode: OpCode,
    frames: u64,
    rbuf: Box<[u8]>,
    start: usize,
    end: usize,
    wbuf: Vec<u8>,
    /// A data message being read across frames and reads.
    data: Option<Reading>,
}

fn handshake_error(e: impl std::fmt::Display) -> LoadError {
    LoadError::Protocol(format!("WebSocket handshake: {e}"))
}

fn ws_error(e: impl std::fmt::Display) -> LoadError {
    LoadError::Protocol(format!("WebSocket: {e}"))
}

impl<S: AsyncRead + AsyncWrite + Unpin> Session<S> {
    async fn open(
        mut io: S,
        head: &[u8],
        key: &str,
        request: &RequestSpec,
        opcode: OpCode,
        frames: u64,
    ) -> Result<Session<S>, LoadError> {
        io.write_all(head).await.map_err(handshake_error)?;
        io.flush().await.map_err(handshake_error)?;
        let mut rbuf = vec![0u8; READ_BUFFER].into_boxed_slice();
        let mut end = 0;
        let start = loop {
            if end == MAX_HEAD {
                return Err(handshake_error(format!("an answer head longer than {MAX_HEAD} bytes")));
            }
            let n = io.read(&mut rbuf[end..MAX_HEAD]).await.map_err(handshake_error)?;
            if n == 0 {
                return Err(handshake_error("the server closed the connection during the handshake"));
            }
            end += n;
            let mut headers = [httparse::EMPTY_HEADER; 64];
            let mut answer = httparse::Response::new(&mut headers);
            match answer.parse(&rbuf[..end]).map_err(handshake_error)? {
                httparse::Status::Partial => continue,
                httparse::Status::Complete(len) => {
                    check_upgrade(&answer, key)?;
                    break len;
                }
            }
        };
        Ok(Session {
            io,
            request: request.body.clone(),
            opcode,
            frames,
            rbuf,
            start,
            end,
            wbuf: Vec::with_capacity(1024),
            data: None,
        })
    }

    /// Queues one masked frame (RFC 6455 §5.3: a fresh random key for every frame).
    fn queue(&mut self, mut frame: Frame) -> Result<(), LoadError> {
        frame.header_mut().mask = Some(rand::random());
        frame.format(&mut self.wbuf).map_err(ws_error)
    }

    async fn flush(&mut self) -> Result<(), LoadError> {
        self.io.write_all(&self.wbuf).await.map_err(ws_error)?;
        self.io.flush().await.map_err(ws_error)?;
        self.wbuf.clear();
        Ok(())
    }

    /// Reads more of the socket into the buffer, keeping what is unread.
    async fn fill(&mut self) -> Result<(), LoadError> {
        if self.start == self.end {
            (self.start, self.end) = (0, 0);
        } else if self.end == self.rbuf.len() {
            // Only a frame header (at most 14 bytes) or a control frame (at most 127) is ever
            // left unread at the end: a data payload is consumed as it comes.
            self.rbuf.copy_within(self.start..self.end, 0);
            (self.start, self.end) = (0, self.end - self.start);
        }
        let n = self.io.read(&mut self.rbuf[self.end..]).await.map_err(ws_error)?;
        if n == 0 {
            return Err(LoadError::Protocol("the WebSocket connection ended".into()));
        }
        self.end += n;
        Ok(())
    }

    /// Reads frames until a data message is complete; answers pings on the way. `Ok(None)` when
    /// the server's close frame came and `until_close` (the closing handshake) asked for it.
    async fn next_message(&mut self, reply: &mut Reply, until_close: bool) -> Result<Option<()>, LoadError> {
        loop {
            if let Some(reading) = &self.data {
                if reading.left > 0 {
                    if self.start == self.end {
                        self.fill().await?;
                    }
                    let reading = self.data.as_mut().expect("a message is being read");
                    let n = (reading.left as usize).min(self.end - self.start);
                    reading.left -= n as u64;
                    let piece = &self.rbuf[self.start..self.start + n];
                    reply.body_len += n as u64;
                    if let Some(body) = &mut reply.body {
                        body.extend_from_slice(piece);
                    }
                    self.start += n;
                    continue;
                }
                if reading.last {
                    let reading = self.data.take().expect("a message is being read");
                    if let Some(body) = &reply.body {
                        if reading.text && std::str::from_utf8(&body[reading.from..]).is_err() {
                            return Err(ws_error("a text message that is not UTF-8"));
                        }
                    }
                    return Ok(Some(()));
                }
            }
            let mut cursor = Cursor::new(&self.rbuf[self.start..self.end]);
            let Some((header, len)) = FrameHeader::parse(&mut cursor).map_err(ws_error)? else {
                self.fill().await?;
                continue;
            };
            let header_len = cursor.position() as usize;
            if header.mask.is_some() {
                return Err(ws_error("a masked frame from the server (RFC 6455 §5.1)"));
            }
            if header.rsv1 || header.rsv2 || header.rsv3 {
                return Err(ws_error("a reserved bit set with no extension negotiated"));
            }
            if len > MAX_FRAME {
                return Err(ws_error(format!("a {len}-byte frame, past the limit of {MAX_FRAME}")));
            }
            match header.opcode {
                OpCode::Data(kind) => {
                    let text = match (kind, &self.data) {
                        (Data::Continue, Some(reading)) => reading.text,
                        (Data::Text, None) => true,
                        (Data::Binary, None) => false,
                        (Data::Continue, None) => return Err(ws_error("a continuation frame with no message begun")),
                        (Data::Text | Data::Binary, Some(_)) => {
                            return Err(ws_error("a new message inside a fragmented one"))
                        }
                        (Data::Reserved(code), _) => return Err(ws_error(format!("reserved opcode {code}"))),
                    };
                    self.start += header_len;
                    let from = match &self.data {
                        Some(reading) => reading.from,
                        None => reply.body.as_ref().map_or(0, Vec::len),
                    };
                    self.data = Some(Reading { left: len, last: header.is_final, text, from });
                }
                OpCode::Control(control) => {
                    // Control frames are at most 125 bytes (§5.5): read whole.
                    if !header.is_final || len > 125 {
                        return Err(ws_error("a fragmented or long control frame"));
                    }
                    let whole = header_len + len as usize;
                    if self.end - self.start < whole {
                        self.fill().await?;
                        continue;
                    }
                    let payload =
                        bytes::Bytes::copy_from_slice(&self.rbuf[self.start + header_len..self.start + whole]);
                    self.start += whole;
                    match control {
                        Control::Ping => {
                            self.queue(Frame::pong(payload))?;
                            self.flush().await?;
                        }
                        Control::Pong => {}
                        Control::Close if until_close => return Ok(None),
                        Control::Close => {
                            let why = match payload.len() {
                                0 => "no reason".to_string(),
                                1 => return Err(ws_error("a close frame of one byte")),
                                _ => format!(
                                    "{} {}",
                                    u16::from_be_bytes([payload[0], payload[1]]),
                                    String::from_utf8_lossy(&payload[2..])
                                ),
                            };
                            return Err(LoadError::Protocol(format!("the server closed the WebSocket: {why}")));
                        }
                        Control::Reserved(code) => return Err(ws_error(format!("reserved opcode {code}"))),
                    }
                }
            }
        }
    }
}

/// The server's answer upgrades the connection: 101, `Upgrade: websocket`, `Connection` naming
/// upgrade, and the accept key derived from ours (RFC 6455 §4.1).
fn check_upgrade(answer: &httparse::Response, key: &str) -> Result<(), LoadError> {
    let code = answer.code.unwrap_or(0);
    if code != SWITCHING_PROTOCOLS {
        return Err(handshake_error(format!("HTTP error: {code} {}", answer.reason.unwrap_or(""))));
    }
    let header = |name: &str| {
        answer.headers.iter().find(|h| h.name.eq_ignore_ascii_case(name)).map(|h| String::from_utf8_lossy(h.value))
    };
    if !header("upgrade").is_some_and(|v| v.trim().eq_ignore_ascii_case("websocket")) {
        return Err(handshake_error("the answer does not upgrade to websocket"));
    }
    if !header("connection").is_some_and(|v| v.split(',').any(|t| t.trim().eq_ignore_ascii_case("upgrade"))) {
        return Err(handshake_error("the answer's Connection does not name upgrade"));
    }
    if header("sec-websocket-accept").as_deref().map(str::trim) != Some(derive_accept_key(key.as_bytes()).as_str()) {
        return Err(handshake_error("Sec-WebSocket-Accept does not match the key"));
    }
    Ok(())
}

#[async_trait(?Send)]
impl<S: AsyncRead + AsyncWrite + Unpin> Channel for Session<S> {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        self.queue(Frame::message(self.request.clone(), self.opcode, true))?;
        self.flush().await?;
        let mut reply = Reply { status: SWITCHING_PROTOCOLS, body: keep_body.then(Vec::new), ..Reply::default() };
        while reply.messages < self.frames {
            self.next_message(&mut reply, false).await?;
            reply.messages += 1;
            if reply.messages == 1 && self.frames > 1 {
                reply.first_at = Some(std::time::Instant::now());
            }
        }
        Ok(reply)
    }

    async fn close(&mut self) -> Result<(), LoadError> {
        self.queue(Frame::close(None))?;
        self.flush().await?;
        // Read to the server's close frame (data still in flight is read and dropped).
        let mut sink = Reply::default();
        while self.next_message(&mut sink, true).await?.is_some() {}
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! The session against a server scripted byte by byte over an in-memory pipe: what the
    //! tungstenite server of `crate::tests` never sends (pings mid-answer, fragments, a head
    //! split across reads, masked frames, a wrong accept key).

    use tokio::io::DuplexStream;

    use super::*;

    fn request() -> RequestSpec {
        RequestSpec {
            method: "GET".into(),
            path: "/ws".into(),
            authority: "127.0.0.1:8080".into(),
            headers: vec![("x-trace".into(), "7".into())],
            body: bytes::Bytes::from_static(b"go"),
            params: BTreeMap::new(),
        }
    }

    /// An unmasked server frame.
    fn frame(first: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![first];
        match payload.len() {
            n @ 0..=125 => out.push(n as u8),
            n @ 126..=65535 => {
                out.push(126);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                out.push(127);
                out.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        out.extend_from_slice(payload);
        out
    }

    /// Reads one client frame: (first byte, unmasked payload); fails if it is not masked.
    async fn client_frame(io: &mut DuplexStream) -> (u8, Vec<u8>) {
        let mut h = [0u8; 2];
        io.read_exact(&mut h).await.unwrap();
        assert!(h[1] & 0x80 != 0, "a client frame is masked");
        let len = match h[1] & 0x7f {
            126 => io.read_u16().await.unwrap() as usize,
            127 => io.read_u64().await.unwrap() as usize,
            n => n as usize,
        };
        let mut mask = [0u8; 4];
        io.read_exact(&mut mask).await.unwrap();
        let mut payload = vec![0; len];
        io.read_exact(&mut payload).await.unwrap();
        for (i, b) in payload.iter_mut().enumerate() {
            *b ^= mask[i % 4];
        }
        (h[0], payload)
    }

    /// Reads the upgrade request and answers it (with `accept`, or the right key), sending the
    /// answer's head in two writes.
    async fn upgrade(io: &mut DuplexStream, accept: Option<&str>) {
        let mut head = Vec::new();
        while !head.ends_with(b"\r\n\r\n") {
            head.push(io.read_u8().await.unwrap());
        }
        let text = String::from_utf8(head).unwrap();
        assert!(text.starts_with("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"), "{text}");
        assert!(text.contains("\r\nx-trace: 7\r\n"), "the scenario's headers: {text}");
        let key = text.lines().find_map(|l| l.strip_prefix("Sec-WebSocket-Key: ")).unwrap();
        let accept = accept.map_or_else(|| derive_accept_key(key.as_bytes()), str::to_string);
        let answer = format!("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n");
        let (a, b) = answer.as_bytes().split_at(20);
        io.write_all(a).await.unwrap();
        io.flush().await.unwrap();
        io.write_all(b).await.unwrap();
    }

    /// Runs `client` on a session with `frames` answers against `server`, on one thread.
    fn scripted<C, CF, V, VF>(frames: u64, client: C, server: V)
    where
        C: FnOnce(Result<Session<DuplexStream>, LoadError>) -> CF,
        CF: std::future::Future<Output = ()>,
        V: FnOnce(DuplexStream) -> VF,
        VF: std::future::Future<Output = ()> + 'static,
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            let (ours, theirs) = tokio::io::duplex(1 << 20);
            let server = tokio::task::spawn_local(server(theirs));
            let r = request();
            let key = generate_key();
            let head = upgrade_request(&r, &key).unwrap();
            client(Session::open(ours, &head, &key, &r, OpCode::Data(Data::Text), frames).await).await;
            server.await.unwrap();
        });
    }

    #[test]
    fn pings_are_answered_and_fragments_make_one_message() {
        scripted(
            2,
            |s| async move {
                let mut s = s.unwrap();
                let reply = s.exchange(true).await.unwrap();
                assert_eq!((reply.status, reply.messages, reply.body_len), (101, 2, 11));
                assert_eq!(reply.body.as_deref(), Some(&b"hello world"[..]));
                s.close().await.unwrap();
            },
            |mut io: DuplexStream| async move {
                upgrade(&mut io, None).await;
                assert_eq!(client_frame(&mut io).await, (0x81, b"go".to_vec()), "a final text frame");
                // "hello" in two fragments with a ping between them, then " world" in one.
                let mut answer = frame(0x01, b"hel");
                answer.extend(frame(0x89, b"are you there"));
                answer.extend(frame(0x80, b"lo"));
                answer.extend(frame(0x81, b" world"));
                io.write_all(&answer).await.unwrap();
                assert_eq!(client_frame(&mut io).await, (0x8a, b"are you there".to_vec()), "the pong");
                assert_eq!(client_frame(&mut io).await.0, 0x88, "the client's close");
                io.write_all(&frame(0x88, &1000u16.to_be_bytes())).await.unwrap();
            },
        );
    }

    #[test]
    fn a_large_message_streams_through_the_buffer() {
        let big = vec![7u8; 3 * READ_BUFFER + 5];
        let expect = big.clone();
        scripted(
            1,
            |s| async move {
                let reply = s.unwrap().exchange(true).await.unwrap();
                assert_eq!(reply.body_len, expect.len() as u64);
                assert!(reply.body.as_deref() == Some(&expect[..]));
            },
            |mut io: DuplexStream| async move {
                upgrade(&mut io, None).await;
                client_frame(&mut io).await;
                io.write_all(&frame(0x82, &big)).await.unwrap();
            },
        );
    }

    #[test]
    fn the_server_breaking_the_protocol_is_a_one_line_error() {
        for (answer, says) in [
            (frame(0x82 | 0x40, b"x"), "reserved bit"),
            (frame(0x80, b"x"), "continuation frame with no message begun"),
            (frame(0x81, &[0xff, 0xfe]), "not UTF-8"),
            (frame(0x88, b""), "the server closed the WebSocket: no reason"),
            (
                {
                    let mut masked = frame(0x82, b"x");
                    masked[1] |= 0x80;
                    masked.splice(2..2, [0, 0, 0, 0]);
                    masked
                },
                "masked frame",
            ),
        ] {
            scripted(
                1,
                move |s| async move {
                    let e = s.unwrap().exchange(true).await.unwrap_err().to_string();
                    assert!(e.contains(says), "{e}");
                },
                move |mut io: DuplexStream| async move {
                    upgrade(&mut io, None).await;
                    client_frame(&mut io).await;
                    io.write_all(&answer).await.unwrap();
                },
            );
        }
        scripted(
            1,
            |s| async move {
                let e = s.err().unwrap().to_string();
                assert_eq!(e, "WebSocket handshake: Sec-WebSocket-Accept does not match the key");
            },
            |mut io: DuplexStream| async move { upgrade(&mut io, Some("bm90IHRoZSBrZXk=")).await },
        );
    }

    #[test]
    fn frames_default_to_one_and_bad_params_are_refused() {
        let params = |json: &str| frames_param(&serde_json::from_str(json).unwrap());
        assert_eq!(params("{}").unwrap(), 1);
        assert_eq!(params(r#"{"frames":100}"#).unwrap(), 100);
        for (bad, says) in [(r#"{"frames":0}"#, "frames must be"), (r#"{"count":1}"#, "unknown parameter `count`")] {
            let e = params(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
