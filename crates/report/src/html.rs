//! `report.html`: one self-contained page (inline CSS and SVG; no scripts, fonts or images, so it
//! works offline). Every text that comes from a file is written through `Esc`.

use std::fmt::{self, Display, Write};

use crate::cells::{Cells, FormatCells, COLUMNS, FLAGS_COLUMN, FORMATS_NOTE, FORMAT_COLUMNS, PUBLISHED_COLUMNS};
use crate::cells::{ALLOC_LABEL, ALLOC_TITLE, TABLE_NOTE, TOTAL_LABEL, TOTAL_TITLE};
use crate::charts::{Chart, Drawn};
use crate::format::{self, NONE};
use crate::formats::{self, Dataset};
use crate::model::{Flag, Report, Row, Section};
use crate::parse;
use crate::published;
use crate::realtime;
use crate::restcache;
use crate::wasm;
use wirebench_core::results::ScenarioSummary;

/// Text escaped for HTML element content and quoted attribute values.
pub struct Esc<'a>(pub &'a str);

impl Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '&' => f.write_str("&amp;")?,
                '<' => f.write_str("&lt;")?,
                '>' => f.write_str("&gt;")?,
                '"' => f.write_str("&quot;")?,
                '\'' => f.write_str("&#39;")?,
                c => f.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// `write!` into a `String`, which cannot fail.
macro_rules! put {
    ($out:expr, $($arg:tt)*) => {
        let _ = write!($out, $($arg)*);
    };
}

/// The whole page: header, headline, claims, scenarios, charts (inline), formats and method note.
/// Sections a run has no rows for are left out (`Report::shows`), except claims while there are some.
pub fn page(report: &Report, charts: &[Chart]) -> String {
    let mut h = String::with_capacity(64 * 1024);
    let run = &report.run;
    put!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light\">\n<title>wirebench · {} · {}</title>\n<style>{CSS}{}</style>\n\
         </head>\n<body>\n<main>\n",
        Esc(&run.suite),
        Esc(&run.run_id),
        // Only pages with a formats table carry its rules, so load-only pages stay as they were.
        if report.shows(Section::Formats) { FORMATS_CSS } else { "" }
    );
    header(&mut h, report);
    let load = report.shows(Section::Load);
    if load {
        headline(&mut h, report);
    }
    if load || !report.claims.is_empty() {
        claims(&mut h, report);
    }
    if report.shows(Section::RestCache) {
        restcache_section(&mut h, report);
    }
    if load {
        scenarios(&mut h, report);
        steps(&mut h, report);
        figures(&mut h, charts);
    }
    if report.shows(Section::Formats) {
        formats_section(&mut h, report, charts);
    }
    if report.shows(Section::Parse) {
        parse_section(&mut h, report, charts);
    }
    if report.shows(Section::Realtime) {
        realtime_section(&mut h, report, charts);
    }
    if report.shows(Section::Wasm) {
        wasm_section(&mut h, report, charts);
    }
    method(&mut h, report);
    let links: Vec<String> = std::iter::once(crate::MARKDOWN_FILE)
        .chain(crate::csv::written(report).map(|(name, _)| name))
        .map(|f| format!("<a href=\"{f}\">{f}</a>"))
        .collect();
    put!(
        h,
        "<footer>Also written: {} · charts as SVG in <a href=\"{dir}/\">{dir}/</a></footer>\n</main>\n</body>\n</html>\n",
        links.join(" · "),
        dir = crate::CHARTS_DIR
    );
    h
}

fn header(h: &mut String, report: &Report) {
    let run = &report.run;
    let m = &run.machine;
    put!(h, "<header id=\"run\">\n<p class=\"kicker\">wirebench report</p>\n<h1>{}</h1>\n", Esc(&run.suite));
    if let Some(d) = report.description() {
        put!(h, "<p class=\"lede\">{}</p>\n", Esc(d));
    }
    let finished = run.finished_at.as_deref().unwrap_or("did not finish");
    let pinning = format::pinning(&run.cpus);
    let facts: Vec<(&str, String)> = vec![
        ("Suite file", run.suite_file.clone()),
        ("Profile", run.profile.clone()),
        ("Repeats", run.repeats.to_string()),
        ("Run id", run.run_id.clone()),
        ("Started", run.started_at.clone()),
        ("Finished", finished.to_string()),
        ("Git revision", run.git_revision.clone().unwrap_or_else(|| "unknown".into())),
        ("CPU", format!("{} · {} cores", m.cpu_model, m.cores)),
        ("Memory", format::gib_from_kib(m.memory_kb)),
        ("Kernel", m.kernel.clone()),
        ("OS", m.os.clone()),
        ("CPU pinning", pinning),
    ];
    h.push_str("<dl class=\"facts\">\n");
    for (k, v) in &facts {
        put!(h, "<div><dt>{k}</dt><dd>{}</dd></div>\n", Esc(v));
    }
    if let Some(only) = &run.only {
        put!(h, "<div><dt>Only</dt><dd><code>{}</code></dd></div>\n", Esc(only));
    }
    h.push_str("</dl>\n");
    if !run.versions.is_empty() {
        h.push_str("<details class=\"versions\"><summary>Versions</summary>\n<table id=\"versions\"><tbody>\n");
        for (k, v) in &run.versions {
            put!(h, "<tr><th scope=\"row\">{}</th><td><code>{}</code></td></tr>\n", Esc(k), Esc(v));
        }
        h.push_str("</tbody></table></details>\n");
    }
    h.push_str("</header>\n");
}

