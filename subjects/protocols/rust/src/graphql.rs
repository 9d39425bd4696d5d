//! GraphQL on `/graphql` with Juniper, as the study: `{ payload(size: Int!) { message } }` returns
//! a `message` of exactly `size` bytes. POST (`application/json` or `application/graphql`) and GET
//! (`?query=…&operationName=…&variables=…`), answered as the GraphQL-over-HTTP specification says:
//!
//! - the response media type is the one of `application/graphql-response+json` and
//!   `application/json` the client's `Accept` prefers (q-values as RFC 9110 §12.5.1 reads them;
//!   the former on a tie), `application/json` without an `Accept` header, and 406 when it accepts
//!   neither (the specification's RECOMMENDED answer);
//! - a request that is not well-formed (malformed JSON, no `query`, a wrong content type) gets 400
//!   (415 for the content type) with an `errors` array;
//! - a well-formed request whose document does not parse or validate gets 200 under
//!   `application/json` (the spec's SHOULD for legacy clients) and 400 under
//!   `application/graphql-response+json`, always with an `errors` array and no `data`;
//! - field errors (a size out of range) are 200 with `data` and `errors`;
//! - a body over `BODY_LIMIT` is 413, with an `errors` array like every other error.
//!
//! Introspection is on, as clients and IDEs expect. Juniper's own actix integration is not used:
//! it answers a malformed body with actix's plain-text 400 and a validation error with 400 under
//! `application/json`, neither of which the specification asks for.

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use juniper::http::GraphQLRequest;
use juniper::{graphql_object, EmptyMutation, EmptySubscription, FieldError, FieldResult, InputValue, RootNode};

use crate::routes::{message, PAYLOAD_MAX};

pub type Schema = RootNode<Query, EmptyMutation<()>, EmptySubscription<()>>;

const JSON: &str = "application/json";
const GRAPHQL_RESPONSE: &str = "application/graphql-response+json";
/// Query documents are small; a larger body is refused with 413 before it is read.
pub const BODY_LIMIT: usize = 64 << 10;

pub struct Query;

/// The study's one query.
#[graphql_object]
impl Query {
    /// A payload whose `message` is exactly `size` bytes (0 to 67108864).
    fn payload(size: i32) -> FieldResult<Payload> {
        match usize::try_from(size) {
            Ok(size) if size <= PAYLOAD_MAX => Ok(Payload { message: message(size) }),
            _ => Err(FieldError::from(format!("size must be between 0 and {PAYLOAD_MAX}"))),
        }
    }
}

pub struct Payload {
    message: Arc<str>,
}

#[graphql_object]
impl Payload {
    /// `size` bytes of `x`.
    fn message(&self) -> &str {
        &self.message
    }
}

pub fn schema() -> Schema {
    Schema::new(Query, EmptyMutation::new(), EmptySubscription::new())
}

/// Mounts `/graphql` (GET, HEAD and POST; other methods get 405).
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.app_data(web::Data::new(schema())).service(
        web::resource("/graphql")
            .app_data(web::PayloadConfig::new(BODY_LIMIT))
            .route(web::post().to(post))
            .route(web::get().to(get))
            .route(web::head().to(get)),
    );
}

async fn post(req: HttpRequest, body: Result<web::Bytes, actix_web::Error>, schema: web::Data<Schema>) -> HttpResponse {
    let media = match media_type(&req) {
        Ok(media) => media,
        Err(why) => return request_error(JSON, StatusCode::NOT_ACCEPTABLE, &why),
    };
    let body = match body {
        Ok(body) => body,
        Err(e) if e.as_response_error().status_code() == StatusCode::PAYLOAD_TOO_LARGE => {
            let message = format!("the request body is over {BODY_LIMIT} bytes");
            return request_error(media, StatusCode::PAYLOAD_TOO_LARGE, &message);
        }
        Err(e) => return request_error(media, StatusCode::BAD_REQUEST, &format!("cannot read the body: {e}")),
    };
    let content_type = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let request = match essence.as_str() {
        JSON => match serde_json::from_slice::<GraphQLRequest>(&body) {
            Ok(r) => r,
            Err(e) => {
                return request_error(
                    media,
                    StatusCode::BAD_REQUEST,
                    &format!("the body is not a GraphQL request: {e}"),
                )
            }
        },
        "application/graphql" => match std::str::from_utf8(&body) {
            Ok(q) => GraphQLRequest::new(q.to_owned(), None, None),
            Err(_) => return request_error(media, StatusCode::BAD_REQUEST, "the query is not UTF-8"),
        },
        _ => {
            let message = format!("Content-Type must be {JSON} or application/graphql, not `{content_type}`");
            return request_error(media, StatusCode::UNSUPPORTED_MEDIA_TYPE, &message);
        }
    };
    execute(media, &request, &schema).await
}

