//! `hark hook` run as the agents run it, on what is not a question for Hark: every case exits with
//! no decision on stdout, so the agent goes on as if no hook ran (its own prompt asks the person).
//! The answered, closed and unanswered cases run against the real app in `tests/e2e/hooks.rs`.

mod support;

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn hook(args: &[&str], stdin: &[u8]) -> Output {
    let data = tempfile::tempdir().expect("temp dir");
    start_hook(data.path(), args, stdin).wait_with_output().expect("hark's output")
}

/// `hark hook ARGS` for the data directory `dir`, given `stdin`.
fn start_hook(dir: &Path, args: &[&str], stdin: &[u8]) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hark"))
        .arg("hook")
        .args(args)
        .env("HARK_DATA_DIR", dir)
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
    child
}

fn event(name: &str, tool: &str, input: Value) -> Vec<u8> {
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

#[test]
fn a_host_that_never_answers_gets_no_decision_within_the_deadline() {
    let data = tempfile::tempdir().unwrap();
    let host = support::ChatHost::start(data.path());
    host.suspend();
    let one = json!({ "questions": [{ "question": "Which?", "header": "Pick", "multiSelect": false,
        "options": [{ "label": "A", "description": "" }, { "label": "B", "description": "" }] }] });
    let started = Instant::now();
    let child = start_hook(data.path(), &["claude-code"], &event("PreToolUse", "AskUserQuestion", one));
    let out = support::output_within(child, Duration::from_secs(60), "the hook on a suspended host");
    let took = started.elapsed();
    fails_with(&out, "HOST_NOT_ANSWERING");
    let deadline = hark_core::control::HELLO_TIMEOUT;
    // It waited the whole deadline, and then gave up rather than waiting on: the margin is wide, as
    // starting the hook on a loaded machine takes seconds, and the point is minutes against an hour.
    assert!(took >= deadline && took < deadline + Duration::from_secs(40), "gave up after {took:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("did not answer within 10 s"));
}

/// Claude Code's hook against a real `hark chat` hosting the directory: its question waits there
/// beside the chat's own, `hark answer` from another terminal settles it over the control socket (a
/// named pipe on Windows), and the hook hands Claude Code the answer.
#[test]
fn the_hook_asks_through_a_running_hark_chat_and_hark_answer_settles_it() {
    let data = tempfile::tempdir().unwrap();
    let _host = support::ChatHost::start(data.path());
    let one = json!({ "questions": [{ "question": "Ship it?", "header": "Ship", "multiSelect": false,
        "options": [{ "label": "Yes", "description": "" }, { "label": "No", "description": "" }] }] });
    let child = start_hook(data.path(), &["claude-code"], &event("PreToolUse", "AskUserQuestion", one.clone()));
    let (session, call) = support::outside_question(data.path());
    let answered = support::hark_answer(
        data.path(),
        &session,
        &call,
        &json!({ "answers": [{ "id": "q1", "selected": ["Yes"] }] }),
    );
    assert!(answered.status.success(), "hark answer: {}", String::from_utf8_lossy(&answered.stderr));
    let out = support::output_within(child, Duration::from_secs(30), "the hook");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let decision: Value = serde_json::from_slice(&out.stdout).expect("a decision");
    let out = &decision["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow", "{decision}");
    assert_eq!(out["updatedInput"]["answers"], json!({ "Ship it?": "Yes" }), "{decision}");
    assert_eq!(out["updatedInput"]["questions"], one["questions"]);
}

/// Runs the Claude Code hook on `input` against a host in this process and answers its question with
/// `answers` (by Hark's ids `q1`, `q2`, ...) once it waits: the decision the hook printed.
async fn claude_code_answered(input: Value, answers: Vec<hark_core::question::Answer>) -> Value {
    use hark_core::front_door::{FrontDoor, InProcess};
    let data = tempfile::tempdir().unwrap();
    let host = support::host(data.path());
    let child = start_hook(data.path(), &["claude-code"], &event("PreToolUse", "AskUserQuestion", input));
    let started = Instant::now();
    let shown = loop {
        if let Some(shown) = host.service().foreground(None).pop() {
            break shown;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the hook's question never came");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let door = InProcess::new(std::sync::Arc::clone(&host));
    let batch = hark_core::question::AnswerBatch { answers };
    door.answer(&shown.session_id, &shown.call_id, batch, None).await.expect("answered");
    let out = tokio::task::spawn_blocking(move || support::output_within(child, Duration::from_secs(30), "the hook"))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    host.shutdown().await;
    serde_json::from_slice(&out.stdout).expect("a decision")
}

fn answer(id: &str, selected: &[&str]) -> hark_core::question::Answer {
    hark_core::question::Answer {
        id: id.into(),
        selected: selected.iter().map(|s| s.to_string()).collect(),
        custom: None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn labels_holding_a_comma_reach_claude_code_as_it_writes_them_itself() {
    let input = json!({ "questions": [
        { "question": "Which regions?", "header": "Regions", "multiSelect": true, "options": [
            { "label": "eu, west", "description": "" }, { "label": "us", "description": "" },
            { "label": "the \"edge\"", "description": "" }] },
        { "question": "Which size?", "header": "Size", "multiSelect": false, "options": [
            { "label": "small, cheap", "description": "" }, { "label": "large", "description": "" }] },
    ]});
    let decision = claude_code_answered(
        input.clone(),
        vec![answer("q1", &["eu, west", "us", "the \"edge\""]), answer("q2", &["small, cheap"])],
    )
    .await;
    let out = &decision["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "allow", "{decision}");
    assert_eq!(out["updatedInput"]["questions"], input["questions"]);
    // Claude Code's own joining: a label with ", " or a quote as a JSON string, so its result reads
    // three labels here, not four; one label alone is written as it is.
    assert_eq!(
        out["updatedInput"]["answers"],
        json!({ "Which regions?": "\"eu, west\", us, \"the \\\"edge\\\"\"", "Which size?": "small, cheap" })
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn questions_with_the_same_text_are_answered_by_their_place_not_mixed_up() {
    let one = |header: &str| {
        json!({ "question": "Which one?", "header": header, "multiSelect": false,
        "options": [{ "label": "A", "description": "" }, { "label": "B", "description": "" }] })
    };
    let input = json!({ "questions": [one("First"), one("Second")] });
    let decision = claude_code_answered(input, vec![answer("q1", &["A"]), answer("q2", &["B"])]).await;
    let out = &decision["hookSpecificOutput"];
    assert_eq!(out["permissionDecision"], "deny", "no answers keyed by a text two questions share: {decision}");
    let reason = out["permissionDecisionReason"].as_str().unwrap();
    let carried: Value = serde_json::from_str(&reason[reason.find('{').unwrap()..]).unwrap();
    assert_eq!(
        carried,
        json!({ "answers": {
            "1": { "question": "Which one?", "answers": ["A"] },
            "2": { "question": "Which one?", "answers": ["B"] },
        }})
    );
}

fn elicitation(extra: Value) -> Vec<u8> {
    let mut event = json!({
        "session_id": "s-1", "cwd": "/tmp", "hook_event_name": "Elicitation",
        "mcp_server_name": "deployer", "message": "Deploy settings", "mode": "form",
        "requested_schema": { "type": "object", "properties": { "env": { "type": "string", "enum": ["stg", "prod"] } } },
    });
    if let (Some(event), Value::Object(extra)) = (event.as_object_mut(), extra) {
        event.extend(extra);
    }
    event.to_string().into_bytes()
}

#[test]
fn an_mcp_form_hark_cannot_show_gets_no_decision_with_the_reason_and_starts_no_app() {
    let nested = json!({ "requested_schema": { "type": "object", "properties": { "a": { "type": "object" } } } });
    for bad in [nested, json!({ "mode": "url" }), json!({ "mode": "voice" })] {
        let out = hook(&["claude-code"], &elicitation(bad.clone()));
        passes(&out);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("Claude Code shows its own form"), "{bad}: {err}");
        assert!(!err.contains("/nonexistent/hark-desktop"), "no app was started: {err}");
    }
}

#[test]
fn an_mcp_form_without_its_server_is_a_bad_event_and_with_no_app_gets_no_decision() {
    fails_with(&hook(&["claude-code"], &elicitation(json!({ "mcp_server_name": null }))), "BAD_HOOK_EVENT");
    let out = hook(&["claude-code"], &elicitation(json!({})));
    assert_eq!(out.status.code(), Some(1), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "no decision: {}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/hark-desktop"));
}
