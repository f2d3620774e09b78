//! The store on real files: schema versions, refusing files it must not touch, sessions, crash repair.

mod store_common;

use std::path::Path;

use hark_core::error::CodedError;
use hark_core::question::ToolMode;
use hark_core::session::{
    project_questions, Event, QuestionState, Store, StoreError, ToolOutcome, DB_FILE, SCHEMA_VERSION,
};
use rusqlite::Connection;
use store_common::*;

fn user_version(dir: &Path) -> i64 {
    Connection::open(dir.join(DB_FILE)).unwrap().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap()
}

fn companions(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn fresh_store_gets_the_latest_schema_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.path(), dir.path().join(DB_FILE));
    assert_eq!(user_version(dir.path()), SCHEMA_VERSION);
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    assert!(store.list_sessions().unwrap().is_empty());
}

#[test]
fn reopening_keeps_sessions_and_appending_continues_the_sequence() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open(dir.path()).unwrap();
        let id = store.create_session("first", Some("/work"), None).unwrap();
        store.append(&id, user("m1", "hello")).unwrap();
        id
    };
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(user_version(dir.path()), SCHEMA_VERSION);
    let next = store.append_batch(&id, vec![user("m2", "a"), user("m3", "b")]).unwrap();
    assert_eq!(next.iter().map(|e| e.seq).collect::<Vec<_>>(), [3, 4]);
    let events = store.events(&id).unwrap();
    assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(
        events[0].event,
        Event::SessionCreated {
            title: "first".into(),
            workspace: Some("/work".into()),
            model: None,
            client: None,
            started_by: None,
        }
    );
    assert_eq!(&events[2..], &next[..], "what append returned is what is read back");
}

#[test]
fn a_newer_schema_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    {
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        // Fold the WAL into the main file so the byte comparison below covers everything.
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    }
    let before = std::fs::read(dir.path().join(DB_FILE)).unwrap();
    let err = Store::open(dir.path()).err().expect("a newer schema must be refused");
    assert_eq!(err.code(), "SCHEMA_TOO_NEW");
    let msg = err.to_string();
    assert!(msg.contains(DB_FILE) && msg.contains(&(SCHEMA_VERSION + 1).to_string()), "{msg}");
    assert!(std::fs::read(dir.path().join(DB_FILE)).unwrap() == before, "the file changed");
    assert_eq!(user_version(dir.path()), SCHEMA_VERSION + 1);
}

fn assert_refused_as_corrupt(dir: &Path, contents: &[u8]) {
    let path = dir.join(DB_FILE);
    std::fs::write(&path, contents).unwrap();
    let err = Store::open(dir).err().expect("a corrupt file must be refused");
    assert_eq!(err.code(), "STORE_CORRUPT");
    assert!(err.to_string().contains(&path.display().to_string()), "names the file: {err}");
    let json = serde_json::to_value(err.boundary()).unwrap();
    assert_eq!((json["name"].as_str(), json["code"].as_str()), (Some("StoreError"), Some("STORE_CORRUPT")));
    assert!(std::fs::read(&path).unwrap() == contents, "the file must stay byte-for-byte untouched");
    assert_eq!(companions(dir), [DB_FILE.to_string()], "no -wal/-shm created next to it");
}

#[test]
fn a_file_that_is_not_sqlite_is_reported_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    assert_refused_as_corrupt(dir.path(), b"these are my notes, not a database\n".repeat(200).as_slice());
}

#[test]
fn a_damaged_sqlite_file_is_reported_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // A real SQLite header followed by garbage: SQLite itself must be the one to notice.
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend((0..8192u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
    let path = dir.path().join(DB_FILE);
    std::fs::write(&path, &bytes).unwrap();
    let err = Store::open(dir.path()).err().expect("a damaged file must be refused");
    assert_eq!(err.code(), "STORE_CORRUPT", "{err}");
    assert!(err.to_string().contains(&path.display().to_string()));
    assert!(std::fs::read(&path).unwrap() == bytes, "the file changed");
}

#[test]
fn another_programs_database_is_not_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(DB_FILE);
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(dir.path()).err().expect("a foreign database must be refused");
    assert_eq!(err.code(), "STORE_CORRUPT");
    assert!(std::fs::read(&path).unwrap() == before, "the file changed");
}

#[test]
fn unknown_sessions_are_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let codes: Vec<&str> = [
        store.events("nope").err(),
        store.append("nope", user("m", "x")).err(),
        store.append_batch("nope", vec![]).err(),
        store.repair_after_crash("nope").err(),
    ]
    .iter()
    .map(|e| e.as_ref().map_or("ok", StoreError::code))
    .collect();
    assert_eq!(codes, ["NOT_FOUND"; 4]);
    let err = store.events("nope").unwrap_err();
    assert_eq!(serde_json::to_value(err.boundary()).unwrap()["message"], "session nope not found");
}

#[test]
fn list_sessions_reports_counts_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let quiet = store.create_session("quiet", None, None).unwrap();
    let busy = store.create_session("busy", None, None).unwrap();
    store
        .append_batch(
            &busy,
            vec![header(ToolMode::Timed), ask("c1", &["db"]), ask("c2", &["db"]), ask("c3", &["db"]), pending("c2")],
        )
        .unwrap();
    store.append(&busy, answered("c3", &answers(&["db"], "A"))).unwrap();
    let list = store.list_sessions().unwrap();
    let rows: Vec<(&str, u64, u32, u32)> =
        list.iter().map(|s| (s.title.as_str(), s.event_count, s.open_questions, s.continued_questions)).collect();
    assert_eq!(rows, [("busy", 7, 1, 1), ("quiet", 1, 0, 0)]);
    assert_eq!(list[0].id, busy);
    assert_eq!(list[1].id, quiet);
    assert!(list[0].updated_at >= list[0].created_at);
    let json = serde_json::to_value(&list[0]).unwrap();
    assert_eq!(json["open_questions"], 1);
}

