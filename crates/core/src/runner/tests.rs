//! A whole run with a mock launcher and a mock executor that "measures" known numbers exactly
//! (hyperfine's MockExecutor): the rows written must follow from those numbers alone.

use super::*;
use crate::results::Results;
use crate::supervisor::SupervisorError;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

const SUITE: &str = r#"
[subjects.good]
lang = "rust"
command = ["good"]
ports = { plain = "--port", tls = "--tls-port" }
health = { path = "/health" }

[subjects.broken]
lang = "go"
command = ["broken"]
ports = { plain = "--port" }
health = { path = "/health" }

# A subject behind a broker it does not run: the load goes to the broker's port.
[services.broker]
command = ["broker", "-c", "{dir}/broker.conf"]
ports = ["mqtt"]
files = { "broker.conf" = "listener {mqtt}" }
ready = { port = "mqtt" }

[services.gone]
command = ["gone"]
ports = ["db"]
ready = { command = ["ping-db", "{db}"] }
install = "run `make setup`"

[subjects.responder]
lang = "rust"
command = ["responder", "--broker", "127.0.0.1:{broker.mqtt}"]
ports = { plain = "--port" }
health = { path = "/health" }
services = ["broker"]

[subjects.needs-gone]
lang = "java"
command = ["app", "--db", "{gone.db}"]
ports = { plain = "--port" }
health = { path = "/health" }
services = ["gone"]

[scenario_defaults]
connections = 2
requests = 1000
warmup_requests = 100

# Its `transport` label names its row's transport; the others get the executor's for their
# driver and TLS.
[[scenarios]]
id = "fast"
subject = "good"
driver = "mock"
path = "/fast"
labels = { payload = "1KB", transport = "h9" }

[[scenarios]]
id = "wrong-bytes"
subject = "good"
driver = "mock"
tls = true
path = "/wrong"

[[scenarios]]
id = "flaky"
subject = "good"
driver = "mock"
path = "/flaky"

[[scenarios]]
id = "dead"
subject = "broken"
driver = "mock"
path = "/x"
lab = "elsewhere"

[[scenarios]]
id = "via-broker"
subject = "responder"
driver = "mock"
path = "/fast"
port = "broker.mqtt"

[[scenarios]]
id = "no-db"
subject = "needs-gone"
driver = "mock"
path = "/x"

[[harnesses]]
id = "codec"
lang = "rust"
command = ["codec", "bench"]
lab = "formats"

[[harnesses]]
id = "crashing"
lang = "go"
command = ["crashing"]

# A driver of servers: the runner starts them (and their services) for it, then stops them.
[[harnesses]]
id = "driven"
lang = "rust"
command = ["drive", "--url", "http://127.0.0.1:{responder.plain}", "--profile", "{profile}"]
subjects = ["responder"]

[[harnesses]]
id = "drives-broken"
lang = "go"
command = ["drive", "{broken.plain}"]
subjects = ["broken"]
"#;

/// What the mock launcher was asked to do, in order.
type Log = Rc<RefCell<Vec<String>>>;

struct MockSubject(String, BTreeMap<String, u16>, Log, bool);

impl RunningSubject for MockSubject {
    fn ports(&self) -> &BTreeMap<String, u16> {
        &self.1
    }
    fn pid(&self) -> Option<u32> {
        None
    }
    fn stop(&mut self) {
        if !self.3 {
            self.3 = true;
            self.2.borrow_mut().push(format!("stop {}", self.0));
        }
    }
    fn dir(&self) -> Option<&Path> {
        Some(Path::new("/run/broker"))
    }
}

#[derive(Default)]
struct MockLauncher {
    log: Log,
}

impl Launcher for MockLauncher {
    fn start(&self, name: &str, spec: &crate::suite::SubjectSpec) -> Result<Box<dyn RunningSubject>, SupervisorError> {
        self.log.borrow_mut().push(format!("start {name}: {}", spec.command.join(" ")));
        if name == "broken" {
            return Err(SupervisorError::Exited {
                who: format!("subject `{name}`"),
                status: "exit status: 1".into(),
                tail: "boom".into(),
            });
        }
        let ports = [("plain".to_string(), 1111), ("tls".to_string(), 2222)].into();
        Ok(Box::new(MockSubject(name.into(), ports, self.log.clone(), false)))
    }

    /// `broker` starts on port 3333; `gone` is not installed.
    fn start_service(
        &self,
        name: &str,
        _: &crate::suite::ServiceSpec,
    ) -> Result<Box<dyn RunningSubject>, SupervisorError> {
        self.log.borrow_mut().push(format!("start service {name}"));
        if name == "gone" {
            return Err(SupervisorError::Missing {
                service: name.into(),
                program: "gone".into(),
                hint: ": run `make setup`".into(),
            });
        }
        Ok(Box::new(MockSubject(name.into(), [("mqtt".to_string(), 3333)].into(), self.log.clone(), false)))
    }

