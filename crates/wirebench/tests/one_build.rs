//! Every Rust package built alone compiles the crates the whole workspace build compiles, the
//! same way (docs/decisions/0025-each-package-builds-alone.md), so `cargo build -p PACKAGE` makes
//! the workspace's binary and reuses what any other selection built. Two things decide it:
//! - features: Cargo gives a dependency the union of the features asked for by the packages
//!   being built. Without the pins of `crates/workspace-hack` a subject built alone got other
//!   features than the same subject built with the workspace (`log` and `tracing` kept their
//!   calls). When that check fails, a dependency or a feature was added:
//!   `cargo install cargo-hakari --locked`, then `cargo hakari generate && cargo hakari manage-deps`;
//! - object code: under fat LTO, Cargo compiles the crates below one that needs object code (a
//!   staticlib, cdylib or dylib) with object code and bitcode, and other crates with bitcode
//!   alone; so every such crate must be under every package (workspace-hack depends on `tun`).

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::workspace as root;
use wirebench_core::suite::Suite;

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(&cargo)
        .args(args)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("{cargo} {}: {e}", args.join(" ")));
    assert!(out.status.success(), "cargo {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// What a release build of `selection` compiles: one line per crate and feature set, for the
/// normal and build dependencies on this host (dev-dependencies are not in release binaries).
fn units(selection: &[&str]) -> BTreeSet<String> {
    let mut args = vec!["tree", "--locked", "-e", "normal,build", "--prefix", "none", "-f", "{p} [{f}]"];
    args.extend_from_slice(selection);
    cargo(&args).lines().map(|l| l.trim_end_matches(" (*)").to_string()).filter(|l| !l.is_empty()).collect()
}

fn metadata(args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["metadata", "--locked", "--format-version", "1"];
    all.extend_from_slice(args);
    let metadata: serde_json::Value = serde_json::from_str(&cargo(&all)).unwrap();
    metadata["packages"].as_array().unwrap().clone()
}

fn members() -> Vec<String> {
    metadata(&["--no-deps"]).iter().map(|p| p["name"].as_str().unwrap().to_string()).collect()
}

/// `name vVERSION` of every package whose library declares a crate type that needs object code.
fn needing_object_code() -> Vec<String> {
    // A library target (examples and other targets are not built for dependencies).
    let needs = |t: &serde_json::Value| {
        let has =
            |key: &str, kinds: &[&str]| t[key].as_array().unwrap().iter().any(|k| kinds.contains(&k.as_str().unwrap()));
        has("kind", &["lib", "rlib", "staticlib", "cdylib", "dylib"])
            && has("crate_types", &["staticlib", "cdylib", "dylib"])
    };
    metadata(&["--filter-platform", "x86_64-unknown-linux-gnu"])
        .iter()
        .filter(|p| p["targets"].as_array().unwrap().iter().any(needs))
        .map(|p| format!("{} v{}", p["name"].as_str().unwrap(), p["version"].as_str().unwrap()))
        .collect()
}

#[test]
fn each_package_alone_builds_what_the_workspace_builds() {
    let workspace = units(&["--workspace"]);
    // The check can fail: the workspace compiles some crates with other features than one
    // package needs, so without the pins the sets would differ.
    assert!(workspace.iter().any(|u| u.starts_with("log ") && u.contains("release_max_level_off")));
    let objects: Vec<String> = needing_object_code()
        .into_iter()
        .filter(|p| workspace.iter().any(|u| u.starts_with(&format!("{p} "))))
        .collect();
    assert!(objects.iter().any(|p| p.starts_with("tun ")), "tun (a staticlib) should be in the workspace: {objects:?}");
    let mut stale = Vec::new();
    for member in members() {
        let alone = units(&["-p", &member]);
        assert!(alone.iter().any(|u| u.starts_with(&format!("{member} "))), "{member}: not in its own tree");
        stale.extend(alone.difference(&workspace).map(|u| format!("{member}: {u}")));
        for p in &objects {
            if !alone.iter().any(|u| u.starts_with(&format!("{p} "))) {
                stale.push(format!("{member}: lacks {p}, which needs object code (add it to crates/workspace-hack)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "built alone, these packages compile crates other than the workspace build does (for features, run \
         `cargo hakari generate && cargo hakari manage-deps`; cargo install cargo-hakari --locked):\n{}",
        stale.join("\n")
    );
}

/// The packages named after `-p` in `text`.
fn packages(text: &str) -> BTreeSet<String> {
    let words: Vec<&str> = text.split_whitespace().map(|w| w.trim_matches(|c| c == '(' || c == ')')).collect();
    words.windows(2).filter(|w| w[0] == "-p").map(|w| w[1].to_string()).collect()
}

/// The lines of the Makefile's `run` recipe.
fn run_recipe() -> Vec<String> {
    let makefile = std::fs::read_to_string(root().join("Makefile")).unwrap();
    let after = makefile.split("\nrun:").nth(1).expect("Makefile has a `run` target");
    after.lines().skip(1).take_while(|l| l.starts_with('\t')).map(str::to_string).collect()
}

fn protocols() -> Suite {
    Suite::load(&root().join("suites/protocols.toml"), &root(), &wirebench_load::Registry).unwrap()
}

/// `make run` builds the instrument and the Rust packages the protocols suite's brief profile
/// runs, in one cargo invocation (so one binary links while the other compiles); it must name
/// what the suite's declarations build for that profile, or the run's own build step would
/// compile what `make run` left out, and nothing the profile skips (`protocols-rumqttd`).
#[test]
fn make_run_builds_what_the_protocols_suite_builds() {
    let recipe: String = run_recipe().into_iter().filter(|l| l.contains("$(CARGO) build")).collect();
    assert!(run_recipe().iter().any(|l| l.contains("--profile brief")), "{:?}", run_recipe());
    let built = |extra: &[&str]| {
        let mut args = vec!["build", "protocols", "--dry-run"];
        args.extend_from_slice(extra);
        let out = common::wirebench(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        packages(&String::from_utf8_lossy(&out.stdout))
    };
    let mut want = built(&["--profile", "brief"]);
    assert!(want.contains("protocols-rust"), "{want:?}");
    // The rows the brief profile skips have a package of their own, which `make run` leaves out.
    let every = built(&[]);
    assert!(every.contains("protocols-rumqttd") && !want.contains("protocols-rumqttd"), "{every:?} {want:?}");
    want.insert("wirebench".into());
    assert_eq!(packages(&recipe), want, "Makefile's `run` recipe: {recipe}");
    assert!(recipe.contains("--release") && !recipe.contains("--profile"), "the release binaries: {recipe}");
}

/// `make run` works on a machine with only the toolchains: it installs the services its rows
/// start (the Debian packages are named as the services are) and protoc when a build script
/// of what it builds compiles .proto files with prost-build.
#[test]
fn make_run_installs_what_its_build_and_rows_need() {
    let install = run_recipe().into_iter().find(|l| l.contains("setup-apt")).expect("`run` installs Debian packages");
    let suite = protocols();
    let services: BTreeSet<&str> = suite
        .plan(&suite.profile("brief").unwrap(), None)
        .iter()
        .flat_map(|s| &suite.subjects[&s.subject].services)
        .map(String::as_str)
        .collect();
    assert!(services.contains("mosquitto"), "{services:?}");
    for service in services {
        assert!(install.contains(service), "`run` does not install `{service}`: {install}");
    }
    let tree = units(&["-p", "wirebench", "-p", "protocols-rust"]);
    assert!(tree.iter().any(|l| l.starts_with("prost-build ")), "{tree:?}");
    assert!(install.contains("protobuf-compiler"), "`run` does not install protoc: {install}");
}

/// `make run`'s brief profile leaves out every row across a network link (seconds each when
/// lossy, and they need root), whatever the rows are named, and the rows through rumqttd, which
/// no claim reads; it keeps every other row, so every claim and published table on loopback rows
/// has its rows.
#[test]
fn the_brief_profile_runs_every_loopback_row_a_claim_reads() {
    let suite = protocols();
    let brief = suite.plan(&suite.profile("brief").unwrap(), None);
    let all = suite.plan(&suite.profile("quick").unwrap(), None);
    assert!(brief.iter().all(|s| s.net.is_none()), "a brief row crosses a link");
    let left_out: Vec<&str> =
        all.iter().filter(|s| s.net.is_none() && !brief.iter().any(|b| b.id == s.id)).map(|s| s.id.as_str()).collect();
    assert!(!left_out.is_empty() && left_out.iter().all(|id| id.starts_with("mqtt-rumqttd-")), "{left_out:?}");
    let mut lost = Vec::new();
    for claim in &suite.claims {
        let named = [Some(&claim.numerator), claim.denominator.as_ref()]
            .into_iter()
            .flatten()
            .chain(claim.versus.iter().flat_map(|v| [&v.numerator, &v.denominator]))
            .chain(&claim.also);
        for id in named {
            let reads = |row: &str| glob::Pattern::new(id).is_ok_and(|p| p.matches(row));
            let excepted = |row: &str| claim.except.iter().any(|e| glob::Pattern::new(e).is_ok_and(|p| p.matches(row)));
            lost.extend(
                left_out.iter().filter(|row| reads(row) && !excepted(row)).map(|row| format!("{}: {row}", claim.id)),
            );
        }
    }
    for table in &suite.published {
        lost.extend(
            table
                .rows
                .iter()
                .filter(|r| left_out.contains(&r.scenario.as_str()))
                .map(|r| format!("{}: {}", table.id, r.scenario)),
        );
    }
    assert!(lost.is_empty(), "claims and published tables read rows the brief profile skips: {lost:?}");
}
