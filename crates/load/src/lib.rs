//! wirebench-load: the load engine. Drivers (one per protocol, registered in `DRIVERS`) open
//! connections; one worker loop (`worker`) drives them under a stop condition and an optional
//! rate; `LoadEngine` plugs the engine into the runner, verifying answers before timing them.

pub mod driver;
pub mod drivers;
pub mod io;
mod script;
pub mod tls;
pub mod worker;

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use bytes::Bytes;
use sha2::{Digest, Sha256};

use driver::{Driver, RequestSpec};
use wirebench_core::runner::{Executor, LoadResult, Plan, Target};
use wirebench_core::suite::{Expect, Scenario};

/// Makes a driver; each load thread makes its own.
pub type Constructor = fn() -> Box<dyn Driver>;

/// A registered driver.
pub struct DriverInfo {
    /// The suite's `driver`, the CLI's `--driver` and the report's protocol column.
    pub id: &'static str,
    pub help: &'static str,
    /// The status a right answer has: HTTP's 200, gRPC's OK (0), WebSocket's upgrade (101).
    /// `wirebench load` expects it unless told otherwise; suites state theirs.
    pub ok_status: u16,
    /// Its transport label over cleartext, recorded with each row (`h1`, `h2c`, `grpc`) and the
    /// report's transport column ...
    pub transport: &'static str,
    /// ... and over TLS (`h1+tls`, `h2+tls`, `grpc+tls`).
    pub transport_tls: &'static str,
    pub new: Constructor,
}

impl DriverInfo {
    /// Its transport label with or without TLS.
    pub fn transport_label(&self, tls: bool) -> &'static str {
        if tls {
            self.transport_tls
        } else {
            self.transport
        }
    }
}

/// Every driver, by id.
pub const DRIVERS: &[DriverInfo] = &[
    DriverInfo {
        id: "http1",
        help: "HTTP/1.1 over TCP, or TLS with ALPN http/1.1",
        ok_status: 200,
        transport: "h1",
        transport_tls: "h1+tls",
        new: drivers::http1::new,
    },
    DriverInfo {
        id: "http2",
        help: "HTTP/2: h2c with prior knowledge, or TLS with ALPN h2",
        ok_status: 200,
        transport: "h2c",
        transport_tls: "h2+tls",
        new: drivers::http2::new,
    },
    DriverInfo {
        id: "http3",
        help: "HTTP/3 over QUIC (TLS 1.3, ALPN h3): an https:// URL naming the server's UDP port",
        ok_status: 200,
        transport: "http3",
        transport_tls: "http3+tls",
        new: drivers::http3::new,
    },
    DriverInfo {
        id: "grpc",
        help: "gRPC over HTTP/2 (h2c or TLS): unary, server, client and bidi streaming calls",
        ok_status: 0,
        transport: "grpc",
        transport_tls: "grpc+tls",
        new: drivers::grpc::new,
    },
    DriverInfo {
        id: "mqtt",
        help: "MQTT 3.1.1 through a broker: publish the body, wait for a responder's echo (QoS 1 or 0)",
        ok_status: 0,
        transport: "mqtt",
        transport_tls: "mqtt+tls",
        new: drivers::mqtt::new,
    },
    DriverInfo {
        id: "sse",
        help: "Server-Sent Events over HTTP/1.1 (or TLS): a GET whose answer is an event stream",
        ok_status: 200,
        transport: "sse",
        transport_tls: "sse+tls",
        new: drivers::sse::new,
    },
    DriverInfo {
        id: "websocket",
        help: "WebSocket (ws:// or wss://): a text request, one or more frames back, per exchange",
        ok_status: 101,
        transport: "websocket",
        transport_tls: "websocket+tls",
        new: drivers::websocket::new,
    },
];

/// Driver ids, for suite checking and help text.
pub fn driver_ids() -> Vec<&'static str> {
    DRIVERS.iter().map(|d| d.id).collect()
}

pub fn driver_info(id: &str) -> Result<&'static DriverInfo, LoadError> {
    DRIVERS
        .iter()
        .find(|d| d.id == id)
        .ok_or_else(|| LoadError::Unsupported(format!("unknown driver `{id}`; known: {}", driver_ids().join(", "))))
}

pub fn driver(id: &str) -> Result<Constructor, LoadError> {
    driver_info(id).map(|d| d.new)
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot connect: {0}")]
    Connect(std::io::Error),
    #[error("I/O: {0}")]
    Io(std::io::Error),
    #[error("TLS: {0}")]
    Tls(String),
    #[error("{0}")]
    Protocol(String),
    #[error("{0}")]
    Unsupported(String),
}

/// The request a scenario sends. The body is `body` as text, the bytes of `body_file` (relative
/// to the working directory, the project root) or `body_bytes` of filler.
pub fn request_of(s: &Scenario, target: &Target) -> Result<RequestSpec, LoadError> {
    let headers: Vec<(String, String)> = s.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let body = match (&s.body, &s.body_file, s.body_bytes) {
        (Some(text), _, _) => Bytes::from(text.clone()),
        (None, Some(file), _) => std::fs::read(file)
            .map_err(|e| LoadError::Unsupported(format!("body_file `{file}`: cannot read: {e}")))?
            .into(),
        (None, None, n) => n.map(filler).unwrap_or_default(),
    };
    Ok(RequestSpec {
        method: s.method.clone(),
        path: s.path.clone(),
        authority: format!("{}:{}", target.host, target.port),
        headers,
        body,
        params: s.params.clone(),
    })
}

