//! The runner: for each subject, start it and verify it; for each of its scenarios warm up, then
//! measure R repeats while sampling the subject's CPU and memory, appending every measurement
//! to `measurements.jsonl` at once; stop the subject. A subject or scenario that fails becomes
//! a failed row and the run goes on.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::bottleneck::{self, Bottleneck};
use crate::claims::{judge_at, Outcome, Reason, Verdict};
use crate::contention::Sensor;
use crate::machine;
use crate::results::{Results, ResultsError, ResultsWriter};
use crate::schema::{
    CpuSets, Latency, LinkFacts, Measurement, Metrics, ObservedLoss, RoundOrder, Rounds, RunInfo, Sequential,
    SequentialRound, SequentialStop, Status, StepMetrics, SCHEMA_VERSION,
};
use crate::suite::{HarnessSpec, Origin, Placeholders, Profile, Scenario, SubjectSpec, Suite, UntilDecided};
use crate::supervisor::{Launcher, RunningSubject};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use wirebench_link::{Link, LinkStats, NetSpec};

/// A repeat fails when more than this share of its requests got a wrong answer.
pub const MAX_ERROR_RATE: f64 = 0.01;

/// Where the load goes.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Target {
    /// The server's name (or address) as the URL gives it: the TLS server name and the `Host`
    /// header, and where to connect unless `connect_to` says otherwise.
    pub host: String,
    pub port: u16,
    pub tls: bool,
    /// Where to connect instead of `host:port` (`ADDR:PORT`; curl's `--connect-to`): the name
    /// stays the URL's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_to: Option<String>,
    /// How the server's certificate is checked.
    #[serde(default)]
    pub verify: Verify,
    /// A client certificate to present (mutual TLS): its PEM chain and key files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cert: Option<ClientCert>,
}

/// A client certificate for mutual TLS: PEM files of its chain and of its private key.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClientCert {
    pub cert: std::path::PathBuf,
    pub key: std::path::PathBuf,
}

impl Target {
    /// The address a connection goes to: `connect_to`, else `host:port`.
    pub fn address(&self) -> (String, u16) {
        if let Some((host, port)) = self.connect_to.as_deref().and_then(|a| a.rsplit_once(':')) {
            if let Ok(port) = port.parse() {
                return (host.trim_start_matches('[').trim_end_matches(']').to_string(), port);
            }
        }
        (self.host.clone(), self.port)
    }

    /// Whether connections stay on this machine: `address` is `localhost` or a loopback address.
    pub fn is_loopback(&self) -> bool {
        let (address, _) = self.address();
        address == "localhost" || address.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }
}

/// How a TLS client checks the server's certificate.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verify {
    /// Any certificate, the handshake's signatures still verified: our own subjects, which make
    /// a fresh self-signed one at each start, and `--insecure`.
    #[default]
    Any,
    /// Against the system's roots (`/etc/ssl/certs`) and the server's name.
    System,
    /// Against the CA certificates of this PEM file (`--cacert`) and the server's name.
    Ca(std::path::PathBuf),
}

impl Verify {
    /// What a user's choice asks for (curl's `--cacert` and `--insecure`): a CA file wins, else
    /// any certificate when insecure, else the system's roots.
    pub fn chosen(ca: Option<std::path::PathBuf>, insecure: bool) -> Verify {
        match (ca, insecure) {
            (Some(file), _) => Verify::Ca(file),
            (None, true) => Verify::Any,
            (None, false) => Verify::System,
        }
    }
}

/// A load's stop condition and plan are the scenario's (`Scenario::plan`).
pub use crate::suite::{Plan, Stop};

/// What one load run produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadResult {
    pub requests: u64,
    /// Messages the completed requests carried.
    pub messages: u64,
    pub errors: u64,
    pub duration: Duration,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    pub latency: Latency,
    /// Time to the first message of streaming calls (`None` when no call was a stream).
    pub first_message: Option<Latency>,
    /// The first wrong answer, to explain errors.
    pub first_error: Option<String>,
    /// Open model: latency from the actual send times (`latency` is from the intended ones).
    pub latency_uncorrected: Option<Latency>,
    /// Thread groups: completed iterations and each step's numbers.
    pub iterations: Option<u64>,
    pub steps: Vec<StepMetrics>,
    /// Wall-clock time the measurement started (every load thread past its connections), so
    /// loads measured apart can be lined up (`wirebench merge`).
    pub started: Option<std::time::SystemTime>,
    /// The latency histograms as an HdrHistogram interval log (`wirebench_load::hlog`), which
    /// loads measured apart add up exactly.
    pub latency_log: Option<String>,
    /// Loads sent by other processes (`wirebench run --workers N`): the CPU they used, which
    /// stands for this process's own, and each one's share.
    pub remote_cpu_s: Option<f64>,
    pub workers: Vec<crate::schema::WorkerFacts>,
    pub worker_skew_ms: Option<f64>,
    /// Right answers (a group's completed iterations) in each `TICK` from the start, the last
    /// partial: how steady the throughput was.
    pub per_tick: Vec<u64>,
    /// Errors in each `TICK` from the start.
    pub errors_per_tick: Vec<u64>,
    /// The 99th percentile latency of the calls that ended in each second from the start, µs (0
    /// for a second without one; empty for thread groups and loads of several workers).
    pub p99_per_second_us: Vec<u64>,
    /// A probe load's bytes per slice and pause (`Plan::cap`, `bottleneck`).
    pub capped: Option<crate::bottleneck::Slices>,
}

/// Sends load; implemented by the load engine and by mocks.
pub trait Executor {
    /// Sends one request and checks the answer against `scenario.expect` (status, size, checksum).
    fn verify(&self, scenario: &Scenario, target: &Target) -> Result<(), String>;
    /// Runs `plan`, adding each completed request to `live` for progress display.
    fn measure(
        &self,
        scenario: &Scenario,
        plan: &Plan,
        target: &Target,
        live: &AtomicU64,
    ) -> Result<LoadResult, String>;
    /// The transport label of the scenario's driver over its `tls` setting (`h1`, `h2+tls`,
    /// `grpc`, ...), recorded with each of its rows unless the scenario's `transport` label
    /// names one. Called for every row, failed ones included, so it must not fail: a driver it
    /// does not know gets its id.
    fn transport(&self, scenario: &Scenario) -> String;
}

/// Receives progress; the CLI draws a bar, tests ignore it.
pub trait Progress: Sync {
    fn scenario(&self, index: usize, total: usize, id: &str, repeats: u32);
    fn phase(&self, repeat: Option<u32>);
    /// Counter of completed requests in the current phase.
    fn live(&self) -> &AtomicU64;
    fn measured(&self, m: &Measurement);
    fn finish(&self);
}

/// A progress sink that shows nothing.
#[derive(Default)]
pub struct NoProgress(AtomicU64);

impl Progress for NoProgress {
    fn scenario(&self, _: usize, _: usize, _: &str, _: u32) {}
    fn phase(&self, _: Option<u32>) {}
    fn live(&self) -> &AtomicU64 {
        &self.0
    }
    fn measured(&self, _: &Measurement) {}
    fn finish(&self) {}
}

pub struct RunOptions {
    pub run_id: String,
    pub started_at: String,
    pub suite_file: String,
    pub profile_name: String,
    pub profile: Profile,
    pub only: Option<String>,
    pub out_dir: PathBuf,
    /// The project root (`{root}` in subjects' commands), as the supervisor knows it.
    pub root: PathBuf,
    pub cpus: CpuSets,
    pub versions: BTreeMap<String, String>,
    pub git_revision: Option<String>,
    /// Current UTC time as RFC 3339 (a fixed clock in tests).
    pub clock: fn() -> String,
    /// Draws each round's order of rows (`run.json`'s `rounds.seed`; `--seed` to repeat one).
    pub seed: u64,
    /// How contention is sensed during each repeat (`contention::Sensor::Proc` in a real run).
    pub sensor: Sensor,
}

/// Times a contended repeat is measured again before the runner keeps it, flagged: a run on a
/// machine busy all along takes at most three times its measured time, and says so.
pub const REMEASURES: u32 = 2;

