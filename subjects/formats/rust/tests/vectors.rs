//! The committed vectors under `subjects/formats/vectors/` against this build: every golden vector
//! decodes to the generated dataset, and every file is byte-for-byte what this build writes, so a
//! stale vector fails here (regenerate: `formats-rust vectors --write subjects/formats/vectors`).

use std::path::PathBuf;

use formats_rust::codecs::CODECS;
use formats_rust::dataset::{generate, DatasetKind};
use formats_rust::vectors::{self, MAX_VECTOR_BYTES};

fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../vectors")
}

#[test]
fn every_vector_decodes_to_the_generated_dataset() {
    for kind in DatasetKind::ALL.into_iter().filter(|k| k.has_vectors()) {
        let data = generate(kind);
        for codec in CODECS {
            let path = vectors_dir().join(vectors::golden_name(kind, codec.id()));
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(bytes.len() <= MAX_VECTOR_BYTES, "{}: {} bytes", path.display(), bytes.len());
            let decoded = codec.decode(&bytes, kind).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(decoded == data, "{}: decodes to a different dataset", path.display());
        }
    }
}

#[test]
fn committed_vectors_are_up_to_date() {
    let problems = vectors::check(&vectors_dir()).unwrap();
    let listed: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert!(
        problems.is_empty(),
        "vectors are stale; run `formats-rust vectors --write subjects/formats/vectors`:\n{}",
        listed.join("\n")
    );
}
