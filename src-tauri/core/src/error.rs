//! The one shape every Hark error takes across a boundary — IPC, the CLI's JSON, tool results and
//! errors recorded in the log: `{ "name": ..., "code": ..., "message": ... }`.

use serde::{Deserialize, Serialize};

/// An error that can cross a boundary. `name` is its family (`StoreError`), `code` is stable and
/// machine-readable (`STORE_IO`), `message` is for a person.
pub trait CodedError: std::fmt::Display {
    fn name(&self) -> &str;
    fn code(&self) -> &str;
    /// The error's text, unless it keeps a message apart from what it displays.
    fn message(&self) -> String {
        self.to_string()
    }
    /// The error as it crosses the boundary.
    fn boundary(&self) -> BoundaryError {
        BoundaryError { name: self.name().to_string(), code: self.code().to_string(), message: self.message() }
    }
}

/// `{name, code, message}`: what the window, the CLI, the model and the log see of an error. It reads
/// leniently, so a stored error that lacks a field (an old or hand-edited row) still decodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error, ts_rs::TS)]
#[error("{message}")]
pub struct BoundaryError {
    #[serde(default = "unnamed")]
    pub name: String,
    #[serde(default = "uncoded")]
    pub code: String,
    #[serde(default)]
    pub message: String,
}

fn unnamed() -> String {
    "Error".into()
}

fn uncoded() -> String {
    "UNKNOWN".into()
}

impl BoundaryError {
    pub fn new(name: &str, code: &str, message: impl Into<String>) -> Self {
        BoundaryError { name: name.into(), code: code.into(), message: message.into() }
    }
}

/// Lets `?` turn any coded error into the boundary shape (a command's result, an event payload).
impl<E: CodedError> From<E> for BoundaryError {
    fn from(e: E) -> Self {
        e.boundary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("the disk is full")]
    struct Full;

    impl CodedError for Full {
        fn name(&self) -> &str {
            "StoreError"
        }
        fn code(&self) -> &str {
            "STORE_IO"
        }
    }

    #[test]
    fn an_error_crosses_as_name_code_message() {
        let wire = serde_json::to_value(BoundaryError::from(Full)).unwrap();
        assert_eq!(wire, serde_json::json!({"name": "StoreError", "code": "STORE_IO", "message": "the disk is full"}));
    }

    #[test]
    fn a_stored_error_missing_fields_still_reads() {
        let read: BoundaryError = serde_json::from_value(serde_json::json!({"message": "m"})).unwrap();
        assert_eq!(read, BoundaryError::new("Error", "UNKNOWN", "m"));
    }
}
