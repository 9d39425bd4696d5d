//! HTTP/2 (RFC 9113) with a client of our own, as the HTTP/1.1 driver is: h2c with prior
//! knowledge on the cleartext port, or TLS with ALPN `h2`. One connection carries `streams`
//! concurrent channels (`h2load -m`).
//!
//! Why not the `h2` crate (which the gRPC driver still uses): its per-frame bookkeeping (stream
//! store, per-stream locks and wakers, frame moves) was the largest user-space share of the
//! instrument's CPU on h2c (docs/ARCHITECTURE.md, "What the instrument's CPU per request depends
//! on"). A load generator needs a small part of it: the same request again and again.
//!
//! - The request's header block is encoded once per connection (HPACK, RFC 7541): the first
//!   request adds its fields to the server's dynamic table, later ones name them by index, as
//!   h2load and the `h2` crate do, so the server decodes what it decodes from them.
//! - Answers' header blocks are decoded by `Hpack` below (every block, trailers too, so the
//!   dynamic table stays in step), keeping only `:status`: a field is decoded only when it is
//!   `:status` or enters the table, Huffman strings by `httlib-huffman`'s table decoder. (With
//!   `loona-hpack`, which builds a hash map for each Huffman string it decodes, the client spent
//!   70 % of its CPU there and cost 3.3x h2load's CPU per request.)
//! - Frames are parsed in place from one read buffer; channels append their frames to one write
//!   buffer, which the connection's task writes once per wake-up.
//! - Flow control: our windows are opened wide (2^30 - 1, as h2load's default -w/-W 30) so 1 MB
//!   answers are not throttled; the server's windows are honoured for request bodies.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use async_trait::async_trait;
use bytes::{Buf, Bytes};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::Counters;
use crate::tls;
use wirebench_core::runner::Target;

const ALPN: &[u8] = b"h2";
const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Our receive windows (connection and streams).
const WINDOW: u32 = (1 << 30) - 1;
/// RFC 9113's initial window and frame size, until the server's SETTINGS say otherwise.
const DEFAULT_WINDOW: i64 = 65_535;
const DEFAULT_FRAME: usize = 16_384;
/// The largest frame we accept: we never raise SETTINGS_MAX_FRAME_SIZE.
const MAX_FRAME: usize = 16_384;
/// The HPACK dynamic table of each side, at its default size (neither side's SETTINGS change it).
const TABLE: usize = 4_096;
const READ_BUFFER: usize = 64 * 1024;

// Frame types (RFC 9113 §6) and flags.
const DATA: u8 = 0x0;
const HEADERS: u8 = 0x1;
const RST_STREAM: u8 = 0x3;
const SETTINGS: u8 = 0x4;
const PUSH_PROMISE: u8 = 0x5;
const PING: u8 = 0x6;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;
const END_STREAM: u8 = 0x1;
const ACK: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY: u8 = 0x20;
/// RST_STREAM's CANCEL: an exchange given up (the worker's timeout).
const CANCEL: u32 = 0x8;

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
        let blocks = HeaderBlocks::of(request, target)?;
        let io = crate::io::connect(target, counters).await?;
        let shared = if target.tls {
            start(tls::handshake(&self.tls, io, ALPN).await?, blocks, streams as usize)
        } else {
            start(io, blocks, streams as usize)
        };
        Ok((0..streams as usize)
            .map(|slot| Box::new(H2 { shared: shared.clone(), slot, body: request.body.clone() }) as Box<dyn Channel>)
            .collect())
    }
}

/// The request's header block, encoded once: `first` adds the fields to the server's dynamic
/// table, `next` names them by index; `plain` adds nothing (after the server shrank its table).
struct HeaderBlocks {
    first: Vec<u8>,
    next: Vec<u8>,
    plain: Vec<u8>,
}

/// Fields RFC 9113 §8.2.2 forbids in HTTP/2.
const CONNECTION_SPECIFIC: &[&str] = &["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"];

/// RFC 7541 Appendix A: the static table, index 1 to 61 (name, value).
const STATIC: [(&str, &str); 61] = [
    (":authority", ""),
    (":method", "GET"),
    (":method", "POST"),
    (":path", "/"),
    (":path", "/index.html"),
    (":scheme", "http"),
    (":scheme", "https"),
    (":status", "200"),
    (":status", "204"),
    (":status", "206"),
    (":status", "304"),
    (":status", "400"),
    (":status", "404"),
    (":status", "500"),
    ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"),
    ("accept-language", ""),
    ("accept-ranges", ""),
    ("accept", ""),
    ("access-control-allow-origin", ""),
    ("age", ""),
    ("allow", ""),
    ("authorization", ""),
    ("cache-control", ""),
    ("content-disposition", ""),
    ("content-encoding", ""),
    ("content-language", ""),
    ("content-length", ""),
    ("content-location", ""),
    ("content-range", ""),
    ("content-type", ""),
    ("cookie", ""),
    ("date", ""),
    ("etag", ""),
    ("expect", ""),
    ("expires", ""),
    ("from", ""),
    ("host", ""),
    ("if-match", ""),
    ("if-modified-since", ""),
    ("if-none-match", ""),
    ("if-range", ""),
    ("if-unmodified-since", ""),
    ("last-modified", ""),
    ("link", ""),
    ("location", ""),
    ("max-forwards", ""),
    ("proxy-authenticate", ""),
    ("proxy-authorization", ""),
    ("range", ""),
    ("referer", ""),
    ("refresh", ""),
    ("retry-after", ""),
    ("server", ""),
    ("set-cookie", ""),
    ("strict-transport-security", ""),
    ("transfer-encoding", ""),
    ("user-agent", ""),
    ("vary", ""),
    ("via", ""),
    ("www-authenticate", ""),
];

/// The static index (1-61) of a field with this name and value, or of its name alone.
fn static_index(name: &str, value: Option<&str>) -> Option<usize> {
    STATIC.iter().position(|&(n, v)| n == name && value.is_none_or(|value| v == value)).map(|i| i + 1)
}

