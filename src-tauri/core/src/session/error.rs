//! Store failures, each with a stable code the UI and CLI can branch on.

use std::path::{Path, PathBuf};

use rusqlite::ffi::ErrorCode as SqliteCode;

use crate::error::CodedError;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session {session} not found")]
    NotFound { session: String },
    #[error(
        "{} was written by a newer Hark (schema version {found}; this build knows up to {known}). \
         Upgrade Hark to open it; the file was left untouched.",
        path.display()
    )]
    SchemaTooNew { path: PathBuf, found: i64, known: i64 },
    #[error(
        "{} is not a readable Hark database ({detail}). It was left untouched: move it aside to \
         start with an empty store, or restore it from a backup.",
        path.display()
    )]
    Corrupt { path: PathBuf, detail: String },
    /// One row of one session cannot be read; the rest of the store is fine. `seq` is the row's key
    /// within the session.
    #[error(
        "event {seq} of session {session} in {} cannot be read: {detail}. Only this session is affected \
         and nothing was changed. To open it again, fix or delete that row (table `events`, session_id \
         {session}, seq {seq}) or restore it from a backup; if a newer Hark wrote it, that version may read it.",
        path.display()
    )]
    EventUnreadable { path: PathBuf, session: String, seq: i64, detail: String },
    /// [`crate::session::Event::Unknown`] only ever comes from reading what a newer build wrote.
    #[error("a {type_name:?} event cannot be appended: this build does not know that event type")]
    UnknownEventType { type_name: String },
    #[error("the store {} is busy (another process holds it): {detail}", path.display())]
    Busy { path: PathBuf, detail: String },
    #[error("store I/O failed on {}: {detail}", path.display())]
    Io { path: PathBuf, detail: String },
}

impl StoreError {
    pub fn code(&self) -> &'static str {
        match self {
            StoreError::NotFound { .. } => "NOT_FOUND",
            StoreError::SchemaTooNew { .. } => "SCHEMA_TOO_NEW",
            StoreError::Corrupt { .. } => "STORE_CORRUPT",
            StoreError::EventUnreadable { .. } => "EVENT_UNREADABLE",
            StoreError::UnknownEventType { .. } => "UNKNOWN_EVENT_TYPE",
            StoreError::Busy { .. } => "STORE_BUSY",
            StoreError::Io { .. } => "STORE_IO",
        }
    }

    pub(crate) fn not_found(session: &str) -> Self {
        StoreError::NotFound { session: session.to_string() }
    }

    /// Classifies a SQLite failure on the database at `path`. Corruption is told apart from plain I/O
    /// because the remedy differs: a corrupt file must be moved aside by a person, never replaced by us.
    pub(crate) fn sqlite(path: &Path, err: rusqlite::Error) -> Self {
        let path = path.to_path_buf();
        let detail = err.to_string();
        match err.sqlite_error_code() {
            Some(SqliteCode::NotADatabase | SqliteCode::DatabaseCorrupt) => StoreError::Corrupt { path, detail },
            Some(SqliteCode::DatabaseBusy | SqliteCode::DatabaseLocked) => StoreError::Busy { path, detail },
            _ => StoreError::Io { path, detail },
        }
    }

    /// A stored row that does not decode: edited by hand, damaged, or written differently by another
    /// build. Only its session is affected, so the error names the row rather than the whole file.
    pub(crate) fn bad_row(path: &Path, session: &str, seq: i64, detail: impl std::fmt::Display) -> Self {
        StoreError::EventUnreadable {
            path: path.to_path_buf(),
            session: session.to_string(),
            seq,
            detail: detail.to_string(),
        }
    }
}

impl CodedError for StoreError {
    fn name(&self) -> &str {
        "StoreError"
    }
    fn code(&self) -> &str {
        StoreError::code(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_to_the_shared_error_shape() {
        let err = StoreError::not_found("abc");
        let json = serde_json::to_value(err.boundary()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"name": "StoreError", "code": "NOT_FOUND", "message": "session abc not found"})
        );
    }

    #[test]
    fn too_new_names_both_versions_and_the_file() {
        let err = StoreError::SchemaTooNew { path: PathBuf::from("/d/hark.sqlite3"), found: 9, known: 1 };
        let msg = err.to_string();
        assert!(msg.contains("/d/hark.sqlite3") && msg.contains('9') && msg.contains("up to 1"), "{msg}");
        assert_eq!(err.code(), "SCHEMA_TOO_NEW");
    }
}
