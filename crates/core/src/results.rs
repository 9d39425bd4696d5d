//! A results directory: `run.json` and `measurements.jsonl`, written as measured and read back
//! for reports and comparisons; per-scenario summaries over the repeats.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use crate::metrics::{value, Read, METRICS};
use crate::schema::{Measurement, RunInfo, Status};
use crate::stats::Summary;

pub const RUN_FILE: &str = "run.json";
pub const MEASUREMENTS_FILE: &str = "measurements.jsonl";

#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: line {line}: not a measurement: {message}")]
    BadLine { path: String, line: usize, message: String },
    #[error("{path}: not a run description: {message}")]
    BadRun { path: String, message: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ResultsError + '_ {
    move |source| ResultsError::Io { path: path.display().to_string(), source }
}

/// Appends measurements to `measurements.jsonl`, one flushed line each, so Ctrl-C, a crash or
/// SIGKILL of the runner loses nothing already measured.
pub struct ResultsWriter {
    dir: PathBuf,
    file: File,
}

impl ResultsWriter {
    pub fn create(dir: &Path, info: &RunInfo) -> Result<ResultsWriter, ResultsError> {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let writer = ResultsWriter {
            dir: dir.to_path_buf(),
            file: OpenOptions::new().create(true).append(true).open(dir.join(MEASUREMENTS_FILE)).map_err(io(dir))?,
        };
        writer.write_run(info)?;
        Ok(writer)
    }

    /// (Re)writes `run.json` atomically (write, then rename).
    pub fn write_run(&self, info: &RunInfo) -> Result<(), ResultsError> {
        let tmp = self.dir.join("run.json.tmp");
        let text = serde_json::to_string_pretty(info).expect("RunInfo serializes") + "\n";
        std::fs::write(&tmp, text).map_err(io(&tmp))?;
        std::fs::rename(&tmp, self.dir.join(RUN_FILE)).map_err(io(&self.dir))
    }

