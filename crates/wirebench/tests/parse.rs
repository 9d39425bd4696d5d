//! The parse lab end to end, as `make test` runs it: `wirebench run parse --profile smoke` with
//! the real Java and Rust servers, the page in headless Chromium and the Node row. Needs
//! `make build` (the Java jar, web/dist and web/dist-node, the release binaries).

mod common;

#[test]
fn parse_lab_smoke_runs_both_servers_the_browser_page_and_node() {
    common::assert_built(&[
        "target/release/parse-rust",
        "target/release/parse-drive",
        "target/unoptimized/parse-rust",
        "subjects/parse/java/target/parse-java.jar",
        "web/dist/parse/index.html",
        "web/dist-node/parse-node.js",
    ]);
    let (_results, html, rows) = common::run_smoke("parse");
    let dir = html.parent().unwrap();

    let ids: Vec<&str> = rows.iter().map(|r| r["scenario"].as_str().unwrap()).collect();
    // The study's 16 server scenarios and the lazy Java parser on BSON, one object per request.
    for parser in ["rust", "java", "java-raw"] {
        for provider in ["rust", "java"] {
            for object in ["numeric", "dummy"] {
                for format in ["json", "bson"] {
                    if parser == "java-raw" && format == "json" {
                        continue;
                    }
                    let id = format!("{object}-{format}-{parser}-from-{provider}-50");
                    assert!(ids.contains(&id.as_str()), "{id} ran");
                    assert!(ids.contains(&format!("{id}-batch").as_str()), "{id}-batch ran");
                }
            }
        }
    }
    // The study's 8 browser scenarios, and the same in Node.
    for runtime in ["browser", "node"] {
        let mine: Vec<&serde_json::Value> = rows.iter().filter(|r| r["params"]["parser"] == runtime).collect();
        assert_eq!(mine.len(), 8, "{runtime}: 2 objects x 2 formats x 2 providers");
        let version = mine[0]["params"]["runtime"].as_str().unwrap();
        assert!(version.starts_with(if runtime == "browser" { "chromium@" } else { "node@" }), "{version}");
    }
    for r in rows.iter().filter(|r| r["params"]["parser"].is_string()) {
        let m = &r["metrics"];
        let (parse, total) = (m["parse_us"].as_f64().unwrap(), m["total_us"].as_f64().unwrap());
        assert!(parse > 0.0 && total >= parse, "{}: parse {parse} total {total}", r["scenario"]);
        assert!(m["size_bytes"].as_u64().unwrap() > 50 * 100, "{}", r["scenario"]);
    }
    // The study's ab check: three builds, two formats, at 1 and 32 connections, with req/s.
    let ab: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["scenario"].as_str().unwrap().starts_with("objects-")).collect();
    assert_eq!(ab.len(), 12);
    assert!(ab.iter().all(|r| r["metrics"]["rps"].as_f64().unwrap() > 0.0));

    let report = std::fs::read_to_string(&html).unwrap();
    assert!(report.contains(r#"id="parse""#), "the report has the parse lab's section");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("dummy-bson-java-raw-from-rust-50"), "the summary lists the parse rows");
}
