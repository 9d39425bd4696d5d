//! Command-line interface: flags, environment fallbacks and their defaults.

use std::num::NonZeroUsize;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser};

/// A subject server's flags (both binaries): a cleartext port and an optional TLS port.
#[derive(Debug, Parser)]
#[command(name = "protocols-rust", version)]
pub struct Cli {
    /// Cleartext port serving HTTP/1.1 and h2c (prior knowledge).
    #[arg(long, env = "PORT")]
    pub port: u16,

    /// TLS port serving h2 and http/1.1 via ALPN, with a self-signed certificate.
    #[arg(long)]
    pub tls_port: Option<u16>,

    /// Address to bind both listeners to.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,

    /// Worker threads [default: CPUs available to this process].
    #[arg(long)]
    pub workers: Option<NonZeroUsize>,

    /// Where answers' messages come from: built once per size (`cached`) or on every call, as the
    /// study's REST built its JSON (`per-call`).
    #[arg(long, value_enum, default_value_t = crate::routes::Bodies::Cached)]
    pub bodies: crate::routes::Bodies,

    /// The HTTP/3 port's QUIC congestion controller: quinn's default (`cubic`), or `newreno` to
    /// match a TCP on Reno when rows compare the two under loss.
    #[arg(long, value_enum, default_value_t = crate::h3::Congestion::Cubic)]
    pub quic_congestion: crate::h3::Congestion,
}

impl Cli {
    /// Parses the process arguments (`parse_or_exit`) and applies `--bodies`.
    pub fn parse_or_exit(name: &'static str, about: &'static str) -> Self {
        let cli: Cli = parse_or_exit(name, about);
        cli.apply();
        cli
    }

    /// Makes the process-wide settings the flags choose (`--bodies`).
    pub fn apply(&self) {
        crate::routes::set_bodies(self.bodies);
    }

    /// A multi-threaded tokio runtime of `workers()` threads (the gRPC and WebSocket servers).
    pub fn runtime(&self) -> std::io::Result<tokio::runtime::Runtime> {
        tokio::runtime::Builder::new_multi_thread().worker_threads(self.workers()).enable_all().build()
    }

    /// Worker count; `available_parallelism` honours the affinity mask the runner pins us to.
    pub fn workers(&self) -> usize {
        self.workers.or_else(|| std::thread::available_parallelism().ok()).map_or(1, NonZeroUsize::get)
    }
}

/// Parses the process arguments into `T`; a usage error is printed as one line and exits
/// non-zero, so a supervisor's log shows the cause without clap's multi-line usage block.
pub fn parse_or_exit<T: CommandFactory + FromArgMatches>(name: &'static str, about: &'static str) -> T {
    let parsed = T::command().name(name).about(about).try_get_matches().and_then(|m| T::from_arg_matches(&m));
    match parsed {
        Ok(cli) => cli,
        Err(err) if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => err.exit(),
        Err(err) => {
            eprintln!("{}", one_line(&err.to_string()));
            std::process::exit(err.exit_code());
        }
    }
}

/// Joins the message part of a clap error (everything before its usage block) into one line.
fn one_line(rendered: &str) -> String {
    rendered.lines().take_while(|line| !line.trim().is_empty()).map(str::trim).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_flags() {
        let cli = Cli::try_parse_from([
            "protocols-rust",
            "--port",
            "8080",
            "--tls-port",
            "8443",
            "--host",
            "0.0.0.0",
            "--workers",
            "3",
        ])
        .unwrap();
        assert_eq!(cli.port, 8080);
        assert_eq!(cli.tls_port, Some(8443));
        assert_eq!(cli.host, "0.0.0.0");
        assert_eq!(cli.workers(), 3);
    }

    #[test]
    fn defaults() {
        let cli = Cli::try_parse_from(["protocols-rust", "--port", "1"]).unwrap();
        assert_eq!(cli.host, "127.0.0.1");
        assert_eq!(cli.tls_port, None);
        assert!(cli.workers() >= 1);
    }

    #[test]
    fn rejects_bad_flags() {
        let cli = Cli::try_parse_from(["protocols-rust", "--port", "1", "--bodies", "per-call"]).unwrap();
        assert_eq!(cli.bodies, crate::routes::Bodies::PerCall);
        assert!(Cli::try_parse_from(["protocols-rust", "--port", "1", "--bodies", "fresh"]).is_err());
        assert!(Cli::try_parse_from(["protocols-rust", "--port", "x"]).is_err());
        assert!(Cli::try_parse_from(["protocols-rust", "--port", "1", "--workers", "0"]).is_err());
        assert!(Cli::try_parse_from(["protocols-rust", "--port", "1", "--bogus"]).is_err());
    }

    #[test]
    fn errors_render_on_one_line() {
        let err = Cli::try_parse_from(["protocols-rust", "--port", "1", "--bogus"]).unwrap_err();
        assert_eq!(one_line(&err.to_string()), "error: unexpected argument '--bogus' found");
    }
}
