//! Suites: the TOML files under `suites/` that name subjects, scenarios, profiles and claims.
//! Parsing turns any mistake into one line naming the file, the key and what is wrong.
//! `[[matrix]]` tables are expanded into scenarios first (`matrix`).

pub mod catalog;
pub mod groups;
mod matrix;
mod services;

pub use catalog::Catalog;
pub use groups::{GroupSpec, Script};
pub use services::{FileSpec, Placeholders, Ready, ServiceSpec};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A suite as written in its file, with `[scenario_defaults]` already merged into each scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// File stem, filled in by `load` (not part of the file, so not written back either).
    #[serde(skip)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The lab its rows belong to (`protocols`, `formats`, ...); default: the suite's name.
    /// A scenario or harness may set its own (`Suite::scenario_lab`, `Suite::harness_lab`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
    #[serde(default = "default_profile")]
    pub default_profile: String,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    #[serde(default)]
    pub subjects: BTreeMap<String, SubjectSpec>,
    /// Real servers subjects need (a broker, a database), started by the runner (`services`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, ServiceSpec>,
    /// Keys every scenario inherits unless it sets them itself (merged before parsing).
    #[serde(default, skip_serializing)]
    pub scenario_defaults: Option<toml::Table>,
    #[serde(default)]
    pub scenarios: Vec<Scenario>,
    /// Thread groups: scripted virtual users a scenario can run (`groups`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub groups: BTreeMap<String, GroupSpec>,
    /// In-process measurements (codecs, kernels): commands that print measurement lines.
    #[serde(default)]
    pub harnesses: Vec<HarnessSpec>,
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// The study's own tables, row by row beside ours (`[[published]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<PublishedTable>,
    /// Where each scenario was written (`matrix[0] (rest-h1-1kb)` or `scenarios[3]`), by index;
    /// filled in by `parse`, so errors name the matrix that made a row.
    #[serde(skip)]
    pub origins: Vec<String>,
    /// The file that declares each subject and service taken from the catalog
    /// (`subjects.rest-rust` → `subjects/protocols/rust/subject.toml`); filled in by `parse_with`.
    #[serde(skip)]
    pub sources: BTreeMap<String, String>,
}

/// A command that measures in its own process and prints one measurement JSON line per result
/// (schemas/measurement.schema.json). The runner appends `--repeats R --run-id ID`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessSpec {
    pub id: String,
    pub lang: String,
    pub command: Vec<String>,
    #[serde(default)]
    pub build: Option<Build>,
    #[serde(default)]
    pub workdir: Option<String>,
    /// The harness is killed and its row failed after this long.
    #[serde(default = "default_harness_timeout")]
    pub timeout_s: f64,
    /// Globs of the scenario ids it prints (e.g. `*-rust`), so claims can name them.
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// Subjects it talks to (servers a driver or a browser page calls), started with their
    /// services before it and stopped after it. In `command`, `{<subject>.<port>}` is a
    /// subject's port and `{profile}` the run's profile name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
    /// The lab of the rows it prints, when not the suite's (the runner stamps it on each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
    /// A network link between the harness (a browser, a driver) and its subjects: they start in
    /// the link's server namespace, the harness in its client namespace, and the runner stamps
    /// the link on every row it prints (docs/METHODOLOGY.md, "Network conditions").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<wirebench_link::NetSpec>,
}

fn default_harness_timeout() -> f64 {
    1800.0
}

fn default_profile() -> String {
    "quick".into()
}

/// How a subject or harness is built: one command (`["go", "build", "."]`) or several run in
/// order (`[["./build.sh"], ["cargo", "build", ...]]`), each an argv run from its `workdir`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Build {
    One(Vec<String>),
    Steps(Vec<Vec<String>>),
}

impl Build {
    pub fn steps(&self) -> Vec<&[String]> {
        match self {
            Build::One(argv) => vec![argv.as_slice()],
            Build::Steps(steps) => steps.iter().map(Vec::as_slice).collect(),
        }
    }
}

/// How much work one run does: repeats and a scale on request counts and durations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub repeats: u32,
    /// Multiplies `requests`, `warmup_requests`, `duration_s` and `warmup_s` of every scenario.
    #[serde(default = "one")]
    pub scale: f64,
    /// Caps `connections` (smoke runs stay light).
    #[serde(default)]
    pub max_connections: Option<u32>,
    /// Harness repeats are split into this many rounds, each running every harness once with
    /// its share of the repeats, so that harnesses that measure one thing under different
    /// conditions (the realtime lab's TLS, HTTP/2, slow-client and disk runs) share the
    /// machine's drift instead of each getting its own stretch of minutes. Capped at `repeats`.
    #[serde(default = "one_round")]
    pub harness_rounds: u32,
    /// After `repeats`, keep repeating the rows of claims still undecided, one repeat per round,
    /// until each is decided or the limits are reached (`runner`'s sequential phase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_decided: Option<UntilDecided>,
    /// Globs on scenario ids this profile leaves out (protocols' `brief` drops the rows across
    /// network links, whose lossy rows need seconds each). Each must match some scenario;
    /// harness rows are not skipped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
}

/// The limits of a sequential run: at most `max_repeats` repeats of any row, and no new round
/// after `budget_s` seconds of the sequential phase.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UntilDecided {
    pub max_repeats: u32,
    pub budget_s: f64,
}

fn one_round() -> u32 {
    1
}

impl Profile {
    /// The `skip` globs, parsed; or the index of the first that is not a glob, with its error.
    pub fn skip_globs(&self) -> Result<Vec<glob::Pattern>, (usize, glob::PatternError)> {
        self.skip.iter().enumerate().map(|(i, g)| glob::Pattern::new(g).map_err(|e| (i, e))).collect()
    }

    /// Whether the profile leaves out the scenario with this id.
    pub fn skips(&self, id: &str) -> bool {
        // The globs were checked when the suite was parsed; a built-in profile has none.
        self.skip_globs().is_ok_and(|globs| globs.iter().any(|g| g.matches(id)))
    }

    /// How many times claims are judged in a run: once, or at every repeat count from `repeats`
    /// to `until_decided.max_repeats` in a sequential run.
    pub fn looks(&self) -> u32 {
        self.until_decided.map_or(1, |u| u.max_repeats.saturating_sub(self.repeats) + 1)
    }

    /// The error rate of each look's claim intervals: 5 % shared among the looks (Bonferroni),
    /// so the chance that any look's interval misses stays at most 5 % however the run stops.
    pub fn claim_alpha(&self) -> f64 {
        crate::stats::ALPHA / f64::from(self.looks())
    }

    /// The repeats of each harness round: `repeats` split into `harness_rounds` (at most
    /// `repeats`) parts, the larger ones first, as (first repeat, count).
    pub fn harness_rounds(&self) -> Vec<(u32, u32)> {
        let rounds = self.harness_rounds.clamp(1, self.repeats.max(1));
        let (base, extra) = (self.repeats / rounds, self.repeats % rounds);
        let mut first = 1;
        (0..rounds)
            .map(|k| {
                let count = base + u32::from(k < extra);
                let round = (first, count);
                first += count;
                round
            })
            .collect()
    }
}

fn one() -> f64 {
    1.0
}

impl UntilDecided {
    /// Why these limits cannot work after `repeats` repeats, if they cannot.
    pub fn check(&self, repeats: u32) -> Result<(), String> {
        if repeats < 2 {
            return Err(format!(
                "needs at least 2 repeats before it (the profile has {repeats}): one gives no interval"
            ));
        }
        if self.max_repeats <= repeats {
            return Err(format!("max_repeats {} must exceed the profile's {repeats} repeats", self.max_repeats));
        }
        if !(self.budget_s > 0.0 && self.budget_s.is_finite()) {
            return Err(format!("budget_s {} must be a positive number of seconds", self.budget_s));
        }
        Ok(())
    }
}