/// Rows and repeats (`scenario`, `repeat`) whose lines a harness printed while foreign work
/// took the run's CPUs.
type Contended = std::collections::BTreeSet<(String, u32)>;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("--only `{0}` matches no scenario of suite `{1}`")]
    NothingSelected(String, String),
    #[error("--only `{0}`: {1}")]
    BadGlob(String, String),
    #[error(transparent)]
    Results(#[from] ResultsError),
}

/// Runs a suite and returns the results directory.
pub fn run(
    suite: &Suite,
    opts: &RunOptions,
    launcher: &dyn Launcher,
    executor: &dyn Executor,
    progress: &dyn Progress,
) -> Result<PathBuf, RunError> {
    let pattern = match &opts.only {
        Some(g) => Some(glob::Pattern::new(g).map_err(|e| RunError::BadGlob(g.clone(), e.to_string()))?),
        None => None,
    };
    let scenarios = suite.plan(&opts.profile, pattern.as_ref());
    let harnesses = suite.harnesses_matching(pattern.as_ref());
    if scenarios.is_empty() && harnesses.is_empty() {
        return Err(RunError::NothingSelected(opts.only.clone().unwrap_or_default(), suite.name.clone()));
    }
    let mut info = RunInfo {
        schema_version: SCHEMA_VERSION,
        run_id: opts.run_id.clone(),
        suite: suite.name.clone(),
        suite_file: opts.suite_file.clone(),
        profile: opts.profile_name.clone(),
        repeats: opts.profile.repeats,
        started_at: opts.started_at.clone(),
        finished_at: None,
        git_revision: opts.git_revision.clone(),
        machine: machine::describe(),
        versions: opts.versions.clone(),
        cpus: opts.cpus.clone(),
        only: opts.only.clone(),
        parameters: parameters(suite, &scenarios),
        sequential: None,
        links: Vec::new(),
        rounds: None,
        cpu_speed: probe_speed(opts, "start"),
    };
    let mut writer = ResultsWriter::create(&opts.out_dir, &info)?;
    let mut ctx = Ctx {
        suite,
        opts,
        executor,
        progress,
        writer: &mut writer,
        index: 0,
        total: scenarios.len() * opts.profile.repeats as usize + harnesses.len() * opts.profile.harness_rounds().len(),
        links: Vec::new(),
        order: Order::new(opts.seed),
        started: Instant::now(),
        also: suite.subjects.values().filter(|s| s.url.is_some()).filter_map(|s| s.pid).collect(),
    };

    let all: Vec<&Scenario> = scenarios.iter().collect();
    ctx.rounds(&all, 1..=opts.profile.repeats, launcher)?;
    let drivers: Vec<&HarnessSpec> = harnesses.iter().collect();
    for round in opts.profile.harness_rounds() {
        ctx.harness_rounds(&drivers, round, launcher)?;
    }
    if let Some(limits) = opts.profile.until_decided {
        let harnesses: Vec<&HarnessSpec> = harnesses.iter().collect();
        info.sequential = Some(ctx.until_decided(limits, &all, &harnesses, launcher)?);
    }
    progress.finish();
    info.links = std::mem::take(&mut ctx.links);
    info.rounds = (!scenarios.is_empty() || !harnesses.is_empty()).then(|| ctx.order.facts());
    info.cpu_speed.extend(probe_speed(opts, "end"));
    info.finished_at = Some((opts.clock)());
    writer.write_run(&info)?;
    Ok(opts.out_dir.clone())
}

/// The run's CPUs' speed (`speed::probe`) where contention is sensed: the subject's and the
/// load's CPUs, or every online CPU when the run pins nothing. No subject runs at either end.
fn probe_speed(opts: &RunOptions, at: &str) -> Vec<crate::schema::CpuProbe> {
    if !matches!(opts.sensor, Sensor::Proc) {
        return Vec::new();
    }
    let pinned = opts.cpus.union();
    let cpus = if pinned.is_empty() { machine::online_cpus() } else { pinned };
    crate::speed::probe(at, &cpus)
}

/// The suite as it ran: its description, the planned scenarios, subjects and claims.
fn parameters(suite: &Suite, scenarios: &[Scenario]) -> serde_json::Value {
    let mut ran = suite.clone();
    ran.scenarios = scenarios.to_vec();
    serde_json::to_value(&ran).expect("Suite serializes")
}

struct Ctx<'a> {
    suite: &'a Suite,
    opts: &'a RunOptions,
    executor: &'a dyn Executor,
    progress: &'a dyn Progress,
    writer: &'a mut ResultsWriter,
    index: usize,
    total: usize,
    /// Each link setting the run built, as observed when first made (`run.json`'s `links`).
    links: Vec<LinkFacts>,
    /// The rounds' orders, drawn from the run's seed.
    order: Order,
    /// When the run began, for each line's `at_s`.
    started: Instant,
    /// Processes the run did not start whose work is still the run's: a URL subject on this
    /// machine whose pid the suite gives works for the run, not against it.
    also: Vec<u32>,
}

/// The random order of each round's rows, from one seeded generator for the whole run (the
/// sequential phase's rounds continue it), and what was drawn.
struct Order {
    seed: u64,
    rng: SmallRng,
    kept_up: Vec<String>,
    restarted: Vec<String>,
    rounds: Vec<RoundOrder>,
    harness_rounds: Vec<RoundOrder>,
}

impl Order {
    fn new(seed: u64) -> Order {
        let rng = SmallRng::seed_from_u64(seed);
        let (kept_up, restarted, rounds, harness_rounds) = Default::default();
        Order { seed, rng, kept_up, restarted, rounds, harness_rounds }
    }

    fn facts(&self) -> Rounds {
        let (kept_up, restarted) = (self.kept_up.clone(), self.restarted.clone());
        let (order, harnesses) = (self.rounds.clone(), self.harness_rounds.clone());
        Rounds { seed: self.seed, kept_up, restarted, order, harnesses }
    }

    /// Notes how a subject ran (once each).
    fn note(&mut self, subject: &str, kept_up: bool) {
        let list = if kept_up { &mut self.kept_up } else { &mut self.restarted };
        if !list.iter().any(|s| s == subject) {
            list.push(subject.to_string());
        }
    }
}

