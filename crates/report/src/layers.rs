//! The crate's layering, read from its `use` lines and paths (`wirebench-layers`): no two modules
//! import each other, directly or around a circle (a folder counts as one module); no module
//! imports the crate root, which holds the pipeline and re-exports; the outputs (`render/`) and
//! the charts import no lab; and no lab imports another.

use std::path::Path;

use wirebench_layers::{by_folder, circle, graph, importers_of_root, top, Graph};

fn modules() -> Graph {
    graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &["lib", "fixture", "golden", "layers"])
}

#[test]
fn the_crate_has_no_import_circle() {
    let g = modules();
    assert!(g.contains_key("labs::parse") && g["labs::parse"].contains("section"), "the reader sees imports: {g:?}");
    assert_eq!(circle(&by_folder(&g)), None);
}

#[test]
fn no_module_imports_the_crate_root() {
    assert_eq!(importers_of_root(&modules()), Vec::<&str>::new(), "modules that import the crate root");
}

#[test]
fn outputs_and_charts_know_no_lab_and_labs_know_no_other_lab() {
    for (m, deps) in modules() {
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
