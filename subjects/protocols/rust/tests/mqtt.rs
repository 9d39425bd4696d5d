//! End-to-end checks of the MQTT subject through both brokers, with the instrument's `mqtt`
//! driver: round trips at QoS 1 and 0, 1 KB and 1 MB, each echo checked; a malformed packet and
//! a publish over the size limit close only the sender's connection while other clients' round
//! trips go on. Mosquitto is started from the protocols suite's own service definition by the
//! runner's supervisor, so the test runs what `make run` runs (`make setup` installs it).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use rumqttc::mqttbytes::v4::{Connect, Packet, Publish};
use rumqttc::mqttbytes::QoS;
use sha2::{Digest, Sha256};
use wirebench_core::runner::{Executor, Plan, Stop, Target};
use wirebench_core::suite::{Scenario, Suite};
use wirebench_core::supervisor::{Launcher, Supervisor};
use wirebench_load::LoadEngine;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_protocols-mqtt");

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().unwrap()
}

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
fn bytes_of(packet: Packet) -> Vec<u8> {
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
fn check_broker(port: u16) {
    let engine = LoadEngine { threads: 1 };
    for qos in [1, 0] {
        for size in [1024, 1 << 20] {
            engine.verify(&round_trip(size, qos), &target(port)).unwrap_or_else(|e| panic!("qos {qos}, {size} B: {e}"));
        }
    }
    // Two clients keep doing round trips while bad clients come and go.
    let steady = std::thread::spawn(move || {
        let plan = Plan { connections: 2, streams: 1, stop: Stop::Duration(Duration::from_secs(2)), rate: None };
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

#[test]
fn the_embedded_broker_echoes_and_refuses_bad_clients_alone() {
    let (http, mqtt) = common::two_free_ports();
    let _server = common::start(BIN, &["--port", &http.to_string(), "--mqtt-port", &mqtt.to_string()], http);
    check_broker(mqtt);
}

#[test]
fn mosquitto_as_the_suite_starts_it_echoes_and_refuses_bad_clients_alone() {
    let root = workspace();
    let suite = Suite::load(&root.join("suites/protocols.toml"), &root, &wirebench_load::Registry).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::unpinned(root, runs.path().into());
    let mut broker =
        supervisor.start_service("mosquitto", &suite.services["mosquitto"]).unwrap_or_else(|e| panic!("{e}"));
    let port = broker.ports()["mqtt"];
    let http = common::free_port();
    let broker_addr = format!("127.0.0.1:{port}");
    let responder = common::start(BIN, &["--port", &http.to_string(), "--broker", &broker_addr], http);
    check_broker(port);
    drop(responder);
    let pid = broker.pid().unwrap();
    broker.stop();
    assert!(!Path::new(&format!("/proc/{pid}/status")).exists(), "the broker was stopped");
}

#[test]
fn without_a_broker_address_or_with_a_taken_port_it_fails_in_one_line() {
    let http = common::free_port().to_string();
    let mut child = common::command(BIN, &["--port", &http]).spawn().unwrap();
    let status = common::wait_with_timeout(&mut child, common::STARTUP_LIMIT).expect("exits");
    assert!(!status.success());
    let err = common::stderr_of(&mut child);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--mqtt-port") || err.contains("--broker"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    common::assert_bind_failure(BIN, &["--port", &http, "--mqtt-port", &port.to_string()], port);
}

/// Reads the next whole packet from `s` into `buf` (5 s at most).
fn read_packet(s: &mut TcpStream, buf: &mut BytesMut) -> Packet {
    loop {
        match Packet::read(buf, 64 << 20) {
            Ok(p) => return p,
            Err(rumqttc::mqttbytes::Error::InsufficientBytes(_)) => {
                let mut chunk = [0u8; 4096];
                let n = s.read(&mut chunk).expect("the responder writes within 5 s");
                assert!(n > 0, "the responder closed the connection");
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(e) => panic!("not MQTT: {e}"),
        }
    }
}

/// Every leg keeps the row's QoS whatever the broker does: the responder subscribes to each QoS
/// level's requests at that level, and echoes a request at its topic's level even when a broker
/// delivers it at a higher QoS than it was published with (rumqttd 0.20 delivers at the granted
/// QoS, against MQTT 3.1.1 [MQTT-3.8.4-6]). Checked by playing the broker.
#[test]
fn the_responder_keeps_each_rows_qos_on_its_own_legs() {
    use rumqttc::mqttbytes::v4::{ConnAck, ConnectReturnCode, SubAck, SubscribeReasonCode};
    let broker = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let broker_addr = broker.local_addr().unwrap().to_string();
    let http = common::free_port();
    let _responder =
        common::Server(common::command(BIN, &["--port", &http.to_string(), "--broker", &broker_addr]).spawn().unwrap());
    broker.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + common::STARTUP_LIMIT;
    let mut s = loop {
        match broker.accept() {
            Ok((s, _)) => break s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("the responder did not connect: {e}"),
        }
    };
    s.set_nonblocking(false).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = BytesMut::new();
    assert!(matches!(read_packet(&mut s, &mut buf), Packet::Connect(_)));
    s.write_all(&bytes_of(Packet::ConnAck(ConnAck::new(ConnectReturnCode::Success, false)))).unwrap();
    let Packet::Subscribe(subscribe) = read_packet(&mut s, &mut buf) else { panic!("no SUBSCRIBE") };
    let filters: Vec<(&str, QoS)> = subscribe.filters.iter().map(|f| (f.path.as_str(), f.qos)).collect();
    assert_eq!(filters, [("bench/request/qos0/+", QoS::AtMostOnce), ("bench/request/qos1/+", QoS::AtLeastOnce)]);
    let granted = vec![SubscribeReasonCode::Success(QoS::AtMostOnce), SubscribeReasonCode::Success(QoS::AtLeastOnce)];
    s.write_all(&bytes_of(Packet::SubAck(SubAck::new(subscribe.pkid, granted)))).unwrap();

    let deliver = |s: &mut TcpStream, topic: &str, qos: QoS, pkid: u16| {
        let mut p = Publish::new(topic, qos, b"hello".to_vec());
        p.pkid = pkid;
        s.write_all(&bytes_of(Packet::Publish(p))).unwrap();
    };
    // (request topic, QoS delivered at, the echo's topic and QoS)
    let cases = [
        ("bench/request/qos0/c1", QoS::AtMostOnce, "bench/response/c1", QoS::AtMostOnce),
        // A broker that upgrades a QoS 0 request: acknowledged, but echoed at QoS 0.
        ("bench/request/qos0/c2", QoS::AtLeastOnce, "bench/response/c2", QoS::AtMostOnce),
        ("bench/request/qos1/c3", QoS::AtLeastOnce, "bench/response/c3", QoS::AtLeastOnce),
    ];
    for (i, (topic, delivered, echo_topic, echo_qos)) in cases.into_iter().enumerate() {
        let pkid = if delivered == QoS::AtMostOnce { 0 } else { 10 + i as u16 };
        deliver(&mut s, topic, delivered, pkid);
        if delivered == QoS::AtLeastOnce {
            match read_packet(&mut s, &mut buf) {
                Packet::PubAck(ack) => assert_eq!(ack.pkid, pkid, "{topic}"),
                other => panic!("{topic}: {other:?} before the PUBACK"),
            }
        }
        let Packet::Publish(echo) = read_packet(&mut s, &mut buf) else { panic!("{topic}: no echo") };
        assert_eq!(
            (echo.topic.as_str(), echo.qos, &echo.payload[..]),
            (echo_topic, echo_qos, &b"hello"[..]),
            "{topic}"
        );
        if echo_qos == QoS::AtLeastOnce {
            assert_ne!(echo.pkid, 0, "a QoS 1 publish has a packet id");
            s.write_all(&bytes_of(Packet::PubAck(rumqttc::mqttbytes::v4::PubAck::new(echo.pkid)))).unwrap();
        }
    }
}
