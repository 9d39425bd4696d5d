//! End-to-end checks of the REST API over HTTP/3: every endpoint answers h3 requests (through
//! the instrument's `http3` driver) with the same status and bytes as h2 over TLS, bad input
//! included; malformed HTTP/3 streams get h3's error while other connections go on; a taken UDP
//! port fails the start with one line.

use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;

use wirebench_core::runner::Target;
use wirebench_core::suite::Scenario;
use wirebench_load::io::Counters;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_protocols-rust");

/// The server with its TLS port (TCP) and HTTP/3 port (UDP) on the same number, as nothing
/// forbids; returns it with (cleartext port, TLS/h3 port).
fn start() -> (common::Server, u16, u16) {
    let (plain, secure) = common::two_free_ports();
    let s = secure.to_string();
    let server = common::start(BIN, &["--port", &plain.to_string(), "--tls-port", &s, "--h3-port", &s], plain);
    (server, plain, secure)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// One request through the instrument's `driver`: (status, body) or the driver's error.
async fn fetch(driver: &str, port: u16, method: &str, path: &str, body_bytes: usize) -> Result<(u16, Vec<u8>), String> {
    let text = format!(
        "id = \"t\"\nsubject = \"s\"\ndriver = \"{driver}\"\ntls = true\nmethod = \"{method}\"\npath = \"{path}\"\n\
         body_bytes = {body_bytes}\nconnections = 1\nrequests = 1"
    );
    let s: Scenario = toml::from_str(&text).unwrap();
    let target = Target { host: "127.0.0.1".into(), port, tls: true, ..Target::default() };
    let request = Rc::new(wirebench_load::request_of(&s, &target).map_err(|e| e.to_string())?);
    let driver = wirebench_load::driver(driver).map_err(|e| e.to_string())?();
    let counters = Rc::new(Counters::default());
    let mut channels = driver.connect(&target, &request, 1, &counters).await.map_err(|e| e.to_string())?;
    let reply = channels[0].exchange(true).await.map_err(|e| e.to_string())?;
    Ok((reply.status, reply.body.unwrap_or_default()))
}

#[test]
fn every_endpoint_answers_over_h3_as_over_h2_with_tls_bad_input_included() {
    let (_server, _, port) = start();
    let requests: &[(&str, &str, usize, u16)] = &[
        ("GET", "/health", 0, 200),
        ("GET", "/payload/14", 0, 200),
        ("GET", "/payload/1024", 0, 200),
        ("GET", "/payload/1048576", 0, 200),
        ("GET", "/hol?ms=0", 0, 200),
        ("GET", "/stream", 0, 200),
        ("GET", "/stream?chunks=3&size=20", 0, 200),
        ("GET", "/sse?size=5&count=3", 0, 200),
        ("POST", "/echo", 100_000, 200),
        ("GET", "/payload/5", 0, 400),
        ("GET", "/payload/x", 0, 400),
        ("GET", "/hol?ms=20000", 0, 400),
        ("GET", "/hol?ms=x", 0, 400),
        ("GET", "/stream?chunks=0", 0, 400),
        ("GET", "/sse?count=0", 0, 400),
        ("POST", "/payload/10", 0, 405),
        ("GET", "/echo", 0, 405),
        ("GET", "/nope", 0, 404),
        ("POST", "/echo", 17 << 20, 413),
    ];
    runtime().block_on(tokio::task::LocalSet::new().run_until(async {
        for &(method, path, body, status) in requests {
            let h3 =
                fetch("http3", port, method, path, body).await.unwrap_or_else(|e| panic!("h3 {method} {path}: {e}"));
            let h2 =
                fetch("http2", port, method, path, body).await.unwrap_or_else(|e| panic!("h2 {method} {path}: {e}"));
            assert_eq!(h3.0, status, "h3 {method} {path}: {}", String::from_utf8_lossy(&h3.1));
            assert!(h3 == h2, "{method} {path}: h3 and h2 differ: {} vs {} bytes", h3.1.len(), h2.1.len());
        }
    }));
}

/// A raw QUIC connection offering h3, for writing frames by hand.
async fn raw_connection(port: u16) -> quinn::Connection {
    let crypto =
        wirebench_load::tls::client_config(b"h3", &[&rustls::version::TLS13], &Default::default(), None).unwrap();
    let crypto = quinn::crypto::rustls::QuicClientConfig::try_from(crypto).unwrap();
    let endpoint = quinn::Endpoint::client(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
    let config = quinn::ClientConfig::new(Arc::new(crypto));
    endpoint.connect_with(config, SocketAddr::from(([127, 0, 0, 1], port)), "localhost").unwrap().await.unwrap()
}

/// An h3 client on a connection of its own, its connection driven on the local task set.
async fn client(port: u16) -> h3::client::SendRequest<h3_quinn::OpenStreams, bytes::Bytes> {
    let (mut driver, send) = h3::client::new(h3_quinn::Connection::new(raw_connection(port).await)).await.unwrap();
    tokio::task::spawn_local(async move { std::future::poll_fn(|cx| driver.poll_close(cx)).await });
    send
}

/// Writes `bytes` on a new request stream of `connection` and returns how the server ended it:
/// the code it reset the stream with, or the error it closed the connection with (an answer
/// is a failure; a stream ended without one is followed by the connection's close).
async fn malformed(connection: &quinn::Connection, bytes: &[u8]) -> String {
    let (mut send, mut recv) = connection.open_bi().await.unwrap();
    send.write_all(bytes).await.unwrap();
    let _ = send.finish();
    match tokio::time::timeout(common::IO_TIMEOUT, recv.read_to_end(1 << 20)).await {
        Ok(Ok(answer)) if !answer.is_empty() => panic!("answered {} bytes to {bytes:?}", answer.len()),
        Ok(Err(quinn::ReadToEndError::Read(quinn::ReadError::Reset(code)))) => format!("stream reset {code}"),
        Err(_) => panic!("{bytes:?}: no error within {:?}", common::IO_TIMEOUT),
        Ok(_) => match tokio::time::timeout(common::IO_TIMEOUT, connection.closed()).await {
            Ok(reason) => format!("connection closed: {reason}"),
            Err(_) => panic!("{bytes:?}: the stream ended without an answer, the connection stayed open"),
        },
    }
}

/// A 1 KB payload through `bystander`'s connection and through a fresh one: (status, length) each.
async fn both_served(
    bystander: &mut h3::client::SendRequest<h3_quinn::OpenStreams, bytes::Bytes>,
    port: u16,
) -> (u16, usize, u16, usize) {
    let request = http::Request::get(format!("https://127.0.0.1:{port}/payload/1024")).body(()).unwrap();
    let mut stream = bystander.send_request(request).await.unwrap();
    stream.finish().await.unwrap();
    let status = stream.recv_response().await.unwrap().status().as_u16();
    let mut len = 0;
    while let Some(chunk) = stream.recv_data().await.unwrap() {
        len += bytes::Buf::remaining(&chunk);
    }
    let fresh = fetch("http3", port, "GET", "/payload/1024", 0).await.unwrap();
    (status, len, fresh.0, fresh.1.len())
}

#[test]
fn malformed_streams_get_h3_errors_and_other_connections_go_on() {
    let (_server, _, port) = start();
    runtime().block_on(tokio::task::LocalSet::new().run_until(async {
        // A client connected before the bad ones, which must keep being served on its connection.
        let mut bystander = client(port).await;
        assert_eq!(both_served(&mut bystander, port).await, (200, 1024, 200, 1024));
        // RFC 9114 section 4.1: DATA before HEADERS closes the connection with
        // H3_FRAME_UNEXPECTED (0x105 = 261); a header block QPACK cannot decode with
        // QPACK_DECOMPRESSION_FAILED (0x200 = 512); a stream ending without a request is reset
        // with H3_REQUEST_INCOMPLETE (0x10d = 269).
        for (bytes, code) in [
            (&[0x00, 0x03, b'a', b'b', b'c'][..], ("connection closed", "(code 261)")),
            (&[0x01, 0x04, 0xff, 0xff, 0xff, 0xff][..], ("connection closed", "(code 512)")),
            (&[][..], ("stream reset", "269")),
        ] {
            let connection = raw_connection(port).await;
            let ended = malformed(&connection, bytes).await;
            assert!(ended.starts_with(code.0) && ended.ends_with(code.1), "{bytes:?}: {ended}");
            assert_eq!(both_served(&mut bystander, port).await, (200, 1024, 200, 1024), "after {bytes:?}");
        }
    }));
}

#[test]
fn a_taken_udp_port_fails_with_one_line() {
    let taken = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let h3 = taken.local_addr().unwrap().port();
    let (code, err) =
        common::one_line_failure(BIN, &["--port", &common::free_port().to_string(), "--h3-port", &h3.to_string()]);
    assert_eq!(code, Some(1), "{err:?}");
    assert!(err.starts_with(&format!("protocols-rust: cannot bind UDP 127.0.0.1:{h3}: ")), "{err:?}");
}

/// As over TCP: HEAD gets GET's status and headers and no content, and a 405 carries `Allow`
/// (RFC 9110 §9.3.2, §15.5.6).
#[test]
fn head_and_allow_over_h3() {
    let (_server, _, port) = start();
    runtime().block_on(tokio::task::LocalSet::new().run_until(async {
        let mut send = client(port).await;
        let mut ask = async |method: http::Method, path: &str| {
            let request = http::Request::builder()
                .method(method)
                .uri(format!("https://127.0.0.1:{port}{path}"))
                .body(())
                .unwrap();
            let mut stream = send.send_request(request).await.unwrap();
            stream.finish().await.unwrap();
            let response = stream.recv_response().await.unwrap();
            let mut len = 0;
            while let Some(chunk) = stream.recv_data().await.unwrap() {
                len += bytes::Buf::remaining(&chunk);
            }
            let header = |name| response.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
            (response.status().as_u16(), header(http::header::CONTENT_TYPE), header(http::header::ALLOW), len)
        };
        for path in ["/payload/1024", "/health", "/sse?size=5&count=2"] {
            let (status, content_type, _, len) = ask(http::Method::GET, path).await;
            assert!(status == 200 && len > 0, "GET {path}");
            assert_eq!(ask(http::Method::HEAD, path).await, (200, content_type, None, 0), "HEAD {path}");
        }
        assert_eq!(ask(http::Method::POST, "/payload/10").await, (405, None, Some("GET, HEAD".into()), 0));
        assert_eq!(ask(http::Method::GET, "/echo").await, (405, None, Some("POST".into()), 0));
    }));
}
