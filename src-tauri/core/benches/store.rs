//! Store benchmarks against raw SQLite on the same rows and pragmas. Prints `name value unit` lines.
//!
//! Goals: store append ≥ 0.5× raw inserts; reopening a 100 000-event session as the host does it
//! (`Session::open`: the store opened, the session's snapshot read and the events after it folded,
//! crash repair checked) ≤ 1.5× a raw SELECT of its rows; listing 1 000 sessions < 20 ms. The first
//! open of a log without a snapshot (`reopen_100k_cold_ms`: the whole log read once and folded) and
//! the old way (the whole log read into memory, then the question projection, then the transcript:
//! `reopen_100k_read_only_ms`, `reopen_100k_with_transcript_ms`) are reported beside it.
//! Run with `cargo bench -p hark-core --bench store`.

use hark_core::question::PendingReason;
use std::path::Path;
use std::time::{Duration, Instant};

use hark_core::agent::{history_keep_tokens, AgentConfig};
use hark_core::open_session::Session;
use hark_core::question::{
    answered_result_text, late_answer_text, pending_result_text, Answer, AnswerBatch, Intent, Question, ToolMode,
    TOOL_NAME,
};
use hark_core::session::{
    project_questions, project_transcript, Event, MessageSource, QuestionState, Store, ToolOutcome, DB_FILE,
};
use rusqlite::{params, Connection};

#[path = "support/filler.rs"]
mod filler;
use filler::filler;
use serde_json::json;

const APPENDS: usize = 20_000;
const BIG_SESSION: usize = 100_000;
const QUESTIONS: usize = 1_000;
const SESSIONS: usize = 1_000;
const ROUNDS: usize = 5;
/// The newest turns a window asks for first.
const PAGE_TURNS: usize = 40;

fn main() {
    append_throughput();
    reopen_big_session();
    list_many_sessions();
}

