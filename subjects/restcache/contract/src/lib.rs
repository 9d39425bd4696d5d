//! The contract of subjects/restcache/openapi.yaml as checks over HTTP: every status code, the
//! order of the checks, key isolation, keys stored verbatim, concurrent creates. One list of
//! named checks runs against any implementation at a base URL; each check works under API keys
//! of its own, so the list can run against a store that already holds data.

use std::collections::BTreeSet;

use anyhow::{anyhow, bail, ensure, Context, Result};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use reqwest::blocking::{Client, Response};
use reqwest::Method;
use serde_json::{json, Value};

/// A check: its name and what it does against a service.
pub type Check = (&'static str, fn(&Service) -> Result<()>);

/// Every check of the contract, in the order they run.
pub const CHECKS: &[Check] = &[
    ("health answers 200", health),
    ("GET /api/ issues distinct lower-case v4 UUIDs", issues_api_keys),
    ("a new API key lists no items", empty_list),
    ("create, read, update, delete with their status codes", crud),
    ("an unknown API key is 404 on every call", unknown_api_key),
    ("a malformed API key is 400 on every call", malformed_api_key),
    ("an upper-case API key names the same items", upper_case_api_key),
    ("a body without a string value is 400 and stores nothing", bad_bodies),
    ("a body over 1 MiB is 413; 512 KiB values round-trip", body_sizes),
    ("checks run in the contract's order", check_order),
    ("items are private to their API key", isolation),
    ("keys with SQL and URL metacharacters are stored verbatim and listed in byte order", verbatim_keys),
    ("keys: 1024 bytes are fine, 1025 bytes, U+0000 and an encoded slash are refused", key_limits),
    ("a `%` without two hex digits after it is 400 and stores nothing", bad_percent_encoding),
    ("a body that cannot be read (a malformed chunk) is 400, not 413", unreadable_body),
    ("bodies nest at most 100 levels; long numbers elsewhere are fine", json_limits),
    ("a lone surrogate anywhere in a body is 400; a pair is one character", surrogates),
    ("a body with a byte order mark or in UTF-16 is 400", not_utf8_json),
    ("an HTTP/1.1 request without exactly one Host is 400", host_required),
    ("no answer names the server; its own refusals are JSON; HTTP/0.9 gets no document", server_quiet),
    ("250 slowly sent bodies do not stop the service answering others", slow_bodies),
    ("HEAD answers as GET without a body", head_is_get_without_body),
    ("a wrong method is 405 and an unknown path 404", methods_and_paths),
    ("concurrent creates of one key: exactly one 201", concurrent_creates),
];

/// An implementation under test.
pub struct Service {
    base: String,
    client: Client,
}

/// One answer: status, body, and whether it said it was JSON.
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
    pub json_type: bool,
}

impl Answer {
    fn json(&self) -> Result<Value> {
        ensure!(self.json_type, "answer {} is not Content-Type application/json", self.status);
        serde_json::from_slice(&self.body).with_context(|| format!("answer {} is not JSON", self.status))
    }

    fn expect(self, status: u16, what: &str) -> Result<Answer> {
        if self.status != status {
            bail!(
                "{what}: expected {status}, got {} {}",
                self.status,
                String::from_utf8_lossy(&self.body[..self.body.len().min(200)])
            );
        }
        Ok(self)
    }
}

impl Service {
    /// A service at `base` (`http://127.0.0.1:8080`).
    pub fn new(base: &str) -> Result<Service> {
        let client = Client::builder().timeout(std::time::Duration::from_secs(30)).build()?;
        Ok(Service { base: base.trim_end_matches('/').to_string(), client })
    }

    /// Runs every check; the names of those that failed, with why.
    pub fn check_all(&self) -> Vec<(String, String)> {
        CHECKS
            .iter()
            .filter_map(|(name, check)| check(self).err().map(|e| (name.to_string(), format!("{e:#}"))))
            .collect()
    }

    /// Sends `method path` with an optional body; `path` is sent as written (already encoded).
    pub fn call(&self, method: Method, path: &str, body: Option<Vec<u8>>) -> Result<Answer> {
        self.call_with(method, path, body, false)
    }

