//! What a suite measures, described as data: subjects (servers the runner starts, with their
//! ports, health check, setup and build) and harnesses (programs that measure in their own
//! process), each checking what it can on its own when the suite loads.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::{Invalid, NO_LAB};

/// A process to measure, described as data (TechEmpower's benchmark_config.json); or a server
/// already running, named by its `url`, which the runner neither starts nor stops.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubjectSpec {
    /// Language the subject is written in; recorded with every measurement (`unknown` when a
    /// URL subject does not say).
    #[serde(default = "unknown")]
    pub lang: String,
    /// argv of the subject, run directly (no shell) so it gets the runner's death signal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// A server the runner does not start: `https://api.example:8443`. Its host is the TLS server
    /// name and the `Host` header; its certificate is verified against the system's roots unless
    /// `ca` or `insecure` say otherwise. Its CPU and memory are not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Where to connect instead of the URL's `host:port` (`127.0.0.1:8443`; curl's
    /// `--connect-to`): the name stays the URL's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_to: Option<String>,
    /// A PEM file of CA certificates to verify the URL subject's certificate with (relative to
    /// the project root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca: Option<String>,
    /// Accept any certificate from the URL subject (its handshake's signatures still checked).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure: bool,
    /// A client certificate (PEM) and its key for a URL subject that asks for one (mutual TLS),
    /// relative to the project root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_cert: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_key: Option<String>,
    /// The process id of a URL subject running on this machine: its CPU and memory are then
    /// sampled as ours are, and its work is the run's, not foreign load on the run's CPUs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// What builds it (`cargo build --release -p ...`), run by `wirebench build` and before a
    /// run; identical steps of several subjects run once.
    #[serde(default)]
    pub build: Option<Build>,
    /// Commands run in order in its working directory each time before it starts, with its
    /// placeholders filled (a database filled with data); one that fails fails the subject.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<Vec<String>>,
    /// Working directory, relative to the project root (default: the root).
    #[serde(default)]
    pub workdir: Option<String>,
    /// Named ports and the flag that passes each: `{ plain = "--port", tls = "--tls-port" }`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ports: BTreeMap<String, String>,
    /// The flag that sets the address it listens on (`--host`), passed only when workers on
    /// other machines load it (`wirebench run --workers N --advertise HOST`); it listens on
    /// loopback otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Ports to use instead of free ones, by name (otherwise a free loopback port is picked).
    #[serde(default)]
    pub fixed_ports: BTreeMap<String, u16>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// How the runner knows a subject it started is ready (none for a URL subject).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<Health>,
    #[serde(default = "default_ready_timeout")]
    pub ready_timeout_s: f64,
    /// Subjects whose build must run before its own, by id: a tool its `setup` runs that another
    /// subject's build makes (the REST study's `-filled` subjects run restcache-fill).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// Services it needs, started before it; `{<service>.<port>}` in `command` and `env` is
    /// replaced by the service's port (`suite::services`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<String>,
}

fn default_ready_timeout() -> f64 {
    30.0
}

fn unknown() -> String {
    "unknown".into()
}

/// A URL subject's origin, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub tls: bool,
    pub host: String,
    pub port: u16,
}

impl Origin {
    /// `http://host[:port]` or `https://host[:port]` (80 and 443 by default), nothing after the
    /// authority but an optional `/`.
    pub fn parse(url: &str) -> Result<Origin, String> {
        let (tls, rest) = match url.split_once("://") {
            Some(("http", rest)) => (false, rest),
            Some(("https", rest)) => (true, rest),
            _ => return Err(format!("`{url}`: expected http://host[:port] or https://host[:port]")),
        };
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        if authority.contains('/') || authority.contains('?') {
            return Err(format!("`{url}`: give the origin only; each scenario's `path` says the rest"));
        }
        // `[::1]:8443`: the port is after the bracket.
        let (host, port) = match authority
            .rsplit_once(':')
            .filter(|(h, _)| !h.ends_with(':') && (h.starts_with('[') == h.ends_with(']')))
        {
            Some((h, p)) if !p.contains(']') => (h, Some(p)),
            _ => (authority, None),
        };
        let port = match port {
            Some(p) => p.parse::<u16>().map_err(|_| format!("`{url}`: bad port `{p}`"))?,
            None if tls => 443,
            None => 80,
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(format!("`{url}`: no host"));
        }
        Ok(Origin { tls, host: host.to_string(), port })
    }
}