    /// `codec` prints one measurement per repeat and a stray line; `crashing` exits non-zero.
    fn harness(
        &self,
        h: &crate::suite::HarnessSpec,
        args: &[String],
        line: &mut dyn FnMut(&str),
    ) -> Result<(), SupervisorError> {
        let repeats: u32 = args[1].parse().unwrap();
        assert_eq!(args[0], "--repeats");
        if h.id.starts_with("round-") {
            self.log.borrow_mut().push(format!("harness {} --repeats {repeats}", h.id));
            for repeat in 0..=repeats {
                line(&format!(
                    r#"{{"schema_version":1,"run_id":"theirs","suite":"x","scenario":"{}","subject":"s","lang":"ts","repeat":{repeat},"status":"ok","metrics":{{"duration_s":1.0}}}}"#,
                    h.id
                ));
            }
            return Ok(());
        }
        assert_eq!(repeats, 3);
        if h.id == "driven" {
            self.log.borrow_mut().push(format!("harness driven: {}", h.command.join(" ")));
            line(
                r#"{"schema_version":1,"run_id":"theirs","suite":"x","scenario":"parsed","subject":"driven","lang":"rust","repeat":1,"status":"ok","metrics":{"parse_us":250.0}}"#,
            );
            return Ok(());
        }
        if h.id == "crashing" {
            return Err(SupervisorError::HarnessFailed {
                id: h.id.clone(),
                status: "exit status: 2".into(),
                tail: "oops".into(),
            });
        }
        for repeat in 1..=3 {
            line(&format!(
                r#"{{"schema_version":1,"run_id":"theirs","suite":"x","scenario":"users-json-rust","subject":"codec","lang":"rust","lab":"printed","format":"json","repeat":{repeat},"status":"ok","metrics":{{"serialize_ns":1000.0,"size_bytes":42,"size_gzip_bytes":7.0}}}}"#
            ));
        }
        line("warming up...");
        Ok(())
    }
}

/// Each request of `/fast` takes exactly 100 µs on one stream; `/flaky` answers 5 % wrong. Its
/// transport is the driver's id, `+tls` with TLS.
#[derive(Default)]
struct MockExecutor {
    measured: Cell<u32>,
}

impl Executor for MockExecutor {
    fn verify(&self, s: &Scenario, _: &Target) -> Result<(), String> {
        if s.path == "/wrong" {
            return Err("body is 10 bytes, expected 1024".into());
        }
        Ok(())
    }

    fn transport(&self, s: &Scenario) -> String {
        format!("{}{}", s.driver, if s.tls { "+tls" } else { "" })
    }

    fn measure(&self, s: &Scenario, plan: &Plan, t: &Target, live: &AtomicU64) -> Result<LoadResult, String> {
        assert_eq!(t.port, if s.id == "via-broker" { 3333 } else { 1111 }, "{}", s.id);
        if plan.cap.is_some() {
            // The bottleneck probe after a repeat the CPU test flagged (a mock's repeats take
            // microseconds, whose CPU share can be anything): its flag stands.
            return Err("the mock sends no probe".into());
        }
        self.measured.set(self.measured.get() + 1);
        let Stop::Requests(n) = plan.stop else { panic!("mock suite uses request counts") };
        live.fetch_add(n, Ordering::Relaxed);
        let errors = if s.path == "/flaky" { n / 20 } else { 0 };
        Ok(LoadResult {
            requests: n - errors,
            messages: n - errors,
            errors,
            duration: Duration::from_micros(100 * n / u64::from(plan.connections)),
            bytes_sent: 10 * n,
            bytes_received: 1024 * n,
            latency: Latency { min: 90, p50: 100, p90: 110, p99: 150, p999: 200, max: 300, mean: 101.0, curve: vec![] },
            first_message: None,
            first_error: (errors > 0).then(|| "status 500, expected 200".into()),
            ..LoadResult::default()
        })
    }
}

fn fixed_clock() -> String {
    "2026-01-01T00:00:01Z".into()
}

/// The suite `toml`, named after its file `<name>.toml` and checked, and options that run its
/// `quick` profile into `dir/out`.
fn quick_run(toml: &str, name: &str, dir: &std::path::Path) -> (Suite, RunOptions) {
    let file = format!("{name}.toml");
    let mut suite = Suite::parse(toml, &file).unwrap();
    suite.name = name.into();
    suite.check(&file, &[name]).unwrap();
    let opts = RunOptions {
        run_id: format!("run-{name}"),
        started_at: "2026-01-01T00:00:00Z".into(),
        suite_file: file,
        profile_name: "quick".into(),
        profile: suite.profile("quick").unwrap(),
        only: None,
        out_dir: dir.join("out"),
        root: dir.to_path_buf(),
        cpus: CpuSets::default(),
        versions: BTreeMap::new(),
        git_revision: None,
        clock: fixed_clock,
        seed: 7,
        sensor: crate::contention::Sensor::Off,
    };
    (suite, opts)
}

