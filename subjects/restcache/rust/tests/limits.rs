//! The connection limits of openapi.yaml, on the real service over TCP with short limits: an idle,
//! a half-sent and a slow-bodied connection are let go; a request without `Host` is refused.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use restcache_rust::serve::{self, Limits};
use restcache_rust::{api, store};

const LIMITS: Limits = Limits { head: Duration::from_millis(300), body: Duration::from_millis(300) };
/// Far above the limits: a connection still open after this was never going to be closed.
const PATIENCE: Duration = Duration::from_secs(10);

/// A service on an ephemeral port with its own SQLite file; stops when the runtime is dropped.
fn service() -> (tokio::runtime::Runtime, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let url = format!("sqlite:{}", dir.path().join("cache.db").display());
    let address = rt.block_on(async {
        let store = store::Store::open(&url, 4).await.unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        tokio::spawn(serve::serve(listener, api::router(store, LIMITS), LIMITS, std::future::pending()));
        address
    });
    (rt, address, dir)
}

fn connect(address: &str) -> TcpStream {
    let s = TcpStream::connect(address).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    s
}

/// Everything the server sends until it closes; panics if it has not closed within `PATIENCE`.
fn until_closed(mut s: TcpStream) -> (String, Duration) {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!(
                "the server kept the connection open ({e}) after {:?}: {}",
                start.elapsed(),
                String::from_utf8_lossy(&got)
            ),
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), start.elapsed())
}

/// One request on a new connection; the answer's status and body (`Connection: close`).
fn call(address: &str, request: &str) -> (u16, String) {
    let mut s = connect(address);
    s.write_all(request.as_bytes()).unwrap();
    let (answer, _) = until_closed(s);
    let status = answer.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, answer)
}

#[test]
fn idle_and_half_sent_connections_are_closed() {
    let (_rt, address, _dir) = service();
    // Nothing sent at all.
    let (got, _) = until_closed(connect(&address));
    assert!(got.is_empty() || got.contains(" 408 "), "an idle connection got {got:?}");
    // Half a head.
    let mut s = connect(&address);
    s.write_all(b"GET /health HTTP/1.1\r\nHo").unwrap();
    until_closed(s);
    // Idle after an answer on a kept-alive connection.
    let mut s = connect(&address);
    s.write_all(format!("GET /health HTTP/1.1\r\nHost: {address}\r\n\r\n").as_bytes()).unwrap();
    let (got, _) = until_closed(s);
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");
}

#[test]
fn a_body_slower_than_the_limit_is_408_and_the_connection_closes() {
    let (_rt, address, _dir) = service();
    let (status, answer) =
        call(&address, &format!("GET /api/ HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"));
    assert_eq!(status, 200, "{answer}");
    let api = answer.split("\"apiKey\":\"").nth(1).and_then(|r| r.split('"').next()).unwrap().to_string();
    for known in [true, false] {
        // The API key decides whether the body is needed (404 for an unknown one, read anyway).
        let api = if known { api.clone() } else { "00000000-0000-4000-8000-000000000001".into() };
        let mut s = connect(&address);
        write!(s, "POST /api/{api}/k HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{{\"val").unwrap();
        let (got, took) = until_closed(s);
        let want = if known { "HTTP/1.1 408" } else { "HTTP/1.1 404" };
        assert!(got.starts_with(want), "a stalled body (API key known: {known}) got {got:?} after {took:?}");
        assert!(!known || got.to_ascii_lowercase().contains("connection: close"), "{got}");
    }
}

#[test]
fn http_1_1_needs_exactly_one_host() {
    let (_rt, address, _dir) = service();
    let (status, answer) = call(&address, "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 400, "no Host: {answer}");
    let (status, answer) =
        call(&address, &format!("GET /health HTTP/1.1\r\nHost: {address}\r\nHost: other\r\nConnection: close\r\n\r\n"));
    assert_eq!(status, 400, "two Host fields: {answer}");
    // HTTP/1.0 has no Host requirement.
    let (status, answer) = call(&address, "GET /health HTTP/1.0\r\n\r\n");
    assert_eq!(status, 200, "HTTP/1.0 without Host: {answer}");
}

#[test]
fn the_open_files_limit_is_raised_to_the_hard_one() {
    let now = serve::raise_open_files().unwrap();
    let (soft, hard) = rlimit::Resource::NOFILE.get().unwrap();
    assert_eq!((now, soft), (hard, hard));
}
