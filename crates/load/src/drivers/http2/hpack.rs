//! HPACK (RFC 7541): the static table, the request's header blocks encoded once per connection
//! (`HeaderBlocks`), and the decoder of answers' header blocks that keeps only `:status` (`Hpack`).

use wirebench_core::runner::Target;

use crate::driver::RequestSpec;
use crate::error::LoadError;

/// The HPACK dynamic table of each side, at its default size (neither side's SETTINGS change it).
pub(super) const TABLE: usize = 4_096;

/// The request's header block, encoded once: `first` adds the fields to the server's dynamic
/// table, `next` names them by index; `plain` adds nothing (after the server shrank its table).
pub(super) struct HeaderBlocks {
    pub(super) first: Vec<u8>,
    pub(super) next: Vec<u8>,
    pub(super) plain: Vec<u8>,
}

/// Fields RFC 9113 §8.2.2 forbids in HTTP/2.
const CONNECTION_SPECIFIC: &[&str] = &["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"];

/// RFC 7541 Appendix A: the static table, index 1 to 61 (name, value).
const STATIC: [(&str, &str); 61] = [
    (":authority", ""),
    (":method", "GET"),
    (":method", "POST"),
    (":path", "/"),
    (":path", "/index.html"),
    (":scheme", "http"),
    (":scheme", "https"),
    (":status", "200"),
    (":status", "204"),
    (":status", "206"),
    (":status", "304"),
    (":status", "400"),
    (":status", "404"),
    (":status", "500"),
    ("accept-charset", ""),
    ("accept-encoding", "gzip, deflate"),
    ("accept-language", ""),
    ("accept-ranges", ""),
    ("accept", ""),
    ("access-control-allow-origin", ""),
    ("age", ""),
    ("allow", ""),
    ("authorization", ""),
    ("cache-control", ""),
    ("content-disposition", ""),
    ("content-encoding", ""),
    ("content-language", ""),
    ("content-length", ""),
    ("content-location", ""),
    ("content-range", ""),
    ("content-type", ""),
    ("cookie", ""),
    ("date", ""),
    ("etag", ""),
    ("expect", ""),
    ("expires", ""),
    ("from", ""),
    ("host", ""),
    ("if-match", ""),
    ("if-modified-since", ""),
    ("if-none-match", ""),
    ("if-range", ""),
    ("if-unmodified-since", ""),
    ("last-modified", ""),
    ("link", ""),
    ("location", ""),
    ("max-forwards", ""),
    ("proxy-authenticate", ""),
    ("proxy-authorization", ""),
    ("range", ""),
    ("referer", ""),
    ("refresh", ""),
    ("retry-after", ""),
    ("server", ""),
    ("set-cookie", ""),
    ("strict-transport-security", ""),
    ("transfer-encoding", ""),
    ("user-agent", ""),
    ("vary", ""),
    ("via", ""),
    ("www-authenticate", ""),
];

/// The static index (1-61) of a field with this name and value, or of its name alone.
fn static_index(name: &str, value: Option<&str>) -> Option<usize> {
    STATIC.iter().position(|&(n, v)| n == name && value.is_none_or(|value| v == value)).map(|i| i + 1)
}

