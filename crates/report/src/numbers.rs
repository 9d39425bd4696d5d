//! Number formatting shared by every output: thousands separators, latencies that stay readable
//! from microseconds to seconds, milliseconds, kilobytes and shares, intervals, ratios and metric
//! values by metric id.

/// Placeholder for a value that was not measured.
pub const NONE: &str = "—";

/// Rounded to an integer with thousands separators: `12345.6` → `12,346`.
pub fn thousands(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() { NONE.into() } else { "∞".into() };
    }
    let rounded = x.round();
    let digits = format!("{:.0}", rounded.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if rounded < 0.0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Three significant digits, thousands separators from 1,000 on: `0.0123`, `1.23`, `123`, `12,345`.
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return thousands(x);
    }
    if x == 0.0 {
        return "0".into();
    }
    let mut decimals = 2 - x.abs().log10().floor() as i32;
    // 0.9996 rounds to 1.000: count the digits of the rounded value, not of x.
    let scale = 10f64.powi(decimals);
    if ((x.abs() * scale).round() / scale).log10().floor() as i32 > 2 - decimals {
        decimals -= 1;
    }
    if decimals <= 0 {
        thousands(x)
    } else {
        format!("{:.*}", decimals.min(9) as usize, x)
    }
}

/// A rate or count: integers with separators from 100 on, otherwise three significant digits.
pub fn number(x: f64) -> String {
    if x.abs() >= 100.0 {
        thousands(x)
    } else {
        sig3(x)
    }
}

/// A latency given in microseconds, in the unit that keeps it short: `850 µs`, `1.25 ms`,
/// `125 ms`, `1.25 s`.
pub fn latency_us(us: f64) -> String {
    if !us.is_finite() {
        return thousands(us);
    }
    if us.abs() < 999.5 {
        return format!("{} µs", thousands(us));
    }
    let ms = us / 1000.0;
    if ms.abs() < 999.5 {
        return format!("{} ms", sig3(ms));
    }
    format!("{} s", sig3(ms / 1000.0))
}

/// A ratio: `1.82×`.
pub fn ratio(x: f64) -> String {
    format!("{}×", sig3(x))
}

/// An interval with an en dash, each end formatted by `f`: `12,100–12,590`.
pub fn interval(lo: f64, hi: f64, f: impl Fn(f64) -> String) -> String {
    format!("{}–{}", f(lo), f(hi))
}

/// Mebibytes from kibibytes (`rss_kb` is read from /proc in KiB).
pub fn mib_from_kib(kib: f64) -> String {
    sig3(kib / 1024.0)
}

/// Memory of the machine: `31.3 GiB`.
pub fn gib_from_kib(kib: u64) -> String {
    format!("{} GiB", sig3(kib as f64 / (1024.0 * 1024.0)))
}

/// Bytes in the largest binary unit that keeps the number at least 1: `1.00 MiB`, `512 B`.
pub fn bytes(b: f64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = b;
    let mut unit = 0;
    while v.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{} {}", sig3(v), UNITS[unit])
}

/// Milliseconds from nanoseconds, three significant digits, no unit: `748000` → `0.748`.
pub fn ms_from_ns(ns: f64) -> String {
    sig3(ns / 1e6)
}

/// Decimal kilobytes (1 KB = 1,000 bytes, as studies quote sizes): `527431` → `527 KB`.
pub fn kilobytes(b: f64) -> String {
    format!("{} KB", sig3(b / 1000.0))
}

/// A share as a percentage, three significant digits: `0.2534` → `25.3 %`.
pub fn percent(x: f64) -> String {
    format!("{} %", sig3(x * 100.0))
}

/// A value of a named metric (`wirebench_core::metrics::METRICS`) in its unit: `12,345 req/s`,
/// `1.25 ms`, `0.84 s`; a number for an id the table does not name.
pub fn metric_value(metric: &str, v: f64) -> String {
    use wirebench_core::metrics::{find, Unit};
    match find(metric).map(|m| m.unit) {
        Some(Unit::RequestsPerS) => format!("{} req/s", number(v)),
        Some(Unit::KiB) => format!("{} MiB", mib_from_kib(v)),
        Some(Unit::Share) => percent(v),
        Some(Unit::Factor) => format!("{}×", sig3(v)),
        Some(Unit::Micros) => latency_us(v),
        Some(Unit::Nanos) => format!("{} ns", number(v)),
        Some(Unit::Bytes) => bytes(v),
        Some(Unit::Seconds) => format!("{} s", sig3(v)),
        Some(Unit::Millis) => format!("{} ms", sig3(v)),
        Some(Unit::PerS) => format!("{}/s", number(v)),
        Some(Unit::Count) | None => number(v),
    }
}