fn code(id: &str) -> String {
    format!("<code>{}</code>", Esc(id))
}

fn headline(h: &mut String, report: &Report) {
    h.push_str("<section id=\"headline\">\n<h2>Headline</h2>\n");
    run_warnings(h, report);
    if report.headline.is_empty() {
        h.push_str("<p class=\"muted\">No scenario measured req/s.</p>\n");
    } else {
        h.push_str("<div class=\"cards\">\n");
        for g in &report.headline {
            let row = &report.rows[g.fastest];
            let rps = row.rps().expect("headline rows have req/s");
            let group = report.group_title(g);
            put!(h, "<article class=\"card\">\n<div class=\"card-group\">{} · fastest</div>\n", Esc(&group));
            put!(
                h,
                "<div class=\"card-winner\">{} <span class=\"muted\">{}</span></div>\n",
                code(row.id()),
                Esc(&stack(row))
            );
            put!(
                h,
                "<div class=\"card-value\">{} <span class=\"unit\">req/s</span></div>\n",
                format::thousands(rps.median)
            );
            if let Some((lo, hi)) = rps.ci {
                put!(h, "<div class=\"ci\">95 % CI {}</div>\n", format::interval(lo, hi, format::thousands));
            }
            put!(h, "<p class=\"card-vs\">{}</p>\n</article>\n", report.versus(g, code));
        }
        h.push_str("</div>\n");
    }
    failures(h, "failures", report.failed().map(|r| &r.summary), report.run.repeats);
    for flag in [Flag::Noisy, Flag::InstrumentBound] {
        let ids: Vec<String> = report.flagged(flag).map(|r| code(r.id())).collect();
        if !ids.is_empty() {
            put!(
                h,
                "<div class=\"callout caveat\"><span class=\"badge flag {0}\">{0}</span> {1}: {2}.</div>\n",
                flag.id(),
                ids.join(", "),
                flag.meaning()
            );
        }
    }
    h.push_str("</section>\n");
}

/// Callouts about the run as a whole (`Report::warnings`).
/// A callout listing scenarios with a failed repeat, each with its reason and how many of
/// `repeats` completed; nothing when there are none.
fn failures<'a>(h: &mut String, id: &str, failed: impl Iterator<Item = &'a ScenarioSummary>, repeats: u32) {
    let mut failed = failed.peekable();
    if failed.peek().is_none() {
        return;
    }
    put!(h, "<div class=\"callout failed\" id=\"{id}\"><strong>Failed scenarios</strong>\n<ul>\n");
    for s in failed {
        put!(
            h,
            "<li>{}: <span class=\"err\">{}</span> <span class=\"muted\">({} of {repeats} repeats completed)</span></li>\n",
            code(&s.scenario),
            Esc(s.error.as_deref().unwrap_or("")),
            s.ok_repeats
        );
    }
    h.push_str("</ul></div>\n");
}

fn run_warnings(h: &mut String, report: &Report) {
    for w in report.warnings() {
        put!(h, "<div class=\"callout warn\"><strong>{}</strong> {}</div>\n", Esc(w.title), Esc(&w.detail));
    }
}

/// `h2c · http2 · rest (rust)`.
fn stack(r: &Row) -> String {
    let mut parts: Vec<String> = Vec::new();
    if !r.transport.is_empty() {
        parts.push(r.transport.clone());
    }
    if !r.protocol().is_empty() {
        parts.push(r.protocol().to_string());
    }
    parts.push(format!("{} ({})", r.summary.subject, r.summary.lang));
    parts.join(" · ")
}

