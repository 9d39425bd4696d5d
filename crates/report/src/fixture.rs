//! Synthetic results directories for the tests, written with the real `ResultsWriter`,
//! `RunInfo` and `Measurement` types so the report reads exactly what a run would leave.

use std::collections::BTreeMap;
use std::path::Path;

use wirebench_core::results::ResultsWriter;
use wirebench_core::schema::{CpuSets, Latency, Machine, Measurement, Metrics, RunInfo, Status, SCHEMA_VERSION};
use wirebench_core::suite::Suite;

/// One scenario of a synthetic run.
pub struct Spec {
    pub id: &'static str,
    pub subject: &'static str,
    pub driver: &'static str,
    pub tls: bool,
    /// `payload` label (`1KB`, `1MB`); empty for none.
    pub payload: &'static str,
    /// `transport` label; empty for the driver's own, as the runner stamps it.
    pub transport: &'static str,
    pub connections: u32,
    pub streams: u32,
    /// Open-model rate, if any.
    pub rate: Option<f64>,
    /// req/s of each repeat that completed.
    pub rps: Vec<f64>,
    /// Subject and instrument CPU seconds per repeat.
    pub cpu_s: (f64, f64),
    /// Error of a failed repeat written after the completed ones.
    pub error: Option<&'static str>,
    /// Messages each call carries (a streaming call's count).
    pub messages_per_call: u64,
}

impl Spec {
    /// A closed-model scenario of subject `rest` with 16 connections (8 streams for http2).
    pub fn new(id: &'static str, driver: &'static str, payload: &'static str, rps: &[f64]) -> Spec {
        Spec {
            id,
            subject: "rest",
            driver,
            tls: false,
            payload,
            transport: "",
            connections: 16,
            streams: if driver == "http2" { 8 } else { 1 },
            rate: None,
            rps: rps.to_vec(),
            cpu_s: (4.0, 1.0),
            error: None,
            messages_per_call: 1,
        }
    }
}

/// The standard run: 3 repeats of `h2c-1kb` (~20,000 req/s) and `h2c-1mb` (~200 req/s,
/// instrument-bound), a noisy `h1-1kb` (~10,000 req/s), a `broken` scenario that failed before
/// any repeat, and one claim `rps(h2c-1kb) / rps(h1-1kb) > 1.5`.
pub fn standard(dir: &Path) {
    write(dir, &standard_specs(1.0), CLAIMS);
}

/// `standard` with every req/s multiplied by `scale`.
pub fn standard_specs(scale: f64) -> Vec<Spec> {
    let s = |v: &[f64]| v.iter().map(|x| x * scale).collect::<Vec<_>>();
    vec![
        Spec { transport: "h2c", ..Spec::new("h2c-1kb", "http2", "1KB", &s(&[20_000.0, 20_400.0, 19_600.0])) },
        Spec {
            transport: "h2c",
            cpu_s: (1.0, 2.0),
            ..Spec::new("h2c-1mb", "http2", "1MB", &s(&[200.0, 204.0, 196.0]))
        },
        Spec { connections: 64, ..Spec::new("h1-1kb", "http1", "1KB", &s(&[10_000.0, 12_000.0, 8_500.0])) },
        Spec {
            subject: "broken",
            error: Some("subject `broken` exited: exit status: 1: <b>boom</b>"),
            ..Spec::new("broken", "http1", "", &[])
        },
    ]
}

/// One claim, whose text tries to inject a script into the report.
pub const CLAIMS: &str = r#"
[[claims]]
id = "h2c-beats-h1"
text = "h2c serves <script>alert(1)</script> more & faster"
published = "2x"
published_value = 2.0
note = "the study's table gives 2x but its own numbers give 1.8x"
metric = "rps"
numerator = "h2c-1kb"
denominator = "h1-1kb"
op = ">"
threshold = 1.5
"#;

/// Writes `run.json` and `measurements.jsonl` for `specs` into `dir`; `claims` is TOML appended
/// to the generated suite.
pub fn write(dir: &Path, specs: &[Spec], claims: &str) {
    write_run(dir, specs, &[], claims);
}

