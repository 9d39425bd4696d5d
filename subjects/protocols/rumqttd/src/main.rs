//! The MQTT subject with its broker in the same process: rumqttd on `--mqtt-port`, on threads of
//! its own, and the protocols lab's responder (`protocols_rust::mqtt`) connected to it, so its
//! rows' CPU and memory are the broker's and the responder's together. `GET /health` on `--port`
//! answers once the responder's subscription is acknowledged.

use std::collections::HashMap;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;
use protocols_rust::{cli, mqtt};

/// The common flags plus the broker's port.
#[derive(Debug, Parser)]
struct RumqttdCli {
    #[command(flatten)]
    common: cli::Cli,

    /// The embedded broker's MQTT port.
    #[arg(long)]
    mqtt_port: u16,
}

fn main() -> ExitCode {
    protocols_rust::steady_allocator();
    let cli: RumqttdCli = cli::parse_or_exit(
        "protocols-rumqttd",
        "MQTT subject: rumqttd on --mqtt-port and a responder echoing bench/request/qos<N>/<client> to \
         bench/response/<client> at QoS N through it, in one process; /health on --port.",
    );
    protocols_rust::exit_with("protocols-rumqttd", run(&cli))
}

fn run(cli: &RumqttdCli) -> anyhow::Result<()> {
    let host = &cli.common.host;
    start_broker(host, cli.mqtt_port)?;
    mqtt::serve(&cli.common, (host.clone(), cli.mqtt_port))
}

/// rumqttd on `host:port`, on threads of its own (a router and a server thread).
fn start_broker(host: &str, port: u16) -> anyhow::Result<()> {
    // Fail with one line if the port is taken, before rumqttd's thread would only log it.
    std::net::TcpListener::bind((host, port)).with_context(|| format!("cannot bind {host}:{port}"))?;
    let listen = format!("{host}:{port}").parse().context("MQTT listen address")?;
    let server = rumqttd::ServerSettings {
        name: "v4".into(),
        listen,
        tls: None,
        next_connection_delay_ms: 0,
        connections: rumqttd::ConnectionSettings {
            connection_timeout_ms: 5000,
            max_payload_size: mqtt::PACKET_MAX,
            max_inflight_count: 100,
            auth: None,
            external_auth: None,
            dynamic_filters: true,
        },
    };
    let config = rumqttd::Config {
        id: 0,
        router: rumqttd::RouterConfig {
            max_connections: 10_000,
            max_outgoing_packet_count: 200,
            // rumqttd keeps a log per subscription and drops its oldest segment when full, read
            // or not. A client's response topic carries one message at a time: a 1 MB message or
            // two, not rumqttd's default 1 GB. Every request of a QoS level goes through the
            // responder's subscription to that level, so its log holds 100 clients' 1 MB
            // requests twice over.
            max_segment_size: 2 << 20,
            max_segment_count: 2,
            custom_segment: Some(
                mqtt::request_filters()
                    .map(|filter| {
                        (
                            filter.to_string(),
                            rumqttd::SegmentConfig { max_segment_size: 128 << 20, max_segment_count: 2 },
                        )
                    })
                    .into(),
            ),
            ..Default::default()
        },
        v4: Some(HashMap::from([("1".to_string(), server)])),
        v5: None,
        ws: None,
        cluster: None,
        console: None,
        bridge: None,
        prometheus: None,
        metrics: None,
    };
    let mut broker = rumqttd::Broker::new(config);
    std::thread::Builder::new().name("rumqttd".into()).spawn(move || {
        if let Err(e) = broker.start() {
            eprintln!("protocols-rumqttd: embedded broker: {e}");
            std::process::exit(1);
        }
    })?;
    Ok(())
}
