//! One HTTP/2 connection: the state its channels and its task share (`Shared`), and the task that
//! owns the socket (`Connection`): writes what channels queued, reads and dispatches frames.

use std::cell::{Cell, RefCell};
use std::future::poll_fn;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use bytes::{Buf, Bytes};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::frame::{
    cancel, frame_head, header_frames, u32_at, unpad, window_update, ACK, CONTINUATION, DATA, END_HEADERS, END_STREAM,
    GOAWAY, HEADERS, PING, PRIORITY, PUSH_PROMISE, RST_STREAM, SETTINGS, WINDOW_UPDATE,
};
use super::hpack::{decoder, integer, HeaderBlocks, Hpack, TABLE};
use crate::drivers::messages::Deframer;

pub(super) const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Our receive windows (connection and streams).
const WINDOW: u32 = (1 << 30) - 1;
/// RFC 9113's initial window and frame size, until the server's SETTINGS say otherwise.
const DEFAULT_WINDOW: i64 = 65_535;
const DEFAULT_FRAME: usize = 16_384;
/// The largest frame we accept: we never raise SETTINGS_MAX_FRAME_SIZE.
pub(super) const MAX_FRAME: usize = 16_384;
const READ_BUFFER: usize = 64 * 1024;

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
pub(super) fn start<S: AsyncRead + AsyncWrite + Unpin + 'static>(
    io: S,
    blocks: HeaderBlocks,
    channels: usize,
) -> Rc<Shared> {
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
                    let mut next = false;
                    // A gRPC answer is read as messages once its headers said 200; any other
                    // answer is a body to count (the driver reports the status).
                    match &mut s.grpc {
                        Some(call) if s.status == 200 => {
                            if let Err(e) = call.got.feed(data) {
                                cancel(&mut st.out, id);
                                st.finish(at, Some(e.to_string()));
                                completed = true;
                                continue;
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
                            s.body_len += data.len() as u64;
                            if let Some(body) = &mut s.body {
                                body.extend_from_slice(data);
                            }
                        }
                    }
                    if flags & END_STREAM != 0 {
                        st.answered(at);
                        completed = true;
                    } else {
                        s.unacked += len as u32;
                        if s.unacked >= WINDOW / 2 {
                            let n = std::mem::take(&mut s.unacked);
                            window_update(&mut st.out, id, n);
                        }
                        if next {
                            st.pump();
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