#[test]
fn whole_run_writes_exactly_what_the_mock_measured() {
    let dir = tempfile::tempdir().unwrap();
    let (suite, opts) = quick_run(SUITE, "mock", dir.path());
    let exec = MockExecutor::default();
    let launcher = MockLauncher::default();
    let out = run(&suite, &opts, &launcher, &exec, &NoProgress::default()).unwrap();
    let results = Results::read(&out).unwrap();
    assert_eq!(results.run.finished_at.as_deref(), Some("2026-01-01T00:00:01Z"));

    let rows: Vec<(&str, u32, Status)> =
        results.measurements.iter().map(|m| (m.scenario.as_str(), m.repeat, m.status)).collect();
    // The load rows come first, round by round, then the harnesses'.
    let (load, harnesses) = rows.split_at(10);
    let mut by_row = load.to_vec();
    by_row.sort_by_key(|&(id, repeat, _)| (id, repeat));
    assert_eq!(
        by_row,
        vec![
            ("dead", 0, Status::Failed),
            ("fast", 1, Status::Ok),
            ("fast", 2, Status::Ok),
            ("fast", 3, Status::Ok),
            ("flaky", 1, Status::Failed),
            ("no-db", 0, Status::Failed),
            ("via-broker", 1, Status::Ok),
            ("via-broker", 2, Status::Ok),
            ("via-broker", 3, Status::Ok),
            ("wrong-bytes", 0, Status::Failed),
        ]
    );
    // Each harness's lines together, the harnesses in the order run.json records for the round.
    let lines_of = |h: &str| match h {
        "codec" => vec![
            ("users-json-rust", 1, Status::Ok),
            ("users-json-rust", 2, Status::Ok),
            ("users-json-rust", 3, Status::Ok),
            ("codec", 0, Status::Failed),
        ],
        "crashing" => vec![("crashing", 0, Status::Failed)],
        "driven" => vec![("parsed", 1, Status::Ok)],
        "drives-broken" => vec![("drives-broken", 0, Status::Failed)],
        other => panic!("no harness {other}"),
    };
    let order = &results.run.rounds.as_ref().expect("run.json records the rounds").harnesses;
    assert_eq!(order.len(), 1, "one harness round");
    assert_eq!(harnesses, order[0].rows.iter().flat_map(|h| lines_of(h)).collect::<Vec<_>>());
    // Round r measures every row still standing once, in the order run.json records: a subject
    // that did not start fails its rows before the rounds, a row that failed is not measured again.
    let rounds = results.run.rounds.as_ref().expect("run.json records the rounds");
    assert_eq!(rounds.seed, 7);
    assert_eq!(rounds.order.iter().map(|r| r.repeat).collect::<Vec<_>>(), [1, 2, 3]);
    let drawn: Vec<&str> = rounds.order.iter().flat_map(|r| &r.rows).map(String::as_str).collect();
    let written: Vec<&str> = load.iter().map(|r| r.0).filter(|id| *id != "dead").collect();
    assert_eq!(written, drawn, "lines follow the drawn order");
    let mut first: Vec<&str> = rounds.order[0].rows.iter().map(String::as_str).collect();
    first.sort_unstable();
    assert_eq!(first, ["fast", "flaky", "no-db", "via-broker", "wrong-bytes"]);
    for later in &rounds.order[1..] {
        let mut ids: Vec<&str> = later.rows.iter().map(String::as_str).collect();
        ids.sort_unstable();
        assert_eq!(ids, ["fast", "via-broker"], "round {}", later.repeat);
    }
    // Subjects without services stay up across the rounds; those with one start each round.
    assert_eq!(
        (rounds.kept_up.as_slice(), rounds.restarted.as_slice()),
        (&["good".to_string(), "broken".into()][..], &["responder".to_string(), "needs-gone".into()][..])
    );
    // Every row carries its lab (the suite's, else the scenario's or harness's own, over what a
    // harness printed) and every load row its transport (its label, else the driver's with TLS).
    let stamps: std::collections::BTreeSet<(&str, Option<&str>, Option<&str>)> =
        results.measurements.iter().map(|m| (m.scenario.as_str(), m.lab.as_deref(), m.transport.as_deref())).collect();
    assert_eq!(
        stamps,
        [
            ("fast", Some("mock"), Some("h9")),
            ("wrong-bytes", Some("mock"), Some("mock+tls")),
            ("flaky", Some("mock"), Some("mock")),
            ("dead", Some("elsewhere"), Some("mock")),
            ("via-broker", Some("mock"), Some("mock")),
            ("no-db", Some("mock"), Some("mock")),
            ("users-json-rust", Some("formats"), None),
            ("codec", Some("formats"), None),
            ("crashing", Some("mock"), None),
            ("parsed", Some("mock"), None),
            ("drives-broken", Some("mock"), None),
        ]
        .into_iter()
        .collect()
    );
    // The kept-up subjects start before the rounds and stop after them; the responder starts
    // for its row in each of the three rounds, after the broker, which stays up until the rounds
    // end; a service that is missing fails its subject's rows with the one line that says so.
    let log = launcher.log.borrow();
    let load_end = log.iter().position(|l| l == "stop good").unwrap() + 2;
    let (load, after) = log.split_at(load_end);
    assert_eq!(&load[..2], ["start good: good", "start broken: broken"]);
    let count = |what: &str| load.iter().filter(|l| *l == what).count();
    assert_eq!(count("start responder: responder --broker 127.0.0.1:3333"), 3);
    assert_eq!(count("stop responder"), 3);
    assert_eq!((count("start service broker"), count("start service gone")), (1, 1));
    let broker = load.iter().position(|l| l == "start service broker").unwrap();
    assert!(load[..broker].iter().all(|l| !l.starts_with("start responder")), "the broker first: {log:?}");
    assert_eq!(&load[load.len() - 2..], ["stop good", "stop broker"], "{log:?}");
    // Each harness with what it drives, in the round's order: `driven` starts its service and
    // subject and stops them after; `drives-broken` starts a subject that exits.
    let order = &results.run.rounds.as_ref().unwrap().harnesses[0].rows;
    let log_of = |h: &str| -> Vec<&str> {
        match h {
            "driven" => vec![
                "start service broker",
                "start responder: responder --broker 127.0.0.1:3333",
                "harness driven: drive --url http://127.0.0.1:1111 --profile quick",
                "stop responder",
                "stop broker",
            ],
            "drives-broken" => vec!["start broken: broken"],
            _ => vec![],
        }
    };
    assert_eq!(after, order.iter().flat_map(|h| log_of(h)).collect::<Vec<_>>());
    drop(log);
    let row = |id: &str| results.measurements.iter().find(|m| m.scenario == id).unwrap();
    let broken = row("drives-broken");
    assert!(broken.error.as_deref().unwrap().starts_with("subject `broken` exited"), "{:?}", broken.error);
    assert_eq!(row("no-db").error.as_deref(), Some("service `gone`: `gone` is not installed: run `make setup`"));
    let results = Results {
        measurements: results
            .measurements
            .into_iter()
            .filter(|m| !["via-broker", "no-db"].contains(&m.scenario.as_str()))
            .collect(),
        ..results
    };
    let line = |id: &str| results.measurements.iter().find(|m| m.scenario == id).unwrap();
    let codec = line("users-json-rust");
    assert_eq!((codec.run_id.as_str(), codec.suite.as_str()), ("run-mock", "mock"), "the runner's ids win");
    assert_eq!(codec.metrics.extra["size_gzip_bytes"], 7.0);
    assert!(line("codec").error.as_deref().unwrap().starts_with("harness printed a line that is not a measurement"));
    assert_eq!(
        line("crashing").error.as_deref(),
        Some("harness `crashing` failed (exit status: 2); last stderr: oops")
    );
    // fast and via-broker: a warm-up and a repeat in each of 3 rounds; flaky: a warm-up and its
    // failed repeat in round 1, and no more.
    assert_eq!(exec.measured.get(), 14);

    let row = |id: &str| results.measurements.iter().find(|m| m.scenario == id).unwrap();
    let fast = row("fast");
    assert_eq!(fast.metrics.requests, Some(1000));
    assert_eq!(fast.metrics.duration_s, Some(0.05));
    assert_eq!(fast.metrics.rps, Some(20_000.0));
    assert_eq!(fast.metrics.latency_us.as_ref().unwrap().p99, 150);
    assert_eq!(fast.params["payload"], "1KB");
    assert_eq!(fast.params["connections"], 2);
    assert_eq!(fast.lang, "rust");
    assert_eq!(row("wrong-bytes").error.as_deref(), Some("verification failed: body is 10 bytes, expected 1024"));
    assert_eq!(row("flaky").error.as_deref(), Some("50 of 1000 responses were wrong: status 500, expected 200"));
    let dead = row("dead").error.as_deref().unwrap();
    assert!(dead.starts_with("subject `broken` exited with exit status: 1"), "{dead}");

    let summaries = results.summaries();
    let fast = &summaries[0];
    assert_eq!(fast.ok_repeats, 3);
    assert_eq!((fast.lab.as_str(), fast.transport.as_deref()), ("mock", Some("h9")));
    assert_eq!(fast.get("rps").unwrap().median, 20_000.0);
    assert_eq!(fast.get("rps").unwrap().ci, Some((20_000.0, 20_000.0)));
}

