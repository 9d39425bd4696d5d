//! HTTP routes of the subject: the handlers, their input limits and `configure`, which mounts them.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::Write as _;
use std::sync::{LazyLock, PoisonError, RwLock};
use std::time::Duration;

use actix_web::error::InternalError;
use actix_web::http::header::{self, ContentType, HeaderValue};
use actix_web::{web, HttpRequest, HttpResponse};
use bytes::{Bytes, BytesMut};
use futures_util::stream::{self, StreamExt as _};
use serde::Deserialize;

/// Smallest payload: `{"message":""}`.
pub const PAYLOAD_MIN: usize = 14;
pub const PAYLOAD_MAX: usize = 64 << 20;
pub const ECHO_LIMIT: usize = 16 << 20;
pub const HOL_DEFAULT_MS: u64 = 50;
pub const HOL_MAX_MS: u64 = 10_000;
pub const STREAM_DEFAULT_CHUNKS: usize = 100;
pub const STREAM_DEFAULT_SIZE: usize = 100;
pub const STREAM_MAX_CHUNKS: usize = 100_000;
/// Smallest chunk that still holds `chunk NNN ` and the closing newline.
pub const STREAM_MIN_SIZE: usize = 11;
pub const STREAM_MAX_SIZE: usize = 1 << 20;

const PAYLOAD_HEAD: &[u8] = br#"{"message":""#;
const PAYLOAD_TAIL: &[u8] = br#""}"#;

/// Where every API's message comes from (`--bodies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Bodies {
    /// Built once per size and shared by every answer, so the rows measure the transport and the
    /// API's own work (GraphQL's resolver, SOAP's envelope), not string building.
    #[default]
    Cached,
    /// Built on every call, as the study's REST built its answer (Listing 5.1:
    /// `HttpResponse::Ok().json(json!({"message": "x".repeat(n)}))`): the REST body through
    /// serde_json, every other API's message as a fresh `"x".repeat(n)`.
    PerCall,
}

static BODIES: std::sync::OnceLock<Bodies> = std::sync::OnceLock::new();

/// Sets the process's `Bodies` once, at start; later calls keep the first.
pub fn set_bodies(bodies: Bodies) {
    let _ = BODIES.set(bodies);
}

fn per_call() -> bool {
    BODIES.get() == Some(&Bodies::PerCall)
}

/// Mounts every endpoint. Each path is a resource whose routes carry the method guards, so a known
/// path with the wrong method gets 405 with `Allow` rather than falling through to the 404
/// default. What answers GET answers HEAD too (RFC 9110 §9.1: a general-purpose server MUST);
/// actix-http sends HEAD's headers without the body.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::PathConfig::default().error_handler(|err, _req| {
        InternalError::from_response(err, bad_request("size must be a decimal integer")).into()
    }))
    .app_data(web::QueryConfig::default().error_handler(|err, _req| {
        InternalError::from_response(err, bad_request("query values must be decimal integers")).into()
    }))
    .service(web::resource("/health").route(web::get().to(health)).route(web::head().to(health)))
    .service(web::resource("/payload/{bytes}").route(web::get().to(payload)).route(web::head().to(payload)))
    .service(web::resource("/echo").route(web::post().to(echo)))
    .service(web::resource("/hol").route(web::get().to(hol)).route(web::head().to(hol)))
    .service(web::resource("/stream").route(web::get().to(stream_chunks)).route(web::head().to(stream_chunks)))
    .service(web::resource("/sse").route(web::get().to(sse)).route(web::head().to(sse)));
}

fn bad_request(msg: &'static str) -> HttpResponse {
    HttpResponse::BadRequest().content_type(ContentType::plaintext()).body(msg)
}

fn ok_text() -> HttpResponse {
    HttpResponse::Ok().content_type(ContentType::plaintext()).body("ok")
}

async fn health() -> HttpResponse {
    ok_text()
}

async fn payload(size: web::Path<usize>) -> HttpResponse {
    match payload_checked(size.into_inner()) {
        Ok(body) => HttpResponse::Ok().content_type(ContentType::json()).body(body),
        Err(msg) => bad_request(msg),
    }
}

// The checks and bodies below are the REST API itself, apart from any server: the actix routes
// here and the HTTP/3 server (`crate::h3`) answer with them, so every transport serves the same
// bytes and refuses the same input with the same message.

/// `/payload/{size}`: the payload, or why the size is refused.
pub fn payload_checked(size: usize) -> Result<Bytes, &'static str> {
    if !(PAYLOAD_MIN..=PAYLOAD_MAX).contains(&size) {
        return Err("size must be between 14 and 67108864 bytes");
    }
    Ok(payload_body(size))
}

