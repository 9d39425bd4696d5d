//! What the end-to-end tests of both binaries share: starting a server and waiting for its
//! `GET /health`, killing it if a test fails, and plain HTTP/1.1 requests.
#![allow(dead_code)] // each test crate uses a part

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub const STARTUP_LIMIT: Duration = Duration::from_secs(20);
pub const POLL_INTERVAL: Duration = Duration::from_millis(20);
pub const IO_TIMEOUT: Duration = Duration::from_secs(5);

/// Kills the server if a test fails before it has been stopped.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Two distinct free ports: both held until both are picked, since a port freed at once may be
/// handed out again (the subject then fails to bind its second port).
pub fn two_free_ports() -> (u16, u16) {
    let (a, b) = (TcpListener::bind("127.0.0.1:0").unwrap(), TcpListener::bind("127.0.0.1:0").unwrap());
    (a.local_addr().unwrap().port(), b.local_addr().unwrap().port())
}

pub fn command(bin: &str, args: &[&str]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args).env_remove("PORT").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    cmd
}

pub fn wait_with_timeout(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(POLL_INTERVAL);
    }
}

pub fn stderr_of(child: &mut Child) -> String {
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    err
}

/// Sends one hand-written HTTP/1.1 request and returns the whole raw response.
pub fn http_get(addr: SocketAddr, path: &str) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect_timeout(&addr, IO_TIMEOUT)?;
    stream.set_read_timeout(Some(IO_TIMEOUT))?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n", addr.port())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    Ok(response)
}

/// Starts `bin` with `args` and waits until `GET /health` on `port` answers 200.
pub fn start(bin: &str, args: &[&str], port: u16) -> Server {
    let mut server = Server(command(bin, args).spawn().unwrap());
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = Instant::now() + STARTUP_LIMIT;
    loop {
        if let Ok(response) = http_get(addr, "/health") {
            if response.starts_with(b"HTTP/1.1 200") {
                return server;
            }
        }
        if let Some(status) = server.0.try_wait().unwrap() {
            panic!("server exited early ({status}): {}", stderr_of(&mut server.0));
        }
        assert!(Instant::now() < deadline, "server did not answer /health within {STARTUP_LIMIT:?}");
        std::thread::sleep(POLL_INTERVAL);
    }
}

/// `bin` with `args` must fail at once (it is killed if it keeps running) with one line on
/// stderr: its exit code and that line.
pub fn one_line_failure(bin: &str, args: &[&str]) -> (Option<i32>, String) {
    let mut server = Server(command(bin, args).spawn().unwrap());
    let status = wait_with_timeout(&mut server.0, STARTUP_LIMIT)
        .unwrap_or_else(|| panic!("{bin} {args:?} kept running instead of failing"));
    assert!(!status.success());
    let err = stderr_of(&mut server.0);
    assert_eq!(err.lines().count(), 1, "stderr: {err:?}");
    (status.code(), err)
}

/// `bin` with `args` must exit 1 at once with one line naming the taken `port`.
pub fn assert_bind_failure(bin: &str, args: &[&str], port: u16) {
    let (code, err) = one_line_failure(bin, args);
    assert_eq!(code, Some(1), "stderr: {err:?}");
    let name = std::path::Path::new(bin).file_name().unwrap().to_string_lossy();
    let prefix = format!("{name}: cannot bind 127.0.0.1:{port}: ");
    assert!(err.starts_with(&prefix), "stderr: {err:?}");
    assert!(err.contains("os error"), "stderr: {err:?}");
}

/// A taken cleartext port, then a taken TLS port, each fail `bin` with one line.
pub fn assert_taken_ports_fail(bin: &str) {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    assert_bind_failure(bin, &["--port", &port.to_string()], port);
    let free = free_port().to_string();
    assert_bind_failure(bin, &["--port", &free, "--tls-port", &port.to_string()], port);
}