impl HeaderBlocks {
    fn of(r: &RequestSpec, target: &Target) -> Result<HeaderBlocks, LoadError> {
        let bad = |e: String| LoadError::Protocol(format!("bad request: {e}"));
        let scheme = if target.tls { "https" } else { "http" };
        // No path is the root, as in a URL (RFC 9113 §8.3.1: `:path` is never empty).
        let path = if r.path.is_empty() { "/" } else { r.path.as_str() };
        if !path.starts_with('/') {
            return Err(bad(format!("path `{path}` does not start with /")));
        }
        let mut fields: Vec<(String, String)> = vec![
            (":method".into(), r.method.clone()),
            (":scheme".into(), scheme.into()),
            (":authority".into(), r.authority.clone()),
            (":path".into(), path.into()),
        ];
        http::Method::from_bytes(r.method.as_bytes()).map_err(|e| bad(e.to_string()))?;
        for (k, v) in r.http_headers() {
            let name = http::HeaderName::from_bytes(k.as_bytes()).map_err(|e| bad(e.to_string()))?;
            http::HeaderValue::from_str(v).map_err(|e| bad(e.to_string()))?;
            let name = name.as_str();
            if name == "host" {
                continue; // :authority carries it
            }
            if CONNECTION_SPECIFIC.contains(&name) || (name == "te" && !v.eq_ignore_ascii_case("trailers")) {
                return Err(bad(format!("HTTP/2 forbids the connection-specific header `{name}`")));
            }
            fields.push((name.to_string(), v.to_string()));
        }
        let (mut first, mut next, mut plain) = (Vec::new(), Vec::new(), Vec::new());
        // The fields `first` adds to the dynamic table, in order, and the table's size with them:
        // a field that would not fit is sent without indexing, so nothing is ever evicted.
        let mut indexed: Vec<usize> = Vec::new();
        let mut size = 0;
        for (i, (name, value)) in fields.iter().enumerate() {
            if static_index(name, Some(value)).is_some() {
                continue;
            }
            let entry = name.len() + value.len() + 32;
            if size + entry <= TABLE {
                size += entry;
                indexed.push(i);
            }
        }
        for (i, (name, value)) in fields.iter().enumerate() {
            if let Some(index) = static_index(name, Some(value)) {
                for block in [&mut first, &mut next, &mut plain] {
                    integer(block, 0x80, 7, index);
                }
                continue;
            }
            let name_index = static_index(name, None);
            // Without indexing: 0x00 and a 4-bit name index; with incremental indexing: 0x40, 6 bits.
            literal(&mut plain, 0x00, 4, name_index, name, value);
            match indexed.iter().position(|&j| j == i) {
                Some(order) => {
                    literal(&mut first, 0x40, 6, name_index, name, value);
                    // After `first`, the newest entry is 62 and the oldest 61 + their number.
                    integer(&mut next, 0x80, 7, 62 + indexed.len() - 1 - order);
                }
                None => {
                    literal(&mut first, 0x00, 4, name_index, name, value);
                    literal(&mut next, 0x00, 4, name_index, name, value);
                }
            }
        }
        Ok(HeaderBlocks { first, next, plain })
    }
}

/// An HPACK integer (RFC 7541 §5.1) with `bits` of prefix in the first byte, ORed with `flags`.
fn integer(out: &mut Vec<u8>, flags: u8, bits: u32, mut n: usize) {
    let max = (1usize << bits) - 1;
    if n < max {
        out.push(flags | n as u8);
        return;
    }
    out.push(flags | max as u8);
    n -= max;
    while n >= 128 {
        out.push((n % 128) as u8 | 0x80);
        n /= 128;
    }
    out.push(n as u8);
}

/// A literal field (RFC 7541 §6.2): the name by static index or as a string, the value as a
/// string; strings raw (no Huffman coding, which is optional).
fn literal(out: &mut Vec<u8>, flags: u8, bits: u32, name_index: Option<usize>, name: &str, value: &str) {
    match name_index {
        Some(index) => integer(out, flags, bits, index),
        None => {
            out.push(flags);
            integer(out, 0x00, 7, name.len());
            out.extend_from_slice(name.as_bytes());
        }
    }
    integer(out, 0x00, 7, value.len());
    out.extend_from_slice(value.as_bytes());
}

