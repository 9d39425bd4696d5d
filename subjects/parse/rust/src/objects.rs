//! The objects a provider serves and a consumer decodes: the formats lab's `numeric` and `dummy`
//! datasets, cycled (object `i` is `dataset[i % 100]`), one object per answer as the study
//! fetched them or many in the formats lab's list layout.

use std::sync::OnceLock;

use formats_rust::codecs::{self, Codec};
use formats_rust::dataset::{self, Dataset, DatasetKind, DummyObject, NumericObject};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The most objects one answer or one consume call holds (the study's largest N).
pub const MAX_COUNT: usize = 100_000;

/// `numeric` or `dummy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    Numeric,
    Dummy,
}

impl Object {
    pub fn parse(id: &str) -> Result<Object, String> {
        match id {
            "numeric" => Ok(Object::Numeric),
            "dummy" => Ok(Object::Dummy),
            other => Err(format!("unknown object `{other}`; known: numeric, dummy")),
        }
    }

    pub fn id(self) -> &'static str {
        self.kind().id()
    }

    fn kind(self) -> DatasetKind {
        match self {
            Object::Numeric => DatasetKind::Numeric,
            Object::Dummy => DatasetKind::Dummy,
        }
    }
}

/// `json` or `bson`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Bson,
}

impl Format {
    pub fn parse(id: &str) -> Result<Format, String> {
        match id {
            "json" => Ok(Format::Json),
            "bson" => Ok(Format::Bson),
            other => Err(format!("unknown format `{other}`; known: json, bson")),
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Bson => "bson",
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Json => "application/json",
            Format::Bson => "application/bson",
        }
    }

    fn codec(self) -> &'static dyn Codec {
        codecs::codec(self.id()).expect("the formats lab has json and bson")
    }

    fn encode_one<T: Serialize>(self, value: &T) -> Vec<u8> {
        match self {
            Format::Json => serde_json::to_vec(value).expect("dataset objects serialize"),
            Format::Bson => bson::serialize_to_vec(value).expect("dataset objects serialize"),
        }
    }

    fn decode_one<T: DeserializeOwned>(self, bytes: &[u8]) -> Result<T, String> {
        match self {
            Format::Json => serde_json::from_slice(bytes).map_err(|e| e.to_string()),
            Format::Bson => bson::deserialize_from_slice(bytes).map_err(|e| e.to_string()),
        }
    }
}

/// The canonical objects, generated once per process.
fn canonical() -> &'static (Vec<NumericObject>, Vec<DummyObject>) {
    static OBJECTS: OnceLock<(Vec<NumericObject>, Vec<DummyObject>)> = OnceLock::new();
    OBJECTS.get_or_init(|| match (dataset::generate(DatasetKind::Numeric), dataset::generate(DatasetKind::Dummy)) {
        (Dataset::Numeric(n), Dataset::Dummy(d)) => (n, d),
        _ => unreachable!("generate returns the kind it is asked for"),
    })
}

/// Objects `start .. start + count` of the cycled dataset.
pub fn expected(object: Object, start: usize, count: usize) -> Dataset {
    let (numeric, dummy) = canonical();
    match object {
        Object::Numeric => {
            Dataset::Numeric((start..start + count).map(|i| numeric[i % numeric.len()].clone()).collect())
        }
        Object::Dummy => Dataset::Dummy((start..start + count).map(|i| dummy[i % dummy.len()].clone()).collect()),
    }
}

/// A provider's answer: one object itself when `count == 1`, else the formats lab's list layout
/// (a JSON array, a BSON `{"items": [...]}`).
pub fn encode(object: Object, format: Format, start: usize, count: usize) -> Vec<u8> {
    let (numeric, dummy) = canonical();
    if count == 1 {
        return match object {
            Object::Numeric => format.encode_one(&numeric[start % numeric.len()]),
            Object::Dummy => format.encode_one(&dummy[start % dummy.len()]),
        };
    }
    format.codec().encode(&expected(object, start, count)).expect("dataset objects encode")
}

