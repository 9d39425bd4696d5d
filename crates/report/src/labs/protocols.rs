//! The protocols lab (`suites/protocols.toml`, `subjects/protocols/`): REST, GraphQL, SOAP, gRPC,
//! WebSocket, SSE and MQTT over the study's transports. Its rows are load rows, so the headline,
//! the scenarios table and the req/s and latency charts show them (`load`); this section adds
//! what the study compared: 1 KB against 1 MB responses per transport.

use wirebench_core::results::ScenarioSummary;
use wirebench_link::NetSpec;

use crate::charts::lines::{LineAxis, Lines, Panel as LinePanel};
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

    fn section(&self, rows: &[&ScenarioSummary], _run: &Run<'_>) -> Option<Section> {
        let rows: Vec<Row> = rows.iter().filter(|s| s.transport.is_some()).map(|s| Row::of(s)).collect();
        if rows.is_empty() {
            return None;
        }
        let mut s = Section::new("protocols", "Protocols: 1 KB vs 1 MB responses");
        s.push(Block::Chart(payload_chart(&rows)));
        for chart in [loss_chart(&rows), net_chart(&rows)].into_iter().flatten() {
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

/// A row's link: its other settings (loss left out, which the rows of one loss sweep share) and
/// its loss rate in percent.
fn link_and_loss(r: &Row) -> Option<(String, f64)> {
    let net: NetSpec = r.summary.net.as_deref()?.parse().ok()?;
    Some((NetSpec { loss: 0.0, ..net.clone() }.to_string(), net.loss * 100.0))
}

/// The links (loss left out) whose rows were measured at two loss rates or more.
fn loss_sweeps<'r, 'a>(rows: &'r [Row<'a>]) -> Vec<(String, Vec<&'r Row<'a>>)> {
    let mut sweeps: Vec<(String, Vec<&Row>)> = Vec::new();
    for r in rows.iter().filter(|r| r.rps().is_some()) {
        let Some((link, _)) = link_and_loss(r) else { continue };
        match sweeps.iter_mut().find(|(l, _)| *l == link) {
            Some((_, rows)) => rows.push(r),
            None => sweeps.push((link, vec![r])),
        }
    }
    sweeps.retain(|(_, rows)| {
        let mut losses: Vec<u64> =
            rows.iter().filter_map(|r| link_and_loss(r)).map(|(_, l)| (l * 1e6) as u64).collect();
        losses.sort_unstable();
        losses.dedup();
        losses.len() >= 2
    });
    sweeps
}

/// Requests per second against the link's loss rate, a panel per link (its other settings), a
/// line per transport; `None` when no link was measured at two loss rates.
fn loss_chart(rows: &[Row]) -> Option<Spec> {
    let sweeps = loss_sweeps(rows);
    if sweeps.is_empty() {
        return None;
    }
    let panels = sweeps
        .iter()
        .map(|(link, rows)| {
            let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
            for r in rows {
                let loss = link_and_loss(r).expect("swept on loss").1;
                let point = (loss, r.rps().expect("filtered on rps").median);
                match lines.iter_mut().find(|(t, _)| t == r.transport) {
                    Some((_, points)) => points.push(point),
                    None => lines.push((r.transport.to_string(), vec![point])),
                }
            }
            for (_, points) in &mut lines {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
            }
            LinePanel { title: link.clone(), lines }
        })
        .collect();
    Some(Spec {
        name: "net-loss",
        title: "Requests per second against packet loss",
        plot: Ok(Plot::Lines(Lines {
            panels,
            x: LineAxis::linear("packets lost per direction, %", tick),
            y: LineAxis::fit("requests per second, median", tick),
        })),
        note: Some(
            "Each panel is one link, its round trip and congestion control fixed, its loss rate varied; a line is \
             a transport. The table gives each row's interval."
                .into(),
        ),
    })
}

/// One panel per network link the rows crossed, a bar per transport (median req/s with its
/// interval), for rows outside a loss sweep (`loss_chart` draws those); `None` when no such row
/// crossed a link. Panels, not pairs: a link may carry any number of transports (the
/// new-connection rows carry four).
fn net_chart(rows: &[Row]) -> Option<Spec> {
    let swept: Vec<String> = loss_sweeps(rows).into_iter().map(|(link, _)| link).collect();
    let crossed: Vec<&Row> = rows
        .iter()
        .filter(|r| r.summary.net.is_some() && r.rps().is_some())
        .filter(|r| link_and_loss(r).is_none_or(|(l, _)| !swept.contains(&l)))
        .collect();
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use wirebench_core::stats::Summary;

    use super::*;

    fn row(id: &str, transport: &str, net: Option<&str>, rps: f64) -> ScenarioSummary {
        ScenarioSummary {
            scenario: id.into(),
            subject: "rest-rust".into(),
            lang: "rust".into(),
            protocol: None,
            format: None,
            params: BTreeMap::new(),
            error: None,
            ok_repeats: 3,
            contended: 0,
            lost_repeats: 0,
            metrics: [("rps", Summary::of_measured(&[rps, rps * 1.01, rps * 0.99]).unwrap())].into(),
            by_repeat: BTreeMap::new(),
            latency_curve: vec![],
            instrument_bound: false,
            net_bound: false,
            steps: vec![],
            workers: vec![],
            worker_skew_ms: None,
            lab: "protocols".into(),
            transport: Some(transport.into()),
            net: net.map(Into::into),
        }
    }

    #[test]
    fn a_loss_sweep_is_lines_against_loss_and_other_links_stay_bars() {
        let summaries = [
            row("rest-net-h2-loss0", "h2+tls", Some("rtt=40ms,cc=reno"), 100.0),
            row("rest-net-h3-loss0", "h3", Some("rtt=40ms,cc=reno"), 90.0),
            row("rest-net-h2-loss1", "h2+tls", Some("rtt=40ms,loss=1%,cc=reno"), 20.0),
            row("rest-net-h3-loss1", "h3", Some("rtt=40ms,loss=1%,cc=reno"), 25.0),
            row("rest-net-h2-loss05", "h2+tls", Some("rtt=40ms,loss=0.5%,cc=reno"), 40.0),
            row("conn-net-h1", "h1", Some("rtt=75ms"), 6.0),
            row("rest-h1-1kb", "h1", None, 50_000.0),
        ];
        let rows: Vec<Row> = summaries.iter().map(Row::of).collect();
        let spec = loss_chart(&rows).expect("a link at three loss rates");
        let Ok(Plot::Lines(l)) = spec.plot else { panic!("lines") };
        assert_eq!(l.panels.len(), 1);
        assert_eq!(l.panels[0].title, "rtt=40ms,cc=reno");
        let lines = &l.panels[0].lines;
        assert_eq!(lines[0].0, "h2+tls");
        let h2: Vec<(f64, f64)> = lines[0].1.iter().map(|&(x, y)| (x, y.round())).collect();
        assert_eq!(h2, [(0.0, 100.0), (0.5, 40.0), (1.0, 20.0)], "sorted by loss");
        assert_eq!(lines[1].1.len(), 2);
        // The bars keep the link that was not swept, and only it.
        let Ok(Plot::Bars(b)) = net_chart(&rows).expect("a link outside the sweep").plot else { panic!("bars") };
        let titles: Vec<&str> = b.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["rtt=75ms"]);
        let loopback: Vec<Row> = summaries[6..].iter().map(Row::of).collect();
        assert!(loss_chart(&loopback).is_none() && net_chart(&loopback).is_none());
    }
}