async fn get(req: HttpRequest, schema: web::Data<Schema>) -> HttpResponse {
    let media = match media_type(&req) {
        Ok(media) => media,
        Err(why) => return request_error(JSON, StatusCode::NOT_ACCEPTABLE, &why),
    };
    let params = match web::Query::<HashMap<String, String>>::from_query(req.query_string()) {
        Ok(p) => p.into_inner(),
        Err(e) => return request_error(media, StatusCode::BAD_REQUEST, &format!("bad query string: {e}")),
    };
    let Some(query) = params.get("query") else {
        return request_error(media, StatusCode::BAD_REQUEST, "the `query` parameter is missing");
    };
    let variables = match params.get("variables").map(|v| serde_json::from_str::<InputValue>(v)) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => return request_error(media, StatusCode::BAD_REQUEST, &format!("`variables` is not JSON: {e}")),
    };
    execute(media, &GraphQLRequest::new(query.clone(), params.get("operationName").cloned(), variables), &schema).await
}

async fn execute(media: &'static str, request: &GraphQLRequest, schema: &Schema) -> HttpResponse {
    let response = request.execute(schema, &()).await;
    // Not ok: the document did not parse or validate, so there is no `data` (a request error).
    let status = if !response.is_ok() && media == GRAPHQL_RESPONSE { StatusCode::BAD_REQUEST } else { StatusCode::OK };
    match serde_json::to_vec(&response) {
        Ok(body) => reply(status, media, body),
        Err(e) => {
            request_error(media, StatusCode::INTERNAL_SERVER_ERROR, &format!("cannot serialize the response: {e}"))
        }
    }
}

/// The response's media type by the request's `Accept`, or why it accepts none of ours (a 406).
fn media_type(req: &HttpRequest) -> Result<&'static str, String> {
    let accept: Vec<&str> = req.headers().get_all(header::ACCEPT).filter_map(|v| v.to_str().ok()).collect();
    if accept.is_empty() {
        // GraphQL over HTTP: without an Accept header, treat the request as `Accept: application/json`.
        return Ok(JSON);
    }
    negotiate(&accept.join(","))
        .ok_or_else(|| format!("Accept `{}` allows neither {GRAPHQL_RESPONSE} nor {JSON}", accept.join(", ")))
}

/// The supported media type `accept` prefers: each type's weight is the q of the most specific
/// range that matches it (`type/subtype` over `type/*` over `*/*`, RFC 9110 §12.5.1), q = 0 is
/// "not acceptable", and a tie goes to `application/graphql-response+json`.
fn negotiate(accept: &str) -> Option<&'static str> {
    let ranges: Vec<(String, f64)> = accept
        .split(',')
        .filter_map(|range| {
            let mut parts = range.split(';');
            let media = parts.next()?.trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.split_once('='))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
                .map_or(Some(1.0), |(_, v)| v.trim().parse::<f64>().ok().filter(|q| (0.0..=1.0).contains(q)))?;
            (!media.is_empty()).then_some((media, q))
        })
        .collect();
    let weight = |media: &str| {
        let (kind, _) = media.split_once('/').expect("a type/subtype");
        let specific = |range: &str| match range {
            r if r == media => Some(3),
            r if r.strip_suffix("/*") == Some(kind) => Some(2),
            "*/*" => Some(1),
            _ => None,
        };
        ranges
            .iter()
            .filter_map(|(range, q)| Some((specific(range)?, *q)))
            .max_by_key(|(rank, _)| *rank)
            .map_or(0.0, |(_, q)| q)
    };
    let (new, json) = (weight(GRAPHQL_RESPONSE), weight(JSON));
    match (new > 0.0, json > 0.0) {
        (false, false) => None,
        _ if new >= json => Some(GRAPHQL_RESPONSE),
        _ => Some(JSON),
    }
}

