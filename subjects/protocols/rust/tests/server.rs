//! End-to-end checks of the real binary: serving over a socket, h2c on the cleartext port,
//! malformed input to every API followed by a good call, graceful exit on SIGTERM, and the
//! one-line failure when a port is taken.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

mod common;
use common::{free_port, http_get, wait_with_timeout, IO_TIMEOUT};

const BIN: &str = env!("CARGO_BIN_EXE_protocols-rust");

/// POSTs `body` with the given extra header lines and returns the whole raw response.
fn http_post(addr: SocketAddr, path: &str, headers: &str, body: &str) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        addr.port(),
        body.len()
    )?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    Ok(response)
}

/// Splits a raw response into status line, lower-cased headers and body.
fn parse(response: &[u8]) -> (String, Vec<(String, String)>, Vec<u8>) {
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").expect("response has a header block");
    let head = std::str::from_utf8(&response[..split]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().to_owned();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').unwrap();
            (name.trim().to_ascii_lowercase(), value.trim().to_owned())
        })
        .collect();
    (status, headers, response[split + 4..].to_vec())
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

fn start(port: u16) -> common::Server {
    common::start(BIN, &["--port", &port.to_string(), "--workers", "1"], port)
}

#[test]
fn serves_payload_then_exits_on_sigterm() {
    let port = free_port();
    let mut server = start(port);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));

    let (status, headers, body) = parse(&http_get(addr, "/payload/1024").unwrap());
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(header(&headers, "content-length"), Some("1024"));
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    let mut expected = br#"{"message":""#.to_vec();
    expected.resize(1022, b'x');
    expected.extend_from_slice(br#""}"#);
    assert_eq!(body, expected);

    let pid = libc::pid_t::try_from(server.0.id()).unwrap();
    // SAFETY: kill(2) with a pid this test spawned and still owns; no memory is involved.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = wait_with_timeout(&mut server.0, Duration::from_secs(5)).expect("server exits within 5 s of SIGTERM");
    assert!(status.success(), "exit status after SIGTERM: {status}");
}

