//! The run over time: each load repeat's answers, errors and p99 second by second
//! (`timeline.csv`), and a chart of how steady every row was within its repeats: req/s in each
//! tick against the repeat's mean, and p99 in each second against the repeat's median p99, as
//! the middle row and the worst one. Warm-up, pauses and garbage collection show as dips.

use wirebench_core::schema::Timeline;

use crate::charts::lines::{LineAxis, Lines, Panel};
use crate::charts::{compact, Plot, Spec};
use crate::section::{Block, Para, Section};
use crate::table::{Csv, Field};

/// One load repeat's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Repeat {
    pub scenario: String,
    pub repeat: u32,
    pub timeline: Timeline,
}

/// One second of one repeat, as `timeline.csv` has it.
struct Second {
    scenario: String,
    repeat: u32,
    second: usize,
    answers: u64,
    errors: u64,
    /// The second's answers over the ticks it holds (the last second of a repeat is partial).
    rps: f64,
    p99_us: Option<u64>,
}

const CSV: &[Field<Second>] = &[
    ("scenario", |s| s.scenario.clone()),
    ("repeat", |s| s.repeat.to_string()),
    ("second", |s| s.second.to_string()),
    ("answers", |s| s.answers.to_string()),
    ("errors", |s| s.errors.to_string()),
    ("req_per_s", |s| s.rps.to_string()),
    ("p99_us", |s| s.p99_us.map(|v| v.to_string()).unwrap_or_default()),
];

/// The section, or `None` when no repeat kept its timeline (runs from before it was kept).
pub fn section(repeats: &[Repeat]) -> Option<Section> {
    if repeats.is_empty() {
        return None;
    }
    let mut s = Section::new("timeline", "The run over time");
    s.para(
        Para::Plain,
        "Every load repeat counts its answers and errors in each 100 ms from the start of its measurement \
         and times its answers second by second (`timeline.csv`: one line per second of each repeat). The \
         chart shows how steady the rows were inside their repeats: a row that warms up, pauses or collects \
         garbage shows as a tick far below its repeat's mean, or a second far above its median p99.",
    );
    s.push(Block::Chart(chart(repeats)));
    s.csv.push(Csv::of("timeline.csv", CSV, &seconds(repeats)));
    Some(s)
}

fn seconds(repeats: &[Repeat]) -> Vec<Second> {
    let mut out = Vec::new();
    for r in repeats {
        let t = &r.timeline;
        let per_second = (1000 / t.tick_ms.max(1)) as usize;
        let ticks = t.ok.len().max(t.errors.len());
        for (second, first) in (0..ticks).step_by(per_second.max(1)).enumerate() {
            let span = first..(first + per_second).min(ticks);
            let sum = |v: &[u64]| v.get(span.clone()).map_or(0, |x| x.iter().sum::<u64>());
            let answers = sum(&t.ok);
            out.push(Second {
                scenario: r.scenario.clone(),
                repeat: r.repeat,
                second,
                answers,
                errors: sum(&t.errors),
                rps: answers as f64 / (span.len() as f64 * f64::from(t.tick_ms) / 1000.0),
                p99_us: t.p99_us_per_s.get(second).copied().filter(|&v| v > 0),
            });
        }
    }
    out
}

/// The middle and the extreme of `values` (the lowest when `low`, else the highest).
fn middle_and_worst(mut values: Vec<f64>, low: bool) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values[values.len() / 2];
    Some((middle, if low { values[0] } else { values[values.len() - 1] }))
}

