//! What the report says, computed once from a results directory: the run, the suite as it ran,
//! its rows, the judged claims and what the reader must know first; and the sections, in reading
//! order: the load rows' (`load`), the claims, every lab's (`labs::LABS`) and the method.

use std::path::Path;

use wirebench_core::claims::{judge_at, Judged};
use wirebench_core::results::{Results, ScenarioSummary, RUN_FILE};
use wirebench_core::schema::RunInfo;
use wirebench_core::speed;
use wirebench_core::stats::ALPHA;
use wirebench_core::suite::{Claim, PublishedTable, Suite};

use crate::charts::lines::{LineAxis, Lines, Panel};
use crate::charts::{Plot, Spec};
use crate::error::ReportError;
use crate::labs::LABS;
use crate::section::{Block, Para, Run, Section};
use crate::table::Text;
use crate::{claims, load, numbers, pace, published, timeline};

/// A results directory, summarised.
#[derive(Debug, Clone)]
pub struct Report {
    pub run: RunInfo,
    /// `run.json`'s `parameters` read back as a suite, or why that failed (then no claims).
    pub suite: Result<Suite, String>,
    /// One summary per scenario, in the order they ran.
    pub rows: Vec<ScenarioSummary>,
    pub claims: Vec<Judged>,
    /// The suite file the claims were taken from, when not the run's own (`--claims`).
    pub claims_from: Option<String>,
    /// The study's tables to show beside our rows: the run's suite's, or `--claims`'s suite's.
    pub published: Vec<PublishedTable>,
    /// The number of a cut-off last line of `measurements.jsonl` that was left out, if any.
    pub torn_last_line: Option<usize>,
    /// Every sensed repeat in the order of the run: when it was written, the share of the run's
    /// CPUs that foreign work took during it, and whether that made it contended.
    pub foreign: Vec<Sensed>,
    /// Every load repeat's run over time, in the order of the run (contended ones left out).
    pub timelines: Vec<timeline::Repeat>,
    /// Each round's pace against its rows' medians (`pace::round_pace`); empty for a run with
    /// too few rows or rounds to tell.
    pub pace: Vec<(u32, f64)>,
}

/// One repeat's foreign work, where the run sensed it and stamped its time (`at_s`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sensed {
    pub at_s: f64,
    pub share: f64,
    pub contended: bool,
}

/// Something the reader must know about the run as a whole, before any number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunWarning {
    pub title: &'static str,
    pub detail: String,
}

impl Report {
    /// Reads `dir` (`run.json` and `measurements.jsonl`) and summarises it, judging `claims`
    /// instead of the run's own when given.
    pub fn read(dir: &Path, claims: Option<&ClaimsFrom>) -> Result<Report, ReportError> {
        Ok(Report::of(read_results(dir)?, claims))
    }

    /// Summarises results already read.
    pub fn of(results: Results, claims_from: Option<&ClaimsFrom>) -> Report {
        let rows = results.summaries();
        let suite = suite_of(&results.run.parameters)
            .map_err(|e| format!("run.json parameters are not a suite ({e}): claims cannot be judged"));
        // A sequential run judged its claims at a corrected level at each look; so does its report.
        let alpha = results.run.sequential.as_ref().map_or(ALPHA, |s| s.claim_alpha);
        let claims = match (claims_from, &suite) {
            (Some(from), _) => from.claims.iter().map(|c| judge_at(c, &rows, alpha)).collect(),
            (None, Ok(s)) => s.claims.iter().map(|c| judge_at(c, &rows, alpha)).collect(),
            (None, Err(_)) => Vec::new(),
        };
        let published = match (claims_from, &suite) {
            (Some(from), _) => from.published.clone(),
            (None, Ok(s)) => s.published.clone(),
            (None, Err(_)) => Vec::new(),
        };
        let claims_from = claims_from.map(|c| c.file.clone());
        let mut foreign: Vec<Sensed> = results
            .measurements
            .iter()
            .filter_map(|m| {
                let x = &m.metrics;
                Some(Sensed { at_s: x.at_s?, share: x.foreign_share?, contended: x.contended == Some(true) })
            })
            .collect();
        foreign.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
        let timelines = results
            .measurements
            .iter()
            .filter(|m| pace::is_load_repeat(m))
            .filter_map(|m| {
                let timeline = m.metrics.timeline.clone()?;
                Some(timeline::Repeat { scenario: m.scenario.clone(), repeat: m.repeat, timeline })
            })
            .collect();
        let pace = pace::round_pace(&results.measurements);
        let torn_last_line = results.torn_last_line;
        Report {
            run: results.run,
            suite,
            rows,
            claims,
            claims_from,
            published,
            torn_last_line,
            foreign,
            timelines,
            pace,
        }
    }

