//! The events the benchmarks fill sessions with, shared so every figure is about the same log.

use hark_core::session::{Event, ToolOutcome};
use serde_json::json;

/// A realistic mix of small events: messages, tool calls and results of a few hundred bytes.
pub fn filler(i: usize) -> Event {
    match i % 4 {
        0 => Event::AssistantMessage {
            text: format!("Step {i}: reading the next file and summarising what it does. ").repeat(3),
            reasoning: Some("The user asked for a summary of each module.".into()),
            tool_calls: vec![format!("r{i}")],
            usage: Some(json!({"prompt_tokens": 1200 + i % 97, "completion_tokens": 80})),
        },
        1 => Event::ToolCall {
            call_id: format!("r{}", i - 1),
            name: "read_file".into(),
            arguments: json!({"path": format!("src/module_{}.rs", i % 50)}),
        },
        2 => Event::ToolResult {
            call_id: format!("r{}", i - 2),
            outcome: ToolOutcome::ok("fn main() { println!(\"hello\"); }\n".repeat(8)),
        },
        _ => Event::UserMessage { message_id: format!("m{i}"), text: "Keep going, please.".into(), source: None },
    }
}
