//! The contract against every implementation of suites/restcache.toml on both stores, empty and
//! pre-filled (smoke scale), each started as the runner starts it: from the suite's own subject
//! definitions (setup included), PostgreSQL from its service definition (through the real
//! Supervisor). The implementations are built by `make
//! build` (`make test` builds first).

use std::path::{Path, PathBuf};

use restcache_contract::Service;
use wirebench_core::suite::{Placeholders, Suite};
use wirebench_core::supervisor::{Launcher, Supervisor};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..").canonicalize().unwrap()
}

#[test]
fn every_implementation_passes_the_contract_on_both_stores() {
    let root = workspace();
    let suite = Suite::load(&root.join("suites/restcache.toml"), &root, &wirebench_load::Registry).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let supervisor = Supervisor::unpinned(root, runs.path().into());
    // Every service a subject names (PostgreSQL durable and relaxed), as the runner would.
    let mut placeholders = Placeholders::default();
    let mut services = vec![];
    let named: std::collections::BTreeSet<&String> = suite.subjects.values().flat_map(|s| &s.services).collect();
    for (name, spec) in suite.services.iter().filter(|(name, _)| named.contains(name)) {
        let service = supervisor.start_service(name, spec).unwrap_or_else(|e| panic!("{e}"));
        let dir = service.dir().unwrap().display().to_string();
        placeholders.add_service(name, &Placeholders::own(&dir, service.ports()));
        services.push(service);
    }

    assert!(
        suite.subjects.len() >= 16,
        "four implementations x two stores, empty and filled: {:?}",
        suite.subjects.keys()
    );
    let mut failures = vec![];
    for (name, spec) in &suite.subjects {
        let dir = runs.path().join(format!("subject-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut placeholders = placeholders.clone();
        placeholders.values.insert("dir".into(), dir.display().to_string());
        placeholders.values.insert("profile".into(), "smoke".into());
        placeholders.values.insert("root".into(), workspace().display().to_string());
        let spec = wirebench_core::runner::resolve(spec, &placeholders).unwrap();
        let mut subject = match supervisor.start(name, &spec) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e} (built? run `make build`)"));
                continue;
            }
        };
        let service = Service::new(&format!("http://127.0.0.1:{}", subject.ports()["plain"])).unwrap();
        for (check, why) in service.check_all() {
            failures.push(format!("{name}: {check}: {why}"));
        }
        subject.stop();
    }
    for mut service in services {
        service.stop();
    }
    assert!(failures.is_empty(), "contract failures:\n{}", failures.join("\n"));
}
