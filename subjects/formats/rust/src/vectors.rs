//! Golden vectors and the bad-input corpus: the files `formats-rust vectors` writes under
//! `subjects/formats/vectors/`, and the comparison the tests (and `vectors --check`) make.
//!
//! `<dataset>.<format>` holds the reference encoding of the full dataset. `bad/` holds inputs no
//! decoder may panic, hang or over-allocate on: every format's encoding of a small dataset
//! truncated at several points and with single bits flipped at several offsets, each codec's own
//! hostile inputs (`bad/<format>.<name>`: forged length prefixes, deep nesting) and an empty file.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::Path;

use crate::codecs::{CodecError, CODECS};
use crate::dataset::{generate, generate_n, DatasetKind};

/// Sub-directory of the vectors directory that holds the bad-input corpus.
pub const BAD_DIR: &str = "bad";

/// No committed vector may be larger: the repository carries them all.
pub const MAX_VECTOR_BYTES: usize = 2 << 20;

/// Objects in the dataset each bad input starts from: enough to reach every type's fields, small
/// enough that ~300 files stay a few hundred KB.
pub const BAD_BASE_OBJECTS: usize = 3;

/// One file of the vectors directory, by its path relative to that directory (`/`-separated).
#[derive(Debug, Clone, PartialEq)]
pub struct VectorFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// `<dataset>.<format>`: the file name of a golden vector.
pub fn golden_name(kind: DatasetKind, format: &str) -> String {
    format!("{}.{format}", kind.id())
}

/// The golden vectors: every registered format's encoding of every full dataset.
pub fn golden() -> Result<Vec<VectorFile>, CodecError> {
    let mut files = Vec::new();
    for kind in DatasetKind::ALL.into_iter().filter(|k| k.has_vectors()) {
        let data = generate(kind);
        for codec in CODECS {
            files.push(VectorFile { name: golden_name(kind, codec.id()), bytes: codec.encode(&data)? });
        }
    }
    Ok(files)
}

/// The bad-input corpus, generated without randomness so it is the same on every machine.
pub fn bad_corpus() -> Result<Vec<VectorFile>, CodecError> {
    let mut files = vec![VectorFile { name: format!("{BAD_DIR}/empty"), bytes: Vec::new() }];
    for kind in DatasetKind::ALL.into_iter().filter(|k| k.has_vectors()) {
        let data = generate_n(kind, BAD_BASE_OBJECTS);
        for codec in CODECS {
            let base = codec.encode(&data)?;
            for (suffix, bytes) in mutations(&base) {
                files.push(VectorFile { name: format!("{BAD_DIR}/{}.{}.{suffix}", kind.id(), codec.id()), bytes });
            }
        }
    }
    for codec in CODECS {
        for (name, bytes) in codec.hostile_inputs() {
            files.push(VectorFile { name: format!("{BAD_DIR}/{}.{name}", codec.id()), bytes });
        }
    }
    Ok(files)
}

/// Truncations (`trunc-<kept bytes>`) and single-bit flips (`flip-<offset>-<bit>`) of a valid
/// encoding, at fixed fractions of its length.
pub fn mutations(valid: &[u8]) -> Vec<(String, Vec<u8>)> {
    let n = valid.len();
    let mut out = Vec::new();
    let cuts: BTreeSet<usize> =
        [1, n / 4, n / 2, 3 * n / 4, n.saturating_sub(1)].into_iter().filter(|&c| c > 0 && c < n).collect();
    for cut in cuts {
        out.push((format!("trunc-{cut}"), valid[..cut].to_vec()));
    }
    let flips: BTreeSet<(usize, u8)> = (1..=8).filter(|_| n > 0).map(|k| (n * k / 9, (k % 8) as u8)).collect();
    for (offset, bit) in flips {
        let mut bytes = valid.to_vec();
        bytes[offset] ^= 1 << bit;
        out.push((format!("flip-{offset}-{bit}"), bytes));
    }
    out
}

