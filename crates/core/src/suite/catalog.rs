//! Subjects, services and harness programs declared beside their code, found by folder (as
//! TechEmpower finds each framework's `benchmark_config.json`): every `subject.toml` under
//! `subjects/` holds the subjects built from its folder, one table per id, every
//! `subjects/services/<name>.toml` is one service, and every `harness.toml` in the project (the
//! browser pages' in `web/`, each harness crate's beside it) holds the harness programs built
//! from its folder: how each is built, in which language, with which command. Suites name
//! subjects and services by id, and a harness row `extends` a declared program, setting only
//! what the row adds (its arguments, rows, subjects, link); a suite that uses them gets their
//! tables (and the tables they `extend`, and the services they use) merged in before the suite
//! is parsed, so the rest of the runner sees one `Suite` as before.
//!
//! ```toml
//! # subjects/protocols/rust/subject.toml
//! [rest-rust]
//! lang = "rust"
//! build = ["cargo", "build", "--release", "--quiet", "-p", "protocols-rust"]
//! command = ["target/release/protocols-rust"]
//! ports = { plain = "--port", tls = "--tls-port", h3 = "--h3-port" }
//! health = { path = "/health" }
//!
//! [graphql-rust]
//! extends = "rest-rust"
//! ports = { plain = "--port", tls = "--tls-port" }
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::error::{one_line, SuiteError};
use super::files::toml_files;

/// The file name that declares a folder's subjects.
pub const SUBJECT_FILE: &str = "subject.toml";
/// The file name that declares a folder's harness programs.
pub const HARNESS_FILE: &str = "harness.toml";
/// The folder (under `subjects/`) whose `<name>.toml` files are services.
pub const SERVICES_DIR: &str = "services";

/// Folders never searched for subject files: build outputs and installed packages, which are
/// large (node_modules alone holds tens of thousands of files) and never hold our declarations.
/// Hidden folders (`.git`, a virtualenv) and the runs' results are skipped as well.
const SKIPPED: &[&str] = &["node_modules", "target", "dist", "dist-node", "bin", "results", "test-results"];

/// Every declared subject and service, as written (`extends` not yet resolved), with the file
/// that declares it (relative to the project root).
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub subjects: BTreeMap<String, Declared>,
    pub services: BTreeMap<String, Declared>,
    pub harnesses: BTreeMap<String, Declared>,
}

#[derive(Debug, Clone)]
pub struct Declared {
    pub table: toml::Table,
    pub file: String,
}

impl Catalog {
    /// Reads every `harness.toml` under `root`, and `<root>/subjects`: every `subject.toml` and
    /// `services/*.toml`. A project without the folder has no declared subjects (suites may
    /// still declare their own).
    pub fn load(root: &Path) -> Result<Catalog, SuiteError> {
        let mut catalog = Catalog::default();
        let mut files = Vec::new();
        declaration_files(root, HARNESS_FILE, &mut files)
            .map_err(|err| SuiteError::Read { file: root.display().to_string(), err })?;
        for path in files {
            let (file, table) = read(root, &path)?;
            catalog.add(Kind::Harness, &file, table)?;
        }
        let dir = root.join("subjects");
        if !dir.is_dir() {
            return Ok(catalog);
        }
        let mut files = Vec::new();
        declaration_files(&dir, SUBJECT_FILE, &mut files)
            .map_err(|err| SuiteError::Read { file: dir.display().to_string(), err })?;
        for path in files {
            let (file, table) = read(root, &path)?;
            catalog.add(Kind::Subject, &file, table)?;
        }
        let services = dir.join(SERVICES_DIR);
        if services.is_dir() {
            let paths =
                toml_files(&services).map_err(|err| SuiteError::Read { file: services.display().to_string(), err })?;
            for path in paths {
                let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let (file, table) = read(root, &path)?;
                catalog.services.insert(name, Declared { table, file });
            }
        }
        Ok(catalog)
    }

