//! restcache-rust: the REST service study's key-value service (subjects/restcache/openapi.yaml)
//! on axum, beside the study's Go and Java implementations.

use std::process::ExitCode;

use restcache_rust::serve::{self, Limits};
use restcache_rust::{api, store};

use anyhow::Context;
use clap::Parser;

/// Exit codes: clap's own 2 for bad usage; 1 when the service cannot start.
const EXIT_FAILED: u8 = 1;

#[derive(Parser)]
#[command(about = "RESTCache: items under API keys, on SQLite or PostgreSQL")]
struct Cli {
    /// Port to listen on.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// `sqlite:<path>` or `postgres://user@host:port/db`.
    #[arg(long)]
    store: String,
    /// Connections in the store's pool.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pool: u32,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => return fail(anyhow::anyhow!("cannot start the runtime: {e}")),
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn fail(e: anyhow::Error) -> ExitCode {
    eprintln!("restcache-rust: {e:#}");
    ExitCode::from(EXIT_FAILED)
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    serve::raise_open_files().context("cannot raise the open-files limit")?;
    let store = store::Store::open(&cli.store, cli.pool as usize)
        .await
        .with_context(|| format!("cannot open store {}", cli.store))?;
    let address = format!("{}:{}", cli.host, cli.port);
    let listener = tokio::net::TcpListener::bind(&address)
        .await
        .with_context(|| format!("cannot listen on {address} (taken? use --port)"))?;
    serve::serve(listener, api::router(store, Limits::CONTRACT), Limits::CONTRACT, stopped()).await;
    Ok(())
}

/// Resolves on SIGTERM or SIGINT.
async fn stopped() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
