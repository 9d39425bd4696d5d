//! MessagePack through rmp-serde, in its two struct encodings, each a format of its own:
//! - `msgpack`, named (struct-map): every struct is a map keyed by field name, as JSON is, so any
//!   MessagePack library reads the vectors without a schema;
//! - `msgpack-compact`, rmp-serde's default `to_vec`: every struct is an array of its values in
//!   declaration order, smaller and faster but only readable by a decoder that knows that order.
//!   It is the form "Ways to optimize web applications" measured: on its own data (`listing41`)
//!   it gives Table 5.2's 527,431 bytes exactly, where the named form gives 857,477.
//!
//! Both decode with `rmp_serde::from_slice`, which takes a struct as either a map or an array.

use super::{library, Codec, CodecError};
use crate::dataset::{Dataset, DatasetKind};

/// MessagePack in one of its two struct encodings.
pub struct MsgPack {
    /// Structs as maps keyed by field name (`msgpack`), else as arrays (`msgpack-compact`).
    named: bool,
}

/// The named form.
pub const NAMED: MsgPack = MsgPack { named: true };

/// The compact (array) form.
pub const COMPACT: MsgPack = MsgPack { named: false };

impl Codec for MsgPack {
    fn id(&self) -> &'static str {
        if self.named {
            "msgpack"
        } else {
            "msgpack-compact"
        }
    }

    fn library(&self) -> &'static str {
        library!("rmp-serde", "FORMATS_LIB_rmp_serde")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        let bytes = if self.named { rmp_serde::to_vec_named(data) } else { rmp_serde::to_vec(data) };
        bytes.map_err(|e| CodecError::encode(self.id(), data, e))
    }

    /// `rmp_serde::from_slice`, the library's zero-copy entry point, for both forms. It stops
    /// after one value and ignores trailing bytes; checking them would mean its copying reader,
    /// a cost the other languages' decoders do not pay.
    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        let err = |e| CodecError::decode(self.id(), kind, e);
        Ok(match kind {
            DatasetKind::Users => Dataset::Users(rmp_serde::from_slice(bytes).map_err(err)?),
            DatasetKind::Numeric => Dataset::Numeric(rmp_serde::from_slice(bytes).map_err(err)?),
            DatasetKind::Dummy => Dataset::Dummy(rmp_serde::from_slice(bytes).map_err(err)?),
            DatasetKind::Listing41 => Dataset::Listing41(rmp_serde::from_slice(bytes).map_err(err)?),
        })
    }

    /// The same framing in both forms; each form's files are named after it.
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
