//! The entry point of the cargo-fuzz targets in `fuzz/` (one per format): decode arbitrary bytes
//! as every dataset. Any panic, abort, hang or runaway allocation is a finding; `Ok` and `Err`
//! are both fine, exactly as in the bad-input test.

use crate::codecs;
use crate::dataset::DatasetKind;

/// Decodes `bytes` with the codec `format` as each dataset, ignoring the result.
pub fn decode(format: &str, bytes: &[u8]) {
    let codec = codecs::codec(format).unwrap_or_else(|| panic!("no codec {format}"));
    for kind in DatasetKind::ALL {
        let _ = codec.decode(bytes, kind);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_takes_garbage_and_real_encodings() {
        let data = crate::dataset::generate_n(DatasetKind::Numeric, 2);
        for codec in codecs::CODECS {
            decode(codec.id(), b"\x00\xff garbage");
            decode(codec.id(), &codec.encode(&data).unwrap());
        }
    }
}
