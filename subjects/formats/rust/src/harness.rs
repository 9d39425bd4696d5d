//! The measurement: verify every (dataset, format) pair, then time encode and decode per repeat
//! and write one measurement line each.
//!
//! A time is the median over `samples` samples of the per-operation time; each sample runs the
//! operation in a batch sized (once per measurement, by doubling) so the sample lasts at least
//! `min_sample`, which keeps the clock's resolution and overhead out of the result. Repeats are
//! the outer loop, so slow drift of the machine spreads over all formats instead of landing on
//! whichever ran last.

use std::hint::black_box;
use std::io::{self, Write};
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::alloc_count::{self, AllocCount};
use crate::codecs::Codec;
use crate::dataset::{generate, Dataset, DatasetKind};
use crate::measurement::{Measurement, Metrics, Params, Status, LANG, SCHEMA_VERSION, SUBJECT, SUITE};

/// gzip level of `size_gzip_bytes` (flate2's default, as `gzip` without flags).
pub const GZIP_LEVEL: u32 = 6;
/// zstd level of `size_zstd_bytes` (the zstd CLI's default).
pub const ZSTD_LEVEL: i32 = 3;

/// A batch never grows past this many operations, even if the clock does not advance.
const MAX_BATCH: u64 = 1 << 24;

#[derive(Clone)]
pub struct Options {
    pub run_id: String,
    pub repeats: u32,
    pub datasets: Vec<DatasetKind>,
    pub codecs: Vec<&'static dyn Codec>,
    pub samples: usize,
    pub min_sample: Duration,
    pub warmup: Duration,
}

/// Where time comes from; tests substitute a clock that advances by a fixed step per reading.
pub trait Clock {
    fn now(&self) -> Instant;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A verified pair, ready to time.
struct Subject {
    codec: &'static dyn Codec,
    data: Rc<Dataset>,
    encoded: Vec<u8>,
    sizes: Sizes,
    allocs: Allocs,
}

#[derive(Clone, Copy)]
/// What one encode and one decode allocate; `None` without the counting allocator.
struct Allocs {
    encode: Option<AllocCount>,
    decode: Option<AllocCount>,
}

struct Sizes {
    raw: u64,
    gzip: u64,
    zstd: u64,
}

/// Runs the whole measurement, writing each line to `out` as soon as it exists so an interrupted
/// run keeps what it measured. Returns how many pairs failed verification.
pub fn run(opts: &Options, clock: &dyn Clock, out: &mut dyn Write) -> io::Result<usize> {
    let mut subjects = Vec::new();
    let mut failed = 0;
    for &kind in &opts.datasets {
        let data = Rc::new(generate(kind));
        for &codec in &opts.codecs {
            match verify(codec, &data) {
                Ok(subject) => subjects.push(subject),
                Err(error) => {
                    failed += 1;
                    let row = measurement(opts, codec, &data, 0, Status::Failed, Some(error), Metrics::default());
                    write_line(out, &row)?;
                }
            }
        }
    }
    for repeat in 1..=opts.repeats {
        for subject in &subjects {
            let (serialize_ns, deserialize_ns) = time(opts, clock, subject);
            let metrics = Metrics {
                serialize_ns: Some(serialize_ns),
                deserialize_ns: Some(deserialize_ns),
                size_bytes: Some(subject.sizes.raw),
                size_gzip_bytes: Some(subject.sizes.gzip),
                size_zstd_bytes: Some(subject.sizes.zstd),
                serialize_allocs: subject.allocs.encode.map(|a| a.calls),
                serialize_alloc_bytes: subject.allocs.encode.map(|a| a.bytes),
                deserialize_allocs: subject.allocs.decode.map(|a| a.calls),
                deserialize_alloc_bytes: subject.allocs.decode.map(|a| a.bytes),
            };
            let row = measurement(opts, subject.codec, &subject.data, repeat, Status::Ok, None, metrics);
            write_line(out, &row)?;
        }
    }
    Ok(failed)
}

/// Verify before timing: the encoding decodes to a value equal to the input.
fn verify(codec: &'static dyn Codec, data: &Rc<Dataset>) -> Result<Subject, String> {
    let encoded = codec.encode(data).map_err(|e| e.to_string())?;
    let decoded = codec.decode(&encoded, data.kind()).map_err(|e| e.to_string())?;
    if decoded != **data {
        return Err(format!("{}: decoded {} differs from the input", codec.id(), data.kind().id()));
    }
    let sizes = Sizes { raw: encoded.len() as u64, gzip: gzip_len(&encoded)?, zstd: zstd_len(&encoded)? };
    // One operation each: the codecs are deterministic, so every repeat would count the same.
    let allocs = Allocs {
        encode: alloc_count::during(|| drop(black_box(codec.encode(data)))),
        decode: alloc_count::during(|| drop(black_box(codec.decode(&encoded, data.kind())))),
    };
    Ok(Subject { codec, data: data.clone(), encoded, sizes, allocs })
}

fn gzip_len(bytes: &[u8]) -> Result<u64, String> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(GZIP_LEVEL));
    encoder.write_all(bytes).map_err(|e| format!("gzip: {e}"))?;
    Ok(encoder.finish().map_err(|e| format!("gzip: {e}"))?.len() as u64)
}

