//! The datasets: their types and the seeded generator, both as `schema/datasets.json` describes them.
//!
//! The types carry serde derives only, with the field names of `datasets.json`; no format gets an
//! attribute of its own here. A codec that needs another shape (a root element, a wrapper
//! document, a wire schema) builds it in its own module.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// `schema/datasets.json`, compiled in so the binary needs no files at run time.
pub const SPEC_JSON: &str = include_str!("../../schema/datasets.json");

/// One user of the "Ways to optimize web applications" serialization test.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct User {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub age: i32,
    pub is_active: bool,
    pub tags: Vec<String>,
}

/// Describes the user list it travels with.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub version: String,
    pub created_at: String,
    pub total_count: i64,
}

/// Root of the `users` dataset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsersDocument {
    pub users: Vec<User>,
    pub metadata: Metadata,
}

/// One element of the `numeric` dataset: mostly numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NumericObject {
    pub id: String,
    pub index: i64,
    pub numbr: f64,
    pub coordinates: Vec<Coordinate>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Coordinate {
    /// Milliseconds since the Unix epoch.
    pub timestamp: i64,
    pub latitude: f64,
    pub longitude: f64,
}

/// One element of the `dummy` dataset: mostly strings, in the shape of a json-generator record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DummyObject {
    #[serde(rename = "_id")]
    pub id: String,
    pub index: i64,
    pub guid: String,
    pub is_active: bool,
    pub balance: String,
    pub picture: String,
    pub age: i32,
    pub eye_color: String,
    pub name: String,
    pub gender: String,
    pub company: String,
    pub email: String,
    pub phone: String,
    pub address: String,
    pub about: String,
    pub registered: String,
    pub latitude: f64,
    pub longitude: f64,
    pub tags: Vec<String>,
    pub friends: Vec<DummyFriend>,
    pub greeting: String,
    pub favorite_fruit: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DummyFriend {
    pub id: i64,
    pub name: String,
}

/// Which dataset; its id is the one used in file names, flags and measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatasetKind {
    Users,
    Numeric,
    Dummy,
    /// The study's own users (Listing 4.1 of "Ways to optimize web applications"): the types of
    /// `Users`, values from the listing's rules instead of draws.
    Listing41,
}

impl DatasetKind {
    pub const ALL: [DatasetKind; 4] =
        [DatasetKind::Users, DatasetKind::Numeric, DatasetKind::Dummy, DatasetKind::Listing41];

    pub fn id(self) -> &'static str {
        match self {
            DatasetKind::Users => "users",
            DatasetKind::Numeric => "numeric",
            DatasetKind::Dummy => "dummy",
            DatasetKind::Listing41 => "listing41",
        }
    }

    /// The dataset whose root type, wire schemas and decoders this one shares: itself, except
    /// `Listing41`, which is a `UsersDocument` as `Users` is.
    pub fn shape(self) -> DatasetKind {
        match self {
            DatasetKind::Listing41 => DatasetKind::Users,
            kind => kind,
        }
    }

    /// Whether `vectors/` holds this dataset's encodings. Not `Listing41`: 10,000 users make
    /// 1.2-1.8 MB a format, and its reference is the study's own Table 5.2 sizes, which a test
    /// holds its JSON and compact MessagePack to byte for byte.
    pub fn has_vectors(self) -> bool {
        self != DatasetKind::Listing41
    }

    pub fn from_id(id: &str) -> Option<DatasetKind> {
        DatasetKind::ALL.into_iter().find(|kind| kind.id() == id)
    }

    /// The number of objects `datasets.json` gives this dataset.
    pub fn count(self) -> usize {
        spec().dataset(self).count
    }
}

/// A generated or decoded dataset. Serializes as its root value alone (no enum tag), so a serde
/// format encodes exactly the document `datasets.json` describes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Dataset {
    Users(UsersDocument),
    Numeric(Vec<NumericObject>),
    Dummy(Vec<DummyObject>),
    Listing41(UsersDocument),
}

impl Dataset {
    pub fn kind(&self) -> DatasetKind {
        match self {
            Dataset::Users(_) => DatasetKind::Users,
            Dataset::Numeric(_) => DatasetKind::Numeric,
            Dataset::Dummy(_) => DatasetKind::Dummy,
            Dataset::Listing41(_) => DatasetKind::Listing41,
        }
    }