    /// Every section in reading order: the headline, the claims, the load rows' table, steps and
    /// charts, each lab's section, and the method.
    pub fn sections(&self) -> Vec<Section> {
        let run = Run { repeats: self.run.repeats, published: &self.published };
        let rows: Vec<&ScenarioSummary> = self.rows.iter().collect();
        let mut load = load::sections(&rows, &run).into_iter();
        let mut out: Vec<Section> = load.next().into_iter().collect();
        out.push(claims::section(&self.claims, self.claims_from.as_deref(), self.run.sequential.as_ref()));
        out.extend(published::section(&self.published, &self.rows));
        out.extend(load);
        out.extend(timeline::section(&self.timelines));
        for lab in LABS {
            let mine: Vec<&ScenarioSummary> = rows.iter().copied().filter(|s| s.lab == lab.id()).collect();
            if !mine.is_empty() {
                out.extend(lab.section(&mine, &run));
            }
        }
        out.push(self.method());
        out
    }

    /// How the numbers were made.
    fn method(&self) -> Section {
        let mut s = Section::new("method", "Method");
        let load = self.rows.iter().any(|r| r.transport.is_some());
        let more = match &self.run.sequential {
            Some(q) if !q.rounds.is_empty() => {
                format!(
                    ", the rows of undecided claims up to {} times",
                    q.rounds.last().map_or(q.min_repeats, |r| r.repeat)
                )
            }
            _ => String::new(),
        };
        let mut text = Text::plain(format!("Each scenario ran {} times (profile ", self.run.repeats))
            .and_code(self.run.profile.as_str())
            .and(more)
            .and(
                "). Numbers are the median over those repeats; the range beside them is the 95 % confidence \
                 interval of the mean (Student's t), which narrows as repeats are added and is absent with one \
                 repeat. ",
            );
        if load {
            text = text.and(
                "In the closed model each stream sends its next request as soon as the previous one is answered, \
                 so req/s is the capacity at that concurrency; in the open model requests arrive at a fixed rate \
                 and latency is measured from each request's intended send time, so it is corrected for \
                 coordinated omission. ",
            );
        }
        text = text.and(
            "A claim is confirmed only when its whole interval satisfies it and, where the study gave a number, \
             lies within its band around that number (×/÷ 1.5 unless the claim sets its own); it differs in size \
             when the direction holds but the whole interval lies outside the band, and is refuted only when its \
             whole interval contradicts it. A claim over every case takes its weakest case's verdict. Ratios of \
             rows measured in the same repeats take the geometric mean of the per-repeat ratios, otherwise the \
             conservative interval (low ÷ high to high ÷ low).",
        );
        if load {
            text = text
                .and(" The headline ranks closed-model scenarios only, since open-model req/s is the offered rate.");
        }
        s.para(Para::Plain, text);
        if let Some(rounds) = &self.run.rounds {
            s.para(Para::Plain, rounds_text(rounds, &self.rows));
        }
        if self.foreign.len() >= 2 {
            s.push(Block::Chart(foreign_chart(&self.foreign)));
        }
        if let Ok(suite) = &self.suite {
            let remote: Vec<String> = suite
                .subjects
                .iter()
                .filter(|(_, x)| x.pid.is_none())
                .filter_map(|(n, x)| x.url.as_ref().map(|u| format!("{n} ({u})")))
                .collect();
            if !remote.is_empty() {
                s.para(
                    Para::Plain,
                    format!(
                        "Servers wirebench did not start: {}. Their side (CPU, memory) was not measured, so their rows \
                         show none, and such a row is flagged instrument-bound only when our client used all of its \
                         own CPUs. Every answer was still verified against its scenario's `expect` before any was timed.",
                        remote.join(", ")
                    ),
                );
            }
        }
        if !self.run.links.is_empty() {
            s.para(Para::Plain, links_text(&self.run.links));
        }
        s
    }