/// A frame's 9-byte header.
fn frame_head(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) {
    let len = (len as u32).to_be_bytes();
    out.extend_from_slice(&[len[1], len[2], len[3], kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
}

fn window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    frame_head(out, 4, WINDOW_UPDATE, 0, stream);
    out.extend_from_slice(&increment.to_be_bytes());
}

/// What one channel's current exchange has got so far.
#[derive(Default)]
struct Stream {
    /// The stream's id while the exchange is in flight, 0 when idle.
    id: u32,
    status: u16,
    /// Whether the answer's final (non-1xx) header block has come.
    headers_done: bool,
    body_len: u64,
    body: Option<Vec<u8>>,
    done: bool,
    error: Option<String>,
    waker: Option<Waker>,
    /// The server's window for this stream (our request body).
    send_window: i64,
    /// Request body not yet sent (waiting for window).
    pending: Bytes,
    /// Bytes received on this stream not yet given back with WINDOW_UPDATE.
    unacked: u32,
}

/// The connection's state, shared by its channels and its task.
struct State {
    /// Frames queued for the task to write.
    out: Vec<u8>,
    task: Option<Waker>,
    streams: Vec<Stream>,
    /// Streams in flight: (stream id, channel).
    active: Vec<(u32, usize)>,
    next_id: u32,
    max_streams: u32,
    /// The server's initial stream window and our window on the connection.
    initial_window: i64,
    conn_window: i64,
    max_frame: usize,
    /// Bytes received on the connection not yet given back.
    unacked: u32,
    blocks: HeaderBlocks,
    sent_first: bool,
    /// The server shrank its HPACK table: the next block starts with a size update, and blocks
    /// add nothing to the table from then on.
    table_update: Option<usize>,
    plain: bool,
    /// Why no new stream can start (GOAWAY, the connection failed).
    closed: Option<String>,
    /// Channels waiting for a stream slot.
    waiting: Vec<Waker>,
}

struct Shared {
    state: RefCell<State>,
    /// Channels alive: the task ends (and closes the socket) when none is.
    alive: Cell<usize>,
}

impl Shared {
    fn wake_task(st: &mut State) {
        if let Some(w) = st.task.take() {
            w.wake();
        }
    }
}

impl State {
    /// Ends stream `at` of `active` (answered, reset or given up) and frees its slot.
    fn finish(&mut self, at: usize, error: Option<String>) {
        let (_, slot) = self.active.swap_remove(at);
        let s = &mut self.streams[slot];
        s.id = 0;
        s.pending = Bytes::new();
        if error.is_some() {
            s.error = error;
        } else {
            s.done = true;
        }
        if let Some(w) = s.waker.take() {
            w.wake();
        }
        if let Some(w) = self.waiting.pop() {
            w.wake();
        }
    }

    /// Fails every stream in flight and every waiting channel.
    fn fail(&mut self, why: &str) {
        if self.closed.is_none() {
            self.closed = Some(why.to_string());
        }
        while !self.active.is_empty() {
            self.finish(0, Some(why.to_string()));
        }
        for w in self.waiting.drain(..) {
            w.wake();
        }
    }

    /// Sends what request bodies the windows allow.
    fn pump(&mut self) {
        for &(id, slot) in &self.active {
            let s = &mut self.streams[slot];
            while !s.pending.is_empty() && self.conn_window > 0 && s.send_window > 0 {
                let n = s.pending.len().min(self.max_frame).min(self.conn_window as usize).min(s.send_window as usize);
                let last = n == s.pending.len();
                frame_head(&mut self.out, n, DATA, if last { END_STREAM } else { 0 }, id);
                self.out.extend_from_slice(&s.pending[..n]);
                s.pending.advance(n);
                self.conn_window -= n as i64;
                s.send_window -= n as i64;
            }
        }
    }

    /// Queues the HEADERS (and CONTINUATION) frames of a new request on stream `id`.
    fn headers(&mut self, id: u32, end_stream: bool) {
        let encoded = if self.plain {
            &self.blocks.plain
        } else if self.sent_first {
            &self.blocks.next
        } else {
            self.sent_first = true;
            &self.blocks.first
        };
        match self.table_update.take() {
            None => header_frames(&mut self.out, encoded, self.max_frame, id, end_stream),
            Some(size) => {
                let mut block = Vec::with_capacity(encoded.len() + 6);
                integer(&mut block, 0x20, 5, size);
                block.extend_from_slice(encoded);
                header_frames(&mut self.out, &block, self.max_frame, id, end_stream);
            }
        }
    }
}

/// A header block as HEADERS and, past the server's frame size, CONTINUATION frames.
fn header_frames(out: &mut Vec<u8>, block: &[u8], max_frame: usize, id: u32, end_stream: bool) {
    let mut chunks = block.chunks(max_frame).peekable();
    let mut kind = HEADERS;
    let mut flags = if end_stream { END_STREAM } else { 0 };
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        frame_head(out, chunk.len(), kind, flags | if last { END_HEADERS } else { 0 }, id);
        out.extend_from_slice(chunk);
        kind = CONTINUATION;
        flags = 0;
    }
}

/// Starts a connection's task over `io` (preface and SETTINGS queued) for `channels` channels.
fn start<S: AsyncRead + AsyncWrite + Unpin + 'static>(io: S, blocks: HeaderBlocks, channels: usize) -> Rc<Shared> {
    let mut out = Vec::with_capacity(READ_BUFFER);
    out.extend_from_slice(PREFACE);
    // SETTINGS: ENABLE_PUSH 0, INITIAL_WINDOW_SIZE 2^30 - 1; then the connection's window.
    frame_head(&mut out, 12, SETTINGS, 0, 0);
    out.extend_from_slice(&[0, 0x2, 0, 0, 0, 0]);
    out.extend_from_slice(&[0, 0x4]);
    out.extend_from_slice(&WINDOW.to_be_bytes());
    window_update(&mut out, 0, WINDOW - DEFAULT_WINDOW as u32);
    let state = State {
        out,
        task: None,
        streams: (0..channels).map(|_| Stream::default()).collect(),
        active: Vec::with_capacity(channels),
        next_id: 1,
        // No limit until the server's SETTINGS name one (RFC 9113 §5.1.2).
        max_streams: u32::MAX,
        initial_window: DEFAULT_WINDOW,
        conn_window: DEFAULT_WINDOW,
        max_frame: DEFAULT_FRAME,
        unacked: 0,
        blocks,
        sent_first: false,
        table_update: None,
        plain: false,
        closed: None,
        waiting: Vec::new(),
    };
    let shared = Rc::new(Shared { state: RefCell::new(state), alive: Cell::new(channels) });
    let mut conn = Connection {
        io,
        shared: shared.clone(),
        rbuf: vec![0; READ_BUFFER].into_boxed_slice(),
        start: 0,
        end: 0,
        wbuf: Vec::with_capacity(READ_BUFFER),
        wpos: 0,
        flush: false,
        block: Vec::new(),
        block_stream: 0,
        block_end_stream: false,
        decoder: decoder(),
    };
    // Unconstrained like the worker loop (see `worker::thread_main`).
    tokio::task::spawn_local(tokio::task::unconstrained(async move { poll_fn(|cx| conn.poll(cx)).await }));
    shared
}

/// An HPACK decoder (RFC 7541) that keeps the dynamic table in step and reads one field,
/// `:status`; other fields are decoded only to enter the table.
/// A dynamic table entry: (name, value).
type Entry = (Box<[u8]>, Box<[u8]>);

struct Hpack {
    /// Newest first.
    table: std::collections::VecDeque<Entry>,
    size: usize,
    max: usize,
    name: Vec<u8>,
    value: Vec<u8>,
}

fn decoder() -> Hpack {
    Hpack { table: Default::default(), size: 0, max: TABLE, name: Vec::new(), value: Vec::new() }
}

/// An HPACK integer with a `bits` prefix at the start of `buf`: (value, bytes read).
fn read_integer(buf: &[u8], bits: u32) -> Result<(usize, usize), String> {
    let max = (1usize << bits) - 1;
    let first = *buf.first().ok_or("a truncated integer")? as usize & max;
    if first < max {
        return Ok((first, 1));
    }
    let (mut value, mut shift) = (max, 0u32);
    for (i, &b) in buf.iter().enumerate().skip(1) {
        if shift > 28 {
            break;
        }
        value += ((b & 0x7f) as usize) << shift;
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
        shift += 7;
    }
    Err("an integer too long or truncated".into())
}