#[test]
fn every_api_answers_malformed_input_with_its_error_and_keeps_serving() {
    let port = free_port();
    let _server = start(port);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let json = "Content-Type: application/json\r\n";
    let soap = "Content-Type: text/xml\r\nSOAPAction: \"urn:wirebench:payload/GetPayload\"\r\n";
    let envelope = |size: &str| {
        format!(
            r#"<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><GetPayload xmlns="urn:wirebench:payload"><size>{size}</size></GetPayload></e:Body></e:Envelope>"#
        )
    };
    // (API, malformed call, its status, what its body says; a good call, what its body holds)
    type Call = Box<dyn Fn() -> Vec<u8>>;
    let cases: Vec<(&str, Call, &str, &str, Call, String)> = vec![
        (
            "rest",
            Box::new(move || http_get(addr, "/payload/abc").unwrap()),
            "HTTP/1.1 400 Bad Request",
            "decimal integer",
            Box::new(move || http_get(addr, "/payload/20").unwrap()),
            r#"{"message":"xxxxxx"}"#.to_string(),
        ),
        (
            "graphql",
            Box::new(move || http_post(addr, "/graphql", json, "{\"query\": \"{ payload(size: ").unwrap()),
            "HTTP/1.1 400 Bad Request",
            r#"{"errors":[{"message":"the body is not a GraphQL request"#,
            Box::new(move || {
                http_post(addr, "/graphql", json, r#"{"query":"{ payload(size: 4) { message } }"}"#).unwrap()
            }),
            r#"{"data":{"payload":{"message":"xxxx"}}}"#.to_string(),
        ),
        (
            "soap",
            Box::new(move || http_post(addr, "/soap", soap, "<e:Envelope xmlns:e=").unwrap()),
            "HTTP/1.1 500 Internal Server Error",
            "<faultcode>soap:Client</faultcode><faultstring>malformed XML",
            Box::new(move || http_post(addr, "/soap", soap, &envelope("5")).unwrap()),
            "<message>xxxxx</message>".to_string(),
        ),
    ];
    for (api, bad, bad_status, bad_says, good, good_holds) in cases {
        for _ in 0..2 {
            let (status, _, body) = parse(&bad());
            let body = String::from_utf8_lossy(&body);
            assert_eq!(status, bad_status, "{api}: {body}");
            assert!(body.contains(bad_says), "{api}: {body}");
            let (status, _, body) = parse(&good());
            let body = String::from_utf8_lossy(&body);
            assert_eq!(status, "HTTP/1.1 200 OK", "{api} after bad input: {body}");
            assert!(body.contains(&good_holds), "{api} after bad input: {body}");
        }
    }
}

/// Reads one HTTP/2 frame: (type, flags, stream id, payload).
fn read_frame(stream: &mut TcpStream) -> (u8, u8, u32, Vec<u8>) {
    let mut head = [0u8; 9];
    stream.read_exact(&mut head).unwrap();
    let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
    let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
    let mut payload = vec![0u8; len];
    stream.read_exact(&mut payload).unwrap();
    (head[3], head[4], id, payload)
}

fn write_frame(stream: &mut TcpStream, kind: u8, flags: u8, id: u32, payload: &[u8]) {
    let len = u32::try_from(payload.len()).unwrap().to_be_bytes();
    let mut frame = vec![len[1], len[2], len[3], kind, flags];
    frame.extend_from_slice(&id.to_be_bytes());
    frame.extend_from_slice(payload);
    stream.write_all(&frame).unwrap();
}

#[test]
fn h2c_prior_knowledge_answers_without_nagle_delay() {
    const SETTINGS: u8 = 0x4;
    const HEADERS: u8 = 0x1;
    const DATA: u8 = 0x0;
    const GOAWAY: u8 = 0x7;
    const END_STREAM: u8 = 0x1;
    const ACK: u8 = 0x1;
    const REQUESTS: u32 = 20;

    let port = free_port();
    let _server = start(port);
    let mut conn = TcpStream::connect_timeout(&SocketAddr::from(([127, 0, 0, 1], port)), IO_TIMEOUT).unwrap();
    conn.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    conn.set_nodelay(true).unwrap();
    conn.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    write_frame(&mut conn, SETTINGS, 0, 0, &[]);

    // GET /payload/1024 as HPACK: indexed :method GET and :scheme http, then :path and
    // :authority as literals without indexing, so every request encodes the same. The body must
    // be large enough that h2 writes it apart from the HEADERS frame (small ones are coalesced).
    let mut block = vec![0x82, 0x86, 0x04, 13];
    block.extend_from_slice(b"/payload/1024");
    block.extend_from_slice(&[0x01, 1, b'x']);

    let start = Instant::now();
    for n in 0..REQUESTS {
        let id = 2 * n + 1;
        write_frame(&mut conn, HEADERS, 0x4 | END_STREAM, id, &block);
        let mut status_seen = false;
        let mut body = Vec::new();
        loop {
            let (kind, flags, frame_id, payload) = read_frame(&mut conn);
            match kind {
                SETTINGS if flags & ACK == 0 => write_frame(&mut conn, SETTINGS, ACK, 0, &[]),
                GOAWAY => panic!("server sent GOAWAY: {payload:?}"),
                HEADERS if frame_id == id => {
                    // 0x88 is the static-table entry ":status: 200".
                    status_seen = payload.first() == Some(&0x88);
                    if flags & END_STREAM != 0 {
                        break;
                    }
                }
                DATA if frame_id == id => {
                    body.extend_from_slice(&payload);
                    if flags & END_STREAM != 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        assert!(status_seen, "request {n}: status 200");
        assert_eq!(body.len(), 1024, "request {n}");
        assert!(body.starts_with(br#"{"message":"x"#), "request {n}");
    }
    // With Nagle's algorithm on, each response's DATA frame would wait ~40 ms for a delayed ACK.
    let elapsed = start.elapsed();
    assert!(
        elapsed < Duration::from_millis(20 * u64::from(REQUESTS)),
        "{REQUESTS} sequential h2c requests took {elapsed:?}"
    );
}

#[test]
fn taken_port_fails_with_one_line() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    common::assert_bind_failure(BIN, &["--port", &port.to_string()], port);
}

#[test]
fn taken_tls_port_fails_with_one_line() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let tls_port = taken.local_addr().unwrap().port();
    let free = free_port().to_string();
    common::assert_bind_failure(BIN, &["--port", &free, "--tls-port", &tls_port.to_string()], tls_port);
}

#[test]
fn bad_flag_is_one_line_usage_error() {
    let (_, err) = common::one_line_failure(BIN, &["--port", "1", "--bogus"]);
    assert_eq!(err, "error: unexpected argument '--bogus' found\n");
}

/// One request with `method` and no body over its own connection: the whole raw response.
fn http_request(addr: SocketAddr, method: &str, path: &str) -> Vec<u8> {
    let mut stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT).unwrap();
    stream.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    write!(stream, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n", addr.port()).unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    response
}

/// RFC 9110 §9.1 and §9.3.2: what answers GET answers HEAD, with GET's headers and no content;
/// §15.5.6: a 405 names the allowed methods in `Allow`. On every API's GET resource.
#[test]
fn head_gets_gets_headers_and_a_405_says_what_is_allowed() {
    let port = free_port();
    let _server = start(port);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    for path in
        ["/health", "/payload/1024", "/hol?ms=0", "/stream?chunks=3&size=20", "/sse?size=5&count=2", "/soap?wsdl"]
    {
        let (get_status, get_headers, get_body) = parse(&http_request(addr, "GET", path));
        let (status, headers, body) = parse(&http_request(addr, "HEAD", path));
        assert_eq!((status.as_str(), get_status.as_str()), ("HTTP/1.1 200 OK", "HTTP/1.1 200 OK"), "{path}");
        assert!(body.is_empty(), "HEAD {path} sent {} bytes of content", body.len());
        assert_eq!(header(&headers, "content-type"), header(&get_headers, "content-type"), "{path}");
        if let Some(len) = header(&get_headers, "content-length") {
            assert_eq!(len, get_body.len().to_string(), "{path}");
        }
    }
    for (method, path, allow) in [
        ("POST", "/payload/10", "GET, HEAD"),
        ("DELETE", "/health", "GET, HEAD"),
        ("GET", "/echo", "POST"),
        ("PUT", "/graphql", "GET, HEAD, POST"),
    ] {
        let (status, headers, _) = parse(&http_request(addr, method, path));
        assert_eq!(status, "HTTP/1.1 405 Method Not Allowed", "{method} {path}");
        let mut methods: Vec<&str> = header(&headers, "allow").unwrap_or_default().split(',').map(str::trim).collect();
        methods.sort_unstable();
        assert_eq!(methods.join(", "), allow, "{method} {path}");
    }
}