/// Every file the vectors directory should hold.
pub fn expected() -> Result<Vec<VectorFile>, CodecError> {
    let mut files = golden()?;
    files.extend(bad_corpus()?);
    Ok(files)
}

/// Writes every expected file under `dir` (creating `dir` and `dir/bad`). Files that are no longer
/// expected are left alone; `check` names them.
pub fn write(dir: &Path) -> Result<usize, VectorsError> {
    let files = expected()?;
    fs::create_dir_all(dir.join(BAD_DIR)).map_err(|e| VectorsError::io(dir, e))?;
    for file in &files {
        let path = dir.join(&file.name);
        fs::write(&path, &file.bytes).map_err(|e| VectorsError::io(&path, e))?;
    }
    Ok(files.len())
}

/// One way the vectors directory differs from what this build generates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Missing(String),
    Differs(String),
    Unexpected(String),
    TooLarge(String, usize),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Missing(name) => write!(f, "{name}: missing"),
            Problem::Differs(name) => write!(f, "{name}: differs from what this build encodes"),
            Problem::Unexpected(name) => write!(f, "{name}: not generated any more (delete it)"),
            Problem::TooLarge(name, size) => write!(f, "{name}: {size} bytes, over the {MAX_VECTOR_BYTES}-byte limit"),
        }
    }
}

/// Compares `dir` with what this build generates, byte for byte. Every format here encodes
/// deterministically (the codec tests check that encoding twice gives the same bytes), so a
/// difference means a stale vector or a changed library.
pub fn check(dir: &Path) -> Result<Vec<Problem>, VectorsError> {
    let expected = expected()?;
    let mut problems = Vec::new();
    for file in &expected {
        let path = dir.join(&file.name);
        match fs::read(&path) {
            Ok(bytes) if bytes == file.bytes => {}
            Ok(_) => problems.push(Problem::Differs(file.name.clone())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => problems.push(Problem::Missing(file.name.clone())),
            Err(e) => return Err(VectorsError::io(&path, e)),
        }
        if file.bytes.len() > MAX_VECTOR_BYTES {
            problems.push(Problem::TooLarge(file.name.clone(), file.bytes.len()));
        }
    }
    let names: BTreeSet<&str> = expected.iter().map(|f| f.name.as_str()).collect();
    for sub in ["", BAD_DIR] {
        let entries = match fs::read_dir(dir.join(sub)) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(VectorsError::io(&dir.join(sub), e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| VectorsError::io(dir, e))?;
            if entry.file_type().map_err(|e| VectorsError::io(&entry.path(), e))?.is_file() {
                let name = match sub {
                    "" => entry.file_name().to_string_lossy().into_owned(),
                    sub => format!("{sub}/{}", entry.file_name().to_string_lossy()),
                };
                if !names.contains(name.as_str()) {
                    problems.push(Problem::Unexpected(name));
                }
            }
        }
    }
    Ok(problems)
}

#[derive(Debug, thiserror::Error)]
pub enum VectorsError {
    #[error(transparent)]
    Codec(#[from] CodecError),
    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },
}

impl VectorsError {
    fn io(path: &Path, source: io::Error) -> VectorsError {
        VectorsError::Io { path: path.display().to_string(), source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_fixed_and_distinct() {
        let valid: Vec<u8> = (0..90).collect();
        let m = mutations(&valid);
        let names: Vec<&str> = m.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names[..5], ["trunc-1", "trunc-22", "trunc-45", "trunc-67", "trunc-89"]);
        assert_eq!(names[5], "flip-10-1");
        assert_eq!(m.len(), 13);
        assert!(m.iter().all(|(_, bytes)| bytes != &valid));
        // A one-byte input cannot be truncated, only flipped (bit by bit).
        assert_eq!(mutations(&[7]).len(), 8);
        assert!(mutations(&[]).is_empty());
    }

    #[test]
    fn names_are_unique() {
        let files = expected().unwrap();
        let names: BTreeSet<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names.len(), files.len());
    }
}
