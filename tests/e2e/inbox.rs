//! The inbox in the real window: questions from two of Hark's sessions and from an outside agent
//! (`hark mcp` driven by the official Python SDK) listed in one place in the core's order, answered
//! in place with the keyboard only while the sidebar's count follows, and an outside agent's
//! withdrawn question leaving the inbox with its row saying why.

use std::path::Path;
use std::time::Duration;

use hark_core::question::{pending_result_text, PendingReason, ToolMode};
use hark_core::session::{project_questions, Event, Store, ToolOutcome};
use serde_json::json;

use crate::mcp_client::{dirs, Agent};
use crate::support::{e2e_enabled, App, Launch};

const WAIT: Duration = Duration::from_secs(30);
const ENTER: &str = "\u{E007}";

/// A session of Hark's agent whose timed question went pending, asking `question`.
fn seed(store: &Store, title: &str, call: &str, question: &str) -> String {
    let session = store.create_session(title, None, None).expect("session");
    let args = json!({ "questions": [{ "id": "pick", "question": question, "header": "Choice",
        "options": [{ "label": "Yes" }, { "label": "No" }] }], "timeout": 5 });
    let events = vec![
        Event::RequestHeader {
            tools: vec!["ask_user_question".into()],
            question_mode: ToolMode::Timed,
            default_timeout_secs: 120,
            stop_turn: false,
        },
        Event::TurnStarted { turn_id: format!("t-{call}"), run_id: "run-1".into() },
        Event::UserMessage { message_id: format!("m-{call}"), text: title.into(), source: None },
        Event::AssistantMessage {
            text: "One question first.".into(),
            reasoning: None,
            tool_calls: vec![call.into()],
            usage: None,
        },
        Event::ToolCall { call_id: call.into(), name: "ask_user_question".into(), arguments: args },
        Event::ToolResult {
            call_id: call.into(),
            outcome: ToolOutcome::pending(pending_result_text(call, PendingReason::TimedOut, Duration::from_secs(5))),
        },
        Event::TurnEnded { turn_id: format!("t-{call}"), reason: hark_core::session::TurnEndReason::Completed },
    ];
    store.append_batch(&session, events).expect("append");
    session
}

async fn inbox_count(app: &App) -> String {
    app.text_of("[data-testid='inbox-open']").await
}

async fn selected_call(app: &App) -> String {
    let row = app.find("[data-testid='inbox-row'][aria-current='true']").await;
    row.attr("data-call-id").await.ok().flatten().unwrap_or_default()
}

fn answered(data_dir: &Path, session: &str, call: &str) -> bool {
    let Ok(store) = Store::open(data_dir) else { return false };
    let events = store.events(session).unwrap_or_default();
    project_questions(&events).iter().any(|r| r.call_id == call && (r.answered_late || r.reply_queued.is_some()))
}

