//! Entry point of the WebSocket subject: parse the command line, serve until stopped.

use std::process::ExitCode;

use protocols_rust::{cli, ws};

fn main() -> ExitCode {
    protocols_rust::steady_allocator();
    let cli = cli::Cli::parse_or_exit(
        "protocols-ws",
        "WebSocket subject server (tokio-tungstenite): ws:// on one port, wss:// on another, path /ws.",
    );
    protocols_rust::exit_with("protocols-ws", ws::run(&cli))
}
