//! Records the versions of the libraries that shape measurements (from Cargo.lock) and of rustc,
//! so every run.json says what produced its numbers.

use std::process::Command;

const TRACKED: &[&str] = &["tokio", "h2", "httparse", "rustls", "hdrhistogram", "actix-web"];

fn main() {
    let lock_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.lock");
    println!("cargo:rerun-if-changed={lock_path}");
    let lock = std::fs::read_to_string(lock_path).unwrap_or_default();
    let mut versions = Vec::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let Some(v) = line.strip_prefix("version = ") {
            if let Some(n) = name.take().filter(|n| TRACKED.contains(&n.as_str())) {
                versions.push(format!("{n}={}", v.trim_matches('"')));
            }
        }
    }
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rustc = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    versions.push(format!("rustc={rustc}"));
    println!("cargo:rustc-env=WIREBENCH_LIB_VERSIONS={}", versions.join(";"));
}
