//! Loads measured apart, added up: `wirebench load --worker i/N --out DIR` writes a worker's
//! record (`worker.json`: counters, CPU, its measuring window and host) beside its histograms
//! (`latency.hlog`, an HdrHistogram interval log); `wirebench merge DIR…` adds the histograms
//! exactly (the merged p99 is the p99 of every sample), sums the counters, keeps each worker's
//! CPU and window, checks that the windows overlap and flags workers that started apart.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use anyhow::{bail, Context};
use serde_json::json;

use crate::cli::MergeArgs;
use wirebench_core::runner::{saturated, LoadResult};
use wirebench_core::schema::{Latency, StepMetrics, WorkerFacts};
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
    host: String,
    url: String,
    driver: String,
    requests: u64,
    messages: u64,
    errors: u64,
    bytes_sent: u64,
    bytes_received: u64,
    started_s: f64,
    duration_s: f64,
    cpu_s: f64,
    cpus: usize,
    rate: bool,
    iterations: Option<u64>,
    steps: Vec<(String, u64, u64)>,
    per_tick: Vec<u64>,
    first_error: Option<String>,
    /// Its histograms by tag, read once from `latency.hlog`.
    histograms: Vec<(String, hlog::Histogram<u64>)>,
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

fn read_worker(dir: &Path) -> anyhow::Result<Worker> {
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

    fn facts(&self) -> WorkerFacts {
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

/// The workers' windows against each other: how far apart they started, and how long all of
/// them were measuring at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Windows {
    pub skew_s: f64,
    pub overlap_s: f64,
    /// From the first start to the last end: the merged load's duration.
    pub span_s: f64,
}

fn windows(workers: &[Worker]) -> Windows {
    let first = workers.iter().map(|w| w.started_s).fold(f64::INFINITY, f64::min);
    let last = workers.iter().map(|w| w.started_s).fold(f64::NEG_INFINITY, f64::max);
    let ends = workers.iter().map(|w| w.started_s + w.duration_s);
    let (earliest_end, latest_end) =
        ends.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| (lo.min(e), hi.max(e)));
    Windows { skew_s: last - first, overlap_s: earliest_end - last, span_s: latest_end - first }
}

/// The workers' load as one: counters summed, histograms added, each worker's facts kept.
fn merged(workers: &[Worker], w: &Windows) -> anyhow::Result<LoadResult> {
    let span = Duration::from_secs_f64(w.span_s);
    let histograms = hlog::sum(workers.iter().map(|w| w.histograms.as_slice())).map_err(|e| anyhow::anyhow!(e))?;
    let summary = |tag: &str| hlog::tagged(&histograms, tag).map(wirebench_load::worker::latency);
    let steps = workers[0]
        .steps
        .iter()
        .enumerate()
        .map(|(i, (label, _, _))| StepMetrics {
            label: label.clone(),
            requests: workers.iter().filter_map(|w| w.steps.get(i)).map(|s| s.1).sum(),
            errors: workers.iter().filter_map(|w| w.steps.get(i)).map(|s| s.2).sum(),
            latency_us: hlog::step(&histograms, i).map(wirebench_load::worker::latency).unwrap_or_default(),
        })
        .collect();
    let started =
        UNIX_EPOCH + Duration::from_secs_f64(workers.iter().map(|w| w.started_s).fold(f64::INFINITY, f64::min));
    Ok(LoadResult {
        requests: workers.iter().map(|w| w.requests).sum(),
        messages: workers.iter().map(|w| w.messages).sum(),
        errors: workers.iter().map(|w| w.errors).sum(),
        duration: span,
        bytes_sent: workers.iter().map(|w| w.bytes_sent).sum(),
        bytes_received: workers.iter().map(|w| w.bytes_received).sum(),
        latency: summary("latency").unwrap_or_else(Latency::default),
        first_message: summary("first"),
        first_error: workers.iter().find_map(|w| w.first_error.clone()),
        latency_uncorrected: if workers[0].rate { summary("uncorrected") } else { None },
        iterations: workers.iter().map(|w| w.iterations).sum(),
        steps,
        started: Some(started),
        latency_log: Some(
            hlog::write_tagged(histograms.iter().map(|(t, h)| (t.clone(), h)), started, span)
                .map_err(|e| anyhow::anyhow!(e))?,
        ),
        remote_cpu_s: Some(workers.iter().map(|w| w.cpu_s).sum()),
        workers: workers.iter().map(Worker::facts).collect(),
        worker_skew_ms: Some(w.skew_s * 1e3),
        // Tick by tick from each worker's own start: they started within milliseconds.
        per_tick: workers.iter().fold(Vec::new(), |mut all, w| {
            wirebench_load::worker::add_ticks(&mut all, &w.per_tick);
            all
        }),
    })
}

