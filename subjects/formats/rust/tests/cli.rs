//! The binary as a runner starts it: measurement lines on stdout, one-line errors with non-zero
//! exit codes, and `vectors --check` against the committed files.

use std::process::{Command, Output};

fn formats_rust(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formats-rust")).args(args).output().unwrap()
}

#[test]
fn bench_prints_one_measurement_per_line() {
    let out = formats_rust(&[
        "bench",
        "--repeats",
        "2",
        "--run-id",
        "cli-test",
        "--dataset",
        "numeric",
        "--format",
        "cbor",
        "--samples",
        "3",
        "--warmup-ms",
        "0",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 2);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["scenario"], "numeric-cbor-rust");
        assert_eq!(row["repeat"], i + 1);
        assert_eq!(row["status"], "ok");
        assert!(row["metrics"]["serialize_ns"].as_f64().unwrap() > 0.0);
        assert!(row["params"]["library"].as_str().unwrap().starts_with("ciborium@"));
        // The binary counts allocations: decoding 100 objects allocates at least one id string each.
        let metrics = &row["metrics"];
        assert!(metrics["deserialize_allocs"].as_u64().unwrap() >= 100, "{metrics}");
        assert!(metrics["deserialize_alloc_bytes"].as_u64().unwrap() >= 100 * 24, "{metrics}");
        assert!(metrics["serialize_allocs"].as_u64().unwrap() >= 1, "{metrics}");
        assert!(metrics["serialize_alloc_bytes"].as_u64().unwrap() >= metrics["size_bytes"].as_u64().unwrap());
    }
}

#[test]
fn bad_flags_fail_on_one_line_without_a_panic() {
    for args in [
        &["bench", "--repeats", "1", "--run-id", "r", "--format", "yaml"][..],
        &["bench", "--repeats", "zero", "--run-id", "r"],
        &["bench", "--run-id", "r"],
        &["frobnicate"],
        &[],
    ] {
        let out = formats_rust(args);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"));
    }
}

#[test]
fn vectors_check_passes_on_the_committed_files_and_fails_on_an_empty_dir() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors");
    let out = formats_rust(&["vectors", "--check", dir]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let empty = std::env::temp_dir().join(format!("formats-rust-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let out = formats_rust(&["vectors", "--check", empty.to_str().unwrap()]);
    std::fs::remove_dir_all(&empty).ok();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.lines().last().unwrap().contains("run `formats-rust vectors --write"), "{stderr}");
}
