//! `hark mcp` as a real process under the official Python MCP client (tests/mcp/ask_client.py),
//! with no app to forward to: its tools are listed under the command line's schema, and a call
//! that cannot reach an app fails at once with a coded error instead of hanging. The window's side
//! (questions shown, answered, returned late) is in the e2e tests.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs the Python agent against `hark mcp FLAGS` with `commands`, returning the steps it printed.
fn agent(data: &Path, flags: &[&str], commands: &[&str]) -> Vec<Value> {
    agent_with(data, flags, commands, &data.join("no-such-hark-desktop"), &[])
}

/// [`agent`] with `desktop` as the app `hark mcp` starts, and `env` set for the agent.
fn agent_with(data: &Path, flags: &[&str], commands: &[&str], desktop: &Path, env: &[(&str, &str)]) -> Vec<Value> {
    let mcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp");
    let python = mcp.join(".venv/bin/python");
    assert!(python.exists(), "the Python MCP SDK is not installed: run `make test` ({})", python.display());
    let mut child = Command::new(python)
        .arg(mcp.join("ask_client.py"))
        .arg(env!("CARGO_BIN_EXE_hark"))
        .args(flags)
        .env("HARK_DATA_DIR", data)
        // No app runs here; `desktop` is what `hark mcp` would start.
        .env("HARK_DESKTOP", desktop)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the Python agent");
    let mut stdin = child.stdin.take().unwrap();
    for command in commands.iter().chain(&["quit"]) {
        writeln!(stdin, "{command}").unwrap();
    }
    let steps: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    steps
}

#[test]
#[cfg_attr(windows, ignore = "the agent is the Python MCP SDK in a Linux venv, which Wine cannot run")]
fn its_tools_follow_the_command_line_and_a_call_without_an_app_fails_with_a_code() {
    let data = tempfile::tempdir().unwrap();
    let steps = agent(data.path(), &["--timed", "--timeout", "30"], &["tools", "ask", "answers"]);
    assert_eq!(steps[0]["step"], "ready");
    assert_eq!(steps[1]["names"], serde_json::json!(["ask_user_question", "get_answers", "withdraw_question"]));
    assert!(steps[1]["ask_parameters"].as_array().unwrap().contains(&"timeout".into()), "timed: {}", steps[1]);
    for step in &steps[2..4] {
        assert_eq!(step["is_error"], true, "{step}");
        let error = &step["structured"]["error"];
        assert_eq!(error["code"], "CONTROL_IO", "{step}");
        assert!(error["message"].as_str().unwrap().contains("could not start"), "{step}");
    }

    let blocking = agent(data.path(), &["--blocking"], &["tools"]);
    assert!(!blocking[1]["ask_parameters"].as_array().unwrap().contains(&"timeout".into()), "{}", blocking[1]);
}

#[test]
fn a_bad_flag_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_hark")).args(["mcp", "--timeout", "30"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--timeout goes with --timed"));
}

