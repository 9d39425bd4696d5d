//! Scenarios: one row of the report, a driver sending one request shape at one subject. A
//! scenario checks its own rules (`Scenario::check`) and makes its load plan (`Scenario::plan`)
//! for a suite and for `wirebench load` alike, which builds a scenario from its flags: a rule
//! lives here once, and its message names a setting as the user wrote it, a suite's key or the
//! command's flag (`Knob`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::error::{Invalid, NO_LAB};
use super::expect::Expect;
use super::groups::Script;
use super::profile::Profile;

/// One row of the report: a driver sending one request shape at one subject.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub id: String,
    pub subject: String,
    /// Load driver id from the load engine's registry (`http1`, `http2`, ...).
    pub driver: String,
    /// Connect to the subject's `tls` port with TLS (ALPN picks the HTTP version).
    #[serde(default)]
    pub tls: bool,
    /// The port the load goes to, when not `plain` or `tls`: another of the subject's ports, or
    /// `<service>.<port>` of a service the subject uses (an MQTT broker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(default = "default_method")]
    pub method: String,
    /// The request's path; empty for a scenario that runs a group.
    #[serde(default)]
    pub path: String,
    /// A thread group (`groups`) its connections run as virtual users, instead of one request;
    /// `requests` then counts the users' iterations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Users start evenly over this many seconds (JMeter's ramp-up); the measured interval
    /// includes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ramp_up_s: Option<f64>,
    /// The group's script, resolved when the suite loads.
    #[serde(skip)]
    pub script: Option<std::sync::Arc<Script>>,
    /// Request body of this many bytes (deterministic filler), for POST/PUT ...
    #[serde(default)]
    pub body_bytes: Option<usize>,
    /// ... or this text as UTF-8 (a GraphQL query, a SOAP envelope) ...
    #[serde(default)]
    pub body: Option<String>,
    /// ... or the bytes of this file, relative to the project root (a protobuf message).
    #[serde(default)]
    pub body_file: Option<String>,
    /// Protocol parameters that only the driver reads (a gRPC call mode, a message count, ...);
    /// recorded with every measurement.
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    /// Payload bytes one call carries (both directions, every message), so the report can show
    /// wire bytes per call against them: the envelope overhead of the protocol.
    #[serde(default)]
    pub payload_bytes: Option<u64>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Concurrent connections (`h2load -c`).
    pub connections: u32,
    /// Concurrent streams per connection (`h2load -m`); 1 for HTTP/1.1.
    #[serde(default = "one_u32")]
    pub streams: u32,
    /// Stop after this many requests in total (`-n`) ...
    #[serde(default)]
    pub requests: Option<u64>,
    /// ... or after this many seconds.
    #[serde(default)]
    pub duration_s: Option<f64>,
    /// Open model: requests per second at a constant arrival rate (latency corrected for
    /// coordinated omission). Absent: closed model, each stream sends as soon as it is answered.
    #[serde(default)]
    pub rate: Option<f64>,
    #[serde(default)]
    pub warmup_requests: Option<u64>,
    #[serde(default)]
    pub warmup_s: Option<f64>,
    /// Repeat the warm-up (`warmup_s` or `warmup_requests`) until a window's req/s is within
    /// 5 % of the window before, either way (the runner's `WARM`), at most this many windows: a JVM still compiling
    /// after one window (Tomcat at G1 ran its first row 1.88x slower than a later one) is warmed
    /// until it stops speeding up. The rows record how many windows it took and last ÷ first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_until_steady: Option<u32>,
    #[serde(default)]
    pub expect: Expect,
    /// Free-form labels for grouping in the report (`api`, `payload`, `transport`, ...).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// The lab of its rows, when not the suite's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
    /// A new connection for every request, its handshakes (TCP, TLS, QUIC) in the request's
    /// latency, as a client without keep-alive pays them; `connections` is then the number of
    /// requests in flight. Needs `streams = 1`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reconnect: bool,
    /// A network link between the load and the subject (`net = { rtt_ms = 40, loss = 0.01 }`):
    /// the subject and its services run in a namespace of their own, the load in another,
    /// joined by the link (docs/METHODOLOGY.md, "Network conditions").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<wirebench_link::NetSpec>,
}

