//! `wasm-kernels-native`: the wasm lab's native reference rows and its checksums.
//!
//! - `wasm-kernels-native --profile quick --repeats R --run-id ID` times every kernel natively (the
//!   physical reference rows beside the browser's), one measurement line per kernel per repeat;
//! - `wasm-kernels-native reference` prints the checksums every build must reproduce, per profile
//!   (`subjects/wasm/reference.json`; `--check FILE` fails when that file is stale).

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> ExitCode {
    native::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use super::*;
    use wasm_kernels::{Sizes, FILTERS, WORKER_KERNELS};
    use wirebench_core::schema::{Measurement, Metrics, Status, SCHEMA_VERSION};

    pub fn main() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        match run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("wasm-kernels-native: {e:#}");
                ExitCode::from(2)
            }
        }
    }

    fn value<'a>(args: &'a [String], flag: &str) -> anyhow::Result<Option<&'a str>> {
        match args.iter().position(|a| a == flag) {
            None => Ok(None),
            Some(i) => args.get(i + 1).map(|v| Some(v.as_str())).ok_or_else(|| anyhow::anyhow!("{flag} needs a value")),
        }
    }

    fn run(args: &[String]) -> anyhow::Result<()> {
        if args.first().map(String::as_str) == Some("reference") {
            let text = serde_json::to_string_pretty(&reference())? + "\n";
            return match value(args, "--check")? {
                None => {
                    print!("{text}");
                    Ok(())
                }
                Some(path) => {
                    let committed = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
                    anyhow::ensure!(committed == text, "{path} is stale: run `make wasm-reference`");
                    Ok(())
                }
            };
        }
        if let Some(unknown) =
            args.iter().step_by(2).find(|a| !["--profile", "--repeats", "--run-id"].contains(&a.as_str()))
        {
            anyhow::bail!("unknown argument `{unknown}`; usage: wasm-kernels-native [reference [--check FILE]] | --profile P --repeats R --run-id ID");
        }
        let profile = value(args, "--profile")?.unwrap_or("quick");
        let sizes = Sizes::of(profile)
            .ok_or_else(|| anyhow::anyhow!("unknown profile `{profile}`; known: smoke, quick, full"))?;
        let repeats: u32 = value(args, "--repeats")?
            .unwrap_or("3")
            .parse()
            .map_err(|_| anyhow::anyhow!("--repeats is not a count"))?;
        let run_id = value(args, "--run-id")?.unwrap_or("").to_string();
        let reference = wasm_kernels::checksums(&sizes);
        let image = wasm_kernels::image(sizes.width, sizes.height);
        let array = wasm_kernels::array(sizes.len);
        let mut out = std::io::stdout().lock();
        let kernels: Vec<&str> = FILTERS.iter().chain(WORKER_KERNELS.iter()).copied().collect();
        for repeat in 0..=repeats {
            for &kernel in &kernels {
                // Each call starts from a fresh copy of the input, made outside the clock.
                let mut data = image.clone();
                let start = Instant::now();
                let sum = match kernel {
                    "small" => Some(wasm_kernels::small(std::hint::black_box(&array))),
                    "large" => Some(wasm_kernels::large(std::hint::black_box(&array))),
                    filter => {
                        wasm_kernels::filter(filter, std::hint::black_box(&mut data), sizes.width, sizes.height);
                        None
                    }
                };
                let elapsed = start.elapsed().as_secs_f64();
                let value = sum.unwrap_or_else(|| f64::from(wasm_kernels::checksum(&data)));
                let want = reference[kernel];
                let checked =
                    if FILTERS.contains(&kernel) { value == want } else { (value - want).abs() <= 1e-9 * want.abs() };
                if repeat == 0 && checked {
                    continue; // the warm-up: verified, not timed
                }
                let error = (!checked).then(|| format!("{kernel}: result {value} is not the reference {want}"));
                let line =
                    measurement(&run_id, kernel, &sizes, if checked { repeat } else { 0 }, error, elapsed, value);
                writeln!(out, "{}", serde_json::to_string(&line)?)?;
                out.flush()?;
            }
        }
        Ok(())
    }

    /// The checksums of every profile, as `subjects/wasm/reference.json` holds them.
    fn reference() -> serde_json::Value {
        let mut computed: Vec<(Sizes, serde_json::Value)> = Vec::new();
        let profiles = ["smoke", "quick", "full"].map(|p| {
            let sizes = Sizes::of(p).expect("a known profile");
            let results = match computed.iter().find(|(s, _)| *s == sizes) {
                Some((_, r)) => r.clone(),
                None => {
                    let r = serde_json::json!(wasm_kernels::checksums(&sizes));
                    computed.push((sizes, r.clone()));
                    r
                }
            };
            let mut entry = serde_json::Map::new();
            entry.insert("width".into(), sizes.width.into());
            entry.insert("height".into(), sizes.height.into());
            entry.insert("len".into(), sizes.len.into());
            entry.insert("results".into(), results);
            (p.to_string(), serde_json::Value::Object(entry))
        });
        serde_json::Value::Object(profiles.into_iter().collect())
    }

    /// What a row ran on: the kernel, its input's size and the parameters the study left out.
    fn params(kernel: &str, sizes: &Sizes) -> std::collections::BTreeMap<String, serde_json::Value> {
        let mut p = std::collections::BTreeMap::new();
        p.insert("kernel".to_string(), serde_json::json!(kernel));
        if FILTERS.contains(&kernel) {
            p.insert("width".into(), sizes.width.into());
            p.insert("height".into(), sizes.height.into());
            match kernel {
                "brightness" => p.insert("amount".into(), wasm_kernels::BRIGHTNESS.into()),
                "contrast" => p.insert("factor".into(), f64::from(wasm_kernels::CONTRAST).into()),
                "blur" => p.insert("radius".into(), wasm_kernels::BLUR_RADIUS.into()),
                _ => None,
            };
        } else {
            p.insert("len".into(), sizes.len.into());
        }
        p
    }

    fn measurement(
        run_id: &str,
        kernel: &str,
        sizes: &Sizes,
        repeat: u32,
        error: Option<String>,
        seconds: f64,
        value: f64,
    ) -> Measurement {
        let mut params = params(kernel, sizes);
        params.insert("impl".into(), "native".into());
        params.insert("thread".into(), "main".into());
        let mut metrics = Metrics::default();
        if error.is_none() {
            metrics.duration_s = Some(seconds);
            metrics.extra.insert("kernel_ms".into(), seconds * 1e3);
            metrics.extra.insert("result".into(), value);
        }
        Measurement {
            schema_version: SCHEMA_VERSION,
            run_id: run_id.into(),
            suite: "wasm".into(),
            scenario: format!("{kernel}-native"),
            subject: "wasm-kernels-native".into(),
            lang: "rust".into(),
            // The runner stamps the lab from the suite; a harness row has no load transport.
            lab: None,
            transport: None,
            net: None,
            protocol: None,
            format: None,
            params,
            repeat,
            status: if error.is_some() { Status::Failed } else { Status::Ok },
            error,
            metrics,
        }
    }
}
