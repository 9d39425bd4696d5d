//! HTTP/1.1 over TCP or TLS (ALPN `http/1.1`): the request is serialized once and written as is;
//! responses are parsed with `httparse` (the parser under hyper), bodies by Content-Length or
//! chunked encoding and discarded unless verification asks for them. One request in flight per
//! connection, like h2load and wrk (no pipelining).

use std::rc::Rc;

use async_trait::async_trait;
use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::event_stream::SseParser;
use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::{read_ahead, Counters};
use crate::tls;
use wirebench_core::runner::Target;

const ALPN: &[u8] = b"http/1.1";
/// Read buffer per connection; grows only for header blocks larger than this.
const BUFFER: usize = 64 * 1024;
const MAX_HEADERS: usize = 64;

pub struct Http1 {
    /// Read bodies as Server-Sent Events (the `sse` driver).
    events: bool,
}

pub fn new() -> Box<dyn Driver> {
    Box::new(Http1 { events: false })
}

/// HTTP/1.1 whose answers are event streams: see `super::sse`.
pub(crate) fn with_events() -> Box<dyn Driver> {
    Box::new(Http1 { events: true })
}

#[async_trait(?Send)]
impl Driver for Http1 {
    async fn connect(
        &self,
        target: &Target,
        request: &Rc<RequestSpec>,
        // One: the registry's `max_streams`, checked before any connection.
        _streams: u32,
        counters: &Rc<Counters>,
    ) -> Result<Vec<Box<dyn Channel>>, LoadError> {
        let io = crate::io::connect(target, counters).await?;
        let wire = if self.events && !request.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("accept")) {
            let mut r = (**request).clone();
            r.headers.push(("Accept".into(), "text/event-stream".into()));
            serialize(&r)
        } else {
            serialize(request)
        };
        Ok(vec![if target.tls {
            // rustls reads the socket in large pieces (decision 0027).
            let tls = tls::handshake(target, read_ahead(io), ALPN).await?;
            Box::new(H1 { events: self.events, ..H1::new(tls, wire) })
        } else {
            Box::new(H1 { events: self.events, ..H1::new(io, wire) })
        }])
    }
}

