//! The rendered outputs of fixture runs (`summary.md`, every CSV and chart), compared file by file
//! with the copies committed in `testdata/golden/<fixture>/`: a change to what the report says
//! shows up as a diff to review. `report.html` is left out: it holds the same tables and the same
//! SVGs, and its markup is checked by the tests beside each lab.
//! `WIREBENCH_BLESS=1 cargo test -p wirebench-report golden` writes the copies anew.

use std::path::{Path, PathBuf};

use crate::fixture;

/// Writes a fixture run into a directory.
type Write = fn(&Path);

/// Every fixture run and how to write it.
const FIXTURES: &[(&str, Write)] = &[
    ("every-lab", fixture::every_lab),
    ("standard", fixture::standard),
    ("formats-only", fixture::formats_only),
    ("mixed", fixture::mixed),
];

fn golden_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/testdata/golden").join(name)
}

/// The files a render wrote, relative to the run's directory, inputs left out.
fn outputs(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if !["run.json", "measurements.jsonl", crate::HTML_FILE]
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
    for (name, write) in FIXTURES {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path());
        crate::render(tmp.path()).unwrap();
        let golden = golden_dir(name);
        let (ours, theirs) = (outputs(tmp.path()), if golden.is_dir() { outputs(&golden) } else { vec![] });
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
