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
}

impl Tally {
    /// Counts one right answer (or completed iteration) at `done`, `start` being the load's start.
    pub(crate) fn count_tick(&mut self, start: Instant, done: Instant) {
        // u64 nanoseconds (584 years) divide cheaply; this runs once per answer.
        let tick = (done.saturating_duration_since(start).as_nanos() as u64 / TICK.as_nanos() as u64) as usize;
        if self.per_tick.len() <= tick {
            self.per_tick.resize(tick + 1, 0);
        }
        self.per_tick[tick] += 1;
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
}

impl Histograms {
    pub(crate) fn new(steps: usize) -> Histograms {
        Histograms {
            latency: new_histogram(),
            uncorrected: new_histogram(),
            first: new_histogram(),
            steps: (0..steps).map(|_| new_histogram()).collect(),
        }
    }

    pub(crate) fn add(&mut self, other: &Histograms) -> Result<(), LoadError> {
        let merge = |e| LoadError::Protocol(format!("histogram merge: {e}"));
        self.latency.add(&other.latency).map_err(merge)?;
        self.uncorrected.add(&other.uncorrected).map_err(merge)?;
        self.first.add(&other.first).map_err(merge)?;
        for (mine, theirs) in self.steps.iter_mut().zip(&other.steps) {
            mine.add(theirs).map_err(merge)?;
        }
        Ok(())
    }
}
