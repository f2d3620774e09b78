//! What every request is built from, kept in memory: the session's events read once when the agent
//! opens, then each event the agent records as it is written. A step used to read the whole log back
//! from SQLite; a long session paid for that on every step.
//!
//! Only what a request is built from is kept (messages, calls, results, the question header, and
//! compactions); the rest of the log (turn marks, inbox bookkeeping written by the service, errors)
//! stays on disk, so the copy costs about the model-facing text and no more.

use crate::session::{Event, StoredEvent};

#[derive(Debug, Default)]
pub(super) struct Recorded {
    events: Vec<StoredEvent>,
}

/// Whether a request, a call id or the header check ever reads this event.
fn builds_requests(event: &Event) -> bool {
    matches!(
        event,
        Event::UserMessage { .. }
            | Event::AssistantMessage { .. }
            | Event::ToolCall { .. }
            | Event::ToolResult { .. }
            | Event::RequestHeader { .. }
            | Event::HistoryCompacted { .. }
    )
}

/// The copy kept: token usage is for the log's readers, not for the model.
fn kept(stored: &StoredEvent) -> StoredEvent {
    let mut kept = stored.clone();
    if let Event::AssistantMessage { usage, .. } = &mut kept.event {
        *usage = None;
    }
    kept
}

impl Recorded {
    pub(super) fn new(events: &[StoredEvent]) -> Recorded {
        let mut recorded = Recorded::default();
        recorded.extend(events);
        recorded
    }

    /// Adds events just written to the log, in their order.
    pub(super) fn extend<'a>(&mut self, stored: impl IntoIterator<Item = &'a StoredEvent>) {
        self.events.extend(stored.into_iter().filter(|s| builds_requests(&s.event)).map(kept));
    }

    pub(super) fn events(&self) -> &[StoredEvent] {
        &self.events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::history;

    fn stored(seq: u64, event: Event) -> StoredEvent {
        StoredEvent { session_id: "s".into(), seq, at: chrono::Utc::now(), event }
    }

    #[test]
    fn the_copy_builds_the_same_history_as_the_whole_log() {
        let log = vec![
            stored(1, Event::SessionCreated { title: "t".into(), workspace: None, model: None }),
            stored(2, Event::TurnStarted { turn_id: "t1".into(), run_id: "r".into() }),
            stored(3, Event::UserMessage { message_id: "m".into(), text: "go".into(), source: None }),
            stored(
                4,
                Event::AssistantMessage {
                    text: "a".into(),
                    reasoning: None,
                    tool_calls: vec!["c1".into()],
                    usage: Some(serde_json::json!({"total_tokens": 9})),
                },
            ),
            stored(5, Event::ToolCall { call_id: "c1".into(), name: "t".into(), arguments: serde_json::json!({}) }),
            stored(6, Event::ModelError { error: serde_json::json!({"code": "X"}) }),
            stored(7, Event::ToolResult { call_id: "c1".into(), outcome: crate::session::ToolOutcome::Unknown }),
            stored(8, Event::TurnEnded { turn_id: "t1".into(), reason: "completed".into() }),
        ];
        let recorded = Recorded::new(&log);
        assert_eq!(recorded.events().iter().map(|e| e.seq).collect::<Vec<_>>(), [3, 4, 5, 7]);
        assert_eq!(history(recorded.events()), history(&log));
        assert!(recorded.events().iter().all(|e| !matches!(&e.event, Event::AssistantMessage { usage: Some(_), .. })));
    }
}