impl HeaderBlocks {
    pub(super) fn of(r: &RequestSpec, target: &Target) -> Result<HeaderBlocks, LoadError> {
        let bad = |e: String| LoadError::Protocol(format!("bad request: {e}"));
        let scheme = if target.tls { "https" } else { "http" };
        // No path is the root, as in a URL (RFC 9113 §8.3.1: `:path` is never empty).
        let path = if r.path.is_empty() { "/" } else { r.path.as_str() };
        if !path.starts_with('/') {
            return Err(bad(format!("path `{path}` does not start with /")));
        }
        let mut fields: Vec<(String, String)> = vec![
            (":method".into(), r.method.clone()),
            (":scheme".into(), scheme.into()),
            (":authority".into(), r.authority.clone()),
            (":path".into(), path.into()),
        ];
        http::Method::from_bytes(r.method.as_bytes()).map_err(|e| bad(e.to_string()))?;
        for (k, v) in r.http_headers() {
            let name = http::HeaderName::from_bytes(k.as_bytes()).map_err(|e| bad(e.to_string()))?;
            http::HeaderValue::from_str(v).map_err(|e| bad(e.to_string()))?;
            let name = name.as_str();
            if name == "host" {
                continue; // :authority carries it
            }
            if CONNECTION_SPECIFIC.contains(&name) || (name == "te" && !v.eq_ignore_ascii_case("trailers")) {
                return Err(bad(format!("HTTP/2 forbids the connection-specific header `{name}`")));
            }
            fields.push((name.to_string(), v.to_string()));
        }
        let (mut first, mut next, mut plain) = (Vec::new(), Vec::new(), Vec::new());
        // The fields `first` adds to the dynamic table, in order, and the table's size with them:
        // a field that would not fit is sent without indexing, so nothing is ever evicted.
        let mut indexed: Vec<usize> = Vec::new();
        let mut size = 0;
        for (i, (name, value)) in fields.iter().enumerate() {
            if static_index(name, Some(value)).is_some() {
                continue;
            }
            let entry = name.len() + value.len() + 32;
            if size + entry <= TABLE {
                size += entry;
                indexed.push(i);
            }
        }
        for (i, (name, value)) in fields.iter().enumerate() {
            if let Some(index) = static_index(name, Some(value)) {
                for block in [&mut first, &mut next, &mut plain] {
                    integer(block, 0x80, 7, index);
                }
                continue;
            }
            let name_index = static_index(name, None);
            // Without indexing: 0x00 and a 4-bit name index; with incremental indexing: 0x40, 6 bits.
            literal(&mut plain, 0x00, 4, name_index, name, value);
            match indexed.iter().position(|&j| j == i) {
                Some(order) => {
                    literal(&mut first, 0x40, 6, name_index, name, value);
                    // After `first`, the newest entry is 62 and the oldest 61 + their number.
                    integer(&mut next, 0x80, 7, 62 + indexed.len() - 1 - order);
                }
                None => {
                    literal(&mut first, 0x00, 4, name_index, name, value);
                    literal(&mut next, 0x00, 4, name_index, name, value);
                }
            }
        }
        Ok(HeaderBlocks { first, next, plain })
    }
}

/// An HPACK integer (RFC 7541 §5.1) with `bits` of prefix in the first byte, ORed with `flags`.
pub(super) fn integer(out: &mut Vec<u8>, flags: u8, bits: u32, mut n: usize) {
    let max = (1usize << bits) - 1;
    if n < max {
        out.push(flags | n as u8);
        return;
    }
    out.push(flags | max as u8);
    n -= max;
    while n >= 128 {
        out.push((n % 128) as u8 | 0x80);
        n /= 128;
    }
    out.push(n as u8);
}

/// A literal field (RFC 7541 §6.2): the name by static index or as a string, the value as a
/// string; strings raw (no Huffman coding, which is optional).
fn literal(out: &mut Vec<u8>, flags: u8, bits: u32, name_index: Option<usize>, name: &str, value: &str) {
    match name_index {
        Some(index) => integer(out, flags, bits, index),
        None => {
            out.push(flags);
            integer(out, 0x00, 7, name.len());
            out.extend_from_slice(name.as_bytes());
        }
    }
    integer(out, 0x00, 7, value.len());
    out.extend_from_slice(value.as_bytes());
}

/// An HPACK decoder (RFC 7541) that keeps the dynamic table in step and reads one field,
/// `:status`; other fields are decoded only to enter the table.
/// A dynamic table entry: (name, value).
type Entry = (Box<[u8]>, Box<[u8]>);

pub(super) struct Hpack {
    /// Newest first.
    table: std::collections::VecDeque<Entry>,
    size: usize,
    max: usize,
    name: Vec<u8>,
    value: Vec<u8>,
}

