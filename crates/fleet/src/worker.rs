//! A worker of `wirebench run --workers N` (`wirebench worker`): asks the coordinator for jobs
//! (`protocol`), and for each one it takes part in verifies its route, waits at the barrier,
//! loads its share while saying it is alive, and posts its record (`record`) or its error,
//! until the run ends.

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context};
use serde_json::{json, Value};

use crate::protocol::{Job, POLL};
use crate::record::{self, WorkerMeta};
use wirebench_core::machine;
use wirebench_core::runner::Executor;
use wirebench_core::share::WorkerShare;
use wirebench_core::suite;
use wirebench_load::LoadEngine;

/// How often a loading worker says it is alive.
const HEARTBEAT: Duration = Duration::from_secs(5);

/// Who a worker is and where it takes loads from.
#[derive(Debug, Clone)]
pub struct WorkerOptions<'a> {
    /// The run to take loads from: http://HOST:PORT.
    pub coordinator: &'a str,
    /// Which worker of how many: its share of every row's connections, requests and rate.
    pub share: WorkerShare,
    /// Load threads.
    pub threads: usize,
    /// How long to keep trying to reach the coordinator at first (it may be starting).
    pub connect_timeout: Duration,
    /// The suites directory: its parent is where data files and request bodies are read from.
    pub suites_dir: &'a Path,
}

/// Takes loads from a coordinator until its run ends.
pub fn work(opts: &WorkerOptions) -> anyhow::Result<()> {
    let share = opts.share;
    let base = opts.coordinator.trim_end_matches('/').to_string();
    if !base.starts_with("http://") {
        bail!("coordinator `{}`: expected http://HOST:PORT", opts.coordinator);
    }
    let root = suite::project_root(opts.suites_dir)?;
    let engine = LoadEngine { threads: opts.threads };
    let client = reqwest::blocking::Client::builder().timeout(POLL + Duration::from_secs(10)).build()?;
    let first_contact = Instant::now() + opts.connect_timeout;
    let mut after = 0u64;
    let mut reached = false;
    loop {
        let url = format!("{base}/v1/job?worker={}&count={}&after={after}", share.index, share.count);
        let answer = match client.get(&url).send() {
            Ok(a) => a,
            // Until the coordinator first answers, it may still be starting.
            Err(e) if !reached && Instant::now() < first_contact && (e.is_connect() || e.is_timeout()) => {
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
            Err(e) => bail!("{url}: {e}"),
        };
        reached = true;
        let status = answer.status();
        if status == reqwest::StatusCode::NO_CONTENT {
            continue;
        }
        let body: Value = answer.json().with_context(|| format!("{url}: not JSON"))?;
        if !status.is_success() {
            bail!("{base}: {}", body["error"].as_str().unwrap_or(status.as_str()));
        }
        if body["done"] == true {
            eprintln!("worker {share}: the run is over");
            return Ok(());
        }
        let job: Job = serde_json::from_value(body).context("a job this worker cannot read (another version?)")?;
        after = job.job;
        if share.index >= job.count {
            continue; // Not needed for this row.
        }
        let mine = WorkerShare { index: share.index, count: job.count };
        let call_url = |call: &str| format!("{base}/v1/{call}?worker={}&job={}", share.index, job.job);
        let post = |call: &str, body: &Value| -> anyhow::Result<reqwest::blocking::Response> {
            let url = call_url(call);
            client.post(&url).json(body).send().with_context(|| url.clone())
        };
        let heartbeat = || Heartbeat::start(client.clone(), call_url("alive"));
        let outcome = run_job(&job, mine, &engine, &root, heartbeat, || {
            loop {
                let a = post("ready", &json!({}))?;
                match a.status() {
                    reqwest::StatusCode::NO_CONTENT => continue,
                    s if s.is_success() => {
                        let v: Value = a.json()?;
                        return v["start_at"].as_f64().context("the barrier gave no start instant").map(Some);
                    }
                    // The job was given up (another worker failed): no load.
                    reqwest::StatusCode::GONE => return Ok(None),
                    s => bail!("the barrier answered {s}"),
                }
            }
        });
        let report = match outcome {
            Ok(None) => continue,
            Ok(Some((record, log))) => json!({ "record": record, "log": log }),
            Err(e) => json!({ "error": format!("{e:#}") }),
        };
        let a = post("result", &report)?;
        if !(a.status().is_success() || a.status() == reqwest::StatusCode::GONE) {
            bail!("the coordinator refused this worker's result: {}", a.status());
        }
    }
}

/// One job: verify, wait at the barrier, load, and the record. `Ok(None)`: the job was given up.
fn run_job(
    job: &Job,
    share: WorkerShare,
    engine: &LoadEngine,
    root: &Path,
    heartbeat: impl FnOnce() -> Heartbeat,
    barrier: impl FnOnce() -> anyhow::Result<Option<f64>>,
) -> anyhow::Result<Option<(Value, String)>> {
    let mut scenario = job.scenario.clone();
    if let Some(group) = &scenario.group {
        let mut scripts = suite::groups::scripts(&job.groups, root)
            .map_err(|(key, message)| anyhow::anyhow!("the suite's {key}: {message}"))?;
        scenario.script = Some(scripts.remove(group).with_context(|| format!("no thread group `{group}` in the job"))?);
    }
    let plan = share.of_plan(&job.plan);
    let target = &job.target;
    engine.verify(&scenario, target).map_err(|e| anyhow::anyhow!("verification failed: {e}"))?;
    let Some(start_at) = barrier()? else { return Ok(None) };
    let at = UNIX_EPOCH + Duration::from_secs_f64(start_at);
    if let Ok(wait) = at.duration_since(SystemTime::now()) {
        std::thread::sleep(wait);
    }
    let cpu_before = machine::own_cpu_s();
    let r = {
        let _alive = heartbeat();
        engine.measure(&scenario, &plan, target, &AtomicU64::new(0)).map_err(|e| anyhow::anyhow!(e))?
    };
    let cpu_s = machine::own_cpu_s() - cpu_before;
    let meta = WorkerMeta { share, url: &scenario.id, driver: &scenario.driver, cpus: engine.threads };
    record::record(&meta, &r, cpu_s).map(Some)
}

/// Says "alive" to the coordinator every `HEARTBEAT` until dropped.
struct Heartbeat {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Heartbeat {
    fn start(client: reqwest::blocking::Client, url: String) -> Heartbeat {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(HEARTBEAT) {
                // A missed beat is noticed by the coordinator only after its timeout (15 s or more).
                let _ = client.post(&url).send();
            }
        });
        Heartbeat { stop: Some(stop), thread: Some(thread) }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
