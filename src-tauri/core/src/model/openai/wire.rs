//! The Chat Completions request body: messages, tools in the `{type:"function", function}` wrapper,
//! the streaming switches and the answer's token limit.

use serde_json::{json, Map, Value};

use super::config::OpenAiConfig;
use crate::model::types::{ChatMessage, ModelRequest, ToolCallRequest};

pub(super) fn request_body(config: &OpenAiConfig, request: &ModelRequest) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), Value::String(config.model.clone()));
    body.insert("messages".into(), request.messages.iter().map(|m| message_json(m)).collect());
    body.insert("stream".into(), Value::Bool(true));
    if config.include_usage {
        body.insert("stream_options".into(), json!({ "include_usage": true }));
    }
    // `max_tokens` rather than OpenAI's newer `max_completion_tokens`: DeepSeek, Ollama, llama.cpp,
    // vLLM and LM Studio all read it.
    if let Some(max_tokens) = config.max_tokens {
        body.insert("max_tokens".into(), max_tokens.into());
    }
    // Several local servers reject an empty `tools` array, so a tool-less request leaves it out.
    if !request.tools.is_empty() {
        body.insert("tools".into(), request.tools.iter().map(tool_json).collect());
    }
    Value::Object(body)
}

fn message_json(message: &ChatMessage) -> Value {
    match message {
        ChatMessage::System { content } => json!({ "role": "system", "content": content }),
        ChatMessage::User { content } => json!({ "role": "user", "content": content }),
        // Reasoning stays out of the history: DeepSeek answers 400 when it is sent back and other
        // servers do not know the field.
        ChatMessage::Assistant { content, reasoning: _, tool_calls } => {
            if tool_calls.is_empty() {
                json!({ "role": "assistant", "content": content })
            } else {
                let content = if content.is_empty() { Value::Null } else { Value::String(content.clone()) };
                json!({
                    "role": "assistant",
                    "content": content,
                    "tool_calls": tool_calls.iter().map(tool_call_json).collect::<Vec<_>>(),
                })
            }
        }
        ChatMessage::Tool { call_id, content } => {
            json!({ "role": "tool", "tool_call_id": call_id, "content": content })
        }
    }
}

fn tool_call_json(call: &ToolCallRequest) -> Value {
    // A call to a parameterless tool can stream no argument text at all; servers expect a JSON object.
    let arguments = if call.arguments.trim().is_empty() { "{}" } else { call.arguments.as_str() };
    json!({
        "id": call.id,
        "type": "function",
        "function": { "name": call.name, "arguments": arguments },
    })
}

/// Wraps `{name, description, parameters}` as an OpenAI function tool; a definition that is already
/// wrapped passes through unchanged.
fn tool_json(tool: &Value) -> Value {
    let already_wrapped =
        tool.get("type").and_then(Value::as_str) == Some("function") && tool.get("function").is_some();
    if already_wrapped {
        tool.clone()
    } else {
        json!({ "type": "function", "function": tool })
    }
}