fn zstd_len(bytes: &[u8]) -> Result<u64, String> {
    Ok(zstd::bulk::compress(bytes, ZSTD_LEVEL).map_err(|e| format!("zstd: {e}"))?.len() as u64)
}

/// Warm-up, then the median per-operation times of encode and decode, in nanoseconds.
fn time(opts: &Options, clock: &dyn Clock, subject: &Subject) -> (f64, f64) {
    let (codec, data, encoded, kind) = (subject.codec, &*subject.data, &subject.encoded[..], subject.data.kind());
    // Results were verified already; here they only have to be computed, so errors are ignored
    // and black_box keeps the work from being optimised away.
    let mut encode = || drop(black_box(codec.encode(black_box(data))));
    let mut decode = || drop(black_box(codec.decode(black_box(encoded), kind)));
    let start = clock.now();
    while clock.now().duration_since(start) < opts.warmup {
        encode();
        decode();
    }
    (per_op_ns(opts, clock, &mut encode), per_op_ns(opts, clock, &mut decode))
}

fn per_op_ns(opts: &Options, clock: &dyn Clock, op: &mut dyn FnMut()) -> f64 {
    let mut batch = 1;
    while batch < MAX_BATCH && run_batch(clock, batch, op) < opts.min_sample {
        batch *= 2;
    }
    let mut samples: Vec<f64> =
        (0..opts.samples).map(|_| run_batch(clock, batch, op).as_nanos() as f64 / batch as f64).collect();
    median(&mut samples)
}

fn run_batch(clock: &dyn Clock, batch: u64, op: &mut dyn FnMut()) -> Duration {
    let start = clock.now();
    for _ in 0..batch {
        op();
    }
    clock.now().duration_since(start)
}

/// Median of a non-empty list (mean of the middle two for an even length).
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

fn measurement(
    opts: &Options,
    codec: &'static dyn Codec,
    data: &Dataset,
    repeat: u32,
    status: Status,
    error: Option<String>,
    metrics: Metrics,
) -> Measurement {
    let dataset = data.kind().id();
    Measurement {
        schema_version: SCHEMA_VERSION,
        run_id: opts.run_id.clone(),
        suite: SUITE,
        scenario: Measurement::scenario(dataset, codec.id()),
        subject: SUBJECT,
        lang: LANG,
        format: codec.id(),
        params: Params {
            dataset,
            objects: data.objects(),
            samples: opts.samples,
            library: codec.library(),
            min_sample_ms: opts.min_sample.as_millis() as u64,
            warmup_ms: opts.warmup.as_millis() as u64,
            gzip_level: GZIP_LEVEL,
            zstd_level: ZSTD_LEVEL,
        },
        repeat,
        status,
        error,
        metrics,
    }
}