    /// The run did not finish, a measurement line was cut off, the suite could not be read, or rows
    /// name a lab the report does not know.
    pub fn warnings(&self) -> Vec<RunWarning> {
        let mut out = Vec::new();
        if self.run.finished_at.is_none() {
            out.push(RunWarning {
                title: "The run did not finish.",
                detail: "Scenarios after the interruption are missing.".into(),
            });
        }
        if let Some(line) = self.torn_last_line {
            out.push(RunWarning {
                title: "A measurement was cut off.",
                detail: format!(
                    "Line {line} of measurements.jsonl was being written when the runner stopped; it is left out."
                ),
            });
        }
        if let (Err(why), None) = (&self.suite, &self.claims_from) {
            out.push(RunWarning { title: "Claims not judged.", detail: why.clone() });
        }
        let contended: Vec<&ScenarioSummary> = self.rows.iter().filter(|r| r.contended > 0).collect();
        if !contended.is_empty() {
            let repeats: usize = contended.iter().map(|r| r.contended).sum();
            let share = wirebench_core::contention::CONTENDED_SHARE * 100.0;
            let lost: Vec<&ScenarioSummary> = contended.iter().copied().filter(|r| r.lost_repeats > 0).collect();
            let missing = match lost.iter().map(|r| r.lost_repeats).sum::<usize>() {
                0 => String::new(),
                n => format!(
                    " {n} repeats of {} rows were contended on every try and are missing: a claim on a row left \
                     with too few repeats for an interval is not judged.",
                    lost.len()
                ),
            };
            out.push(RunWarning {
                title: "Other processes were busy during the run.",
                detail: format!(
                    "{repeats} repeats of {} rows were measured while work outside the run took over {share:.0} % \
                     of the subject's or the load's CPUs (or the hypervisor took it). Each was measured again; \
                     none is in a number or a verdict. The rows are flagged `contended`.{missing}",
                    contended.len()
                ),
            });
        }
        if let Some((ratio, cpu)) = speed::spread(&self.run.cpu_speed).filter(|&(r, _)| r > speed::UNSTEADY) {
            out.push(RunWarning {
                title: "The machine's CPUs ran at unsteady speeds.",
                detail: format!(
                    "The same fixed work, timed on each of the run's CPUs when it started and when it ended, took \
                     {ratio:.2}× as long on CPU {cpu} as on the fastest (over {:.2}× counts): with no process or steal \
                     the kernel could see, another guest of this host or its clock slowed a core. Rows may not agree \
                     with a second run; the noisy flags show which varied within this one.",
                    speed::UNSTEADY
                ),
            });
        }
        if let Some((round, pace)) = pace::off_pace(&self.pace) {
            let others: Vec<String> = self
                .pace
                .iter()
                .filter(|&&(r, _)| r != round)
                .map(|&(r, p)| format!("round {r} {}", numbers::ratio(p)))
                .collect();
            out.push(RunWarning {
                title: "The machine's pace changed between rounds.",
                detail: format!(
                    "In round {round} the median row ran at {} of its own median req/s ({}), beyond the {:.0} % \
                     within which two runs of this machine agree. Most rows moved at once, which one noisy row cannot \
                     do: for a stretch of the run the machine itself ran at another pace, whether or not steal, \
                     foreign work or the probe of the CPUs' speed showed it. The rounds spread it over every row, so \
                     it widens intervals rather than favouring a row; a second run may not agree.",
                    numbers::ratio(pace),
                    others.join(", "),
                    (wirebench_core::claims::EQUIVALENCE - 1.0) * 100.0
                ),
            });
        }
        let mut unknown: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| r.transport.is_none() && !LABS.iter().any(|l| l.id() == r.lab))
            .map(|r| r.lab.as_str())
            .collect();
        unknown.dedup();
        if !unknown.is_empty() {
            out.push(RunWarning {
                title: "Rows of an unknown lab.",
                detail: format!(
                    "Rows of lab {} have no section in this report; they are in measurements.jsonl.",
                    unknown.join(", ")
                ),
            });
        }
        out
    }

    /// Scenarios with a failed repeat.
    pub fn failed_scenarios(&self) -> usize {
        self.rows.iter().filter(|r| r.error.is_some()).count()
    }

    /// The suite's description, if the suite could be read.
    pub fn description(&self) -> Option<&str> {
        self.suite.as_ref().ok().map(|s| s.description.as_str()).filter(|d| !d.is_empty())
    }
}

