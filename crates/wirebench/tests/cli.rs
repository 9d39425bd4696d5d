//! The wirebench binary as a user runs it: the smoke suite for real against the REST subject,
//! validated against the published schema; SIGKILL of the runner mid-run; subjects that fail in
//! each way a subject can; a malformed suite. Needs the release subject (`make build`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{wirebench, workspace};

const WIREBENCH: &str = env!("CARGO_BIN_EXE_wirebench");

fn subject_binary() -> PathBuf {
    let p = workspace().join("target/release/protocols-rust");
    assert!(p.exists(), "{} is missing: run `make build` (make test does) first", p.display());
    p
}

/// Every line of `measurements.jsonl`, parsed.
fn all_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Checks that each contended repeat was measured again, up to three tries in all (other tests
/// running beside this one, or any process on this machine, are foreign work to its run); with
/// `killed`, the run's last line may be a contended try whose next the SIGKILL cut off.
fn check_tries(all: &[serde_json::Value], killed: bool) {
    let same = common::same_repeat;
    for (i, m) in all.iter().enumerate().filter(|(_, m)| m["metrics"]["contended"] == true) {
        // The runner tries a repeat at most 1 + REMEASURES (3) times and keeps the last flagged.
        let again = all[i + 1..].iter().any(|n| same(m, n));
        let tries = all.iter().filter(|n| same(m, n)).count();
        let cut_off = killed && i + 1 == all.len();
        assert!(again || tries == 3 || cut_off, "a contended repeat is measured again, up to three times: {m}");
    }
}

/// The line that stands for each repeat (its last try), after checking the tries. On a busy
/// machine that line may itself be contended: the tests below assert what holds either way.
fn lines(path: &Path) -> Vec<serde_json::Value> {
    let all = all_lines(path);
    check_tries(&all, false);
    common::last_tries(&all)
}

/// A project root with `suites/<name>.toml` holding `text`.
fn project(name: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("suites")).unwrap();
    std::fs::write(dir.path().join("suites").join(format!("{name}.toml")), text).unwrap();
    dir
}

fn results_dir(stdout: &[u8]) -> PathBuf {
    let html = String::from_utf8_lossy(stdout).lines().last().unwrap_or_default().to_string();
    assert!(html.ends_with("report.html"), "stdout ends with the report path: {html}");
    PathBuf::from(html).parent().unwrap().to_path_buf()
}

fn assert_one_line_error(out: &Output, want: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("backtrace"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(want), "`{stderr}` mentions `{want}`");
}

