//! What crash repair appends, decided from the log alone.

use crate::session::events::{Event, ToolOutcome, TurnEndReason};

/// The events that close what a dead run left open: a `TOOL_OUTCOME_UNKNOWN` result for every call a
/// `run_code` script made without a result, then for every call without a result (in call order),
/// then an "interrupted" end for every turn without one. Results come first so they land inside the
/// turn they belong to. Empty when nothing is open, which makes
/// repair idempotent.
pub fn repairs_needed<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<Event> {
    let mut fold = RepairFold::default();
    for event in events {
        fold.apply(event);
    }
    fold.needed()
}

/// What is open in a log, one event at a time (for [`repairs_needed`] and for readers that fold a
/// log as they read it).
///
/// A result closes the earliest open call with its id, so a call that reuses the id of a finished
/// one (older logs kept the model's ids as they came) still counts as open.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct RepairFold {
    open_calls: Vec<String>,
    /// Calls of `run_code` scripts (`tool/ptc-dispatch`) without a `tool/ptc-result`.
    #[serde(default)]
    open_children: Vec<String>,
    turns: Vec<String>,
}

impl RepairFold {
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::ToolCall { call_id, .. } => self.open_calls.push(call_id.clone()),
            Event::ToolResult { call_id, .. } => {
                if let Some(i) = self.open_calls.iter().position(|c| c == call_id) {
                    self.open_calls.remove(i);
                }
            }
            Event::PtcDispatch { call_id, .. } => self.open_children.push(call_id.clone()),
            Event::PtcResult { call_id, .. } => {
                if let Some(i) = self.open_children.iter().position(|c| c == call_id) {
                    self.open_children.remove(i);
                }
            }
            Event::TurnStarted { turn_id, .. } => self.turns.push(turn_id.clone()),
            Event::TurnEnded { turn_id, .. } => self.turns.retain(|t| t != turn_id),
            Event::SessionCreated { .. }
            | Event::RequestHeader { .. }
            | Event::UserMessage { .. }
            | Event::AssistantMessage { .. }
            | Event::InboxQueued { .. }
            | Event::InboxDiscarded { .. }
            | Event::ModelError { .. }
            | Event::McpUnavailable { .. }
            | Event::McpForm { .. }
            | Event::AnswersReturned { .. }
            | Event::ClientAsked { .. }
            | Event::QuestionWithdrawn { .. }
            | Event::HistoryCompacted { .. } => {}
            // Whatever a newer build's event leaves open, only that build can close.
            Event::Unknown { .. } => {}
        }
    }

    /// The events that close what is open now.
    pub fn needed(&self) -> Vec<Event> {
        let children =
            self.open_children.iter().map(|c| Event::PtcResult { call_id: c.clone(), outcome: ToolOutcome::Unknown });
        let results =
            self.open_calls.iter().map(|c| Event::ToolResult { call_id: c.clone(), outcome: ToolOutcome::Unknown });
        let ends =
            self.turns.iter().map(|t| Event::TurnEnded { turn_id: t.clone(), reason: TurnEndReason::Interrupted });
        children.chain(results).chain(ends).collect()
    }
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
        let log = [call("call_0"), result("call_0", ToolOutcome::ok("x")), call("call_0")];
        assert_eq!(repairs_needed(&log), [result("call_0", ToolOutcome::Unknown)]);
        let repaired: Vec<Event> = log.iter().cloned().chain(repairs_needed(&log)).collect();
        assert!(repairs_needed(&repaired).is_empty(), "repair stays idempotent");
    }
}