/// Claims to judge a run by instead of those it ran with (`wirebench report --claims SUITE`):
/// a suite's claims as written today, judged on an earlier run's measurements.
#[derive(Debug, Clone)]
pub struct ClaimsFrom {
    /// The suite file, as the reader should see it named.
    pub file: String,
    pub claims: Vec<Claim>,
    /// The suite's tables of the study's numbers (`[[published]]`), shown with the claims.
    pub published: Vec<PublishedTable>,
}

impl ClaimsFrom {
    /// The claims and tables of `suite`, loaded from `file`.
    pub fn of(file: String, suite: Suite) -> ClaimsFrom {
        ClaimsFrom { file, claims: suite.claims, published: suite.published }
    }
}

/// `Results::read`, with a missing `run.json` reported as "not a results directory".
pub fn read_results(dir: &Path) -> Result<Results, ReportError> {
    let run = dir.join(RUN_FILE);
    if !run.is_file() {
        return Err(ReportError::NotResults { run_file: run.display().to_string() });
    }
    Ok(Results::read(dir)?)
}

/// The suite as it ran, from `run.json`'s `parameters`.
fn suite_of(parameters: &serde_json::Value) -> Result<Suite, serde_json::Error> {
    serde_json::from_value(parameters.clone())
}

/// How the load rows were interleaved, and how much foreign work the run met.
fn rounds_text(rounds: &wirebench_core::schema::Rounds, rows: &[ScenarioSummary]) -> Text {
    let contended: usize = rows.iter().map(|r| r.contended).sum();
    let busiest = rows
        .iter()
        .filter_map(|r| r.get("foreign_share"))
        .map(|s| s.median)
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    let mut text = Text::plain("");
    if !rounds.order.is_empty() {
        text = text.and(format!(
            "Load rows ran in {} rounds: each round measured every row once, its warm-up and then one repeat, in an \
             order drawn afresh for the round (seed {}; `wirebench run --seed {}` draws the same orders), so that the \
             machine's drift over the run falls inside each row's interval and a claim's pairs are rows of the same \
             round. {} subjects stayed up across the rounds; {} were started for their rows in each round (behind a \
             network link, or using a service whose state other subjects share). ",
            rounds.order.len(),
            rounds.seed,
            rounds.seed,
            rounds.kept_up.len(),
            rounds.restarted.len()
        ));
    }
    if !rounds.harnesses.is_empty() {
        text = text.and(format!(
            "Harnesses ran in {} rounds, in an order drawn afresh for each round (seed {}); a harness measures its own \
             rows side by side in one process, and a round in which it printed a contended line ran again, keeping \
             only the contended rows' new lines. ",
            rounds.harnesses.len(),
            rounds.seed
        ));
    }
    text = text.and(match (contended, busiest) {
        (0, Some(b)) => format!(
            "No repeat was contended: work outside the run took at most {} of the run's CPUs in a row's median repeat.",
            numbers::percent(b)
        ),
        (0, None) => "Foreign work on the run's CPUs was not sensed.".to_string(),
        (n, _) => format!("{n} repeats were contended and measured again (the warning above)."),
    });
    text
}

