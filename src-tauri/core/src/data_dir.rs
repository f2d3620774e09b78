//! Where Hark keeps its data: `HARK_DATA_DIR` when set, else the platform app-data directory.

use std::path::{Path, PathBuf};

use crate::error::CodedError;

/// The environment variable that overrides the data directory (tests and scripting use it).
pub const DATA_DIR_ENV: &str = "HARK_DATA_DIR";

#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    #[error("no data directory: set {DATA_DIR_ENV} or run on a platform with an app-data directory")]
    Unknown,
    #[error("the data directory {path} cannot be used: {reason}")]
    Unusable { path: PathBuf, reason: String },
}

impl DataDirError {
    pub fn code(&self) -> &'static str {
        match self {
            DataDirError::Unknown => "DATA_DIR_UNKNOWN",
            DataDirError::Unusable { .. } => "DATA_DIR_UNUSABLE",
        }
    }
}

impl CodedError for DataDirError {
    fn name(&self) -> &str {
        "DataDirError"
    }
    fn code(&self) -> &str {
        DataDirError::code(self)
    }
}

/// Picks the data directory: an explicit override, then `HARK_DATA_DIR`, then `platform_default`.
pub fn choose(explicit: Option<PathBuf>, platform_default: Option<PathBuf>) -> Result<PathBuf, DataDirError> {
    explicit
        .or_else(|| std::env::var_os(DATA_DIR_ENV).filter(|v| !v.is_empty()).map(PathBuf::from))
        .or(platform_default)
        .ok_or(DataDirError::Unknown)
}

/// Creates the directory if missing and proves it is writable, so a bad path fails here with a clear
/// message instead of deep inside SQLite.
pub fn prepare(path: &Path) -> Result<PathBuf, DataDirError> {
    let unusable = |reason: String| DataDirError::Unusable { path: path.to_path_buf(), reason };
    std::fs::create_dir_all(path).map_err(|e| unusable(e.to_string()))?;
    let probe = path.join(".hark-write-probe");
    std::fs::write(&probe, b"ok").map_err(|e| unusable(format!("not writable: {e}")))?;
    let _ = std::fs::remove_file(&probe);
    path.canonicalize().map_err(|e| unusable(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_path_wins_and_is_created() {
        let tmp = tempfile::tempdir().unwrap();
        let want = tmp.path().join("nested/data");
        let chosen = choose(Some(want.clone()), None).unwrap();
        assert_eq!(chosen, want);
        let ready = prepare(&chosen).unwrap();
        assert!(ready.is_dir());
    }

    #[test]
    fn a_file_in_the_way_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("occupied");
        std::fs::write(&file, b"x").unwrap();
        let err = prepare(&file.join("data")).unwrap_err();
        assert_eq!(err.code(), "DATA_DIR_UNUSABLE");
        let json = serde_json::to_value(err.boundary()).unwrap();
        assert_eq!(json["name"], "DataDirError");
        assert_eq!(json["code"], "DATA_DIR_UNUSABLE");
        assert!(json["message"].as_str().unwrap().contains("occupied"));
    }
}
