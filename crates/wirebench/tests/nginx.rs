//! `wirebench load` against a server no one here wrote: nginx from Debian, with its own config
//! written here. Two sites on one TLS port, each with a certificate of a CA made for the test and
//! its own body: the name in the URL must reach its site (SNI and Host) and its certificate must
//! verify against the CA, over HTTP/1.1 and HTTP/2; a location answers 403 unless a header is
//! present. Needs nginx (`make setup` installs nginx-light).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{certificates, start_server, wirebench, Server};

const SITE_A: &str = "site-a\n";
const SITE_B: &str = "the other site\n";
/// The body of the site that asks for a client certificate.
const MUTUAL: &str = "mutual TLS\n";
/// The size of the static file nginx serves at /big.
const BIG: usize = (1 << 20) + 7;

/// Fields drop in order: nginx is stopped before the next test may take its turn.
struct Nginx {
    child: Server,
    _turn: std::sync::MutexGuard<'static, ()>,
    port: u16,
    dir: tempfile::TempDir,
}

impl Nginx {
    fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// One test at a time: each loads this machine and times what it loads (a test beside it would
/// be foreign work to its runs, and slow the rows it compares).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn start() -> Nginx {
    let turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].into_iter().find(|p| Path::new(p).exists());
    let nginx = nginx.expect("nginx is not installed: run `make setup` (it installs nginx-light from Debian)");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    certificates(dir.path(), &["site-a.test", "site-b.test", "site-m.test"]);
    // A file of an odd size over 1 MiB: nginx's own flow control and framing carry it.
    let big: Vec<u8> = (0..BIG).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(dir.path().join("big.bin"), big).unwrap();
    let port = free_port();
    let site = |name: &str, body: &str, extra: &str| {
        format!(
            "server {{ listen 127.0.0.1:{port} ssl http2; server_name {name};
               ssl_certificate {d}/{name}.pem; ssl_certificate_key {d}/{name}.key;
               location / {{ default_type text/plain; return 200 '{body}'; }}
               {extra} }}\n",
            body = body.escape_default()
        )
    };
    let conf = format!(
        "daemon off; pid {d}/nginx.pid; error_log {d}/error.log;
         events {{}}
         http {{ access_log off;
           client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fastcgi;
           uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
           {a} {b} {m} }}\n",
        a = site(
            "site-a.test",
            SITE_A,
            &format!(
                "location /guarded {{ default_type text/plain; if ($http_x_token != 't') {{ return 403; }} return 200 'token'; }}
                 location = /big {{ alias {d}/big.bin; }}
                 location = /slow/big {{ alias {d}/big.bin; limit_rate 4m; }}"
            )
        ),
        b = site("site-b.test", SITE_B, ""),
        m = site("site-m.test", MUTUAL, &format!("ssl_verify_client on; ssl_client_certificate {d}/ca.pem;")),
    );
    std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
    let (conf, log) = (format!("{d}/nginx.conf"), format!("{d}/error.log"));
    let child = start_server("nginx", nginx, &["-p", &d, "-c", &conf, "-e", &log], port, Path::new(&log));
    Nginx { _turn: turn, child, port, dir }
}

/// `wirebench load https://NAME:PORT/PATH` reaching 127.0.0.1 by `--resolve`, with `extra`.
fn load(server: &Nginx, name: &str, path: &str, extra: &[&str]) -> Output {
    let port = server.port;
    let url = format!("https://{name}:{port}{path}");
    let resolve = format!("{name}:{port}:127.0.0.1");
    let mut args = vec!["load", url.as_str(), "--resolve", resolve.as_str(), "-c", "2", "-n", "40", "--json"];
    args.extend_from_slice(extra);
    wirebench(&args)
}

