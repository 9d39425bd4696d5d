//! Every registered driver, over cleartext and TLS, against one in-test hyper server that
//! serves HTTP/1.1 and HTTP/2 on the same ports (as the real subjects do).

use super::*;
use bytes::Bytes;
use sha2::{Digest, Sha256};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;
use hyper_util::rt::{TokioExecutor, TokioIo};
use wirebench_core::runner::Stop;
use wirebench_core::suite::Expect;

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

async fn handle(req: hyper::Request<hyper::body::Incoming>) -> Result<hyper::Response<Body>, Infallible> {
    if req.headers().get("content-type").is_some_and(|v| v == "application/grpc") {
        return Ok(grpc(req).await);
    }
    if req.headers().get("upgrade").is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"websocket")) {
        return Ok(websocket(req));
    }
    if req.headers().get("accept").is_some_and(|v| v == "text/event-stream") {
        return Ok(events(req).await);
    }
    let path = req.uri().path().to_string();
    let full = |b: Bytes| Full::new(b).boxed();
    let resp = if let Some(n) = path.strip_prefix("/bytes/") {
        hyper::Response::new(full(Bytes::from(vec![b'x'; n.parse().unwrap_or(0)])))
    } else if path == "/chunked" {
        let frames = ["hello", " ", "world"].map(|s| Ok::<_, Infallible>(Frame::data(Bytes::from(s))));
        hyper::Response::new(StreamBody::new(futures_util::stream::iter(frames)).boxed())
    } else if path == "/echo" {
        let body = req.into_body().collect().await.map(|c| c.to_bytes()).unwrap_or_default();
        hyper::Response::new(full(body))
    } else {
        let mut r = hyper::Response::new(full(Bytes::from_static(b"nope")));
        *r.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        r
    };
    Ok(resp)
}

/// The same routes as gRPC calls (one message of the bytes, "hello world" split across DATA
/// frames, echo of every message as it arrives, an error status), and the gRPC-only
/// `/stream/K/N` (K messages of N bytes), `/count` (one message: how many were sent),
/// `/trailers-only` (a failure in the response headers) and `/no-status`.
async fn grpc(req: hyper::Request<hyper::body::Incoming>) -> hyper::Response<Body> {
    use futures_util::StreamExt;
    let path = req.uri().path().to_string();
    let status = |code: &str| {
        let mut h = http::HeaderMap::new();
        h.insert("grpc-status", code.parse().unwrap());
        h
    };
    let answer = |frames: Vec<Bytes>, code: Option<&str>| -> Body {
        let trailers = code.map(|c| Ok::<_, Infallible>(Frame::trailers(status(c))));
        let frames = frames.into_iter().map(|b| Ok(Frame::data(b))).chain(trailers);
        BodyExt::boxed(StreamBody::new(futures_util::stream::iter(frames)))
    };
    let frame = |m: &[u8]| drivers::messages::frame(m).unwrap();
    let body = if let Some(n) = path.strip_prefix("/bytes/") {
        answer(vec![frame(&vec![b'x'; n.parse().unwrap()])], Some("0"))
    } else if path == "/chunked" {
        let f = frame(b"hello world");
        answer(vec![f.slice(..3), f.slice(3..10), f.slice(10..)], Some("0"))
    } else if let Some((k, n)) = path.strip_prefix("/stream/").and_then(|r| r.split_once('/')) {
        answer(vec![frame(&vec![b'x'; n.parse().unwrap()]); k.parse().unwrap()], Some("0"))
    } else if path == "/echo" {
        let data = http_body_util::BodyStream::new(req.into_body())
            .filter_map(|f| std::future::ready(f.ok().and_then(|f| f.into_data().ok()).map(|d| Ok(Frame::data(d)))));
        let end = futures_util::stream::iter([Ok(Frame::trailers(status("0")))]);
        BodyExt::boxed(StreamBody::new(data.chain(end)))
    } else if path == "/count" {
        let body = req.into_body().collect().await.map(|c| c.to_bytes()).unwrap_or_default();
        let mut d = drivers::messages::Deframer::new(false);
        d.feed(&body).unwrap();
        answer(vec![frame(d.messages.to_string().as_bytes())], Some("0"))
    } else if path == "/trailers-only" {
        let mut r = hyper::Response::new(Full::new(Bytes::new()).boxed());
        r.headers_mut().extend(status("13"));
        return r;
    } else if path == "/no-status" {
        answer(vec![frame(b"x")], None)
    } else {
        answer(vec![], Some("13"))
    };
    let mut r = hyper::Response::new(body);
    r.headers_mut().insert("content-type", "application/grpc".parse().unwrap());
    r
}