/// A process to measure, described as data (TechEmpower's benchmark_config.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubjectSpec {
    /// Language the subject is written in; recorded with every measurement.
    pub lang: String,
    /// argv of the subject, run directly (no shell) so it gets the runner's death signal.
    pub command: Vec<String>,
    /// What builds it (`cargo build --release -p ...`), run by `wirebench build` and before a
    /// run; identical steps of several subjects run once.
    #[serde(default)]
    pub build: Option<Build>,
    /// Commands run in order in its working directory each time before it starts, with its
    /// placeholders filled (a database filled with data); one that fails fails the subject.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<Vec<String>>,
    /// Working directory, relative to the project root (default: the root).
    #[serde(default)]
    pub workdir: Option<String>,
    /// Named ports and the flag that passes each: `{ plain = "--port", tls = "--tls-port" }`.
    pub ports: BTreeMap<String, String>,
    /// The flag that sets the address it listens on (`--host`), passed only when workers on
    /// other machines load it (`wirebench run --workers N --advertise HOST`); it listens on
    /// loopback otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Ports to use instead of free ones, by name (otherwise a free loopback port is picked).
    #[serde(default)]
    pub fixed_ports: BTreeMap<String, u16>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub health: Health,
    #[serde(default = "default_ready_timeout")]
    pub ready_timeout_s: f64,
    /// Subjects whose build must run before its own, by id: a tool its `setup` runs that another
    /// subject's build makes (the REST study's `-filled` subjects run restcache-fill).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// Services it needs, started before it; `{<service>.<port>}` in `command` and `env` is
    /// replaced by the service's port (`suite::services`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<String>,
}

fn default_ready_timeout() -> f64 {
    30.0
}

/// Readiness: an HTTP/1.1 GET on a named port answering 200.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Health {
    #[serde(default = "default_port_name")]
    pub port: String,
    pub path: String,
}

fn default_port_name() -> String {
    "plain".into()
}

/// One row of the report: a driver sending one request shape at one subject.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub id: String,
    pub subject: String,
    /// Load driver id from the load engine's registry (`http1`, `http2`, ...).
    pub driver: String,
    /// Connect to the subject's `tls` port with TLS (ALPN picks the HTTP version).
    #[serde(default)]
    pub tls: bool,
    /// The port the load goes to, when not `plain` or `tls`: another of the subject's ports, or
    /// `<service>.<port>` of a service the subject uses (an MQTT broker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(default = "default_method")]
    pub method: String,
    /// The request's path; empty for a scenario that runs a group.
    #[serde(default)]
    pub path: String,
    /// A thread group (`groups`) its connections run as virtual users, instead of one request;
    /// `requests` then counts the users' iterations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Users start evenly over this many seconds (JMeter's ramp-up); the measured interval
    /// includes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp_up_s: Option<f64>,
    /// The group's script, resolved when the suite loads.
    #[serde(skip)]
    pub script: Option<std::sync::Arc<Script>>,
    /// Request body of this many bytes (deterministic filler), for POST/PUT ...
    #[serde(default)]
    pub body_bytes: Option<usize>,
    /// ... or this text as UTF-8 (a GraphQL query, a SOAP envelope) ...
    #[serde(default)]
    pub body: Option<String>,
    /// ... or the bytes of this file, relative to the project root (a protobuf message).
    #[serde(default)]
    pub body_file: Option<String>,
    /// Protocol parameters that only the driver reads (a gRPC call mode, a message count, ...);
    /// recorded with every measurement.
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// Payload bytes one call carries (both directions, every message), so the report can show
    /// wire bytes per call against them: the envelope overhead of the protocol.
    #[serde(default)]
    pub payload_bytes: Option<u64>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Concurrent connections (`h2load -c`).
    pub connections: u32,
    /// Concurrent streams per connection (`h2load -m`); 1 for HTTP/1.1.
    #[serde(default = "one_u32")]
    pub streams: u32,
    /// Stop after this many requests in total (`-n`) ...
    #[serde(default)]
    pub requests: Option<u64>,
    /// ... or after this many seconds.
    #[serde(default)]
    pub duration_s: Option<f64>,
    /// Open model: requests per second at a constant arrival rate (latency corrected for
    /// coordinated omission). Absent: closed model, each stream sends as soon as it is answered.
    #[serde(default)]
    pub rate: Option<f64>,
    #[serde(default)]
    pub warmup_requests: Option<u64>,
    #[serde(default)]
    pub warmup_s: Option<f64>,
    #[serde(default)]
    pub expect: Expect,
    /// Free-form labels for grouping in the report (`api`, `payload`, `transport`, ...).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// The lab of its rows, when not the suite's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
    /// A new connection for every request, its handshakes (TCP, TLS, QUIC) in the request's
    /// latency, as a client without keep-alive pays them; `connections` is then the number of
    /// requests in flight. Needs `streams = 1`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reconnect: bool,
    /// A network link between the load and the subject (`net = { rtt_ms = 40, loss = 0.01 }`):
    /// the subject and its services run in a namespace of their own, the load in another,
    /// joined by the link (docs/METHODOLOGY.md, "Network conditions").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<wirebench_link::NetSpec>,
}

fn default_method() -> String {
    "GET".into()
}

fn one_u32() -> u32 {
    1
}

/// What a correct response looks like; checked before timing and counted during it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default = "ok_status")]
    pub status: u16,
    #[serde(default)]
    pub body_bytes: Option<u64>,
    /// Lower-case hex SHA-256 of the whole body.
    #[serde(default)]
    pub body_sha256: Option<String>,
    /// Messages one call carries (a streaming call's count); plain HTTP carries one.
    #[serde(default)]
    pub messages: Option<u64>,
}

fn ok_status() -> u16 {
    200
}

impl Default for Expect {
    fn default() -> Self {
        Expect { status: 200, body_bytes: None, body_sha256: None, messages: None }
    }
}

/// A published finding and the measured expression that tests it:
/// `metric(numerator) [/ metric(denominator)] [/ (metric(versus.numerator) /
/// metric(versus.denominator))] <op> threshold`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub id: String,
    pub text: String,
    /// What the study reported, as it reported it.
    pub published: String,
    /// The study's number in the claim's own unit (a ratio when the claim divides scenarios): the
    /// size the verdict checks as well as the direction.
    #[serde(default)]
    pub published_value: Option<f64>,
    /// How far, as a factor, our value may lie from `published_value` and still be the study's
    /// size; `claims::SIZE_TOLERANCE` unless the study's words ask for another ("slightly",
    /// "about").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// Where in the study the claim is made: `§5.8.2`, `Table 5.1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where the study's own arithmetic or wording is off.
    #[serde(default)]
    pub note: Option<String>,
    pub metric: String,
    pub numerator: String,
    #[serde(default)]
    pub denominator: Option<String>,
    /// A second ratio the first is divided by, for claims about how much one thing degrades
    /// against another ("WSS slows 37.9x from 1 KB to 1 MB, REST 276.9x").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versus: Option<Versus>,
    pub op: Op,
    /// The direction's bound (`op` `>` or `<`); none for `~`, whose band is the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// Scenario-id globs of cases a quantified claim leaves out (rows that measure something else).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub except: Vec<String>,
}

/// A table the study published, each of its numbers tied to the row of ours that measures the
/// same thing: the report shows the study's number, ours with its interval, and ours ÷ the study's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedTable {
    pub id: String,
    /// What the table shows, as a heading: "Requests per second by API and transport".
    pub title: String,
    /// Where in the study: `Table 5.1`.
    pub source: String,
    /// The metric both numbers are (one of `CLAIM_METRICS`), in its unit (`rps` in req/s,
    /// `mean_us` in µs, `rss_kb` in KiB).
    pub metric: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub rows: Vec<PublishedRow>,
}

/// One number of a published table and the scenario of ours it stands beside.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedRow {
    pub scenario: String,
    pub value: f64,
    /// What the study's row was, where it differs from ours ("h2 (with TLS)").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// The ratio a claim's ratio is divided by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Versus {
    pub numerator: String,
    pub denominator: String,
}

impl Claim {
    /// The scenarios of the claim's expression with their exponents: the value is the product
    /// of `metric(id)^exponent`.
    pub fn factors(&self) -> Vec<(&str, i32)> {
        let mut f = vec![(self.numerator.as_str(), 1)];
        f.extend(self.denominator.as_deref().map(|d| (d, -1)));
        if let Some(v) = &self.versus {
            f.extend([(v.numerator.as_str(), -1), (v.denominator.as_str(), 1)]);
        }
        f
    }

    /// True when `value` lies on the claim's side of its threshold (always, for `~`).
    pub fn direction_holds(&self, value: f64) -> bool {
        self.threshold.is_none_or(|t| self.op.holds(value, t))
    }

