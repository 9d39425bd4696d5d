//! What a link is asked to be: `rtt=50ms,loss=1%,burst=4,rate=100mbit,queue=1000`, parsed and
//! checked when it is read, so a bad value is one line before anything starts.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The link's settings, the same in both directions: each direction delays by half the round
/// trip, drops with `loss` (in runs of `burst` packets on average), and sends at `rate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetSpec {
    /// Round-trip time the link adds (each direction adds half).
    #[serde(default)]
    pub rtt_ms: f64,
    /// How much each packet's one-way delay varies: uniform within ± this many milliseconds of
    /// half the round trip, so packets can overtake each other (reordering), as netem's jitter.
    #[serde(default)]
    pub jitter_ms: f64,
    /// Probability that a packet is dropped, per direction (0.01 is 1 %).
    #[serde(default)]
    pub loss: f64,
    /// Mean length of a run of lost packets (Gilbert–Elliott); 1 drops independently.
    #[serde(default = "one")]
    pub burst: f64,
    /// Rate of each direction in Mbit/s; `None` is as fast as the forwarder goes.
    #[serde(default)]
    pub rate_mbit: Option<f64>,
    /// Packets a direction holds waiting for the rate before it drops new ones (drop-tail).
    #[serde(default = "default_queue")]
    pub queue: usize,
    /// TCP's congestion control in the link's namespaces (`net.ipv4.tcp_congestion_control`);
    /// `None` keeps the host's default, which new namespaces inherit. QUIC stacks run their own
    /// controller (quinn: CUBIC), so rows that compare TCP with QUIC under loss set the same kind
    /// on both sides. A namespace may only choose one the host allows
    /// (`net.ipv4.tcp_allowed_congestion_control`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<String>,
}

fn one() -> f64 {
    1.0
}

fn default_queue() -> usize {
    // Linux's default txqueuelen: the queue a sender meets at its own interface.
    1000
}

impl Default for NetSpec {
    fn default() -> Self {
        NetSpec {
            rtt_ms: 0.0,
            jitter_ms: 0.0,
            loss: 0.0,
            burst: 1.0,
            rate_mbit: None,
            queue: default_queue(),
            cc: None,
        }
    }
}

impl NetSpec {
    /// The delay each direction adds.
    pub fn one_way(&self) -> Duration {
        Duration::from_secs_f64(self.rtt_ms / 2e3)
    }

    /// Checks ranges; the error names the key.
    pub fn check(&self) -> Result<(), String> {
        if !(0.0..=10_000.0).contains(&self.rtt_ms) || !self.rtt_ms.is_finite() {
            return Err(format!("rtt {} ms is outside 0 to 10000 ms", self.rtt_ms));
        }
        if !self.jitter_ms.is_finite() || self.jitter_ms < 0.0 || self.jitter_ms > self.rtt_ms / 2.0 {
            return Err(format!(
                "jitter {} ms is outside 0 to half the round trip ({} ms)",
                self.jitter_ms,
                self.rtt_ms / 2.0
            ));
        }
        if !(0.0..1.0).contains(&self.loss) {
            return Err(format!("loss {} is outside [0, 1) (write 1% or 0.01)", self.loss));
        }
        if !self.burst.is_finite() || self.burst < 1.0 {
            return Err(format!("burst {} is below 1 packet", self.burst));
        }
        if self.burst > 1.0 && self.loss == 0.0 {
            return Err("burst needs a loss".into());
        }
        if let Some(r) = self.rate_mbit {
            if !r.is_finite() || !(0.01..=100_000.0).contains(&r) {
                return Err(format!("rate {r} Mbit/s is outside 0.01 to 100000"));
            }
        }
        if self.queue == 0 {
            return Err("queue must hold at least one packet".into());
        }
        if let Some(cc) =
            self.cc.as_deref().filter(|cc| cc.is_empty() || !cc.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            return Err(format!("cc `{cc}` is not a congestion control's name (reno, cubic, bbr)"));
        }
        Ok(())
    }

    /// A short label for row ids and tables: `rtt50ms-loss1%`.
    pub fn label(&self) -> String {
        let mut parts = vec![format!("rtt{}ms", trim(self.rtt_ms))];
        if self.jitter_ms > 0.0 {
            parts.push(format!("jitter{}ms", trim(self.jitter_ms)));
        }
        if self.loss > 0.0 {
            parts.push(format!("loss{}%", trim(self.loss * 100.0)));
        }
        if self.burst > 1.0 {
            parts.push(format!("burst{}", trim(self.burst)));
        }
        if let Some(r) = self.rate_mbit {
            parts.push(format!("{}mbit", trim(r)));
        }
        parts.join("-")
    }
}

/// A number without trailing zeros: 0.5, 50, 12.25.
fn trim(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

impl fmt::Display for NetSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rtt={}ms", trim(self.rtt_ms))?;
        if self.jitter_ms > 0.0 {
            write!(f, ",jitter={}ms", trim(self.jitter_ms))?;
        }
        if self.loss > 0.0 {
            write!(f, ",loss={}%", trim(self.loss * 100.0))?;
        }
        if self.burst > 1.0 {
            write!(f, ",burst={}", trim(self.burst))?;
        }
        if let Some(r) = self.rate_mbit {
            write!(f, ",rate={}mbit", trim(r))?;
        }
        if self.queue != default_queue() {
            write!(f, ",queue={}", self.queue)?;
        }
        if let Some(cc) = &self.cc {
            write!(f, ",cc={cc}")?;
        }
        Ok(())
    }
}

