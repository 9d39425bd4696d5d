//! The results schema: one `Measurement` per line of `measurements.jsonl`, one `RunInfo` in
//! `run.json`. Every producer (the load engine, in-process harnesses in other languages) and every
//! consumer (report, compare, browser viewer) goes through these types; `schemas/*.json` is
//! generated from them (`wirebench schema`) and a test fails when the committed copy is stale.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bumped whenever a field changes meaning or is removed; adding an optional field keeps it.
pub const SCHEMA_VERSION: u32 = 1;

/// One measured (or failed) repeat of one scenario: a line of `measurements.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    /// Always `SCHEMA_VERSION` of the writer.
    pub schema_version: u32,
    pub run_id: String,
    pub suite: String,
    pub scenario: String,
    pub subject: String,
    /// Language the subject is written in (`rust`, `go`, `java`, `ts`).
    pub lang: String,
    /// The lab the row belongs to (`protocols`, `formats`, `parse`, `realtime`, `wasm`,
    /// `restcache`): the suite's, scenario's or harness's `lab`, stamped by the runner on every
    /// row it writes (over whatever a harness printed). Absent in lines of older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
    /// A load row's transport (`h1`, `h2c`, `h1+tls`, `h2+tls`, `h3`, ...): the scenario's
    /// `transport` label, else the driver's label for its TLS setting; stamped by the runner.
    /// Absent for in-process rows and in lines of older runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<String>,
    /// The network link between the load and the subject (`rtt=40ms,loss=1%`); absent on
    /// loopback, as in every row before links existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<String>,
    /// Load driver id (`http1`, `http2`, ...) for load scenarios.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// Serialization format id (`json`, `msgpack`, ...) for in-process harnesses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The parameters this measurement ran with (connections, streams, tls, payload, ...).
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// 1-based repeat number; 0 marks a row that failed before any repeat ran.
    pub repeat: u32,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub metrics: Metrics,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Failed,
}

/// What was measured. Every field is optional because load scenarios and in-process harnesses
/// report different subsets; units are in the names.
// No deny_unknown_fields here: `extra` (flatten) takes every other key, as long as it is a number.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Metrics {
    /// Completed requests (responses with the expected status and size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Requests that failed: I/O error, wrong status or wrong body size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// Completed requests per second of the measured interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps: Option<f64>,
    /// Messages the completed requests carried (a streaming call carries many; plain HTTP one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    /// Messages per second of the measured interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_per_s: Option<f64>,
    /// Bytes written to / read from the sockets (TLS records included when TLS is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_sent: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_received: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_us: Option<Latency>,
    /// Streaming calls: from the call's send time to its first message (server push, gRPC
    /// server streams, SSE); absent for rows whose calls carry one message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_message_us: Option<Latency>,
    /// Open model: latency from each request's actual send time (service time), beside
    /// `latency_us` from its intended send time (response time), as wrk2's `--u_latency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_uncorrected_us: Option<Latency>,
    /// Thread groups: iterations the virtual users completed (every step answered as expected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations_per_s: Option<f64>,
    /// Thread groups: each step's count, errors and latency by label (JMeter's aggregate
    /// report); `requests`, `errors` and `latency_us` are their totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<StepMetrics>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serialize_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deserialize_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// CPU seconds (user + system) the server side used during the measurement: the subject and
    /// the services it uses (a broker, a database), every process of each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
    /// Peak resident set of the server side (subject and services) during the measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_kb: Option<u64>,
    /// The services' share of `cpu_s`; absent when the subject uses none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_cpu_s: Option<f64>,
    /// The services' peak resident set, part of `rss_kb`; absent when the subject uses none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_rss_kb: Option<u64>,
    /// CPU seconds the instrument itself used during the measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instrument_cpu_s: Option<f64>,
    /// True when the instrument used at least half of its CPUs' time and more CPU than the server
    /// side (`cpu_s`), or at least 90 % of its own CPUs' time, both over the load's whole span
    /// (first connection to last close): the number may measure the instrument rather than the
    /// subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instrument_bound: Option<bool>,
    /// CPU seconds that processes outside the run took on the run's CPUs (the subject's and the
    /// load's) during the measurement (`contention`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_cpu_s: Option<f64>,
    /// Seconds the hypervisor gave the run's CPUs to other guests during the measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steal_cpu_s: Option<f64>,
    /// The larger of the subject's and the load's CPUs' share that foreign work and steal took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foreign_share: Option<f64>,
    /// True when `foreign_share` passed `contention::CONTENDED_SHARE`: the repeat was measured
    /// again, and this one enters no summary or verdict. Absent for a repeat shorter than
    /// `contention::JUDGED_FROM_S`, too short to judge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contended: Option<bool>,
    /// Seconds from the run's start to when this line was written (the runner's clock): where the
    /// repeat sits in the run, for the report's chart of foreign work over time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_s: Option<f64>,
    /// A load's run over time: how warm-up, pauses and garbage collection show (`timeline.csv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
    /// Rows across a network link: the forwarder's CPU seconds during the measurement (it runs
    /// in the instrument's process, on the instrument's CPUs; `instrument_cpu_s` leaves it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_forwarder_cpu_s: Option<f64>,
    /// Packets the link's loss model dropped, both directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_lost: Option<u64>,
    /// Packets dropped because a direction's queue was full (the rate's drop-tail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_overflow: Option<u64>,
    /// Packets the forwarder wrote more than 1 ms after they were due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_late: Option<u64>,
    /// True when the forwarder fell behind (more than 1 % of packets over 1 ms late): the link
    /// was slower than its settings, so the row measures the forwarder as much as the subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net_bound: Option<bool>,
    /// How steady the throughput was: the coefficient of variation (standard deviation ÷ mean)
    /// of the answers (a group's completed iterations) in each whole 100 ms tick after the
    /// ramp-up; absent for loads of fewer than 10 such ticks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rps_cv: Option<f64>,
    /// Rows loaded by several workers (`wirebench run --workers N`): each worker's share, in
    /// worker order. The row's counters are their sums and its latency their histograms added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<Vec<WorkerFacts>>,
    /// Rows loaded by several workers: how far apart the first and the last worker started
    /// measuring, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_skew_ms: Option<f64>,
    /// Further numeric metrics of in-process harnesses (`size_gzip_bytes`, `alloc_bytes`, ...).
    #[serde(default, flatten)]
    pub extra: BTreeMap<String, f64>,
}