pub(super) fn decoder() -> Hpack {
    Hpack { table: Default::default(), size: 0, max: TABLE, name: Vec::new(), value: Vec::new() }
}

/// An HPACK integer with a `bits` prefix at the start of `buf`: (value, bytes read).
fn read_integer(buf: &[u8], bits: u32) -> Result<(usize, usize), String> {
    let max = (1usize << bits) - 1;
    let first = *buf.first().ok_or("a truncated integer")? as usize & max;
    if first < max {
        return Ok((first, 1));
    }
    let (mut value, mut shift) = (max, 0u32);
    for (i, &b) in buf.iter().enumerate().skip(1) {
        if shift > 28 {
            break;
        }
        value += ((b & 0x7f) as usize) << shift;
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
        shift += 7;
    }
    Err("an integer too long or truncated".into())
}

/// A string literal at the start of `buf`: (its bytes, whether Huffman-coded, bytes read).
fn read_string(buf: &[u8]) -> Result<(&[u8], bool, usize), String> {
    let huffman = buf.first().is_some_and(|b| b & 0x80 != 0);
    let (len, n) = read_integer(buf, 7)?;
    let bytes = buf.get(n..n + len).ok_or("a truncated string")?;
    Ok((bytes, huffman, n + len))
}

/// A string's decoded bytes into `out` (cleared first).
fn decode_string(bytes: &[u8], huffman: bool, out: &mut Vec<u8>) -> Result<(), String> {
    out.clear();
    if huffman {
        httlib_huffman::decode(bytes, out, httlib_huffman::DecoderSpeed::FourBits)
            .map_err(|e| format!("a bad Huffman string: {e:?}"))
    } else {
        out.extend_from_slice(bytes);
        Ok(())
    }
}

impl Hpack {
    /// The field at `index` (static 1-61, then dynamic, newest first): its name and value.
    fn field(&self, index: usize) -> Result<(&[u8], &[u8]), String> {
        match index {
            0 => Err("index 0".into()),
            1..=61 => {
                let (name, value) = STATIC[index - 1];
                Ok((name.as_bytes(), value.as_bytes()))
            }
            _ => {
                let (name, value) =
                    self.table.get(index - 62).ok_or_else(|| format!("index {index} past the table"))?;
                Ok((name, value))
            }
        }
    }

    /// Evicts the oldest entries until `room` more bytes fit.
    fn evict(&mut self, room: usize) {
        while self.size + room > self.max {
            let Some((n, v)) = self.table.pop_back() else { break };
            self.size -= n.len() + v.len() + 32;
        }
    }

    fn insert(&mut self, name: &[u8], value: &[u8]) {
        let size = name.len() + value.len() + 32;
        self.evict(size);
        if size <= self.max {
            self.table.push_front((name.into(), value.into()));
            self.size += size;
        }
    }

    /// Decodes a whole header block; returns its `:status` and `grpc-status` where it has them.
    pub(super) fn status(&mut self, block: &[u8]) -> Result<Statuses, String> {
        let mut found = Statuses::default();
        let mut i = 0;
        while i < block.len() {
            let b = block[i];
            if b & 0x80 != 0 {
                let (index, n) = read_integer(&block[i..], 7)?;
                i += n;
                let (name, value) = self.field(index)?;
                found.note(name, value);
                continue;
            }
            if b & 0xe0 == 0x20 {
                let (size, n) = read_integer(&block[i..], 5)?;
                if size > TABLE {
                    return Err(format!("a table size update to {size}, past our {TABLE}"));
                }
                i += n;
                self.max = size;
                self.evict(0);
                continue;
            }
            // A literal: with incremental indexing (01), else without or never indexed (0000, 0001).
            let indexing = b & 0x40 != 0;
            let (index, n) = read_integer(&block[i..], if indexing { 6 } else { 4 })?;
            i += n;
            let mut name = std::mem::take(&mut self.name);
            if index == 0 {
                let (bytes, huffman, n) = read_string(&block[i..])?;
                i += n;
                decode_string(bytes, huffman, &mut name)?;
            } else {
                name.clear();
                name.extend_from_slice(self.field(index)?.0);
            }
            let (bytes, huffman, n) = read_string(&block[i..])?;
            i += n;
            // Values are decoded only when read or kept: most fields of an answer are neither.
            if indexing || Statuses::wants(&name) {
                let mut value = std::mem::take(&mut self.value);
                decode_string(bytes, huffman, &mut value)?;
                found.note(&name, &value);
                if indexing {
                    self.insert(&name, &value);
                }
                self.value = value;
            }
            self.name = name;
        }
        Ok(found)
    }
}

