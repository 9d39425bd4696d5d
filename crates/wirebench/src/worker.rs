//! `wirebench worker`: the flags of one worker of `wirebench run --workers N`, handed to
//! wirebench-fleet's worker loop.

use anyhow::bail;

use crate::cli::WorkerArgs;
use wirebench_core::machine;

/// Takes loads from a coordinator until its run ends.
pub fn work(args: &WorkerArgs) -> anyhow::Result<()> {
    if !args.coordinator.trim_end_matches('/').starts_with("http://") {
        bail!("--coordinator `{}`: expected http://HOST:PORT", args.coordinator);
    }
    wirebench_fleet::work(&wirebench_fleet::WorkerOptions {
        coordinator: &args.coordinator,
        share: args.worker,
        threads: args.threads.unwrap_or_else(|| machine::online_cpus().len()),
        connect_timeout: std::time::Duration::from_secs_f64(args.connect_timeout),
        suites_dir: &args.suites_dir,
    })
}
