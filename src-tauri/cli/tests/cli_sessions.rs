//! Runs the real `hark` binary against a store in a temporary data directory.

use std::path::Path;
use std::process::{Command, Output};

use hark_core::question::{answered_result_text, AnswerBatch, ToolMode, TOOL_NAME};
use hark_core::session::{Event, Store, ToolOutcome, DB_FILE};
use serde_json::{json, Value};

fn hark(data_dir: &Path, args: &[&str]) -> Output {
    match Command::new(env!("CARGO_BIN_EXE_hark")).args(args).env("HARK_DATA_DIR", data_dir).output() {
        Ok(out) => out,
        Err(e) => panic!("could not run hark: {e}"),
    }
}

fn stdout_ok(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}, stderr: {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn json_ok(out: &Output) -> Value {
    serde_json::from_str(&stdout_ok(out)).unwrap()
}

fn ask(call_id: &str) -> Event {
    Event::ToolCall {
        call_id: call_id.into(),
        name: TOOL_NAME.into(),
        arguments: json!({"questions": [
            {"id": "db", "question": "Which database?", "options": [{"label": "SQLite"}, {"label": "Postgres"}]}
        ]}),
    }
}

/// One session with an answered, a continued and an open question; one quiet session.
fn populated(dir: &Path) -> (String, String) {
    let store = Store::open(dir).unwrap();
    let quiet = store.create_session("quiet one", None, None).unwrap();
    let busy = store.create_session("busy \u{1b}[31mred", Some("/work"), None).unwrap();
    let answers: AnswerBatch =
        serde_json::from_value(json!({"answers": [{"id": "db", "selected": ["SQLite"]}]})).unwrap();
    store
        .append_batch(
            &busy,
            vec![
                Event::RequestHeader {
                    tools: vec![TOOL_NAME.into()],
                    question_mode: ToolMode::Timed,
                    default_timeout_secs: 120,
                    stop_turn: false,
                },
                Event::TurnStarted { turn_id: "t1".into(), run_id: "r1".into() },
                Event::UserMessage { message_id: "m1".into(), text: "pick\u{1b}[2J a db".into(), source: None },
                ask("c-answered"),
                Event::ToolResult {
                    call_id: "c-answered".into(),
                    outcome: ToolOutcome::ok(answered_result_text(&answers)),
                },
                ask("c-continued"),
                Event::ToolResult { call_id: "c-continued".into(), outcome: ToolOutcome::pending("later") },
                ask("c-open"),
            ],
        )
        .unwrap();
    (busy, quiet)
}

#[test]
fn sessions_on_an_empty_data_dir_lists_nothing_and_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("never-used");
    assert_eq!(json_ok(&hark(&dir, &["sessions", "--json"])), json!([]));
    assert_eq!(stdout_ok(&hark(&dir, &["sessions"])), "no sessions\n");
    assert!(!dir.exists(), "a read-only command must not create the data directory");
}

#[test]
fn sessions_lists_counts_as_json_and_as_a_table() {
    let tmp = tempfile::tempdir().unwrap();
    let (busy, quiet) = populated(tmp.path());
    let list = json_ok(&hark(tmp.path(), &["sessions", "--json"]));
    let rows: Vec<(&str, u64, u64, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let n = |k: &str| s[k].as_u64().unwrap();
            (s["id"].as_str().unwrap(), n("event_count"), n("open_questions"), n("continued_questions"))
        })
        .collect();
    assert_eq!(rows, [(busy.as_str(), 9, 1, 1), (quiet.as_str(), 1, 0, 0)]);

    let table = stdout_ok(&hark(tmp.path(), &["sessions"]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(lines[1].starts_with(&busy) && lines[2].starts_with(&quiet));
    assert!(!table.contains('\u{1b}'), "escape sequences from titles never reach the terminal");
    assert!(lines[1].contains("busy \\u{1b}[31mred"));
}

#[test]
fn show_prints_every_event_as_json_or_one_line_each() {
    let tmp = tempfile::tempdir().unwrap();
    let (busy, _) = populated(tmp.path());
    let stored = Store::open(tmp.path()).unwrap().events(&busy).unwrap();
    let json = json_ok(&hark(tmp.path(), &["show", &busy, "--json"]));
    assert_eq!(json, serde_json::to_value(&stored).unwrap());

    let text = stdout_ok(&hark(tmp.path(), &["show", &busy]));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), stored.len());
    let types: Vec<&str> = lines.iter().map(|l| l.split_whitespace().nth(3).unwrap()).collect();
    assert_eq!(types, stored.iter().map(|e| e.event.type_name()).collect::<Vec<_>>());
    assert!(lines[7].contains("c-continued") && lines[7].ends_with("pending"), "{}", lines[7]);
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn a_unique_prefix_names_a_session() {
    let tmp = tempfile::tempdir().unwrap();
    let (busy, _) = populated(tmp.path());
    let by_prefix = json_ok(&hark(tmp.path(), &["show", &busy[..8], "--json"]));
    assert_eq!(by_prefix, json_ok(&hark(tmp.path(), &["show", &busy, "--json"])));
}

#[test]
fn questions_prints_the_projection() {
    let tmp = tempfile::tempdir().unwrap();
    let (busy, quiet) = populated(tmp.path());
    let json = json_ok(&hark(tmp.path(), &["questions", &busy, "--json"]));
    let shape: Vec<(&str, &str, bool)> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|q| (q["call_id"].as_str().unwrap(), q["state"].as_str().unwrap(), q["timed"].as_bool().unwrap()))
        .collect();
    assert_eq!(shape, [("c-answered", "settled", true), ("c-continued", "continued", true), ("c-open", "open", true)]);
    assert_eq!(json[0]["answers"], json!({"answers": [{"id": "db", "selected": ["SQLite"]}]}));
    assert_eq!(json[1]["answers"], Value::Null);
    assert_eq!(json[0]["questions"][0]["id"], "db");

    let text = stdout_ok(&hark(tmp.path(), &["questions", &busy]));
    assert!(text.contains("c-continued  continued  keeps working after a timeout"), "{text}");
    assert!(text.contains("answer: SQLite"), "{text}");
    assert_eq!(stdout_ok(&hark(tmp.path(), &["questions", &quiet])), "no questions\n");
}

#[test]
fn an_unknown_session_exits_2_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    populated(tmp.path());
    for command in ["show", "questions"] {
        let out = hark(tmp.path(), &[command, "no-such-session"]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("no-such-session") && stderr.contains("not found"), "{stderr}");
        assert!(out.stdout.is_empty());
    }
    // The same with no store at all.
    let empty = tmp.path().join("empty");
    assert_eq!(hark(&empty, &["show", "x"]).status.code(), Some(2));
}

#[test]
fn a_corrupt_store_is_reported_not_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let garbage = b"not a database at all".repeat(10);
    std::fs::write(tmp.path().join(DB_FILE), &garbage).unwrap();
    let out = hark(tmp.path(), &["sessions"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(DB_FILE) && stderr.contains("left untouched"), "{stderr}");
    assert!(std::fs::read(tmp.path().join(DB_FILE)).unwrap() == garbage);
}

#[test]
fn usage_mistakes_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [&["show"][..], &["questions", "a", "b"], &["sessions", "--bogus"]] {
        assert_eq!(hark(tmp.path(), args).status.code(), Some(2), "{args:?}");
    }
}
