//! The consumer: fetch `n` objects from a provider, then time only their decoding.
//!
//! All answers are read into memory first, then one timer wraps decoding all of them into the
//! typed objects (`parse_us`); `total_us` runs from the first request to the end of decoding.
//! The study summed per-object timers placed around each decode right after its answer arrived,
//! so runtime and I/O effects leaked into its parse time; here `total_us - parse_us` is that I/O.
//! Every decoded object is compared with the dataset after the timer and before anything is
//! reported.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::objects::{self, Format, Object, MAX_COUNT};

/// The body of `POST /consume`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumeRequest {
    /// The provider's base URL: `http://127.0.0.1:8081` (its `/objects/...` is fetched).
    pub provider: String,
    pub object: String,
    pub format: String,
    pub n: usize,
    /// One request for all `n` objects instead of one request per object (the study).
    #[serde(default)]
    pub batch: bool,
    /// `default`: serde into the typed structs; `raw` is the Java server's lazy BSON only.
    #[serde(default = "default_parser")]
    pub parser: String,
}

fn default_parser() -> String {
    "default".into()
}

/// The answer of `POST /consume`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Consumed {
    pub parser: String,
    pub object: String,
    pub format: String,
    pub n: usize,
    pub batch: bool,
    pub requests: u64,
    /// Bytes of the answers' bodies.
    pub bytes: u64,
    pub parse_us: f64,
    pub total_us: f64,
}

/// Why a consume call failed: the caller's mistake (400) or the provider's (502).
#[derive(Debug, Clone, PartialEq)]
pub enum ConsumeError {
    BadRequest(String),
    Provider(String),
}

/// What a valid request asks for.
struct Ask {
    object: Object,
    format: Format,
    n: usize,
    batch: bool,
}

fn check(req: &ConsumeRequest) -> Result<Ask, ConsumeError> {
    let bad = ConsumeError::BadRequest;
    let object = Object::parse(&req.object).map_err(bad)?;
    let format = Format::parse(&req.format).map_err(bad)?;
    if !(1..=MAX_COUNT).contains(&req.n) {
        return Err(bad(format!("n must be 1..={MAX_COUNT}, got {}", req.n)));
    }
    match req.parser.as_str() {
        "default" => {}
        "raw" => {
            return Err(bad("parser `raw` is the Java server's lazy RawBsonDocument; this is the Rust server".into()))
        }
        other => return Err(bad(format!("unknown parser `{other}`; known: default"))),
    }
    if !req.provider.starts_with("http://") {
        return Err(bad(format!("provider must be an http:// URL, got `{}`", req.provider)));
    }
    Ok(Ask { object, format, n: req.n, batch: req.batch })
}

/// Fetches, decodes, times and verifies one consume request.
pub async fn consume(client: &reqwest::Client, req: &ConsumeRequest) -> Result<Consumed, ConsumeError> {
    let ask = check(req)?;
    let base = req.provider.trim_end_matches('/');
    let url = |start: usize, count: usize| {
        format!("{base}/objects/{}?format={}&count={count}&start={start}", ask.object.id(), ask.format.id())
    };
    let urls: Vec<String> = if ask.batch { vec![url(0, ask.n)] } else { (0..ask.n).map(|i| url(i, 1)).collect() };
    // Built before the clock starts: the dataset the answers must decode to.
    let want = objects::expected(ask.object, 0, ask.n);

    let started = Instant::now();
    let mut bodies = Vec::with_capacity(urls.len());
    for (i, url) in urls.iter().enumerate() {
        let failed = |e: String| ConsumeError::Provider(format!("object {i}: {e}"));
        let answer = client.get(url).send().await.map_err(|e| failed(format!("cannot fetch {url}: {e}")))?;
        if !answer.status().is_success() {
            return Err(failed(format!("{url} answered {}", answer.status())));
        }
        bodies.push(answer.bytes().await.map_err(|e| failed(format!("cannot read {url}: {e}")))?);
    }
    let parse_started = Instant::now();
    let decoded = objects::decode(ask.object, ask.format, &bodies, ask.batch);
    let parse_us = parse_started.elapsed().as_secs_f64() * 1e6;
    let total_us = started.elapsed().as_secs_f64() * 1e6;
    let decoded = decoded.map_err(ConsumeError::Provider)?;
    objects::verify(&decoded, &want).map_err(ConsumeError::Provider)?;
    Ok(Consumed {
        parser: "rust".into(),
        object: ask.object.id().into(),
        format: ask.format.id().into(),
        n: ask.n,
        batch: ask.batch,
        requests: bodies.len() as u64,
        bytes: bodies.iter().map(|b| b.len() as u64).sum(),
        parse_us,
        total_us,
    })
}