    /// Adds the subjects of one `subject.toml` or the harness programs of one `harness.toml`;
    /// an id declared in another file is an error naming both.
    fn add(&mut self, kind: Kind, file: &str, table: toml::Table) -> Result<(), SuiteError> {
        let (noun, declared) = match kind {
            Kind::Subject => ("subject", &mut self.subjects),
            Kind::Harness => ("harness", &mut self.harnesses),
        };
        for (id, value) in table {
            let toml::Value::Table(table) = value else {
                return Err(invalid(file, &id, format!("must be a table of the {noun}'s keys (`[<id>]`)")));
            };
            if let Some(first) = declared.get(&id) {
                return Err(invalid(file, &id, format!("{noun} `{id}` is also declared in {}", first.file)));
            }
            declared.insert(id, Declared { table, file: file.to_string() });
        }
        Ok(())
    }

    /// Gives each harness row that `extends` a declared program every key of it (and of the
    /// programs it extends in turn) the row does not set. Records in `sources` the file that
    /// declares each row's program (`harnesses.<row id>`) and, in `inherited`, the file and key
    /// each inherited key came from (`harnesses[2].build` → (`web/harness.toml`, `web.build`)),
    /// so that a mistake in a declaration is reported in its file.
    pub(super) fn extend_harnesses(
        &self,
        suite: &mut toml::Table,
        file: &str,
        sources: &mut BTreeMap<String, String>,
        inherited: &mut BTreeMap<String, (String, String)>,
    ) -> Result<(), SuiteError> {
        let Some(toml::Value::Array(rows)) = suite.get_mut("harnesses") else { return Ok(()) };
        for (i, row) in rows.iter_mut().enumerate() {
            let Some(row) = row.as_table_mut() else { continue };
            let Some(mut base) = row.remove("extends") else { continue };
            // Where the `extends` being followed was written: the row, then each declaration.
            let (mut at_file, mut at_key) = (file.to_string(), format!("harnesses[{i}].extends"));
            let mut seen: Vec<String> = Vec::new();
            loop {
                let toml::Value::String(name) = &base else {
                    return Err(invalid(&at_file, &at_key, "must name a harness".into()));
                };
                if seen.contains(name) {
                    let from = seen.last().map_or("", String::as_str);
                    return Err(invalid(&at_file, &at_key, format!("`{name}` extends back to `{from}`")));
                }
                let Some(declared) = self.harnesses.get(name) else {
                    let message = format!("no harness named `{name}` (in a **/{HARNESS_FILE})");
                    return Err(invalid(&at_file, &at_key, message));
                };
                if seen.is_empty() {
                    if let Some(id) = row.get("id").and_then(toml::Value::as_str) {
                        sources.insert(format!("harnesses.{id}"), declared.file.clone());
                    }
                }
                seen.push(name.clone());
                for (k, v) in declared.table.iter().filter(|(k, _)| *k != "extends") {
                    if !row.contains_key(k) {
                        row.insert(k.clone(), v.clone());
                        inherited.insert(format!("harnesses[{i}].{k}"), (declared.file.clone(), format!("{name}.{k}")));
                    }
                }
                let Some(next) = declared.table.get("extends") else { break };
                (at_file, at_key) = (declared.file.clone(), format!("{name}.extends"));
                base = next.clone();
            }
        }
        Ok(())
    }