    /// Number of top-level objects (users, or list elements).
    pub fn objects(&self) -> usize {
        match self {
            Dataset::Users(doc) | Dataset::Listing41(doc) => doc.users.len(),
            Dataset::Numeric(items) => items.len(),
            Dataset::Dummy(items) => items.len(),
        }
    }
}

/// The parts of `datasets.json` the generator reads; the rest (types, rule texts) is for people
/// and for the tests that hold the Rust types to it.
#[derive(Debug, Deserialize)]
pub struct Spec {
    pub datasets: Datasets,
    pub words: Words,
    pub types: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Deserialize)]
pub struct Datasets {
    pub users: DatasetSpec,
    pub numeric: DatasetSpec,
    pub dummy: DatasetSpec,
    pub listing41: DatasetSpec,
}

#[derive(Debug, Deserialize)]
pub struct DatasetSpec {
    pub seed: u64,
    pub count: usize,
}

#[derive(Debug, Deserialize)]
pub struct Words {
    pub first_names: Vec<String>,
    pub last_names: Vec<String>,
    pub email_domains: Vec<String>,
    pub user_tags: Vec<String>,
    pub companies: Vec<String>,
    pub eye_colors: Vec<String>,
    pub genders: Vec<String>,
    pub fruits: Vec<String>,
    pub street_names: Vec<String>,
    pub street_types: Vec<String>,
    pub cities: Vec<String>,
    pub states: Vec<String>,
    pub lorem: Vec<String>,
}

impl Spec {
    pub fn dataset(&self, kind: DatasetKind) -> &DatasetSpec {
        match kind {
            DatasetKind::Users => &self.datasets.users,
            DatasetKind::Numeric => &self.datasets.numeric,
            DatasetKind::Dummy => &self.datasets.dummy,
            DatasetKind::Listing41 => &self.datasets.listing41,
        }
    }
}

/// The parsed `datasets.json`. It is compiled in and a unit test parses it, so a failure here is a
/// build defect, not an input error.
pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| serde_json::from_str(SPEC_JSON).expect("schema/datasets.json matches dataset::Spec"))
}

/// Generates the dataset with the count and seed of `datasets.json`.
pub fn generate(kind: DatasetKind) -> Dataset {
    generate_n(kind, kind.count())
}

/// Generates the first `count` objects of the dataset (the same objects `generate` starts with;
/// `users` also gets `total_count = count`). The bad-input corpus uses small ones.
pub fn generate_n(kind: DatasetKind, count: usize) -> Dataset {
    let spec = spec();
    let mut g = Generator { rng: SplitMix64::new(spec.dataset(kind).seed), words: &spec.words };
    match kind {
        DatasetKind::Users => Dataset::Users(UsersDocument {
            users: (0..count).map(|i| g.user(i)).collect(),
            metadata: Metadata {
                version: "1.0".into(),
                created_at: "2025-01-01T00:00:00Z".into(),
                total_count: count as i64,
            },
        }),
        DatasetKind::Numeric => Dataset::Numeric((0..count).map(|i| g.numeric(i)).collect()),
        DatasetKind::Dummy => Dataset::Dummy((0..count).map(|i| g.dummy(i)).collect()),
        DatasetKind::Listing41 => Dataset::Listing41(listing41(count)),
    }
}

/// Listing 4.1, as `datasets.listing41.rules` restates it: no draws.
fn listing41(count: usize) -> UsersDocument {
    UsersDocument {
        users: (0..count)
            .map(|i| User {
                id: i as i64,
                name: format!("User {i}"),
                email: format!("user{i}@example.com"),
                age: 20 + (i % 50) as i32,
                is_active: i % 2 == 0,
                tags: (1..=3).map(|k| format!("tag{k}")).collect(),
            })
            .collect(),
        metadata: Metadata {
            version: "1.0.0".into(),
            created_at: "2025-01-23T00:00:00Z".into(),
            total_count: count as i64,
        },
    }
}

