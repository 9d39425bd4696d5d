//! A request head as the `http` crate's types hold it, for the drivers built on crates that take
//! `http::Request` (HTTP/3 on `h3`).

use crate::driver::RequestSpec;
use crate::error::LoadError;
use wirebench_core::runner::Target;

/// The request head, parsed once per connection and cloned per exchange.
pub(crate) struct Head {
    method: http::Method,
    uri: http::Uri,
    headers: http::HeaderMap,
}

impl Head {
    pub(crate) fn of(r: &RequestSpec, target: &Target) -> Result<Head, LoadError> {
        let scheme = if target.tls { "https" } else { "http" };
        let bad = |e: String| LoadError::Protocol(format!("bad request: {e}"));
        let mut headers = http::HeaderMap::new();
        for (k, v) in r.http_headers() {
            let name = http::HeaderName::from_bytes(k.as_bytes()).map_err(|e| bad(e.to_string()))?;
            headers.append(name, http::HeaderValue::from_str(v).map_err(|e| bad(e.to_string()))?);
        }
        Ok(Head {
            method: r.method.parse().map_err(|e: http::method::InvalidMethod| bad(e.to_string()))?,
            uri: format!("{scheme}://{}{}", r.authority, r.path)
                .parse()
                .map_err(|e: http::uri::InvalidUri| bad(e.to_string()))?,
            headers,
        })
    }

    pub(crate) fn request(&self) -> http::Request<()> {
        let mut req = http::Request::new(());
        *req.method_mut() = self.method.clone();
        *req.uri_mut() = self.uri.clone();
        *req.headers_mut() = self.headers.clone();
        req
    }
}
