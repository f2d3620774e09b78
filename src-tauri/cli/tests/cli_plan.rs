//! `hark chat --plan` as a real process against a scripted OpenAI-compatible server on 127.0.0.1:
//! the model's write is refused until the plan review typed on stdin approves it.

use std::io::Write;
use std::process::{Command, Stdio};

use hark_test_support::agent::{text_reply, tool_reply, TestServer};
use serde_json::{json, Value};

fn write_args() -> String {
    json!({ "path": "notes.md", "content": "# Notes\n" }).to_string()
}

/// Runs `hark chat` with `args` against `server`, typing `stdin`; returns stdout and stderr.
async fn chat(server: &TestServer, data: &std::path::Path, args: &[&str], stdin: &'static [u8]) -> (String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hark"));
    cmd.args(["chat", "--provider", "openai", "--base-url", &server.base_url(), "--model", "test-model"])
        .args(args)
        .env("HARK_DATA_DIR", data)
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = tokio::task::spawn_blocking(move || {
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert!(out.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// The content of the tool message answering `call_id` in request `n`.
fn result_in(server: &TestServer, n: usize, call_id: &str) -> Value {
    let requests = server.requests();
    let messages = requests[n].body["messages"].as_array().unwrap().clone();
    let tool = messages.iter().find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id).unwrap();
    serde_json::from_str(tool["content"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_plan_refuses_a_write_until_the_plan_is_approved_and_allows_it_after() {
    let server = TestServer::start(vec![
        tool_reply("Writing it.", &[("w1", "write_file", write_args())]),
        tool_reply("My plan.", &[("p1", "submit_plan", json!({ "plan": "1. Write notes.md" }).to_string())]),
        tool_reply("Revised.", &[("p2", "submit_plan", json!({ "plan": "1. Write notes.md as a table" }).to_string())]),
        tool_reply("Approved, writing.", &[("w2", "write_file", write_args())]),
        text_reply("Done."),
    ])
    .await;
    let (data, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ws = workspace.path().to_string_lossy().into_owned();
    // An empty line is refused, feedback asks for changes, `y` approves.
    let (stdout, _) =
        chat(&server, data.path(), &["--plan", "--workspace", &ws, "write the notes"], b"\nuse a table\ny\n").await;

    assert!(stdout.contains("approve? [y / your feedback]"), "{stdout}");
    assert!(stdout.contains("1. Write notes.md"), "the plan is shown: {stdout}");
    assert!(stdout.contains("type y to approve"), "{stdout}");
    assert_eq!(result_in(&server, 1, "w1")["code"], "PLAN_NOT_APPROVED");
    let feedback = result_in(&server, 2, "p1");
    assert_eq!(
        (feedback["plan_review"].as_str(), feedback["feedback"].as_str()),
        (Some("changes_requested"), Some("use a table"))
    );
    assert_eq!(result_in(&server, 3, "p2")["plan_review"], "approved");
    let wrote = result_in(&server, 4, "w2");
    assert_eq!(wrote["bytes_written"], 8, "{wrote}");
    assert_eq!(std::fs::read_to_string(workspace.path().join("notes.md")).unwrap(), "# Notes\n");
    let tools: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"submit_plan".to_string()), "{tools:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_without_plan_writes_at_once() {
    let server =
        TestServer::start(vec![tool_reply("Writing it.", &[("w1", "write_file", write_args())]), text_reply("Done.")])
            .await;
    let (data, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let ws = workspace.path().to_string_lossy().into_owned();
    chat(&server, data.path(), &["--workspace", &ws, "write the notes"], b"").await;
    assert_eq!(result_in(&server, 1, "w1")["bytes_written"], 8);
}