/// The same routes as Server-Sent Events: each answer is one event whose data is what the plain
/// route's body would be (`/chunked` split across chunks mid-line), with a comment and an `id`
/// line the parser must skip; `/events/K/N` sends K events of N bytes.
async fn events(req: hyper::Request<hyper::body::Incoming>) -> hyper::Response<Body> {
    let path = req.uri().path().to_string();
    let event = |data: &[u8]| Bytes::from([b": hi\nid: 1\ndata: ".as_slice(), data, b"\n\n"].concat());
    let chunks: Vec<Bytes> = if let Some(n) = path.strip_prefix("/bytes/") {
        vec![event(&vec![b'x'; n.parse().unwrap()])]
    } else if let Some((k, n)) = path.strip_prefix("/events/").and_then(|r| r.split_once('/')) {
        vec![event(&vec![b'x'; n.parse().unwrap()]); k.parse().unwrap()]
    } else if path == "/chunked" {
        let e = event(b"hello world");
        vec![e.slice(..20), e.slice(20..)]
    } else if path == "/echo" {
        let body = req.into_body().collect().await.map(|c| c.to_bytes()).unwrap_or_default();
        vec![event(&body)]
    } else {
        let mut r = hyper::Response::new(Full::new(Bytes::from_static(b"nope")).boxed());
        *r.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        return r;
    };
    let frames = chunks.into_iter().map(|c| Ok::<_, Infallible>(Frame::data(c)));
    let mut r = hyper::Response::new(BodyExt::boxed(StreamBody::new(futures_util::stream::iter(frames))));
    r.headers_mut().insert("content-type", "text/event-stream".parse().unwrap());
    r
}

/// The same routes over WebSocket: the upgrade's path picks what every request is answered
/// with (`/bytes/N`: N bytes; `/chunked`: "hello world"; `/echo`: the request; `/frames/K/N`: K
/// frames of N bytes; `/close`: a close frame with 1011); `/fail` refuses the upgrade with 500.
fn websocket(mut req: hyper::Request<hyper::body::Incoming>) -> hyper::Response<Body> {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::protocol::{frame::coding::CloseCode, CloseFrame, Role};
    use tokio_tungstenite::tungstenite::Message;
    let path = req.uri().path().to_string();
    if path == "/fail" {
        let mut r = hyper::Response::new(Full::new(Bytes::from_static(b"nope")).boxed());
        *r.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        return r;
    }
    let key = req.headers().get("sec-websocket-key").cloned().unwrap();
    let upgraded = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        let io = TokioIo::new(upgraded.await.unwrap());
        let mut ws = tokio_tungstenite::WebSocketStream::from_raw_socket(io, Role::Server, None).await;
        while let Some(Ok(m)) = ws.next().await {
            let request = match m {
                Message::Text(t) => Bytes::from(t),
                Message::Binary(b) => b,
                _ => continue,
            };
            let frames: Vec<Message> = if let Some(n) = path.strip_prefix("/bytes/") {
                vec![Message::Text("x".repeat(n.parse().unwrap()).into())]
            } else if let Some((k, n)) = path.strip_prefix("/frames/").and_then(|r| r.split_once('/')) {
                vec![Message::Binary(vec![b'x'; n.parse().unwrap()].into()); k.parse().unwrap()]
            } else if path == "/chunked" {
                vec![Message::Text("hello world".into())]
            } else if path == "/echo" {
                vec![Message::Binary(request)]
            } else {
                let close = CloseFrame { code: CloseCode::Error, reason: "no such route".into() };
                let _ = ws.close(Some(close)).await;
                continue;
            };
            for f in frames {
                ws.feed(f).await.unwrap();
            }
            ws.flush().await.unwrap();
        }
    });
    let mut r = hyper::Response::new(Full::new(Bytes::new()).boxed());
    *r.status_mut() = hyper::StatusCode::SWITCHING_PROTOCOLS;
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    r.headers_mut().insert("connection", "Upgrade".parse().unwrap());
    r.headers_mut().insert("upgrade", "websocket".parse().unwrap());
    r.headers_mut().insert("sec-websocket-accept", accept.parse().unwrap());
    r
}