#[test]
fn only_glob_that_matches_nothing_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut suite = Suite::parse(SUITE, "mock.toml").unwrap();
    suite.name = "mock".into();
    let opts = RunOptions {
        run_id: "r".into(),
        started_at: String::new(),
        suite_file: String::new(),
        profile_name: "smoke".into(),
        profile: suite.profile("smoke").unwrap(),
        only: Some("nothing*".into()),
        out_dir: dir.path().join("out"),
        root: dir.path().to_path_buf(),
        cpus: CpuSets::default(),
        versions: BTreeMap::new(),
        git_revision: None,
        clock: fixed_clock,
        seed: 7,
        sensor: crate::contention::Sensor::Off,
    };
    let err =
        run(&suite, &opts, &MockLauncher::default(), &MockExecutor::default(), &NoProgress::default()).unwrap_err();
    assert_eq!(err.to_string(), "--only `nothing*` matches no scenario of suite `mock`");
}

#[test]
fn the_instrument_is_bound_when_busy_and_heavier_than_the_server_or_saturating_its_cpus() {
    let load = |cpu_s, cpus| Load { cpu_s, cpus };
    // 3 s of load on one CPU: 2.9 s of instrument CPU saturates it even next to a busier server.
    assert!(load(2.9, 1).bound(Some(3.1), 3.0));
    assert!(!load(2.0, 1).bound(Some(3.1), 3.0));
    assert!(load(2.0, 1).bound(Some(1.5), 3.0));
    // Two CPUs for the instrument: the same 2.9 s is half of them.
    assert!(!load(2.9, 2).bound(Some(3.1), 3.0));
    assert!(load(2.9, 1).bound(None, 3.0));
    // Both sides mostly waiting (a 50 ms head-of-line row): more CPU than the server at 5 % of
    // one CPU sets no pace; at half of it, it may.
    assert!(!load(0.15, 1).bound(Some(0.14), 3.0));
    assert!(!load(1.49, 1).bound(Some(1.0), 3.0));
    assert!(load(1.5, 1).bound(Some(1.0), 3.0));
    // Three load CPUs at 40 % beside a saturated subject: the subject sets the pace.
    assert!(!load(3.6, 3).bound(Some(3.0), 3.0));
}

/// A suite of the mock harnesses `round-<name>` for `names`, `repeats` in `harness_rounds` rounds.
fn rounds_suite(repeats: u32, harness_rounds: u32, names: &[&str]) -> String {
    let mut toml =
        format!("description = \"rounds\"\n[profiles.quick]\nrepeats = {repeats}\nharness_rounds = {harness_rounds}\n");
    for name in names {
        toml += &format!("[[harnesses]]\nid = \"round-{name}\"\nlang = \"ts\"\ncommand = [\"{name}\"]\n");
    }
    toml
}

