//! `wirebench list`: suites with their subjects and scenarios, and the load drivers.

use std::io::Write;

use anyhow::Context;

use crate::cli::ListArgs;
use wirebench_core::suite::{self, Suite};

pub fn list(args: &ListArgs) -> anyhow::Result<()> {
    let drivers = wirebench_load::driver_ids();
    if let (Some(suite), Some(group)) = (&args.suite, &args.data) {
        return print_data(&suite::resolve(suite, &args.suites_dir), group, &drivers);
    }
    let files = match &args.suite {
        Some(suite) => vec![suite::resolve(suite, &args.suites_dir)],
        None => {
            let mut files: Vec<_> = std::fs::read_dir(&args.suites_dir)
                .with_context(|| format!("cannot read {} (use --suites-dir)", args.suites_dir.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            files
        }
    };
    println!("Suites ({}):", args.suites_dir.display());
    for f in files {
        match Suite::load(&f, &drivers) {
            Ok(s) => {
                println!("  {:<12} {}", s.name, s.description);
                for (name, subject) in &s.subjects {
                    println!("    subject  {name} ({}): {}", subject.lang, subject.command.join(" "));
                }
                let ids: Vec<&str> = s.scenarios.iter().map(|x| x.id.as_str()).collect();
                println!("    {} scenarios: {}", ids.len(), ids.join(", "));
                if !s.claims.is_empty() {
                    println!("    {} claims", s.claims.len());
                }
            }
            Err(e) => println!("  (invalid) {e}"),
        }
    }
    println!("Drivers:");
    for wirebench_load::DriverInfo { id, help, .. } in wirebench_load::DRIVERS {
        println!("  {id:<10} {help}");
    }
    Ok(())
}

/// A thread group's data set as CSV on stdout: the header, then one row per line.
fn print_data(path: &std::path::Path, group: &str, drivers: &[&str]) -> anyhow::Result<()> {
    let suite = Suite::load(path, drivers).map_err(|e| anyhow::anyhow!(e))?;
    let spec = suite.groups.get(group).with_context(|| format!("{} has no thread group `{group}`", path.display()))?;
    let spec = spec.data.as_ref().with_context(|| format!("thread group `{group}` has no data set"))?;
    let set = suite::groups::load_data(spec, std::path::Path::new("."))
        .map_err(|m| anyhow::anyhow!("{}: groups.{group}.data: {m}", path.display()))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{}", set.columns.join(","))?;
    for row in &set.rows {
        writeln!(out, "{}", row.join(","))?;
    }
    out.flush()?;
    Ok(())
}