/// Readiness: an HTTP/1.1 GET on a named port answering 200.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Health {
    #[serde(default = "default_port_name")]
    pub port: String,
    pub path: String,
}

fn default_port_name() -> String {
    "plain".into()
}

impl SubjectSpec {
    /// What is wrong with the subject on its own (the subjects it `needs`, the services it
    /// names and its placeholders are the suite's to check): the key inside it and the message.
    pub fn check(&self) -> Result<(), Invalid> {
        if let Some(url) = &self.url {
            Origin::parse(url).map_err(|e| Invalid::new("url", e))?;
            let started = [
                ("command", !self.command.is_empty()),
                ("ports", !self.ports.is_empty()),
                ("health", self.health.is_some()),
                ("build", self.build.is_some()),
                ("setup", !self.setup.is_empty()),
                ("services", !self.services.is_empty()),
            ];
            if let Some((key, _)) = started.iter().find(|(_, set)| *set) {
                return Err(Invalid::new(
                    *key,
                    "belongs to a subject the runner starts; a `url` subject is a server already running",
                ));
            }
            if self.client_cert.is_some() != self.client_key.is_some() {
                return Err(Invalid::new("client_cert", "and `client_key` go together: a certificate and its key"));
            }
            if self.insecure && self.ca.is_some() {
                return Err(Invalid::new("insecure", "and `ca` both say how to check the certificate: keep one"));
            }
            if let Some(to) = &self.connect_to {
                if !to.rsplit_once(':').is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok()) {
                    return Err(Invalid::new("connect_to", format!("`{to}`: expected ADDR:PORT")));
                }
            }
            return Ok(());
        }
        for (key, set) in [
            ("connect_to", self.connect_to.is_some()),
            ("ca", self.ca.is_some()),
            ("insecure", self.insecure),
            ("pid", self.pid.is_some()),
            ("client_cert", self.client_cert.is_some() || self.client_key.is_some()),
        ] {
            if set {
                return Err(Invalid::new(key, "belongs to a `url` subject: the runner's own subjects are on loopback"));
            }
        }
        if self.command.is_empty() {
            return Err(Invalid::new("command", "must name a program (or give `url` for a server already running)"));
        }
        let Some(health) = &self.health else {
            return Err(Invalid::new(
                "health",
                "says how the runner knows it is ready: `health = { path = \"/health\" }`",
            ));
        };
        if !self.ports.contains_key(&health.port) {
            return Err(Invalid::new("health.port", format!("no port named `{}` in ports", health.port)));
        }
        if let Some(i) = self.setup.iter().position(Vec::is_empty) {
            return Err(Invalid::new(format!("setup[{i}]"), "must name a program"));
        }
        Ok(())
    }
}

/// A command that measures in its own process and prints one measurement JSON line per result
/// (schemas/measurement.schema.json). The runner appends `--repeats R --run-id ID`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessSpec {
    pub id: String,
    pub lang: String,
    pub command: Vec<String>,
    #[serde(default)]
    pub build: Option<Build>,
    #[serde(default)]
    pub workdir: Option<String>,
    /// The harness is killed and its row failed after this long.
    #[serde(default = "default_harness_timeout")]
    pub timeout_s: f64,
    /// Globs of the scenario ids it prints (e.g. `*-rust`), so claims can name them.
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// Subjects it talks to (servers a driver or a browser page calls), started with their
    /// services before it and stopped after it. In `command`, `{<subject>.<port>}` is a
    /// subject's port and `{profile}` the run's profile name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
    /// The lab of the rows it prints, when not the suite's (the runner stamps it on each).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
    /// A network link between the harness (a browser, a driver) and its subjects: they start in
    /// the link's server namespace, the harness in its client namespace, and the runner stamps
    /// the link on every row it prints (docs/METHODOLOGY.md, "Network conditions").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<wirebench_link::NetSpec>,
}

