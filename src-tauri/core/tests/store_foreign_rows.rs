//! Rows this build did not write the way it reads them. An event type from a newer Hark is kept
//! and skipped, so its session stays usable; a damaged row of a known type is an error that names
//! its session and row and leaves every other session alone.

mod store_common;

use std::path::Path;
use std::sync::Arc;

use hark_core::agent::{history, Agent, AgentConfig, AgentDeps};
use hark_core::error::CodedError;
use hark_core::model::DemoProvider;
use hark_core::question::ToolMode;
use hark_core::service::{SessionLog, UserQuestionService};
use hark_core::session::{project_questions, project_transcript, Event, Store, StoredEvent, DB_FILE};
use hark_core::tools::QuestionSettings;
use rusqlite::{params, Connection};
use serde_json::json;
use store_common::*;

const FUTURE_BODY: &str = r#"{"type":"future/thing","call_id":"c1","detail":{"x":1}}"#;

/// Inserts a row after the session's last event, as another build writing the file would.
fn insert_row(dir: &Path, session: &str, type_name: &str, body: &str) -> u64 {
    let conn = Connection::open(dir.join(DB_FILE)).unwrap();
    let seq: i64 =
        conn.query_row("SELECT max(seq) FROM events WHERE session_id = ?1", [session], |r| r.get(0)).unwrap();
    let at = chrono::Utc::now().timestamp_micros();
    conn.execute(
        "INSERT INTO events (session_id, seq, at, type, body) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![session, seq + 1, at, type_name, body],
    )
    .unwrap();
    (seq + 1) as u64
}

/// A session with a continued question, then a row of a type this build does not know.
fn session_with_a_future_row(dir: &Path) -> (String, u64) {
    let store = Store::open(dir).unwrap();
    let id = store.create_session("s", None, None).unwrap();
    store
        .append_batch(&id, vec![header(ToolMode::Timed), user("m1", "hi"), ask("c1", &["db"]), pending("c1")])
        .unwrap();
    let seq = insert_row(dir, &id, "future/thing", FUTURE_BODY);
    (id, seq)
}

fn without_seq(events: &[StoredEvent], seq: u64) -> Vec<StoredEvent> {
    events.iter().filter(|e| e.seq != seq).cloned().collect()
}

#[test]
fn an_event_type_from_a_newer_build_is_skipped_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    let (id, seq) = session_with_a_future_row(dir.path());
    let store = Store::open(dir.path()).unwrap();
    // The writer folds the log from disk before appending after the row.
    store.append(&id, user("m2", "still there")).unwrap();

    let events = store.events(&id).unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6, 7]);
    let body: serde_json::Value = serde_json::from_str(FUTURE_BODY).unwrap();
    let future = Event::Unknown { type_name: "future/thing".into(), body: body.clone() };
    assert_eq!(events[seq as usize - 1].event, future);
    assert_eq!(future.type_name(), "future/thing");
    // Shown as it was stored, e.g. by `hark show --json`.
    let shown = serde_json::to_value(&events[seq as usize - 1]).unwrap();
    assert_eq!((&shown["type"], &shown["detail"], &shown["seq"]), (&body["type"], &body["detail"], &json!(seq)));
    let known = without_seq(&events, seq);
    assert_eq!(project_questions(&events), project_questions(&known));
    assert_eq!(project_questions(&events).len(), 1);
    assert_eq!(project_transcript(&events), project_transcript(&known));
    assert_eq!(history(&events), history(&known));
    let summary = store.list_sessions().unwrap().into_iter().find(|s| s.id == id).unwrap();
    assert_eq!((summary.event_count, summary.continued_questions), (7, 1));
    assert!(store.repair_after_crash(&id).unwrap().is_empty());
}

#[test]
fn an_event_of_an_unknown_type_is_never_appended() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_session("s", None, None).unwrap();
    let future = Event::Unknown { type_name: "future/thing".into(), body: json!({ "type": "future/thing" }) };
    let err = store.append_batch(&id, vec![user("m1", "hi"), future.clone()]).unwrap_err();
    assert_eq!(err.code(), "UNKNOWN_EVENT_TYPE");
    assert!(err.to_string().contains("future/thing"), "{err}");
    assert_eq!(serde_json::to_value(err.boundary()).unwrap()["name"], "StoreError");
    assert_eq!(store.events(&id).unwrap().len(), 1, "the batch is stored whole or not at all");
    assert_eq!(store.append(&id, future).unwrap_err().code(), "UNKNOWN_EVENT_TYPE");
    // A type this build knows, dressed as unknown, is refused all the same.
    let dressed = Event::Unknown { type_name: "user/message".into(), body: json!({ "message_id": "m", "text": "x" }) };
    assert_eq!(store.append(&id, dressed).unwrap_err().code(), "UNKNOWN_EVENT_TYPE");
    assert_eq!(store.events(&id).unwrap().len(), 1);
}

#[tokio::test]
async fn a_session_with_an_event_type_from_a_newer_build_opens_and_runs_a_turn() {
    let dir = tempfile::tempdir().unwrap();
    let (id, seq) = session_with_a_future_row(dir.path());
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
    let deps = AgentDeps {
        store: store.clone(),
        service: service.clone(),
        model: Arc::new(DemoProvider::new("hello").unwrap()),
    };
    let config = AgentConfig {
        questions: QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 120, stop_turn: false },
        ..AgentConfig::default()
    };
    let agent = Agent::open(deps, &id, config).unwrap();
    assert_eq!(service.continued(&id).len(), 1, "the continued question is loaded");
    agent.steer("hello again").unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(20), agent.wait_idle()).await.unwrap();
    let events = store.events(&id).unwrap();
    let turn = project_transcript(&events).turns.pop().unwrap();
    assert_eq!(turn.ended.map(|e| e.reason.as_str()), Some("completed"));
    assert_eq!(history(&events), history(&without_seq(&events, seq)));
}

#[test]
fn a_damaged_row_of_a_known_type_names_its_session_and_row_and_spares_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let damaged = store.create_session("damaged", None, None).unwrap();
    let fine = store.create_session("fine", None, None).unwrap();
    store.append(&damaged, user("m1", "hi")).unwrap();
    store.append(&fine, user("m1", "hi")).unwrap();
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    conn.execute(
        "UPDATE events SET body = '{\"type\":\"user/message\",\"text\":7}' WHERE session_id = ?1 AND seq = 2",
        [&damaged],
    )
    .unwrap();

    let err = store.events(&damaged).unwrap_err();
    assert_eq!(err.code(), "EVENT_UNREADABLE", "{err}");
    let message = err.to_string();
    for part in [damaged.as_str(), "event 2", "user/message"] {
        assert!(message.contains(part), "names {part}: {message}");
    }
    assert!(!message.contains("move it aside") && !message.contains("empty store"), "{message}");
    let json = serde_json::to_value(err.boundary()).unwrap();
    assert_eq!((json["name"].as_str(), json["code"].as_str()), (Some("StoreError"), Some("EVENT_UNREADABLE")));
    // The other session and the sessions list are unaffected.
    assert_eq!(store.events(&fine).unwrap().len(), 2);
    assert_eq!(store.list_sessions().unwrap().len(), 2);
}
