//! XML through quick-xml's serde support. The root element is named after the dataset
//! (`<users>`, `<numeric>`, `<dummy>`), except the study's own data, whose root is the study's
//! type, `<UserCollection>` (with it, Table 5.2's 1,761,825 bytes come out exactly); every field is a child element with the field's name, a
//! list is its element repeated, and a list dataset's elements are `<items>` (the same
//! `{"items": [...]}` wrapping BSON uses). No declaration, no attributes, no whitespace.

use super::{library, Codec, CodecError, Items};
use crate::dataset::{Dataset, DatasetKind};

const ID: &str = "xml";

pub struct Xml;

/// The name of a dataset's root element.
fn root_element(kind: DatasetKind) -> &'static str {
    match kind {
        DatasetKind::Listing41 => "UserCollection",
        kind => kind.id(),
    }
}

impl Codec for Xml {
    fn id(&self) -> &'static str {
        ID
    }

    fn library(&self) -> &'static str {
        library!("quick-xml", "FORMATS_LIB_quick_xml")
    }

    fn encode(&self, data: &Dataset) -> Result<Vec<u8>, CodecError> {
        let root = root_element(data.kind());
        match data {
            Dataset::Users(doc) | Dataset::Listing41(doc) => quick_xml::se::to_string_with_root(root, doc),
            Dataset::Numeric(items) => quick_xml::se::to_string_with_root(root, &Items { items }),
            Dataset::Dummy(items) => quick_xml::se::to_string_with_root(root, &Items { items }),
        }
        .map(String::into_bytes)
        .map_err(|e| CodecError::encode(ID, data, e))
    }

    fn decode(&self, bytes: &[u8], kind: DatasetKind) -> Result<Dataset, CodecError> {
        let err = |e: quick_xml::DeError| CodecError::decode(ID, kind, e);
        // quick-xml's fast path reads a &str; validating UTF-8 first is part of decoding here as
        // it is inside serde_json.
        let text = std::str::from_utf8(bytes).map_err(|e| CodecError::decode(ID, kind, e))?;
        let root = root_name(text);
        if root != Some(root_element(kind)) {
            let found = root.unwrap_or("none");
            return Err(CodecError::decode(
                ID,
                kind,
                format!("root element is <{found}>, not <{}>", root_element(kind)),
            ));
        }
        Ok(match kind {
            DatasetKind::Users => Dataset::Users(quick_xml::de::from_str(text).map_err(err)?),
            DatasetKind::Listing41 => Dataset::Listing41(quick_xml::de::from_str(text).map_err(err)?),
            DatasetKind::Numeric => Dataset::Numeric(quick_xml::de::from_str::<Items<_>>(text).map_err(err)?.items),
            DatasetKind::Dummy => Dataset::Dummy(quick_xml::de::from_str::<Items<_>>(text).map_err(err)?.items),
        })
    }

    fn hostile_inputs(&self) -> Vec<(&'static str, Vec<u8>)> {
        let deep = ["<users>", &"<a>".repeat(20_000), &"</a>".repeat(20_000), "</users>"].concat();
        let entities = concat!(
            "<?xml version=\"1.0\"?><!DOCTYPE users [<!ENTITY a \"aaaaaaaaaa\">",
            "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">",
            "<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\"><!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">]>",
            "<users><metadata><version>&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;</version></metadata></users>"
        );
        // Found by `make fuzz`: quick-xml 0.39 reached an `unreachable!()` on a DOCTYPE between two
        // text runs of one element (tafia/quick-xml#964).
        let doctype = "<users><metadata><version>1<!DOCTYPE y>0</version></metadata></users>";
        vec![
            ("deep-nesting", deep.into_bytes()),
            ("entity-expansion", entities.as_bytes().to_vec()),
            ("doctype-between-text", doctype.as_bytes().to_vec()),
        ]
    }
}

/// The name of the first element, skipping a declaration, comments and a DOCTYPE. quick-xml's
/// serde reader ignores the root's name, so a `<numeric>` document would otherwise decode as
/// `users` when the shapes happen to fit.
fn root_name(text: &str) -> Option<&str> {
    let mut rest = text;
    loop {
        let start = rest.find('<')?;
        rest = &rest[start + 1..];
        match rest.as_bytes().first()? {
            b'?' | b'!' => continue,
            _ => {
                let end = rest.find(|c: char| c == '>' || c == '/' || c.is_ascii_whitespace())?;
                return Some(&rest[..end]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::generate_n;

    #[test]
    fn root_names() {
        assert_eq!(root_name("<users><a/></users>"), Some("users"));
        assert_eq!(root_name("<?xml version=\"1.0\"?><!-- c --><numeric/>"), Some("numeric"));
        assert_eq!(root_name("<dummy attr=\"1\">"), Some("dummy"));
        assert_eq!(root_name("no markup"), None);
    }

    /// An empty list is no elements at all, the same as an absent field, and serde reports the
    /// field as missing. The datasets never hold an empty list; this pins the behaviour.
    #[test]
    fn an_empty_list_does_not_round_trip() {
        let empty = generate_n(DatasetKind::Users, 0);
        let bytes = Xml.encode(&empty).unwrap();
        assert_eq!(String::from_utf8_lossy(&bytes).matches("<users>").count(), 1);
        assert!(Xml.decode(&bytes, DatasetKind::Users).unwrap_err().to_string().contains("missing field `users`"));
    }
}