/// `/hol?ms=`: how long to hold the answer.
pub fn hol_delay(query: &HolQuery) -> Result<Duration, &'static str> {
    let ms = query.ms.unwrap_or(HOL_DEFAULT_MS);
    if ms > HOL_MAX_MS {
        return Err("ms must be between 0 and 10000");
    }
    Ok(Duration::from_millis(ms))
}

/// `/stream?chunks=&size=`: the chunks, each its own write.
pub fn stream_body(query: &StreamQuery) -> Result<impl Iterator<Item = Bytes> + Send + 'static, &'static str> {
    let chunks = query.chunks.unwrap_or(STREAM_DEFAULT_CHUNKS);
    let size = query.size.unwrap_or(STREAM_DEFAULT_SIZE);
    if !(1..=STREAM_MAX_CHUNKS).contains(&chunks) {
        return Err("chunks must be between 1 and 100000");
    }
    if !(STREAM_MIN_SIZE..=STREAM_MAX_SIZE).contains(&size) {
        return Err("size must be between 11 and 1048576");
    }
    let mut template = vec![b'x'; size];
    template[size - 1] = b'\n';
    let template = Bytes::from(template);
    Ok((0..chunks).map(move |i| stream_chunk(&template, i)))
}

/// `/sse?size=&count=`: the events, each its own write.
pub fn sse_body(query: &SseQuery) -> Result<impl Iterator<Item = Bytes> + Send + 'static, &'static str> {
    let size = query.size.unwrap_or(STREAM_DEFAULT_SIZE);
    let count = query.count.unwrap_or(STREAM_DEFAULT_CHUNKS);
    if !(1..=PAYLOAD_MAX).contains(&size) {
        return Err("size must be between 1 and 67108864");
    }
    if !(1..=STREAM_MAX_CHUNKS).contains(&count) {
        return Err("count must be between 1 and 100000");
    }
    Ok(std::iter::repeat_n(sse_event(size), count))
}

/// Bodies built once per size, so that requests measure the transport rather than string
/// building; `Bytes` clones share one buffer.
type SizeCache = LazyLock<RwLock<HashMap<usize, Bytes>>>;

fn cached(cache: &SizeCache, size: usize, build: fn(usize) -> Bytes) -> Bytes {
    if let Some(body) = cache.read().unwrap_or_else(PoisonError::into_inner).get(&size) {
        return body.clone();
    }
    // Built outside the lock so a 64 MiB fill does not stall readers of other sizes; a racing
    // builder's copy is simply dropped.
    let body = build(size);
    cache.write().unwrap_or_else(PoisonError::into_inner).entry(size).or_insert(body).clone()
}

/// The REST payload of `size` bytes.
fn payload_body(size: usize) -> Bytes {
    static CACHE: SizeCache = LazyLock::new(Default::default);
    if per_call() {
        return serialize_payload(size);
    }
    cached(&CACHE, size, build_payload)
}

/// The REST payload as the study's handler made it: a JSON value around a fresh message,
/// serialized by serde_json. The bytes are `build_payload`'s.
fn serialize_payload(size: usize) -> Bytes {
    let message = "x".repeat(size - PAYLOAD_HEAD.len() - PAYLOAD_TAIL.len());
    let body = serde_json::to_vec(&serde_json::json!({ "message": message })).expect("a string serializes");
    Bytes::from(body)
}

/// One Server-Sent Event whose data is the message of `size` bytes: `data: xxx…\n\n`.
fn sse_event(size: usize) -> Bytes {
    static CACHE: SizeCache = LazyLock::new(Default::default);
    let build = |size: usize| {
        let mut event = Vec::with_capacity(size + 8);
        event.extend_from_slice(b"data: ");
        event.extend_from_slice(message(size).as_bytes());
        event.extend_from_slice(b"\n\n");
        Bytes::from(event)
    };
    if per_call() {
        return build(size);
    }
    cached(&CACHE, size, build)
}

/// The message of `size` bytes of `x` that GraphQL and SOAP answer with, built once per size
/// like the REST payload, so every API starts from data it already has. Juniper copies it into
/// its response value and SOAP escapes and copies it into the envelope on every call: that is
/// their work.
pub fn message(size: usize) -> std::sync::Arc<str> {
    if per_call() {
        return "x".repeat(size).into();
    }
    static CACHE: LazyLock<RwLock<HashMap<usize, std::sync::Arc<str>>>> = LazyLock::new(Default::default);
    if let Some(m) = CACHE.read().unwrap_or_else(PoisonError::into_inner).get(&size) {
        return m.clone();
    }
    let m: std::sync::Arc<str> = "x".repeat(size).into();
    CACHE.write().unwrap_or_else(PoisonError::into_inner).entry(size).or_insert(m).clone()
}

