//! `wirebench net check`: the link as a user would see it, measured.

use anyhow::Context;

use crate::cli::NetCheckArgs;
use wirebench_link::{check as measure, CheckOptions, Link, NetSpec};

/// The flags as one spec, read by the one parser `--net` uses too.
fn spec_of(args: &NetCheckArgs) -> anyhow::Result<NetSpec> {
    let mut parts = vec![format!("rtt={}", args.rtt)];
    let flags = [
        ("jitter", &args.jitter),
        ("loss", &args.loss),
        ("burst", &args.burst),
        ("rate", &args.rate),
        ("queue", &args.queue),
    ];
    for (key, value) in flags {
        if let Some(v) = value {
            parts.push(format!("{key}={v}"));
        }
    }
    parts.join(",").parse::<NetSpec>().map_err(|e| anyhow::anyhow!("{e}"))
}

pub fn check(args: &NetCheckArgs) -> anyhow::Result<()> {
    let spec = spec_of(args)?;
    if args.probes == 0 || args.packets < 100 {
        anyhow::bail!("--probes must be at least 1 and --packets at least 100");
    }
    let link = Link::up(&spec)?;
    let opts = CheckOptions { probes: args.probes, loss_packets: args.packets, ..CheckOptions::default() };
    let report = measure(&link, &opts).context("measuring the link")?;
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", report.render());
    }
    Ok(())
}
