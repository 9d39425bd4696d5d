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
//! - Answers' header blocks are decoded by `Hpack` (hpack.rs) (every block, trailers too, so the
//!   dynamic table stays in step), keeping only `:status`: a field is decoded only when it is
//!   `:status` or enters the table, Huffman strings by `httlib-huffman`'s table decoder. (With
//!   `loona-hpack`, which builds a hash map for each Huffman string it decodes, the client spent
//!   70 % of its CPU there and cost 3.3x h2load's CPU per request.)
//! - Frames are parsed in place from one read buffer; channels append their frames to one write
//!   buffer, which the connection's task writes once per wake-up.
//! - Flow control: our windows are opened wide (2^30 - 1, as h2load's default -w/-W 30) so 1 MB
//!   answers are not throttled; the server's windows are honoured for request bodies.

mod conn;
mod frame;
mod hpack;

use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use async_trait::async_trait;
use bytes::Bytes;

use crate::driver::{Channel, Driver, Reply, RequestSpec};
pub(crate) use crate::drivers::http2::conn::Call;
use crate::drivers::http2::conn::{start, Shared, Stream};
use crate::drivers::http2::frame::cancel;
use crate::drivers::http2::hpack::HeaderBlocks;
use crate::error::LoadError;
use crate::io::Counters;
use crate::tls;
use wirebench_core::runner::Target;

const ALPN: &[u8] = b"h2";

pub struct Http2;

pub fn new() -> Box<dyn Driver> {
    Box::new(Http2)
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
        Ok(open(target, request, streams, counters)
            .await?
            .into_iter()
            .map(|slot| Box::new(H2 { slot, body: request.body.clone() }) as Box<dyn Channel>)
            .collect())
    }
}

/// Opens one connection to `target` for `streams` channels, one slot each: h2c with prior
/// knowledge, or TLS with ALPN h2. Every exchange sends `request`'s header block.
pub(crate) async fn open(
    target: &Target,
    request: &RequestSpec,
    streams: u32,
    counters: &Rc<Counters>,
) -> Result<Vec<Slot>, LoadError> {
    let blocks = HeaderBlocks::of(request, target)?;
    let io = crate::io::connect(target, counters).await?;
    let shared = if target.tls {
        start(tls::handshake(target, crate::io::read_ahead(io), ALPN).await?, blocks, streams as usize)
    } else {
        start(io, blocks, streams as usize)
    };
    Ok((0..streams as usize).map(|slot| Slot { shared: shared.clone(), slot }).collect())
}

struct H2 {
    slot: Slot,
    body: Bytes,
}

#[async_trait(?Send)]
impl Channel for H2 {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let send = Send { body: self.body.clone(), keep_body, hold_open: false, grpc: None };
        let a = self.slot.exchange(send).await?;
        Ok(Reply { status: a.status, body_len: a.body_len, messages: 1, body: a.body, first_at: None })
    }
}

/// One channel's place on a connection: the stream it uses, one exchange at a time. The
/// connection's task ends (and closes the socket) when every slot is dropped.
pub(crate) struct Slot {
    shared: Rc<Shared>,
    slot: usize,
}

/// What an exchange sends and how its answer is read.
pub(crate) struct Send {
    pub(crate) body: Bytes,
    pub(crate) keep_body: bool,
    /// The body's last frame leaves the stream open: a gRPC bidi call sends more on echoes.
    pub(crate) hold_open: bool,
    /// A gRPC call: the answer is read as messages.
    pub(crate) grpc: Option<Call>,
}

/// An exchange's answer: its HTTP status, the body's bytes (or the gRPC call's state).
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body_len: u64,
    pub(crate) body: Option<Vec<u8>>,
    pub(crate) grpc: Option<Call>,
}

impl Drop for Slot {
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
            cancel(&mut st.out, id);
            st.finish(at, Some("cancelled".into()));
            Shared::wake_task(&mut st);
        }
    }
}