fn report(name: &str, value: f64, unit: &str) {
    println!("{name} {value:.1} {unit}");
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn append_throughput() {
    let mut store_rates = Vec::new();
    let mut raw_rates = Vec::new();
    for _ in 0..ROUNDS {
        let dir = tempfile::tempdir().expect("temp dir");
        let events: Vec<Event> = (0..APPENDS).map(filler).collect();
        let store = Store::open(dir.path()).expect("open");
        let id = store.create_session("bench", None, None).expect("session");
        let start = Instant::now();
        for e in events.iter().cloned() {
            store.append(&id, e).expect("append");
        }
        store_rates.push(APPENDS as f64 / start.elapsed().as_secs_f64());
        drop(store);

        // The same rows, pre-encoded, into the same table of the same file, one autocommit INSERT each.
        let rows: Vec<(String, String)> =
            events.iter().map(|e| (e.type_name().to_string(), serde_json::to_string(e).expect("json"))).collect();
        let conn = raw_connection(&dir.path().join(DB_FILE));
        let mut insert = conn
            .prepare("INSERT INTO events (session_id, seq, at, type, body) VALUES (?1, ?2, ?3, ?4, ?5)")
            .expect("prepare");
        let start = Instant::now();
        for (seq, (kind, body)) in rows.iter().enumerate() {
            insert
                .execute(params!["raw-session", seq as i64 + 1, 1_700_000_000_000_000i64, kind, body])
                .expect("insert");
        }
        raw_rates.push(APPENDS as f64 / start.elapsed().as_secs_f64());
    }
    let (store, raw) = (median(store_rates), median(raw_rates));
    report("store_append_per_s", store, "events/s");
    report("raw_sqlite_append_per_s", raw, "events/s");
    println!("store_vs_raw_append {:.2} x", store / raw);
}

fn raw_connection(path: &Path) -> Connection {
    let conn = Connection::open(path).expect("raw open");
    conn.pragma_update(None, "journal_mode", "WAL").expect("wal");
    conn.pragma_update(None, "synchronous", "NORMAL").expect("sync");
    conn
}

fn bench_questions() -> Vec<Question> {
    serde_json::from_value(json!([
        {"id": "db", "question": "Which database?", "header": "Database",
         "options": [{"label": "SQLite", "description": "embedded"}, {"label": "Postgres"}]},
        {"id": "name", "question": "Project name?"}
    ]))
    .expect("questions")
}

/// 100 000 events with 1 000 questions: a third answered in the foreground, a third answered late
/// after a pending result, a third still continued.
fn big_session_events() -> Vec<Event> {
    let qs = bench_questions();
    let batch = AnswerBatch {
        answers: vec![
            Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None },
            Answer { id: "name".into(), selected: vec![], custom: Some("hark".into()) },
        ],
    };
    let mut events = vec![Event::RequestHeader {
        tools: vec![TOOL_NAME.into(), "read_file".into()],
        question_mode: ToolMode::Timed,
        default_timeout_secs: 120,
        stop_turn: false,
    }];
    let per_question = BIG_SESSION / QUESTIONS;
    for q in 0..QUESTIONS {
        let call = format!("ask{q}");
        let turn = format!("t{q}");
        let mut block = vec![
            Event::TurnStarted { turn_id: turn.clone(), run_id: "run".into() },
            Event::ToolCall { call_id: call.clone(), name: TOOL_NAME.into(), arguments: json!({"questions": qs}) },
        ];
        let late = late_answer_text(&call, &Intent::Question, &qs, &batch, None);
        let reply = MessageSource::question_reply(&call, batch.clone());
        let tail = match q % 3 {
            0 => vec![Event::ToolResult {
                call_id: call.clone(),
                outcome: ToolOutcome::ok(answered_result_text(&batch)),
            }],
            1 => vec![
                Event::ToolResult {
                    call_id: call.clone(),
                    outcome: ToolOutcome::pending(pending_result_text(
                        &call,
                        PendingReason::TimedOut,
                        Duration::from_secs(1),
                    )),
                },
                Event::InboxQueued { message_id: format!("late{q}"), text: late.clone(), source: reply.clone() },
                Event::UserMessage { message_id: format!("late{q}"), text: late, source: Some(reply) },
            ],
            _ => vec![Event::ToolResult {
                call_id: call.clone(),
                outcome: ToolOutcome::pending(pending_result_text(
                    &call,
                    PendingReason::TimedOut,
                    Duration::from_secs(1),
                )),
            }],
        };
        let used = block.len() + tail.len() + 1;
        block.extend((0..per_question.saturating_sub(used)).map(|i| filler(q * per_question + i + 4)));
        block.extend(tail);
        block.push(Event::TurnEnded { turn_id: turn, reason: hark_core::session::TurnEndReason::Completed });
        events.extend(block);
    }
    events.truncate(BIG_SESSION - 1); // plus session/created = 100 000
    events
}

