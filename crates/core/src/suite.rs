//! Suites: the TOML files under `suites/` that name subjects, scenarios, profiles and claims.
//! Parsing turns any mistake into one line naming the file, the key and what is wrong.
//! `[[matrix]]` tables are expanded into scenarios first (`matrix`). Each noun lives in a file of
//! its own and checks itself (`scenario`, `claim`, `profile`, `subject`, `services`); this file
//! holds the suite and what ties the nouns together: ids, references, ports, globs.

pub mod catalog;
mod claim;
mod error;
mod expect;
mod files;
pub mod groups;
mod matrix;
mod profile;
mod scenario;
mod services;
mod subject;

pub use catalog::Catalog;
pub use claim::{capture, Claim, ClaimCase, ClaimKind, Op, PublishedRow, PublishedTable, Versus};
pub use error::{Invalid, SuiteError};
pub use expect::Expect;
pub use files::{files, project_root, resolve};
pub use groups::{GroupSpec, Script};
pub use profile::{Profile, UntilDecided};
pub use scenario::{Dialect, Knob, Plan, Scenario, Stop};
pub use services::{FileSpec, Placeholders, Ready, ServiceSpec};
pub use subject::{Build, HarnessSpec, Health, Origin, SubjectSpec};

use error::{location, one_line, WHERE_SUBJECTS};

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// A suite as written in its file, with `[scenario_defaults]` already merged into each scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Suite {
    /// File stem, filled in by `load` (not part of the file, so not written back either).
    #[serde(skip)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The lab its rows belong to (`protocols`, `formats`, ...); default: the suite's name.
    /// A scenario or harness may set its own (`Suite::scenario_lab`, `Suite::harness_lab`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<String>,
    #[serde(default = "default_profile")]
    pub default_profile: String,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    #[serde(default)]
    pub subjects: BTreeMap<String, SubjectSpec>,
    /// Real servers subjects need (a broker, a database), started by the runner (`services`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub services: BTreeMap<String, ServiceSpec>,
    /// Keys every scenario inherits unless it sets them itself (merged before parsing).
    #[serde(default, skip_serializing)]
    pub scenario_defaults: Option<toml::Table>,
    #[serde(default)]
    pub scenarios: Vec<Scenario>,
    /// Thread groups: scripted virtual users a scenario can run (`groups`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub groups: BTreeMap<String, GroupSpec>,
    /// In-process measurements (codecs, kernels): commands that print measurement lines.
    #[serde(default)]
    pub harnesses: Vec<HarnessSpec>,
    #[serde(default)]
    pub claims: Vec<Claim>,
    /// The study's own tables, row by row beside ours (`[[published]]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<PublishedTable>,
    /// Where each scenario was written (`matrix[0] (rest-h1-1kb)` or `scenarios[3]`), by index;
    /// filled in by `parse`, so errors name the matrix that made a row.
    #[serde(skip)]
    pub origins: Vec<String>,
    /// The file that declares each subject and service taken from the catalog
    /// (`subjects.rest-rust` → `subjects/protocols/rust/subject.toml`); filled in by `parse_with`.
    #[serde(skip)]
    pub sources: BTreeMap<String, String>,
}

fn default_profile() -> String {
    "quick".into()
}

/// The load engine's drivers as a suite sees them (the load crate's registry implements it):
/// their ids, each one's check of a scenario's `params`, and how many streams one connection
/// of it carries.
pub trait Drivers {
    fn ids(&self) -> Vec<&str>;
    /// `Err(message)` when `driver` would refuse these parameters.
    fn check_params(&self, driver: &str, params: &BTreeMap<String, serde_json::Value>) -> Result<(), String>;
    /// `Err(message)` when one connection of `driver` cannot carry `streams` requests at once.
    fn check_streams(&self, driver: &str, streams: u32) -> Result<(), String>;
}

/// Ids alone, for tests: every parameter and stream count passes.
impl<const N: usize> Drivers for [&str; N] {
    fn ids(&self) -> Vec<&str> {
        self.to_vec()
    }

    fn check_params(&self, _: &str, _: &BTreeMap<String, serde_json::Value>) -> Result<(), String> {
        Ok(())
    }

    fn check_streams(&self, _: &str, _: u32) -> Result<(), String> {
        Ok(())
    }
}

impl Suite {
    /// Reads and checks a suite file, with the subjects and services declared under
    /// `<root>/subjects` (`catalog`) and the load engine's `drivers`.
    pub fn load(path: &Path, root: &Path, drivers: &dyn Drivers) -> Result<Suite, SuiteError> {
        let catalog = Catalog::load(root)?;
        Suite::load_with(path, root, &catalog, drivers)
    }