/// One worker's share of a row loaded by several workers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkerFacts {
    /// `i/N`: worker i of the N that shared the load.
    pub worker: String,
    /// The machine it ran on (its host name).
    pub host: String,
    pub requests: u64,
    pub errors: u64,
    /// Its requests over its own measuring window.
    pub rps: f64,
    /// Its own 99th percentile latency (the row's is over every worker's samples).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_us: Option<u64>,
    /// CPU seconds it used, and the CPUs it had.
    pub cpu_s: f64,
    pub cpus: u32,
    /// It used at least 90 % of its CPUs' time: it may have set the pace.
    pub bound: bool,
    /// When it started measuring (seconds since the Unix epoch) and for how long.
    pub started_s: f64,
    pub duration_s: f64,
}

/// A load's answers over time, from the moment its measurement began.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Timeline {
    /// The width of a tick, ms.
    pub tick_ms: u32,
    /// Right answers (a group's completed iterations) in each tick; the last is partial.
    pub ok: Vec<u64>,
    /// Errors in each tick.
    pub errors: Vec<u64>,
    /// The 99th percentile latency of the answers of each second, µs (0: none that second);
    /// empty for thread groups and loads of several workers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub p99_us_per_s: Vec<u64>,
}

/// What `wirebench load --json` (and `wirebench merge --json`) prints: one object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadOutput {
    /// Right answers.
    pub requests: u64,
    pub errors: u64,
    pub duration_s: f64,
    pub rps: f64,
    pub messages: u64,
    pub messages_per_s: f64,
    /// Bytes written to and read from the sockets (TLS records included).
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// CPU seconds the instrument used (the workers' together, merged).
    pub cpu_s: f64,
    /// Latency of the right answers, µs (in the open model from each request's intended send).
    pub latency_us: LatencyOutput,
    /// Streaming calls: to their first message.
    pub first_message_us: Option<FirstMessageOutput>,
    /// The open model: from each request's actual send.
    pub latency_uncorrected_us: Option<LatencyOutput>,
    pub first_error: Option<String>,
    /// Thread groups: completed iterations and their rate, and each step.
    pub iterations: Option<u64>,
    pub iterations_per_s: Option<f64>,
    pub steps: Vec<StepOutput>,
    /// `--net`: the link and what crossed it.
    pub net: Option<NetOutput>,
    /// `merge`: each worker's share (with the directory it was read from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<Vec<serde_json::Value>>,
    /// `merge`: how far apart the workers started measuring, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew_ms: Option<f64>,
    /// `merge`: the seconds every worker was measuring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap_s: Option<f64>,
    /// `merge`: the workers started too far apart for their loads to add up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skewed: Option<bool>,
    /// `--bottleneck`: whether this client set the pace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<BottleneckOutput>,
}

/// `wirebench load --bottleneck`: the load again with the instrument capped at `cap` of its time in
/// every other slice, and the capped slices' answers over the free ones'
/// (`wirebench_core::bottleneck`); `error` says why there is no ratio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BottleneckOutput {
    pub cap: f64,
    /// Geometric mean of each capped slice's bytes over its free neighbours', and its 95 %
    /// interval (`bottleneck::Bottleneck`); `pairs`: the capped slices read.
    pub ratio: Option<f64>,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    pub pairs: Option<usize>,
    /// Share of the capped slices' time the load paused.
    pub paused: Option<f64>,
    /// The client may have set the pace: the interval's low end is under `bottleneck::CLEAR`, or the
    /// probe could not tell.
    pub instrument_bound: bool,
    pub error: Option<String>,
}

