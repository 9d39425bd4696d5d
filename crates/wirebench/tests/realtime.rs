//! The realtime lab end to end, as `make test` runs it: `wirebench run realtime --profile smoke`
//! with the real Express + Socket.IO app serving its page to headless Chromium, over HTTP, TLS
//! and HTTP/2, from a throttled client and against the app that writes to disk, and to headless
//! Firefox over HTTP, and the report's realtime section. Needs `make build`.

mod common;

#[test]
fn realtime_lab_smoke_runs_every_protocol_in_chromium_and_firefox() {
    common::assert_built(&["web/dist/realtime/index.html", "subjects/realtime/node/node_modules/socket.io"]);
    let (_results, html, rows) = common::run_smoke("realtime");

    let ids: Vec<&str> = rows.iter().map(|r| r["scenario"].as_str().unwrap()).collect();
    for verb in ["http-get", "http-post", "socketio-send", "socketio-receive", "ws-send", "ws-receive"] {
        for suffix in ["", "-tls", "-cpu4", "-disk", "-firefox"] {
            let id = format!("{verb}-n10{suffix}");
            assert_eq!(ids.iter().filter(|&&i| i == id).count(), 2, "{id}: two repeats");
        }
    }
    for id in ["http-get-parallel-n10", "socketio-send-connect-n1", "ws-receive-connect-n10", "http-post-h10-n10"] {
        assert!(ids.contains(&id), "{id} ran");
    }
    for r in &rows {
        let m = &r["metrics"];
        let n = r["params"]["n"].as_f64().unwrap();
        let (seconds, rate) = (m["duration_s"].as_f64().unwrap(), m["messages_per_s"].as_f64().unwrap());
        assert!(seconds > 0.0 && (rate * seconds - n).abs() < 1e-6 * n, "{}: {seconds} s, {rate}/s", r["scenario"]);
        let browser = if r["scenario"].as_str().unwrap().ends_with("-firefox") { "firefox@" } else { "chromium@" };
        assert!(r["params"]["runtime"].as_str().unwrap().starts_with(browser), "{r}");
    }
    // TLS over HTTP/1.1 is the `-tls` rows; the `-h2` rows (below) are TLS too.
    let tls: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["params"]["tls"] == true && r["params"]["http"] != "h2").collect();
    assert!(!tls.is_empty() && tls.iter().all(|r| r["scenario"].as_str().unwrap().ends_with("-tls")));
    assert!(rows.iter().any(|r| r["params"]["cpu_throttle"] == 4));
    // HTTP/2: only HTTP rows, over h2 (the page checked each row's requests in its warm-up).
    let h2: Vec<&serde_json::Value> = rows.iter().filter(|r| r["params"]["http"] == "h2").collect();
    for id in ["http-get-n10-h2", "http-post-parallel-n10-h2", "http-get-h10-n10-h2"] {
        assert!(h2.iter().any(|r| r["scenario"] == id), "{id} ran over h2");
    }
    assert!(h2
        .iter()
        .all(|r| r["params"]["protocol"] == "http" && r["protocol"] == "http2" && r["params"]["tls"] == true));
    assert!(rows.iter().filter(|r| r["params"]["http"] != "h2").all(|r| r["params"]["http"] == "http/1.1"));

    // Across a link: Chromium in the client namespace, the app in the server one. N sequential
    // GETs pay N round trips; a WebSocket's N messages on its open connection about one.
    let row = |id: &str| rows.iter().find(|r| r["scenario"] == id).unwrap_or_else(|| panic!("{id} ran"));
    for rtt in [20u32, 80] {
        let get = row(&format!("http-get-n10-rtt{rtt}"));
        let ws = row(&format!("ws-send-n10-rtt{rtt}"));
        assert_eq!(get["net"], format!("rtt={rtt}ms"), "{get}");
        let (g, w) = (get["metrics"]["duration_s"].as_f64().unwrap(), ws["metrics"]["duration_s"].as_f64().unwrap());
        assert!(g >= 10.0 * f64::from(rtt) / 1e3, "10 GETs across {rtt} ms took {g} s");
        assert!(w >= f64::from(rtt) / 1e3 && w < g, "10 WebSocket messages across {rtt} ms took {w} s (GETs {g} s)");
    }

    let report = std::fs::read_to_string(&html).unwrap();
    let section = &report[report.find(r#"<section id="realtime">"#).expect("a realtime section")..];
    for condition in ["cleartext", "TLS", "h2+TLS", "CPU ÷4", "disk", "20 ms", "80 ms", "Firefox"] {
        assert!(section.contains(&format!(r#"id="realtime-{condition}""#)), "a table for {condition}");
    }
    assert!(section.contains(r#"id="chart-realtime-by-n""#) && section.contains(r#"id="chart-realtime-conditions""#));
    assert!(html.with_file_name("realtime.csv").is_file());
}
