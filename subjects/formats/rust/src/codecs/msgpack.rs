//! MessagePack through rmp-serde, in its named (struct-map) encoding: every struct is a map keyed
//! by field name, as JSON is, so any MessagePack library can read the vectors without a schema.
//! rmp-serde's default `to_vec` writes structs as arrays of values instead, which is smaller and
//! faster but only readable by a decoder that knows the field order.

use super::{library, Codec, CodecError};
use crate::dataset::{Dataset, DatasetKind};

const ID: &str = "msgpack";

pub struct MsgPack;

impl Codec for MsgPack {
    fn id(&self) -> &'static str {
        ID
    }

    fn library(&self) -> &'static str {
        library!("rmp-serde", "FORMATS_LIB_rmp_serde")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        rmp_serde::to_vec_named(data).map_err(|e| CodecError::encode(ID, data, e))
    }

    /// `rmp_serde::from_slice`, the library's zero-copy entry point. It stops after one value and
    /// ignores trailing bytes; checking them would mean its copying reader, a cost the other
    /// languages' decoders do not pay.
    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        let err = |e| CodecError::decode(ID, kind, e);
        Ok(match kind {
            DatasetKind::Users => Dataset::Users(rmp_serde::from_slice(bytes).map_err(err)?),
            DatasetKind::Numeric => Dataset::Numeric(rmp_serde::from_slice(bytes).map_err(err)?),
            DatasetKind::Dummy => Dataset::Dummy(rmp_serde::from_slice(bytes).map_err(err)?),
        })
    }

    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        vec![
            // array32 claiming 2^32-1 elements, then nothing.
            ("huge-array-length", vec![0xdd, 0xff, 0xff, 0xff, 0xff]),
            // {"users": str32 of 2^32-1 bytes}
            ("huge-string-length", [&[0x81, 0xa5][..], b"users", &[0xdb, 0xff, 0xff, 0xff, 0xff, b'x']].concat()),
            // fixarray(1) nested 100 000 deep.
            ("deep-nesting", vec![0x91; 100_000]),
        ]
    }
}
