//! Services: real servers a suite's subjects need (a message broker, a database), started by the
//! runner before the first subject that names them and stopped after the last.
//!
//! ```toml
//! [services.mosquitto]
//! command = ["mosquitto", "-c", "{dir}/mosquitto.conf"]
//! ports = ["mqtt"]                        # free loopback ports the runner picks
//! files = { "mosquitto.conf" = "listener {mqtt} 127.0.0.1\n" }
//! ready = { port = "mqtt" }               # or { command = ["pg_isready", "-p", "{pg}"] }
//! install = "run `make setup` (Debian package mosquitto)"
//!
//! [subjects.responder]
//! services = ["mosquitto"]
//! command = ["responder", "--broker", "127.0.0.1:{mosquitto.mqtt}"]
//! ```
//!
//! Placeholders: in a service's `command`, `setup`, `files` and `env`, `{dir}` is the service's
//! own directory in the run's directory and `{<port>}` one of its ports; in a subject's
//! `command` and `env`, `{<service>.<port>}` and `{<service>.dir}` name a service it uses. A
//! scenario loads a service's port directly with `port = "<service>.<port>"` (the broker, not the
//! responder behind it).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A real server a suite runs beside its subjects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSpec {
    /// argv, run directly (no shell), so it gets the runner's death signal; a bare name is looked
    /// up on PATH and then in /usr/sbin and /usr/lib/postgresql/*/bin, a relative path (a project
    /// script) from the project root. The same for `setup` and a `ready` command.
    pub command: Vec<String>,
    /// Names of the loopback ports the runner picks for it.
    pub ports: Vec<String>,
    /// Files written into its directory before it starts, by file name: the text itself, or
    /// `{ template = "path" }`, a file of the project (relative to its root) that suites share.
    #[serde(default)]
    pub files: BTreeMap<String, FileSpec>,
    /// Commands run once, in order, in its directory before it starts (PostgreSQL's `initdb`).
    #[serde(default)]
    pub setup: Vec<Vec<String>>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub ready: Ready,
    #[serde(default = "default_ready_timeout")]
    pub ready_timeout_s: f64,
    /// How to get the program when it is missing: the second half of the one-line error.
    #[serde(default)]
    pub install: Option<String>,
}

fn default_ready_timeout() -> f64 {
    30.0
}

/// A service's file: its text, or a template file of the project; placeholders are filled in
/// either.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum FileSpec {
    Text(String),
    Template { template: String },
}

impl FileSpec {
    /// The text before placeholders are filled: a template is read from under `root`.
    pub fn text(&self, root: &std::path::Path) -> Result<String, String> {
        match self {
            FileSpec::Text(t) => Ok(t.clone()),
            FileSpec::Template { template } => std::fs::read_to_string(root.join(template))
                .map_err(|e| format!("cannot read template {template}: {e}")),
        }
    }
}

/// When a service is ready: one of its ports accepts a TCP connection, or a command exits 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum Ready {
    Port(String),
    Command(Vec<String>),
}

/// A started service's placeholders: its ports by name and its directory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Placeholders {
    pub values: BTreeMap<String, String>,
}

impl Placeholders {
    /// `{<port>}` for each of a process's ports.
    pub fn ports(ports: &BTreeMap<String, u16>) -> Placeholders {
        Placeholders { values: ports.iter().map(|(k, p)| (k.clone(), p.to_string())).collect() }
    }

    /// A service's own: `{dir}` and `{<port>}`.
    pub fn own(dir: &str, ports: &BTreeMap<String, u16>) -> Placeholders {
        let mut own = Placeholders::ports(ports);
        own.values.insert("dir".into(), dir.into());
        own
    }

    /// Adds another process's, as a subject sees a service's (`{<service>.<port>}`,
    /// `{<service>.dir}`) and a harness a subject's (`{<subject>.<port>}`).
    pub fn add_service(&mut self, service: &str, own: &Placeholders) {
        for (k, v) in &own.values {
            self.values.insert(format!("{service}.{k}"), v.clone());
        }
    }

    /// `text` with every `{name}` replaced; an unknown name is an error naming it.
    pub fn fill(&self, text: &str) -> Result<String, String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                return Ok(out);
            };
            let name = &after[..close];
            // Only names of our shape are placeholders, so braces in configuration text
            // (`{ ... }`) pass through untouched.
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
                out.push('{');
                rest = after;
                continue;
            }
            match self.values.get(name) {
                Some(v) => out.push_str(v),
                None => {
                    let known: Vec<String> = self.values.keys().map(|k| format!("{{{k}}}")).collect();
                    return Err(format!("unknown placeholder `{{{name}}}`; known: {}", known.join(", ")));
                }
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    pub fn fill_all(&self, texts: &[String]) -> Result<Vec<String>, String> {
        texts.iter().map(|t| self.fill(t)).collect()
    }

    pub fn fill_map(&self, map: &BTreeMap<String, String>) -> Result<BTreeMap<String, String>, String> {
        map.iter().map(|(k, v)| Ok((k.clone(), self.fill(v)?))).collect()
    }
}

impl ServiceSpec {
    /// What can be checked before anything runs: a program, a ready port that exists, a known
    /// placeholder everywhere. Returns the key and the message of the first mistake.
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.command.is_empty() {
            return Err(("command".into(), "must name a program".into()));
        }
        if let Some(p) = self.ports.iter().find(|p| p.as_str() == "dir" || p.contains('.')) {
            return Err(("ports".into(), format!("`{p}` can't be a port name (`dir` and dots are taken)")));
        }
        match &self.ready {
            Ready::Port(p) if !self.ports.contains(p) => {
                return Err(("ready.port".into(), format!("no port named `{p}` in ports")));
            }
            Ready::Command(c) if c.is_empty() => return Err(("ready.command".into(), "must name a program".into())),
            _ => {}
        }
        let sample = Placeholders::own("/dir", &self.ports.iter().map(|p| (p.clone(), 1u16)).collect());
        let texts = self
            .command
            .iter()
            .map(|t| ("command", t))
            .chain(self.setup.iter().flatten().map(|t| ("setup", t)))
            .chain(self.files.values().filter_map(|f| match f {
                FileSpec::Text(t) => Some(("files", t)),
                FileSpec::Template { .. } => None,
            }))
            .chain(self.env.values().map(|t| ("env", t)))
            .chain(match &self.ready {
                Ready::Command(c) => c.iter().map(|t| ("ready.command", t)).collect::<Vec<_>>(),
                Ready::Port(_) => vec![],
            });
        for (key, text) in texts {
            sample.fill(text).map_err(|e| (key.to_string(), e))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_fill_names_and_leave_other_braces_alone() {
        let own = Placeholders::own("/run/svc", &[("mqtt".to_string(), 1883u16)].into());
        assert_eq!(own.fill("listener {mqtt} 127.0.0.1 # {dir}").unwrap(), "listener 1883 127.0.0.1 # /run/svc");
        assert_eq!(own.fill("a { b } {x y} {").unwrap(), "a { b } {x y} {");
        let e = own.fill("{mqt}").unwrap_err();
        assert_eq!(e, "unknown placeholder `{mqt}`; known: {dir}, {mqtt}");
        let mut subject = Placeholders::default();
        subject.add_service("mosquitto", &own);
        assert_eq!(subject.fill("127.0.0.1:{mosquitto.mqtt}").unwrap(), "127.0.0.1:1883");
        assert!(subject.fill("{mqtt}").is_err());
    }
}
