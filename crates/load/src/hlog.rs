//! A load's latency histograms as an HdrHistogram interval log (V2 format, deflate-compressed,
//! base64: the format of HdrHistogram's Java, C and Go libraries, which their `HistogramLogReader`s
//! and plotters read), so loads measured apart — workers on other machines — add up exactly:
//! the sum of the histograms is the histogram of every sample, and its p99 is the p99 of them
//! all, where averaging each worker's p99 is not.
//!
//! One interval per histogram, tagged `latency` (from the intended send in the open model),
//! `uncorrected` (from the actual send), `first` (to the first message of a stream) and
//! `step-<i>` (the i-th step of a thread group; tags may not hold a label's spaces).

use std::io::Cursor;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, IntervalLogWriterBuilder, LogEntry, Tag};
use hdrhistogram::serialization::{Deserializer, V2DeflateSerializer};
pub use hdrhistogram::Histogram;

use crate::tally::{new_histogram, Histograms};

/// The tag of step `i`'s histogram.
fn step_tag(i: usize) -> String {
    format!("step-{i}")
}

/// The log of `h`, measured from `start` for `duration`. Empty histograms are left out.
pub(crate) fn write(h: &Histograms, start: SystemTime, duration: Duration) -> Result<String, String> {
    let named =
        [("latency".to_string(), &h.latency), ("uncorrected".into(), &h.uncorrected), ("first".into(), &h.first)];
    let steps = h.steps.iter().enumerate().map(|(i, s)| (step_tag(i), s));
    write_tagged(named.into_iter().chain(steps), start, duration)
}

/// The log of tagged histograms (tags as `read` gives them), measured from `start` for
/// `duration`; empty ones are left out.
pub fn write_tagged<'a>(
    tagged: impl IntoIterator<Item = (String, &'a Histogram<u64>)>,
    start: SystemTime,
    duration: Duration,
) -> Result<String, String> {
    let mut out = Vec::new();
    let mut serializer = V2DeflateSerializer::new();
    let mut log = IntervalLogWriterBuilder::new()
        .add_comment("wirebench latency histograms, microseconds")
        .with_start_time(start)
        .with_base_time(start)
        .begin_log_with(&mut out, &mut serializer)
        .map_err(|e| e.to_string())?;
    for (tag, histogram) in tagged {
        if histogram.is_empty() {
            continue;
        }
        let tag = Tag::new(&tag).ok_or_else(|| format!("histogram tag `{tag}` holds a space or a comma"))?;
        log.write_histogram(histogram, Duration::ZERO, duration, Some(tag)).map_err(|e| e.to_string())?;
    }
    drop(log);
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The histograms of a log by tag, each interval of a tag added to the others of it.
pub fn read(text: &str) -> Result<Vec<(String, Histogram<u64>)>, String> {
    let mut out: Vec<(String, Histogram<u64>)> = Vec::new();
    let mut deserializer = Deserializer::new();
    for entry in IntervalLogIterator::new(text.as_bytes()) {
        let LogEntry::Interval(interval) = entry.map_err(|e| format!("not an interval log: {e:?}"))? else { continue };
        let tag = interval.tag().map_or("latency", |t| t.as_str()).to_string();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(interval.encoded_histogram())
            .map_err(|e| format!("histogram `{tag}`: {e}"))?;
        let h: Histogram<u64> =
            deserializer.deserialize(&mut Cursor::new(bytes)).map_err(|e| format!("histogram `{tag}`: {e:?}"))?;
        add(&mut out, tag, &h)?;
    }
    Ok(out)
}

/// Tagged histograms added by tag: exact, as if one load had recorded every sample.
pub fn sum<'a>(
    sets: impl IntoIterator<Item = &'a [(String, Histogram<u64>)]>,
) -> Result<Vec<(String, Histogram<u64>)>, String> {
    let mut out = Vec::new();
    for set in sets {
        for (tag, h) in set {
            add(&mut out, tag.clone(), h)?;
        }
    }
    Ok(out)
}

/// The histograms of several logs added by tag.
pub fn merge<'a>(logs: impl IntoIterator<Item = &'a str>) -> Result<Vec<(String, Histogram<u64>)>, String> {
    let read: Vec<_> = logs.into_iter().map(read).collect::<Result<_, _>>()?;
    sum(read.iter().map(Vec::as_slice))
}

/// Adds `h` to `out`'s histogram of `tag`, or starts one, widened to the bounds every load
/// records with so that logs of other ranges still add.
fn add(out: &mut Vec<(String, Histogram<u64>)>, tag: String, h: &Histogram<u64>) -> Result<(), String> {
    let i = match out.iter().position(|(t, _)| *t == tag) {
        Some(i) => i,
        None => {
            out.push((tag, new_histogram()));
            out.len() - 1
        }
    };
    let (tag, sum) = &mut out[i];
    sum.add(h).map_err(|e| format!("histogram `{tag}`: {e}"))
}

/// The histogram of `tag` in merged logs, if any sample had it.
pub fn tagged<'a>(merged: &'a [(String, Histogram<u64>)], tag: &str) -> Option<&'a Histogram<u64>> {
    merged.iter().find(|(t, _)| t == tag).map(|(_, h)| h)
}

/// The histogram of thread-group step `i` in merged logs.
pub fn step(merged: &[(String, Histogram<u64>)], i: usize) -> Option<&Histogram<u64>> {
    tagged(merged, &step_tag(i))
}

/// Seconds since the epoch, for the log's header.
pub fn epoch_s(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift), so the test needs no crate and repeats.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn workers_logs_add_up_to_the_histogram_of_every_sample() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..40 {
            let workers = 1 + (rng.next() % 16) as usize;
            let samples = 1 + (rng.next() % 20_000) as usize;
            let mut all = new_histogram();
            let mut each: Vec<Histograms> = (0..workers).map(|_| Histograms::new(1)).collect();
            for _ in 0..samples {
                // Latencies over six decades, as a load's tail spreads: 1 µs to about 4 s.
                let v = 1 + (rng.next() % 2_000) * 10u64.pow((rng.next() % 4) as u32) + rng.next() % 7;
                all.record(v).unwrap();
                let w = (rng.next() % workers as u64) as usize;
                each[w].latency.record(v).unwrap();
                each[w].steps[0].record(v / 2 + 1).unwrap();
            }
            let logs: Vec<String> = each
                .iter()
                .map(|h| write(h, UNIX_EPOCH + Duration::from_secs(1_800_000_000), Duration::from_secs(3)).unwrap())
                .collect();
            let merged = merge(logs.iter().map(String::as_str)).unwrap();
            let h = tagged(&merged, "latency").unwrap();
            assert_eq!(h.len(), all.len(), "round {round}: every sample counted once");
            assert_eq!((h.min(), h.max()), (all.min(), all.max()), "round {round}");
            for q in [0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0] {
                assert_eq!(h.value_at_quantile(q), all.value_at_quantile(q), "round {round}: quantile {q}");
            }
            assert_eq!(step(&merged, 0).unwrap().len(), samples as u64, "round {round}: the step's histogram");
            assert!(tagged(&merged, "first").is_none(), "empty histograms are not written");
        }
    }

    #[test]
    fn a_log_that_is_not_one_is_an_error() {
        assert!(read("Tag=latency,0.000,3.000,1.0,not base64!\n").is_err());
        assert!(read("").unwrap().is_empty());
    }
}