fn claims(h: &mut String, report: &Report) {
    h.push_str(
        "<section id=\"claims-section\">\n<h2>Claims</h2>\n<div class=\"scroll\"><table id=\"claims\">\n<thead><tr>\
         <th>Claim</th><th>Published</th><th class=\"num\">Ours (95 % interval)</th><th>Verdict</th><th>Reason</th>\
         </tr></thead>\n<tbody>\n",
    );
    if report.claims.is_empty() {
        h.push_str("<tr><td colspan=\"5\" class=\"muted\">The suite states no claims.</td></tr>\n");
    }
    for j in &report.claims {
        let c = &j.claim;
        let verdict = j.verdict.as_str();
        put!(
            h,
            "<tr class=\"verdict-{verdict}\"><td>{}<div class=\"expr\"><code>{}</code></div></td><td>{}",
            Esc(&c.text),
            Esc(&format::claim_expression(c)),
            Esc(&c.published)
        );
        if let Some(note) = &c.note {
            put!(h, "<div class=\"note\"><strong>Note:</strong> {}</div>", Esc(note));
        }
        let value = j.value.map_or(NONE.to_string(), |v| format::claim_value(c, v));
        put!(h, "</td><td class=\"num\">{}", Esc(&value));
        if let Some((lo, hi)) = j.interval {
            put!(h, "<div class=\"ci\">{}</div>", Esc(&format::interval(lo, hi, |v| format::claim_value(c, v))));
        }
        put!(
            h,
            "</td><td><span class=\"badge {verdict}\">{verdict}</span></td><td>{}</td></tr>\n",
            Esc(format::claim_reason(j))
        );
    }
    h.push_str("</tbody></table></div>\n</section>\n");
}

