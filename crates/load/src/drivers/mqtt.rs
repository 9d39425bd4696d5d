//! MQTT 3.1.1 request/response through a broker, as the study ran it: each connection is one
//! client that subscribes to `bench/response/<client>` and, per exchange, publishes the
//! scenario's body on `bench/request/qos<N>/<client>`; a responder behind the broker publishes it back
//! on the response topic. The round trip is timed here, at the client; the echo is compared with
//! what was sent, byte for byte, on every exchange.
//!
//! The client is lean rather than rumqttc's event loop: packets are encoded and decoded with
//! rumqttc's own codec (`rumqttc::mqttbytes::v4`) over the instrument's counted socket, one
//! exchange at a time, so no task, channel or queue sits between the worker and the socket
//! and the bytes crossing it are counted like every other driver's.
//!
//! The client acknowledges what it reads at once (`TCP_QUICKACK`, re-armed after every read):
//! rumqttd 0.20 leaves Nagle's algorithm on for its sockets, so its second small write to a
//! client (the echo, after the PUBACK) would otherwise wait for the client's delayed ACK, about
//! 40 ms, on every QoS 1 round trip, and the row would measure a timer. (Mosquitto is told
//! `set_tcp_nodelay true` by its generated config.)
//!
//! Parameters (the scenario's `params`): `qos`, 0 or 1 (default 1, the study's `AtLeastOnce`).
//! At QoS 1 an exchange ends when both the broker's PUBACK and the echo have arrived, and the
//! echo is acknowledged. A reply's `status` is the CONNACK's return code (0: accepted); a broker
//! that closes the connection, or answers with anything else, is an error.

use std::collections::BTreeMap;
use std::rc::Rc;

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use rumqttc::mqttbytes::v4::{Connect, Packet, PubAck, Publish, Subscribe, SubscribeReasonCode};
use rumqttc::mqttbytes::{Error as CodecError, QoS};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::driver::{Channel, Driver, Reply, RequestSpec};
use crate::error::LoadError;
use crate::io::{Counted, Counters};
use wirebench_core::runner::Target;

/// The largest packet accepted from the broker (a 1 MB echo and then some).
const MAX_PACKET: usize = 16 << 20;
/// Seconds of the keep-alive the client announces: longer than any phase of a load, so no
/// PINGREQ is ever due (rumqttd refuses 0).
const KEEP_ALIVE_S: u16 = 600;

/// Client numbers in use by this process. A broker wants client ids unique among the clients
/// connected at once, and keeps state per topic for every client it has seen (rumqttd a log per
/// subscription): so a connection takes the smallest free number and gives it back when it
/// closes, and run after run reuses the same few ids and topics.
static CLIENTS: std::sync::Mutex<std::collections::BTreeSet<u64>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// A client number held by one connection.
struct ClientId(u64);

impl ClientId {
    fn take() -> ClientId {
        let mut used = CLIENTS.lock().unwrap_or_else(|e| e.into_inner());
        let n = (0..).find(|n| !used.contains(n)).expect("a free number");
        used.insert(n);
        ClientId(n)
    }

    fn name(&self) -> String {
        format!("wirebench-{}-{}", std::process::id(), self.0)
    }
}

impl Drop for ClientId {
    fn drop(&mut self) {
        CLIENTS.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.0);
    }
}

pub struct Mqtt;

pub fn new() -> Box<dyn Driver> {
    Box::new(Mqtt)
}

/// Reads `qos`; anything else, or another value, is an error.
pub fn qos_param(params: &BTreeMap<String, serde_json::Value>) -> Result<QoS, LoadError> {
    let bad = |m: String| LoadError::Unsupported(format!("mqtt driver: {m}"));
    if let Some(k) = params.keys().find(|k| k.as_str() != "qos") {
        return Err(bad(format!("unknown parameter `{k}`; known: qos")));
    }
    match params.get("qos").map(|v| v.as_u64()) {
        None | Some(Some(1)) => Ok(QoS::AtLeastOnce),
        Some(Some(0)) => Ok(QoS::AtMostOnce),
        Some(_) => Err(bad(format!("qos must be 0 or 1, not {}", params["qos"]))),
    }
}

