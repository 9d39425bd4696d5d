//! What a load thread counts and times, shared by the worker loop (`worker`) and a thread
//! group's iterations (`script`): answers, errors, iterations and per-step counts (`Tally`), and
//! latency histograms (`Histograms`), merged over threads at the end.

use std::time::Instant;

use hdrhistogram::Histogram;

use crate::error::LoadError;
use wirebench_core::runner::TICK;

#[derive(Default)]
pub(crate) struct Tally {
    pub(crate) requests: u64,
    pub(crate) messages: u64,
    pub(crate) errors: u64,
    pub(crate) first_error: Option<String>,
    pub(crate) last_done: Option<Instant>,
    pub(crate) iterations: u64,
    /// Per step of a script: (right answers, errors).
    pub(crate) steps: Vec<(u64, u64)>,
    /// Right answers (a script's completed iterations) in each tick (`runner::TICK`) from the start.
    pub(crate) per_tick: Vec<u64>,
    /// Errors in each tick from the start.
    pub(crate) errors_per_tick: Vec<u64>,
}

/// Adds one to `ticks[tick of done]`, growing it as needed.
fn bump(ticks: &mut Vec<u64>, start: Instant, done: Instant) {
    // u64 nanoseconds (584 years) divide cheaply; this runs once per answer.
    let tick = (done.saturating_duration_since(start).as_nanos() as u64 / TICK.as_nanos() as u64) as usize;
    if ticks.len() <= tick {
        ticks.resize(tick + 1, 0);
    }
    ticks[tick] += 1;
}

impl Tally {
    /// Counts one right answer (or completed iteration) at `done`, `start` being the load's start.
    pub(crate) fn count_tick(&mut self, start: Instant, done: Instant) {
        bump(&mut self.per_tick, start, done);
    }

    /// Counts one error at `done`.
    pub(crate) fn count_error(&mut self, start: Instant, done: Instant, error: impl FnOnce() -> String) {
        self.errors += 1;
        bump(&mut self.errors_per_tick, start, done);
        if self.first_error.is_none() {
            self.first_error = Some(error());
        }
    }

    /// An empty tally for a script of `steps` steps.
    pub(crate) fn for_steps(steps: usize) -> Tally {
        Tally { steps: vec![(0, 0); steps], ..Tally::default() }
    }
}

pub(crate) fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds")
}

/// A load thread's latency histograms: per call (in the open model from the intended and from
/// the actual send time), to the first message of streaming calls, and per step of a script.
#[derive(Clone)]
pub(crate) struct Histograms {
    pub(crate) latency: Histogram<u64>,
    pub(crate) uncorrected: Histogram<u64>,
    pub(crate) first: Histogram<u64>,
    pub(crate) steps: Vec<Histogram<u64>>,
    /// Per call, in each second from the start: the run over time (two significant digits
    /// suffice for a p99 drawn against time, at a tenth of the memory of three).
    pub(crate) per_second: Vec<Histogram<u64>>,
}

impl Histograms {
    pub(crate) fn new(steps: usize) -> Histograms {
        Histograms {
            latency: new_histogram(),
            uncorrected: new_histogram(),
            first: new_histogram(),
            steps: (0..steps).map(|_| new_histogram()).collect(),
            per_second: Vec::new(),
        }
    }

    /// Records a call's latency in the histogram of the second it ended in.
    pub(crate) fn record_second(&mut self, second: usize, us: u64) {
        while self.per_second.len() <= second {
            self.per_second.push(Histogram::new_with_bounds(1, 3_600_000_000, 2).expect("valid histogram bounds"));
        }
        self.per_second[second].saturating_record(us.max(1));
    }

    /// The 99th percentile of each second's calls, µs (0 for a second without one).
    pub(crate) fn p99_per_second(&self) -> Vec<u64> {
        self.per_second.iter().map(|h| if h.is_empty() { 0 } else { h.value_at_quantile(0.99) }).collect()
    }

    pub(crate) fn add(&mut self, other: &Histograms) -> Result<(), LoadError> {
        let merge = |e| LoadError::Protocol(format!("histogram merge: {e}"));
        self.latency.add(&other.latency).map_err(merge)?;
        self.uncorrected.add(&other.uncorrected).map_err(merge)?;
        self.first.add(&other.first).map_err(merge)?;
        for (mine, theirs) in self.steps.iter_mut().zip(&other.steps) {
            mine.add(theirs).map_err(merge)?;
        }
        for (second, theirs) in other.per_second.iter().enumerate() {
            if self.per_second.len() <= second {
                self.per_second.push(theirs.clone());
            } else {
                self.per_second[second].add(theirs).map_err(merge)?;
            }
        }
        Ok(())
    }
}
