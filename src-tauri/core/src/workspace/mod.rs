//! Workspace tools: `list_dir`, `read_file`, `write_file`, confined to the session's folder, so the
//! agent has real work to continue with while a question stays open.
//!
//! Model arguments are untrusted: each tool parses them into a typed input struct, refuses paths
//! outside the workspace (PATH_OUTSIDE_WORKSPACE), and bounds what it reads and writes.

mod path;
pub(crate) mod replace;
mod tools;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;

pub use path::resolve;
pub use tools::{ListDir, ListDirInput, ReadFile, ReadFileInput, WriteFile, WriteFileInput};

use crate::error::CodedError;
use crate::tools::{ToolError, ToolHandler};

/// The most `read_file` returns; larger files are refused rather than cut, so the model never
/// mistakes a prefix for the whole file.
pub const READ_LIMIT: u64 = 256 * 1024;
/// The most `write_file` writes in one call.
pub const WRITE_LIMIT: usize = 1024 * 1024;
/// The most entries `list_dir` returns.
pub const LIST_LIMIT: usize = 1000;

/// A workspace tool failure with its own code; reaches the model as `{name, code, message}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct WorkspaceError {
    pub code: &'static str,
    pub message: String,
}

impl WorkspaceError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        WorkspaceError { code, message: message.into() }
    }

    pub(crate) fn io(what: &str, e: &std::io::Error) -> Self {
        let code = match e.kind() {
            std::io::ErrorKind::NotFound => "NOT_FOUND",
            _ => "IO_ERROR",
        };
        WorkspaceError::new(code, format!("{what}: {e}"))
    }
}

impl CodedError for WorkspaceError {
    fn name(&self) -> &str {
        "ToolError"
    }
    fn code(&self) -> &str {
        self.code
    }
    fn message(&self) -> String {
        self.message.clone()
    }
}

impl From<WorkspaceError> for ToolError {
    fn from(e: WorkspaceError) -> Self {
        ToolError::Failed { code: e.code.to_string(), message: e.message }
    }
}

pub(crate) fn outside(path: &str) -> WorkspaceError {
    WorkspaceError::new(
        "PATH_OUTSIDE_WORKSPACE",
        format!(
            "{path:?} is outside the workspace; use a relative path inside it (no absolute paths, no `..` escapes)"
        ),
    )
}

/// The three workspace tools over `root`.
pub fn workspace_tools(root: PathBuf) -> Vec<Arc<dyn ToolHandler>> {
    vec![Arc::new(ListDir::new(root.clone())), Arc::new(ReadFile::new(root.clone())), Arc::new(WriteFile::new(root))]
}
