//! The REST service study end to end, as `make test` runs it: `wirebench run restcache --profile
//! smoke` of the mixed group G4 (G1 to G3's steps in turn, each verified before timing) on every
//! implementation (Go, Java on Jetty and on Tomcat, Rust) and store (SQLite in the run's directory,
//! PostgreSQL started as a service). The contract itself: subjects/restcache/contract. Needs
//! `make build`.

mod common;

#[test]
fn restcache_smoke_runs_the_mixed_thread_group_on_every_implementation_and_store() {
    common::assert_built(&[
        "target/release/restcache-rust",
        "subjects/restcache/go/bin/restcache-go",
        "subjects/restcache/java/target/restcache-jetty.jar",
        "subjects/restcache/java/target/restcache-tomcat.jar",
    ]);
    let (_results, html, rows) = common::run_smoke_only("restcache", "g4-u100-*");
    let mut subjects: Vec<&str> = rows.iter().map(|r| r["subject"].as_str().unwrap()).collect();
    subjects.sort();
    let mut expected = vec![];
    for implementation in ["go", "jetty", "rust", "tomcat"] {
        for store in ["postgres", "sqlite"] {
            expected.push(format!("restcache-{implementation}-{store}"));
        }
    }
    assert_eq!(subjects, expected, "one row per implementation and store");
    for r in &rows {
        let id = r["scenario"].as_str().unwrap();
        let m = &r["metrics"];
        assert!(m["iterations"].as_u64().unwrap() > 0 && m["iterations_per_s"].as_f64().unwrap() > 0.0, "{id}");
        assert_eq!(m["errors"], 0, "{id}");
        let steps = m["steps"].as_array().unwrap();
        let labels: Vec<&str> = steps.iter().map(|s| s["label"].as_str().unwrap()).collect();
        assert_eq!(labels.len(), 14, "{id}: G1's five steps, G2's four, G3's five: {labels:?}");
        assert!(labels.contains(&"g3: create") && labels.contains(&"g1: list"), "{id}: {labels:?}");
        let total: u64 = steps.iter().map(|s| s["requests"].as_u64().unwrap()).sum();
        assert_eq!(total, m["requests"].as_u64().unwrap(), "{id}: the steps add up to the row");
        assert!(steps.iter().all(|s| s["requests"].as_u64().unwrap() > 0), "{id}: every step ran");
        // PostgreSQL's processes are charged to its rows, apart from the service's own.
        let postgres = id.ends_with("-postgres");
        assert_eq!(m["service_cpu_s"].is_number(), postgres, "{id}");
        assert!(m["rss_kb"].as_u64().unwrap() > 0, "{id}");
    }
    let run_dir = html.parent().unwrap();
    assert!(run_dir.join("subject-restcache-go-sqlite/restcache.db").exists(), "SQLite files live in the run");
    assert!(run_dir.join("service-postgres/data/PG_VERSION").exists(), "PostgreSQL's cluster lives in the run");
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.contains("g3: create"), "the report shows each step");
}
