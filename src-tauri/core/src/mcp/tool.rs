//! One server tool as the model sees it: `mcp__<server>__<tool>`, the server's own description and
//! input schema, its result as text.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::ServiceError;
use serde_json::{json, Value};

use super::connection::Connection;
use super::McpError;
use crate::tools::{BoxFuture, ToolContext, ToolError, ToolOutput};

/// Models accept tool names of at most this many characters.
const NAME_LIMIT: usize = 64;
/// The most of a result passed on; the rest is cut with a note, so one chatty server cannot fill the
/// context window.
const RESULT_LIMIT: usize = 256 * 1024;

/// `mcp__<server>__<tool>`, with characters models refuse replaced by `_`, and a name past the limit
/// shortened and made distinct with a hash of the whole.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("mcp__{server}__{tool}");
    let clean: String =
        full.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if clean.len() <= NAME_LIMIT {
        return clean;
    }
    let hash = crate::data_dir::stable_hash(full.as_bytes());
    format!("{}_{:08x}", &clean[..NAME_LIMIT - 9], hash as u32)
}

/// A distinct offered name for each `(server, tool)` in `tools`, in the same order. Sanitising can
/// make two tools one name (`run.tests` and `run_tests`), and the model must still be able to reach
/// both: a tool whose name needed no change keeps it, and the others, in the given order, take their
/// sanitised name if it is free or else the first free one with `_2`, `_3`, ... appended. Given the
/// same tools in the same order the names are the same, turn after turn.
pub(crate) fn distinct_names(tools: &[(&str, &str)]) -> Vec<String> {
    let natural: Vec<String> = tools.iter().map(|(server, tool)| tool_name(server, tool)).collect();
    let mut taken = HashSet::new();
    let mut names: Vec<Option<String>> = tools
        .iter()
        .zip(&natural)
        .map(|((server, tool), name)| {
            let unchanged = *name == format!("mcp__{server}__{tool}");
            (unchanged && taken.insert(name.clone())).then(|| name.clone())
        })
        .collect();
    for (name, base) in names.iter_mut().zip(&natural) {
        if name.is_some() {
            continue;
        }
        let mut candidate = base.clone();
        let mut n = 1u32;
        while !taken.insert(candidate.clone()) {
            n += 1;
            let suffix = format!("_{n}");
            // Sanitised names are ASCII, so any length is a character boundary.
            let keep = base.len().min(NAME_LIMIT - suffix.len());
            candidate = format!("{}{suffix}", &base[..keep]);
        }
        *name = Some(candidate);
    }
    names.into_iter().zip(natural).map(|(name, base)| name.unwrap_or(base)).collect()
}

pub struct McpTool {
    connection: Arc<Connection>,
    name: String,
    tool: Tool,
}

impl McpTool {
    /// `name` is the offered name, from [`distinct_names`].
    pub(crate) fn new(connection: Arc<Connection>, tool: Tool, name: String) -> McpTool {
        McpTool { name, connection, tool }
    }

    /// The server the tool is on.
    pub fn server(&self) -> &str {
        &self.connection.server
    }

    /// The tool's name as its server lists it (what `disabled_tools` names).
    pub fn listed_name(&self) -> &str {
        &self.tool.name
    }

    /// Whether the person turned the tool off.
    pub fn disabled(&self) -> bool {
        self.connection.disabled_tools.contains(self.listed_name())
    }

    fn error(&self, e: ServiceError) -> McpError {
        let (server, tool) = (self.connection.server.clone(), self.tool.name.to_string());
        match e {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => McpError::ServerClosed { server, tool },
            ServiceError::McpError(e) => McpError::Refused { server, tool, message: e.message.to_string() },
            ServiceError::Timeout { timeout } => McpError::CallTimeout { server, tool, secs: timeout.as_secs() },
            other => McpError::Refused { server, tool, message: other.to_string() },
        }
    }

    fn output(&self, result: CallToolResult) -> Result<ToolOutput, ToolError> {
        let texts: Option<Vec<&str>> = result.content.iter().map(|c| c.as_text().map(|t| t.text.as_str())).collect();
        let mut content = match (texts, &result.structured_content) {
            (Some(texts), None) => texts.join("\n"),
            (Some(texts), Some(_)) if !texts.is_empty() => texts.join("\n"),
            _ => json!({ "content": result.content, "structuredContent": result.structured_content }).to_string(),
        };
        if content.len() > RESULT_LIMIT {
            let cut = (0..=RESULT_LIMIT).rev().find(|i| content.is_char_boundary(*i)).unwrap_or(0);
            content.truncate(cut);
            content.push_str("\n[the rest of the result was cut: it was longer than 256 KiB]");
        }
        if result.is_error == Some(true) {
            let (server, tool) = (self.connection.server.clone(), self.tool.name.to_string());
            return Err(McpError::ToolFailed { server, tool, message: content }.into());
        }
        Ok(ToolOutput::ok(content))
    }
}

impl crate::tools::Tool for McpTool {
    type Input = serde_json::Map<String, Value>;

    fn name(&self) -> &str {
        &self.name
    }

    fn definition(&self) -> Value {
        let about = self.tool.description.as_deref().or(self.tool.title.as_deref()).unwrap_or("");
        json!({
            "name": self.name,
            "description": format!("[MCP server {}] {about}", self.connection.server),
            "parameters": parameters(&self.tool),
        })
    }

    /// A server's word is its own: a tool it marks read-only is let through before a plan is
    /// approved only when the person trusts that server; any other tool waits for the approval.
    fn changes_workspace(&self) -> bool {
        let read_only = self.tool.annotations.as_ref().and_then(|a| a.read_only_hint).unwrap_or(false);
        !(self.connection.trusted && read_only)
    }

    /// A server's tool takes a JSON object; what is in it is the server's to check.
    fn parse(&self, args: &Value) -> Result<serde_json::Map<String, Value>, ToolError> {
        match args {
            Value::Object(args) => Ok(args.clone()),
            _ => Err(ToolError::Failed {
                code: "INVALID_REQUEST".into(),
                message: format!("the arguments of {} must be a JSON object", self.name),
            }),
        }
    }

    fn run(
        self: Arc<Self>,
        ctx: ToolContext,
        _call_id: String,
        args: serde_json::Map<String, Value>,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let params = CallToolRequestParams::new(self.tool.name.clone()).with_arguments(args);
            let timeout = self.connection.tool_timeout;
            let _call = self.connection.forms.enter_call(ctx.abort.clone());
            tokio::select! {
                _ = ctx.abort.cancelled() => Err(ToolError::Failed {
                    code: "ABORTED".into(),
                    message: format!("the turn was stopped while {} ran; its outcome is unknown", self.name),
                }),
                result = self.connection.client.call_tool(params) => match result {
                    Ok(result) => self.output(result),
                    Err(e) => Err(self.error(e).into()),
                },
                // Time the person spends on the server's form does not count.
                _ = self.connection.forms.elapsed(timeout) => Err(McpError::CallTimeout {
                    server: self.connection.server.clone(),
                    tool: self.tool.name.to_string(),
                    secs: timeout.as_secs(),
                }
                .into()),
            }
        })
    }
}

/// The server's input schema without its `$schema` dialect line, which some model servers refuse.
fn parameters(tool: &Tool) -> Value {
    let mut schema = (*tool.input_schema).clone();
    schema.remove("$schema");
    Value::Object(schema)
}