fn write_line(out: &mut dyn Write, row: &Measurement) -> io::Result<()> {
    let mut line = serde_json::to_vec(row).map_err(io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::codecs::{CodecError, CODECS};

    /// Every reading is `step` later than the one before, so every sample takes exactly `step`.
    struct StepClock {
        base: Instant,
        readings: Cell<u32>,
        step: Duration,
    }

    impl Clock for StepClock {
        fn now(&self) -> Instant {
            self.readings.set(self.readings.get() + 1);
            self.base + self.step * self.readings.get()
        }
    }

    fn options(codecs: Vec<&'static dyn Codec>) -> Options {
        Options {
            run_id: "test-run".into(),
            repeats: 2,
            datasets: vec![DatasetKind::Numeric],
            codecs,
            samples: 3,
            min_sample: Duration::from_millis(1),
            warmup: Duration::ZERO,
        }
    }

    fn lines(opts: &Options) -> Vec<serde_json::Value> {
        let clock = StepClock { base: Instant::now(), readings: Cell::new(0), step: Duration::from_millis(2) };
        let mut out = Vec::new();
        run(opts, &clock, &mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    #[test]
    fn a_mock_clock_run_is_exact() {
        let json = crate::codecs::codec("json").unwrap();
        let rows = lines(&options(vec![json]));
        assert_eq!(rows.len(), 2);
        let expected_size = json.encode(&generate(DatasetKind::Numeric)).unwrap().len();
        for (i, row) in rows.iter().enumerate() {
            assert_eq!(row["repeat"], i as u64 + 1);
            assert_eq!(row["scenario"], "numeric-json-rust");
            assert_eq!(row["status"], "ok");
            assert_eq!(row["error"], serde_json::Value::Null);
            // A 2 ms sample already exceeds 1 ms, so batches hold one operation of 2 ms.
            assert_eq!(row["metrics"]["serialize_ns"], 2_000_000.0);
            assert_eq!(row["metrics"]["deserialize_ns"], 2_000_000.0);
            assert_eq!(row["metrics"]["size_bytes"], expected_size as u64);
            assert!(row["metrics"]["size_gzip_bytes"].as_u64().unwrap() < expected_size as u64);
            assert_eq!(row["params"]["objects"], 100);
            assert_eq!(row["params"]["library"], json.library());
        }
    }

    struct Broken;

    impl Codec for Broken {
        fn id(&self) -> &'static str {
            "broken"
        }
        fn library(&self) -> &'static str {
            "none@0"
        }
        fn encode(&self, _: &Dataset) -> Result<Vec<u8>, CodecError> {
            Ok(b"[]".to_vec())
        }
        fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
            crate::codecs::codec("json").unwrap().decode(bytes, kind)
        }
    }

    #[test]
    fn a_codec_that_fails_verification_is_reported_once_and_never_timed() {
        let rows = lines(&options(vec![&Broken]));
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["status"], "failed");
        assert_eq!(rows[0]["repeat"], 0);
        assert!(rows[0]["error"].as_str().unwrap().contains("differs from the input"));
        assert_eq!(rows[0]["metrics"], serde_json::json!({}));
    }

    #[test]
    fn every_row_matches_the_measurement_schema() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../schemas/measurement.schema.json");
        let schema: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let mut codecs: Vec<&'static dyn Codec> = CODECS.to_vec();
        codecs.push(&Broken);
        let mut opts = options(codecs);
        opts.datasets = DatasetKind::ALL.to_vec();
        opts.repeats = 1;
        let rows = lines(&opts);
        let datasets = DatasetKind::ALL.len();
        assert_eq!(rows.len(), datasets * CODECS.len() + datasets);
        for row in rows {
            let errors: Vec<String> = validator.iter_errors(&row).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{row}: {errors:?}");
        }
    }

    #[test]
    fn median_of_odd_and_even_lists() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }
}
