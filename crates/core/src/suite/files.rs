//! Where suites are: the suites directory, the project root above it, a suite named by name or
//! path, and the `.toml` files of a folder (suites, service declarations).

use std::path::{Path, PathBuf};

use super::error::SuiteError;

/// The project root: the directory holding the suites directory. Commands, working directories
/// and `subjects/` are relative to it.
pub fn project_root(suites_dir: &Path) -> Result<PathBuf, SuiteError> {
    let dir = suites_dir.canonicalize().map_err(|err| SuiteError::Read { file: suites_dir_named(suites_dir), err })?;
    Ok(dir.parent().map(Path::to_path_buf).unwrap_or(dir))
}

/// The suites directory as an error names it: outside a checkout (an installed wirebench) the
/// user must learn where the built-in suites are.
fn suites_dir_named(suites_dir: &Path) -> String {
    format!(
        "{} (the suites directory: the built-in suites are in the wirebench repository; run from its root or \
         use --suites-dir)",
        suites_dir.display()
    )
}

/// Every suite file in the suites directory, by name.
pub fn files(suites_dir: &Path) -> Result<Vec<PathBuf>, SuiteError> {
    toml_files(suites_dir).map_err(|err| SuiteError::Read { file: suites_dir_named(suites_dir), err })
}

/// The `.toml` files directly in `dir`, by name (suites, service declarations).
pub fn toml_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Resolves `protocols` to `<suites_dir>/protocols.toml`; a path with a slash or `.toml` is used as is.
pub fn resolve(name_or_path: &str, suites_dir: &Path) -> PathBuf {
    if name_or_path.contains('/') || name_or_path.ends_with(".toml") {
        PathBuf::from(name_or_path)
    } else {
        suites_dir.join(format!("{name_or_path}.toml"))
    }
}
