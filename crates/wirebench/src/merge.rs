//! `wirebench merge DIR…`: the records of `wirebench load --worker i/N --out DIR` added up by
//! wirebench-fleet, printed as one load with each worker's share, start and CPU beside it.

use crate::cli::MergeArgs;

pub fn merge(args: &MergeArgs) -> anyhow::Result<()> {
    let wirebench_fleet::Merged { result: r, windows: w, dirs } =
        wirebench_fleet::merge(&args.dirs, args.out.as_deref())?;
    let skewed = w.skew_s * 1e3 > args.max_skew_ms;
    let cpu_s = r.remote_cpu_s.unwrap_or(0.0);
    if !args.json {
        println!(
            "{} workers: started {:.1} ms apart, all measuring for {:.3} s of {:.3} s",
            r.workers.len(),
            w.skew_s * 1e3,
            w.overlap_s,
            w.span_s
        );
        if skewed {
            println!("skewed: the workers started more than {} ms apart (--max-skew-ms); the merged rate is over the whole span", args.max_skew_ms);
        }
        for f in &r.workers {
            println!(
                "  worker {:<5} {:<16} requests {:<9} {:>9.0} req/s  p99 {:>8} µs  instrument CPU {:.3} s{}",
                f.worker,
                f.host,
                f.requests,
                f.rps,
                f.p99_us.map_or("-".into(), |v| v.to_string()),
                f.cpu_s,
                if f.bound { "  (saturated)" } else { "" }
            );
        }
    }
    let workers: Vec<serde_json::Value> = r
        .workers
        .iter()
        .map(|f| {
            let mut v = serde_json::to_value(f)?;
            if let Some((_, dir)) = dirs.iter().find(|(name, _)| *name == f.worker) {
                v["dir"] = dir.clone().into();
            }
            Ok(v)
        })
        .collect::<serde_json::Result<_>>()?;
    let merged = crate::load::Merged {
        workers: Some(workers),
        skew_ms: Some(w.skew_s * 1e3),
        overlap_s: Some(w.overlap_s),
        skewed: Some(skewed),
    };
    crate::load::print(&r, cpu_s, None, args.json, Some(merged), None);
    Ok(())
}
