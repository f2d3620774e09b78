//! Event builders shared by the store tests.
#![allow(dead_code)]

use chrono::Utc;
use hark_core::question::PendingReason;
use hark_core::question::{
    answered_result_text, late_answer_text, pending_result_text, Answer, AnswerBatch, Intent, Question, ToolMode,
    TOOL_NAME,
};
use hark_core::session::{project_questions, Event, MessageSource, QuestionState, Store, StoredEvent, ToolOutcome};
use serde_json::{json, Value};
use std::time::Duration;

pub fn questions(ids: &[&str]) -> Vec<Question> {
    serde_json::from_value(ask_args(ids)["questions"].clone()).unwrap()
}

pub fn ask_args(ids: &[&str]) -> Value {
    let qs: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "question": format!("Which {id}?"), "options": [{"label": "A"}, {"label": "B"}]}))
        .collect();
    json!({ "questions": qs })
}

/// Every question answered with `label`.
pub fn answers(ids: &[&str], label: &str) -> AnswerBatch {
    AnswerBatch {
        answers: ids
            .iter()
            .map(|id| Answer { id: id.to_string(), selected: vec![label.to_string()], custom: None })
            .collect(),
    }
}

pub fn header(mode: ToolMode) -> Event {
    Event::RequestHeader {
        tools: vec![TOOL_NAME.to_string()],
        question_mode: mode,
        default_timeout_secs: 120,
        stop_turn: false,
    }
}

pub fn ask(call_id: &str, ids: &[&str]) -> Event {
    Event::ToolCall { call_id: call_id.into(), name: TOOL_NAME.into(), arguments: ask_args(ids) }
}

pub fn result(call_id: &str, outcome: ToolOutcome) -> Event {
    Event::ToolResult { call_id: call_id.into(), outcome }
}

pub fn pending(call_id: &str) -> Event {
    result(call_id, ToolOutcome::pending(pending_result_text(call_id, PendingReason::TimedOut, Duration::from_secs(1))))
}

/// An answered question's result as the tool records it: the model's text and the answers.
pub fn answered(call_id: &str, batch: &AnswerBatch) -> Event {
    result(call_id, ToolOutcome::Ok { content: answered_result_text(batch), answers: Some(batch.clone()) })
}

pub fn failed(call_id: &str, code: &str) -> Event {
    result(
        call_id,
        ToolOutcome::Error { error: hark_core::error::BoundaryError::new("UserInteractionError", code, "x") },
    )
}

pub fn late_text(call_id: &str, ids: &[&str], batch: &AnswerBatch) -> String {
    late_answer_text(call_id, &Intent::Question, &questions(ids), batch, None)
}

/// A late answer's source as logs before answers were recorded with it have it: the answers are in
/// the text only.
pub fn legacy_reply(call_id: &str) -> MessageSource {
    MessageSource { answers: None, ..MessageSource::question_reply(call_id, AnswerBatch { answers: Vec::new() }) }
}

pub fn queued(message_id: &str, call_id: &str, text: &str) -> Event {
    Event::InboxQueued { message_id: message_id.into(), text: text.into(), source: legacy_reply(call_id) }
}

pub fn discarded(message_id: &str) -> Event {
    Event::InboxDiscarded { message_id: message_id.into(), reason: "cancelled".into() }
}

pub fn admitted(message_id: &str, call_id: &str, text: &str) -> Event {
    Event::UserMessage { message_id: message_id.into(), text: text.into(), source: Some(legacy_reply(call_id)) }
}

pub fn user(message_id: &str, text: &str) -> Event {
    Event::UserMessage { message_id: message_id.into(), text: text.into(), source: None }
}

pub fn turn_started(turn_id: &str) -> Event {
    Event::TurnStarted { turn_id: turn_id.into(), run_id: "run-1".into() }
}

/// `reason` as it is stored ("completed", "interrupted"...).
pub fn turn_ended(turn_id: &str, reason: &str) -> Event {
    let reason = hark_core::session::TurnEndReason::parse(reason).expect("a stored turn end reason");
    Event::TurnEnded { turn_id: turn_id.into(), reason }
}

pub fn created(title: &str) -> Event {
    Event::SessionCreated { title: title.into(), workspace: None, model: None, client: None, started_by: None }
}

/// Events as they would be stored, without a store.
pub fn in_memory(events: &[Event]) -> Vec<StoredEvent> {
    std::iter::once(created("mem"))
        .chain(events.iter().cloned())
        .enumerate()
        .map(|(i, event)| StoredEvent { session_id: "mem".into(), seq: i as u64 + 1, at: Utc::now(), event })
        .collect()
}

/// The same events written to a real store (single appends and batches mixed), read back by a fresh
/// `Store`. Also checks the summary counters kept during appends against the projection.
pub fn from_disk(events: &[Event]) -> Vec<StoredEvent> {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open(dir.path()).unwrap();
        let id = store.create_session("disk", None, None).unwrap();
        // Mix single appends and batches: both paths must fold the same way.
        for (i, chunk) in events.chunks(2).enumerate() {
            if i % 2 == 0 {
                for e in chunk {
                    store.append(&id, e.clone()).unwrap();
                }
            } else {
                store.append_batch(&id, chunk.to_vec()).unwrap();
            }
        }
        id
    };
    let store = Store::open(dir.path()).unwrap();
    let stored = store.events(&id).unwrap();
    let records = project_questions(&stored);
    let summary = store.list_sessions().unwrap().into_iter().find(|s| s.id == id).unwrap();
    let count = |state| records.iter().filter(|r| r.state == state).count() as u32;
    assert_eq!(summary.open_questions, count(QuestionState::Open), "open counter");
    assert_eq!(summary.continued_questions, count(QuestionState::Continued), "continued counter");
    assert_eq!(summary.event_count, events.len() as u64 + 1);
    let stored_events: Vec<&Event> = stored.iter().skip(1).map(|e| &e.event).collect();
    assert_eq!(stored_events, events.iter().collect::<Vec<_>>(), "events read back unchanged");
    stored
}
