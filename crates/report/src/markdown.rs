//! `summary.md`: the headline, claims table and scenarios table as GitHub-flavoured Markdown.
//! Text from files goes through `md` (table cells) or `code` (ids), so no markup gets through.

use std::fmt::Write;

use crate::cells::TABLE_NOTE;
use crate::cells::{Cells, FormatCells, COLUMNS, FLAGS_COLUMN, FORMATS_NOTE, FORMAT_COLUMNS, PUBLISHED_COLUMNS};
use crate::format::{self, NONE};
use crate::formats::{self, Dataset};
use crate::model::{Flag, Report, Section};
use crate::parse;
use crate::published;
use crate::realtime;
use crate::restcache;
use crate::wasm;

macro_rules! put {
    ($out:expr, $($arg:tt)*) => {
        let _ = write!($out, $($arg)*);
    };
}

/// Text safe inside a table cell: pipes escaped, markup as entities, one line.
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '`' => out.push_str("\\`"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// An id as a code span (whose content renderers show literally, markup included); ids that a
/// code span cannot hold (backticks, line breaks) are written as plain text.
pub fn code(id: &str) -> String {
    if id.contains(['`', '\n', '\r']) {
        md(id)
    } else {
        format!("`{}`", id.replace('|', "\\|"))
    }
}

/// The whole `summary.md`; like the page, it leaves out the sections a run has no rows for.
pub fn summary(report: &Report) -> String {
    let run = &report.run;
    let m = &run.machine;
    let mut out = String::new();
    put!(out, "# wirebench report: {}\n\n", md(&run.suite));
    if let Some(d) = report.description() {
        put!(out, "{}\n\n", md(d));
    }
    put!(
        out,
        "Run {} · profile {} · {} repeats · {} – {} · {} ({} cores, {}) · {} · git {}\n\n",
        code(&run.run_id),
        md(&run.profile),
        run.repeats,
        md(&run.started_at),
        md(run.finished_at.as_deref().unwrap_or("did not finish")),
        md(&m.cpu_model),
        m.cores,
        format::gib_from_kib(m.memory_kb),
        md(&m.kernel),
        md(run.git_revision.as_deref().unwrap_or("unknown"))
    );
    out.push_str("Full report with charts: [report.html](report.html).\n\n");
    let load = report.shows(Section::Load);
    if load {
        out.push_str("## Headline\n\n");
        headline(&mut out, report);
    } else {
        run_warnings(&mut out, report);
    }
    if load || !report.claims.is_empty() {
        claims(&mut out, report);
    }
    if report.shows(Section::RestCache) {
        restcache_section(&mut out, report);
    }
    if load {
        scenarios(&mut out, report);
        steps(&mut out, report);
    }
    if report.shows(Section::Formats) {
        if load {
            out.push('\n');
        }
        formats_section(&mut out, report);
    }
    if report.shows(Section::Parse) {
        out.push('\n');
        parse_section(&mut out, report);
    }
    if report.shows(Section::Realtime) {
        out.push('\n');
        realtime_section(&mut out, report);
    }
    if report.shows(Section::Wasm) {
        out.push('\n');
        wasm_section(&mut out, report);
    }
    out
}

/// Thread-group rows: each step by label (samples, errors, latency), as in the HTML report.
fn steps(out: &mut String, report: &Report) {
    let grouped: Vec<_> = report.rows.iter().filter(|r| !r.summary.steps.is_empty()).collect();
    if grouped.is_empty() {
        return;
    }
    out.push_str("\n## Thread groups: each step\n\n");
    out.push_str("| Scenario | Step | Samples | Errors | Mean | p50 | p99 |\n|---|---|---:|---:|---:|---:|---:|\n");
    for r in grouped {
        for step in &r.summary.steps {
            put!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                code(&r.summary.scenario),
                md(&step.label),
                format::thousands(step.requests as f64),
                format::thousands(step.errors as f64),
                format::latency_us(step.mean_us),
                format::latency_us(step.p50_us),
                format::latency_us(step.p99_us)
            );
        }
    }
}

