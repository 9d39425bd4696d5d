//! The wire schemas generated from `schema/datasets.json`: `datasets.proto` and
//! `avro/<dataset>.avsc`. datasets.json is the one description of the types; these files are its
//! translation for the two formats that need a schema, written by `formats-rust schemas --write`
//! and held to it by a test, so they cannot drift from it.
//!
//! Translation rules:
//! - types: `i64` → int64 / long, `i32` → int32 / int, `f64` → double, `bool` → bool / boolean,
//!   `string` → string, `[T; n]` → repeated T / array of T, a named type → message / record.
//! - Protobuf field names are the snake_case of the datasets.json names (`eyeColor` →
//!   `eye_color`, `_id` → `id`), numbered in declaration order from 1; `json_name` keeps the
//!   datasets.json spelling where protobuf's default camelCase mapping would differ. A list
//!   dataset `[FooObject; count]` becomes `message FooList { repeated FooObject items = 1; }`.
//! - Avro keeps the datasets.json names; a record is defined where it is first used, and the
//!   root record carries the namespace.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::dataset::{DatasetKind, SPEC_JSON};

const PROTO_PACKAGE: &str = "wirebench.formats";
const AVRO_NAMESPACE: &str = PROTO_PACKAGE;

/// Path of the generated .proto, relative to `subjects/formats/schema/`.
pub const PROTO_FILE: &str = "datasets.proto";

const PROTO_HEADER: &str = "\
// GENERATED from datasets.json by `formats-rust schemas --write` (make vectors): do not edit.
// Protocol Buffers schema of the datasets (proto3). Field names are snake_case;
// json_name gives the datasets.json spelling where the default camelCase mapping would differ.
// A list dataset is one message with `repeated ... items = 1`, the {\"items\": [...]} wrapping
// that BSON and XML use too.
";

/// One generated file: its path relative to the schema directory and its text.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFile {
    pub name: String,
    pub text: String,
}

/// A field type as datasets.json writes it.
#[derive(Debug, Clone, PartialEq)]
enum FieldType {
    Scalar(&'static str),
    Named(String),
    List(Box<FieldType>),
}

impl FieldType {
    /// Parses `i64`, `User`, `[string; 3]` or `[User; count]`.
    fn parse(text: &str) -> FieldType {
        let text = text.trim();
        if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            let element = inner.split(';').next().unwrap_or(inner);
            return FieldType::List(Box::new(FieldType::parse(element)));
        }
        match text {
            "i64" => FieldType::Scalar("i64"),
            "i32" => FieldType::Scalar("i32"),
            "f64" => FieldType::Scalar("f64"),
            "bool" => FieldType::Scalar("bool"),
            "string" => FieldType::Scalar("string"),
            named => FieldType::Named(named.to_string()),
        }
    }

    fn proto(&self) -> String {
        match self {
            FieldType::Scalar("i64") => "int64".into(),
            FieldType::Scalar("i32") => "int32".into(),
            FieldType::Scalar("f64") => "double".into(),
            FieldType::Scalar(other) => (*other).into(),
            FieldType::Named(name) => name.clone(),
            FieldType::List(element) => format!("repeated {}", element.proto()),
        }
    }
}

/// The `types` and `datasets` of datasets.json.
struct Types<'a> {
    spec: &'a Value,
}

impl<'a> Types<'a> {
    fn fields(&self, type_name: &str) -> Vec<(String, FieldType)> {
        let fields = self.spec["types"][type_name]["fields"]
            .as_array()
            .unwrap_or_else(|| panic!("datasets.json: types.{type_name}.fields is not a list"));
        fields
            .iter()
            .map(|f| {
                let name = f["name"].as_str().expect("datasets.json: a field without a name");
                let ty = f["type"].as_str().expect("datasets.json: a field without a type");
                (name.to_string(), FieldType::parse(ty))
            })
            .collect()
    }

    /// `(dataset id, root type)` in the order of [`DatasetKind::ALL`], for each dataset with a
    /// shape of its own (`Listing41` is written and read with `Users`' schemas).
    fn datasets(&self) -> Vec<(String, FieldType)> {
        DatasetKind::ALL
            .iter()
            .filter(|kind| kind.shape() == **kind)
            .map(|kind| {
                let root = self.spec["datasets"][kind.id()]["root"].as_str();
                let root = root.unwrap_or_else(|| panic!("datasets.json: datasets.{}.root is missing", kind.id()));
                (kind.id().to_string(), FieldType::parse(root))
            })
            .collect()
    }
}

fn spec() -> Value {
    serde_json::from_str(SPEC_JSON).expect("schema/datasets.json is JSON")
}