/// A string literal at the start of `buf`: (its bytes, whether Huffman-coded, bytes read).
fn read_string(buf: &[u8]) -> Result<(&[u8], bool, usize), String> {
    let huffman = buf.first().is_some_and(|b| b & 0x80 != 0);
    let (len, n) = read_integer(buf, 7)?;
    let bytes = buf.get(n..n + len).ok_or("a truncated string")?;
    Ok((bytes, huffman, n + len))
}

/// A string's decoded bytes into `out` (cleared first).
fn decode_string(bytes: &[u8], huffman: bool, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    if huffman {
        httlib_huffman::decode(bytes, out, httlib_huffman::DecoderSpeed::FourBits)
            .map_err(|e| format!("a bad Huffman string: {e:?}"))
    } else {
        out.extend_from_slice(bytes);
        Ok(())
    }
}

impl Hpack {
    /// The name at `index` (static 1-61, then dynamic, newest first), and the status when the
    /// field is `:status`.
    fn field(&self, index: usize) -> Result<(&[u8], Option<u16>), String> {
        match index {
            0 => Err("index 0".into()),
            1..=61 => {
                let (name, value) = STATIC[index - 1];
                Ok((name.as_bytes(), (name == ":status").then(|| parse_status(value.as_bytes())).flatten()))
            }
            _ => {
                let (name, value) =
                    self.table.get(index - 62).ok_or_else(|| format!("index {index} past the table"))?;
                let status = (&name[..] == b":status").then(|| parse_status(value)).flatten();
                Ok((name, status))
            }
        }
    }

    /// Evicts the oldest entries until `room` more bytes fit.
    fn evict(&mut self, room: usize) {
        while self.size + room > self.max {
            let Some((n, v)) = self.table.pop_back() else { break };
            self.size -= n.len() + v.len() + 32;
        }
    }

    fn insert(&mut self, name: &[u8], value: &[u8]) {
        let size = name.len() + value.len() + 32;
        self.evict(size);
        if size <= self.max {
            self.table.push_front((name.into(), value.into()));
            self.size += size;
        }
    }

    /// Decodes a whole header block; returns its `:status` when it has one.
    fn status(&mut self, block: &[u8]) -> Result<Option<u16>, String> {
        let mut status = None;
        let mut i = 0;
        while i < block.len() {
            let b = block[i];
            if b & 0x80 != 0 {
                let (index, n) = read_integer(&block[i..], 7)?;
                i += n;
                if let (_, Some(code)) = self.field(index)? {
                    status = Some(code);
                }
                continue;
            }
            if b & 0xe0 == 0x20 {
                let (size, n) = read_integer(&block[i..], 5)?;
                if size > TABLE {
                    return Err(format!("a table size update to {size}, past our {TABLE}"));
                }
                i += n;
                self.max = size;
                self.evict(0);
                continue;
            }
            // A literal: with incremental indexing (01), else without or never indexed (0000, 0001).
            let indexing = b & 0x40 != 0;
            let (index, n) = read_integer(&block[i..], if indexing { 6 } else { 4 })?;
            i += n;
            let mut name = std::mem::take(&mut self.name);
            if index == 0 {
                let (bytes, huffman, n) = read_string(&block[i..])?;
                i += n;
                decode_string(bytes, huffman, &mut name)?;
            } else {
                name.clear();
                name.extend_from_slice(self.field(index)?.0);
            }
            let (bytes, huffman, n) = read_string(&block[i..])?;
            i += n;
            let is_status = name == b":status";
            if indexing || is_status {
                let mut value = std::mem::take(&mut self.value);
                decode_string(bytes, huffman, &mut value)?;
                if is_status {
                    status = parse_status(&value);
                }
                if indexing {
                    self.insert(&name, &value);
                }
                self.value = value;
            }
            self.name = name;
        }
        Ok(status)
    }
}

fn parse_status(value: &[u8]) -> Option<u16> {
    std::str::from_utf8(value).ok()?.parse().ok()
}

