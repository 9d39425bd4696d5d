//! End-to-end checks of `protocols-rumqttd`: the checks every broker row's subject passes
//! (`brokers::check_broker`, shared with `protocols-mqtt`'s tests behind Mosquitto), and one-line
//! failures on bad flags or a taken port.

#[path = "../../rust/tests/brokers/mod.rs"]
mod brokers;
#[path = "../../rust/tests/common/mod.rs"]
mod common;

const BIN: &str = env!("CARGO_BIN_EXE_protocols-rumqttd");

#[test]
fn the_embedded_broker_echoes_and_refuses_bad_clients_alone() {
    let (http, mqtt) = common::two_free_ports();
    let _server = common::start(BIN, &["--port", &http.to_string(), "--mqtt-port", &mqtt.to_string()], http);
    brokers::check_broker(mqtt);
}

#[test]
fn without_a_broker_port_or_with_a_taken_port_it_fails_in_one_line() {
    let http = common::free_port().to_string();
    let (_, err) = common::one_line_failure(BIN, &["--port", &http]);
    assert!(err.contains("--mqtt-port"), "{err}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    common::assert_bind_failure(BIN, &["--port", &http, "--mqtt-port", &port.to_string()], port);
}
