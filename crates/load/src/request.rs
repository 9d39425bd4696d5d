//! A scenario's request as drivers send it, and the check of an answer against its `expect`
//! (verification and every call under load alike).

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::driver::{Reply, RequestSpec};
use crate::error::LoadError;
use wirebench_core::runner::Target;
use wirebench_core::suite::{Expect, Scenario};

/// The request a scenario sends. The body is `body` as text, the bytes of `body_file` (relative
/// to the working directory, the project root) or `body_bytes` of filler.
pub fn request_of(s: &Scenario, target: &Target) -> Result<RequestSpec, LoadError> {
    let headers: Vec<(String, String)> = s.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let body = match (&s.body, &s.body_file, s.body_bytes) {
        (Some(text), _, _) => Bytes::from(text.clone()),
        (None, Some(file), _) => std::fs::read(file)
            .map_err(|e| LoadError::Unsupported(format!("body_file `{file}`: cannot read: {e}")))?
            .into(),
        (None, None, n) => n.map(filler).unwrap_or_default(),
    };
    Ok(RequestSpec {
        method: s.method.clone(),
        path: s.path.clone(),
        authority: format!("{}:{}", target.host, target.port),
        headers,
        body,
        params: s.params.clone(),
    })
}

/// A deterministic request body of `n` bytes.
pub fn filler(n: usize) -> Bytes {
    b"wirebench-payload-".iter().copied().cycle().take(n).collect::<Vec<u8>>().into()
}

/// How `reply` differs from `expect`, or `None` when it is right. The SHA-256 is checked when the
/// reply kept its body (verification); during load only status, size and message count are.
pub fn mismatch(reply: &Reply, expect: &Expect) -> Option<String> {
    if reply.status != expect.status {
        return Some(format!("status {}, expected {}", reply.status, expect.status));
    }
    if let Some(n) = expect.body_bytes.filter(|&n| n != reply.body_len) {
        return Some(format!("body is {} bytes, expected {n}", reply.body_len));
    }
    if let Some(n) = expect.messages.filter(|&n| n != reply.messages) {
        return Some(format!("{} messages, expected {n}", reply.messages));
    }
    if let (Some(want), Some(body)) = (&expect.body_sha256, &reply.body) {
        let got: String = Sha256::digest(body).iter().map(|b| format!("{b:02x}")).collect();
        if !got.eq_ignore_ascii_case(want) {
            return Some(format!("body sha256 {got}, expected {want}"));
        }
    }
    None
}