/// The REST service study: its cases per implementation and store, then the server side.
fn restcache_section(out: &mut String, report: &Report) {
    let rc = &report.restcache;
    out.push_str("\n## REST service study: every case per implementation\n\n");
    for t in rc.case_tables().iter().chain(rc.resources_table().as_ref()) {
        put!(out, "### {}\n\n|", md(&t.title));
        for head in &t.head {
            put!(out, " {} |", md(head));
        }
        put!(out, "\n|---|{}\n", "--:|".repeat(t.head.len() - 1));
        for row in &t.rows {
            let cells: Vec<String> = row
                .cells
                .iter()
                .map(|c| {
                    let text = if c.best { format!("**{}**", md(&c.text)) } else { md(&c.text) };
                    let failed = if c.failed { " (failed)" } else { "" };
                    match &c.sub {
                        Some(sub) => format!("{text} ({}){failed}", md(sub)),
                        None => format!("{text}{failed}"),
                    }
                })
                .collect();
            put!(out, "| {} | {} |\n", md(&row.head), cells.join(" | "));
        }
        out.push('\n');
    }
    put!(out, "{}\n\n", restcache::NOTE);
}

/// The wasm lab: the study's two tables with ours beside its numbers.
fn wasm_section(out: &mut String, report: &Report) {
    let w = &report.wasm;
    out.push_str(
        "## WebAssembly vs JavaScript: kernel time

",
    );
    if let Some(browser) = w.rows.iter().find_map(|r| r.runtime()) {
        put!(out, "In {}; the study's numbers are from {}.\n\n", code(browser), wasm::SOURCE);
    }
    for t in w.tables() {
        put!(out, "### {}\n\n| Kernel |", t.title);
        for (label, _) in t.columns {
            put!(out, " {} |", md(label));
        }
        put!(out, "\n|---|{}\n", "--:|".repeat(t.columns.len()));
        for k in t.kernels {
            let cells: Vec<String> = t
                .columns
                .iter()
                .map(|&(_, source)| {
                    let c = w.cell(k, source);
                    let failed = if c.row.is_some_and(|r| r.failed()) { " (failed)" } else { "" };
                    if c.sub.is_empty() {
                        format!("{}{failed}", md(&c.text))
                    } else {
                        format!("{} [{}]{failed}", md(&c.text), md(&c.sub.join("; ")))
                    }
                })
                .collect();
            put!(out, "| {} | {} |\n", code(k), cells.join(" | "));
        }
        out.push('\n');
    }
    for r in w.failed() {
        put!(out, "- {}: {}\n", code(r.id()), md(r.summary.error.as_deref().unwrap_or("")));
    }
    put!(out, "{}\n", wasm::NOTE);
}

/// The realtime lab: a table of N against series per condition, then the header sweep.
fn realtime_section(out: &mut String, report: &Report) {
    let rt = &report.realtime;
    out.push_str("## WebSocket vs HTTP: time for N messages\n\n");
    let cell = |r: Option<&realtime::RealtimeRow>, extra: String| match r {
        Some(r) => {
            let ci = r.ci_text();
            let ci = if ci.is_empty() { ci } else { format!(" [{}]", md(&ci)) };
            let failed = if r.failed() { " (failed)" } else { "" };
            let p95 = r.p95_text();
            let p95 = if p95.is_empty() { p95 } else { format!(", {p95}") };
            format!("{}{extra}{ci}{p95}{failed}", md(&r.time_text()))
        }
        None => NONE.to_string(),
    };
    let table = |out: &mut String, first: &str, series: &[realtime::Series]| {
        put!(out, "| {first} |");
        for s in series {
            put!(out, " {} |", md(&s.label()));
        }
        put!(out, "\n|--:|{}\n", "--:|".repeat(series.len()));
    };
    for sweep in rt.sweeps() {
        put!(out, "### {}\n\n", md(&sweep.condition.label()));
        table(out, "N", &sweep.series);
        for (n, row) in sweep.ns.iter().zip(&sweep.cells) {
            let cells: Vec<String> = row.iter().map(|r| cell(*r, String::new())).collect();
            put!(out, "| {} | {} |\n", format::thousands(*n as f64), cells.join(" | "));
        }
        out.push('\n');
    }
    for hs in rt.headers() {
        put!(
            out,
            "### Extra request headers: {}, N = {}\n\n",
            md(&hs.condition.label()),
            format::thousands(hs.n as f64)
        );
        table(out, "Extra headers", &hs.series);
        for (i, (count, row)) in hs.counts.iter().zip(&hs.cells).enumerate() {
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(j, r)| {
                    cell(
                        *r,
                        hs.slowdown(i, j)
                            .filter(|_| i > 0)
                            .map_or(String::new(), |x| format!(" ({})", format::ratio(x))),
                    )
                })
                .collect();
            put!(out, "| {count} | {} |\n", cells.join(" | "));
        }
        out.push('\n');
    }
    for r in rt.failed() {
        put!(out, "- {}: {}\n", code(r.id()), md(r.summary.error.as_deref().unwrap_or("")));
    }
    put!(out, "{}\n", realtime::NOTE);
}