/// `write` with harness rows as well: load scenarios first, then the harness lines. A run with
/// only harness rows is the `formats` suite.
pub fn write_run(dir: &Path, specs: &[Spec], formats: &[FormatSpec], claims: &str) {
    let suite = suite(specs, formats, claims);
    let name = if specs.is_empty() && !formats.is_empty() { "formats" } else { "protocols" };
    let repeats = specs.iter().map(|s| s.rps.len()).chain(formats.iter().map(|f| f.times_ms.len())).max();
    let info = RunInfo {
        schema_version: SCHEMA_VERSION,
        run_id: "20260101T120000Z".into(),
        suite: name.into(),
        suite_file: format!("suites/{name}.toml"),
        profile: "quick".into(),
        repeats: repeats.unwrap_or(0) as u32,
        started_at: "2026-01-01T12:00:00Z".into(),
        finished_at: Some("2026-01-01T12:14:03Z".into()),
        git_revision: Some("d73b6dc".into()),
        machine: Machine {
            cpu_model: "AMD EPYC 7B13".into(),
            cores: 2,
            kernel: "6.1.0-18-amd64".into(),
            os: "Debian GNU/Linux 12 (bookworm)".into(),
            memory_kb: 24 * 1024 * 1024,
        },
        versions: [("wirebench", "0.1.0"), ("rustc", "1.95.0"), ("hyper", "1.7.0")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        cpus: CpuSets { subject: vec![0], load: vec![1] },
        only: None,
        parameters: serde_json::to_value(&suite).unwrap(),
        sequential: None,
        links: Vec::new(),
        rounds: None,
        cpu_speed: Vec::new(),
    };
    let mut w = ResultsWriter::create(dir, &info).unwrap();
    for spec in specs {
        for (i, &rps) in spec.rps.iter().enumerate() {
            w.append(&measurement(spec, i as u32 + 1, Ok(rps))).unwrap();
        }
        if let Some(e) = spec.error {
            w.append(&measurement(spec, spec.rps.len() as u32, Err(e))).unwrap();
        }
    }
    // A harness verifies every pair before timing any: a failed pair is one `repeat: 0` line,
    // then the repeats run over all pairs in turn (subjects/formats/README.md).
    for f in formats.iter().filter(|f| f.error.is_some()) {
        w.append(&f.measurement(0)).unwrap();
    }
    for repeat in 1..=repeats.unwrap_or(0) as u32 {
        for f in formats.iter().filter(|f| f.times_ms.len() >= repeat as usize) {
            w.append(&f.measurement(repeat)).unwrap();
        }
    }
}

fn suite(specs: &[Spec], formats: &[FormatSpec], claims: &str) -> Suite {
    let mut text = if specs.is_empty() && !formats.is_empty() {
        String::from("description = \"JSON, XML, MessagePack and Protocol Buffers: time and size of one round trip\"\n")
    } else {
        String::from(
            r#"
description = "HTTP/1.1 vs HTTP/2, cleartext and TLS, small and large responses"
[subjects.rest]
lang = "rust"
command = ["rest-server"]
ports = { plain = "--port", tls = "--tls-port" }
health = { path = "/health" }
[subjects.broken]
lang = "go"
command = ["broken-server"]
ports = { plain = "--port", tls = "--tls-port" }
health = { path = "/health" }
"#,
        )
    };
    for s in specs {
        let mut labels = vec![("api", "rest")];
        if !s.payload.is_empty() {
            labels.push(("payload", s.payload));
        }
        if !s.transport.is_empty() {
            labels.push(("transport", s.transport));
        }
        let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k} = \"{v}\"")).collect();
        let rate = s.rate.map(|r| format!("rate = {r:.1}\n")).unwrap_or_default();
        text += &format!(
            "[[scenarios]]\nid = \"{}\"\nsubject = \"{}\"\ndriver = \"{}\"\ntls = {}\npath = \"/items\"\n\
             connections = {}\nstreams = {}\nduration_s = 5.0\n{rate}labels = {{ {} }}\n",
            s.id,
            s.subject,
            s.driver,
            s.tls,
            s.connections,
            s.streams,
            labels.join(", ")
        );
    }
    let mut langs: Vec<&str> = Vec::new();
    for f in formats {
        if !langs.contains(&f.lang) {
            langs.push(f.lang);
        }
    }
    for lang in langs {
        text += &format!(
            "[[harnesses]]\nid = \"formats-{lang}\"\nlang = \"{lang}\"\ncommand = [\"formats-{lang}\", \"bench\"]\n\
             scenarios = [\"*-{lang}\"]\n"
        );
    }
    text += claims;
    let mut suite = Suite::parse(&text, "fixture.toml").unwrap();
    if !formats.is_empty() {
        // The study's Table 5.2 as the formats suite gives it, so the lab's published columns
        // come from where a real run takes them.
        suite.published.extend(formats_suite().published);
    }
    suite.check("fixture.toml", &["http1", "http2"]).unwrap();
    suite
}

/// `suites/formats.toml`, as the repository has it.
pub fn formats_suite() -> Suite {
    repo_suite("formats")
}

/// `suites/<name>.toml`, as the repository has it (its harnesses from the subjects' catalog).
pub fn repo_suite(name: &str) -> Suite {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let catalog = wirebench_core::suite::Catalog::load(root).unwrap();
    let text = std::fs::read_to_string(root.join(format!("suites/{name}.toml"))).unwrap();
    Suite::parse_with(&text, &format!("{name}.toml"), &catalog).unwrap()
}

