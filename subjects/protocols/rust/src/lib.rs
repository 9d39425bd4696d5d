//! The protocols lab's subject servers, one module per API. Two binaries share them:
//! `protocols-rust` (actix-web: REST, GraphQL, SOAP over HTTP/1.1, h2c and TLS) and
//! `protocols-grpc` (tonic: gRPC over h2c and TLS) and `protocols-ws` (tokio-tungstenite:
//! WebSocket over ws:// and wss://).

pub mod cli;
pub mod graphql;
pub mod grpc;
pub mod routes;
pub mod soap;
pub mod tls;
pub mod ws;

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
