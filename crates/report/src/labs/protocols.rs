//! The protocols lab (`suites/protocols.toml`, `subjects/protocols/`): REST, GraphQL, SOAP, gRPC,
//! WebSocket, SSE and MQTT over the study's transports. Its rows are load rows, so the headline,
//! the scenarios table and the req/s and latency charts show them (`load`); this section adds
//! what the study compared: 1 KB against 1 MB responses per transport.

use wirebench_core::results::ScenarioSummary;

use crate::charts::pairs::{Bar, Pairs};
use crate::charts::panels::{tick, Axis, Bar as PanelBar, Bars, Group, Panel};
use crate::charts::{color, Key, Plot, Spec};
use crate::load::Row;
use crate::numbers;
use crate::section::{Block, Lab, Run, Section};

/// The lab.
pub struct ProtocolsLab;

impl Lab for ProtocolsLab {
    fn id(&self) -> &'static str {
        "protocols"
    }

    fn section(&self, rows: &[&ScenarioSummary], _run: &Run) -> Option<Section> {
        let rows: Vec<Row> = rows.iter().filter(|s| s.transport.is_some()).map(|s| Row::of(s)).collect();
        if rows.is_empty() {
            return None;
        }
        let mut s = Section::new("protocols", "Protocols: 1 KB vs 1 MB responses");
        s.push(Block::Chart(payload_chart(&rows)));
        if let Some(chart) = net_chart(&rows) {
            s.push(Block::Chart(chart));
        }
        Some(s)
    }
}

/// The payload labels compared, in bar order.
const PAYLOADS: [&str; 2] = ["1KB", "1MB"];

/// Grouped bars of median req/s per transport, 1 KB beside 1 MB, for rows whose `payload` label is
/// `1KB` or `1MB`.
fn payload_chart(rows: &[Row]) -> Spec {
    let payload_of = |r: &Row| PAYLOADS.iter().position(|p| r.payload().is_some_and(|q| q.eq_ignore_ascii_case(p)));
    let measured: Vec<(&Row, usize)> =
        rows.iter().filter(|r| r.rps().is_some()).filter_map(|r| Some((r, payload_of(r)?))).collect();
    let (name, title) = ("payload", "1 KB vs 1 MB responses by transport");
    if measured.is_empty() {
        let why = "no scenario with a 1KB or 1MB payload label measured req/s".to_string();
        return Spec { name, title, plot: Err(why), note: None };
    }
    // A category is the transport, plus the api and subject when those vary, so that different
    // stacks on the same transport get their own pair of bars.
    let varies = |f: &dyn Fn(&Row) -> String| measured.iter().any(|(r, _)| f(r) != f(measured[0].0));
    let api = |r: &Row| r.summary.param("api").unwrap_or("").to_string();
    let subject = |r: &Row| r.summary.subject.clone();
    let (api_varies, subject_varies) = (varies(&api), varies(&subject));
    let category = |r: &Row| {
        let mut parts = vec![if r.transport.is_empty() { r.protocol().to_string() } else { r.transport.to_string() }];
        if api_varies {
            parts.push(api(r));
        }
        if subject_varies {
            parts.push(subject(r));
        }
        parts.join(" · ")
    };
    let mut categories: Vec<String> = Vec::new();
    let mut bars: Vec<Bar> = Vec::new();
    let mut duplicates: Vec<&str> = Vec::new();
    for &(r, slot) in &measured {
        let name = category(r);
        let c = categories.iter().position(|c| *c == name).unwrap_or_else(|| {
            categories.push(name);
            categories.len() - 1
        });
        if bars.iter().any(|b| (b.category, b.slot) == (c, slot)) {
            duplicates.push(r.id());
        } else {
            let s = r.rps().expect("filtered on rps");
            bars.push(Bar { category: c, slot, value: s.median, ci: s.ci });
        }
    }
    Spec {
        name,
        title,
        plot: Ok(Plot::Pairs(Pairs {
            categories,
            slots: ["1 KB response".into(), "1 MB response".into()],
            bars,
            x_desc: "transport".into(),
            y_desc: "requests per second, median".into(),
        })),
        note: (!duplicates.is_empty())
            .then(|| format!("Not shown (same transport and payload as an earlier bar): {}.", duplicates.join(", "))),
    }
}

/// One panel per network link the rows crossed, a bar per transport (median req/s with its
/// interval); `None` when no row crossed a link. Panels, not pairs: a link may carry any number
/// of transports (the new-connection rows carry four).
fn net_chart(rows: &[Row]) -> Option<Spec> {
    let crossed: Vec<&Row> = rows.iter().filter(|r| r.summary.net.is_some() && r.rps().is_some()).collect();
    if crossed.is_empty() {
        return None;
    }
    let mut transports: Vec<&str> = Vec::new();
    let mut links: Vec<&str> = Vec::new();
    for r in &crossed {
        if !transports.contains(&r.transport) {
            transports.push(r.transport);
        }
        let link = r.summary.net.as_deref().expect("filtered on net");
        if !links.contains(&link) {
            links.push(link);
        }
    }
    let panels = links
        .iter()
        .map(|&link| Panel {
            title: link.to_string(),
            groups: crossed
                .iter()
                .filter(|r| r.summary.net.as_deref() == Some(link))
                .map(|r| {
                    let s = r.rps().expect("filtered on rps");
                    let c = color(transports.iter().position(|t| *t == r.transport).expect("collected"));
                    Group {
                        label: r.id().to_string(),
                        bars: vec![PanelBar { value: s.median, ci: s.ci, color: c, label: numbers::sig3(s.median) }],
                    }
                })
                .collect(),
        })
        .collect();
    let mut legend: Vec<(String, Key)> =
        transports.iter().enumerate().map(|(i, t)| (t.to_string(), Key::Bar(color(i)))).collect();
    legend.push(("95 % CI of the mean".to_string(), Key::Whisker));
    Some(Spec {
        name: "net",
        title: "Requests per second across a network link",
        plot: Ok(Plot::Bars(Bars { legend, panels, axis: Axis { desc: "requests per second, median", tick } })),
        note: None,
    })
}