/// Starts the server on a thread of its own; returns (plain port, TLS port).
fn server() -> (u16, u16) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        rt.block_on(async move {
            let plain = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let tls = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = |l: &tokio::net::TcpListener| l.local_addr().map(|a: SocketAddr| a.port()).unwrap();
            tx.send((port(&plain), port(&tls))).unwrap();
            let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
            let key = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
            let mut config =
                rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                    .with_safe_default_protocol_versions()
                    .unwrap()
                    .with_no_client_auth()
                    .with_single_cert(vec![cert.cert.der().clone()], key)
                    .unwrap();
            config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
            let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
            loop {
                tokio::select! {
                    Ok((s, _)) = plain.accept() => { serve(TokioIo::new(s)); }
                    Ok((s, _)) = tls.accept() => {
                        let acceptor = acceptor.clone();
                        tokio::spawn(async move {
                            if let Ok(s) = acceptor.accept(s).await { serve(TokioIo::new(s)); }
                        });
                    }
                }
            }
        });
    });
    rx.recv().unwrap()
}

fn serve<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static>(io: TokioIo<S>) {
    tokio::spawn(async move {
        let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
            .serve_connection_with_upgrades(io, hyper::service::service_fn(handle))
            .await;
    });
}

fn servers() -> &'static (u16, u16) {
    static S: std::sync::OnceLock<(u16, u16)> = std::sync::OnceLock::new();
    S.get_or_init(server)
}

/// The same plain routes over HTTP/3 (quinn + h3) on a UDP port; returns the port.
fn h3_server() -> u16 {
    static S: std::sync::OnceLock<u16> = std::sync::OnceLock::new();
    *S.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
            rt.block_on(async move {
                let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
                let key = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
                let mut tls =
                    rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                        .with_protocol_versions(&[&rustls::version::TLS13])
                        .unwrap()
                        .with_no_client_auth()
                        .with_single_cert(vec![cert.cert.der().clone()], key)
                        .unwrap();
                tls.alpn_protocols = vec![b"h3".to_vec()];
                let crypto = quinn::crypto::rustls::QuicServerConfig::try_from(tls).unwrap();
                let config = quinn::ServerConfig::with_crypto(Arc::new(crypto));
                let endpoint = quinn::Endpoint::server(config, "127.0.0.1:0".parse().unwrap()).unwrap();
                tx.send(endpoint.local_addr().unwrap().port()).unwrap();
                while let Some(incoming) = endpoint.accept().await {
                    tokio::spawn(async move {
                        let Ok(conn) = incoming.await else { return };
                        let Ok(mut conn) =
                            h3::server::Connection::<_, Bytes>::new(h3_quinn::Connection::new(conn)).await
                        else {
                            return;
                        };
                        while let Ok(Some(resolver)) = conn.accept().await {
                            tokio::spawn(async move {
                                let Ok((req, mut stream)) = resolver.resolve_request().await else { return };
                                let _ = h3_answer(req, &mut stream).await;
                            });
                        }
                    });
                }
            });
        });
        rx.recv().unwrap()
    })
}

async fn h3_answer(
    req: http::Request<()>,
    stream: &mut h3::server::RequestStream<h3_quinn::BidiStream<Bytes>, Bytes>,
) -> Result<(), h3::error::StreamError> {
    let path = req.uri().path().to_string();
    let (status, chunks): (u16, Vec<Bytes>) = if let Some(n) = path.strip_prefix("/bytes/") {
        (200, vec![Bytes::from(vec![b'x'; n.parse().unwrap_or(0)])])
    } else if path == "/chunked" {
        (200, [&b"hello"[..], b" ", b"world"].map(Bytes::from_static).to_vec())
    } else if path == "/echo" {
        let mut body = Vec::new();
        while let Some(chunk) = stream.recv_data().await? {
            bytes::BufMut::put(&mut body, chunk);
        }
        (200, vec![Bytes::from(body)])
    } else {
        (500, vec![Bytes::from_static(b"nope")])
    };
    stream.send_response(http::Response::builder().status(status).body(()).unwrap()).await?;
    for chunk in chunks {
        stream.send_data(chunk).await?;
    }
    stream.finish().await
}

fn scenario(driver: &str, tls: bool, path: &str) -> Scenario {
    let text = format!(
        "id = \"t\"\nsubject = \"s\"\ndriver = \"{driver}\"\ntls = {tls}\npath = \"{path}\"\nconnections = 2\nrequests = 1"
    );
    let mut s: Scenario = toml::from_str(&text).unwrap();
    s.expect.status = ok(driver);
    s
}

