//! The open session as the agent reads it: reopened from a snapshot or from its log, it makes the
//! same request, and late answers come from its records.

use std::sync::Arc;

use chrono::Utc;
use serde_json::json;

use super::{history_keep_tokens, request_of, AgentConfig};
use crate::open_session::*;
use crate::question::{late_answer_text, Answer, AnswerBatch, Question, ToolMode, TOOL_NAME};
use crate::session::{Event, Store};
use crate::session::{MessageSource, ToolOutcome};

fn keep() -> usize {
    history_keep_tokens(&AgentConfig::default())
}

fn question() -> Question {
    serde_json::from_value(json!({
        "id": "db", "header": "Database", "question": "Which database?", "multi_select": false,
        "options": [{"label": "SQLite", "description": "a file"}, {"label": "Postgres", "description": "a server"}]
    }))
    .expect("question")
}

/// A session with finished turns, a question that went on without an answer, and a late answer
/// queued for it.
fn seeded(store: &Arc<Store>) -> String {
    let id = store.create_session("snap", None, None).expect("session");
    let mut events = Vec::new();
    for t in 0..30 {
        let call = format!("read_{t}");
        events.extend([
            Event::TurnStarted { turn_id: format!("t{t}"), run_id: "r".into() },
            Event::UserMessage { message_id: format!("m{t}"), text: format!("step {t}"), source: None },
            Event::AssistantMessage {
                text: String::new(),
                reasoning: None,
                tool_calls: vec![call.clone()],
                usage: None,
            },
            Event::ToolCall { call_id: call.clone(), name: "read_file".into(), arguments: json!({"path": "a"}) },
            Event::ToolResult { call_id: call, outcome: ToolOutcome::ok("x".repeat(3000)) },
            Event::AssistantMessage { text: format!("done {t}"), reasoning: None, tool_calls: vec![], usage: None },
            Event::TurnEnded { turn_id: format!("t{t}"), reason: crate::session::TurnEndReason::Completed },
        ]);
    }
    events.extend([
        Event::RequestHeader {
            tools: vec![TOOL_NAME.into()],
            question_mode: ToolMode::Timed,
            default_timeout_secs: 60,
            stop_turn: false,
        },
        Event::TurnStarted { turn_id: "ask".into(), run_id: "r".into() },
        Event::UserMessage { message_id: "m_ask".into(), text: "ask me".into(), source: None },
        Event::AssistantMessage { text: String::new(), reasoning: None, tool_calls: vec!["q".into()], usage: None },
        Event::ToolCall { call_id: "q".into(), name: TOOL_NAME.into(), arguments: json!({"questions": [question()]}) },
        Event::ToolResult { call_id: "q".into(), outcome: ToolOutcome::pending("pending") },
        Event::TurnEnded { turn_id: "ask".into(), reason: crate::session::TurnEndReason::Completed },
    ]);
    store.append_batch(&id, events).expect("seed");
    id
}

fn late(store: &Store, id: &str) {
    let answers =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }] };
    store
        .append(
            id,
            Event::InboxQueued {
                message_id: "late1".into(),
                text: late_answer_text("q", &crate::question::Intent::Question, &[question()], &answers, None),
                source: MessageSource::question_reply("q", answers.clone()),
            },
        )
        .expect("late answer");
}

/// Everything a reopened session is asked for.
fn state(session: &Session) -> String {
    let request = request_of(session, &AgentConfig::default(), vec![]);
    let transcript = session.transcript(Some(5)).expect("page");
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}",
        request,
        transcript,
        session.question_records(),
        session.queued_messages(),
        session.recorded_settings()
    )
}

fn snapshot_file(dir: &std::path::Path, id: &str) -> std::path::PathBuf {
    dir.join("snapshots").join(format!("{id}.json"))
}

#[test]
fn a_reopened_session_from_its_snapshot_is_the_session_read_from_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let id = seeded(&store);
    let first = Session::open(Arc::clone(&store), &id, keep()).unwrap();
    first.save();
    drop(first);
    assert!(snapshot_file(dir.path(), &id).exists(), "quitting saves a snapshot");
    // Written after the snapshot, by another writer: the next open folds them on top of it.
    late(&store, &id);
    store.append(&id, Event::TurnStarted { turn_id: "open".into(), run_id: "dead".into() }).unwrap();

    let from_snapshot = Session::open(Arc::clone(&store), &id, keep()).unwrap();
    let with = state(&from_snapshot);
    drop(from_snapshot);
    // The same log folded from scratch (the repair the first reopen appended is in the log now).
    std::fs::remove_file(snapshot_file(dir.path(), &id)).unwrap();
    let from_log = Session::open(Arc::clone(&store), &id, keep()).unwrap();
    assert_eq!(with, state(&from_log));
    assert_eq!(from_log.queued_messages().len(), 1, "the late answer waits");
    let ended = store.events(&id).unwrap().into_iter().rev().find_map(|e| match e.event {
        Event::TurnEnded { turn_id, reason } => Some((turn_id, reason)),
        _ => None,
    });
    assert_eq!(
        ended,
        Some(("open".into(), crate::session::TurnEndReason::Interrupted)),
        "repair ran from the snapshot's fold"
    );
}