#[test]
fn harness_rounds_interleave_harnesses_and_number_repeats_on() {
    let dir = tempfile::tempdir().unwrap();
    let (suite, opts) = quick_run(&rounds_suite(5, 2, &["a", "b"]), "rounds", dir.path());
    let launcher = MockLauncher::default();
    let out = run(&suite, &opts, &launcher, &MockExecutor::default(), &NoProgress::default()).unwrap();
    let results = Results::read(&out).unwrap();
    // Each round runs both harnesses once, in the order run.json records for it.
    let rounds = results.run.rounds.as_ref().expect("a run with harnesses records its rounds").harnesses.clone();
    assert_eq!(rounds.iter().map(|r| (r.repeat, r.rows.len())).collect::<Vec<_>>(), [(1, 2), (4, 2)]);
    let ran: Vec<String> = rounds
        .iter()
        .zip([3, 2])
        .flat_map(|(r, n)| r.rows.iter().map(move |h| format!("harness {h} --repeats {n}")))
        .collect();
    assert_eq!(*launcher.log.borrow(), ran);
    let repeats =
        |id: &str| -> Vec<u32> { results.measurements.iter().filter(|m| m.scenario == id).map(|m| m.repeat).collect() };
    // Each round's own repeat 0 (a verification row) stays 0; 1..=count continue the last round.
    assert_eq!(repeats("round-a"), [0, 1, 2, 3, 0, 4, 5]);
    assert_eq!(repeats("round-b"), [0, 1, 2, 3, 0, 4, 5]);
}

#[test]
fn harness_rounds_draw_their_order_from_the_seed() {
    let toml = rounds_suite(8, 8, &["a", "b", "c"]);
    let orders = |seed: u64| {
        let dir = tempfile::tempdir().unwrap();
        let (suite, mut opts) = quick_run(&toml, "rounds", dir.path());
        opts.seed = seed;
        let out = run(&suite, &opts, &MockLauncher::default(), &MockExecutor::default(), &NoProgress::default());
        let rounds = Results::read(&out.unwrap()).unwrap().run.rounds.unwrap().harnesses;
        rounds.into_iter().map(|r| r.rows).collect::<Vec<_>>()
    };
    let first = orders(7);
    assert_eq!(first, orders(7), "one seed, one order");
    assert!(first.iter().any(|o| *o != first[0]), "eight rounds of three harnesses in one order: {first:?}");
    for o in &first {
        let mut sorted = o.clone();
        sorted.sort();
        assert_eq!(sorted, ["round-a", "round-b", "round-c"]);
    }
}

/// A suite of three rows on one subject whose req/s the executor dictates, and two claims:
/// `a / b > 1`, which three repeats cannot decide at a sequential run's corrected level, and
/// `c / b > 10`, which they refute at once.
const SEQUENTIAL: &str = r#"
[subjects.good]
lang = "rust"
command = ["good"]
ports = { plain = "--port" }
health = { path = "/health" }

[scenario_defaults]
subject = "good"
driver = "mock"
path = "/x"
connections = 1
requests = 1000

[[scenarios]]
id = "a"
[[scenarios]]
id = "b"
[[scenarios]]
id = "c"

[[claims]]
id = "a-beats-b"
text = "a beats b"
published = "p"
metric = "rps"
numerator = "a"
denominator = "b"
op = ">"
threshold = 1.0

[[claims]]
id = "c-beats-b-10x"
text = "c beats b tenfold"
published = "p"
metric = "rps"
numerator = "c"
denominator = "b"
op = ">"
threshold = 10.0
"#;

/// Req/s of each measured repeat, in order, per scenario; the last value repeats.
struct SequenceExecutor {
    rps: BTreeMap<&'static str, Vec<f64>>,
    calls: RefCell<BTreeMap<String, usize>>,
}

impl Executor for SequenceExecutor {
    fn verify(&self, _: &Scenario, _: &Target) -> Result<(), String> {
        Ok(())
    }

    fn transport(&self, _: &Scenario) -> String {
        "mock".into()
    }

    fn measure(&self, s: &Scenario, plan: &Plan, _: &Target, _: &AtomicU64) -> Result<LoadResult, String> {
        if plan.cap.is_some() {
            return Err("the mock sends no probe".into());
        }
        let mut calls = self.calls.borrow_mut();
        let k = calls.entry(s.id.clone()).or_default();
        let values = &self.rps[s.id.as_str()];
        let rps = values[(*k).min(values.len() - 1)];
        *k += 1;
        let Stop::Requests(n) = plan.stop else { panic!("requests") };
        Ok(LoadResult {
            requests: n,
            messages: n,
            duration: Duration::from_secs_f64(n as f64 / rps),
            latency: Latency { min: 1, p50: 1, p90: 1, p99: 1, p999: 1, max: 1, mean: 1.0, curve: vec![] },
            ..LoadResult::default()
        })
    }
}

fn sequential_run(a: Vec<f64>, limits: UntilDecided, dir: &Path) -> (Results, Vec<String>) {
    let (suite, mut opts) = quick_run(SEQUENTIAL, "mock", dir);
    opts.profile.until_decided = Some(limits);
    let exec =
        SequenceExecutor { rps: [("a", a), ("b", vec![100.0]), ("c", vec![200.0])].into(), calls: RefCell::default() };
    let launcher = MockLauncher::default();
    let out = run(&suite, &opts, &launcher, &exec, &NoProgress::default()).unwrap();
    let log = launcher.log.borrow().clone();
    (Results::read(&out).unwrap(), log)
}

fn repeats_of(results: &Results, id: &str) -> Vec<u32> {
    results.measurements.iter().filter(|m| m.scenario == id).map(|m| m.repeat).collect()
}