/// The fields of a header block the drivers read: HTTP's `:status`, and gRPC's `grpc-status`
/// (in the trailers, or in the headers of a call that fails at once).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Statuses {
    pub(crate) status: Option<u16>,
    /// The value as received when it is not a number.
    pub(crate) grpc: Option<Result<u16, String>>,
}

impl Statuses {
    fn wants(name: &[u8]) -> bool {
        name == b":status" || name == b"grpc-status"
    }

    fn note(&mut self, name: &[u8], value: &[u8]) {
        if name == b":status" {
            self.status = parse_status(value);
        } else if name == b"grpc-status" {
            self.grpc = Some(parse_status(value).ok_or_else(|| String::from_utf8_lossy(value).into_owned()));
        }
    }
}

fn parse_status(value: &[u8]) -> Option<u16> {
    std::str::from_utf8(value).ok()?.parse().ok()
}

#[cfg(test)]
pub(super) mod tests {
    //! The encoder against `loona-hpack`'s decoder (as the server's), the decoder on blocks built
    //! by hand; `request` and `target` serve the driver's tests too.

    use std::collections::BTreeMap;

    use bytes::Bytes;

    use super::*;

    pub(crate) fn request(method: &str, body: &[u8], headers: &[(&str, &str)]) -> RequestSpec {
        RequestSpec {
            method: method.into(),
            path: "/payload/1024".into(),
            authority: "127.0.0.1:8080".into(),
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            body: Bytes::copy_from_slice(body),
            params: BTreeMap::new(),
        }
    }

    pub(crate) fn target() -> Target {
        Target { host: "127.0.0.1".into(), port: 8080, tls: false, ..Target::default() }
    }

    fn fields(decoder: &mut loona_hpack::Decoder<'static>, block: &[u8]) -> Vec<(String, String)> {
        let list = decoder.decode(block).unwrap();
        list.into_iter().map(|(n, v)| (String::from_utf8(n).unwrap(), String::from_utf8(v).unwrap())).collect()
    }