/// `message(size)` as `Bytes` sharing the cached string: cloning it copies nothing.
pub fn message_bytes(size: usize) -> Bytes {
    Bytes::from_owner(SharedMessage(message(size)))
}

struct SharedMessage(std::sync::Arc<str>);

impl AsRef<[u8]> for SharedMessage {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

fn build_payload(size: usize) -> Bytes {
    let mut body = Vec::with_capacity(size);
    body.extend_from_slice(PAYLOAD_HEAD);
    body.resize(size - PAYLOAD_TAIL.len(), b'x');
    body.extend_from_slice(PAYLOAD_TAIL);
    Bytes::from(body)
}

/// Over-limit uploads get a 413 with no body. Over HTTP/2 the refusal goes out while the client
/// is still sending, and the stream reset that follows it can cut off any body not yet sent; a
/// bodiless response ends with its HEADERS frame, so the client always sees the status.
fn too_large() -> HttpResponse {
    HttpResponse::PayloadTooLarge().finish()
}

async fn echo(req: HttpRequest, mut payload: web::Payload) -> HttpResponse {
    let declared =
        req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > ECHO_LIMIT as u64) {
        return too_large();
    }
    // Sized from Content-Length so a large upload is gathered without regrowing the buffer.
    let mut body = BytesMut::with_capacity(declared.map_or(0, |len| len as usize));
    while let Some(chunk) = payload.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(err) => return HttpResponse::from_error(err),
        };
        if body.len() + chunk.len() > ECHO_LIMIT {
            return too_large();
        }
        body.extend_from_slice(&chunk);
    }

    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .cloned()
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    HttpResponse::Ok().insert_header((header::CONTENT_TYPE, content_type)).body(body.freeze())
}

#[derive(Deserialize)]
pub struct HolQuery {
    pub ms: Option<u64>,
}

async fn hol(query: web::Query<HolQuery>) -> HttpResponse {
    let delay = match hol_delay(&query) {
        Ok(delay) => delay,
        Err(msg) => return bad_request(msg),
    };
    if !delay.is_zero() {
        actix_web::rt::time::sleep(delay).await;
    }
    ok_text()
}

#[derive(Deserialize)]
pub struct StreamQuery {
    pub chunks: Option<usize>,
    pub size: Option<usize>,
}

async fn stream_chunks(query: web::Query<StreamQuery>) -> HttpResponse {
    let chunks = match stream_body(&query) {
        Ok(chunks) => chunks,
        Err(msg) => return bad_request(msg),
    };
    let body = stream::iter(chunks.map(Ok::<_, Infallible>));
    // No content length is set, so HTTP/1.1 sends this with chunked transfer encoding.
    HttpResponse::Ok().content_type(ContentType::plaintext()).streaming(body)
}

#[derive(Deserialize)]
pub struct SseQuery {
    pub size: Option<usize>,
    pub count: Option<usize>,
}

/// `GET /sse?size=N&count=K`: K Server-Sent Events whose data is N bytes each (defaults: the
/// `/stream` route's 100 of 100), then the end of the response.
async fn sse(query: web::Query<SseQuery>) -> HttpResponse {
    let events = match sse_body(&query) {
        Ok(events) => events,
        Err(msg) => return bad_request(msg),
    };
    let body = stream::iter(events.map(Ok::<_, Infallible>));
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .streaming(body)
}