#[test]
fn counters_stay_right_when_a_reopened_store_appends() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open(dir.path()).unwrap();
        let id = store.create_session("s", None, None).unwrap();
        store.append_batch(&id, vec![ask("c1", &["db"]), ask("c2", &["db"])]).unwrap();
        id
    };
    // The new writer has no fold for this session yet; its first append must rebuild it from disk.
    let store = Store::open(dir.path()).unwrap();
    store.append(&id, pending("c1")).unwrap();
    let s = &store.list_sessions().unwrap()[0];
    assert_eq!((s.open_questions, s.continued_questions, s.event_count), (1, 1, 4));
}

#[test]
fn crash_repair_closes_what_a_dead_run_left_open() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open(dir.path()).unwrap();
        let id = store.create_session("s", None, None).unwrap();
        store
            .append_batch(
                &id,
                vec![
                    header(ToolMode::Timed),
                    turn_started("t1"),
                    Event::ToolCall {
                        call_id: "r1".into(),
                        name: "read_file".into(),
                        arguments: serde_json::json!({}),
                    },
                    result("r1", ToolOutcome::ok("x")),
                    ask("c1", &["db"]),
                    Event::ToolCall {
                        call_id: "r2".into(),
                        name: "list_files".into(),
                        arguments: serde_json::json!({}),
                    },
                ],
            )
            .unwrap();
        assert_eq!(store.list_sessions().unwrap()[0].open_questions, 1);
        id
    };
    // A new process: the run above is dead.
    let store = Store::open(dir.path()).unwrap();
    let appended = store.repair_after_crash(&id).unwrap();
    let events: Vec<&Event> = appended.iter().map(|e| &e.event).collect();
    assert_eq!(
        events,
        [&result("c1", ToolOutcome::Unknown), &result("r2", ToolOutcome::Unknown), &turn_ended("t1", "interrupted")]
    );
    assert_eq!(appended.iter().map(|e| e.seq).collect::<Vec<_>>(), [8, 9, 10]);
    assert!(store.repair_after_crash(&id).unwrap().is_empty(), "idempotent");

    let records = project_questions(&store.events(&id).unwrap());
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].state, records[0].timed), (QuestionState::Continued, true));
    let s = &store.list_sessions().unwrap()[0];
    assert_eq!((s.open_questions, s.continued_questions, s.event_count), (0, 1, 10));
}

#[test]
fn repair_of_a_clean_session_appends_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_session("s", None, None).unwrap();
    store.append_batch(&id, vec![turn_started("t1"), user("m1", "hi"), turn_ended("t1", "completed")]).unwrap();
    assert!(store.repair_after_crash(&id).unwrap().is_empty());
    assert_eq!(store.events(&id).unwrap().len(), 4);
}

#[test]
fn an_empty_batch_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_session("s", None, None).unwrap();
    assert!(store.append_batch(&id, vec![]).unwrap().is_empty());
    assert_eq!(store.list_sessions().unwrap()[0].event_count, 1);
}

#[test]
fn two_stores_on_one_directory_keep_one_gapless_log() {
    // Only one process should host a data directory, but if two writers ever meet, the seq check in the
    // append transaction keeps the log consistent instead of trusting a stale cache.
    let dir = tempfile::tempdir().unwrap();
    let a = Store::open(dir.path()).unwrap();
    let b = Store::open(dir.path()).unwrap();
    let id = a.create_session("s", None, None).unwrap();
    a.append(&id, ask("c1", &["db"])).unwrap();
    b.append(&id, pending("c1")).unwrap();
    a.append(&id, user("m1", "x")).unwrap();
    let seqs: Vec<u64> = a.events(&id).unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    let s = &a.list_sessions().unwrap()[0];
    assert_eq!((s.open_questions, s.continued_questions), (0, 1));
}

#[test]
fn a_long_log_reads_back_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let id = store.create_session("long", None, None).unwrap();
    let events: Vec<Event> = (0..20_000).map(|i| user(&format!("m{i}"), &"x".repeat(i % 300))).collect();
    for chunk in events.chunks(4_000) {
        store.append_batch(&id, chunk.to_vec()).unwrap();
    }
    let back = Store::open(dir.path()).unwrap().events(&id).unwrap();
    assert_eq!(back.len(), 20_001);
    assert!(back.iter().enumerate().all(|(i, e)| e.seq == i as u64 + 1));
    assert!(back[1..].iter().map(|e| &e.event).eq(events.iter()));
}

#[test]
fn a_row_that_does_not_decode_is_reported_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let short = store.create_session("short", None, None).unwrap();
    let long = store.create_session("long", None, None).unwrap();
    store.append_batch(&short, vec![user("m", "a"), user("m2", "b")]).unwrap();
    store.append_batch(&long, (0..10_000).map(|i| user(&format!("m{i}"), "b")).collect()).unwrap();
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    let break_row = "UPDATE events SET body = '{\"type\":\"user/message\"' WHERE session_id = ?1 AND seq = ?2";
    conn.execute(break_row, rusqlite::params![short, 2]).unwrap();
    conn.execute(break_row, rusqlite::params![long, 9000]).unwrap();
    for id in [&short, &long] {
        let err = store.events(id).unwrap_err();
        // One row of one session, not the whole file.
        assert_eq!(err.code(), "EVENT_UNREADABLE");
        let seq = if id == &short { "event 2 " } else { "event 9000 " };
        assert!(err.to_string().contains(seq) && err.to_string().contains(id.as_str()), "{err}");
    }
}
