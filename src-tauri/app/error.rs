//! Errors that cross IPC. They serialize to `{ name, code, message }` like every Hark error.

use serde::Serialize;

/// An error captured at start-up and reported on every call that needs what failed. Kept in its wire
/// form so it can be handed out again (the core error types are not `Clone`).
#[derive(Debug, Clone, Serialize)]
pub struct WireError {
    pub name: String,
    pub code: String,
    pub message: String,
}

impl WireError {
    pub fn of<E: Serialize + std::fmt::Display>(error: &E) -> Self {
        match serde_json::to_value(error) {
            Ok(v) => WireError {
                name: v["name"].as_str().unwrap_or("Error").to_string(),
                code: v["code"].as_str().unwrap_or("UNKNOWN").to_string(),
                message: v["message"].as_str().map_or_else(|| error.to_string(), str::to_string),
            },
            Err(_) => WireError { name: "Error".into(), code: "UNKNOWN".into(), message: error.to_string() },
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{}", .0.message)]
    Startup(WireError),
    #[error(transparent)]
    Store(#[from] hark_core::session::StoreError),
}

impl Serialize for CommandError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CommandError::Startup(e) => e.serialize(s),
            CommandError::Store(e) => e.serialize(s),
        }
    }
}