#[async_trait(?Send)]
impl Driver for Mqtt {
    async fn connect(
        &self,
        target: &Target,
        request: &Rc<RequestSpec>,
        // One: the registry's `max_streams`, checked before any connection.
        _streams: u32,
        counters: &Rc<Counters>,
    ) -> Result<Vec<Box<dyn Channel>>, LoadError> {
        let qos = qos_param(&request.params)?;
        if target.tls {
            return Err(LoadError::Unsupported("mqtt driver: TLS (mqtts) is not supported; use tls = false".into()));
        }
        let io = crate::io::connect(target, counters).await?;
        quick_ack(io.get_ref());
        Ok(vec![Box::new(Session::open(io, qos, request.body.clone()).await?)])
    }
}

struct Session {
    io: Counted<tokio::net::TcpStream>,
    /// Held while the connection lives.
    _client: ClientId,
    read: BytesMut,
    write: BytesMut,
    qos: QoS,
    request_topic: String,
    response_topic: String,
    payload: Bytes,
    /// The packet id of the next QoS 1 publish (never 0).
    pkid: u16,
    /// The CONNACK's return code, every reply's status.
    status: u16,
}

fn codec(e: CodecError) -> LoadError {
    LoadError::Protocol(format!("MQTT: {e}"))
}

impl Session {
    async fn open(io: Counted<tokio::net::TcpStream>, qos: QoS, payload: Bytes) -> Result<Session, LoadError> {
        let client = ClientId::take();
        let id = client.name();
        let mut s = Session {
            io,
            _client: client,
            read: BytesMut::with_capacity(64 << 10),
            write: BytesMut::with_capacity(64 << 10),
            qos,
            // The QoS level is in the topic, so the responder can subscribe to each level at that
            // level and every leg through the broker carries the row's QoS (`protocols-mqtt`).
            request_topic: format!("bench/request/qos{}/{id}", qos as u8),
            response_topic: format!("bench/response/{id}"),
            payload,
            pkid: 0,
            status: 0,
        };
        let mut connect = Connect::new(id);
        connect.keep_alive = KEEP_ALIVE_S;
        s.send(Packet::Connect(connect)).await?;
        match s.next_packet().await? {
            Packet::ConnAck(ack) => {
                s.status = ack.code as u16;
                if s.status != 0 {
                    return Err(LoadError::Protocol(format!(
                        "MQTT: the broker refused the connection: {:?}",
                        ack.code
                    )));
                }
            }
            other => return Err(unexpected("CONNACK", &other)),
        }
        let pkid = s.next_pkid();
        let mut subscribe = Subscribe::new(s.response_topic.clone(), qos);
        subscribe.pkid = pkid;
        s.send(Packet::Subscribe(subscribe)).await?;
        match s.next_packet().await? {
            Packet::SubAck(ack) if ack.pkid == pkid => {
                if ack.return_codes.iter().any(|c| matches!(c, SubscribeReasonCode::Failure)) {
                    return Err(LoadError::Protocol("MQTT: the broker refused the subscription".into()));
                }
            }
            other => return Err(unexpected("SUBACK", &other)),
        }
        Ok(s)
    }

    fn next_pkid(&mut self) -> u16 {
        self.pkid = self.pkid.checked_add(1).unwrap_or(1);
        self.pkid
    }

    async fn send(&mut self, packet: Packet) -> Result<(), LoadError> {
        self.write.clear();
        packet.write(&mut self.write, usize::MAX).map_err(codec)?;
        self.io.write_all(&self.write).await.map_err(LoadError::Io)
    }

    /// The next whole packet from the broker, reading as much as it needs.
    async fn next_packet(&mut self) -> Result<Packet, LoadError> {
        loop {
            match Packet::read(&mut self.read, MAX_PACKET) {
                Ok(packet) => return Ok(packet),
                Err(CodecError::InsufficientBytes(n)) => {
                    self.read.reserve(n);
                    let read = self.io.read_buf(&mut self.read).await.map_err(LoadError::Io)?;
                    if read == 0 {
                        return Err(LoadError::Protocol("MQTT: the broker closed the connection".into()));
                    }
                    quick_ack(self.io.get_ref());
                }
                Err(e) => return Err(codec(e)),
            }
        }
    }
}

