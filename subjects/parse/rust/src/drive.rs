//! `parse-drive`: the harness of the server scenarios. It asks each consumer (`POST /consume`)
//! to fetch and decode N objects from each provider, reads both servers' `GET /stats` around the
//! call, and prints one measurement line per call (the runner's `[[harnesses]]` contract).
//!
//! Rows are `<object>-<format>-<parser>-from-<provider>-<n>` (`-batch` when one request carries
//! all N): parser `rust`, `java` or `java-raw` (the Java server's lazy BSON, BSON rows only).
//! Each combination is warmed up once, then every repeat runs every row in a shuffled order, so
//! a slow phase of the machine does not land on one row's repeats.

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{bail, Context as _};
use serde_json::json;
use wirebench_core::schema::{Measurement, Metrics, Status, SCHEMA_VERSION};

use crate::consume::{ConsumeRequest, Consumed};

/// N by profile: the study went from 500 to 100,000 objects on the server.
pub fn sizes(profile: &str) -> Vec<usize> {
    match profile {
        "smoke" => vec![50],
        "full" => vec![100, 300, 1_000, 3_000, 10_000, 30_000, 100_000],
        _ => vec![100, 1_000, 10_000],
    }
}

/// One row: who parses, who provides, what, how many.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub parser: String,
    pub provider: String,
    pub object: &'static str,
    pub format: &'static str,
    pub n: usize,
    pub batch: bool,
}

impl Row {
    pub fn id(&self) -> String {
        let batch = if self.batch { "-batch" } else { "" };
        format!("{}-{}-{}-from-{}-{}{batch}", self.object, self.format, self.parser, self.provider, self.n)
    }

    /// The server that parses (`java` for `java-raw`).
    pub fn consumer(&self) -> &str {
        self.parser.split('-').next().unwrap_or(&self.parser)
    }
}

/// Every row for these servers: each parser × each provider × object × format at each N, and the
/// batch rows at the largest N.
pub fn rows(servers: &[String], ns: &[usize]) -> Vec<Row> {
    let mut parsers: Vec<String> = servers.to_vec();
    if servers.iter().any(|s| s == "java") {
        parsers.push("java-raw".into());
    }
    let mut rows = Vec::new();
    for (i, &n) in ns.iter().enumerate() {
        let batches: &[bool] = if i + 1 == ns.len() { &[false, true] } else { &[false] };
        for &batch in batches {
            for parser in &parsers {
                for provider in servers {
                    for object in ["numeric", "dummy"] {
                        for format in ["json", "bson"] {
                            if parser == "java-raw" && format == "json" {
                                continue;
                            }
                            let (parser, provider) = (parser.clone(), provider.clone());
                            rows.push(Row { parser, provider, object, format, n, batch });
                        }
                    }
                }
            }
        }
    }
    rows
}

/// The servers by name (`rust`, `java`) and their base URLs.
pub struct Servers {
    pub urls: BTreeMap<String, String>,
    client: reqwest::blocking::Client,
}