fn chart(repeats: &[Repeat]) -> Spec {
    // Each repeat's whole ticks (its last one is partial), as a share of its mean.
    let mut by_tick: Vec<Vec<f64>> = Vec::new();
    let mut by_second: Vec<Vec<f64>> = Vec::new();
    for r in repeats {
        let t = &r.timeline;
        let whole = &t.ok[..t.ok.len().saturating_sub(1)];
        let mean = whole.iter().sum::<u64>() as f64 / whole.len().max(1) as f64;
        if mean > 0.0 {
            for (i, &n) in whole.iter().enumerate() {
                by_tick.resize_with(by_tick.len().max(i + 1), Vec::new);
                by_tick[i].push(n as f64 / mean);
            }
        }
        let p99: Vec<u64> = t.p99_us_per_s[..t.p99_us_per_s.len().saturating_sub(1)].to_vec();
        let mut sorted: Vec<u64> = p99.iter().copied().filter(|&v| v > 0).collect();
        sorted.sort_unstable();
        if let Some(&median) = sorted.get(sorted.len() / 2) {
            for (i, &v) in p99.iter().enumerate().filter(|(_, &v)| v > 0) {
                by_second.resize_with(by_second.len().max(i + 1), Vec::new);
                by_second[i].push(v as f64 / median as f64);
            }
        }
    }
    let tick_s = repeats.first().map_or(0.1, |r| f64::from(r.timeline.tick_ms) / 1000.0);
    let lines_of = |cells: &[Vec<f64>], at: &dyn Fn(usize) -> f64, low: bool, worst: &str| {
        let points: Vec<(f64, (f64, f64))> = cells
            .iter()
            .enumerate()
            .filter_map(|(i, v)| middle_and_worst(v.clone(), low).map(|m| (at(i), m)))
            .collect();
        vec![
            ("the middle row".to_string(), points.iter().map(|&(x, (m, _))| (x, m)).collect()),
            (worst.to_string(), points.iter().map(|&(x, (_, w))| (x, w)).collect()),
        ]
    };
    let mut panels = vec![Panel {
        title: "req/s in each 100 ms ÷ the repeat's mean".into(),
        lines: lines_of(&by_tick, &|i| (i as f64 + 0.5) * tick_s, true, "the lowest row"),
    }];
    if !by_second.is_empty() {
        panels.push(Panel {
            title: "p99 in each second ÷ the repeat's median p99".into(),
            lines: lines_of(&by_second, &|i| i as f64 + 0.5, false, "the highest row"),
        });
    }
    let drawable = Lines { panels: panels.clone(), x: LineAxis::linear("", compact), y: LineAxis::linear("", compact) };
    Spec {
        name: "timeline",
        title: "How steady each row was inside its repeats",
        plot: if drawable.drawable() {
            Ok(Plot::Lines(Lines {
                panels,
                x: LineAxis::linear("seconds into the repeat's measurement", compact),
                y: LineAxis::fit("share of the repeat's own mean or median", compact),
            }))
        } else {
            Err("no repeat lasted two whole ticks".into())
        },
        note: Some(format!(
            "Over {} repeats of every load row: at each instant, the middle row's value and the most extreme \
             one's. 1 is the repeat's own level; the last, partial tick and second of each repeat are left out.",
            repeats.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeat(ok: Vec<u64>, errors: Vec<u64>, p99: Vec<u64>) -> Repeat {
        Repeat { scenario: "a".into(), repeat: 1, timeline: Timeline { tick_ms: 100, ok, errors, p99_us_per_s: p99 } }
    }

    #[test]
    fn seconds_add_up_their_ticks_and_keep_their_p99() {
        // 2.5 s: 25 ticks of 10 answers, an error in tick 12, p99 per second.
        let mut errors = vec![0; 25];
        errors[12] = 1;
        let r = repeat(vec![10; 25], errors, vec![900, 1200, 0]);
        let s = seconds(&[r]);
        let got: Vec<(usize, u64, u64, f64, Option<u64>)> =
            s.iter().map(|x| (x.second, x.answers, x.errors, x.rps, x.p99_us)).collect();
        assert_eq!(got, [(0, 100, 0, 100.0, Some(900)), (1, 100, 1, 100.0, Some(1200)), (2, 50, 0, 100.0, None)]);
    }

    #[test]
    fn the_chart_shows_a_pause_as_the_lowest_rows_dip() {
        let steady = repeat(vec![10; 21], vec![], vec![1000, 1000, 1000]);
        let mut paused = vec![10; 21];
        paused[5] = 0;
        let spec = chart(&[steady, repeat(paused, vec![], vec![1000, 1000, 3000, 1000])]);
        let Ok(Plot::Lines(lines)) = spec.plot else { panic!("lines") };
        let lowest = &lines.panels[0].lines[1].1;
        assert_eq!(lowest.len(), 20, "whole ticks only");
        assert_eq!(lowest[5].1, 0.0, "the pause: {lowest:?}");
        assert!(lowest.iter().enumerate().all(|(i, p)| i == 5 || p.1 >= 1.0), "{lowest:?}");
        let highest = &lines.panels[1].lines[1].1;
        assert_eq!(highest.iter().map(|p| p.1).collect::<Vec<_>>(), [1.0, 1.0, 3.0], "the last second is left out");
    }
}