    #[test]
    fn the_header_block_indexes_fields_once_and_names_them_by_index_after() {
        let r = request("POST", b"x", &[("Accept", "*/*"), ("X-Trace", "abc"), ("Host", "ignored")]);
        let blocks = HeaderBlocks::of(&r, &target()).unwrap();
        let want: Vec<(String, String)> = [
            (":method", "POST"),
            (":scheme", "http"),
            (":authority", "127.0.0.1:8080"),
            (":path", "/payload/1024"),
            ("accept", "*/*"),
            ("x-trace", "abc"),
            ("content-type", "application/octet-stream"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        // One decoder, as the server's: `first` fills its table, `next` (much shorter) reads it.
        let mut server = loona_hpack::Decoder::new();
        assert_eq!(fields(&mut server, &blocks.first), want);
        assert_eq!(fields(&mut server, &blocks.next), want);
        assert_eq!(fields(&mut server, &blocks.next), want);
        assert!(blocks.next.len() < 10, "{} bytes", blocks.next.len());
        assert_eq!(fields(&mut loona_hpack::Decoder::new(), &blocks.plain), want);

        let bad = request("GET", b"", &[("Connection", "keep-alive")]);
        let err = HeaderBlocks::of(&bad, &target()).err().unwrap().to_string();
        assert!(err.contains("connection-specific header `connection`"), "{err}");
    }

    #[test]
    fn fields_beyond_the_table_are_sent_without_indexing() {
        let long = "v".repeat(1500);
        let headers: Vec<(&str, &str)> = vec![("a", &long), ("b", &long), ("c", &long)];
        let blocks = HeaderBlocks::of(&request("GET", b"", &headers), &target()).unwrap();
        let mut server = loona_hpack::Decoder::new();
        let first = fields(&mut server, &blocks.first);
        assert_eq!(fields(&mut server, &blocks.next), first);
        assert_eq!(first.len(), 7);
    }

    fn huffman(text: &str) -> Vec<u8> {
        let mut coded = Vec::new();
        httlib_huffman::encode(text.as_bytes(), &mut coded).unwrap();
        let mut out = Vec::new();
        integer(&mut out, 0x80, 7, coded.len());
        out.extend_from_slice(&coded);
        out
    }

    #[test]
    fn the_decoder_reads_status_through_huffman_literals_and_its_table() {
        let mut d = decoder();
        // date (static name 33) and :status (static name 8) enter the table, Huffman-coded;
        // content-length (28) does not (without indexing); a literal name enters too.
        let mut block = vec![0x40 | 33];
        block.extend(huffman("Mon, 21 Oct 2013 20:13:21 GMT"));
        block.push(0x40 | 8);
        block.extend(huffman("302"));
        integer(&mut block, 0x00, 4, 28);
        block.extend(huffman("1024"));
        block.push(0x40);
        block.extend(huffman("x-trace"));
        block.extend(huffman("abc"));
        let status = |d: &mut Hpack, block: &[u8]| d.status(block).map(|s| s.status);
        assert_eq!(status(&mut d, &block), Ok(Some(302)));
        assert_eq!(d.table.len(), 3);
        assert_eq!(&d.table[0].0[..], b"x-trace");
        // Now 62 is x-trace, 63 :status 302, 64 date; 0x88 is the static 200.
        assert_eq!(status(&mut d, &[0x80 | 64, 0x80 | 63, 0x80 | 62]), Ok(Some(302)));
        assert_eq!(status(&mut d, &[0x88, 0x80 | 64]), Ok(Some(200)));
        assert_eq!(status(&mut d, &[0x80 | 64]), Ok(None), "trailers without :status");
        // A size update to 0 empties the table; its entries are gone.
        assert_eq!(status(&mut d, &[0x20, 0x88]), Ok(Some(200)));
        assert!(d.status(&[0x80 | 62]).unwrap_err().contains("past the table"));
        assert!(d.status(&[0x3f, 0xe2, 0x1f]).unwrap_err().contains("past our 4096"));
        assert!(d.status(&[0x40 | 8, 0x85, 0x01]).unwrap_err().contains("truncated"));
    }

    #[test]
    fn the_decoder_reads_grpc_status_literal_indexed_and_from_its_table() {
        let mut d = decoder();
        // grpc-status enters the table (a literal name, Huffman value), grpc-message does not.
        let mut block = vec![0x40];
        block.extend(huffman("grpc-status"));
        block.extend(huffman("0"));
        block.push(0x00);
        block.extend(huffman("grpc-message"));
        block.extend(huffman("fine"));
        assert_eq!(d.status(&block), Ok(Statuses { status: None, grpc: Some(Ok(0)) }));
        // Later trailers name it by index; a Trailers-Only answer has both, unindexed.
        assert_eq!(d.status(&[0x80 | 62]).unwrap().grpc, Some(Ok(0)));
        let mut block = vec![0x88, 0x00];
        block.extend(huffman("grpc-status"));
        block.extend(huffman("13"));
        assert_eq!(d.status(&block), Ok(Statuses { status: Some(200), grpc: Some(Ok(13)) }));
        let mut block = vec![0x00];
        block.extend(huffman("grpc-status"));
        block.extend(huffman("OK"));
        assert_eq!(d.status(&block).unwrap().grpc, Some(Err("OK".into())));
        assert_eq!(d.table.len(), 1, "unindexed fields stay out of the table");
    }
}