/// Checks that `workers` are every worker of one load, once each, and adds them up; the
/// windows say how well they measured at once.
pub fn combine(mut workers: Vec<Worker>) -> anyhow::Result<(LoadResult, Windows)> {
    let Some(first) = workers.first() else { bail!("no worker to merge") };
    let count = first.share.count;
    workers.sort_by_key(|w| w.share.index);
    let mut seen = vec![None; count as usize];
    for w in &workers {
        if w.share.count != count {
            bail!(
                "{} is worker {} but {} is of {count}: the loads were split differently",
                w.from,
                w.share,
                workers[0].from
            );
        }
        if let Some(other) = seen[w.share.index as usize].replace(&w.from) {
            bail!("{other} and {} are both worker {}", w.from, w.share);
        }
        if (w.url.as_str(), w.driver.as_str()) != (workers[0].url.as_str(), workers[0].driver.as_str()) {
            bail!(
                "{} loaded {} ({}), {} loaded {} ({})",
                w.from,
                w.url,
                w.driver,
                workers[0].from,
                workers[0].url,
                workers[0].driver
            );
        }
    }
    let missing: Vec<String> =
        seen.iter().enumerate().filter(|(_, d)| d.is_none()).map(|(i, _)| format!("{i}/{count}")).collect();
    if !missing.is_empty() {
        bail!("worker {} missing: merge every worker's directory", missing.join(", "));
    }
    let w = windows(&workers);
    Ok((merged(&workers, &w)?, w))
}

pub fn merge(args: &MergeArgs) -> anyhow::Result<()> {
    let workers: Vec<Worker> = args.dirs.iter().map(|d| read_worker(d)).collect::<anyhow::Result<_>>()?;
    let (url, driver) = (workers[0].url.clone(), workers[0].driver.clone());
    // Which directory each worker was read from, for the JSON's per-worker lines.
    let dirs: Vec<(String, String)> = workers.iter().map(|w| (w.share.to_string(), w.from.clone())).collect();
    let (r, w) = combine(workers)?;
    if w.overlap_s <= 0.0 {
        bail!("the workers' measuring windows do not overlap (they started {:.3} s apart): start them together with --start-at", w.skew_s);
    }
    let skewed = w.skew_s * 1e3 > args.max_skew_ms;
    let cpu_s = r.remote_cpu_s.unwrap_or(0.0);
    if let Some(dir) = &args.out {
        let meta = WorkerMeta {
            share: WorkerShare { index: 0, count: 1 },
            url: &url,
            driver: &driver,
            cpus: r.workers.iter().map(|w| w.cpus as usize).sum(),
        };
        write_worker(dir, &meta, &r, cpu_s)?;
    }
    if !args.json {
        println!(
            "{} workers: started {:.1} ms apart, all measuring for {:.3} s of {:.3} s",
            r.workers.len(),
            w.skew_s * 1e3,
            w.overlap_s,
            w.span_s
        );
        if skewed {
            println!("skewed: the workers started more than {} ms apart (--max-skew-ms); the merged rate is over the whole span", args.max_skew_ms);
        }
        for f in &r.workers {
            println!(
                "  worker {:<5} {:<16} requests {:<9} {:>9.0} req/s  p99 {:>8} µs  instrument CPU {:.3} s{}",
                f.worker,
                f.host,
                f.requests,
                f.rps,
                f.p99_us.map_or("-".into(), |v| v.to_string()),
                f.cpu_s,
                if f.bound { "  (saturated)" } else { "" }
            );
        }
    }
    let mut extra = serde_json::Map::new();
    let workers: Vec<serde_json::Value> = r
        .workers
        .iter()
        .map(|f| {
            let mut v = serde_json::to_value(f)?;
            if let Some((_, dir)) = dirs.iter().find(|(name, _)| *name == f.worker) {
                v["dir"] = dir.clone().into();
            }
            Ok(v)
        })
        .collect::<serde_json::Result<_>>()?;
    extra.insert("workers".into(), workers.into());
    extra.insert("skew_ms".into(), (w.skew_s * 1e3).into());
    extra.insert("overlap_s".into(), w.overlap_s.into());
    extra.insert("skewed".into(), skewed.into());
    crate::load::print(&r, cpu_s, None, args.json, extra);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(index: u32, started_s: f64, duration_s: f64) -> Worker {
        Worker {
            from: format!("w{index}"),
            share: WorkerShare { index, count: 2 },
            host: "h".into(),
            url: "http://127.0.0.1:1/".into(),
            driver: "http1".into(),
            requests: 0,
            messages: 0,
            errors: 0,
            bytes_sent: 0,
            bytes_received: 0,
            started_s,
            duration_s,
            cpu_s: 0.0,
            cpus: 1,
            rate: false,
            iterations: None,
            steps: vec![],
            per_tick: vec![],
            first_error: None,
            histograms: vec![],
        }
    }

    #[test]
    fn windows_measure_skew_overlap_and_span() {
        let w = windows(&[worker(0, 100.0, 10.0), worker(1, 100.25, 10.0)]);
        assert!(
            (w.skew_s - 0.25).abs() < 1e-9 && (w.overlap_s - 9.75).abs() < 1e-9 && (w.span_s - 10.25).abs() < 1e-9,
            "{w:?}"
        );
        assert!(windows(&[worker(0, 100.0, 1.0), worker(1, 102.0, 1.0)]).overlap_s < 0.0);
    }
}