/// The foreign work of each sensed repeat against the time into the run, with the share above
/// which a repeat is contended: a machine busy for a stretch of the run shows where.
fn foreign_chart(sensed: &[Sensed]) -> Spec {
    let limit = wirebench_core::contention::CONTENDED_SHARE * 100.0;
    let last = sensed.last().map_or(0.0, |p| p.at_s);
    let contended = sensed.iter().filter(|p| p.contended).count();
    let peak = sensed.iter().map(|p| p.share).fold(0.0, f64::max);
    let lines = vec![
        ("foreign work in each repeat".to_string(), sensed.iter().map(|p| (p.at_s, p.share * 100.0)).collect()),
        (format!("contended above {limit:.0} %"), vec![(0.0, limit), (last, limit)]),
    ];
    Spec {
        name: "foreign",
        title: "Work outside the run on its CPUs, repeat by repeat",
        plot: Ok(Plot::Lines(Lines {
            panels: vec![Panel { title: String::new(), lines }],
            x: LineAxis::linear("seconds into the run", crate::charts::compact),
            y: LineAxis::linear("% of the run's CPUs (foreign work and steal)", crate::charts::compact),
        })),
        note: Some(format!(
            "{} repeats sensed; {}; the busiest took {} of the run's CPUs.",
            sensed.len(),
            match contended {
                0 => "none contended".to_string(),
                n => format!("{n} contended, each measured again"),
            },
            numbers::percent(peak)
        )),
    }
}

