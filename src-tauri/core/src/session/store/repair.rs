//! What crash repair appends, decided from the log alone.

use crate::session::events::{Event, ToolOutcome};

/// The events that close what a dead run left open: a `TOOL_OUTCOME_UNKNOWN` result for every call
/// without a result (in call order), then an "interrupted" end for every turn without one. Results
/// come first so they land inside the turn they belong to. Empty when nothing is open, which makes
/// repair idempotent.
///
/// A result closes the earliest open call with its id, so a call that reuses the id of a finished
/// one (older logs kept the model's ids as they came) still counts as open.
pub fn repairs_needed<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<Event> {
    let mut open_calls: Vec<&str> = Vec::new();
    let mut turns: Vec<&str> = Vec::new();
    for event in events {
        match event {
            Event::ToolCall { call_id, .. } => open_calls.push(call_id),
            Event::ToolResult { call_id, .. } => {
                if let Some(i) = open_calls.iter().position(|c| c == call_id) {
                    open_calls.remove(i);
                }
            }
            Event::TurnStarted { turn_id, .. } => turns.push(turn_id),
            Event::TurnEnded { turn_id, .. } => turns.retain(|t| t != turn_id),
            Event::SessionCreated { .. }
            | Event::RequestHeader { .. }
            | Event::UserMessage { .. }
            | Event::AssistantMessage { .. }
            | Event::InboxQueued { .. }
            | Event::InboxDiscarded { .. }
            | Event::ModelError { .. }
            | Event::HistoryCompacted { .. } => {}
            // Whatever a newer build's event leaves open, only that build can close.
            Event::Unknown { .. } => {}
        }
    }
    let results =
        open_calls.into_iter().map(|c| Event::ToolResult { call_id: c.to_string(), outcome: ToolOutcome::Unknown });
    let ends =
        turns.into_iter().map(|t| Event::TurnEnded { turn_id: t.to_string(), reason: "interrupted".to_string() });
    results.chain(ends).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> Event {
        Event::ToolCall { call_id: id.into(), name: "t".into(), arguments: serde_json::json!({}) }
    }

    fn result(id: &str, outcome: ToolOutcome) -> Event {
        Event::ToolResult { call_id: id.into(), outcome }
    }

    #[test]
    fn a_call_reusing_the_id_of_a_finished_one_is_still_closed() {
        // Logs written before the agent gave calls unique ids can hold a server's `call_0` twice.
        let log = [call("call_0"), result("call_0", ToolOutcome::Ok { content: "x".into() }), call("call_0")];
        assert_eq!(repairs_needed(&log), [result("call_0", ToolOutcome::Unknown)]);
        let repaired: Vec<Event> = log.iter().cloned().chain(repairs_needed(&log)).collect();
        assert!(repairs_needed(&repaired).is_empty(), "repair stays idempotent");
    }
}
