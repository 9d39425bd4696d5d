//! Records the resolved version of every direct dependency, from the workspace's Cargo.lock, as
//! `FORMATS_LIB_<name>` (dashes as underscores): the harness reports which library version
//! produced each measurement.

use std::path::Path;

fn main() {
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let manifest_path = Path::new(&manifest_dir).join("Cargo.toml");
    let lock_path = Path::new(&manifest_dir).join("../../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", manifest_path.display());
    println!("cargo:rerun-if-changed={}", lock_path.display());

    let manifest = std::fs::read_to_string(&manifest_path).expect("read Cargo.toml");
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();
    let packages = lock_packages(&lock);
    let own_deps = packages
        .iter()
        .find(|p| p.name == std::env::var("CARGO_PKG_NAME").unwrap_or_default())
        .map(|p| p.dependencies.clone())
        .unwrap_or_default();

    for name in dependency_names(&manifest) {
        let version = resolve(&name, &packages, &own_deps).unwrap_or_else(|| {
            println!("cargo:warning=no version of {name} in {}; recording 'unknown'", lock_path.display());
            "unknown".to_owned()
        });
        println!("cargo:rustc-env=FORMATS_LIB_{}={version}", name.replace('-', "_"));
    }
}

struct Package {
    name: String,
    version: String,
    dependencies: Vec<String>,
}

/// The `[[package]]` entries of a Cargo.lock (name, version and dependency strings only).
fn lock_packages(lock: &str) -> Vec<Package> {
    let mut packages = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|l| {
                l.strip_prefix(key)?
                    .trim()
                    .strip_prefix('=')?
                    .trim()
                    .strip_prefix('"')?
                    .strip_suffix('"')
                    .map(str::to_owned)
            })
        };
        let dependencies = match block.split_once("dependencies = [") {
            Some((_, rest)) => rest
                .split(']')
                .next()
                .unwrap_or("")
                .split(',')
                .map(|d| d.trim().trim_matches('"').to_owned())
                .filter(|d| !d.is_empty())
                .collect(),
            None => Vec::new(),
        };
        if let (Some(name), Some(version)) = (field("name"), field("version")) {
            packages.push(Package { name, version, dependencies });
        }
    }
    packages
}

/// Package names under `[dependencies]` of our Cargo.toml.
fn dependency_names(manifest: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
        } else if in_deps && !line.starts_with('#') {
            if let Some((name, _)) = line.split_once('=') {
                names.push(name.trim().to_owned());
            }
        }
    }
    names
}

/// The version of `name` this crate builds with. Cargo.lock writes a dependency as
/// "name version" exactly when several versions of it are locked, so that decides ties.
fn resolve(name: &str, packages: &[Package], own_deps: &[String]) -> Option<String> {
    let pinned = own_deps
        .iter()
        .find_map(|d| d.strip_prefix(name)?.strip_prefix(' ').map(|v| v.split(' ').next().unwrap_or(v).to_owned()));
    if pinned.is_some() {
        return pinned;
    }
    let mut versions = packages.iter().filter(|p| p.name == name).map(|p| p.version.clone());
    let first = versions.next()?;
    versions.next().is_none().then_some(first)
}
