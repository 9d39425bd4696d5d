//! The checks every MQTT broker row's subject must pass, shared by the tests of
//! `protocols-mqtt` (behind Mosquitto) and of `protocols-rumqttd` (its embedded broker): round
//! trips at QoS 1 and 0, 1 KB and 1 MB, each echo checked with the instrument's `mqtt` driver; a
//! malformed packet and a publish over the size limit close only the sender's connection while
//! other clients' round trips go on.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use rumqttc::mqttbytes::v4::{Connect, Packet, Publish};
use rumqttc::mqttbytes::QoS;
use sha2::{Digest, Sha256};
use wirebench_core::runner::{Executor, Plan, Stop, Target};
use wirebench_core::suite::Scenario;
use wirebench_load::LoadEngine;

/// One request of `size` filler bytes at `qos`, its echo expected back.
fn round_trip(size: usize, qos: u8) -> Scenario {
    let filler = wirebench_load::filler(size);
    let sha: String = Sha256::digest(&filler).iter().map(|b| format!("{b:02x}")).collect();
    let text = format!(
        "id = \"t\"\nsubject = \"s\"\ndriver = \"mqtt\"\npath = \"/\"\nbody_bytes = {size}\nparams = {{ qos = {qos} }}\n\
         connections = 1\nrequests = 1\nexpect = {{ status = 0, messages = 1, body_bytes = {size}, body_sha256 = \"{sha}\" }}"
    );
    toml::from_str(&text).unwrap()
}

fn target(port: u16) -> Target {
    Target { host: "127.0.0.1".into(), port, tls: false, ..Target::default() }
}

/// Encodes one packet.
pub fn bytes_of(packet: Packet) -> Vec<u8> {
    let mut buf = BytesMut::new();
    packet.write(&mut buf, usize::MAX).unwrap();
    buf.to_vec()
}

/// Sends `before` (and reads the CONNACK when it starts with a CONNECT), then `bad`; the broker
/// must close this connection within a few seconds.
fn assert_closes(port: u16, connect: bool, bad: &[u8], what: &str) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    if connect {
        s.write_all(&bytes_of(Packet::Connect(Connect::new(format!("bad-{}", std::process::id()))))).unwrap();
        let mut connack = [0u8; 4];
        s.read_exact(&mut connack).unwrap();
        assert_eq!(connack, [0x20, 0x02, 0x00, 0x00], "{what}: CONNACK accepted");
    }
    // The broker may close while we are still writing (a reset): that is the answer too.
    let _ = s.write_all(bad);
    let mut rest = Vec::new();
    let started = Instant::now();
    match s.read_to_end(&mut rest) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
        Err(e) => panic!("{what}: the connection stayed open ({e}) after {:?}", started.elapsed()),
    }
}

/// Everything one broker must do; `port` is where clients connect.
pub fn check_broker(port: u16) {
    let engine = LoadEngine { threads: 1 };
    for qos in [1, 0] {
        for size in [1024, 1 << 20] {
            engine.verify(&round_trip(size, qos), &target(port)).unwrap_or_else(|e| panic!("qos {qos}, {size} B: {e}"));
        }
    }
    // Two clients keep doing round trips while bad clients come and go.
    let steady = std::thread::spawn(move || {
        let plan =
            Plan { connections: 2, streams: 1, stop: Stop::Duration(Duration::from_secs(2)), rate: None, cap: None };
        LoadEngine { threads: 1 }.measure(&round_trip(1024, 1), &plan, &target(port), &AtomicU64::new(0))
    });
    std::thread::sleep(Duration::from_millis(300));
    // A reserved packet type as the first packet.
    assert_closes(port, false, &[0xf0, 0x00], "reserved packet type");
    // A PUBLISH whose topic is longer than the packet.
    assert_closes(port, true, &[0x30, 0x02, 0x00, 0x05], "truncated PUBLISH");
    // A PUBLISH over the 2 MiB packet limit both brokers are given.
    let huge = bytes_of(Packet::Publish(Publish::new("bench/request/qos0/bad", QoS::AtMostOnce, vec![b'x'; 3 << 20])));
    assert_closes(port, true, &huge, "3 MiB PUBLISH");
    let steady = steady.join().unwrap().unwrap();
    assert!(steady.requests > 0, "round trips went on");
    assert_eq!(steady.errors, 0, "{:?}", steady.first_error);
    // And a new client still gets its echo.
    engine.verify(&round_trip(1024, 1), &target(port)).unwrap();
}
