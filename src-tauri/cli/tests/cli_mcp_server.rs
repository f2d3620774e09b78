//! `hark mcp` as a real process under the official Python MCP client (tests/mcp/ask_client.py),
//! with no app to forward to: its tools are listed under the command line's schema, and a call
//! that cannot reach an app fails at once with a coded error instead of hanging. The window's side
//! (questions shown, answered, returned late) is in the e2e tests.
#![cfg(unix)]

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
fn the_app_hark_mcp_starts_does_not_get_the_calling_agents_secrets() {
    let data = tempfile::tempdir().unwrap();
    // A stand-in for the app: it writes down its environment and exits without answering.
    let desktop = data.path().join("fake-desktop");
    let seen = data.path().join("seen-env");
    std::fs::write(&desktop, format!("#!/bin/sh\nenv > '{}'\n", seen.display())).unwrap();
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
