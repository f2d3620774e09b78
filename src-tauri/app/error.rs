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

/// Everything a command can fail with; each variant serializes as the `{name, code, message}` of the
/// error it carries.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The data directory or store could not be used at start-up (reported on every call).
    #[error("{}", .0.message)]
    Startup(WireError),
    #[error("{}", .0.message)]
    Wire(WireError),
    #[error(transparent)]
    Host(#[from] hark_core::host::HostError),
    #[error(transparent)]
    Store(#[from] hark_core::session::StoreError),
    #[error(transparent)]
    Agent(#[from] hark_core::agent::AgentError),
    #[error(transparent)]
    Interaction(#[from] hark_core::question::UserInteractionError),
    #[error(transparent)]
    Service(#[from] hark_core::service::ServiceError),
    #[error(transparent)]
    Settings(#[from] crate::settings::SettingsError),
    #[error(transparent)]
    Secret(#[from] crate::secrets::SecretError),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    InvalidArgument(String),
    /// A call from a page that has since been reloaded: what it asks for belongs to the new page.
    #[error("this page was reloaded: call {0} came from the page before")]
    PageReloaded(u64),
    /// Work handed off the IPC thread stopped before it answered (it panicked).
    #[error("the shell could not finish this call: {0}")]
    Worker(String),
}

impl Serialize for CommandError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use hark_core::error::serialize_error;
        match self {
            CommandError::Startup(e) | CommandError::Wire(e) => e.serialize(s),
            CommandError::Host(e) => e.serialize(s),
            CommandError::Store(e) => e.serialize(s),
            CommandError::Agent(e) => e.serialize(s),
            CommandError::Interaction(e) => e.serialize(s),
            CommandError::Service(e) => e.serialize(s),
            CommandError::Settings(e) => e.serialize(s),
            CommandError::Secret(e) => e.serialize(s),
            CommandError::NotFound(m) => serialize_error(s, "CommandError", "NOT_FOUND", m),
            CommandError::InvalidArgument(m) => serialize_error(s, "CommandError", "INVALID_ARGUMENT", m),
            CommandError::PageReloaded(_) => serialize_error(s, "CommandError", "PAGE_RELOADED", &self.to_string()),
            CommandError::Worker(_) => serialize_error(s, "CommandError", "INTERNAL", &self.to_string()),
        }
    }
}
