//! Errors that cross IPC. Commands answer with [`BoundaryError`], the `{ name, code, message }` every
//! Hark error takes; [`CommandError`] is what the shell's own code fails with on the way there.

use hark_core::error::{BoundaryError, CodedError};

/// What a command returns: its value, or the error in its boundary shape.
pub type CommandResult<T> = Result<T, BoundaryError>;

/// Everything a shell call can fail with; each wrapped error keeps its own name and code.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The data directory or store could not be used at start-up (reported on every call).
    #[error("{}", .0.message)]
    Startup(BoundaryError),
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
    #[error(transparent)]
    Mcp(#[from] hark_core::mcp::McpError),
    #[error(transparent)]
    AgentSetup(#[from] hark_core::agent_setup::SetupError),
    #[error(transparent)]
    Autostart(#[from] crate::autostart::AutostartError),
    #[error(transparent)]
    Phone(#[from] hark_core::phone::PhoneError),
    #[error(transparent)]
    RemoteHosts(#[from] hark_core::remote_hosts::RemoteHostsError),
    #[error(transparent)]
    FirstRun(#[from] hark_core::first_run::FirstRunError),
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

impl CommandError {
    /// The error a wrapped core error would be, for the variants that wrap one.
    fn inner(&self) -> Option<&dyn CodedError> {
        match self {
            CommandError::Host(e) => Some(e),
            CommandError::Store(e) => Some(e),
            CommandError::Agent(e) => Some(e),
            CommandError::Interaction(e) => Some(e),
            CommandError::Service(e) => Some(e),
            CommandError::Settings(e) => Some(e),
            CommandError::Secret(e) => Some(e),
            CommandError::Mcp(e) => Some(e),
            CommandError::AgentSetup(e) => Some(e),
            CommandError::Autostart(e) => Some(e),
            CommandError::Phone(e) => Some(e),
            CommandError::RemoteHosts(e) => Some(e),
            CommandError::FirstRun(e) => Some(e),
            _ => None,
        }
    }
}

impl CodedError for CommandError {
    fn name(&self) -> &str {
        match (self, self.inner()) {
            (CommandError::Startup(e), _) => &e.name,
            (_, Some(inner)) => inner.name(),
            _ => "CommandError",
        }
    }

    fn code(&self) -> &str {
        match (self, self.inner()) {
            (CommandError::Startup(e), _) => &e.code,
            (_, Some(inner)) => inner.code(),
            (CommandError::NotFound(_), _) => "NOT_FOUND",
            (CommandError::InvalidArgument(_), _) => "INVALID_ARGUMENT",
            (CommandError::PageReloaded(_), _) => "PAGE_RELOADED",
            _ => "INTERNAL",
        }
    }

    fn message(&self) -> String {
        match self.inner() {
            Some(inner) => inner.message(),
            None => self.to_string(),
        }
    }
}