/// How many CPUs a side of the split has: its own, or the whole machine's when there is no split.
fn share_or_machine(share: &[usize]) -> usize {
    match share.len() {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

impl Ctx<'_> {
    /// CPUs the instrument runs on: its share of the split, or the whole machine without one.
    fn load_cpus(&self) -> usize {
        share_or_machine(&self.opts.cpus.load)
    }

    /// CPUs the subject runs on: its share of the split, or the whole machine without one.
    fn subject_cpus(&self) -> usize {
        share_or_machine(&self.opts.cpus.subject)
    }

    /// Measures `scenarios` for `repeats`, one round per repeat: round r measures every row once
    /// (its warm-up, then repeat r) in an order drawn afresh for the round, so that the drift of
    /// the machine over the run falls inside each row's repeats and a claim's per-repeat pairs are
    /// rows measured in the same round (Abedi & Brecht's randomized multiple interleaved trials).
    /// A subject on loopback that uses no service is started once and kept up across the rounds,
    /// its rows shuffled one by one among all others; a subject behind a link, or one that uses a
    /// service (whose state the service's other subjects share), is started for its rows in each
    /// round and stopped after them, its rows shuffled together. Services are started when first
    /// needed and stay up until the rounds end.
    fn rounds(
        &mut self,
        scenarios: &[&Scenario],
        repeats: RangeInclusive<u32>,
        launcher: &dyn Launcher,
    ) -> Result<(), RunError> {
        let (suite, opts) = (self.suite, self.opts);
        // A subject on loopback, or behind one link setting: each is started on its own.
        let mut units: Vec<(&str, Option<&NetSpec>)> = Vec::new();
        for s in scenarios {
            if !units.contains(&(s.subject.as_str(), s.net.as_ref())) {
                units.push((&s.subject, s.net.as_ref()));
            }
        }
        let kept_up =
            |&(name, net): &(&str, Option<&NetSpec>)| net.is_none() && suite.subjects[name].services.is_empty();
        for unit in &units {
            self.order.note(unit.0, kept_up(unit));
        }
        let mut services = Services::default();
        let mut up: Vec<(&str, Box<dyn RunningSubject>)> = Vec::new();
        // Rows that failed (a subject that did not start, a failed repeat) are not measured again.
        let mut failed: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for unit in units.iter().filter(|u| kept_up(u)) {
            let mine: Vec<&Scenario> =
                scenarios.iter().copied().filter(|s| s.subject == unit.0 && s.net.is_none()).collect();
            match start_subject(unit.0, suite, opts, &mut services, launcher) {
                Ok(subject) => up.push((unit.0, subject)),
                Err(e) => {
                    let ids = self.run_subject(unit.0, Err(e), &services, &mine, &repeats, None)?;
                    // The rounds its rows will not run in still count toward the progress total.
                    self.index += ids.len() * (repeats.end() - repeats.start()) as usize;
                    failed.extend(ids);
                }
            }
        }
        for repeat in repeats.clone() {
            // A block is a kept-up subject's row, or every row of a subject started for the round.
            let mut blocks: Vec<Vec<&Scenario>> = Vec::new();
            for unit in &units {
                let mine = scenarios
                    .iter()
                    .copied()
                    .filter(|s| s.subject == unit.0 && s.net.as_ref() == unit.1 && !failed.contains(&s.id));
                if kept_up(unit) {
                    blocks.extend(mine.map(|s| vec![s]));
                } else {
                    let mut rows: Vec<&Scenario> = mine.collect();
                    rows.shuffle(&mut self.order.rng);
                    if !rows.is_empty() {
                        blocks.push(rows);
                    }
                }
            }
            blocks.shuffle(&mut self.order.rng);
            let order: Vec<String> = blocks.iter().flatten().map(|s| s.id.clone()).collect();
            self.order.rounds.push(RoundOrder { repeat, rows: order });
            for block in blocks {
                let name = block[0].subject.as_str();
                // The kept-up subject of that name is the one on loopback: the same subject behind
                // a link is a unit of its own, started for its rows.
                let kept = up.iter().find(|(n, _)| *n == name).filter(|_| block[0].net.is_none());
                if let Some((_, subject)) = kept {
                    let spec = &suite.subjects[name];
                    let server = Server { subject: subject.as_ref(), services: services.of(&spec.services) };
                    self.index += 1;
                    if self.scenario(block[0], &server, repeat..=repeat, None)? == Status::Failed {
                        self.index += (repeats.end() - repeat) as usize;
                        failed.insert(block[0].id.clone());
                    }
                    continue;
                }
                let outcome = match block[0].net.as_ref() {
                    None => {
                        let started = start_subject(name, suite, opts, &mut services, launcher);
                        self.run_subject(name, started, &services, &block, &(repeat..=repeat), None)?
                    }
                    Some(net) => self.behind_link(name, net, &block, &(repeat..=repeat), launcher)?,
                };
                // The rounds a failed row will not run in still count toward the progress total.
                self.index += outcome.len() * (repeats.end() - repeat) as usize;
                failed.extend(outcome);
            }
        }
        for (_, mut subject) in up {
            subject.stop();
        }
        services.stop_unused(&[]);
        Ok(())
    }

    /// Runs `mine`, the rows of subject `name`, on it once it has `started` (or fails each row
    /// with the reason it did not), then stops it; returns the ids of the rows that failed.
    fn run_subject(
        &mut self,
        name: &str,
        started: Result<Box<dyn RunningSubject>, String>,
        services: &Services,
        mine: &[&Scenario],
        repeats: &RangeInclusive<u32>,
        link: Option<&Link>,
    ) -> Result<Vec<String>, RunError> {
        let mut failed = Vec::new();
        match started {
            Err(e) => {
                for s in mine {
                    self.index += 1;
                    self.progress.scenario(self.index, self.total, &s.id, repeats.end() - repeats.start() + 1);
                    self.write(self.row(s, 0, Err(e.clone())))?;
                    failed.push(s.id.clone());
                }
            }
            Ok(mut subject) => {
                let spec = &self.suite.subjects[name];
                let server = Server { subject: subject.as_ref(), services: services.of(&spec.services) };
                for s in mine {
                    self.index += 1;
                    if self.scenario(s, &server, repeats.clone(), link)? == Status::Failed {
                        failed.push(s.id.clone());
                    }
                }
                subject.stop();
            }
        }
        Ok(failed)
    }

    /// Measures a link the first time its setting is made (about 20 round trips and a 2,000-packet
    /// loss stream each way), so `run.json` says what the rows crossed and not only what was asked.
    fn observe(&mut self, link: &Link) {
        let net = link.spec().to_string();
        if self.links.iter().any(|l| l.net == net) {
            return;
        }
        let opts = wirebench_link::CheckOptions { probes: 20, loss_packets: 2000, transfer_s: 0.0 };
        let Ok(r) = wirebench_link::check(link, &opts) else { return };
        let loss = |l: &wirebench_link::LossEstimate| ObservedLoss {
            sent: l.sent,
            lost: l.sent - l.received,
            observed: l.observed,
            low: l.low,
            high: l.high,
        };
        self.links.push(LinkFacts {
            net,
            rtt_probes: r.rtt.probes as u64,
            rtt_answered: r.rtt.answered as u64,
            rtt_median_ms: r.rtt.median_ms,
            rtt_p99_ms: r.rtt.p99_ms,
            loss_up: loss(&r.loss_up),
            loss_down: loss(&r.loss_down),
        });
    }

    /// Rows behind a network link: a link of their own, the subject and its services started
    /// inside its server namespace (services of their own, not shared with loopback rows), the
    /// load sent from its client namespace. Without root or namespaces each row fails with the
    /// reason, and the rest of the suite runs.
    fn behind_link(
        &mut self,
        name: &str,
        net: &NetSpec,
        mine: &[&Scenario],
        repeats: &RangeInclusive<u32>,
        launcher: &dyn Launcher,
    ) -> Result<Vec<String>, RunError> {
        let (suite, opts) = (self.suite, self.opts);
        let mut services = Services::default();
        let (link, started) =
            self.start_behind(Some(net), || start_subject(name, suite, opts, &mut services, launcher));
        let failed = self.run_subject(name, started, &services, mine, repeats, link.as_ref())?;
        services.stop_unused(&[]);
        Ok(failed)
    }

    /// Makes the link `net` asks for (observed once per setting) and runs `start` inside its
    /// server namespace, so the processes it starts, their ports and readiness checks are there;
    /// without `net`, runs `start` here. A link that cannot be made is `start`'s error.
    fn start_behind<T>(
        &mut self,
        net: Option<&NetSpec>,
        start: impl FnOnce() -> Result<T, String>,
    ) -> (Option<Link>, Result<T, String>) {
        let Some(net) = net else { return (None, start()) };
        let link = match Link::up(net) {
            Ok(link) => link,
            Err(e) => return (None, Err(e.to_string())),
        };
        self.observe(&link);
        let started = match link.server().map(|ns| ns.enter()) {
            Some(Ok(_inside)) => start(),
            Some(Err(e)) => Err(format!("cannot enter the link's server namespace: {e}")),
            None => Err("the link has no server namespace".into()),
        };
        (Some(link), started)
    }

    /// Runs each harness for one round, `(first repeat, count)`, in an order drawn for the round.
    /// A harness measures its own rows in its own order inside one process, so its rows' pairs
    /// are measured side by side already; what the order moves is which harness meets the
    /// machine's drift. A round that printed a contended line is run again (at most
    /// `REMEASURES` times), and of each rerun only the lines of the contended rows and repeats
    /// are kept: a harness cannot measure one row alone, and the others measured quietly once.
    fn harness_rounds(
        &mut self,
        harnesses: &[&HarnessSpec],
        round: (u32, u32),
        launcher: &dyn Launcher,
    ) -> Result<(), RunError> {
        let mut order = harnesses.to_vec();
        order.shuffle(&mut self.order.rng);
        let rows = order.iter().map(|h| h.id.clone()).collect();
        self.order.harness_rounds.push(RoundOrder { repeat: round.0, rows });
        for h in order {
            self.index += 1;
            let mut contended = self.harness_round(h, round, None, launcher)?;
            for _ in 0..REMEASURES {
                if contended.is_empty() {
                    break;
                }
                contended = self.harness_round(h, round, Some(&contended), launcher)?;
            }
        }
        Ok(())
    }

    /// Runs a harness for one round with the subjects and services it drives, then stops them;
    /// returns the rows and repeats whose lines were contended. With `keep`, only the lines of
    /// those rows and repeats are written (a rerun of a contended round).
    fn harness_round(
        &mut self,
        h: &HarnessSpec,
        round: (u32, u32),
        keep: Option<&Contended>,
        launcher: &dyn Launcher,
    ) -> Result<Contended, RunError> {
        // Its own services: those of the scenarios' subjects are stopped by now.
        let mut services = Services::default();
        let mut running = Vec::new();
        // Behind a link: subjects and services start in its server namespace, the harness (a
        // browser, a driver) in its client one, each by this thread entering it meanwhile.
        let (suite, opts) = (self.suite, self.opts);
        let (link, started) = self
            .start_behind(h.net.as_ref(), || start_for_harness(h, suite, opts, &mut services, launcher, &mut running));
        let in_client = |spec| match &link {
            Some(l) => l
                .client()
                .enter()
                .map(|inside| (spec, Some(inside)))
                .map_err(|e| format!("cannot enter the link's client namespace: {e}")),
            None => Ok((spec, None)),
        };
        let outcome = match started.and_then(in_client) {
            Ok((spec, _inside)) => self.harness(&spec, launcher, round, keep),
            Err(e) => {
                self.progress.scenario(self.index, self.total, &h.id, round.1);
                self.write(self.harness_failure(h, e)).map(|()| Contended::new())
            }
        };
        for mut subject in running {
            subject.stop();
        }
        services.stop_unused(&[]);
        outcome
    }

    /// The sequential phase: while some claim is undecided for want of repeats (its interval, at
    /// the corrected level, straddles its threshold or a size band's edge), run one more repeat
    /// of the rows it depends on — every such claim's rows in one round, so pairs stay paired —
    /// until none is, the rows reach `max_repeats`, or the budget is spent.
    fn until_decided(
        &mut self,
        limits: UntilDecided,
        scenarios: &[&Scenario],
        harnesses: &[&HarnessSpec],
        launcher: &dyn Launcher,
    ) -> Result<Sequential, RunError> {
        let profile = &self.opts.profile;
        let alpha = profile.claim_alpha();
        let started = Instant::now();
        let mut rounds = Vec::new();
        let mut repeat = profile.repeats;
        // The last look's undecided claims are the run's: judged once per look, never again.
        let (stopped, undecided) = loop {
            let undecided = self.undecided(alpha)?;
            let stop = if undecided.is_empty() {
                Some(SequentialStop::Decided)
            } else if repeat >= limits.max_repeats {
                Some(SequentialStop::MaxRepeats)
            } else if started.elapsed().as_secs_f64() >= limits.budget_s {
                Some(SequentialStop::Budget)
            } else {
                None
            };
            if let Some(stop) = stop {
                break (stop, undecided);
            }
            repeat += 1;
            let wanted: Vec<&str> = undecided.iter().flat_map(|(_, ids)| ids.iter().map(String::as_str)).collect();
            let rows: Vec<&Scenario> = scenarios.iter().copied().filter(|s| wanted.contains(&s.id.as_str())).collect();
            let drivers: Vec<&HarnessSpec> = harnesses
                .iter()
                .copied()
                .filter(|h| {
                    let globs: Vec<glob::Pattern> =
                        h.scenarios.iter().filter_map(|g| glob::Pattern::new(g).ok()).collect();
                    wanted.iter().any(|id| globs.iter().any(|g| g.matches(id)))
                })
                .collect();
            if rows.is_empty() && drivers.is_empty() {
                break (SequentialStop::Decided, undecided);
            }
            let round_started = Instant::now();
            self.total += rows.len() + drivers.len();
            self.rounds(&rows, repeat..=repeat, launcher)?;
            self.harness_rounds(&drivers, (repeat, 1), launcher)?;
            rounds.push(SequentialRound {
                repeat,
                claims: undecided.into_iter().map(|(id, _)| id).collect(),
                rows: rows.iter().map(|s| s.id.clone()).chain(drivers.iter().map(|h| h.id.clone())).collect(),
                duration_s: round_started.elapsed().as_secs_f64(),
            });
        };
        let undecided = undecided.into_iter().map(|(id, _)| id).collect();
        Ok(Sequential {
            min_repeats: profile.repeats,
            max_repeats: limits.max_repeats,
            budget_s: limits.budget_s,
            looks: profile.looks(),
            claim_alpha: alpha,
            rounds,
            stopped,
            undecided,
        })
    }

    /// The claims that more repeats could decide, judged on the measurements so far at the
    /// level `alpha`, each with the scenarios of its undecided cases.
    fn undecided(&self, alpha: f64) -> Result<Vec<(String, Vec<String>)>, RunError> {
        let results = Results::read(&self.opts.out_dir)?;
        let summaries = results.summaries();
        let sampling = |o: &Outcome| matches!(o.reason, Some(Reason::Straddles | Reason::SizeCrosses { .. }));
        Ok(self
            .suite
            .claims
            .iter()
            .map(|c| judge_at(c, &summaries, alpha))
            .filter(|j| j.outcome.verdict == Verdict::Inconclusive && sampling(&j.outcome))
            .map(|j| {
                let ids = if j.cases.is_empty() {
                    j.claim.factors().into_iter().map(|(id, _)| id.to_string()).collect()
                } else {
                    j.cases.iter().filter(|c| sampling(&c.outcome)).flat_map(|c| c.scenarios.clone()).collect()
                };
                (j.claim.id.clone(), ids)
            })
            .collect())
    }

    fn scenario(
        &mut self,
        s: &Scenario,
        server: &Server,
        repeats: RangeInclusive<u32>,
        link: Option<&Link>,
    ) -> Result<Status, RunError> {
        self.progress.scenario(self.index, self.total, &s.id, repeats.end() - repeats.start() + 1);
        // Behind a link this thread sends from the client namespace for the whole row: the load's
        // threads start here and so start there too.
        let _in_client = match link.map(|l| l.client().enter()).transpose() {
            Ok(g) => g,
            Err(e) => return self.failed(s, format!("cannot enter the link's client namespace: {e}")),
        };
        let spec = &self.suite.subjects[&s.subject];
        let target = match &spec.url {
            Some(_) => url_target(spec, &self.opts.root),
            None => {
                let Some(port) = server.port(s.port_name()) else {
                    let e = format!("subject `{}` has no `{}` port", s.subject, s.port_name());
                    return self.failed(s, e);
                };
                Target { host: "127.0.0.1".into(), port, tls: s.tls, ..Target::default() }
            }
        };
        if let Err(e) = self.executor.verify(s, &target) {
            return self.failed(s, format!("verification failed: {e}"));
        }
        // (windows, last ÷ first pace) of a warm-up repeated until steady.
        let mut warmed = None;
        if let Some(plan) = s.plan(true) {
            self.progress.phase(None);
            // Only an open warm-up is paced by the subject's CPU: a closed one needs no /proc walk.
            let subject = server.subject.pid().filter(|_| plan.rate.is_some());
            let subject_cpus = self.subject_cpus();
            let mut rates = Vec::new();
            while !steady(&rates, s.warmup_until_steady) {
                self.progress.live().store(0, Ordering::Relaxed);
                let cpu_before = subject.and_then(|p| trees_cpu_s(&[p]));
                match self.executor.measure(s, &plan, &target, self.progress.live()) {
                    Ok(r) => {
                        let cpu = cpu_before.zip(subject.and_then(|p| trees_cpu_s(&[p]))).map(|(b, a)| a - b);
                        let secs = r.duration.as_secs_f64();
                        rates.push(warm_pace(r.requests, secs, cpu, plan.rate.is_some(), subject_cpus));
                    }
                    Err(e) => return self.failed(s, format!("warm-up failed: {e}")),
                }
            }
            if let (Some(_), Some(first), Some(last)) = (s.warmup_until_steady, rates.first(), rates.last()) {
                warmed = Some((rates.len() as f64, if *first > 0.0 { last / first } else { f64::NAN }));
            }
        }
        let plan = s.plan(false).expect("measured plan exists");
        for repeat in repeats {
            // A repeat measured while foreign work took the run's CPUs is written, flagged, and
            // measured again (at most REMEASURES times); only the last try may enter a verdict.
            for _ in 0..=REMEASURES {
                let mut row = self.repeat(s, server, &target, &plan, repeat, link);
                if let Some((windows, gain)) = warmed.filter(|_| row.status == Status::Ok) {
                    row.metrics.extra.insert("warmup_windows".into(), windows);
                    if gain.is_finite() {
                        row.metrics.extra.insert("warmup_gain".into(), gain);
                    }
                }
                let contended = row.metrics.contended == Some(true);
                let status = row.status;
                self.write(row)?;
                if status == Status::Failed {
                    return Ok(status);
                }
                if !contended {
                    break;
                }
            }
        }
        Ok(Status::Ok)
    }

    /// Measures one repeat of `s` and makes its row, with what foreign work took meanwhile.
    fn repeat(
        &self,
        s: &Scenario,
        server: &Server,
        target: &Target,
        plan: &crate::suite::Plan,
        repeat: u32,
        link: Option<&Link>,
    ) -> Measurement {
        self.progress.phase(Some(repeat));
        self.progress.live().store(0, Ordering::Relaxed);
        let sampler = Sampler::start(server.subject.pid(), server.service_pids());
        let link_before = link.map(Link::stats);
        let own_before = machine::own_cpu_s();
        let watch = self.opts.sensor.watch(&self.also);
        let began = Instant::now();
        let result = self.executor.measure(s, plan, target, self.progress.live());
        // Both sides' CPU is read around the whole load, its connections' handshakes and closes
        // included, so a share of CPU time is taken over that span, not over the measured
        // window alone: 100 HTTP/3 connections cost the instrument 0.07 CPU-s before the window,
        // and 0.54 when a pause came before (quinn's receive buffers, 3 MiB per endpoint, put in
        // huge pages the kernel must first find and zero).
        let elapsed = began.elapsed();
        let foreign = watch.finish(&self.opts.cpus);
        let mut instrument_cpu_s = machine::own_cpu_s() - own_before;
        let server_use = sampler.finish();
        // The forwarder's threads are in this process: their CPU is the link's, not the instrument's.
        let crossed = link.zip(link_before).map(|(l, before)| l.stats().since(&before));
        if let Some(c) = &crossed {
            instrument_cpu_s -= c.cpu().as_secs_f64();
        }
        match result {
            Err(e) => self.row(s, repeat, Err(e)),
            Ok(r) => {
                let span_s = elapsed.max(r.duration).as_secs_f64();
                let load = Load { cpu_s: r.remote_cpu_s.unwrap_or(instrument_cpu_s), cpus: self.load_cpus() };
                let mut m = metrics(&r, &server_use, &load, span_s, s.ramp_up_s.unwrap_or(0.0));
                if !r.workers.is_empty() {
                    // Workers on machines of their own take no CPU from the server's: only
                    // a worker that used all of its own may have set the pace.
                    m.instrument_bound = Some(r.workers.iter().any(|w| w.bound));
                    m.workers = Some(r.workers.clone());
                    m.worker_skew_ms = r.worker_skew_ms;
                }
                if s.rate.is_some() && r.workers.is_empty() {
                    // The open model sends at a fixed rate: at 200 req/s against nginx both sides
                    // use a few CPU-ms, ours the more, yet neither sets the pace; only an
                    // instrument that used all of its CPUs may have fallen behind the rate.
                    m.instrument_bound = Some(load.saturated(span_s));
                }
                if let Some(c) = &crossed {
                    link_metrics(&mut m, c);
                    // Across a link both sides mostly wait on the network (40 ms of round
                    // trip: 0.02–0.3 CPU-s each per 5 s row), so "more CPU than the server"
                    // says nothing about who set the pace; only saturation does.
                    m.instrument_bound = Some(load.saturated(span_s));
                }
                if let Some(f) = foreign {
                    f.stamp(&mut m);
                }
                // The CPU test screens, a probe judges (`bottleneck`): only where the test is all the
                // runner has, a closed loop on this machine, and the repeat is not measured again.
                // A repeat shorter than a probe's shortest load (the brief and smoke profiles')
                // is not probed: the probe would cost more than the repeat did.
                let asked =
                    r.workers.is_empty() && s.rate.is_none() && crossed.is_none() && r.duration >= bottleneck::LEAST;
                if asked && m.instrument_bound == Some(true) && m.contended != Some(true) {
                    if let Ok(p) = ask_bottleneck(self.executor, s, plan, r.duration, target, self.progress.live()) {
                        m.instrument_bound = Some(!p.cleared());
                        for (key, value) in [("ratio", p.ratio), ("lo", p.lo), ("hi", p.hi), ("paused", p.paused)] {
                            m.extra.insert(format!("capped_{key}"), value);
                        }
                    }
                }
                self.row(s, repeat, Ok(m)).with_errors(&r)
            }
        }
    }

    /// Writes the row's failure before any repeat ran.
    fn failed(&mut self, s: &Scenario, error: String) -> Result<Status, RunError> {
        self.write(self.row(s, 0, Err(error)))?;
        Ok(Status::Failed)
    }

    /// Runs a harness for one round, `(first repeat, count)`, writing each measurement line it
    /// prints as it prints it (with `keep`, only the lines of those rows and repeats); its
    /// repeats 1..=count are numbered from the round's first. Returns the rows and repeats of the
    /// contended lines it wrote.
    fn harness(
        &mut self,
        h: &HarnessSpec,
        launcher: &dyn Launcher,
        (first, count): (u32, u32),
        keep: Option<&Contended>,
    ) -> Result<Contended, RunError> {
        self.progress.scenario(self.index, self.total, &h.id, count);
        self.progress.phase(Some(count));
        let args = ["--repeats".to_string(), count.to_string(), "--run-id".into(), self.opts.run_id.clone()];
        let mut written = 0usize;
        let mut write_error = None;
        // A line's window is the time since the harness started or printed its previous line: the
        // foreign work in it is stamped on the line (a burst of lines gives windows too short to
        // judge, `contention::JUDGED_FROM_S`). A contended line is flagged and left out of
        // summaries and verdicts; `harness_rounds` measures it again.
        let mut contended = Contended::new();
        let mut watch = Some(self.opts.sensor.watch(&self.also));
        // A harness runs where subjects run (the supervisor pins it, and the subjects it drives,
        // to the subject's CPUs); the runner only waits meanwhile: the subject's CPUs are the set.
        let cpus = CpuSets { subject: self.opts.cpus.subject.clone(), load: Vec::new() };
        let outcome = launcher.harness(h, &args, &mut |line| {
            let foreign = watch.take().and_then(|w| w.finish(&cpus));
            watch = Some(self.opts.sensor.watch(&self.also));
            let row = match serde_json::from_str::<Measurement>(line) {
                Ok(m) if m.schema_version != SCHEMA_VERSION => self.harness_failure(
                    h,
                    format!("harness wrote schema_version {}, expected {SCHEMA_VERSION}", m.schema_version),
                ),
                Ok(mut m) => {
                    // Repeat 0 is a harness's verification or warm-up row: nothing to judge.
                    if let Some(f) = foreign.filter(|_| m.repeat > 0) {
                        f.stamp(&mut m.metrics);
                    }
                    Measurement {
                        run_id: self.opts.run_id.clone(),
                        suite: self.suite.name.clone(),
                        // The runner knows which lab the harness serves; what it printed may not.
                        lab: Some(self.suite.harness_lab(h).to_string()),
                        // A transport marks a row of the load engine (the report's scenarios
                        // table); a harness's rows are the harness's, whatever it printed.
                        transport: None,
                        net: h.net.as_ref().map(ToString::to_string),
                        // Repeat 0 is a harness's verification or warm-up row.
                        repeat: if m.repeat > 0 { m.repeat + first - 1 } else { 0 },
                        ..m
                    }
                }
                Err(e) => self.harness_failure(h, format!("harness printed a line that is not a measurement: {e}")),
            };
            let key = (row.scenario.clone(), row.repeat);
            if keep.is_some_and(|k| !k.contains(&key)) {
                return;
            }
            if row.metrics.contended == Some(true) {
                contended.insert(key);
            }
            if write_error.is_none() {
                written += 1;
                if let Err(e) = self.write(row) {
                    write_error = Some(e);
                }
            }
        });
        if let Some(e) = write_error {
            return Err(e);
        }
        match outcome {
            Err(e) => self.write(self.harness_failure(h, e.to_string())).map(|()| Contended::new()),
            // A rerun that printed none of the lines it was for leaves the first ones, flagged.
            Ok(()) if written == 0 && keep.is_none() => {
                self.write(self.harness_failure(h, "harness printed no measurement".into())).map(|()| Contended::new())
            }
            Ok(()) => Ok(contended),
        }
    }

    fn harness_failure(&self, h: &HarnessSpec, error: String) -> Measurement {
        Measurement {
            schema_version: SCHEMA_VERSION,
            run_id: self.opts.run_id.clone(),
            suite: self.suite.name.clone(),
            scenario: h.id.clone(),
            subject: h.id.clone(),
            lang: h.lang.clone(),
            lab: Some(self.suite.harness_lab(h).to_string()),
            transport: None,
            net: h.net.as_ref().map(ToString::to_string),
            protocol: None,
            format: None,
            params: BTreeMap::new(),
            repeat: 0,
            status: Status::Failed,
            error: Some(error),
            metrics: Metrics::default(),
        }
    }

    fn row(&self, s: &Scenario, repeat: u32, outcome: Result<Metrics, String>) -> Measurement {
        let spec = &self.suite.subjects[&s.subject];
        let mut params: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        params.insert("connections".into(), s.connections.into());
        params.insert("streams".into(), s.streams.into());
        params.insert("tls".into(), s.tls.into());
        params.insert("method".into(), s.method.clone().into());
        params.insert("path".into(), s.path.clone().into());
        if let Some(n) = s.requests {
            params.insert("requests".into(), n.into());
        }
        if let Some(d) = s.duration_s {
            params.insert("duration_s".into(), d.into());
        }
        if let Some(r) = s.rate {
            params.insert("rate".into(), r.into());
        }
        if let Some(n) = s.payload_bytes {
            params.insert("payload_bytes".into(), n.into());
        }
        for (k, v) in &s.params {
            params.entry(k.clone()).or_insert_with(|| v.clone());
        }
        for (k, v) in &s.labels {
            params.insert(k.clone(), v.clone().into());
        }
        let (status, error, metrics) = match outcome {
            Ok(m) => (Status::Ok, None, m),
            Err(e) => (Status::Failed, Some(e), Metrics::default()),
        };
        Measurement {
            schema_version: SCHEMA_VERSION,
            run_id: self.opts.run_id.clone(),
            suite: self.suite.name.clone(),
            scenario: s.id.clone(),
            subject: s.subject.clone(),
            lang: spec.lang.clone(),
            lab: Some(self.suite.scenario_lab(s).to_string()),
            transport: Some(s.labels.get("transport").cloned().unwrap_or_else(|| self.executor.transport(s))),
            net: s.net.as_ref().map(ToString::to_string),
            protocol: Some(s.driver.clone()),
            format: None,
            params,
            repeat,
            status,
            error,
            metrics,
        }
    }

    fn write(&mut self, mut m: Measurement) -> Result<(), RunError> {
        m.metrics.at_s = Some(self.started.elapsed().as_secs_f64());
        self.writer.append(&m)?;
        self.progress.measured(&m);
        Ok(())
    }
}

trait WithErrors {
    fn with_errors(self, r: &LoadResult) -> Self;
}

impl WithErrors for Measurement {
    /// Too many wrong answers turn a repeat into a failed one, keeping its numbers.
    fn with_errors(mut self, r: &LoadResult) -> Self {
        let total = r.requests + r.errors;
        if r.requests == 0 || (r.errors as f64) > MAX_ERROR_RATE * total as f64 {
            self.status = Status::Failed;
            self.error = Some(format!(
                "{} of {} responses were wrong: {}",
                r.errors,
                total,
                r.first_error.as_deref().unwrap_or("no response")
            ));
        }
        self
    }
}

/// Asks whether the instrument set a closed loop's pace (`bottleneck`): `plan` again for as long
/// as the load it follows took (`took`; at least `bottleneck::LEAST`), the instrument capped in
/// every other slice. Why there is no answer when the load failed, had errors or could not tell
/// (`Bottleneck::read`).
pub fn ask_bottleneck(
    executor: &dyn Executor,
    s: &Scenario,
    plan: &Plan,
    took: Duration,
    target: &Target,
    live: &AtomicU64,
) -> Result<Bottleneck, String> {
    let stop = Stop::Duration(took.max(bottleneck::LEAST));
    let capped = Plan { cap: Some(bottleneck::CAP), stop, ..*plan };
    live.store(0, Ordering::Relaxed);
    let r = executor.measure(s, &capped, target, live).map_err(|e| format!("the probe's load failed: {e}"))?;
    if r.errors > 0 {
        return Err(format!("the probe's load had {} errors", r.errors));
    }
    Bottleneck::read(&r.capped.unwrap_or_default(), r.duration)
}

/// What the instrument spent on a repeat, and the CPUs it had.
struct Load {
    cpu_s: f64,
    cpus: usize,
}

/// Share of its CPUs' time from which the instrument counts as saturated.
const SATURATED: f64 = 0.9;
/// Share of its CPUs' time below which the instrument answers every completion without
/// queueing behind another: its CPU cannot set a closed loop's pace, however it compares with
/// the server's. `rest-h1-tls-hol` (a 50 ms wait per request) used 0.12–0.15 CPU-s of 3 on
/// each side and was flagged in 1 of 3 repeats by 0.01 s.
const BUSY: f64 = 0.5;

impl Load {
    /// The instrument may have set the pace: busy, and more so than the server side, or (when
    /// both sides are busy, as with QUIC's per-packet encryption) nearly all of its own CPUs.
    fn bound(&self, server_cpu_s: Option<f64>, secs: f64) -> bool {
        let busy = self.cpu_s >= BUSY * self.cpus as f64 * secs;
        (busy && server_cpu_s.is_some_and(|s| self.cpu_s > s)) || self.saturated(secs)
    }

    fn saturated(&self, secs: f64) -> bool {
        saturated(self.cpu_s, self.cpus, secs)
    }
}

/// An instrument that used `cpu_s` of `cpus` CPUs over `secs` used nearly all of their time.
pub fn saturated(cpu_s: f64, cpus: usize, secs: f64) -> bool {
    cpu_s >= SATURATED * cpus as f64 * secs
}

/// A repeat's metrics; `span_s` is how long the load took from its first connection to its
/// last close, over which both sides' CPU was read.
fn metrics(r: &LoadResult, server: &ServerUse, load: &Load, span_s: f64, ramp_up_s: f64) -> Metrics {
    let secs = r.duration.as_secs_f64();
    let instrument_cpu_s = load.cpu_s;
    let per_s = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    Metrics {
        requests: Some(r.requests),
        errors: Some(r.errors),
        duration_s: Some(secs),
        rps: Some(per_s(r.requests)),
        messages: Some(r.messages),
        messages_per_s: Some(per_s(r.messages)),
        bytes_sent: Some(r.bytes_sent),
        bytes_received: Some(r.bytes_received),
        latency_us: Some(r.latency.clone()),
        first_message_us: r.first_message.clone(),
        latency_uncorrected_us: r.latency_uncorrected.clone(),
        iterations: r.iterations,
        iterations_per_s: r.iterations.map(per_s),
        steps: (!r.steps.is_empty()).then(|| r.steps.clone()),
        cpu_s: server.cpu_s,
        rss_kb: server.rss_kb,
        service_cpu_s: server.service_cpu_s,
        service_rss_kb: server.service_rss_kb,
        instrument_cpu_s: Some(instrument_cpu_s),
        instrument_bound: server.cpu_s.map(|_| load.bound(server.cpu_s, span_s)),
        rps_cv: steadiness(&r.per_tick, secs, ramp_up_s),
        timeline: (!r.per_tick.is_empty() || !r.errors_per_tick.is_empty()).then(|| crate::schema::Timeline {
            tick_ms: TICK.as_millis() as u32,
            ok: r.per_tick.clone(),
            errors: r.errors_per_tick.clone(),
            p99_us_per_s: r.p99_per_second_us.clone(),
        }),
        ..Default::default()
    }
}

/// How finely a load's throughput is followed over time. A tenth of a second shows a pause of the
/// server (a collection, a lock, a checkpoint) that a second would average away; at the REST
/// study's rates (2,000–10,000 req/s) a tick holds 200–1,000 answers, so counting noise alone
/// (Poisson) varies it by 3–7 %.
pub const TICK: Duration = Duration::from_millis(100);

/// Fewest whole ticks a throughput's variation is computed over: a second.
const MIN_TICKS: usize = 10;

/// The coefficient of variation (standard deviation ÷ mean) of the answers per tick over the
/// load's whole ticks after its ramp-up (users still arriving), the partial last one left out;
/// `None` for less than `MIN_TICKS` of them.
fn steadiness(per_tick: &[u64], secs: f64, ramp_up_s: f64) -> Option<f64> {
    let tick_s = TICK.as_secs_f64();
    let first = (ramp_up_s / tick_s).ceil() as usize;
    let whole = ((secs / tick_s).floor() as usize).min(per_tick.len());
    if whole < first + MIN_TICKS {
        return None;
    }
    let xs: Vec<f64> = per_tick[first..whole].iter().map(|&n| n as f64).collect();
    let (mean, sd) = crate::stats::mean_sd(&xs);
    (mean > 0.0).then(|| sd / mean)
}

/// A link's share of one measurement.
fn link_metrics(m: &mut Metrics, c: &LinkStats) {
    let packets = c.up.counters.packets + c.down.counters.packets;
    let late = c.up.late + c.down.late;
    m.net_forwarder_cpu_s = Some(c.cpu().as_secs_f64());
    m.net_lost = Some(c.up.counters.lost + c.down.counters.lost);
    m.net_overflow = Some(c.up.counters.overflow + c.down.counters.overflow);
    m.net_late = Some(late);
    m.net_bound = Some(late as f64 > NET_LATE_SHARE * packets as f64);
}

/// Share of packets written over 1 ms late from which the forwarder counts as behind.
const NET_LATE_SHARE: f64 = 0.01;

/// The subject of the rows being run, and the services it uses.
struct Server<'a> {
    subject: &'a dyn RunningSubject,
    services: Vec<(&'a str, &'a dyn RunningSubject)>,
}