/// The status of a right answer: the driver's own.
fn ok(driver: &str) -> u16 {
    driver_info(driver).unwrap().ok_status
}

/// What the drivers say about the server's `/fail` route (gRPC: INTERNAL, 13; WebSocket: the
/// upgrade was refused).
fn failed(driver: &str) -> String {
    match driver {
        "websocket" => "WebSocket handshake: HTTP error: 500 Internal Server Error".into(),
        "grpc" => format!("status 13, expected {}", ok(driver)),
        _ => format!("status 500, expected {}", ok(driver)),
    }
}

/// Drivers that carry one exchange per connection at a time (the registry's `max_streams`).
fn one_at_a_time(driver: &str) -> bool {
    driver_info(driver).unwrap().max_streams == Some(1)
}

fn target(tls: bool) -> Target {
    let (plain, secure) = *servers();
    Target { host: "127.0.0.1".into(), port: if tls { secure } else { plain }, tls, ..Target::default() }
}

/// Where `driver` finds the test routes: HTTP/3 on the QUIC server's UDP port (encrypted
/// whatever `tls` says), every other driver on the TCP server.
fn target_of(driver: &str, tls: bool) -> Target {
    match driver {
        "http3" => Target { host: "127.0.0.1".into(), port: h3_server(), tls, ..Target::default() },
        _ => target(tls),
    }
}

/// Every registered driver that speaks to an HTTP server, over both transports. A brokered
/// driver (`DriverInfo::brokered`) needs a broker between client and server rather than this
/// HTTP test server; each is tested end to end against its real brokers instead (mqtt:
/// Mosquitto in `subjects/protocols/rust/tests/mqtt.rs`, rumqttd in
/// `subjects/protocols/rumqttd/tests/broker.rs`, and the smoke suite).
fn every_driver() -> Vec<(&'static str, bool)> {
    DRIVERS.iter().filter(|d| !d.brokered).flat_map(|d| [(d.id, false), (d.id, true)]).collect()
}

/// The registry's own promises: unique ids, a URL scheme each, and a parameter check that
/// accepts no parameters at all (every driver's defaults) and refuses an unknown one.
#[test]
fn every_driver_is_registered_whole() {
    let mut ids: Vec<&str> = DRIVERS.iter().map(|d| d.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), DRIVERS.len(), "driver ids are unique");
    for d in DRIVERS {
        assert!(!d.schemes.is_empty() && !d.help.is_empty(), "{}", d.id);
        assert!((d.params)(&Default::default()).is_ok(), "{} takes its defaults", d.id);
        let unknown = [("no-such-param".to_string(), serde_json::json!(1))].into();
        let err = (d.params)(&unknown).unwrap_err().to_string();
        assert!(err.contains("unknown parameter `no-such-param`"), "{}: {err}", d.id);
    }
}

/// Each driver names its transport over cleartext and TLS, the labels its rows carry: what
/// carries its calls, as the studies name it (gRPC over `h2c`, SSE over `h1`, WebSocket `ws`).
/// TLS shows in the label, except where a driver is always encrypted (HTTP/3's QUIC).
#[test]
fn every_driver_has_transport_labels_its_rows_carry() {
    let engine = LoadEngine { threads: 1 };
    for d in DRIVERS {
        let (plain, tls) = (d.transport_label(false), d.transport_label(true));
        let always_encrypted = d.schemes.iter().all(|&(_, tls)| tls);
        assert_eq!(plain == tls, always_encrypted, "{}: TLS must show in its transport", d.id);
        let want = match d.id {
            "http1" | "sse" => ("h1", "h1+tls"),
            "http2" | "grpc" => ("h2c", "h2+tls"),
            "http3" => ("h3", "h3"),
            "websocket" => ("ws", "wss"),
            "mqtt" => ("mqtt", "mqtt+tls"),
            id => panic!("{id}: a new driver names its transport here"),
        };
        assert_eq!((plain, tls), want, "{}", d.id);
        for (on, label) in [(false, plain), (true, tls)] {
            assert_eq!(engine.transport(&scenario(d.id, on, "/")), label, "{} tls={on}", d.id);
        }
    }
}

fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn every_driver_verifies_exact_bodies_and_rejects_wrong_ones() {
    for (driver, tls) in every_driver() {
        let label = format!("{driver} tls={tls}");
        let mut s = scenario(driver, tls, "/bytes/1024");
        s.expect = Expect {
            status: ok(driver),
            body_bytes: Some(1024),
            body_sha256: Some(sha256_hex(&[b'x'; 1024])),
            messages: Some(1),
        };
        LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_or_else(|e| panic!("{label}: {e}"));

        s.expect.messages = Some(2);
        let e = LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_err();
        assert_eq!(e, "1 messages, expected 2", "{label}");
        s.expect.messages = None;

        s.expect.body_bytes = Some(1000);
        let e = LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_err();
        assert_eq!(e, "body is 1024 bytes, expected 1000", "{label}");

        s.expect.body_bytes = None;
        s.expect.body_sha256 = Some("00".repeat(32));
        let e = LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_err();
        assert!(e.starts_with("body sha256 "), "{label}: {e}");

        let mut s = scenario(driver, tls, "/chunked");
        s.expect = Expect {
            status: ok(driver),
            body_bytes: Some(11),
            body_sha256: Some(sha256_hex(b"hello world")),
            messages: None,
        };
        LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_or_else(|e| panic!("{label}: {e}"));

        let s = scenario(driver, tls, "/fail");
        let e = LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_err();
        assert_eq!(e, failed(driver), "{label}");
    }
}

fn measure(s: &Scenario, plan: Plan, tls: bool) -> LoadResult {
    let live = AtomicU64::new(0);
    let r = LoadEngine { threads: 2 }.measure(s, &plan, &target_of(&s.driver, tls), &live).unwrap();
    assert_eq!(live.load(std::sync::atomic::Ordering::Relaxed), r.requests, "live counter follows completions");
    r
}

#[test]
fn every_driver_runs_closed_and_open_model_loads_to_their_stop() {
    for (driver, tls) in every_driver() {
        let label = format!("{driver} tls={tls}");
        let streams = if one_at_a_time(driver) { 1 } else { 3 };
        let mut s = scenario(driver, tls, "/bytes/1024");
        s.expect.body_bytes = Some(1024);

        let plan = Plan { connections: 3, streams, stop: Stop::Requests(300), rate: None, cap: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.errors), (300, 0), "{label}");
        assert_eq!(r.per_tick.iter().sum::<u64>(), 300, "{label}: every answer in its tick");
        // Every call sends something: an HTTP request, a gRPC frame, a masked WebSocket frame (6+ bytes).
        assert!(r.bytes_received > 300 * 1024 && r.bytes_sent > 300 * 6, "{label}: {r:?}");
        assert!(r.latency.min >= 1 && r.latency.p50 <= r.latency.p99 && r.latency.p99 <= r.latency.max, "{label}");
        assert_eq!(r.latency.curve.len(), 12);
        // An SSE answer is an event stream even with one event; the others answer once.
        assert_eq!(r.first_message.is_some(), driver == "sse", "{label}: time to first message");

        let plan =
            Plan { connections: 2, streams, stop: Stop::Duration(Duration::from_millis(200)), rate: None, cap: None };
        let r = measure(&s, plan, tls);
        assert!(r.requests > 0 && r.errors == 0, "{label}: {r:?}");
        assert!(r.duration >= Duration::from_millis(200), "{label}: {:?}", r.duration);

        // 100 requests at 1000/s take at least 99 ms: the arrival schedule is kept.
        let plan = Plan { connections: 2, streams, stop: Stop::Requests(100), rate: Some(1000.0), cap: None };
        let r = measure(&s, plan, tls);
        assert_eq!(r.requests, 100, "{label}");
        assert!(r.duration >= Duration::from_millis(99), "{label}: {:?}", r.duration);
        // Service time (from the actual send) never exceeds response time (from the schedule).
        let u = r.latency_uncorrected.as_ref().expect("the open model keeps the uncorrected latency");
        assert!(u.min >= 1 && u.p50 <= r.latency.p50 && u.max <= r.latency.max, "{label}: {u:?} {:?}", r.latency);
    }
}

/// A thread group's script from TOML groups, as a suite builds it.
fn script_of(groups: &str, name: &str) -> Arc<wirebench_core::suite::Script> {
    let groups: std::collections::BTreeMap<String, wirebench_core::suite::GroupSpec> = toml::from_str(groups).unwrap();
    wirebench_core::suite::groups::scripts(&groups, std::path::Path::new(".")).unwrap()[name].clone()
}

