//! BSON through the `bson` crate's serde support. A BSON file is one document, so the list
//! datasets are wrapped as `{"items": [...]}`; `users` is a document already. `i32` fields
//! become BSON int32, `i64` int64, `f64` double.

use super::{library, Codec, CodecError, Items};
use crate::dataset::{Dataset, DatasetKind};

const ID: &str = "bson";

pub struct Bson;

impl Codec for Bson {
    fn id(&self) -> &'static str {
        ID
    }

    fn library(&self) -> &'static str {
        library!("bson", "FORMATS_LIB_bson")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        match data {
            Dataset::Users(doc) | Dataset::Listing41(doc) => bson::serialize_to_vec(doc),
            Dataset::Numeric(items) => bson::serialize_to_vec(&Items { items }),
            Dataset::Dummy(items) => bson::serialize_to_vec(&Items { items }),
        }
        .map_err(|e| CodecError::encode(ID, data, e))
    }

    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        let err = |e| CodecError::decode(ID, kind, e);
        Ok(match kind {
            DatasetKind::Users => Dataset::Users(bson::deserialize_from_slice(bytes).map_err(err)?),
            DatasetKind::Listing41 => Dataset::Listing41(bson::deserialize_from_slice(bytes).map_err(err)?),
            DatasetKind::Numeric => {
                Dataset::Numeric(bson::deserialize_from_slice::<Items<_>>(bytes).map_err(err)?.items)
            }
            DatasetKind::Dummy => Dataset::Dummy(bson::deserialize_from_slice::<Items<_>>(bytes).map_err(err)?.items),
        })
    }

    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        // {"users": "x"} with the string's length prefix raised to i32::MAX.
        let huge_string = document(&[&[0x02][..], b"users\0", &i32::MAX.to_le_bytes(), b"x\0"].concat());
        // Embedded documents {"a": {"a": ...}} 20 000 deep, every length consistent.
        let mut deep = document(&[]);
        for _ in 0..20_000 {
            deep = document(&[&[0x03][..], b"a\0", &deep].concat());
        }
        vec![
            ("huge-document-length", [&i32::MAX.to_le_bytes()[..], &[0x00]].concat()),
            ("huge-string-length", huge_string),
            ("deep-nesting", deep),
        ]
    }
}

/// A BSON document around already-encoded elements: int32 total length, elements, NUL.
fn document(elements: &[u8]) -> Vec<u8> {
    let len = (4 + elements.len() + 1) as i32;
    [&len.to_le_bytes()[..], elements, &[0x00]].concat()
}
