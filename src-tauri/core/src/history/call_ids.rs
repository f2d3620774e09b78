//! Call ids the log can rely on. Results, the replayed history, the question projection and crash
//! repair all pair a call with its result by id, but the ids are the model's: some servers number
//! calls per response (`call_0`, `call_1`, ...) so a later step repeats them, and some send none.
//! Before a step is recorded, every call whose id is empty or already taken in the session gets a
//! fresh one, and that id is the call's everywhere afterwards.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use crate::model::ToolCallRequest;
use crate::session::Event;

/// The call ids a session log mentions, kept as hashes: a long session holds tens of thousands, and
/// a collision only costs a call a fresh id it did not need.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct CallIds(HashSet<u64>);

fn hash(id: &str) -> u64 {
    // Fixed keys: the same id hashes the same in every run.
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

impl CallIds {
    /// Counts the ids `event` mentions as used.
    pub fn note(&mut self, event: &Event) {
        match event {
            Event::ToolCall { call_id, .. }
            | Event::ToolResult { call_id, .. }
            | Event::PtcDispatch { call_id, .. }
            | Event::PtcResult { call_id, .. } => {
                self.0.insert(hash(call_id));
            }
            Event::AssistantMessage { tool_calls, .. } => self.0.extend(tool_calls.iter().map(|id| hash(id))),
            _ => {}
        }
    }

    fn contains(&self, id: &str) -> bool {
        self.0.contains(&hash(id))
    }

    /// Gives each call an id not used yet and not shared with another call of the batch, keeping the
    /// model's own id when it already is; the ids given out count as used from now on.
    pub fn make_unique(&mut self, calls: &mut [ToolCallRequest]) {
        for call in calls {
            while call.id.is_empty() || self.contains(&call.id) {
                call.id = format!("call_{}", uuid::Uuid::new_v4().simple());
            }
            self.0.insert(hash(&call.id));
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
        let mut used = CallIds::default();
        used.note(&Event::ToolCall { call_id: "call_0".into(), name: "t".into(), arguments: serde_json::json!({}) });
        let mut calls = vec![call("call_0"), call(""), call("call_1"), call("call_1"), call("mine")];
        used.make_unique(&mut calls);
        let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!((ids[2], ids[4]), ("call_1", "mine"), "unique ids are the model's own");
        for replaced in [ids[0], ids[1], ids[3]] {
            assert!(replaced.starts_with("call_") && replaced.len() > "call_".len() + 8, "{replaced}");
        }
        let distinct: HashSet<&str> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), 5, "{ids:?}");
        assert!(!distinct.contains("call_0") && !distinct.contains(""));
        assert!(ids.iter().all(|id| used.contains(id)), "the session's ids now include the batch's");
    }

    #[test]
    fn ids_of_calls_results_and_assistant_messages_count_as_used() {
        let mut used = CallIds::default();
        used.note(&Event::AssistantMessage {
            text: String::new(),
            reasoning: None,
            tool_calls: vec!["a".into()],
            usage: None,
        });
        used.note(&Event::ToolCall { call_id: "b".into(), name: "t".into(), arguments: serde_json::json!({}) });
        used.note(&Event::ToolResult { call_id: "c".into(), outcome: crate::session::ToolOutcome::Unknown });
        assert!(["a", "b", "c"].iter().all(|id| used.contains(id)));
        assert!(!used.contains("d"));
    }
}
