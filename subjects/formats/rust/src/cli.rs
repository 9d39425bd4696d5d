//! Command-line interface: the `bench` and `vectors` subcommands, their flags and defaults. The
//! `--format` and `--dataset` values come from the codec table and the dataset list.

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::PossibleValuesParser;
use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand};

use formats_rust::codecs::{self, Codec, CODECS};
use formats_rust::dataset::DatasetKind;
use formats_rust::harness::Options;

/// Value of `--format` and `--dataset` that selects every one.
const ALL: &str = "all";

/// Serialization formats in Rust: golden vectors and the in-process measurement harness.
#[derive(Debug, Parser)]
#[command(name = "formats-rust", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Verify, then time encode and decode; one JSON measurement per line on stdout.
    Bench(BenchArgs),
    /// Write or check the golden vectors and the bad-input corpus.
    Vectors(VectorsArgs),
    /// Write or check the .proto and .avsc files generated from datasets.json.
    Schemas(VectorsArgs),
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Repeats of every (dataset, format) measurement.
    #[arg(long)]
    pub repeats: NonZeroU32,

    /// Id of the run, copied into every line.
    #[arg(long)]
    pub run_id: String,

    /// Dataset to measure.
    #[arg(long, default_value = ALL, value_parser = dataset_values())]
    pub dataset: String,

    /// Format to measure.
    #[arg(long, default_value = ALL, value_parser = format_values())]
    pub format: String,

    /// Samples per measurement; the reported time is their median.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub samples: u64,

    /// Shortest duration of one sample, in milliseconds: operations are batched to reach it.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub min_sample_ms: u64,

    /// Warm-up before each measurement, in milliseconds.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub warmup_ms: u64,
}

#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct VectorsArgs {
    /// Directory to (re)write: subjects/formats/vectors (vectors) or subjects/formats/schema (schemas).
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,

    /// Directory to compare with what this build generates; exits non-zero on any difference.
    #[arg(long, value_name = "DIR")]
    pub check: Option<PathBuf>,
}

fn dataset_values() -> PossibleValuesParser {
    PossibleValuesParser::new(DatasetKind::ALL.iter().map(|k| k.id()).chain([ALL]))
}

fn format_values() -> PossibleValuesParser {
    PossibleValuesParser::new(CODECS.iter().map(|c| c.id()).chain([ALL]))
}

impl Cli {
    /// Parses the process arguments; a usage error is printed as one line and exits non-zero,
    /// so a runner's log shows the cause without clap's multi-line usage block.
    pub fn parse_or_exit() -> Self {
        match Self::try_parse() {
            Ok(cli) => cli,
            Err(err) if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => err.exit(),
            Err(err) if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                eprintln!("error: a subcommand is required: bench, vectors or schemas (see --help)");
                std::process::exit(err.exit_code());
            }
            Err(err) => {
                eprintln!("{}", one_line(&err.to_string()));
                std::process::exit(err.exit_code());
            }
        }
    }
}

impl BenchArgs {
    pub fn options(&self) -> Options {
        let datasets = match DatasetKind::from_id(&self.dataset) {
            Some(kind) => vec![kind],
            None => DatasetKind::ALL.to_vec(),
        };
        let codecs: Vec<&'static dyn Codec> = match codecs::codec(&self.format) {
            Some(codec) => vec![codec],
            None => CODECS.to_vec(),
        };
        Options {
            run_id: self.run_id.clone(),
            repeats: self.repeats.get(),
            datasets,
            codecs,
            samples: self.samples as usize,
            min_sample: Duration::from_millis(self.min_sample_ms),
            warmup: Duration::from_millis(self.warmup_ms),
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

    fn bench(args: &[&str]) -> Result<BenchArgs, clap::Error> {
        let argv = ["formats-rust", "bench"].iter().chain(args).copied();
        match Cli::try_parse_from(argv)?.command {
            Command::Bench(b) => Ok(b),
            Command::Vectors(_) | Command::Schemas(_) => unreachable!(),
        }
    }

    #[test]
    fn bench_flags_and_defaults() {
        let b = bench(&["--repeats", "3", "--run-id", "r1"]).unwrap();
        let opts = b.options();
        assert_eq!((opts.repeats, opts.samples), (3, 15));
        assert_eq!((opts.min_sample, opts.warmup), (Duration::from_millis(1), Duration::from_millis(200)));
        assert_eq!((opts.datasets.len(), opts.codecs.len()), (DatasetKind::ALL.len(), CODECS.len()));
        let b =
            bench(&["--repeats", "1", "--run-id", "r", "--dataset", "dummy", "--format", "msgpack", "--samples", "5"])
                .unwrap();
        let opts = b.options();
        assert_eq!(opts.datasets, [DatasetKind::Dummy]);
        assert_eq!(opts.codecs.iter().map(|c| c.id()).collect::<Vec<_>>(), ["msgpack"]);
        assert_eq!(opts.samples, 5);
    }

    #[test]
    fn rejects_bad_flags() {
        for args in [
            &["--repeats", "0", "--run-id", "r"][..],
            &["--repeats", "1"],
            &["--repeats", "1", "--run-id", "r", "--format", "yaml"],
            &["--repeats", "1", "--run-id", "r", "--dataset", "people"],
            &["--repeats", "1", "--run-id", "r", "--samples", "0"],
            &["--repeats", "1", "--run-id", "r", "--bogus"],
        ] {
            assert!(bench(args).is_err(), "{args:?}");
        }
        assert!(Cli::try_parse_from(["formats-rust", "vectors"]).is_err());
        assert!(Cli::try_parse_from(["formats-rust", "vectors", "--write", "a", "--check", "b"]).is_err());
    }

    #[test]
    fn errors_render_on_one_line_and_list_the_formats() {
        let err = bench(&["--repeats", "1", "--run-id", "r", "--format", "yaml"]).unwrap_err();
        let line = one_line(&err.to_string());
        assert!(!line.contains('\n'));
        assert!(
            line.contains("[possible values: json, xml, protobuf, msgpack, msgpack-compact, avro, bson, cbor, all]"),
            "{line}"
        );
    }
}