/// A latency distribution in `LoadOutput`, µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LatencyOutput {
    pub min: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    pub mean: f64,
}

impl From<&Latency> for LatencyOutput {
    fn from(l: &Latency) -> Self {
        LatencyOutput { min: l.min, p50: l.p50, p90: l.p90, p99: l.p99, p999: l.p999, max: l.max, mean: l.mean }
    }
}

/// Time to the first message of streaming calls, µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FirstMessageOutput {
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
}

/// One step of a thread group in `LoadOutput`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepOutput {
    pub label: String,
    pub requests: u64,
    pub errors: u64,
    pub latency_us: StepLatencyOutput,
}

/// A step's latency, µs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepLatencyOutput {
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
    pub mean: f64,
}

/// A `--net` link in `LoadOutput`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NetOutput {
    /// The setting (`rtt=40ms,loss=1%`).
    pub link: String,
    pub forwarder_cpu_s: f64,
    /// Client to server, and server to client.
    pub up: DirOutput,
    pub down: DirOutput,
}

/// One direction of a link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirOutput {
    pub packets: u64,
    pub lost: u64,
    /// Dropped because the direction's queue was full.
    pub overflow: u64,
    /// Written more than 1 ms after they were due.
    pub late: u64,
}

/// One step of a thread group, over a measurement.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepMetrics {
    pub label: String,
    /// Answers with the expected status.
    pub requests: u64,
    /// Wrong status, I/O error, or a capture that found nothing.
    pub errors: u64,
    pub latency_us: Latency,
}

/// Latency distribution from an HDR histogram, in microseconds. In the open model the latency
/// is measured from each request's intended send time (corrected for coordinated omission).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    pub min: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    pub mean: f64,
    /// (percentile, latency_us) points of the percentile curve, for charts.
    #[serde(default)]
    pub curve: Vec<(f64, u64)>,
}

/// `run.json`: what ran, where, with which versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunInfo {
    pub schema_version: u32,
    pub run_id: String,
    pub suite: String,
    pub suite_file: String,
    pub profile: String,
    pub repeats: u32,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    pub git_revision: Option<String>,
    pub machine: Machine,
    /// Tool and library versions (`wirebench`, `rustc`, `hyper`, ...).
    pub versions: BTreeMap<String, String>,
    pub cpus: CpuSets,
    /// The `--only` filter, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
    /// The suite as it ran (profile applied), so a report can be re-rendered without the file.
    pub parameters: serde_json::Value,
    /// A sequential run's rounds of repeats for undecided claims (`--until-decided`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequential: Option<Sequential>,
    /// The network links the run built, each measured once when it was first made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkFacts>,
    /// The order the load rows ran in, round by round (docs/METHODOLOGY.md, "Rounds"); absent
    /// in runs from before rows were interleaved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<Rounds>,
    /// The same fixed work timed on each of the run's CPUs when it started and when it ended
    /// (docs/METHODOLOGY.md, "The CPUs' speed"); absent in runs from before the probe and in
    /// runs that sense no contention.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_speed: Vec<CpuProbe>,
}

/// One CPU's probe: how long each slice of the fixed work took on it (`speed::probe`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuProbe {
    /// `start` (before the first subject started) or `end` (after the last stopped).
    pub at: String,
    pub cpu: usize,
    /// Each slice's wall-clock time, µs.
    pub slices_us: Vec<u64>,
}

/// Interleaved rounds: round r measures every load row once (its warm-up, then repeat r), in an
/// order drawn afresh for each round from `seed` (`wirebench run --seed` draws the same orders).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rounds {
    pub seed: u64,
    /// Subjects started once and kept up across the rounds (on loopback, using no service):
    /// their rows are shuffled one by one.
    pub kept_up: Vec<String>,
    /// Subjects started and stopped once per round, with their rows shuffled together: those
    /// behind a network link (each round builds the link again) and those that use a service,
    /// whose state other subjects of the service share.
    pub restarted: Vec<String>,
    /// Each round's rows in the order they were measured.
    pub order: Vec<RoundOrder>,
    /// Each harness round's harnesses in the order they ran (`repeat`: the round's first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub harnesses: Vec<RoundOrder>,
}

/// One round: its repeat number and the rows in the order measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundOrder {
    pub repeat: u32,
    pub rows: Vec<String>,
}