    /// True when the claim ranges over cases: one of its scenario ids holds a `*`.
    pub fn is_quantified(&self) -> bool {
        self.factors().iter().any(|(id, _)| id.contains('*'))
    }

    /// The cases a quantified claim ranges over among `ids`: each value of its `*` that some
    /// globbed scenario id matches, with every factor's id filled in. A case is left out when two
    /// of its factors name the same scenario (the row against itself) or one matches `except`.
    /// A case may name a scenario that is not in `ids`: it was not measured.
    pub fn cases(&self, ids: &[&str]) -> Vec<ClaimCase> {
        let factors = self.factors();
        let except: Vec<glob::Pattern> = self.except.iter().filter_map(|g| glob::Pattern::new(g).ok()).collect();
        let mut captures: Vec<&str> = factors
            .iter()
            .filter(|(f, _)| f.contains('*'))
            .flat_map(|(f, _)| ids.iter().filter_map(|id| capture(f, id)))
            .collect();
        captures.sort_unstable();
        captures.dedup();
        captures
            .into_iter()
            .map(|c| ClaimCase {
                label: c.to_string(),
                factors: factors.iter().map(|&(f, e)| (f.replacen('*', c, 1), e)).collect(),
            })
            .filter(|case| {
                let mut seen: Vec<&str> = case.factors.iter().map(|(id, _)| id.as_str()).collect();
                seen.sort_unstable();
                let distinct = seen.windows(2).all(|w| w[0] != w[1]);
                distinct && !case.factors.iter().any(|(id, _)| except.iter().any(|p| p.matches(id)))
            })
            .collect()
    }
}

/// One case of a quantified claim: the value its `*` took, and the claim's factors with it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimCase {
    pub label: String,
    pub factors: Vec<(String, i32)>,
}

/// What `*` stands for when the one-`*` pattern matches `id` (at least one character).
pub fn capture<'a>(pattern: &str, id: &'a str) -> Option<&'a str> {
    let (prefix, suffix) = pattern.split_once('*')?;
    let middle = id.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!middle.is_empty()).then_some(middle)
}

/// A claim's direction: above or below its threshold, or `~`, "about the study's number"
/// ("comparable", "the same", "equal"), which has no direction and is judged on its size band
/// alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    #[serde(rename = ">")]
    Greater,
    #[serde(rename = "<")]
    Less,
    #[serde(rename = "~")]
    About,
}

impl Op {
    /// `value op threshold`; always true for `~`.
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Op::Greater => value > threshold,
            Op::Less => value < threshold,
            Op::About => true,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Op::Greater => ">",
            Op::Less => "<",
            Op::About => "≈",
        }
    }
}

/// The load engine's drivers as a suite sees them (the load crate's registry implements it):
/// their ids, and each one's check of a scenario's `params`.
pub trait Drivers {
    fn ids(&self) -> Vec<&str>;
    /// `Err(message)` when `driver` would refuse these parameters.
    fn check_params(&self, driver: &str, params: &BTreeMap<String, serde_json::Value>) -> Result<(), String>;
}

/// Ids alone, for tests: every parameter passes.
impl Drivers for [&str] {
    fn ids(&self) -> Vec<&str> {
        self.to_vec()
    }

    fn check_params(&self, _: &str, _: &BTreeMap<String, serde_json::Value>) -> Result<(), String> {
        Ok(())
    }
}

/// A suite file that can't be used; `Display` is the one line a user sees.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("{file}: cannot read: {source}")]
    Read { file: String, source: std::io::Error },
    #[error("{file}: {key}: {message}")]
    Invalid { file: String, key: String, message: String },
}

/// Where a subject id is looked up, for the error that finds none.
const WHERE_SUBJECTS: &str = "(in the suite or a subjects/**/subject.toml)";

/// Metrics a claim may name, with where they come from.
pub const CLAIM_METRICS: &[&str] = &[
    "rps",
    "messages_per_s",
    "first_message_p50_us",
    "wire_bytes_per_call",
    "iterations_per_s",
    "mean_us",
    "p50_us",
    "p99_us",
    "tail_ratio",
    "rps_cv",
    "duration_s",
    "duration_gsd",
    "cpu_s",
    "rss_kb",
    "serialize_ns",
    "deserialize_ns",
    "size_bytes",
    "size_gzip_bytes",
    "parse_us",
    "total_us",
];

impl Suite {
    /// Reads and checks a suite file, with the subjects and services declared under
    /// `<root>/subjects` (`catalog`) and the load engine's `drivers`.
    pub fn load(path: &Path, root: &Path, drivers: &dyn Drivers) -> Result<Suite, SuiteError> {
        let catalog = Catalog::load(root)?;
        Suite::load_with(path, root, &catalog, drivers)
    }