/// The parse lab: one table per object.
fn parse_section(out: &mut String, report: &Report) {
    out.push_str("## Decoding: JSON vs BSON\n\n");
    for o in &report.parse.objects {
        put!(out, "### Object {}\n\n|", code(&o.object));
        for (label, _) in parse::COLUMNS {
            put!(out, " {label} |");
        }
        out.push_str(" Error |\n|");
        for (_, num) in parse::COLUMNS {
            out.push_str(if *num { "--:|" } else { "---|" });
        }
        out.push_str("---|\n");
        for r in &o.rows {
            let c = parse::Cells::of(r);
            let mut cells: Vec<String> = c.texts().iter().map(|t| md(t)).collect();
            cells[0] = code(&c.scenario);
            if !c.parse_ci.is_empty() {
                cells[5] = format!("{} [{}]", cells[5], md(&c.parse_ci));
            }
            cells.push(md(r.summary.error.as_deref().unwrap_or("")));
            put!(out, "| {} |\n", cells.join(" | "));
        }
        out.push('\n');
    }
    put!(out, "{}\n", parse::NOTE);
}

/// The run's warnings (`Report::warnings`) as quotes.
fn run_warnings(out: &mut String, report: &Report) {
    for w in report.warnings() {
        put!(out, "> **{}** {}\n\n", md(w.title), md(&w.detail));
    }
}

fn headline(out: &mut String, report: &Report) {
    let run = &report.run;
    run_warnings(out, report);
    for g in &report.headline {
        let row = &report.rows[g.fastest];
        let rps = row.rps().expect("headline rows have req/s");
        let group = report.group_title(g);
        let ci = rps
            .ci
            .map_or(String::new(), |(lo, hi)| format!(" (95 % CI {})", format::interval(lo, hi, format::thousands)));
        put!(
            out,
            "- **{}**: {} is fastest at {} req/s{ci}. {}\n",
            md(&group),
            code(row.id()),
            format::thousands(rps.median),
            report.versus(g, code)
        );
    }
    for r in report.failed() {
        put!(
            out,
            "- **Failed** {}: {} ({} of {} repeats completed)\n",
            code(r.id()),
            md(r.summary.error.as_deref().unwrap_or("")),
            r.summary.ok_repeats,
            run.repeats
        );
    }
    for flag in [Flag::Noisy, Flag::InstrumentBound] {
        let ids: Vec<String> = report.flagged(flag).map(|r| code(r.id())).collect();
        if !ids.is_empty() {
            put!(out, "- *{}*: {}: {}.\n", flag.id(), ids.join(", "), flag.meaning());
        }
    }
    if report.headline.is_empty() && report.failed().next().is_none() {
        out.push_str("No scenario measured req/s.\n");
    }
    out.push('\n');
}

fn claims(out: &mut String, report: &Report) {
    out.push_str("## Claims\n\n");
    if report.claims.is_empty() {
        out.push_str("The suite states no claims.\n");
    } else {
        out.push_str("| Claim | Published | Ours (95 % interval) | Verdict | Reason |\n|---|---|--:|---|---|\n");
        for j in &report.claims {
            let c = &j.claim;
            let note = c.note.as_deref().map_or(String::new(), |n| format!("<br>*Note:* {}", md(n)));
            let value = j.value.map_or(NONE.to_string(), |v| format::claim_value(c, v));
            let interval = j.interval.map_or(String::new(), |(lo, hi)| {
                format!(" [{}]", format::interval(lo, hi, |v| format::claim_value(c, v)))
            });
            put!(
                out,
                "| {}<br>{} | {}{note} | {}{} | **{}** | {} |\n",
                md(&c.text),
                code(&format::claim_expression(c)),
                md(&c.published),
                md(&value),
                md(&interval),
                j.verdict.as_str(),
                md(format::claim_reason(j))
            );
        }
    }
    out.push('\n');
}

