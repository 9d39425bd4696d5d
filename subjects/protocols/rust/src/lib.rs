//! The protocols lab's subject servers, one module per API. Four binaries share them:
//! `protocols-rust` (actix-web: REST, GraphQL, SOAP and SSE over HTTP/1.1, h2c and TLS; the
//! REST API over HTTP/3 with quinn and h3),
//! `protocols-grpc` (tonic: gRPC over h2c and TLS), `protocols-ws` (tokio-tungstenite:
//! WebSocket over ws:// and wss://) and `protocols-mqtt` (a rumqttc responder behind a broker:
//! Mosquitto, or rumqttd in the same process as `protocols-rumqttd`, a package of its own).

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

/// Fixes glibc malloc's thresholds for the process, before anything is allocated: a block up to
/// 96 MiB comes from the heap, and the heap is not trimmed back below 1 GiB. Left dynamic, glibc
/// serves a 1 MB block by mmap (256 page faults on first touch, an munmap when freed) or from
/// the heap depending on what the process allocated before, so a server that builds its answer
/// per call ran at either speed from one start to the next: `protocols-grpc --bodies per-call`,
/// unary 1 MB, one call in flight, 464 req/s with glibc's defaults and 1,520 with these (the
/// cached message: ~1,500 either way); the protocols suite's `grpc-h2-tls-1mb-per-call` row gave
/// 1,263–1,379 req/s in one run and 455–457 in the next.
pub fn steady_allocator() {
    // SAFETY: mallopt only sets allocator parameters; called first thing in main, before threads.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 96 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

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