    /// `load` with a catalog already read (`wirebench build` and `list` read many suites).
    pub fn load_with(path: &Path, root: &Path, catalog: &Catalog, drivers: &dyn Drivers) -> Result<Suite, SuiteError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| SuiteError::Read { file: file.clone(), source })?;
        let mut suite = Suite::parse_with(&text, &file, catalog)?;
        suite.name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        suite.check(&file, &drivers.ids())?;
        suite.check_params(&file, drivers)?;
        suite.attach_scripts(&file, root)?;
        Ok(suite)
    }

    /// Each scenario's `params` as its driver reads them, so a bad value is one line naming the
    /// file and key before anything builds or starts.
    pub fn check_params(&self, file: &str, drivers: &dyn Drivers) -> Result<(), SuiteError> {
        for (i, sc) in self.scenarios.iter().enumerate() {
            drivers.check_params(&sc.driver, &sc.params).map_err(|message| SuiteError::Invalid {
                file: file.to_string(),
                key: format!("{}.params", self.origin(i)),
                message,
            })?;
        }
        Ok(())
    }

    /// Parses TOML text that declares its own subjects; errors carry the dotted path of the
    /// offending key.
    pub fn parse(text: &str, file: &str) -> Result<Suite, SuiteError> {
        Suite::parse_with(text, file, &Catalog::default())
    }

    /// Parses TOML text whose scenarios and harnesses may name subjects of the catalog.
    pub fn parse_with(text: &str, file: &str, catalog: &Catalog) -> Result<Suite, SuiteError> {
        let invalid = |key: String, message: String| SuiteError::Invalid { file: file.to_string(), key, message };
        let mut table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| invalid(location(text, e.span()), one_line(e.message())))?;
        let origins = matrix::expand(&mut table).map_err(|(key, message)| invalid(key, message))?;
        merge_scenario_defaults(&mut table);
        let (mut sources, mut inherited) = (BTreeMap::new(), BTreeMap::new());
        // Harness rows first: what a row inherits may name subjects to merge in.
        catalog.extend_harnesses(&mut table, file, &mut sources, &mut inherited)?;
        catalog.merge_into(&mut table, &mut sources).map_err(|(key, message)| invalid(key, message))?;
        // A declared subject's, service's or harness program's own mistake is reported in its file.
        let blamed = |key: String, message: String| {
            let row_key = key.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
            let (file, key) = match inherited.get(&row_key) {
                Some((file, declared)) => (file.clone(), format!("{declared}{}", &key[row_key.len()..])),
                None => blame(&key, &sources, file),
            };
            SuiteError::Invalid { file, key, message }
        };
        merge_subject_bases(&mut table).map_err(|(key, message)| blamed(key, message))?;
        let value = toml::Value::Table(table);
        let mut suite: Suite = serde_path_to_error::deserialize(value).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { "(top level)".into() } else { with_origin(&key, &origins) };
            blamed(key, one_line(&e.inner().to_string()))
        })?;
        suite.origins = origins;
        suite.sources = sources;
        Ok(suite)
    }

    /// The file that declares a subject (`subjects.<id>`), service (`services.<id>`) or the
    /// program a harness row extends (`harnesses.<row id>`): its `subject.toml`, service file or
    /// `harness.toml`, else the suite's own `file`.
    pub fn source_of<'a>(&'a self, key: &str, file: &'a str) -> &'a str {
        self.sources.get(key).map_or(file, String::as_str)
    }

    /// The lab of the suite's rows: its `lab`, else its name.
    pub fn lab(&self) -> &str {
        self.lab.as_deref().unwrap_or(&self.name)
    }

    /// The lab of a scenario's rows: its own `lab`, else the suite's.
    pub fn scenario_lab<'a>(&'a self, s: &'a Scenario) -> &'a str {
        s.lab.as_deref().unwrap_or(self.lab())
    }

    /// The lab of the rows a harness prints: its own `lab`, else the suite's.
    pub fn harness_lab<'a>(&'a self, h: &'a HarnessSpec) -> &'a str {
        h.lab.as_deref().unwrap_or(self.lab())
    }

    /// Where scenario `i` was written, for error keys.
    fn origin(&self, i: usize) -> String {
        self.origins.get(i).cloned().unwrap_or_else(|| format!("scenarios[{i}]"))
    }

    /// Cross-references that serde can't check: names that must exist, numbers that must be > 0.
    pub fn check(&self, file: &str, drivers: &[&str]) -> Result<(), SuiteError> {
        let bad = |key: String, message: String| {
            let (file, key) = blame(&key, &self.sources, file);
            Err(SuiteError::Invalid { file, key, message })
        };
        const NO_LAB: &str = "must name a lab (`protocols`, `formats`, ...), not be empty";
        if self.lab.as_deref() == Some("") {
            return bad("lab".into(), NO_LAB.into());
        }
        for (name, s) in &self.subjects {
            if s.command.is_empty() {
                return bad(format!("subjects.{name}.command"), "must name a program".into());
            }
            if !s.ports.contains_key(&s.health.port) {
                return bad(
                    format!("subjects.{name}.health.port"),
                    format!("no port named `{}` in ports", s.health.port),
                );
            }
            let mut sample = Placeholders::default();
            for own in ["dir", "root", "profile"] {
                sample.values.insert(own.into(), format!("/{own}"));
            }
            if let Some(other) = s.needs.iter().find(|n| !self.subjects.contains_key(*n)) {
                return bad(format!("subjects.{name}.needs"), format!("no subject named `{other}` {WHERE_SUBJECTS}"));
            }
            for service in &s.services {
                let Some(spec) = self.services.get(service) else {
                    return bad(
                        format!("subjects.{name}.services"),
                        format!("no service named `{service}` (in the suite or subjects/services/{service}.toml)"),
                    );
                };
                let ports = spec.ports.iter().map(|p| (p.clone(), 1u16)).collect();
                sample.add_service(service, &Placeholders::own("/dir", &ports));
            }
            if let Err(e) = sample.fill_all(&s.command) {
                return bad(format!("subjects.{name}.command"), e);
            }
            if let Err(e) = sample.fill_map(&s.env) {
                return bad(format!("subjects.{name}.env"), e);
            }
            for (i, step) in s.setup.iter().enumerate() {
                if step.is_empty() {
                    return bad(format!("subjects.{name}.setup[{i}]"), "must name a program".into());
                }
                if let Err(e) = sample.fill_all(step) {
                    return bad(format!("subjects.{name}.setup[{i}]"), e);
                }
            }
        }
        for (name, s) in &self.services {
            if let Err((key, message)) = s.check() {
                return bad(format!("services.{name}.{key}"), message);
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, sc) in self.scenarios.iter().enumerate() {
            let origin = self.origin(i);
            let key = |k: &str| format!("{origin}.{k}");
            if !seen.insert(&sc.id) {
                let first = self.scenarios.iter().position(|o| o.id == sc.id).map_or(String::new(), |j| self.origin(j));
                return bad(key("id"), format!("`{}` is used twice (first by {first})", sc.id));
            }
            let Some(subject) = self.subjects.get(&sc.subject) else {
                return bad(key("subject"), format!("no subject named `{}` {WHERE_SUBJECTS}", sc.subject));
            };
            if !drivers.contains(&sc.driver.as_str()) {
                return bad(key("driver"), format!("unknown driver `{}`; known: {}", sc.driver, drivers.join(", ")));
            }
            if sc.tls && sc.port.is_none() && !subject.ports.contains_key("tls") {
                return bad(key("tls"), format!("subject `{}` has no port named `tls`", sc.subject));
            }
            if let Some(port) = &sc.port {
                let known = match port.split_once('.') {
                    None => subject.ports.contains_key(port),
                    Some((service, p)) => {
                        subject.services.iter().any(|s| s == service)
                            && self.services.get(service).is_some_and(|s| s.ports.iter().any(|q| q == p))
                    }
                };
                if !known {
                    let mut names: Vec<String> = subject.ports.keys().cloned().collect();
                    for service in &subject.services {
                        let ports = self.services.get(service).map(|s| s.ports.clone()).unwrap_or_default();
                        names.extend(ports.iter().map(|p| format!("{service}.{p}")));
                    }
                    return bad(
                        key("port"),
                        format!("subject `{}` has no port `{port}`; known: {}", sc.subject, names.join(", ")),
                    );
                }
            }
            if sc.lab.as_deref() == Some("") {
                return bad(key("lab"), NO_LAB.into());
            }
            if sc.connections == 0 {
                return bad(key("connections"), "must be at least 1".into());
            }
            if sc.streams == 0 {
                return bad(key("streams"), "must be at least 1".into());
            }
            match (sc.requests, sc.duration_s) {
                (None, None) | (Some(_), Some(_)) => {
                    return bad(key("requests"), "set exactly one of `requests` and `duration_s`".into())
                }
                (Some(0), _) => return bad(key("requests"), "must be at least 1".into()),
                (_, Some(d)) if d <= 0.0 => return bad(key("duration_s"), "must be positive".into()),
                _ => {}
            }
            if matches!(sc.rate, Some(r) if r <= 0.0) {
                return bad(key("rate"), "must be positive".into());
            }
            match &sc.group {
                None if !sc.path.starts_with('/') => return bad(key("path"), "must start with /".into()),
                Some(g) if !self.groups.contains_key(g) => {
                    return bad(key("group"), format!("no group named `{g}` in groups"))
                }
                Some(_)
                    if !sc.path.is_empty()
                        || sc.body.is_some()
                        || sc.body_bytes.is_some()
                        || sc.body_file.is_some() =>
                {
                    return bad(
                        key("path"),
                        "a scenario that runs a group takes its requests from the group's steps".into(),
                    )
                }
                _ => {}
            }
            if matches!(sc.ramp_up_s, Some(r) if r < 0.0 || !r.is_finite())
                || (sc.ramp_up_s.is_some() && sc.group.is_none())
            {
                return bad(key("ramp_up_s"), "must be 0 or more, on a scenario that runs a group".into());
            }
            if [sc.body_bytes.is_some(), sc.body.is_some(), sc.body_file.is_some()].iter().filter(|&&b| b).count() > 1 {
                return bad(key("body"), "set at most one of `body`, `body_file` and `body_bytes`".into());
            }
            if sc.reconnect && (sc.streams != 1 || sc.group.is_some()) {
                return bad(key("reconnect"), "a new connection per request needs streams = 1 and no group".into());
            }
            if let Some(Err(e)) = sc.net.as_ref().map(|n| n.check()) {
                return bad(key("net"), e);
            }
        }
        for (i, h) in self.harnesses.iter().enumerate() {
            if h.command.is_empty() {
                return bad(format!("harnesses[{i}].command"), "must name a program".into());
            }
            if h.lab.as_deref() == Some("") {
                return bad(format!("harnesses[{i}].lab"), NO_LAB.into());
            }
            if let Some(Err(e)) = h.net.as_ref().map(|n| n.check()) {
                return bad(format!("harnesses[{i}].net"), e);
            }
            if self.scenarios.iter().any(|s| s.id == h.id) || self.harnesses[..i].iter().any(|o| o.id == h.id) {
                return bad(format!("harnesses[{i}].id"), format!("`{}` is used twice", h.id));
            }
            if let Some(name) = h.subjects.iter().find(|n| !self.subjects.contains_key(*n)) {
                return bad(format!("harnesses[{i}].subjects"), format!("no subject named `{name}` {WHERE_SUBJECTS}"));
            }
            let mut sample = services::Placeholders::default();
            sample.values.insert("profile".into(), "quick".into());
            for name in &h.subjects {
                for port in self.subjects[name].ports.keys() {
                    sample.values.insert(format!("{name}.{port}"), "1".into());
                }
            }
            if let Err(e) = sample.fill_all(&h.command) {
                return bad(format!("harnesses[{i}].command"), e);
            }
        }
        for (name, p) in &self.profiles {
            if p.repeats == 0 || p.scale <= 0.0 {
                return bad(format!("profiles.{name}"), "repeats and scale must be positive".into());
            }
            if let Some(u) = p.until_decided {
                if let Err(e) = u.check(p.repeats) {
                    return bad(format!("profiles.{name}.until_decided"), e);
                }
            }
            let globs = match p.skip_globs() {
                Ok(globs) => globs,
                Err((i, e)) => {
                    return bad(format!("profiles.{name}.skip[{i}]"), format!("`{}` is not a glob: {e}", p.skip[i]))
                }
            };
            for (i, pattern) in globs.iter().enumerate() {
                if !self.scenarios.iter().any(|s| pattern.matches(&s.id)) {
                    return bad(format!("profiles.{name}.skip[{i}]"), format!("`{}` matches no scenario", p.skip[i]));
                }
            }
        }
        if !self.profiles.is_empty() && !self.profiles.contains_key(&self.default_profile) {
            return bad("default_profile".into(), format!("no profile named `{}`", self.default_profile));
        }
        for (i, c) in self.claims.iter().enumerate() {
            if c.versus.is_some() && c.denominator.is_none() {
                return bad(
                    format!("claims[{i}].versus"),
                    "needs a denominator: it divides one ratio by another".into(),
                );
            }
            let versus = c.versus.as_ref();
            for (k, id) in [
                ("numerator", Some(&c.numerator)),
                ("denominator", c.denominator.as_ref()),
                ("versus.numerator", versus.map(|v| &v.numerator)),
                ("versus.denominator", versus.map(|v| &v.denominator)),
            ] {
                let Some(id) = id else { continue };
                let key = format!("claims[{i}].{k}");
                if id.matches('*').count() > 1 {
                    return bad(key, format!("`{id}` has more than one `*`: a case is one value of one `*`"));
                }
                if id.contains('*') {
                    // Harness rows are named only when they run, so a glob may be theirs.
                    let matched = self.scenarios.iter().any(|s| capture(id, &s.id).is_some());
                    if !matched && self.harnesses.is_empty() {
                        return bad(key, format!("`{id}` matches no scenario"));
                    }
                    continue;
                }
                if !self.names_scenario(id) {
                    return bad(key, format!("no scenario named `{id}`"));
                }
            }
            if !c.except.is_empty() && !c.is_quantified() {
                return bad(format!("claims[{i}].except"), "leaves out cases, but no scenario id has a `*`".into());
            }
            if let Some(g) = c.except.iter().find(|g| glob::Pattern::new(g).is_err()) {
                return bad(format!("claims[{i}].except"), format!("`{g}` is not a glob"));
            }
            match (c.op, c.threshold) {
                (Op::About, Some(_)) => {
                    return bad(
                        format!("claims[{i}].threshold"),
                        "a `~` claim has no threshold: the band around its published_value is the claim".into(),
                    )
                }
                (Op::About, None) if c.published_value.is_none() => {
                    return bad(
                        format!("claims[{i}].published_value"),
                        "a `~` claim needs the study's number: it is judged on the band around it".into(),
                    )
                }
                (Op::Greater | Op::Less, None) => {
                    return bad(
                        format!("claims[{i}].threshold"),
                        format!("a `{}` claim needs a threshold", c.op.symbol()),
                    )
                }
                _ => {}
            }
            match (c.published_value, c.tolerance) {
                (None, Some(_)) => {
                    return bad(
                        format!("claims[{i}].tolerance"),
                        "needs published_value: it is a band around the study's number".into(),
                    )
                }
                (_, Some(t)) if !(t > 1.0 && t.is_finite()) => {
                    return bad(format!("claims[{i}].tolerance"), format!("{t} is not a factor above 1"))
                }
                (Some(v), _) if !(v > 0.0 && v.is_finite()) => {
                    return bad(
                        format!("claims[{i}].published_value"),
                        format!("{v}: a size band is a factor around a positive number"),
                    )
                }
                (Some(v), _) if !c.direction_holds(v) => {
                    return bad(
                        format!("claims[{i}].published_value"),
                        format!(
                            "the study's {v} does not satisfy the claim's `{} {}`: it would refute its own claim",
                            c.op.symbol(),
                            c.threshold.unwrap_or_default()
                        ),
                    )
                }
                _ => {}
            }
            if !CLAIM_METRICS.contains(&c.metric.as_str()) {
                return bad(
                    format!("claims[{i}].metric"),
                    format!("unknown metric `{}`; known: {}", c.metric, CLAIM_METRICS.join(", ")),
                );
            }
        }
        for (i, t) in self.published.iter().enumerate() {
            if !CLAIM_METRICS.contains(&t.metric.as_str()) {
                return bad(
                    format!("published[{i}].metric"),
                    format!("unknown metric `{}`; known: {}", t.metric, CLAIM_METRICS.join(", ")),
                );
            }
            if self.published[..i].iter().any(|o| o.id == t.id) {
                return bad(format!("published[{i}].id"), format!("`{}` is used twice", t.id));
            }
            for (j, r) in t.rows.iter().enumerate() {
                let key = format!("published[{i}].rows[{j}]");
                if !self.names_scenario(&r.scenario) {
                    return bad(format!("{key}.scenario"), format!("no scenario named `{}`", r.scenario));
                }
                if !(r.value >= 0.0 && r.value.is_finite()) {
                    return bad(format!("{key}.value"), format!("{} is not a measured amount", r.value));
                }
            }
        }
        Ok(())
    }

    /// True when `id` is a scenario of the suite or matches a harness's row globs.
    fn names_scenario(&self, id: &str) -> bool {
        self.scenarios.iter().any(|s| s.id == id)
            || self
                .harnesses
                .iter()
                .flat_map(|h| &h.scenarios)
                .any(|g| glob::Pattern::new(g).is_ok_and(|p| p.matches(id)))
    }

    /// The profile by name, or the built-in one (`smoke` 1 repeat at 5 %, `quick` 3, `full` 10).
    pub fn profile(&self, name: &str) -> Option<Profile> {
        if let Some(p) = self.profiles.get(name) {
            return Some(p.clone());
        }
        let (repeats, scale) = match name {
            "smoke" => (1, 0.05),
            "quick" => (3, 1.0),
            "full" => (10, 1.0),
            _ => return None,
        };
        Some(Profile { repeats, scale, max_connections: None, harness_rounds: 1, until_decided: None, skip: vec![] })
    }

    /// Harnesses selected by an optional glob on their id.
    pub fn harnesses_matching(&self, only: Option<&glob::Pattern>) -> Vec<HarnessSpec> {
        self.harnesses.iter().filter(|h| only.is_none_or(|p| p.matches(&h.id))).cloned().collect()
    }

    /// Builds every group's script (data read from under `root`) and gives each scenario that
    /// runs a group its script.
    pub fn attach_scripts(&mut self, file: &str, root: &Path) -> Result<(), SuiteError> {
        let scripts = groups::scripts(&self.groups, root).map_err(|(key, message)| SuiteError::Invalid {
            file: file.to_string(),
            key,
            message,
        })?;
        for sc in &mut self.scenarios {
            sc.script = sc.group.as_ref().map(|g| scripts[g].clone());
        }
        Ok(())
    }

    /// The ids of the scenarios `only` selects that the profile leaves out.
    pub fn skipped(&self, profile: &Profile, only: &glob::Pattern) -> Vec<&str> {
        self.scenarios.iter().map(|s| s.id.as_str()).filter(|id| only.matches(id) && profile.skips(id)).collect()
    }

    /// Scenarios selected by an optional glob on their id, less those the profile skips, with
    /// the profile applied.
    pub fn plan(&self, profile: &Profile, only: Option<&glob::Pattern>) -> Vec<Scenario> {
        self.scenarios
            .iter()
            .filter(|s| only.is_none_or(|p| p.matches(&s.id)) && !profile.skips(&s.id))
            .map(|s| s.scaled(profile))
            .collect()
    }
}

