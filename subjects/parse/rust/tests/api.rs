//! The API of `subjects/parse/README.md` against the Rust server, bad input included.

use std::collections::BTreeMap;

use parse_rust::drive::{Row, Servers};
use serde_json::{json, Value};

/// A server on a free port, on its own thread for the rest of the test process.
fn server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || actix_web::rt::System::new().block_on(parse_rust::server::serve(listener)));
    url
}

fn post(url: &str, body: Value) -> (u16, Value) {
    let r = reqwest::blocking::Client::new().post(format!("{url}/consume")).json(&body).send().unwrap();
    (r.status().as_u16(), r.json().unwrap())
}

#[test]
fn consumes_every_object_and_format_one_by_one_and_in_a_batch() {
    let url = server();
    for object in ["numeric", "dummy"] {
        for format in ["json", "bson"] {
            for batch in [false, true] {
                let (status, v) =
                    post(&url, json!({"provider": url, "object": object, "format": format, "n": 120, "batch": batch}));
                assert_eq!(status, 200, "{v}");
                assert_eq!((v["n"].as_u64(), v["parser"].as_str()), (Some(120), Some("rust")));
                assert_eq!(v["requests"].as_u64(), Some(if batch { 1 } else { 120 }));
                let (parse, total) = (v["parse_us"].as_f64().unwrap(), v["total_us"].as_f64().unwrap());
                assert!(parse > 0.0 && total >= parse, "{v}");
                assert!(v["bytes"].as_u64().unwrap() > 120 * 100);
            }
        }
    }
}

#[test]
fn provider_answers_with_cors_and_rejects_bad_queries() {
    let url = server();
    let r = reqwest::blocking::get(format!("{url}/objects/dummy?format=bson&count=3&start=99")).unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "application/bson");
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    for bad in ["/objects/users", "/objects/dummy?format=xml", "/objects/dummy?count=0", "/objects/dummy?count=100001"]
    {
        let r = reqwest::blocking::get(format!("{url}{bad}")).unwrap();
        assert_eq!(r.status().as_u16(), 400, "{bad}");
        assert_eq!(r.text().unwrap().lines().count(), 1, "{bad}");
    }
}

#[test]
fn malformed_objects_are_a_502_line_and_the_server_keeps_serving() {
    let url = server();
    for format in ["json", "bson"] {
        let bad = format!("{url}/bad");
        let (status, v) = post(&url, json!({"provider": bad, "object": "dummy", "format": format, "n": 3}));
        assert_eq!(status, 502, "{v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.starts_with(&format!("object 0: malformed {format}")), "{e}");
        assert!(!e.contains('\n'));
    }
    // A provider nobody listens on, and one that answers 400.
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let (status, v) =
        post(&url, json!({"provider": format!("http://{dead}"), "object": "dummy", "format": "json", "n": 1}));
    assert_eq!(status, 502, "{v}");
    assert!(v["error"].as_str().unwrap().starts_with("object 0: cannot fetch"), "{v}");
    for (body, want) in [
        (json!({"provider": url, "object": "x", "format": "json", "n": 1}), "unknown object `x`"),
        (json!({"provider": url, "object": "dummy", "format": "json", "n": 0}), "n must be 1..=100000"),
        (json!({"provider": url, "object": "dummy", "format": "bson", "n": 1, "parser": "raw"}), "parser `raw`"),
        (json!({"provider": url, "object": "dummy"}), "Json deserialize error"),
    ] {
        let (status, v) = post(&url, body);
        assert_eq!(status, 400, "{v}");
        assert!(v["error"].as_str().unwrap().starts_with(want), "{v}");
    }
    let (status, _) = post(&url, json!({"provider": url, "object": "numeric", "format": "bson", "n": 2}));
    assert_eq!(status, 200);
}

#[test]
fn the_driver_measures_one_row_with_cpu_and_io_split() {
    let url = server();
    let servers = Servers::new(BTreeMap::from([("rust".to_string(), url)]));
    let row =
        Row { parser: "rust".into(), provider: "rust".into(), object: "numeric", format: "bson", n: 200, batch: false };
    let m = servers.measure(&row).unwrap();
    assert_eq!(m.requests, Some(200));
    let (parse, total, io) = (m.extra["parse_us"], m.extra["total_us"], m.extra["io_us"]);
    assert!(parse > 0.0 && (parse + io - total).abs() < 1e-6, "{m:?}");
    assert!(m.rss_kb.unwrap() > 0);
    let line = parse_rust::drive::line("r", &row, "rust", 1, Ok(m));
    assert_eq!(line.scenario, "numeric-bson-rust-from-rust-200");
    assert!(line.format.is_none(), "parse rows stay out of the formats lab's tables");
}