impl Server<'_> {
    /// A port of the subject by name, or of one of its services as `<service>.<port>`.
    fn port(&self, name: &str) -> Option<u16> {
        if let Some((service, port)) = name.split_once('.') {
            let (_, s) = self.services.iter().find(|(n, _)| *n == service)?;
            return s.ports().get(port).copied();
        }
        self.subject.ports().get(name).copied()
    }

    fn service_pids(&self) -> Vec<u32> {
        self.services.iter().filter_map(|(_, s)| s.pid()).collect()
    }
}

/// The services started so far, by name; a service that failed to start keeps its error, so
/// every subject that needs it fails with the same line.
#[derive(Default)]
struct Services {
    started: BTreeMap<String, Result<Box<dyn RunningSubject>, String>>,
}

impl Services {
    /// Starts the named services not yet started; the placeholders a subject using them sees.
    fn start(&mut self, names: &[String], suite: &Suite, launcher: &dyn Launcher) -> Result<Placeholders, String> {
        let mut placeholders = Placeholders::default();
        for name in names {
            let started = self
                .started
                .entry(name.clone())
                .or_insert_with(|| launcher.start_service(name, &suite.services[name]).map_err(|e| e.to_string()));
            let service = started.as_ref().map_err(|e| e.clone())?;
            let dir = service.dir().map(|d| d.display().to_string()).unwrap_or_default();
            placeholders.add_service(name, &Placeholders::own(&dir, service.ports()));
        }
        Ok(placeholders)
    }

