//! gRPC over HTTP/2, on the HTTP/2 driver's client (`super::http2`): h2c with prior knowledge,
//! or TLS with ALPN h2. A call is a POST of length-prefixed messages (`super::messages`)
//! answered by messages and trailers with `grpc-status`.
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
use bytes::Bytes;

use super::http2::{Call as Stream, Send, Slot};
pub use super::messages::{frame, Deframer};
use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::Counters;
use wirebench_core::runner::Target;

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
        // write per message (the connection cuts DATA frames by size either way), without a
        // DATA frame per 1 KB message in the instrument.
        let upload = match params.call {
            Call::ClientStream => Bytes::from(message.repeat(params.messages as usize)),
            _ => message.clone(),
        };
        Ok(super::http2::open(target, &grpc_request(request), streams, counters)
            .await?
            .into_iter()
            .map(|slot| {
                Box::new(GrpcCall { slot, message: message.clone(), upload: upload.clone(), params })
                    as Box<dyn Channel>
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

struct GrpcCall {
    slot: Slot,
    /// The request message, framed once.
    message: Bytes,
    /// What a call sends before reading: every message of a client stream, else one.
    upload: Bytes,
    params: Params,
}

#[async_trait(?Send)]
impl Channel for GrpcCall {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let n = self.params.messages;
        // Everything a client sends goes first, except bidi's later messages, which the
        // connection sends as the echo of the one before arrives.
        let bidi = self.params.call == Call::Bidi && n > 1;
        let send = Send {
            body: self.upload.clone(),
            keep_body: false,
            hold_open: bidi,
            grpc: Some(Stream::new(Deframer::new(keep_body), self.message.clone(), if bidi { n } else { 1 })),
        };
        let answer = self.slot.exchange(send).await?;
        if answer.status != 200 {
            return Err(LoadError::Protocol(format!("HTTP status {}, expected 200 for a gRPC call", answer.status)));
        }
        let call = answer.grpc.expect("a gRPC exchange keeps its call");
        call.got.finish()?;
        // A call that fails before any message answers with headers only ("Trailers-Only").
        let status = call
            .status
            .ok_or_else(|| LoadError::Protocol("the gRPC call ended without grpc-status".into()))?
            .map_err(|v| LoadError::Protocol(format!("grpc-status {v:?} is not a number")))?;
        let messages = if self.params.call == Call::ClientStream { n } else { call.got.messages };
        // Calls whose answer is a stream have a time to first message.
        let first_at = call.got.first_at.filter(|_| matches!(self.params.call, Call::ServerStream | Call::Bidi));
        Ok(Reply { status, body_len: call.got.bytes, messages, body: call.got.body, first_at })
    }
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
