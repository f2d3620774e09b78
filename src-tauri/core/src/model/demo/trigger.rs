//! What the demo model is replying to: the end of the request, classified.
//!
//! The demo keeps no state between steps. Everything it needs is in the conversation the agent loop
//! sends, so a session reopened after a restart continues exactly where it was.

use std::sync::Arc;

use serde_json::Value;

use super::script::{Condition, ToolStatus};
use crate::model::types::{ChatMessage, ModelRequest};
use crate::question::{parse_late_answer_text, AnswerBatch};

/// The key that marks both the pending tool result and the late-answer user message.
const LATE_ANSWER_KEY: &str = "answer_to_pending_question";

#[derive(Debug, Clone, PartialEq)]
pub enum Trigger {
    /// The last message is the user's and the model has not spoken yet.
    Start { text: String },
    /// The last message is a later user message.
    UserText { text: String },
    /// The last message is a late answer to a question whose call returned pending.
    LateAnswer { call_id: String, answers: AnswerBatch },
    /// The tool results after the model's last tool calls, in order.
    ToolResults(Vec<ToolResultInfo>),
    /// Nothing to reply to (no messages, or the conversation ends with a system or model message).
    Nothing,
}

/// One tool result as the demo reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResultInfo {
    pub call_id: String,
    /// The tool named by the matching call in the preceding assistant message ("" if none matches).
    pub tool: String,
    pub status: ToolStatus,
    pub code: Option<String>,
    pub message: Option<String>,
    pub content: String,
}

impl Trigger {
    pub fn from_request(request: &ModelRequest) -> Trigger {
        let messages = &request.messages;
        match messages.last().map(|m| &**m) {
            Some(ChatMessage::User { content }) => {
                if let Some((call_id, answers)) = parse_late_answer_text(content) {
                    return Trigger::LateAnswer { call_id, answers };
                }
                let model_spoke = messages.iter().any(|m| matches!(**m, ChatMessage::Assistant { .. }));
                if model_spoke {
                    Trigger::UserText { text: content.clone() }
                } else {
                    Trigger::Start { text: content.clone() }
                }
            }
            Some(ChatMessage::Tool { .. }) => Trigger::ToolResults(trailing_results(messages)),
            _ => Trigger::Nothing,
        }
    }

    /// Whether `condition` matches; for a tool-result condition, also which result it matched.
    pub(super) fn matches(&self, condition: &Condition) -> Option<Option<&ToolResultInfo>> {
        match (condition, self) {
            (Condition::Any, Trigger::ToolResults(results)) => Some(results.first()),
            (Condition::Any, _) => Some(None),
            (Condition::Start { contains }, Trigger::Start { text })
            | (Condition::UserText { contains }, Trigger::UserText { text }) => {
                contains_ci(text, contains.as_deref()).then_some(None)
            }
            (Condition::LateAnswer, Trigger::LateAnswer { .. }) => Some(None),
            (Condition::ToolResult { tool, status, code, contains }, Trigger::ToolResults(results)) => results
                .iter()
                .find(|r| {
                    tool.as_ref().is_none_or(|t| *t == r.tool)
                        && status.is_none_or(|s| s == r.status)
                        && code.as_ref().is_none_or(|c| Some(c) == r.code.as_ref())
                        && contains_ci(&r.content, contains.as_deref())
                })
                .map(Some),
            _ => None,
        }
    }
}

fn contains_ci(text: &str, needle: Option<&str>) -> bool {
    needle.is_none_or(|n| text.to_lowercase().contains(&n.to_lowercase()))
}

/// The tool messages after the last assistant message, named after the calls they answer.
fn trailing_results(messages: &[Arc<ChatMessage>]) -> Vec<ToolResultInfo> {
    let start = messages.iter().rposition(|m| !matches!(**m, ChatMessage::Tool { .. })).map_or(0, |i| i + 1);
    let calls = match messages[..start].last().map(|m| &**m) {
        Some(ChatMessage::Assistant { tool_calls, .. }) => tool_calls.as_slice(),
        _ => &[],
    };
    messages[start..]
        .iter()
        .filter_map(|m| match &**m {
            ChatMessage::Tool { call_id, content } => {
                let tool = calls.iter().find(|c| &c.id == call_id).map(|c| c.name.clone()).unwrap_or_default();
                Some(classify(call_id, tool, content))
            }
            _ => None,
        })
        .collect()
}

/// Tool errors reach the model as `{name, code, message}` JSON (possibly under `error`); a pending
/// result is `{"status": "pending", ...}` for this call (or, as older sessions recorded it, prose
/// naming the late-answer key and the call's id); anything else is a success.
fn classify(call_id: &str, tool: String, content: &str) -> ToolResultInfo {
    let parsed: Option<Value> = serde_json::from_str(content.trim()).ok();
    let error = parsed.as_ref().and_then(|v| {
        let e = if v.get("code").is_some() { v } else { v.get("error")? };
        let code = e.get("code")?.as_str()?.to_string();
        let message = e.get("message").and_then(Value::as_str).map(str::to_string);
        Some((code, message))
    });
    let status = if error.is_some() {
        ToolStatus::Error
    } else if crate::question::PendingResult::parse(content.trim()).is_some_and(|p| p.call_id == call_id)
        || (parsed.is_none() && content.contains(LATE_ANSWER_KEY) && content.contains(call_id))
    {
        ToolStatus::Pending
    } else {
        ToolStatus::Ok
    };
    let (code, message) = error.map_or((None, None), |(c, m)| (Some(c), m));
    ToolResultInfo { call_id: call_id.to_string(), tool, status, code, message, content: content.to_string() }
}
