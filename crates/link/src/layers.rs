//! The crate's layering, read from its `use` lines and paths (`wirebench-layers`): no import
//! circle between its modules, and no module imports the crate root, which only re-exports.

use std::path::Path;

use wirebench_layers::{circle, graph, importers_of_root};

#[test]
fn modules_import_downward_only_and_around_no_circle() {
    let g = graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &["lib", "layers"]);
    assert!(g["link"].contains("shaper") && g["check"].contains("link"), "the reader sees imports: {g:?}");
    assert_eq!(importers_of_root(&g), Vec::<&str>::new(), "modules that import the crate root");
    assert_eq!(circle(&g), None);
}
