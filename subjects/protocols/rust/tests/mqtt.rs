//! End-to-end checks of `protocols-mqtt` behind Mosquitto (`brokers::check_broker`; the embedded
//! broker's are in subjects/protocols/rumqttd/tests). Mosquitto is started from the protocols
//! suite's own service definition by the runner's supervisor, so the test runs what `make run`
//! runs (`make setup` installs it).

use std::path::{Path, PathBuf};

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
    let err = common::one_line_failure(BIN, &["--port", &http]);
    assert!(err.contains("--broker"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    common::assert_bind_failure(BIN, &["--port", &port.to_string(), "--broker", "127.0.0.1:1883"], port);
}
