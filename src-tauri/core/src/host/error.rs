//! What a host call can fail with. Each variant crosses a boundary as the `{name, code, message}` of
//! the error it carries, so a front door shows the core's own code.

use crate::agent::AgentError;
use crate::error::CodedError;
use crate::model::ModelError;
use crate::question::UserInteractionError;
use crate::service::ServiceError;
use crate::session::StoreError;
use crate::tools::ToolError;

use super::lock::LockError;

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Interaction(#[from] UserInteractionError),
    #[error(transparent)]
    Service(#[from] ServiceError),
    #[error(transparent)]
    Tool(#[from] ToolError),
    /// The session holds an outside agent's questions (`hark mcp`); it has no agent of Hark's own.
    #[error("this session holds the questions of {0}; talk to {0} itself, and answer its questions here")]
    ClientSession(String),
    /// No session matches what was typed, or the session has no events.
    #[error("{0}")]
    NotFound(String),
    /// An empty message, a workspace that is not a folder...
    #[error("{0}")]
    InvalidArgument(String),
}

impl CodedError for HostError {
    fn name(&self) -> &str {
        match self {
            HostError::Lock(e) => e.name(),
            HostError::Store(e) => e.name(),
            HostError::Agent(e) => e.name(),
            HostError::Model(e) => e.name(),
            HostError::Interaction(e) => e.name(),
            HostError::Service(e) => e.name(),
            HostError::Tool(e) => e.name(),
            HostError::NotFound(_) | HostError::InvalidArgument(_) | HostError::ClientSession(_) => "HostError",
        }
    }
    fn code(&self) -> &str {
        match self {
            HostError::Lock(e) => e.code(),
            HostError::Store(e) => e.code(),
            HostError::Agent(e) => e.code(),
            HostError::Model(e) => e.code(),
            HostError::Interaction(e) => e.code.as_str(),
            HostError::Service(e) => CodedError::code(e),
            HostError::Tool(e) => e.code(),
            HostError::NotFound(_) => "NOT_FOUND",
            HostError::ClientSession(_) => "CLIENT_SESSION",
            HostError::InvalidArgument(_) => "INVALID_ARGUMENT",
        }
    }
    fn message(&self) -> String {
        match self {
            HostError::Model(e) => CodedError::message(e),
            HostError::Interaction(e) => e.message.clone(),
            HostError::Service(e) => CodedError::message(e),
            HostError::Tool(e) => e.message(),
            other => other.to_string(),
        }
    }
}
