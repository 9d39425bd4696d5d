//! Entry point of the MQTT subject: parse the command line, respond until stopped.

use std::process::ExitCode;

use protocols_rust::{cli, mqtt};

fn main() -> ExitCode {
    protocols_rust::steady_allocator();
    let cli: mqtt::MqttCli = cli::parse_or_exit(
        "protocols-mqtt",
        "MQTT subject: a responder echoing bench/request/qos<N>/<client> to bench/response/<client> at QoS N, behind the \
         embedded rumqttd broker (--mqtt-port) or another broker (--broker HOST:PORT); /health on --port.",
    );
    protocols_rust::exit_with("protocols-mqtt", mqtt::run(&cli))
}