impl Scenario {
    /// The scenario with the profile's scale and connection cap applied. At least one request
    /// per stream survives scaling so every stream is exercised.
    pub fn scaled(&self, profile: &Profile) -> Scenario {
        let mut s = self.clone();
        if let Some(cap) = profile.max_connections {
            s.connections = s.connections.min(cap);
        }
        let floor = u64::from(s.connections) * u64::from(s.streams);
        let scale = |n: u64| ((n as f64 * profile.scale).round() as u64).max(floor);
        s.requests = s.requests.map(scale);
        s.warmup_requests = s.warmup_requests.map(scale);
        s.duration_s = s.duration_s.map(|d| d * profile.scale);
        s.warmup_s = s.warmup_s.map(|d| d * profile.scale);
        s
    }

    /// Port name this scenario connects to: its `port`, else `tls` or `plain`.
    pub fn port_name(&self) -> &str {
        match (&self.port, self.tls) {
            (Some(p), _) => p,
            (None, true) => "tls",
            (None, false) => "plain",
        }
    }
}

/// The project root: the directory holding the suites directory. Commands, working directories
/// and `subjects/` are relative to it.
pub fn project_root(suites_dir: &Path) -> Result<PathBuf, SuiteError> {
    let dir = suites_dir.canonicalize().map_err(|source| SuiteError::Read {
        file: format!("{} (the suites directory; use --suites-dir)", suites_dir.display()),
        source,
    })?;
    Ok(dir.parent().map(Path::to_path_buf).unwrap_or(dir))
}

