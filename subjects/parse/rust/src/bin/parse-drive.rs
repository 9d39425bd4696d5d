//! `parse-drive`: drives the parse lab's servers and prints one measurement line per call.
//! `parse-drive --server rust=http://127.0.0.1:8081 --server java=http://127.0.0.1:8080
//!  --profile quick --repeats 3 --run-id ID` (the runner appends the last two).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::process::ExitCode;

use clap::Parser;
use parse_rust::drive::{self, Row, Servers};

/// Drives the parse lab's servers: each consumer fetches and decodes N objects from each provider.
#[derive(Debug, Parser)]
#[command(name = "parse-drive")]
struct Cli {
    /// A server: `<name>=<base URL>`, name `rust` or `java` (its parser's and language's name).
    #[arg(long = "server", required = true, value_parser = server)]
    servers: Vec<(String, String)>,
    /// Chooses N: smoke 50; quick 100, 1,000, 10,000; full 100 to 100,000.
    #[arg(long, default_value = "quick")]
    profile: String,
    /// N, instead of the profile's (comma-separated).
    #[arg(long, value_delimiter = ',')]
    n: Vec<usize>,
    #[arg(long, default_value_t = 3)]
    repeats: u32,
    #[arg(long, default_value = "")]
    run_id: String,
}

fn server(s: &str) -> Result<(String, String), String> {
    let (name, url) = s.split_once('=').ok_or_else(|| format!("`{s}` is not <name>=<url>"))?;
    if !["rust", "java"].contains(&name) {
        return Err(format!("unknown server `{name}`; known: rust, java"));
    }
    Ok((name.into(), url.trim_end_matches('/').into()))
}

fn main() -> ExitCode {
    let cli: Cli = parse_rust::cli_or_exit("parse-drive");
    let ns = if cli.n.is_empty() { drive::sizes(&cli.profile) } else { cli.n.clone() };
    let names: Vec<String> = cli.servers.iter().map(|(n, _)| n.clone()).collect();
    let servers = Servers::new(cli.servers.iter().cloned().collect::<BTreeMap<_, _>>());
    let rows = drive::rows(&names, &ns);
    let mut out = std::io::stdout().lock();
    let mut print = |row: &Row, repeat, result| {
        let line = drive::line(&cli.run_id, row, row.consumer(), repeat, result);
        let text = serde_json::to_string(&line).expect("a measurement serializes");
        // The runner reads lines as they come: a closed stdout ends the harness.
        writeln!(out, "{text}").and_then(|_| out.flush()).is_ok()
    };
    // Warm-up and verification: one call per row; a row that fails it is reported and skipped.
    let mut live = Vec::new();
    for row in &rows {
        eprintln!("warm-up {}", row.id());
        match servers.consume(row) {
            Ok(_) => live.push(row),
            Err(e) => {
                if !print(row, 0, Err(e.context("warm-up failed"))) {
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    for repeat in 1..=cli.repeats {
        for i in drive::order(live.len(), u64::from(repeat)) {
            let row = live[i];
            eprintln!("repeat {repeat} {}", row.id());
            if !print(row, repeat, servers.measure(row)) {
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