/// A network link as set and as observed by a short check (`wirebench net check`'s probes)
/// right after it was made, before any row crossed it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkFacts {
    /// The setting, as rows record it (`rtt=40ms,loss=1%,cc=reno`).
    pub net: String,
    pub rtt_probes: u64,
    pub rtt_answered: u64,
    pub rtt_median_ms: f64,
    pub rtt_p99_ms: f64,
    /// Client to server.
    pub loss_up: ObservedLoss,
    /// Server to client.
    pub loss_down: ObservedLoss,
}

/// A direction's observed loss and its 95 % Wilson interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObservedLoss {
    pub sent: u64,
    pub lost: u64,
    pub observed: f64,
    pub low: f64,
    pub high: f64,
}

/// What a sequential run did after the profile's repeats: which rows each round repeated, why it
/// stopped, and the claims left undecided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sequential {
    /// Repeats of every row before the first look.
    pub min_repeats: u32,
    pub max_repeats: u32,
    pub budget_s: f64,
    /// Times the claims may be judged (`max_repeats − min_repeats + 1`).
    pub looks: u32,
    /// The error rate of each look's claim intervals: 0.05 ÷ looks.
    pub claim_alpha: f64,
    pub rounds: Vec<SequentialRound>,
    pub stopped: SequentialStop,
    /// Claims still undecided when it stopped (their rows' intervals still straddle).
    pub undecided: Vec<String>,
}

/// One round of a sequential run: one more repeat of the rows of the claims still undecided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SequentialRound {
    /// The repeat number every row of the round got.
    pub repeat: u32,
    /// The undecided claims that asked for it.
    pub claims: Vec<String>,
    /// Scenarios and harnesses it ran.
    pub rows: Vec<String>,
    pub duration_s: f64,
}

/// Why a sequential run stopped repeating.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SequentialStop {
    /// No claim was undecided for want of repeats.
    Decided,
    /// Every undecided claim's rows reached `max_repeats`.
    MaxRepeats,
    /// The time budget was spent.
    Budget,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    pub cpu_model: String,
    pub cores: usize,
    pub kernel: String,
    pub os: String,
    pub memory_kb: u64,
}

/// CPU sets the subject and the load engine were pinned to (empty = not pinned).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CpuSets {
    pub subject: Vec<usize>,
    pub load: Vec<usize>,
}

impl CpuSets {
    /// Every CPU of either set, once each, in order (empty when nothing is pinned).
    pub fn union(&self) -> Vec<usize> {
        let mut all: Vec<usize> = self.subject.iter().chain(&self.load).copied().collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// The JSON Schema documents published under `schemas/`, by file name.
pub fn json_schemas() -> Vec<(&'static str, String)> {
    let pretty = |s: schemars::Schema| serde_json::to_string_pretty(&s).expect("schema serializes") + "\n";
    vec![
        ("measurement.schema.json", pretty(schemars::schema_for!(Measurement))),
        ("run.schema.json", pretty(schemars::schema_for!(RunInfo))),
        ("load.schema.json", pretty(schemars::schema_for!(LoadOutput))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Measurement {
        Measurement {
            schema_version: SCHEMA_VERSION,
            run_id: "r".into(),
            suite: "smoke".into(),
            scenario: "s".into(),
            subject: "rest".into(),
            lang: "rust".into(),
            lab: Some("protocols".into()),
            transport: Some("h1".into()),
            net: None,
            protocol: Some("http1".into()),
            format: None,
            params: BTreeMap::new(),
            repeat: 1,
            status: Status::Ok,
            error: None,
            metrics: Metrics {
                rps: Some(10.0),
                extra: [("size_gzip_bytes".to_string(), 5.0)].into(),
                ..Default::default()
            },
        }
    }

    #[test]
    fn measurement_round_trips_through_json_with_extra_metrics() {
        let m = sample();
        let line = serde_json::to_string(&m).unwrap();
        assert!(line.contains("\"size_gzip_bytes\":5.0"), "{line}");
        assert_eq!(serde_json::from_str::<Measurement>(&line).unwrap(), m);
    }

    #[test]
    fn committed_schemas_are_up_to_date() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
        for (name, text) in json_schemas() {
            if std::env::var_os("WIREBENCH_BLESS").is_some() {
                std::fs::write(dir.join(name), &text).unwrap();
            }
            let committed = std::fs::read_to_string(dir.join(name))
                .unwrap_or_else(|_| panic!("schemas/{name} missing: run `make schemas`"));
            assert_eq!(committed, text, "schemas/{name} is stale: run `make schemas`");
        }
    }

    #[test]
    fn output_validates_against_published_schema_and_bad_output_does_not() {
        let (_, text) = &json_schemas()[0];
        let schema: serde_json::Value = serde_json::from_str(text).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let good = serde_json::to_value(sample()).unwrap();
        assert!(validator.is_valid(&good));
        let mut bad = good.clone();
        bad["status"] = "maybe".into();
        assert!(!validator.is_valid(&bad));
    }
}