    pub fn append(&mut self, m: &Measurement) -> Result<(), ResultsError> {
        let mut line = serde_json::to_vec(m).expect("Measurement serializes");
        line.push(b'\n');
        // One write call per line: a kill between lines leaves only whole lines behind.
        self.file.write_all(&line).map_err(io(&self.dir))?;
        self.file.flush().map_err(io(&self.dir))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// A results directory read back.
#[derive(Debug, Clone)]
pub struct Results {
    pub dir: PathBuf,
    pub run: RunInfo,
    pub measurements: Vec<Measurement>,
    /// The number of a cut-off last line of `measurements.jsonl` that was left out, if any.
    pub torn_last_line: Option<usize>,
}

impl Results {
    /// Reads a results directory. A torn last line (the runner was killed mid-write) is skipped.
    pub fn read(dir: &Path) -> Result<Results, ResultsError> {
        let run_path = dir.join(RUN_FILE);
        let text = std::fs::read_to_string(&run_path).map_err(io(&run_path))?;
        let run: RunInfo = serde_json::from_str(&text)
            .map_err(|e| ResultsError::BadRun { path: run_path.display().to_string(), message: e.to_string() })?;
        let path = dir.join(MEASUREMENTS_FILE);
        let file = File::open(&path).map_err(io(&path))?;
        let lines: Vec<String> = BufReader::new(file).lines().collect::<Result<_, _>>().map_err(io(&path))?;
        let mut measurements = Vec::new();
        let mut torn_last_line = None;
        for (i, line) in lines.iter().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(line) {
                Ok(m) => measurements.push(m),
                Err(_) if i + 1 == lines.len() => torn_last_line = Some(i + 1),
                Err(e) => {
                    return Err(ResultsError::BadLine {
                        path: path.display().to_string(),
                        line: i + 1,
                        message: e.to_string(),
                    })
                }
            }
        }
        Ok(Results { dir: dir.to_path_buf(), run, measurements, torn_last_line })
    }

    /// One summary per scenario, in the order scenarios first appear.
    pub fn summaries(&self) -> Vec<ScenarioSummary> {
        let mut order: Vec<&str> = self.load_rows_in_order();
        let mut by: BTreeMap<&str, Vec<&Measurement>> = BTreeMap::new();
        for m in &self.measurements {
            by.entry(&m.scenario).or_default().push(m);
        }
        order.retain(|id| by.contains_key(id));
        for m in &self.measurements {
            if !order.contains(&m.scenario.as_str()) {
                order.push(&m.scenario);
            }
        }
        order.into_iter().map(|id| ScenarioSummary::of(&by[id], &self.run.suite)).collect()
    }

    /// The load rows in the order reports list them: as a run measured them before rounds were
    /// interleaved, each subject's rows together (subjects in the order their first row is
    /// planned, on loopback or behind one link setting), so a report's tables read the same
    /// whatever order a run drew. Empty for a run from before rounds (its lines are in that
    /// order already).
    fn load_rows_in_order(&self) -> Vec<&str> {
        if self.run.rounds.is_none() {
            return Vec::new();
        }
        let planned = self.run.parameters.get("scenarios").and_then(|s| s.as_array()).map_or(&[][..], Vec::as_slice);
        let unit = |s: &serde_json::Value| (s.get("subject").cloned(), s.get("net").cloned());
        let mut units = Vec::new();
        for s in planned {
            if !units.contains(&unit(s)) {
                units.push(unit(s));
            }
        }
        units
            .iter()
            .flat_map(|u| planned.iter().filter(move |s| unit(s) == *u))
            .filter_map(|s| s.get("id")?.as_str())
            .collect()
    }
}

/// Everything the report says about one scenario.
#[derive(Debug, Clone)]
pub struct ScenarioSummary {
    pub scenario: String,
    pub subject: String,
    pub lang: String,
    /// The lab the rows belong to (`protocols`, `formats`, `parse`, ...).
    pub lab: String,
    /// A load row's transport (`h1`, `h2c`, `h2+tls`, `h3`, ...): the load engine's rows have
    /// one, a harness's rows (in-process, browser) none.
    pub transport: Option<String>,
    /// The network link the rows crossed (`rtt=40ms,loss=1%`); `None` on loopback.
    pub net: Option<String>,
    pub protocol: Option<String>,
    pub format: Option<String>,
    pub params: BTreeMap<String, serde_json::Value>,
    /// Error of the first failed repeat, if any repeat failed.
    pub error: Option<String>,
    pub ok_repeats: usize,
    /// Repeats measured while foreign work took the run's CPUs (`Metrics::contended`), each
    /// measured again; none of them is in the summaries.
    pub contended: usize,
    /// Repeats contended on every try (`1 + runner::REMEASURES`): no line of theirs is in the
    /// summaries, so the row has that many repeats fewer.
    pub lost_repeats: usize,
    pub metrics: BTreeMap<&'static str, Summary>,
    /// Each metric's value per repeat number (ok repeats only), for claims that pair repeats.
    pub by_repeat: BTreeMap<&'static str, BTreeMap<u32, f64>>,
    /// Median latency curve over the repeats (the repeat with the median p99).
    pub latency_curve: Vec<(f64, u64)>,
    pub instrument_bound: bool,
    /// Some ok repeat crossed a link whose forwarder fell behind (`net_bound`).
    pub net_bound: bool,
    /// A thread group's steps, by label, over the ok repeats (empty for other rows).
    pub steps: Vec<StepSummary>,
    /// Rows loaded by several workers: each worker's share over the ok repeats (empty else).
    pub workers: Vec<WorkerSummary>,
    /// The largest start skew between workers of any ok repeat, in milliseconds.
    pub worker_skew_ms: Option<f64>,
}

/// One worker's share of a scenario's repeats: counts summed, the rest the median of the
/// repeats' (a row of few connections may have used fewer workers in some repeats: none do).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkerSummary {
    /// `i/N`.
    pub worker: String,
    pub host: String,
    pub requests: u64,
    pub errors: u64,
    pub rps: f64,
    pub p99_us: Option<f64>,
    pub cpu_s: f64,
    pub cpus: u32,
    /// Saturated its CPUs in some repeat.
    pub bound: bool,
}

