//! `wirebench list`: suites with their subjects and scenarios, and the load drivers.

use anyhow::Context;

use crate::cli::ListArgs;
use wirebench_core::suite::Suite;

pub fn list(args: &ListArgs) -> anyhow::Result<()> {
    let mut files: Vec<_> = std::fs::read_dir(&args.suites_dir)
        .with_context(|| format!("cannot read {} (use --suites-dir)", args.suites_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let drivers = wirebench_load::driver_ids();
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
