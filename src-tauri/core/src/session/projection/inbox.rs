//! The session inbox: messages accepted for the agent (typed by the person, or late answers) that
//! it has not admitted yet. A message waits from its `inbox/queued` until a `user/message` with the
//! same id admits it or an `inbox/discarded` drops it; nothing else (a turn ending, a Quit, crash
//! repair) takes it out. Reopening a session admits what still waits, in the order it was queued.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::questions::QuestionFold;
use crate::session::events::{Event, MessageSource, StoredEvent};

/// One waiting message as its `inbox/queued` recorded it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueuedMessage {
    pub seq: u64,
    pub at: DateTime<Utc>,
    pub message_id: String,
    pub text: String,
    pub source: MessageSource,
}

/// The inbox of one session, built one event at a time.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct InboxFold {
    /// In queue order. Short: messages leave it as soon as the agent reaches a step boundary.
    waiting: Vec<QueuedMessage>,
}

impl InboxFold {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn apply(&mut self, stored: &StoredEvent) {
        match &stored.event {
            Event::InboxQueued { message_id, text, source } => {
                // Only kinds this build can admit; a newer build's kind stays that build's to handle.
                let known = source.is_typed() || source.reply_call_id().is_some();
                if known && !self.waiting.iter().any(|m| m.message_id == *message_id) {
                    self.waiting.push(QueuedMessage {
                        seq: stored.seq,
                        at: stored.at,
                        message_id: message_id.clone(),
                        text: text.clone(),
                        source: source.clone(),
                    });
                }
            }
            Event::UserMessage { message_id, .. } | Event::InboxDiscarded { message_id, .. } => {
                self.waiting.retain(|m| m.message_id != *message_id);
            }
            _ => {}
        }
    }

    /// The messages still waiting, given the question fold of the same events. A late answer waits
    /// only while it holds its question's reservation: one that no longer does (its question was
    /// settled by another reply, or it was replaced) would answer nothing, and first wins.
    pub fn waiting<'a>(&'a self, questions: &'a QuestionFold) -> impl Iterator<Item = &'a QueuedMessage> {
        self.waiting.iter().filter(move |m| match m.source.reply_call_id() {
            Some(call_id) => {
                questions.get(call_id).and_then(|r| r.reply_queued.as_deref()) == Some(m.message_id.as_str())
            }
            None => true,
        })
    }
}

/// The messages of a session log that wait for admission, in the order they were queued.
pub fn queued_messages(events: &[StoredEvent]) -> Vec<QueuedMessage> {
    let mut inbox = InboxFold::new();
    let mut questions = QuestionFold::new();
    for stored in events {
        questions.apply_stored(stored);
        inbox.apply(stored);
    }
    inbox.waiting(&questions).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(seq: u64, event: Event) -> StoredEvent {
        StoredEvent { session_id: "s".into(), seq, at: Utc::now(), event }
    }

    fn typed(id: &str) -> Event {
        Event::InboxQueued { message_id: id.into(), text: format!("text {id}"), source: MessageSource::typed() }
    }

    fn ids(events: &[Event]) -> Vec<String> {
        let log: Vec<StoredEvent> = events.iter().cloned().enumerate().map(|(i, e)| stored(i as u64 + 1, e)).collect();
        queued_messages(&log).into_iter().map(|m| m.message_id).collect()
    }

    #[test]
    fn a_message_waits_until_admitted_or_discarded_whatever_ends_in_between() {
        let log = [
            Event::TurnStarted { turn_id: "t".into(), run_id: "r".into() },
            typed("a"),
            typed("b"),
            typed("c"),
            Event::TurnEnded { turn_id: "t".into(), reason: crate::session::TurnEndReason::Interrupted },
            Event::UserMessage { message_id: "b".into(), text: "text b".into(), source: None },
            Event::InboxDiscarded { message_id: "c".into(), reason: "the person removed it".into() },
            typed("a"),
        ];
        assert_eq!(ids(&log), ["a"], "queued twice, still waits once, in its first place");
    }

    #[test]
    fn a_late_answer_waits_only_while_it_holds_its_question() {
        let ask = Event::ToolCall {
            call_id: "c1".into(),
            name: crate::question::TOOL_NAME.into(),
            arguments: serde_json::json!({"questions": [{"id": "db", "question": "Which?",
                "options": [{"label": "A"}, {"label": "B"}]}]}),
        };
        let pending =
            Event::ToolResult { call_id: "c1".into(), outcome: crate::session::ToolOutcome::pending("later") };
        let reply = |id: &str| Event::InboxQueued {
            message_id: id.into(),
            text: "reply".into(),
            source: MessageSource::question_reply("c1", crate::question::AnswerBatch { answers: Vec::new() }),
        };
        assert_eq!(ids(&[ask.clone(), pending.clone(), reply("m1")]), ["m1"]);
        // A reply to a question that never went pending holds nothing and answers nothing.
        assert!(ids(&[ask.clone(), reply("m1")]).is_empty());
        // A later reply took the reservation over (a log written while turn ends still released it).
        assert_eq!(ids(&[ask, pending, reply("m1"), reply("m2")]), ["m2"]);
    }

    #[test]
    fn a_kind_this_build_does_not_know_is_left_alone() {
        // As a newer build's row reads.
        let source: MessageSource =
            serde_json::from_value(serde_json::json!({"kind": "future-kind", "call_id": "", "outcome": "later"}))
                .unwrap();
        assert_eq!(
            (source.kind, source.outcome),
            (crate::session::SourceKind::Other, crate::session::SourceOutcome::Other)
        );
        let log = [Event::InboxQueued { message_id: "f".into(), text: "x".into(), source }];
        assert!(ids(&log).is_empty());
    }
}
