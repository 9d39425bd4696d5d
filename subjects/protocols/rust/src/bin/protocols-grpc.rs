//! Entry point of the gRPC subject: parse the command line, serve until stopped.

use std::process::ExitCode;

use protocols_rust::{cli, grpc};

fn main() -> ExitCode {
    protocols_rust::steady_allocator();
    let cli = cli::Cli::parse_or_exit(
        "protocols-grpc",
        "gRPC subject server (tonic): h2c on one port, h2 over TLS on another, with server reflection.",
    );
    protocols_rust::exit_with("protocols-grpc", grpc::run(&cli))
}
