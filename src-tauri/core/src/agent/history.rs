//! The one place that turns a session log into the conversation the model sees. A reopened session
//! rebuilds exactly what the model saw before, because every step built it this same way.

use std::collections::HashMap;

use crate::model::{ChatMessage, ToolCallRequest};
use crate::session::{Event, StoredEvent, ToolOutcome};

/// What the model reads for a call whose result was lost when the previous run died.
pub const UNKNOWN_OUTCOME_TEXT: &str = "TOOL_OUTCOME_UNKNOWN: Hark stopped while this tool call was running, so \
its outcome is unknown. If it was ask_user_question, the question stays open: a late answer arrives as a user \
message carrying `answer_to_pending_question`. Do not assume any other effect happened; check before relying on it.";

/// Raw arguments as the model produced them: a recorded string is text that was not valid JSON.
fn raw_arguments(arguments: &serde_json::Value) -> String {
    match arguments {
        serde_json::Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// The text of a recorded tool result.
pub fn outcome_text(outcome: &ToolOutcome) -> String {
    match outcome {
        ToolOutcome::Ok { content } | ToolOutcome::Pending { content } => content.clone(),
        ToolOutcome::Error { error } => error.to_string(),
        ToolOutcome::Unknown => UNKNOWN_OUTCOME_TEXT.to_string(),
    }
}

/// The messages of the conversation recorded in `events`, in order: user messages (including
/// admitted late answers), assistant messages with their tool calls, and tool results.
pub fn history(events: &[StoredEvent]) -> Vec<ChatMessage> {
    let calls: HashMap<&str, (&str, &serde_json::Value)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolCall { call_id, name, arguments } => Some((call_id.as_str(), (name.as_str(), arguments))),
            _ => None,
        })
        .collect();
    let mut messages = Vec::new();
    for stored in events {
        match &stored.event {
            Event::UserMessage { text, .. } => messages.push(ChatMessage::user(text.clone())),
            Event::AssistantMessage { text, reasoning, tool_calls, .. } => {
                let tool_calls = tool_calls
                    .iter()
                    .filter_map(|id| {
                        let (name, arguments) = calls.get(id.as_str())?;
                        Some(ToolCallRequest {
                            id: id.clone(),
                            name: name.to_string(),
                            arguments: raw_arguments(arguments),
                        })
                    })
                    .collect();
                messages.push(ChatMessage::Assistant {
                    content: text.clone(),
                    reasoning: reasoning.clone(),
                    tool_calls,
                });
            }
            Event::ToolResult { call_id, outcome } => {
                messages.push(ChatMessage::tool(call_id.clone(), outcome_text(outcome)))
            }
            Event::SessionCreated { .. }
            | Event::RequestHeader { .. }
            | Event::TurnStarted { .. }
            | Event::ToolCall { .. }
            | Event::InboxQueued { .. }
            | Event::InboxDiscarded { .. }
            | Event::TurnEnded { .. }
            | Event::ModelError { .. } => {}
            // An event only a newer build understands is not part of what this build tells the model.
            Event::Unknown { .. } => {}
        }
    }
    messages
}