const GROUPS: &str = r#"
[echo]
data = { rows = 5, seed = 7, columns = { key = 8 } }
steps = [
  { label = "send", method = "POST", path = "/echo", body = '{"n":"{key}"}', capture = { got = "/n" } },
  { label = "bytes", path = "/bytes/3", expect = { body_bytes = 3 } },
  { label = "send back", method = "POST", path = "/echo", body = '{"n":"{got}"}', expect = { body_bytes = 16 } },
]

[broken]
steps = [
  { label = "fine", path = "/bytes/1" },
  { label = "fails", path = "/fail" },
  { label = "never", path = "/bytes/2" },
]

[both]
mix = { echo = 2, broken = 1 }
"#;

#[test]
fn thread_groups_run_steps_with_variables_and_count_each_step() {
    let mut s = scenario("http1", false, "");
    s.script = Some(script_of(GROUPS, "echo"));
    let target = target_of("http1", false);
    let engine = LoadEngine { threads: 2 };
    engine.verify(&s, &target).unwrap();
    let plan = Plan { connections: 3, streams: 1, stop: Stop::Requests(30), rate: None, cap: None };
    let live = AtomicU64::new(0);
    let r = engine.measure(&s, &plan, &target, &live).unwrap();
    assert_eq!((r.iterations, r.requests, r.errors), (Some(30), 90, 0), "{r:?}");
    assert_eq!(live.load(std::sync::atomic::Ordering::Relaxed), 30, "progress counts iterations");
    let steps: Vec<(&str, u64, u64)> = r.steps.iter().map(|x| (x.label.as_str(), x.requests, x.errors)).collect();
    assert_eq!(steps, [("send", 30, 0), ("bytes", 30, 0), ("send back", 30, 0)]);
    assert!(r.steps.iter().all(|x| x.latency_us.min >= 1 && x.latency_us.p50 <= x.latency_us.max));

    // A wrong answer is its step's error and ends the iteration; the verification names it.
    s.script = Some(script_of(GROUPS, "both"));
    let err = engine.verify(&s, &target).unwrap_err();
    assert_eq!(err, "step `broken: fails`: status 500, expected 200");
    let r = engine.measure(&s, &plan, &target, &AtomicU64::new(0)).unwrap();
    let steps: Vec<(&str, u64, u64)> = r.steps.iter().map(|x| (x.label.as_str(), x.requests, x.errors)).collect();
    // Weights 2:1 over 30 iterations: 20 echo, 10 broken (each failing at its second step);
    // a mix's members in name order.
    let expected = [
        ("broken: fine", 10, 0),
        ("broken: fails", 0, 10),
        ("broken: never", 0, 0),
        ("echo: send", 20, 0),
        ("echo: bytes", 20, 0),
        ("echo: send back", 20, 0),
    ];
    assert_eq!(steps, expected);
    assert_eq!((r.iterations, r.requests, r.errors), (Some(20), 70, 10));
}

#[test]
fn thread_group_users_ramp_up_and_unsupported_drivers_refuse_steps() {
    let mut s = scenario("http1", false, "");
    s.script = Some(script_of(GROUPS, "echo"));
    s.ramp_up_s = Some(0.3);
    let plan =
        Plan { connections: 3, streams: 1, stop: Stop::Duration(Duration::from_millis(100)), rate: None, cap: None };
    let r = LoadEngine { threads: 1 }.measure(&s, &plan, &target_of("http1", false), &AtomicU64::new(0)).unwrap();
    // The third user starts 0.2 s in, after the 0.1 s of load: it never runs.
    assert!(r.iterations.unwrap() > 0 && r.errors == 0, "{r:?}");
    assert!(r.duration < Duration::from_millis(300), "{:?}", r.duration);

    let mut s = scenario("http2", false, "");
    s.script = Some(script_of(GROUPS, "echo"));
    let err = LoadEngine { threads: 1 }.verify(&s, &target_of("http2", false)).unwrap_err();
    assert!(err.contains("cannot run thread groups"), "{err}");
}

#[test]
fn wrong_answers_are_counted_not_timed() {
    // A WebSocket has no per-exchange status: its refused upgrade fails the connection (above),
    // and a session the server closes is an error (websocket_* below).
    for (driver, tls) in every_driver().into_iter().filter(|(d, _)| *d != "websocket") {
        let s = scenario(driver, tls, "/fail");
        let plan = Plan { connections: 1, streams: 1, stop: Stop::Requests(20), rate: None, cap: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.errors), (0, 20), "{driver}");
        assert_eq!(r.first_error, Some(failed(driver)));
    }
}

