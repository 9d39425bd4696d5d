//! End-to-end checks of `protocols-mqtt`: behind Mosquitto (`brokers::check_broker`; the embedded
//! broker's are in subjects/protocols/rumqttd/tests), and behind a broker played by the test,
//! which checks that every leg keeps its row's QoS. Mosquitto is started from the protocols
//! suite's own service definition by the runner's supervisor, so the test runs what `make run`
//! runs (`make setup` installs it).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use brokers::bytes_of;
use bytes::BytesMut;
use rumqttc::mqttbytes::v4::{Packet, Publish};
use rumqttc::mqttbytes::QoS;
use wirebench_core::suite::Suite;
use wirebench_core::supervisor::{Launcher, Supervisor};

mod brokers;
mod common;

const BIN: &str = env!("CARGO_BIN_EXE_protocols-mqtt");

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().unwrap()
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
    brokers::check_broker(port);
    drop(responder);
    let pid = broker.pid().unwrap();
    broker.stop();
    assert!(!Path::new(&format!("/proc/{pid}/status")).exists(), "the broker was stopped");
}

#[test]
fn without_a_broker_address_or_with_a_taken_port_it_fails_in_one_line() {
    let http = common::free_port().to_string();
    let (_, err) = common::one_line_failure(BIN, &["--port", &http]);
    assert!(err.contains("--broker"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    common::assert_bind_failure(BIN, &["--port", &port.to_string(), "--broker", "127.0.0.1:1883"], port);
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