fn default_method() -> String {
    "GET".into()
}

fn one_u32() -> u32 {
    1
}

/// A scenario setting as a suite names it (`connections`) and as `wirebench load` does (`-c`),
/// so that a rule's message names the one the user wrote. A setting the command has no flag for
/// is named by its key in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Knob {
    pub key: &'static str,
    pub flag: Option<&'static str>,
}

/// Where a scenario was written: a suite's row or `wirebench load`'s flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Suite,
    Flags,
}

impl Knob {
    pub const LAB: Knob = Knob { key: "lab", flag: None };
    pub const CONNECTIONS: Knob = Knob { key: "connections", flag: Some("-c") };
    pub const STREAMS: Knob = Knob { key: "streams", flag: Some("-m") };
    pub const REQUESTS: Knob = Knob { key: "requests", flag: Some("-n") };
    pub const DURATION: Knob = Knob { key: "duration_s", flag: Some("--duration") };
    pub const RATE: Knob = Knob { key: "rate", flag: Some("--rate") };
    pub const PATH: Knob = Knob { key: "path", flag: Some("the URL's path") };
    pub const GROUP: Knob = Knob { key: "group", flag: Some("--group") };
    pub const RAMP_UP: Knob = Knob { key: "ramp_up_s", flag: Some("--ramp-up") };
    pub const BODY: Knob = Knob { key: "body", flag: Some("--body") };
    pub const BODY_FILE: Knob = Knob { key: "body_file", flag: Some("--body-file") };
    pub const BODY_BYTES: Knob = Knob { key: "body_bytes", flag: Some("--body-bytes") };
    pub const RECONNECT: Knob = Knob { key: "reconnect", flag: Some("--reconnect") };
    pub const NET: Knob = Knob { key: "net", flag: Some("--net") };
    pub const WARMUP_STEADY: Knob = Knob { key: "warmup_until_steady", flag: None };

    /// The setting's name where it was written.
    pub fn name(self, dialect: Dialect) -> &'static str {
        match dialect {
            Dialect::Suite => self.key,
            Dialect::Flags => self.flag.unwrap_or(self.key),
        }
    }
}

/// When a load stops.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    Requests(u64),
    Duration(Duration),
}

/// How much load to send: the closed model (`rate: None`) or the open model at a constant rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub connections: u32,
    pub streams: u32,
    pub stop: Stop,
    pub rate: Option<f64>,
    /// A probe load's cap (`bottleneck`): the share of its CPU time the instrument keeps in every
    /// other slice, to ask whether it set the pace; `None` for a load that is measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<f64>,
}

/// The fewest windows a warm-up repeated until steady can have: it compares each with the one
/// before. Both `warmup_until_steady` and a profile's cap on it (`max_warmup_windows`) hold to it.
pub const MIN_WARMUP_WINDOWS: u32 = 2;
/// What either setting below `MIN_WARMUP_WINDOWS` is told.
pub const FEW_WARMUP_WINDOWS: &str = "must be at least 2: windows to compare";