/// Asks the kernel to ACK what arrives at once rather than after the delayed-ACK timer; Linux
/// falls back to delayed ACKs on its own, so this is re-armed after each read.
fn quick_ack(socket: &tokio::net::TcpStream) {
    let _ = socket2::SockRef::from(socket).set_tcp_quickack(true);
}

fn unexpected(wanted: &str, got: &Packet) -> LoadError {
    let name = format!("{got:?}");
    let name = name.split(['(', ' ', '{']).next().unwrap_or_default();
    LoadError::Protocol(format!("MQTT: expected {wanted}, the broker sent {name}"))
}

#[async_trait(?Send)]
impl Channel for Session {
    async fn exchange(&mut self, keep_body: bool) -> Result<Reply, LoadError> {
        let mut publish = Publish::from_bytes(self.request_topic.clone(), self.qos, self.payload.clone());
        let mut acked = self.qos == QoS::AtMostOnce;
        if !acked {
            publish.pkid = self.next_pkid();
        }
        let pkid = publish.pkid;
        self.send(Packet::Publish(publish)).await?;
        let mut echo = None;
        while echo.is_none() || !acked {
            match self.next_packet().await? {
                Packet::PubAck(ack) if ack.pkid == pkid => acked = true,
                Packet::Publish(p) if p.topic == self.response_topic => {
                    if p.qos == QoS::AtLeastOnce {
                        self.send(Packet::PubAck(PubAck::new(p.pkid))).await?;
                    }
                    echo = Some(p.payload);
                }
                Packet::PingResp | Packet::PubAck(_) => {}
                other => return Err(unexpected("PUBACK or PUBLISH", &other)),
            }
        }
        let echo = echo.unwrap_or_default();
        if echo != self.payload {
            return Err(LoadError::Protocol(format!(
                "MQTT: the echo ({} bytes) differs from the request ({} bytes)",
                echo.len(),
                self.payload.len()
            )));
        }
        Ok(Reply {
            status: self.status,
            body_len: echo.len() as u64,
            messages: 1,
            first_at: None,
            body: keep_body.then(|| echo.to_vec()),
        })
    }

    /// DISCONNECT, then wait for the broker to close (MQTT 3.1.1 §3.14: it closes after a
    /// DISCONNECT) before the client id is given back. rumqttd frees its connection's slot when
    /// it reads the DISCONNECT, and its network task may report the closed socket for that slot
    /// later: a new connection given the slot in between is closed by it. A test's next
    /// verification, same client id at once, failed that way ("the broker closed the
    /// connection") once in three `make test` runs and no time in 17 runs of its file alone.
    /// rumqttd sends that report before it closes the socket, so waiting for the close orders
    /// it before our next CONNECT.
    async fn close(&mut self) -> Result<(), LoadError> {
        self.send(Packet::Disconnect).await?;
        self.io.shutdown().await.map_err(LoadError::Io)?;
        let mut rest = [0u8; 4096];
        loop {
            match self.io.read(&mut rest).await {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return Ok(()),
                Err(e) => return Err(LoadError::Io(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qos_defaults_to_one_and_bad_params_are_refused() {
        let params = |json: &str| qos_param(&serde_json::from_str(json).unwrap());
        assert_eq!(params("{}").unwrap(), QoS::AtLeastOnce);
        assert_eq!(params(r#"{"qos":0}"#).unwrap(), QoS::AtMostOnce);
        for (bad, says) in
            [(r#"{"qos":2}"#, "qos must be 0 or 1, not 2"), (r#"{"frames":1}"#, "unknown parameter `frames`")]
        {
            let e = params(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn client_ids_differ_while_held_and_are_reused_after() {
        let (a, b) = (ClientId::take(), ClientId::take());
        assert_ne!(a.name(), b.name());
        let freed = a.0;
        drop(a);
        assert_eq!(ClientId::take().0, freed);
    }
}
