//! The pace of a run's rounds: whether the machine kept one speed from the first round to the
//! last. Each round measures every load row once, in a fresh order, so a stretch of the run in
//! which the machine slowed shows as a round most of whose rows ran below their medians at
//! once, where a noisy row moves only itself. Neither the contention sensor nor the probe of the
//! CPUs' speed (`wirebench_core::speed`, at the run's two ends) can see such a stretch: on the
//! 2-core Intel VM of 2026-11-29 a quick protocols run's third round ran at 0.897 of its rows'
//! medians (a quarter of them at 0.742 or below) from its 14th minute on, with steal under
//! 0.11 s per repeat and the probe alike at both ends, where the steady run before it, on
//! another VM, had its three rounds each within 1 % of 1.

use std::collections::BTreeMap;

use wirebench_core::claims::EQUIVALENCE;
use wirebench_core::schema::{Measurement, Status};
use wirebench_core::stats::Summary;

/// Rounds with fewer load rows than this measured in at least `PACE_MIN_ROUNDS` rounds have no
/// pace: a median over a handful of rows is one row's noise.
pub const PACE_MIN_ROWS: usize = 5;

/// A row counts towards the rounds' pace when it has repeats in at least this many rounds, so
/// that its median stands between them.
pub const PACE_MIN_ROUNDS: usize = 3;

/// A load row's repeat that counts: it completed and was not contended (a contended repeat was
/// measured again, and the new line counts).
pub fn is_load_repeat(m: &Measurement) -> bool {
    m.transport.is_some() && m.status == Status::Ok && m.metrics.contended != Some(true)
}

/// How fast each round ran against the run as a whole: for every load row with an uncontended
/// repeat in at least `PACE_MIN_ROUNDS` rounds, each repeat's req/s over the row's median; a
/// round's pace is the median of its repeats' ratios (`is_load_repeat` says which count).
pub fn round_pace(measurements: &[Measurement]) -> Vec<(u32, f64)> {
    let mut rows: BTreeMap<&str, Vec<(u32, f64)>> = BTreeMap::new();
    for m in measurements {
        if !is_load_repeat(m) {
            continue;
        }
        if let Some(rps) = m.metrics.rps.filter(|r| r.is_finite() && *r > 0.0) {
            rows.entry(m.scenario.as_str()).or_default().push((m.repeat, rps));
        }
    }
    let mut rounds: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for repeats in rows.values().filter(|r| r.len() >= PACE_MIN_ROUNDS) {
        let rps: Vec<f64> = repeats.iter().map(|r| r.1).collect();
        let Some(median) = Summary::of(&rps).map(|s| s.median) else { continue };
        for &(round, rps) in repeats {
            rounds.entry(round).or_default().push(rps / median);
        }
    }
    rounds
        .into_iter()
        .filter(|(_, ratios)| ratios.len() >= PACE_MIN_ROWS)
        .filter_map(|(round, ratios)| Summary::of(&ratios).map(|s| (round, s.median)))
        .collect()
}

/// The round whose pace lies furthest from 1, when it lies beyond the band inside which two runs
/// of this machine agree (`EQUIVALENCE`): a slower stretch than the "no difference"
/// verdict allows for between runs.
pub fn off_pace(paces: &[(u32, f64)]) -> Option<(u32, f64)> {
    let band = EQUIVALENCE;
    paces
        .iter()
        .copied()
        .filter(|&(_, p)| p < 1.0 / band || p > band)
        .max_by(|a, b| a.1.ln().abs().total_cmp(&b.1.ln().abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fixture::{self, Spec};

    const ROWS: [&str; 8] = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"];

    /// A load row's repeat, as the runner writes it.
    fn repeat(scenario: &'static str, round: u32, rps: f64) -> Measurement {
        fixture::measurement(&Spec::new(scenario, "http1", "1KB", &[]), round, Ok(rps))
    }

    /// Eight rows over three rounds, each row at its own rate; `third` scales every row's third
    /// repeat, and row `r0` is noisy on its own in round 1.
    fn run(third: f64) -> Vec<Measurement> {
        let mut out = Vec::new();
        for (row, id) in ROWS.into_iter().enumerate() {
            let rate = 1000.0 * (row + 1) as f64;
            let noise = if row == 0 { 0.6 } else { 1.0 };
            out.push(repeat(id, 1, rate * noise));
            out.push(repeat(id, 2, rate * 1.01));
            out.push(repeat(id, 3, rate * third));
        }
        out
    }

    #[test]
    fn a_round_the_machine_ran_slow_in_is_off_pace_and_one_noisy_row_is_not() {
        let steady = round_pace(&run(0.99));
        assert_eq!(steady.len(), 3, "{steady:?}");
        assert!(steady.iter().all(|&(_, p)| (0.98..=1.02).contains(&p)), "{steady:?}");
        assert_eq!(off_pace(&steady), None);
        let slow = round_pace(&run(0.8));
        let (round, pace) = off_pace(&slow).expect("round 3 ran at 0.8");
        assert_eq!(round, 3, "{slow:?}");
        assert!((pace - 0.8).abs() < 1e-9, "{slow:?}");
        // Faster is off pace too: then the other rounds ran slow.
        let fast = round_pace(&run(1.3));
        assert_eq!(off_pace(&fast).map(|p| p.0), Some(3), "{fast:?}");
    }

    #[test]
    fn contended_repeats_harnesses_and_thin_rows_have_no_pace() {
        // The slow round's repeats were contended, and each was measured again at the row's pace.
        let mut ms = run(0.8);
        let again: Vec<Measurement> = ms
            .iter_mut()
            .filter(|m| m.repeat == 3)
            .map(|m| {
                m.metrics.contended = Some(true);
                let mut m = m.clone();
                m.metrics.contended = Some(false);
                m.metrics.rps = m.metrics.rps.map(|r| r / 0.8);
                m
            })
            .collect();
        ms.extend(again);
        assert_eq!(off_pace(&round_pace(&ms)), None, "{:?}", round_pace(&ms));
        let harness: Vec<Measurement> = run(0.8)
            .into_iter()
            .map(|mut m| {
                m.transport = None;
                m
            })
            .collect();
        assert_eq!(round_pace(&harness), Vec::new(), "in-process rows time their own work");
        let few: Vec<Measurement> = run(0.8).into_iter().filter(|m| m.scenario.as_str() < "r4").collect();
        assert_eq!(round_pace(&few), Vec::new(), "four rows are under PACE_MIN_ROWS");
        let two_rounds: Vec<Measurement> = run(0.8).into_iter().filter(|m| m.repeat < 3).collect();
        assert_eq!(round_pace(&two_rounds), Vec::new(), "a row needs three rounds for its median");
    }
}
