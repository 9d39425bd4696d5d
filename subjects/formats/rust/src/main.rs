//! Entry point: parse the command line, then measure or write / check the vectors.

mod cli;

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;

use formats_rust::alloc_count::CountingAllocator;
use formats_rust::{harness, vectors, wire_schema};

/// Counts allocations for the `*_allocs` / `*_alloc_bytes` metrics.
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Exit code for a run that could not do its job (also: stale vectors under `--check`).
const EXIT_FAILURE: u8 = 1;

fn main() -> ExitCode {
    let cli = cli::Cli::parse_or_exit();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("formats-rust: {err:#}");
            ExitCode::from(EXIT_FAILURE)
        }
    }
}

fn run(command: cli::Command) -> anyhow::Result<()> {
    match command {
        cli::Command::Bench(args) => {
            let stdout = std::io::stdout();
            let failed = harness::run(&args.options(), &harness::SystemClock, &mut stdout.lock())
                .context("cannot write measurements to stdout")?;
            if failed > 0 {
                // The failures are in the output as status "failed" rows; say so where a person looks.
                eprintln!(
                    "formats-rust: {failed} (dataset, format) pairs failed verification: see the \"failed\" rows"
                );
            }
            Ok(())
        }
        cli::Command::Vectors(cli::VectorsArgs { write: Some(dir), check: _ }) => {
            let count = vectors::write(&dir).with_context(|| format!("cannot write vectors to {}", dir.display()))?;
            writeln!(std::io::stderr(), "wrote {count} files under {}", dir.display()).ok();
            Ok(())
        }
        cli::Command::Vectors(cli::VectorsArgs { write: None, check: Some(dir) }) => {
            let problems =
                vectors::check(&dir).with_context(|| format!("cannot check vectors in {}", dir.display()))?;
            for problem in &problems {
                eprintln!("{problem}");
            }
            anyhow::ensure!(
                problems.is_empty(),
                "{} vector files are out of date: run `formats-rust vectors --write {}`",
                problems.len(),
                dir.display()
            );
            Ok(())
        }
        cli::Command::Vectors(_) => anyhow::bail!("vectors needs --write DIR or --check DIR"),
        cli::Command::Schemas(cli::VectorsArgs { write: Some(dir), check: _ }) => {
            let count =
                wire_schema::write(&dir).with_context(|| format!("cannot write schemas to {}", dir.display()))?;
            writeln!(std::io::stderr(), "wrote {count} files under {}", dir.display()).ok();
            Ok(())
        }
        cli::Command::Schemas(cli::VectorsArgs { write: None, check: Some(dir) }) => {
            let stale = wire_schema::stale(&dir);
            anyhow::ensure!(
                stale.is_empty(),
                "{} are out of date: run `formats-rust schemas --write {}`",
                stale.join(", "),
                dir.display()
            );
            Ok(())
        }
        cli::Command::Schemas(_) => anyhow::bail!("schemas needs --write DIR or --check DIR"),
    }
}