fn scenarios(h: &mut String, report: &Report) {
    h.push_str("<section id=\"scenarios-section\">\n<h2>Scenarios</h2>\n<div class=\"scroll\"><table id=\"scenarios\">\n<thead><tr>");
    for (label, num) in COLUMNS {
        put!(h, "<th{}>{label}</th>", if *num { " class=\"num\"" } else { "" });
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for r in &report.rows {
        let c = Cells::of(r, report.run.repeats);
        let class = if r.failed() { " class=\"failed\"" } else { "" };
        put!(
            h,
            "<tr{class} data-scenario=\"{}\"><td class=\"id\">{}</td><td>{}<div class=\"sub\">{}</div></td><td>{}</td><td>{}</td>",
            Esc(&c.id),
            code(&c.id),
            Esc(&c.subject),
            Esc(&c.lang),
            Esc(&c.protocol),
            Esc(&c.transport)
        );
        put!(h, "<td class=\"num\">{}<div class=\"sub\">{}</div></td>", Esc(&c.concurrency), Esc(&c.model));
        put!(h, "<td class=\"num\"><strong>{}</strong><div class=\"ci\">{}</div></td>", c.rps, c.rps_ci);
        put!(h, "<td class=\"num\">{}<div class=\"sub\">{}</div></td>", c.messages, c.first_message);
        for (l, u) in c.latency.iter().zip(&c.uncorrected) {
            if u.is_empty() {
                put!(h, "<td class=\"num\">{l}</td>");
            } else {
                put!(h, "<td class=\"num\">{l}<div class=\"sub\">{u}</div></td>");
            }
        }
        let subs = ["", "", "", c.service_cpu_s.as_str(), c.service_rss_mib.as_str(), ""];
        for (v, sub) in
            [&c.errors, &c.wire_bytes, &c.envelope, &c.cpu_s, &c.rss_mib, &c.instrument_cpu_s].iter().zip(subs)
        {
            if sub.is_empty() {
                put!(h, "<td class=\"num\">{v}</td>");
            } else {
                put!(h, "<td class=\"num\">{v}<div class=\"sub\">{sub}</div></td>");
            }
        }
        h.push_str("<td class=\"flags\">");
        for f in &r.flags {
            put!(h, "<span class=\"badge flag {0}\" title=\"{1}\">{0}</span> ", f.id(), f.meaning());
        }
        if let Some(e) = &r.summary.error {
            put!(h, "<div class=\"err\">{}</div>", Esc(e));
        }
        if let Some(n) = &c.repeats_note {
            put!(h, "<div class=\"sub\">{n}</div>");
        }
        h.push_str("</td></tr>\n");
    }
    h.push_str("</tbody></table></div>\n<ul class=\"legend\">\n");
    for f in [Flag::Noisy, Flag::InstrumentBound, Flag::Failed] {
        put!(h, "<li><span class=\"badge flag {0}\">{0}</span> {1}</li>\n", f.id(), f.meaning());
    }
    put!(h, "</ul>\n<p class=\"muted small\">{TABLE_NOTE}</p>\n</section>\n");
}

/// The load charts, under their own heading; the formats charts sit in the formats section.
fn figures(h: &mut String, charts: &[Chart]) {
    h.push_str("<section id=\"charts\">\n<h2>Charts</h2>\n");
    for c in charts.iter().filter(|c| c.section == Section::Load) {
        figure(h, c);
    }
    h.push_str("</section>\n");
}

fn figure(h: &mut String, c: &Chart) {
    match &c.drawn {
        Drawn::Svg { svg, note } => {
            put!(h, "<figure id=\"figure-{}\">\n{svg}", c.name);
            if let Some(n) = note {
                put!(h, "<figcaption>{}</figcaption>\n", Esc(n));
            }
            h.push_str("</figure>\n");
        }
        Drawn::Skipped(why) => {
            put!(
                h,
                "<p class=\"skipped\" id=\"figure-{}\"><strong>{}</strong>: not drawn, {}.</p>\n",
                c.name,
                Esc(c.title),
                Esc(why)
            );
        }
    }
}

/// One table for every dataset (a `tbody` each, so the table keeps one id and one header), the
/// study's numbers beside the rows it measured, then the notes and the formats charts.
fn formats_section(h: &mut String, report: &Report, charts: &[Chart]) {
    let f = &report.formats;
    h.push_str("<section id=\"formats-section\">\n<h2>Formats</h2>\n");
    if !report.shows(Section::Load) {
        run_warnings(h, report);
    }
    let published = f.has_published();
    let mut columns: Vec<(&str, bool)> = FORMAT_COLUMNS.to_vec();
    if published {
        columns.extend(PUBLISHED_COLUMNS);
    }
    columns.push(FLAGS_COLUMN);
    h.push_str("<div class=\"scroll\"><table id=\"formats\">\n<thead><tr>");
    for &(label, num) in &columns {
        let mut class = if num { "num" } else { "" }.to_string();
        let title = if label == TOTAL_LABEL {
            Some(TOTAL_TITLE.to_string())
        } else if label == ALLOC_LABEL {
            Some(ALLOC_TITLE.to_string())
        } else if PUBLISHED_COLUMNS.iter().any(|(p, _)| *p == label) {
            class += " pub";
            Some(published::SOURCE.to_string())
        } else {
            None
        };
        let class = class.trim();
        if !class.is_empty() {
            put!(h, "<th class=\"{class}\"");
        } else {
            h.push_str("<th");
        }
        if let Some(t) = title {
            put!(h, " title=\"{}\"", Esc(&t));
        }
        put!(h, ">{label}</th>");
    }
    h.push_str("</tr></thead>\n");
    for d in &f.datasets {
        dataset_rows(h, report, d, columns.len(), published);
    }
    h.push_str("</table></div>\n");
    if published {
        put!(
            h,
            "<div class=\"note\" id=\"published-note\"><strong>Note:</strong> {}</div>\n\
             <p class=\"muted small\">{}</p>\n",
            Esc(&published::slips_note()),
            Esc(&published::caveat())
        );
    }
    h.push_str("<ul class=\"legend\">\n");
    for fl in [Flag::Noisy, Flag::Failed] {
        put!(h, "<li><span class=\"badge flag {0}\">{0}</span> {1}</li>\n", fl.id(), formats::flag_meaning(fl));
    }
    put!(h, "</ul>\n<p class=\"muted small\">{FORMATS_NOTE}</p>\n");
    for c in charts.iter().filter(|c| c.section == Section::Formats) {
        figure(h, c);
    }
    h.push_str("</section>\n");
}

/// The parse lab: one table (a `tbody` per object), its note and its charts.
fn parse_section(h: &mut String, report: &Report, charts: &[Chart]) {
    h.push_str("<section id=\"parse\">\n<h2>Decoding: JSON vs BSON</h2>\n");
    if !report.shows(Section::Load) {
        run_warnings(h, report);
    }
    h.push_str("<div class=\"scroll\"><table id=\"parse-table\">\n<thead><tr>");
    for &(label, num) in parse::COLUMNS {
        put!(h, "<th{}>{label}</th>", if num { " class=\"num\"" } else { "" });
    }
    h.push_str("</tr></thead>\n");
    let width = parse::COLUMNS.len();
    for o in &report.parse.objects {
        put!(
            h,
            "<tbody data-object=\"{0}\">\n<tr class=\"dataset\"><th colspan=\"{width}\" scope=\"rowgroup\">Object {1}</th></tr>\n",
            Esc(&o.object),
            code(&o.object)
        );
        for r in &o.rows {
            let c = parse::Cells::of(r);
            let class = if r.failed() { " class=\"failed\"" } else { "" };
            put!(h, "<tr{class} data-scenario=\"{}\"><td class=\"id\">{}", Esc(&c.scenario), code(&c.scenario));
            if let Some(e) = &r.summary.error {
                put!(h, "<div class=\"err\">{}</div>", Esc(e));
            }
            h.push_str("</td>");
            for (i, text) in c.texts().iter().enumerate().skip(1) {
                let num = parse::COLUMNS[i].1;
                if i == 5 {
                    put!(
                        h,
                        "<td class=\"num\"><strong>{}</strong><div class=\"ci\">{}</div></td>",
                        Esc(text),
                        Esc(&c.parse_ci)
                    );
                } else {
                    put!(h, "<td{}>{}</td>", if num { " class=\"num\"" } else { "" }, Esc(text));
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n");
    }
    put!(h, "</table></div>\n<p class=\"muted small\">{}</p>\n", Esc(parse::NOTE));
    for c in charts.iter().filter(|c| c.section == Section::Parse) {
        figure(h, c);
    }
    h.push_str("</section>\n");
}

/// The realtime lab: a table of N against series per condition, the header sweep, the failed
/// rows' reasons, the note and the charts.
fn realtime_section(h: &mut String, report: &Report, charts: &[Chart]) {
    let rt = &report.realtime;
    h.push_str("<section id=\"realtime\">\n<h2>WebSocket vs HTTP: time for N messages</h2>\n");
    if !report.shows(Section::Load) {
        run_warnings(h, report);
    }
    if let Some(browser) = rt.rows.iter().find_map(|r| r.runtime()) {
        put!(h, "<p class=\"muted\">In {}, from the page the app serves.</p>\n", code(browser));
    }
    let cell = |h: &mut String, r: Option<&realtime::RealtimeRow>, extra: String| match r {
        Some(r) => {
            let class = if r.failed() { "num failed" } else { "num" };
            put!(
                h,
                "<td class=\"{class}\" data-scenario=\"{}\"><strong>{}</strong>{extra}<div class=\"ci\">{}</div><div class=\"sub\">{}</div></td>",
                Esc(r.id()),
                Esc(&r.time_text()),
                Esc(&r.ci_text()),
                Esc(&r.p95_text())
            );
        }
        None => {
            put!(h, "<td class=\"num\">{NONE}</td>");
        }
    };
    for sweep in rt.sweeps() {
        put!(
            h,
            "<h3>{}</h3>\n<div class=\"scroll\"><table class=\"realtime\" data-condition=\"{}\">\n<thead><tr><th class=\"num\">N</th>",
            Esc(&sweep.condition.label()),
            Esc(&sweep.condition.short())
        );
        for s in &sweep.series {
            put!(h, "<th class=\"num\">{}</th>", Esc(&s.label()));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for (n, row) in sweep.ns.iter().zip(&sweep.cells) {
            put!(h, "<tr><th class=\"num\" scope=\"row\">{}</th>", format::thousands(*n as f64));
            for r in row {
                cell(h, *r, String::new());
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
    for hs in rt.headers() {
        put!(
            h,
            "<h3>Extra request headers: {}, N = {}</h3>\n<div class=\"scroll\"><table class=\"realtime headers\" data-condition=\"{}\">\n<thead><tr><th class=\"num\">Extra headers</th>",
            Esc(&hs.condition.label()),
            format::thousands(hs.n as f64),
            Esc(&hs.condition.short())
        );
        for s in &hs.series {
            put!(h, "<th class=\"num\">{}</th>", Esc(&s.label()));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for (i, (count, row)) in hs.counts.iter().zip(&hs.cells).enumerate() {
            put!(h, "<tr><th class=\"num\" scope=\"row\">{count}</th>");
            for (j, r) in row.iter().enumerate() {
                let ratio = hs.slowdown(i, j).filter(|_| i > 0);
                cell(
                    h,
                    *r,
                    ratio.map_or(String::new(), |x| format!(" <span class=\"sub\">{}</span>", format::ratio(x))),
                );
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
    failures(h, "realtime-failures", rt.failed().map(|r| &r.summary), report.run.repeats);
    put!(h, "<p class=\"muted small\">{}</p>\n", Esc(realtime::NOTE));
    for c in charts.iter().filter(|c| c.section == Section::Realtime) {
        figure(h, c);
    }
    h.push_str("</section>\n");
}

/// Thread-group rows: each step's samples, errors and latency by label, as JMeter's aggregate
/// report (counts over the repeats, latencies the median of the repeats').
fn steps(h: &mut String, report: &Report) {
    let grouped: Vec<&Row> = report.rows.iter().filter(|r| !r.summary.steps.is_empty()).collect();
    if grouped.is_empty() {
        return;
    }
    h.push_str("<section id=\"steps\">\n<h2>Thread groups: each step</h2>\n");
    h.push_str(
        "<p class=\"muted\">Virtual users loop over their group's steps; a wrong answer is its step's error and \
         ends the iteration. Samples and errors over all repeats; latencies are the median of the repeats'.</p>\n",
    );
    for r in grouped {
        let s = &r.summary;
        let rate = s.get("iterations_per_s").map_or(NONE.to_string(), |x| format::number(x.median));
        put!(
            h,
            "<details class=\"steps\"><summary><code>{}</code> · {} iterations/s</summary>\n\
             <table class=\"steps\" data-scenario=\"{}\">\n<thead><tr><th>Step</th><th class=\"num\">Samples</th>\
             <th class=\"num\">Errors</th><th class=\"num\">Mean</th><th class=\"num\">p50</th>\
             <th class=\"num\">p99</th><th class=\"num\">Max</th></tr></thead>\n<tbody>\n",
            Esc(&s.scenario),
            rate,
            Esc(&s.scenario)
        );
        for step in &s.steps {
            put!(
                h,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                Esc(&step.label),
                format::thousands(step.requests as f64),
                format::thousands(step.errors as f64),
                format::latency_us(step.mean_us),
                format::latency_us(step.p50_us),
                format::latency_us(step.p99_us),
                format::latency_us(step.max_us)
            );
        }
        h.push_str("</tbody></table></details>\n");
    }
    h.push_str("</section>\n");
}

/// The REST service study: its cases per implementation, a table per store, then the server side
/// with the service and the database apart.
fn restcache_section(h: &mut String, report: &Report) {
    let rc = &report.restcache;
    h.push_str("<section id=\"restcache\">\n<h2>REST service study: every case per implementation</h2>\n");
    for t in rc.case_tables().iter().chain(rc.resources_table().as_ref()) {
        put!(
            h,
            "<h3>{}</h3>\n<div class=\"scroll\"><table class=\"restcache\" data-table=\"{}\">\n<thead><tr>",
            Esc(&t.title),
            Esc(&t.id)
        );
        for (i, head) in t.head.iter().enumerate() {
            put!(h, "<th{}>{}</th>", if i == 0 { "" } else { " class=\"num\"" }, Esc(head));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for row in &t.rows {
            put!(h, "<tr><th scope=\"row\">{}</th>", Esc(&row.head));
            for c in &row.cells {
                let class = if c.failed { "num failed" } else { "num" };
                let scenario = c.scenario.as_ref().map_or(String::new(), |s| format!(" data-scenario=\"{}\"", Esc(s)));
                let text = if c.best { format!("<strong>{}</strong>", Esc(&c.text)) } else { Esc(&c.text).to_string() };
                put!(h, "<td class=\"{class}\"{scenario}>{text}");
                if let Some(sub) = &c.sub {
                    put!(h, "<div class=\"ci\">{}</div>", Esc(sub));
                }
                h.push_str("</td>");
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
    put!(h, "<p class=\"muted small\">{}</p>\n</section>\n", Esc(restcache::NOTE));
}

/// The wasm lab: the study's two tables, ours beside its numbers, and the chart.
fn wasm_section(h: &mut String, report: &Report, charts: &[Chart]) {
    let w = &report.wasm;
    h.push_str("<section id=\"wasm\">\n<h2>WebAssembly vs JavaScript: kernel time</h2>\n");
    if !report.shows(Section::Load) {
        run_warnings(h, report);
    }
    if let Some(browser) = w.rows.iter().find_map(|r| r.runtime()) {
        put!(h, "<p class=\"muted\">In {}; the study's numbers are from {}.</p>\n", code(browser), Esc(wasm::SOURCE));
    }
    for t in w.tables() {
        put!(
            h,
            "<h3>{}</h3>\n<div class=\"scroll\"><table class=\"wasm\" data-table=\"{}\">\n<thead><tr><th>Kernel</th>",
            Esc(t.title),
            t.id
        );
        for (label, source) in t.columns {
            let class = if matches!(source, wasm::Source::Study(_)) { "num study" } else { "num" };
            put!(h, "<th class=\"{class}\">{}</th>", Esc(label));
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for k in t.kernels {
            put!(h, "<tr><th scope=\"row\">{}</th>", code(k));
            for &(_, source) in t.columns {
                let c = w.cell(k, source);
                let mut class = String::from("num");
                if matches!(source, wasm::Source::Study(_)) {
                    class.push_str(" study");
                }
                if c.row.is_some_and(|r| r.failed()) {
                    class.push_str(" failed");
                }
                let scenario = c.row.map_or(String::new(), |r| format!(" data-scenario=\"{}\"", Esc(r.id())));
                let strong = matches!(source, wasm::Source::Ours { .. } | wasm::Source::Ratio { .. });
                let text = if strong { format!("<strong>{}</strong>", Esc(&c.text)) } else { Esc(&c.text).to_string() };
                put!(h, "<td class=\"{class}\"{scenario}>{text}");
                for line in &c.sub {
                    put!(h, "<div class=\"ci\">{}</div>", Esc(line));
                }
                h.push_str("</td>");
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table></div>\n");
    }
    failures(h, "wasm-failures", w.failed().map(|r| &r.summary), report.run.repeats);
    put!(h, "<p class=\"muted small\">{}</p>\n", Esc(wasm::NOTE));
    for c in charts.iter().filter(|c| c.section == Section::Wasm) {
        figure(h, c);
    }
    h.push_str("</section>\n");
}

/// Escaped, with line-break opportunities after the separators of module paths and Maven
/// coordinates (`github.com/fxamacker/cbor/v2`, `com.fasterxml.jackson.core:jackson-databind`).
fn breakable(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 16);
    for c in name.chars() {
        let mut buf = [0u8; 4];
        put!(out, "{}", Esc(c.encode_utf8(&mut buf)));
        if matches!(c, '/' | ':' | '.') {
            out.push_str("<wbr>");
        }
    }
    out
}

fn dataset_rows(h: &mut String, report: &Report, d: &Dataset, width: usize, published: bool) {
    let objects = d
        .objects
        .map_or(String::new(), |n| format!(" <span class=\"muted\">{} objects</span>", format::thousands(n as f64)));
    put!(
        h,
        "<tbody data-dataset=\"{0}\">\n<tr class=\"dataset\"><th colspan=\"{width}\" scope=\"rowgroup\">Dataset {1}{objects}</th></tr>\n",
        Esc(d.title()),
        code(d.title())
    );
    for r in &d.rows {
        let c = FormatCells::of(r, report.run.repeats);
        let class = if r.failed() { " class=\"failed\"" } else { "" };
        put!(
            h,
            "<tr{class} data-scenario=\"{}\"><td class=\"id\">{}</td><td>{}</td>",
            Esc(&c.scenario),
            code(&c.format),
            Esc(&c.lang)
        );
        // `name@version`: the version goes under the name, so long module paths wrap less.
        match c.library.rsplit_once('@') {
            Some((name, version)) if !name.is_empty() => {
                put!(h, "<td class=\"lib\">{}<div class=\"sub\">{}</div></td>", breakable(name), Esc(version));
            }
            _ => {
                put!(h, "<td class=\"lib\">{}</td>", breakable(&c.library));
            }
        }
        for (size, note) in c.sizes.iter().zip(&c.size_notes) {
            put!(h, "<td class=\"num\">{size}<div class=\"sub\">{note}</div></td>");
        }
        for (value, ci) in [(&c.serialize, &c.serialize_ci), (&c.deserialize, &c.deserialize_ci)] {
            put!(h, "<td class=\"num\"><strong>{value}</strong><div class=\"ci\">{ci}</div></td>");
        }
        put!(
            h,
            "<td class=\"num total\" title=\"{}\"><strong>{}</strong><div class=\"ci\">{}</div></td><td class=\"num\">{}</td>",
            Esc(TOTAL_TITLE),
            c.total,
            c.total_ci,
            c.relative
        );
        put!(h, "<td class=\"num\">{}<div class=\"sub\">{}</div></td>", c.allocated, c.allocations);
        if published {
            let phases = r.published.map_or(String::new(), |p| {
                format!(" title=\"serialize {:.3} + deserialize {:.3} ms\"", p.serialize_ms, p.deserialize_ms)
            });
            // Shaded only on the rows the study measured, so the comparison stands out.
            let class = if r.studied() { "num pub" } else { "num" };
            put!(
                h,
                "<td class=\"{class}\"{phases}>{}</td><td class=\"{class}\">{}</td><td class=\"{class}\">{}</td>",
                c.published_total,
                c.published_bytes,
                c.size_vs_published
            );
        }
        h.push_str("<td class=\"flags\">");
        for fl in &r.flags {
            put!(h, "<span class=\"badge flag {0}\" title=\"{1}\">{0}</span> ", fl.id(), formats::flag_meaning(*fl));
        }
        if let Some(e) = &r.summary.error {
            put!(h, "<div class=\"err\">{}</div>", Esc(e));
        }
        if let Some(n) = &c.repeats_note {
            put!(h, "<div class=\"sub\">{n}</div>");
        }
        h.push_str("</td></tr>\n");
    }
    h.push_str("</tbody>\n");
}

fn method(h: &mut String, report: &Report) {
    h.push_str("<section id=\"method\">\n<h2>Method</h2>\n");
    let load = report.shows(Section::Load);
    if load {
        load_method(h, report);
    }
    if report.shows(Section::Formats) {
        put!(
            h,
            "<p>Each serialization harness measures in its own process. It first checks that every encoding \
             decodes to a value equal to the input (a pair that fails is reported and never timed); then, in \
             each of the {} repeats, it times one encode and one decode of the whole dataset as the median of \
             many samples, after a warm-up. The formats table shows the median over repeats and the 95 % \
             confidence interval of their mean (Student's t), absent with one repeat.{}</p>\n",
            report.run.repeats,
            if load {
                ""
            } else {
                " A claim is confirmed only when its whole interval satisfies it and refuted only when its whole \
                 interval contradicts it; ratios take the conservative interval (low ÷ high to high ÷ low)."
            }
        );
    }
    h.push_str("</section>\n");
}

fn load_method(h: &mut String, report: &Report) {
    put!(
        h,
        "<p>Each scenario ran {} times (profile <code>{}</code>). \
         Numbers are the median over those repeats; the range beside them is the 95 % confidence interval of the \
         mean (Student's t), which narrows as repeats are added and is absent with one repeat. In the \
         <em>closed</em> model each stream sends its next request as soon as the previous one is answered, so \
         req/s is the capacity at that concurrency; in the <em>open</em> model requests arrive at a fixed rate and \
         latency is measured from each request's intended send time, so it is corrected for coordinated \
         omission. A claim is confirmed only when its whole interval satisfies it and refuted only when its \
         whole interval contradicts it; ratios take the conservative interval (low ÷ high to high ÷ low). The \
         headline ranks closed-model scenarios only, since open-model req/s is the offered rate.</p>\n",
        report.run.repeats,
        Esc(&report.run.profile)
    );
}

const CSS: &str = r#"
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--green:#1a7f37;--red:#cf222e;--grey:#6e7781;--amber:#9a6700;--purple:#8250df}
*{box-sizing:border-box}
body{margin:0;background:#fff;color:var(--fg);font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1440px;margin:0 auto;padding:32px 28px 64px}
h1{font-size:30px;line-height:1.2;margin:0 0 6px}
h2{font-size:20px;margin:44px 0 14px;padding-bottom:6px;border-bottom:1px solid var(--line)}
code{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace;font-size:.88em;background:var(--soft);padding:1px 5px;border-radius:4px}
.kicker{margin:0;color:var(--muted);font-size:13px;text-transform:uppercase;letter-spacing:.06em}
.lede{margin:0 0 8px;color:var(--muted);font-size:16px}
.muted{color:var(--muted)}
.small{font-size:13px}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(230px,1fr));gap:10px 28px;margin:20px 0}
.facts dt{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.facts dd{margin:0;overflow-wrap:anywhere}
.versions summary{cursor:pointer;color:var(--muted);font-size:13px}
#versions{width:auto;margin-top:6px}
#versions th{background:none;font-weight:500;color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{padding:7px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
thead th{background:var(--soft);font-weight:600;font-size:13px;white-space:nowrap;border-bottom:2px solid var(--line)}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tbody tr:hover{background:#f6f8fa}
tr.failed{background:#fff5f5}
.scroll{overflow-x:auto}
.ci,.sub{color:var(--muted);font-size:12px;white-space:nowrap}
.expr{margin-top:4px}
.expr code{font-size:12px}
.note{margin-top:4px;font-size:13px;color:var(--amber)}
.err{color:var(--red);font-size:13px;max-width:380px;overflow-wrap:anywhere}
.flags{min-width:120px}
.flags .err{max-width:240px}
td.id code{white-space:nowrap}
#scenarios{font-size:13px}
#scenarios th,#scenarios td{padding:6px 7px}
#scenarios thead th{white-space:normal;vertical-align:bottom;min-width:3.5em}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;line-height:1.6;white-space:nowrap;border:1px solid transparent}
.badge.confirmed{background:var(--green);color:#fff}
.badge.refuted{background:var(--red);color:#fff}
.badge.inconclusive{background:#eaeef2;color:var(--grey);border-color:#d0d7de}
.badge.flag.noisy{background:#fff8c5;color:var(--amber);border-color:#d4a72c}
.badge.flag.instrument-bound{background:#fbefff;color:var(--purple);border-color:#d8b9ff}
.badge.flag.failed{background:var(--red);color:#fff}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px;margin-bottom:16px}
.card{border:1px solid var(--line);border-radius:10px;padding:16px 18px;background:#fff;box-shadow:0 1px 2px rgba(31,35,40,.06)}
.card-group{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
.card-winner{margin:6px 0 2px;font-size:16px}
.card-value{font-size:28px;font-weight:650;font-variant-numeric:tabular-nums}
.card-value .unit{font-size:15px;font-weight:500;color:var(--muted)}
.card-vs{margin:8px 0 0;font-size:14px}
.callout{border-left:4px solid var(--line);background:var(--soft);padding:10px 14px;margin:10px 0;border-radius:0 6px 6px 0;font-size:14px}
.callout ul{margin:6px 0 0;padding-left:20px}
.callout.failed{border-color:var(--red);background:#fff5f5}
.callout.failed strong{color:var(--red)}
.callout.warn{border-color:#d4a72c;background:#fff8c5}
.legend{list-style:none;padding:0;margin:10px 0 0;font-size:13px;color:var(--muted)}
.legend li{margin:3px 0}
figure{margin:0 0 28px}
svg.chart{display:block;max-width:100%;height:auto;border:1px solid var(--line);border-radius:10px}
figcaption{font-size:13px;color:var(--muted);margin-top:6px}
.skipped{color:var(--muted);font-size:14px}
#method p{max-width:80ch}
footer{margin-top:48px;padding-top:12px;border-top:1px solid var(--line);font-size:13px;color:var(--muted)}
a{color:#0969da}
"#;

/// Rules of the formats table, added to `CSS` on pages that have one.
const FORMATS_CSS: &str = r#"#formats{font-size:13px}
#formats th,#formats td{padding:6px 7px}
#formats thead th{white-space:normal;vertical-align:bottom;min-width:3.5em}
#formats tr.dataset th{background:#fff;border-bottom:2px solid var(--line);padding-top:18px;font-size:15px}
#formats tbody:first-of-type tr.dataset th{padding-top:8px}
#formats td.lib{font-size:12px;overflow-wrap:break-word;min-width:9em;max-width:16em}
#formats td.total strong{font-size:14px}
#formats .pub{background:#fbf7ee}
#formats thead th.pub{background:#f5ecd7}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names_break_after_separators_and_stay_escaped() {
        assert_eq!(breakable("a.b:c/<d>"), "a.<wbr>b:<wbr>c/<wbr>&lt;d&gt;");
    }

    #[test]
    fn escaping_covers_markup_and_quotes() {
        assert_eq!(
            Esc(r#"<script>alert("x")</script> & 'y'"#).to_string(),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
    }
}
