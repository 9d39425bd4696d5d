//! The documents' numbers regenerate: every block between
//! `<!-- wirebench report DIR --markdown [--claims SUITE] [--section ID]… -->` and `<!-- end of wirebench report -->`
//! in README.md and docs/ must be what that command prints for the committed results directory,
//! and every block between `<!-- bench/<script> --render FILE… -->` and `<!-- end of bench/<script> -->`
//! what that benchmark script (bench/peers, bench/reproduce) renders from what it kept in
//! bench/results/.
//! `make docs` (WIREBENCH_BLESS=1) writes the blocks anew; otherwise a stale block fails the test
//! (rust_serialization_benchmark's regenerate-then-`git diff --exit-code`, as a test).

use std::path::{Path, PathBuf};

use wirebench_core::suite::Suite;

mod common;
use common::workspace;

const OPEN: &str = "<!-- wirebench report ";
const CLOSE: &str = "<!-- end of wirebench report -->";
const BENCH_OPEN: &str = "<!-- bench/";

/// The benchmark script a `<!-- bench/<script> --render FILE… -->` line names, and its files.
fn bench_block(line: &str) -> Option<(&str, Vec<&str>)> {
    let rest = line.strip_prefix(BENCH_OPEN)?.trim_end_matches("-->");
    let (script, files) = rest.split_once(" --render ")?;
    Some((script, files.split_whitespace().collect()))
}

/// What `bench/<script> --render FILE…` prints, run from the repository's root as the line names it.
fn bench_table(line: &str, doc: &Path) -> String {
    let (script, files) = bench_block(line).unwrap_or_else(|| panic!("{}: `{line}`", doc.display()));
    assert!(!files.is_empty(), "{}: `{line}` names no file", doc.display());
    let out = std::process::Command::new("python3")
        .arg(format!("bench/{script}"))
        .arg("--render")
        .args(&files)
        .current_dir(workspace())
        .output()
        .unwrap_or_else(|e| panic!("{}: python3 bench/{script}: {e}", doc.display()));
    assert!(out.status.success(), "{}: `{line}`: {}", doc.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// README.md and every Markdown file under docs/.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![root.join("README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What an opening line asks for: the directory, its sections, and a suite whose claims judge it.
struct Block {
    dir: PathBuf,
    sections: Vec<String>,
    claims: Option<wirebench_report::ClaimsFrom>,
}

/// The block an opening line asks for.
fn command(line: &str, doc: &Path) -> Block {
    let args: Vec<&str> = line.trim_start_matches(OPEN).trim_end_matches("-->").split_whitespace().collect();
    let (dir, flags) = args.split_first().unwrap_or_else(|| panic!("{}: `{line}` names no directory", doc.display()));
    assert_eq!(flags.first(), Some(&"--markdown"), "{}: `{line}`: the block prints --markdown", doc.display());
    let mut block = Block { dir: workspace().join(dir), sections: Vec::new(), claims: None };
    let mut rest = flags[1..].iter();
    while let Some(flag) = rest.next() {
        let value =
            rest.next().unwrap_or_else(|| panic!("{}: `{line}`: {flag} needs a value", doc.display())).to_string();
        match *flag {
            "--section" => block.sections.push(value),
            "--claims" => {
                let suite = Suite::load(&workspace().join(&value), &workspace(), &wirebench_load::Registry)
                    .unwrap_or_else(|e| panic!("{}: `{line}`: {e}", doc.display()));
                block.claims = Some(wirebench_report::ClaimsFrom::of(value, suite));
            }
            _ => panic!("{}: `{line}`: unknown flag {flag}", doc.display()),
        }
    }
    block
}

/// `text` with every block filled in from its command.
fn regenerate(text: &str, doc: &Path) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        out.push_str(line);
        out.push('\n');
        let (md, close) = if line.starts_with(OPEN) {
            let b = command(line, doc);
            let md = wirebench_report::markdown_with(&b.dir, &b.sections, b.claims.as_ref())
                .unwrap_or_else(|e| panic!("{}: {e}", doc.display()));
            (md, CLOSE.to_string())
        } else if let Some((script, _)) = bench_block(line) {
            (bench_table(line, doc), format!("<!-- end of bench/{script} -->"))
        } else {
            continue;
        };
        out.push('\n');
        out.push_str(md.trim_end());
        out.push_str("\n\n");
        // Skip the old block up to its end marker.
        loop {
            let l = lines.next().unwrap_or_else(|| panic!("{}: `{line}` has no `{close}`", doc.display()));
            if l == close {
                out.push_str(&close);
                out.push('\n');
                break;
            }
        }
    }
    out
}