/// Adds the study's tables of `suites/<name>.toml` to the run's suite in `dir`'s `run.json`, as a
/// run whose suite held them records them: rows of that lab appended to a fixture run then have
/// the study's numbers beside them.
pub fn add_published(dir: &Path, name: &str) {
    let path = dir.join("run.json");
    let mut run: serde_json::Value = serde_json::from_str(&read(&path)).unwrap();
    let tables = serde_json::to_value(repo_suite(name).published).unwrap();
    let published = run["parameters"]
        .as_object_mut()
        .unwrap()
        .entry("published")
        .or_insert_with(|| serde_json::Value::Array(Vec::new()));
    published.as_array_mut().unwrap().extend(tables.as_array().unwrap().iter().cloned());
    std::fs::write(&path, serde_json::to_string_pretty(&run).unwrap()).unwrap();
}

/// One repeat of `spec` as the runner writes it: its req/s, or its failure.
pub fn measurement(spec: &Spec, repeat: u32, outcome: Result<f64, &str>) -> Measurement {
    let mut params: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    params.insert("connections".into(), spec.connections.into());
    params.insert("streams".into(), spec.streams.into());
    params.insert("tls".into(), spec.tls.into());
    params.insert("method".into(), "GET".into());
    params.insert("path".into(), "/items".into());
    params.insert("duration_s".into(), 5.0.into());
    if let Some(r) = spec.rate {
        params.insert("rate".into(), r.into());
    }
    params.insert("api".into(), "rest".into());
    if !spec.payload.is_empty() {
        params.insert("payload".into(), spec.payload.into());
        params.insert("payload_bytes".into(), payload_bytes(spec).into());
    }
    if !spec.transport.is_empty() {
        params.insert("transport".into(), spec.transport.into());
    }
    let (status, error, metrics) = match outcome {
        Err(e) => (Status::Failed, Some(e.to_string()), Metrics::default()),
        Ok(rps) => (Status::Ok, None, metrics(spec, repeat, rps)),
    };
    Measurement {
        schema_version: SCHEMA_VERSION,
        run_id: "20260101T120000Z".into(),
        suite: "protocols".into(),
        scenario: spec.id.into(),
        subject: spec.subject.into(),
        lang: if spec.subject == "broken" { "go" } else { "rust" }.into(),
        lab: Some("protocols".into()),
        transport: Some(transport(spec)),
        net: None,
        protocol: Some(spec.driver.into()),
        format: None,
        params,
        repeat,
        status,
        error,
        metrics,
    }
}

/// The transport the runner stamps: the scenario's label, or the driver's for its TLS setting.
fn transport(spec: &Spec) -> String {
    if !spec.transport.is_empty() {
        return spec.transport.into();
    }
    let short = match spec.driver {
        "http1" => "h1",
        "http2" if !spec.tls => "h2c",
        "http2" => "h2",
        other => other,
    };
    if spec.tls {
        format!("{short}+tls")
    } else {
        short.into()
    }
}

/// Bytes one call's answer carries: 1 KB, or 1 MB for the `1MB` payload. Each call sends 100 bytes.
fn payload_bytes(spec: &Spec) -> u64 {
    if spec.payload == "1MB" {
        1 << 20
    } else {
        1024
    }
}

/// Metrics consistent with Little's law: latency ≈ in-flight requests ÷ throughput.
fn metrics(spec: &Spec, repeat: u32, rps: f64) -> Metrics {
    let in_flight = f64::from(spec.connections * spec.streams);
    let p50 = (in_flight / rps * 1e6).max(20.0);
    let at = |f: f64| (p50 * f).round() as u64;
    let curve =
        [(0.0, 0.6), (50.0, 1.0), (75.0, 1.2), (90.0, 1.5), (99.0, 2.4), (99.9, 4.0), (99.99, 7.0), (100.0, 9.0)]
            .iter()
            .map(|&(p, f)| (p, at(f)))
            .collect();
    let (cpu_s, instrument_cpu_s) = spec.cpu_s;
    Metrics {
        requests: Some((rps * 5.0) as u64),
        errors: Some(u64::from(repeat == 2)),
        duration_s: Some(5.0),
        rps: Some(rps),
        messages: Some((rps * 5.0) as u64 * spec.messages_per_call),
        messages_per_s: Some(rps * spec.messages_per_call as f64),
        first_message_us: (spec.messages_per_call > 1).then(|| Latency {
            min: at(0.1),
            p50: at(0.2),
            p90: at(0.3),
            p99: at(0.5),
            p999: at(0.6),
            max: at(0.7),
            mean: p50 * 0.25,
            curve: Vec::new(),
        }),
        bytes_sent: Some((rps * 5.0) as u64 * 100),
        bytes_received: Some((rps * 5.0) as u64 * payload_bytes(spec)),
        latency_us: Some(Latency {
            min: at(0.6),
            p50: at(1.0),
            p90: at(1.5),
            p99: at(2.4),
            p999: at(4.0),
            max: at(9.0),
            mean: p50 * 1.1,
            curve,
        }),
        cpu_s: Some(cpu_s),
        rss_kb: Some(48_000 + u64::from(repeat) * 100),
        instrument_cpu_s: Some(instrument_cpu_s),
        instrument_bound: Some(instrument_cpu_s > cpu_s),
        ..Default::default()
    }
}

