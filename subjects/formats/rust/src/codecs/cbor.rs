//! CBOR through ciborium: structs as maps keyed by field name, definite lengths.

use serde::de::DeserializeOwned;

use super::{library, Codec, CodecError};
use crate::dataset::{Dataset, DatasetKind};

const ID: &str = "cbor";

pub struct Cbor;

impl Codec for Cbor {
    fn id(&self) -> &'static str {
        ID
    }

    fn library(&self) -> &'static str {
        library!("ciborium", "FORMATS_LIB_ciborium")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        let mut out = Vec::new();
        ciborium::into_writer(data, &mut out).map_err(|e| CodecError::encode(ID, data, e))?;
        Ok(out)
    }

    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        let err = |e| CodecError::decode(ID, kind, e);
        Ok(match kind {
            DatasetKind::Users => Dataset::Users(from_slice_exact(bytes).map_err(err)?),
            DatasetKind::Listing41 => Dataset::Listing41(from_slice_exact(bytes).map_err(err)?),
            DatasetKind::Numeric => Dataset::Numeric(from_slice_exact(bytes).map_err(err)?),
            DatasetKind::Dummy => Dataset::Dummy(from_slice_exact(bytes).map_err(err)?),
        })
    }

    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        vec![
            // array with an 8-byte length of 2^64-1, then nothing.
            ("huge-array-length", [&[0x9b][..], &[0xff; 8]].concat()),
            // {"users": text string of 2^64-1 bytes}
            ("huge-string-length", [&[0xa1, 0x65][..], b"users", &[0x7b], &[0xff; 8], b"x"].concat()),
            // array(1) nested 100 000 deep.
            ("deep-nesting", vec![0x81; 100_000]),
        ]
    }
}

/// `ciborium::from_reader` over the slice, then rejects trailing bytes (free here: the reader
/// is the slice itself).
fn from_slice_exact<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let mut rest = bytes;
    let value = ciborium::from_reader(&mut rest).map_err(|e| e.to_string())?;
    match rest.len() {
        0 => Ok(value),
        n => Err(format!("{n} trailing bytes after the value")),
    }
}
