//! Network conditions as a user meets them: `wirebench net check` measures the link it builds,
//! `wirebench load --net` sends verified load across one to this machine's loopback, and
//! neither leaves a namespace or a device behind, not even after SIGKILL. Needs root (as CI and
//! `make test` run) and the release subject (`make build`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

mod common;

use common::{json, rest_subject, wait_for, wirebench, workspace, Server};

const WIREBENCH: &str = env!("CARGO_BIN_EXE_wirebench");

fn own_namespace() -> u64 {
    let t = std::fs::read_link("/proc/self/ns/net").unwrap();
    t.to_string_lossy().trim_start_matches("net:[").trim_end_matches(']').parse().unwrap()
}

#[test]
fn net_check_observes_the_round_trip_and_loss_it_was_given() {
    let r = json(&wirebench(&[
        "net",
        "check",
        "--rtt",
        "10ms",
        "--loss",
        "3%",
        "--probes",
        "60",
        "--packets",
        "5000",
        "--json",
    ]));
    let median = r["rtt"]["median_ms"].as_f64().unwrap();
    assert!((median - 10.0).abs() < 1.0, "median round trip {median} ms for a 10 ms link");
    for dir in ["loss_up", "loss_down"] {
        let (sent, received) = (r[dir]["sent"].as_u64().unwrap(), r[dir]["received"].as_u64().unwrap());
        // 4.4 standard errors around the observed share: wrong once in 100,000 runs.
        let (low, high) = wirebench_link::wilson(sent - received, sent, 4.42);
        assert!((low..=high).contains(&0.03), "{dir}: {} of {sent} lost", sent - received);
    }
    assert!(r["forwarder_cpu_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn load_crosses_a_link_to_loopback_verified_and_a_round_trip_slower() {
    let (subject, port) = rest_subject();
    let url = format!("http://127.0.0.1:{port}/payload/1024");
    let out = wirebench(&[
        "load",
        &url,
        "--net",
        "rtt=20ms,loss=2%",
        "-c",
        "4",
        "-n",
        "400",
        "--expect-bytes",
        "1024",
        "--json",
    ]);
    drop(subject);
    let r = json(&out);
    assert_eq!((r["requests"].as_u64(), r["errors"].as_u64()), (Some(400), Some(0)), "{r}");
    assert!(r["bytes_received"].as_u64().unwrap() >= 400 * 1024);
    let p50 = r["latency_us"]["p50"].as_u64().unwrap();
    assert!(p50 >= 20_000, "p50 {p50} µs across a 20 ms link");
    let net = &r["net"];
    assert_eq!(net["link"], "rtt=20ms,loss=2%");
    let lost = net["up"]["lost"].as_u64().unwrap() + net["down"]["lost"].as_u64().unwrap();
    assert!(lost > 0 && net["up"]["packets"].as_u64().unwrap() > 400, "{net}");
}

/// `--reconnect` puts each request on a new connection: across 20 ms, a cleartext request takes
/// two round trips (TCP's handshake, then the request) and one over TLS 1.3 three.
#[test]
fn a_new_connection_per_request_pays_its_handshakes_in_round_trips() {
    let bin = workspace().join("target/release/protocols-rust");
    // Both held until both are picked: a port freed at once may be handed out again, and the
    // subject then fails to bind its second port after its first one already answered.
    let (a, b) =
        (std::net::TcpListener::bind("127.0.0.1:0").unwrap(), std::net::TcpListener::bind("127.0.0.1:0").unwrap());
    let (port, tls) = (a.local_addr().unwrap().port(), b.local_addr().unwrap().port());
    drop((a, b));
    let subject = Server::spawn(
        Command::new(bin).args(["--port", &port.to_string(), "--tls-port", &tls.to_string()]).stderr(Stdio::null()),
    );
    let listening = |p: u16| std::net::TcpStream::connect(("127.0.0.1", p)).is_ok();
    wait_for("the REST subject to listen", 30, || listening(tls) && listening(port));
    let p50 = |url: &str| {
        let out = wirebench(&[
            "load",
            url,
            "--reconnect",
            "--net",
            "rtt=20ms",
            "-c",
            "2",
            "-n",
            "40",
            "--expect-bytes",
            "1024",
            "--json",
            // The subject's certificate is made at its start: no CA knows it.
            "--insecure",
        ]);
        let r = json(&out);
        assert_eq!((r["requests"].as_u64(), r["errors"].as_u64()), (Some(40), Some(0)), "{r}");
        r["latency_us"]["p50"].as_u64().unwrap()
    };
    let plain = p50(&format!("http://127.0.0.1:{port}/payload/1024"));
    let secure = p50(&format!("https://127.0.0.1:{tls}/payload/1024"));
    drop(subject);
    // Lower bounds only: a link cannot be beaten, while a busy machine can add time to anything.
    assert!(plain >= 40_000, "a new cleartext connection's request took {plain} µs, under 2 round trips");
    assert!(secure >= 60_000, "a new TLS 1.3 connection's request took {secure} µs, under 3 round trips");
    assert!(plain < secure, "TLS's handshake cost nothing: {plain} against {secure} µs");
}

#[test]
fn bad_link_settings_are_one_line() {
    for (args, want) in [
        (&["net", "check", "--rtt", "fast"][..], "is not a duration"),
        (&["net", "check", "--loss", "200%"], "outside [0, 1)"),
        (&["load", "http://localhost:1/", "--net", "rtt=5ms"], "must be an IPv4 loopback address"),
        (
            &["load", "http://127.0.0.1:1/", "--reconnect", "-m", "4"],
            "--reconnect: a new connection per request needs -m",
        ),
    ] {
        let out = wirebench(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(want), "{stderr}");
    }
    // clap reads --net with the same parser and refuses it as clap refuses any bad value.
    let out = wirebench(&["load", "http://127.0.0.1:1/", "--net", "delay=5ms"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown key `delay`"));
}

/// SIGKILL mid-measurement: the namespaces the run made, and the device a `--net` load put in
/// this machine's namespace, go with it; there is nothing for a next start to clean.
#[test]
fn sigkill_leaves_no_namespace_and_no_device() {
    let mine = own_namespace();
    let mut check = Command::new(WIREBENCH)
        .args(["net", "check", "--rtt", "200ms", "--probes", "100000"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut made = BTreeSet::new();
    wait_for("the check's namespaces to exist", 30, || {
        made = wirebench_link::held_namespaces(Some(check.id())).into_iter().filter(|&n| n != mine).collect();
        made.len() == 2
    });
    check.kill().unwrap();
    check.wait().unwrap();
    wait_for("the killed check's namespaces to go", 10, || wirebench_link::held_namespaces(None).is_disjoint(&made));

    let (subject, port) = rest_subject();
    let url = format!("http://127.0.0.1:{port}/payload/1024");
    let mut load = Command::new(WIREBENCH)
        .args(["load", &url, "--net", "rtt=50ms", "-d", "60", "-c", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let device = Path::new("/sys/class/net").join(format!("wb{}", load.id()));
    wait_for("the load's device to exist", 30, || device.exists());
    load.kill().unwrap();
    load.wait().unwrap();
    wait_for("the killed load's device to go", 10, || !device.exists());
    drop(subject);
}