/// The splitmix64 generator exactly as `datasets.json` spells it out.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `below(n)`: `next() mod n`. The modulo bias is part of the spec, not a defect: other
    /// languages reproduce it exactly, which a rejection loop would make harder to port.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `int(lo, hi)`: an integer in `[lo, hi]`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// `fixed(lo, hi, scale)`: one IEEE-754 division of two exact integers, so every language
    /// rounds to the same double.
    pub fn fixed(&mut self, lo: i64, hi: i64, scale: i64) -> f64 {
        self.int(lo, hi) as f64 / scale as f64
    }

    pub fn bool(&mut self) -> bool {
        self.below(2) == 1
    }

    pub fn pick<'w>(&mut self, list: &'w [String]) -> &'w str {
        &list[self.below(list.len() as u64) as usize]
    }

    pub fn hex64(&mut self) -> String {
        format!("{:016x}", self.next_u64())
    }

    /// `object_id()`: 24 hex digits from two draws.
    pub fn object_id(&mut self) -> String {
        let mut id = self.hex64();
        id.push_str(&self.hex64()[..8]);
        id
    }

    /// `guid()`: 32 hex digits from two draws, grouped 8-4-4-4-12.
    pub fn guid(&mut self) -> String {
        let h = self.hex64() + &self.hex64();
        format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
    }
}

struct Generator<'w> {
    rng: SplitMix64,
    words: &'w Words,
}

impl Generator<'_> {
    fn user(&mut self, i: usize) -> User {
        let w = self.words;
        let first = self.rng.pick(&w.first_names);
        let last = self.rng.pick(&w.last_names);
        let id = i as i64 + 1;
        User {
            id,
            name: format!("{first} {last}"),
            email: format!("{}.{}{id}@{}", lower(first), lower(last), self.rng.pick(&w.email_domains)),
            age: self.rng.int(18, 80) as i32,
            is_active: self.rng.bool(),
            tags: (0..3).map(|_| self.rng.pick(&w.user_tags).to_owned()).collect(),
        }
    }

    fn numeric(&mut self, i: usize) -> NumericObject {
        NumericObject {
            id: self.rng.object_id(),
            index: i as i64,
            numbr: self.rng.fixed(-1_000_000_000, 1_000_000_000, 1000),
            coordinates: (0..10)
                .map(|_| Coordinate {
                    timestamp: 1_700_000_000_000 + self.rng.int(0, 31_535_999_999),
                    latitude: self.rng.fixed(-90_000_000, 90_000_000, 1_000_000),
                    longitude: self.rng.fixed(-180_000_000, 180_000_000, 1_000_000),
                })
                .collect(),
        }
    }

    fn dummy(&mut self, i: usize) -> DummyObject {
        let w = self.words;
        let r = &mut self.rng;
        let first = r.pick(&w.first_names);
        let last = r.pick(&w.last_names);
        let company = r.pick(&w.companies);
        // Struct fields are evaluated in the order written, which is the draw order of the spec.
        DummyObject {
            id: r.object_id(),
            index: i as i64,
            guid: r.guid(),
            is_active: r.bool(),
            balance: dollars(r.int(100_000, 399_999)),
            picture: "http://placehold.it/32x32".into(),
            age: r.int(20, 40) as i32,
            eye_color: r.pick(&w.eye_colors).into(),
            name: format!("{first} {last}"),
            gender: r.pick(&w.genders).into(),
            company: company.into(),
            email: format!("{}.{}@{}.com", lower(first), lower(last), lower(company)),
            phone: {
                let (area, exchange, line) = (r.int(200, 999), r.int(200, 999), r.int(0, 9999));
                format!("+1 ({area}) {exchange}-{line:04}")
            },
            address: {
                let number = r.int(100, 9999);
                let street = r.pick(&w.street_names);
                let street_type = r.pick(&w.street_types);
                let city = r.pick(&w.cities);
                let state = r.pick(&w.states);
                let zip = r.int(0, 99_999);
                format!("{number} {street} {street_type}, {city}, {state}, {zip:05}")
            },
            about: paragraph(r, &w.lorem, 500),
            registered: {
                let (y, mo, d) = (r.int(2014, 2023), r.int(1, 12), r.int(1, 28));
                let (h, mi, s) = (r.int(0, 23), r.int(0, 59), r.int(0, 59));
                let tz = r.int(-12, 12);
                let sign = if tz < 0 { '-' } else { '+' };
                format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02} {sign}{:02}:00", tz.abs())
            },
            latitude: r.fixed(-90_000_000, 90_000_000, 1_000_000),
            longitude: r.fixed(-180_000_000, 180_000_000, 1_000_000),
            tags: (0..7).map(|_| r.pick(&w.lorem).to_owned()).collect(),
            friends: (0..3)
                .map(|k| {
                    let (first, last) = (r.pick(&w.first_names), r.pick(&w.last_names));
                    DummyFriend { id: k, name: format!("{first} {last}") }
                })
                .collect(),
            greeting: format!("Hello, {first}! You have {} unread messages.", r.int(1, 10)),
            favorite_fruit: r.pick(&w.fruits).into(),
        }
    }
}

