//! One HTTP/2 connection: the state its channels and its task share (`Shared`), and the task that
//! owns the socket (`Connection`): writes what channels queued, reads and dispatches frames.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use bytes::{Buf, Bytes};
use tokio::io::{AsyncBufRead, AsyncRead, AsyncWrite, ReadBuf};

use super::frame::{
    cancel, frame_head, header_frames, u32_at, unpad, window_update, ACK, CONTINUATION, DATA, END_HEADERS, END_STREAM,
    GOAWAY, HEADERS, PADDED, PING, PRIORITY, PUSH_PROMISE, RST_STREAM, SETTINGS, WINDOW_UPDATE,
};
use super::hpack::{decoder, integer, HeaderBlocks, Hpack, TABLE};
use crate::drivers::messages::Deframer;

pub(super) const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Our receive windows (connection and streams). The tests' is one a few frames cross, so they see
/// the WINDOW_UPDATEs this one sends after 512 MiB.
#[cfg(not(test))]
const WINDOW: u32 = (1 << 30) - 1;
#[cfg(test)]
pub(super) const WINDOW: u32 = (1 << 17) - 1;
/// RFC 9113's initial window and frame size, until the server's SETTINGS say otherwise.
const DEFAULT_WINDOW: i64 = 65_535;
const DEFAULT_FRAME: usize = 16_384;
/// The largest frame we accept: we never raise SETTINGS_MAX_FRAME_SIZE.
pub(super) const MAX_FRAME: usize = 16_384;
const READ_BUFFER: usize = 64 * 1024;

/// What a connection reads from. Over TLS, rustls holds each record's plaintext in a buffer of its
/// own; copying it into the frame buffer was 13 % of the client's CPU at 1 MB (ARCHITECTURE, "TLS
/// at 1 MB"), so a source that `LENDS` hands that plaintext over in place: DATA payloads are
/// counted where they lie, and only frame headers and other frames are copied.
pub(crate) trait Source: AsyncRead + AsyncWrite + Unpin {
    const LENDS: bool = false;

    /// The bytes the source holds, reading more when it holds none (empty at the end).
    fn poll_lend(&mut self, _cx: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        Poll::Ready(Err(std::io::ErrorKind::Unsupported.into()))
    }

    /// `n` of the lent bytes are read.
    fn consume(&mut self, _n: usize) {}
}

impl Source for crate::io::Counted<tokio::net::TcpStream> {}

impl<IO: AsyncRead + AsyncWrite + Unpin> Source for tokio_rustls::client::TlsStream<IO> {
    const LENDS: bool = true;

    fn poll_lend(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        Pin::new(self).poll_fill_buf(cx)
    }

    fn consume(&mut self, n: usize) {
        Pin::new(self).consume(n)
    }
}

#[cfg(test)]
impl Source for tokio::io::DuplexStream {}

/// A pipe lent through a buffer of the test's size, as rustls lends a record's plaintext.
#[cfg(test)]
impl Source for tokio::io::BufStream<tokio::io::DuplexStream> {
    const LENDS: bool = true;

    fn poll_lend(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        Pin::new(self).poll_fill_buf(cx)
    }

    fn consume(&mut self, n: usize) {
        Pin::new(self).consume(n)
    }
}

/// A DATA frame whose payload is arriving: `left` of its `len` bytes still to come.
struct Data {
    id: u32,
    flags: u8,
    len: usize,
    left: usize,
}

/// What one channel's current exchange has got so far.
#[derive(Default)]
pub(super) struct Stream {
    /// The stream's id while the exchange is in flight, 0 when idle.
    pub(super) id: u32,
    pub(super) status: u16,
    /// Whether the answer's final (non-1xx) header block has come.
    pub(super) headers_done: bool,
    pub(super) body_len: u64,
    pub(super) body: Option<Vec<u8>>,
    pub(super) done: bool,
    pub(super) error: Option<String>,
    pub(super) waker: Option<Waker>,
    /// The server's window for this stream (our request body).
    pub(super) send_window: i64,
    /// Request body not yet sent (waiting for window).
    pub(super) pending: Bytes,
    /// Bytes received on this stream not yet given back with WINDOW_UPDATE.
    pub(super) unacked: u32,
    /// The request's last DATA frame leaves the stream open: more is sent later (a bidi call).
    pub(super) hold_open: bool,
    /// A gRPC call: its answer is read as messages.
    pub(super) grpc: Option<Call>,
}