#[test]
fn post_bodies_reach_the_server_intact() {
    for (driver, tls) in every_driver() {
        let mut s = scenario(driver, tls, "/echo");
        s.method = "POST".into();
        s.body_bytes = Some(100_000);
        s.expect.body_bytes = Some(100_000);
        s.expect.body_sha256 = Some(sha256_hex(&filler(100_000)));
        LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_or_else(|e| panic!("{driver} {tls}: {e}"));
    }
}

#[test]
fn bodies_from_text_and_files_are_sent_as_given() {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), b"\x00\x01binary\xff").unwrap();
    for (driver, tls) in every_driver() {
        let mut s = scenario(driver, tls, "/echo");
        s.method = "POST".into();
        s.body = Some("{ payload(size: 3) { message } }".into());
        s.expect.body_sha256 = Some(sha256_hex(b"{ payload(size: 3) { message } }"));
        LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_or_else(|e| panic!("{driver} {tls}: {e}"));
        s.body = None;
        s.body_file = Some(file.path().display().to_string());
        s.expect.body_sha256 = Some(sha256_hex(b"\x00\x01binary\xff"));
        LoadEngine { threads: 1 }.verify(&s, &target_of(driver, tls)).unwrap_or_else(|e| panic!("{driver} {tls}: {e}"));
        let plan = Plan { connections: 1, streams: 1, stop: Stop::Requests(10), rate: None, cap: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.messages, r.errors), (10, 10, 0), "{driver} {tls}");
    }
    let mut s = scenario("http1", false, "/echo");
    s.body_file = Some("/nonexistent/body.bin".into());
    let e = LoadEngine { threads: 1 }.verify(&s, &target(false)).unwrap_err();
    assert!(e.starts_with("body_file `/nonexistent/body.bin`: cannot read"), "{e}");
}

fn grpc_call(path: &str, params: &str, body: &[u8], tls: bool) -> Scenario {
    let mut s = scenario("grpc", tls, path);
    s.params = serde_json::from_str(params).unwrap();
    s.body = Some(String::from_utf8(body.to_vec()).unwrap());
    s
}