/// `eyeColor` → `eye_color`, `_id` → `id`, `is_active` → `is_active`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim_start_matches('_').chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// protobuf's default JSON name of a field: `eye_color` → `eyeColor`.
fn proto_json_name(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// `NumericObject` → `NumericList`: the message that wraps a list dataset.
fn list_message(element: &str) -> String {
    format!("{}List", element.strip_suffix("Object").unwrap_or(element))
}

/// Every generated file, in a fixed order.
pub fn files() -> Vec<SchemaFile> {
    let spec = spec();
    let types = Types { spec: &spec };
    let mut out = vec![SchemaFile { name: PROTO_FILE.into(), text: proto(&types) }];
    for (id, root) in types.datasets() {
        let mut schema = avro_type(&types, &root, &mut BTreeSet::new());
        let top = match &mut schema {
            AvroType::Array { items, .. } => items.as_mut(),
            other => other,
        };
        let AvroType::Record(record) = top else {
            panic!("dataset {id}: the root is not a record or a list of records")
        };
        let role = if matches!(root, FieldType::List(_)) { "Element" } else { "Root" };
        record.namespace = Some(AVRO_NAMESPACE);
        record.doc = Some(format!("{role} of the {id} dataset (datasets.json)."));
        let text = serde_json::to_string_pretty(&schema).expect("a schema serializes") + "\n";
        out.push(SchemaFile { name: format!("avro/{id}.avsc"), text });
    }
    out
}

fn proto(types: &Types) -> String {
    let mut text = format!("{PROTO_HEADER}syntax = \"proto3\";\n\npackage {PROTO_PACKAGE};\n");
    let mut defined = BTreeSet::new();
    for (_, root) in types.datasets() {
        match &root {
            FieldType::Named(name) => proto_message(types, name, &mut defined, &mut text),
            FieldType::List(element) => {
                let FieldType::Named(name) = element.as_ref() else { panic!("a list dataset of scalars") };
                proto_message(types, name, &mut defined, &mut text);
                let _ = write!(text, "\nmessage {} {{\n  repeated {name} items = 1;\n}}\n", list_message(name));
            }
            FieldType::Scalar(_) => panic!("a scalar dataset root"),
        }
    }
    text
}

/// Writes `name` after every message it uses (protobuf does not need the order; readers do).
fn proto_message(types: &Types, name: &str, defined: &mut BTreeSet<String>, text: &mut String) {
    if !defined.insert(name.to_string()) {
        return;
    }
    let fields = types.fields(name);
    for (_, ty) in &fields {
        let mut ty = ty;
        while let FieldType::List(element) = ty {
            ty = element;
        }
        if let FieldType::Named(used) = ty {
            proto_message(types, used, defined, text);
        }
    }
    let _ = write!(text, "\nmessage {name} {{\n");
    for (number, (field, ty)) in fields.iter().enumerate() {
        let snake = snake_case(field);
        let option =
            if proto_json_name(&snake) == *field { String::new() } else { format!(" [json_name = \"{field}\"]") };
        let _ = writeln!(text, "  {} {snake} = {}{option};", ty.proto(), number + 1);
    }
    text.push_str("}\n");
}

/// An Avro schema node; fields serialize in declaration order, as people write them.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum AvroType {
    /// A primitive, or a reference to a record defined earlier.
    Name(String),
    Array {
        #[serde(rename = "type")]
        kind: &'static str,
        items: Box<AvroType>,
    },
    Record(AvroRecord),
}

#[derive(Debug, Serialize)]
struct AvroRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    doc: Option<String>,
    fields: Vec<AvroField>,
}

#[derive(Debug, Serialize)]
struct AvroField {
    name: String,
    #[serde(rename = "type")]
    ty: AvroType,
}

fn avro_type(types: &Types, ty: &FieldType, defined: &mut BTreeSet<String>) -> AvroType {
    match ty {
        FieldType::Scalar("i64") => AvroType::Name("long".into()),
        FieldType::Scalar("i32") => AvroType::Name("int".into()),
        FieldType::Scalar("f64") => AvroType::Name("double".into()),
        FieldType::Scalar("bool") => AvroType::Name("boolean".into()),
        FieldType::Scalar(other) => AvroType::Name((*other).into()),
        FieldType::List(element) => {
            AvroType::Array { kind: "array", items: Box::new(avro_type(types, element, defined)) }
        }
        FieldType::Named(name) if !defined.insert(name.clone()) => AvroType::Name(name.clone()),
        FieldType::Named(name) => AvroType::Record(AvroRecord {
            kind: "record",
            name: name.clone(),
            namespace: None,
            doc: None,
            fields: types
                .fields(name)
                .iter()
                .map(|(field, ty)| AvroField { name: field.clone(), ty: avro_type(types, ty, defined) })
                .collect(),
        }),
    }
}

/// Writes every file under `dir` (the `schema/` directory); returns how many.
pub fn write(dir: &std::path::Path) -> std::io::Result<usize> {
    let files = files();
    for file in &files {
        let path = dir.join(&file.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, &file.text)?;
    }
    Ok(files.len())
}

/// The generated files whose committed copy under `dir` is missing or different.
pub fn stale(dir: &std::path::Path) -> Vec<String> {
    files()
        .into_iter()
        .filter(|file| std::fs::read_to_string(dir.join(&file.name)).ok().as_deref() != Some(file.text.as_str()))
        .map(|file| file.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema")
    }

    #[test]
    fn committed_wire_schemas_match_datasets_json() {
        let stale = stale(&schema_dir());
        assert!(
            stale.is_empty(),
            "{stale:?} differ from what datasets.json generates: run `make vectors` (formats-rust schemas --write)"
        );
    }

    #[test]
    fn names_translate_as_documented() {
        assert_eq!(snake_case("eyeColor"), "eye_color");
        assert_eq!(snake_case("_id"), "id");
        assert_eq!(snake_case("is_active"), "is_active");
        assert_eq!(proto_json_name("favorite_fruit"), "favoriteFruit");
        assert_eq!(list_message("DummyObject"), "DummyList");
        assert_eq!(FieldType::parse("[User; count]"), FieldType::List(Box::new(FieldType::Named("User".into()))));
    }

    #[test]
    fn every_type_of_every_dataset_is_in_both_schemas() {
        let files = files();
        let proto = &files[0].text;
        let spec = spec();
        for type_name in spec["types"].as_object().unwrap().keys() {
            assert!(proto.contains(&format!("message {type_name} {{")), "{type_name} missing from the .proto");
            let in_avro = files[1..].iter().any(|f| f.text.contains(&format!("\"name\": \"{type_name}\"")));
            assert!(in_avro, "{type_name} missing from every .avsc");
        }
        // A field renamed in datasets.json must move both schemas.
        assert!(proto.contains("string favorite_fruit = 22;"), "{proto}");
    }
}