/// The task that owns the socket: writes what channels queued, reads and dispatches frames.
struct Connection<S> {
    io: S,
    shared: Rc<Shared>,
    rbuf: Box<[u8]>,
    start: usize,
    end: usize,
    wbuf: Vec<u8>,
    wpos: usize,
    flush: bool,
    /// A header block split over HEADERS and CONTINUATION frames, and its stream.
    block: Vec<u8>,
    block_stream: u32,
    block_end_stream: bool,
    decoder: Hpack,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Connection<S> {
    fn poll(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            if self.shared.alive.get() == 0 {
                return Poll::Ready(());
            }
            if self.wpos == self.wbuf.len() {
                let mut st = self.shared.state.borrow_mut();
                if !st.out.is_empty() {
                    self.wbuf.clear();
                    self.wpos = 0;
                    std::mem::swap(&mut self.wbuf, &mut st.out);
                }
            }
            let mut progress = false;
            while self.wpos < self.wbuf.len() {
                match Pin::new(&mut self.io).poll_write(cx, &self.wbuf[self.wpos..]) {
                    Poll::Ready(Ok(0)) => return self.fail("the connection closed while writing"),
                    Poll::Ready(Ok(n)) => {
                        self.wpos += n;
                        self.flush = true;
                        progress = true;
                    }
                    Poll::Ready(Err(e)) => return self.fail(&format!("write: {e}")),
                    Poll::Pending => break,
                }
            }
            if self.flush && self.wpos == self.wbuf.len() {
                match Pin::new(&mut self.io).poll_flush(cx) {
                    Poll::Ready(Ok(())) => self.flush = false,
                    Poll::Ready(Err(e)) => return self.fail(&format!("write: {e}")),
                    Poll::Pending => {}
                }
            }
            if self.start == self.end {
                (self.start, self.end) = (0, 0);
            } else if self.end == self.rbuf.len() {
                // A frame is at most 9 + 16,384 bytes: moving the unread tail to the front makes room.
                self.rbuf.copy_within(self.start..self.end, 0);
                (self.start, self.end) = (0, self.end - self.start);
            }
            let mut read = ReadBuf::new(&mut self.rbuf[self.end..]);
            match Pin::new(&mut self.io).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) => {
                    let n = read.filled().len();
                    if n == 0 {
                        return self.fail("the server closed the connection");
                    }
                    self.end += n;
                    match self.frames() {
                        Err(e) => return self.fail(&e),
                        // Answers came: let their channels run (they queue their next requests)
                        // before this task writes, so one write carries them all.
                        Ok(true) => {
                            cx.waker().wake_by_ref();
                            return Poll::Pending;
                        }
                        Ok(false) => progress = true,
                    }
                }
                Poll::Ready(Err(e)) => return self.fail(&format!("read: {e}")),
                Poll::Pending => {}
            }
            if !progress {
                let mut st = self.shared.state.borrow_mut();
                if st.out.is_empty() || self.wpos < self.wbuf.len() {
                    if !st.task.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                        st.task = Some(cx.waker().clone());
                    }
                    return Poll::Pending;
                }
            }
        }
    }

    /// Ends the connection: every stream in flight and every later exchange fails with `why`.
    fn fail(&mut self, why: &str) -> Poll<()> {
        self.shared.state.borrow_mut().fail(&format!("h2: {why}"));
        Poll::Ready(())
    }

    /// Handles every whole frame in the read buffer; true when an exchange completed.
    fn frames(&mut self) -> Result<bool, String> {
        let shared = self.shared.clone();
        let mut guard = shared.state.borrow_mut();
        let st = &mut *guard;
        let mut completed = false;
        while self.end - self.start >= 9 {
            let h = &self.rbuf[self.start..self.start + 9];
            let len = u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
            let (kind, flags) = (h[3], h[4]);
            let id = u32_at(h, 5) & 0x7fff_ffff;
            if len > MAX_FRAME {
                return Err(format!("FRAME_SIZE_ERROR: a {len}-byte frame (type {kind})"));
            }
            if self.end - self.start < 9 + len {
                break;
            }
            let at = self.start + 9;
            self.start = at + len;
            let payload = &self.rbuf[at..at + len];
            if self.block_stream != 0 && (kind != CONTINUATION || id != self.block_stream) {
                return Err(format!("PROTOCOL_ERROR: a type-{kind} frame inside a header block"));
            }
            match kind {
                DATA => {
                    let data = unpad(payload, flags)?;
                    st.unacked += len as u32;
                    if st.unacked >= WINDOW / 2 {
                        let n = std::mem::take(&mut st.unacked);
                        window_update(&mut st.out, 0, n);
                    }
                    let Some(at) = st.active.iter().position(|&(sid, _)| sid == id) else { continue };
                    let slot = st.active[at].1;
                    let s = &mut st.streams[slot];
                    s.body_len += data.len() as u64;
                    if let Some(body) = &mut s.body {
                        body.extend_from_slice(data);
                    }
                    if flags & END_STREAM != 0 {
                        st.finish(at, None);
                        completed = true;
                    } else {
                        s.unacked += len as u32;
                        if s.unacked >= WINDOW / 2 {
                            let n = std::mem::take(&mut s.unacked);
                            window_update(&mut st.out, id, n);
                        }
                    }
                }
                HEADERS | CONTINUATION => {
                    let fragment = if kind == HEADERS {
                        let mut p = unpad(payload, flags)?;
                        if flags & PRIORITY != 0 {
                            p = p.get(5..).ok_or("PROTOCOL_ERROR: a short HEADERS frame")?;
                        }
                        self.block_end_stream = flags & END_STREAM != 0;
                        p
                    } else if self.block_stream == 0 {
                        return Err("PROTOCOL_ERROR: CONTINUATION outside a header block".into());
                    } else {
                        payload
                    };
                    if flags & END_HEADERS == 0 {
                        self.block_stream = id;
                        self.block.extend_from_slice(fragment);
                        continue;
                    }
                    let decoded = if self.block.is_empty() {
                        self.decoder.status(fragment)
                    } else {
                        self.block.extend_from_slice(fragment);
                        let r = self.decoder.status(&self.block);
                        self.block.clear();
                        r
                    };
                    self.block_stream = 0;
                    let status = decoded.map_err(|e| format!("COMPRESSION_ERROR: {e}"))?;
                    let Some(at) = st.active.iter().position(|&(sid, _)| sid == id) else { continue };
                    let s = &mut st.streams[st.active[at].1];
                    if !s.headers_done {
                        match status {
                            // An informational answer (100 Continue): the final one follows.
                            Some(100..=199) => continue,
                            Some(code) => (s.status, s.headers_done) = (code, true),
                            None => {
                                st.finish(at, Some("h2: an answer without :status".into()));
                                completed = true;
                                continue;
                            }
                        }
                    }
                    if self.block_end_stream {
                        st.finish(at, None);
                        completed = true;
                    }
                }
                RST_STREAM => {
                    let code = u32_at(payload, 0);
                    if let Some(at) = st.active.iter().position(|&(sid, _)| sid == id) {
                        st.finish(at, Some(format!("h2: stream reset by the server (error code {code:#x})")));
                        completed = true;
                    }
                }
                SETTINGS if flags & ACK == 0 => {
                    if id != 0 || !len.is_multiple_of(6) {
                        return Err("PROTOCOL_ERROR: a malformed SETTINGS frame".into());
                    }
                    for setting in payload.chunks(6) {
                        let value = u32_at(setting, 2);
                        match u16::from_be_bytes([setting[0], setting[1]]) {
                            0x1 if (value as usize) < TABLE => {
                                st.table_update = Some(value as usize);
                                st.plain = true;
                            }
                            0x3 => st.max_streams = value,
                            0x4 => {
                                let delta = value as i64 - st.initial_window;
                                st.initial_window = value as i64;
                                let State { active, streams, .. } = &mut *st;
                                for &(_, slot) in active.iter() {
                                    streams[slot].send_window += delta;
                                }
                            }
                            0x5 => st.max_frame = (value as usize).clamp(DEFAULT_FRAME, 1 << 24),
                            _ => {}
                        }
                    }
                    frame_head(&mut st.out, 0, SETTINGS, ACK, 0);
                    st.pump();
                    for w in st.waiting.drain(..) {
                        w.wake();
                    }
                }
                PING if flags & ACK == 0 => {
                    frame_head(&mut st.out, len, PING, ACK, 0);
                    st.out.extend_from_slice(payload);
                }
                GOAWAY => {
                    let last = u32_at(payload, 0) & 0x7fff_ffff;
                    let code = u32_at(payload, 4);
                    let why = format!("h2: the server sent GOAWAY (error code {code:#x})");
                    st.closed = Some(why.clone());
                    while let Some(at) = st.active.iter().position(|&(sid, _)| sid > last) {
                        st.finish(at, Some(why.clone()));
                        completed = true;
                    }
                    for w in st.waiting.drain(..) {
                        w.wake();
                    }
                }
                WINDOW_UPDATE => {
                    let increment = u32_at(payload, 0) & 0x7fff_ffff;
                    if id == 0 {
                        st.conn_window += increment as i64;
                    } else if let Some(&(_, slot)) = st.active.iter().find(|&&(sid, _)| sid == id) {
                        st.streams[slot].send_window += increment as i64;
                    }
                    st.pump();
                }
                PUSH_PROMISE => return Err("PROTOCOL_ERROR: PUSH_PROMISE after SETTINGS_ENABLE_PUSH 0".into()),
                // PRIORITY, acknowledgements, and frame types this client does not know.
                _ => {}
            }
        }
        Ok(completed)
    }
}