    /// Merges into a suite's TOML the catalog's subjects its scenarios and harnesses name (with
    /// those they extend or need built) and the services those subjects use, and records in `sources` where
    /// each came from. A subject or service the suite declares itself and the catalog declares
    /// too is an error (key, message) naming the other file.
    pub(super) fn merge_into(
        &self,
        suite: &mut toml::Table,
        sources: &mut BTreeMap<String, String>,
    ) -> Result<(), (String, String)> {
        let own = |kind: &str, suite: &toml::Table| -> BTreeSet<String> {
            match suite.get(kind) {
                Some(toml::Value::Table(t)) => t.keys().cloned().collect(),
                _ => BTreeSet::new(),
            }
        };
        let (own_subjects, own_services) = (own("subjects", suite), own("services", suite));
        for (kind, names, declared) in
            [("subjects", &own_subjects, &self.subjects), ("services", &own_services, &self.services)]
        {
            if let Some(name) = names.iter().find(|n| declared.contains_key(*n)) {
                return Err((
                    format!("{kind}.{name}"),
                    format!("is also declared in {}: name it by id instead", declared[name].file),
                ));
            }
        }
        // The subjects the suite names, then those they extend or need, in turn.
        let mut wanted: Vec<String> = named_subjects(suite);
        if let Some(toml::Value::Table(t)) = suite.get("subjects") {
            wanted.extend(t.values().filter_map(toml::Value::as_table).flat_map(referenced));
        }
        let mut taken = BTreeSet::new();
        while let Some(name) = wanted.pop() {
            if own_subjects.contains(&name) || taken.contains(&name) {
                continue;
            }
            let Some(declared) = self.subjects.get(&name) else { continue };
            taken.insert(name);
            wanted.extend(referenced(&declared.table));
        }
        // A `subjects` or `services` that is not a table is left as written, for serde to refuse.
        let Some(subjects) = table_at(suite, "subjects") else { return Ok(()) };
        for name in &taken {
            let declared = &self.subjects[name];
            subjects.insert(name.clone(), toml::Value::Table(declared.table.clone()));
            sources.insert(format!("subjects.{name}"), declared.file.clone());
        }
        let services: BTreeSet<String> =
            subjects.values().filter_map(toml::Value::as_table).flat_map(|t| string_list(t, "services")).collect();
        let Some(table) = table_at(suite, "services") else { return Ok(()) };
        for name in services {
            if own_services.contains(&name) {
                continue;
            }
            if let Some(declared) = self.services.get(&name) {
                table.insert(name.clone(), toml::Value::Table(declared.table.clone()));
                sources.insert(format!("services.{name}"), declared.file.clone());
            }
        }
        Ok(())
    }
}

/// The subjects a suite's scenarios and harnesses name.
fn named_subjects(suite: &toml::Table) -> Vec<String> {
    let rows = |key: &str| match suite.get(key) {
        Some(toml::Value::Array(rows)) => rows.as_slice(),
        _ => &[],
    };
    let mut names: Vec<String> =
        rows("scenarios").iter().filter_map(|s| s.get("subject")?.as_str().map(String::from)).collect();
    for h in rows("harnesses").iter().filter_map(toml::Value::as_table) {
        names.extend(string_list(h, "subjects"));
    }
    names
}

/// The subjects a subject's table names: the one it `extends` and those it `needs`.
fn referenced(subject: &toml::Table) -> Vec<String> {
    let mut names = string_list(subject, "needs");
    names.extend(subject.get("extends").and_then(|e| e.as_str()).map(String::from));
    names
}

/// A table's list of ids under `key` (`services`, `needs`, a harness's `subjects`), as written.
fn string_list(subject: &toml::Table, key: &str) -> Vec<String> {
    match subject.get(key) {
        Some(toml::Value::Array(list)) => list.iter().filter_map(|n| n.as_str().map(String::from)).collect(),
        _ => Vec::new(),
    }
}

/// `suite[key]` as a table, created when missing; `None` when it is something else.
fn table_at<'a>(suite: &'a mut toml::Table, key: &str) -> Option<&'a mut toml::Table> {
    suite.entry(key).or_insert_with(|| toml::Value::Table(toml::Table::new())).as_table_mut()
}

#[derive(Clone, Copy)]
enum Kind {
    Subject,
    Harness,
}

/// Every file called `file_name` under `dir`, in path order, outside the skipped folders.
fn declaration_files(dir: &Path, file_name: &str, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name();
        if entry.file_type()?.is_dir() {
            let hidden = name.to_string_lossy().starts_with('.');
            if !hidden && !SKIPPED.iter().any(|s| name == *s) {
                declaration_files(&path, file_name, out)?;
            }
        } else if name == file_name {
            out.push(path);
        }
    }
    Ok(())
}

/// A declaration file's TOML, with its path relative to the root for messages.
fn read(root: &Path, path: &Path) -> Result<(String, toml::Table), SuiteError> {
    let file = path.strip_prefix(root).unwrap_or(path).display().to_string();
    let text = std::fs::read_to_string(path).map_err(|err| SuiteError::Read { file: file.clone(), err })?;
    let table = text.parse::<toml::Table>().map_err(|e| {
        let line = e.span().map_or("(syntax)".to_string(), |s| {
            format!("line {}", text[..s.start.min(text.len())].lines().count().max(1))
        });
        invalid(&file, &line, one_line(e.message()))
    })?;
    Ok((file, table))
}