fn request_error(media: &'static str, status: StatusCode, message: &str) -> HttpResponse {
    let body = serde_json::json!({ "errors": [{ "message": message }] });
    reply(status, media, body.to_string().into_bytes())
}

fn reply(status: StatusCode, media: &'static str, body: Vec<u8>) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static(if media == JSON { JSON } else { GRAPHQL_RESPONSE }),
        ))
        .body(body)
}

#[cfg(test)]
mod tests {
    use actix_web::test::{self, TestRequest};
    use actix_web::App;
    use serde_json::Value;

    use super::*;

    async fn call(req: TestRequest) -> (StatusCode, String, Value) {
        let app = test::init_service(App::new().configure(configure)).await;
        let resp = test::call_service(&app, req.to_request()).await;
        let status = resp.status();
        let ct = resp.headers().get(header::CONTENT_TYPE).map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
        let body = test::read_body(resp).await;
        (status, ct, serde_json::from_slice(&body).unwrap_or(Value::Null))
    }

    fn post_json(body: &str) -> TestRequest {
        TestRequest::post().uri("/graphql").insert_header((header::CONTENT_TYPE, JSON)).set_payload(body.to_owned())
    }

    #[actix_web::test]
    async fn payload_has_exactly_size_bytes_over_post_and_get() {
        for size in [0, 1, 1024, 1 << 20] {
            let query = format!("{{ payload(size: {size}) {{ message }} }}");
            let body = serde_json::json!({ "query": query }).to_string();
            let (status, ct, v) = call(post_json(&body)).await;
            assert_eq!((status, ct.as_str()), (StatusCode::OK, JSON));
            let message = v["data"]["payload"]["message"].as_str().unwrap();
            assert_eq!(message.len(), size);
            assert!(message.bytes().all(|b| b == b'x'));
        }
        let uri = "/graphql?query=query%20P(%24s%3A%20Int!)%20%7B%20payload(size%3A%20%24s)%20%7B%20message%20%7D%20%7D&variables=%7B%22s%22%3A5%7D";
        let (status, _, v) = call(TestRequest::get().uri(uri)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(v["data"]["payload"]["message"], "xxxxx");
        let graphql = TestRequest::post()
            .uri("/graphql")
            .insert_header((header::CONTENT_TYPE, "application/graphql"))
            .set_payload("{ payload(size: 3) { message } }");
        assert_eq!(call(graphql).await.2["data"]["payload"]["message"], "xxx");
    }

    #[actix_web::test]
    async fn introspection_answers() {
        let (status, _, v) = call(post_json(r#"{"query":"{ __schema { queryType { name } } }"}"#)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(v["data"]["__schema"]["queryType"]["name"], "Query");
    }

    #[actix_web::test]
    async fn bad_requests_get_the_specified_status_and_an_errors_array() {
        let new_media = |r: TestRequest| {
            r.insert_header((header::ACCEPT, "application/graphql-response+json, application/json;q=0.9"))
        };
        let cases: Vec<(TestRequest, StatusCode, &str)> = vec![
            (post_json("{not json"), StatusCode::BAD_REQUEST, JSON),
            (post_json(r#"{"variables":{}}"#), StatusCode::BAD_REQUEST, JSON),
            (
                TestRequest::post()
                    .uri("/graphql")
                    .insert_header((header::CONTENT_TYPE, "text/plain"))
                    .set_payload("{x}"),
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                JSON,
            ),
            (TestRequest::get().uri("/graphql"), StatusCode::BAD_REQUEST, JSON),
            (TestRequest::get().uri("/graphql?query=%7Bx%7D&variables=nope"), StatusCode::BAD_REQUEST, JSON),
            // Well-formed requests with a document that does not parse or validate.
            (post_json(r#"{"query":"{ payload(size: "}"#), StatusCode::OK, JSON),
            (post_json(r#"{"query":"{ nosuchfield }"}"#), StatusCode::OK, JSON),
            (new_media(post_json(r#"{"query":"{ nosuchfield }"}"#)), StatusCode::BAD_REQUEST, GRAPHQL_RESPONSE),
            (new_media(post_json("{not json")), StatusCode::BAD_REQUEST, GRAPHQL_RESPONSE),
        ];
        for (req, want_status, want_media) in cases {
            let (status, ct, v) = call(req).await;
            assert_eq!((status, ct.as_str()), (want_status, want_media), "{v}");
            assert!(v["errors"].as_array().is_some_and(|e| !e.is_empty() && e[0]["message"].is_string()), "{v}");
            assert!(v.get("data").is_none(), "a request error has no data: {v}");
        }
    }

    #[actix_web::test]
    async fn a_size_out_of_range_is_a_field_error_with_data() {
        for size in ["-1", "67108865"] {
            let (status, _, v) =
                call(post_json(&format!(r#"{{"query":"{{ payload(size: {size}) {{ message }} }}"}}"#))).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(v["data"], Value::Null);
            assert!(v["errors"][0]["message"].as_str().unwrap().contains("between 0 and"), "{v}");
        }
    }

    #[actix_web::test]
    async fn other_methods_are_405_and_large_bodies_413_as_graphql_errors() {
        let app = test::init_service(App::new().configure(configure)).await;
        let resp = test::call_service(&app, TestRequest::put().uri("/graphql").to_request()).await;
        assert_eq!(resp.status(), StatusCode::METHOD_NOT_ALLOWED);
        let big = post_json(&format!(r#"{{"query":"{}"}}"#, " ".repeat(BODY_LIMIT)));
        let (status, ct, v) = call(big).await;
        assert_eq!((status, ct.as_str()), (StatusCode::PAYLOAD_TOO_LARGE, JSON));
        assert!(v["errors"][0]["message"].as_str().unwrap().contains("over 65536 bytes"), "{v}");
    }

    /// RFC 9110 §12.5.1 and GraphQL over HTTP ("Accept"): the client's preference by q-value, the
    /// most specific range deciding a type's q, q = 0 refusing it, and 406 when nothing of ours is
    /// acceptable.
    #[test]
    fn accept_is_negotiated_by_q_value() {
        let cases = [
            ("application/graphql-response+json", Some(GRAPHQL_RESPONSE)),
            ("application/json", Some(JSON)),
            ("application/json, application/graphql-response+json;q=0.5", Some(JSON)),
            ("application/json, application/graphql-response+json;q=0", Some(JSON)),
            ("application/graphql-response+json;q=0.9, application/json;q=0.8", Some(GRAPHQL_RESPONSE)),
            ("application/json;q=0.5, application/graphql-response+json;q=0.5", Some(GRAPHQL_RESPONSE)),
            ("*/*", Some(GRAPHQL_RESPONSE)),
            ("application/*;q=0.3, application/json;q=0.2", Some(GRAPHQL_RESPONSE)),
            ("*/*, application/graphql-response+json;q=0", Some(JSON)),
            ("text/html", None),
            ("application/json;q=0, application/graphql-response+json;q=0", None),
            ("application/json;q=nope", None),
        ];
        for (accept, want) in cases {
            assert_eq!(negotiate(accept), want, "{accept}");
        }
    }

    #[actix_web::test]
    async fn an_unacceptable_accept_is_406_and_none_is_json() {
        let query = r#"{"query":"{ payload(size: 1) { message } }"}"#;
        let (status, ct, v) = call(post_json(query).insert_header((header::ACCEPT, "text/html"))).await;
        assert_eq!((status, ct.as_str()), (StatusCode::NOT_ACCEPTABLE, JSON));
        assert!(v["errors"][0]["message"].as_str().unwrap().contains("allows neither"), "{v}");
        let (status, ct, _) = call(post_json(query)).await;
        assert_eq!((status, ct.as_str()), (StatusCode::OK, JSON));
        let invalid = post_json(r#"{"query":"{ nosuchfield }"}"#)
            .insert_header((header::ACCEPT, "application/json, application/graphql-response+json;q=0.5"));
        let (status, ct, _) = call(invalid).await;
        assert_eq!((status, ct.as_str()), (StatusCode::OK, JSON), "the preferred legacy type keeps its 200");
    }
}