impl Scenario {
    /// What is wrong with the scenario on its own (its id's uniqueness, subject, driver, ports and
    /// group are the suite's to check): the setting, named as written in `dialect`, and why.
    pub fn check(&self, dialect: Dialect) -> Result<(), Invalid> {
        let n = |k: Knob| k.name(dialect);
        let bad = |k: Knob, message: String| Err(Invalid::new(n(k), message));
        if self.lab.as_deref() == Some("") {
            return bad(Knob::LAB, NO_LAB.into());
        }
        if self.connections == 0 {
            return bad(Knob::CONNECTIONS, "must be at least 1".into());
        }
        if self.streams == 0 {
            return bad(Knob::STREAMS, "must be at least 1".into());
        }
        match (self.requests, self.duration_s) {
            (None, None) | (Some(_), Some(_)) => {
                let message = format!("set exactly one of `{}` and `{}`", n(Knob::REQUESTS), n(Knob::DURATION));
                return bad(Knob::REQUESTS, message);
            }
            (Some(0), _) => return bad(Knob::REQUESTS, "must be at least 1".into()),
            (_, Some(d)) if d <= 0.0 || d.is_nan() => return bad(Knob::DURATION, "must be positive".into()),
            _ => {}
        }
        if matches!(self.rate, Some(r) if r <= 0.0 || r.is_nan()) {
            return bad(Knob::RATE, "must be positive".into());
        }
        let has_body = [self.body_bytes.is_some(), self.body.is_some(), self.body_file.is_some()];
        match &self.group {
            None if !self.path.starts_with('/') => return bad(Knob::PATH, "must start with /".into()),
            Some(_) if !self.path.is_empty() || has_body.contains(&true) => {
                let message = "a scenario that runs a group takes its requests from the group's steps";
                return bad(Knob::PATH, message.into());
            }
            _ => {}
        }
        if matches!(self.ramp_up_s, Some(r) if r < 0.0 || !r.is_finite())
            || (self.ramp_up_s.is_some() && self.group.is_none())
        {
            return bad(Knob::RAMP_UP, "must be 0 or more, on a scenario that runs a group".into());
        }
        if has_body.iter().filter(|&&b| b).count() > 1 {
            let message = format!(
                "set at most one of `{}`, `{}` and `{}`",
                n(Knob::BODY),
                n(Knob::BODY_FILE),
                n(Knob::BODY_BYTES)
            );
            return bad(Knob::BODY, message);
        }
        if self.reconnect && (self.streams != 1 || self.group.is_some()) {
            let message =
                format!("a new connection per request needs {} = 1 and no {}", n(Knob::STREAMS), n(Knob::GROUP));
            return bad(Knob::RECONNECT, message);
        }
        if let Some(Err(e)) = self.net.as_ref().map(|n| n.check()) {
            return bad(Knob::NET, e);
        }
        match self.warmup_until_steady {
            Some(w) if w < MIN_WARMUP_WINDOWS => return bad(Knob::WARMUP_STEADY, FEW_WARMUP_WINDOWS.into()),
            Some(_) if self.warmup_s.is_none() && self.warmup_requests.is_none() => {
                let message = "repeats the warm-up: set `warmup_s` or `warmup_requests` too";
                return bad(Knob::WARMUP_STEADY, message.into());
            }
            _ => {}
        }
        Ok(())
    }

    /// The measured plan, or the warm-up plan (`None` when it has no warm-up). A checked
    /// scenario has `requests` or `duration_s`.
    pub fn plan(&self, warmup: bool) -> Option<Plan> {
        let stop = match if warmup { (self.warmup_requests, self.warmup_s) } else { (self.requests, self.duration_s) } {
            (Some(n), _) => Stop::Requests(n),
            (None, Some(d)) => Stop::Duration(Duration::from_secs_f64(d)),
            (None, None) if warmup => return None,
            (None, None) => unreachable!("Scenario::check demands requests or duration_s"),
        };
        Some(Plan { connections: self.connections, streams: self.streams, stop, rate: self.rate, cap: None })
    }

    /// The scenario with the profile's scale and its caps on connections and warm-up windows
    /// applied. At least one request per stream survives scaling so every stream is exercised.
    pub fn scaled(&self, profile: &Profile) -> Scenario {
        let mut s = self.clone();
        if let Some(cap) = profile.max_connections {
            s.connections = s.connections.min(cap);
        }
        if let Some(cap) = profile.max_warmup_windows {
            s.warmup_until_steady = s.warmup_until_steady.map(|w| w.min(cap));
        }
        let floor = u64::from(s.connections) * u64::from(s.streams);
        let scale = |n: u64| ((n as f64 * profile.scale).round() as u64).max(floor);
        s.requests = s.requests.map(scale);
        s.warmup_requests = s.warmup_requests.map(scale);
        s.duration_s = s.duration_s.map(|d| d * profile.scale);
        s.warmup_s = s.warmup_s.map(|d| d * profile.scale);
        s
    }

