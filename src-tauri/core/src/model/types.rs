//! The provider-neutral conversation and stream vocabulary. The agent loop builds [`ModelRequest`]s
//! from the session log and consumes [`ModelEvent`]s; providers translate both to their wire format.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// One message of the conversation sent to the model.
///
/// Tagged by `role` so a stored or logged request reads like the familiar chat format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum ChatMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(default)]
        content: String,
        /// Reasoning the model streamed (DeepSeek `reasoning_content`). Kept for the transcript; it is
        /// not sent back to the API, which rejects or ignores it in history.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCallRequest>,
    },
    Tool {
        call_id: String,
        content: String,
    },
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        ChatMessage::System { content: content.into() }
    }

    pub fn user(content: impl Into<String>) -> Self {
        ChatMessage::User { content: content.into() }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        ChatMessage::Assistant { content: content.into(), reasoning: None, tool_calls: Vec::new() }
    }

    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        ChatMessage::Tool { call_id: call_id.into(), content: content.into() }
    }
}

/// A complete tool call as the model produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallRequest {
    pub id: String,
    pub name: String,
    /// Raw JSON text exactly as the model produced it; it may be invalid JSON and the caller decides
    /// what to do about that (usually an INVALID_REQUEST tool result the model can correct).
    pub arguments: String,
}

/// What one model step is asked to continue. Messages are shared with the session's history, so a
/// request of a long conversation costs a pointer per message, not a copy of it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    pub messages: Vec<Arc<ChatMessage>>,
    /// Tool definitions, each `{name, description, parameters}` (as `question::tool_definition`
    /// returns). Providers wrap them in their own format.
    #[serde(default)]
    pub tools: Vec<serde_json::Value>,
}

impl ModelRequest {
    pub fn new(messages: Vec<ChatMessage>, tools: Vec<serde_json::Value>) -> ModelRequest {
        ModelRequest { messages: messages.into_iter().map(Arc::new).collect(), tools }
    }
}

/// One item of a streamed model step, in the order the caller should apply them.
///
/// A successful stream ends with exactly one `Finished`. Tool calls arrive whole (never as
/// fragments), after the text of the step. `Usage` may arrive more than once with some servers; the
/// last one wins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "data", rename_all = "snake_case")]
pub enum ModelEvent {
    TextDelta(String),
    ReasoningDelta(String),
    ToolCall(ToolCallRequest),
    Usage(serde_json::Value),
    Finished { finish_reason: Option<String> },
}

/// How a provider describes itself to the UI and the session log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelDescription {
    pub provider: crate::session::ModelKind,
    /// What the UI shows, e.g. `"deepseek-chat @ api.deepseek.com"` or `"Demo model"`.
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The demo script name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
}
