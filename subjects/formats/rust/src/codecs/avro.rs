//! Avro through apache-avro, as raw binary datums against the schemas in `schema/avro/`
//! (`<dataset>.avsc`). Raw datums, not object container files: a container adds the schema text
//! and a random 16-byte sync marker per file, which would make the bytes differ on every run and
//! measure framing rather than encoding. Serialization and deserialization use the library's
//! schema-aware serde path (no intermediate `Value` tree); arrays are written as one block.

use std::sync::OnceLock;

use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use apache_avro::Schema;

use super::{library, Codec, CodecError};
use crate::dataset::{Dataset, DatasetKind};

const ID: &str = "avro";

/// apache-avro refuses any single allocation above this while decoding. Its default (512 MiB)
/// would let a forged length prefix reserve half a gigabyte; every dataset here is far below 16.
const MAX_ALLOCATION_BYTES: usize = 16 << 20;

pub struct Avro;

struct Prepared {
    writer: GenericDatumWriter<'static>,
    reader: GenericDatumReader<'static>,
}

/// The parsed schemas, and a writer and reader per dataset built once: a program would keep them,
/// so building them is not part of what the harness times.
fn prepared(kind: DatasetKind) -> Result<&'static Prepared, String> {
    static SCHEMAS: OnceLock<Result<[Schema; 3], String>> = OnceLock::new();
    static PREPARED: OnceLock<Result<[Prepared; 3], String>> = OnceLock::new();
    let prepared = PREPARED.get_or_init(|| {
        apache_avro::util::max_allocation_bytes(MAX_ALLOCATION_BYTES);
        let schemas = SCHEMAS
            .get_or_init(|| {
                let parse = |text: &str| Schema::parse_str(text).map_err(|e| format!("bad .avsc: {e}"));
                Ok([
                    parse(include_str!("../../../schema/avro/users.avsc"))?,
                    parse(include_str!("../../../schema/avro/numeric.avsc"))?,
                    parse(include_str!("../../../schema/avro/dummy.avsc"))?,
                ])
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let prepare = |schema: &'static Schema| -> Result<Prepared, String> {
            Ok(Prepared {
                writer: GenericDatumWriter::builder(schema).build().map_err(|e| e.to_string())?,
                reader: GenericDatumReader::builder(schema).build().map_err(|e| e.to_string())?,
            })
        };
        Ok([prepare(&schemas[0])?, prepare(&schemas[1])?, prepare(&schemas[2])?])
    });
    let prepared = prepared.as_ref().map_err(Clone::clone)?;
    Ok(&prepared[DatasetKind::ALL.iter().position(|k| *k == kind.shape()).expect("kind is in ALL")])
}

impl Codec for Avro {
    fn id(&self) -> &'static str {
        ID
    }

    fn library(&self) -> &'static str {
        library!("apache-avro", "FORMATS_LIB_apache_avro")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        let err = |e: String| CodecError::encode(ID, data, e);
        let writer = &prepared(data.kind()).map_err(err)?.writer;
        match data {
            Dataset::Users(doc) | Dataset::Listing41(doc) => writer.write_ser_to_vec(doc),
            Dataset::Numeric(items) => writer.write_ser_to_vec(items),
            Dataset::Dummy(items) => writer.write_ser_to_vec(items),
        }
        .map_err(|e| err(e.to_string()))
    }

    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        let err = |e: String| CodecError::decode(ID, kind, e);
        let reader = &prepared(kind).map_err(err)?.reader;
        let mut rest = bytes;
        let data = match kind {
            DatasetKind::Users => reader.read_deser(&mut rest).map(Dataset::Users),
            DatasetKind::Listing41 => reader.read_deser(&mut rest).map(Dataset::Listing41),
            DatasetKind::Numeric => reader.read_deser(&mut rest).map(Dataset::Numeric),
            DatasetKind::Dummy => reader.read_deser(&mut rest).map(Dataset::Dummy),
        }
        .map_err(|e| err(e.to_string()))?;
        // A datum has no length of its own: without this check a longer input (or a different
        // dataset's bytes) could decode from its prefix.
        match rest.len() {
            0 => Ok(data),
            n => Err(err(format!("{n} trailing bytes after the datum"))),
        }
    }

    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        vec![
            // users: an array block claiming 2^40 users, then nothing.
            ("huge-array-length", zigzag(1 << 40)),
            // numeric: one element whose id string claims 2^40 bytes.
            ("huge-string-length", [zigzag(1), zigzag(1 << 40), b"x".to_vec()].concat()),
            // users: a negative block count (-1) followed by a block byte size of 2^62.
            ("huge-block-size", [zigzag(-1), zigzag(1 << 62)].concat()),
        ]
    }
}

/// Avro's zig-zag varint encoding of a long.
fn zigzag(n: i64) -> Vec<u8> {
    let mut v = ((n << 1) ^ (n >> 63)) as u64;
    let mut out = Vec::new();
    loop {
        if v < 0x80 {
            out.push(v as u8);
            return out;
        }
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
}