/// `50ms`, `0.5ms`, `1s`, `50` (milliseconds).
fn millis(v: &str) -> Result<f64, String> {
    let (num, scale) = if let Some(n) = v.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix("us").or_else(|| v.strip_suffix("µs")) {
        (n, 1e-3)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1e3)
    } else {
        (v, 1.0)
    };
    num.trim().parse::<f64>().map(|x| x * scale).map_err(|_| format!("`{v}` is not a duration (50ms, 1s)"))
}

/// `1%` or `0.01`.
fn fraction(v: &str) -> Result<f64, String> {
    match v.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|x| x / 100.0),
        None => v.trim().parse::<f64>(),
    }
    .map_err(|_| format!("`{v}` is not a fraction (1% or 0.01)"))
}

/// `100mbit`, `1gbit`, `500kbit`, `100` (Mbit/s).
fn mbit(v: &str) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase();
    let (num, scale) = if let Some(n) = lower.strip_suffix("gbit") {
        (n.to_string(), 1e3)
    } else if let Some(n) = lower.strip_suffix("mbit") {
        (n.to_string(), 1.0)
    } else if let Some(n) = lower.strip_suffix("kbit") {
        (n.to_string(), 1e-3)
    } else {
        (lower.clone(), 1.0)
    };
    num.trim().parse::<f64>().map(|x| x * scale).map_err(|_| format!("`{v}` is not a rate (100mbit, 1gbit)"))
}

impl FromStr for NetSpec {
    type Err = String;

    /// `rtt=50ms,loss=1%,burst=4,rate=100mbit,queue=1000`; every key optional, none twice.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut spec = NetSpec::default();
        let mut seen = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) =
                part.split_once('=').ok_or_else(|| format!("`{part}` is not key=value (rtt=50ms,loss=1%)"))?;
            if seen.contains(&key) {
                return Err(format!("`{key}` is given twice"));
            }
            seen.push(key);
            match key {
                "rtt" => spec.rtt_ms = millis(value)?,
                "jitter" => spec.jitter_ms = millis(value)?,
                "loss" => spec.loss = fraction(value)?,
                "burst" => spec.burst = value.parse().map_err(|_| format!("burst `{value}` is not a number"))?,
                "rate" => spec.rate_mbit = Some(mbit(value)?),
                "queue" => spec.queue = value.parse().map_err(|_| format!("queue `{value}` is not a packet count"))?,
                "cc" => spec.cc = Some(value.to_string()),
                _ => return Err(format!("unknown key `{key}` (rtt, jitter, loss, burst, rate, queue, cc)")),
            }
        }
        if seen.is_empty() {
            return Err("no setting given (rtt=50ms,loss=1%,rate=100mbit)".into());
        }
        spec.check()?;
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_the_help_shows_and_prints_it_back() {
        let s: NetSpec = "rtt=50ms,loss=1%,burst=4,rate=100mbit".parse().unwrap();
        assert_eq!(s.rtt_ms, 50.0);
        assert!((s.loss - 0.01).abs() < 1e-12);
        assert_eq!(s.burst, 4.0);
        assert_eq!(s.rate_mbit, Some(100.0));
        assert_eq!(s.one_way(), Duration::from_millis(25));
        assert_eq!(s.to_string(), "rtt=50ms,loss=1%,burst=4,rate=100mbit");
        assert_eq!(s.to_string().parse::<NetSpec>().unwrap(), s);
        assert_eq!(s.label(), "rtt50ms-loss1%-burst4-100mbit");
        let t: NetSpec = "rtt=0.5s,loss=0.005,rate=1gbit,queue=64,cc=bbr".parse().unwrap();
        assert_eq!(
            (t.rtt_ms, t.loss, t.rate_mbit, t.queue, t.cc.as_deref()),
            (500.0, 0.005, Some(1000.0), 64, Some("bbr"))
        );
        assert_eq!(t.to_string(), "rtt=500ms,loss=0.5%,rate=1000mbit,queue=64,cc=bbr");
        assert_eq!(s.cc, None);
        let j: NetSpec = "rtt=40ms,jitter=5ms".parse().unwrap();
        assert_eq!(
            (j.jitter_ms, j.to_string(), j.label()),
            (5.0, "rtt=40ms,jitter=5ms".into(), "rtt40ms-jitter5ms".into())
        );
    }

    #[test]
    fn bad_settings_are_one_line_naming_the_key() {
        for (input, wanted) in [
            ("", "no setting"),
            ("rtt=fast", "not a duration"),
            ("rtt=-5ms", "outside 0"),
            ("loss=100%", "outside [0, 1)"),
            ("loss=1%,burst=0.5", "below 1 packet"),
            ("burst=3", "needs a loss"),
            ("rate=0mbit", "outside 0.01"),
            ("queue=0", "at least one packet"),
            ("rtt=5ms,rtt=6ms", "twice"),
            ("rtt=10ms,jitter=6ms", "jitter 6 ms is outside 0 to half the round trip"),
            ("delay=5ms", "unknown key `delay`"),
            ("cc=../x", "not a congestion control"),
            ("rtt", "not key=value"),
        ] {
            let e = input.parse::<NetSpec>().unwrap_err();
            assert!(e.contains(wanted), "{input:?}: {e}");
            assert!(!e.contains('\n'), "{input:?}: {e}");
        }
    }
}
