//! The HTTP API of subjects/restcache/openapi.yaml: routes, the contract's checks in its order
//! (path → API key → body → item), and its JSON answers.

use axum::body::{to_bytes, Body};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode, Version};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Extension;
use axum::{Json, Router};
use serde_json::json;
use serde_json::value::RawValue;
use std::collections::HashMap;
use uuid::Uuid;

use crate::serve::Limits;
use crate::store::{Created, Item, Store};

/// Bodies over this are answered 413.
const MAX_BODY_BYTES: usize = 1 << 20;
/// Bodies nested deeper (objects and arrays, the outer one included) are answered 400: the
/// contract's one limit (RFC 8259 §9 lets a parser set one); serde_json alone stops at 127.
const MAX_DEPTH: usize = 100;
/// Keys over this many bytes of UTF-8 are answered 400.
const MAX_KEY_BYTES: usize = 1024;

/// The service's routes over `store`; a body must arrive within `limits.body`.
pub fn router(store: Store, limits: Limits) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/api/", get(new_api_key))
        .route("/api/{api_key}", get(list))
        .route("/api/{api_key}/{key}", get(read).post(create).put(update).delete(delete))
        .layer(axum::middleware::from_fn(well_formed))
        .layer(Extension(limits))
        .with_state(store)
}