fn lower(s: &str) -> String {
    s.to_ascii_lowercase()
}

/// `dollars(cents)`: `$1,234.56`.
fn dollars(cents: i64) -> String {
    let digits = (cents / 100).to_string();
    let mut grouped = String::new();
    for (n, c) in digits.chars().enumerate() {
        if n > 0 && (digits.len() - n).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("${grouped}.{:02}", cents % 100)
}

/// `paragraph(list, min_len)`: words until at least `min_len` bytes, capitalised, with a full stop.
fn paragraph(r: &mut SplitMix64, list: &[String], min_len: usize) -> String {
    let mut s = String::new();
    while s.len() < min_len {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(r.pick(list));
    }
    s[..1].make_ascii_uppercase();
    s.push('.');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_check_values_in_the_spec() {
        let check: serde_json::Value = serde_json::from_str(SPEC_JSON).unwrap();
        let check = &check["generator"]["check"];
        let mut rng = SplitMix64::new(check["seed"].as_u64().unwrap());
        for want in check["next_hex"].as_array().unwrap() {
            assert_eq!(rng.hex64(), want.as_str().unwrap());
        }
    }

    #[test]
    fn helpers_follow_their_examples() {
        assert_eq!(dollars(123_456), "$1,234.56");
        assert_eq!(dollars(100_000), "$1,000.00");
        assert_eq!(dollars(99_901), "$999.01");
        let mut rng = SplitMix64::new(7);
        assert_eq!(rng.guid().len(), 36);
        assert_eq!(rng.object_id().len(), 24);
        for _ in 0..1000 {
            assert!((-3..=3).contains(&rng.int(-3, 3)));
        }
        let words = ["ab".to_string()];
        assert_eq!(paragraph(&mut rng, &words, 5), "Ab ab.");
        assert_eq!(paragraph(&mut rng, &words, 6), "Ab ab ab.");
    }

    #[test]
    fn generation_is_deterministic_and_counts_follow_the_spec() {
        for kind in DatasetKind::ALL {
            let data = generate(kind);
            assert_eq!(data, generate(kind), "{}", kind.id());
            assert_eq!(data.objects(), kind.count());
            assert_eq!(data.kind(), kind);
            // A prefix is the same objects, so small bad-input bases stay related to the vectors.
            match (generate_n(kind, 2), &data) {
                (Dataset::Users(small), Dataset::Users(full))
                | (Dataset::Listing41(small), Dataset::Listing41(full)) => assert_eq!(small.users, full.users[..2]),
                (Dataset::Numeric(small), Dataset::Numeric(full)) => assert_eq!(small, full[..2]),
                (Dataset::Dummy(small), Dataset::Dummy(full)) => assert_eq!(small, full[..2]),
                _ => unreachable!(),
            }
        }
        assert_eq!(spec().datasets.users.count, 1000);
    }

    /// `datasets.listing41.rules` names every field of the types it replaces the rules of, and
    /// the generator follows the listing: the first and last users as Listing 4.1 makes them.
    #[test]
    fn listing41_follows_its_rules() {
        let json: serde_json::Value = serde_json::from_str(SPEC_JSON).unwrap();
        let rules = json["datasets"]["listing41"]["rules"].as_object().unwrap();
        for ty in ["User", "Metadata"] {
            for field in spec().types[ty]["fields"].as_array().unwrap() {
                let key = format!("{ty}.{}", field["name"].as_str().unwrap());
                assert!(rules.contains_key(&key), "datasets.listing41.rules lacks {key}");
            }
        }
        assert_eq!(rules.len(), 9);
        let Dataset::Listing41(doc) = generate(DatasetKind::Listing41) else { unreachable!() };
        let last = doc.users.last().unwrap();
        assert_eq!((last.id, last.name.as_str(), last.email.as_str()), (9999, "User 9999", "user9999@example.com"));
        assert_eq!((doc.users[0].age, doc.users[49].age, doc.users[50].age), (20, 69, 20));
        assert_eq!((doc.users[0].is_active, doc.users[1].is_active), (true, false));
        assert_eq!(doc.users[7].tags, ["tag1", "tag2", "tag3"]);
        assert_eq!(
            doc.metadata,
            Metadata { version: "1.0.0".into(), created_at: "2025-01-23T00:00:00Z".into(), total_count: 10_000 }
        );
    }

    #[test]
    fn strings_are_ascii_and_floats_exact() {
        let json = serde_json::to_string(&generate(DatasetKind::Dummy)).unwrap();
        assert!(json.is_ascii());
        if let Dataset::Dummy(items) = generate(DatasetKind::Dummy) {
            assert!(items.iter().all(|d| d.about.len() >= 500 && d.about.len() < 520));
        }
    }

    /// A JSON value with object keys in document order (serde_json's own `Value` sorts them).
    #[derive(Debug)]
    enum Node {
        Object(Vec<(String, Node)>),
        List(Vec<Node>),
        Scalar(serde_json::Value),
    }

    impl<'de> Deserialize<'de> for Node {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Node;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("any JSON value")
                }
                fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                    Ok(Node::Scalar(v.into()))
                }
                fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                    Ok(Node::Scalar(v.into()))
                }
                fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                    Ok(Node::Scalar(v.into()))
                }
                fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                    Ok(Node::Scalar(v.into()))
                }
                fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                    Ok(Node::Scalar(v.into()))
                }
                fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                    let mut items = Vec::new();
                    while let Some(item) = seq.next_element()? {
                        items.push(item);
                    }
                    Ok(Node::List(items))
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                    let mut fields = Vec::new();
                    while let Some(entry) = map.next_entry()? {
                        fields.push(entry);
                    }
                    Ok(Node::Object(fields))
                }
            }
            d.deserialize_any(V)
        }
    }

    /// Holds the Rust types to `datasets.json`: every type's fields, in order, with their JSON
    /// kinds, must be what the spec lists (list lengths included).
    #[test]
    fn types_match_the_spec() {
        fn check(spec: &Spec, type_name: &str, node: &Node) {
            let fields = spec.types[type_name]["fields"].as_array().unwrap();
            let Node::Object(object) = node else { panic!("{type_name} is not an object") };
            let names: Vec<&str> = object.iter().map(|(k, _)| k.as_str()).collect();
            let want: Vec<&str> = fields.iter().map(|f| f["name"].as_str().unwrap()).collect();
            assert_eq!(names, want, "{type_name}: field names and order");
            for (field, (name, value)) in fields.iter().zip(object) {
                check_node(spec, &format!("{type_name}.{name}"), field["type"].as_str().unwrap(), value);
            }
        }
        fn check_node(spec: &Spec, path: &str, ty: &str, node: &Node) {
            if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                let (elem, len) = inner.split_once("; ").unwrap();
                let Node::List(items) = node else { panic!("{path} is not a list") };
                if len != "count" {
                    assert_eq!(items.len(), len.parse::<usize>().unwrap(), "{path}: length");
                }
                items.iter().for_each(|item| check_node(spec, path, elem, item));
                return;
            }
            let scalar = |ok: fn(&serde_json::Value) -> bool| match node {
                Node::Scalar(value) => assert!(ok(value), "{path}: {value} is not a {ty}"),
                other => panic!("{path}: {other:?} is not a {ty}"),
            };
            match ty {
                "i32" => scalar(|v| v.as_i64().is_some_and(|v| i32::try_from(v).is_ok())),
                "i64" => scalar(serde_json::Value::is_i64),
                "f64" => scalar(serde_json::Value::is_f64),
                "bool" => scalar(serde_json::Value::is_boolean),
                "string" => scalar(serde_json::Value::is_string),
                other => check(spec, other, node),
            }
        }
        let spec = spec();
        let root: serde_json::Value = serde_json::from_str(SPEC_JSON).unwrap();
        for kind in DatasetKind::ALL {
            let root_type = root["datasets"][kind.id()]["root"].as_str().unwrap();
            let node: Node = serde_json::from_str(&serde_json::to_string(&generate_n(kind, 3)).unwrap()).unwrap();
            check_node(spec, kind.id(), root_type, &node);
        }
    }
}