    /// `call`, on a connection closed after the answer when `close`: a container that refuses a
    /// request target itself (Jetty on `%00`) may close the connection without saying so.
    pub fn call_with(&self, method: Method, path: &str, body: Option<Vec<u8>>, close: bool) -> Result<Answer> {
        let mut request = self.client.request(method.clone(), format!("{}{path}", self.base));
        if close {
            request = request.header("connection", "close");
        }
        if let Some(body) = body {
            // A server may answer before reading a large body (an unknown API key) and then
            // close the connection; a pooled connection reused after that fails the next call.
            if body.len() > 64 << 10 {
                request = request.header("connection", "close");
            }
            request = request.header("content-type", "application/json").body(body);
        }
        let response: Response = request.send().with_context(|| format!("{method} {path}"))?;
        let status = response.status().as_u16();
        let json_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        let body = response.bytes().with_context(|| format!("{method} {path}: reading the body"))?.to_vec();
        Ok(Answer { status, body, json_type })
    }

    fn get(&self, path: &str) -> Result<Answer> {
        self.call(Method::GET, path, None)
    }

    /// A new API key.
    pub fn api_key(&self) -> Result<String> {
        let answer = self.get("/api/")?.expect(200, "GET /api/")?;
        let key = answer.json()?["apiKey"].as_str().ok_or_else(|| anyhow!("GET /api/: no string apiKey"))?.to_string();
        Ok(key)
    }

    fn item(&self, method: Method, api: &str, key: &str, value: Option<&str>) -> Result<Answer> {
        let body = value.map(|v| serde_json::to_vec(&json!({ "value": v })).expect("JSON"));
        self.call(method, &item_path(api, key), body)
    }

    fn list(&self, api: &str) -> Result<Vec<(String, String)>> {
        let answer = self.get(&format!("/api/{api}"))?.expect(200, "list")?;
        let items = answer.json()?;
        let items = items.as_array().ok_or_else(|| anyhow!("list: not a JSON array"))?;
        items
            .iter()
            .map(|i| match (i["key"].as_str(), i["value"].as_str()) {
                (Some(k), Some(v)) => Ok((k.to_string(), v.to_string())),
                _ => bail!("list: item without string key and value: {i}"),
            })
            .collect()
    }
}

/// `/api/<api>/<key>` with the key percent-encoded (every byte but letters and digits).
pub fn item_path(api: &str, key: &str) -> String {
    format!("/api/{api}/{}", utf8_percent_encode(key, NON_ALPHANUMERIC))
}

fn health(s: &Service) -> Result<()> {
    s.get("/health")?.expect(200, "GET /health").map(drop)
}

fn issues_api_keys(s: &Service) -> Result<()> {
    let (a, b) = (s.api_key()?, s.api_key()?);
    ensure!(a != b, "two calls gave the same key {a}");
    for k in [&a, &b] {
        let canonical = k.len() == 36
            && k.char_indices().all(|(i, c)| {
                if [8, 13, 18, 23].contains(&i) {
                    c == '-'
                } else {
                    c.is_ascii_digit() || ('a'..='f').contains(&c)
                }
            });
        ensure!(canonical, "{k} is not a lower-case UUID");
        ensure!(&k[14..15] == "4", "{k} is not a version 4 UUID");
    }
    Ok(())
}

fn empty_list(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    ensure!(s.list(&api)?.is_empty(), "a new key has items");
    Ok(())
}

