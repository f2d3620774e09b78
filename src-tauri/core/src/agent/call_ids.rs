//! Call ids the log can rely on. Results, the replayed history, the question projection and crash
//! repair all pair a call with its result by id, but the ids are the model's: some servers number
//! calls per response (`call_0`, `call_1`, ...) so a later step repeats them, and some send none.
//! Before a step is recorded, every call whose id is empty or already taken in the session gets a
//! fresh one, and that id is the call's everywhere afterwards.

use std::collections::HashSet;

use crate::model::ToolCallRequest;
use crate::session::{Event, StoredEvent};

/// Every call id a session log mentions.
pub(super) fn used(events: &[StoredEvent]) -> HashSet<String> {
    let mut ids = HashSet::new();
    for stored in events {
        match &stored.event {
            Event::ToolCall { call_id, .. } | Event::ToolResult { call_id, .. } => {
                ids.insert(call_id.clone());
            }
            Event::AssistantMessage { tool_calls, .. } => ids.extend(tool_calls.iter().cloned()),
            _ => {}
        }
    }
    ids
}

/// Gives each call an id not in `used` and not shared with another call of the batch, keeping the
/// model's own id when it already is; `used` gains the ids given out.
pub(super) fn make_unique(calls: &mut [ToolCallRequest], used: &mut HashSet<String>) {
    for call in calls {
        if call.id.is_empty() || used.contains(&call.id) {
            call.id = fresh(used);
        }
        used.insert(call.id.clone());
    }
}

fn fresh(used: &HashSet<String>) -> String {
    loop {
        let id = format!("call_{}", uuid::Uuid::new_v4().simple());
        if !used.contains(&id) {
            return id;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> ToolCallRequest {
        ToolCallRequest { id: id.into(), name: "t".into(), arguments: "{}".into() }
    }

    #[test]
    fn empty_reused_and_repeated_ids_are_replaced_and_the_rest_kept() {
        let mut used: HashSet<String> = ["call_0".to_string()].into();
        let mut calls = vec![call("call_0"), call(""), call("call_1"), call("call_1"), call("mine")];
        make_unique(&mut calls, &mut used);
        let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!((ids[2], ids[4]), ("call_1", "mine"), "unique ids are the model's own");
        for replaced in [ids[0], ids[1], ids[3]] {
            assert!(replaced.starts_with("call_") && replaced.len() > "call_".len() + 8, "{replaced}");
        }
        let distinct: HashSet<&str> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), 5, "{ids:?}");
        assert!(!distinct.contains("call_0") && !distinct.contains(""));
        assert_eq!(used.len(), 6, "the session's ids now include the batch's");
    }

    #[test]
    fn ids_of_calls_results_and_assistant_messages_count_as_used() {
        let stored = |event| StoredEvent { session_id: "s".into(), seq: 1, at: chrono::Utc::now(), event };
        let events = [
            stored(Event::AssistantMessage {
                text: String::new(),
                reasoning: None,
                tool_calls: vec!["a".into()],
                usage: None,
            }),
            stored(Event::ToolCall { call_id: "b".into(), name: "t".into(), arguments: serde_json::json!({}) }),
            stored(Event::ToolResult { call_id: "c".into(), outcome: crate::session::ToolOutcome::Unknown }),
        ];
        assert_eq!(used(&events), ["a", "b", "c"].map(String::from).into());
    }
}
