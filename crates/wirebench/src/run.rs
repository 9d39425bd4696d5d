//! `wirebench run`: load the suite, build its subjects, pin CPUs, run, render the report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::cli::RunArgs;
use crate::progress::Bar;
use wirebench_core::build::Plan;
use wirebench_core::claims::Verdict;
use wirebench_core::runner::{self, RunOptions};
use wirebench_core::suite::{self, Suite, UntilDecided};
use wirebench_core::supervisor::Supervisor;
use wirebench_core::{machine, now_utc, stamp_utc};
use wirebench_fleet::Coordinator;
use wirebench_load::LoadEngine;

/// The claims of the suite `name` (in `suites_dir`, or a path) as written now, checked as a run
/// would check them, for `wirebench report --claims`.
pub fn claims_of(name: &str, suites_dir: &Path) -> anyhow::Result<wirebench_report::ClaimsFrom> {
    let path = suite::resolve(name, suites_dir);
    if !path.exists() {
        bail!("no suite `{name}`: {} does not exist (see `wirebench list`)", path.display());
    }
    let root = suite::project_root(suites_dir)?;
    let suite = Suite::load(&path, &root, &wirebench_load::Registry)?;
    Ok(wirebench_report::ClaimsFrom::of(path.display().to_string(), suite))
}

/// What a run ended with, for its exit code.
pub struct Ended {
    /// Scenarios with a failed repeat.
    pub failed: usize,
    /// Claims whose verdict `--fail-on` names.
    pub gated: usize,
}

/// Runs the suite and writes its report; returns how many scenarios failed and claims the gate
/// names.
pub fn run(args: &RunArgs) -> anyhow::Result<Ended> {
    // The gate's verdicts are checked before anything runs: a typo must not cost a run.
    let gate: Vec<Verdict> = args
        .fail_on
        .iter()
        .map(|id| Verdict::parse(id.trim()))
        .collect::<Result<_, _>>()
        .map_err(|e| anyhow::anyhow!("--fail-on: {e}"))?;
    let path = suite::resolve(&args.suite, &args.suites_dir);
    let in_checkout = args.suites_dir.is_dir();
    if !path.exists() {
        if !in_checkout && path.starts_with(&args.suites_dir) {
            bail!(
                "no suite `{}`: no {} here: the built-in suites live in the wirebench repository (run from its \
                 root), or give a suite file (`wirebench run my-api.toml`)",
                args.suite,
                args.suites_dir.display()
            );
        }
        bail!("no suite `{}`: {} does not exist (see `wirebench list`)", args.suite, path.display());
    }
    // Outside a checkout a suite file stands alone (URL subjects, subjects it declares itself):
    // its paths are relative to its own directory.
    let root = if in_checkout {
        suite::project_root(&args.suites_dir)?
    } else {
        std::path::absolute(path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?
    };
    let suite = Suite::load(&path, &root, &wirebench_load::Registry)?;
    for (name, subject) in suite.subjects.iter().filter(|(_, s)| s.url.is_some() && s.pid.is_none()) {
        let url = subject.url.as_deref().unwrap_or_default();
        if wirebench_core::runner::url_target(subject, &root).is_loopback() {
            eprintln!(
                "subject `{name}` ({url}) runs on this machine: give its `pid` so its work is the run's, not foreign \
                 load (its repeats would read as contended), and pin it to the subject's CPUs (--cpus)"
            );
        }
    }
    let profile_name = args.profile.clone().unwrap_or_else(|| suite.default_profile.clone());
    let mut profile = suite.profile(&profile_name).with_context(|| {
        format!("unknown profile `{profile_name}`: use one of {}", suite.profile_names().join(", "))
    })?;
    if let Some(max_repeats) = args.until_decided {
        let limits = UntilDecided { max_repeats, budget_s: args.budget_s };
        limits
            .check(profile.repeats)
            .map_err(|e| anyhow::anyhow!("--until-decided with profile `{profile_name}`: {e}"))?;
        profile.until_decided = Some(limits);
    }
    let only = crate::build::only_glob(args.only.as_deref())?;
    if let Some(pattern) = &only {
        let skipped = suite.skipped(&profile, pattern);
        if suite.plan(&profile, Some(pattern)).is_empty() && suite.harnesses_matching(Some(pattern)).is_empty() {
            if !skipped.is_empty() {
                bail!(
                    "--only `{}`: profile `{profile_name}` skips every scenario it selects ({})",
                    pattern.as_str(),
                    profile.skip.join(", ")
                );
            }
            bail!("--only `{}` matches no scenario of suite `{}`", pattern.as_str(), suite.name);
        }
        if !skipped.is_empty() {
            eprintln!(
                "--only `{}`: profile `{profile_name}` leaves out {} of the rows it selects ({})",
                pattern.as_str(),
                skipped.len(),
                profile.skip.join(", ")
            );
        }
    }
    let cpus = machine::cpu_sets(args.cpus.as_deref())?;
    let out_dir = unique_dir(&args.out, &suite.name);
    // Workers on other machines reach the subjects only if they listen beyond loopback.
    let remote = args.workers.is_some()
        && !args.advertise.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        && args.advertise != "localhost";
    let supervisor = Supervisor {
        root: root.clone(),
        log_dir: out_dir.clone(),
        cpus: cpus.subject.clone(),
        listen: remote.then(|| "0.0.0.0".to_string()),
    };
    if args.workers.is_some() && !(args.worker_timeout >= 15.0 && args.worker_timeout.is_finite()) {
        bail!("--worker-timeout must be 15 seconds or more (workers say they are alive every 5 s)");
    }

    if !args.no_build {
        // Before pinning: builds may use every core.
        let mut plan = Plan::default();
        plan.add(&suite, only.as_ref(), Some(&profile));
        crate::build::run_steps(&plan, &supervisor, false)?;
    }
    // Threads and processes started from here on inherit the load engine's CPUs; subjects are
    // re-pinned to theirs between fork and exec.
    machine::pin_current_thread(&cpus.load)?;
    let threads = if cpus.load.is_empty() { machine::online_cpus().len() } else { cpus.load.len() };
    let opts = RunOptions {
        run_id: out_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        started_at: now_utc(),
        suite_file: path.display().to_string(),
        profile_name,
        profile,
        only: args.only.clone(),
        out_dir,
        cpus,
        versions: versions(),
        git_revision: git_revision(&root),
        root,
        clock: now_utc,
        seed: args.seed.unwrap_or_else(fresh_seed),
        // Workers are processes outside the run (on this machine or others): their load would
        // read as foreign work on the run's CPUs.
        sensor: match args.workers {
            None => wirebench_core::contention::Sensor::Proc,
            Some(_) => wirebench_core::contention::Sensor::Off,
        },
    };
    eprintln!("results: {}", opts.out_dir.display());
    let progress = Bar::new();
    let dir = match args.workers {
        None => runner::run(&suite, &opts, &supervisor, &LoadEngine { threads }, &progress)?,
        Some(n) => {
            let coordinator = Coordinator::start(
                args.listen,
                n,
                args.advertise.clone(),
                suite.groups.clone(),
                std::time::Duration::from_secs_f64(args.worker_timeout),
                threads,
            )?;
            eprintln!(
                "waiting for {n} workers: wirebench worker --coordinator http://{}:{} --worker I/{n}",
                args.advertise,
                args.listen.port()
            );
            let dir = runner::run(&suite, &opts, &supervisor, &coordinator, &progress);
            coordinator.finish();
            dir?
        }
    };
    let rendered = wirebench_report::render(&dir)?;
    if rendered.failed > 0 {
        eprintln!("{} scenario(s) failed: see the report", rendered.failed);
    }
    let gated: Vec<String> = rendered
        .verdicts
        .iter()
        .filter(|(_, v)| gate.contains(v))
        .map(|(id, v)| format!("{id} ({})", v.label()))
        .collect();
    if !gated.is_empty() {
        eprintln!("--fail-on: {} claim(s): {}", gated.len(), gated.join(", "));
    }
    if let Some(file) = &args.junit {
        let failing = if gate.is_empty() { vec![Verdict::Refuted] } else { gate.clone() };
        std::fs::write(file, junit(&suite.name, &rendered.verdicts, &failing))
            .with_context(|| format!("--junit {}", file.display()))?;
    }
    println!("{}", rendered.html.display());
    Ok(Ended { failed: rendered.failed, gated: gated.len() })
}

/// The claims as JUnit XML: a test suite named after the wirebench suite, a test case per claim,
/// failed when its verdict is one of `failing`.
fn junit(suite: &str, verdicts: &[(String, Verdict)], failing: &[Verdict]) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
    };
    let failures = verdicts.iter().filter(|(_, v)| failing.contains(v)).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">\n",
        esc(suite),
        verdicts.len()
    );
    for (id, v) in verdicts {
        let case = format!("    <testcase classname=\"{}\" name=\"{}\"", esc(suite), esc(id));
        if failing.contains(v) {
            out += &format!("{case}>\n      <failure message=\"{}\"/>\n    </testcase>\n", v.label());
        } else {
            out += &format!("{case}/>\n");
        }
    }
    out + "  </testsuite>\n</testsuites>\n"
}