fn reopen_big_session() {
    // HARK_BENCH_KEEP=<dir> keeps the 100 000-event database there, for profiling the read path.
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = match std::env::var_os("HARK_BENCH_KEEP") {
        Some(keep) => {
            std::fs::create_dir_all(&keep).expect("keep dir");
            std::path::PathBuf::from(keep)
        }
        None => temp.path().to_path_buf(),
    };
    let id = {
        let store = Store::open(&dir).expect("open");
        let id = store.create_session("big", None, None).expect("session");
        for chunk in big_session_events().chunks(5_000) {
            store.append_batch(&id, chunk.to_vec()).expect("append");
        }
        id
    };
    // The host closes what the seeding left open (its last turn) the first time it opens the session.
    let keep = history_keep_tokens(&AgentConfig::default());
    let expected = {
        let store = std::sync::Arc::new(Store::open(&dir).expect("open"));
        let repaired = Session::open(std::sync::Arc::clone(&store), &id, keep).expect("session");
        drop(repaired);
        store.events(&id).expect("events").len()
    };
    let mut reopen_old = Vec::new();
    let mut session_open = Vec::new();
    let mut session_cold = Vec::new();
    let (mut page_ms, mut page_kb) = (Vec::new(), 0.0);
    let mut read_only = Vec::new();
    let mut with_transcript = Vec::new();
    let mut list_ms = Vec::new();
    let mut raw = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let store = Store::open(&dir).expect("reopen");
        let events = store.events(&id).expect("events");
        let read_done = start.elapsed();
        let questions = project_questions(&events);
        let reopened = start.elapsed();
        let transcript = project_transcript(&events);
        let total = start.elapsed();
        assert_eq!(events.len(), expected);
        assert_eq!(questions.len(), QUESTIONS);
        assert!(questions.iter().any(|q| q.state == QuestionState::Continued && q.timed));
        assert_eq!(transcript.turns.len(), QUESTIONS);
        reopen_old.push(ms(reopened));
        read_only.push(ms(read_done));
        with_transcript.push(ms(total));
        drop((events, questions, transcript, store));

        // The first open of a log nothing has snapshotted yet (it saves one as it ends)...
        let _ = std::fs::remove_dir_all(dir.join("snapshots"));
        let start = Instant::now();
        let store = std::sync::Arc::new(Store::open(&dir).expect("reopen"));
        let session = Session::open(store, &id, keep).expect("session");
        session_cold.push(ms(start.elapsed()));
        drop(session);
        // ...and every open after it, which reads that snapshot and the events after it.
        let start = Instant::now();
        let store = std::sync::Arc::new(Store::open(&dir).expect("reopen"));
        let session = Session::open(store, &id, keep).expect("session");
        session_open.push(ms(start.elapsed()));
        assert_eq!(session.question_records().len(), QUESTIONS);
        let start = Instant::now();
        let page = session.transcript(Some(PAGE_TURNS)).expect("page");
        let json = serde_json::to_string(&page).expect("json");
        page_ms.push(ms(start.elapsed()));
        page_kb = json.len() as f64 / 1024.0;
        // The sessions list, as start-up (tray, window) reads it with this session in the store.
        let start = Instant::now();
        let list = session.store().list_sessions().expect("list");
        list_ms.push(ms(start.elapsed()));
        assert_eq!(list.first().map(|s| s.event_count), Some(expected as u64));
        drop(session);

        let start = Instant::now();
        let conn = Connection::open(dir.join(DB_FILE)).expect("raw open");
        let mut stmt =
            conn.prepare("SELECT seq, at, body FROM events WHERE session_id = ?1 ORDER BY seq").expect("prepare");
        let rows: Vec<(i64, i64, String)> = stmt
            .query_map([&id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows");
        raw.push(ms(start.elapsed()));
        assert_eq!(rows.len(), expected);
    }
    let (reopen, raw) = (median(session_open), median(raw));
    report("reopen_100k_ms", reopen, "ms");
    report("reopen_100k_cold_ms", median(session_cold.clone()), "ms");
    println!("reopen_cold_vs_raw_scan {:.2} x", median(session_cold) / raw);
    report("reopen_100k_read_and_questions_ms", median(reopen_old), "ms");
    report("page_100k_ms", median(page_ms), "ms");
    report("page_100k_json_kb", page_kb, "KiB");
    report("list_sessions_100k_ms", median(list_ms), "ms");
    report("reopen_100k_read_only_ms", median(read_only), "ms");
    report("reopen_100k_with_transcript_ms", median(with_transcript), "ms");
    report("raw_scan_100k_ms", raw, "ms");
    println!("reopen_vs_raw_scan {:.2} x", reopen / raw);
}

fn list_many_sessions() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path()).expect("open");
    for s in 0..SESSIONS {
        let id = store.create_session(&format!("session {s}"), Some("/work"), None).expect("session");
        let call = format!("ask{s}");
        store
            .append_batch(
                &id,
                vec![
                    Event::ToolCall {
                        call_id: call.clone(),
                        name: TOOL_NAME.into(),
                        arguments: json!({"questions": bench_questions()}),
                    },
                    Event::ToolResult {
                        call_id: call.clone(),
                        outcome: ToolOutcome::pending(pending_result_text(
                            &call,
                            PendingReason::TimedOut,
                            Duration::from_secs(1),
                        )),
                    },
                ],
            )
            .expect("append");
    }
    drop(store);
    let store = Store::open(dir.path()).expect("reopen");
    let times: Vec<f64> = (0..ROUNDS * 4)
        .map(|_| {
            let start = Instant::now();
            let list = store.list_sessions().expect("list");
            let t = ms(start.elapsed());
            assert_eq!(list.len(), SESSIONS);
            assert!(list.iter().all(|s| s.continued_questions == 1));
            t
        })
        .collect();
    report("list_sessions_1k_ms", median(times), "ms");
}
