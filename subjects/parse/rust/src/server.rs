//! The actix-web app: provider, consumer, health and process statistics.

use actix_web::http::header;
use actix_web::{web, App, HttpResponse, HttpServer};
use serde::Deserialize;

use crate::consume::{self, ConsumeError, ConsumeRequest};
use crate::objects::{self, Format, Object, MAX_COUNT};

#[derive(Debug, Deserialize)]
struct ObjectsQuery {
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    start: Option<usize>,
}

fn text(status: actix_web::http::StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status).content_type("text/plain; charset=utf-8").body(body + "\n")
}

fn error_json(status: actix_web::http::StatusCode, message: String) -> HttpResponse {
    HttpResponse::build(status).json(serde_json::json!({ "error": message }))
}

/// Object, format, start and count of a provider request, or what is wrong with it.
fn asked(object: &str, q: &ObjectsQuery) -> Result<(Object, Format, usize, usize), String> {
    let object = Object::parse(object)?;
    let format = Format::parse(q.format.as_deref().unwrap_or("json"))?;
    let count = q.count.unwrap_or(1);
    if !(1..=MAX_COUNT).contains(&count) {
        return Err(format!("count must be 1..={MAX_COUNT}, got {count}"));
    }
    Ok((object, format, q.start.unwrap_or(0), count))
}

fn answer(format: Format, body: Vec<u8>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type(format.content_type())
        .insert_header((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"))
        .body(body)
}

/// `GET /objects/{object}?format=&count=&start=`
async fn provide(object: web::Path<String>, q: web::Query<ObjectsQuery>) -> HttpResponse {
    match asked(&object, &q) {
        Ok((object, format, start, count)) => answer(format, objects::encode(object, format, start, count)),
        Err(e) => text(actix_web::http::StatusCode::BAD_REQUEST, e),
    }
}

/// `GET /bad/objects/{object}?format=`: a provider of malformed bytes, for the bad-input checks.
async fn provide_bad(object: web::Path<String>, q: web::Query<ObjectsQuery>) -> HttpResponse {
    match asked(&object, &q) {
        Ok((object, format, _, _)) => answer(format, objects::malformed(object, format)),
        Err(e) => text(actix_web::http::StatusCode::BAD_REQUEST, e),
    }
}

/// `POST /consume`
async fn consume(client: web::Data<reqwest::Client>, req: web::Json<ConsumeRequest>) -> HttpResponse {
    match consume::consume(&client, &req).await {
        Ok(done) => HttpResponse::Ok().json(done),
        Err(ConsumeError::BadRequest(e)) => error_json(actix_web::http::StatusCode::BAD_REQUEST, e),
        Err(ConsumeError::Provider(e)) => error_json(actix_web::http::StatusCode::BAD_GATEWAY, e),
    }
}

/// `GET /stats`: this process's CPU seconds so far and resident set.
async fn stats() -> HttpResponse {
    let pid = std::process::id();
    let cpu_s = wirebench_core::machine::process_cpu_s(pid).unwrap_or(0.0);
    let rss_kb = wirebench_core::machine::process_rss_kb(pid).unwrap_or(0);
    HttpResponse::Ok().json(serde_json::json!({ "cpu_s": cpu_s, "rss_kb": rss_kb }))
}

/// Serves the API on a bound listener until the process is stopped.
pub async fn serve(listener: std::net::TcpListener) -> std::io::Result<()> {
    let client = web::Data::new(reqwest::Client::new());
    // A consume body is a few hundred bytes; a malformed one is a 400 with a JSON error line.
    let json = web::JsonConfig::default().limit(64 * 1024).error_handler(|e, _| {
        let message = e.to_string().replace('\n', " ");
        actix_web::error::InternalError::from_response(e, error_json(actix_web::http::StatusCode::BAD_REQUEST, message))
            .into()
    });
    HttpServer::new(move || {
        App::new()
            .app_data(client.clone())
            .app_data(json.clone())
            .route("/health", web::get().to(|| async { HttpResponse::Ok().body("ok\n") }))
            .route("/stats", web::get().to(stats))
            .route("/objects/{object}", web::get().to(provide))
            .route("/bad/objects/{object}", web::get().to(provide_bad))
            .route("/consume", web::post().to(consume))
    })
    .listen(listener)?
    .run()
    .await
}
