//! The REST service study end to end, as `make test` runs it: `wirebench run restcache --profile
//! smoke` of the mixed group G4 (G1 to G3's steps in turn, each verified before timing) on every
//! implementation (Go, Java on Jetty and on Tomcat, Rust) and store (SQLite in the run's directory,
//! PostgreSQL started as a service), empty and pre-filled. The contract itself: subjects/restcache/contract. Needs
//! `make build`.

mod common;

#[test]
fn restcache_smoke_runs_the_mixed_thread_group_on_every_implementation_and_store() {
    common::assert_built(&[
        "target/release/restcache-rust",
        "subjects/restcache/go/bin/restcache-go",
        "subjects/restcache/java/target/restcache-jetty.jar",
        "subjects/restcache/java/target/restcache-tomcat.jar",
    ]);
    let (_results, html, rows) = common::run_smoke_only("restcache", "g4-u100-*");
    let mut subjects: Vec<&str> = rows.iter().map(|r| r["subject"].as_str().unwrap()).collect();
    subjects.sort();
    let mut expected = vec![];
    for implementation in ["go", "jetty", "rust", "tomcat"] {
        for store in ["postgres", "sqlite"] {
            expected.push(format!("restcache-{implementation}-{store}"));
            expected.push(format!("restcache-{implementation}-{store}-filled"));
        }
    }
    assert_eq!(subjects, expected, "one row per implementation and store, empty and pre-filled");
    for r in &rows {
        let id = r["scenario"].as_str().unwrap();
        let m = &r["metrics"];
        assert!(m["iterations"].as_u64().unwrap() > 0 && m["iterations_per_s"].as_f64().unwrap() > 0.0, "{id}");
        assert_eq!(m["errors"], 0, "{id}");
        let steps = m["steps"].as_array().unwrap();
        let labels: Vec<&str> = steps.iter().map(|s| s["label"].as_str().unwrap()).collect();
        assert_eq!(labels.len(), 14, "{id}: G1's five steps, G2's four, G3's five: {labels:?}");
        assert!(labels.contains(&"g3: create") && labels.contains(&"g1: list"), "{id}: {labels:?}");
        let total: u64 = steps.iter().map(|s| s["requests"].as_u64().unwrap()).sum();
        assert_eq!(total, m["requests"].as_u64().unwrap(), "{id}: the steps add up to the row");
        assert!(steps.iter().all(|s| s["requests"].as_u64().unwrap() > 0), "{id}: every step ran");
        // PostgreSQL's processes are charged to its rows, apart from the service's own.
        let postgres = r["params"]["store"] == "postgres";
        assert_eq!(m["service_cpu_s"].is_number(), postgres, "{id}");
        assert!(m["rss_kb"].as_u64().unwrap() > 0, "{id}");
    }
    let run_dir = html.parent().unwrap();
    assert!(run_dir.join("subject-restcache-go-sqlite/restcache.db").exists(), "SQLite files live in the run");
    // The pre-filled SQLite store holds the study's state at smoke scale (40 keys, 400 items)
    // beside what the load added; the empty one only what the load added.
    let count = |subject: &str, table: &str| -> i64 {
        let db = run_dir.join(format!("subject-{subject}/restcache.db"));
        let out = std::process::Command::new("python3")
            .args(["-c", &format!("import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from {table}').fetchone()[0])")])
            .arg(&db)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)))
    };
    assert!(count("restcache-go-sqlite-filled", "cache") >= 400, "pre-filled");
    assert!(count("restcache-go-sqlite", "cache") < 400, "empty before the load, and G3 deletes what it creates");
    assert!(run_dir.join("service-postgres/data/PG_VERSION").exists(), "PostgreSQL's cluster lives in the run");
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.contains("g3: create"), "the report shows each step");
}

/// Every descendant of `pid` (children by /proc/<pid>/task/*/children, recursively).
fn descendants(pid: u32) -> Vec<u32> {
    let mut out = vec![];
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let tasks = std::fs::read_dir(format!("/proc/{p}/task")).into_iter().flatten().flatten();
        for task in tasks {
            let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
            for c in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                out.push(c);
                todo.push(c);
            }
        }
    }
    out
}

