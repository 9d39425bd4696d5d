//! Protocol Buffers through prost, with the schema in `schema/datasets.proto`.
//!
//! The messages are the dataset types themselves: this module implements `prost::Message` for
//! them from one table per message (what `#[derive(prost::Message)]` would generate), instead of
//! generating twin structs from the .proto. Twins would need `protoc` at build time (prost-build)
//! and a conversion on every encode and decode, which the harness would time as part of
//! protobuf; the other formats serialize these types directly. A unit test holds the tables to
//! the .proto file: same messages, same field numbers, names and types.
//!
//! proto3 rules apply: a scalar field equal to its default (0, "", false) is not written.

use prost::bytes::{Buf, BufMut};
use prost::encoding::{decode_key, message, skip_field, DecodeContext, WireType};
use prost::{DecodeError, Message};

use super::{library, Codec, CodecError};
use crate::dataset::{
    Coordinate, Dataset, DatasetKind, DummyFriend, DummyObject, Metadata, NumericObject, User, UsersDocument,
};

const ID: &str = "protobuf";

pub struct Protobuf;

impl Codec for Protobuf {
    fn id(&self) -> &'static str {
        ID
    }

    fn library(&self) -> &'static str {
        library!("prost", "FORMATS_LIB_prost")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        Ok(match data {
            Dataset::Users(doc) | Dataset::Listing41(doc) => doc.encode_to_vec(),
            Dataset::Numeric(items) => encode_list(items),
            Dataset::Dummy(items) => encode_list(items),
        })
    }

    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        match kind {
            DatasetKind::Users => UsersDocument::decode(bytes).map(Dataset::Users),
            DatasetKind::Listing41 => UsersDocument::decode(bytes).map(Dataset::Listing41),
            DatasetKind::Numeric => decode_list(bytes).map(Dataset::Numeric),
            DatasetKind::Dummy => decode_list(bytes).map(Dataset::Dummy),
        }
        .map_err(|e| CodecError::decode(ID, kind, e))
    }

    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        // Field 1, length-delimited, with a length of 2^63 and one byte of payload.
        let mut huge_length = vec![0x0a];
        prost::encoding::encode_varint(1 << 63, &mut huge_length);
        huge_length.push(0x00);
        vec![
            ("huge-length", huge_length),
            // Unknown field 15 opening a group, 100 000 times: skipping it recurses.
            ("deep-groups", vec![(15 << 3) | 3; 100_000]),
        ]
    }
}

/// A list dataset as `NumericList` / `DummyList`: `repeated T items = 1`.
fn encode_list<M: Message>(items: &[M]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(message::encoded_len_repeated(1, items));
    message::encode_repeated(1, items, &mut buf);
    buf
}

fn decode_list<M: Message + Default>(mut buf: &[u8]) -> Result<Vec<M>, DecodeError> {
    let mut items = Vec::new();
    let ctx = DecodeContext::default();
    while buf.has_remaining() {
        match decode_key(&mut buf)? {
            (1, wire_type) => message::merge_repeated(wire_type, &mut items, &mut buf, ctx.clone())?,
            (tag, wire_type) => skip_field(wire_type, tag, &mut buf, ctx.clone())?,
        }
    }
    Ok(items)
}

/// One proto field: its number, the Rust field, how prost encodes it, and its .proto type.
/// Kinds: a scalar module of `prost::encoding` (`int64`, `int32`, `bool`, `double`, `string`),
/// `strings` (repeated string), `message` (a singular message, always written) or `messages`
/// (a repeated message).
macro_rules! proto_message {
    ($ty:ident { $($tag:literal => $field:ident : $kind:ident ($proto:literal)),* $(,)? }) => {
        impl Message for $ty {
            fn encode_raw(&self, buf: &mut impl BufMut) {
                $( proto_field!(encode $kind, $tag, &self.$field, buf); )*
            }

            fn merge_field(
                &mut self,
                tag: u32,
                wire_type: WireType,
                buf: &mut impl Buf,
                ctx: DecodeContext,
            ) -> Result<(), DecodeError> {
                match tag {
                    $( $tag => proto_field!(merge $kind, wire_type, &mut self.$field, buf, ctx), )*
                    _ => skip_field(wire_type, tag, buf, ctx),
                }
            }

            fn encoded_len(&self) -> usize {
                0 $( + proto_field!(len $kind, $tag, &self.$field) )*
            }

            fn clear(&mut self) {
                *self = Self::default();
            }
        }

        #[cfg(test)]
        impl ProtoFields for $ty {
            const NAME: &'static str = stringify!($ty);
            const FIELDS: &'static [(u32, &'static str, &'static str)] = &[$( ($tag, stringify!($field), $proto) ),*];
        }
    };
}

