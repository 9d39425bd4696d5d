//! Entry point of the MQTT subject: parse the command line, respond until stopped.

use std::process::ExitCode;

use protocols_rust::{cli, mqtt};

fn main() -> ExitCode {
    protocols_rust::steady_allocator();
    let cli: mqtt::MqttCli = cli::parse_or_exit(
        "protocols-mqtt",
        "MQTT subject: a responder echoing bench/request/qos<N>/<client> to bench/response/<client> at QoS N through \
         the broker at --broker HOST:PORT (protocols-rumqttd embeds one); /health on --port.",
    );
    protocols_rust::exit_with("protocols-mqtt", mqtt::run(&cli))
}