fn invalid(file: &str, key: &str, message: String) -> SuiteError {
    SuiteError::Invalid { file: file.to_string(), key: key.to_string(), message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::{Build, Suite};

    const REST: &str = r#"
        [rest]
        lang = "rust"
        build = ["cargo", "build", "-p", "rest"]
        command = ["target/release/rest"]
        ports = { plain = "--port", tls = "--tls-port" }
        health = { path = "/health" }

        [rest-mq]
        extends = "rest"
        command = ["target/release/rest", "--broker", "{mq.port}"]
        services = ["mq"]
    "#;

    const MQ: &str = r#"
        command = ["mosquitto", "-p", "{port}"]
        ports = ["port"]
        ready = { port = "port" }
    "#;

    /// A project root with `subjects/<path>` files.
    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let files: Vec<(String, &str)> = files.iter().map(|(p, t)| (format!("subjects/{p}"), *t)).collect();
        project_at(&files.iter().map(|(p, t)| (p.as_str(), *t)).collect::<Vec<_>>())
    }

    /// A project root with files at paths relative to it.
    fn project_at(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const PAGES: &str = r#"
        [web]
        lang = "ts"
        workdir = "web"
        build = ["./build.sh"]
        timeout_s = 60

        [web-wasm]
        extends = "web"
        build = [["../wasm.sh"], ["./build.sh"]]
    "#;

    const ROWS: &str = r#"
        [[harnesses]]
        id = "page"
        extends = "web"
        command = ["node", "page.mjs"]

        [[harnesses]]
        id = "kernels"
        extends = "web-wasm"
        command = ["node", "kernels.mjs"]
        timeout_s = 5
    "#;

    fn suite(rows: &str) -> String {
        format!(
            r#"
            [[scenarios]]
            id = "a"
            subject = "{rows}"
            driver = "http1"
            path = "/"
            connections = 1
            requests = 1
            "#
        )
    }

    fn parse(root: &Path, text: &str) -> Result<Suite, String> {
        let catalog = Catalog::load(root).map_err(|e| e.to_string())?;
        let suite = Suite::parse_with(text, "suites/s.toml", &catalog).map_err(|e| e.to_string())?;
        suite.check("suites/s.toml", &["http1"]).map_err(|e| e.to_string())?;
        Ok(suite)
    }

    #[test]
    fn a_suite_gets_the_subjects_it_names_their_bases_and_their_services_and_no_more() {
        let root = project(&[
            ("lab/rust/subject.toml", REST),
            ("other/subject.toml", "[unused]\nlang = \"go\"\ncommand = [\"x\"]\nports = {}\nhealth = { path = \"/\" }"),
            ("lab/rust/node_modules/pkg/subject.toml", "not toml at all ["),
            ("services/mq.toml", MQ),
            ("services/pg.toml", MQ),
        ]);
        let s = parse(root.path(), &suite("rest-mq")).unwrap();
        assert_eq!(s.subjects.keys().collect::<Vec<_>>(), ["rest", "rest-mq"]);
        assert_eq!(s.services.keys().collect::<Vec<_>>(), ["mq"]);
        // `extends` reached across into the catalog: the build and ports are rest's.
        assert_eq!(s.subjects["rest-mq"].ports, s.subjects["rest"].ports);
        assert_eq!(s.subjects["rest-mq"].build, s.subjects["rest"].build);
        assert_eq!(s.source_of("subjects.rest-mq", "suites/s.toml"), "subjects/lab/rust/subject.toml");
        assert_eq!(s.source_of("services.mq", "suites/s.toml"), "subjects/services/mq.toml");
        let plain = parse(root.path(), &suite("rest")).unwrap();
        assert!(plain.services.is_empty(), "rest uses no service");
    }

    #[test]
    fn an_id_declared_twice_is_one_line_naming_both_files() {
        let root = project(&[("a/subject.toml", REST), ("b/subject.toml", "[rest]\nlang = \"go\"")]);
        let err = Catalog::load(root.path()).unwrap_err().to_string();
        assert_eq!(err, "subjects/b/subject.toml: rest: subject `rest` is also declared in subjects/a/subject.toml");

        let root = project(&[("a/subject.toml", REST), ("services/mq.toml", MQ)]);
        let own = format!("{}\n[subjects.rest]\nlang = \"go\"", suite("rest"));
        let err = parse(root.path(), &own).unwrap_err();
        assert_eq!(
            err,
            "suites/s.toml: subjects.rest: is also declared in subjects/a/subject.toml: name it by id instead"
        );
        let own = format!("{}\n[services.mq]\ncommand = [\"x\"]", suite("rest"));
        let err = parse(root.path(), &own).unwrap_err();
        assert_eq!(
            err,
            "suites/s.toml: services.mq: is also declared in subjects/services/mq.toml: name it by id instead"
        );
    }

    #[test]
    fn a_mistake_in_a_declaration_names_its_file_and_key() {
        let broken = REST.replace("health = { path = \"/health\" }", "health = { port = \"h3\", path = \"/health\" }");
        let root = project(&[("a/subject.toml", &broken), ("services/mq.toml", MQ)]);
        let err = parse(root.path(), &suite("rest")).unwrap_err();
        assert_eq!(err, "subjects/a/subject.toml: rest.health.port: no port named `h3` in ports");

        let typo = REST.replace("lang = ", "langg = ");
        let root = project(&[("a/subject.toml", &typo), ("services/mq.toml", MQ)]);
        let err = parse(root.path(), &suite("rest")).unwrap_err();
        assert!(err.starts_with("subjects/a/subject.toml: rest.langg: unknown field `langg`"), "{err}");

        let root = project(&[("a/subject.toml", REST), ("services/mq.toml", &MQ.replace("\"port\" }", "\"nope\" }"))]);
        let err = parse(root.path(), &suite("rest-mq")).unwrap_err();
        assert_eq!(err, "subjects/services/mq.toml: ready.port: no port named `nope` in ports");

        let root = project(&[("a/subject.toml", "[rest]\nextends = \"gone\"")]);
        let err = parse(root.path(), &suite("rest")).unwrap_err();
        assert_eq!(err, "subjects/a/subject.toml: rest.extends: no subject named `gone`");

        let root = project(&[("a/subject.toml", "[rest\nlang = 1")]);
        let err = Catalog::load(root.path()).unwrap_err().to_string();
        assert!(err.starts_with("subjects/a/subject.toml: line 1: "), "{err}");
    }

    #[test]
    fn subjects_or_services_that_are_not_tables_are_refused_not_replaced() {
        let root = project(&[("a/subject.toml", REST), ("services/mq.toml", MQ)]);
        for key in ["subjects", "services"] {
            let err = parse(root.path(), &format!("{key} = 1\n{}", suite("rest-mq"))).unwrap_err();
            assert!(err.starts_with(&format!("suites/s.toml: {key}: invalid type: integer")), "{err}");
        }
    }

    #[test]
    fn an_unknown_subject_or_service_says_where_it_was_looked_for() {
        let root = project(&[("a/subject.toml", REST)]);
        let err = parse(root.path(), &suite("nobody")).unwrap_err();
        assert_eq!(
            err,
            "suites/s.toml: scenarios[0].subject: no subject named `nobody` (in the suite or a subjects/**/subject.toml)"
        );
        let err = parse(root.path(), &suite("rest-mq")).unwrap_err();
        assert_eq!(
            err,
            "subjects/a/subject.toml: rest-mq.services: no service named `mq` (in the suite or subjects/services/mq.toml)"
        );
    }

    #[test]
    fn a_harness_row_takes_what_it_does_not_set_from_the_program_it_extends() {
        let root = project_at(&[("web/harness.toml", PAGES), ("web/node_modules/x/harness.toml", "not toml [")]);
        let s = parse(root.path(), ROWS).unwrap();
        let (page, kernels) = (&s.harnesses[0], &s.harnesses[1]);
        assert_eq!((page.lang.as_str(), page.workdir.as_deref()), ("ts", Some("web")));
        assert_eq!(page.build, Some(Build::One(vec!["./build.sh".into()])));
        assert_eq!(page.command, ["node", "page.mjs"]);
        assert_eq!(page.timeout_s, 60.0);
        // Through two declarations: web-wasm's own build, web's directory, the row's timeout.
        assert_eq!(kernels.workdir.as_deref(), Some("web"));
        assert_eq!(kernels.build.as_ref().map(|b| b.steps().len()), Some(2));
        assert_eq!(kernels.timeout_s, 5.0);
        assert_eq!(s.source_of("harnesses.kernels", "suites/s.toml"), "web/harness.toml");
    }

    #[test]
    fn a_harness_mistake_is_one_line_naming_the_file_that_made_it() {
        let err = |files: &[(&str, &str)], rows: &str| match Catalog::load(project_at(files).path()) {
            Ok(catalog) => Suite::parse_with(rows, "suites/s.toml", &catalog).unwrap_err().to_string(),
            Err(e) => e.to_string(),
        };
        let pages = [("web/harness.toml", PAGES)];
        assert_eq!(
            err(&pages, &ROWS.replace("\"web-wasm\"", "\"nope\"")),
            "suites/s.toml: harnesses[1].extends: no harness named `nope` (in a **/harness.toml)"
        );
        let typo = PAGES.replace("lang = ", "langg = ");
        let e = err(&[("web/harness.toml", &typo)], ROWS);
        assert!(e.starts_with("web/harness.toml: web.langg: unknown field `langg`"), "{e}");
        let gone = PAGES.replace("extends = \"web\"", "extends = \"gone\"");
        assert_eq!(
            err(&[("web/harness.toml", &gone)], ROWS),
            "web/harness.toml: web-wasm.extends: no harness named `gone` (in a **/harness.toml)"
        );
        let circle = format!("{PAGES}\n[a]\nextends = \"b\"\n[b]\nextends = \"a\"");
        assert_eq!(
            err(&[("web/harness.toml", &circle)], &ROWS.replace("\"web-wasm\"", "\"a\"")),
            "web/harness.toml: b.extends: `a` extends back to `b`"
        );
        assert_eq!(
            err(&[("a/harness.toml", PAGES), ("b/harness.toml", "[web]\nlang = \"go\"")], ROWS),
            "b/harness.toml: web: harness `web` is also declared in a/harness.toml"
        );
    }

    /// The repository's own declarations: every suite names its subjects and services by id (none
    /// declares its own), and every declared subject and service is used by some suite.
    #[test]
    fn the_repository_declares_each_subject_and_service_once_and_uses_each() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let catalog = Catalog::load(&root).unwrap();
        let (mut subjects, mut services) = (BTreeSet::new(), BTreeSet::new());
        for path in crate::suite::files(&root.join("suites")).unwrap() {
            let text = std::fs::read_to_string(&path).unwrap();
            let suite = Suite::parse_with(&text, &path.display().to_string(), &catalog).unwrap();
            for name in suite.subjects.keys() {
                assert!(
                    suite.sources.contains_key(&format!("subjects.{name}")),
                    "{}: declares `{name}`",
                    path.display()
                );
                subjects.insert(name.clone());
            }
            for name in suite.services.keys() {
                assert!(
                    suite.sources.contains_key(&format!("services.{name}")),
                    "{}: declares `{name}`",
                    path.display()
                );
                services.insert(name.clone());
            }
        }
        let declared: BTreeSet<String> = catalog.subjects.keys().cloned().collect();
        assert_eq!(declared, subjects, "declared subjects against those the suites use");
        let declared: BTreeSet<String> = catalog.services.keys().cloned().collect();
        assert_eq!(declared, services, "declared services against those the suites use");
        // Every harness program is extended by some suite's row, directly or through another.
        let extended: BTreeSet<String> = harness_bases(&root)
            .into_iter()
            .chain(catalog.harnesses.values().filter_map(|d| d.table.get("extends")?.as_str().map(String::from)))
            .collect();
        let declared: BTreeSet<String> = catalog.harnesses.keys().cloned().collect();
        assert_eq!(declared, extended, "declared harness programs against those extended");
    }

    /// The programs the suites' harness rows extend, as written.
    fn harness_bases(root: &Path) -> Vec<String> {
        let mut bases = Vec::new();
        for path in crate::suite::files(&root.join("suites")).unwrap() {
            let table: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
            if let Some(toml::Value::Array(rows)) = table.get("harnesses") {
                bases.extend(rows.iter().filter_map(|r| r.get("extends")?.as_str().map(String::from)));
            }
        }
        bases
    }
}