#[test]
fn a_sequential_run_repeats_only_the_rows_of_undecided_claims_until_they_are_decided() {
    let dir = tempfile::tempdir().unwrap();
    // a / b per repeat: 1.0, 1.3, 1.15, then 1.15 on: above 1, but three repeats cannot show it
    // at the corrected level.
    let limits = UntilDecided { max_repeats: 10, budget_s: 600.0 };
    let (results, log) = sequential_run(vec![100.0, 130.0, 115.0], limits, dir.path());
    let seq = results.run.sequential.clone().expect("the run records its sequential phase");
    assert_eq!((seq.stopped, seq.undecided.len(), seq.looks), (SequentialStop::Decided, 0, 8));
    assert!((seq.claim_alpha - 0.05 / 8.0).abs() < 1e-12);
    assert!(!seq.rounds.is_empty() && seq.rounds.len() < 7, "{:?}", seq.rounds);
    for (k, round) in seq.rounds.iter().enumerate() {
        assert_eq!(round.repeat, 4 + k as u32);
        assert_eq!(round.claims, ["a-beats-b"], "the refuted claim asks for nothing");
        assert_eq!(round.rows, ["a", "b"], "both sides of the pair, and nothing else");
    }
    let last = 3 + seq.rounds.len() as u32;
    assert_eq!(repeats_of(&results, "a"), (1..=last).collect::<Vec<_>>());
    assert_eq!(repeats_of(&results, "b"), (1..=last).collect::<Vec<_>>());
    assert_eq!(repeats_of(&results, "c"), [1, 2, 3]);
    // Each round starts the subject again and stops it.
    assert_eq!(log.iter().filter(|l| l.starts_with("start good")).count(), 1 + seq.rounds.len());
    // Decided at the corrected level, and not one round earlier.
    let ran: Suite = serde_json::from_value(results.run.parameters.clone()).unwrap();
    let claim = &ran.claims[0];
    let rows = results.summaries();
    assert_eq!(judge_at(claim, &rows, seq.claim_alpha).outcome.verdict, Verdict::Confirmed);
    let before: Vec<_> = results.measurements.iter().filter(|m| m.repeat < last).cloned().collect();
    let earlier = Results { measurements: before, ..results.clone() }.summaries();
    assert_eq!(judge_at(claim, &earlier, seq.claim_alpha).outcome.verdict, Verdict::Inconclusive);
}

#[test]
fn a_sequential_run_stops_at_its_limits_and_names_what_stayed_undecided() {
    let dir = tempfile::tempdir().unwrap();
    // a / b swings 0.8, 1.2 forever: no number of repeats decides it.
    let swing: Vec<f64> = (0..20).map(|i| if i % 2 == 0 { 80.0 } else { 120.0 }).collect();
    let (results, _) = sequential_run(swing.clone(), UntilDecided { max_repeats: 5, budget_s: 600.0 }, dir.path());
    let seq = results.run.sequential.clone().unwrap();
    assert_eq!((seq.stopped, seq.undecided.as_slice()), (SequentialStop::MaxRepeats, &["a-beats-b".to_string()][..]));
    assert_eq!(repeats_of(&results, "a"), [1, 2, 3, 4, 5]);
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = sequential_run(swing, UntilDecided { max_repeats: 5, budget_s: 1e-9 }, dir.path());
    let seq = results.run.sequential.clone().unwrap();
    assert_eq!((seq.stopped, seq.rounds.len()), (SequentialStop::Budget, 0));
    assert_eq!(repeats_of(&results, "a"), [1, 2, 3]);
}

#[test]
fn steadiness_is_the_variation_of_whole_ticks_after_the_ramp_up() {
    // Ten ticks alternating 50 and 150: mean 100, sample standard deviation 50·√(10/9).
    let wave: Vec<u64> = (0..10).map(|i| if i % 2 == 0 { 50 } else { 150 }).collect();
    let cv = steadiness(&wave, 1.0, 0.0).unwrap();
    assert!((cv - 0.5 * (10.0f64 / 9.0).sqrt()).abs() < 1e-12, "{cv}");
    // The partial last tick (the 7) and the ramp-up's ticks (the 1s) are left out.
    let mut ramped = vec![1, 1, 1];
    ramped.extend([100; 10]);
    ramped.push(7);
    assert_eq!(steadiness(&ramped, 1.34, 0.25), Some(0.0));
    // Under ten whole ticks after the ramp-up say too little about variation.
    assert_eq!(steadiness(&[100; 12], 1.2, 0.3), None);
    // A load that answered nothing has no variation to speak of.
    assert_eq!(steadiness(&[0; 10], 1.0, 0.0), None);
}

/// Each call of the sensor, counted across a test's run (one test uses each counter).
static SENSED_ONCE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
static SENSED_ALWAYS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

fn foreign(share: f64) -> Option<crate::contention::Foreign> {
    Some(crate::contention::Foreign { cpu_s: share, steal_s: 0.0, share, secs: 1.0 })
}

#[test]
fn a_contended_repeat_is_measured_again_and_left_out_of_the_summary() {
    // The second repeat the run measures is contended; every other is quiet.
    let second = || foreign(if SENSED_ONCE.fetch_add(1, Ordering::SeqCst) == 1 { 0.5 } else { 0.01 });
    let dir = tempfile::tempdir().unwrap();
    let (suite, mut opts) = quick_run(SEQUENTIAL, "mock", dir.path());
    opts.sensor = crate::contention::Sensor::Fixed(second);
    let exec = SequenceExecutor {
        rps: [("a", vec![100.0]), ("b", vec![100.0]), ("c", vec![200.0])].into(),
        calls: RefCell::default(),
    };
    let out = run(&suite, &opts, &MockLauncher::default(), &exec, &NoProgress::default()).unwrap();
    let results = Results::read(&out).unwrap();
    let contended: Vec<&Measurement> =
        results.measurements.iter().filter(|m| m.metrics.contended == Some(true)).collect();
    assert_eq!(contended.len(), 1);
    let (id, repeat) = (&contended[0].scenario, contended[0].repeat);
    let same: Vec<Option<bool>> = results
        .measurements
        .iter()
        .filter(|m| &m.scenario == id && m.repeat == repeat)
        .map(|m| m.metrics.contended)
        .collect();
    assert_eq!(same, [Some(true), Some(false)], "measured again right after, the second try quiet");
    assert_eq!(contended[0].metrics.foreign_share, Some(0.5));
    let summary = results.summaries().into_iter().find(|s| &s.scenario == id).unwrap();
    assert_eq!((summary.ok_repeats, summary.contended), (3, 1));
    assert_eq!(summary.by_repeat["rps"].len(), 3, "one value per repeat: the quiet try's");
}