#[test]
fn grpc_calls_in_all_four_modes_carry_and_count_their_messages() {
    for tls in [false, true] {
        let verify = |s: &Scenario| LoadEngine { threads: 1 }.verify(s, &target(tls));
        let mut s = grpc_call("/bytes/10", "{}", b"", tls);
        s.expect = Expect { status: 0, body_bytes: Some(10), messages: Some(1), ..Expect::default() };
        verify(&s).unwrap();

        let mut s = grpc_call("/stream/5/10", r#"{"call":"server_stream"}"#, b"", tls);
        s.expect = Expect { status: 0, body_bytes: Some(50), messages: Some(5), ..Expect::default() };
        verify(&s).unwrap();

        // The server answers with how many messages it read.
        let mut s = grpc_call("/count", r#"{"call":"client_stream","messages":4}"#, b"abc", tls);
        s.expect = Expect { status: 0, messages: Some(4), body_sha256: Some(sha256_hex(b"4")), ..Expect::default() };
        verify(&s).unwrap();

        // Ping-pong: each echo arrives before the next message is sent.
        let mut s = grpc_call("/echo", r#"{"call":"bidi","messages":3}"#, b"ping", tls);
        s.expect = Expect {
            status: 0,
            messages: Some(3),
            body_sha256: Some(sha256_hex(b"pingpingping")),
            ..Expect::default()
        };
        verify(&s).unwrap();
        let plan = Plan { connections: 2, streams: 2, stop: Stop::Requests(40), rate: None, cap: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.messages, r.errors), (40, 120, 0), "tls={tls}");
        assert!(r.first_message.is_some(), "bidi answers with a stream");

        let s = grpc_call("/trailers-only", "{}", b"", tls);
        assert_eq!(verify(&s).unwrap_err(), "status 13, expected 0");
        let s = grpc_call("/no-status", "{}", b"", tls);
        assert_eq!(verify(&s).unwrap_err(), "the gRPC call ended without grpc-status");
        let s = grpc_call("/echo", r#"{"call":"unary","messages":2}"#, b"", tls);
        assert!(verify(&s).unwrap_err().contains("messages applies to client_stream and bidi"));
    }
}

#[test]
fn websocket_exchanges_count_frames_and_a_closing_server_is_an_error() {
    for tls in [false, true] {
        let mut s = scenario("websocket", tls, "/frames/4/10");
        s.body = Some("go".into());
        s.params = serde_json::from_str(r#"{"frames":4}"#).unwrap();
        s.expect = Expect { status: 101, body_bytes: Some(40), messages: Some(4), ..Expect::default() };
        LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap();
        let plan = Plan { connections: 2, streams: 1, stop: Stop::Requests(50), rate: None, cap: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.messages, r.errors), (50, 200, 0), "tls={tls}");
        let first = r.first_message.expect("a pushed stream has a time to first message");
        assert!(first.p50 <= r.latency.p50 && first.max <= r.latency.max, "{first:?} vs {:?}", r.latency);

        let mut s = scenario("websocket", tls, "/close");
        s.body = Some("go".into());
        let e = LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_err();
        assert_eq!(e, "the server closed the WebSocket: 1011 no such route");
        let plan = Plan { connections: 1, streams: 1, stop: Stop::Requests(5), rate: None, cap: None };
        let r = LoadEngine { threads: 1 }.measure(&s, &plan, &target(tls), &AtomicU64::new(0)).unwrap();
        assert_eq!((r.requests, r.errors), (0, 1), "the channel ends at its first error");
    }
    let s = scenario("websocket", false, "/bytes/1");
    let plan = Plan { connections: 1, streams: 2, stop: Stop::Requests(2), rate: None, cap: None };
    let e = LoadEngine { threads: 1 }.measure(&s, &plan, &target(false), &AtomicU64::new(0)).unwrap_err();
    assert!(e.starts_with("websocket carries one request at a time"), "{e}");
}

#[test]
fn sse_counts_events_and_their_data() {
    for tls in [false, true] {
        let mut s = scenario("sse", tls, "/events/5/100");
        s.expect = Expect { status: 200, body_bytes: Some(500), messages: Some(5), ..Expect::default() };
        LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap();
        let plan = Plan { connections: 2, streams: 1, stop: Stop::Requests(40), rate: None, cap: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.messages, r.errors), (40, 200, 0), "tls={tls}");
        let first = r.first_message.expect("an event stream has a time to first event");
        assert!(first.p50 <= r.latency.p50 && first.max <= r.latency.max, "{first:?} vs {:?}", r.latency);
    }
}

#[test]
fn http1_refuses_multiplexing_and_closed_ports_fail_cleanly() {
    let s = scenario("http1", false, "/bytes/1");
    let plan = Plan { connections: 1, streams: 4, stop: Stop::Requests(4), rate: None, cap: None };
    let e = LoadEngine { threads: 1 }.measure(&s, &plan, &target(false), &AtomicU64::new(0)).unwrap_err();
    assert!(e.starts_with("http1 carries one request at a time"), "{e}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let t = Target { host: "127.0.0.1".into(), port: closed, tls: false, ..Target::default() };
    let e = LoadEngine { threads: 1 }.verify(&s, &t).unwrap_err();
    assert!(e.starts_with("cannot connect"), "{e}");
}

#[test]
fn http3_to_a_silent_udp_port_fails_with_one_line_after_its_handshake_deadline() {
    // A bound socket that never answers: what a TCP-only server's port number looks like to QUIC.
    let silent = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let t =
        Target { host: "127.0.0.1".into(), port: silent.local_addr().unwrap().port(), tls: true, ..Target::default() };
    let e = LoadEngine { threads: 1 }.verify(&scenario("http3", true, "/bytes/1"), &t).unwrap_err();
    assert!(e.starts_with("cannot connect: no QUIC handshake within 5 s"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}

#[test]
fn http3_counts_udp_bytes_both_ways() {
    let mut s = scenario("http3", true, "/echo");
    s.method = "POST".into();
    s.body_bytes = Some(50_000);
    s.expect.body_bytes = Some(50_000);
    let plan = Plan { connections: 1, streams: 2, stop: Stop::Requests(20), rate: None, cap: None };
    let r = measure(&s, plan, true);
    // Each way carries the 20 bodies plus QUIC's and h3's framing, which stays small next to them.
    for (way, bytes) in [("sent", r.bytes_sent), ("received", r.bytes_received)] {
        assert!((20 * 50_000..20 * 50_000 * 11 / 10).contains(&bytes), "{way} {bytes}");
    }
}