fn crud(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let created = s.item(Method::POST, &api, "k1", Some("v1"))?.expect(201, "POST")?;
    ensure!(created.json()? == json!({"key": "k1", "value": "v1"}), "POST answered {:?}", created.json()?);
    let read = s.item(Method::GET, &api, "k1", None)?.expect(200, "GET")?;
    ensure!(read.json()? == json!({"key": "k1", "value": "v1"}), "GET answered {:?}", read.json()?);
    s.item(Method::POST, &api, "k1", Some("other"))?.expect(409, "POST of an existing key")?;
    let updated = s.item(Method::PUT, &api, "k1", Some("v2"))?.expect(200, "PUT")?;
    ensure!(updated.json()? == json!({"key": "k1", "value": "v2"}), "PUT answered {:?}", updated.json()?);
    ensure!(s.list(&api)? == [("k1".to_string(), "v2".to_string())], "list after PUT: {:?}", s.list(&api)?);
    let deleted = s.item(Method::DELETE, &api, "k1", None)?.expect(204, "DELETE")?;
    ensure!(deleted.body.is_empty(), "DELETE answered a body");
    s.item(Method::GET, &api, "k1", None)?.expect(404, "GET after DELETE")?;
    s.item(Method::DELETE, &api, "k1", None)?.expect(404, "DELETE of a missing item")?;
    s.item(Method::PUT, &api, "k1", Some("v3"))?.expect(404, "PUT of a missing item")?;
    ensure!(s.list(&api)?.is_empty(), "list after DELETE is not empty");
    Ok(())
}

/// The five calls on an item and the list, each with a good body where it takes one.
fn every_call(s: &Service, api: &str, status: u16, what: &str) -> Result<()> {
    s.get(&format!("/api/{api}"))?.expect(status, &format!("list with {what}"))?;
    for method in [Method::GET, Method::POST, Method::PUT, Method::DELETE] {
        let value = matches!(method, Method::POST | Method::PUT).then_some("v");
        s.item(method.clone(), api, "k", value)?.expect(status, &format!("{method} with {what}"))?;
    }
    Ok(())
}

fn unknown_api_key(s: &Service) -> Result<()> {
    every_call(s, "00000000-0000-4000-8000-000000000000", 404, "an unknown API key")
}

fn malformed_api_key(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let bad = [
        "not-a-uuid".to_string(),
        api.replace('-', ""),
        format!("{}g", &api[..35]),
        format!("%7B{api}%7D"),
        format!("{api}0"),
    ];
    for b in &bad {
        every_call(s, b, 400, &format!("API key {b}"))?;
    }
    Ok(())
}

fn upper_case_api_key(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let upper = api.to_uppercase();
    s.item(Method::POST, &upper, "k", Some("v"))?.expect(201, "POST under the upper-case key")?;
    ensure!(s.list(&api)? == [("k".to_string(), "v".to_string())], "the item is not under the lower-case key");
    s.item(Method::GET, &upper, "k", None)?.expect(200, "GET under the upper-case key").map(drop)
}

const BAD_BODIES: &[&str] = &[
    r#"{"value":"a\u0000b"}"#,
    r#"{"value":null}"#,
    "{}",
    r#"{"value":1}"#,
    r#"{"value":["a"]}"#,
    "not json",
    "[]",
    "",
    r#""v""#,
];

fn bad_bodies(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    s.item(Method::POST, &api, "there", Some("v"))?.expect(201, "POST")?;
    for body in BAD_BODIES {
        s.call(Method::POST, &item_path(&api, "new"), Some(body.as_bytes().to_vec()))?
            .expect(400, &format!("POST of {body:?}"))?;
        s.call(Method::PUT, &item_path(&api, "there"), Some(body.as_bytes().to_vec()))?
            .expect(400, &format!("PUT of {body:?}"))?;
    }
    ensure!(s.list(&api)? == [("there".to_string(), "v".to_string())], "bad bodies changed the store");
    Ok(())
}

