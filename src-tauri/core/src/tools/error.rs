//! Tool failures as the model sees them: structured `{name, code, message}`, never panics or bare
//! strings, so the model (or a wrapper) can tell "the user cancelled" from "the tool broke".

use serde::Serialize;

use crate::question::UserInteractionError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    #[error(transparent)]
    Interaction(#[from] UserInteractionError),
    #[error("no tool named {0:?} is available")]
    UnknownTool(String),
    #[error("a tool named {0:?} is already registered")]
    DuplicateTool(String),
    /// Any other tool's failure, with its own code (e.g. `PATH_OUTSIDE_WORKSPACE`).
    #[error("{message}")]
    Failed { code: String, message: String },
}

impl ToolError {
    pub fn name(&self) -> &str {
        match self {
            ToolError::Interaction(_) => UserInteractionError::NAME,
            _ => "ToolError",
        }
    }

    pub fn code(&self) -> &str {
        match self {
            ToolError::Interaction(e) => e.code.as_str(),
            ToolError::UnknownTool(_) => "UNKNOWN_TOOL",
            ToolError::DuplicateTool(_) => "DUPLICATE_TOOL",
            ToolError::Failed { code, .. } => code,
        }
    }

    pub fn message(&self) -> String {
        match self {
            ToolError::Interaction(e) => e.message.clone(),
            other => other.to_string(),
        }
    }

    /// The wire shape as a value, for `tool/result` error outcomes.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "name": self.name(), "code": self.code(), "message": self.message() })
    }
}

impl Serialize for ToolError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::error::serialize_error(s, self.name(), self.code(), &self.message())
    }
}
