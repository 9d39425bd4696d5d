//! Entry point: parse the command line, make the TLS configurations, serve until SIGTERM.

use std::process::ExitCode;
use std::time::Duration;

use actix_web::{App, HttpServer};
use anyhow::Context as _;
use clap::Parser;
use protocols_rust::{cli, graphql, h3, routes, soap, tls};

/// The flags of every subject server, and the HTTP/3 port only this one serves.
#[derive(Debug, Parser)]
struct RestCli {
    #[command(flatten)]
    common: cli::Cli,

    /// UDP port serving the REST API over HTTP/3 (QUIC), with the TLS port's certificate.
    #[arg(long)]
    h3_port: Option<u16>,
}

fn main() -> ExitCode {
    protocols_rust::steady_allocator();
    let cli: RestCli = cli::parse_or_exit(
        "protocols-rust",
        "REST, GraphQL and SOAP subject server: HTTP/1.1 and h2c on one port, HTTP/2 and HTTP/1.1 over TLS on another, the REST API over HTTP/3 on a UDP port.",
    );
    cli.common.apply();
    protocols_rust::exit_with("protocols-rust", run(&cli))
}

fn run(cli: &RestCli) -> anyhow::Result<()> {
    let certificate = tls::Certificate::generate()?;
    let tls = match cli.common.tls_port {
        Some(port) => Some((port, certificate.server_config(&tls::ALPN, false)?)),
        None => None,
    };
    if let Some(port) = cli.h3_port {
        start_h3(&cli.common, port, &certificate)?;
    }
    actix_web::rt::System::new().block_on(serve(&cli.common, tls))
}

/// Binds the UDP port now (a taken port fails the start) and serves HTTP/3 on threads of its
/// own; if that server fails later, the process exits, so the runner sees it rather than timeouts.
fn start_h3(cli: &cli::Cli, port: u16, certificate: &tls::Certificate) -> anyhow::Result<()> {
    let socket = h3::bind(&cli.host, port)?;
    let config = h3::server_config(certificate, cli.quic_congestion)?;
    let runtime = cli.runtime().context("starting the HTTP/3 runtime")?;
    std::thread::Builder::new()
        .name("h3".into())
        .spawn(move || {
            let err = match runtime.block_on(h3::serve(socket, config)) {
                Ok(()) => anyhow::anyhow!("the endpoint closed"),
                Err(err) => err,
            };
            eprintln!("protocols-rust: HTTP/3: {err:#}");
            std::process::exit(1);
        })
        .context("starting the HTTP/3 thread")?;
    Ok(())
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
