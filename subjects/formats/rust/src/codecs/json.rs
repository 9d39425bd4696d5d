//! JSON through serde_json: compact output, struct fields in declaration order.

use super::{library, Codec, CodecError};
use crate::dataset::{Dataset, DatasetKind};

const ID: &str = "json";

pub struct Json;

impl Codec for Json {
    fn id(&self) -> &'static str {
        ID
    }

    fn library(&self) -> &'static str {
        library!("serde_json", "FORMATS_LIB_serde_json")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        serde_json::to_vec(data).map_err(|e| CodecError::encode(ID, data, e))
    }

    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        let err = |e| CodecError::decode(ID, kind, e);
        Ok(match kind {
            DatasetKind::Users => Dataset::Users(serde_json::from_slice(bytes).map_err(err)?),
            DatasetKind::Listing41 => Dataset::Listing41(serde_json::from_slice(bytes).map_err(err)?),
            DatasetKind::Numeric => Dataset::Numeric(serde_json::from_slice(bytes).map_err(err)?),
            DatasetKind::Dummy => Dataset::Dummy(serde_json::from_slice(bytes).map_err(err)?),
        })
    }

    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        vec![
            // serde_json stops at 128 levels; a parser without a limit would overflow the stack.
            ("deep-nesting", b"[".repeat(100_000)),
            (
                "huge-exponent",
                b"{\"users\":[],\"metadata\":{\"version\":\"1\",\"created_at\":\"x\",\"total_count\":1e999999999}}"
                    .to_vec(),
            ),
        ]
    }
}
