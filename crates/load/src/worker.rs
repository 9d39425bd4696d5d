//! The one worker loop every driver runs under: one single-threaded runtime per load thread,
//! connections spread over the threads, and per channel a loop that takes a stop condition
//! (request count or duration) and an optional constant arrival rate. In the open model each
//! request's latency is measured from its intended send time, so a stalled server shows up in
//! the percentiles instead of silently lowering the request rate (coordinated omission, wrk2);
//! the latency from the actual send time is kept beside it (wrk2's `--u_latency`).
//!
//! A job with a thread group's script runs the same loop with an iteration as its unit: each
//! channel is a virtual user that starts after its share of the ramp-up and runs the group's
//! steps in turn (`script`), each step verified, timed and counted under its label.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use crate::cap::{self, Throttle};
use crate::driver::{Channel, Constructor, Driver, RequestSpec};
use crate::error::LoadError;
use crate::fresh::Fresh;
use crate::io::Counters;
use crate::request::mismatch;
use crate::script::{self, User};
use crate::tally::{Histograms, Tally};
use wirebench_core::bottleneck::Slices;
use wirebench_core::runner::{LoadResult, Plan, Stop, Target};
use wirebench_core::schema::{Latency, StepMetrics};
use wirebench_core::suite::{Expect, Script};

/// An answer slower than this counts as an error and ends its channel (see `TIMEOUT_SLACK`).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Each channel keeps one timer and re-arms it only when it is this much nearer than
/// `REQUEST_TIMEOUT`, so a request times out after 25 to 30 s and the timer wheel is touched
/// about once per 5 s per channel instead of twice per request (~2 % of the instrument's CPU).
const TIMEOUT_SLACK: Duration = Duration::from_secs(5);
/// Percentiles kept for the latency curve in the report.
const CURVE: &[f64] = &[0.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.99, 100.0];

/// What the load is and how it is judged.
pub struct Job<'a> {
    pub new_driver: Constructor,
    pub target: Target,
    pub request: RequestSpec,
    pub plan: Plan,
    /// What a right answer is (checked without the SHA-256, which needs the body kept).
    pub expect: Expect,
    pub threads: usize,
    pub live: &'a AtomicU64,
    /// A thread group's script: each connection is a user looping over its steps.
    pub script: Option<std::sync::Arc<Script>>,
    /// Users (connections) start evenly over this long.
    pub ramp_up: Duration,
    /// A new connection for every request (`fresh::Fresh`), its handshakes in the request's time.
    pub reconnect: bool,
}

struct Shared<'a> {
    job: &'a Job<'a>,
    issued: AtomicU64,
    /// Users started so far, for each one's place in the ramp-up.
    users: AtomicU64,
    barrier: Barrier,
    start: OnceLock<Instant>,
}

struct ThreadResult {
    histograms: Histograms,
    tally: Tally,
    sent: u64,
    received: u64,
    /// A probe load's pause and bytes moved per slice (`cap`).
    capped: Option<(Duration, Vec<u64>)>,
}

/// Runs a job to its stop condition and returns what was measured.
pub fn run(job: &Job) -> Result<LoadResult, LoadError> {
    let threads = job.threads.clamp(1, job.plan.connections.max(1) as usize);
    let shared = Shared {
        job,
        issued: AtomicU64::new(0),
        users: AtomicU64::new(0),
        barrier: Barrier::new(threads),
        start: OnceLock::new(),
    };
    let results: Vec<Result<ThreadResult, LoadError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let shared = &shared;
                let conns =
                    job.plan.connections as usize / threads + usize::from(t < job.plan.connections as usize % threads);
                scope.spawn(move || thread_main(shared, conns))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(LoadError::Protocol("load thread panicked".into()))))
            .collect()
    });
    let start = *shared.start.get().ok_or_else(|| LoadError::Protocol("no load thread started".into()))?;
    let labels = job.script.as_ref().map(|s| s.labels()).unwrap_or_default();
    let mut all = Histograms::new(labels.len());
    let mut steps = vec![(0, 0); labels.len()];
    let mut out = LoadResult::default();
    let mut end = start;
    let mut paused = Duration::ZERO;
    let mut sliced = Vec::new();
    for r in results {
        let r = r?;
        if let Some((p, moved)) = &r.capped {
            paused += *p;
            add_ticks(&mut sliced, moved);
        }
        add_ticks(&mut out.per_tick, &r.tally.per_tick);
        add_ticks(&mut out.errors_per_tick, &r.tally.errors_per_tick);
        all.add(&r.histograms)?;
        for (total, (ok, errors)) in steps.iter_mut().zip(&r.tally.steps) {
            total.0 += ok;
            total.1 += errors;
        }
        out.iterations = job.script.as_ref().map(|_| out.iterations.unwrap_or(0) + r.tally.iterations);
        out.requests += r.tally.requests;
        out.messages += r.tally.messages;
        out.errors += r.tally.errors;
        out.first_error = out.first_error.or(r.tally.first_error);
        out.bytes_sent += r.sent;
        out.bytes_received += r.received;
        end = end.max(r.tally.last_done.unwrap_or(start));
    }
    out.duration = end - start;
    if job.plan.cap.is_some() {
        let capped = cap::capped_time(out.duration).as_secs_f64() * threads as f64;
        let paused = if capped > 0.0 { paused.as_secs_f64() / capped } else { 0.0 };
        out.capped = Some(Slices { bytes: sliced, paused });
    }
    let started = std::time::SystemTime::now() - start.elapsed();
    out.started = Some(started);
    out.latency_log = Some(crate::hlog::write(&all, started, out.duration).map_err(LoadError::Protocol)?);
    out.latency = latency(&all.latency);
    out.p99_per_second_us = all.p99_per_second();
    out.first_message = (!all.first.is_empty()).then(|| latency(&all.first));
    out.latency_uncorrected = job.plan.rate.map(|_| latency(&all.uncorrected));
    out.steps = labels
        .into_iter()
        .zip(steps)
        .zip(&all.steps)
        .map(|((label, (requests, errors)), h)| StepMetrics { label, requests, errors, latency_us: latency(h) })
        .collect();
    Ok(out)
}

