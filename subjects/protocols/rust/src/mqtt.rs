//! MQTT, as the study ran it: three parties. Clients publish a request at QoS N on
//! `bench/request/qos<N>/<client>`; this responder, subscribed to `bench/request/qos<N>/+` at QoS N
//! for N = 0 and 1, publishes the same payload back on `bench/response/<client>` at QoS N; a
//! broker sits between them. Subscribing to each level at that level keeps every leg at the row's
//! QoS with any broker: MQTT 3.1.1 [MQTT-3.8.4-6] delivers at min(published, granted), but rumqttd
//! 0.20 delivers at the granted QoS (an open upstream fix in bytebeamio/rumqtt), so one QoS 1
//! subscription made its "QoS 0" rows exchange PUBACKs between broker and responder.
//!
//! The broker is either another process (`protocols-mqtt --broker host:port`, Mosquitto started
//! by the runner as a service) or embedded: `protocols-rumqttd` (its own package,
//! subjects/protocols/rumqttd) runs rumqttd and this responder in one process. The responder is
//! the same TCP client in both cases (rumqttc's MQTT 3.1.1 codec on a socket of its own, see
//! `session`), so the two rows differ by the broker alone. `GET /health` on `--port` answers 200
//! once the responder's subscription is acknowledged, so the runner's readiness means "round
//! trips work".
//!
//! Bad input is the broker's to refuse: a malformed packet or a publish over the size limit
//! (`PACKET_MAX`, the same for both brokers) closes that client's connection only.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use bytes::Bytes;
use bytes::BytesMut;
use clap::Parser;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use hyper_util::rt::TokioIo;
use rumqttc::mqttbytes::v4::{Connect, ConnectReturnCode, Packet, PubAck, Publish, Subscribe, SubscribeFilter};
use rumqttc::mqttbytes::QoS;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use crate::cli::Cli;

/// The largest MQTT packet either broker accepts (a 1 MB payload and its headers fit); larger
/// publishes close the sender's connection. Mosquitto's generated config says the same.
pub const PACKET_MAX: usize = 2 << 20;
/// The responder's subscriptions: every client's request topic of each QoS level, at that level.
const REQUESTS: [(&str, QoS); 2] =
    [("bench/request/qos0/+", QoS::AtMostOnce), ("bench/request/qos1/+", QoS::AtLeastOnce)];
/// The responder's keep-alive; it pings every half of it.
const KEEP_ALIVE: Duration = Duration::from_secs(60);
/// Between attempts to reach a broker that is not up yet.
const RETRY: Duration = Duration::from_millis(50);

/// The MQTT subject's command line: the common one plus where the broker is.
#[derive(Debug, Parser)]
pub struct MqttCli {
    #[command(flatten)]
    pub common: Cli,

    /// The broker at HOST:PORT (Mosquitto; `protocols-rumqttd` embeds one instead).
    #[arg(long)]
    pub broker: String,
}

pub fn run(cli: &MqttCli) -> anyhow::Result<()> {
    let (host, port) = cli.broker.rsplit_once(':').context("--broker must be HOST:PORT")?;
    let port = port.parse().with_context(|| format!("--broker: bad port `{port}`"))?;
    serve(&cli.common, (host.to_string(), port))
}

/// Answers `GET /health` on the common flags' port and echoes every request through the broker
/// at `broker`, until the process is stopped.
pub fn serve(common: &Cli, broker: (String, u16)) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async {
        let health = crate::bind(&common.host, common.port).await?;
        let ready = Arc::new(AtomicBool::new(false));
        tokio::spawn(serve_health(health, ready.clone()));
        respond(broker, ready).await
    })
}

/// The request topics the responder subscribes to: a broker that keeps a log per topic filter
/// (rumqttd) sizes those filters' logs for every client's requests.
pub fn request_filters() -> [&'static str; 2] {
    REQUESTS.map(|(filter, _)| filter)
}

/// The response topic and QoS of a request topic: `bench/request/qos<N>/<c>` →
/// (`bench/response/<c>`, N).
pub fn response_topic(request: &str) -> Option<(String, QoS)> {
    let rest = request.strip_prefix("bench/request/qos")?;
    let (level, client) = rest.split_once('/')?;
    let qos = match level {
        "0" => QoS::AtMostOnce,
        "1" => QoS::AtLeastOnce,
        _ => return None,
    };
    (!client.is_empty() && !client.contains(['/', '+', '#'])).then(|| (format!("bench/response/{client}"), qos))
}