/// `results/<UTC-timestamp>-<suite>`, with a suffix if two runs start in the same second.
fn unique_dir(base: &Path, suite: &str) -> PathBuf {
    let stamp = stamp_utc();
    let mut dir = runner::results_dir(base, &stamp, suite);
    let mut n = 2;
    while dir.exists() {
        dir = runner::results_dir(base, &format!("{stamp}.{n}"), suite);
        n += 1;
    }
    dir
}

fn versions() -> BTreeMap<String, String> {
    let mut v: BTreeMap<String, String> = env!("WIREBENCH_LIB_VERSIONS")
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    v.insert("wirebench".into(), env!("CARGO_PKG_VERSION").into());
    v
}

fn git_revision(root: &Path) -> Option<String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let rev = git(&["rev-parse", "--short", "HEAD"])?;
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{rev}-dirty") } else { rev })
}

/// A seed for a run's round orders when none is given: the clock's nanoseconds and the process
/// id, mixed (splitmix64's finaliser), so runs started together still draw different orders.
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut z = nanos ^ (u64::from(std::process::id()) << 32);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_fails_the_cases_whose_verdict_the_gate_names_and_escapes_ids() {
        let verdicts = [
            ("fast".to_string(), Verdict::Confirmed),
            ("a<b".to_string(), Verdict::Refuted),
            ("x".into(), Verdict::NotJudged),
        ];
        let xml = junit("api", &verdicts, &[Verdict::Refuted, Verdict::NotJudged]);
        assert!(xml.contains("<testsuite name=\"api\" tests=\"3\" failures=\"2\">"), "{xml}");
        assert!(xml.contains("<testcase classname=\"api\" name=\"fast\"/>"), "{xml}");
        assert!(xml.contains("name=\"a&lt;b\">\n      <failure message=\"refuted\"/>"), "{xml}");
        assert!(xml.contains("<failure message=\"not judged\"/>"), "{xml}");
    }
}