/// The request's bytes on the wire.
fn serialize(r: &RequestSpec) -> Bytes {
    // Only Host, as wrk sends: every extra header is parsing work for the subject.
    let mut head = format!("{} {} HTTP/1.1\r\nHost: {}\r\n", r.method, r.path, r.authority);
    for (k, v) in r.http_headers() {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !r.body.is_empty() || r.method != "GET" {
        head.push_str(&format!("Content-Length: {}\r\n", r.body.len()));
    }
    head.push_str("\r\n");
    let mut wire = head.into_bytes();
    wire.extend_from_slice(&r.body);
    Bytes::from(wire)
}

pub(crate) struct H1<S> {
    io: S,
    request: Bytes,
    /// Parse the body as Server-Sent Events (the `sse` driver): a reply's messages are its
    /// events and its body their data.
    events: bool,
    buf: Vec<u8>,
    /// Unconsumed bytes are `buf[start..end]`.
    start: usize,
    end: usize,
}

impl<S: AsyncRead + AsyncWrite + Unpin> H1<S> {
    fn new(io: S, request: Bytes) -> Self {
        H1 { io, request, events: false, buf: vec![0; BUFFER], start: 0, end: 0 }
    }

    /// Reads more bytes after `end`, compacting or growing the buffer when it is full.
    async fn fill(&mut self) -> Result<(), LoadError> {
        if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        let n = self.io.read(&mut self.buf[self.end..]).await.map_err(LoadError::Io)?;
        if n == 0 {
            return Err(LoadError::Protocol("connection closed by the server mid-response".into()));
        }
        self.end += n;
        Ok(())
    }

    fn take(&mut self, n: usize, body: &mut Out) {
        body.feed(&self.buf[self.start..self.start + n]);
        self.start += n;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Consumes `len` body bytes, reading as needed.
    async fn read_exact_body(&mut self, mut len: u64, body: &mut Out) -> Result<(), LoadError> {
        while len > 0 {
            if self.start == self.end {
                self.fill().await?;
            }
            let n = ((self.end - self.start) as u64).min(len) as usize;
            self.take(n, body);
            len -= n as u64;
        }
        Ok(())
    }

    async fn read_chunked_body(&mut self, body: &mut Out) -> Result<u64, LoadError> {
        let mut total = 0;
        loop {
            let size = loop {
                match httparse::parse_chunk_size(&self.buf[self.start..self.end]) {
                    Ok(httparse::Status::Complete((used, size))) => {
                        self.start += used;
                        break size;
                    }
                    Ok(httparse::Status::Partial) => self.fill().await?,
                    Err(_) => return Err(LoadError::Protocol("malformed chunk size".into())),
                }
            };
            if size == 0 {
                // No trailers are expected: the final CRLF ends the body.
                self.expect_crlf().await?;
                return Ok(total);
            }
            self.read_exact_body(size, body).await?;
            self.expect_crlf().await?;
            total += size;
        }
    }

    async fn expect_crlf(&mut self) -> Result<(), LoadError> {
        while self.end - self.start < 2 {
            self.fill().await?;
        }
        if &self.buf[self.start..self.start + 2] != b"\r\n" {
            return Err(LoadError::Protocol("chunk not followed by CRLF".into()));
        }
        self.take(2, &mut Out::Discard);
        Ok(())
    }
}

#[async_trait(?Send)]
impl<S: AsyncRead + AsyncWrite + Unpin> Channel for H1<S> {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        self.io.write_all(&self.request).await.map_err(LoadError::Io)?;
        // TLS streams may hold written bytes (and the handshake's last flight) until flushed;
        // for TCP this is a no-op.
        self.io.flush().await.map_err(LoadError::Io)?;
        self.reply(keep_body).await
    }

    async fn exchange_request(&mut self, request: &RequestSpec, keep_body: bool) -> Result<Reply, LoadError> {
        self.io.write_all(&serialize(request)).await.map_err(LoadError::Io)?;
        self.io.flush().await.map_err(LoadError::Io)?;
        self.reply(keep_body).await
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> H1<S> {
    /// Reads one response.
    async fn reply(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let (head_len, status, framing) = loop {
            let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
            let mut resp = httparse::Response::new(&mut headers);
            match resp.parse(&self.buf[self.start..self.end]) {
                Ok(httparse::Status::Complete(len)) => {
                    let status = resp.code.unwrap_or(0);
                    break (len, status, Framing::of(resp.headers, status)?);
                }
                Ok(httparse::Status::Partial) => self.fill().await?,
                Err(e) => return Err(LoadError::Protocol(format!("malformed response head: {e}"))),
            }
        };
        self.start += head_len;
        let mut out = match (self.events, keep_body) {
            (true, _) => Out::Events(SseParser::new(keep_body)),
            (false, true) => Out::Keep(Vec::new()),
            (false, false) => Out::Discard,
        };
        let body_len = match framing {
            Framing::Length(n) => {
                self.read_exact_body(n, &mut out).await?;
                n
            }
            Framing::Chunked => self.read_chunked_body(&mut out).await?,
        };
        Ok(match out {
            Out::Events(events) => Reply {
                status,
                body_len: events.data_bytes,
                messages: events.events,
                body: events.data,
                first_at: events.first_at,
            },
            Out::Keep(body) => Reply { status, body_len, messages: 1, body: Some(body), first_at: None },
            Out::Discard => Reply { status, body_len, messages: 1, body: None, first_at: None },
        })
    }
}

/// Where body bytes go: nowhere, a buffer, or an event parser.
enum Out {
    Discard,
    Keep(Vec<u8>),
    Events(SseParser),
}

impl Out {
    fn feed(&mut self, bytes: &[u8]) {
        match self {
            Out::Discard => {}
            Out::Keep(b) => b.extend_from_slice(bytes),
            Out::Events(p) => p.feed(bytes),
        }
    }
}

enum Framing {
    Length(u64),
    Chunked,
}

impl Framing {
    fn of(headers: &[httparse::Header<'_>], status: u16) -> Result<Framing, LoadError> {
        for h in headers {
            if h.name.eq_ignore_ascii_case("content-length") {
                let n = std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse().ok());
                return n.map(Framing::Length).ok_or_else(|| LoadError::Protocol("bad Content-Length".into()));
            }
            if h.name.eq_ignore_ascii_case("transfer-encoding") && h.value.eq_ignore_ascii_case(b"chunked") {
                return Ok(Framing::Chunked);
            }
        }
        if status == 204 || status == 304 || (100..200).contains(&status) {
            return Ok(Framing::Length(0));
        }
        // Close-delimited bodies would make connection reuse impossible: refuse them.
        Err(LoadError::Protocol("response has neither Content-Length nor chunked encoding".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(method: &str, body: &'static [u8]) -> RequestSpec {
        RequestSpec {
            method: method.into(),
            path: "/echo".into(),
            authority: "127.0.0.1:1".into(),
            headers: vec![("X-A".into(), "1".into())],
            body: Bytes::from_static(body),
            params: Default::default(),
        }
    }

    #[test]
    fn requests_serialize_with_length_only_when_needed() {
        let get = serialize(&spec("GET", b""));
        assert_eq!(&get[..], b"GET /echo HTTP/1.1\r\nHost: 127.0.0.1:1\r\nX-A: 1\r\n\r\n");
        let post = serialize(&spec("POST", b"hi"));
        assert!(post.ends_with(b"X-A: 1\r\nContent-Type: application/octet-stream\r\nContent-Length: 2\r\n\r\nhi"));
    }

    async fn replay(wire: &'static [u8]) -> Result<Reply, LoadError> {
        let (client, mut server) = tokio::io::duplex(7); // tiny buffer: forces partial reads
        tokio::spawn(async move {
            // Read the whole request first: the duplex buffer is smaller than it.
            let mut seen = Vec::new();
            let mut byte = [0u8; 1];
            while !seen.ends_with(b"\r\n\r\n") && server.read(&mut byte).await.unwrap_or(0) == 1 {
                seen.push(byte[0]);
            }
            server.write_all(wire).await.unwrap();
        });
        let mut h1 = H1::new(client, serialize(&spec("GET", b"")));
        h1.buf = vec![0; 16]; // small: exercises compaction and growth
        h1.exchange(true).await
    }

    #[tokio::test]
    async fn parses_length_and_chunked_bodies_split_across_reads() {
        let r = replay(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\nX-Long-Header: 0123456789\r\n\r\nhello world")
            .await
            .unwrap();
        assert_eq!((r.status, r.body_len, r.body.unwrap()), (200, 11, b"hello world".to_vec()));
        let r =
            replay(b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
                .await
                .unwrap();
        assert_eq!((r.status, r.body_len, r.body.unwrap()), (201, 11, b"hello world".to_vec()));
    }

    #[tokio::test]
    async fn broken_responses_are_errors_not_hangs() {
        for wire in [
            &b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nshort"[..],
            b"HTTP/1.1 200 OK\r\n\r\nno framing",
            b"NOT HTTP\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ] {
            assert!(replay(wire).await.is_err(), "{}", String::from_utf8_lossy(wire));
        }
    }
}