/// The tests that measure real loads run one at a time: each is foreign work on this machine's
/// CPUs to the others' runs (their repeats would read as contended, some three times over, and
/// leave a row or a claim without its repeats).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[test]
fn smoke_suite_runs_for_real_and_matches_the_published_schema() {
    let _turn = one_at_a_time();
    subject_binary();
    let out_base = tempfile::tempdir().unwrap();
    let out = wirebench(&["run", "smoke", "--no-build", "--out", out_base.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = results_dir(&out.stdout);
    for f in ["run.json", "measurements.jsonl", "report.html", "summary.md", "subject-rest-rust.log"] {
        assert!(dir.join(f).exists(), "{f} written");
    }
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workspace().join("schemas/measurement.schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let rows = lines(&dir.join("measurements.jsonl"));
    let suite = wirebench_core::suite::Suite::load(
        &workspace().join("suites/smoke.toml"),
        &workspace(),
        &wirebench_load::Registry,
    )
    .unwrap();
    assert_eq!(rows.len(), suite.scenarios.len(), "one row per smoke scenario");
    for api in ["rest", "graphql", "soap", "grpc", "websocket", "sse", "mqtt"] {
        assert!(rows.iter().any(|r| r["params"]["api"] == api), "the smoke suite runs {api}");
    }
    for driver in wirebench_load::driver_ids() {
        assert!(rows.iter().any(|r| r["protocol"] == driver), "the smoke suite runs the {driver} driver");
    }
    for row in &rows {
        assert!(validator.is_valid(row), "valid against schema: {row}");
        assert_eq!(row["status"], "ok", "{row}");
        assert_eq!(row["metrics"]["errors"], 0);
        assert!(row["metrics"]["rps"].as_f64().unwrap() > 0.0);
        assert!(row["metrics"]["cpu_s"].as_f64().is_some(), "subject CPU sampled");
        assert!(row["metrics"]["rss_kb"].as_u64().unwrap() > 0, "subject RSS sampled");
        // One message a call, or the stream's count for a streaming call.
        let scenario = suite.scenarios.iter().find(|s| row["scenario"] == s.id.as_str()).unwrap();
        let per_call = scenario.expect.messages.unwrap_or(1);
        assert_eq!(row["metrics"]["messages"].as_u64(), row["metrics"]["requests"].as_u64().map(|n| n * per_call));
        // Every call carries its payload and then some: the envelope.
        if let Some(payload) = row["params"]["payload_bytes"].as_u64() {
            let m = &row["metrics"];
            let wire = m["bytes_sent"].as_u64().unwrap() + m["bytes_received"].as_u64().unwrap();
            assert!(wire > payload * m["requests"].as_u64().unwrap(), "{row}");
        }
    }
    assert!(rows.iter().filter(|r| r["params"]["payload_bytes"].is_u64()).count() >= 12, "payload sizes recorded");
    let h1 = rows.iter().find(|r| r["scenario"] == "rest-h1-1kb").unwrap();
    // Rows across a link: a round trip slower, the link's numbers recorded, the forwarder's CPU
    // apart from the instrument's.
    for id in ["rest-net-h2-tls", "rest-net-h3"] {
        let r = rows.iter().find(|r| r["scenario"] == id).unwrap_or_else(|| panic!("{id} ran"));
        let m = &r["metrics"];
        assert_eq!(r["net"], "rtt=10ms,loss=2%", "{r}");
        assert!(m["latency_us"]["p50"].as_u64().unwrap() >= 10_000, "{id} crossed a 10 ms link: {m}");
        assert!(m["net_forwarder_cpu_s"].as_f64().unwrap() > 0.0 && m["net_late"].is_u64(), "{m}");
        assert!(m["net_lost"].as_u64().unwrap() > 0, "2 % of a few thousand packets were lost: {m}");
    }
    assert!(rows.iter().filter(|r| r["net"].is_null()).all(|r| r["metrics"]["net_lost"].is_null()));
    assert_eq!(h1["metrics"]["requests"], 400);
    assert!(h1["metrics"]["bytes_received"].as_u64().unwrap() > 400 * 1024);
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let run_schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workspace().join("schemas/run.schema.json")).unwrap()).unwrap();
    assert!(jsonschema::validator_for(&run_schema).unwrap().is_valid(&run));
    assert!(run["finished_at"].is_string());
    // The CPUs' speed, probed on the subject's and the load's CPUs at each end of the run.
    let cpus: Vec<u64> = ["subject", "load"]
        .iter()
        .flat_map(|k| run["cpus"][k].as_array().unwrap().clone())
        .map(|c| c.as_u64().unwrap())
        .collect();
    let probes = run["cpu_speed"].as_array().expect("run.json has the CPUs' speed");
    for at in ["start", "end"] {
        let mut probed: Vec<u64> =
            probes.iter().filter(|p| p["at"] == at).map(|p| p["cpu"].as_u64().unwrap()).collect();
        probed.sort_unstable();
        let mut want = cpus.clone();
        want.sort_unstable();
        want.dedup();
        if want.is_empty() {
            // Not pinned (one core): every online CPU.
            want = (0..run["machine"]["cores"].as_u64().unwrap()).collect();
        }
        assert_eq!(probed, want, "{at}: {probes:?}");
    }
    assert!(probes.iter().all(|p| p["slices_us"].as_array().unwrap().len() == 8), "{probes:?}");
    // The one link the smoke rows crossed, measured when it was made.
    let links = run["links"].as_array().expect("run.json lists the links");
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(links[0]["net"], "rtt=10ms,loss=2%");
    assert!(links[0]["rtt_median_ms"].as_f64().unwrap() >= 10.0, "{links:?}");
    assert!(links[0]["loss_up"]["sent"].as_u64().unwrap() >= 2000, "{links:?}");
    // The machine's cores, not the load CPUs the runner pinned itself to.
    let pinned = run["cpus"]["subject"].as_array().unwrap().len() + run["cpus"]["load"].as_array().unwrap().len();
    assert!(run["machine"]["cores"].as_u64().unwrap() as usize >= pinned.max(1), "{}", run["machine"]);
    assert!(run["versions"]["h2"].is_string() && run["versions"]["rustc"].is_string());
    // Mosquitto ran as a service: its log and generated config are in the run's directory, and
    // its CPU and memory are the server side's share.
    assert!(dir.join("service-mosquitto.log").exists() && dir.join("service-mosquitto/mosquitto.conf").exists());
    for row in rows.iter().filter(|r| r["params"]["broker"] == "mosquitto") {
        let m = &row["metrics"];
        assert!(m["service_rss_kb"].as_u64().unwrap() > 0, "{row}");
        assert!(m["service_cpu_s"].as_f64().unwrap() <= m["cpu_s"].as_f64().unwrap(), "{row}");
    }
}

/// A run of the protocols suite's Mosquitto rows, SIGKILLed mid-run: the broker (a service,
/// whose command line names the run's directory) and its responder end with the runner.
#[test]
fn sigkill_of_the_runner_leaves_no_broker() {
    let _turn = one_at_a_time();
    subject_binary();
    let out = tempfile::tempdir().unwrap();
    let out_path = out.path().canonicalize().unwrap();
    let mut child = Command::new(WIREBENCH)
        .args(["run", "protocols", "--no-build", "--profile", "quick", "--only", "mqtt-mosquitto-qos1-1kb", "--out"])
        .arg(&out_path)
        .current_dir(workspace())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mine = || processes_mentioning(&out_path.to_string_lossy());
    let deadline = Instant::now() + Duration::from_secs(60);
    while mine() == 0 {
        assert!(Instant::now() < deadline, "the broker did not start within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while mine() > 0 {
        assert!(Instant::now() < deadline, "the broker outlived the SIGKILLed runner");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn suite_with_subject(extra: &str, scenarios: &str) -> String {
    format!(
        r#"
[subjects.real]
lang = "rust"
command = ["{bin}"]
ports = {{ plain = "--port", tls = "--tls-port" }}
health = {{ path = "/health" }}
{extra}
{scenarios}
"#,
        bin = subject_binary().display()
    )
}

#[test]
fn sigkill_of_the_runner_keeps_finished_lines_and_leaves_no_subject() {
    let _turn = one_at_a_time();
    let tag = format!("wirebench-test-{}", std::process::id());
    let scenarios = (0..6)
        .map(|i| format!("[[scenarios]]\nid = \"s{i}\"\nsubject = \"real\"\ndriver = \"http1\"\npath = \"/payload/64\"\nconnections = 2\nduration_s = 0.5\n"))
        .collect::<String>();
    let text = suite_with_subject(&format!("env = {{ WIREBENCH_TEST_TAG = \"{tag}\" }}"), &scenarios);
    let dir = project("long", &text);
    let out = dir.path().join("out");
    let mut child = Command::new(WIREBENCH)
        .args(["run", "long", "--no-build", "--profile", "quick", "--out"])
        .arg(&out)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let jsonl = || std::fs::read_dir(&out).ok()?.flatten().next().map(|e| e.path().join("measurements.jsonl"));
    let deadline = Instant::now() + Duration::from_secs(60);
    let finished = loop {
        let n = jsonl().and_then(|p| std::fs::read_to_string(p).ok()).map_or(0, |t| t.lines().count());
        if n >= 2 {
            break n;
        }
        assert!(Instant::now() < deadline, "no measurement written within 60 s");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(tagged_processes(&tag) > 0, "the subject runs while the runner does");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while tagged_processes(&tag) > 0 {
        assert!(Instant::now() < deadline, "the subject outlived the SIGKILLed runner");
        std::thread::sleep(Duration::from_millis(20));
    }
    let all = all_lines(&jsonl().unwrap());
    assert!(all.len() >= finished, "every finished line survives and parses");
    check_tries(&all, true);
    assert!(all.iter().all(|r| r["status"] == "ok"));
    // The killed run still renders, and says it is incomplete.
    let results = jsonl().unwrap().parent().unwrap().to_path_buf();
    let report = Command::new(WIREBENCH).arg("report").arg(&results).output().unwrap();
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    assert!(String::from_utf8_lossy(&report.stderr).contains("wirebench: The run did not finish."));
}

/// Processes (not zombies) whose environment carries `tag`.
fn tagged_processes(tag: &str) -> usize {
    live_processes(|proc| {
        std::fs::read(proc.join("environ")).is_ok_and(|env| env.windows(tag.len()).any(|w| w == tag.as_bytes()))
    })
}

/// Processes (not zombies) whose command line contains `text`.
fn processes_mentioning(text: &str) -> usize {
    live_processes(|proc| std::fs::read(proc.join("cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(text)))
}

/// Processes (not zombies) whose `/proc/<pid>` directory satisfies `matches`.
fn live_processes(matches: impl Fn(&Path) -> bool) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().chars().all(|c| c.is_ascii_digit()))
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let zombie = stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('Z'));
            !zombie && matches(&e.path())
        })
        .count()
}

#[test]
fn failing_subjects_become_failed_rows_with_their_reason() {
    let _turn = one_at_a_time();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let scenario = |id: &str, subject: &str, path: &str, expect: &str| {
        format!("[[scenarios]]\nid = \"{id}\"\nsubject = \"{subject}\"\ndriver = \"http1\"\npath = \"{path}\"\nconnections = 1\nrequests = 10\n{expect}\n")
    };
    let text = suite_with_subject(
        &format!(
            r#"
[subjects.sleepy]
lang = "sh"
command = ["sh", "-c", "sleep 30", "sleepy"]
ports = {{ plain = "--port" }}
health = {{ path = "/health" }}
ready_timeout_s = 1

[subjects.crashing]
lang = "sh"
command = ["sh", "-c", "echo config file missing >&2; exit 4", "crashing"]
ports = {{ plain = "--port" }}
health = {{ path = "/health" }}

[subjects.taken]
lang = "rust"
command = ["{bin}"]
ports = {{ plain = "--port" }}
fixed_ports = {{ plain = {port} }}
health = {{ path = "/health" }}
"#,
            bin = subject_binary().display()
        ),
        &[
            scenario("good", "real", "/payload/1024", "expect = { body_bytes = 1024 }"),
            scenario("wrong-bytes", "real", "/payload/1024", "expect = { body_bytes = 1000 }"),
            scenario("never-ready", "sleepy", "/", ""),
            scenario("crashes", "crashing", "/", ""),
            scenario("port-taken", "taken", "/", ""),
        ]
        .concat(),
    );
    let dir = project("failing", &text);
    let out = Command::new(WIREBENCH)
        .args(["run", "failing", "--no-build", "--profile", "smoke", "--out"])
        .arg(dir.path().join("out"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "exit 3: some scenarios failed; {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let rows = lines(&results_dir(&out.stdout).join("measurements.jsonl"));
    let error = |id: &str| {
        let row = rows.iter().find(|r| r["scenario"] == id).unwrap_or_else(|| panic!("row for {id}"));
        row["error"].as_str().unwrap_or("").to_string()
    };
    assert_eq!(rows.iter().find(|r| r["scenario"] == "good").unwrap()["status"], "ok");
    assert_eq!(error("wrong-bytes"), "verification failed: body is 1024 bytes, expected 1000");
    assert!(error("never-ready").starts_with("subject `sleepy` not ready after 1 s"), "{}", error("never-ready"));
    let crashed = error("crashes");
    assert!(crashed.contains("exited with exit status: 4") && crashed.contains("config file missing"), "{crashed}");
    assert!(error("port-taken").contains(&format!("port {port} (plain) is taken")), "{}", error("port-taken"));
    drop(taken);
}

#[test]
fn bad_input_gives_one_line_and_exit_1() {
    let dir = project("broken", "[subjects.x]\nlang = \"rust\"\ncommand = []\nports = { plain = \"--port\" }\nhealth = { path = \"/h\" }\n[[scenarios]]\nid = \"a\"\nsubject = \"x\"\ndriver = \"http1\"\npath = \"/\"\nconnections = \"many\"\nrequests = 1\n");
    let suites = dir.path().join("suites");
    let run = |args: &[&str]| {
        Command::new(WIREBENCH).args(args).arg("--suites-dir").arg(&suites).current_dir(dir.path()).output().unwrap()
    };
    assert_one_line_error(&run(&["run", "broken"]), "broken.toml: scenarios[0].connections: invalid type");
    assert_one_line_error(&run(&["run", "nosuch"]), "no suite `nosuch`");
    let failing_build = "[subjects.x]\nlang = \"sh\"\nbuild = [\"sh\", \"-c\", \"echo no compiler >&2; exit 1\"]\ncommand = [\"x\"]\nports = { plain = \"--port\" }\nhealth = { path = \"/h\" }\n[[scenarios]]\nid = \"a\"\nsubject = \"x\"\ndriver = \"http1\"\npath = \"/\"\nconnections = 1\nrequests = 1\n";
    std::fs::write(suites.join("badbuild.toml"), failing_build).unwrap();
    // The progress line says which build failed; the error is the last line.
    for args in [&["run", "badbuild"][..], &["build", "badbuild"]] {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        let lines: Vec<&str> = stderr.trim_end().lines().collect();
        assert_eq!(lines.len(), 2, "{stderr}");
        assert!(lines[0].starts_with("building subject `x` in .: sh -c") && lines[0].ends_with(" failed"), "{stderr}");
        assert_eq!(lines[1], "wirebench: subject `x`: build `sh -c echo no compiler >&2; exit 1` failed: no compiler");
    }
    assert_one_line_error(&wirebench(&["run", "smoke", "--no-build", "--profile", "huge"]), "unknown profile `huge`");
    assert_one_line_error(&wirebench(&["run", "smoke", "--no-build", "--cpus", "subject=zero"]), "--cpus");
    assert_one_line_error(&wirebench(&["run", "smoke", "--no-build", "--only", "nothing*"]), "matches no scenario");
    assert_one_line_error(
        &wirebench(&["run", "protocols", "--no-build", "--profile", "brief", "--only", "conn-net-*"]),
        "--only `conn-net-*`: profile `brief` skips every scenario it selects (*-net-*, mqtt-rumqttd-*)",
    );
    assert_one_line_error(
        &wirebench(&["run", "smoke", "--no-build", "--profile", "smoke", "--until-decided", "5"]),
        "--until-decided with profile `smoke`: needs at least 2 repeats",
    );
    assert_one_line_error(
        &wirebench(&["run", "smoke", "--no-build", "--profile", "quick", "--until-decided", "3"]),
        "max_repeats 3 must exceed the profile's 3 repeats",
    );
    assert_one_line_error(&wirebench(&["report", "/nonexistent/dir"]), "/nonexistent/dir");
    assert_one_line_error(&wirebench(&["load", "http://10.1.2.3:80/"]), "not a loopback address");
}

#[test]
fn list_shows_suites_subjects_where_declared_harness_rows_and_drivers() {
    let out = wirebench(&["list"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "smoke",
        "protocols",
        "rest-h2-tls-1kb",
        "http1",
        "http2",
        "subject  rest-rust (rust): target/release/protocols-rust  [subjects/protocols/rust/subject.toml]",
        "service  mosquitto: mosquitto -c {dir}/mosquitto.conf  [subjects/services/mosquitto.toml]",
        "harness  formats-go (go): rows *-go  [subjects/formats/go/harness.toml]",
    ] {
        assert!(text.contains(want), "list mentions {want}: {text}");
    }
    let none = text.lines().any(|l| l.trim_start().starts_with("0 scenarios"));
    assert!(!none, "a harness-only suite lists its harness rows instead: {text}");
}

/// A driver parameter the driver would refuse is a one-line error naming the file and key, given
/// before anything is built (the copy's build step would fail loudly if it ran).
#[test]
fn a_bad_driver_parameter_is_refused_when_the_suite_loads() {
    let protocols = std::fs::read_to_string(workspace().join("suites/protocols.toml")).unwrap();
    let copy = protocols.replacen("params = { call = \"server_stream\" }", "params = { call = \"unray\" }", 1);
    assert_ne!(copy, protocols, "the suite has a server-streaming gRPC row");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.toml");
    std::fs::write(&path, copy).unwrap();
    let out = wirebench(&["run", path.to_str().unwrap(), "--only", "grpc*", "--out", dir.path().to_str().unwrap()]);
    assert_one_line_error(&out, "(grpc-server-stream-h2c-1kb).params: grpc driver: call `unray`");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("copy.toml: matrix["), "the key names the matrix that made the row: {stderr}");
    assert!(!stderr.contains("building"), "nothing was built: {stderr}");
    let out = wirebench(&["load", "http://127.0.0.1:1/", "--param", "x=1"]);
    assert_one_line_error(&out, "--param for the http1 driver: unknown parameter `x`");
}

/// A driver that carries one request per connection at a time refuses `streams = 10` when the
/// suite loads, before anything builds; `wirebench load` refuses `-m 10` by the same registry
/// row, naming its flag, and every scenario rule names the flag the user gave.
#[test]
fn a_drivers_stream_limit_and_the_scenario_rules_hold_for_suites_and_load_alike() {
    let protocols = std::fs::read_to_string(workspace().join("suites/protocols.toml")).unwrap();
    let h1 = "h1 = { driver = \"http1\", tls = false, streams = 1 }";
    let copy = protocols.replacen(h1, &h1.replace("streams = 1", "streams = 10"), 1);
    assert!(copy != protocols, "the suite has an axis of HTTP/1.1 rows: {h1}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.toml");
    std::fs::write(&path, copy).unwrap();
    let out = wirebench(&["run", path.to_str().unwrap(), "--only", "rest-h1-*", "--out", dir.path().to_str().unwrap()]);
    assert_one_line_error(&out, ".streams: http1 carries one request at a time per connection");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("building"), "nothing was built");
    for (args, want) in [
        (&["-m", "10"][..], "-m: http1 carries one request at a time per connection"),
        (&["-c", "0"], "-c: must be at least 1"),
        (&["-d", "0"], "--duration: must be positive"),
        (&["--ramp-up", "1"], "--ramp-up: must be 0 or more, on a scenario that runs a group"),
    ] {
        let out = wirebench(&[&["load", "http://127.0.0.1:1/"][..], args].concat());
        assert_one_line_error(&out, want);
    }
    let out = wirebench(&["load", "ws://127.0.0.1:1/ws", "--driver", "websocket", "-m", "2"]);
    assert_one_line_error(&out, "-m: websocket carries one request at a time");
}

/// A row's transport is its driver's registry label (`h1`, `h2c`, `h3`, `ws`, ...); a suite sets
/// `labels.transport` only to say what the registry cannot know, never to restate it.
#[test]
fn suites_label_a_transport_only_where_the_registry_cannot_know_it() {
    let root = workspace();
    for path in wirebench_core::suite::files(&root.join("suites")).unwrap() {
        let suite = wirebench_core::suite::Suite::load(&path, &root, &wirebench_load::Registry).unwrap();
        for s in &suite.scenarios {
            let registry = wirebench_load::driver_info(&s.driver).unwrap().transport_label(s.tls);
            let label = s.labels.get("transport").map(String::as_str);
            assert_ne!(label, Some(registry), "{}: {} restates its driver's transport", path.display(), s.id);
        }
    }
}

/// `compare --fail-on-flip` exits 4 when a claim confirmed in one run is refuted in the other,
/// and 0 against itself; `--json` says which claim flipped.
#[test]
fn compare_fails_on_a_flipped_verdict_and_says_which() {
    let committed = workspace().join("docs/labs/results/protocols");
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [a.path(), b.path()] {
        for f in ["run.json", "measurements.jsonl"] {
            std::fs::copy(committed.join(f), dir.join(f)).unwrap();
        }
    }
    // B's HTTP/3 HOL row at a tenth of its req/s: "h3 keeps h2's HOL advantage (> 10× h1)"
    // refuted. The HOL rows are set by the endpoint's 50 ms sleep, not by the instrument, so the
    // claim is judged in every committed run.
    let lines = std::fs::read_to_string(b.path().join("measurements.jsonl")).unwrap();
    let faster: Vec<String> = lines
        .lines()
        .map(|l| {
            let mut m: serde_json::Value = serde_json::from_str(l).unwrap();
            if m["scenario"] == "rest-h3-hol" {
                m["metrics"]["rps"] = (m["metrics"]["rps"].as_f64().unwrap() * 0.1).into();
            }
            m.to_string()
        })
        .collect();
    std::fs::write(b.path().join("measurements.jsonl"), faster.join("\n") + "\n").unwrap();
    let (pa, pb) = (a.path().to_str().unwrap(), b.path().to_str().unwrap());
    let same = wirebench(&["compare", pa, pa, "--fail-on-flip"]);
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stderr));
    let out = wirebench(&["compare", pa, pb, "--fail-on-flip", "--json"]);
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let flipped: Vec<&str> = c["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["flip"] == "hard")
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert!(flipped.contains(&"h3-multiplexes-like-h2-on-hol"), "{flipped:?}");
    assert_eq!(c["hard_flips"].as_u64(), Some(flipped.len() as u64));
    let text = wirebench(&["compare", pa, pb]);
    assert_eq!(text.status.code(), Some(0), "without --fail-on-flip a flip is reported, not failed");
    assert!(String::from_utf8_lossy(&text.stdout).contains("h3-multiplexes-like-h2-on-hol: confirmed"));
}

#[test]
fn build_plans_each_step_once_for_what_the_rows_need() {
    let out = wirebench(&["build", "protocols", "smoke", "--dry-run"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let steps: Vec<&str> = text.lines().collect();
    assert_eq!(steps.len(), 2, "one cargo build serves every protocols subject but rumqttd's: {text}");
    assert!(steps[0].starts_with("(cd . && cargo build --release --quiet --locked -p protocols-rust)"), "{text}");
    assert!(steps[1].starts_with("(cd . && cargo build --release --quiet --locked -p protocols-rumqttd)"), "{text}");
    // A profile's skipped rows build nothing: the brief profile leaves the rumqttd rows out.
    let out = wirebench(&["build", "protocols", "--profile", "brief", "--dry-run"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("-p protocols-rust)") && !text.contains("rumqttd)"), "{text}");
    let out = wirebench(&["build", "protocols", "--profile", "breif", "--dry-run"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("unknown profile `breif`") && err.contains("brief"), "{err}");
    let out = wirebench(&["build", "restcache", "--only", "*go-postgres", "--dry-run"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(cd subjects/restcache/go && go build -o bin/restcache-go .)"), "{text}");
    assert!(!text.contains("build.sh") && !text.contains("cargo"), "Java and Rust are not built: {text}");
    let out = wirebench(&["build", "restcache", "--only", "*go-postgres-filled", "--dry-run"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let steps: Vec<&str> = text.lines().collect();
    assert_eq!(steps.len(), 2, "{text}");
    assert!(
        steps[0].contains("cargo build --release --quiet --locked -p restcache-rust)"),
        "restcache-fill first: {text}"
    );
    assert!(steps[1].contains("go build"), "{text}");
    assert_one_line_error(&wirebench(&["build", "nosuch"]), "no suite");
}

/// `report --claims SUITE` judges a committed run by the suite's claims as written now: a claim
/// added to a copy of the suite is judged on the old run's numbers, and says so.
#[test]
fn report_judges_an_old_run_by_todays_claims() {
    let protocols = std::fs::read_to_string(workspace().join("suites/protocols.toml")).unwrap();
    let added = "\n[[claims]]\nid = \"added-today\"\ntext = \"REST over h1 at 1 KB beats REST over h1 at 1 MB\"\npublished = \"a new reading\"\nmetric = \"rps\"\nnumerator = \"rest-h1-1kb\"\ndenominator = \"rest-h1-1mb\"\nop = \">\"\nthreshold = 1.0\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("today.toml");
    std::fs::write(&path, format!("{protocols}{added}")).unwrap();
    let report = |claims: &str| {
        wirebench(&[
            "report",
            "docs/labs/results/protocols",
            "--markdown",
            "--section",
            "claims-section",
            "--claims",
            claims,
        ])
    };
    let out = report(path.to_str().unwrap());
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(md.contains("states them now, judged on this run's measurements"), "{md}");
    let row =
        md.lines().find(|l| l.contains("REST over h1 at 1 KB beats REST over h1 at 1 MB")).expect("the added claim");
    assert!(row.contains("**confirmed**"), "judged on the committed numbers: {row}");
    assert_one_line_error(&report("nosuch"), "no suite `nosuch`");
}

/// A suite of a few lines with two SLOs on our REST subject: p99 under 10 s holds, a billion
/// req/s does not (an SLO on a row where our client set the pace would be *not judged*, which
/// the gate names too). `--fail-on refuted` exits 5 naming the refuted one; without it the run exits
/// 0; a verdict id that does not exist fails before anything runs.
#[test]
fn slo_claims_gate_a_run_with_fail_on() {
    let _turn = one_at_a_time();
    let text = suite_with_subject(
        "",
        r#"
[profiles.quick]
repeats = 3

# 1 MB answers: the server copies each, so the row mostly measures the subject (0.29-0.31 CPU-s
# of a 0.3-s repeat against the client's 0.16-0.26 in ten idle runs, 2-core VM).
[[scenarios]]
id = "get"
subject = "real"
driver = "http1"
path = "/payload/1048576"
connections = 4
duration_s = 0.3

[[claims]]
id = "get-p99-under-10s"
kind = "slo"
text = "GET answers within 10 s at p99"
metric = "p99_us"
numerator = "get"
op = "<"
threshold = 10000000.0

[[claims]]
id = "get-a-billion"
kind = "slo"
text = "GET serves a billion requests per second"
metric = "rps"
numerator = "get"
op = ">"
threshold = 1000000000.0
"#,
    );
    let dir = project("slo", &text);
    let run = |extra: &[&str]| {
        let out = dir.path().join("out");
        Command::new(WIREBENCH)
            .args(["run", "slo", "--no-build", "--profile", "quick", "--out"])
            .arg(&out)
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    let junit = dir.path().join("junit.xml");
    let gated = run(&["--fail-on", "refuted,not-judged", "--junit", junit.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&gated.stderr);
    assert_eq!(gated.status.code(), Some(5), "{stderr}");
    let results = results_dir(&gated.stdout);
    let xml = std::fs::read_to_string(&junit).unwrap();
    let claims = std::fs::read_to_string(results.join("claims.csv")).unwrap();
    // A machine busy on every try of all but one repeat leaves nothing to judge, and a repeat
    // where our client used more CPU than the subject (it uses 0.55–0.85 of the subject's here
    // when idle, and other tests of this file share the CPUs) decides nothing: the gate then
    // fails the run on both claims, not passes it (exit 0 would hide why nothing was judged).
    let last = lines(&results.join("measurements.jsonl"));
    let quiet: Vec<_> = last.iter().filter(|m| m["metrics"]["contended"] != true).collect();
    let bound = quiet.iter().any(|m| m["metrics"]["instrument_bound"] == true);
    if quiet.len() >= 2 && !bound {
        assert!(stderr.contains("--fail-on: 1 claim(s): get-a-billion (refuted)"), "{stderr}");
        assert!(xml.contains("tests=\"2\" failures=\"1\"") && xml.contains("<failure message=\"refuted\"/>"), "{xml}");
        let confirmed = |l: &str| l.starts_with("get-p99-under-10s,slo,") && l.contains(",confirmed,");
        assert!(claims.lines().any(confirmed), "{claims}");
    } else {
        let both = "--fail-on: 2 claim(s): get-p99-under-10s (not judged), get-a-billion (not judged)";
        assert!(stderr.contains(both), "{stderr}");
        assert!(
            xml.contains("tests=\"2\" failures=\"2\"") && xml.contains("<failure message=\"not judged\"/>"),
            "{xml}"
        );
    }
    let summary = std::fs::read_to_string(results.join("summary.md")).unwrap();
    assert!(summary.contains("SLO: below 10.0 s"), "the study's column says what the SLO asks");
    let plain = run(&[]);
    assert_eq!(plain.status.code(), Some(0), "{}", String::from_utf8_lossy(&plain.stderr));
    assert_one_line_error(&run(&["--fail-on", "refuted,wrong"]), "--fail-on: unknown verdict `wrong`: use one of");
}

/// `compare --fail-if slower`: B with one row at 0.7 of A's req/s (every repeat) fails with 6 and
/// names it; A against itself passes, and so does B at 0.97 of A (inside 5 %).
#[test]
fn compare_fails_if_a_row_is_slower_past_the_tolerance_over_its_whole_interval() {
    // The HOL row is paced by the endpoint's 50 ms sleep, so its repeats agree within 1 % in any
    // committed run, and 0.7 of it lies past 5 % over its whole interval; a row the machine's
    // pace moves (rest-h1-1kb: 72k-128k req/s in one run) may not.
    let committed = workspace().join("docs/labs/results/protocols");
    let scaled = |factor: f64| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(committed.join("run.json"), dir.path().join("run.json")).unwrap();
        let lines = std::fs::read_to_string(committed.join("measurements.jsonl")).unwrap();
        let out: Vec<String> = lines
            .lines()
            .map(|l| {
                let mut m: serde_json::Value = serde_json::from_str(l).unwrap();
                if m["scenario"] == "rest-h1-hol" && m["metrics"]["rps"].is_number() {
                    m["metrics"]["rps"] = (m["metrics"]["rps"].as_f64().unwrap() * factor).into();
                }
                m.to_string()
            })
            .collect();
        std::fs::write(dir.path().join("measurements.jsonl"), out.join("\n") + "\n").unwrap();
        dir
    };
    let (a, slow, near) = (scaled(1.0), scaled(0.7), scaled(0.97));
    let path = |d: &tempfile::TempDir| d.path().to_str().unwrap().to_string();
    let compare = |b: &tempfile::TempDir, extra: &[&str]| {
        let mut args = vec!["compare".to_string(), path(&a), path(b), "--fail-if".into(), "slower".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        wirebench(&args)
    };
    let out = compare(&slow, &["--json"]);
    assert_eq!(out.status.code(), Some(6), "{}", String::from_utf8_lossy(&out.stderr));
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let slower: Vec<(&str, &str)> = c["gate"]["slower"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["scenario"].as_str().unwrap(), x["metric"].as_str().unwrap()))
        .collect();
    assert_eq!(slower, [("rest-h1-hol", "rps")]);
    assert_eq!(c["gate"]["tolerance"].as_f64(), Some(0.05));
    assert_eq!(compare(&a, &[]).status.code(), Some(0));
    let near = compare(&near, &["--tolerance", "5%"]);
    assert_eq!(near.status.code(), Some(0), "{}", String::from_utf8_lossy(&near.stdout));
    assert!(
        String::from_utf8_lossy(&near.stdout).contains("Slower by more than 5 % (the whole interval past it): none.")
    );
    assert_one_line_error(&compare(&a, &["--tolerance", "150%"]), "not a share between 0 and 100 %");
}

/// Outside a checkout (no suites/ here), a suite file of URL subjects runs on its own: our REST
/// subject, started by the test, stands for a server of the user's. A built-in suite's name says
/// in one line where the built-in suites are.
#[test]
fn a_url_subject_suite_runs_outside_the_repository() {
    let _turn = one_at_a_time();
    let (server, port) = common::rest_subject();
    let dir = tempfile::tempdir().unwrap();
    let suite = format!(
        "[subjects.api]\nurl = \"http://127.0.0.1:{port}\"\n\n[[scenarios]]\nid = \"small\"\nsubject = \"api\"\n\
         driver = \"http1\"\npath = \"/payload/1024\"\nconnections = 2\nrequests = 200\n\
         expect = {{ status = 200, body_bytes = 1024 }}\n"
    );
    std::fs::write(dir.path().join("api.toml"), suite).unwrap();
    let run = |args: &[&str]| Command::new(WIREBENCH).args(args).current_dir(dir.path()).output().unwrap();
    let out = run(&["run", "api.toml", "--profile", "smoke"]);
    drop(server);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let results = results_dir(&out.stdout);
    assert!(results.starts_with(dir.path().join("results")) || results.is_relative(), "{}", results.display());
    let lines = lines(&dir.path().join(&results).join("measurements.jsonl"));
    let measured = lines.iter().find(|m| m["scenario"] == "small" && m["status"] == "ok" && m["repeat"] == 1);
    assert!(measured.is_some_and(|m| m["metrics"]["requests"].as_u64() > Some(0)), "{lines:?}");
    assert_one_line_error(&run(&["run", "protocols"]), "the built-in suites live in the wirebench repository");
    // The commands that read the suites directory say where it is, and the OS's reason once.
    for cmd in [&["list"][..], &["build", "protocols"]] {
        let out = run(cmd);
        assert_one_line_error(&out, "the built-in suites are in the wirebench repository");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.matches("No such file or directory").count(), 1, "{cmd:?}: {stderr}");
    }
}
