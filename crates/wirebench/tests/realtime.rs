//! The realtime lab end to end, as `make test` runs it: `wirebench run realtime --profile smoke`
//! with the real Express + Socket.IO app serving its page to headless Chromium, over HTTP and
//! TLS, from a throttled client and against the app that writes to disk. Needs `make build`.

mod common;

#[test]
fn realtime_lab_smoke_runs_every_protocol_in_chromium() {
    common::assert_built(&["web/dist/realtime/index.html", "subjects/realtime/node/node_modules/socket.io"]);
    let (_results, _, rows) = common::run_smoke("realtime");

    let ids: Vec<&str> = rows.iter().map(|r| r["scenario"].as_str().unwrap()).collect();
    for verb in ["http-get", "http-post", "socketio-send", "socketio-receive", "ws-send", "ws-receive"] {
        for suffix in ["", "-tls", "-cpu4", "-disk"] {
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
        assert!(r["params"]["runtime"].as_str().unwrap().starts_with("chromium@"));
    }
    let tls: Vec<&serde_json::Value> = rows.iter().filter(|r| r["params"]["tls"] == true).collect();
    assert!(!tls.is_empty() && tls.iter().all(|r| r["scenario"].as_str().unwrap().ends_with("-tls")));
    assert!(rows.iter().any(|r| r["params"]["cpu_throttle"] == 4));
}