    /// `load` with a catalog already read (`wirebench build` and `list` read many suites).
    pub fn load_with(path: &Path, root: &Path, catalog: &Catalog, drivers: &dyn Drivers) -> Result<Suite, SuiteError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|err| SuiteError::Read { file: file.clone(), err })?;
        let mut suite = Suite::parse_with(&text, &file, catalog)?;
        suite.name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        suite.check(&file, drivers)?;
        suite.attach_scripts(&file, root)?;
        Ok(suite)
    }

    /// Parses TOML text that declares its own subjects; errors carry the dotted path of the
    /// offending key.
    pub fn parse(text: &str, file: &str) -> Result<Suite, SuiteError> {
        Suite::parse_with(text, file, &Catalog::default())
    }

    /// Parses TOML text whose scenarios and harnesses may name subjects of the catalog.
    pub fn parse_with(text: &str, file: &str, catalog: &Catalog) -> Result<Suite, SuiteError> {
        let invalid = |key: String, message: String| SuiteError::Invalid { file: file.to_string(), key, message };
        let mut table: toml::Table =
            text.parse().map_err(|e: toml::de::Error| invalid(location(text, e.span()), one_line(e.message())))?;
        let origins = matrix::expand(&mut table).map_err(|(key, message)| invalid(key, message))?;
        merge_scenario_defaults(&mut table);
        let (mut sources, mut inherited) = (BTreeMap::new(), BTreeMap::new());
        // Harness rows first: what a row inherits may name subjects to merge in.
        catalog.extend_harnesses(&mut table, file, &mut sources, &mut inherited)?;
        catalog.merge_into(&mut table, &mut sources).map_err(|(key, message)| invalid(key, message))?;
        // A declared subject's, service's or harness program's own mistake is reported in its file.
        let blamed = |key: String, message: String| {
            let row_key = key.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
            let (file, key) = match inherited.get(&row_key) {
                Some((file, declared)) => (file.clone(), format!("{declared}{}", &key[row_key.len()..])),
                None => blame(&key, &sources, file),
            };
            SuiteError::Invalid { file, key, message }
        };
        merge_subject_bases(&mut table).map_err(|(key, message)| blamed(key, message))?;
        let value = toml::Value::Table(table);
        let mut suite: Suite = serde_path_to_error::deserialize(value).map_err(|e| {
            let key = e.path().to_string();
            let key = if key == "." { "(top level)".into() } else { with_origin(&key, &origins) };
            blamed(key, one_line(&e.inner().to_string()))
        })?;
        suite.origins = origins;
        suite.sources = sources;
        Ok(suite)
    }

    /// The file that declares a subject (`subjects.<id>`), service (`services.<id>`) or the
    /// program a harness row extends (`harnesses.<row id>`): its `subject.toml`, service file or
    /// `harness.toml`, else the suite's own `file`.
    pub fn source_of<'a>(&'a self, key: &str, file: &'a str) -> &'a str {
        self.sources.get(key).map_or(file, String::as_str)
    }

    /// The lab of the suite's rows: its `lab`, else its name.
    pub fn lab(&self) -> &str {
        self.lab.as_deref().unwrap_or(&self.name)
    }

    /// The lab of a scenario's rows: its own `lab`, else the suite's.
    pub fn scenario_lab<'a>(&'a self, s: &'a Scenario) -> &'a str {
        s.lab.as_deref().unwrap_or(self.lab())
    }

    /// The lab of the rows a harness prints: its own `lab`, else the suite's.
    pub fn harness_lab<'a>(&'a self, h: &'a HarnessSpec) -> &'a str {
        h.lab.as_deref().unwrap_or(self.lab())
    }

    /// Where scenario `i` was written, for error keys.
    fn origin(&self, i: usize) -> String {
        self.origins.get(i).cloned().unwrap_or_else(|| format!("scenarios[{i}]"))
    }

    /// Each noun's own check, and what ties the nouns together: ids used once, names that must
    /// exist, ports, placeholders, globs that must match a row, and what a scenario asks of its
    /// driver (parameters it reads, streams one connection carries).
    pub fn check(&self, file: &str, drivers: &dyn Drivers) -> Result<(), SuiteError> {
        let bad = |key: String, message: String| {
            let (file, key) = blame(&key, &self.sources, file);
            Err(SuiteError::Invalid { file, key, message })
        };
        let own = |prefix: &str, checked: Result<(), Invalid>| match checked {
            Ok(()) => Ok(()),
            Err(e) => {
                let e = e.under(prefix);
                bad(e.key, e.message)
            }
        };
        if self.lab.as_deref() == Some("") {
            return bad("lab".into(), error::NO_LAB.into());
        }
        for (name, s) in &self.subjects {
            own(&format!("subjects.{name}"), s.check())?;
            let mut sample = Placeholders::default();
            for placeholder in ["dir", "root", "profile"] {
                sample.values.insert(placeholder.into(), format!("/{placeholder}"));
            }
            if let Some(other) = s.needs.iter().find(|n| !self.subjects.contains_key(*n)) {
                return bad(format!("subjects.{name}.needs"), format!("no subject named `{other}` {WHERE_SUBJECTS}"));
            }
            for service in &s.services {
                let Some(spec) = self.services.get(service) else {
                    return bad(
                        format!("subjects.{name}.services"),
                        format!("no service named `{service}` (in the suite or subjects/services/{service}.toml)"),
                    );
                };
                let ports = spec.ports.iter().map(|p| (p.clone(), 1u16)).collect();
                sample.add_service(service, &Placeholders::own("/dir", &ports));
            }
            if let Err(e) = sample.fill_all(&s.command) {
                return bad(format!("subjects.{name}.command"), e);
            }
            if let Err(e) = sample.fill_map(&s.env) {
                return bad(format!("subjects.{name}.env"), e);
            }
            for (i, step) in s.setup.iter().enumerate() {
                if let Err(e) = sample.fill_all(step) {
                    return bad(format!("subjects.{name}.setup[{i}]"), e);
                }
            }
        }
        for (name, s) in &self.services {
            if let Err((key, message)) = s.check() {
                return bad(format!("services.{name}.{key}"), message);
            }
        }
        let ids = drivers.ids();
        let mut seen = std::collections::BTreeSet::new();
        for (i, sc) in self.scenarios.iter().enumerate() {
            let origin = self.origin(i);
            let key = |k: &str| format!("{origin}.{k}");
            if !seen.insert(&sc.id) {
                let first = self.scenarios.iter().position(|o| o.id == sc.id).map_or(String::new(), |j| self.origin(j));
                return bad(key("id"), format!("`{}` is used twice (first by {first})", sc.id));
            }
            let Some(subject) = self.subjects.get(&sc.subject) else {
                return bad(key("subject"), format!("no subject named `{}` {WHERE_SUBJECTS}", sc.subject));
            };
            if !ids.contains(&sc.driver.as_str()) {
                return bad(key("driver"), format!("unknown driver `{}`; known: {}", sc.driver, ids.join(", ")));
            }
            if let Some(url) = &subject.url {
                // A server already running: its URL says the scheme and the port.
                let origin = Origin::parse(url).expect("a checked subject's url parses");
                if sc.tls != origin.tls {
                    return bad(
                        key("tls"),
                        format!("is {}, but subject `{}` is {url}: its scheme says TLS or not", sc.tls, sc.subject),
                    );
                }
                if sc.port.is_some() {
                    return bad(key("port"), format!("subject `{}` is {url}: its port is the URL's", sc.subject));
                }
                if sc.net.is_some() {
                    return bad(
                        key("net"),
                        format!("subject `{}` is {url}, a server the runner does not start behind a link", sc.subject),
                    );
                }
            } else if sc.tls && sc.port.is_none() && !subject.ports.contains_key("tls") {
                return bad(key("tls"), format!("subject `{}` has no port named `tls`", sc.subject));
            }
            if let Some(port) = &sc.port {
                let known = match port.split_once('.') {
                    None => subject.ports.contains_key(port),
                    Some((service, p)) => {
                        subject.services.iter().any(|s| s == service)
                            && self.services.get(service).is_some_and(|s| s.ports.iter().any(|q| q == p))
                    }
                };
                if !known {
                    let mut names: Vec<String> = subject.ports.keys().cloned().collect();
                    for service in &subject.services {
                        let ports = self.services.get(service).map(|s| s.ports.clone()).unwrap_or_default();
                        names.extend(ports.iter().map(|p| format!("{service}.{p}")));
                    }
                    return bad(
                        key("port"),
                        format!("subject `{}` has no port `{port}`; known: {}", sc.subject, names.join(", ")),
                    );
                }
            }
            if let Some(g) = sc.group.as_ref().filter(|g| !self.groups.contains_key(*g)) {
                return bad(key(Knob::GROUP.key), format!("no group named `{g}` in groups"));
            }
            own(&origin, sc.check(Dialect::Suite))?;
            if let Err(message) = drivers.check_streams(&sc.driver, sc.streams) {
                return bad(key(Knob::STREAMS.key), message);
            }
            if let Err(message) = drivers.check_params(&sc.driver, &sc.params) {
                return bad(key("params"), message);
            }
        }
        for (i, h) in self.harnesses.iter().enumerate() {
            own(&format!("harnesses[{i}]"), h.check())?;
            if self.scenarios.iter().any(|s| s.id == h.id) || self.harnesses[..i].iter().any(|o| o.id == h.id) {
                return bad(format!("harnesses[{i}].id"), format!("`{}` is used twice", h.id));
            }
            if let Some(name) = h.subjects.iter().find(|n| !self.subjects.contains_key(*n)) {
                return bad(format!("harnesses[{i}].subjects"), format!("no subject named `{name}` {WHERE_SUBJECTS}"));
            }
            let mut sample = Placeholders::default();
            sample.values.insert("profile".into(), "quick".into());
            for name in &h.subjects {
                for port in self.subjects[name].ports.keys() {
                    sample.values.insert(format!("{name}.{port}"), "1".into());
                }
            }
            if let Err(e) = sample.fill_all(&h.command) {
                return bad(format!("harnesses[{i}].command"), e);
            }
        }
        for (name, p) in &self.profiles {
            own(&format!("profiles.{name}"), p.check())?;
            for (i, pattern) in p.skip_globs().unwrap_or_default().iter().enumerate() {
                if !self.scenarios.iter().any(|s| pattern.matches(&s.id)) {
                    return bad(format!("profiles.{name}.skip[{i}]"), format!("`{}` matches no scenario", p.skip[i]));
                }
            }
        }
        if !self.profiles.is_empty() && !self.profiles.contains_key(&self.default_profile) {
            return bad("default_profile".into(), format!("no profile named `{}`", self.default_profile));
        }
        for (i, c) in self.claims.iter().enumerate() {
            own(&format!("claims[{i}]"), c.check())?;
            for (k, id) in c.named() {
                let key = format!("claims[{i}].{k}");
                if id.contains('*') {
                    // Harness rows are named only when they run, so a glob may be theirs.
                    let matched = self.scenarios.iter().any(|s| capture(id, &s.id).is_some());
                    if !matched && self.harnesses.is_empty() {
                        return bad(key, format!("`{id}` matches no scenario"));
                    }
                } else if !self.names_scenario(id) {
                    return bad(key, format!("no scenario named `{id}`"));
                }
            }
        }
        for (i, t) in self.published.iter().enumerate() {
            own(&format!("published[{i}]"), t.check())?;
            if self.published[..i].iter().any(|o| o.id == t.id) {
                return bad(format!("published[{i}].id"), format!("`{}` is used twice", t.id));
            }
            for (j, r) in t.rows.iter().enumerate() {
                if !self.names_scenario(&r.scenario) {
                    let key = format!("published[{i}].rows[{j}].scenario");
                    return bad(key, format!("no scenario named `{}`", r.scenario));
                }
            }
        }
        Ok(())
    }

    /// True when `id` is a scenario of the suite or matches a harness's row globs.
    fn names_scenario(&self, id: &str) -> bool {
        self.scenarios.iter().any(|s| s.id == id)
            || self
                .harnesses
                .iter()
                .flat_map(|h| &h.scenarios)
                .any(|g| glob::Pattern::new(g).is_ok_and(|p| p.matches(id)))
    }

    /// The names `profile` takes: the built-in profiles, then the suite's own.
    pub fn profile_names(&self) -> Vec<&str> {
        let own = self.profiles.keys().map(String::as_str).filter(|n| !Profile::BUILTIN.contains(n));
        Profile::BUILTIN.into_iter().chain(own).collect()
    }

    /// The profile by name, or the built-in one (`Profile::builtin`: `smoke`, `quick`, `full`).
    pub fn profile(&self, name: &str) -> Option<Profile> {
        self.profiles.get(name).cloned().or_else(|| Profile::builtin(name))
    }

    /// Harnesses selected by an optional glob on their id.
    pub fn harnesses_matching(&self, only: Option<&glob::Pattern>) -> Vec<HarnessSpec> {
        self.harnesses.iter().filter(|h| only.is_none_or(|p| p.matches(&h.id))).cloned().collect()
    }

    /// Builds every group's script (data read from under `root`) and gives each scenario that
    /// runs a group its script.
    pub fn attach_scripts(&mut self, file: &str, root: &Path) -> Result<(), SuiteError> {
        let scripts = groups::scripts(&self.groups, root).map_err(|(key, message)| SuiteError::Invalid {
            file: file.to_string(),
            key,
            message,
        })?;
        for sc in &mut self.scenarios {
            sc.script = sc.group.as_ref().map(|g| scripts[g].clone());
        }
        Ok(())
    }

    /// The ids of the scenarios `only` selects that the profile leaves out.
    pub fn skipped(&self, profile: &Profile, only: &glob::Pattern) -> Vec<&str> {
        self.scenarios.iter().map(|s| s.id.as_str()).filter(|id| only.matches(id) && profile.skips(id)).collect()
    }

    /// Scenarios selected by an optional glob on their id, less those the profile skips, with
    /// the profile applied.
    pub fn plan(&self, profile: &Profile, only: Option<&glob::Pattern>) -> Vec<Scenario> {
        self.scenarios
            .iter()
            .filter(|s| only.is_none_or(|p| p.matches(&s.id)) && !profile.skips(&s.id))
            .map(|s| s.scaled(profile))
            .collect()
    }
}