#[test]
fn generated_blocks_match_their_committed_results() {
    let bless = std::env::var_os("WIREBENCH_BLESS").is_some();
    let mut stale = Vec::new();
    let mut blocks = 0;
    for doc in documents(&workspace()) {
        let text = std::fs::read_to_string(&doc).unwrap();
        blocks += text.lines().filter(|l| l.starts_with(OPEN) || bench_block(l).is_some()).count();
        let fresh = regenerate(&text, &doc);
        if fresh != text {
            if bless {
                std::fs::write(&doc, fresh).unwrap();
            } else {
                stale.push(doc.strip_prefix(workspace()).unwrap().display().to_string());
            }
        }
    }
    assert!(blocks > 0, "no generated block found: the check checks nothing");
    assert!(stale.is_empty(), "generated blocks are stale in {stale:?}: run `make docs` and commit the result");
}

#[test]
fn a_block_is_what_the_command_prints() {
    let doc = Path::new("example.md");
    let dir = workspace().join("docs/labs/results");
    let Some(run) = std::fs::read_dir(&dir).ok().and_then(|mut d| d.next()).map(|e| e.unwrap().path()) else {
        panic!("{}: no committed results", dir.display());
    };
    let rel = run.strip_prefix(workspace()).unwrap().display().to_string();
    let text = format!("# Title\n\n{OPEN}{rel} --markdown --section claims-section -->\nold\n{CLOSE}\ntail\n");
    let fresh = regenerate(&text, doc);
    let md = wirebench_report::markdown(&run, &["claims-section".to_string()]).unwrap();
    assert_eq!(
        fresh,
        format!(
            "# Title\n\n{OPEN}{rel} --markdown --section claims-section -->\n\n{}\n\n{CLOSE}\ntail\n",
            md.trim_end()
        )
    );
}

/// Every committed run the documents read was made from a clean tree: a `-dirty` revision names
/// code no commit holds, so its numbers cannot be traced to the code that made them.
#[test]
fn committed_runs_come_from_a_clean_tree() {
    let dir = workspace().join("docs/labs/results");
    let mut runs = 0;
    let mut dirty = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path().join("run.json");
        let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        runs += 1;
        match run["git_revision"].as_str() {
            Some(rev) if !rev.is_empty() && !rev.ends_with("-dirty") => {}
            other => dirty.push(format!("{}: {other:?}", path.strip_prefix(workspace()).unwrap().display())),
        }
    }
    assert!(runs > 0, "{}: no committed run", dir.display());
    assert!(dirty.is_empty(), "committed runs not made from a clean tree (run them again at a commit): {dirty:?}");
}

/// `bench/labs` runs every lab whose run is committed, each as its document says the committed run
/// was made, and the run's recorded profile is the one it names: a lab added, or a document's
/// command changed, without the script would leave the committed run unrepeatable by it.
#[test]
fn bench_labs_repeats_each_committed_run_as_its_document_says() {
    let out = std::process::Command::new("python3")
        .args(["bench/labs", "--dry-run"])
        .current_dir(workspace())
        .output()
        .expect("python3 bench/labs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let commands: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_string).collect();
    let dir = workspace().join("docs/labs/results");
    let mut labs = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let suite = path.file_name().unwrap().to_string_lossy().into_owned();
        labs += 1;
        let prefix = format!("target/release/wirebench run {suite} --out results/labs ");
        let args = commands
            .iter()
            .find_map(|c| c.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("bench/labs does not run {suite}: {commands:?}"));
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path.join("run.json")).unwrap()).unwrap();
        let profile = run["profile"].as_str().unwrap();
        assert!(
            args.starts_with(&format!("--profile {profile}")),
            "{suite}: `{args}`, committed run's profile {profile}"
        );
        let doc = std::fs::read_to_string(workspace().join(format!("docs/labs/{suite}.md"))).unwrap();
        let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
        let command = format!("wirebench run {suite} {args}");
        assert!(doc.contains(&format!("`{command}`")), "docs/labs/{suite}.md does not name `{command}`");
    }
    assert!(labs > 0 && commands.len() == labs, "{commands:?}");
}
