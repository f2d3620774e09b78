//! `hark chat --ptc --timed` as a real process against a scripted OpenAI-compatible server on
//! 127.0.0.1: the script's question continues under its own call id, `hark questions --json` shows
//! it, and `hark answer` on it reaches the model as a late answer.

#[path = "../../core/tests/agent_support/mod.rs"]
mod agent_support;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use agent_support::{text_reply, tool_reply, TestServer};
use serde_json::{json, Value};

fn hark(data: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hark"));
    cmd.env("HARK_DATA_DIR", data)
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || {
        let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
        // Open and silent while the question waits: nobody is at the terminal.
        let stdin = child.stdin.take();
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        out
    })
    .await
    .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const SCRIPT: &str = r##"
const answer = await tools.ask_user_question({ questions: [{ id: "db", question: "Which database?",
  options: [{ label: "SQLite" }, { label: "Postgres" }] }] });
return { answer };
"##;

#[tokio::test(flavor = "multi_thread")]
async fn a_scripts_timed_question_is_listed_continued_and_answered_late_from_the_terminal() {
    let server = TestServer::start(vec![
        tool_reply("One script.", &[("run1", "run_code", json!({ "code": SCRIPT }).to_string())]),
        text_reply("The script is done; the question stays open."),
        text_reply("Thanks, Postgres it is."),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let mut chat = hark(data.path());
    chat.args(["chat", "--provider", "openai", "--base-url", &server.base_url(), "--model", "test-model"]).args([
        "--ptc",
        "--timed",
        "--timeout",
        "1",
        "set it up",
    ]);
    let out = output(chat).await;
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let offered: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(offered, ["run_code"]);

    let mut sessions = hark(data.path());
    sessions.args(["sessions", "--json"]);
    let listed: Value = serde_json::from_slice(&output(sessions).await.stdout).unwrap();
    let session = listed[0]["id"].as_str().unwrap().to_string();
    let mut questions = hark(data.path());
    questions.args(["questions", &session, "--json"]);
    let records: Value = serde_json::from_slice(&output(questions).await.stdout).unwrap();
    assert_eq!(records.as_array().unwrap().len(), 1, "{records}");
    assert_eq!(records[0]["call_id"], "run1.1");
    assert_eq!(records[0]["state"], "continued");
    assert_eq!(records[0]["parent_call_id"], "run1");

    let mut answer = hark(data.path());
    answer.args(["answer", &session, "run1.1", r#"{"answers":[{"id":"db","selected":["Postgres"]}]}"#]);
    let out = output(answer).await;
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "the late answer started a turn");
    let last = requests[2].body["messages"].as_array().unwrap().last().unwrap().clone();
    let late: Value = serde_json::from_str(last["content"].as_str().unwrap()).unwrap();
    assert_eq!(late["answer_to_pending_question"], true);
    assert_eq!(late["call_id"], "run1.1");
    assert_eq!(late["answers"][0]["selected"], json!(["Postgres"]));
}