/// The file and key a mistake at `key` of the merged suite belongs to: `subjects.<id>.<rest>`
/// of a declared subject is `<id>.<rest>` of its `subject.toml`, `services.<id>.<rest>` of a
/// declared service `<rest>` of its file; anything else is the suite's own.
fn blame(key: &str, sources: &BTreeMap<String, String>, file: &str) -> (String, String) {
    let mut parts = key.splitn(3, '.');
    let (kind, id, rest) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next());
    match sources.get(&format!("{kind}.{id}")) {
        Some(source) if kind == "subjects" => (source.clone(), rest.map_or(id.to_string(), |r| format!("{id}.{r}"))),
        Some(source) => (source.clone(), rest.unwrap_or("(top level)").to_string()),
        None => (file.to_string(), key.to_string()),
    }
}

/// `scenarios[3].connections` as `matrix[0] (rest-h1-1mb).connections` when row 3 came from a matrix.
fn with_origin(key: &str, origins: &[String]) -> String {
    let index = key.strip_prefix("scenarios[").and_then(|r| r.split_once(']'));
    match index.and_then(|(i, rest)| Some((origins.get(i.parse::<usize>().ok()?)?, rest))) {
        Some((origin, rest)) => format!("{origin}{rest}"),
        None => key.to_string(),
    }
}

