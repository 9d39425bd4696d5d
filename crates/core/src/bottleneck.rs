//! Who set a closed loop's pace, asked directly: a repeat whose instrument the CPU test calls the
//! bottleneck is followed by a probe load of the same row in which each of the instrument's load
//! threads may use 90 % of the CPU time of every other slice of `SLICE`, as a CFS quota would
//! allow it (`Plan::cap`, `wirebench_load`'s `cap`). An instrument with room to spare moves as many bytes in a capped slice as in the
//! free one before it; one that set the pace loses about the tenth it was denied.
//!
//! Why a probe and not the CPU test alone: on two cores the CPU test flags the rows where client
//! and server do the same work (HTTP/1.1+TLS, SSE+TLS and HTTP/3 at 1 KB), and `bench/bottleneck`
//! found the subject setting the pace of each (a cgroup cap of 90 % on the instrument cost them
//! 0–3.5 %, the same cap on the subject 10–15 %; METHODOLOGY, "What the CPU test gets wrong").
//! Capped and free slices alternate within one load, 30 ms apart, so the host's drift falls
//! outside the pairs (Bulej et al., duet benchmarking): on the 2 × AMD EPYC VM an HTTP/1.1+TLS
//! load's answers per 100 ms ranged from 3,500 to 7,800 within 3 s.

use std::time::Duration;

use crate::stats::{mean_sd, t95};

/// The share of its time the instrument keeps in a probe's capped slices.
pub const CAP: f64 = 0.9;
/// Capped and free slices alternate at this length: three periods of the cap.
pub const SLICE: Duration = Duration::from_millis(30);
/// A capped slice may move this share of its free neighbour's bytes, at the interval's lower
/// bound, for the instrument to count as not setting the pace: half of the tenth the cap takes.
/// An instrument that set the pace loses the whole tenth or more (a subject under the same cgroup
/// cap lost 10–15 %: CFS stalls the capped side for the rest of each period).
pub const CLEAR: f64 = 0.95;
/// The capped slices of the load's first 240 ms are left out: the load's first answers on fresh
/// connections come at a pace of their own, and the first slice holds the handshakes' bytes.
const SETTLE_PAIRS: usize = 4;
/// Fewest capped slices an answer needs.
pub const MIN_PAIRS: usize = 10;
/// The shortest probe load (it runs as long as the load it follows, and `MIN_PAIRS` capped
/// slices need 0.9 s), and the shortest repeat the runner probes: the brief and smoke profiles'
/// repeats are shorter, and a probe would cost more than they do.
pub const LEAST: Duration = Duration::from_secs(1);
/// What a probe load counted: the bytes it sent and received in each `SLICE` from its start (even
/// slices free, odd ones capped), and the share of the capped slices' time its threads paused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slices {
    pub bytes: Vec<u64>,
    pub paused: f64,
}

/// The probe's answer: bytes moved in capped slices over those in the free slices on either side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bottleneck {
    /// Geometric mean of the ratios, and its 95 % interval.
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
    /// Capped slices read.
    pub pairs: usize,
    /// Share of the capped slices' time the throttle held the load threads: up to a tenth for an
    /// instrument busy throughout, none for one that never used its quota.
    pub paused: f64,
}