fn ok(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema = std::fs::read_to_string(common::workspace().join("schemas/load.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&serde_json::from_str(&schema).unwrap()).unwrap();
    assert!(validator.is_valid(&r), "the published schema holds `load --json`: {r}");
    assert_eq!((r["requests"].as_u64(), r["errors"].as_u64()), (Some(40), Some(0)), "{r}");
    r
}

fn one_line_error(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    stderr
}

#[test]
fn each_name_reaches_its_own_site_with_its_certificate_verified_over_h1_and_h2() {
    let server = start();
    let ca = server.ca().display().to_string();
    // Each site's body has its own length: an answer from the other site is an error.
    let (a, b) = (SITE_A.len().to_string(), SITE_B.len().to_string());
    for driver in ["http1", "http2"] {
        ok(&load(&server, "site-a.test", "/", &["--driver", driver, "--cacert", &ca, "--expect-bytes", &a]));
        ok(&load(&server, "site-b.test", "/", &["--driver", driver, "--cacert", &ca, "--expect-bytes", &b]));
    }
    // The system's roots do not know the test's CA: refused, in one line, unless told otherwise.
    let refused = one_line_error(&load(&server, "site-a.test", "/", &[]));
    assert!(refused.contains("UnknownIssuer") || refused.contains("certificate"), "{refused}");
    ok(&load(&server, "site-a.test", "/", &["--insecure", "--expect-bytes", &a]));
    // Was wirebench the bottleneck? The load again for a second, capped in every other slice:
    // a ratio inside its interval, or why there is none; a closed loop only.
    let asked = ok(&load(&server, "site-a.test", "/", &["--cacert", &ca, "--expect-bytes", &a, "--bottleneck"]));
    let probe = &asked["bottleneck"];
    match (probe["ratio"].as_f64(), probe["lo"].as_f64(), probe["hi"].as_f64()) {
        (Some(r), Some(lo), Some(hi)) => {
            assert!(0.0 < lo && lo <= r && r <= hi, "{probe}");
            assert_eq!(probe["instrument_bound"].as_bool(), Some(lo < wirebench_core::bottleneck::CLEAR), "{probe}");
        }
        _ => assert!(
            probe["error"].as_str().is_some_and(|e| !e.is_empty()) && probe["instrument_bound"] == true,
            "{probe}"
        ),
    }
    let open = one_line_error(&load(&server, "site-a.test", "/", &["--cacert", &ca, "--bottleneck", "--rate", "100"]));
    assert!(open.contains("--bottleneck asks a closed loop on this machine, not with --rate"), "{open}");
    // A name no site has gets nginx's first site and its certificate, made for another name:
    // refused, even with the CA.
    let mismatch = one_line_error(&load(&server, "site-c.test", "/", &["--cacert", &ca]));
    assert!(mismatch.contains("certificate not valid for name \"site-c.test\""), "{mismatch}");
    // A large static file, whole, over HTTP/1.1 and over HTTP/2 with 8 streams per connection
    // (nginx's windows, not hyper's, pace it).
    let big = BIG.to_string();
    ok(&load(&server, "site-a.test", "/big", &["--cacert", &ca, "--expect-bytes", &big]));
    ok(&load(
        &server,
        "site-a.test",
        "/big",
        &["--cacert", &ca, "--expect-bytes", &big, "--driver", "http2", "-m", "8"],
    ));
    // Mutual TLS: the site that asks for a client certificate answers 400 without one, and its
    // body with ours (`--cert`, `--key`), over HTTP/1.1 and HTTP/2.
    let m = MUTUAL.len().to_string();
    let refused = one_line_error(&load(&server, "site-m.test", "/", &["--cacert", &ca]));
    assert!(refused.contains("status 400"), "{refused}");
    let (cert, key) = (server.dir.path().join("client.pem"), server.dir.path().join("client.key"));
    let (cert, key) = (cert.display().to_string(), key.display().to_string());
    for driver in ["http1", "http2"] {
        let args = ["--cacert", &ca, "--cert", &cert, "--key", &key, "--driver", driver, "--expect-bytes", &m];
        ok(&load(&server, "site-m.test", "/", &args));
    }
    // The header reaches nginx: 403 without it, 200 with it.
    let denied = one_line_error(&load(&server, "site-a.test", "/guarded", &["--cacert", &ca]));
    assert!(denied.contains("status 403, expected 200"), "{denied}");
    ok(&load(
        &server,
        "site-a.test",
        "/guarded",
        &["--cacert", &ca, "-H", "X-Token: t", "--driver", "http2", "-m", "4"],
    ));
}

/// A suite of a few lines whose subject is nginx's URL: the runner starts nothing, verifies and
/// times the site by its name, judges its SLOs, and `--fail-on refuted` fails the run on the one
/// set to fail. Without the CA the row fails on the certificate, saying so.
#[test]
fn a_url_subject_is_measured_judged_and_gated_like_ours() {
    let server = start();
    let port = server.port;
    let suite = |ca: &str| {
        format!(
            r#"
[subjects.site]
url = "https://site-a.test:{port}"
connect_to = "127.0.0.1:{port}"
{ca}

[[scenarios]]
id = "home"
subject = "site"
driver = "http2"
tls = true
path = "/"
connections = 2
rate = 200.0
duration_s = 0.5
expect = {{ status = 200, body_bytes = {len} }}

[[claims]]
id = "home-p99"
kind = "slo"
text = "home answers within 10 s at p99"
metric = "p99_us"
numerator = "home"
op = "<"
threshold = 10000000.0

[[claims]]
id = "home-a-billion"
kind = "slo"
text = "home serves a billion requests per second"
metric = "rps"
numerator = "home"
op = ">"
threshold = 1000000000.0
"#,
            len = SITE_A.len()
        )
    };
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("suites")).unwrap();
    std::fs::copy(server.ca(), project.path().join("ca.pem")).unwrap();
    let run = |text: &str, extra: &[&str]| {
        std::fs::write(project.path().join("suites/api.toml"), text).unwrap();
        Command::new(env!("CARGO_BIN_EXE_wirebench"))
            .args(["run", "api", "--no-build", "--profile", "quick", "--out"])
            .arg(project.path().join("out"))
            .args(extra)
            .current_dir(project.path())
            .output()
            .unwrap()
    };
    // nginx runs on this machine: its pid makes its work the run's (sampled, and not foreign load).
    let with_pid = format!("ca = \"ca.pem\"\npid = {}", server.child.id());
    let out = run(&suite(&with_pid), &["--fail-on", "refuted"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{stderr}");
    assert!(stderr.contains("--fail-on: 1 claim(s): home-a-billion (refuted)"), "{stderr}");
    let html = String::from_utf8_lossy(&out.stdout).lines().last().unwrap().to_string();
    let results = Path::new(&html).parent().unwrap().to_path_buf();
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(results.join("measurements.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ok: Vec<&serde_json::Value> = lines.iter().filter(|m| m["status"] == "ok").collect();
    assert!(ok.len() >= 3, "{lines:?}");
    for m in &ok {
        assert_eq!(m["transport"], "h2+tls");
        assert!(m["metrics"]["cpu_s"].is_number(), "nginx sampled by the pid the suite gave: {m}");
        assert!(m["metrics"]["requests"].as_u64().unwrap() > 0);
        assert!(m["metrics"]["timeline"]["ok"].as_array().is_some_and(|t| !t.is_empty()), "{m}");
    }
    let claims = std::fs::read_to_string(results.join("claims.csv")).unwrap();
    assert!(claims.lines().any(|l| l.starts_with("home-p99,slo,") && l.contains(",confirmed,")), "{claims}");
    let timeline = std::fs::read_to_string(results.join("timeline.csv")).unwrap();
    assert!(timeline.starts_with("scenario,repeat,second,answers,errors,req_per_s,p99_us\nhome,"), "{timeline}");

    // The system's roots do not know the test's CA: the row fails on the certificate.
    let out = run(&suite(""), &[]);
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let html = String::from_utf8_lossy(&out.stdout).lines().last().unwrap().to_string();
    let results = Path::new(&html).parent().unwrap().to_path_buf();
    let lines = std::fs::read_to_string(results.join("measurements.jsonl")).unwrap();
    assert!(lines.contains("verification failed: TLS: invalid peer certificate"), "{lines}");
    // Without its pid, nothing of the server's side is measured, and the report says so.
    let summary = std::fs::read_to_string(results.join("summary.md")).unwrap();
    let said = format!("Servers wirebench did not start: site (https://site-a.test:{port})");
    assert!(summary.contains(&said), "{summary}");
}

/// `compare --fail-if slower` between runs of one URL subject: a run whose big file nginx sends
/// at 4 MB/s (the same row, made slower on purpose) fails the gate; a rerun of the first passes.
#[test]
fn compare_fails_if_nginx_was_made_slower_and_passes_a_rerun() {
    let server = start();
    let port = server.port;
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir(project.path().join("suites")).unwrap();
    std::fs::copy(server.ca(), project.path().join("ca.pem")).unwrap();
    let run = |path: &str| {
        let suite = format!(
            "[subjects.site]\nurl = \"https://site-a.test:{port}\"\nconnect_to = \"127.0.0.1:{port}\"\n\
             ca = \"ca.pem\"\npid = {pid}\n\n[[scenarios]]\nid = \"big\"\nsubject = \"site\"\ndriver = \"http1\"\n\
             tls = true\npath = \"{path}\"\nconnections = 2\nduration_s = 1.0\nexpect = {{ body_bytes = {BIG} }}\n",
            pid = server.child.id()
        );
        std::fs::write(project.path().join("suites/api.toml"), suite).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
            .args(["run", "api", "--no-build", "--profile", "quick", "--out"])
            .arg(project.path().join("out"))
            .current_dir(project.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let html = String::from_utf8_lossy(&out.stdout).lines().last().unwrap().to_string();
        Path::new(&html).parent().unwrap().display().to_string()
    };
    let (base, slowed, again) = (run("/big"), run("/slow/big"), run("/big"));
    let gate = |b: &str| wirebench(&["compare", &base, b, "--fail-if", "slower", "--tolerance", "25%"]);
    let out = gate(&slowed);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(6), "{text}");
    assert!(text.contains("  big: req/s B/A"), "{text}");
    let out = gate(&again);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
}
