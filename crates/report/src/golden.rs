//! The rendered outputs of fixture runs (`summary.md`, every CSV and chart), compared file by file
//! with the copies committed in `testdata/golden/<fixture>/`: a change to what the report says
//! shows up as a diff to review. `report.html` is left out: it holds the same tables and the same
//! SVGs, and its markup is checked by the tests beside each lab.
//! `WIREBENCH_BLESS=1 cargo test -p wirebench-report golden` writes the copies anew.

use std::path::{Path, PathBuf};

use crate::fixture;

/// Writes a fixture run into a directory.
type Write = fn(&Path);

/// Every synthetic fixture run and how to write it; their charts are compared too.
const FIXTURES: &[(&str, Write)] = &[
    ("every-lab", fixture::every_lab),
    ("standard", fixture::standard),
    ("formats-only", fixture::formats_only),
    ("mixed", fixture::mixed),
];

/// Real runs of every suite at the smoke profile (`testdata/runs/<suite>/`: run.json and
/// measurements.jsonl as the runner wrote them), so that every lab's report is pinned on rows
/// its harnesses and servers really print. Their charts are left out of the comparison (the
/// synthetic runs pin every chart kind; these would add a megabyte of SVG).
const RUNS: &[&str] = &["protocols", "formats", "parse", "realtime", "wasm", "restcache", "smoke"];

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/testdata").join(path)
}

/// Copies the committed run `suite` into `dir`.
fn copy_run(suite: &str, dir: &Path) {
    for f in ["run.json", "measurements.jsonl"] {
        std::fs::copy(testdata(&format!("runs/{suite}/{f}")), dir.join(f)).unwrap();
    }
}

/// The files a render wrote, relative to the run's directory, inputs left out (and charts unless
/// `charts`).
fn outputs(dir: &Path, charts: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if charts {
                    stack.push(p);
                }
            } else if !["run.json", "measurements.jsonl", crate::HTML_FILE, crate::WRITTEN_FILE]
                .contains(&p.file_name().unwrap().to_str().unwrap())
            {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn golden_outputs_are_unchanged() {
    let bless = std::env::var_os("WIREBENCH_BLESS").is_some();
    let mut stale = Vec::new();
    let synthetic = FIXTURES.iter().map(|&(name, write)| (name.to_string(), write, true));
    let real = RUNS.iter().map(|&suite| (format!("run-{suite}"), None, false));
    let all = synthetic.map(|(n, w, c)| (n, Some(w), c)).chain(real);
    for (name, write, charts) in all {
        let tmp = tempfile::tempdir().unwrap();
        match write {
            Some(write) => write(tmp.path()),
            None => copy_run(name.trim_start_matches("run-"), tmp.path()),
        }
        crate::render(tmp.path()).unwrap();
        let golden = testdata(&format!("golden/{name}"));
        let theirs = if golden.is_dir() { outputs(&golden, charts) } else { vec![] };
        let ours = outputs(tmp.path(), charts);
        if bless {
            let _ = std::fs::remove_dir_all(&golden);
            for f in &ours {
                std::fs::create_dir_all(golden.join(f).parent().unwrap()).unwrap();
                std::fs::copy(tmp.path().join(f), golden.join(f)).unwrap();
            }
            continue;
        }
        if ours != theirs {
            stale.push(format!("{name}: files {ours:?}, committed {theirs:?}"));
        }
        for f in ours.iter().filter(|f| theirs.contains(f)) {
            if std::fs::read(tmp.path().join(f)).unwrap() != std::fs::read(golden.join(f)).unwrap() {
                stale.push(format!("{name}/{}", f.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "rendered outputs differ from src/testdata/golden (review, then WIREBENCH_BLESS=1 to accept): {stale:#?}"
    );
}
