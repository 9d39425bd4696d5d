//! Load from several workers, added up: two `wirebench load --worker i/2` processes started
//! apart and measuring together against the REST subject, then `wirebench merge`. Needs the
//! release subject (`make build`).

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

use wirebench_load::hlog;

mod common;

use common::{json, rest_subject, wirebench};

const WIREBENCH: &str = env!("CARGO_BIN_EXE_wirebench");

fn one_line_error(out: &Output, want: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains(want), "{stderr}");
}

#[test]
fn two_workers_merge_into_one_load_of_every_sample() {
    let _turn = one_at_a_time();
    let (subject, port) = rest_subject();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{port}/payload/1024");
    let outs: Vec<PathBuf> = (0..2).map(|i| dir.path().join(format!("w{i}"))).collect();
    // Started apart, both wait for the same instant: 3 of the 5 connections and 3,001 of the
    // 6,001 requests go to worker 0.
    let start_at = format!(
        "{:.3}",
        (std::time::SystemTime::now() + std::time::Duration::from_secs(3))
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    );
    let workers: Vec<Child> = outs
        .iter()
        .enumerate()
        .map(|(i, out)| {
            Command::new(WIREBENCH)
                .args(["load", &url, "-c", "5", "-n", "6001", "--threads", "1", "--expect-bytes", "1024", "--json"])
                .args(["--worker", &format!("{i}/2"), "--start-at", &start_at, "--out"])
                .arg(out)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let each: Vec<serde_json::Value> = workers.into_iter().map(|w| json(&w.wait_with_output().unwrap())).collect();
    assert_eq!((each[0]["requests"].as_u64(), each[1]["requests"].as_u64()), (Some(3001), Some(3000)));
    assert_eq!(each[0]["errors"], 0);

    let merged_dir = dir.path().join("merged");
    let m = json(&wirebench(&[
        "merge",
        outs[0].to_str().unwrap(),
        outs[1].to_str().unwrap(),
        "--json",
        "--out",
        merged_dir.to_str().unwrap(),
    ]));
    drop(subject);
    assert_eq!(m["requests"], 6001);
    assert_eq!(
        m["bytes_received"].as_u64(),
        Some(each[0]["bytes_received"].as_u64().unwrap() + each[1]["bytes_received"].as_u64().unwrap())
    );
    assert_eq!(m["workers"].as_array().unwrap().len(), 2);
    // Each worker's line names the directory it was read from, in worker order.
    let dirs: Vec<&str> = m["workers"].as_array().unwrap().iter().map(|w| w["dir"].as_str().unwrap()).collect();
    assert_eq!(dirs, [outs[0].to_str().unwrap(), outs[1].to_str().unwrap()]);
    assert!(m["skew_ms"].as_f64().unwrap() < 1000.0 && m["overlap_s"].as_f64().unwrap() > 0.0, "{m}");
    // The merged percentiles are those of every sample: each worker's histogram, added.
    let logs: Vec<String> = outs.iter().map(|o| std::fs::read_to_string(o.join("latency.hlog")).unwrap()).collect();
    let all = hlog::merge(logs.iter().map(String::as_str)).unwrap();
    let h = hlog::tagged(&all, "latency").unwrap();
    assert_eq!(h.len(), 6001, "every request's latency recorded once");
    for (key, q) in [("p50", 0.5), ("p99", 0.99), ("p999", 0.999)] {
        assert_eq!(m["latency_us"][key].as_u64(), Some(h.value_at_quantile(q)), "{key}");
    }
    assert_eq!(m["latency_us"]["max"].as_u64(), Some(h.max()));
    // The merged record is one a further merge reads.
    let again = hlog::read(&std::fs::read_to_string(merged_dir.join("latency.hlog")).unwrap()).unwrap();
    assert_eq!(hlog::tagged(&again, "latency").unwrap().len(), 6001);
    assert!(merged_dir.join("worker.json").exists());

    // What cannot be merged is one line.
    one_line_error(&wirebench(&["merge", outs[0].to_str().unwrap()]), "worker 1/2 missing");
    one_line_error(&wirebench(&["merge", outs[0].to_str().unwrap(), outs[0].to_str().unwrap()]), "are both worker 0/2");
    one_line_error(&wirebench(&["merge", dir.path().to_str().unwrap()]), "not a worker's record");
}

#[test]
fn worker_settings_are_checked_before_any_load() {
    // Its processes would be foreign work beside another test's measured run.
    let _turn = one_at_a_time();
    let out = wirebench(&["load", "http://127.0.0.1:1/", "--worker", "2/2", "--out", "/tmp/x"]);
    assert_eq!(out.status.code(), Some(2), "clap refuses a bad share: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected I/N"));
    one_line_error(
        &wirebench(&["load", "http://127.0.0.1:1/", "-c", "1", "--worker", "1/2", "--out", "/tmp/x"]),
        "gives this worker no connection",
    );
    one_line_error(&wirebench(&["load", "http://127.0.0.1:1/", "--start-at", "soon"]), "--start-at `soon`");
}

/// A port nothing listens on now, for a coordinator.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `wirebench run SUITE --only ONLY --profile smoke`, its load sent by `workers` `wirebench worker`
/// processes (none: by the run itself): every row, and the workers' outputs.
/// The tests that run suites run one at a time: a run beside another is foreign work to its
/// sensing (a remeasured row has one line more than its twin run alone).
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn run_rows(suite: &str, only: &str, workers: u32) -> (Vec<serde_json::Value>, String, Vec<Output>) {
    let out_base = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    let coordinator = format!("http://127.0.0.1:{port}");
    // Started first, they keep asking until the run serves them; on the CPUs the run leaves to
    // the load (its default split gives the subject the first half).
    let cpus = wirebench_core::machine::cpu_sets(None).unwrap().load;
    let cpus = if cpus.is_empty() { "0".to_string() } else { format!("{}-{}", cpus[0], cpus[cpus.len() - 1]) };
    let spawned: Vec<Child> = (0..workers)
        .map(|i| {
            Command::new("taskset")
                .args([
                    "-c",
                    &cpus,
                    WIREBENCH,
                    "worker",
                    "--coordinator",
                    &coordinator,
                    "--worker",
                    &format!("{i}/{workers}"),
                    "--threads",
                    "1",
                ])
                .current_dir(common::workspace())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut cmd = Command::new(WIREBENCH);
    cmd.args(["run", suite, "--profile", "smoke", "--no-build", "--only", only, "--out"]).arg(out_base.path());
    if workers > 0 {
        cmd.args(["--workers", &workers.to_string(), "--listen", &format!("127.0.0.1:{port}")]);
    }
    let out = cmd.current_dir(common::workspace()).stdin(Stdio::null()).output().unwrap();
    let outputs: Vec<Output> = spawned.into_iter().map(|w| w.wait_with_output().unwrap()).collect();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let html = PathBuf::from(String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or_default());
    let dir = html.parent().unwrap();
    let rows = std::fs::read_to_string(dir.join("measurements.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let workers_csv = std::fs::read_to_string(dir.join("workers.csv")).unwrap_or_default();
    (rows, workers_csv, outputs)
}

#[test]
fn a_suite_run_by_two_workers_is_their_loads_added_up() {
    let _turn = one_at_a_time();
    let (rows, csv, workers) = run_rows("smoke", "rest-h1-*", 2);
    let (alone, _, _) = run_rows("smoke", "rest-h1-*", 0);
    for w in &workers {
        let stderr = String::from_utf8_lossy(&w.stderr);
        assert!(w.status.success() && stderr.contains("the run is over"), "{stderr}");
    }
    // A repeat that foreign work contended is written flagged and measured again (the runner's
    // REMEASURES), so either run may have a line more: pair each row's last try. Counting lines
    // failed one run of this file in four on a 2-core VM (7 lines alone against 6), while its
    // tests without the lock started processes beside the measured runs; they take it now.
    let (tries, rows, alone) = (rows.len(), common::last_tries(&rows), common::last_tries(&alone));
    assert!(rows.len() >= 5, "every rest-h1-* row of the smoke suite: {}", rows.len());
    let ids = |rows: &[serde_json::Value]| {
        let mut ids: Vec<String> = rows.iter().map(|r| format!("{}#{}", r["scenario"], r["repeat"])).collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(&rows), ids(&alone), "the same rows both ways, each run in an order of its own");
    // A row is paired with the same row of the other.
    for row in &rows {
        let id = &row["scenario"];
        assert_eq!(row["status"], "ok", "{id}: {}", row["error"]);
        let one = alone.iter().find(|one| &one["scenario"] == id).unwrap_or_else(|| panic!("{id} ran alone too"));
        let m = &row["metrics"];
        let shares = m["workers"].as_array().unwrap_or_else(|| panic!("{id}: no workers"));
        let names: Vec<&str> = shares.iter().map(|w| w["worker"].as_str().unwrap()).collect();
        assert_eq!(names, ["0/2", "1/2"], "{id}");
        let sum = |k: &str| shares.iter().map(|w| w[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(m["requests"].as_u64(), Some(sum("requests")), "{id}: the row is its workers' sum");
        // The same total load as one process sends: the same requests, answered byte for byte
        // (over TLS a handshake's ECDSA signature varies by a few bytes).
        assert_eq!(m["requests"], one["metrics"]["requests"], "{id}");
        if row["params"]["tls"] == false {
            assert_eq!(m["bytes_received"], one["metrics"]["bytes_received"], "{id}");
        }
        let cpu: f64 = shares.iter().map(|w| w["cpu_s"].as_f64().unwrap()).sum();
        assert!((m["instrument_cpu_s"].as_f64().unwrap() - cpu).abs() < 1e-9, "{id}: the workers' CPU");
        assert!(one["metrics"].get("workers").is_none(), "{id}: one process has no workers");
    }
    // The report's table: a line per worker of each row's every try.
    assert_eq!(csv.lines().count(), 1 + 2 * tries, "{csv}");
}

#[test]
fn thread_groups_split_their_users_over_workers() {
    let _turn = one_at_a_time();
    let (rows, _, _) = run_rows("restcache", "g3-u100-rust-sqlite", 2);
    let m = &rows[0]["metrics"];
    assert_eq!(rows[0]["status"], "ok", "{}", rows[0]["error"]);
    let shares = m["workers"].as_array().unwrap();
    assert_eq!(shares.len(), 2);
    let steps = m["steps"].as_array().unwrap();
    let step_requests: u64 = steps.iter().map(|s| s["requests"].as_u64().unwrap()).sum();
    let worker_requests: u64 = shares.iter().map(|w| w["requests"].as_u64().unwrap()).sum();
    assert_eq!(step_requests, worker_requests, "every step's samples come from the workers");
    assert!(m["iterations"].as_u64().unwrap() > 0);
}

#[test]
fn a_worker_that_cannot_take_part_says_why_in_one_line() {
    let _turn = one_at_a_time();
    let out = wirebench(&["worker", "--coordinator", "ftp://127.0.0.1:1", "--worker", "0/1"]);
    one_line_error(&out, "expected http://HOST:PORT");
    let unreachable = format!("http://127.0.0.1:{}", free_port());
    let out = wirebench(&["worker", "--coordinator", &unreachable, "--worker", "0/1", "--connect-timeout", "0.5"]);
    one_line_error(&out, &unreachable);
    let out = wirebench(&["run", "smoke", "--workers", "2", "--worker-timeout", "5", "--no-build"]);
    one_line_error(&out, "--worker-timeout must be 15 seconds or more");
}

#[test]
fn a_row_of_fewer_connections_than_workers_is_loaded_by_the_first_ones() {
    let _turn = one_at_a_time();
    // rest-h1-1mb has 2 connections: of 3 workers, 0 and 1 load it and 2 waits for the end.
    let (rows, _, workers) = run_rows("smoke", "rest-h1-1mb", 3);
    assert_eq!(rows.len(), 1);
    let m = &rows[0]["metrics"];
    assert_eq!(rows[0]["status"], "ok", "{}", rows[0]["error"]);
    let names: Vec<&str> = m["workers"].as_array().unwrap().iter().map(|w| w["worker"].as_str().unwrap()).collect();
    assert_eq!(names, ["0/3", "1/3"], "named as started");
    assert!(workers.iter().all(|w| w.status.success()), "the idle worker ends with the run too");
}

/// A URL subject loaded by two workers: the coordinator hands them the URL's target as it is
/// (our REST subject, started by the test, stands for a server of the user's).
#[test]
fn a_url_subject_is_loaded_by_workers_as_by_one_process() {
    let _turn = one_at_a_time();
    let (server, port) = common::rest_subject();
    let suite = tempfile::tempdir().unwrap();
    let file = suite.path().join("api.toml");
    std::fs::write(
        &file,
        format!(
            "[subjects.api]\nurl = \"http://127.0.0.1:{port}\"\n\n[[scenarios]]\nid = \"api-get\"\nsubject = \"api\"\n\
             driver = \"http1\"\npath = \"/payload/1024\"\nconnections = 4\nrequests = 400\n\
             expect = {{ status = 200, body_bytes = 1024 }}\n"
        ),
    )
    .unwrap();
    let (rows, _, workers) = run_rows(file.to_str().unwrap(), "api-get", 2);
    drop(server);
    for w in &workers {
        assert!(w.status.success(), "{}", String::from_utf8_lossy(&w.stderr));
    }
    let row = rows.iter().find(|r| r["scenario"] == "api-get" && r["repeat"] == 1).expect("a measured repeat");
    assert_eq!(row["status"], "ok", "{}", row["error"]);
    let shares = row["metrics"]["workers"].as_array().unwrap();
    let sum: u64 = shares.iter().map(|w| w["requests"].as_u64().unwrap()).sum();
    assert_eq!((shares.len(), row["metrics"]["requests"].as_u64()), (2, Some(sum)));
    assert!(sum > 0 && shares.iter().all(|w| w["requests"].as_u64() > Some(0)), "both workers loaded it: {shares:?}");
}