fn big_body(bytes: usize) -> Vec<u8> {
    let mut body = br#"{"value":""#.to_vec();
    body.resize(bytes - 2, b'x');
    body.extend_from_slice(br#""}"#);
    body
}

fn body_sizes(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let value = "y".repeat(512 << 10);
    s.item(Method::POST, &api, "big", Some(&value))?.expect(201, "POST of 512 KiB")?;
    let read = s.item(Method::GET, &api, "big", None)?.expect(200, "GET of 512 KiB")?;
    ensure!(read.json()?["value"].as_str() == Some(value.as_str()), "the 512 KiB value came back changed");
    s.call(Method::POST, &item_path(&api, "huge"), Some(big_body((1 << 20) + 1)))?.expect(413, "POST of 1 MiB + 1")?;
    s.call(Method::PUT, &item_path(&api, "big"), Some(big_body((1 << 20) + 1)))?.expect(413, "PUT of 1 MiB + 1")?;
    s.item(Method::GET, &api, "huge", None)?.expect(404, "GET after a refused POST").map(drop)
}

fn check_order(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let unknown = "00000000-0000-4000-8000-000000000001";
    let bad = Some(b"not json".to_vec());
    // 1. Path before everything.
    s.call(Method::POST, &item_path("nope", "k"), bad.clone())?.expect(400, "malformed API key and bad body")?;
    s.call(Method::PUT, &item_path(unknown, &"k".repeat(1025)), bad.clone())?
        .expect(400, "unknown API key, long key")?;
    // 2. The API key before the body and the item.
    s.call(Method::POST, &item_path(unknown, "k"), bad.clone())?.expect(404, "unknown API key and bad body")?;
    s.call(Method::PUT, &item_path(unknown, "k"), Some(big_body((1 << 20) + 1)))?
        .expect(404, "unknown API key and a body over 1 MiB")?;
    // 3. The body before the item.
    s.item(Method::POST, &api, "there", Some("v"))?.expect(201, "POST")?;
    s.call(Method::POST, &item_path(&api, "there"), bad.clone())?.expect(400, "existing item and bad body")?;
    s.call(Method::PUT, &item_path(&api, "missing"), bad)?.expect(400, "missing item and bad body").map(drop)
}

fn isolation(s: &Service) -> Result<()> {
    let (a, b) = (s.api_key()?, s.api_key()?);
    s.item(Method::POST, &a, "shared", Some("a's"))?.expect(201, "POST under A")?;
    s.item(Method::GET, &b, "shared", None)?.expect(404, "B reads A's item")?;
    s.item(Method::PUT, &b, "shared", Some("b's"))?.expect(404, "B updates A's item")?;
    s.item(Method::DELETE, &b, "shared", None)?.expect(404, "B deletes A's item")?;
    ensure!(s.list(&b)?.is_empty(), "B lists A's item");
    s.item(Method::POST, &b, "shared", Some("b's"))?.expect(201, "B creates its own item of the same key")?;
    ensure!(s.list(&a)? == [("shared".to_string(), "a's".to_string())], "A's item changed: {:?}", s.list(&a)?);
    ensure!(s.list(&b)? == [("shared".to_string(), "b's".to_string())], "B's item: {:?}", s.list(&b)?);
    s.item(Method::DELETE, &a, "shared", None)?.expect(204, "A deletes its item")?;
    ensure!(s.list(&b)?.len() == 1, "deleting A's item deleted B's");
    Ok(())
}

/// Keys a store or a router could mistake for syntax.
pub const VERBATIM_KEYS: &[&str] = &[
    "'; DROP TABLE cache; --",
    "\" OR 1=1 --",
    "%",
    "_",
    "100%_sure",
    "a b",
    "*",
    "back\\slash",
    "?q=1&r=2",
    "#frag",
    "ключ",
    "键",
    "emoji 🦀",
    ";",
    "NULL",
    "$1",
    "{\"value\": 1}",
];

fn verbatim_keys(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    for (i, key) in VERBATIM_KEYS.iter().enumerate() {
        s.item(Method::POST, &api, key, Some(&format!("v{i}")))?.expect(201, &format!("POST {key:?}"))?;
        let read = s.item(Method::GET, &api, key, None)?.expect(200, &format!("GET {key:?}"))?;
        ensure!(read.json()? == json!({"key": key, "value": format!("v{i}")}), "GET {key:?}: {:?}", read.json()?);
    }
    let mut expected: Vec<(String, String)> =
        VERBATIM_KEYS.iter().enumerate().map(|(i, k)| (k.to_string(), format!("v{i}"))).collect();
    expected.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let listed = s.list(&api)?;
    ensure!(listed == expected, "list is not every key verbatim in byte order: {listed:?}");
    Ok(())
}

fn key_limits(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let long = "k".repeat(1024);
    s.item(Method::POST, &api, &long, Some("v"))?.expect(201, "POST of a 1024-byte key")?;
    s.item(Method::GET, &api, &long, None)?.expect(200, "GET of a 1024-byte key")?;
    let multibyte = "é".repeat(513);
    for (key, what) in [("k".repeat(1025), "a 1025-byte key"), (multibyte, "a 1026-byte key of 513 characters")] {
        s.item(Method::POST, &api, &key, Some("v"))?.expect(400, &format!("POST of {what}"))?;
    }
    let body = || Some(br#"{"value":"v"}"#.to_vec());
    s.call_with(Method::POST, &item_path(&api, "a\0b"), body(), true)?.expect(400, "POST of a key with U+0000")?;
    let slash = s.call_with(Method::POST, &item_path(&api, "a/b"), body(), true)?;
    ensure!([400, 404].contains(&slash.status), "POST of a key with an encoded slash: {}", slash.status);
    let keys: BTreeSet<String> = s.list(&api)?.into_iter().map(|(k, _)| k).collect();
    ensure!(keys == BTreeSet::from([long]), "refused keys were stored: {keys:?}");
    Ok(())
}

fn bad_percent_encoding(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let body = || Some(br#"{"value":"v"}"#.to_vec());
    for raw in ["a%G1b", "a%", "a%2"] {
        // On its own connection: Jetty refuses such a request target itself and may close it.
        s.call_with(Method::POST, &format!("/api/{api}/{raw}"), body(), true)?
            .expect(400, &format!("POST of the raw key {raw:?}"))?;
    }
    let keys = s.list(&api)?;
    ensure!(keys.is_empty(), "badly encoded keys were stored: {keys:?}");
    Ok(())
}

fn unreadable_body(s: &Service) -> Result<()> {
    use std::io::{Read, Write};
    let api = s.api_key()?;
    let authority = s.base.trim_start_matches("http://").trim_end_matches('/');
    let mut socket = std::net::TcpStream::connect(authority).context("connecting")?;
    socket.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    // RFC 9112 §7.1: a chunk size is hex digits; `zz` is not one.
    write!(
        socket,
        "POST {} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n",
        item_path(&api, "k")
    )?;
    let mut answer = Vec::new();
    let _ = socket.read_to_end(&mut answer);
    let status = String::from_utf8_lossy(&answer).split(' ').nth(1).unwrap_or("").to_string();
    ensure!(
        status == "400",
        "a malformed chunked body got `{}`",
        String::from_utf8_lossy(&answer).lines().next().unwrap_or("no answer")
    );
    ensure!(s.list(&api)?.is_empty(), "an unreadable body stored an item");
    Ok(())
}

/// `{"value":"v","x":[[…]]}` nested `depth` levels in all, the outer object included.
fn nested(depth: usize) -> Vec<u8> {
    let arrays = depth - 1;
    format!(r#"{{"value":"v","x":{}{}}}"#, "[".repeat(arrays), "]".repeat(arrays)).into_bytes()
}

/// RFC 8259 §9 lets a parser limit nesting and numbers; the contract sets one limit for every
/// implementation (serde_json alone stops at 127 levels, Jackson at 1,000, Go at 10,000) and none
/// on a number the service does not read.
fn json_limits(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    s.call(Method::POST, &item_path(&api, "deep"), Some(nested(100)))?.expect(201, "a body nested 100 levels")?;
    s.call(Method::PUT, &item_path(&api, "deep"), Some(nested(101)))?.expect(400, "a body nested 101 levels")?;
    s.call(Method::POST, &item_path(&api, "deeper"), Some(nested(2000)))?.expect(400, "a body nested 2,000 levels")?;
    let long = format!(r#"{{"value":"v","n":{}}}"#, "1".repeat(100_000)).into_bytes();
    s.call(Method::POST, &item_path(&api, "long"), Some(long))?
        .expect(201, "a 100,000-digit number beside the value")?;
    let keys: Vec<String> = s.list(&api)?.into_iter().map(|(k, _)| k).collect();
    ensure!(keys == ["deep", "long"], "stored: {keys:?}");
    Ok(())
}

/// RFC 8259 §8.2 leaves a lone surrogate's meaning to the parser (Go's decoder made it U+FFFD and
/// stored that); I-JSON (RFC 7493 §2.1) refuses it, and so does every implementation here.
fn surrogates(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let lone = [
        r#"{"value":"a\ud800b"}"#,
        r#"{"value":"a\udc00"}"#,
        r#"{"value":"v","x":"\ud800"}"#,
        r#"{"value":"\ud800\ud800"}"#,
    ];
    for (i, body) in lone.into_iter().enumerate() {
        s.call(Method::POST, &item_path(&api, &format!("k{i}")), Some(body.as_bytes().to_vec()))?
            .expect(400, &format!("the body {body}"))?;
    }
    let crab = s.call(Method::POST, &item_path(&api, "pair"), Some(br#"{"value":"\ud83e\udd80"}"#.to_vec()))?;
    crab.expect(201, "an escaped surrogate pair")?;
    ensure!(s.list(&api)? == [("pair".to_string(), "🦀".to_string())], "stored: {:?}", s.list(&api)?);
    Ok(())
}

/// RFC 8259 §8.1: JSON between systems is UTF-8 without a byte order mark (a parser MAY ignore
/// one; every implementation here refuses it, as Go's and serde_json do); Jackson alone guessed
/// UTF-16 and UTF-32 from the first bytes.
fn not_utf8_json(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let doc = r#"{"value":"v"}"#;
    let bom = [b"\xEF\xBB\xBF".as_slice(), doc.as_bytes()].concat();
    let utf16: Vec<u8> = doc.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let utf16_bom = [b"\xFF\xFE".as_slice(), &utf16].concat();
    for (body, what) in [(bom, "UTF-8 with a byte order mark"), (utf16, "UTF-16LE"), (utf16_bom, "UTF-16LE with a BOM")]
    {
        s.call(Method::POST, &item_path(&api, "k"), Some(body))?.expect(400, what)?;
    }
    ensure!(s.list(&api)?.is_empty(), "a body that is not UTF-8 JSON stored an item");
    Ok(())
}

/// The first line a server answers `request` with, on a connection of its own (`{authority}` in
/// it is the service's).
fn raw_status(s: &Service, request: &str) -> Result<String> {
    let answer = raw_answer(s, request)?;
    Ok(answer.lines().next().unwrap_or("no answer").to_string())
}

/// Everything a server answers `request` with before it closes (or 10 s pass).
fn raw_answer(s: &Service, request: &str) -> Result<String> {
    use std::io::{Read, Write};
    let authority = s.base.trim_start_matches("http://").trim_end_matches('/');
    let mut socket = std::net::TcpStream::connect(authority).context("connecting")?;
    socket.set_read_timeout(Some(std::time::Duration::from_secs(10)))?;
    socket.write_all(request.replace("{authority}", authority).as_bytes())?;
    let mut answer = Vec::new();
    let _ = socket.read_to_end(&mut answer);
    Ok(String::from_utf8_lossy(&answer).into_owned())
}

/// A `Server` header or an error page naming the container and its version tells a visitor
/// which advisories apply (Jetty sent `Server: Jetty(12.1.14)`, Tomcat's HTML pages named
/// Apache Tomcat/11.0.27). HTTP/0.9 (RFC 9112 Appendix C.1: no longer to be expected) answers
/// without a status line, so a body would read as the document itself: Tomcat sent /health's.
fn server_quiet(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let health = raw_answer(s, "GET /health HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n")?;
    let head = health.split("\r\n\r\n").next().unwrap_or("").to_ascii_lowercase();
    ensure!(!head.contains("\r\nserver:"), "GET /health names the server: {head:?}");
    let refused = s.call_with(Method::POST, &item_path(&api, "a/b"), Some(br#"{"value":"v"}"#.to_vec()), true)?;
    ensure!(refused.json_type, "a refused key's answer ({}) is not JSON", refused.status);
    let text = String::from_utf8_lossy(&refused.body).to_ascii_lowercase();
    ensure!(!["jetty", "tomcat", "apache"].iter().any(|n| text.contains(n)), "the refusal names the server: {text}");
    let old = raw_answer(s, "GET /health\r\n")?;
    ensure!(old.is_empty() || old.starts_with("HTTP/1."), "an HTTP/0.9 request got a bare document: {old:?}");
    Ok(())
}

/// RFC 9112 §3.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1
/// request message that lacks a Host header field and to any request message that contains more
/// than one Host header field line".
fn host_required(s: &Service) -> Result<()> {
    for (request, what) in [
        ("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n", "no Host"),
        (
            "GET /health HTTP/1.1\r\nHost: {authority}\r\nHost: other.example\r\nConnection: close\r\n\r\n",
            "two Host fields",
        ),
    ] {
        let line = raw_status(s, request)?;
        ensure!(line.starts_with("HTTP/1.1 400"), "an HTTP/1.1 request with {what} got `{line}`");
    }
    Ok(())
}

/// 250 connections that send a POST's head and one byte of its body, then wait: the service
/// answers others meanwhile. Read on a request thread, each such body held one of Jetty's and
/// Tomcat's 200 threads, and nothing else was answered while they waited (no API key needed).
fn slow_bodies(s: &Service) -> Result<()> {
    use std::io::Write;
    let authority = s.base.trim_start_matches("http://").trim_end_matches('/').to_string();
    let unknown = "00000000-0000-4000-8000-000000000001";
    let mut dripping = Vec::new();
    for _ in 0..250 {
        let mut socket = std::net::TcpStream::connect(&authority).context("connecting a slow client")?;
        write!(
            socket,
            "POST {} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{",
            item_path(unknown, "k")
        )?;
        dripping.push(socket);
    }
    let started = std::time::Instant::now();
    let line = raw_status(s, "GET /health HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n")?;
    ensure!(
        line.starts_with("HTTP/1.1 200"),
        "with 250 bodies dripping, GET /health got `{line}` after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    drop(dripping);
    Ok(())
}

/// RFC 9110 §9.1 (a general-purpose server supports HEAD) and §9.3.2 (GET's status and headers,
/// no content).
fn head_is_get_without_body(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    s.item(Method::POST, &api, "k", Some("v"))?.expect(201, "POST")?;
    for (path, status) in [
        (item_path(&api, "k"), 200),
        (item_path(&api, "missing"), 404),
        (format!("/api/{api}"), 200),
        ("/health".to_string(), 200),
    ] {
        let head = s.call(Method::HEAD, &path, None)?;
        ensure!(head.status == status, "HEAD {path}: {} where GET answers {status}", head.status);
        ensure!(head.body.is_empty(), "HEAD {path} sent {} bytes of content", head.body.len());
    }
    Ok(())
}

fn methods_and_paths(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    s.item(Method::PATCH, &api, "k", Some("v"))?.expect(405, "PATCH of an item")?;
    s.call(Method::POST, "/api/", Some(b"{}".to_vec()))?.expect(405, "POST /api/")?;
    s.call(Method::DELETE, &format!("/api/{api}"), None)?.expect(405, "DELETE of a list")?;
    s.get("/nothing-here")?.expect(404, "an unknown path")?;
    s.get(&format!("/api/{api}/k/more"))?.expect(404, "a path one segment too deep").map(drop)
}

fn concurrent_creates(s: &Service) -> Result<()> {
    let api = s.api_key()?;
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let calls: Vec<_> = (0..16)
            .map(|i| {
                let api = &api;
                scope.spawn(move || s.item(Method::POST, api, "race", Some(&format!("v{i}"))).map(|a| a.status))
            })
            .collect();
        calls.into_iter().map(|c| c.join().expect("thread")).collect::<Result<_>>()
    })?;
    let created = statuses.iter().filter(|&&c| c == 201).count();
    ensure!(created == 1 && statuses.iter().all(|&c| c == 201 || c == 409), "16 creates answered {statuses:?}");
    ensure!(s.list(&api)?.len() == 1, "concurrent creates stored more than one item");
    Ok(())
}
