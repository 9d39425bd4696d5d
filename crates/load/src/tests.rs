//! Every registered driver, over cleartext and TLS, against one in-test hyper server that
//! serves HTTP/1.1 and HTTP/2 on the same ports (as the real subjects do).

use super::*;
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
            .serve_connection(io, hyper::service::service_fn(handle))
            .await;
    });
}

fn servers() -> &'static (u16, u16) {
    static S: std::sync::OnceLock<(u16, u16)> = std::sync::OnceLock::new();
    S.get_or_init(server)
}

fn scenario(driver: &str, tls: bool, path: &str) -> Scenario {
    let text = format!(
        "id = \"t\"\nsubject = \"s\"\ndriver = \"{driver}\"\ntls = {tls}\npath = \"{path}\"\nconnections = 2\nrequests = 1"
    );
    toml::from_str(&text).unwrap()
}

fn target(tls: bool) -> Target {
    let (plain, secure) = *servers();
    Target { host: "127.0.0.1".into(), port: if tls { secure } else { plain }, tls }
}

/// Every registered driver over both transports.
fn every_driver() -> Vec<(&'static str, bool)> {
    DRIVERS.iter().flat_map(|(id, _, _)| [(*id, false), (*id, true)]).collect()
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
            body_bytes: Some(1024),
            body_sha256: Some(sha256_hex(&[b'x'; 1024])),
            messages: Some(1),
            ..Expect::default()
        };
        LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_or_else(|e| panic!("{label}: {e}"));

        s.expect.messages = Some(2);
        let e = LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_err();
        assert_eq!(e, "1 messages, expected 2", "{label}");
        s.expect.messages = None;

        s.expect.body_bytes = Some(1000);
        let e = LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_err();
        assert_eq!(e, "body is 1024 bytes, expected 1000", "{label}");

        s.expect.body_bytes = None;
        s.expect.body_sha256 = Some("00".repeat(32));
        let e = LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_err();
        assert!(e.starts_with("body sha256 "), "{label}: {e}");

        let mut s = scenario(driver, tls, "/chunked");
        s.expect = Expect { body_bytes: Some(11), body_sha256: Some(sha256_hex(b"hello world")), ..Expect::default() };
        LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_or_else(|e| panic!("{label}: {e}"));

        let s = scenario(driver, tls, "/fail");
        let e = LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_err();
        assert_eq!(e, "status 500, expected 200", "{label}");
    }
}

fn measure(s: &Scenario, plan: Plan, tls: bool) -> LoadResult {
    let live = AtomicU64::new(0);
    let r = LoadEngine { threads: 2 }.measure(s, &plan, &target(tls), &live).unwrap();
    assert_eq!(live.load(std::sync::atomic::Ordering::Relaxed), r.requests, "live counter follows completions");
    r
}

#[test]
fn every_driver_runs_closed_and_open_model_loads_to_their_stop() {
    for (driver, tls) in every_driver() {
        let label = format!("{driver} tls={tls}");
        let streams = if driver == "http1" { 1 } else { 3 };
        let mut s = scenario(driver, tls, "/bytes/1024");
        s.expect.body_bytes = Some(1024);

        let plan = Plan { connections: 3, streams, stop: Stop::Requests(300), rate: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.errors), (300, 0), "{label}");
        assert!(r.bytes_received > 300 * 1024 && r.bytes_sent > 300 * 20, "{label}: {r:?}");
        assert!(r.latency.min >= 1 && r.latency.p50 <= r.latency.p99 && r.latency.p99 <= r.latency.max, "{label}");
        assert_eq!(r.latency.curve.len(), 12);

        let plan = Plan { connections: 2, streams, stop: Stop::Duration(Duration::from_millis(200)), rate: None };
        let r = measure(&s, plan, tls);
        assert!(r.requests > 0 && r.errors == 0, "{label}: {r:?}");
        assert!(r.duration >= Duration::from_millis(200), "{label}: {:?}", r.duration);

        // 100 requests at 1000/s take at least 99 ms: the arrival schedule is kept.
        let plan = Plan { connections: 2, streams, stop: Stop::Requests(100), rate: Some(1000.0) };
        let r = measure(&s, plan, tls);
        assert_eq!(r.requests, 100, "{label}");
        assert!(r.duration >= Duration::from_millis(99), "{label}: {:?}", r.duration);
    }
}

#[test]
fn wrong_answers_are_counted_not_timed() {
    for (driver, tls) in every_driver() {
        let s = scenario(driver, tls, "/fail");
        let plan = Plan { connections: 1, streams: 1, stop: Stop::Requests(20), rate: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.errors), (0, 20), "{driver}");
        assert_eq!(r.first_error.as_deref(), Some("status 500, expected 200"));
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
        LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_or_else(|e| panic!("{driver} {tls}: {e}"));
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
        LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_or_else(|e| panic!("{driver} {tls}: {e}"));
        s.body = None;
        s.body_file = Some(file.path().display().to_string());
        s.expect.body_sha256 = Some(sha256_hex(b"\x00\x01binary\xff"));
        LoadEngine { threads: 1 }.verify(&s, &target(tls)).unwrap_or_else(|e| panic!("{driver} {tls}: {e}"));
        let plan = Plan { connections: 1, streams: 1, stop: Stop::Requests(10), rate: None };
        let r = measure(&s, plan, tls);
        assert_eq!((r.requests, r.messages, r.errors), (10, 10, 0), "{driver} {tls}");
    }
    let mut s = scenario("http1", false, "/echo");
    s.body_file = Some("/nonexistent/body.bin".into());
    let e = LoadEngine { threads: 1 }.verify(&s, &target(false)).unwrap_err();
    assert!(e.starts_with("body_file `/nonexistent/body.bin`: cannot read"), "{e}");
}

#[test]
fn http1_refuses_multiplexing_and_closed_ports_fail_cleanly() {
    let s = scenario("http1", false, "/bytes/1");
    let plan = Plan { connections: 1, streams: 4, stop: Stop::Requests(4), rate: None };
    let e = LoadEngine { threads: 1 }.measure(&s, &plan, &target(false), &AtomicU64::new(0)).unwrap_err();
    assert!(e.starts_with("http1 carries one request at a time"), "{e}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let t = Target { host: "127.0.0.1".into(), port: closed, tls: false };
    let e = LoadEngine { threads: 1 }.verify(&s, &t).unwrap_err();
    assert!(e.starts_with("cannot connect"), "{e}");
}
