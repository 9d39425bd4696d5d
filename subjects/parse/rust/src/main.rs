//! Entry point of the parse lab's Rust server: `parse-rust --port N`, serving until stopped.

use std::process::ExitCode;

use clap::Parser;

/// The parse lab's Rust server: provides objects as JSON or BSON and consumes them from a provider.
#[derive(Debug, Parser)]
#[command(name = "parse-rust")]
struct Cli {
    /// Loopback port to serve the API on.
    #[arg(long)]
    port: u16,
}

fn main() -> ExitCode {
    let cli: Cli = parse_rust::cli_or_exit("parse-rust");
    let listener = match std::net::TcpListener::bind(("127.0.0.1", cli.port)) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("parse-rust: cannot bind 127.0.0.1:{}: {e}", cli.port);
            return ExitCode::FAILURE;
        }
    };
    match actix_web::rt::System::new().block_on(parse_rust::server::serve(listener)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parse-rust: serving 127.0.0.1:{}: {e}", cli.port);
            ExitCode::FAILURE
        }
    }
}