    /// The running ones of `names`.
    fn of<'a>(&'a self, names: &'a [String]) -> Vec<(&'a str, &'a dyn RunningSubject)> {
        names.iter().filter_map(|n| Some((n.as_str(), self.started.get(n)?.as_ref().ok()?.as_ref()))).collect()
    }

    /// Stops every running service not in `needed`.
    fn stop_unused(&mut self, needed: &[&String]) {
        for (name, service) in &mut self.started {
            if let Ok(service) = service {
                if !needed.contains(&name) {
                    service.stop();
                }
            }
        }
    }
}

/// Starts the subjects a harness talks to, with their services, into `running`; returns the
/// harness with `{<subject>.<port>}` and `{profile}` filled in its command.
fn start_for_harness(
    h: &HarnessSpec,
    suite: &Suite,
    opts: &RunOptions,
    services: &mut Services,
    launcher: &dyn Launcher,
    running: &mut Vec<Box<dyn RunningSubject>>,
) -> Result<HarnessSpec, String> {
    let mut placeholders = Placeholders::default();
    placeholders.values.insert("profile".into(), opts.profile_name.clone());
    for name in &h.subjects {
        let subject = start_subject(name, suite, opts, services, launcher)?;
        placeholders.add_service(name, &Placeholders::ports(subject.ports()));
        running.push(subject);
    }
    Ok(HarnessSpec { command: placeholders.fill_all(&h.command)?, ..h.clone() })
}

