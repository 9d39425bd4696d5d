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
    let (mut subject, port) = rest_subject();
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
    subject.kill().unwrap();
    subject.wait().unwrap();
    assert_eq!(m["requests"], 6001);
    assert_eq!(
        m["bytes_received"].as_u64(),
        Some(each[0]["bytes_received"].as_u64().unwrap() + each[1]["bytes_received"].as_u64().unwrap())
    );
    assert_eq!(m["workers"].as_array().unwrap().len(), 2);
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
    let out = wirebench(&["load", "http://127.0.0.1:1/", "--worker", "2/2", "--out", "/tmp/x"]);
    assert_eq!(out.status.code(), Some(2), "clap refuses a bad share: {}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected I/N"));
    one_line_error(
        &wirebench(&["load", "http://127.0.0.1:1/", "-c", "1", "--worker", "1/2", "--out", "/tmp/x"]),
        "gives this worker no connection",
    );
    one_line_error(&wirebench(&["load", "http://127.0.0.1:1/", "--start-at", "soon"]), "--start-at `soon`");
}