/// A deterministic request body of `n` bytes.
pub fn filler(n: usize) -> Bytes {
    b"wirebench-payload-".iter().copied().cycle().take(n).collect::<Vec<u8>>().into()
}

/// The load engine as the runner's executor.
pub struct LoadEngine {
    /// Load threads (one single-threaded runtime each); default: the CPUs this process may use.
    pub threads: usize,
}

impl Executor for LoadEngine {
    fn verify(&self, s: &Scenario, target: &Target) -> Result<(), String> {
        verify(driver(&s.driver).map_err(|e| e.to_string())?, s, target).map_err(|e| e.to_string())
    }

    /// From the registry: the driver's `transport` or `transport_tls`.
    fn transport(&self, s: &Scenario) -> String {
        match driver_info(&s.driver) {
            Ok(d) => d.transport_label(s.tls).to_string(),
            Err(_) if s.tls => format!("{}+tls", s.driver),
            Err(_) => s.driver.clone(),
        }
    }

    fn measure(&self, s: &Scenario, plan: &Plan, target: &Target, live: &AtomicU64) -> Result<LoadResult, String> {
        let job = worker::Job {
            new_driver: driver(&s.driver).map_err(|e| e.to_string())?,
            target: target.clone(),
            request: request_of(s, target).map_err(|e| e.to_string())?,
            plan: *plan,
            expect: s.expect.clone(),
            threads: self.threads,
            live,
            script: s.script.clone(),
            ramp_up: Duration::from_secs_f64(s.ramp_up_s.unwrap_or(0.0)),
        };
        worker::run(&job).map_err(|e| e.to_string())
    }
}

/// Sends the scenario's request twice over one connection (so keep-alive works too) and checks
/// status, body size and SHA-256 against `s.expect`.
pub fn verify(new_driver: Constructor, s: &Scenario, target: &Target) -> Result<(), LoadError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(LoadError::Io)?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let counters = std::rc::Rc::new(io::Counters::default());
        let request = std::rc::Rc::new(request_of(s, target)?);
        let mut channels = (new_driver)().connect(target, &request, 1, &counters).await?;
        if let Some(script) = &s.script {
            return verify_script(channels[0].as_mut(), script, &request).await;
        }
        for _ in 0..2 {
            let reply = tokio::time::timeout(Duration::from_secs(30), channels[0].exchange(true))
                .await
                .map_err(|_| LoadError::Protocol("no answer within 30 s".into()))??;
            if let Some(wrong) = mismatch(&reply, &s.expect) {
                return Err(LoadError::Protocol(wrong));
            }
        }
        let _ = tokio::time::timeout(worker::CLOSE_TIMEOUT, channels[0].close()).await;
        Ok(())
    })
}

/// Runs every branch of a thread group's script once, as one user: each step must answer as
/// its `expect` says and yield its captures.
async fn verify_script(
    channel: &mut dyn driver::Channel,
    script: &wirebench_core::suite::Script,
    request: &RequestSpec,
) -> Result<(), LoadError> {
    let steps = script.labels().len();
    let histograms = std::rc::Rc::new(std::cell::RefCell::new(worker::Histograms::new(steps)));
    let tally = std::rc::Rc::new(std::cell::RefCell::new(worker::Tally::for_steps(steps)));
    let mut user = script::User::new(script);
    let now = std::time::Instant::now();
    for ticket in 0..script.order.len() as u64 {
        let iteration = script::iteration(channel, script, request, &mut user, ticket, now, false, &histograms, &tally);
        let completed = tokio::time::timeout(Duration::from_secs(30), iteration)
            .await
            .map_err(|_| LoadError::Protocol("an iteration took over 30 s".into()))??;
        if !completed {
            let why = tally.borrow().first_error.clone().unwrap_or_default();
            return Err(LoadError::Protocol(why));
        }
    }
    Ok(())
}

/// How `reply` differs from `expect`, or `None` when it is right. The SHA-256 is checked when the
/// reply kept its body (verification); during load only status, size and message count are.
pub fn mismatch(reply: &driver::Reply, expect: &Expect) -> Option<String> {
    if reply.status != expect.status {
        return Some(format!("status {}, expected {}", reply.status, expect.status));
    }
    if let Some(n) = expect.body_bytes.filter(|&n| n != reply.body_len) {
        return Some(format!("body is {} bytes, expected {n}", reply.body_len));
    }
    if let Some(n) = expect.messages.filter(|&n| n != reply.messages) {
        return Some(format!("{} messages, expected {n}", reply.messages));
    }
    if let (Some(want), Some(body)) = (&expect.body_sha256, &reply.body) {
        let got: String = Sha256::digest(body).iter().map(|b| format!("{b:02x}")).collect();
        if !got.eq_ignore_ascii_case(want) {
            return Some(format!("body sha256 {got}, expected {want}"));
        }
    }
    None
}

#[cfg(test)]
mod tests;
