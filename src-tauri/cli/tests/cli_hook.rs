//! `hark hook` run as the agents run it, on what is not a question for Hark: every case exits with
//! no decision on stdout, so the agent goes on as if no hook ran (its own prompt asks the person).
//! The answered, closed and unanswered cases run against the real app in `tests/e2e/hooks.rs`.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn hook(args: &[&str], stdin: &[u8]) -> Output {
    let data = tempfile::tempdir().expect("temp dir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hark"))
        .arg("hook")
        .args(args)
        .env("HARK_DATA_DIR", data.path())
        // Were the hook to start an app, none would answer: a test that reaches it fails loudly.
        .env("HARK_DESKTOP", "/nonexistent/hark-desktop")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hark");
    let mut input = child.stdin.take().expect("stdin");
    // A hook that stops reading early (an oversized event) closes the pipe: not a failure here.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("hark's output")
}

fn event(name: &str, tool: &str, input: serde_json::Value) -> Vec<u8> {
    serde_json::json!({
        "session_id": "s-1", "cwd": "/tmp", "hook_event_name": name,
        "tool_name": tool, "tool_use_id": "toolu_1", "tool_input": input,
    })
    .to_string()
    .into_bytes()
}

fn questions(n: usize) -> serde_json::Value {
    let one = serde_json::json!({ "question": "Which?", "header": "Pick", "multiSelect": false,
        "options": [{ "label": "A", "description": "" }, { "label": "B", "description": "" }] });
    serde_json::json!({ "questions": vec![one; n] })
}

/// No decision and exit 0: the event is not Hark's.
fn passes(out: &Output) {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "no decision: {}", String::from_utf8_lossy(&out.stdout));
}

/// No decision, exit 1 (a non-blocking hook error for both agents) and the code on stderr.
fn fails_with(out: &Output, code: &str) {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "no decision: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr);
    let last = err.lines().last().unwrap_or_default();
    assert!(last.starts_with(&format!("hark: {code} ")), "{err}");
}

#[test]
fn other_events_and_tools_get_no_decision() {
    passes(&hook(&["claude-code"], &event("PostToolUse", "AskUserQuestion", questions(1))));
    passes(&hook(&["claude-code"], &event("PreToolUse", "Bash", serde_json::json!({ "command": "ls" }))));
    // Each agent's hook answers its own tool only.
    passes(&hook(&["claude-code"], &event("PreToolUse", "request_user_input", questions(1))));
    passes(&hook(&["codex"], &event("PreToolUse", "AskUserQuestion", questions(1))));
}

#[test]
fn a_malformed_or_oversized_event_is_a_coded_error_with_no_decision() {
    fails_with(&hook(&["claude-code"], b"{not json"), "BAD_HOOK_EVENT");
    fails_with(&hook(&["claude-code"], b""), "BAD_HOOK_EVENT");
    fails_with(&hook(&["codex"], br#"{"tool_name": "request_user_input"}"#), "BAD_HOOK_EVENT");
    let huge = vec![b' '; 2 * 1024 * 1024];
    fails_with(&hook(&["claude-code"], &huge), "BAD_HOOK_EVENT");
}

#[test]
fn a_batch_hark_cannot_ask_is_a_coded_error_and_starts_no_app() {
    let ask = |input| event("PreToolUse", "AskUserQuestion", input);
    fails_with(&hook(&["claude-code"], &ask(questions(0))), "BAD_QUESTIONS");
    fails_with(&hook(&["claude-code"], &ask(questions(9))), "BAD_QUESTIONS");
    fails_with(&hook(&["claude-code"], &ask(serde_json::json!({ "questions": "which?" }))), "BAD_QUESTIONS");
    let one_option = serde_json::json!({ "questions": [{ "question": "Sure?", "options": [{ "label": "Yes" }] }] });
    fails_with(&hook(&["claude-code"], &ask(one_option)), "BAD_QUESTIONS");
    let no_id = serde_json::json!({ "questions": [{ "question": "Which?", "header": "H", "isOther": true,
        "options": [{ "label": "A", "description": "" }, { "label": "B", "description": "" }] }] });
    fails_with(&hook(&["codex"], &event("PreToolUse", "request_user_input", no_id)), "BAD_QUESTIONS");
}

#[test]
fn a_bad_command_line_is_a_usage_error() {
    for args in [&[][..], &["gemini"][..], &["codex", "--timeout", "soon"][..], &["codex", "--fast"][..]] {
        let out = hook(args, b"{}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn with_no_app_to_ask_through_the_hook_gives_no_decision() {
    let out = hook(&["claude-code"], &event("PreToolUse", "AskUserQuestion", questions(1)));
    assert_eq!(out.status.code(), Some(1), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/hark-desktop"), "names what it could not start: {err}");
}