fn alive(pid: u32) -> bool {
    // A zombie has no memory left; only a running process counts.
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|s| !s.contains("State:\tZ"))
}

/// A run of a PostgreSQL row, SIGKILLed mid-load after its first repeat was written: the
/// service's server and its backends, and the service, all end with the runner; the written
/// line stays whole.
#[test]
fn sigkill_mid_load_leaves_no_database_or_service_and_keeps_written_lines() {
    common::assert_built(&["subjects/restcache/go/bin/restcache-go"]);
    let out = tempfile::tempdir().unwrap();
    let mut runner = std::process::Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(["run", "restcache", "--no-build", "--profile", "quick", "--only", "g3-u100-go-postgres", "--out"])
        .arg(out.path())
        .current_dir(common::workspace())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let written = || {
        let runs = std::fs::read_dir(out.path()).into_iter().flatten().flatten();
        runs.filter_map(|d| std::fs::read_to_string(d.path().join("measurements.jsonl")).ok()).next()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while written().is_none_or(|w| w.is_empty()) {
        assert!(std::time::Instant::now() < deadline, "no repeat was written within 120 s");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let family = descendants(runner.id());
    assert!(family.len() >= 3, "the runner has PostgreSQL (with its processes) and the service under it: {family:?}");
    runner.kill().unwrap(); // SIGKILL
    runner.wait().unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while family.iter().any(|&p| alive(p)) {
        let left: Vec<u32> = family.iter().copied().filter(|&p| alive(p)).collect();
        assert!(std::time::Instant::now() < deadline, "processes outlived the SIGKILLed runner: {left:?}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let lines = written().unwrap();
    let first: serde_json::Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert_eq!((first["scenario"].as_str(), first["status"].as_str()), (Some("g3-u100-go-postgres"), Some("ok")));
}

/// `wirebench load --group` runs a suite's thread group at a service the user started, and
/// `wirebench list --data` prints the rows that group reads (for JMeter's CSV Data Set).
#[test]
fn load_runs_a_suites_thread_group_and_list_prints_its_data() {
    common::assert_built(&["target/release/restcache-rust"]);
    let wirebench = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_wirebench"))
            .args(args)
            .current_dir(common::workspace())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let store = format!("sqlite:{}/restcache.db", dir.path().display());
    let service = common::Server::spawn(
        std::process::Command::new(common::workspace().join("target/release/restcache-rust"))
            .args(["--port", &port.to_string(), "--store", &store])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    common::wait_for("restcache-rust to listen", 30, || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    let base = format!("http://127.0.0.1:{port}");
    let out = wirebench(&["load", &base, "--suite", "restcache", "--group", "g3", "-n", "40", "-c", "4", "--json"]);
    let wrong_path = wirebench(&["load", &format!("{base}/api/"), "--suite", "restcache", "--group", "g3"]);
    drop(service);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // -n counts iterations; each is five verified steps.
    assert_eq!(
        (r["iterations"].as_u64(), r["requests"].as_u64(), r["errors"].as_u64()),
        (Some(40), Some(200), Some(0))
    );
    let steps: Vec<(&str, u64, u64)> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["label"].as_str().unwrap(), s["requests"].as_u64().unwrap(), s["errors"].as_u64().unwrap()))
        .collect();
    assert_eq!(steps, [("new key", 40, 0), ("create", 40, 0), ("get", 40, 0), ("update", 40, 0), ("delete", 40, 0)]);
    assert!(!wrong_path.status.success());
    assert!(String::from_utf8_lossy(&wrong_path.stderr)
        .contains("the URL's path: a scenario that runs a group takes its requests from the group's steps"));

    let data = wirebench(&["list", "restcache", "--data", "g3"]);
    assert!(data.status.success(), "{}", String::from_utf8_lossy(&data.stderr));
    let text = String::from_utf8(data.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("key,new_value,value"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 100_000);
    assert!(rows.iter().all(|r| r.len() == 16 + 1 + 32 + 1 + 32), "16-, 32- and 32-character hex columns");
    assert_eq!(wirebench(&["list", "restcache", "--data", "g3"]).stdout, text.as_bytes(), "the same rows every time");
    let none = wirebench(&["list", "restcache", "--data", "g1"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("thread group `g1` has no data set"));
}