impl Bottleneck {
    /// Reads a probe load of `duration`: its whole slices after the first 240 ms. No answer, and
    /// why, when it has too few. A thread that never used its quota was never
    /// paused: it had a tenth of every period to spare, and its ratio says so.
    pub fn read(slices: &Slices, duration: Duration) -> Result<Bottleneck, String> {
        let whole = ((duration.as_nanos() / SLICE.as_nanos()) as usize).min(slices.bytes.len());
        let b = |i: usize| slices.bytes[i] as f64;
        // Each capped slice against the geometric mean of the free slices on either side, which
        // cancels a drift that runs through the three: the host's stalls last longer than a slice
        // (an HTTP/1.1+TLS load at half its pace for 200 ms), and against the free slice before
        // alone the pairs' spread was 1.1–1.5 times as large. A slice in which no answer
        // completed has its bytes counted in the next one: its trio is left out.
        let logs: Vec<f64> = (SETTLE_PAIRS..whole.saturating_sub(1) / 2)
            .filter(|k| (2 * k..=2 * k + 2).all(|i| slices.bytes[i] > 0))
            .map(|k| b(2 * k + 1).ln() - (b(2 * k).ln() + b(2 * k + 2).ln()) / 2.0)
            .collect();
        if logs.len() < MIN_PAIRS {
            let least = SLICE.as_secs_f64() * (2 * (SETTLE_PAIRS + MIN_PAIRS) + 1) as f64;
            return Err(format!(
                "{} capped slices between free ones, fewer than {MIN_PAIRS}: a probe needs a load of at least {least:.1} s",
                logs.len()
            ));
        }
        let (mean, sd) = mean_sd(&logs);
        // Neighbouring trios share a free slice, and the host's stalls span several: the
        // interval is taken over the effective number of independent trios (lag-1
        // autocorrelation ρ > 0: n (1 − ρ) / (1 + ρ)).
        let n = effective_n(&logs, mean);
        let half = t95((n.floor() as usize).max(2) - 1) * sd / n.sqrt();
        Ok(Bottleneck {
            ratio: mean.exp(),
            lo: (mean - half).exp(),
            hi: (mean + half).exp(),
            pairs: logs.len(),
            paused: slices.paused,
        })
    }

    /// The instrument had room: the cap cost the load less than half of its tenth, surely.
    pub fn cleared(&self) -> bool {
        self.lo >= CLEAR
    }
}

/// The number of independent values `values` (of mean `mean`) are worth, given their lag-1
/// autocorrelation (a negative one is taken as none).
fn effective_n(values: &[f64], mean: f64) -> f64 {
    let n = values.len() as f64;
    let var: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    let cov: f64 = values.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum();
    let rho = if var > 0.0 { (cov / var).clamp(0.0, 0.99) } else { 0.0 };
    n * (1.0 - rho) / (1.0 + rho)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `pairs` pairs of slices alternating `free` and `capped` bytes, then a partial last one,
    /// paused as the cap aims at.
    fn slices(pairs: usize, free: &[u64], capped: &[u64], paused: f64) -> Slices {
        let mut bytes: Vec<u64> = (0..pairs).flat_map(|k| [free[k % free.len()], capped[k % capped.len()]]).collect();
        bytes.push(3);
        Slices { bytes, paused }
    }

    const THREE_S: Duration = Duration::from_millis(3010);

    #[test]
    fn an_instrument_with_room_is_cleared_and_one_that_lost_its_tenth_is_not() {
        let room = Bottleneck::read(&slices(50, &[1000, 1010, 990], &[995, 1005, 1000], 0.1), THREE_S).unwrap();
        assert_eq!(room.pairs, 45, "a 3-s load's capped slices after its first 240 ms, a free one after each");
        assert!(room.cleared() && room.lo < 1.0 && room.hi > 1.0, "{room:?}");
        let bound = Bottleneck::read(&slices(50, &[1000, 1010, 990], &[900, 905, 895], 0.1), THREE_S).unwrap();
        assert!(!bound.cleared() && (bound.ratio - 0.9).abs() < 0.01, "{bound:?}");
    }

    #[test]
    fn a_noisy_probe_keeps_the_flag() {
        let noisy = Bottleneck::read(&slices(20, &[1000], &[1300, 700, 1000], 0.1), THREE_S).unwrap();
        assert!(noisy.lo < CLEAR && !noisy.cleared(), "{noisy:?}");
    }

    #[test]
    fn no_answer_and_why_without_pairs_enough() {
        let brief = Bottleneck::read(&slices(13, &[1000], &[1000], 0.1), THREE_S).unwrap_err();
        assert!(brief.contains("9 capped slices") && brief.contains("0.9 s"), "{brief}");
        // A pair with an empty slice is left out.
        let gaps = Bottleneck::read(&slices(50, &[1000, 1000, 1000, 0], &[1000], 0.1), THREE_S).unwrap();
        assert_eq!(gaps.pairs, 23, "a capped slice beside an empty free one is left out");
        let empty = Bottleneck::read(&slices(50, &[1000, 0, 0, 0, 0, 0, 0, 0], &[1000], 0.1), THREE_S).unwrap_err();
        assert!(empty.contains("0 capped slices"), "{empty}");
        // Slices past the load's duration (its connections' closes) are not pairs.
        assert!(Bottleneck::read(&slices(50, &[1000], &[1000], 0.1), Duration::from_millis(590)).is_err());
    }
}