impl Slot {
    /// One request on a new stream, and its answer.
    pub(crate) async fn exchange(&self, send: Send) -> Result<Answer, LoadError> {
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
            let end_stream = send.body.is_empty() && !send.hold_open;
            st.streams[slot] = Stream {
                id,
                body: send.keep_body.then(Vec::new),
                send_window: window,
                pending: send.body,
                hold_open: send.hold_open,
                grpc: send.grpc,
                ..Stream::default()
            };
            st.active.push((id, slot));
            st.headers(id, end_stream);
            st.pump();
            Shared::wake_task(&mut st);
        }
        let mut in_flight = InFlight { shared, slot, answered: false };
        let answer = poll_fn(|cx| {
            let mut st = shared.state.borrow_mut();
            let s = &mut st.streams[slot];
            if s.done {
                return Poll::Ready(Ok(Answer {
                    status: s.status,
                    body_len: s.body_len,
                    body: s.body.take(),
                    grpc: s.grpc.take(),
                }));
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
        answer
    }
}

#[cfg(test)]
mod tests {
    //! The client against a server scripted frame by frame over an in-memory pipe: what the
    //! hyper server of `crate::tests` never sends (padding, CONTINUATION, 1xx answers, small
    //! windows, resets, GOAWAY).

    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    use super::conn::{MAX_FRAME, PREFACE};
    use super::frame::{
        frame_head, ACK, CONTINUATION, DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS, PADDED, PING, PRIORITY,
        RST_STREAM, SETTINGS, WINDOW_UPDATE,
    };
    use super::hpack::tests::{request, target};
    use super::*;

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

    /// Runs `client` against `server` over a pipe on one thread, as the load threads do: once
    /// read into the frame buffer, and lent 7 bytes at a time (frame headers split) and 64 KiB
    /// at a time (many frames at once), as rustls lends a record's plaintext.
    fn scripted<C, CF, S, SF>(streams: usize, body: &[u8], client: C, server: S)
    where
        C: Fn(Vec<Box<dyn Channel>>) -> CF,
        CF: std::future::Future<Output = ()>,
        S: Fn(DuplexStream) -> SF,
        SF: std::future::Future<Output = ()> + 'static,
    {
        for lend in [None, Some(7), Some(64 * 1024)] {
            scripted_lent(lend, streams, body, &client, &server)
        }
    }

    /// `scripted` with the client's side of the pipe lent `lend` bytes at a time (as rustls
    /// lends a record's plaintext), or read into the frame buffer.
    fn scripted_lent<C, CF, S, SF>(lend: Option<usize>, streams: usize, body: &[u8], client: C, server: S)
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
            let blocks = HeaderBlocks::of(&r, &target()).unwrap();
            let shared = match lend {
                Some(size) => start(tokio::io::BufStream::with_capacity(size, size, ours), blocks, streams),
                None => start(ours, blocks, streams),
            };
            let channels = (0..streams)
                .map(|slot| {
                    Box::new(H2 { slot: Slot { shared: shared.clone(), slot }, body: r.body.clone() })
                        as Box<dyn Channel>
                })
                .collect();
            client(channels).await;
            server.await.unwrap();
        });
    }

    /// A body of many DATA frames, one padded among them, reads the same byte for byte whether
    /// the client's source lends its bytes (7 at a time: a frame header split; 5,000: a payload
    /// in pieces; 40,000: several frames at once) or is read into the frame buffer; the second
    /// answer ends with an empty DATA frame after the body's last one streamed.
    #[test]
    fn a_body_reads_the_same_lent_in_pieces_or_read_whole() {
        let body: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        for lend in [None, Some(7), Some(5_000), Some(40_000)] {
            let (expect, sent) = (body.clone(), body.clone());
            scripted_lent(
                lend,
                1,
                b"",
                |mut ch: Vec<Box<dyn Channel>>| async move {
                    for _ in 0..2 {
                        let reply = ch[0].exchange(true).await.unwrap();
                        assert_eq!(reply.status, 200);
                        assert_eq!(reply.body_len, expect.len() as u64, "lent {lend:?}");
                        assert!(reply.body.as_deref() == Some(&expect[..]), "lent {lend:?}: the body differs");
                    }
                },
                |mut io: DuplexStream| async move {
                    let mut enc = loona_hpack::Encoder::new();
                    for preface in [true, false] {
                        let (id, _, _) = next_request(&mut io, preface).await;
                        let mut out = frame(HEADERS, END_HEADERS, id, &status_block(&mut enc, "200"));
                        let (mut at, mut n) = (0, 0);
                        while at < sent.len() {
                            let end = (at + MAX_FRAME).min(sent.len());
                            let flags = if end == sent.len() && preface { END_STREAM } else { 0 };
                            if n == 2 {
                                // 3 bytes of padding after 100 of the body.
                                let mut padded = vec![3u8];
                                padded.extend_from_slice(&sent[at..at + 100]);
                                padded.extend_from_slice(&[0, 0, 0]);
                                out.extend_from_slice(&frame(DATA, PADDED, id, &padded));
                                at += 100;
                            } else {
                                out.extend_from_slice(&frame(DATA, flags, id, &sent[at..end]));
                                at = end;
                            }
                            n += 1;
                        }
                        if !preface {
                            out.extend_from_slice(&frame(DATA, END_STREAM, id, b""));
                        }
                        io.write_all(&out).await.unwrap();
                    }
                    // Read on until the client closes: it gives back window as the body comes.
                    let mut sink = Vec::new();
                    let _ = io.read_to_end(&mut sink).await;
                },
            );
        }
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
                let ok = ch[0].exchange(true).await.unwrap();
                assert_eq!((ok.status, ok.body.as_deref()), (200, Some(&b"fine"[..])), "nothing of the reset stream's");
                let err = ch[0].exchange(false).await.unwrap_err().to_string();
                assert!(err.contains("GOAWAY"), "{err}");
                let err = ch[0].exchange(false).await.unwrap_err().to_string();
                assert!(err.contains("GOAWAY"), "a closed connection starts no stream: {err}");
            },
            |mut io: DuplexStream| async move {
                let (id, ..) = next_request(&mut io, true).await;
                io.write_all(&frame(RST_STREAM, 0, id, &2u32.to_be_bytes())).await.unwrap();
                let (next, ..) = next_request(&mut io, false).await;
                // DATA still coming on the reset stream (sent before the server saw a reset of
                // the client's, say) is read past, streamed when lent, and counts for nothing.
                let late = [frame(DATA, 0, id, &[1; MAX_FRAME]), frame(DATA, END_STREAM, id, &[2; 3000])].concat();
                io.write_all(&late).await.unwrap();
                let mut enc = loona_hpack::Encoder::new();
                let block = enc.encode([(&b":status"[..], &b"200"[..])]);
                io.write_all(&frame(HEADERS, END_HEADERS, next, &block)).await.unwrap();
                io.write_all(&frame(DATA, END_STREAM, next, b"fine")).await.unwrap();
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

    /// Flow control counts a DATA frame's whole payload, padding too (RFC 9113 §6.1): the client
    /// gives back what it received, on the connection and on the stream, once half its window is.
    #[test]
    fn window_updates_give_back_what_came_padding_and_all() {
        // Five padded frames of 16,000 bytes (15,744 of body) cross half the tests' window
        // (65,535) at the fifth; counted without their padding they would give back 78,720.
        assert_eq!(super::conn::WINDOW / 2, 65_535);
        let (frames, body, padding) = (5, 15_744, 255);
        scripted(
            1,
            b"",
            |mut ch: Vec<Box<dyn Channel>>| async move {
                let reply = ch[0].exchange(true).await.unwrap();
                assert_eq!(reply.body_len, frames * body as u64);
                assert!(reply.body.unwrap().iter().all(|&b| b == 9), "padding read as body");
            },
            |mut io: DuplexStream| async move {
                let (id, ..) = next_request(&mut io, true).await;
                let mut enc = loona_hpack::Encoder::new();
                let mut out = frame(HEADERS, END_HEADERS, id, &status_block(&mut enc, "200"));
                let padded = [vec![padding as u8], vec![9; body], vec![0; padding]].concat();
                assert_eq!(padded.len(), 16_000);
                for _ in 0..frames {
                    out.extend_from_slice(&frame(DATA, PADDED, id, &padded));
                }
                io.write_all(&out).await.unwrap();
                let (mut conn, mut stream) = (0, 0);
                while conn == 0 || stream == 0 {
                    let f = read_frame(&mut io).await;
                    if f.kind == WINDOW_UPDATE {
                        let n = u32::from_be_bytes(f.payload[..4].try_into().unwrap());
                        *if f.id == 0 { &mut conn } else { &mut stream } += n;
                    }
                }
                assert_eq!((conn, stream), (80_000, 80_000), "the frames' whole length given back");
                io.write_all(&frame(DATA, END_STREAM, id, b"")).await.unwrap();
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
