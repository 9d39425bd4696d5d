//! The codecs: one module per format behind one small trait, and the one table that registers them.
//!
//! Adding a format: write `codecs/<id>.rs` implementing [`Codec`], add one line to [`CODECS`],
//! regenerate the vectors. The CLI, the harness, the vector files and every codec test pick it up
//! from the table.

use serde::{Deserialize, Serialize};

use crate::dataset::{Dataset, DatasetKind};

pub mod avro;
pub mod bson;
pub mod cbor;
pub mod json;
pub mod msgpack;
pub mod protobuf;
pub mod xml;

/// Every format, in the order the harness measures them.
pub const CODECS: &[&dyn Codec] = &[
    &json::Json,
    &xml::Xml,
    &protobuf::Protobuf,
    &msgpack::NAMED,
    &msgpack::COMPACT,
    &avro::Avro,
    &bson::Bson,
    &cbor::Cbor,
];

/// Looks a codec up by its id.
pub fn codec(id: &str) -> Option<&'static dyn Codec> {
    CODECS.iter().copied().find(|c| c.id() == id)
}

/// One serialization format as one library implements it.
///
/// Contract: `decode(encode(d)?, d.kind())` returns a value equal to `d`; `encode` of equal values
/// gives equal bytes (the vector test holds every codec to that); `decode` of any bytes returns
/// `Ok` or `Err` without panicking, without looping forever and without allocating more than a
/// small multiple of the input (the bad-input test feeds it a hostile corpus). Implementations
/// are stateless and shared between threads.
pub trait Codec: Sync {
    /// The format id used in flags, file names and measurements (`msgpack`).
    fn id(&self) -> &'static str;

    /// The library and version that does the work (`rmp-serde@1.3.1`), from Cargo.lock.
    fn library(&self) -> &'static str;

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError>;

    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError>;

    /// Inputs crafted against this format's framing (huge length prefixes, deep nesting), named
    /// for the bad-input corpus. Generic truncations and bit flips are made for every format
    /// elsewhere; this adds what only the format's own module knows how to build.
    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        Vec::new()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    #[error("{format}: cannot encode {dataset}: {message}")]
    Encode { format: &'static str, dataset: &'static str, message: String },
    #[error("{format}: cannot decode as {dataset}: {message}")]
    Decode { format: &'static str, dataset: &'static str, message: String },
}

impl CodecError {
    pub fn encode(format: &'static str, data: &Dataset, err: impl std::fmt::Display) -> CodecError {
        CodecError::Encode { format, dataset: data.kind().id(), message: err.to_string() }
    }

    pub fn decode(format: &'static str, kind: DatasetKind, err: impl std::fmt::Display) -> CodecError {
        CodecError::Decode { format, dataset: kind.id(), message: err.to_string() }
    }
}

/// `{"items": [...]}`: the document a list dataset becomes in formats whose top level must be a
/// record (BSON documents, XML elements). Serialize with `Items { items: &list[..] }`, deserialize
/// as `Items<Vec<T>>`.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Items<T> {
    pub items: T,
}

/// `name@version` of a dependency, with the version build.rs read from Cargo.lock.
macro_rules! library {
    ($name:literal, $env:literal) => {
        concat!($name, "@", env!($env))
    };
}
pub(crate) use library;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{generate, generate_n};

    #[test]
    fn ids_are_unique_and_lowercase() {
        let mut ids: Vec<&str> = CODECS.iter().map(|c| c.id()).collect();
        // A hyphen only inside a word (`msgpack-compact`): scenario ids are `<dataset>-<format>-<lang>`
        // and the other languages' harnesses name formats the same way.
        assert!(ids.iter().all(|id| id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            && !id.starts_with('-')
            && !id.ends_with('-')));
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), CODECS.len());
        assert!(codec("msgpack").is_some() && codec("nope").is_none());
    }

    #[test]
    fn libraries_carry_a_version() {
        for c in CODECS {
            let (name, version) = c.library().split_once('@').unwrap();
            assert!(!name.is_empty() && version.chars().next().unwrap().is_ascii_digit(), "{}", c.library());
        }
    }

    /// Every registered codec round-trips every dataset, full size and with one object. (Empty
    /// lists are not in the datasets, and XML cannot carry one: see `xml::tests`.)
    #[test]
    fn every_codec_round_trips_every_dataset() {
        for c in CODECS {
            for kind in DatasetKind::ALL {
                for data in [generate(kind), generate_n(kind, 1)] {
                    let bytes = c.encode(&data).unwrap_or_else(|e| panic!("{e}"));
                    let back = c.decode(&bytes, kind).unwrap_or_else(|e| panic!("{e}"));
                    assert!(back == data, "{} {} ({} objects): round trip differs", c.id(), kind.id(), data.objects());
                    assert_eq!(c.encode(&data).unwrap(), bytes, "{} {}: encoding is not repeatable", c.id(), kind.id());
                }
            }
        }
    }

    /// The study's own data in the study's formats is Table 5.2, byte for byte: the check that
    /// `listing41` is the data the study measured (at 10,000 users, not the 1,000 its text says)
    /// and MessagePack the form it used. Avro comes out 969 bytes (0.19 %) smaller: ours is a
    /// bare datum, and an object container's header (which carries the schema) and sync markers
    /// would add about that much, which the study's text does not let us check.
    #[test]
    fn the_studys_data_gives_table_5_2s_sizes() {
        let data = generate(DatasetKind::Listing41);
        let size = |id: &str| codec(id).unwrap().encode(&data).unwrap().len();
        for (format, table_5_2) in [
            ("json", 1_181_768),
            ("xml", 1_761_825),
            ("protobuf", 587_684),
            ("msgpack-compact", 527_431),
            ("bson", 1_426_779),
        ] {
            assert_eq!(size(format), table_5_2, "{format}");
        }
        assert_eq!(size("avro"), 521_727 - 969);
        // The named form, for contrast: 1.63x the study's MessagePack.
        assert_eq!(size("msgpack"), 857_477);
    }

    #[test]
    fn decoding_as_the_wrong_dataset_fails_cleanly() {
        for c in CODECS {
            let bytes = c.encode(&generate_n(DatasetKind::Dummy, 2)).unwrap();
            // Users is a record and Dummy a list: no format may take one for the other.
            assert!(c.decode(&bytes, DatasetKind::Users).is_err(), "{}", c.id());
        }
    }
}