#[test]
fn a_repeat_contended_every_time_is_kept_flagged_after_its_remeasures() {
    let always = || {
        SENSED_ALWAYS.fetch_add(1, Ordering::SeqCst);
        foreign(0.4)
    };
    let dir = tempfile::tempdir().unwrap();
    let (suite, mut opts) = quick_run(SEQUENTIAL, "mock", dir.path());
    opts.sensor = crate::contention::Sensor::Fixed(always);
    opts.profile.repeats = 2;
    let exec = SequenceExecutor {
        rps: [("a", vec![100.0]), ("b", vec![100.0]), ("c", vec![200.0])].into(),
        calls: RefCell::default(),
    };
    let out = run(&suite, &opts, &MockLauncher::default(), &exec, &NoProgress::default()).unwrap();
    let results = Results::read(&out).unwrap();
    let rows = results.summaries().len() as u32;
    let tries = 1 + REMEASURES;
    assert_eq!(results.measurements.len() as u32, rows * 2 * tries, "each repeat tried {tries} times");
    assert_eq!(SENSED_ALWAYS.load(Ordering::SeqCst), rows * 2 * tries);
    for s in results.summaries() {
        assert_eq!((s.ok_repeats, s.contended), (0, 2 * tries as usize), "{}: nothing enters its summary", s.scenario);
        assert!(s.get("rps").is_none());
    }
}

/// A harness's lines carry the foreign work of the time since its previous line; a contended one
/// is flagged and left out of the summary, and the harness's round runs again for it: of the
/// rerun only that row's repeat is kept.
#[test]
fn a_harness_line_measured_beside_foreign_work_is_flagged_and_left_out() {
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    // The second window (from the first line to the second) is contended, every other quiet.
    let second = || foreign(if CALLS.fetch_add(1, Ordering::SeqCst) == 1 { 0.6 } else { 0.0 });
    let dir = tempfile::tempdir().unwrap();
    let (suite, mut opts) = quick_run(SUITE, "mock", dir.path());
    (opts.only, opts.sensor) = (Some("codec".into()), crate::contention::Sensor::Fixed(second));
    let out = run(&suite, &opts, &MockLauncher::default(), &MockExecutor::default(), &NoProgress::default()).unwrap();
    let results = Results::read(&out).unwrap();
    let flags: Vec<(u32, Option<bool>)> = results
        .measurements
        .iter()
        .filter(|m| m.scenario == "users-json-rust")
        .map(|m| (m.repeat, m.metrics.contended))
        .collect();
    assert_eq!(flags, [(1, Some(false)), (2, Some(true)), (3, Some(false)), (2, Some(false))]);
    let summary = results.summaries().into_iter().find(|s| s.scenario == "users-json-rust").unwrap();
    assert_eq!((summary.ok_repeats, summary.contended), (3, 1));
    // The harness's own failure line ("warming up..." is not a measurement) is written once.
    assert_eq!(results.measurements.iter().filter(|m| m.scenario == "codec").count(), 1);
}

#[test]
fn a_harness_contended_every_time_keeps_its_lines_flagged_after_its_reruns() {
    let dir = tempfile::tempdir().unwrap();
    let (suite, mut opts) = quick_run(SUITE, "mock", dir.path());
    (opts.only, opts.sensor) = (Some("codec".into()), crate::contention::Sensor::Fixed(|| foreign(0.6)));
    let launcher = MockLauncher::default();
    let out = run(&suite, &opts, &launcher, &MockExecutor::default(), &NoProgress::default()).unwrap();
    let results = Results::read(&out).unwrap();
    let lines: Vec<(u32, Option<bool>)> = results
        .measurements
        .iter()
        .filter(|m| m.scenario == "users-json-rust")
        .map(|m| (m.repeat, m.metrics.contended))
        .collect();
    let tries = 1 + REMEASURES as usize;
    assert_eq!(lines.len(), 3 * tries, "three repeats, each tried {tries} times: {lines:?}");
    assert!(lines.iter().all(|l| l.1 == Some(true)));
    let summary = results.summaries().into_iter().find(|s| s.scenario == "users-json-rust").unwrap();
    assert_eq!((summary.ok_repeats, summary.contended), (0, 3 * tries));
}

