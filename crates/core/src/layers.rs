//! The crate's layering, read from its `use` lines and paths (`wirebench-layers`): no import
//! circle between its modules (a folder and its parent file, `suite/` and `suite.rs`, count as
//! one: a parent declares its children), and no module imports the crate root.

use std::path::Path;

use wirebench_layers::{by_folder, circle, graph, importers_of_root};

#[test]
fn modules_import_around_no_circle() {
    let g = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &["lib", "layers", "runner::tests"]);
    assert!(g["runner"].contains("supervisor") && g["build"].contains("suite"), "the reader sees imports: {g:?}");
    assert_eq!(importers_of_root(&g), Vec::<&str>::new(), "modules that import the crate root");
    assert_eq!(circle(&by_folder(&g)), None);
}
