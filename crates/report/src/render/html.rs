//! `report.html`: one self-contained page (inline CSS and SVG; no scripts, fonts or images, so it
//! works offline): the run's header, then every section. It renders the table model and knows no
//! lab; every text that comes from a file is written through `Esc`.

use std::fmt::{self, Display, Write};

use crate::charts::{Drawn, Figure};
use crate::model::Report;
use crate::numbers;
use crate::section::{Block, Card, Failure, Para, Section};
use crate::table::{Badge, Cell, Column, Span, Table, Text};

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

/// The whole page: the header, the run's warnings, every section, and links to the other files.
pub fn page(report: &Report, sections: &[Section], csv: &[&str]) -> String {
    let mut h = String::with_capacity(64 * 1024);
    let run = &report.run;
    put!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light\">\n<title>wirebench · {} · {}</title>\n<style>{CSS}</style>\n\
         </head>\n<body>\n<main>\n",
        Esc(&run.suite),
        Esc(&run.run_id),
    );
    header(&mut h, report);
    for w in report.warnings() {
        put!(h, "<div class=\"callout warn\"><strong>{}</strong> {}</div>\n", Esc(w.title), Esc(&w.detail));
    }
    for s in sections {
        section(&mut h, s);
    }
    let links: Vec<String> = std::iter::once(crate::files::MARKDOWN_FILE)
        .chain(csv.iter().copied())
        .map(|f| format!("<a href=\"{f}\">{f}</a>"))
        .collect();
    put!(
        h,
        "<footer>Also written: {} · charts as SVG in <a href=\"{dir}/\">{dir}/</a></footer>\n</main>\n</body>\n</html>\n",
        links.join(" · "),
        dir = crate::files::CHARTS_DIR
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
    let facts: Vec<(&str, String)> = vec![
        ("Suite file", run.suite_file.clone()),
        ("Profile", run.profile.clone()),
        ("Repeats", run.repeats.to_string()),
        ("Run id", run.run_id.clone()),
        ("Started", run.started_at.clone()),
        ("Finished", finished.to_string()),
        ("Git revision", run.git_revision.clone().unwrap_or_else(|| "unknown".into())),
        ("CPU", format!("{} · {} cores", m.cpu_model, m.cores)),
        ("Memory", numbers::gib_from_kib(m.memory_kb)),
        ("Kernel", m.kernel.clone()),
        ("OS", m.os.clone()),
        ("CPU pinning", numbers::pinning(&run.cpus)),
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

fn section(h: &mut String, s: &Section) {
    put!(h, "<section id=\"{}\">\n<h2>{}</h2>\n", Esc(&s.id), Esc(&s.title));
    for b in &s.blocks {
        block(h, b);
    }
    h.push_str("</section>\n");
}

fn block(h: &mut String, b: &Block) {
    match b {
        Block::Para(style, t) => {
            let class = match style {
                Para::Plain => "",
                Para::Lede => " class=\"muted\"",
                Para::Small => " class=\"muted small\"",
            };
            put!(h, "<p{class}>{}</p>\n", text(t));
        }
        Block::Caution(id, t) => {
            put!(h, "<div class=\"note\" id=\"{id}\"><strong>Note:</strong> {}</div>\n", text(t));
        }
        Block::Table(t) => table(h, t),
        Block::Chart(_) => {}
        Block::Figure(f) => figure(h, f),
        Block::Cards(cards) => {
            h.push_str("<div class=\"cards\">\n");
            for c in cards {
                card(h, c);
            }
            h.push_str("</div>\n");
        }
        Block::Failures(id, failed) => failures(h, id, failed),
        Block::Flagged(badge, ids) => {
            let ids: Vec<String> = ids.iter().map(|id| code(id)).collect();
            put!(
                h,
                "<div class=\"callout caveat\"><span class=\"badge flag {0}\">{0}</span> {1}: {2}.</div>\n",
                badge.id,
                ids.join(", "),
                Esc(badge.meaning)
            );
        }
        Block::Legend(badges) => {
            h.push_str("<ul class=\"legend\">\n");
            for b in badges {
                put!(h, "<li><span class=\"badge flag {0}\">{0}</span> {1}</li>\n", b.id, Esc(b.meaning));
            }
            h.push_str("</ul>\n");
        }
        Block::Details(summary, t) => {
            put!(h, "<details class=\"steps\"><summary>{}</summary>\n", text(summary));
            table(h, t);
            h.push_str("</details>\n");
        }
    }
}

fn code(id: &str) -> String {
    format!("<code>{}</code>", Esc(id))
}

/// A `Text` as markup.
fn text(t: &Text) -> String {
    let mut out = String::new();
    for s in &t.0 {
        match s {
            Span::Plain(x) => {
                put!(out, "{}", Esc(x));
            }
            Span::Code(x) => out.push_str(&code(x)),
            Span::Muted(x) => {
                put!(out, "<span class=\"muted\">{}</span>", Esc(x));
            }
        }
    }
    out
}

fn card(h: &mut String, c: &Card) {
    put!(h, "<article class=\"card\">\n<div class=\"card-group\">{} · fastest</div>\n", Esc(&c.group));
    put!(h, "<div class=\"card-winner\">{} <span class=\"muted\">{}</span></div>\n", code(&c.scenario), Esc(&c.stack));
    put!(h, "<div class=\"card-value\">{} <span class=\"unit\">{}</span></div>\n", Esc(&c.value), c.unit);
    if let Some(ci) = &c.ci {
        put!(h, "<div class=\"ci\">95 % CI {}</div>\n", Esc(ci));
    }
    put!(h, "<p class=\"card-vs\">{}</p>\n</article>\n", text(&c.versus));
}

/// A callout listing scenarios with a failed repeat, each with its reason and how many repeats
/// completed.
fn failures(h: &mut String, id: &str, failed: &[Failure]) {
    put!(h, "<div class=\"callout failed\" id=\"{id}\"><strong>Failed scenarios</strong>\n<ul>\n");
    for f in failed {
        put!(
            h,
            "<li>{}: <span class=\"err\">{}</span> <span class=\"muted\">({} of {} repeats completed)</span></li>\n",
            code(&f.scenario),
            Esc(&f.error),
            f.ok_repeats,
            f.repeats
        );
    }
    h.push_str("</ul></div>\n");
}

fn figure(h: &mut String, f: &Figure) {
    match &f.drawn {
        Drawn::Svg { svg, note } => {
            put!(h, "<figure id=\"figure-{}\">\n{svg}", f.name);
            if let Some(n) = note {
                put!(h, "<figcaption>{}</figcaption>\n", Esc(n));
            }
            h.push_str("</figure>\n");
        }
        Drawn::Skipped(why) => {
            put!(
                h,
                "<p class=\"skipped\" id=\"figure-{}\"><strong>{}</strong>: not drawn, {}.</p>\n",
                f.name,
                Esc(f.title),
                Esc(why)
            );
        }
    }
}

/// A table: its title, header row, and a `tbody` per group (with a heading row when the group
/// has one).
fn table(h: &mut String, t: &Table) {
    if let Some(title) = &t.title {
        put!(h, "<h3>{}</h3>\n", text(title));
    }
    let class = if t.dense { " class=\"dense\"" } else { "" };
    put!(h, "<div class=\"scroll\"><table id=\"{}\"{class}>\n<thead><tr>", Esc(&t.id));
    for c in &t.columns {
        put!(h, "<th{}", classes(&[(c.num, "num"), (c.shade, "shade")]));
        if let Some(title) = &c.title {
            put!(h, " title=\"{}\"", Esc(title));
        }
        put!(h, ">{}</th>", Esc(&c.label));
    }
    h.push_str("</tr></thead>\n");
    let width = t.columns.len();
    if t.rows().next().is_none() {
        if let Some(empty) = &t.empty {
            put!(h, "<tbody>\n<tr><td colspan=\"{width}\" class=\"muted\">{}</td></tr>\n</tbody>\n", Esc(empty));
        }
    }
    for g in t.groups.iter().filter(|g| !g.rows.is_empty()) {
        match &g.key {
            Some(key) => {
                put!(h, "<tbody data-group=\"{}\">\n", Esc(key));
            }
            None => h.push_str("<tbody>\n"),
        }
        if let Some(heading) = &g.heading {
            put!(h, "<tr class=\"group\"><th colspan=\"{width}\" scope=\"rowgroup\">{}</th></tr>\n", text(heading));
        }
        for r in &g.rows {
            put!(h, "<tr{}", classes(&[(r.failed, "failed")]));
            if let Some(s) = &r.scenario {
                put!(h, " data-scenario=\"{}\"", Esc(s));
            }
            h.push('>');
            for (i, c) in r.cells.iter().enumerate() {
                let column = t.columns.get(i).cloned().unwrap_or_default();
                cell(h, c, &column, r.head && i == 0);
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n");
    }
    h.push_str("</table></div>\n");
}

/// ` class="a b"` of the classes whose condition holds, or nothing.
fn classes(set: &[(bool, &str)]) -> String {
    let on: Vec<&str> = set.iter().filter(|(on, _)| *on).map(|&(_, c)| c).collect();
    if on.is_empty() {
        String::new()
    } else {
        format!(" class=\"{}\"", on.join(" "))
    }
}

fn cell(h: &mut String, c: &Cell, column: &Column, head: bool) {
    let tag = if head { "th" } else { "td" };
    put!(
        h,
        "<{tag}{}",
        classes(&[
            (column.num, "num"),
            (column.wrap, "wrap"),
            (c.shade, "shade"),
            (c.failed, "failed"),
            (!c.badges.is_empty() || c.error.is_some() && c.text.is_empty(), "flags")
        ])
    );
    if head {
        h.push_str(" scope=\"row\"");
    }
    if let Some(s) = &c.scenario {
        put!(h, " data-scenario=\"{}\"", Esc(s));
    }
    if let Some(t) = &c.title {
        put!(h, " title=\"{}\"", Esc(t));
    }
    h.push('>');
    let body = if column.wrap { breakable_text(&c.text) } else { text(&c.text) };
    if c.main || c.best {
        put!(h, "<strong>{body}</strong>");
    } else {
        h.push_str(&body);
    }
    if let Some(a) = &c.aside {
        put!(h, " <span class=\"sub\">{}</span>", Esc(a));
    }
    if let Some(v) = c.verdict {
        put!(h, "<span class=\"badge {}\">{}</span>", v.as_str(), v.label());
    }
    for Badge { id, meaning } in &c.badges {
        put!(h, "<span class=\"badge flag {id}\" title=\"{}\">{id}</span> ", Esc(meaning));
    }
    if let Some(e) = &c.code {
        put!(h, "<div class=\"expr\">{}</div>", code(e));
    }
    if let Some(n) = &c.note {
        put!(h, "<div class=\"note\"><strong>Note:</strong> {}</div>", Esc(n));
    }
    if let Some(e) = &c.error {
        put!(h, "<div class=\"err\">{}</div>", Esc(e));
    }
    for line in &c.ci {
        put!(h, "<div class=\"ci\">{}</div>", Esc(line));
    }
    for line in &c.sub {
        put!(h, "<div class=\"sub\">{}</div>", Esc(line));
    }
    put!(h, "</{tag}>");
}

/// A text whose plain spans may break after the separators of module paths and Maven coordinates
/// (`github.com/fxamacker/cbor/v2`, `com.fasterxml.jackson.core:jackson-databind`).
fn breakable_text(t: &Text) -> String {
    let mut out = String::new();
    for s in &t.0 {
        match s {
            Span::Plain(x) => out.push_str(&breakable(x)),
            other => out.push_str(&text(&Text(vec![other.clone()]))),
        }
    }
    out
}

/// Escaped, with line-break opportunities after `/`, `:` and `.`.
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
td>code,th>code{white-space:nowrap}
table.dense{font-size:13px}
table.dense th,table.dense td{padding:6px 7px}
table.dense thead th{white-space:normal;vertical-align:bottom;min-width:3.5em}
tr.group th{background:#fff;border-bottom:2px solid var(--line);padding-top:18px;font-size:15px}
tbody:first-of-type tr.group th{padding-top:8px}
td.wrap{font-size:12px;overflow-wrap:break-word;min-width:9em;max-width:16em}
.shade{background:#fbf7ee}
thead th.shade{background:#f5ecd7}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;line-height:1.6;white-space:nowrap;border:1px solid transparent}
.badge.confirmed{background:var(--green);color:#fff}
.badge.refuted{background:var(--red);color:#fff}
.badge.inconclusive{background:#eaeef2;color:var(--grey);border-color:#d0d7de}
.badge.differs-in-size{background:#ffe7d1;color:#953800;border-color:#e8a86f}
.badge.no-difference{background:#ddf4ff;color:#0550ae;border-color:#80ccff}
.badge.not-judged{background:#fbefff;color:var(--purple);border-color:#d8b9ff}
.badge.not-run{background:#fff;color:var(--grey);border-color:#d0d7de;border-style:dashed}
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
