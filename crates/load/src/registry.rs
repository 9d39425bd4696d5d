//! The driver registry, the one place that knows a driver: its id, help, transport labels, the
//! status a right answer has, its check of a scenario's `params` and its constructor. The CLI,
//! the suite loader (`Registry`), the runner's transport stamp and the tests all read it.

use std::collections::BTreeMap;

use crate::driver::Constructor;
use crate::drivers;
use crate::error::LoadError;

/// A registered driver.
pub struct DriverInfo {
    /// The suite's `driver`, the CLI's `--driver` and the report's protocol column.
    pub id: &'static str,
    pub help: &'static str,
    /// The status a right answer has: HTTP's 200, gRPC's OK (0), WebSocket's upgrade (101).
    /// `wirebench load` expects it unless told otherwise; suites state theirs.
    pub ok_status: u16,
    /// Its transport label over cleartext, recorded with each row and the report's transport
    /// column: what carries the calls (`h1`, `h2c`; gRPC's `h2c`, SSE's `h1`, WebSocket's `ws`).
    /// A suite's `labels.transport` overrides it only to say what the registry cannot know (the
    /// MQTT broker) ...
    pub transport: &'static str,
    /// ... and over TLS (`h1+tls`, `h2+tls`, `wss`; `h3` either way, QUIC being always encrypted).
    pub transport_tls: &'static str,
    /// The URL schemes `wirebench load` accepts for it, each with whether it means TLS.
    pub schemes: &'static [(&'static str, bool)],
    /// It talks to a broker (a service), not to the subject itself.
    pub brokered: bool,
    /// The requests one connection carries at once (`streams`), when limited: HTTP/1.1, SSE,
    /// WebSocket and MQTT carry one exchange at a time. Checked when a suite loads and before
    /// `wirebench load` connects.
    pub max_streams: Option<u32>,
    /// Its check of a scenario's `params` (the parser `connect` uses), run when a suite loads.
    pub params: ParamsCheck,
    pub new: Constructor,
}

/// A driver's check of a scenario's `params`.
pub type ParamsCheck = fn(&BTreeMap<String, serde_json::Value>) -> Result<(), LoadError>;

/// The check of drivers that read no parameter: any key is a mistake.
fn no_params(params: &BTreeMap<String, serde_json::Value>) -> Result<(), LoadError> {
    match params.keys().next() {
        Some(k) => Err(LoadError::Unsupported(format!("unknown parameter `{k}`: this driver takes none"))),
        None => Ok(()),
    }
}

/// The registry as the suite loader sees it (`wirebench_core::suite::Drivers`).
pub struct Registry;

impl wirebench_core::suite::Drivers for Registry {
    fn ids(&self) -> Vec<&str> {
        driver_ids()
    }

    fn check_params(&self, driver: &str, params: &BTreeMap<String, serde_json::Value>) -> Result<(), String> {
        let info = driver_info(driver).map_err(|e| e.to_string())?;
        (info.params)(params).map_err(|e| e.to_string())
    }

    fn check_streams(&self, driver: &str, streams: u32) -> Result<(), String> {
        driver_info(driver).map_err(|e| e.to_string())?.check_streams(streams)
    }
}

impl DriverInfo {
    /// Whether one connection carries `streams` requests at once (`max_streams`).
    pub fn check_streams(&self, streams: u32) -> Result<(), String> {
        match self.max_streams {
            Some(1) if streams > 1 => Err(format!(
                "{} carries one request at a time per connection: set 1, and more connections instead",
                self.id
            )),
            Some(max) if streams > max => {
                Err(format!("{} carries at most {max} requests at a time per connection", self.id))
            }
            _ => Ok(()),
        }
    }

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
        schemes: &[("http", false), ("https", true)],
        max_streams: Some(1),
        brokered: false,
        params: no_params,
        new: drivers::http1::new,
    },
    DriverInfo {
        id: "http2",
        help: "HTTP/2: h2c with prior knowledge, or TLS with ALPN h2",
        ok_status: 200,
        transport: "h2c",
        transport_tls: "h2+tls",
        schemes: &[("http", false), ("https", true)],
        max_streams: None,
        brokered: false,
        params: no_params,
        new: drivers::http2::new,
    },
    DriverInfo {
        id: "http3",
        help: "HTTP/3 over QUIC (TLS 1.3, ALPN h3): an https:// URL naming the server's UDP port",
        ok_status: 200,
        transport: "h3",
        transport_tls: "h3",
        schemes: &[("https", true)],
        max_streams: None,
        brokered: false,
        params: no_params,
        new: drivers::http3::new,
    },
    DriverInfo {
        id: "grpc",
        help: "gRPC over HTTP/2 (h2c or TLS): unary, server, client and bidi streaming calls",
        ok_status: 0,
        transport: "h2c",
        transport_tls: "h2+tls",
        schemes: &[("http", false), ("https", true)],
        max_streams: None,
        brokered: false,
        params: |p| drivers::grpc::Params::of(p).map(drop),
        new: drivers::grpc::new,
    },
    DriverInfo {
        id: "mqtt",
        help: "MQTT 3.1.1 through a broker: publish the body, wait for a responder's echo (QoS 1 or 0)",
        ok_status: 0,
        transport: "mqtt",
        transport_tls: "mqtt+tls",
        schemes: &[("mqtt", false)],
        max_streams: Some(1),
        brokered: true,
        params: |p| drivers::mqtt::qos_param(p).map(drop),
        new: drivers::mqtt::new,
    },
    DriverInfo {
        id: "sse",
        help: "Server-Sent Events over HTTP/1.1 (or TLS): a GET whose answer is an event stream",
        ok_status: 200,
        transport: "h1",
        transport_tls: "h1+tls",
        schemes: &[("http", false), ("https", true)],
        max_streams: Some(1),
        brokered: false,
        params: no_params,
        new: drivers::sse::new,
    },
    DriverInfo {
        id: "websocket",
        help: "WebSocket (ws:// or wss://): a text request, one or more frames back, per exchange",
        ok_status: 101,
        transport: "ws",
        transport_tls: "wss",
        schemes: &[("ws", false), ("wss", true)],
        max_streams: Some(1),
        brokered: false,
        params: |p| drivers::websocket::frames_param(p).map(drop),
        new: drivers::websocket::new,
    },
];

/// Every URL scheme some driver accepts, with whether it means TLS (`https` → true).
pub fn schemes() -> Vec<(&'static str, bool)> {
    let mut all: Vec<(&'static str, bool)> = Vec::new();
    for d in DRIVERS {
        for s in d.schemes {
            if !all.contains(s) {
                all.push(*s);
            }
        }
    }
    all
}

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