#[tokio::test]
async fn three_questions_from_two_sessions_and_an_outside_agent_are_answered_in_the_inbox_by_keyboard() {
    if !e2e_enabled("three_questions_from_two_sessions_and_an_outside_agent_are_answered_in_the_inbox_by_keyboard") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    std::fs::create_dir_all(&data_dir).expect("data dir");
    let (notes, release) = {
        let store = Store::open(&data_dir).expect("store");
        let notes = seed(&store, "Notes app", "call_notes", "Keep the notes in one file?");
        std::thread::sleep(Duration::from_millis(20));
        let release = seed(&store, "Release notes", "call_release", "Ship the changelog with the release?");
        (notes, release)
    };
    let app = App::launch("inbox", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    // The outside agent asks last; nobody looks, so its question goes on in Hark.
    let mut agent = Agent::start(&data_dir, &project, &["--timed", "--timeout", "2"]).await;
    agent.send("ask").await;
    let asked = agent.next(WAIT).await;
    assert_eq!(asked["structured"]["status"], "pending", "{asked}");
    let agent_call = asked["structured"]["call_id"].as_str().expect("call id").to_string();

    app.wait_until("Inbox (3)", WAIT, || async { inbox_count(&app).await == "Inbox (3)" }).await;
    app.find("[data-testid='inbox-open']").await.click().await.expect("open the inbox");
    app.wait_until("three rows", WAIT, || async {
        app.text_of("[data-testid='inbox-count']").await.trim() == "3 questions waiting"
    })
    .await;
    let inbox = app.text_of("section[aria-label='Inbox']").await;
    let at = |text: &str| inbox.find(text).unwrap_or_else(|| panic!("{text:?} missing from the inbox: {inbox}"));
    // Hark's two, oldest first, then the outside agent's, each saying whose and where it stands.
    assert!(at("Keep the notes in one file?") < at("Ship the changelog with the release?"), "{inbox}");
    assert!(at("Ship the changelog with the release?") < at("Test Agent"), "{inbox}");
    assert!(inbox.contains("Continued — answer any time"), "{inbox}");
    assert!(inbox.contains("Notes app · asked"), "{inbox}");
    app.screenshot("inbox-1-three-askers").await;

    // Keyboard only: j/k move, the panel's number keys choose, Enter sends; each answer moves on.
    assert_eq!(selected_call(&app).await, "call_notes");
    app.press("j").await;
    assert_eq!(selected_call(&app).await, "call_release");
    app.press("k").await;
    assert_eq!(selected_call(&app).await, "call_notes");
    for (n, (call, key, left)) in
        [("call_notes", "1", "Inbox (2)"), ("call_release", "2", "Inbox (1)"), (agent_call.as_str(), "1", "Inbox (0)")]
            .into_iter()
            .enumerate()
    {
        assert_eq!(selected_call(&app).await, call, "question {n} is the one shown");
        app.find("section[aria-label='Question']").await;
        app.press(key).await;
        app.press(ENTER).await;
        app.wait_until(left, WAIT, || async { inbox_count(&app).await == left }).await;
        if n == 0 {
            app.screenshot("inbox-2-after-the-first").await;
        }
    }
    app.find("[data-testid='inbox-empty']").await;
    app.screenshot("inbox-3-empty").await;
    assert!(answered(&data_dir, &notes, "call_notes"));
    assert!(answered(&data_dir, &release, "call_release"));
    agent.send("answers").await;
    let taken = agent.next(WAIT).await;
    assert_eq!(taken["structured"]["answers"][0]["call_id"], agent_call.as_str(), "{taken}");
    assert_eq!(taken["structured"]["answers"][0]["answers"][0]["selected"], json!(["SQLite"]), "{taken}");

    // The agent asks again and then withdraws it: the inbox drops it, its row says why.
    agent.send("ask").await;
    let again = agent.next(WAIT).await;
    let again_call = again["structured"]["call_id"].as_str().expect("call id").to_string();
    app.wait_until("Inbox (1)", WAIT, || async { inbox_count(&app).await == "Inbox (1)" }).await;
    agent.send(&format!("withdraw {again_call} the tests already chose SQLite")).await;
    let withdrawn = agent.next(WAIT).await;
    assert_eq!(withdrawn["structured"]["status"], "withdrawn", "{withdrawn}");
    app.wait_until("Inbox (0)", WAIT, || async { inbox_count(&app).await == "Inbox (0)" }).await;
    agent.send(&format!("withdraw {again_call} twice")).await;
    let twice = agent.next(WAIT).await;
    assert_eq!(twice["structured"]["error"]["code"], "NOT_PENDING", "{twice}");

    let client_row =
        app.find_x("//nav[@aria-label='Sessions']//button[@data-session-id][.//span[contains(., 'Test Agent')]]").await;
    client_row.click().await.expect("open the agent's session");
    app.wait_until("the withdrawn row", WAIT, || async {
        app.text_of("main").await.contains("Withdrawn by the agent: the tests already chose SQLite")
    })
    .await;
    app.screenshot("inbox-4-withdrawn-row").await;
    agent.quit().await;
    app.close().await;
}