/// A fuller run for looking at: four transports × two payloads, an open-model scenario,
/// a failure and two claims.
pub fn showcase(dir: &Path) {
    write(dir, &showcase_specs(), SHOWCASE_CLAIMS);
}

/// The showcase's scenarios.
pub fn showcase_specs() -> Vec<Spec> {
    let h2tls =
        |id, payload, rps: &[f64]| Spec { tls: true, transport: "h2+tls", ..Spec::new(id, "http2", payload, rps) };
    let h1tls =
        |id, payload, rps: &[f64]| Spec { tls: true, transport: "h1+tls", ..Spec::new(id, "http1", payload, rps) };
    let h2c = |id, payload, rps: &[f64]| Spec { transport: "h2c", ..Spec::new(id, "http2", payload, rps) };
    let h1 = |id, payload, rps: &[f64]| Spec { transport: "h1", ..Spec::new(id, "http1", payload, rps) };
    vec![
        h1("h1-1kb", "1KB", &[41_200.0, 40_650.0, 41_900.0]),
        h2c("h2c-1kb", "1KB", &[63_100.0, 61_800.0, 64_000.0]),
        h1tls("h1-tls-1kb", "1KB", &[35_400.0, 36_100.0, 35_000.0]),
        h2tls("h2-tls-1kb", "1KB", &[47_300.0, 46_000.0, 48_900.0]),
        h1("h1-1mb", "1MB", &[610.0, 622.0, 605.0]),
        h2c("h2c-1mb", "1MB", &[540.0, 548.0, 551.0]),
        h1tls("h1-tls-1mb", "1MB", &[402.0, 340.0, 450.0]),
        Spec { cpu_s: (0.9, 1.6), ..h2tls("h2-tls-1mb", "1MB", &[388.0, 395.0, 391.0]) },
        Spec { rate: Some(20_000.0), connections: 32, ..h1("h1-1kb-open", "", &[19_990.0, 19_995.0, 19_992.0]) },
        Spec {
            subject: "broken",
            error: Some("subject `broken` did not answer /health within 30 s: connection refused"),
            ..h2c("h2c-go-1kb", "1KB", &[])
        },
    ]
}

/// The showcase's claims: a confirmed one, a refuted one, one on latency, one that differs in
/// size and one over every case; and a table of the study's numbers.
pub const SHOWCASE_CLAIMS: &str = r#"
[[claims]]
id = "h2-multiplexing"
text = "HTTP/2 multiplexing serves small responses at least 1.3× faster than HTTP/1.1"
published = "1.5× (Table 3)"
published_value = 1.5
metric = "rps"
numerator = "h2c-1kb"
denominator = "h1-1kb"
op = ">"
threshold = 1.3
[[claims]]
id = "tls-cost"
text = "TLS costs HTTP/2 less than 5 % of throughput"
published = "-3 %"
note = "the study computes 3 % from 52,000 vs 50,500 req/s, which is 2.9 %"
metric = "rps"
numerator = "h2-tls-1kb"
denominator = "h2c-1kb"
op = ">"
threshold = 0.95
[[claims]]
id = "large-p99"
text = "1 MB responses over HTTP/1.1 stay under 100 ms at p99"
published = "< 100 ms"
metric = "p99_us"
numerator = "h1-1mb"
op = "<"
threshold = 100000.0
[[claims]]
id = "1mb-costs-h1-20x"
text = "A 1 MB payload costs HTTP/1.1 about 20× in req/s"
source = "Table 2"
published = "41,000 vs 8,200 req/s (5×)"
published_value = 5.0
metric = "rps"
numerator = "h1-1kb"
denominator = "h1-1mb"
op = ">"
threshold = 1.0
[[claims]]
id = "h1-tls-slowest-1kb"
text = "HTTP/1.1 with TLS is the slowest transport at 1 KB"
source = "§4.2"
published = "slowest of the four"
metric = "rps"
numerator = "h1-tls-1kb"
denominator = "*-1kb"
except = ["h2c-go-*"]
op = "<"
threshold = 1.0
[[published]]
id = "table-2"
title = "Requests per second by transport, 1 KB"
source = "Table 2"
metric = "rps"
rows = [
  { scenario = "h1-1kb", value = 82000.0 },
  { scenario = "h2-tls-1kb", value = 123000.0, label = "h2 (always with TLS)" },
]
"#;

/// One (dataset, format, language) of a synthetic harness run.
pub struct FormatSpec {
    pub dataset: &'static str,
    pub format: &'static str,
    pub lang: &'static str,
    pub library: &'static str,
    /// Serialize and deserialize ms of each repeat that completed.
    pub times_ms: Vec<(f64, f64)>,
    /// Encoding, gzip and zstd sizes in bytes.
    pub sizes: [u64; 3],
    /// Error of a pair that failed verification (then it has no repeats).
    pub error: Option<&'static str>,
}

