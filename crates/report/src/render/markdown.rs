//! `summary.md`: the run's header line and every section as GitHub-flavoured Markdown (charts are
//! in report.html and charts/). It renders the table model and knows no lab; text from files goes
//! through `md` or `code`, so no markup gets through.

use std::fmt::Write;

use crate::charts::Drawn;
use crate::model::Report;
use crate::numbers;
use crate::section::{Block, Section};
use crate::table::{Cell, Span, Table, Text};

macro_rules! put {
    ($out:expr, $($arg:tt)*) => {
        let _ = write!($out, $($arg)*);
    };
}

/// Text safe inside a table cell or a paragraph: pipes escaped, markup as entities, one line.
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

/// A `Text` as Markdown.
fn text(t: &Text) -> String {
    t.0.iter()
        .map(|s| match s {
            Span::Plain(x) => md(x),
            Span::Code(x) => code(x),
            Span::Muted(x) => format!("({})", md(x)),
        })
        .collect()
}

/// The whole `summary.md`.
pub fn summary(report: &Report, sections: &[Section]) -> String {
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
        numbers::gib_from_kib(m.memory_kb),
        md(&m.kernel),
        md(run.git_revision.as_deref().unwrap_or("unknown"))
    );
    out.push_str("Full report with charts: [report.html](report.html).\n\n");
    for w in report.warnings() {
        put!(out, "> **{}** {}\n\n", md(w.title), md(&w.detail));
    }
    for s in sections {
        section(&mut out, s);
    }
    out
}

/// A section: its heading, then each block followed by a blank line; list blocks that follow
/// one another make one list.
pub fn section(out: &mut String, s: &Section) {
    put!(out, "## {}\n\n", md(&s.title));
    let list = |b: &Block| matches!(b, Block::Cards(_) | Block::Failures(..) | Block::Flagged(..) | Block::Legend(_));
    for (i, b) in s.blocks.iter().enumerate() {
        block(out, b);
        if list(b) && !s.blocks.get(i + 1).is_some_and(list) {
            out.push('\n');
        }
    }
}

fn block(out: &mut String, b: &Block) {
    match b {
        Block::Para(_, t) => {
            put!(out, "{}\n\n", text(t));
        }
        Block::Caution(_, t) => {
            put!(out, "> **Note:** {}\n\n", text(t));
        }
        Block::Table(t) => table(out, t, "###"),
        Block::Chart(_) => {}
        Block::Figure(f) => match &f.drawn {
            Drawn::Svg { note, .. } => {
                put!(out, "![{}]({}/{}.svg)\n\n", md(f.title), crate::files::CHARTS_DIR, f.name);
                if let Some(n) = note {
                    put!(out, "*{}*\n\n", md(n));
                }
            }
            Drawn::Skipped(why) => {
                put!(out, "*{}*: not drawn, {}.\n\n", md(f.title), md(why));
            }
        },
        Block::Cards(cards) => {
            for c in cards {
                let ci = c.ci.as_ref().map_or(String::new(), |ci| format!(" (95 % CI {})", md(ci)));
                put!(
                    out,
                    "- **{}**: {} is fastest at {} {}{ci}. {}\n",
                    md(&c.group),
                    code(&c.scenario),
                    md(&c.value),
                    c.unit,
                    text(&c.versus)
                );
            }
        }
        Block::Failures(_, failed) => {
            for f in failed {
                put!(
                    out,
                    "- **Failed** {}: {} ({} of {} repeats completed)\n",
                    code(&f.scenario),
                    md(&f.error),
                    f.ok_repeats,
                    f.repeats
                );
            }
        }
        Block::Flagged(badge, ids) => {
            let ids: Vec<String> = ids.iter().map(|id| code(id)).collect();
            put!(out, "- *{}*: {}: {}.\n", badge.id, ids.join(", "), md(badge.meaning));
        }
        Block::Legend(badges) => {
            for b in badges {
                put!(out, "- *{}*: {}.\n", b.id, md(b.meaning));
            }
        }
        Block::Details(summary, t) => {
            put!(out, "**{}**\n\n", text(summary));
            table(out, t, "###");
        }
    }
}

/// A table under its title; a group with a heading is a table of its own under a heading one
/// level down. Columns marked sparse are left out of a group that has nothing in them.
fn table(out: &mut String, t: &Table, level: &str) {
    let mut group_level = level.to_string();
    if let Some(title) = &t.title {
        put!(out, "{level} {}\n\n", text(title));
        group_level.push('#');
    }
    if t.rows().next().is_none() {
        if let Some(empty) = &t.empty {
            put!(out, "{}\n\n", md(empty));
        }
        return;
    }
    for g in t.groups.iter().filter(|g| !g.rows.is_empty()) {
        if let Some(h) = &g.heading {
            put!(out, "{group_level} {}\n\n", text(h));
        }
        let shown: Vec<usize> = (0..t.columns.len())
            .filter(|&i| !t.columns[i].sparse || g.rows.iter().any(|r| r.cells.get(i).is_some_and(|c| !c.is_blank())))
            .collect();
        out.push('|');
        for &i in &shown {
            put!(out, " {} |", md(&t.columns[i].label));
        }
        out.push_str("\n|");
        for &i in &shown {
            out.push_str(if t.columns[i].num { "--:|" } else { "---|" });
        }
        out.push('\n');
        for r in &g.rows {
            let cells: Vec<String> = shown.iter().map(|&i| r.cells.get(i).map_or(String::new(), cell)).collect();
            put!(out, "| {} |\n", cells.join(" | "));
        }
        out.push('\n');
    }
}

/// A cell on one line: the text (bold when best), then its aside, verdict, badges, expression,
/// note and error; intervals in brackets, other lines in parentheses.
fn cell(c: &Cell) -> String {
    let mut out = text(&c.text);
    if c.best && !out.is_empty() {
        out = format!("**{out}**");
    }
    let mut parts: Vec<String> = Vec::new();
    if let Some(a) = &c.aside {
        parts.push(format!("({})", md(a)));
    }
    if let Some(v) = c.verdict {
        parts.push(format!("**{}**", v.label()));
    }
    parts.extend(c.badges.iter().map(|b| format!("**{}**", b.id)));
    if let Some(e) = &c.error {
        parts.push(md(e));
    }
    if !c.ci.is_empty() {
        parts.push(format!("[{}]", md(&c.ci.join("; "))));
    }
    if !c.sub.is_empty() {
        parts.push(format!("({})", md(&c.sub.join("; "))));
    }
    if c.failed {
        parts.push("(failed)".into());
    }
    for p in parts {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&p);
    }
    if let Some(e) = &c.code {
        put!(out, "<br>{}", code(e));
    }
    if let Some(n) = &c.note {
        put!(out, "<br>*Note:* {}", md(n));
    }
    out
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

    #[test]
    fn a_cell_puts_intervals_in_brackets_and_other_lines_in_parentheses() {
        let c = Cell { best: true, failed: true, ..Cell::new("12 ms") }.ci("11–13 ms").sub("p95 14 ms");
        assert_eq!(cell(&c), "**12 ms** [11–13 ms] (p95 14 ms) (failed)");
        let claim = Cell { code: Some("a / b > 2".into()), ..Cell::new("A is fast") };
        assert_eq!(cell(&claim), "A is fast<br>`a / b > 2`");
    }
}
