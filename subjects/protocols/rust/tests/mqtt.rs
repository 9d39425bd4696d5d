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
    Target { host: "127.0.0.1".into(), port, tls: false }
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
    let huge = bytes_of(Packet::Publish(Publish::new("bench/request/bad", QoS::AtMostOnce, vec![b'x'; 3 << 20])));
    assert_closes(port, true, &huge, "3 MiB PUBLISH");
    let steady = steady.join().unwrap().unwrap();
    assert!(steady.requests > 0, "round trips went on");
    assert_eq!(steady.errors, 0, "{:?}", steady.first_error);
    // And a new client still gets its echo.
    engine.verify(&round_trip(1024, 1), &target(port)).unwrap();
}

#[test]
fn the_embedded_broker_echoes_and_refuses_bad_clients_alone() {
    let (http, mqtt) = (common::free_port(), common::free_port());
    let _server = common::start(BIN, &["--port", &http.to_string(), "--mqtt-port", &mqtt.to_string()], http);
    check_broker(mqtt);
}

#[test]
fn mosquitto_as_the_suite_starts_it_echoes_and_refuses_bad_clients_alone() {
    let root = workspace();
    let suite = Suite::load(&root.join("suites/protocols.toml"), &root, &wirebench_load::Registry).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let supervisor = Supervisor { root, log_dir: runs.path().into(), cpus: vec![] };
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
