//! What a host call can fail with. Each variant serializes as the `{name, code, message}` of the
//! error it carries, so a front door shows the core's own code.

use serde::Serialize;

use crate::agent::AgentError;
use crate::model::ModelError;
use crate::question::UserInteractionError;
use crate::service::ServiceError;
use crate::session::StoreError;

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
    /// No session matches what was typed, or the session has no events.
    #[error("{0}")]
    NotFound(String),
    /// An empty message, a workspace that is not a folder...
    #[error("{0}")]
    InvalidArgument(String),
}

impl Serialize for HostError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            HostError::Lock(e) => e.serialize(s),
            HostError::Store(e) => e.serialize(s),
            HostError::Agent(e) => e.serialize(s),
            HostError::Model(e) => e.serialize(s),
            HostError::Interaction(e) => e.serialize(s),
            HostError::Service(e) => e.serialize(s),
            HostError::NotFound(m) => crate::error::serialize_error(s, "HostError", "NOT_FOUND", m),
            HostError::InvalidArgument(m) => crate::error::serialize_error(s, "HostError", "INVALID_ARGUMENT", m),
        }
    }
}