/// A gRPC call on a stream: the answer's messages and `grpc-status`, and what a bidi call sends
/// after each echo. The connection's task sends a bidi call's next message when the echo of
/// the last one is read, without waking the channel: ping-pong at the cost of a frame.
#[derive(Debug)]
pub(crate) struct Call {
    pub(crate) got: Deframer,
    /// The trailers' (or a Trailers-Only answer's) `grpc-status`; the value when not a number.
    pub(crate) status: Option<Result<u16, String>>,
    /// The message a bidi call sends again, and how many it sends in all.
    again: Bytes,
    sent: u64,
    total: u64,
}

impl Call {
    /// A call that sends `total` messages: the request, then `again` after each echo (bidi).
    pub(crate) fn new(got: Deframer, again: Bytes, total: u64) -> Call {
        Call { got, status: None, again, sent: 1, total }
    }
}

/// The connection's state, shared by its channels and its task.
pub(super) struct State {
    /// Frames queued for the task to write.
    pub(super) out: Vec<u8>,
    task: Option<Waker>,
    pub(super) streams: Vec<Stream>,
    /// Streams in flight: (stream id, channel).
    pub(super) active: Vec<(u32, usize)>,
    pub(super) next_id: u32,
    pub(super) max_streams: u32,
    /// The server's initial stream window and our window on the connection.
    pub(super) initial_window: i64,
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
    pub(super) closed: Option<String>,
    /// Channels waiting for a stream slot.
    pub(super) waiting: Vec<Waker>,
}

pub(super) struct Shared {
    pub(super) state: RefCell<State>,
    /// Channels alive: the task ends (and closes the socket) when none is.
    pub(super) alive: Cell<usize>,
}

impl Shared {
    pub(super) fn wake_task(st: &mut State) {
        if let Some(w) = st.task.take() {
            w.wake();
        }
    }
}