fn scenarios(out: &mut String, report: &Report) {
    let run = &report.run;
    out.push_str("## Scenarios\n\n|");
    for (label, _) in COLUMNS {
        put!(out, " {label} |");
    }
    out.push_str("\n|");
    for (_, num) in COLUMNS {
        out.push_str(if *num { "--:|" } else { "---|" });
    }
    out.push('\n');
    for r in &report.rows {
        let c = Cells::of(r, run.repeats);
        let rps = if c.rps_ci.is_empty() { c.rps.clone() } else { format!("{} [{}]", c.rps, c.rps_ci) };
        let mut flags: Vec<String> = r.flags.iter().map(|f| format!("**{}**", f.id())).collect();
        if let Some(e) = &r.summary.error {
            flags.push(md(e));
        }
        if let Some(n) = &c.repeats_note {
            flags.push(n.clone());
        }
        put!(
            out,
            "| {} | {} ({}) | {} | {} | {} {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            code(&c.id),
            md(&c.subject),
            md(&c.lang),
            md(&c.protocol),
            md(&c.transport),
            md(&c.concurrency),
            md(&c.model),
            rps,
            if c.first_message.is_empty() {
                c.messages.clone()
            } else {
                format!("{} ({})", c.messages, c.first_message)
            },
            c.latency
                .iter()
                .zip(&c.uncorrected)
                .map(|(l, u)| if u.is_empty() { l.clone() } else { format!("{l} ({u})") })
                .collect::<Vec<_>>()
                .join(" | "),
            c.errors,
            c.wire_bytes,
            c.envelope,
            if c.service_cpu_s.is_empty() { c.cpu_s.clone() } else { format!("{} ({})", c.cpu_s, c.service_cpu_s) },
            if c.service_rss_mib.is_empty() {
                c.rss_mib.clone()
            } else {
                format!("{} ({})", c.rss_mib, c.service_rss_mib)
            },
            c.instrument_cpu_s,
            flags.join(" ")
        );
    }
    put!(out, "\n{TABLE_NOTE}\n");
}

/// One table per dataset, with the published columns where the study measured the dataset.
fn formats_section(out: &mut String, report: &Report) {
    out.push_str("## Formats\n\n");
    for d in &report.formats.datasets {
        dataset_table(out, report, d);
    }
    if report.formats.has_published() {
        put!(out, "> **Note:** {}\n\n{}\n\n", md(&published::slips_note()), md(&published::caveat()));
    }
    for f in [Flag::Noisy, Flag::Failed] {
        put!(out, "- *{}*: {}.\n", f.id(), formats::flag_meaning(f));
    }
    put!(out, "\n{FORMATS_NOTE}\n");
}

fn dataset_table(out: &mut String, report: &Report, d: &Dataset) {
    let objects = d.objects.map_or(String::new(), |n| format!(" ({} objects)", format::thousands(n as f64)));
    put!(out, "### Dataset {}{objects}\n\n", code(d.title()));
    let published = d.has_published();
    let mut columns: Vec<(&str, bool)> = FORMAT_COLUMNS.to_vec();
    if published {
        columns.extend(PUBLISHED_COLUMNS);
    }
    columns.push(FLAGS_COLUMN);
    out.push('|');
    for (label, _) in &columns {
        put!(out, " {label} |");
    }
    out.push_str("\n|");
    for (_, num) in &columns {
        out.push_str(if *num { "--:|" } else { "---|" });
    }
    out.push('\n');
    let with_ci = |v: &str, ci: &str| if ci.is_empty() { v.to_string() } else { format!("{v} [{ci}]") };
    for r in &d.rows {
        let c = FormatCells::of(r, report.run.repeats);
        let mut cells = vec![code(&c.format), md(&c.lang), md(&c.library)];
        cells.extend(c.sizes.iter().zip(&c.size_notes).map(|(v, n)| {
            if n.is_empty() {
                v.clone()
            } else {
                format!("{v} ({n})")
            }
        }));
        cells.extend([
            with_ci(&c.serialize, &c.serialize_ci),
            with_ci(&c.deserialize, &c.deserialize_ci),
            with_ci(&c.total, &c.total_ci),
            c.relative.clone(),
            if c.allocations.is_empty() { c.allocated.clone() } else { format!("{} ({})", c.allocated, c.allocations) },
        ]);
        if published {
            cells.extend([c.published_total.clone(), c.published_bytes.clone(), c.size_vs_published.clone()]);
        }
        let mut flags: Vec<String> = r.flags.iter().map(|f| format!("**{}**", f.id())).collect();
        if let Some(e) = &r.summary.error {
            flags.push(md(e));
        }
        if let Some(n) = &c.repeats_note {
            flags.push(n.clone());
        }
        cells.push(flags.join(" "));
        put!(out, "| {} |\n", cells.join(" | "));
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table_or_inject_markup() {
        assert_eq!(md("a|b <script>\nc & d"), "a\\|b &lt;script&gt; c &amp; d");
        assert_eq!(code("h2c-1kb"), "`h2c-1kb`");
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("<b>"), "`<b>`");
        assert_eq!(code("a`b"), "a\\`b");
    }
}