impl Servers {
    pub fn new(urls: BTreeMap<String, String>) -> Servers {
        let client = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(600))
            .build()
            .expect("a client without TLS builds");
        Servers { urls, client }
    }

    fn url(&self, server: &str) -> anyhow::Result<&str> {
        self.urls.get(server).map(String::as_str).with_context(|| format!("no server named `{server}`"))
    }

    /// `GET /stats`: (CPU seconds, RSS KiB) of a server's process.
    fn stats(&self, server: &str) -> anyhow::Result<(f64, u64)> {
        let url = format!("{}/stats", self.url(server)?);
        let v: serde_json::Value = self.client.get(&url).send()?.error_for_status()?.json()?;
        let cpu = v["cpu_s"].as_f64().with_context(|| format!("{url}: no cpu_s"))?;
        Ok((cpu, v["rss_kb"].as_u64().unwrap_or(0)))
    }

    /// One consume call: the consumer's answer, or the one-line error it gave.
    pub fn consume(&self, row: &Row) -> anyhow::Result<Consumed> {
        let parser = if row.parser.ends_with("-raw") { "raw" } else { "default" };
        let req = ConsumeRequest {
            provider: self.url(&row.provider)?.to_string(),
            object: row.object.into(),
            format: row.format.into(),
            n: row.n,
            batch: row.batch,
            parser: parser.into(),
        };
        let url = format!("{}/consume", self.url(row.consumer())?);
        let answer = self.client.post(&url).json(&req).send().with_context(|| format!("cannot reach {url}"))?;
        let status = answer.status();
        let body: serde_json::Value = answer.json().with_context(|| format!("{url} answered {status} without JSON"))?;
        if !status.is_success() {
            bail!("{url} answered {status}: {}", body["error"].as_str().unwrap_or("no error line"));
        }
        let done: Consumed = serde_json::from_value(body).with_context(|| format!("{url}: unexpected answer"))?;
        if done.n != row.n || done.parser != row.parser {
            bail!("{url} answered for parser {} n {}, asked {} n {}", done.parser, done.n, row.parser, row.n);
        }
        Ok(done)
    }

    /// One measured call: the consume answer with both servers' CPU charged to it.
    pub fn measure(&self, row: &Row) -> anyhow::Result<Metrics> {
        let (consumer, provider) = (row.consumer(), row.provider.as_str());
        let before = (self.stats(consumer)?, self.stats(provider)?);
        let done = self.consume(row)?;
        let after = (self.stats(consumer)?, self.stats(provider)?);
        let consumer_cpu = after.0 .0 - before.0 .0;
        let provider_cpu = if consumer == provider { 0.0 } else { after.1 .0 - before.1 .0 };
        let mut extra = BTreeMap::new();
        extra.insert("parse_us".into(), done.parse_us);
        extra.insert("total_us".into(), done.total_us);
        extra.insert("io_us".into(), done.total_us - done.parse_us);
        extra.insert("parse_ns_per_object".into(), done.parse_us * 1000.0 / row.n as f64);
        extra.insert("provider_cpu_s".into(), provider_cpu);
        if consumer != provider {
            extra.insert("provider_rss_kb".into(), after.1 .1 as f64);
        }
        Ok(Metrics {
            requests: Some(done.requests),
            duration_s: Some(done.total_us / 1e6),
            size_bytes: Some(done.bytes),
            cpu_s: Some(consumer_cpu + provider_cpu),
            rss_kb: Some(after.0 .1),
            extra,
            ..Metrics::default()
        })
    }
}

/// A measurement line of `row`.
pub fn line(run_id: &str, row: &Row, lang: &str, repeat: u32, result: anyhow::Result<Metrics>) -> Measurement {
    let (status, error, metrics) = match result {
        Ok(m) => (Status::Ok, None, m),
        Err(e) => (Status::Failed, Some(format!("{e:#}").replace('\n', " ")), Metrics::default()),
    };
    let params = [
        ("object", json!(row.object)),
        ("format", json!(row.format)),
        ("parser", json!(row.parser)),
        ("provider", json!(row.provider)),
        ("n", json!(row.n)),
        ("batch", json!(row.batch)),
    ];
    Measurement {
        schema_version: SCHEMA_VERSION,
        run_id: run_id.into(),
        suite: "parse".into(),
        scenario: row.id(),
        subject: format!("parse-{}", row.consumer()),
        lang: lang.into(),
        // The runner stamps the lab from the suite; a harness row has no load transport.
        lab: None,
        transport: None,
        net: None,
        protocol: None,
        format: None,
        params: params.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        repeat,
        status,
        error,
        metrics,
    }
}

/// A deterministic shuffle (splitmix64-driven Fisher–Yates) of `0..n` for repeat `seed`.
pub fn order(n: usize, seed: u64) -> Vec<usize> {
    let mut rng = formats_rust::dataset::SplitMix64::new(seed);
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_cover_the_study_and_raw_only_for_bson() {
        let servers = ["rust".to_string(), "java".to_string()];
        let rows = rows(&servers, &[100, 1000]);
        // 3 parsers (raw: bson only) × 2 providers × 2 objects: (2 + 2 + 1) × 2 × 2 = 20 per batch mode.
        assert_eq!(rows.len(), 20 * 3);
        assert!(rows.iter().all(|r| r.parser != "java-raw" || r.format == "bson"));
        assert!(rows.iter().filter(|r| r.batch).all(|r| r.n == 1000));
        let ids: std::collections::BTreeSet<String> = rows.iter().map(Row::id).collect();
        assert_eq!(ids.len(), rows.len(), "ids are unique");
        assert!(ids.contains("dummy-bson-java-raw-from-rust-1000-batch"));
        assert_eq!(rows[0].consumer(), "rust");
    }

    #[test]
    fn order_is_a_permutation_that_changes_with_the_seed() {
        let a = order(50, 1);
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(a, order(50, 2));
        assert_eq!(a, order(50, 1));
    }
}