/// The big-endian u32 at `at` in a frame's bytes; 0 when the frame is too short for it (a short
/// RST_STREAM, GOAWAY or WINDOW_UPDATE reads as code 0 or no increment).
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// A DATA or HEADERS frame's payload without its padding.
fn unpad(payload: &[u8], flags: u8) -> Result<&[u8], String> {
    if flags & PADDED == 0 {
        return Ok(payload);
    }
    let pad = *payload.first().ok_or("PROTOCOL_ERROR: a padded frame without its pad length")? as usize;
    payload
        .get(1..payload.len().saturating_sub(pad))
        .filter(|_| pad < payload.len())
        .ok_or_else(|| "PROTOCOL_ERROR: padding longer than the frame".to_string())
}

struct H2 {
    shared: Rc<Shared>,
    slot: usize,
    body: Bytes,
}

impl Drop for H2 {
    fn drop(&mut self) {
        self.shared.alive.set(self.shared.alive.get() - 1);
        Shared::wake_task(&mut self.shared.state.borrow_mut());
    }
}

/// Gives up an exchange whose future was dropped before its answer (the worker's timeout):
/// RST_STREAM CANCEL, so its slot is free on both sides.
struct InFlight<'a> {
    shared: &'a Shared,
    slot: usize,
    answered: bool,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        let mut st = self.shared.state.borrow_mut();
        let id = st.streams[self.slot].id;
        if let Some(at) = st.active.iter().position(|&(sid, _)| sid == id && id != 0) {
            frame_head(&mut st.out, 4, RST_STREAM, 0, id);
            st.out.extend_from_slice(&CANCEL.to_be_bytes());
            st.finish(at, Some("cancelled".into()));
            Shared::wake_task(&mut st);
        }
    }
}

#[async_trait(?Send)]
impl Channel for H2 {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let shared = &*self.shared;
        let slot = self.slot;
        // A stream slot under the server's SETTINGS_MAX_CONCURRENT_STREAMS.
        poll_fn(|cx| {
            let mut st = shared.state.borrow_mut();
            if let Some(why) = &st.closed {
                return Poll::Ready(Err(LoadError::Protocol(why.clone())));
            }
            if (st.active.len() as u32) < st.max_streams {
                return Poll::Ready(Ok(()));
            }
            st.waiting.push(cx.waker().clone());
            Poll::Pending
        })
        .await?;
        {
            let mut st = shared.state.borrow_mut();
            let id = st.next_id;
            if id > 0x7fff_ffff {
                return Err(LoadError::Protocol("h2: this connection's stream ids are used up".into()));
            }
            st.next_id += 2;
            let window = st.initial_window;
            st.streams[slot] = Stream {
                id,
                body: keep_body.then(Vec::new),
                send_window: window,
                pending: self.body.clone(),
                ..Stream::default()
            };
            st.active.push((id, slot));
            st.headers(id, self.body.is_empty());
            st.pump();
            Shared::wake_task(&mut st);
        }
        let mut in_flight = InFlight { shared, slot, answered: false };
        let reply = poll_fn(|cx| {
            let mut st = shared.state.borrow_mut();
            let s = &mut st.streams[slot];
            if s.done {
                let (status, body_len, body) = (s.status, s.body_len, s.body.take());
                return Poll::Ready(Ok(Reply { status, body_len, messages: 1, body, first_at: None }));
            }
            if let Some(why) = s.error.take() {
                return Poll::Ready(Err(LoadError::Protocol(why)));
            }
            if !s.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                s.waker = Some(cx.waker().clone());
            }
            Poll::Pending
        })
        .await;
        in_flight.answered = true;
        reply
    }
}

#[cfg(test)]
mod tests {
    //! The client against a server scripted frame by frame over an in-memory pipe: what the
    //! hyper server of `crate::tests` never sends (padding, CONTINUATION, 1xx answers, small
    //! windows, resets, GOAWAY).

    use std::collections::BTreeMap;

    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    use super::*;

    fn request(method: &str, body: &[u8], headers: &[(&str, &str)]) -> RequestSpec {
        RequestSpec {
            method: method.into(),
            path: "/payload/1024".into(),
            authority: "127.0.0.1:8080".into(),
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            body: Bytes::copy_from_slice(body),
            params: BTreeMap::new(),
        }
    }

    fn target() -> Target {
        Target { host: "127.0.0.1".into(), port: 8080, tls: false }
    }

    fn fields(decoder: &mut loona_hpack::Decoder<'static>, block: &[u8]) -> Vec<(String, String)> {
        let list = decoder.decode(block).unwrap();
        list.into_iter().map(|(n, v)| (String::from_utf8(n).unwrap(), String::from_utf8(v).unwrap())).collect()
    }