impl FormatSpec {
    /// Three steady repeats (±1 %) whose medians are exactly `serialize_ms` and `deserialize_ms`.
    pub fn new(
        dataset: &'static str,
        format: &'static str,
        lang: &'static str,
        (serialize_ms, deserialize_ms): (f64, f64),
        sizes: [u64; 3],
    ) -> FormatSpec {
        let times_ms = [(1.0, 1.0), (1.01, 0.99), (0.99, 1.01)]
            .iter()
            .map(|(a, b)| (serialize_ms * a, deserialize_ms * b))
            .collect();
        FormatSpec { dataset, format, lang, library: library(format, lang), times_ms, sizes, error: None }
    }

    /// `<dataset>-<format>-<lang>`, as the harnesses name their rows.
    pub fn scenario(&self) -> String {
        format!("{}-{}-{}", self.dataset, self.format, self.lang)
    }

    fn measurement(&self, repeat: u32) -> Measurement {
        let mut params: BTreeMap<String, serde_json::Value> = BTreeMap::new();
        params.insert("dataset".into(), self.dataset.into());
        params.insert(
            "objects".into(),
            match self.dataset {
                "listing41" => 10_000,
                "users" => 1000,
                _ => 100,
            }
            .into(),
        );
        params.insert("samples".into(), 15.into());
        params.insert("library".into(), self.library.into());
        let (status, metrics) = match (repeat, self.error) {
            (0, Some(_)) => (Status::Failed, Metrics::default()),
            _ => {
                let (ser, de) = self.times_ms[repeat as usize - 1];
                let [size, gzip, zstd] = self.sizes;
                let mut extra =
                    vec![("size_gzip_bytes".to_string(), gzip as f64), ("size_zstd_bytes".to_string(), zstd as f64)];
                // Rust rows count allocations; the Go rows leave them out, as a harness may.
                if self.lang == "rust" {
                    extra.extend([
                        ("serialize_alloc_bytes".to_string(), 2.0 * size as f64),
                        ("serialize_allocs".to_string(), 12.0),
                        ("deserialize_alloc_bytes".to_string(), 3.0 * size as f64),
                        ("deserialize_allocs".to_string(), 6011.0),
                    ]);
                }
                let metrics = Metrics {
                    serialize_ns: Some(ser * 1e6),
                    deserialize_ns: Some(de * 1e6),
                    size_bytes: Some(size),
                    extra: extra.into_iter().collect(),
                    ..Default::default()
                };
                (Status::Ok, metrics)
            }
        };
        Measurement {
            schema_version: SCHEMA_VERSION,
            run_id: "20260101T120000Z".into(),
            suite: "formats".into(),
            scenario: self.scenario(),
            subject: format!("formats-{}", self.lang),
            lang: self.lang.into(),
            lab: Some("formats".into()),
            transport: None,
            net: None,
            protocol: None,
            format: Some(self.format.into()),
            params,
            repeat,
            status,
            error: (status == Status::Failed).then(|| self.error.unwrap_or_default().to_string()),
            metrics,
        }
    }
}

fn library(format: &str, lang: &str) -> &'static str {
    match (format, lang) {
        ("avro", "rust") => "apache-avro@0.17.0",
        ("bson", "rust") => "bson@2.14.0",
        ("cbor", "rust") => "ciborium@0.2.2",
        ("json", "rust") => "serde_json@1.0.140",
        ("msgpack" | "msgpack-compact", "rust") => "rmp-serde@1.3.0",
        ("protobuf", "rust") => "prost@0.13.5",
        ("xml", "rust") => "quick-xml@0.37.5",
        ("avro", "go") => "github.com/hamba/avro/v2@2.28.0",
        ("bson", "go") => "go.mongodb.org/mongo-driver/bson@1.17.3",
        ("cbor", "go") => "github.com/fxamacker/cbor/v2@2.8.0",
        ("json", "go") => "encoding/json@go1.24.2",
        ("msgpack", "go") => "github.com/vmihailenco/msgpack/v5@5.4.1",
        ("protobuf", "go") => "google.golang.org/protobuf@1.36.6",
        ("xml", "go") => "encoding/xml@go1.24.2",
        ("avro", "java") => "org.apache.avro:avro@1.12.0",
        ("bson", "java") => "org.mongodb:bson@5.4.0",
        ("cbor", "java") => "com.fasterxml.jackson.dataformat:jackson-dataformat-cbor@2.19.0",
        ("json", "java") => "com.fasterxml.jackson.core:jackson-databind@2.19.0",
        ("msgpack", "java") => "org.msgpack:jackson-dataformat-msgpack@0.9.9",
        ("protobuf", "java") => "com.google.protobuf:protobuf-java@4.30.2",
        ("xml", "java") => "com.fasterxml.jackson.dataformat:jackson-dataformat-xml@2.19.0",
        ("avro", "ts") => "avsc@5.7.7",
        ("bson", "ts") => "bson@6.10.3",
        ("cbor", "ts") => "cbor-x@1.6.0",
        ("json", "ts") => "JSON@node-22.15.0",
        ("msgpack", "ts") => "@msgpack/msgpack@3.1.1",
        ("protobuf", "ts") => "protobufjs@7.5.0",
        ("xml", "ts") => "fast-xml-parser@5.2.1",
        _ => "unknown",
    }
}