/// A row whose subject speeds up while warming (a JVM compiling: 1,000, 2,000, then 2,050 req/s)
/// is warmed until a window rises less than 5 %: three windows, the last 2.05× the first, on the
/// first round's row; the later rounds find it warm (it stays up) and stop after two windows, as
/// a row that never speeds up does; one without `warmup_until_steady` warms once.
#[test]
fn a_warm_up_until_steady_repeats_until_the_subject_stops_speeding_up() {
    let suite = r#"
[subjects.good]
lang = "rust"
command = ["good"]
ports = { plain = "--port" }
health = { path = "/health" }

[scenario_defaults]
subject = "good"
driver = "mock"
path = "/x"
connections = 1
requests = 1000
warmup_requests = 1000

[[scenarios]]
id = "jvm"
warmup_until_steady = 5
[[scenarios]]
id = "flat"
warmup_until_steady = 5
[[scenarios]]
id = "once"
"#;
    let dir = tempfile::tempdir().unwrap();
    let (suite, opts) = quick_run(suite, "mock", dir.path());
    let rps = [("jvm", vec![1000.0, 2000.0, 2050.0]), ("flat", vec![3000.0]), ("once", vec![3000.0])];
    let exec = SequenceExecutor { rps: rps.into(), calls: RefCell::default() };
    let out = run(&suite, &opts, &MockLauncher::default(), &exec, &NoProgress::default()).unwrap();
    let results = Results::read(&out).unwrap();
    let extra = |id: &str, key: &str| -> Vec<Option<f64>> {
        results.measurements.iter().filter(|m| m.scenario == id).map(|m| m.metrics.extra.get(key).copied()).collect()
    };
    let repeats = opts.profile.repeats as usize;
    let later = repeats - 1;
    assert_eq!(extra("jvm", "warmup_windows"), [vec![Some(3.0)], vec![Some(2.0); later]].concat());
    let gains: Vec<f64> = extra("jvm", "warmup_gain").into_iter().map(|g| (g.unwrap() * 1e6).round() / 1e6).collect();
    assert_eq!(gains, [vec![2.05], vec![1.0; later]].concat());
    assert_eq!(extra("flat", "warmup_windows"), vec![Some(2.0); repeats]);
    assert_eq!(extra("once", "warmup_windows"), vec![None; repeats]);
    // Warm-ups (once per row and round) plus the repeats.
    let calls = exec.calls.borrow();
    let rounds = repeats;
    assert_eq!(calls["once"], rounds + repeats);
    assert_eq!(calls["jvm"], 3 + 2 * later + repeats, "{calls:?}");
}

#[test]
fn an_open_warm_up_is_paced_by_requests_per_subject_cpu_second() {
    // Closed: req/s, whatever the CPU.
    assert_eq!(warm_pace(3_000, 1.5, Some(0.5), false, 1), 2_000.0);
    // Open: the schedule fixes req/s; a JVM still compiling spends more CPU on the same requests.
    let (compiling, warm) = (warm_pace(6_000, 1.5, Some(0.6), true, 1), warm_pace(6_000, 1.5, Some(0.3), true, 1));
    assert_eq!((compiling, warm), (10_000.0, 20_000.0));
    assert!(
        !steady(&[compiling, warm], Some(8))
            && steady(&[compiling, warm, warm_pace(6_000, 1.5, Some(0.29), true, 1)], Some(8))
    );
    // Without the subject's CPU (a URL subject, or none used), req/s.
    assert_eq!(warm_pace(6_000, 1.5, None, true, 1), 4_000.0);
    assert_eq!(warm_pace(6_000, 1.5, Some(0.0), true, 1), 4_000.0);
    // A window that kept the subject's core busy has no pace: two of them in a row agree only
    // because the core is full, and are not steady; an open warm-up ends on two that are not.
    let busy = warm_pace(900, 1.5, Some(1.45), true, 1);
    assert!(busy.is_nan());
    assert!(!steady(&[busy, busy], Some(8)) && !steady(&[busy, warm], Some(8)) && !steady(&[warm, busy], Some(8)));
    assert!(steady(&[busy, busy, warm, warm], Some(8)) && steady(&[busy; 8], Some(8)), "then steady, or the cap");
    // The same CPU is not busy for a subject on two CPUs, nor in the closed model.
    assert_eq!(warm_pace(900, 1.5, Some(1.45), true, 2), 900.0 / 1.45);
    assert_eq!(warm_pace(900, 1.5, Some(1.45), false, 1), 600.0);
}

#[test]
fn steady_means_a_window_within_five_percent_of_the_last_or_the_cap() {
    assert!(!steady(&[], None) && steady(&[1.0], None));
    assert!(!steady(&[1.0], Some(3)));
    assert!(!steady(&[1.0, 2.0], Some(3)) && steady(&[1.0, 2.0, 2.05], Some(3)));
    assert!(steady(&[1.0, 1.04], Some(9)) && !steady(&[1.0, 1.06], Some(9)));
    assert!(!steady(&[1.0, 0.5], Some(9)), "a window that falls is not steady");
    assert!(steady(&[1.0, 0.96], Some(9)), "within 5 % below is");
    assert!(steady(&[1.0, 2.0, 4.0], Some(3)), "the cap");
}

#[test]
fn warmup_until_steady_is_checked() {
    let base = "[subjects.good]\nlang = \"rust\"\ncommand = [\"good\"]\nports = { plain = \"--port\" }\nhealth = { path = \"/health\" }\n\n[[scenarios]]\nid = \"x\"\nsubject = \"good\"\ndriver = \"mock\"\npath = \"/x\"\nconnections = 1\nrequests = 10\n";
    for (extra, want) in [
        ("warmup_until_steady = 1\nwarmup_requests = 5\n", "must be at least 2"),
        ("warmup_until_steady = 3\n", "set `warmup_s` or `warmup_requests` too"),
    ] {
        let text = format!("{base}{extra}");
        let err = Suite::parse(&text, "x.toml").and_then(|s| s.check("x.toml", &["mock"]).map(|_| s)).unwrap_err();
        assert!(err.to_string().contains(want) && err.to_string().contains("warmup_until_steady"), "{err}");
    }
}