    #[test]
    fn the_header_block_indexes_fields_once_and_names_them_by_index_after() {
        let r = request("POST", b"x", &[("Accept", "*/*"), ("X-Trace", "abc"), ("Host", "ignored")]);
        let blocks = HeaderBlocks::of(&r, &target()).unwrap();
        let want: Vec<(String, String)> = [
            (":method", "POST"),
            (":scheme", "http"),
            (":authority", "127.0.0.1:8080"),
            (":path", "/payload/1024"),
            ("accept", "*/*"),
            ("x-trace", "abc"),
            ("content-type", "application/octet-stream"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        // One decoder, as the server's: `first` fills its table, `next` (much shorter) reads it.
        let mut server = loona_hpack::Decoder::new();
        assert_eq!(fields(&mut server, &blocks.first), want);
        assert_eq!(fields(&mut server, &blocks.next), want);
        assert_eq!(fields(&mut server, &blocks.next), want);
        assert!(blocks.next.len() < 10, "{} bytes", blocks.next.len());
        assert_eq!(fields(&mut loona_hpack::Decoder::new(), &blocks.plain), want);

        let bad = request("GET", b"", &[("Connection", "keep-alive")]);
        let err = HeaderBlocks::of(&bad, &target()).err().unwrap().to_string();
        assert!(err.contains("connection-specific header `connection`"), "{err}");
    }

    #[test]
    fn fields_beyond_the_table_are_sent_without_indexing() {
        let long = "v".repeat(1500);
        let headers: Vec<(&str, &str)> = vec![("a", &long), ("b", &long), ("c", &long)];
        let blocks = HeaderBlocks::of(&request("GET", b"", &headers), &target()).unwrap();
        let mut server = loona_hpack::Decoder::new();
        let first = fields(&mut server, &blocks.first);
        assert_eq!(fields(&mut server, &blocks.next), first);
        assert_eq!(first.len(), 7);
    }

    fn huffman(text: &str) -> Vec<u8> {
        let mut coded = Vec::new();
        httlib_huffman::encode(text.as_bytes(), &mut coded).unwrap();
        let mut out = Vec::new();
        integer(&mut out, 0x80, 7, coded.len());
        out.extend_from_slice(&coded);
        out
    }

    #[test]
    fn the_decoder_reads_status_through_huffman_literals_and_its_table() {
        let mut d = decoder();
        // date (static name 33) and :status (static name 8) enter the table, Huffman-coded;
        // content-length (28) does not (without indexing); a literal name enters too.
        let mut block = vec![0x40 | 33];
        block.extend(huffman("Mon, 21 Oct 2013 20:13:21 GMT"));
        block.push(0x40 | 8);
        block.extend(huffman("302"));
        integer(&mut block, 0x00, 4, 28);
        block.extend(huffman("1024"));
        block.push(0x40);
        block.extend(huffman("x-trace"));
        block.extend(huffman("abc"));
        assert_eq!(d.status(&block), Ok(Some(302)));
        assert_eq!(d.table.len(), 3);
        assert_eq!(&d.table[0].0[..], b"x-trace");
        // Now 62 is x-trace, 63 :status 302, 64 date; 0x88 is the static 200.
        assert_eq!(d.status(&[0x80 | 64, 0x80 | 63, 0x80 | 62]), Ok(Some(302)));
        assert_eq!(d.status(&[0x88, 0x80 | 64]), Ok(Some(200)));
        assert_eq!(d.status(&[0x80 | 64]), Ok(None), "trailers without :status");
        // A size update to 0 empties the table; its entries are gone.
        assert_eq!(d.status(&[0x20, 0x88]), Ok(Some(200)));
        assert!(d.status(&[0x80 | 62]).unwrap_err().contains("past the table"));
        assert!(d.status(&[0x3f, 0xe2, 0x1f]).unwrap_err().contains("past our 4096"));
        assert!(d.status(&[0x40 | 8, 0x85, 0x01]).unwrap_err().contains("truncated"));
    }

    /// One frame as the scripted server reads it.
    struct Frame {
        kind: u8,
        flags: u8,
        id: u32,
        payload: Vec<u8>,
    }

    async fn read_frame(io: &mut DuplexStream) -> Frame {
        let mut h = [0u8; 9];
        io.read_exact(&mut h).await.unwrap();
        let len = u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
        let mut payload = vec![0; len];
        io.read_exact(&mut payload).await.unwrap();
        Frame { kind: h[3], flags: h[4], id: u32::from_be_bytes([h[5], h[6], h[7], h[8]]), payload }
    }

    /// Reads the preface and frames until the client's next HEADERS block is whole; returns
    /// its stream, its fields' block and whether it ended the stream.
    async fn next_request(io: &mut DuplexStream, preface: bool) -> (u32, Vec<u8>, bool) {
        if preface {
            let mut p = [0u8; 24];
            io.read_exact(&mut p).await.unwrap();
            assert_eq!(&p, PREFACE);
        }
        let mut block = Vec::new();
        loop {
            let f = read_frame(io).await;
            if f.kind == HEADERS || f.kind == CONTINUATION {
                block.extend_from_slice(&f.payload);
                if f.flags & END_HEADERS != 0 {
                    return (f.id, block, f.flags & END_STREAM != 0);
                }
            }
        }
    }

    fn frame(kind: u8, flags: u8, id: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        frame_head(&mut out, payload.len(), kind, flags, id);
        out.extend_from_slice(payload);
        out
    }

    fn status_block(encoder: &mut loona_hpack::Encoder, status: &str) -> Vec<u8> {
        encoder.encode([(&b":status"[..], status.as_bytes()), (&b"content-type"[..], &b"text/plain"[..])])
    }

    /// Runs `client` against `server` over a pipe on one thread, as the load threads do.
    fn scripted<C, CF, S, SF>(streams: usize, body: &[u8], client: C, server: S)
    where
        C: FnOnce(Vec<Box<dyn Channel>>) -> CF,
        CF: std::future::Future<Output = ()>,
        S: FnOnce(DuplexStream) -> SF,
        SF: std::future::Future<Output = ()> + 'static,
    {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let local = tokio::task::LocalSet::new();
        let r = Rc::new(request(if body.is_empty() { "GET" } else { "POST" }, body, &[]));
        local.block_on(&rt, async move {
            let (ours, theirs) = tokio::io::duplex(1 << 20);
            let server = tokio::task::spawn_local(server(theirs));
            let shared = start(ours, HeaderBlocks::of(&r, &target()).unwrap(), streams);
            let channels = (0..streams)
                .map(|slot| Box::new(H2 { shared: shared.clone(), slot, body: r.body.clone() }) as Box<dyn Channel>)
                .collect();
            client(channels).await;
            server.await.unwrap();
        });
    }

    #[test]
    fn padding_continuation_and_an_informational_answer_are_read_through() {
        scripted(
            1,
            b"",
            |mut ch: Vec<Box<dyn Channel>>| async move {
                let reply = ch[0].exchange(true).await.unwrap();
                assert_eq!((reply.status, reply.body.as_deref()), (200, Some(&b"hello"[..])));
                assert_eq!(reply.body_len, 5);
            },
            |mut io: DuplexStream| async move {
                let (id, _, end) = next_request(&mut io, true).await;
                assert!(end, "a GET ends its stream with its headers");
                let mut enc = loona_hpack::Encoder::new();
                let informational = enc.encode([(&b":status"[..], &b"100"[..])]);
                io.write_all(&frame(HEADERS, END_HEADERS, id, &informational)).await.unwrap();
                let block = status_block(&mut enc, "200");
                // HEADERS padded and with a priority, then the rest of the block in CONTINUATION.
                let mut first = vec![3u8];
                first.extend_from_slice(&[0, 0, 0, 0, 16]);
                first.extend_from_slice(&block[..2]);
                first.extend_from_slice(&[0, 0, 0]);
                io.write_all(&frame(HEADERS, PADDED | PRIORITY, id, &first)).await.unwrap();
                io.write_all(&frame(CONTINUATION, END_HEADERS, id, &block[2..])).await.unwrap();
                io.write_all(&frame(DATA, PADDED, id, &[2, b'h', b'e', 0, 0])).await.unwrap();
                io.write_all(&frame(DATA, END_STREAM, id, b"llo")).await.unwrap();
                // The client answers a PING with the same eight bytes.
                io.write_all(&frame(PING, 0, 0, b"12345678")).await.unwrap();
                loop {
                    let f = read_frame(&mut io).await;
                    if f.kind == PING {
                        assert_eq!((f.flags, &f.payload[..]), (ACK, &b"12345678"[..]));
                        break;
                    }
                }
            },
        );
    }

    #[test]
    fn a_request_body_waits_for_the_servers_window_and_streams_for_its_limit() {
        let body = vec![7u8; 25];
        scripted(
            2,
            &body,
            |mut ch: Vec<Box<dyn Channel>>| async move {
                // The first exchange goes out before the server's SETTINGS can arrive (no limit
                // until then, RFC 9113 §5.1.2); its answer comes after them.
                assert_eq!(ch[0].exchange(false).await.unwrap().status, 200);
                let (a, b) = ch.split_at_mut(1);
                let (ra, rb) = tokio::join!(a[0].exchange(false), b[0].exchange(false));
                assert_eq!((ra.unwrap().status, rb.unwrap().status), (200, 200));
            },
            |mut io: DuplexStream| async move {
                // One stream at a time, and 10 bytes of window per stream.
                let settings = [0, 0x3, 0, 0, 0, 1, 0, 0x4, 0, 0, 0, 10];
                io.write_all(&frame(SETTINGS, 0, 0, &settings)).await.unwrap();
                let mut enc = loona_hpack::Encoder::new();
                let mut p = [0u8; 24];
                io.read_exact(&mut p).await.unwrap();
                let (mut answered, mut open, mut received, mut granted) = (0, false, 0, false);
                while answered < 3 {
                    let f = read_frame(&mut io).await;
                    match f.kind {
                        HEADERS => {
                            assert!(!open, "a second stream while one is open, past the limit of 1");
                            (open, received, granted) = (true, 0, false);
                        }
                        DATA => {
                            received += f.payload.len();
                            if answered > 0 {
                                assert!(received <= 10 || granted, "{received} bytes past a 10-byte window");
                            }
                            if answered > 0 && received == 10 && !granted {
                                granted = true;
                                io.write_all(&frame(WINDOW_UPDATE, 0, f.id, &20u32.to_be_bytes())).await.unwrap();
                            }
                            if f.flags & END_STREAM != 0 {
                                assert_eq!(received, 25, "the whole body");
                                let block = status_block(&mut enc, "200");
                                io.write_all(&frame(HEADERS, END_HEADERS | END_STREAM, f.id, &block)).await.unwrap();
                                (open, answered) = (false, answered + 1);
                            }
                        }
                        _ => {}
                    }
                }
            },
        );
    }

    #[test]
    fn a_reset_fails_its_exchange_and_goaway_fails_the_ones_after() {
        scripted(
            1,
            b"",
            |mut ch: Vec<Box<dyn Channel>>| async move {
                let err = ch[0].exchange(false).await.unwrap_err().to_string();
                assert!(err.contains("stream reset by the server (error code 0x2)"), "{err}");
                let ok = ch[0].exchange(false).await.unwrap();
                assert_eq!(ok.status, 204);
                let err = ch[0].exchange(false).await.unwrap_err().to_string();
                assert!(err.contains("GOAWAY"), "{err}");
                let err = ch[0].exchange(false).await.unwrap_err().to_string();
                assert!(err.contains("GOAWAY"), "a closed connection starts no stream: {err}");
            },
            |mut io: DuplexStream| async move {
                let (id, ..) = next_request(&mut io, true).await;
                io.write_all(&frame(RST_STREAM, 0, id, &2u32.to_be_bytes())).await.unwrap();
                let (id, ..) = next_request(&mut io, false).await;
                let mut enc = loona_hpack::Encoder::new();
                let block = enc.encode([(&b":status"[..], &b"204"[..])]);
                io.write_all(&frame(HEADERS, END_HEADERS | END_STREAM, id, &block)).await.unwrap();
                let (id, ..) = next_request(&mut io, false).await;
                let mut goaway = (id - 2).to_be_bytes().to_vec();
                goaway.extend_from_slice(&0u32.to_be_bytes());
                io.write_all(&frame(GOAWAY, 0, 0, &goaway)).await.unwrap();
                // Read on until the client closes, so its frames have somewhere to go.
                let mut sink = Vec::new();
                let _ = io.read_to_end(&mut sink).await;
            },
        );
    }

    #[test]
    fn a_frame_larger_than_we_allow_ends_the_connection_with_one_line() {
        scripted(
            1,
            b"",
            |mut ch: Vec<Box<dyn Channel>>| async move {
                let err = ch[0].exchange(false).await.unwrap_err().to_string();
                assert!(err.contains("FRAME_SIZE_ERROR"), "{err}");
            },
            |mut io: DuplexStream| async move {
                let (id, ..) = next_request(&mut io, true).await;
                io.write_all(&frame(DATA, 0, id, &vec![0; MAX_FRAME + 1])).await.unwrap();
                let mut sink = Vec::new();
                let _ = io.read_to_end(&mut sink).await;
            },
        );
    }
}
