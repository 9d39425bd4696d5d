//! restcache-fill: loads the study's pre-filled state (4,000,000 API keys with 10 items each),
//! scaled by the suite's profile or by --scale, into a store, through its bulk path; a store
//! that already holds API keys is kept. One line on stdout says what it did.

use std::process::ExitCode;

use clap::Parser;
use restcache_rust::fill;

#[derive(Parser)]
#[command(about = "Fill a RESTCache store with the study's pre-filled state, scaled")]
struct Cli {
    /// `sqlite:<path>` or `postgres://user@host:port/db` (the database is created if missing).
    #[arg(long)]
    store: String,
    /// smoke (1/100,000), quick (1/1,000) or full (1/100) of the study's 4,000,000 API keys.
    #[arg(long, conflicts_with = "scale")]
    profile: Option<String>,
    /// Any factor of the study's state instead of a profile's.
    #[arg(long)]
    scale: Option<f64>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("restcache-fill: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<String> {
    let scale = match (cli.scale, cli.profile.as_deref()) {
        (Some(s), _) if s > 0.0 && s <= 1.0 => s,
        (Some(s), _) => anyhow::bail!("--scale {s}: expected a factor in (0, 1]"),
        (None, Some(p)) => fill::scale_of(p)?,
        (None, None) => anyhow::bail!("give --profile or --scale"),
    };
    let keys = ((fill::STUDY_API_KEYS as f64 * scale).round() as u64).max(1);
    let runtime = tokio::runtime::Runtime::new()?;
    let filled = runtime.block_on(fill::fill(&cli.store, keys))?;
    Ok(if filled.kept {
        format!("{} already holds {} API keys: kept", cli.store, filled.api_keys)
    } else {
        format!("{}: {} API keys, {} items (scale {scale})", cli.store, filled.api_keys, filled.items)
    })
}
