//! The three tools. Each input type derives its JSON schema: its doc comment is the model-facing
//! description of the tool, its fields' doc comments describe the parameters.

use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::replace::replace_file;
use super::{resolve, WorkspaceError, LIST_LIMIT, READ_LIMIT, WRITE_LIMIT};
use crate::tools::{definition_of, BoxFuture, Tool, ToolContext, ToolError, ToolOutput};

fn parse<T: DeserializeOwned>(tool: &str, args: &serde_json::Value) -> Result<T, WorkspaceError> {
    T::deserialize(args).map_err(|e| WorkspaceError::new("INVALID_REQUEST", format!("{tool}: invalid arguments: {e}")))
}

/// List the entries of a directory in the workspace. Directories end with `/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirInput {
    /// Relative path inside the workspace; `.` is the workspace itself.
    pub path: String,
}

/// Read a UTF-8 text file in the workspace (at most 256 KiB).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileInput {
    /// Relative path of the file inside the workspace.
    pub path: String,
}

/// Create or replace a text file in the workspace (at most 1 MiB); missing parent folders are created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileInput {
    /// Relative path of the file inside the workspace.
    pub path: String,
    /// The whole new content of the file.
    pub content: String,
}

macro_rules! tool {
    ($ty:ident, $input:ident, $name:literal, $run:ident, changes_workspace: $changes:literal) => {
        #[derive(Debug, Clone)]
        pub struct $ty {
            root: PathBuf,
        }

        impl $ty {
            pub const NAME: &'static str = $name;

            pub fn new(root: PathBuf) -> Self {
                $ty { root }
            }
        }

        impl Tool for $ty {
            type Input = $input;

            fn name(&self) -> &str {
                $name
            }

            fn definition(&self) -> serde_json::Value {
                definition_of::<$input>($name)
            }

            fn changes_workspace(&self) -> bool {
                $changes
            }

            fn parse(&self, args: &serde_json::Value) -> Result<$input, ToolError> {
                Ok(parse($name, args)?)
            }

            fn run(
                self: Arc<Self>,
                _ctx: ToolContext,
                _call_id: String,
                input: $input,
            ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
                Box::pin(async move {
                    let root = self.root.clone();
                    // File system calls block; keep them off the async workers.
                    let out = tokio::task::spawn_blocking(move || $run(&root, input))
                        .await
                        .map_err(|e| WorkspaceError::new("IO_ERROR", format!("{}: {e}", $name)))??;
                    Ok(ToolOutput::ok(out))
                })
            }
        }
    };
}

tool!(ListDir, ListDirInput, "list_dir", list_dir, changes_workspace: false);
tool!(ReadFile, ReadFileInput, "read_file", read_file, changes_workspace: false);
tool!(WriteFile, WriteFileInput, "write_file", write_file, changes_workspace: true);

fn list_dir(root: &std::path::Path, input: ListDirInput) -> Result<String, WorkspaceError> {
    let dir = resolve(root, &input.path)?;
    let entries = std::fs::read_dir(&dir).map_err(|e| WorkspaceError::io(&input.path, &e))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    let total = names.len();
    names.truncate(LIST_LIMIT);
    Ok(json!({ "path": input.path, "entries": names, "truncated": total > LIST_LIMIT }).to_string())
}

fn read_file(root: &std::path::Path, input: ReadFileInput) -> Result<String, WorkspaceError> {
    let file = resolve(root, &input.path)?;
    let meta = std::fs::metadata(&file).map_err(|e| WorkspaceError::io(&input.path, &e))?;
    if !meta.is_file() {
        return Err(WorkspaceError::new("NOT_A_FILE", format!("{:?} is not a file", input.path)));
    }
    if meta.len() > READ_LIMIT {
        return Err(WorkspaceError::new(
            "FILE_TOO_LARGE",
            format!("{:?} has {} bytes; read_file returns at most {READ_LIMIT}", input.path, meta.len()),
        ));
    }
    let bytes = std::fs::read(&file).map_err(|e| WorkspaceError::io(&input.path, &e))?;
    String::from_utf8(bytes).map_err(|_| WorkspaceError::new("NOT_TEXT", format!("{:?} is not UTF-8 text", input.path)))
}

fn write_file(root: &std::path::Path, input: WriteFileInput) -> Result<String, WorkspaceError> {
    if input.content.len() > WRITE_LIMIT {
        return Err(WorkspaceError::new(
            "CONTENT_TOO_LARGE",
            format!("the content has {} bytes; write_file writes at most {WRITE_LIMIT}", input.content.len()),
        ));
    }
    let file = resolve(root, &input.path)?;
    if file.is_dir() {
        return Err(WorkspaceError::new("NOT_A_FILE", format!("{:?} is a directory", input.path)));
    }
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| WorkspaceError::io(&input.path, &e))?;
    }
    replace_file(&file, &input.path, input.content.as_bytes())?;
    Ok(json!({ "path": input.path, "bytes_written": input.content.len() }).to_string())
}
