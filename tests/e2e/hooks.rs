//! `hark hook` run exactly as Claude Code and Codex run a `PreToolUse` command hook (the event on
//! stdin, the decision read from stdout as JSON) against the real app: answered in the window, from
//! a notification and from `hark answer`; closed; unanswered within `--timeout`, then answered late
//! and collected with `get_answers` by the agent's own `hark mcp`.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use crate::mcp_client::{dirs, sidebar, waiting_question, Agent};
use crate::notifications::{move_focus_away, pairs};
use crate::support::notifications::NotificationServer;
use crate::support::{e2e_enabled, hark_cli, row_state, App, Launch, PANEL, QUESTION_ROW};

const PANEL_CSS: &str = "section[aria-label='Question']";
const SESSION_ROW: &str = "nav[aria-label='Sessions'] button[data-session-id]";
const WAIT: Duration = Duration::from_secs(30);

/// A running hook: the agent waits on it as it waits on any command hook.
pub(crate) struct Hook {
    done: tokio::task::JoinHandle<std::process::Output>,
}

impl Hook {
    /// `hark hook AGENT [flags]` with `event` on stdin, started as the agent starts it (in its folder).
    pub(crate) fn start(data_dir: &Path, cwd: &Path, agent: &str, flags: &[&str], event: Value) -> Hook {
        let mut command = Command::new(hark_cli());
        command
            .args(["hook", agent])
            .args(flags)
            .current_dir(cwd)
            .env("HARK_DATA_DIR", data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().expect("run hark hook");
        let mut stdin = child.stdin.take().expect("stdin");
        let done = tokio::spawn(async move {
            stdin.write_all(event.to_string().as_bytes()).await.expect("write the event");
            drop(stdin);
            child.wait_with_output().await.expect("the hook's output")
        });
        Hook { done }
    }

    /// The question hook's decision (see [`output`](Self::output)).
    async fn decision(self) -> Value {
        self.output("PreToolUse").await
    }

    /// What the hook answered for `event`, parsed as the agents parse it: exit 0 and one JSON object
    /// on stdout, whose `hookSpecificOutput` names the event.
    pub(crate) async fn output(self, event: &str) -> Value {
        let out = tokio::time::timeout(WAIT, self.done).await.expect("the hook ended in time").expect("joined");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
        let decision: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("stdout is one JSON object ({e}): {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(decision["hookSpecificOutput"]["hookEventName"], event, "{decision}");
        decision["hookSpecificOutput"].clone()
    }
}

fn claude_event(cwd: &Path, input: Value) -> Value {
    json!({
        "session_id": "0b7a3d4c-claude", "transcript_path": "/dev/null", "cwd": cwd,
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "AskUserQuestion",
        "tool_use_id": "toolu_01HARK", "tool_input": input,
    })
}

fn codex_event(cwd: &Path) -> Value {
    json!({
        "session_id": "codex-thread-1", "turn_id": "t-1", "cwd": cwd, "hook_event_name": "PreToolUse",
        "tool_name": "request_user_input", "tool_use_id": "call_1", "model": "gpt-test",
        "tool_input": { "questions": [{
            "id": "db", "header": "Database", "question": "Which database should the notes app use?",
            "isOther": true,
            "options": [
                { "label": "SQLite", "description": "One file next to the app" },
                { "label": "Postgres", "description": "A server to run" },
            ],
        }]},
    })
}

fn regions() -> Value {
    json!({ "questions": [{
        "question": "Which regions should the release go to?", "header": "Regions", "multiSelect": true,
        "options": [
            { "label": "eu", "description": "Frankfurt" },
            { "label": "us", "description": "Virginia" },
            { "label": "ap", "description": "Singapore" },
        ],
    }]})
}

/// Opens the agent's session from the sidebar once it is there.
async fn open_session(app: &App, name: &str) {
    app.wait_until("the agent's session in the sidebar", WAIT, || async { sidebar(app).await.contains(name) }).await;
    app.find(SESSION_ROW).await.click().await.expect("open the agent's session");
}

/// Codex's answers, read back from the deny reason as its model reads them.
fn carried_answers(decision: &Value) -> Value {
    assert_eq!(decision["permissionDecision"], "deny", "{decision}");
    let reason = decision["permissionDecisionReason"].as_str().expect("a reason");
    assert!(reason.contains("answered these questions in Hark"), "{reason}");
    serde_json::from_str(&reason[reason.find('{').expect("the answers' JSON")..]).expect("JSON answers")
}

#[tokio::test]
async fn claude_codes_question_answered_in_the_window_is_allowed_with_the_persons_answers() {
    if !e2e_enabled("claude_codes_question_answered_in_the_window_is_allowed_with_the_persons_answers") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("hook-claude-window", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    let hook = Hook::start(&data_dir, &project, "claude-code", &[], claude_event(&project, regions()));
    open_session(&app, "Claude Code").await;
    app.find(PANEL_CSS).await;
    let panel = app.text_of(PANEL_CSS).await;
    assert!(panel.contains("Which regions should the release go to?") && panel.contains("Singapore"), "{panel}");
    let title = sidebar(&app).await;
    assert!(title.contains("Claude Code · notes-app"), "named after agent and folder: {title:?}");
    assert!(!app.exists("[data-testid='demo-banner']").await, "Claude Code's session uses no model of Hark's");
    app.screenshot("hook-claude-1-asked").await;
    app.click_option("eu").await;
    app.click_option("ap").await;
    // The README's picture of Hark (docs/hark-window.png is a copy of this one).
    app.screenshot("hook-claude-1-choosing").await;
    app.click_button(PANEL, "Submit").await;

    let decision = hook.decision().await;
    assert_eq!(decision["permissionDecision"], "allow", "{decision}");
    assert_eq!(decision["updatedInput"]["questions"], regions()["questions"], "the original questions, unchanged");
    assert_eq!(decision["updatedInput"]["answers"], json!({ "Which regions should the release go to?": "eu, ap" }));
    app.wait_until("the answered row", WAIT, || async { row_state(&app).await == "settled" }).await;
    app.screenshot("hook-claude-2-answered").await;
    app.close().await;
}

#[tokio::test]
async fn claude_codes_question_closed_in_the_window_is_denied_as_declined() {
    if !e2e_enabled("claude_codes_question_closed_in_the_window_is_denied_as_declined") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("hook-claude-closed", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    let hook = Hook::start(&data_dir, &project, "claude-code", &[], claude_event(&project, regions()));
    open_session(&app, "Claude Code").await;
    app.find(PANEL_CSS).await;
    app.click_button(PANEL, "Close").await;

    let decision = hook.decision().await;
    assert_eq!(decision["permissionDecision"], "deny", "never an allow without answers: {decision}");
    let reason = decision["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.contains("declined to answer"), "{reason}");
    assert!(decision.get("updatedInput").is_none(), "{decision}");
    app.close().await;
}

#[tokio::test]
async fn claude_codes_unanswered_question_waits_in_hark_and_its_late_answer_is_collected_by_get_answers() {
    if !e2e_enabled("claude_codes_unanswered_question_waits_in_hark_and_its_late_answer_is_collected_by_get_answers") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("hook-claude-late", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    // Nobody looks: after its timeout the hook tells the agent the question waits, and how to collect it.
    let hook = Hook::start(&data_dir, &project, "claude-code", &["--timeout", "2"], claude_event(&project, regions()));
    let decision = hook.decision().await;
    assert_eq!(decision["permissionDecision"], "deny", "{decision}");
    let reason = decision["permissionDecisionReason"].as_str().unwrap().to_string();
    assert!(reason.contains("has not answered") && reason.contains("not their consent"), "{reason}");
    let call_id =
        reason.split_whitespace().find(|w| w.starts_with("hook-")).expect("the call id").trim_end_matches(',');
    assert!(reason.contains("get_answers") && reason.contains(&format!("\"call_ids\": [\"{call_id}\"]")), "{reason}");

    // The person answers later, from the question's row.
    open_session(&app, "Claude Code").await;
    app.wait_until("the continued row", WAIT, || async { row_state(&app).await == "continued" }).await;
    app.screenshot("hook-claude-3-continued").await;
    app.click_button("//*[@data-testid='question-row']", "Answer").await;
    app.find(PANEL_CSS).await;
    app.click_option("us").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the row to say answered late", WAIT, || async {
        app.text_of(QUESTION_ROW).await.contains("Answered late")
    })
    .await;

    // Claude Code's own `hark mcp` (it names itself "claude-code") collects it by the call id.
    let mut agent = Agent::start_named(&data_dir, &project, &[], Some("claude-code")).await;
    agent.send("answers").await;
    let own = agent.next(WAIT).await;
    assert_eq!(own["structured"]["answers"], json!([]), "not its own question: {own}");
    agent.send(&format!("answers {call_id}")).await;
    let taken = agent.next(WAIT).await;
    let answers = &taken["structured"]["answers"];
    assert_eq!(answers.as_array().map(Vec::len), Some(1), "{taken}");
    assert_eq!(answers[0]["call_id"], call_id);
    assert_eq!(answers[0]["answers"][0]["selected"], json!(["us"]), "{taken}");
    agent.send(&format!("answers {call_id}")).await;
    let again = agent.next(WAIT).await;
    assert_eq!(again["structured"]["answers"], json!([]), "returned once: {again}");
    agent.quit().await;
    let sessions = sidebar(&app).await;
    assert_eq!(sessions.matches("Claude Code").count(), 1, "the hook and hark mcp share one session: {sessions}");
    app.close().await;
}

#[tokio::test]
async fn codexs_question_answered_from_a_notification_reaches_codex_as_its_answers() {
    if !e2e_enabled("codexs_question_answered_from_a_notification_reaches_codex_as_its_answers") {
        return;
    }
    let notifications = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("hook-codex-notify", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;
    move_focus_away(&app).await;

    let hook = Hook::start(&data_dir, &project, "codex", &[], codex_event(&project));
    let n = notifications.wait_for("Codex's question", WAIT, |n| n.summary.contains("Codex")).await;
    assert_eq!(n.summary, "Codex asks · Database", "the notification names who asks");
    assert_eq!(n.body, "Which database should the notes app use?");
    assert_eq!(
        pairs(&n),
        [("default", "Open"), ("option:0", "SQLite"), ("option:1", "Postgres"), ("answer", "Answer…")]
    );
    notifications.invoke(n.id, "option:1").await;
    let decision = hook.decision().await;
    assert_eq!(carried_answers(&decision), json!({ "answers": { "db": { "answers": ["Postgres"] } } }));
    app.close().await;
}

#[tokio::test]
async fn codexs_question_answered_with_hark_answer_reaches_codex_as_its_answers() {
    if !e2e_enabled("codexs_question_answered_with_hark_answer_reaches_codex_as_its_answers") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("hook-codex-cli", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    let hook = Hook::start(&data_dir, &project, "codex", &[], codex_event(&project));
    let started = std::time::Instant::now();
    let (session, call_id) = loop {
        assert!(started.elapsed() < WAIT, "the hook's question never showed");
        if let Some(found) = waiting_question(&data_dir) {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let answered = Command::new(hark_cli())
        .args(["answer", &session, &call_id, r#"[{"id":"db","selected":[],"custom":"DuckDB"}]"#])
        .env("HARK_DATA_DIR", &data_dir)
        .output()
        .await
        .expect("run hark answer");
    assert!(answered.status.success(), "{}", String::from_utf8_lossy(&answered.stderr));
    let decision = hook.decision().await;
    assert_eq!(carried_answers(&decision), json!({ "answers": { "db": { "answers": ["DuckDB"] } } }));
    app.close().await;
}