/// Every suite file in the suites directory, by name.
pub fn files(suites_dir: &Path) -> Result<Vec<PathBuf>, SuiteError> {
    toml_files(suites_dir)
        .map_err(|source| SuiteError::Read { file: format!("{} (use --suites-dir)", suites_dir.display()), source })
}

/// The `.toml` files directly in `dir`, by name (suites, service declarations).
fn toml_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Resolves `protocols` to `<suites_dir>/protocols.toml`; a path with a slash or `.toml` is used as is.
pub fn resolve(name_or_path: &str, suites_dir: &Path) -> PathBuf {
    if name_or_path.contains('/') || name_or_path.ends_with(".toml") {
        PathBuf::from(name_or_path)
    } else {
        suites_dir.join(format!("{name_or_path}.toml"))
    }
}

/// The file and key a mistake at `key` of the merged suite belongs to: `subjects.<id>.<rest>`
/// of a declared subject is `<id>.<rest>` of its `subject.toml`, `services.<id>.<rest>` of a
/// declared service `<rest>` of its file; anything else is the suite's own.
fn blame(key: &str, sources: &BTreeMap<String, String>, file: &str) -> (String, String) {
    let mut parts = key.splitn(3, '.');
    let (kind, id, rest) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next());
    match sources.get(&format!("{kind}.{id}")) {
        Some(source) if kind == "subjects" => (source.clone(), rest.map_or(id.to_string(), |r| format!("{id}.{r}"))),
        Some(source) => (source.clone(), rest.unwrap_or("(top level)").to_string()),
        None => (file.to_string(), key.to_string()),
    }
}

/// `scenarios[3].connections` as `matrix[0] (rest-h1-1mb).connections` when row 3 came from a matrix.
fn with_origin(key: &str, origins: &[String]) -> String {
    let index = key.strip_prefix("scenarios[").and_then(|r| r.split_once(']'));
    match index.and_then(|(i, rest)| Some((origins.get(i.parse::<usize>().ok()?)?, rest))) {
        Some((origin, rest)) => format!("{origin}{rest}"),
        None => key.to_string(),
    }
}

