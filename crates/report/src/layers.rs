//! The crate's layering, read from its `use` lines: no two modules import each other, directly or
//! around a circle; the outputs (`render/`) and the charts import no lab; and no lab imports
//! another. Test code is left out (it may read any module).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The module a file is, as a path from the crate root (`labs::parse`, `charts`, `render::html`).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).filter(|p| *p != "mod").collect();
    parts.join("::")
}

/// The crate modules a file's non-test code imports, as full paths of the longest known module
/// (`crate::labs::LABS` → `labs`, `crate::charts::panels::{…}` → `charts::panels`, `super::x` from
/// `charts::ranked` → `charts`).
fn imports(module: &str, text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let mut out = BTreeSet::new();
    for line in code.lines().map(str::trim).filter(|l| l.starts_with("use ") || l.starts_with("pub use ")) {
        let path = line.trim_start_matches("pub ").trim_start_matches("use ");
        let path = if let Some(rest) = path.strip_prefix("crate::") {
            rest.to_string()
        } else if let Some(rest) = path.strip_prefix("super::") {
            if parent.is_empty() {
                rest.to_string()
            } else {
                format!("{parent}::{rest}")
            }
        } else {
            continue;
        };
        // The longest prefix of the path that names a module of the crate.
        let segments: Vec<&str> = path.split("::").map(|s| s.trim_matches(|c: char| "{};".contains(c))).collect();
        let target = (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| known.contains(m));
        if let Some(t) = target.filter(|t| t != module) {
            out.insert(t);
        }
    }
    out
}

/// The import graph of the crate's non-test modules.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files: Vec<PathBuf> = sources(&root);
    let known: BTreeSet<String> = files.iter().map(|f| module_of(&root, f)).collect();
    files
        .iter()
        .map(|f| {
            let m = module_of(&root, f);
            let deps = imports(&m, &std::fs::read_to_string(f).unwrap(), &known);
            (m, deps)
        })
        .filter(|(m, _)| !["lib", "fixture", "golden", "layers"].contains(&m.as_str()))
        .collect()
}

/// A module's top-level folder or file (`labs::parse` → `labs`).
fn top(m: &str) -> &str {
    m.split("::").next().unwrap_or(m)
}

#[test]
fn the_crate_has_no_import_circle() {
    let g = graph();
    assert!(g.contains_key("labs::parse") && g["labs::parse"].contains("section"), "the reader sees imports: {g:?}");
    // Between top-level modules (a folder is one node): a depth-first search finds no back edge.
    let mut tops: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (m, deps) in &g {
        let entry = tops.entry(top(m)).or_default();
        entry.extend(deps.iter().map(|d| top(d)).filter(|d| *d != top(m)));
    }
    fn visit<'a>(
        n: &'a str,
        g: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) {
        if let Some(i) = path.iter().position(|p| *p == n) {
            panic!("import circle: {} → {n}", path[i..].join(" → "));
        }
        if !done.insert(n) {
            return;
        }
        path.push(n);
        for d in g.get(n).into_iter().flatten() {
            visit(d, g, path, done);
        }
        path.pop();
    }
    let mut done = BTreeSet::new();
    for n in tops.keys() {
        visit(n, &tops, &mut Vec::new(), &mut done);
    }
}

#[test]
fn outputs_and_charts_know_no_lab_and_labs_know_no_other_lab() {
    for (m, deps) in graph() {
        let labs: Vec<&String> = deps.iter().filter(|d| top(d) == "labs").collect();
        match top(&m) {
            "render" | "charts" | "section" | "table" | "load" | "claims" | "numbers" => {
                assert!(labs.is_empty(), "{m} imports {labs:?}")
            }
            "labs" if m != "labs" => assert!(labs.is_empty(), "{m} imports another lab: {labs:?}"),
            _ => {}
        }
    }
}
