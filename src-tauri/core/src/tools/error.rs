//! Tool failures as the model sees them: structured `{name, code, message}`, never panics or bare
//! strings, so the model (or a wrapper) can tell "the user cancelled" from "the tool broke".

use crate::error::CodedError;
use crate::question::UserInteractionError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error(transparent)]
    Interaction(#[from] UserInteractionError),
    #[error("no tool named {0:?} is available")]
    UnknownTool(String),
    #[error("a tool named {0:?} is already registered")]
    DuplicateTool(String),
    /// The turn was stopped before this call ran; the call did nothing.
    #[error("the turn was aborted before this tool call ran")]
    Aborted,
    /// Any other tool's failure, with its own code (e.g. `PATH_OUTSIDE_WORKSPACE`).
    #[error("{message}")]
    Failed { code: String, message: String },
}

impl CodedError for ToolError {
    fn name(&self) -> &str {
        match self {
            ToolError::Interaction(_) => UserInteractionError::NAME,
            _ => "ToolError",
        }
    }
    fn code(&self) -> &str {
        match self {
            ToolError::Interaction(e) => e.code.as_str(),
            ToolError::UnknownTool(_) => "UNKNOWN_TOOL",
            ToolError::DuplicateTool(_) => "DUPLICATE_TOOL",
            ToolError::Aborted => "ABORTED",
            ToolError::Failed { code, .. } => code,
        }
    }
    fn message(&self) -> String {
        match self {
            ToolError::Interaction(e) => e.message.clone(),
            other => other.to_string(),
        }
    }
}
