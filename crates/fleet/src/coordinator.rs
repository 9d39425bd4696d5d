//! The coordinator of `wirebench run SUITE --workers N`: the runner's `Executor` when loads come
//! from workers. It serves the calls of `protocol` (axum, a thread of its own), hands each row's
//! load to the job's workers, waits at the barrier and for their results, and adds those up as
//! `wirebench merge` does (`merge::combine`), so a row is written as if one machine had measured
//! it, with each worker's share beside it.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::merge;
use crate::protocol::{Job, POLL};
use crate::record::Worker;
use wirebench_core::runner::{Executor, LoadResult, Plan, Stop, Target};
use wirebench_core::suite::{GroupSpec, Scenario};
use wirebench_load::LoadEngine;

/// Between every worker being ready and the load: time for the instant to reach them all.
const LEAD: Duration = Duration::from_millis(250);

/// One load handed out.
#[derive(Debug, Default)]
struct Board {
    /// The current job's number (0: none yet) and text.
    seq: u64,
    job: Option<Value>,
    /// Workers taking part in it: 0..active.
    active: u32,
    ready: BTreeSet<u32>,
    start_at: Option<f64>,
    results: BTreeMap<u32, Result<(Value, String), String>>,
    /// The last sign of each worker of the job (ready, alive, result).
    alive: BTreeMap<u32, Instant>,
    /// Why the current job was given up, for workers still waiting on it.
    aborted: Option<String>,
    done: bool,
    /// Workers told that the run is over.
    told: BTreeSet<u32>,
}

impl Board {
    /// The refusal of a call for another job than the current one, or from a worker not taking
    /// part in it.
    fn not_current(&self, q: &WorkerQuery) -> Option<Response> {
        (self.seq != q.job || q.worker >= self.active)
            .then(|| refuse(StatusCode::GONE, format!("job {} is not current", q.job)))
    }
}

struct Shared {
    count: u32,
    state: Mutex<Board>,
    /// Wakes the runner's thread waiting for results.
    results: Condvar,
    /// Wakes the server's long polls.
    changed: tokio::sync::watch::Sender<u64>,
}

impl Shared {
    fn update<T>(&self, f: impl FnOnce(&mut Board) -> T) -> T {
        let out = f(&mut self.state.lock().unwrap());
        self.changed.send_modify(|v| *v += 1);
        self.results.notify_all();
        out
    }
}

