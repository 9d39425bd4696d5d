//! The crate's layering, read from its `use` lines and paths (`wirebench-layers`): no import
//! circle between its modules (a folder and its parent file, `suite/` and `suite.rs`, count as
//! one: a parent declares its children), and no module imports the crate root.

use std::path::Path;

use wirebench_layers::{by_folder, circle, graph};

#[test]
fn modules_import_around_no_circle() {
    let g = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &["lib", "layers", "runner::tests"]);
    assert!(g["runner"].contains("supervisor") && g["build"].contains("suite"), "the reader sees imports: {g:?}");
    let upward: Vec<&String> = g.iter().filter(|(_, deps)| deps.contains("lib")).map(|(m, _)| m).collect();
    assert!(upward.is_empty(), "modules that import the crate root: {upward:?}");
    assert_eq!(circle(&by_folder(&g)), None);
}
