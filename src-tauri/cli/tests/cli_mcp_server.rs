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
    let mcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp");
    let python = mcp.join(".venv/bin/python");
    assert!(python.exists(), "the Python MCP SDK is not installed: run `make test` ({})", python.display());
    let mut child = Command::new(python)
        .arg(mcp.join("ask_client.py"))
        .arg(env!("CARGO_BIN_EXE_hark"))
        .args(flags)
        .env("HARK_DATA_DIR", data)
        // No app runs here, and the one `hark mcp` would start does not exist.
        .env("HARK_DESKTOP", data.join("no-such-hark-desktop"))
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
    assert_eq!(steps[1]["names"], serde_json::json!(["ask_user_question", "get_answers"]));
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