#[test]
#[cfg_attr(windows, ignore = "the agent is the Python MCP SDK in a Linux venv and the stand-in app a shell script")]
fn the_app_hark_mcp_starts_does_not_get_the_calling_agents_secrets() {
    let data = tempfile::tempdir().unwrap();
    // A stand-in for the app: it writes down its environment and exits without answering.
    let desktop = data.path().join("fake-desktop");
    let seen = data.path().join("seen-env");
    std::fs::write(&desktop, format!("#!/bin/sh\nenv > '{}'\n", seen.display())).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(&desktop, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let secrets = [("OPENAI_API_KEY", "sk-agents-own"), ("SOME_SERVICE_TOKEN", "t0ken"), ("DISPLAY", ":42")];
    let steps = agent_with(data.path(), &["--timed"], &["ask"], &desktop, &secrets);
    assert_eq!(steps[1]["is_error"], true, "the stand-in never answers: {}", steps[1]);
    let env = std::fs::read_to_string(&seen).expect("the app was started");
    let names: Vec<&str> = env.lines().filter_map(|l| l.split_once('=').map(|(k, _)| k)).collect();
    assert!(names.contains(&"HARK_DATA_DIR") && names.contains(&"PATH"), "{names:?}");
    assert!(env.contains("DISPLAY=:42"), "what a window needs goes: {env}");
    assert!(!env.contains("sk-agents-own") && !env.contains("t0ken"), "the agent's secrets stay: {env}");
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the agent is the Python MCP SDK in a Linux venv, which Wine cannot run")]
async fn an_app_that_goes_before_it_replies_is_a_coded_error_naming_the_call() {
    use hark_core::control::{self, Reply, Request};
    let data = tempfile::tempdir().unwrap();
    let asked = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
    let seen = std::sync::Arc::clone(&asked);
    // An app that takes the question and then is gone (it crashed): the connection closes unanswered.
    let handler: control::Handler = std::sync::Arc::new(move |request, _gone| match request {
        Request::Settings => control::single(async { Reply::Settings { settings: Default::default() } }),
        Request::Ask { call_id, .. } => {
            *seen.lock().unwrap() = call_id;
            Box::pin(futures_util::stream::empty())
        }
        _ => control::single(async { Reply::Done }),
    });
    let server = control::serve(data.path(), handler).unwrap();
    let dir = data.path().to_path_buf();
    let steps = tokio::task::spawn_blocking(move || agent(&dir, &["--timed"], &["ask"])).await.unwrap();
    let error = &steps[1]["structured"]["error"];
    assert_eq!(error["code"], "HARK_GONE", "{}", steps[1]);
    let call_id = asked.lock().unwrap().clone().expect("hark mcp chose the call id");
    assert!(call_id.starts_with("mcp-"), "{call_id}");
    assert!(error["message"].as_str().unwrap().contains(&call_id), "{error}");
    server.shutdown().await;
}

/// `hark mcp` asking through a real `hark chat` that hosts the directory: the question waits there
/// beside the chat's own, `hark answer` from another terminal settles it over the control socket (a
/// named pipe on Windows), and the agent's call returns the answer.
#[test]
fn hark_mcp_asks_through_a_running_hark_chat_and_hark_answer_settles_it() {
    let data = tempfile::tempdir().unwrap();
    let _host = support::ChatHost::start(data.path());
    let mut mcp = support::Mcp::start(data.path(), &[], false, &[]);
    let (tx, rx) = std::sync::mpsc::channel();
    let dir = data.path().to_path_buf();
    let answering = std::thread::spawn(move || {
        let (session, call) = support::outside_question(&dir);
        let answers = serde_json::json!({ "answers": [{ "id": "db", "selected": ["SQLite"] }] });
        tx.send(support::hark_answer(&dir, &session, &call, &answers)).unwrap();
    });
    let result = mcp.call("ask_user_question", question());
    answering.join().unwrap();
    let answered = rx.recv().unwrap();
    assert!(answered.status.success(), "hark answer: {}", String::from_utf8_lossy(&answered.stderr));
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["answers"][0]["selected"], serde_json::json!(["SQLite"]), "{result}");
}

fn question() -> Value {
    serde_json::json!({ "questions": [{ "id": "db", "header": "DB", "question": "Which database?",
        "options": [{ "label": "SQLite", "description": "a file" }, { "label": "Postgres", "description": "a server" }] }] })
}

#[test]
fn a_host_that_never_answers_lists_the_tools_and_fails_a_call_with_a_code_in_time() {
    let data = tempfile::tempdir().unwrap();
    let host = support::ChatHost::start(data.path());
    host.suspend();
    // Waiting 1.5 s for the hello instead of 10, to keep the test short.
    let hello_ms = 1500;
    let env = [(hark_core::control::HELLO_TIMEOUT_ENV, "1500")];
    let mut mcp = support::Mcp::start(data.path(), &[], false, &env);
    let started = std::time::Instant::now();
    let tools = mcp.request("tools/list", serde_json::json!({}));
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"ask_user_question") && names.contains(&"get_answers"), "{tools}");
    let listed = started.elapsed();
    assert!(listed < std::time::Duration::from_millis(hello_ms + 3000), "listed after {listed:?}");

    let started = std::time::Instant::now();
    let result = mcp.call("ask_user_question", question());
    let failed = started.elapsed();
    assert_eq!(result["isError"], true, "{result}");
    let error = &result["structuredContent"]["error"];
    assert_eq!(error["code"], "HOST_NOT_ANSWERING", "{result}");
    assert!(error["message"].as_str().unwrap().contains("did not answer within 1.5 s"), "{error}");
    assert!(failed < std::time::Duration::from_millis(hello_ms + 3000), "failed after {failed:?}");
}

