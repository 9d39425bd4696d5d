//! What a suite measures, described as data: subjects (servers the runner starts, with their
//! ports, health check, setup and build) and harnesses (programs that measure in their own
//! process), each checking what it can on its own when the suite loads.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::{Invalid, NO_LAB};

/// A process to measure, described as data (TechEmpower's benchmark_config.json).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubjectSpec {
    /// Language the subject is written in; recorded with every measurement.
    pub lang: String,
    /// argv of the subject, run directly (no shell) so it gets the runner's death signal.
    pub command: Vec<String>,
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
    pub health: Health,
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
        if self.command.is_empty() {
            return Err(Invalid::new("command", "must name a program"));
        }
        if !self.ports.contains_key(&self.health.port) {
            return Err(Invalid::new("health.port", format!("no port named `{}` in ports", self.health.port)));
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
