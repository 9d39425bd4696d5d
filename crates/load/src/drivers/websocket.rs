//! WebSocket (RFC 6455) with tokio-tungstenite: `ws://` over TCP or `wss://` over TLS (ALPN
//! `http/1.1`). Each connection is one upgraded session carrying one exchange at a time: the
//! scenario's body goes out as one frame (the request: text when it is UTF-8, else binary), and
//! `frames` data frames come back
//! (default 1), each counted and, when verifying, kept. At the end of the load the session ends
//! with a close handshake.
//!
//! Parameters (the scenario's `params`): `frames`, the data frames one request is answered with.
//! A reply's `status` is 101, the upgrade's (a failure after it is an error, not a status); its
//! body is the frames' payloads; its `messages` the frames received.

use std::collections::BTreeMap;
use std::rc::Rc;

use async_trait::async_trait;
use futures_util::{SinkExt as _, StreamExt as _};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::WebSocketStream;

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
        let message = match Utf8Bytes::try_from(request.body.clone()) {
            Ok(text) => Message::Text(text),
            Err(_) => Message::Binary(request.body.clone()),
        };
        let scheme = if target.tls { "wss" } else { "ws" };
        let mut handshake = format!("{scheme}://{}{}", request.authority, request.path)
            .into_client_request()
            .map_err(|e| LoadError::Protocol(format!("bad WebSocket request: {e}")))?;
        for (k, v) in &request.headers {
            let name = http::HeaderName::from_bytes(k.as_bytes()).map_err(|e| LoadError::Protocol(e.to_string()))?;
            let value = http::HeaderValue::from_str(v).map_err(|e| LoadError::Protocol(e.to_string()))?;
            handshake.headers_mut().append(name, value);
        }
        let io = crate::io::connect(target, counters).await?;
        Ok(vec![if target.tls {
            // rustls reads the socket in large pieces (decision 0027).
            let tls = tls::handshake(target, read_ahead(io), ALPN).await?;
            Box::new(Session::open(handshake, tls, message, frames).await?)
        } else {
            Box::new(Session::open(handshake, io, message, frames).await?)
        }])
    }
}

struct Session<S> {
    ws: WebSocketStream<S>,
    request: Message,
    frames: u64,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Session<S> {
    async fn open(handshake: http::Request<()>, io: S, request: Message, frames: u64) -> Result<Session<S>, LoadError> {
        // Answers may be large (1 MB frames); the limits guard against a runaway server only.
        let config = WebSocketConfig::default().max_message_size(Some(1 << 30)).max_frame_size(Some(1 << 30));
        let (ws, _) = tokio_tungstenite::client_async_with_config(handshake, io, Some(config))
            .await
            .map_err(|e| LoadError::Protocol(format!("WebSocket handshake: {e}")))?;
        Ok(Session { ws, request, frames })
    }
}

fn ws_error(e: tokio_tungstenite::tungstenite::Error) -> LoadError {
    LoadError::Protocol(format!("WebSocket: {e}"))
}

#[async_trait(?Send)]
impl<S: AsyncRead + AsyncWrite + Unpin> Channel for Session<S> {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        self.ws.send(self.request.clone()).await.map_err(ws_error)?;
        let mut reply = Reply { status: SWITCHING_PROTOCOLS, body: keep_body.then(Vec::new), ..Reply::default() };
        while reply.messages < self.frames {
            let data = match self.ws.next().await {
                Some(Ok(Message::Text(t))) => t.into(),
                Some(Ok(Message::Binary(b))) => b,
                Some(Ok(Message::Close(frame))) => {
                    let why = frame.map_or("no reason".into(), |f| format!("{} {}", u16::from(f.code), f.reason));
                    return Err(LoadError::Protocol(format!("the server closed the WebSocket: {why}")));
                }
                // Pings are answered by tungstenite on the next write.
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(ws_error(e)),
                None => return Err(LoadError::Protocol("the WebSocket connection ended".into())),
            };
            reply.messages += 1;
            if reply.messages == 1 && self.frames > 1 {
                reply.first_at = Some(std::time::Instant::now());
            }
            reply.body_len += data.len() as u64;
            if let Some(body) = &mut reply.body {
                body.extend_from_slice(&data);
            }
        }
        Ok(reply)
    }

    async fn close(&mut self) -> Result<(), LoadError> {
        self.ws.close(None).await.map_err(ws_error)?;
        // Read to the server's close frame, which ends the stream.
        while let Some(message) = self.ws.next().await {
            message.map_err(ws_error)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