impl State {
    /// Ends stream `at` of `active` (answered, reset or given up) and frees its slot.
    pub(super) fn finish(&mut self, at: usize, error: Option<String>) {
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

    /// Ends stream `at` of `active` with its answer complete. A request still being sent is
    /// cancelled (RFC 9113 §8.1: a server may answer before the request ends), so the stream is
    /// closed on both sides.
    fn answered(&mut self, at: usize) {
        let (id, slot) = self.active[at];
        let s = &self.streams[slot];
        if !s.pending.is_empty() || s.hold_open {
            cancel(&mut self.out, id);
        }
        self.finish(at, None);
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
    pub(super) fn pump(&mut self) {
        for &(id, slot) in &self.active {
            let s = &mut self.streams[slot];
            while !s.pending.is_empty() && self.conn_window > 0 && s.send_window > 0 {
                let n = s.pending.len().min(self.max_frame).min(self.conn_window as usize).min(s.send_window as usize);
                let last = n == s.pending.len() && !s.hold_open;
                frame_head(&mut self.out, n, DATA, if last { END_STREAM } else { 0 }, id);
                self.out.extend_from_slice(&s.pending[..n]);
                s.pending.advance(n);
                self.conn_window -= n as i64;
                s.send_window -= n as i64;
            }
        }
    }

    /// Queues the HEADERS (and CONTINUATION) frames of a new request on stream `id`.
    pub(super) fn headers(&mut self, id: u32, end_stream: bool) {
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

/// Starts a connection's task over `io` (preface and SETTINGS queued) for `channels` channels.
pub(super) fn start<S: Source + 'static>(io: S, blocks: HeaderBlocks, channels: usize) -> Rc<Shared> {
    let mut out = Vec::with_capacity(READ_BUFFER);
    out.extend_from_slice(PREFACE);
    // SETTINGS: ENABLE_PUSH 0, INITIAL_WINDOW_SIZE our WINDOW; then the connection's window.
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
        data: None,
        decoder: decoder(),
    };
    // Unconstrained like the worker loop (see `worker::thread_main`).
    tokio::task::spawn_local(tokio::task::unconstrained(async move { poll_fn(|cx| conn.poll(cx)).await }));
    shared
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
    /// An unpadded DATA frame counted as its payload arrives; none between frames.
    data: Option<Data>,
    decoder: Hpack,
}

impl<S: Source> Connection<S> {
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
            match if S::LENDS { self.lend(cx) } else { self.read(cx) } {
                Poll::Ready(Err(e)) => return self.fail(&e),
                // Answers came: let their channels run (they queue their next requests) before
                // this task writes, so one write carries them all.
                Poll::Ready(Ok(true)) => {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Ready(Ok(false)) => progress = true,
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

    /// Reads what the socket has into the frame buffer and handles its frames; true when an
    /// exchange completed.
    fn read(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool, String>> {
        // A socket read fills whatever room is left: the tail moves only when there is none.
        make_room(&mut self.rbuf, &mut self.start, &mut self.end, 1);
        let mut read = ReadBuf::new(&mut self.rbuf[self.end..]);
        match Pin::new(&mut self.io).poll_read(cx, &mut read) {
            Poll::Ready(Ok(())) if read.filled().is_empty() => {
                Poll::Ready(Err("the server closed the connection".into()))
            }
            Poll::Ready(Ok(())) => {
                self.end += read.filled().len();
                Poll::Ready(self.frames())
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(format!("read: {e}"))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// `read` for a source that lends: a DATA payload is counted where it lies, and only the
    /// frames before it (and its header) are copied into the frame buffer, as many as the lent
    /// bytes hold whole, so one `frames` call reads them. Everything lent is handled before it
    /// returns: going back to `poll` for each frame cost 1.27× the CPU per request at 1 KB.
    fn lend(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool, String>> {
        let mut completed = false;
        loop {
            let lent = match self.io.poll_lend(cx) {
                Poll::Ready(Ok([])) => return Poll::Ready(Err("the server closed the connection".into())),
                Poll::Ready(Ok(lent)) => lent,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(format!("read: {e}"))),
                Poll::Pending if completed => return Poll::Ready(Ok(true)),
                Poll::Pending => return Poll::Pending,
            };
            if self.data.is_some() {
                // `frames` left the frame buffer empty: it streams a payload until it has no more.
                let (n, done) = stream(&mut self.data, &mut self.shared.state.borrow_mut(), lent);
                completed |= done;
                self.io.consume(n);
                continue;
            }
            // `wanted` copies at most the rest of one frame, or whole frames: a frame's room is enough.
            make_room(&mut self.rbuf, &mut self.start, &mut self.end, 9 + MAX_FRAME);
            let n = wanted(&self.rbuf[self.start..self.end], lent).min(lent.len()).min(self.rbuf.len() - self.end);
            self.rbuf[self.end..self.end + n].copy_from_slice(&lent[..n]);
            self.io.consume(n);
            self.end += n;
            completed |= self.frames()?;
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
        loop {
            if self.data.is_some() {
                let (n, done) = stream(&mut self.data, st, &self.rbuf[self.start..self.end]);
                if n == 0 {
                    break;
                }
                completed |= done;
                self.start += n;
                continue;
            }
            if self.end - self.start < 9 {
                break;
            }
            let h = &self.rbuf[self.start..self.start + 9];
            let len = u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize;
            let (kind, flags) = (h[3], h[4]);
            let id = u32_at(h, 5) & 0x7fff_ffff;
            if len > MAX_FRAME {
                return Err(format!("FRAME_SIZE_ERROR: a {len}-byte frame (type {kind})"));
            }
            if self.block_stream != 0 && (kind != CONTINUATION || id != self.block_stream) {
                return Err(format!("PROTOCOL_ERROR: a type-{kind} frame inside a header block"));
            }
            if self.end - self.start < 9 + len {
                if kind == DATA && flags & PADDED == 0 {
                    // Its payload is counted as it arrives (padding is read with the whole frame).
                    self.start += 9;
                    self.data = Some(Data { id, flags, len, left: len });
                    continue;
                }
                break;
            }
            let at = self.start + 9;
            self.start = at + len;
            let payload = &self.rbuf[at..at + len];
            match kind {
                DATA => completed |= data(st, id, unpad(payload, flags)?, Some((len, flags))),
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
                    let found = decoded.map_err(|e| format!("COMPRESSION_ERROR: {e}"))?;
                    let Some(at) = st.active.iter().position(|&(sid, _)| sid == id) else { continue };
                    let s = &mut st.streams[st.active[at].1];
                    if !s.headers_done {
                        match found.status {
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
                    if let (Some(call), Some(status)) = (&mut s.grpc, found.grpc) {
                        call.status = Some(status);
                    }
                    if self.block_end_stream {
                        st.answered(at);
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

/// Leaves at least `need` bytes free after the unread `start..end` of the frame buffer `rbuf`,
/// moving them to the front when fewer are (they are less than a frame, at most 9 + 16,384 bytes,
/// so after the move there is room). A field-wise function: `lend` calls it while its source
/// lends.
fn make_room(rbuf: &mut [u8], start: &mut usize, end: &mut usize, need: usize) {
    if *start == *end {
        (*start, *end) = (0, 0);
    } else if rbuf.len() - *end < need {
        rbuf.copy_within(*start..*end, 0);
        (*start, *end) = (0, *end - *start);
    }
}

/// Counts what `avail` holds of the payload `streaming` is reading, from the frame buffer or where
/// the source lends it, and ends the frame at its last byte: the bytes taken, and whether an
/// exchange completed.
fn stream(streaming: &mut Option<Data>, st: &mut State, avail: &[u8]) -> (usize, bool) {
    let Some(d) = streaming else { return (0, false) };
    let n = d.left.min(avail.len());
    d.left -= n;
    let (id, last) = (d.id, (d.left == 0).then_some((d.len, d.flags)));
    if last.is_some() {
        *streaming = None;
    }
    (n, data(st, id, &avail[..n], last))
}

/// A piece of the payload of a DATA frame on stream `id`, padding left out; `last` is the frame's
/// `(len, flags)` when the piece ends it, when its flow control and END_STREAM are read. True
/// when an exchange completed.
fn data(st: &mut State, id: u32, piece: &[u8], last: Option<(usize, u8)>) -> bool {
    if let Some((len, _)) = last {
        st.unacked += len as u32;
        if st.unacked >= WINDOW / 2 {
            let n = std::mem::take(&mut st.unacked);
            window_update(&mut st.out, 0, n);
        }
    }
    let Some(at) = st.active.iter().position(|&(sid, _)| sid == id) else { return false };
    let slot = st.active[at].1;
    let s = &mut st.streams[slot];
    let mut next = false;
    // A gRPC answer is read as messages once its headers said 200; any other answer is a body
    // to count (the driver reports the status).
    match &mut s.grpc {
        Some(call) if s.status == 200 => {
            if let Err(e) = call.got.feed(piece) {
                cancel(&mut st.out, id);
                st.finish(at, Some(e.to_string()));
                return true;
            }
            if call.sent < call.total && call.got.messages >= call.sent {
                call.sent += 1;
                s.hold_open = call.sent < call.total;
                s.pending = if s.pending.is_empty() {
                    call.again.clone()
                } else {
                    // Echoes ahead of what was sent: queue behind it.
                    [&s.pending[..], &call.again[..]].concat().into()
                };
                next = true;
            }
        }
        _ => {
            s.body_len += piece.len() as u64;
            if let Some(body) = &mut s.body {
                body.extend_from_slice(piece);
            }
        }
    }
    if let Some((len, flags)) = last {
        if flags & END_STREAM != 0 {
            st.answered(at);
            return true;
        }
        s.unacked += len as u32;
        if s.unacked >= WINDOW / 2 {
            let n = std::mem::take(&mut s.unacked);
            window_update(&mut st.out, id, n);
        }
    }
    if next {
        st.pump();
    }
    false
}

/// How many of `lent`'s bytes a frame buffer holding `held` copies: what its next frame lacks
/// (its header first), then the frames whole in `lent` after it, up to and with the next unpadded
/// DATA frame's header, whose payload is counted in place. A frame over MAX_FRAME ends the copy
/// at its header, which `frames` refuses.
fn wanted(held: &[u8], lent: &[u8]) -> usize {
    let head = |h: &[u8]| (u32::from_be_bytes([0, h[0], h[1], h[2]]) as usize, h[3], h[4]);
    let stops = |kind: u8, flags: u8, len: usize| kind == DATA && flags & PADDED == 0 || len > MAX_FRAME;
    if held.len() >= 9 {
        let (len, _, _) = head(held);
        return 9 + len.min(MAX_FRAME) - held.len();
    }
    let mut at = 9 - held.len();
    if at > lent.len() {
        return at;
    }
    let mut h = [0u8; 9];
    h[..held.len()].copy_from_slice(held);
    h[held.len()..].copy_from_slice(&lent[..at]);
    let (len, kind, flags) = head(&h);
    if stops(kind, flags, len) {
        return at;
    }
    at += len;
    while at + 9 <= lent.len() {
        let (len, kind, flags) = head(&lent[at..]);
        if stops(kind, flags, len) {
            return at + 9;
        }
        if at + 9 + len > lent.len() {
            break;
        }
        at += 9 + len;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame header: `len` bytes of payload of `kind` with `flags` on stream 1.
    fn head(len: usize, kind: u8, flags: u8) -> Vec<u8> {
        let mut h = (len as u32).to_be_bytes()[1..].to_vec();
        h.extend_from_slice(&[kind, flags, 0, 0, 0, 1]);
        h
    }

    /// `head` followed by its payload.
    fn whole(len: usize, kind: u8, flags: u8) -> Vec<u8> {
        let mut f = head(len, kind, flags);
        f.resize(9 + len, 0);
        f
    }

    #[test]
    fn wanted_copies_whole_frames_up_to_an_unpadded_data_header() {
        let (ping, settings) = (whole(8, PING, 0), whole(12, SETTINGS, 0));
        let data = [head(1000, DATA, 0), vec![0; 100]].concat();
        // Nothing held: the frames whole, then DATA's header and not its payload.
        assert_eq!(wanted(&[], &[&ping[..], &settings, &data].concat()), 17 + 21 + 9);
        // The first frame is DATA: its header alone.
        assert_eq!(wanted(&[], &data), 9);
        // A padded DATA frame is copied whole (its padding is read with the frame).
        assert_eq!(wanted(&[], &[whole(20, DATA, PADDED), data.clone()].concat()), 29 + 9);
        // A frame the lent bytes end inside is left for the next lend, header and all...
        assert_eq!(wanted(&[], &[&ping[..], &settings[..15]].concat()), 17);
        // ...unless it is the first: what its header says it lacks (the caller takes what is lent).
        assert_eq!(wanted(&[], &settings[..15]), 21);
        assert_eq!(wanted(&[], &settings[..5]), 9);
    }

    #[test]
    fn wanted_completes_what_the_frame_buffer_holds_first() {
        let (settings, ping) = (whole(12, SETTINGS, 0), whole(8, PING, 0));
        // Four bytes of a header held: its other five and its payload, then the frames after.
        let lent = [&settings[4..], &ping[..], &head(500, DATA, 0)].concat();
        assert_eq!(wanted(&settings[..4], &lent), 5 + 12 + 17 + 9);
        // A header and part of the payload held: the rest of that frame and no more.
        assert_eq!(wanted(&settings[..13], &[&settings[13..], &ping[..]].concat()), 8);
        // A held header over MAX_FRAME asks no more than a frame's room; `frames` refuses it.
        let big = head(MAX_FRAME + 1, HEADERS, 0);
        assert_eq!(wanted(&big, &[0; 64]), MAX_FRAME);
        // One over MAX_FRAME in the lent bytes ends the copy at its header.
        assert_eq!(wanted(&[], &[&ping[..], &big].concat()), 17 + 9);
        assert_eq!(wanted(&[], &big), 9);
    }
}