/// One step of a thread group over a scenario's repeats: counts summed, latencies the median of
/// the repeats' (JMeter's aggregate report, per label).
#[derive(Debug, Clone, PartialEq)]
pub struct StepSummary {
    pub label: String,
    pub requests: u64,
    pub errors: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// The transport of a load row of a run from before the runner stamped `lab` and `transport`
/// (a suite was one lab then, so such a row's lab is the suite's name): the `transport` label,
/// else the driver with `+tls`. A load row is one the runner wrote for a scenario, which always
/// records its `connections`; a harness's rows (no `lab` stamped either) get none.
fn legacy_transport(m: &Measurement) -> Option<String> {
    if m.lab.is_some() || !m.params.contains_key("connections") {
        return None;
    }
    let label = m.params.get("transport").and_then(|v| v.as_str()).map(str::to_string);
    let tls = m.params.get("tls").and_then(|v| v.as_bool()).unwrap_or(false);
    label.or_else(|| m.protocol.as_ref().map(|p| if tls { format!("{p}+tls") } else { p.clone() }))
}

impl ScenarioSummary {
    /// The summary of one scenario's rows, of a run of suite `suite`.
    fn of(rows: &[&Measurement], suite: &str) -> ScenarioSummary {
        let first = rows[0];
        // A contended repeat was measured again: it enters no summary, interval or verdict.
        let contended = rows.iter().filter(|m| m.metrics.contended == Some(true)).count();
        let ok: Vec<&Measurement> =
            rows.iter().copied().filter(|m| m.status == Status::Ok && m.metrics.contended != Some(true)).collect();
        // Repeats with a contended try and no quiet one.
        let tried = |contended: bool| -> std::collections::BTreeSet<u32> {
            rows.iter().filter(|m| (m.metrics.contended == Some(true)) == contended).map(|m| m.repeat).collect()
        };
        let lost_repeats = tried(true).difference(&tried(false)).count();
        let mut metrics = BTreeMap::new();
        let mut by_repeat = BTreeMap::new();
        // A spread across repeats is judged from its metric's repeats (`claims`), not summarised.
        for name in METRICS.iter().filter(|m| !matches!(m.read, Read::SpreadOf(..))).map(|m| m.id) {
            let per_repeat: Vec<(u32, f64)> = ok.iter().filter_map(|m| Some((m.repeat, value(m, name)?))).collect();
            let values: Vec<f64> = per_repeat.iter().map(|&(_, v)| v).collect();
            if let Some(s) = Summary::of_measured(&values) {
                metrics.insert(name, s);
                by_repeat.insert(name, per_repeat.into_iter().collect());
            }
        }
        let mut by_p99: Vec<&&Measurement> = ok.iter().filter(|m| m.metrics.latency_us.is_some()).collect();
        by_p99.sort_by_key(|m| m.metrics.latency_us.as_ref().map(|l| l.p99));
        let latency_curve = by_p99
            .get(by_p99.len() / 2)
            .and_then(|m| m.metrics.latency_us.as_ref())
            .map(|l| l.curve.clone())
            .unwrap_or_default();
        let steps = ok.first().and_then(|m| m.metrics.steps.as_ref()).map_or(vec![], |first| {
            (0..first.len())
                .map(|i| {
                    let of_repeats: Vec<&crate::schema::StepMetrics> =
                        ok.iter().filter_map(|m| m.metrics.steps.as_ref()?.get(i)).collect();
                    let median = |f: &dyn Fn(&crate::schema::StepMetrics) -> f64| {
                        Summary::of_measured(&of_repeats.iter().map(|s| f(s)).collect::<Vec<_>>())
                            .map_or(0.0, |s| s.median)
                    };
                    StepSummary {
                        label: first[i].label.clone(),
                        requests: of_repeats.iter().map(|s| s.requests).sum(),
                        errors: of_repeats.iter().map(|s| s.errors).sum(),
                        mean_us: median(&|s| s.latency_us.mean),
                        p50_us: median(&|s| s.latency_us.p50 as f64),
                        p99_us: median(&|s| s.latency_us.p99 as f64),
                        max_us: median(&|s| s.latency_us.max as f64),
                    }
                })
                .collect()
        });
        // Each worker of any ok repeat, in the order they first appear, over the repeats it loaded.
        let mut names: Vec<&str> = Vec::new();
        for f in ok.iter().filter_map(|m| m.metrics.workers.as_ref()).flatten() {
            if !names.contains(&f.worker.as_str()) {
                names.push(&f.worker);
            }
        }
        let workers = names
            .into_iter()
            .map(|name| {
                let of_repeats: Vec<&crate::schema::WorkerFacts> =
                    ok.iter().filter_map(|m| m.metrics.workers.as_ref()?.iter().find(|f| f.worker == name)).collect();
                let median = |f: &dyn Fn(&crate::schema::WorkerFacts) -> Option<f64>| {
                    Summary::of_measured(&of_repeats.iter().filter_map(|s| f(s)).collect::<Vec<_>>()).map(|s| s.median)
                };
                WorkerSummary {
                    worker: name.to_string(),
                    host: of_repeats[0].host.clone(),
                    requests: of_repeats.iter().map(|f| f.requests).sum(),
                    errors: of_repeats.iter().map(|f| f.errors).sum(),
                    rps: median(&|f| Some(f.rps)).unwrap_or(0.0),
                    p99_us: median(&|f| f.p99_us.map(|v| v as f64)),
                    cpu_s: median(&|f| Some(f.cpu_s)).unwrap_or(0.0),
                    cpus: of_repeats[0].cpus,
                    bound: of_repeats.iter().any(|f| f.bound),
                }
            })
            .collect();
        let worker_skew_ms = ok.iter().filter_map(|m| m.metrics.worker_skew_ms).reduce(f64::max);
        ScenarioSummary {
            workers,
            worker_skew_ms,
            steps,
            scenario: first.scenario.clone(),
            subject: first.subject.clone(),
            lang: first.lang.clone(),
            lab: first.lab.clone().unwrap_or_else(|| suite.to_string()),
            transport: first.transport.clone().or_else(|| legacy_transport(first)),
            net: first.net.clone(),
            protocol: first.protocol.clone(),
            format: first.format.clone(),
            params: first.params.clone(),
            error: rows.iter().find(|m| m.status == Status::Failed).and_then(|m| m.error.clone()),
            ok_repeats: ok.len(),
            contended,
            lost_repeats,
            metrics,
            by_repeat,
            latency_curve,
            instrument_bound: ok.iter().any(|m| m.metrics.instrument_bound == Some(true)),
            net_bound: ok.iter().any(|m| m.metrics.net_bound == Some(true)),
        }
    }

