//! Serving the API over HTTP/1.1 with the contract's connection limits (openapi.yaml): a request
//! head must arrive within `head` of the connection's last answer (or its start), so an idle or
//! half-sent connection is closed; a body within `body` of its head (408 otherwise). axum's own
//! `serve` sets no timeout, and hyper's header timeout needs a timer it does not give: 1,100 idle
//! connections once shut every client out.

use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

/// How long a client may take: see the module's comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub head: Duration,
    pub body: Duration,
}

impl Limits {
    /// The contract's: 10 s for a head (Go's `ReadHeaderTimeout` here, Tomcat's 20 s connection
    /// timeout and Jetty's 30 s idle timeout are the same idea), 30 s for a body.
    pub const CONTRACT: Limits = Limits { head: Duration::from_secs(10), body: Duration::from_secs(30) };
}

/// Serves `app` on `listener` until `stop` resolves, then lets the answers in flight finish (up to
/// 10 s). The body's deadline is `api::router`'s, from the same `Limits`.
pub async fn serve(listener: TcpListener, app: Router, limits: Limits, stop: impl std::future::Future<Output = ()>) {
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // A connection reset before accept, or no file descriptor left: the listener is
                // fine, so keep serving as axum's `serve` does (a breath first when out of files).
                Err(e) => {
                    if !is_connection_error(&e) {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(limits.head);
        let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that went away or timed out is not the service's error.
            let _ = connection.await;
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(Duration::from_secs(10)) => {}
    }
}

fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(e.kind(), ConnectionRefused | ConnectionAborted | ConnectionReset | Interrupted)
}

/// Raises the soft limit of open files to the hard one, as Go's runtime and the JVM do at start:
/// at the default 1,024, 1,100 idle connections left no descriptor to accept a client with.
/// Returns the limit now in force.
pub fn raise_open_files() -> std::io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}
