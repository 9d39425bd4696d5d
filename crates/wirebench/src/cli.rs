//! The command line: every subcommand and flag of `wirebench`, and nothing else.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "wirebench",
    version,
    about = "Measures web protocols, API styles, formats and server languages on this machine"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List suites, their subjects and scenarios, and the load drivers.
    List(ListArgs),
    /// Build what suites need (their subjects and harnesses), each step once; every suite without names.
    Build(BuildArgs),
    /// Run a suite and write results/<UTC-timestamp>-<suite>/ with report.html.
    Run(RunArgs),
    /// Send load at one URL, like h2load or wrk, and print what was measured.
    Load(Box<LoadArgs>),
    /// Add up loads measured apart (`wirebench load --worker i/N --out DIR`): histograms
    /// exactly, counters summed, each worker's CPU and measuring window kept.
    Merge(MergeArgs),
    /// Send the loads of a `wirebench run --workers N` elsewhere: worker I of N, until the run ends.
    Worker(WorkerArgs),
    /// Render report.html, summary.md, CSV and charts of a results directory again.
    Report {
        /// A results directory (results/<timestamp>-<suite>).
        dir: PathBuf,
        /// Print the report's Markdown instead of writing files (without charts).
        #[arg(long)]
        markdown: bool,
        /// With --markdown, only this section (by id: claims-section, scenarios-section, a lab's
        /// section such as restcache or wasm, ...); repeat for several.
        #[arg(long, value_name = "ID", requires = "markdown")]
        section: Vec<String>,
        /// Judge the run by this suite's claims as they are written now (a name in --suites-dir
        /// or a path), instead of the claims it ran with: new or corrected claims, old numbers.
        #[arg(long, value_name = "SUITE")]
        claims: Option<String>,
        #[arg(long, default_value = "suites")]
        suites_dir: PathBuf,
    },
    /// Per-scenario ratios of run B over run A, with confidence intervals; the rows and claims
    /// whose intervals are disjoint, the verdicts that changed, and contended repeats.
    Compare {
        a: PathBuf,
        b: PathBuf,
        /// Print one JSON object instead (schemas/compare.schema.json).
        #[arg(long)]
        json: bool,
        /// Exit with 4 when a claim is confirmed or differs in size in one run and is refuted in
        /// the other (a CI gate on verdicts, not on point values).
        #[arg(long)]
        fail_on_flip: bool,
        /// Exit with 6 when a row of B is slower than A's beyond --tolerance: its whole req/s
        /// interval below A's by more than it, or its whole p99 interval above (the only value:
        /// `slower`).
        #[arg(long, value_name = "WHAT", value_parser = ["slower"])]
        fail_if: Option<String>,
        /// How much slower still passes --fail-if: `5%` or `0.05`.
        #[arg(long, value_name = "SHARE", default_value = "5%", requires = "fail_if")]
        tolerance: String,
    },
    /// Network conditions: build a link (delay, loss, rate) and measure it.
    #[command(subcommand)]
    Net(NetCommand),
}

#[derive(Debug, Subcommand)]
pub enum NetCommand {
    /// Build a link between two new network namespaces, measure its round trip, loss and rate
    /// end to end, and print them beside the settings (needs root).
    Check(NetCheckArgs),
}