    pub fn get(&self, metric: &str) -> Option<&Summary> {
        self.metrics.get(metric)
    }

    /// A string parameter (labels are recorded as params).
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params.get(key).and_then(|v| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{CpuSets, Machine, SCHEMA_VERSION};

    /// A line of an older run has no `lab` or `transport`: its summary's lab is the suite's
    /// name; a load row's transport is its `transport` label, else its driver (with `+tls`); a
    /// harness's row (no `connections`) has none.
    #[test]
    fn lines_without_lab_summarise_to_the_suites_name() {
        let dir = tempfile::tempdir().unwrap();
        let run = RunInfo {
            schema_version: SCHEMA_VERSION,
            run_id: "r".into(),
            suite: "smoke".into(),
            suite_file: "suites/smoke.toml".into(),
            profile: "smoke".into(),
            repeats: 1,
            started_at: "2026-01-01T00:00:00Z".into(),
            finished_at: None,
            git_revision: None,
            machine: Machine { cpu_model: "cpu".into(), cores: 2, kernel: "k".into(), os: "os".into(), memory_kb: 1 },
            versions: BTreeMap::new(),
            cpus: CpuSets::default(),
            only: None,
            parameters: serde_json::Value::Null,
            sequential: None,
            links: Vec::new(),
            rounds: None,
            cpu_speed: Vec::new(),
        };
        ResultsWriter::create(dir.path(), &run).unwrap();
        let lines = [
            r#"{"schema_version":1,"run_id":"r","suite":"smoke","scenario":"old","subject":"s","lang":"rust","protocol":"http2","params":{"connections":1,"transport":"h2c"},"repeat":1,"status":"ok"}"#,
            "\n",
            r#"{"schema_version":1,"run_id":"r","suite":"smoke","scenario":"unlabelled","subject":"s","lang":"rust","protocol":"http1","params":{"connections":1,"tls":true},"repeat":1,"status":"ok"}"#,
            r#"{"schema_version":1,"run_id":"r","suite":"smoke","scenario":"older","subject":"s","lang":"rust","repeat":1,"status":"ok"}"#,
            r#"{"schema_version":1,"run_id":"r","suite":"smoke","scenario":"new","subject":"s","lang":"rust","lab":"protocols","transport":"h1","protocol":"http1","params":{"transport":"h2c"},"repeat":1,"status":"ok"}"#,
        ];
        std::fs::write(dir.path().join(MEASUREMENTS_FILE), lines.join("\n") + "\n").unwrap();
        let summaries = Results::read(dir.path()).unwrap().summaries();
        let stamps: Vec<(&str, &str, Option<&str>)> =
            summaries.iter().map(|s| (s.scenario.as_str(), s.lab.as_str(), s.transport.as_deref())).collect();
        assert_eq!(
            stamps,
            [
                ("old", "smoke", Some("h2c")),
                ("unlabelled", "smoke", Some("http1+tls")),
                ("older", "smoke", None),
                ("new", "protocols", Some("h1"))
            ]
        );
    }
}