/// Waits until `ready` holds, failing after 30 s.
async fn until(what: &str, mut ready: impl FnMut() -> bool) {
    let started = std::time::Instant::now();
    while !ready() {
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "{what} never came");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_task_whose_question_went_on_withdraws_it_in_hark_with_the_reason() {
    use hark_core::front_door::{FrontDoor, InProcess};
    use hark_core::service::Phase;
    let data = tempfile::tempdir().unwrap();
    let host = support::host(data.path());
    let dir = data.path().to_path_buf();
    let mut mcp =
        tokio::task::spawn_blocking(move || support::Mcp::start(&dir, &["--timed", "--timeout", "1"], true, &[]))
            .await
            .unwrap();
    let (created, mut mcp) =
        tokio::task::spawn_blocking(move || (mcp.call("ask_user_question", question()), mcp)).await.unwrap();
    assert_eq!(created["status"], "working", "{created}");
    let task = created["taskId"].as_str().expect("a task id").to_string();

    // Its timeout runs out: the question goes on waiting in Hark, answerable late.
    let continued = |host: &hark_core::host::Host, task: &str| {
        host.inbox()
            .unwrap()
            .into_iter()
            .any(|e| e.question.call_id == task && matches!(e.question.phase, Phase::Continued { .. }))
    };
    until("the question to go on", || continued(&host, &task)).await;
    let session = host.inbox().unwrap().remove(0).question.session_id;

    let id = task.clone();
    let (cancelled, got) = tokio::task::spawn_blocking(move || {
        let cancelled = mcp.request("tasks/cancel", serde_json::json!({ "taskId": id }));
        let got = mcp.request("tasks/get", serde_json::json!({ "taskId": id }));
        (cancelled, got)
    })
    .await
    .unwrap();
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    assert_eq!(got["result"]["status"], "cancelled", "{got}");

    // Withdrawn in Hark, with the reason: no longer waiting anywhere, recorded, and a late answer refused.
    assert!(host.inbox().unwrap().iter().all(|e| e.question.call_id != task), "still waits in Hark");
    let record = host.session(&session).unwrap().question_records().into_iter().find(|r| r.call_id == task).unwrap();
    assert_eq!(record.withdrawn.as_deref(), Some("the agent cancelled its task"));
    let door = InProcess::new(std::sync::Arc::clone(&host));
    let batch = hark_core::question::AnswerBatch {
        answers: vec![hark_core::question::Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }],
    };
    let late = door.answer(&session, &task, batch, None).await.unwrap_err();
    assert_eq!(late.code, "NOT_PENDING", "{late:?}");
    assert!(late.message.contains("the agent cancelled its task"), "{late:?}");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finished_tasks_result_is_forgotten_past_the_newest_kept_and_then_says_it_expired() {
    let data = tempfile::tempdir().unwrap();
    let host = support::host(data.path());
    let dir = data.path().to_path_buf();
    let read = tokio::task::spawn_blocking(move || {
        let mut mcp = support::Mcp::start(&dir, &["--timed"], true, &[]);
        // A call Hark refuses (no questions) ends at once with its error, recording nothing in Hark.
        let mut tasks = Vec::new();
        for _ in 0..=KEPT {
            let created = mcp.call("ask_user_question", serde_json::json!({ "questions": [] }));
            let task = created["taskId"].as_str().expect("a task id").to_string();
            let started = std::time::Instant::now();
            loop {
                let got = mcp.request("tasks/get", serde_json::json!({ "taskId": task }));
                if got["result"]["status"] == "completed" {
                    assert_eq!(
                        got["result"]["result"]["structuredContent"]["error"]["code"], "INVALID_REQUEST",
                        "{got}"
                    );
                    assert!(
                        got["result"]["ttlMs"].as_u64().is_some(),
                        "a finished task says how long it is kept: {got}"
                    );
                    break;
                }
                assert!(started.elapsed() < std::time::Duration::from_secs(10), "{got}");
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            tasks.push(task);
        }
        let first = mcp.request("tasks/get", serde_json::json!({ "taskId": tasks[0] }));
        let second = mcp.request("tasks/get", serde_json::json!({ "taskId": tasks[1] }));
        let never = mcp.request("tasks/get", serde_json::json!({ "taskId": "mcp-never-asked" }));
        (first, second, never)
    });
    let (first, second, never) = read.await.unwrap();
    let message = first["error"]["message"].as_str().unwrap_or_else(|| panic!("the oldest was kept: {first}"));
    assert!(message.contains("expired"), "{first}");
    assert_eq!(second["result"]["status"], "completed", "the newest are kept: {second}");
    let message = never["error"]["message"].as_str().unwrap();
    assert!(message.contains("no task") && !message.contains("expired"), "{never}");
    host.shutdown().await;
}

/// How many finished tasks `hark mcp` keeps, as its documentation says.
const KEPT: usize = 128;
