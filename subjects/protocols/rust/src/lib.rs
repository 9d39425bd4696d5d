//! The protocols lab's subject servers, one module per API. Four binaries share them:
//! `protocols-rust` (actix-web: REST, GraphQL, SOAP and SSE over HTTP/1.1, h2c and TLS; the
//! REST API over HTTP/3 with quinn and h3),
//! `protocols-grpc` (tonic: gRPC over h2c and TLS), `protocols-ws` (tokio-tungstenite:
//! WebSocket over ws:// and wss://) and `protocols-mqtt` (a rumqttc responder behind the
//! embedded rumqttd broker or another one).

use anyhow::Context as _;

pub mod cli;
pub mod graphql;
pub mod grpc;
pub mod h3;
pub mod mqtt;
pub mod routes;
pub mod soap;
pub mod tls;
pub mod ws;

/// Binds a listener for the tokio-based servers (gRPC, WebSocket), failing with the same
/// one-line "cannot bind" as actix's.
pub async fn bind(host: &str, port: u16) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind((host, port)).await.with_context(|| format!("cannot bind {host}:{port}"))
}

/// Runs `serve` and turns its error into one line on stderr and a failing exit code.
pub fn exit_with(name: &str, result: anyhow::Result<()>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{name}: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
