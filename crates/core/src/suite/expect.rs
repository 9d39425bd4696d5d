//! What a correct answer looks like: checked on every call, before timing and under load.

use serde::{Deserialize, Serialize};

/// What a correct response looks like; checked before timing and counted during it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default = "ok_status")]
    pub status: u16,
    #[serde(default)]
    pub body_bytes: Option<u64>,
    /// Lower-case hex SHA-256 of the whole body.
    #[serde(default)]
    pub body_sha256: Option<String>,
    /// Messages one call carries (a streaming call's count); plain HTTP carries one.
    #[serde(default)]
    pub messages: Option<u64>,
}

fn ok_status() -> u16 {
    200
}

impl Default for Expect {
    fn default() -> Self {
        Expect { status: 200, body_bytes: None, body_sha256: None, messages: None }
    }
}