/// Two datasets (`listing41`, `numeric`) × three formats × Rust and Go, three repeats each, and a
/// Go protobuf pair on `listing41` that failed verification. Rust's MessagePack is the compact
/// form, the study's. Rust's `listing41` times are the study's Table 5.2 (msgpack 0.748 + 2.247
/// ms, json 1.294 + 3.565, xml 5.273 + 18.078), its sizes made up; Go's `numeric` xml decode is
/// noisy.
pub fn formats_specs() -> Vec<FormatSpec> {
    let f = FormatSpec::new;
    let listing41_json_go = [126_950, 31_215, 27_960];
    vec![
        f("listing41", "json", "rust", (1.294, 3.565), [126_904, 31_200, 27_950]),
        f("listing41", "msgpack-compact", "rust", (0.748, 2.247), [112_310, 29_870, 26_400]),
        f("listing41", "xml", "rust", (5.273, 18.078), [189_270, 35_110, 30_020]),
        f("listing41", "json", "go", (2.05, 5.1), listing41_json_go),
        f("listing41", "msgpack", "go", (1.1, 2.9), [112_310, 29_870, 26_400]),
        f("listing41", "xml", "go", (7.9, 25.0), [189_270, 35_110, 30_020]),
        FormatSpec {
            times_ms: Vec::new(),
            error: Some("verification failed: decoded <User> #3 differs from the input"),
            ..f("listing41", "protobuf", "go", (0.0, 0.0), [0; 3])
        },
        f("numeric", "json", "rust", (0.095, 0.18), [62_400, 24_100, 22_800]),
        f("numeric", "msgpack", "rust", (0.06, 0.11), [48_300, 21_900, 20_700]),
        f("numeric", "xml", "rust", (0.41, 0.92), [98_200, 27_300, 25_100]),
        f("numeric", "json", "go", (0.13, 0.24), [62_400, 24_100, 22_800]),
        f("numeric", "msgpack", "go", (0.085, 0.15), [48_300, 21_900, 20_700]),
        FormatSpec {
            times_ms: vec![(0.52, 1.2), (0.53, 1.5), (0.51, 0.95)],
            ..f("numeric", "xml", "go", (0.0, 0.0), [98_200, 27_300, 25_100])
        },
    ]
}

/// A claim on harness rows: the study's "6.0× faster" against our serialize times.
pub const FORMAT_CLAIMS: &str = r#"
[[claims]]
id = "msgpack-beats-xml"
text = "MessagePack serializes 6.0× faster than XML"
published = "6.0×"
published_value = 6.0
note = "its Table 5.2 gives 5.273 / 0.748 = 7.05×"
metric = "serialize_ns"
numerator = "listing41-xml-rust"
denominator = "listing41-msgpack-compact-rust"
op = ">"
threshold = 5.0
"#;

/// A run of the formats suite only (`formats_specs`, `FORMAT_CLAIMS`).
pub fn formats_only(dir: &Path) {
    write_run(dir, &[], &formats_specs(), FORMAT_CLAIMS);
}

/// The standard load run and the formats run in one directory.
pub fn mixed(dir: &Path) {
    write_run(dir, &standard_specs(1.0), &formats_specs(), CLAIMS);
}

/// A fuller formats run for looking at: three datasets × seven formats × Rust, Go, Java and
/// TypeScript, Rust's `users` times taken from the study's Table 5.2, a failed pair, a noisy one
/// and a Java JSON encoding a few bytes longer than the others.
pub fn formats_showcase(dir: &Path) {
    // (format, users serialize ms, users deserialize ms, users sizes); cbor is not in the study.
    let users: [(&str, f64, f64, [u64; 3]); 7] = [
        ("avro", 7.396, 5.988, [56_120, 24_310, 22_050]),
        ("bson", 2.073, 4.842, [152_840, 36_900, 33_210]),
        ("json", 1.294, 3.565, [126_904, 31_200, 27_950]),
        ("msgpack", 0.748, 2.247, [112_310, 29_870, 26_400]),
        ("protobuf", 1.648, 4.724, [63_050, 25_800, 23_420]),
        ("xml", 5.273, 18.078, [189_270, 35_110, 30_020]),
        ("cbor", 1.02, 2.71, [110_950, 29_640, 26_180]),
    ];
    // Per language: serialize and deserialize time relative to Rust.
    let langs = [("rust", 1.0, 1.0), ("go", 1.45, 1.6), ("java", 1.3, 1.25), ("ts", 2.1, 1.9)];
    // Per dataset: objects-driven scale of times and sizes relative to `users`.
    let datasets = [("users", 1.0, 1.0), ("numeric", 0.085, 0.42), ("dummy", 0.16, 0.93)];
    let mut specs = Vec::new();
    for (dataset, time, size) in datasets {
        for (lang, ser_f, de_f) in langs {
            for (format, ser, de, sizes) in users {
                let mut sizes = sizes.map(|b| (b as f64 * size).round() as u64);
                if lang == "java" && format == "json" {
                    sizes[0] += 312;
                }
                let mut spec = FormatSpec::new(dataset, format, lang, (ser * time * ser_f, de * time * de_f), sizes);
                if (dataset, format, lang) == ("users", "avro", "ts") {
                    spec.times_ms.clear();
                    spec.error = Some("verification failed: avsc decoded `metadata.tags` as null, expected 3 strings");
                }
                if (dataset, format, lang) == ("numeric", "xml", "java") {
                    spec.times_ms[1].1 *= 1.45;
                }
                specs.push(spec);
            }
        }
    }
    write_run(dir, &[], &specs, FORMAT_CLAIMS);
}