fn merge_scenario_defaults(table: &mut toml::Table) {
    let Some(toml::Value::Table(defaults)) = table.get("scenario_defaults").cloned() else { return };
    if let Some(toml::Value::Array(scenarios)) = table.get_mut("scenarios") {
        for sc in scenarios.iter_mut() {
            if let toml::Value::Table(sc) = sc {
                for (k, v) in &defaults {
                    sc.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
}

/// `extends = "<subject>"` in a subject: every key it does not set is the named subject's
/// (which may extend another in turn). Errors: (key, message).
fn merge_subject_bases(table: &mut toml::Table) -> Result<(), (String, String)> {
    let Some(toml::Value::Table(subjects)) = table.get_mut("subjects") else { return Ok(()) };
    let names: Vec<String> = subjects.keys().cloned().collect();
    for name in names {
        let mut seen = vec![name.clone()];
        while let Some(toml::Value::Table(me)) = subjects.get(&name) {
            let Some(base) = me.get("extends").cloned() else { break };
            let key = format!("subjects.{name}.extends");
            let toml::Value::String(base) = base else { return Err((key, "must name a subject".into())) };
            if seen.contains(&base) {
                return Err((key, format!("`{base}` extends back to `{name}`")));
            }
            let Some(toml::Value::Table(parent)) = subjects.get(&base).cloned() else {
                return Err((key, format!("no subject named `{base}`")));
            };
            seen.push(base);
            let Some(toml::Value::Table(me)) = subjects.get_mut(&name) else { break };
            me.remove("extends");
            for (k, v) in parent {
                me.entry(k).or_insert(v);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const GOOD: &str = r#"
        [subjects.rest]
        lang = "rust"
        command = ["srv"]
        ports = { plain = "--port" }
        health = { path = "/health" }

        [scenario_defaults]
        connections = 4
        requests = 100

        [[scenarios]]
        id = "a"
        subject = "rest"
        driver = "http1"
        path = "/x"

        [[claims]]
        id = "c"
        text = "t"
        published = "p"
        metric = "rps"
        numerator = "a"
        op = ">"
        threshold = 1.0
    "#;

    #[test]
    fn an_slo_needs_no_study() {
        let s = parse(&GOOD.replace("published = \"p\"", "kind = \"slo\"")).unwrap();
        assert_eq!((s.claims[0].kind, s.claims[0].published.as_str()), (ClaimKind::Slo, ""));
        // A study's claim keeps its serialized form: no `kind` key, so recorded suites read alike.
        let study = serde_json::to_value(&parse(GOOD).unwrap().claims[0]).unwrap();
        assert!(study.get("kind").is_none(), "{study}");
    }

    fn parse(text: &str) -> Result<Suite, String> {
        let s = Suite::parse(text, "s.toml").map_err(|e| e.to_string())?;
        s.check("s.toml", &["http1", "http2"]).map_err(|e| e.to_string())?;
        Ok(s)
    }

    #[test]
    fn defaults_are_merged_into_scenarios() {
        let s = parse(GOOD).unwrap();
        assert_eq!(s.scenarios[0].connections, 4);
        assert_eq!(s.scenarios[0].requests, Some(100));
        assert_eq!(s.scenarios[0].method, "GET");
        assert_eq!(s.claims[0].op, Op::Greater);
    }

    #[test]
    fn mistakes_give_one_line_naming_file_and_key() {
        let cases = [
            (
                GOOD.replace("connections = 4", "connections = \"four\""),
                "s.toml: scenarios[0].connections: invalid type",
            ),
            (
                GOOD.replace("driver = \"http1\"", "driver = \"carrier-pigeon\""),
                "s.toml: scenarios[0].driver: unknown driver `carrier-pigeon`",
            ),
            (
                GOOD.replace("subject = \"rest\"", "subject = \"nope\""),
                "s.toml: scenarios[0].subject: no subject named `nope` (in the suite or a subjects/**/subject.toml)",
            ),
            (
                GOOD.replace("path = \"/x\"", "path = \"/x\"\ncolour = 1"),
                "s.toml: scenarios[0].colour: unknown field `colour`",
            ),
            (GOOD.replace("requests = 100", ""), "s.toml: scenarios[0].requests: set exactly one"),
            (
                GOOD.replace("numerator = \"a\"", "numerator = \"zz\""),
                "s.toml: claims[0].numerator: no scenario named `zz`",
            ),
            (
                GOOD.replace("numerator = \"a\"", "numerator = \"*\"\nalso = [\"zz\"]"),
                "s.toml: claims[0].also[0]: no scenario named `zz`",
            ),
            (
                GOOD.replace("published = \"p\"", ""),
                "s.toml: claims[0].published: says what the study reported; a claim of your own is `kind = \"slo\"`",
            ),
            (
                GOOD.replace("published = \"p\"", "kind = \"slo\"\npublished_value = 2.0"),
                "s.toml: claims[0].published_value: an SLO has no study's number: its threshold is the objective",
            ),
            (
                GOOD.replace("published = \"p\"", "kind = \"study-ish\""),
                "s.toml: claims[0].kind: unknown variant `study-ish`, expected one of `study`, `elsewhere`, `ours`, `slo`",
            ),
            (
                GOOD.replace("published = \"p\"", "published = \"p\"\nkind = \"elsewhere\""),
                "s.toml: claims[0].conditions: names how the conditions differ from the study's (`kind = \"elsewhere\"`)",
            ),
            (
                GOOD.replace("published = \"p\"", "published = \"p\"\nconditions = \"a link\""),
                "s.toml: claims[0].conditions: belongs to a claim of `kind = \"elsewhere\"`",
            ),
            (
                GOOD.replace("numerator = \"a\"", "numerator = \"*-*\""),
                "s.toml: claims[0].numerator: `*-*` has more than one `*`",
            ),
            (
                GOOD.replace("numerator = \"a\"", "numerator = \"b-*\""),
                "s.toml: claims[0].numerator: `b-*` matches no scenario",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\nexcept = [\"a\"]"),
                "s.toml: claims[0].except: leaves out cases, but no scenario id has a `*`",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\ntolerance = 1.2"),
                "s.toml: claims[0].tolerance: needs published_value",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\npublished_value = 2.0\ntolerance = 0.5"),
                "s.toml: claims[0].tolerance: 0.5 is not a factor above 1",
            ),
            (
                GOOD.replace("threshold = 1.0", "threshold = 1.0\npublished_value = 0.8"),
                "s.toml: claims[0].published_value: the study's 0.8 does not satisfy the claim's `> 1`",
            ),
            (
                format!("{GOOD}\n[[published]]\nid = \"t\"\ntitle = \"T\"\nsource = \"Table 1\"\nmetric = \"rps\"\nrows = [{{ scenario = \"zz\", value = 1.0 }}]\n"),
                "s.toml: published[0].rows[0].scenario: no scenario named `zz`",
            ),
            (
                format!("{GOOD}\n[[published]]\nid = \"t\"\ntitle = \"T\"\nsource = \"Table 1\"\nmetric = \"speed\"\nrows = []\n"),
                "s.toml: published[0].metric: unknown metric `speed`",
            ),
            (
                GOOD.replace("op = \">\"", "op = \"~\"").replace("threshold = 1.0", "threshold = 1.0\npublished_value = 1.0"),
                "s.toml: claims[0].threshold: a `~` claim has no threshold",
            ),
            (
                GOOD.replace("op = \">\"", "op = \"~\"").replace("threshold = 1.0", ""),
                "s.toml: claims[0].published_value: a `~` claim needs the study's number",
            ),
            (GOOD.replace("threshold = 1.0", ""), "s.toml: claims[0].threshold: a `>` claim needs a threshold"),
            (GOOD.replace("[subjects.rest]", "[subjects.rest"), "s.toml: line 2:"),
            (
                format!("{GOOD}\n[[harnesses]]\nid = \"d\"\nlang = \"rust\"\ncommand = [\"d\"]\nsubjects = [\"nope\"]\n"),
                "s.toml: harnesses[0].subjects: no subject named `nope` (in the suite or a subjects/**/subject.toml)",
            ),
            (
                format!("{GOOD}\n[[harnesses]]\nid = \"d\"\nlang = \"rust\"\ncommand = [\"d\", \"{{rest.tls}}\"]\nsubjects = [\"rest\"]\n"),
                "s.toml: harnesses[0].command: unknown placeholder `{rest.tls}`; known: {profile}, {rest.",
            ),
        ];
        for (text, want) in cases {
            let err = parse(&text).unwrap_err();
            assert!(err.starts_with(want), "got `{err}`, want prefix `{want}`");
            assert!(!err.contains('\n'), "not one line: {err}");
        }
    }

    const MATRIX: &str = r#"
        [[matrix]]
        id = "m-{transport}"
        subject = "rest"
        path = "/x"
        [matrix.axes.transport]
        h1 = { driver = "http1" }
        h2c = { driver = "http2", streams = 4 }
    "#;

    /// The drivers' own limits, as the load crate's registry gives them: one stream per HTTP/1.1
    /// connection.
    struct OneStreamHttp1;

    impl Drivers for OneStreamHttp1 {
        fn ids(&self) -> Vec<&str> {
            vec!["http1", "http2"]
        }

        fn check_params(&self, _: &str, _: &BTreeMap<String, serde_json::Value>) -> Result<(), String> {
            Ok(())
        }

        fn check_streams(&self, driver: &str, streams: u32) -> Result<(), String> {
            match driver {
                "http1" if streams > 1 => Err("http1 carries one request at a time".into()),
                _ => Ok(()),
            }
        }
    }

    #[test]
    fn a_drivers_stream_limit_is_checked_when_the_suite_loads() {
        let ten = GOOD.replace("connections = 4", "connections = 4\nstreams = 10");
        let err = Suite::parse(&ten, "s.toml").unwrap().check("s.toml", &OneStreamHttp1).unwrap_err().to_string();
        assert_eq!(err, "s.toml: scenarios[0].streams: http1 carries one request at a time");
        let h2 = ten.replace("driver = \"http1\"", "driver = \"http2\"");
        Suite::parse(&h2, "s.toml").unwrap().check("s.toml", &OneStreamHttp1).unwrap();
    }

    #[test]
    fn matrix_rows_are_scenarios_with_defaults_and_checks() {
        let s = parse(&format!("{GOOD}\n{MATRIX}")).unwrap();
        let ids: Vec<&str> = s.scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["m-h1", "m-h2c", "a"]);
        assert_eq!(
            (s.scenarios[1].driver.as_str(), s.scenarios[1].streams, s.scenarios[1].connections),
            ("http2", 4, 4)
        );
        assert_eq!(s.origins, ["matrix[0] (m-h1)", "matrix[0] (m-h2c)", "scenarios[0]"]);
        let only = glob::Pattern::new("m-*").unwrap();
        assert_eq!(s.plan(&s.profile("quick").unwrap(), Some(&only)).len(), 2);
    }

    #[test]
    fn mistakes_in_matrix_rows_name_the_matrix_and_row() {
        let cases = [
            (MATRIX.replace("streams = 4", "streams = \"four\""), "s.toml: matrix[0] (m-h2c).streams: invalid type"),
            (MATRIX.replace("\"http2\"", "\"pigeon\""), "s.toml: matrix[0] (m-h2c).driver: unknown driver `pigeon`"),
            (
                MATRIX.replace("m-{transport}", "a{transport}").replace("h1 = ", "\"\" = "),
                "s.toml: scenarios[0].id: `a` is used twice (first by matrix[0] (a))",
            ),
            (MATRIX.replace("m-{transport}", "m-{transport"), "s.toml: matrix[0].id: unclosed `{`"),
        ];
        for (matrix, want) in cases {
            let err = parse(&format!("{GOOD}\n{matrix}")).unwrap_err();
            assert!(err.starts_with(want), "got `{err}`, want prefix `{want}`");
            assert!(!err.contains('\n'), "not one line: {err}");
        }
    }

    /// The committed suites were hand-written row by row before matrices; `testdata/` keeps those
    /// files (with the fields the rows gained since, such as `payload_bytes`). Every row they had
    /// must expand identically, in the same order, with the same subjects and profiles, so a
    /// report of the rewritten suite is the report of the old one plus the new rows. (Claims are
    /// not compared: they have been rewritten since, on purpose, to judge size and every case.)
    #[test]
    fn rewritten_suites_expand_to_their_hand_written_rows() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let catalog = Catalog::load(&dir.join("../..")).unwrap();
        for name in ["protocols", "smoke"] {
            let read = |p: PathBuf| std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let now = Suite::parse_with(&read(dir.join(format!("../../suites/{name}.toml"))), name, &catalog).unwrap();
            let then = Suite::parse(&read(dir.join(format!("src/suite/testdata/{name}-rows.toml"))), name).unwrap();
            assert!(then.origins.iter().all(|o| o.starts_with("scenarios[")), "{name}: the old file had no matrix");
            let mut last = None;
            for old in &then.scenarios {
                let at = now.scenarios.iter().position(|s| s.id == old.id);
                let at = at.unwrap_or_else(|| panic!("{name}: `{}` is no longer in the suite", old.id));
                assert_eq!(&now.scenarios[at], old, "{name}: `{}` expands differently", old.id);
                assert!(last < Some(at), "{name}: `{}` moved", old.id);
                last = Some(at);
            }
            // Profiles may be added (protocols' `brief`, for `make run`); the old ones stay.
            assert_eq!(now.default_profile, then.default_profile, "{name}");
            for (id, profile) in &then.profiles {
                assert_eq!(now.profiles.get(id), Some(profile), "{name}: profile `{id}` changed");
            }
            for (id, subject) in &then.subjects {
                // How a subject is built may change (decisions 0021, 0025), and the flag that makes it
                // listen beyond loopback for workers elsewhere (unused otherwise); what runs may not.
                let now = now.subjects.get(id).map(|s| SubjectSpec {
                    build: subject.build.clone(),
                    host: subject.host.clone(),
                    ..s.clone()
                });
                assert_eq!(now.as_ref(), Some(subject), "{name}: subject `{id}` changed");
            }
        }
    }

    const SERVICE: &str = r#"
        [services.mq]
        command = ["mosquitto", "-c", "{dir}/m.conf"]
        ports = ["mqtt"]
        files = { "m.conf" = "listener {mqtt}" }
        ready = { port = "mqtt" }

        [subjects.responder]
        lang = "rust"
        command = ["r", "--broker", "127.0.0.1:{mq.mqtt}"]
        ports = { plain = "--port" }
        health = { path = "/health" }
        services = ["mq"]

        [[scenarios]]
        id = "b"
        subject = "responder"
        driver = "http1"
        path = "/"
        port = "mq.mqtt"
        requests = 1
        connections = 1
    "#;

    #[test]
    fn subjects_extend_others_and_bad_bases_are_named() {
        let text = format!(
            "{GOOD}\n{}",
            r#"
[subjects.copy]
extends = "rest"
command = ["other"]
setup = [["fill", "--store", "{dir}/x.db", "--profile", "{profile}"]]
[subjects.copy2]
extends = "copy"
"#
        );
        let s = parse(&text).unwrap();
        assert_eq!(s.subjects["copy"].command, ["other"]);
        assert_eq!(s.subjects["copy"].ports, s.subjects["rest"].ports);
        assert_eq!(s.subjects["copy2"].command, ["other"]);
        assert_eq!(s.subjects["copy2"].setup.len(), 1);
        let unknown = parse(&text.replace("extends = \"rest\"", "extends = \"nobody\"")).unwrap_err();
        assert_eq!(unknown, "s.toml: subjects.copy.extends: no subject named `nobody`");
        let circle = parse(&text.replace("extends = \"rest\"", "extends = \"copy2\"")).unwrap_err();
        assert!(circle.ends_with("extends back to `copy`") || circle.ends_with("extends back to `copy2`"), "{circle}");
        let setup = parse(&text.replace("{profile}", "{profle}")).unwrap_err();
        assert!(setup.starts_with("s.toml: subjects.copy.setup[0]: unknown placeholder `{profle}`"), "{setup}");
    }

    #[test]
    fn services_and_their_placeholders_are_checked() {
        let s = parse(&format!("{GOOD}\n{SERVICE}")).unwrap();
        assert_eq!(s.scenarios[1].port_name(), "mq.mqtt");
        assert_eq!(s.services["mq"].ready, Ready::Port("mqtt".into()));
        let cases = [
            (
                SERVICE.replace("services = [\"mq\"]", "services = [\"pg\"]"),
                "subjects.responder.services: no service named `pg` (in the suite or subjects/services/pg.toml)",
            ),
            (
                SERVICE.replace("{mq.mqtt}", "{mq.port}"),
                "subjects.responder.command: unknown placeholder `{mq.port}`; known: {dir}, {mq.dir}, {mq.mqtt}, {profile}, {root}",
            ),
            (SERVICE.replace("listener {mqtt}", "listener {port}"), "services.mq.files: unknown placeholder `{port}`"),
            (
                SERVICE.replace("ready = { port = \"mqtt\" }", "ready = { port = \"http\" }"),
                "services.mq.ready.port: no port named `http`",
            ),
            (
                SERVICE.replace("port = \"mq.mqtt\"", "port = \"mq.amqp\""),
                "scenarios[1].port: subject `responder` has no port `mq.amqp`; known: plain, mq.mqtt",
            ),
        ];
        for (service, want) in cases {
            let err = parse(&format!("{GOOD}\n{service}")).unwrap_err();
            assert!(err.starts_with(&format!("s.toml: {want}")), "got `{err}`, want prefix `{want}`");
        }
    }

    #[test]
    fn claims_may_name_scenarios_a_harness_declares() {
        let with = GOOD.replace("numerator = \"a\"", "numerator = \"users-json-rust\"");
        assert!(parse(&with).unwrap_err().contains("no scenario named `users-json-rust`"));
        let harness = "[[harnesses]]\nid = \"codec\"\nlang = \"rust\"\ncommand = [\"c\"]\nscenarios = [\"*-rust\"]\n";
        let s = parse(&format!("{with}\n{harness}")).unwrap();
        assert_eq!(s.harnesses[0].timeout_s, 1800.0);
    }

    #[test]
    fn rows_belong_to_the_suites_lab_unless_a_scenario_or_harness_names_its_own() {
        let harnesses = "[[harnesses]]\nid = \"h\"\nlang = \"rust\"\ncommand = [\"h\"]\n\n\
                         [[harnesses]]\nid = \"h-own\"\nlang = \"rust\"\ncommand = [\"h\"]\nlab = \"formats\"\n";
        let own = GOOD.replace("path = \"/x\"", "path = \"/x\"\nlab = \"restcache\"");
        let labs = |s: &Suite| -> Vec<String> {
            let mut labs: Vec<String> = s.scenarios.iter().map(|sc| s.scenario_lab(sc).to_string()).collect();
            labs.extend(s.harnesses.iter().map(|h| s.harness_lab(h).to_string()));
            labs
        };
        // No `lab`: the suite's name.
        let mut s = parse(&format!("{GOOD}\n{MATRIX}\n{harnesses}")).unwrap();
        s.name = "smoke".into();
        assert_eq!(labs(&s), ["smoke", "smoke", "smoke", "smoke", "formats"]);
        // A top-level `lab`; a scenario's own, a matrix row's (shared or from an axis) and one
        // from `scenario_defaults` win over it.
        let matrix = MATRIX.replace("path = \"/x\"", "path = \"/x\"\nlab = \"parse\"").replace(
            "h2c = { driver = \"http2\", streams = 4 }",
            "h2c = { driver = \"http2\", streams = 4, lab = \"wasm\" }",
        );
        let mut s = parse(&format!("lab = \"protocols\"\n{own}\n{matrix}\n{harnesses}")).unwrap();
        s.name = "smoke".into();
        assert_eq!(labs(&s), ["parse", "wasm", "restcache", "protocols", "formats"]);
        let defaults = GOOD.replace("connections = 4", "connections = 4\nlab = \"realtime\"");
        let s = parse(&format!("lab = \"protocols\"\n{defaults}")).unwrap();
        assert_eq!(labs(&s), ["realtime"]);
        // Written back into run.json and read again, as the suite ran.
        let s = parse(&format!("lab = \"protocols\"\n{own}\n{harnesses}")).unwrap();
        let back: Suite = serde_json::from_value(serde_json::to_value(&s).unwrap()).unwrap();
        assert_eq!((back.lab(), labs(&back)), ("protocols", labs(&s)));
        let empty = parse(&format!("lab = \"\"\n{GOOD}")).unwrap_err();
        assert!(empty.starts_with("s.toml: lab: must name a lab"), "{empty}");
        let empty = parse(&GOOD.replace("path = \"/x\"", "path = \"/x\"\nlab = \"\"")).unwrap_err();
        assert!(empty.starts_with("s.toml: scenarios[0].lab: must name a lab"), "{empty}");
    }

    #[test]
    fn a_suite_as_run_reads_back_from_run_json() {
        let mut s = parse(GOOD).unwrap();
        s.name = "good".into();
        let json = serde_json::to_value(&s).unwrap();
        let back: Suite = serde_json::from_value(json).unwrap();
        assert_eq!((back.scenarios, back.claims), (s.scenarios, s.claims));
    }

    #[test]
    fn profile_scales_requests_but_keeps_one_per_stream() {
        let s = parse(GOOD).unwrap();
        let smoke = s.profile("smoke").unwrap();
        let planned = s.plan(&smoke, None);
        assert_eq!(planned[0].requests, Some(5));
        let tiny = Profile {
            repeats: 1,
            scale: 0.0001,
            max_connections: Some(2),
            max_warmup_windows: None,
            harness_rounds: 1,
            until_decided: None,
            skip: vec![],
        };
        let planned = s.plan(&tiny, None);
        assert_eq!((planned[0].connections, planned[0].requests), (2, Some(2)));
        assert!(s.plan(&smoke, Some(&glob::Pattern::new("b*").unwrap())).is_empty());
    }

    #[test]
    fn a_profile_skips_rows_by_glob_checked_when_parsed() {
        let suite = |skip: &str| {
            format!(
                "default_profile = \"brief\"\n[profiles.brief]\nrepeats = 3\nskip = [{skip}]\n{GOOD}\n\
                 [[scenarios]]\nid = \"net-a\"\nsubject = \"rest\"\ndriver = \"http1\"\npath = \"/x\"\n"
            )
        };
        let s = parse(&suite("\"net-*\"")).unwrap();
        let ids = |p: &Profile| s.plan(p, None).into_iter().map(|sc| sc.id).collect::<Vec<_>>();
        assert_eq!(ids(&s.profile("brief").unwrap()), ["a"]);
        assert_eq!(ids(&s.profile("smoke").unwrap()), ["a", "net-a"]);
        // What `--only` selects and the profile leaves out, which `run` reports.
        let brief = s.profile("brief").unwrap();
        let only = |g: &str| glob::Pattern::new(g).unwrap();
        assert_eq!(s.skipped(&brief, &only("*a")), ["net-a"]);
        assert!(s.skipped(&brief, &only("a")).is_empty());
        assert!(s.skipped(&s.profile("smoke").unwrap(), &only("*")).is_empty());
        for (skip, want) in [
            ("\"lan-*\"", "s.toml: profiles.brief.skip[0]: `lan-*` matches no scenario"),
            ("\"a\", \"[\"", "s.toml: profiles.brief.skip[1]: `[` is not a glob"),
        ] {
            let err = parse(&suite(skip)).unwrap_err();
            assert!(err.starts_with(want), "got `{err}`, want prefix `{want}`");
        }
    }
}