/// Decodes answers into typed objects: each body one object (`batch = false`) or the one body a
/// list. The error names the index of the object (or body) that failed.
pub fn decode(object: Object, format: Format, bodies: &[bytes::Bytes], batch: bool) -> Result<Dataset, String> {
    if batch {
        let [body] = bodies else { return Err(format!("a batch is one answer, got {}", bodies.len())) };
        return format.codec().decode(body, object.kind()).map_err(|e| format!("the batch: {e}"));
    }
    fn each<T: DeserializeOwned>(format: Format, bodies: &[bytes::Bytes]) -> Result<Vec<T>, String> {
        bodies
            .iter()
            .enumerate()
            .map(|(i, b)| format.decode_one(b).map_err(|e| format!("object {i}: malformed {}: {e}", format.id())))
            .collect()
    }
    Ok(match object {
        Object::Numeric => Dataset::Numeric(each(format, bodies)?),
        Object::Dummy => Dataset::Dummy(each(format, bodies)?),
    })
}

/// The first object of `got` that differs from `want`, as a one-line error.
pub fn verify(got: &Dataset, want: &Dataset) -> Result<(), String> {
    fn first<T: PartialEq>(got: &[T], want: &[T]) -> Result<(), String> {
        if got.len() != want.len() {
            return Err(format!("decoded {} objects, expected {}", got.len(), want.len()));
        }
        match got.iter().zip(want).position(|(g, w)| g != w) {
            Some(i) => Err(format!("object {i} decoded to a value that differs from the dataset's")),
            None => Ok(()),
        }
    }
    match (got, want) {
        (Dataset::Numeric(g), Dataset::Numeric(w)) => first(g, w),
        (Dataset::Dummy(g), Dataset::Dummy(w)) => first(g, w),
        _ => Err("decoded the wrong kind of object".into()),
    }
}

/// Malformed bytes of each format, for `GET /bad/objects/...`: a BSON document cut short, and
/// JSON that parses but lacks a required field.
pub fn malformed(object: Object, format: Format) -> Vec<u8> {
    let good = encode(object, format, 0, 1);
    match format {
        Format::Bson => good[..good.len() / 2].to_vec(),
        Format::Json => {
            let mut value: serde_json::Value = serde_json::from_slice(&good).expect("our own JSON");
            value.as_object_mut().expect("an object").remove("index");
            serde_json::to_vec(&value).expect("JSON serializes")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_and_many_decode_to_the_cycled_dataset() {
        for object in [Object::Numeric, Object::Dummy] {
            for format in [Format::Json, Format::Bson] {
                let one: Vec<bytes::Bytes> = (98..103).map(|i| encode(object, format, i, 1).into()).collect();
                let got = decode(object, format, &one, false).unwrap();
                verify(&got, &expected(object, 98, 5)).unwrap();
                let batch = [bytes::Bytes::from(encode(object, format, 98, 5))];
                verify(&decode(object, format, &batch, true).unwrap(), &expected(object, 98, 5)).unwrap();
                assert!(verify(&got, &expected(object, 0, 5)).unwrap_err().starts_with("object 0 decoded"));
            }
        }
    }

    #[test]
    fn malformed_bytes_are_errors_naming_the_object() {
        for object in [Object::Numeric, Object::Dummy] {
            for format in [Format::Json, Format::Bson] {
                let bodies = [encode(object, format, 0, 1).into(), malformed(object, format).into()];
                let e = decode(object, format, &bodies, false).unwrap_err();
                assert!(e.starts_with(&format!("object 1: malformed {}", format.id())), "{e}");
                assert!(!e.contains('\n'), "{e}");
            }
        }
    }

    #[test]
    fn bson_numeric_is_smaller_and_bson_dummy_larger_than_json() {
        // The study's C6, on our objects: a property of the bytes, so a unit test.
        let size = |o, f| encode(o, f, 0, 1).len();
        assert!(size(Object::Numeric, Format::Bson) < size(Object::Numeric, Format::Json));
        assert!(size(Object::Dummy, Format::Bson) > size(Object::Dummy, Format::Json));
    }
}