/// Adds `other`'s counts per tick to `total`, tick by tick.
pub fn add_ticks(total: &mut Vec<u64>, other: &[u64]) {
    if total.len() < other.len() {
        total.resize(other.len(), 0);
    }
    for (t, o) in total.iter_mut().zip(other) {
        *t += o;
    }
}

/// A histogram's summary as rows record it: min, percentiles, max, mean and the curve.
pub fn latency(h: &Histogram<u64>) -> Latency {
    if h.is_empty() {
        return Latency::default();
    }
    Latency {
        min: h.min(),
        p50: h.value_at_quantile(0.50),
        p90: h.value_at_quantile(0.90),
        p99: h.value_at_quantile(0.99),
        p999: h.value_at_quantile(0.999),
        max: h.max(),
        mean: h.mean(),
        curve: CURVE.iter().map(|&p| (p, h.value_at_quantile(p / 100.0))).collect(),
    }
}

fn thread_main(shared: &Shared, connections: usize) -> Result<ThreadResult, LoadError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(LoadError::Io)?;
    let local = tokio::task::LocalSet::new();
    // Unconstrained: this thread runs nothing but the load, so tokio's per-task budget (which
    // makes busy tasks yield to others) only costs a thread-local lookup per I/O poll (~1.5 %).
    // Every loop still waits on its socket each exchange, and stop conditions read the clock.
    let load = async move {
        let job = shared.job;
        let driver: Rc<dyn Driver> = Rc::from((job.new_driver)());
        let counters = Rc::new(Counters::default());
        let request = Rc::new(job.request.clone());
        let mut channels: Vec<Box<dyn Channel>> = Vec::new();
        let mut failure = None;
        for _ in 0..connections {
            if job.reconnect {
                let (driver, target) = (driver.clone(), job.target.clone());
                channels.push(Box::new(Fresh { driver, target, request: request.clone(), counters: counters.clone() }));
                continue;
            }
            match driver.connect(&job.target, &request, job.plan.streams, &counters).await {
                Ok(mut c) => channels.append(&mut c),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        // Every thread reaches the barrier, failed or not, so none waits forever.
        shared.barrier.wait();
        let start = *shared.start.get_or_init(Instant::now);
        if let Some(e) = failure {
            return Err(e);
        }
        let steps = job.script.as_ref().map_or(0, |s| s.labels().len());
        let histograms = Rc::new(RefCell::new(Histograms::new(steps)));
        let tally = Rc::new(RefCell::new(Tally::for_steps(steps)));
        // A probe load's throttle, which this thread's reads and writes check (`cap`).
        let throttle = Throttle::new(job.plan.cap, start);
        cap::install(throttle.clone());
        // Polled together on this thread (not spawned): the loops borrow `shared` from the scope.
        let loops = channels.into_iter().map(|ch| channel_loop(ch, shared, start, histograms.clone(), tally.clone()));
        futures_util::future::join_all(loops).await;
        cap::install(None);
        let capped = throttle.map(|t| t.finish());
        let histograms = Rc::try_unwrap(histograms).map(RefCell::into_inner).unwrap_or_else(|rc| rc.borrow().clone());
        let tally = Rc::try_unwrap(tally).map(RefCell::into_inner).unwrap_or_default();
        Ok(ThreadResult { histograms, tally, sent: counters.sent.get(), received: counters.received.get(), capped })
    };
    local.block_on(&rt, tokio::task::unconstrained(load))
}

/// What one unit of a channel's loop did.
enum Done {
    /// An exchange's answer, to check and record.
    Reply(crate::driver::Reply),
    /// An iteration of a script, its steps recorded; true when every step answered as expected.
    Iteration(bool),
}

/// How long a channel may take to end its session after the load (see `Channel::close`).
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

async fn channel_loop(
    mut channel: Box<dyn Channel>,
    shared: &Shared<'_>,
    start: Instant,
    histograms: Rc<RefCell<Histograms>>,
    tally: Rc<RefCell<Tally>>,
) {
    calls(channel.as_mut(), shared, start, histograms, tally).await;
    let _ = tokio::time::timeout(CLOSE_TIMEOUT, channel.close()).await;
}

/// Calls until the stop condition, or until the channel fails.
async fn calls(
    channel: &mut dyn Channel,
    shared: &Shared<'_>,
    start: Instant,
    histograms: Rc<RefCell<Histograms>>,
    tally: Rc<RefCell<Tally>>,
) {
    let job = shared.job;
    let deadline = match job.plan.stop {
        Stop::Duration(d) => Some(start + d),
        Stop::Requests(_) => None,
    };
    // A thread group's virtual user: the script and this user's variables.
    let mut scripted = job.script.as_deref().map(|s| (s, User::new(s)));
    if scripted.is_some() && !job.ramp_up.is_zero() {
        // User k of n starts k/n of the way through the ramp-up.
        let k = shared.users.fetch_add(1, Ordering::Relaxed);
        let delay = job.ramp_up.mul_f64(k as f64 / f64::from(job.plan.connections.max(1)));
        tokio::time::sleep_until((start + delay).into()).await;
    }
    let mut watchdog = Box::pin(tokio::time::sleep(REQUEST_TIMEOUT));
    // One clock read per request in the closed model: the previous answer's arrival is the next
    // send time (and "now" for the stop condition and the watchdog).
    let mut last = Instant::now();
    loop {
        let ticket = shared.issued.fetch_add(1, Ordering::Relaxed);
        if matches!(job.plan.stop, Stop::Requests(n) if ticket >= n) {
            return;
        }
        let (sent_at, now) = match job.plan.rate {
            Some(rate) => {
                let intended = start + Duration::from_secs_f64(ticket as f64 / rate);
                if deadline.is_some_and(|d| intended >= d) {
                    return;
                }
                tokio::time::sleep_until(intended.into()).await;
                (intended, Instant::now())
            }
            None => {
                if deadline.is_some_and(|d| last >= d) {
                    return;
                }
                (last, last)
            }
        };
        let now = tokio::time::Instant::from_std(now);
        if watchdog.deadline() < now + (REQUEST_TIMEOUT - TIMEOUT_SLACK) {
            watchdog.as_mut().reset(now + REQUEST_TIMEOUT);
        }
        // The unit of work: one exchange, or one iteration of the script's steps (which
        // records its steps itself).
        let work = async {
            match scripted.as_mut() {
                Some((s, user)) => {
                    let open = job.plan.rate.is_some();
                    script::iteration(channel, s, &job.request, user, ticket, sent_at, open, &histograms, &tally)
                        .await
                        .map(Done::Iteration)
                }
                None => channel.exchange(false).await.map(Done::Reply),
            }
        };
        let outcome = tokio::select! {
            biased;
            done = work => Ok(done),
            () = &mut watchdog => Err(()),
        };
        let done = Instant::now();
        last = done;
        let mut t = tally.borrow_mut();
        t.last_done = Some(t.last_done.map_or(done, |l| l.max(done)));
        let wrong = match outcome {
            Ok(Ok(Done::Iteration(completed))) => {
                if completed {
                    t.iterations += 1;
                    t.count_tick(start, done);
                    job.live.fetch_add(1, Ordering::Relaxed);
                }
                None
            }
            Ok(Ok(Done::Reply(reply))) => {
                let wrong = mismatch(&reply, &job.expect);
                if wrong.is_none() {
                    t.requests += 1;
                    t.count_tick(start, done);
                    t.messages += reply.messages;
                    job.live.fetch_add(1, Ordering::Relaxed);
                    let us = (done - sent_at).as_micros() as u64;
                    let mut h = histograms.borrow_mut();
                    h.latency.saturating_record(us.max(1));
                    h.record_second(done.saturating_duration_since(start).as_secs() as usize, us);
                    if job.plan.rate.is_some() {
                        h.uncorrected.saturating_record(((done - now.into_std()).as_micros() as u64).max(1));
                    }
                    if let Some(first) = reply.first_at {
                        let us = first.saturating_duration_since(sent_at).as_micros() as u64;
                        h.first.saturating_record(us.max(1));
                    }
                }
                wrong
            }
            Ok(Err(e)) => {
                t.count_error(start, done, || e.to_string());
                return; // the connection is unusable
            }
            Err(_) => {
                let limit = (REQUEST_TIMEOUT - TIMEOUT_SLACK).as_secs();
                t.count_error(start, done, || match scripted {
                    Some(_) => format!("an iteration took over {limit} s"),
                    None => format!("no answer within {limit} s"),
                });
                return;
            }
        };
        if let Some(w) = wrong {
            t.count_error(start, done, || w);
        }
    }
}