/// Subscribes to every request and echoes each one, connecting again whenever the broker goes
/// away (it may not be up yet); never returns.
async fn respond(broker: (String, u16), ready: Arc<AtomicBool>) -> anyhow::Result<()> {
    loop {
        let e = session(&broker, &ready).await.err().unwrap_or_else(|| anyhow::anyhow!("the broker closed"));
        // Not ready until subscribed again.
        if ready.swap(false, Ordering::Relaxed) {
            eprintln!("protocols-mqtt: responder lost the broker: {e:#}");
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// One connection of the responder: CONNECT, SUBSCRIBE to each QoS level's requests at that
/// level, then echo every request at its level, acknowledging QoS 1 deliveries; pings keep it
/// alive. Reading
/// and writing run apart, so a broker that writes before it reads (rumqttd) never finds the
/// responder blocked in a write of its own.
async fn session((host, port): &(String, u16), ready: &AtomicBool) -> anyhow::Result<()> {
    let socket =
        tokio::net::TcpStream::connect((host.as_str(), *port)).await.with_context(|| format!("{host}:{port}"))?;
    socket.set_nodelay(true)?;
    quick_ack(&socket);
    let (mut reader, writer) = socket.into_split();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Packet>();
    let writer = tokio::spawn(write_packets(writer, rx));
    let result = read_requests(&mut reader, &tx, ready).await;
    writer.abort();
    result
}

async fn read_requests(
    socket: &mut OwnedReadHalf,
    tx: &tokio::sync::mpsc::UnboundedSender<Packet>,
    ready: &AtomicBool,
) -> anyhow::Result<()> {
    let send = |p: Packet| tx.send(p).map_err(|_| anyhow::anyhow!("the connection's writer ended"));
    let mut connect = Connect::new(format!("responder-{}", std::process::id()));
    connect.keep_alive = KEEP_ALIVE.as_secs() as u16;
    send(Packet::Connect(connect))?;
    let mut read = BytesMut::with_capacity(64 << 10);
    match next_packet(socket, &mut read).await? {
        Packet::ConnAck(ack) if ack.code == ConnectReturnCode::Success => {}
        other => anyhow::bail!("the broker did not accept the responder: {other:?}"),
    }
    let mut subscribe = Subscribe::new_many(REQUESTS.map(|(filter, qos)| SubscribeFilter::new(filter.into(), qos)));
    subscribe.pkid = 1;
    send(Packet::Subscribe(subscribe))?;
    let mut pkid: u16 = 1;
    loop {
        match next_packet(socket, &mut read).await? {
            Packet::SubAck(_) => ready.store(true, Ordering::Relaxed),
            Packet::Publish(p) => {
                if p.qos == QoS::AtLeastOnce {
                    send(Packet::PubAck(PubAck::new(p.pkid)))?;
                }
                if let Some((topic, qos)) = response_topic(&p.topic) {
                    let mut echo = Publish::from_bytes(topic, qos, p.payload);
                    if echo.qos != QoS::AtMostOnce {
                        pkid = pkid.checked_add(1).unwrap_or(1);
                        echo.pkid = pkid;
                    }
                    send(Packet::Publish(echo))?;
                }
            }
            _ => {}
        }
    }
}

/// Writes what the reader queues, everything queued at once in one write, and a PINGREQ every
/// half keep-alive.
async fn write_packets(mut socket: OwnedWriteHalf, mut rx: tokio::sync::mpsc::UnboundedReceiver<Packet>) {
    let mut out = BytesMut::with_capacity(64 << 10);
    let mut ping = tokio::time::interval(KEEP_ALIVE / 2);
    ping.tick().await;
    loop {
        let first = tokio::select! {
            p = rx.recv() => match p { Some(p) => p, None => return },
            _ = ping.tick() => Packet::PingReq,
        };
        let mut next = Some(first);
        while let Some(p) = next {
            if p.write(&mut out, PACKET_MAX).is_err() {
                return;
            }
            next = rx.try_recv().ok();
        }
        if socket.write_all(&out).await.is_err() {
            return;
        }
        out.clear();
    }
}

/// The next whole packet, reading as much as it needs; ACKs go out at once (`quick_ack`).
async fn next_packet(socket: &mut OwnedReadHalf, read: &mut BytesMut) -> anyhow::Result<Packet> {
    loop {
        match Packet::read(read, PACKET_MAX) {
            Ok(p) => return Ok(p),
            Err(rumqttc::mqttbytes::Error::InsufficientBytes(n)) => {
                read.reserve(n);
                if socket.read_buf(read).await? == 0 {
                    anyhow::bail!("the broker closed the connection");
                }
                quick_ack(socket.as_ref());
            }
            Err(e) => anyhow::bail!("MQTT: {e}"),
        }
    }
}

/// Asks the kernel to ACK what arrives at once, not after the delayed-ACK timer: rumqttd 0.20
/// leaves Nagle's algorithm on for its sockets, so its second small write (a forwarded request
/// after a PUBACK) would otherwise wait for this end's delayed ACK, about 40 ms, and the row
/// would measure a timer. Linux falls back to delayed ACKs by itself, so it is re-armed after
/// every read.
fn quick_ack(socket: &tokio::net::TcpStream) {
    let _ = socket2::SockRef::from(socket).set_tcp_quickack(true);
}

/// `GET /health`: 200 once the responder is subscribed, 503 before.
async fn serve_health(listener: tokio::net::TcpListener, ready: Arc<AtomicBool>) {
    loop {
        let Ok((socket, _)) = listener.accept().await else { continue };
        let ready = ready.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |_req| {
                let (status, body) = if ready.load(Ordering::Relaxed) {
                    (StatusCode::OK, "ok")
                } else {
                    (StatusCode::SERVICE_UNAVAILABLE, "the responder is not subscribed yet")
                };
                let mut r = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
                *r.status_mut() = status;
                async move { Ok::<_, Infallible>(r) }
            });
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(socket), service).await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_topics_mirror_request_topics() {
        assert_eq!(response_topic("bench/request/qos0/c1"), Some(("bench/response/c1".into(), QoS::AtMostOnce)));
        assert_eq!(response_topic("bench/request/qos1/c1"), Some(("bench/response/c1".into(), QoS::AtLeastOnce)));
        for bad in [
            "bench/request/qos1/",
            "bench/request/qos1/a/b",
            "bench/request/c1",
            "bench/request/qos2/c1",
            "other/c1",
            "bench/request/qos0/+",
        ] {
            assert_eq!(response_topic(bad), None, "{bad}");
        }
    }
}