#[test]
fn a_snapshot_that_is_not_of_this_log_or_unreadable_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let id = seeded(&store);
    let truth = {
        let session = Session::open(Arc::clone(&store), &id, keep()).unwrap();
        session.save();
        state(&session)
    };
    let file = snapshot_file(dir.path(), &id);
    let mut saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    // A snapshot from another copy of the log: its last event was stored at another time. Its folds
    // say the question was answered, which this log never said.
    saved["at"] = json!(Utc::now());
    let records = saved["folds"]["questions"]["slots"].as_array_mut().unwrap();
    records[0]["state"] = json!("settled");
    std::fs::write(&file, serde_json::to_vec(&saved).unwrap()).unwrap();
    assert_eq!(state(&Session::open(Arc::clone(&store), &id, keep()).unwrap()), truth);

    std::fs::write(&file, b"{ not json").unwrap();
    assert_eq!(state(&Session::open(Arc::clone(&store), &id, keep()).unwrap()), truth);
}

#[test]
fn a_late_answers_answers_come_from_its_record_not_from_the_text_the_model_reads() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let id = seeded(&store);
    let session = Session::open(Arc::clone(&store), &id, keep()).unwrap();
    let answers =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }] };
    // The model-facing text says something else entirely; only the recorded answers count.
    let text = "The person picked a database; see the structured answers.".to_string();
    let source = MessageSource::question_reply("q", answers.clone());
    session
        .record_one(Event::InboxQueued { message_id: "late2".into(), text: text.clone(), source: source.clone() })
        .unwrap();
    let queued = session.transcript(Some(1)).unwrap().queued;
    match &queued[..] {
        [crate::session::TranscriptItem::LateAnswer { answers: shown, raw_text, .. }] => {
            assert_eq!((shown.as_ref(), raw_text), (Some(&answers), &None));
        }
        other => panic!("one late answer waits: {other:?}"),
    }
    session.record_one(Event::UserMessage { message_id: "late2".into(), text, source: Some(source) }).unwrap();
    let record = session.question_records().into_iter().find(|r| r.call_id == "q").unwrap();
    assert_eq!(record.answers, Some(answers), "the question settles with the recorded answers");
}

/// The one admission rule: the first admitted reply settles; a later one is still recorded (the
/// person's words are kept) but settles nothing; the same reply twice is recorded once. An outside
/// agent's session used to drop the later reply; Hark's agent recorded it.
#[test]
fn a_reply_admitted_after_another_settled_the_question_is_kept_and_settles_nothing() {
    use crate::service::{SessionLog, SteerMessage, UserQuestionService};
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let id = seeded(&store);
    let session = Session::open(Arc::clone(&store), &id, keep()).unwrap();
    let service = UserQuestionService::new(Arc::clone(&store) as Arc<dyn SessionLog>);
    let pick = |label: &str| AnswerBatch {
        answers: vec![Answer { id: "db".into(), selected: vec![label.into()], custom: None }],
    };
    let message = |message_id: &str, answers: AnswerBatch| SteerMessage {
        message_id: message_id.into(),
        text: late_answer_text("q", &crate::question::Intent::Question, &[question()], &answers, None),
        source: MessageSource::question_reply("q", answers),
    };
    // The first reply is discarded, a second given, then the first admitted anyway.
    let first = service.answer(&id, "q", pick("SQLite")).expect("queued");
    assert!(service.on_discarded(&id, &first.message_id, "removed").expect("discarded"));
    let second = service.answer(&id, "q", pick("Postgres")).expect("queued again");

    assert_eq!(session.admit_reply(&service, message(&first.message_id, pick("SQLite"))).unwrap(), Admission::Settled);
    assert!(!service.is_continued(&id, "q"));
    assert_eq!(
        session.admit_reply(&service, message(&second.message_id, pick("Postgres"))).unwrap(),
        Admission::Recorded
    );
    assert_eq!(session.admit_reply(&service, message(&second.message_id, pick("Postgres"))).unwrap(), Admission::Again);
    let typed = SteerMessage { message_id: "t1".into(), text: "hi".into(), source: MessageSource::typed() };
    assert_eq!(session.admit_reply(&service, typed).unwrap(), Admission::Refused);

    let recorded: Vec<String> = store
        .events(&id)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e.event {
            Event::UserMessage { message_id, source: Some(_), .. } => Some(message_id),
            _ => None,
        })
        .collect();
    assert_eq!(recorded, vec![first.message_id.clone(), second.message_id.clone()], "each once, neither dropped");
    let record = session.question_records().into_iter().find(|r| r.call_id == "q").unwrap();
    assert_eq!(record.answers, Some(pick("SQLite")), "the first admitted reply won");
}
