//! `wirebench list`: suites with their subjects and scenarios, and the load drivers.

use std::io::Write;

use anyhow::Context;

use crate::cli::ListArgs;
use wirebench_core::suite::{self, Catalog, Suite};

pub fn list(args: &ListArgs) -> anyhow::Result<()> {
    let root = suite::project_root(&args.suites_dir)?;
    if let (Some(suite), Some(group)) = (&args.suite, &args.data) {
        return print_data(&suite::resolve(suite, &args.suites_dir), &root, group);
    }
    let catalog = Catalog::load(&root)?;
    let files = match &args.suite {
        Some(suite) => vec![suite::resolve(suite, &args.suites_dir)],
        None => suite::files(&args.suites_dir)?,
    };
    println!("Suites ({}):", args.suites_dir.display());
    for f in files {
        match Suite::load_with(&f, &root, &catalog, &wirebench_load::Registry) {
            Ok(s) => {
                let file = f.display().to_string();
                println!("  {:<12} {}", s.name, s.description);
                for (name, subject) in &s.subjects {
                    let from = s.source_of(&format!("subjects.{name}"), &file);
                    let what = subject.url.clone().unwrap_or_else(|| subject.command.join(" "));
                    println!("    subject  {name} ({}): {what}  [{from}]", subject.lang);
                }
                for (name, service) in &s.services {
                    let from = s.source_of(&format!("services.{name}"), &file);
                    println!("    service  {name}: {}  [{from}]", service.command.join(" "));
                }
                let ids: Vec<&str> = s.scenarios.iter().map(|x| x.id.as_str()).collect();
                if !ids.is_empty() {
                    println!("    {} scenarios: {}", ids.len(), ids.join(", "));
                }
                for h in &s.harnesses {
                    let from = s.source_of(&format!("harnesses.{}", h.id), &file);
                    println!("    harness  {} ({}): rows {}  [{from}]", h.id, h.lang, h.scenarios.join(", "));
                }
                if !s.claims.is_empty() {
                    println!("    {} claims", s.claims.len());
                }
            }
            Err(e) => println!("  (invalid) {e}"),
        }
    }
    println!("Drivers:");
    for d in wirebench_load::DRIVERS {
        let schemes: Vec<String> = d.schemes.iter().map(|(s, _)| format!("{s}://")).collect();
        println!("  {:<10} {} [{}]", d.id, d.help, schemes.join(" "));
    }
    Ok(())
}

/// A thread group's data set as CSV on stdout: the header, then one row per line.
fn print_data(path: &std::path::Path, root: &std::path::Path, group: &str) -> anyhow::Result<()> {
    let suite = Suite::load(path, root, &wirebench_load::Registry).map_err(|e| anyhow::anyhow!(e))?;
    let spec = suite.groups.get(group).with_context(|| format!("{} has no thread group `{group}`", path.display()))?;
    let spec = spec.data.as_ref().with_context(|| format!("thread group `{group}` has no data set"))?;
    let set = suite::groups::load_data(spec, root)
        .map_err(|m| anyhow::anyhow!("{}: groups.{group}.data: {m}", path.display()))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{}", set.columns.join(","))?;
    for row in &set.rows {
        writeln!(out, "{}", row.join(","))?;
    }
    out.flush()?;
    Ok(())
}
