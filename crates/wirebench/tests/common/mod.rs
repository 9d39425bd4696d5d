//! What the labs' end-to-end tests share: run a suite's smoke profile as a user would, and read
//! back what it wrote. Each test binary uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// `wirebench ARGS` from the project's root, its output.
pub fn wirebench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(args)
        .current_dir(workspace())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The JSON a successful command printed.
pub fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Waits until `done`, failing the test after `secs` seconds.
pub fn wait_for(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {secs} s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A server a test started, killed with every process it started and reaped when the test
/// ends, whichever way it ends (a panicking test would otherwise leave it serving after the test
/// binary exits). It runs in a process group of its own: nginx's and Apache's workers outlived a
/// SIGKILL of their master alone, 40 of them after a day of test runs.
pub struct Server(Child);

impl Server {
    pub fn spawn(command: &mut Command) -> Server {
        use std::os::unix::process::CommandExt;
        Server(command.process_group(0).spawn().unwrap())
    }

    pub fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // SAFETY: a plain syscall; the group is the child's own (`process_group(0)`), alive
        // or a zombie until the wait below, so its id cannot have been reused.
        unsafe { libc::kill(-(self.0.id() as libc::pid_t), libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

/// The protocols suite's REST subject on a free port of this machine's loopback, ready.
pub fn rest_subject() -> (Server, u16) {
    let bin = workspace().join("target/release/protocols-rust");
    assert!(bin.exists(), "{} is missing: run `make build` (make test does) first", bin.display());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Server::spawn(Command::new(bin).args(["--port", &port.to_string()]).stderr(Stdio::null()));
    wait_for("the REST subject to listen", 30, || std::net::TcpStream::connect(("127.0.0.1", port)).is_ok());
    (child, port)
}

/// Fails with what to do when a build output the suite needs is missing.
pub fn assert_built(paths: &[&str]) {
    for built in paths {
        assert!(workspace().join(built).exists(), "{built} is missing: run `make build` (make test does) first");
    }
}

/// `wirebench run <suite> --profile smoke --no-build`: the results' directory (removed when
/// dropped), the report's path and every measurement line, after checking that every row was
/// measured and the run exited 0.
pub fn run_smoke(suite: &str) -> (tempfile::TempDir, PathBuf, Vec<serde_json::Value>) {
    run_smoke_only(suite, "*")
}

/// `run_smoke` of the rows whose id matches `only` (`--only`).
pub fn run_smoke_only(suite: &str, only: &str) -> (tempfile::TempDir, PathBuf, Vec<serde_json::Value>) {
    let out_base = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(["run", suite, "--profile", "smoke", "--no-build", "--only", only])
        .args(["--out", out_base.path().to_str().unwrap()])
        .current_dir(workspace())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let html = PathBuf::from(stdout.lines().last().unwrap_or_default());
    let all: Vec<serde_json::Value> = std::fs::read_to_string(html.parent().unwrap().join("measurements.jsonl"))
        .unwrap_or_else(|e| panic!("{suite}: no measurements ({e}): {}", String::from_utf8_lossy(&out.stderr)))
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .collect();
    let rows = last_tries(&all);
    let failed: Vec<String> =
        rows.iter().filter(|r| r["status"] != "ok").map(|r| format!("{}: {}", r["scenario"], r["error"])).collect();
    assert!(failed.is_empty(), "every row measured: {failed:#?}");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (out_base, html, rows)
}

/// The lines of `measurements.jsonl` that stand for their repeats, in the run's order. A
/// contended repeat was measured again (tests running beside this one are foreign work to its
/// run): the later line stands for it. A repeat contended on every try keeps its last, flagged.
pub fn last_tries(all: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let again = |i: usize, m: &serde_json::Value| all[i + 1..].iter().any(|n| same_repeat(m, n));
    all.iter()
        .enumerate()
        .filter(|&(i, m)| !(m["metrics"]["contended"] == true && again(i, m)))
        .map(|(_, m)| m.clone())
        .collect()
}

/// Two lines of `measurements.jsonl` are tries of the same repeat of the same row.
pub fn same_repeat(m: &serde_json::Value, n: &serde_json::Value) -> bool {
    n["scenario"] == m["scenario"] && n["repeat"] == m["repeat"]
}

/// A CA (`ca.pem`), a certificate and key it signs for each of `names` (`<name>.pem`,
/// `<name>.key`) and a client certificate (`client.pem`, `client.key`), as PEM files in `dir`:
/// for servers no one here wrote (nginx, Apache httpd).
pub fn certificates(dir: &Path, names: &[&str]) {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(rcgen::DnType::CommonName, "wirebench test CA");
    let ca_key = KeyPair::generate().unwrap();
    std::fs::write(dir.join("ca.pem"), ca.self_signed(&ca_key).unwrap().pem()).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    // A client certificate of the same CA, for the site that asks for one.
    let key = KeyPair::generate().unwrap();
    let mut client = CertificateParams::new(Vec::<String>::new()).unwrap();
    client.distinguished_name.push(rcgen::DnType::CommonName, "wirebench test client");
    client.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    std::fs::write(dir.join("client.pem"), client.signed_by(&key, &issuer).unwrap().pem()).unwrap();
    std::fs::write(dir.join("client.key"), key.serialize_pem()).unwrap();
    for name in names {
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(vec![name.to_string()]).unwrap().signed_by(&key, &issuer).unwrap();
        std::fs::write(dir.join(format!("{name}.pem")), cert.pem()).unwrap();
        std::fs::write(dir.join(format!("{name}.key")), key.serialize_pem()).unwrap();
    }
}

/// Starts `program` with `args` (a server no one here wrote, in the foreground) and waits until
/// it listens on `port`; if it exits first, panics with its `log` file.
pub fn start_server(what: &str, program: &str, args: &[&str], port: u16, log: &Path) -> Server {
    let mut child = Server::spawn(
        Command::new(program).args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()),
    );
    wait_for(&format!("{what} to listen"), 30, || {
        if let Ok(Some(status)) = child.0.try_wait() {
            panic!("{what} exited ({status}): {}", std::fs::read_to_string(log).unwrap_or_default());
        }
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    child
}