/// A parse lab row as its harnesses print it (no `format`; a `parser` parameter).
pub fn parse_line(parser: &str, format: &str, n: u64, repeat: u32, parse_us: f64) -> String {
    let id = format!("dummy-{format}-{parser}-from-rust-{n}");
    format!(
        r#"{{"schema_version":1,"run_id":"r","suite":"parse","lab":"parse","scenario":"{id}","subject":"parse-{parser}","lang":"rust","params":{{"object":"dummy","format":"{format}","parser":"{parser}","provider":"rust","n":{n},"batch":false}},"repeat":{repeat},"status":"ok","metrics":{{"parse_us":{parse_us},"total_us":{total},"io_us":{io},"cpu_s":0.5,"rss_kb":20480}}}}"#,
        total = parse_us * 10.0,
        io = parse_us * 9.0
    )
}

/// A wasm lab row as the page prints it (`kernel`, `impl`, `thread`; `kernel_ms`).
pub fn wasm_line(kernel: &str, way: &str, thread: &str, repeat: u32, ms: f64) -> String {
    // The suite names the study's call of the worker kernels for what it does (`wasm.toml`).
    let named = if way == "wasm" && ["small", "large"].contains(&kernel) { "wasm-per-element" } else { way };
    let id = format!("{kernel}-{named}{}", if thread == "worker" { "-worker" } else { "" });
    let copies = if way.ends_with("buffer") { r#","copy_in_ms":2.5,"copy_out_ms":2.5"# } else { "" };
    format!(
        r#"{{"schema_version":1,"run_id":"r","suite":"wasm","lab":"wasm","scenario":"{id}","subject":"wasm-kernels","lang":"rust","params":{{"kernel":"{kernel}","impl":"{way}","thread":"{thread}","runtime":"chromium@156"}},"repeat":{repeat},"status":"ok","metrics":{{"duration_s":{s},"kernel_ms":{ms},"result":1{copies}}}}}"#,
        s = ms / 1e3
    )
}

/// A thread-group row in the open model: two steps, both latencies.
pub fn group_line(repeat: u32, create_p50: u64) -> String {
    let lat = |p50: u64| {
        format!(
            r#"{{"min":10,"p50":{p50},"p90":{p50},"p99":{},"p999":{},"max":{},"mean":{p50}.0}}"#,
            p50 * 2,
            p50 * 3,
            p50 * 4
        )
    };
    format!(
        r#"{{"schema_version":1,"run_id":"r","suite":"restcache","lab":"restcache","transport":"h1","scenario":"g3-open-go","subject":"restcache-go","lang":"go","protocol":"http1","params":{{"connections":10,"streams":1,"rate":200.0}},"repeat":{repeat},"status":"ok","metrics":{{"requests":400,"errors":0,"duration_s":1.0,"rps":400.0,"latency_us":{},"latency_uncorrected_us":{},"cpu_s":3.0,"rss_kb":1048576,"service_cpu_s":1.25,"service_rss_kb":524288,"iterations":200,"iterations_per_s":200.0,"steps":[{{"label":"new key","requests":200,"errors":0,"latency_us":{}}},{{"label":"create","requests":200,"errors":1,"latency_us":{}}}]}}}}"#,
        lat(900),
        lat(450),
        lat(300),
        lat(create_p50)
    )
}

/// A case of the REST service study: its labels, req/s, and the server side's use.
pub fn case_line(imp: &str, store: &str, repeat: u32, rps: f64, cpu: (f64, f64), kb: (u64, u64)) -> String {
    let services = if store == "postgres" {
        format!(r#","service_cpu_s":{},"service_rss_kb":{}"#, cpu.1, kb.1)
    } else {
        String::new()
    };
    format!(
        r#"{{"schema_version":1,"run_id":"r","suite":"restcache","lab":"restcache","transport":"h1","scenario":"g3-u100-{imp}-{store}","subject":"restcache-{imp}-{store}","lang":"go","protocol":"http1","params":{{"connections":100,"streams":1,"impl":"{imp}","store":"{store}","state":"empty","group":"G3","users":"100"}},"repeat":{repeat},"status":"ok","metrics":{{"requests":{n},"errors":0,"duration_s":1.0,"rps":{rps},"latency_us":{{"min":10,"p50":900,"p90":900,"p99":900,"p999":900,"max":900,"mean":900.0}},"cpu_s":{},"rss_kb":{}{services}}}}}"#,
        cpu.0,
        kb.0,
        n = rps as u64
    )
}

/// A realtime lab row as the page prints it (a `lab` parameter, `duration_s`).
pub fn realtime_line(
    protocol: &str,
    direction: &str,
    n: u64,
    headers: u64,
    tls: bool,
    repeat: u32,
    seconds: f64,
) -> String {
    let id = format!("{protocol}-{direction}-h{headers}-n{n}{}", if tls { "-tls" } else { "" });
    format!(
        r#"{{"schema_version":1,"run_id":"r","suite":"realtime","lab":"realtime","scenario":"{id}","subject":"realtime-node","lang":"ts","params":{{"lab":"realtime","protocol":"{protocol}","direction":"{direction}","n":{n},"headers":{headers},"parallel":false,"connect":false,"tls":{tls},"cpu_throttle":1,"disk":false,"runtime":"chromium@156"}},"repeat":{repeat},"status":"ok","metrics":{{"messages":{n},"duration_s":{seconds}}}}}"#
    )
}

/// Appends `lines` to the run's `measurements.jsonl`.
pub fn append(dir: &Path, lines: impl IntoIterator<Item = String>) {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new().append(true).open(dir.join("measurements.jsonl")).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

/// Rows of every lab in one run: the showcase's load rows and claims, the formats rows, and
/// parse, realtime, wasm, REST-study and thread-group rows as their harnesses and the runner
/// print them. The golden outputs (`testdata/golden/every-lab/`) are rendered from it.
pub fn every_lab(dir: &Path) {
    write_run(dir, &showcase_specs(), &formats_specs(), &format!("{SHOWCASE_CLAIMS}{FORMAT_CLAIMS}"));
    let mut lines = Vec::new();
    for (parser, format, scale) in [("rust", "json", 1.0), ("rust", "bson", 1.1), ("java", "json", 1.5)] {
        for n in [100u64, 1000] {
            for repeat in 1..=3 {
                let us = scale * n as f64 * (1.0 + f64::from(repeat) / 100.0);
                lines.push(parse_line(parser, format, n, repeat, us));
            }
        }
    }
    for repeat in 1..=3 {
        let jitter = 1.0 + f64::from(repeat) / 100.0;
        for n in [1u64, 10, 100] {
            for (protocol, per) in [("http", 0.0025), ("ws", 0.0001)] {
                for direction in ["download", "upload"] {
                    for tls in [false, true] {
                        let s = per * n as f64 * jitter * if tls { 1.1 } else { 1.0 };
                        lines.push(realtime_line(protocol, direction, n, 0, tls, repeat, s));
                    }
                }
            }
        }
        lines.push(realtime_line("http", "upload", 100, 100, false, repeat, 0.25 * 1.2 * jitter));
        for (way, ms) in [("js", 30.0), ("wasm", 20.0), ("wasm-buffer", 12.0), ("native", 9.0)] {
            lines.push(wasm_line("grayscale", way, "main", repeat, ms * jitter));
        }
        for (way, ms) in [("js", 6.0), ("wasm", 18.0)] {
            lines.push(wasm_line("small", way, "worker", repeat, ms * jitter));
        }
        lines.push(case_line("go", "postgres", repeat, 9000.0 * jitter, (3.0, 0.9), (1048576, 524288)));
        lines.push(case_line("jetty", "postgres", repeat, 5000.0 * jitter, (4.0, 1.0), (1310720, 524288)));
        lines.push(case_line("go", "sqlite", repeat, 4000.0 * jitter, (1.0, 0.0), (65536, 0)));
        lines.push(group_line(repeat, [500, 700, 600][repeat as usize - 1]));
    }
    append(dir, lines);
    add_published(dir, "wasm");
}

/// A file's text.
pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

/// The text of `html` from `open` up to the next `close`.
pub fn element<'a>(html: &'a str, open: &str, close: &str) -> &'a str {
    let start = html.find(open).unwrap_or_else(|| panic!("no {open}"));
    let end = start + html[start..].find(close).unwrap_or_else(|| panic!("no {close} after {open}"));
    &html[start..end]
}

/// The file names of `paths`.
pub fn file_names(paths: &[std::path::PathBuf]) -> Vec<&str> {
    paths.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect()
}

/// The `data-scenario` of every row in `html`, in order.
pub fn scenario_ids(html: &str) -> Vec<&str> {
    html.split("data-scenario=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]).collect()
}

/// The standard run, rendered.
pub fn rendered() -> (tempfile::TempDir, crate::Rendered) {
    let dir = tempfile::tempdir().unwrap();
    standard(dir.path());
    let r = crate::render(dir.path()).unwrap();
    (dir, r)
}