    /// Port name this scenario connects to: its `port`, else `tls` or `plain`.
    pub fn port_name(&self) -> &str {
        match (&self.port, self.tls) {
            (Some(p), _) => p,
            (None, true) => "tls",
            (None, false) => "plain",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario() -> Scenario {
        let row = "id = \"a\"\nsubject = \"s\"\ndriver = \"http1\"\npath = \"/x\"\nconnections = 2\nrequests = 10\n";
        toml::from_str(row).unwrap()
    }

    #[test]
    fn a_profile_caps_the_warm_up_windows_it_does_not_add_them() {
        let steady = Scenario { warmup_s: Some(1.5), warmup_until_steady: Some(8), ..scenario() };
        let profile = |cap| Profile { max_warmup_windows: cap, ..Profile::builtin("quick").unwrap() };
        assert_eq!(steady.scaled(&profile(Some(2))).warmup_until_steady, Some(2));
        assert_eq!(steady.scaled(&profile(Some(10))).warmup_until_steady, Some(8), "a cap, not a count");
        assert_eq!(steady.scaled(&profile(None)).warmup_until_steady, Some(8));
        assert_eq!(scenario().scaled(&profile(Some(2))).warmup_until_steady, None, "one window stays one");
    }

    /// Each rule names the setting as the user wrote it: the suite's key or the command's flag.
    #[test]
    fn each_rule_names_its_setting_in_the_suite_and_on_the_command_line() {
        type Spoil = fn(&mut Scenario);
        let cases: &[(Spoil, &str, &str, &str)] = &[
            (|s| s.connections = 0, "connections", "-c", "must be at least 1"),
            (|s| s.streams = 0, "streams", "-m", "must be at least 1"),
            (|s| s.requests = None, "requests", "-n", "set exactly one of `requests` and `duration_s`"),
            (|s| s.duration_s = Some(1.0), "requests", "-n", "set exactly one of `requests` and `duration_s`"),
            (|s| s.requests = Some(0), "requests", "-n", "must be at least 1"),
            (|s| (s.requests, s.duration_s) = (None, Some(0.0)), "duration_s", "--duration", "must be positive"),
            (|s| s.rate = Some(f64::NAN), "rate", "--rate", "must be positive"),
            (|s| s.path = "x".into(), "path", "the URL's path", "must start with /"),
            (|s| s.group = Some("g".into()), "path", "the URL's path", "a scenario that runs a group"),
            (
                |s| s.ramp_up_s = Some(1.0),
                "ramp_up_s",
                "--ramp-up",
                "must be 0 or more, on a scenario that runs a group",
            ),
            (|s| (s.body, s.body_bytes) = (Some("x".into()), Some(1)), "body", "--body", "set at most one of `body`"),
            (
                |s| (s.reconnect, s.streams) = (true, 2),
                "reconnect",
                "--reconnect",
                "a new connection per request needs streams = 1",
            ),
            (|s| s.lab = Some(String::new()), "lab", "lab", "must name a lab"),
        ];
        assert_eq!(scenario().check(Dialect::Suite), Ok(()));
        for (spoil, key, flag, message) in cases {
            let mut s = scenario();
            spoil(&mut s);
            let suite = s.check(Dialect::Suite).unwrap_err();
            assert_eq!(suite.key, *key, "{message}");
            assert!(suite.message.starts_with(message), "{suite:?}");
            assert_eq!(s.check(Dialect::Flags).unwrap_err().key, *flag, "{message}");
        }
        let mut s = scenario();
        (s.reconnect, s.streams) = (true, 2);
        let flags = s.check(Dialect::Flags).unwrap_err().message;
        assert_eq!(flags, "a new connection per request needs -m = 1 and no --group", "other settings by flag too");
    }

    #[test]
    fn the_plan_is_the_scenarios_stop_and_its_warmup_if_any() {
        let mut s = scenario();
        let plan = s.plan(false).unwrap();
        assert_eq!((plan.connections, plan.streams, plan.stop, plan.rate), (2, 1, Stop::Requests(10), None));
        assert_eq!(s.plan(true), None, "no warm-up");
        s.warmup_s = Some(0.5);
        assert_eq!(s.plan(true).unwrap().stop, Stop::Duration(Duration::from_millis(500)));
    }
}
