//! End-to-end checks of the WebSocket binary: request/response and push over ws:// and wss://
//! through the instrument's `websocket` driver; bad frames sent by hand each close their
//! connection with RFC 6455's code while the server goes on serving; a plain GET of /ws is told
//! to upgrade.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use sha2::{Digest, Sha256};
use wirebench_core::runner::{Executor, Target};
use wirebench_core::suite::{Expect, Scenario};
use wirebench_load::LoadEngine;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_protocols-ws");

fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|b| format!("{b:02x}")).collect()
}

fn exchange(request: &str, frames: u64, size: usize, tls: bool) -> Scenario {
    let text = format!(
        "id = \"t\"\nsubject = \"s\"\ndriver = \"websocket\"\ntls = {tls}\npath = \"/ws\"\nbody = \"{request}\"\n\
         params = {{ frames = {frames} }}\nconnections = 1\nrequests = 1"
    );
    let mut s: Scenario = toml::from_str(&text).unwrap();
    let body = vec![b'x'; size * frames as usize];
    s.expect = Expect {
        status: 101,
        body_bytes: Some(body.len() as u64),
        body_sha256: Some(sha256_hex(&body)),
        messages: Some(frames),
    };
    s
}

/// Opens a WebSocket by hand and returns the stream after the 101.
fn raw_session(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(common::IO_TIMEOUT)).unwrap();
    write!(
        s,
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    assert!(head.to_ascii_lowercase().contains("sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo="), "{head}");
    s
}

/// A frame with FIN, `opcode`, and a mask unless `masked` is false.
fn frame(opcode: u8, payload: &[u8], masked: bool) -> Vec<u8> {
    let mut f = vec![0x80 | opcode];
    let mask_bit = if masked { 0x80 } else { 0 };
    match payload.len() {
        n if n < 126 => f.push(mask_bit | n as u8),
        n if n <= 0xffff => {
            f.push(mask_bit | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(mask_bit | 127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    let key = [0x37, 0xfa, 0x21, 0x3d];
    if masked {
        f.extend_from_slice(&key);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    } else {
        f.extend_from_slice(payload);
    }
    f
}

/// Reads server frames until a close frame; returns its code.
fn close_code(s: &mut TcpStream) -> u16 {
    loop {
        let mut head = [0u8; 2];
        s.read_exact(&mut head).unwrap();
        assert_eq!(head[1] & 0x80, 0, "server frames are not masked");
        let len = match head[1] & 0x7f {
            126 => {
                let mut l = [0u8; 2];
                s.read_exact(&mut l).unwrap();
                u16::from_be_bytes(l) as usize
            }
            127 => {
                let mut l = [0u8; 8];
                s.read_exact(&mut l).unwrap();
                u64::from_be_bytes(l) as usize
            }
            n => n as usize,
        };
        let mut payload = vec![0u8; len];
        s.read_exact(&mut payload).unwrap();
        if head[0] & 0x0f == 0x8 {
            return u16::from_be_bytes([payload[0], payload[1]]);
        }
    }
}

#[test]
fn requests_and_pushes_answer_over_ws_and_wss_and_bad_frames_get_their_close_codes() {
    let (plain, secure) = common::two_free_ports();
    let _server =
        common::start(BIN, &["--port", &plain.to_string(), "--tls-port", &secure.to_string(), "--workers", "1"], plain);
    let addr = SocketAddr::from(([127, 0, 0, 1], plain));
    let good = |tls: bool| {
        let target =
            Target { host: "127.0.0.1".into(), port: if tls { secure } else { plain }, tls, ..Target::default() };
        for s in
            [exchange("1024", 1, 1024, tls), exchange("1048576", 1, 1 << 20, tls), exchange("push 100 7", 7, 100, tls)]
        {
            LoadEngine { threads: 1 }.verify(&s, &target).unwrap_or_else(|e| panic!("{:?} tls={tls}: {e}", s.body));
        }
    };
    good(false);
    good(true);

    let oversized = vec![b'a'; 100 << 10];
    let cases: [(&str, Vec<u8>, u16); 5] = [
        ("a frame over 64 KiB", frame(0x1, &oversized, true), 1009),
        ("a text frame that is not UTF-8", frame(0x1, &[0xff, 0xfe, 0xfd], true), 1007),
        ("an unmasked client frame", frame(0x1, b"1024", false), 1002),
        ("a binary frame", frame(0x2, b"1024", true), 1003),
        ("a command that does not parse", frame(0x1, b"hello", true), 1008),
    ];
    for (what, bytes, code) in cases {
        let mut s = raw_session(addr);
        // The server may close before reading all of an oversized frame.
        let _ = s.write_all(&bytes);
        assert_eq!(close_code(&mut s), code, "{what}");
        good(false);
    }

    let response = common::http_get(addr, "/ws").unwrap();
    assert!(response.starts_with(b"HTTP/1.1 426"), "{}", String::from_utf8_lossy(&response));
}

#[test]
fn taken_ports_fail_with_one_line() {
    common::assert_taken_ports_fail(BIN);
}
