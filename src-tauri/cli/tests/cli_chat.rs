//! `hark chat` and `hark answer` driven as real processes: answers typed on piped stdin, the timed
//! flow ending in a late answer, the answer exit codes, and the data-directory lock.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_core::question::{Answer, AnswerBatch};
use hark_core::service::{SessionLog, UserQuestionService};
use hark_core::session::{project_questions, Store};
use serde_json::Value;

fn command(data_dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hark"));
    cmd.args(args)
        .env("HARK_DATA_DIR", data_dir)
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn spawn(data_dir: &Path, args: &[&str]) -> Child {
    command(data_dir, args).stdin(Stdio::piped()).spawn().unwrap()
}

fn hark(data_dir: &Path, args: &[&str]) -> Output {
    command(data_dir, args).stdin(Stdio::null()).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn only_session(data_dir: &Path) -> String {
    let out = hark(data_dir, &["sessions", "--json"]);
    let sessions: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sessions.as_array().unwrap().len(), 1);
    sessions[0]["id"].as_str().unwrap().to_string()
}

fn questions(data_dir: &Path, session: &str) -> Value {
    let out = hark(data_dir, &["questions", session, "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn chat_batch_is_answered_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(dir.path(), &["chat", "--script", "batch", "go"]);
    // A wrong line first: it is refused with a reason and the question asked again.
    child.stdin.take().unwrap().write_all(b"7\n2\n1,3\n/other hark-demo\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("there is no option 7"), "{stdout}");
    assert!(stdout.contains("2. Postgres — A server; better with many writers"), "{stdout}");
    assert!(stdout.contains(r#"db: "Postgres"; extras: "Docs", "CI workflow"; name: "hark-demo""#), "{stdout}");
    assert!(text(&out.stderr).contains("Demo model"));
    let session = only_session(dir.path());
    let q = questions(dir.path(), &session);
    assert_eq!(q[0]["state"], "settled");
    assert_eq!(q[0]["answers"]["answers"][2]["custom"], "hark-demo");
}

/// Runs the timed demo with stdin open but silent, so its 5 s question goes pending.
fn timed_chat(data: &Path, workspace: &Path) -> (String, String) {
    let mut child =
        spawn(data, &["chat", "--script", "timed", "--timed", "--workspace", workspace.to_str().unwrap(), "go"]);
    let stdin = child.stdin.take();
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    (only_session(data), stdout)
}

#[test]
fn timed_question_then_late_answer_with_exit_codes() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let (session, stdout) = timed_chat(data.path(), workspace.path());
    assert!(stdout.contains("withdrawn"), "{stdout}");
    assert!(workspace.path().join("hark-notes.md").exists());
    let q = questions(data.path(), &session);
    assert_eq!(q[0]["state"], "continued");
    let call_id = q[0]["call_id"].as_str().unwrap().to_string();

    let bad = hark(data.path(), &["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["Nope"]}]}"#]);
    assert_eq!(bad.status.code(), Some(4));
    let err: Value = serde_json::from_slice(&bad.stderr).unwrap();
    assert_eq!(err["code"], "BAD_ANSWER");

    let good = hark(data.path(), &["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["SQLite"]}]}"#]);
    assert_eq!(good.status.code(), Some(0), "{}", text(&good.stderr));
    assert!(text(&good.stdout).contains(r#"Your answer to my earlier question arrived: db: "SQLite""#));

    let again =
        hark(data.path(), &["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["SQLite"]}]}"#]);
    assert_eq!(again.status.code(), Some(3));
    assert_eq!(serde_json::from_slice::<Value>(&again.stderr).unwrap()["code"], "NOT_PENDING");

    let q = questions(data.path(), &session);
    assert_eq!(q[0]["state"], "settled");
    assert_eq!(q[0]["answered_late"], true);
    assert_eq!(q[0]["answers"]["answers"][0]["selected"][0], "SQLite");
}

#[test]
fn a_second_reply_while_one_is_queued_exits_5() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let (session, _) = timed_chat(data.path(), workspace.path());
    // Another surface queued a reply that no agent admitted yet.
    {
        let store = Arc::new(Store::open(data.path()).unwrap());
        let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
        let records = project_questions(&store.events(&session).unwrap());
        let batch =
            AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }] };
        service.answer(&session, &records[0].call_id, batch).unwrap();
    }
    let call_id = questions(data.path(), &session)[0]["call_id"].as_str().unwrap().to_string();
    let out = hark(data.path(), &["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["SQLite"]}]}"#]);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert_eq!(serde_json::from_slice::<Value>(&out.stderr).unwrap()["code"], "REPLY_QUEUED");
}

#[test]
fn a_second_host_of_the_data_directory_gets_a_clear_error() {
    let data = tempfile::tempdir().unwrap();
    let mut first = spawn(data.path(), &["chat", "--script", "hello"]);
    let lock = data.path().join("hark.lock");
    let started = Instant::now();
    // Polls: the lock file belongs to another process, which emits nothing this test could wait on.
    while std::fs::read_to_string(&lock).map(|s| s.trim().is_empty()).unwrap_or(true) {
        assert!(started.elapsed() < Duration::from_secs(20), "the first chat never took the lock");
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = hark(data.path(), &["chat", "hi"]);
    assert_eq!(second.status.code(), Some(1));
    let err: Value = serde_json::from_slice(&second.stderr).unwrap();
    assert_eq!(err["code"], "DATA_DIR_BUSY");
    assert!(err["message"].as_str().unwrap().contains(&first.id().to_string()), "{err}");
    drop(first.stdin.take());
    assert!(first.wait().unwrap().success());
}

#[test]
fn stdin_closing_during_a_question_aborts_it_and_exits_cleanly() {
    let data = tempfile::tempdir().unwrap();
    let out = hark(data.path(), &["chat", "--script", "batch", "go"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let session = only_session(data.path());
    let shown = hark(data.path(), &["show", &session, "--json"]);
    let events: Value = serde_json::from_slice(&shown.stdout).unwrap();
    let events = events.as_array().unwrap();
    let result = events.iter().find(|e| e["type"] == "tool/result").unwrap();
    assert_eq!(result["outcome"]["error"]["code"], "ASK_ABORTED");
    assert_eq!(events.last().unwrap()["reason"], "aborted");
    assert_eq!(events.iter().filter(|e| e["type"] == "assistant/message").count(), 1, "no step after the abort");
}

/// Every host serves the front door: while `hark chat` hosts the data directory and waits for an
/// answer, `hark answer` from another terminal settles the question there (it used to be refused
/// `DATA_DIR_BUSY`), and the running chat's model receives it.
#[test]
fn hark_answer_beside_a_running_hark_chat_settles_its_question() {
    let data = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path().to_str().unwrap();
    let mut chat =
        spawn(data.path(), &["chat", "--script", "timed", "--timed", "--timeout", "600", "--workspace", ws, "go"]);
    let stdin = chat.stdin.take();
    let started = Instant::now();
    // Polls: the question is asked by another process, seen only through `hark sessions` and the log.
    let (session, call_id) = loop {
        assert!(started.elapsed() < Duration::from_secs(30), "the chat never asked");
        let listed = hark(data.path(), &["sessions", "--json"]);
        let sessions: Value = serde_json::from_slice(&listed.stdout).unwrap_or(Value::Null);
        if let Some(id) = sessions.get(0).and_then(|s| s["id"].as_str()) {
            let q = questions(data.path(), id);
            if let Some(call) = q.get(0).filter(|q| q["state"] == "open").and_then(|q| q["call_id"].as_str()) {
                break (id.to_string(), call.to_string());
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let answered =
        hark(data.path(), &["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["SQLite"]}]}"#]);
    let said = text(&answered.stdout);
    assert_eq!(answered.status.code(), Some(0), "{said}\n{}", text(&answered.stderr));
    assert!(said.contains("answered while it waited"), "{said}");
    // Polls the child's exit, bounded, so a chat that never ends fails the test instead of hanging it.
    while chat.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            chat.kill().unwrap();
            panic!("the chat did not end once answered");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    let out = chat.wait_with_output().unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains(r#"You answered in time: db: "SQLite""#), "{stdout}");
    let q = questions(data.path(), &session);
    assert_eq!((q[0]["state"].as_str(), q[0]["answered_late"].as_bool()), (Some("settled"), Some(false)), "{q}");
}

/// Runs `hark` with stdin open but silent and kills it after `limit`, so a run that would wait
/// forever fails the test instead of hanging it.
fn hark_within(data_dir: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = spawn(data_dir, args);
    let stdin = child.stdin.take();
    let started = Instant::now();
    // Polls the child's exit: std offers no wait with a time limit.
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!("hark {args:?} still ran after {limit:?}\n{}\n{}", text(&out.stdout), text(&out.stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn a_timeout_beyond_the_limit_is_a_usage_error() {
    let data = tempfile::tempdir().unwrap();
    for huge in ["10000000000000000000", "604801", "0"] {
        // The blocking script omits `timeout`, so the option's value would become the deadline.
        let args = ["chat", "--provider", "demo", "--script", "blocking", "--timed", "--timeout", huge, "x"];
        let out = hark_within(data.path(), &args, Duration::from_secs(20));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{huge}: {stderr}");
        assert!(stderr.contains(&format!("--timeout \"{huge}\": seconds from 1 to 604800")), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// `hark chat` parses the options the app parses, with the same checks (a script that does not
/// exist was taken and failed only once the model was built).
#[test]
fn the_shared_options_are_checked_as_the_app_checks_them() {
    let data = tempfile::tempdir().unwrap();
    for (args, says) in [
        (&["chat", "--script", "nope", "x"][..], "--script \"nope\": one of"),
        (&["chat", "--provider", "gpt", "x"][..], "--provider \"gpt\": use demo or openai"),
        (&["chat", "--model"][..], "a value is required for '--model <NAME>'"),
    ] {
        let out = hark_within(data.path(), args, Duration::from_secs(20));
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// What the desktop app does while it hosts a data directory: holds the lock and answers on the
/// control socket the way its own panel does.
#[cfg(unix)]
mod while_the_app_hosts {
    use super::*;
    use hark_core::control::{self, Reply, Request};
    use hark_core::host::Host;
    use hark_core::service::ForwardingProvider;
    // Sessions keep the model they recorded; a new one would get the demo's default script.
    use hark_test_support::models::DemoModels;

    #[test]
    fn hark_answer_goes_to_the_running_app_and_the_first_answer_wins() {
        let data = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let (session, _) = timed_chat(data.path(), workspace.path());
        let call_id = questions(data.path(), &session)[0]["call_id"].as_str().unwrap().to_string();

        let runtime = tokio::runtime::Runtime::new().unwrap();
        let _entered = runtime.enter();
        let (surface, requests) = ForwardingProvider::new();
        let host = Arc::new(Host::start(data.path(), Arc::new(surface), Arc::new(DemoModels::default())).unwrap());
        let answering = Arc::clone(&host);
        let server = control::serve(
            data.path(),
            // Answers only queue here (the app would also admit them), so the test sees the queue.
            Arc::new(move |request, _gone| {
                let reply = match request {
                    Request::Answer { session, call_id, answers, path } => {
                        let answered = answering
                            .resolve(&session)
                            .and_then(|id| answering.answer(&id, &call_id, answers, path).map(|path| (id, path)));
                        match answered {
                            Ok((session_id, path)) => Reply::Answered { session_id, path },
                            Err(e) => Reply::Refused { error: e.into() },
                        }
                    }
                    other => panic!("the CLI sends only answers, not {other:?}"),
                };
                control::single(std::future::ready(reply))
            }),
        )
        .unwrap();

        let sqlite = r#"{"answers":[{"id":"db","selected":["SQLite"]}]}"#;
        let out = hark(data.path(), &["answer", &session[..8], &call_id, sqlite]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains("answered late"), "{}", text(&out.stdout));
        let q = questions(data.path(), &session);
        assert_eq!(q[0]["state"], "continued");
        assert!(q[0]["reply_queued"].is_string(), "queued in the app's session: {q}");

        let postgres = r#"{"answers":[{"id":"db","selected":["Postgres"]}]}"#;
        let second = hark(data.path(), &["answer", &session, &call_id, postgres]);
        assert_eq!(second.status.code(), Some(5), "{}", text(&second.stderr));
        assert_eq!(serde_json::from_slice::<Value>(&second.stderr).unwrap()["code"], "REPLY_QUEUED");
        let bad =
            hark(data.path(), &["answer", &session, &call_id, r#"{"answers":[{"id":"db","selected":["Nope"]}]}"#]);
        assert_eq!(bad.status.code(), Some(5), "the reservation is checked first, as in the window");

        drop(server);
        let busy = hark(data.path(), &["answer", &session, &call_id, sqlite]);
        assert_eq!(busy.status.code(), Some(1));
        assert_eq!(serde_json::from_slice::<Value>(&busy.stderr).unwrap()["code"], "DATA_DIR_BUSY");
        drop(requests);
        drop(host);
    }
}
