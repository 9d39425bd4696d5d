//! A worker's record: what one load measured, as `wirebench load --worker i/N --out DIR` writes
//! it (`worker.json`: counters, CPU, its measuring window and host, beside `latency.hlog`, its
//! histograms as an HdrHistogram interval log) and a worker of `wirebench run --workers` posts
//! it; written (`record`, `write_worker`) and read back (`read_worker`, `Worker::parse`).

use std::path::Path;

use anyhow::Context;
use serde_json::json;

use wirebench_core::runner::{saturated, LoadResult};
use wirebench_core::schema::WorkerFacts;
use wirebench_core::share::WorkerShare;
use wirebench_load::hlog;

const RECORD: &str = "worker.json";
const LOG: &str = "latency.hlog";

/// What a worker was asked to do, beside what it measured.
pub struct WorkerMeta<'a> {
    pub share: WorkerShare,
    pub url: &'a str,
    pub driver: &'a str,
    /// Its load threads.
    pub cpus: usize,
}

/// One worker's record as `worker.json` holds it.
#[derive(Debug, Clone)]
pub struct Worker {
    /// Where it came from (a directory, or a worker of `wirebench run --workers`), for errors.
    pub from: String,
    pub share: WorkerShare,
    pub(crate) host: String,
    pub(crate) url: String,
    pub(crate) driver: String,
    pub(crate) requests: u64,
    pub(crate) messages: u64,
    pub(crate) errors: u64,
    pub(crate) bytes_sent: u64,
    pub(crate) bytes_received: u64,
    pub(crate) started_s: f64,
    pub(crate) duration_s: f64,
    pub(crate) cpu_s: f64,
    pub(crate) cpus: usize,
    pub(crate) rate: bool,
    pub(crate) iterations: Option<u64>,
    pub(crate) steps: Vec<(String, u64, u64)>,
    pub(crate) per_tick: Vec<u64>,
    pub(crate) first_error: Option<String>,
    /// Its histograms by tag, read once from `latency.hlog`.
    pub(crate) histograms: Vec<(String, hlog::Histogram<u64>)>,
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map_or_else(|_| "unknown".into(), |h| h.trim().to_string())
}

/// `r` as worker `meta.share`'s record: `worker.json`'s text, and the histograms' log.
pub fn record(meta: &WorkerMeta, r: &LoadResult, cpu_s: f64) -> anyhow::Result<(serde_json::Value, String)> {
    let started = r.started.context("the load recorded no start time")?;
    let record = json!({
        "schema_version": 1,
        "worker": meta.share.to_string(),
        "host": host(),
        "url": meta.url,
        "driver": meta.driver,
        "requests": r.requests, "messages": r.messages, "errors": r.errors,
        "bytes_sent": r.bytes_sent, "bytes_received": r.bytes_received,
        "started_s": hlog::epoch_s(started),
        "duration_s": r.duration.as_secs_f64(),
        "cpu_s": cpu_s,
        "cpus": meta.cpus,
        "open_model": r.latency_uncorrected.is_some(),
        "iterations": r.iterations,
        "steps": r.steps.iter().map(|s| json!({"label": s.label, "requests": s.requests, "errors": s.errors})).collect::<Vec<_>>(),
        "first_error": r.first_error,
        "per_tick": r.per_tick,
    });
    let log = r.latency_log.clone().context("the load kept no histograms")?;
    Ok((record, log))
}

/// Writes `r` as worker `meta.share`'s record into `dir` (made if missing).
pub fn write_worker(dir: &Path, meta: &WorkerMeta, r: &LoadResult, cpu_s: f64) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let (record, log) = record(meta, r, cpu_s)?;
    let path = dir.join(RECORD);
    std::fs::write(&path, serde_json::to_string_pretty(&record)? + "\n")
        .with_context(|| format!("cannot write {}", path.display()))?;
    let path = dir.join(LOG);
    std::fs::write(&path, log).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The record `write_worker` wrote into `dir`.
pub fn read_worker(dir: &Path) -> anyhow::Result<Worker> {
    let path = dir.join(RECORD);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!("{}: not a worker's record (wirebench load --worker i/N --out DIR writes one)", path.display())
    })?;
    let v: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{}", path.display()))?;
    let log_path = dir.join(LOG);
    let log = std::fs::read_to_string(&log_path).with_context(|| format!("cannot read {}", log_path.display()))?;
    Worker::parse(&dir.display().to_string(), &v, &log)
}

impl Worker {
    /// A worker's record and histogram log, from `from` (named in errors).
    pub fn parse(from: &str, v: &serde_json::Value, log: &str) -> anyhow::Result<Worker> {
        let field = |k: &str| v.get(k).with_context(|| format!("{from}: its record has no `{k}`"));
        let num = |k: &str| -> anyhow::Result<f64> {
            field(k)?.as_f64().with_context(|| format!("{from}: `{k}` is not a number"))
        };
        let count = |k: &str| -> anyhow::Result<u64> {
            field(k)?.as_u64().with_context(|| format!("{from}: `{k}` is not a count"))
        };
        let text_of = |k: &str| -> anyhow::Result<String> {
            Ok(field(k)?.as_str().with_context(|| format!("{from}: `{k}` is not text"))?.to_string())
        };
        let share: WorkerShare =
            text_of("worker")?.parse().map_err(|e: String| anyhow::anyhow!("{from}: worker {e}"))?;
        let steps = v["steps"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| {
                        (
                            s["label"].as_str().unwrap_or("").to_string(),
                            s["requests"].as_u64().unwrap_or(0),
                            s["errors"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let histograms = hlog::read(log).map_err(|e| anyhow::anyhow!("{from}: its histograms: {e}"))?;
        Ok(Worker {
            from: from.to_string(),
            share,
            host: text_of("host")?,
            url: text_of("url")?,
            driver: text_of("driver")?,
            requests: count("requests")?,
            messages: count("messages")?,
            errors: count("errors")?,
            bytes_sent: count("bytes_sent")?,
            bytes_received: count("bytes_received")?,
            started_s: num("started_s")?,
            duration_s: num("duration_s")?,
            cpu_s: num("cpu_s")?,
            // Records written before workers named their CPUs: one.
            cpus: v["cpus"].as_u64().unwrap_or(1) as usize,
            rate: v["open_model"].as_bool().unwrap_or(false),
            iterations: v["iterations"].as_u64(),
            steps,
            per_tick: v["per_tick"]
                .as_array()
                .map(|a| a.iter().filter_map(serde_json::Value::as_u64).collect())
                .unwrap_or_default(),
            first_error: v["first_error"].as_str().map(String::from),
            histograms,
        })
    }

    /// What the run's row keeps of this worker.
    pub(crate) fn facts(&self) -> WorkerFacts {
        WorkerFacts {
            worker: self.share.to_string(),
            host: self.host.clone(),
            requests: self.requests,
            errors: self.errors,
            rps: self.requests as f64 / self.duration_s.max(1e-9),
            p99_us: hlog::tagged(&self.histograms, "latency").map(|h| h.value_at_quantile(0.99)),
            cpu_s: self.cpu_s,
            cpus: self.cpus as u32,
            bound: saturated(self.cpu_s, self.cpus, self.duration_s),
            started_s: self.started_s,
            duration_s: self.duration_s,
        }
    }
}
