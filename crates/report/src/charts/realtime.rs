//! Charts of the realtime lab: time for N messages against N (log–log, a panel per direction, a
//! line per protocol and way of calling, via `lines`), the extra-header sweep, and every other
//! condition (TLS, HTTP/2, a slowed client, disk writes) beside cleartext at one N (bars, via
//! `panels`).

use super::lines;
use super::panels::{self, Axis, Bar, Group, Panel};
use super::{DrawResult, Drawn, Key};
use crate::format;
use crate::model::Report;
use crate::realtime::{self, Condition, Direction, RealtimeRow, BASE};

/// Skipped when no series of the base condition was measured at two N or more.
pub fn draw_by_n(report: &Report, title: &str) -> DrawResult<Drawn> {
    let sweeps = report.realtime.sweeps();
    let Some(base) = sweeps.iter().find(|s| s.condition == BASE) else {
        return Ok(Drawn::Skipped("no row of the cleartext sweep".into()));
    };
    let panels = [
        (Direction::Download, "Download: the server sends N texts"),
        (Direction::Upload, "Upload: the page sends N texts"),
    ]
    .into_iter()
    .map(|(direction, title)| lines::Panel {
        title: title.to_string(),
        lines: base
            .series
            .iter()
            .enumerate()
            .filter(|(_, s)| s.direction == direction)
            .map(|(j, s)| (s.label(), base.points(j).into_iter().map(|(n, ms)| (n, ms * 1e3)).collect()))
            .collect(),
    })
    .collect();
    let Some(svg) = lines::draw(title, panels, "N messages", "time for N messages")? else {
        return Ok(Drawn::Skipped("no series was measured at two N or more".into()));
    };
    let note =
        "Cleartext HTTP/1.1, median of the repeats. A line of slope 1 is a fixed cost per message; a flat start \
                is a fixed cost per call."
            .to_string();
    Ok(Drawn::Svg { svg, note: Some(note) })
}

fn bar(r: &RealtimeRow, color: plotters::style::RGBColor, against: Option<f64>) -> Option<Bar> {
    let s = r.millis()?;
    let ratio = against.filter(|b| *b > 0.0).map_or(String::new(), |b| format!(" ({})", format::ratio(s.median / b)));
    Some(Bar { value: s.median, ci: s.ci, color, label: format!("{}{ratio}", realtime::ms(s.median)) })
}

const AXIS: Axis = Axis { desc: "ms for N messages, median of repeats", tick: panels::tick };

/// Skipped without header rows.
pub fn draw_headers(report: &Report, title: &str) -> DrawResult<Drawn> {
    let sweeps = report.realtime.headers();
    if sweeps.is_empty() {
        return Ok(Drawn::Skipped("no row with extra headers".into()));
    }
    let mut names: Vec<realtime::Series> = sweeps.iter().flat_map(|h| h.series.iter().copied()).collect();
    names.sort();
    names.dedup();
    let panels: Vec<Panel> = sweeps
        .iter()
        .map(|h| {
            let groups = h
                .counts
                .iter()
                .zip(&h.cells)
                .map(|(&count, row)| Group {
                    label: if count == 0 { "none".into() } else { format!("{count} headers") },
                    bars: row
                        .iter()
                        .zip(&h.series)
                        .enumerate()
                        .filter_map(|(j, (r, s))| {
                            let base = h.cells[0][j].and_then(|b| b.millis()).map(|m| m.median);
                            let color = super::color(names.iter().position(|x| x == s).unwrap_or(0));
                            bar((*r)?, color, base.filter(|_| count > 0))
                        })
                        .collect(),
                })
                .collect();
            Panel { title: format!("{} · N = {}", h.condition.label(), format::thousands(h.n as f64)), groups }
        })
        .collect();
    let legend: Vec<(String, Key)> =
        names.iter().enumerate().map(|(j, s)| (s.label(), Key::Bar(super::color(j)))).collect();
    let svg = panels::draw(title, &with_whisker(legend), &panels, &AXIS)?;
    let note = "Each extra header is `nazwa-i: zawartosc` (the study's), ~19 bytes: 100 headers add ~1.9 KB to every \
                HTTP/1.1 request. HTTP/2 compresses them (HPACK): after the first request, a repeated header is an \
                index of a byte or two. The ratio is against the same N without extra headers."
        .to_string();
    Ok(Drawn::Svg { svg, note: Some(note) })
}

fn with_whisker(mut legend: Vec<(String, Key)>) -> Vec<(String, Key)> {
    legend.push(("95 % CI of the mean".to_string(), Key::Whisker));
    legend
}

/// Skipped when no condition but cleartext was measured.
pub fn draw_conditions(report: &Report, title: &str) -> DrawResult<Drawn> {
    let rt = &report.realtime;
    let sweeps = rt.sweeps();
    let conditions: Vec<Condition> = sweeps.iter().map(|s| s.condition).collect();
    // The largest N that some other condition shares with cleartext.
    let n = sweeps
        .iter()
        .filter(|s| s.condition != BASE)
        .flat_map(|s| s.ns.iter().copied())
        .filter(|&n| sweeps.iter().any(|s| s.condition == BASE && s.ns.contains(&n)))
        .max();
    let (Some(n), true) = (n, conditions.len() > 1) else {
        return Ok(Drawn::Skipped("no condition but cleartext shares an N with it".into()));
    };
    let mut series: Vec<_> = sweeps.iter().flat_map(|s| s.series.iter().map(|x| x.plain())).collect();
    series.sort();
    series.dedup();
    let groups: Vec<Group> = series
        .iter()
        .filter_map(|&s| {
            let base = rt.find(BASE, s, n).and_then(|r| r.millis()).map(|m| m.median);
            let bars: Vec<Bar> = conditions
                .iter()
                .enumerate()
                .filter_map(|(i, &c)| bar(rt.find(c, s, n)?, super::color(i), base.filter(|_| c != BASE)))
                .collect();
            (bars.len() > 1).then(|| Group { label: s.label(), bars })
        })
        .collect();
    if groups.is_empty() {
        return Ok(Drawn::Skipped(format!("no series was measured in two conditions at N = {n}")));
    }
    let legend: Vec<(String, Key)> =
        conditions.iter().enumerate().map(|(i, c)| (c.short(), Key::Bar(super::color(i)))).collect();
    let panel = Panel { title: format!("N = {}", format::thousands(n as f64)), groups };
    let svg = panels::draw(title, &with_whisker(legend), &[panel], &AXIS)?;
    let note = "Each condition changes one thing against cleartext HTTP/1.1 from a full-speed client: TLS (HTTPS and \
                WSS), HTTP/2 over TLS (HTTP rows), the page's CPU throttled by DevTools (the study's slower laptop), \
                or the server appending each received text to a file (as the study's did). The ratio is against \
                cleartext."
        .to_string();
    Ok(Drawn::Svg { svg, note: Some(note) })
}
