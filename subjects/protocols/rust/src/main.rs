//! Entry point: parse the command line, make the TLS configuration, serve until SIGTERM.

use std::process::ExitCode;
use std::time::Duration;

use actix_web::{App, HttpServer};
use anyhow::Context as _;
use protocols_rust::{cli, graphql, routes, soap, tls};

fn main() -> ExitCode {
    let cli = cli::Cli::parse_or_exit(
        "protocols-rust",
        "REST, GraphQL and SOAP subject server: HTTP/1.1 and h2c on one port, HTTP/2 and HTTP/1.1 over TLS on another.",
    );
    protocols_rust::exit_with("protocols-rust", run(&cli))
}

fn run(cli: &cli::Cli) -> anyhow::Result<()> {
    let tls = match cli.tls_port {
        Some(port) => Some((port, tls::server_config()?)),
        None => None,
    };
    actix_web::rt::System::new().block_on(serve(cli, tls))
}

/// Every API the subject serves: REST (`/payload`, `/echo`, `/hol`, `/stream`), GraphQL, SOAP.
fn configure(cfg: &mut actix_web::web::ServiceConfig) {
    routes::configure(cfg);
    graphql::configure(cfg);
    soap::configure(cfg);
}

async fn serve(cli: &cli::Cli, tls: Option<(u16, rustls::ServerConfig)>) -> anyhow::Result<()> {
    let host = cli.host.as_str();
    let mut server = HttpServer::new(|| App::new().configure(configure))
        .workers(cli.workers())
        // A load generator's connections may sit idle between phases; keep them rather than
        // make the next phase pay for new handshakes.
        .keep_alive(Duration::from_secs(75))
        // HTTP/2 writes a response's HEADERS and DATA frames separately; with Nagle's algorithm
        // on, the second write waits for the client's delayed ACK (~40 ms on Linux).
        .tcp_nodelay(true)
        .shutdown_timeout(1)
        .bind_auto_h2c((host, cli.port))
        .with_context(|| format!("cannot bind {host}:{}", cli.port))?;
    if let Some((port, config)) = tls {
        // actix puts its own "h2", "http/1.1" ahead of the config's identical list; rustls picks
        // the first match, so the repeat changes nothing.
        server = server.bind_rustls_0_23((host, port), config).with_context(|| format!("cannot bind {host}:{port}"))?;
    }
    server.run().await.context("server stopped with an error")
}
