//! `wirebench build [suite…]`: build what the named suites' rows need, each step once.

use std::time::Instant;

use anyhow::Context;

use crate::cli::BuildArgs;
use wirebench_core::build::Plan;
use wirebench_core::suite::{self, Catalog, Suite};
use wirebench_core::supervisor::Supervisor;

pub fn build(args: &BuildArgs) -> anyhow::Result<()> {
    let root = suite::project_root(&args.suites_dir)?;
    let catalog = Catalog::load(&root)?;
    let paths = if args.suites.is_empty() {
        suite::files(&args.suites_dir)?
    } else {
        args.suites.iter().map(|s| suite::resolve(s, &args.suites_dir)).collect()
    };
    let only = only_glob(args.only.as_deref())?;
    let mut plan = Plan::default();
    for path in &paths {
        if !path.exists() {
            anyhow::bail!("no suite {}: the file does not exist (see `wirebench list`)", path.display());
        }
        let suite = Suite::load_with(path, &root, &catalog, &wirebench_load::Registry)?;
        let profile = match &args.profile {
            Some(name) => Some(suite.profile(name).with_context(|| {
                format!(
                    "unknown profile `{name}` in {}: use one of {}",
                    path.display(),
                    suite.profile_names().join(", ")
                )
            })?),
            None => None,
        };
        plan.add(&suite, only.as_ref(), profile.as_ref());
    }
    let supervisor = Supervisor::unpinned(root.clone(), root.join("target"));
    run_steps(&plan, &supervisor, args.dry_run)
}

/// `--only GLOB` of `build` and `run`, checked.
pub fn only_glob(only: Option<&str>) -> anyhow::Result<Option<glob::Pattern>> {
    only.map(|g| glob::Pattern::new(g).with_context(|| format!("--only `{g}` is not a glob"))).transpose()
}

/// Runs (or prints) each step in order; the first that fails ends the build with its error.
pub fn run_steps(plan: &Plan, supervisor: &Supervisor, dry_run: bool) -> anyhow::Result<()> {
    for step in &plan.steps {
        let dir = step.workdir.as_deref().unwrap_or(".");
        let command = step.argv.join(" ");
        if dry_run {
            println!("(cd {dir} && {command})  # {}", step.needed_by.join(", "));
            continue;
        }
        let who = match step.needed_by.as_slice() {
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} and {} more", rest.len()),
            [] => "nothing".into(),
        };
        eprint!("building {who} in {dir}: {command} ...");
        let started = Instant::now();
        if let Err(e) = supervisor.build(&who, &step.argv, step.workdir.as_deref()) {
            eprintln!(" failed");
            return Err(e.into());
        }
        eprintln!(" {:.1} s", started.elapsed().as_secs_f64());
    }
    Ok(())
}