#[derive(Debug, Args)]
pub struct NetCheckArgs {
    /// Round-trip time the link adds: 50ms, 0.5ms, 1s.
    #[arg(long, default_value = "0ms")]
    pub rtt: String,
    /// Each direction's delay varies by up to this much either way (packets may reorder): 5ms.
    #[arg(long)]
    pub jitter: Option<String>,
    /// Loss per direction: 1% or 0.01.
    #[arg(long)]
    pub loss: Option<String>,
    /// Mean run of lost packets (bursts, Gilbert model); 1 drops independently.
    #[arg(long)]
    pub burst: Option<String>,
    /// Rate per direction: 100mbit, 1gbit.
    #[arg(long)]
    pub rate: Option<String>,
    /// Packets a direction queues for the rate before dropping (drop-tail).
    #[arg(long)]
    pub queue: Option<String>,
    /// Round-trip probes, one at a time.
    #[arg(long, default_value_t = 200)]
    pub probes: usize,
    /// Packets each way for the loss estimate.
    #[arg(long, default_value_t = 20_000)]
    pub packets: usize,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this suite (a name in --suites-dir or a path).
    pub suite: Option<String>,
    /// Print this thread group's data set as CSV (header, then one row per line) instead, e.g.
    /// for a JMeter CSV Data Set Config that should read the same rows; needs the suite.
    #[arg(long, value_name = "GROUP", requires = "suite")]
    pub data: Option<String>,
    #[arg(long, default_value = "suites")]
    pub suites_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Suites (names in --suites-dir or paths); all of them when none is named.
    pub suites: Vec<String>,
    /// Only what the scenarios and harnesses whose id matches this glob need.
    #[arg(long)]
    pub only: Option<String>,
    /// Only what `run --profile NAME` runs: leave out the subjects of rows the profile skips.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Print the steps instead of running them.
    #[arg(long)]
    pub dry_run: bool,
    #[arg(long, default_value = "suites")]
    pub suites_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Suite name (a file in --suites-dir) or path to a suite file.
    pub suite: String,
    /// smoke (1 repeat, seconds), quick (3 repeats) or full (10 repeats), or one the suite defines.
    #[arg(long)]
    pub profile: Option<String>,
    /// Only scenarios whose id matches this glob (e.g. 'rest-h2*').
    #[arg(long)]
    pub only: Option<String>,
    /// CPU split, e.g. `subject=0,load=1`; `none` disables pinning. Default: half each.
    #[arg(long)]
    pub cpus: Option<String>,
    #[arg(long, default_value = "suites")]
    pub suites_dir: PathBuf,
    /// Parent of the results directory.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Skip building what the rows need (`wirebench build` did it).
    #[arg(long)]
    pub no_build: bool,
    /// After the profile's repeats, keep repeating the rows of claims still undecided, one repeat
    /// per round, up to this many repeats of a row (claims are then judged at a corrected level:
    /// docs/METHODOLOGY.md).
    #[arg(long, value_name = "MAX_REPEATS")]
    pub until_decided: Option<u32>,
    /// With --until-decided: start no new round after this many seconds of it.
    #[arg(long, value_name = "SECONDS", default_value_t = 1800.0, requires = "until_decided")]
    pub budget_s: f64,
    /// Send every row's load from N `wirebench worker` processes (this machine's or others'),
    /// which reach this run at --listen; the rows' results are theirs added up.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub workers: Option<u32>,
    /// With --workers: where the workers reach this run; `0.0.0.0:7070` for workers on other
    /// machines (it answers anyone who can reach it: a network of your own).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7070", requires = "workers")]
    pub listen: std::net::SocketAddr,
    /// With --workers: the address of this machine the workers load the subjects at. Another
    /// than loopback makes the subjects listen on every address (their `host` flag).
    #[arg(long, value_name = "HOST", default_value = "127.0.0.1", requires = "workers")]
    pub advertise: String,
    /// With --workers: how long workers may take to be ready for a row, or stay silent during it.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0, requires = "workers")]
    pub worker_timeout: f64,
    /// Draw each round's order of rows from this seed (run.json's `rounds.seed`), to run again
    /// in the order a run ran in; a new one each run without it.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Exit with 5 when a claim's verdict is one of these, after the report is written: a CI
    /// gate on the suite's claims, its SLOs among them, judged on their intervals (refuted,
    /// no-difference, not-run, not-judged, inconclusive, differs-in-size; comma-separated).
    #[arg(long, value_name = "VERDICTS", value_delimiter = ',')]
    pub fail_on: Vec<String>,
    /// Also write the claims as JUnit XML to FILE, for CI systems that read it: one test case
    /// per claim, failed when --fail-on names its verdict (refuted, without --fail-on).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The run to take loads from: `wirebench run … --workers N --listen ADDR` (http://HOST:PORT).
    #[arg(long, value_name = "URL")]
    pub coordinator: String,
    /// Be worker I of N (`0/4`): take an I-th share of every row's connections, requests and rate.
    #[arg(long, value_name = "I/N")]
    pub worker: wirebench_core::share::WorkerShare,
    /// Load threads (default: the CPUs this process may use).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Keep trying to reach the coordinator for this long at first (it may be starting).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    pub connect_timeout: f64,
    /// The suites directory: its parent is where data files and request bodies are read from.
    #[arg(long, default_value = "suites")]
    pub suites_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// http://host:port/path or https://host:port/path, ws://, wss:// or mqtt://host:port
    /// (loopback only, unless --allow-remote).
    pub url: String,
    /// Load driver (see `wirebench list`).
    #[arg(long, default_value = "http1")]
    pub driver: String,
    /// Concurrent connections.
    #[arg(short = 'c', long, default_value_t = 10)]
    pub connections: u32,
    /// Concurrent streams per connection (HTTP/2).
    #[arg(short = 'm', long, default_value_t = 1)]
    pub streams: u32,
    /// Total requests.
    #[arg(short = 'n', long, conflicts_with = "duration")]
    pub requests: Option<u64>,
    /// Seconds to run instead of a request count.
    #[arg(short = 'd', long)]
    pub duration: Option<f64>,
    /// Open model: requests per second at a constant arrival rate.
    #[arg(long)]
    pub rate: Option<f64>,
    #[arg(long, default_value = "GET")]
    pub method: String,
    /// Request body of this many bytes.
    #[arg(long, conflicts_with_all = ["body_file", "body"])]
    pub body_bytes: Option<usize>,
    /// Request body, this text.
    #[arg(long, conflicts_with = "body_file")]
    pub body: Option<String>,
    /// A request header, `Name: value` (curl's -H). Repeatable.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Accept any server certificate (curl's -k); the handshake's signatures are still checked.
    /// Without it a TLS server's certificate is verified against the system's roots (or
    /// --cacert) and the URL's host name.
    #[arg(short = 'k', long, conflicts_with = "cacert")]
    pub insecure: bool,
    /// Verify the server's certificate against the CA certificates of this PEM file.
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// Present this client certificate (PEM; mutual TLS), with --key.
    #[arg(long, value_name = "FILE", requires = "key")]
    pub cert: Option<PathBuf>,
    /// The private key (PEM) of --cert.
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Connect to ADDR for HOST:PORT, keeping the URL's name for TLS and the Host header (curl's
    /// --resolve: `HOST:PORT:ADDR`).
    #[arg(long, value_name = "HOST:PORT:ADDR", conflicts_with = "connect_to")]
    pub resolve: Option<String>,
    /// Connect to HOST2:PORT2 for HOST:PORT, keeping the URL's name (curl's --connect-to:
    /// `HOST:PORT:HOST2:PORT2`).
    #[arg(long, value_name = "HOST:PORT:HOST2:PORT2")]
    pub connect_to: Option<String>,
    /// Request body from a file (for gRPC: one protobuf message, which the driver frames).
    #[arg(long)]
    pub body_file: Option<String>,
    /// A driver parameter, `key=value`; the value is read as JSON, else taken as a string
    /// (e.g. `--param call=bidi --param messages=10` for the grpc driver). Repeatable.
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Expected status [default: the driver's: 200 for HTTP, 0 (OK) for grpc, 101 for websocket].
    #[arg(long)]
    pub expect_status: Option<u16>,
    /// Expected body size; answers of another size count as errors.
    #[arg(long)]
    pub expect_bytes: Option<u64>,
    /// Load threads (default: the CPUs this process may use).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run this thread group of --suite instead of one request: the URL is the service's base
    /// (http://host:port), -n counts iterations, and each step is reported.
    #[arg(long, value_name = "GROUP", requires = "suite", conflicts_with_all = ["method", "body_bytes", "body_file", "body"])]
    pub group: Option<String>,
    /// The suite that defines --group (a name in --suites-dir or a path).
    #[arg(long, requires = "group")]
    pub suite: Option<String>,
    #[arg(long, default_value = "suites")]
    pub suites_dir: PathBuf,
    /// Start the connections (virtual users) evenly over this many seconds, as a thread group's ramp-up.
    #[arg(long)]
    pub ramp_up: Option<f64>,
    /// Open a new connection for every request (no keep-alive): each request's latency holds
    /// its TCP, TLS or QUIC handshakes; -c is then the requests in flight (needs -m 1).
    #[arg(long)]
    pub reconnect: bool,
    /// Then ask whether this client set the pace: the load again as long, wirebench allowed 90 %
    /// of its CPU time in every other 30-ms slice; a client with room moves as many bytes in those
    /// slices as in the others (closed model on this machine: not with --rate, --net or --worker).
    #[arg(long)]
    pub bottleneck: bool,
    /// Put the load behind a network link to this machine's loopback: `rtt=50ms,loss=1%,rate=100mbit`
    /// (needs root; the URL's host must be 127.0.0.1). See `wirebench net check`.
    #[arg(long, value_name = "SPEC")]
    pub net: Option<wirebench_link::NetSpec>,
    /// Send load to a host that is not this machine's loopback (a service across a network, as
    /// workers on other machines do); without it only loopback is loaded.
    #[arg(long)]
    pub allow_remote: bool,
    /// Be worker I of N (`0/2`): take an I-th share of -c, -n and --rate (shares differ by at
    /// most one) and write what `wirebench merge` needs to --out.
    #[arg(long, value_name = "I/N", requires = "out")]
    pub worker: Option<wirebench_core::share::WorkerShare>,
    /// Wait until this wall-clock instant before measuring, so workers started apart measure
    /// together: seconds since the epoch, or +5s / +500ms from now.
    #[arg(long, value_name = "TIME")]
    pub start_at: Option<String>,
    /// Write this load's record to DIR (worker.json, and latency.hlog: the histograms as an
    /// HdrHistogram interval log) for `wirebench merge`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The --out directories of `wirebench load --worker i/N`, one per worker.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Write the merged record (worker.json and latency.hlog of the whole) to DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Flag workers whose measurements started further apart than this.
    #[arg(long, value_name = "MS", default_value_t = 100.0)]
    pub max_skew_ms: f64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A share as users write it: `5%` or `0.05`, from 0 up to (not including) 1.
pub fn parse_share(text: &str) -> Result<f64, String> {
    let (number, scale) = match text.strip_suffix('%') {
        Some(n) => (n.trim(), 100.0),
        None => (text.trim(), 1.0),
    };
    let v = number.parse::<f64>().map_err(|_| format!("`{text}` is not a share: write 5% or 0.05"))? / scale;
    if (0.0..1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("`{text}` is not a share between 0 and 100 %"))
    }
}