/// The runner's executor when loads come from workers.
pub struct Coordinator {
    shared: Arc<Shared>,
    /// The address workers reach the subjects at.
    advertise: String,
    /// The suite's thread groups, sent with every job (a group's script may take others).
    groups: BTreeMap<String, GroupSpec>,
    /// How long workers may take to be ready, and to report after the load should have ended.
    timeout: Duration,
    local: LoadEngine,
    /// Ends the server gracefully: it stops accepting and finishes the answers in flight, so a
    /// worker's "the run is over" is written before the process exits (a worker once read a
    /// reset connection instead).
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    server: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[derive(Deserialize)]
struct JobQuery {
    worker: u32,
    count: u32,
    #[serde(default)]
    after: u64,
}

#[derive(Deserialize)]
struct WorkerQuery {
    worker: u32,
    job: u64,
}

fn refuse(status: StatusCode, message: String) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

/// Waits, up to one poll, until `ready` answers something.
async fn long_poll(shared: &Shared, mut ready: impl FnMut(&Board) -> Option<Response>) -> Response {
    let mut changes = shared.changed.subscribe();
    let deadline = tokio::time::Instant::now() + POLL;
    loop {
        if let Some(answer) = ready(&shared.state.lock().unwrap()) {
            return answer;
        }
        if tokio::time::timeout_at(deadline, changes.changed()).await.is_err() {
            return StatusCode::NO_CONTENT.into_response();
        }
    }
}

async fn job(State(shared): State<Arc<Shared>>, Query(q): Query<JobQuery>) -> Response {
    if q.count != shared.count || q.worker >= q.count {
        return refuse(
            StatusCode::CONFLICT,
            format!("this run has {} workers: start them as --worker 0/{0} … {}/{0}", shared.count, shared.count - 1),
        );
    }
    let answer = long_poll(&shared, |s| {
        if s.done {
            return Some(Json(json!({ "done": true })).into_response());
        }
        match &s.job {
            Some(job) if s.seq > q.after && s.aborted.is_none() => Some(Json(job.clone()).into_response()),
            _ => None,
        }
    })
    .await;
    if shared.state.lock().unwrap().done {
        shared.update(|s| s.told.insert(q.worker));
    }
    answer
}

async fn alive(State(shared): State<Arc<Shared>>, Query(q): Query<WorkerQuery>) -> Response {
    shared.update(|s| {
        if let Some(refused) = s.not_current(&q) {
            return refused;
        }
        if let Some(why) = &s.aborted {
            return refuse(StatusCode::GONE, why.clone());
        }
        s.alive.insert(q.worker, Instant::now());
        StatusCode::NO_CONTENT.into_response()
    })
}

async fn ready(State(shared): State<Arc<Shared>>, Query(q): Query<WorkerQuery>) -> Response {
    let refused = shared.update(|s| {
        if let Some(refused) = s.not_current(&q) {
            return Some(refused);
        }
        s.ready.insert(q.worker);
        s.alive.insert(q.worker, Instant::now());
        if s.ready.len() as u32 == s.active && s.start_at.is_none() {
            let at = SystemTime::now() + LEAD;
            s.start_at = Some(at.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64());
        }
        None
    });
    if let Some(refused) = refused {
        return refused;
    }
    long_poll(&shared, |s| {
        if s.seq != q.job || s.aborted.is_some() {
            let why = s.aborted.clone().unwrap_or_else(|| format!("job {} is not current", q.job));
            return Some(refuse(StatusCode::GONE, why));
        }
        s.start_at.map(|at| Json(json!({ "start_at": at })).into_response())
    })
    .await
}

async fn result(State(shared): State<Arc<Shared>>, Query(q): Query<WorkerQuery>, Json(body): Json<Value>) -> Response {
    let outcome = match (body.get("error").and_then(Value::as_str), body.get("record"), body.get("log")) {
        (Some(e), _, _) => Err(e.to_string()),
        (None, Some(record), Some(Value::String(log))) => Ok((record.clone(), log.clone())),
        _ => return refuse(StatusCode::BAD_REQUEST, "expected {\"record\", \"log\"} or {\"error\"}".into()),
    };
    shared.update(|s| {
        if let Some(refused) = s.not_current(&q) {
            return refused;
        }
        s.results.insert(q.worker, outcome);
        s.alive.insert(q.worker, Instant::now());
        StatusCode::NO_CONTENT.into_response()
    })
}

impl Coordinator {
    /// Serves the workers' calls on `listen` (a thread of its own) until dropped.
    pub fn start(
        listen: SocketAddr,
        count: u32,
        advertise: String,
        groups: BTreeMap<String, GroupSpec>,
        timeout: Duration,
        threads: usize,
    ) -> anyhow::Result<Coordinator> {
        let shared = Arc::new(Shared {
            count,
            state: Mutex::new(Board::default()),
            results: Condvar::new(),
            changed: tokio::sync::watch::channel(0).0,
        });
        let listener =
            std::net::TcpListener::bind(listen).with_context(|| format!("--listen {listen}: cannot bind"))?;
        listener.set_nonblocking(true)?;
        let app = Router::new()
            .route("/v1/job", get(job))
            .route("/v1/ready", post(ready))
            .route("/v1/alive", post(alive))
            .route("/v1/result", post(result))
            .with_state(shared.clone());
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = std::thread::Builder::new().name("coordinator".into()).spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a listener");
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        })?;
        Ok(Coordinator {
            shared,
            advertise,
            groups,
            timeout,
            local: LoadEngine { threads },
            stop: Mutex::new(Some(stop)),
            server: Mutex::new(Some(server)),
        })
    }

    /// Tells the workers that the run is over: waits until each has heard it, or the timeout.
    pub fn finish(&self) {
        self.shared.update(|s| s.done = true);
        let deadline = Instant::now() + self.timeout.min(Duration::from_secs(10));
        let mut state = self.shared.state.lock().unwrap();
        while (state.told.len() as u32) < self.shared.count && Instant::now() < deadline {
            state = self.shared.results.wait_timeout(state, Duration::from_millis(200)).unwrap().0;
        }
        drop(state);
        // The answers in flight (each worker's "the run is over") are written before this returns.
        if let Some(stop) = self.stop.lock().unwrap().take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.lock().unwrap().take() {
            let _ = server.join();
        }
    }

    /// Hands `job` to its first `job.count` workers and waits for all their results.
    fn hand_out(&self, mut job: Job) -> Result<Vec<Worker>, String> {
        let active = job.count;
        self.shared.update(|s| {
            s.seq += 1;
            job.job = s.seq;
            s.job = Some(serde_json::to_value(&job).expect("a job is JSON"));
            s.active = active;
            s.ready.clear();
            s.results.clear();
            s.alive.clear();
            s.start_at = None;
            s.aborted = None;
        });
        let abort = |why: String| {
            self.shared.update(|s| s.aborted = Some(why.clone()));
            Err(why)
        };
        let posted = Instant::now();
        let mut state = self.shared.state.lock().unwrap();
        loop {
            if let Some((i, Err(e))) = state.results.iter().find(|(_, r)| r.is_err()) {
                let why = format!("worker {i}/{active}: {e}");
                drop(state);
                return abort(why);
            }
            if state.results.len() as u32 == active {
                break;
            }
            // Every worker must be ready within the timeout of the job's posting; once loading,
            // each must say it is alive (every 5 s) within the timeout of its last sign, as the
            // length of a load of N requests is not known ahead.
            let now = Instant::now();
            let silent: Vec<String> = (0..active)
                .filter(|i| match state.start_at {
                    None => !state.ready.contains(i) && now >= posted + self.timeout,
                    Some(_) => {
                        !state.results.contains_key(i)
                            && state.alive.get(i).is_none_or(|&last| now >= last + self.timeout)
                    }
                })
                .map(|i| format!("{i}/{}", self.shared.count))
                .collect();
            if !silent.is_empty() {
                let what = if state.start_at.is_none() { "ready" } else { "heard from" };
                let why = format!(
                    "worker {} not {what} within {:.0} s (--worker-timeout)",
                    silent.join(", "),
                    self.timeout.as_secs_f64()
                );
                drop(state);
                return abort(why);
            }
            state = self.shared.results.wait_timeout(state, Duration::from_secs(1)).unwrap().0;
        }
        let results = std::mem::take(&mut state.results);
        drop(state);
        results
            .into_iter()
            .map(|(i, r)| {
                let (record, log) = r.expect("errors returned above");
                Worker::parse(&format!("worker {i}/{active}"), &record, &log).map_err(|e| e.to_string())
            })
            .collect()
    }
}