fn merge_scenario_defaults(table: &mut toml::Table) {
    let Some(toml::Value::Table(defaults)) = table.get("scenario_defaults").cloned() else { return };
    if let Some(toml::Value::Array(scenarios)) = table.get_mut("scenarios") {
        for sc in scenarios.iter_mut() {
            if let toml::Value::Table(sc) = sc {
                for (k, v) in &defaults {
                    sc.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
}

/// `extends = "<subject>"` in a subject: every key it does not set is the named subject's
/// (which may extend another in turn). Errors: (key, message).
fn merge_subject_bases(table: &mut toml::Table) -> Result<(), (String, String)> {
    let Some(toml::Value::Table(subjects)) = table.get_mut("subjects") else { return Ok(()) };
    let names: Vec<String> = subjects.keys().cloned().collect();
    for name in names {
        let mut seen = vec![name.clone()];
        while let Some(toml::Value::Table(me)) = subjects.get(&name) {
            let Some(base) = me.get("extends").cloned() else { break };
            let key = format!("subjects.{name}.extends");
            let toml::Value::String(base) = base else { return Err((key, "must name a subject".into())) };
            if seen.contains(&base) {
                return Err((key, format!("`{base}` extends back to `{name}`")));
            }
            let Some(toml::Value::Table(parent)) = subjects.get(&base).cloned() else {
                return Err((key, format!("no subject named `{base}`")));
            };
            seen.push(base);
            let Some(toml::Value::Table(me)) = subjects.get_mut(&name) else { break };
            me.remove("extends");
            for (k, v) in parent {
                me.entry(k).or_insert(v);
            }
        }
    }
    Ok(())
}

fn location(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(span) => format!("line {}", text[..span.start.min(text.len())].lines().count().max(1)),
        None => "(syntax)".into(),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
        [subjects.rest]
        lang = "rust"
        command = ["srv"]
        ports = { plain = "--port" }
        health = { path = "/health" }

        [scenario_defaults]
        connections = 4
        requests = 100

        [[scenarios]]
        id = "a"
        subject = "rest"
        driver = "http1"
        path = "/x"

        [[claims]]
        id = "c"
        text = "t"
        published = "p"
        metric = "rps"
        numerator = "a"
        op = ">"
        threshold = 1.0
    "#;

    fn parse(text: &str) -> Result<Suite, String> {
        let s = Suite::parse(text, "s.toml").map_err(|e| e.to_string())?;
        s.check("s.toml", &["http1", "http2"]).map_err(|e| e.to_string())?;
        Ok(s)
    }

    #[test]
    fn harness_repeats_split_into_rounds_larger_first() {
        let p = |repeats, harness_rounds| Profile {
            repeats,
            scale: 1.0,
            max_connections: None,
            harness_rounds,
            until_decided: None,
            skip: vec![],
        };
        assert_eq!(p(10, 1).harness_rounds(), [(1, 10)]);
        assert_eq!(p(10, 3).harness_rounds(), [(1, 4), (5, 3), (8, 3)]);
        assert_eq!(p(2, 5).harness_rounds(), [(1, 1), (2, 1)], "capped at the repeats");
        assert_eq!(p(3, 0).harness_rounds(), [(1, 3)], "zero means one");
    }

    #[test]
    fn defaults_are_merged_into_scenarios() {
        let s = parse(GOOD).unwrap();
        assert_eq!(s.scenarios[0].connections, 4);
        assert_eq!(s.scenarios[0].requests, Some(100));
        assert_eq!(s.scenarios[0].method, "GET");
        assert_eq!(s.claims[0].op, Op::Greater);
    }

    #[test]
    fn mistakes_give_one_line_naming_file_and_key() {
        let cases = [
            (
                GOOD.replace("connections = 4", "connections = \"four\""),
                "s.toml: scenarios[0].connections: invalid type",
            ),
            (
                GOOD.replace("driver = \"http1\"", "driver = \"carrier-pigeon\""),
                "s.toml: scenarios[0].driver: unknown driver `carrier-pigeon`",
            ),
            (
                GOOD.replace("subject = \"rest\"", "subject = \"nope\""),
                "s.toml: scenarios[0].subject: no subject named `nope` (in the suite or a subjects/**/subject.toml)",
            ),
            (
                GOOD.replace("path = \"/x\"", "path = \"/x\"\ncolour = 1"),
                "s.toml: scenarios[0].colour: unknown field `colour`",
            ),
            (GOOD.replace("requests = 100", ""), "s.toml: scenarios[0].requests: set exactly one"),
            (
                GOOD.replace("numerator = \"a\"", "numerator = \"zz\""),
                "s.toml: claims[0].numerator: no scenario named `zz`",
            ),
            (
                GOOD.replace("numerator = \"a\"", "numerator = \"*-*\""),
                "s.toml: claims[0].numerator: `*-*` has more than one `*`",
            ),
            (
                GOOD.replace("numerator = \"a\"", "numerator = \"b-*\""),
                "s.toml: claims[0].numerator: `b-*` matches no scenario",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\nexcept = [\"a\"]"),
                "s.toml: claims[0].except: leaves out cases, but no scenario id has a `*`",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\ntolerance = 1.2"),
                "s.toml: claims[0].tolerance: needs published_value",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\npublished_value = 2.0\ntolerance = 0.5"),
                "s.toml: claims[0].tolerance: 0.5 is not a factor above 1",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\npublished_value = 0.8"),
                "s.toml: claims[0].published_value: the study's 0.8 does not satisfy the claim's `> 1`",
            ),
            (
                format!("{GOOD}\n[[published]]\nid = \"t\"\ntitle = \"T\"\nsource = \"Table 1\"\nmetric = \"rps\"\nrows = [{{ scenario = \"zz\", value = 1.0 }}]\n"),
                "s.toml: published[0].rows[0].scenario: no scenario named `zz`",
            ),
            (
                format!("{GOOD}\n[[published]]\nid = \"t\"\ntitle = \"T\"\nsource = \"Table 1\"\nmetric = \"speed\"\nrows = []\n"),
                "s.toml: published[0].metric: unknown metric `speed`",
            ),
            (
                GOOD.replace("op = \">\"", "op = \"~\"").replace("threshold = 1.0", "threshold = 1.0\npublished_value = 1.0"),
                "s.toml: claims[0].threshold: a `~` claim has no threshold",
            ),
            (
                GOOD.replace("op = \">\"", "op = \"~\"").replace("threshold = 1.0", ""),
                "s.toml: claims[0].published_value: a `~` claim needs the study's number",
            ),
            (GOOD.replace("threshold = 1.0", ""), "s.toml: claims[0].threshold: a `>` claim needs a threshold"),
            (GOOD.replace("[subjects.rest]", "[subjects.rest"), "s.toml: line 2:"),
            (
                format!("{GOOD}\n[[harnesses]]\nid = \"d\"\nlang = \"rust\"\ncommand = [\"d\"]\nsubjects = [\"nope\"]\n"),
                "s.toml: harnesses[0].subjects: no subject named `nope` (in the suite or a subjects/**/subject.toml)",
            ),
            (
                format!("{GOOD}\n[[harnesses]]\nid = \"d\"\nlang = \"rust\"\ncommand = [\"d\", \"{{rest.tls}}\"]\nsubjects = [\"rest\"]\n"),
                "s.toml: harnesses[0].command: unknown placeholder `{rest.tls}`; known: {profile}, {rest.",
            ),
        ];
        for (text, want) in cases {
            let err = parse(&text).unwrap_err();
            assert!(err.starts_with(want), "got `{err}`, want prefix `{want}`");
            assert!(!err.contains('\n'), "not one line: {err}");
        }
    }

    const MATRIX: &str = r#"
        [[matrix]]
        id = "m-{transport}"
        subject = "rest"
        path = "/x"
        [matrix.axes.transport]
        h1 = { driver = "http1" }
        h2c = { driver = "http2", streams = 4 }
    "#;

    #[test]
    fn matrix_rows_are_scenarios_with_defaults_and_checks() {
        let s = parse(&format!("{GOOD}\n{MATRIX}")).unwrap();
        let ids: Vec<&str> = s.scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["m-h1", "m-h2c", "a"]);
        assert_eq!(
            (s.scenarios[1].driver.as_str(), s.scenarios[1].streams, s.scenarios[1].connections),
            ("http2", 4, 4)
        );
        assert_eq!(s.origins, ["matrix[0] (m-h1)", "matrix[0] (m-h2c)", "scenarios[0]"]);
        let only = glob::Pattern::new("m-*").unwrap();
        assert_eq!(s.plan(&s.profile("quick").unwrap(), Some(&only)).len(), 2);
    }

    #[test]
    fn mistakes_in_matrix_rows_name_the_matrix_and_row() {
        let cases = [
            (MATRIX.replace("streams = 4", "streams = \"four\""), "s.toml: matrix[0] (m-h2c).streams: invalid type"),
            (MATRIX.replace("\"http2\"", "\"pigeon\""), "s.toml: matrix[0] (m-h2c).driver: unknown driver `pigeon`"),
            (
                MATRIX.replace("m-{transport}", "a{transport}").replace("h1 = ", "\"\" = "),
                "s.toml: scenarios[0].id: `a` is used twice (first by matrix[0] (a))",
            ),
            (MATRIX.replace("m-{transport}", "m-{transport"), "s.toml: matrix[0].id: unclosed `{`"),
        ];
        for (matrix, want) in cases {
            let err = parse(&format!("{GOOD}\n{matrix}")).unwrap_err();
            assert!(err.starts_with(want), "got `{err}`, want prefix `{want}`");
            assert!(!err.contains('\n'), "not one line: {err}");
        }
    }

    /// The committed suites were hand-written row by row before matrices; `testdata/` keeps those
    /// files (with the fields the rows gained since, such as `payload_bytes`). Every row they had
    /// must expand identically, in the same order, with the same subjects and profiles, so a
    /// report of the rewritten suite is the report of the old one plus the new rows. (Claims are
    /// not compared: they have been rewritten since, on purpose, to judge size and every case.)
    #[test]
    fn rewritten_suites_expand_to_their_hand_written_rows() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let catalog = Catalog::load(&dir.join("../..")).unwrap();
        for name in ["protocols", "smoke"] {
            let read = |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let now = Suite::parse_with(&read(dir.join(format!("../../suites/{name}.toml"))), name, &catalog).unwrap();
            let then = Suite::parse(&read(dir.join(format!("src/suite/testdata/{name}-rows.toml"))), name).unwrap();
            assert!(then.origins.iter().all(|o| o.starts_with("scenarios[")), "{name}: the old file had no matrix");
            let mut last = None;
            for old in &then.scenarios {
                let at = now.scenarios.iter().position(|s| s.id == old.id);
                let at = at.unwrap_or_else(|| panic!("{name}: `{}` is no longer in the suite", old.id));
                assert_eq!(&now.scenarios[at], old, "{name}: `{}` expands differently", old.id);
                assert!(last < Some(at), "{name}: `{}` moved", old.id);
                last = Some(at);
            }
            // Profiles may be added (protocols' `brief`, for `make run`); the old ones stay.
            assert_eq!(now.default_profile, then.default_profile, "{name}");
            for (id, profile) in &then.profiles {
                assert_eq!(now.profiles.get(id), Some(profile), "{name}: profile `{id}` changed");
            }
            for (id, subject) in &then.subjects {
                // How a subject is built may change (decisions 0021, 0025), and the flag that makes it
                // listen beyond loopback for workers elsewhere (unused otherwise); what runs may not.
                let now = now.subjects.get(id).map(|s| SubjectSpec {
                    build: subject.build.clone(),
                    host: subject.host.clone(),
                    ..s.clone()
                });
                assert_eq!(now.as_ref(), Some(subject), "{name}: subject `{id}` changed");
            }
        }
    }

    const SERVICE: &str = r#"
        [services.mq]
        command = ["mosquitto", "-c", "{dir}/m.conf"]
        ports = ["mqtt"]
        files = { "m.conf" = "listener {mqtt}" }
        ready = { port = "mqtt" }

        [subjects.responder]
        lang = "rust"
        command = ["r", "--broker", "127.0.0.1:{mq.mqtt}"]
        ports = { plain = "--port" }
        health = { path = "/health" }
        services = ["mq"]

        [[scenarios]]
        id = "b"
        subject = "responder"
        driver = "http1"
        path = "/"
        port = "mq.mqtt"
        requests = 1
        connections = 1
    "#;

    #[test]
    fn subjects_extend_others_and_bad_bases_are_named() {
        let text = format!(
            "{GOOD}\n{}",
            r#"
[subjects.copy]
extends = "rest"
command = ["other"]
setup = [["fill", "--store", "{dir}/x.db", "--profile", "{profile}"]]
[subjects.copy2]
extends = "copy"
"#
        );
        let s = parse(&text).unwrap();
        assert_eq!(s.subjects["copy"].command, ["other"]);
        assert_eq!(s.subjects["copy"].ports, s.subjects["rest"].ports);
        assert_eq!(s.subjects["copy2"].command, ["other"]);
        assert_eq!(s.subjects["copy2"].setup.len(), 1);
        let unknown = parse(&text.replace("extends = \"rest\"", "extends = \"nobody\"")).unwrap_err();
        assert_eq!(unknown, "s.toml: subjects.copy.extends: no subject named `nobody`");
        let circle = parse(&text.replace("extends = \"rest\"", "extends = \"copy2\"")).unwrap_err();
        assert!(circle.ends_with("extends back to `copy`") || circle.ends_with("extends back to `copy2`"), "{circle}");
        let setup = parse(&text.replace("{profile}", "{profle}")).unwrap_err();
        assert!(setup.starts_with("s.toml: subjects.copy.setup[0]: unknown placeholder `{profle}`"), "{setup}");
    }

    #[test]
    fn services_and_their_placeholders_are_checked() {
        let s = parse(&format!("{GOOD}\n{SERVICE}")).unwrap();
        assert_eq!(s.scenarios[1].port_name(), "mq.mqtt");
        assert_eq!(s.services["mq"].ready, Ready::Port("mqtt".into()));
        let cases = [
            (
                SERVICE.replace("services = [\"mq\"]", "services = [\"pg\"]"),
                "subjects.responder.services: no service named `pg` (in the suite or subjects/services/pg.toml)",
            ),
            (
                SERVICE.replace("{mq.mqtt}", "{mq.port}"),
                "subjects.responder.command: unknown placeholder `{mq.port}`; known: {dir}, {mq.dir}, {mq.mqtt}, {profile}, {root}",
            ),
            (SERVICE.replace("listener {mqtt}", "listener {port}"), "services.mq.files: unknown placeholder `{port}`"),
            (
                SERVICE.replace("ready = { port = \"mqtt\" }", "ready = { port = \"http\" }"),
                "services.mq.ready.port: no port named `http`",
            ),
            (
                SERVICE.replace("port = \"mq.mqtt\"", "port = \"mq.amqp\""),
                "scenarios[1].port: subject `responder` has no port `mq.amqp`; known: plain, mq.mqtt",
            ),
        ];
        for (service, want) in cases {
            let err = parse(&format!("{GOOD}\n{service}")).unwrap_err();
            assert!(err.starts_with(&format!("s.toml: {want}")), "got `{err}`, want prefix `{want}`");
        }
    }

    #[test]
    fn claims_may_name_scenarios_a_harness_declares() {
        let with = GOOD.replace("numerator = \"a\"", "numerator = \"users-json-rust\"");
        assert!(parse(&with).unwrap_err().contains("no scenario named `users-json-rust`"));
        let harness = "[[harnesses]]\nid = \"codec\"\nlang = \"rust\"\ncommand = [\"c\"]\nscenarios = [\"*-rust\"]\n";
        let s = parse(&format!("{with}\n{harness}")).unwrap();
        assert_eq!(s.harnesses[0].timeout_s, 1800.0);
    }

    #[test]
    fn rows_belong_to_the_suites_lab_unless_a_scenario_or_harness_names_its_own() {
        let harnesses = "[[harnesses]]\nid = \"h\"\nlang = \"rust\"\ncommand = [\"h\"]\n\n\
                         [[harnesses]]\nid = \"h-own\"\nlang = \"rust\"\ncommand = [\"h\"]\nlab = \"formats\"\n";
        let own = GOOD.replace("path = \"/x\"", "path = \"/x\"\nlab = \"restcache\"");
        let labs = |s: &Suite| -> Vec<String> {
            let mut labs: Vec<String> = s.scenarios.iter().map(|sc| s.scenario_lab(sc).to_string()).collect();
            labs.extend(s.harnesses.iter().map(|h| s.harness_lab(h).to_string()));
            labs
        };
        // No `lab`: the suite's name.
        let mut s = parse(&format!("{GOOD}\n{MATRIX}\n{harnesses}")).unwrap();
        s.name = "smoke".into();
        assert_eq!(labs(&s), ["smoke", "smoke", "smoke", "smoke", "formats"]);
        // A top-level `lab`; a scenario's own, a matrix row's (shared or from an axis) and one
        // from `scenario_defaults` win over it.
        let matrix = MATRIX.replace("path = \"/x\"", "path = \"/x\"\nlab = \"parse\"").replace(
            "h2c = { driver = \"http2\", streams = 4 }",
            "h2c = { driver = \"http2\", streams = 4, lab = \"wasm\" }",
        );
        let mut s = parse(&format!("lab = \"protocols\"\n{own}\n{matrix}\n{harnesses}")).unwrap();
        s.name = "smoke".into();
        assert_eq!(labs(&s), ["parse", "wasm", "restcache", "protocols", "formats"]);
        let defaults = GOOD.replace("connections = 4", "connections = 4\nlab = \"realtime\"");
        let s = parse(&format!("lab = \"protocols\"\n{defaults}")).unwrap();
        assert_eq!(labs(&s), ["realtime"]);
        // Written back into run.json and read again, as the suite ran.
        let s = parse(&format!("lab = \"protocols\"\n{own}\n{harnesses}")).unwrap();
        let back: Suite = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!((back.lab(), labs(&back)), ("protocols", labs(&s)));
        let empty = parse(&format!("lab = \"\"\n{GOOD}")).unwrap_err();
        assert!(empty.starts_with("s.toml: lab: must name a lab"), "{empty}");
        let empty = parse(&GOOD.replace("path = \"/x\"", "path = \"/x\"\nlab = \"\"")).unwrap_err();
        assert!(empty.starts_with("s.toml: scenarios[0].lab: must name a lab"), "{empty}");
    }

    #[test]
    fn a_suite_as_run_reads_back_from_run_json() {
        let mut s = parse(GOOD).unwrap();
        s.name = "good".into();
        let json = serde_json::to_value(&s).unwrap();
        let back: Suite = serde_json::from_value(json).unwrap();
        assert_eq!((back.scenarios, back.claims), (s.scenarios, s.claims));
    }

    #[test]
    fn profile_scales_requests_but_keeps_one_per_stream() {
        let s = parse(GOOD).unwrap();
        let smoke = s.profile("smoke").unwrap();
        let planned = s.plan(&smoke, None);
        assert_eq!(planned[0].requests, Some(5));
        let tiny = Profile {
            repeats: 1,
            scale: 0.0001,
            max_connections: Some(2),
            harness_rounds: 1,
            until_decided: None,
            skip: vec![],
        };
        let planned = s.plan(&tiny, None);
        assert_eq!((planned[0].connections, planned[0].requests), (2, Some(2)));
        assert!(s.plan(&smoke, Some(&glob::Pattern::new("b*").unwrap())).is_empty());
    }

    #[test]
    fn a_profile_skips_rows_by_glob_checked_when_parsed() {
        let suite = |skip: &str| {
            format!(
                "default_profile = \"brief\"\n[profiles.brief]\nrepeats = 3\nskip = [{skip}]\n{GOOD}\n\
                 [[scenarios]]\nid = \"net-a\"\nsubject = \"rest\"\ndriver = \"http1\"\npath = \"/x\"\n"
            )
        };
        let s = parse(&suite("\"net-*\"")).unwrap();
        let ids = |p: &Profile| s.plan(p, None).into_iter().map(|sc| sc.id).collect::<Vec<_>>();
        assert_eq!(ids(&s.profile("brief").unwrap()), ["a"]);
        assert_eq!(ids(&s.profile("smoke").unwrap()), ["a", "net-a"]);
        // What `--only` selects and the profile leaves out, which `run` reports.
        let brief = s.profile("brief").unwrap();
        let only = |g: &str| glob::Pattern::new(g).unwrap();
        assert_eq!(s.skipped(&brief, &only("*a")), ["net-a"]);
        assert!(s.skipped(&brief, &only("a")).is_empty());
        assert!(s.skipped(&s.profile("smoke").unwrap(), &only("*")).is_empty());
        for (skip, want) in [
            ("\"lan-*\"", "s.toml: profiles.brief.skip[0]: `lan-*` matches no scenario"),
            ("\"a\", \"[\"", "s.toml: profiles.brief.skip[1]: `[` is not a glob"),
        ] {
            let err = parse(&suite(skip)).unwrap_err();
            assert!(err.starts_with(want), "got `{err}`, want prefix `{want}`");
        }
    }
}