/// Where the subject and the load ran: `subject 0 · load 1`.
pub fn pinning(cpus: &wirebench_core::schema::CpuSets) -> String {
    format!("subject {} · load {}", cpu_list(&cpus.subject), cpu_list(&cpus.load))
}

/// CPU numbers as compact ranges: `[0, 1, 2, 3, 6]` → `0-3,6`; empty → `not pinned`.
pub fn cpu_list(cpus: &[usize]) -> String {
    if cpus.is_empty() {
        return "not pinned".into();
    }
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut start = sorted[0];
    let mut prev = start;
    for &c in &sorted[1..] {
        if c != prev + 1 {
            parts.push(range_text(start, prev));
            start = c;
        }
        prev = c;
    }
    parts.push(range_text(start, prev));
    parts.join(",")
}

fn range_text(a: usize, b: usize) -> String {
    if a == b {
        a.to_string()
    } else {
        format!("{a}-{b}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_format_readably() {
        type Format = fn(f64) -> String;
        let cases: &[(Format, f64, &str)] = &[
            (thousands, 0.0, "0"),
            (thousands, 999.4, "999"),
            (thousands, 1234.5, "1,235"),
            (thousands, 1_234_567.0, "1,234,567"),
            (thousands, -12345.0, "-12,345"),
            (thousands, f64::INFINITY, "∞"),
            (sig3, 0.012345, "0.0123"),
            (sig3, 1.2345, "1.23"),
            (sig3, 12.345, "12.3"),
            (sig3, 123.45, "123"),
            (sig3, 12345.0, "12,345"),
            (sig3, 0.9996, "1.00"),
            (sig3, 99.96, "100"),
            (number, 85.26, "85.3"),
            (number, 12345.4, "12,345"),
            (latency_us, 850.0, "850 µs"),
            (latency_us, 999.4, "999 µs"),
            (latency_us, 999.6, "1.00 ms"),
            (latency_us, 1250.0, "1.25 ms"),
            (latency_us, 12_500.0, "12.5 ms"),
            (latency_us, 125_000.0, "125 ms"),
            (latency_us, 1_250_000.0, "1.25 s"),
            (ratio, 1.8234, "1.82×"),
            (bytes, 1024.0 * 1024.0, "1.00 MiB"),
            (bytes, 512.0, "512 B"),
            (ms_from_ns, 748_000.0, "0.748"),
            (ms_from_ns, 18_078_000.0, "18.1"),
            (kilobytes, 527_431.0, "527 KB"),
            (kilobytes, 1_426_779.0, "1,427 KB"),
            (percent, 0.25342, "25.3 %"),
        ];
        for (f, x, want) in cases {
            assert_eq!(f(*x), *want, "input {x}");
        }
    }

    #[test]
    fn metric_values_carry_units() {
        assert_eq!(metric_value("rps", 12345.0), "12,345 req/s");
        assert_eq!(metric_value("p99_us", 2500.0), "2.50 ms");
        assert_eq!(metric_value("cpu_s", 0.8412), "0.841 s");
        assert_eq!(metric_value("rss_kb", 20480.0), "20.0 MiB");
        assert_eq!(metric_value("serialize_ns", 512.0), "512 ns");
        assert_eq!(metric_value("size_bytes", 2048.0), "2.00 KiB");
        assert_eq!(metric_value("rps_cv", 0.1234), "12.3 %");
        assert_eq!(metric_value("tail_ratio", 3.456), "3.46×");
        assert_eq!(metric_value("duration_gsd", 1.0812), "1.08×");
        assert_eq!(metric_value("messages_per_s", 1234.5), "1,235/s", "a rate, not seconds");
        assert_eq!(metric_value("wire_bytes_per_call", 1536.0), "1.50 KiB");
        assert_eq!(metric_value("colour", 2.5), "2.50", "an id the table does not name");
    }

    #[test]
    fn cpu_lists_compact_to_ranges() {
        assert_eq!(cpu_list(&[]), "not pinned");
        assert_eq!(cpu_list(&[3, 0, 1, 2, 6]), "0-3,6");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(interval(1000.0, 2000.0, thousands), "1,000–2,000");
    }
}