/// What the run's network links were asked to be and what a check observed when each was made.
fn links_text(links: &[wirebench_core::schema::LinkFacts]) -> Text {
    let pct = |x: f64| format!("{:.2} %", x * 100.0);
    let mut text = Text::plain(
        "Rows with a link crossed one of ours between the load and the subject (docs/METHODOLOGY.md, \"Network \
         conditions\"), measured when it was made: ",
    );
    for (i, l) in links.iter().enumerate() {
        if i > 0 {
            text = text.and("; ");
        }
        text = text.and_code(l.net.as_str()).and(format!(
            ": round trip {:.2} ms at the median (p99 {:.2}, {} of {} probes), loss {} [{}, {}] client → server, \
             {} [{}, {}] server → client",
            l.rtt_median_ms,
            l.rtt_p99_ms,
            l.rtt_answered,
            l.rtt_probes,
            pct(l.loss_up.observed),
            pct(l.loss_up.low),
            pct(l.loss_up.high),
            pct(l.loss_down.observed),
            pct(l.loss_down.low),
            pct(l.loss_down.high),
        ));
    }
    text.and(".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    /// A run with interleaved rounds, one of whose repeats other processes contended: the first
    /// screen says so, the row is flagged, the repeat is in no number, and the method tells the
    /// rounds and their seed.
    #[test]
    fn contended_repeats_are_named_before_any_number_and_rounds_in_the_method() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut results = read_results(dir.path()).unwrap();
        let order = vec![wirebench_core::schema::RoundOrder { repeat: 1, rows: vec![] }];
        results.run.rounds = Some(wirebench_core::schema::Rounds {
            seed: 42,
            kept_up: vec!["a".into()],
            restarted: vec![],
            order,
            harnesses: vec![],
        });
        let first = results.measurements[0].scenario.clone();
        let before = Report::of(results.clone(), None);
        let rps_before = before.rows.iter().find(|r| r.scenario == first).unwrap().get("rps").unwrap().median;
        assert!(before.warnings().iter().all(|w| !w.title.contains("busy")), "no warning without contention");
        // The row's first repeat again, with twice the rate, while other processes were busy.
        let mut busy = results.measurements[0].clone();
        busy.metrics.rps = busy.metrics.rps.map(|r| r * 2.0);
        (busy.metrics.contended, busy.metrics.foreign_share) = (Some(true), Some(0.45));
        results.measurements.insert(0, busy);
        for m in results.measurements.iter_mut().skip(1) {
            (m.metrics.contended, m.metrics.foreign_share) = (Some(false), Some(0.01));
        }
        let r = Report::of(results.clone(), None);
        let row = r.rows.iter().find(|r| r.scenario == first).unwrap();
        assert_eq!(
            (row.contended, row.get("rps").unwrap().median),
            (1, rps_before),
            "the contended repeat is left out"
        );
        let warnings = r.warnings();
        let busy = warnings.iter().find(|w| w.title == "Other processes were busy during the run.").unwrap();
        assert!(busy.detail.starts_with("1 repeats of 1 rows were measured while work outside the run took over 15 %"));
        assert!(!busy.detail.contains("every try"), "measured again quietly, nothing is missing: {}", busy.detail);
        assert!(load::Row::of(row).flags.contains(&load::CONTENDED));
        let method = format!("{:?}", r.method());
        assert!(
            method.contains("seed 42; `wirebench run --seed 42`") && method.contains("1 repeats were contended"),
            "{method}"
        );
        // Every try of that repeat contended: the row is a repeat short, and the warning says so.
        let repeat = results.measurements[0].repeat;
        for m in results.measurements.iter_mut().filter(|m| m.scenario == first && m.repeat == repeat) {
            m.metrics.contended = Some(true);
        }
        let r = Report::of(results, None);
        let row = r.rows.iter().find(|r| r.scenario == first).unwrap();
        assert_eq!((row.lost_repeats, row.contended), (1, 2), "{row:?}");
        let warnings = r.warnings();
        let busy = warnings.iter().find(|w| w.title == "Other processes were busy during the run.").unwrap();
        assert!(
            busy.detail.ends_with(
                "1 repeats of 1 rows were contended on every try and are missing: a claim on a row left with too \
                 few repeats for an interval is not judged."
            ),
            "{}",
            busy.detail
        );
    }

    /// A core that ran the probe's work slower than the others gives a warning before any number;
    /// probes within the band, or none (a run from before the probe), give none.
    #[test]
    fn a_core_slowed_by_the_host_is_named_before_any_number() {
        use wirebench_core::schema::CpuProbe;
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut results = read_results(dir.path()).unwrap();
        let unsteady = |r: &Report| r.warnings().into_iter().find(|w| w.title.contains("unsteady"));
        assert!(unsteady(&Report::of(results.clone(), None)).is_none(), "no probe, no warning");
        let probe = |at: &str, cpu, us| CpuProbe { at: at.into(), cpu, slices_us: vec![us; 8] };
        results.run.cpu_speed =
            vec![probe("start", 0, 8000), probe("start", 1, 8100), probe("end", 0, 8000), probe("end", 1, 9000)];
        assert!(unsteady(&Report::of(results.clone(), None)).is_none(), "1.125x is within the band");
        results.run.cpu_speed[3].slices_us = vec![12_000; 8];
        let w = unsteady(&Report::of(results, None)).expect("a warning at 1.5x");
        assert!(w.detail.contains("took 1.50× as long on CPU 1 as on the fastest (over 1.18× counts)"), "{}", w.detail);
    }

    /// A round most of whose rows ran below their medians warns, naming every round's pace; rounds
    /// within the band between two runs do not.
    #[test]
    fn a_round_off_pace_warns_and_names_each_rounds_pace() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut report = Report::of(read_results(dir.path()).unwrap(), None);
        let pace = |r: &Report| r.warnings().into_iter().find(|w| w.title.contains("pace"));
        report.pace = vec![(1, 1.0), (2, 1.01), (3, 0.97)];
        assert!(pace(&report).is_none(), "0.97 is inside the 5 % band");
        report.pace = vec![(1, 1.0), (2, 1.01), (3, 0.897)];
        let w = pace(&report).expect("a warning at 0.897");
        assert!(w.detail.starts_with("In round 3 the median row ran at 0.897× of its own median req/s (round 1 1.00×, round 2 1.01×), beyond the 5 %"), "{}", w.detail);
    }

    /// Repeats stamped with their time and foreign share give the Method a chart of the foreign
    /// work against time, with the line above which a repeat is contended; lines without a stamp
    /// (runs from before) give none.
    #[test]
    fn the_method_charts_foreign_work_against_time_where_repeats_were_stamped() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut results = read_results(dir.path()).unwrap();
        let chart = |r: &Report| {
            r.method().blocks.iter().find_map(|b| match b {
                Block::Chart(spec) => Some(spec.clone()),
                _ => None,
            })
        };
        assert!(chart(&Report::of(results.clone(), None)).is_none(), "no stamps, no chart");
        let n = results.measurements.len();
        for (i, m) in results.measurements.iter_mut().enumerate() {
            // Every repeat quiet but the third, which a busy process shared.
            let share = if i == 2 { 0.45 } else { 0.02 };
            (m.metrics.at_s, m.metrics.foreign_share, m.metrics.contended) =
                (Some(10.0 * (n - i) as f64), Some(share), Some(i == 2));
        }
        let r = Report::of(results, None);
        assert_eq!(r.foreign.first().map(|p| p.at_s), Some(10.0), "in the order of the run");
        let spec = chart(&r).expect("a chart of the foreign work");
        let Ok(Plot::Lines(lines)) = &spec.plot else { panic!("lines") };
        let [work, limit] = &lines.panels[0].lines[..] else { panic!("two lines") };
        assert_eq!(work.1.len(), n);
        assert!(work.1.windows(2).all(|w| w[0].0 < w[1].0), "against time");
        assert!(work.1.contains(&(10.0 * (n - 2) as f64, 45.0)), "{:?}", work.1);
        assert_eq!(limit.1, [(0.0, 15.0), (10.0 * n as f64, 15.0)]);
        let note = spec.note.unwrap();
        assert!(note.starts_with(&format!("{n} repeats sensed; 1 contended, each measured again")), "{note}");
        assert!(note.ends_with("took 45.0 % of the run's CPUs."), "{note}");
    }

    #[test]
    fn parameters_that_are_not_a_suite_leave_claims_out_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        fixture::standard(dir.path());
        let mut results = read_results(dir.path()).unwrap();
        results.run.parameters = serde_json::json!({"scenarios": 3});
        let r = Report::of(results, None);
        assert!(r.claims.is_empty());
        assert!(r.suite.unwrap_err().contains("not a suite"));
    }

    #[test]
    fn rows_go_to_the_section_of_their_lab() {
        let dir = tempfile::tempdir().unwrap();
        fixture::every_lab(dir.path());
        let r = Report::read(dir.path(), None).unwrap();
        let ids: Vec<String> = r.sections().iter().map(|s| s.id.clone()).collect();
        assert_eq!(
            ids,
            [
                "headline",
                "claims-section",
                "published",
                "scenarios-section",
                "steps",
                "charts",
                "protocols",
                "restcache",
                "formats-section",
                "parse",
                "realtime",
                "wasm",
                "method"
            ]
        );
        assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    }
}