/// Chunk `i`: `chunk NNN ` (i zero-padded to 3 digits), 'x' filling, then '\n' as the last byte.
/// When the label does not fit before the newline (large i with a small size) it is cut short,
/// so every chunk is exactly the template's length.
fn stream_chunk(template: &[u8], i: usize) -> Bytes {
    let mut chunk = BytesMut::from(template);
    let label_room = chunk.len() - 1;
    // Writing into a fixed slice stops when it is full; that truncation is the intended result.
    let _ = write!(&mut chunk[..label_room], "chunk {i:03} ");
    chunk.freeze()
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use actix_web::body::{BodySize, MessageBody as _};
    use actix_web::http::{Method, StatusCode};
    use actix_web::test::{self, TestRequest};
    use actix_web::App;

    use super::*;

    /// The service under test, mounted exactly as the server mounts it.
    macro_rules! app {
        () => {
            test::init_service(App::new().configure(configure)).await
        };
    }

    async fn get(uri: &str) -> (StatusCode, Option<String>, Bytes) {
        let app = app!();
        let resp = test::call_service(&app, TestRequest::get().uri(uri).to_request()).await;
        let status = resp.status();
        let content_type = resp.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap().to_owned());
        (status, content_type, test::read_body(resp).await)
    }

    #[test]
    fn the_studys_per_call_body_is_the_cached_body_byte_for_byte() {
        for size in [PAYLOAD_MIN, 1024, 1 << 20] {
            assert_eq!(serialize_payload(size), build_payload(size), "size {size}");
        }
    }

    fn expected_payload(size: usize) -> Vec<u8> {
        let mut v = PAYLOAD_HEAD.to_vec();
        v.extend(std::iter::repeat_n(b'x', size - 14));
        v.extend_from_slice(PAYLOAD_TAIL);
        v
    }

    #[actix_web::test]
    async fn health_is_ok() {
        let (status, ct, body) = get("/health").await;
        assert_eq!(status, StatusCode::OK);
        assert!(ct.unwrap().starts_with("text/plain"));
        assert_eq!(body, "ok");
    }

    #[actix_web::test]
    async fn payload_minimum_is_empty_message() {
        let (status, ct, body) = get("/payload/14").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(ct.as_deref(), Some("application/json"));
        assert_eq!(body, r#"{"message":""}"#);
    }

    #[actix_web::test]
    async fn payload_fills_exact_size() {
        for size in [15, 1024, 1 << 20] {
            let (status, _, body) = get(&format!("/payload/{size}")).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(body.len(), size);
            assert_eq!(&body[..], &expected_payload(size)[..]);
        }
    }

    #[actix_web::test]
    async fn payload_accepts_maximum() {
        let (status, _, body) = get(&format!("/payload/{PAYLOAD_MAX}")).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body.len(), PAYLOAD_MAX);
        assert!(body.ends_with(b"xx\"}"));
    }

    #[test]
    fn payload_is_built_once_per_size() {
        let a = payload_body(4321);
        let b = payload_body(4321);
        assert_eq!(a.as_ptr(), b.as_ptr());
    }

    #[actix_web::test]
    async fn sse_sends_count_events_of_size_bytes() {
        let app = app!();
        let resp = test::call_service(&app, TestRequest::get().uri("/sse?size=5&count=3").to_request()).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(resp.headers().get(header::CONTENT_TYPE).unwrap(), "text/event-stream");
        let body = test::read_body(resp).await;
        assert_eq!(&body[..], b"data: xxxxx\n\ndata: xxxxx\n\ndata: xxxxx\n\n");
        for bad in ["/sse?size=0", "/sse?count=0", "/sse?count=100001", "/sse?size=x"] {
            let resp = test::call_service(&app, TestRequest::get().uri(bad).to_request()).await;
            assert_eq!(resp.status(), StatusCode::BAD_REQUEST, "{bad}");
        }
    }

    #[actix_web::test]
    async fn payload_rejects_bad_sizes() {
        let too_big = format!("/payload/{}", PAYLOAD_MAX + 1);
        for uri in [
            "/payload/13",
            "/payload/0",
            too_big.as_str(),
            "/payload/abc",
            "/payload/-1",
            "/payload/1.5",
            "/payload/99999999999999999999999",
        ] {
            let (status, ct, body) = get(uri).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
            assert!(ct.unwrap().starts_with("text/plain"), "{uri}");
            assert!(!body.is_empty(), "{uri}");
        }
    }

    #[actix_web::test]
    async fn echo_returns_body_and_content_type() {
        let app = app!();
        let data: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
        let req = TestRequest::post()
            .uri("/echo")
            .insert_header((header::CONTENT_TYPE, "application/x-test; v=1"))
            .set_payload(data.clone())
            .to_request();
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(resp.headers().get(header::CONTENT_TYPE).unwrap(), "application/x-test; v=1");
        assert_eq!(test::read_body(resp).await, data);
    }

    #[actix_web::test]
    async fn echo_defaults_to_octet_stream() {
        let app = app!();
        let req = TestRequest::post().uri("/echo").set_payload("abc").to_request();
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(resp.headers().get(header::CONTENT_TYPE).unwrap(), "application/octet-stream");
        assert_eq!(test::read_body(resp).await, "abc");
    }

    #[actix_web::test]
    async fn echo_empty_body() {
        let app = app!();
        let req = TestRequest::post().uri("/echo").to_request();
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert!(test::read_body(resp).await.is_empty());
    }

    #[actix_web::test]
    async fn echo_limit_is_16_mib() {
        let app = app!();
        let req = TestRequest::post().uri("/echo").set_payload(vec![7u8; ECHO_LIMIT]).to_request();
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(test::read_body(resp).await.len(), ECHO_LIMIT);

        let req = TestRequest::post().uri("/echo").set_payload(vec![7u8; ECHO_LIMIT + 1]).to_request();
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);

        // Without Content-Length (chunked upload) the limit is enforced while reading.
        let mut req = TestRequest::post().uri("/echo").set_payload(vec![7u8; ECHO_LIMIT + 1]).to_request();
        req.headers_mut().remove(header::CONTENT_LENGTH);
        let resp = test::call_service(&app, req).await;
        assert_eq!(resp.status(), StatusCode::PAYLOAD_TOO_LARGE);

        // Still serving after the rejection.
        let req = TestRequest::post().uri("/echo").set_payload("z").to_request();
        assert_eq!(test::call_and_read_body(&app, req).await, "z");
    }

    #[actix_web::test]
    async fn hol_waits_default_delay() {
        let start = Instant::now();
        let (status, _, body) = get("/hol").await;
        assert!(start.elapsed() >= Duration::from_millis(HOL_DEFAULT_MS));
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, "ok");
    }

    #[actix_web::test]
    async fn hol_delay_override_and_concurrency() {
        let app = app!();
        let start = Instant::now();
        let (a, b) = futures_util::future::join(
            test::call_service(&app, TestRequest::get().uri("/hol?ms=200").to_request()),
            test::call_service(&app, TestRequest::get().uri("/hol?ms=200").to_request()),
        )
        .await;
        let elapsed = start.elapsed();
        assert_eq!(a.status(), StatusCode::OK);
        assert_eq!(b.status(), StatusCode::OK);
        assert!(elapsed >= Duration::from_millis(200));
        // Both waits overlap on one thread: the sleep does not block the worker.
        assert!(elapsed < Duration::from_millis(390), "{elapsed:?}");

        let (status, _, body) = get("/hol?ms=0").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, "ok");
    }

    #[actix_web::test]
    async fn hol_rejects_bad_delay() {
        for uri in ["/hol?ms=10001", "/hol?ms=abc", "/hol?ms=-1", "/hol?ms="] {
            let (status, _, _) = get(uri).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
        }
    }

    #[actix_web::test]
    async fn stream_default_is_100_chunks_of_100_bytes() {
        let app = app!();
        let resp = test::call_service(&app, TestRequest::get().uri("/stream").to_request()).await;
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(resp.response().body().size(), BodySize::Stream);
        let body = test::read_body(resp).await;
        assert_eq!(body.len(), 10_000);
        for (i, chunk) in body.chunks(100).enumerate() {
            let mut expected = format!("chunk {i:03} ").into_bytes();
            expected.resize(99, b'x');
            expected.push(b'\n');
            assert_eq!(chunk, &expected[..], "chunk {i}");
        }
    }

    #[actix_web::test]
    async fn stream_overrides() {
        let (status, _, body) = get("/stream?chunks=2&size=11").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, "chunk 000 \nchunk 001 \n");

        let (status, _, body) = get("/stream?chunks=1001&size=11").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body.len(), 1001 * 11);
        assert_eq!(&body[999 * 11..], b"chunk 999 \nchunk 1000\n");

        let (status, _, body) = get("/stream?chunks=1&size=1048576").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body.len(), 1 << 20);
        assert!(body.starts_with(b"chunk 000 xx"));
        assert!(body.ends_with(b"xx\n"));
    }

    #[actix_web::test]
    async fn stream_rejects_bad_params() {
        for uri in [
            "/stream?chunks=0",
            "/stream?chunks=100001",
            "/stream?size=10",
            "/stream?size=1048577",
            "/stream?chunks=abc",
            "/stream?size=",
        ] {
            let (status, _, _) = get(uri).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
        }
    }

    #[actix_web::test]
    async fn unknown_path_is_404_and_wrong_method_is_405() {
        let app = app!();
        for uri in ["/", "/nope", "/payload", "/payload/", "/health/x"] {
            let resp = test::call_service(&app, TestRequest::get().uri(uri).to_request()).await;
            assert_eq!(resp.status(), StatusCode::NOT_FOUND, "{uri}");
        }
        for (method, uri) in [
            (Method::POST, "/health"),
            (Method::DELETE, "/payload/100"),
            (Method::GET, "/echo"),
            (Method::PUT, "/hol"),
            (Method::POST, "/stream"),
        ] {
            let req = TestRequest::default().method(method.clone()).uri(uri).to_request();
            let resp = test::call_service(&app, req).await;
            assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}");
        }
        // The same service keeps answering after the rejections.
        let resp = test::call_service(&app, TestRequest::get().uri("/health").to_request()).await;
        assert_eq!(resp.status(), StatusCode::OK);
    }
}