/// 400 before any route for what HTTP itself refuses, which hyper lets through:
/// - an HTTP/1.1 request without exactly one `Host` (RFC 9112 §3.2: "A server MUST respond with
///   a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a Host header
///   field and to any request message that contains more than one"); Go, Jetty and Tomcat do;
/// - a path whose `%` is not followed by two hex digits (RFC 3986 §2.1): decoded leniently,
///   `a%G1b` and `a%` would be stored as typed, and `a%` and `a%25` would name one item. The Go
///   and Java implementations refuse them too.
async fn well_formed(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let hosts = request.headers().get_all(header::HOST).iter().count();
    if hosts > 1 || (hosts == 0 && request.version() == Version::HTTP_11) {
        return Failure::new(StatusCode::BAD_REQUEST, "an HTTP/1.1 request needs exactly one Host header")
            .into_response();
    }
    let path = request.uri().path().as_bytes();
    let bad = path.iter().enumerate().any(|(i, &b)| {
        b == b'%'
            && !(path.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && path.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    });
    if bad {
        return Failure::new(StatusCode::BAD_REQUEST, "bad path: a `%` must be followed by two hex digits")
            .into_response();
    }
    next.run(request).await
}

/// A contract answer that is not a success: its status and `{"error": …}`.
#[derive(Debug)]
struct Failure(StatusCode, String);

impl Failure {
    fn new(status: StatusCode, message: impl Into<String>) -> Failure {
        Failure(status, message.into())
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let mut answer = (self.0, Json(json!({ "error": self.1 }))).into_response();
        if self.0 == StatusCode::REQUEST_TIMEOUT {
            // RFC 9110 §15.5.9: the server SHOULD close the connection after a 408.
            answer.headers_mut().insert(header::CONNECTION, header::HeaderValue::from_static("close"));
        }
        answer
    }
}

impl From<anyhow::Error> for Failure {
    /// A store error: 500, and one line on stderr (never client input's fault).
    fn from(e: anyhow::Error) -> Failure {
        eprintln!("restcache-rust: store error: {e:#}");
        Failure::new(StatusCode::INTERNAL_SERVER_ERROR, "store error")
    }
}

type Answer = Result<Response, Failure>;

async fn health(State(store): State<Store>) -> Answer {
    store.ping().await?;
    Ok("ok".into_response())
}

async fn new_api_key(State(store): State<Store>) -> Answer {
    let api = Uuid::new_v4();
    store.add_api_key(api).await?;
    Ok(Json(json!({ "apiKey": api.to_string() })).into_response())
}

async fn list(State(store): State<Store>, path: Result<Path<String>, PathRejection>) -> Answer {
    let api = path.map_err(bad_path)?.0;
    let api = known_api_key(&store, &api).await?;
    Ok(Json(store.list(api).await?).into_response())
}

async fn read(State(store): State<Store>, path: Result<Path<(String, String)>, PathRejection>) -> Answer {
    let (api, key) = item_path(&store, path).await?;
    match store.get(api, key.clone()).await? {
        Some(value) => Ok(Json(Item { key, value }).into_response()),
        None => Err(no_item()),
    }
}

async fn create(
    State(store): State<Store>,
    Extension(limits): Extension<Limits>,
    path: Result<Path<(String, String)>, PathRejection>,
    body: Body,
) -> Answer {
    let (api, key, value) = item_and_value(&store, path, body, limits).await?;
    match store.create(api, key.clone(), value.clone()).await? {
        Created::Yes => Ok((StatusCode::CREATED, Json(Item { key, value })).into_response()),
        Created::AlreadyThere => Err(Failure::new(StatusCode::CONFLICT, "the item exists: update it with PUT")),
    }
}

async fn update(
    State(store): State<Store>,
    Extension(limits): Extension<Limits>,
    path: Result<Path<(String, String)>, PathRejection>,
    body: Body,
) -> Answer {
    let (api, key, value) = item_and_value(&store, path, body, limits).await?;
    if store.update(api, key.clone(), value.clone()).await? {
        Ok(Json(Item { key, value }).into_response())
    } else {
        Err(no_item())
    }
}

async fn delete(State(store): State<Store>, path: Result<Path<(String, String)>, PathRejection>) -> Answer {
    let (api, key) = item_path(&store, path).await?;
    if store.delete(api, key).await? {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(no_item())
    }
}

/// A write's checks in the contract's order: the item's path (its body drained when that fails),
/// then the body's value.
async fn item_and_value(
    store: &Store,
    path: Result<Path<(String, String)>, PathRejection>,
    body: Body,
    limits: Limits,
) -> Result<(Uuid, String, String), Failure> {
    let (api, key) = match item_path(store, path).await {
        Ok(p) => p,
        Err(f) => return Err(drained(body, f, limits).await),
    };
    Ok((api, key, value_of(body, limits).await?))
}

/// `f`, after reading (up to 1 MiB + 1 bytes of) a body the answer does not need: a server that
/// answers first and closes may cut the client off mid-body, before it reads the answer. A body
/// slower than `limits.body` is not waited for.
async fn drained(body: Body, f: Failure, limits: Limits) -> Failure {
    let _ = tokio::time::timeout(limits.body, to_bytes(body, MAX_BODY_BYTES + 1)).await;
    f
}

fn no_item() -> Failure {
    Failure::new(StatusCode::NOT_FOUND, "no such item")
}

fn bad_path(e: PathRejection) -> Failure {
    Failure::new(StatusCode::BAD_REQUEST, format!("bad path: {}", e.body_text()))
}

/// The checks of an item's path, in the contract's order: both parts well formed (400), then the
/// API key issued (404).
async fn item_path(
    store: &Store,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(Uuid, String), Failure> {
    let (api, key) = path.map_err(bad_path)?.0;
    let api = api_key_of(&api)?;
    check_key(&key)?;
    if !store.api_key_exists(api).await? {
        return Err(unknown_api_key());
    }
    Ok((api, key))
}

async fn known_api_key(store: &Store, text: &str) -> Result<Uuid, Failure> {
    let api = api_key_of(text)?;
    if store.api_key_exists(api).await? {
        Ok(api)
    } else {
        Err(unknown_api_key())
    }
}

fn unknown_api_key() -> Failure {
    Failure::new(StatusCode::NOT_FOUND, "unknown API key: get one from GET /api/")
}

/// A canonical UUID (8-4-4-4-12 hex digits, either case); other spellings `Uuid::parse_str`
/// accepts (braces, URNs, no dashes) are malformed here.
fn api_key_of(text: &str) -> Result<Uuid, Failure> {
    let malformed = || Failure::new(StatusCode::BAD_REQUEST, "malformed API key: expected a UUID");
    let canonical = text.len() == 36
        && text
            .bytes()
            .enumerate()
            .all(|(i, b)| if [8, 13, 18, 23].contains(&i) { b == b'-' } else { b.is_ascii_hexdigit() });
    if !canonical {
        return Err(malformed());
    }
    Uuid::parse_str(text).map_err(|_| malformed())
}

fn check_key(key: &str) -> Result<(), Failure> {
    if key.len() > MAX_KEY_BYTES {
        return Err(Failure::new(StatusCode::BAD_REQUEST, format!("key longer than {MAX_KEY_BYTES} bytes")));
    }
    if key.contains('\0') || key.contains('/') {
        return Err(Failure::new(StatusCode::BAD_REQUEST, "a key may not hold U+0000 or '/'"));
    }
    Ok(())
}

/// The body's string `value`: 413 over 1 MiB, 408 when it takes longer than `limits.body`, 400
/// for a body that cannot be read (a malformed chunk, cut short) or is anything but a JSON object
/// with one.
async fn value_of(body: Body, limits: Limits) -> Result<String, Failure> {
    let read = tokio::time::timeout(limits.body, to_bytes(body, MAX_BODY_BYTES)).await.map_err(|_| {
        Failure::new(StatusCode::REQUEST_TIMEOUT, format!("the body took over {} s", limits.body.as_secs()))
    })?;
    let bytes = read.map_err(|e| {
        let over = std::error::Error::source(&e).is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
        if over {
            Failure::new(StatusCode::PAYLOAD_TOO_LARGE, "body over 1 MiB")
        } else {
            Failure::new(StatusCode::BAD_REQUEST, format!("the body cannot be read: {e}"))
        }
    })?;
    // The members as raw text: the service reads `value` alone, so a number elsewhere is never
    // converted (serde_json refuses one beyond f64's range) and any valid JSON may sit beside it.
    let doc: HashMap<String, &RawValue> = serde_json::from_slice(&bytes)
        .map_err(|e| Failure::new(StatusCode::BAD_REQUEST, format!("body is not a JSON object: {e}")))?;
    scan(&bytes).map_err(|why| Failure::new(StatusCode::BAD_REQUEST, why))?;
    let value = doc
        .get("value")
        .and_then(|raw| serde_json::from_str::<String>(raw.get()).ok())
        .ok_or_else(|| Failure::new(StatusCode::BAD_REQUEST, "body needs a string `value`"))?;
    if value.contains('\0') {
        return Err(Failure::new(StatusCode::BAD_REQUEST, "a value may not hold U+0000"));
    }
    Ok(value)
}

/// What the contract refuses in a well-formed JSON text beyond its grammar: nesting deeper than
/// `MAX_DEPTH` (objects and arrays, the outer one included), and a `\u` escape of a lone surrogate
/// anywhere (I-JSON, RFC 7493 §2.1; serde_json checks those only in strings it decodes).
fn scan(json: &[u8]) -> Result<(), &'static str> {
    let (mut depth, mut in_string, mut i) = (0usize, false, 0);
    // The code unit of the `\uXXXX` at `at` (the backslash), if one is there.
    let unit = |at: usize| {
        let hex = json.get(at..at + 6).filter(|h| h.starts_with(b"\\u"))?;
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    while i < json.len() {
        let b = json[i];
        if in_string {
            match b {
                b'"' => in_string = false,
                b'\\' => match unit(i) {
                    Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 11,
                    Some(0xD800..=0xDFFF) => return Err("a body may not hold a lone surrogate"),
                    Some(_) => i += 5,
                    None => i += 1,
                },
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => {
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err("body nested over 100 levels");
                    }
                }
                b'}' | b']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_canonical_uuids_are_api_keys() {
        let good = ["f0778bae-2902-4ff6-93fa-9776403ecb0f", "F0778BAE-2902-4FF6-93FA-9776403ECB0F"];
        for k in good {
            assert_eq!(api_key_of(k).unwrap().to_string(), good[0], "{k}");
        }
        let bad = [
            "",
            "f0778bae29024ff693fa9776403ecb0f",
            "{f0778bae-2902-4ff6-93fa-9776403ecb0f}",
            "urn:uuid:f0778bae-2902-4ff6-93fa-9776403ecb0f",
            "f0778bae-2902-4ff6-93fa-9776403ecb0g",
            "f0778bae+2902-4ff6-93fa-9776403ecb0f",
        ];
        for k in bad {
            assert_eq!(api_key_of(k).unwrap_err().0, StatusCode::BAD_REQUEST, "{k}");
        }
    }

    #[test]
    fn scan_counts_brackets_outside_strings_and_finds_lone_surrogates() {
        let deep = |n: usize| format!(r#"{{"value":"[[[{{","x":{}{}}}"#, "[".repeat(n - 1), "]".repeat(n - 1));
        assert_eq!(scan(deep(100).as_bytes()), Ok(()));
        assert!(scan(deep(101).as_bytes()).is_err());
        assert_eq!(scan(br#"{"value":"a\"[[[\\","x":[]}"#), Ok(()), "an escaped quote does not end the string");
        assert_eq!(
            scan(br#"{"value":"\ud83e\udd80 \u00e9 \\ud800"}"#),
            Ok(()),
            "a pair, a letter, an escaped backslash"
        );
        for lone in [r#"{"v":"\ud800"}"#, r#"{"v":"\udc00x"}"#, r#"{"v":"\ud800\ud800"}"#, r#"{"v":"\uD800\u0041"}"#] {
            assert!(scan(lone.as_bytes()).is_err(), "{lone}");
        }
    }

    #[test]
    fn keys_are_checked_for_length_and_forbidden_characters() {
        assert!(check_key(&"k".repeat(1024)).is_ok());
        assert!(check_key("'; DROP TABLE cache; --").is_ok());
        for bad in ["k".repeat(1025), "a\0b".into(), "a/b".into()] {
            assert_eq!(check_key(&bad).unwrap_err().0, StatusCode::BAD_REQUEST);
        }
    }
}