fn default_harness_timeout() -> f64 {
    1800.0
}

impl HarnessSpec {
    /// What is wrong with the harness row on its own (its id's uniqueness, its subjects and its
    /// command's placeholders are the suite's to check): the key inside it and the message.
    pub fn check(&self) -> Result<(), Invalid> {
        if self.command.is_empty() {
            return Err(Invalid::new("command", "must name a program"));
        }
        if self.lab.as_deref() == Some("") {
            return Err(Invalid::new("lab", NO_LAB));
        }
        if let Some(Err(e)) = self.net.as_ref().map(|n| n.check()) {
            return Err(Invalid::new("net", e));
        }
        Ok(())
    }
}

/// How a subject or harness is built: one command (`["go", "build", "."]`) or several run in
/// order (`[["./build.sh"], ["cargo", "build", ...]]`), each an argv run from its `workdir`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Build {
    One(Vec<String>),
    Steps(Vec<Vec<String>>),
}

impl Build {
    pub fn steps(&self) -> Vec<&[String]> {
        match self {
            Build::One(argv) => vec![argv.as_slice()],
            Build::Steps(steps) => steps.iter().map(Vec::as_slice).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_a_scheme_a_host_and_a_port_the_scheme_may_imply() {
        let o = |u: &str| Origin::parse(u);
        assert_eq!(o("https://api.example:8443"), Ok(Origin { tls: true, host: "api.example".into(), port: 8443 }));
        assert_eq!(o("https://api.example/").map(|x| x.port), Ok(443));
        assert_eq!(o("http://api.example").map(|x| x.port), Ok(80));
        assert_eq!(o("http://[::1]:8080"), Ok(Origin { tls: false, host: "::1".into(), port: 8080 }));
        assert_eq!(o("https://[::1]").map(|x| (x.host, x.port)), Ok(("::1".into(), 443)));
        for (bad, says) in [
            ("ftp://x:1", "expected http://host[:port] or https://host[:port]"),
            ("https://api.example:8443/v1", "give the origin only"),
            ("https://api.example:port", "bad port `port`"),
            ("https://:443", "no host"),
        ] {
            let e = o(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    fn url_subject() -> SubjectSpec {
        toml::from_str("url = \"https://api.example:8443\"").unwrap()
    }

    #[test]
    fn a_url_subject_takes_nothing_the_runner_would_start_and_ours_take_no_url_options() {
        let s = url_subject();
        assert_eq!((s.lang.as_str(), s.check().map_err(|e| e.message)), ("unknown", Ok(())));
        let command = SubjectSpec { command: vec!["server".into()], ..url_subject() };
        assert_eq!(command.check().unwrap_err().key, "command");
        let both = SubjectSpec { insecure: true, ca: Some("ca.pem".into()), ..url_subject() };
        assert_eq!(both.check().unwrap_err().key, "insecure");
        let to = SubjectSpec { connect_to: Some("127.0.0.1".into()), ..url_subject() };
        assert_eq!(to.check().unwrap_err().message, "`127.0.0.1`: expected ADDR:PORT");
        let ours: SubjectSpec =
            toml::from_str("lang = \"go\"\ncommand = [\"s\"]\nports = { plain = \"--port\" }\ninsecure = true")
                .unwrap();
        assert_eq!(ours.check().unwrap_err().key, "insecure");
        let unready: SubjectSpec =
            toml::from_str("lang = \"go\"\ncommand = [\"s\"]\nports = { plain = \"--port\" }").unwrap();
        assert!(unready.check().unwrap_err().message.contains("health = { path"));
    }
}