macro_rules! proto_field {
    (encode strings, $tag:expr, $v:expr, $buf:expr) => {
        prost::encoding::string::encode_repeated($tag, $v, $buf)
    };
    (merge strings, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        prost::encoding::string::merge_repeated($wt, $v, $buf, $ctx)
    };
    (len strings, $tag:expr, $v:expr) => {
        prost::encoding::string::encoded_len_repeated($tag, $v)
    };
    (encode message, $tag:expr, $v:expr, $buf:expr) => {
        message::encode($tag, $v, $buf)
    };
    (merge message, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        message::merge($wt, $v, $buf, $ctx)
    };
    (len message, $tag:expr, $v:expr) => {
        message::encoded_len($tag, $v)
    };
    (encode messages, $tag:expr, $v:expr, $buf:expr) => {
        message::encode_repeated($tag, $v, $buf)
    };
    (merge messages, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        message::merge_repeated($wt, $v, $buf, $ctx)
    };
    (len messages, $tag:expr, $v:expr) => {
        message::encoded_len_repeated($tag, $v)
    };
    (encode $scalar:ident, $tag:expr, $v:expr, $buf:expr) => {
        if !is_default($v) {
            prost::encoding::$scalar::encode($tag, $v, $buf)
        }
    };
    (merge $scalar:ident, $wt:expr, $v:expr, $buf:expr, $ctx:expr) => {
        prost::encoding::$scalar::merge($wt, $v, $buf, $ctx)
    };
    (len $scalar:ident, $tag:expr, $v:expr) => {
        if !is_default($v) {
            prost::encoding::$scalar::encoded_len($tag, $v)
        } else {
            0
        }
    };
}

/// proto3 leaves a scalar out when it equals its type's default.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// What a message table declares, for the test against `datasets.proto`.
#[cfg(test)]
trait ProtoFields {
    const NAME: &'static str;
    const FIELDS: &'static [(u32, &'static str, &'static str)];
}

proto_message!(User {
    1 => id: int64("int64"),
    2 => name: string("string"),
    3 => email: string("string"),
    4 => age: int32("int32"),
    5 => is_active: bool("bool"),
    6 => tags: strings("repeated string"),
});

proto_message!(Metadata {
    1 => version: string("string"),
    2 => created_at: string("string"),
    3 => total_count: int64("int64"),
});

proto_message!(UsersDocument {
    1 => users: messages("repeated User"),
    2 => metadata: message("Metadata"),
});

proto_message!(Coordinate {
    1 => timestamp: int64("int64"),
    2 => latitude: double("double"),
    3 => longitude: double("double"),
});

proto_message!(NumericObject {
    1 => id: string("string"),
    2 => index: int64("int64"),
    3 => numbr: double("double"),
    4 => coordinates: messages("repeated Coordinate"),
});

proto_message!(DummyFriend {
    1 => id: int64("int64"),
    2 => name: string("string"),
});

proto_message!(DummyObject {
    1 => id: string("string"),
    2 => index: int64("int64"),
    3 => guid: string("string"),
    4 => is_active: bool("bool"),
    5 => balance: string("string"),
    6 => picture: string("string"),
    7 => age: int32("int32"),
    8 => eye_color: string("string"),
    9 => name: string("string"),
    10 => gender: string("string"),
    11 => company: string("string"),
    12 => email: string("string"),
    13 => phone: string("string"),
    14 => address: string("string"),
    15 => about: string("string"),
    16 => registered: string("string"),
    17 => latitude: double("double"),
    18 => longitude: double("double"),
    19 => tags: strings("repeated string"),
    20 => friends: messages("repeated DummyFriend"),
    21 => greeting: string("string"),
    22 => favorite_fruit: string("string"),
});

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    type Fields = Vec<(u32, String, String)>;

    /// The messages of a .proto file as (number, name, type) per field; enough of the grammar for
    /// `datasets.proto` (no nested messages, enums or oneofs, one field per line).
    fn parse_proto(text: &str) -> BTreeMap<String, Fields> {
        let mut messages = BTreeMap::new();
        let mut current: Option<(String, Fields)> = None;
        for line in text.lines().map(|l| l.split("//").next().unwrap().trim()).filter(|l| !l.is_empty()) {
            if let Some(name) = line.strip_prefix("message ") {
                current = Some((name.trim_end_matches('{').trim().to_owned(), Vec::new()));
            } else if line == "}" {
                let (name, fields) = current.take().expect("closing brace inside a message");
                messages.insert(name, fields);
            } else if let Some((_, fields)) = current.as_mut() {
                let (decl, number) = line.split_once('=').expect("field line has '='");
                let number = number.trim().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
                let (ty, name) = decl.trim().rsplit_once(' ').unwrap();
                fields.push((number, name.to_owned(), ty.to_owned()));
            }
        }
        messages
    }

    fn table<T: ProtoFields>() -> (String, Fields) {
        (T::NAME.to_owned(), T::FIELDS.iter().map(|&(n, name, ty)| (n, name.to_owned(), ty.to_owned())).collect())
    }

    #[test]
    fn tables_match_the_proto_file() {
        let mut proto = parse_proto(include_str!("../../../schema/datasets.proto"));
        for (name, fields) in [
            table::<User>(),
            table::<Metadata>(),
            table::<UsersDocument>(),
            table::<Coordinate>(),
            table::<NumericObject>(),
            table::<DummyFriend>(),
            table::<DummyObject>(),
        ] {
            assert_eq!(proto.remove(&name), Some(fields), "message {name}");
        }
        // The two list wrappers are encode_list/decode_list's `items = 1`.
        for (list, item) in [("NumericList", "NumericObject"), ("DummyList", "DummyObject")] {
            let want = vec![(1, "items".to_owned(), format!("repeated {item}"))];
            assert_eq!(proto.remove(list), Some(want), "message {list}");
        }
        assert!(proto.is_empty(), "messages without a table: {:?}", proto.keys());
    }

    #[test]
    fn defaults_are_not_written() {
        assert!(DummyFriend::default().encode_to_vec().is_empty());
        let friend = DummyFriend { id: 1, name: "A".into() };
        assert_eq!(friend.encode_to_vec(), [0x08, 0x01, 0x12, 0x01, b'A']);
    }
}
