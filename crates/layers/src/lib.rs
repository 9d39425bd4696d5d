//! A crate's import graph, read from its `use` lines, and the check that it has no circle: the
//! layering tests of wirebench's crates (core, load, report, link, fleet and the CLI) share it.
//! Test code (after the first `#[cfg(test)]`) is left out: tests may read any module. The crate
//! root is the node `lib`, whether it is `lib.rs` or, in a binary without one, `main.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module → the modules of the same crate its non-test code imports.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The module a file is, as a path from the crate root (`labs::parse`, `charts`, `render::html`);
/// the root itself is `lib`, a binary's `main.rs` too when there is no `lib.rs` beside it.
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let parts: Vec<&str> = parts.iter().map(String::as_str).filter(|p| *p != "mod").collect();
    match parts.join("::") {
        m if m == "main" && !root.join("lib.rs").exists() => "lib".to_string(),
        m => m,
    }
}

/// The crate modules a file's non-test code imports, as full paths of the longest known module
/// (`crate::labs::LABS` → `labs`, `crate::charts::panels::{…}` → `charts::panels`, `super::x`
/// from `charts::ranked` → `charts`). An item of the crate root (`crate::LoadError`, or
/// `crate::EXIT_OK` of a binary's `main.rs`) is `lib`: an import from the root is an edge like
/// any other.
fn imports(module: &str, text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let parent = module.rsplit_once("::").map_or("", |(p, _)| p);
    let mut out = BTreeSet::new();
    let mut add = |path: String| {
        let segments: Vec<&str> = path.split("::").map(|s| s.trim_matches(|c: char| "{};".contains(c))).collect();
        let target = (1..=segments.len()).rev().map(|n| segments[..n].join("::")).find(|m| known.contains(m));
        let target = target.unwrap_or_else(|| "lib".to_string());
        if target != module {
            out.insert(target);
        }
    };
    for line in code.lines().map(str::trim).filter(|l| l.starts_with("use ") || l.starts_with("pub use ")) {
        let path = line.trim_start_matches("pub ").trim_start_matches("use ");
        if let Some(rest) = path.strip_prefix("crate::") {
            // `use crate::{tls, LoadError}`: each item of the group.
            match rest.strip_prefix('{') {
                Some(group) => group.split(',').for_each(|item| add(item.trim().to_string())),
                None => add(rest.to_string()),
            }
        } else if let Some(rest) = path.strip_prefix("super::") {
            add(if parent.is_empty() { rest.to_string() } else { format!("{parent}::{rest}") });
        }
    }
    // Paths written in code (`crate::io::connect(...)`, `crate::mismatch(...)`) are imports too.
    for (i, _) in code.match_indices("crate::") {
        let line_start = code[..i].rfind('\n').map_or(0, |n| n + 1);
        let line = code[line_start..].lines().next().unwrap_or("").trim_start();
        if line.starts_with("use ") || line.starts_with("pub use ") || line.starts_with("//") {
            continue;
        }
        let path: String =
            code[i + "crate::".len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        add(path.trim_end_matches(':').to_string());
    }
    out
}

/// The import graph of the crate whose sources are under `src`, without the modules in `skip`
/// (the root, test helpers).
pub fn graph(src: &Path, skip: &[&str]) -> Graph {
    let files = sources(src);
    let mut known: BTreeSet<String> = files.iter().map(|f| module_of(src, f)).collect();
    known.remove("lib");
    files
        .iter()
        .map(|f| {
            let m = module_of(src, f);
            let deps = imports(&m, &std::fs::read_to_string(f).unwrap(), &known);
            (m, deps)
        })
        .filter(|(m, _)| !skip.contains(&m.as_str()))
        .collect()
}

/// The modules that import an item of the crate root (`lib.rs`, or a binary's `main.rs`):
/// imports that run upward.
pub fn importers_of_root(g: &Graph) -> Vec<&str> {
    g.iter().filter(|(_, deps)| deps.contains("lib")).map(|(m, _)| m.as_str()).collect()
}

/// A module's top-level folder or file (`labs::parse` → `labs`).
pub fn top(m: &str) -> &str {
    m.split("::").next().unwrap_or(m)
}

/// The graph with each top-level folder as one node (`drivers::http1` → `drivers`).
pub fn by_folder(g: &Graph) -> Graph {
    let mut tops = Graph::new();
    for (m, deps) in g {
        let entry = tops.entry(top(m).to_string()).or_default();
        entry.extend(deps.iter().map(|d| top(d).to_string()).filter(|d| d != top(m)));
    }
    tops
}

/// The first import circle found by a depth-first search, as `a → b → a`.
pub fn circle(g: &Graph) -> Option<String> {
    fn visit<'a>(n: &'a str, g: &'a Graph, path: &mut Vec<&'a str>, done: &mut BTreeSet<&'a str>) -> Option<String> {
        if let Some(i) = path.iter().position(|p| *p == n) {
            return Some(format!("{} → {n}", path[i..].join(" → ")));
        }
        if !done.insert(n) {
            return None;
        }
        path.push(n);
        for d in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(d, g, path, done) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    g.keys().find_map(|n| visit(n, g, &mut Vec::new(), &mut done))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn imports_are_read_from_use_lines_groups_super_and_paths_in_code() {
        let text = "use crate::driver::{Channel, Reply};\nuse crate::{tls, LoadError};\nuse super::sse::Parser;\n\
                    fn f() { crate::io::connect(); let _ = crate::mismatch(); }\n// crate::worker in a comment\n\
                    #[cfg(test)]\nmod tests { use crate::worker; }";
        let got = imports("drivers::http1", text, &known(&["driver", "tls", "io", "worker", "drivers::sse"]));
        assert_eq!(got, known(&["driver", "tls", "lib", "drivers::sse", "io"]));
    }

    #[test]
    fn a_binarys_main_is_the_root_like_lib() {
        let dir = std::env::temp_dir().join(format!("wirebench-layers-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("main.rs"), "mod a;\nmod b;\nconst EXIT_OK: i32 = 0;\nfn main() { a::f(); }\n")
            .unwrap();
        std::fs::write(dir.join("a.rs"), "use crate::b::g;\npub fn f() { g(crate::EXIT_OK) }\n").unwrap();
        std::fs::write(dir.join("b.rs"), "pub fn g(_: i32) {}\n").unwrap();
        let g = graph(&dir, &["lib"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(g.keys().collect::<Vec<_>>(), ["a", "b"], "main.rs is the root, skipped as `lib`");
        assert_eq!(g["a"], known(&["b", "lib"]));
        assert_eq!(importers_of_root(&g), ["a"]);
    }

    #[test]
    fn a_circle_is_found_and_named() {
        let g: Graph = [("a", &["b"][..]), ("b", &["c"]), ("c", &["a"]), ("d", &[])]
            .iter()
            .map(|(m, d)| (m.to_string(), known(d)))
            .collect();
        assert_eq!(circle(&g).as_deref(), Some("a → b → c → a"));
        let mut g = g;
        g.get_mut("c").unwrap().clear();
        assert_eq!(circle(&g), None);
    }
}
