//! What can go wrong with an MCP server, each with its own code.

use crate::error::CodedError;
use crate::tools::ToolError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    #[error("{path}: {message}")]
    ConfigInvalid { path: String, message: String },
    /// Named in the file but not usable by this front door (a secret it cannot read).
    #[error("the MCP server {server:?} is not available here: {message}")]
    Unavailable { server: String, message: String },
    #[error("the MCP server {server:?} could not start: {message}")]
    StartFailed { server: String, message: String },
    #[error("the MCP server {server:?} did not finish starting within {secs} s")]
    StartTimeout { server: String, secs: u64 },
    /// The server's tool list went past what Hark takes from one server (`limit` says which bound).
    #[error("the MCP server {server:?} listed {limit}, more than Hark takes from one server")]
    ToolListTooLong { server: String, limit: String },
    /// Offering every tool would pass the most a model takes in one request; these were left out.
    #[error("{count} of the MCP server {server:?}'s tools were left out, as a model takes at most {limit} tools in one request (turn tools off in Settings → MCP servers, or with \"disabled_tools\" in mcp.json, to choose which are offered): {tools}")]
    ToolsLeftOut { server: String, count: usize, limit: usize, tools: String },
    #[error("the MCP server {server:?} stopped while {tool:?} ran; the call's outcome is unknown")]
    ServerClosed { server: String, tool: String },
    #[error("the MCP server {server:?} did not answer {tool:?} within {secs} s")]
    CallTimeout { server: String, tool: String, secs: u64 },
    /// The server refused the call (a JSON-RPC error, e.g. invalid arguments).
    #[error("the MCP server {server:?} refused {tool:?}: {message}")]
    Refused { server: String, tool: String, message: String },
    /// The tool ran and reported a failure (`isError`).
    #[error("{tool:?} on the MCP server {server:?} failed: {message}")]
    ToolFailed { server: String, tool: String, message: String },
}

impl McpError {
    /// The server the error is about; empty for a configuration error.
    pub fn server(&self) -> &str {
        match self {
            McpError::ConfigInvalid { .. } => "",
            McpError::StartFailed { server, .. }
            | McpError::Unavailable { server, .. }
            | McpError::StartTimeout { server, .. }
            | McpError::ToolListTooLong { server, .. }
            | McpError::ToolsLeftOut { server, .. }
            | McpError::ServerClosed { server, .. }
            | McpError::CallTimeout { server, .. }
            | McpError::Refused { server, .. }
            | McpError::ToolFailed { server, .. } => server,
        }
    }
}

impl CodedError for McpError {
    fn name(&self) -> &str {
        "McpError"
    }
    fn code(&self) -> &str {
        match self {
            McpError::ConfigInvalid { .. } => "MCP_CONFIG_INVALID",
            McpError::StartFailed { .. } => "MCP_START_FAILED",
            McpError::Unavailable { .. } => "MCP_UNAVAILABLE",
            McpError::StartTimeout { .. } => "MCP_START_TIMEOUT",
            McpError::ToolListTooLong { .. } => "MCP_TOOL_LIST_TOO_LONG",
            McpError::ToolsLeftOut { .. } => "MCP_TOOLS_LEFT_OUT",
            McpError::ServerClosed { .. } => "MCP_SERVER_CLOSED",
            McpError::CallTimeout { .. } => "MCP_TIMEOUT",
            McpError::Refused { .. } => "MCP_REFUSED",
            McpError::ToolFailed { .. } => "MCP_TOOL_FAILED",
        }
    }
    fn message(&self) -> String {
        self.to_string()
    }
}

impl From<McpError> for ToolError {
    fn from(e: McpError) -> Self {
        ToolError::Failed { code: e.code().to_string(), message: e.to_string() }
    }
}
