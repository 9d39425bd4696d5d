//! Loads measured apart, added up: the workers' histograms added exactly (the merged p99 is the
//! p99 of every sample), their counters summed, each worker's CPU and window kept; their windows
//! checked to overlap, and how far apart they started measured (`Windows`).

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use anyhow::bail;

use crate::record::{read_worker, write_worker, Worker, WorkerMeta};
use wirebench_core::runner::LoadResult;
use wirebench_core::schema::{Latency, StepMetrics};
use wirebench_core::share::WorkerShare;
use wirebench_load::hlog;

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
        // Not in a worker's record: each worker's own output keeps its run over time.
        errors_per_tick: Vec::new(),
        p99_per_second_us: Vec::new(),
        capped: None,
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

/// The records of `wirebench merge DIR…`, added up.
#[derive(Debug)]
pub struct Merged {
    pub result: LoadResult,
    pub windows: Windows,
    /// Each worker (`i/N`) and the directory it was read from.
    pub dirs: Vec<(String, String)>,
}

/// Reads the worker records in `dirs` (one per worker), adds them up, and writes the whole as one
/// record (worker 0/1) into `out` if given. Workers whose windows do not overlap are refused.
pub fn merge(dirs: &[PathBuf], out: Option<&Path>) -> anyhow::Result<Merged> {
    let workers: Vec<Worker> = dirs.iter().map(|d| read_worker(d)).collect::<anyhow::Result<_>>()?;
    let Some(first) = workers.first() else { bail!("no worker to merge") };
    let (url, driver) = (first.url.clone(), first.driver.clone());
    // Which directory each worker was read from, for the JSON's per-worker lines.
    let dirs: Vec<(String, String)> = workers.iter().map(|w| (w.share.to_string(), w.from.clone())).collect();
    let (r, w) = combine(workers)?;
    if w.overlap_s <= 0.0 {
        bail!("the workers' measuring windows do not overlap (they started {:.3} s apart): start them together with --start-at", w.skew_s);
    }
    if let Some(dir) = out {
        let meta = WorkerMeta {
            share: WorkerShare { index: 0, count: 1 },
            url: &url,
            driver: &driver,
            cpus: r.workers.iter().map(|w| w.cpus as usize).sum(),
        };
        write_worker(dir, &meta, &r, r.remote_cpu_s.unwrap_or(0.0))?;
    }
    Ok(Merged { result: r, windows: w, dirs })
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