/// Starts subject `name` after the services it names, with their placeholders and its own
/// filled in: `{dir}` (`subject-<name>/` in the run's directory, created when named: an
/// embedded database's file), `{profile}` and `{root}` (the project root, absolute).
fn start_subject(
    name: &str,
    suite: &Suite,
    opts: &RunOptions,
    services: &mut Services,
    launcher: &dyn Launcher,
) -> Result<Box<dyn RunningSubject>, String> {
    let spec = &suite.subjects[name];
    if spec.url.is_some() {
        // Already running: nothing to start or stop; sampled only when the suite gives its pid.
        return Ok(Box::new(Remote { ports: BTreeMap::new(), pid: spec.pid }));
    }
    let mut placeholders = services.start(&spec.services, suite, launcher)?;
    // Absolute, since a subject may run from its own working directory.
    let dir = std::path::absolute(opts.out_dir.join(format!("subject-{name}"))).map_err(|e| e.to_string())?;
    if spec.command.iter().chain(spec.env.values()).chain(spec.setup.iter().flatten()).any(|t| t.contains("{dir}")) {
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    placeholders.values.insert("dir".into(), dir.display().to_string());
    placeholders.values.insert("profile".into(), opts.profile_name.clone());
    let root = std::path::absolute(&opts.root).map_err(|e| e.to_string())?;
    placeholders.values.insert("root".into(), root.display().to_string());
    let spec = resolve(spec, &placeholders)?;
    launcher.start(name, &spec).map_err(|e| e.to_string())
}

/// A URL subject as the runner sees it: a server it did not start, with the pid the suite gave
/// for one on this machine.
struct Remote {
    ports: BTreeMap<String, u16>,
    pid: Option<u32>,
}

impl RunningSubject for Remote {
    fn ports(&self) -> &BTreeMap<String, u16> {
        &self.ports
    }
    fn pid(&self) -> Option<u32> {
        self.pid
    }
    fn stop(&mut self) {}
}

/// Where a URL subject's load goes: its URL's name, port and scheme, the address `connect_to`
/// gives, and its certificate checked against the system's roots, its `ca` (relative to the
/// project root) or not at all (`insecure`).
pub fn url_target(spec: &SubjectSpec, root: &std::path::Path) -> Target {
    let origin = Origin::parse(spec.url.as_deref().unwrap_or_default()).expect("a checked subject's url parses");
    let verify = Verify::chosen(spec.ca.as_ref().map(|file| root.join(file)), spec.insecure);
    let client_cert = spec
        .client_cert
        .as_ref()
        .zip(spec.client_key.as_ref())
        .map(|(cert, key)| ClientCert { cert: root.join(cert), key: root.join(key) });
    Target {
        host: origin.host,
        port: origin.port,
        tls: origin.tls,
        connect_to: spec.connect_to.clone(),
        verify,
        client_cert,
    }
}

/// A subject's spec with its placeholders filled in (command, env, setup).
pub fn resolve(spec: &SubjectSpec, placeholders: &Placeholders) -> Result<SubjectSpec, String> {
    Ok(SubjectSpec {
        command: placeholders.fill_all(&spec.command)?,
        env: placeholders.fill_map(&spec.env)?,
        setup: spec.setup.iter().map(|step| placeholders.fill_all(step)).collect::<Result<_, _>>()?,
        ..spec.clone()
    })
}

/// What the server side used during one repeat.
#[derive(Debug, Default)]
struct ServerUse {
    cpu_s: Option<f64>,
    rss_kb: Option<u64>,
    service_cpu_s: Option<f64>,
    service_rss_kb: Option<u64>,
}

/// Samples the server side's CPU time (difference over the measurement) and peak resident memory
/// (polled every 20 ms on a thread, since VmHWM would be the peak of the whole process lifetime):
/// the subject and its services, each with every process below it (found again every 0.5 s).
/// Memory is `machine::processes_memory_kb`: RSS of a lone process, summed PSS of several.
struct Sampler {
    subject: Option<u32>,
    services: Vec<u32>,
    cpu_before: (Option<f64>, f64),
    done: std::sync::Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<(u64, u64)>>,
}

/// Polls between two looks for new processes in a tree.
const TREE_REFRESH_POLLS: u32 = 25;

/// Polls between two readings of a tree of several processes, whose memory is summed PSS: each
/// `/proc/<pid>/smaps_rollup` walks the process's page tables, and PostgreSQL's backends map its
/// shared buffers, so reading them every 20 ms was a third of the run process's CPU samples
/// (`perf`, a `g3-open-go-postgres` row) and most of the instrument CPU its rows reported.
/// Every 100 ms still sees PSS, which moves with pages first touched, many times a repeat.
const PSS_POLLS: u32 = 5;

fn trees_cpu_s(roots: &[u32]) -> Option<f64> {
    let pids: Vec<u32> = roots.iter().flat_map(|&r| machine::process_tree(r)).collect();
    if pids.is_empty() {
        return None;
    }
    Some(pids.iter().filter_map(|&p| machine::process_cpu_s(p)).sum())
}

impl Sampler {
    fn start(subject: Option<u32>, services: Vec<u32>) -> Sampler {
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let thread = subject.map(|pid| {
            let done = done.clone();
            let roots = services.clone();
            std::thread::spawn(move || {
                let (mut peak, mut service_peak) = (0, 0);
                let (mut mine, mut theirs) = (vec![], vec![]);
                let (mut mine_kb, mut service) = (0, 0);
                // A lone process's RSS is cheap to read each poll; summed PSS every PSS_POLLS.
                let due = |pids: &[u32], poll: u32| pids.len() < 2 || poll.is_multiple_of(PSS_POLLS);
                for poll in 0u32.. {
                    if poll % TREE_REFRESH_POLLS == 0 {
                        mine = machine::process_tree(pid);
                        theirs = roots.iter().flat_map(|&r| machine::process_tree(r)).collect();
                    }
                    if due(&mine, poll) {
                        mine_kb = machine::processes_memory_kb(&mine);
                    }
                    if due(&theirs, poll) {
                        service = machine::processes_memory_kb(&theirs);
                    }
                    peak = peak.max(mine_kb + service);
                    service_peak = service_peak.max(service);
                    if done.load(Ordering::Relaxed) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                (peak, service_peak)
            })
        });
        let cpu_before = (subject.and_then(|p| trees_cpu_s(&[p])), trees_cpu_s(&services).unwrap_or(0.0));
        Sampler { subject, services, cpu_before, done, thread }
    }

    fn finish(mut self) -> ServerUse {
        self.done.store(true, Ordering::Relaxed);
        let (rss, service_rss) = self.thread.take().and_then(|t| t.join().ok()).unwrap_or((0, 0));
        let service_cpu = (trees_cpu_s(&self.services).unwrap_or(0.0) - self.cpu_before.1).max(0.0);
        let cpu = match (self.cpu_before.0, self.subject.and_then(|p| trees_cpu_s(&[p]))) {
            (Some(a), Some(b)) => Some((b - a).max(0.0) + service_cpu),
            _ => None,
        };
        let with_services = !self.services.is_empty();
        ServerUse {
            cpu_s: cpu,
            rss_kb: Some(rss).filter(|&kb| kb > 0),
            service_cpu_s: with_services.then_some(service_cpu),
            service_rss_kb: with_services.then_some(service_rss),
        }
    }
}

/// `results/<UTC-timestamp>-<suite>` under `base`.
pub fn results_dir(base: &Path, stamp: &str, suite: &str) -> PathBuf {
    base.join(format!("{stamp}-{suite}"))
}

/// Whether a warm-up of these windows' req/s is done: after one window without
/// `warmup_until_steady`; with it, once a window is within `WARM` of the one before, either way,
/// or after `max` windows. A window that falls is not steady: a JVM's collection or
/// recompilation in the window (Jetty at G1/250 fell, stopped a warm-up that read only "rose
/// less than 5 %", and measured 10,824 req/s against 21,102 the next round).
fn steady(rates: &[f64], max: Option<u32>) -> bool {
    let Some(max) = max else { return !rates.is_empty() };
    match rates {
        [] | [_] => false,
        _ if rates.len() >= max as usize => true,
        [.., before, last] => *last < before * WARM && *last > before / WARM,
    }
}

/// How fast a warm-up window went: its req/s in the closed model, where a subject that warms
/// answers faster; in the open model the schedule fixes req/s, so a warming subject shows as
/// requests per CPU-second of the subject (its process tree) instead: a JVM still compiling
/// spends more CPU on the same requests. Without the subject's CPU (a URL subject), req/s.
///
/// An open window in which the subject used (nearly) all of its `subject_cpus` has no pace (NaN,
/// never steady): two such windows give the same requests per CPU-second whatever the subject
/// does, since the core, not the work, sets the CPU. The REST service's `cpu-…` rows (600
/// iterations a second, 9–28 % of a core when warm) stopped warm-ups of Jetty and Tomcat after 2
/// or 3 windows this way, then spent 2.2–3.0 s of CPU in the first 3-s repeat, 3–4× the next
/// two. A rate the subject cannot serve below its cores' time warms to the cap.
fn warm_pace(requests: u64, secs: f64, subject_cpu_s: Option<f64>, open: bool, subject_cpus: usize) -> f64 {
    match subject_cpu_s {
        Some(cpu) if open && saturated(cpu, subject_cpus, secs) => f64::NAN,
        Some(cpu) if open && cpu > 0.0 => requests as f64 / cpu,
        _ => requests as f64 / secs.max(1e-9),
    }
}

/// A warm-up window whose req/s is within this factor of the window before ends a
/// `warmup_until_steady` warm-up: the equivalence band, what two runs of this machine resolve.
const WARM: f64 = crate::claims::EQUIVALENCE;

#[cfg(test)]
mod tests;
