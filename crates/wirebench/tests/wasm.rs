//! The wasm lab end to end, as `make test` runs it: `wirebench run wasm --profile smoke` with
//! native Rust and the page in headless Chromium (JavaScript, the study's wasm calls, wasm over
//! its own memory with and without SIMD, in a Web Worker and on the page's thread). Every row's
//! result was checked against the native reference before it was timed. Needs `make build`.

mod common;

#[test]
fn wasm_lab_smoke_verifies_and_times_every_kernel_in_chromium() {
    common::assert_built(&["web/dist/wasm/index.html", "target/release/wasm-kernels-native"]);
    if !common::workspace().join("web/pages/wasm/pkg/plain/wasm_kernels.js").exists() {
        // build-wasm.sh said why in one line; the rest of the project is tested without it.
        let target = std::process::Command::new("rustup").args(["target", "list", "--installed"]).output();
        let installed = target.map(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"));
        assert_ne!(
            installed.ok(),
            Some(true),
            "the wasm32 target is installed but the module is not built: run `make build`"
        );
        eprintln!("wasm lab: the wasm32 target cannot be installed here; its smoke run is skipped");
        return;
    }
    let (_results, html, rows) = common::run_smoke("wasm");
    let ids: Vec<&str> = rows.iter().map(|r| r["scenario"].as_str().unwrap()).collect();
    let mut expected = Vec::new();
    for filter in ["grayscale", "brightness", "contrast", "blur"] {
        for way in ["js", "wasm", "wasm-buffer", "wasm-simd-buffer", "native"] {
            expected.push(format!("{filter}-{way}"));
        }
    }
    for kernel in ["small", "large"] {
        expected.push(format!("{kernel}-native"));
        for way in ["js", "wasm-per-element", "wasm-buffer", "wasm-simd-buffer"] {
            expected.push(format!("{kernel}-{way}"));
            expected.push(format!("{kernel}-{way}-worker"));
        }
    }
    for id in &expected {
        assert_eq!(ids.iter().filter(|&&i| i == id).count(), 2, "{id}: two repeats");
    }
    assert_eq!(rows.len(), expected.len() * 2, "no other rows");

    // Every row recorded its result; each kernel's agrees across languages and ways (the page
    // and the native harness refused to time one that did not match reference.json).
    let reference: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(common::workspace().join("subjects/wasm/reference.json")).unwrap(),
    )
    .unwrap();
    for r in &rows {
        let kernel = r["params"]["kernel"].as_str().unwrap();
        let want = reference["smoke"]["results"][kernel].as_f64().unwrap();
        let got = r["metrics"]["result"].as_f64().unwrap();
        assert!((got - want).abs() <= 1e-9 * want.abs(), "{}: {got} vs {want}", r["scenario"]);
        assert!(r["metrics"]["duration_s"].as_f64().unwrap() > 0.0, "{}: timed", r["scenario"]);
    }
    // The buffer rows time their copies apart; the worker rows their round trip.
    let row = |id: &str| rows.iter().find(|r| r["scenario"] == id).unwrap();
    assert!(row("blur-wasm-buffer")["metrics"]["copy_out_ms"].is_number());
    assert!(row("small-wasm-simd-buffer-worker")["metrics"]["copy_in_ms"].is_number());
    assert!(row("large-js-worker")["metrics"]["roundtrip_ms"].is_number());
    assert_eq!(row("small-wasm-per-element-worker")["params"]["crossing"], "per-element");
    assert_eq!(row("grayscale-wasm")["params"]["crossing"], "copy-per-call");
    assert!(row("contrast-js")["params"]["runtime"].as_str().unwrap().starts_with("chromium@"));

    let report = std::fs::read_to_string(&html).unwrap();
    let section = &report[report.find(r#"<section id="wasm">"#).expect("a wasm section")..];
    for table in ["filters", "workers"] {
        assert!(section.contains(&format!(r#"id="{table}""#)), "the {table} table");
    }
    assert!(
        section.contains(r#"data-scenario="blur-wasm-simd-buffer""#) && section.contains(r#"id="chart-wasm-speedup""#)
    );
    assert!(html.with_file_name("wasm.csv").is_file());
    // Every claim of the suite was judged on the smoke rows: any verdict but "not judged" and
    // "not run" (a smoke row may well land within 5 % of a threshold: "no difference").
    let claims = std::fs::read_to_string(html.with_file_name("claims.csv")).unwrap();
    let root = common::workspace();
    let suite =
        wirebench_core::suite::Suite::load(&root.join("suites/wasm.toml"), &root, &wirebench_load::Registry).unwrap();
    assert_eq!(claims.lines().count(), 1 + suite.claims.len(), "{claims}");
    for line in claims.lines().skip(1) {
        use wirebench_core::claims::Verdict;
        let judged = Verdict::ALL.into_iter().filter(|v| !matches!(v, Verdict::NotJudged | Verdict::NotRun));
        assert!(judged.map(Verdict::as_str).any(|v| line.contains(&format!(",{v},"))), "judged: {line}");
    }
}
