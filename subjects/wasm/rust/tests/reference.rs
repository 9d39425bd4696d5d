//! `reference.json`, what every build of the kernels must reproduce, is what the native kernels
//! compute now; and the native harness prints verified measurement lines.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_wasm-kernels-native");

#[test]
fn committed_reference_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reference.json");
    let out = Command::new(BIN).args(["reference", "--check", path]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn native_rows_are_verified_and_timed() {
    let out = Command::new(BIN).args(["--profile", "smoke", "--repeats", "2", "--run-id", "t"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 6 * 2, "six kernels, two repeats, no warm-up rows");
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r}");
        assert!(r["metrics"]["duration_s"].as_f64().unwrap() > 0.0);
        assert!(r["scenario"].as_str().unwrap().ends_with("-native"));
    }
}

#[test]
fn bad_arguments_get_one_line_and_exit_2() {
    for args in [&["--profile", "huge"][..], &["--repeats", "x"], &["--bogus", "1"], &["--repeats"]] {
        let out = Command::new(BIN).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("wasm-kernels-native: "));
    }
}