impl Drop for Coordinator {
    fn drop(&mut self) {
        self.shared.update(|s| s.done = true);
    }
}

impl Executor for Coordinator {
    /// From here, on the subject's machine; each worker verifies its own route before the load.
    fn verify(&self, s: &Scenario, target: &Target) -> Result<(), String> {
        self.local.verify(s, target)
    }

    fn transport(&self, s: &Scenario) -> String {
        self.local.transport(s)
    }

    fn measure(&self, s: &Scenario, plan: &Plan, target: &Target, live: &AtomicU64) -> Result<LoadResult, String> {
        if s.net.is_some() {
            return Err("a row across a link (`net`) runs on one machine: run it without --workers".into());
        }
        let mut active = self.shared.count.min(plan.connections);
        if let Stop::Requests(n) = plan.stop {
            active = active.min(n.min(u64::from(u32::MAX)) as u32);
        }
        if active == 0 {
            return Err("the row sends no load".into());
        }
        let job = Job {
            job: 0,
            count: active,
            scenario: s.clone(),
            groups: self.groups.clone(),
            plan: *plan,
            // Our subjects listen on this machine, which workers elsewhere reach by its advertised
            // name; a URL subject is already where its URL says.
            target: match target.host.parse::<std::net::IpAddr>() {
                Ok(ip) if ip.is_loopback() => Target { host: self.advertise.clone(), ..target.clone() },
                _ => target.clone(),
            },
        };
        let workers = self.hand_out(job)?;
        let (mut r, _) = merge::combine(workers).map_err(|e| e.to_string())?;
        // Named as they were started (`--worker i/N`), not by their share of this row: a row of
        // fewer connections than workers is loaded by the first ones.
        for (i, f) in r.workers.iter_mut().enumerate() {
            f.worker = format!("{i}/{}", self.shared.count);
        }
        live.store(r.requests, Ordering::Relaxed);
        Ok(r)
    }
}
