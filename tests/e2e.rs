//! End-to-end tests of the real desktop window. See `support/mod.rs` for how they run and are gated.

mod support;

#[path = "e2e/agents.rs"]
mod agents;
#[path = "e2e/approvals.rs"]
mod approvals;
#[path = "e2e/first_run.rs"]
mod first_run;
#[path = "e2e/flows.rs"]
mod flows;
#[path = "e2e/hooks.rs"]
mod hooks;
#[path = "e2e/inbox.rs"]
mod inbox;
#[path = "e2e/mcp.rs"]
mod mcp;
#[path = "e2e/mcp_client.rs"]
mod mcp_client;
#[path = "e2e/mcp_tasks.rs"]
mod mcp_tasks;
#[path = "e2e/notifications.rs"]
mod notifications;
#[path = "e2e/phone.rs"]
mod phone;
#[path = "e2e/real_agents.rs"]
mod real_agents;
#[path = "e2e/remote.rs"]
mod remote;
#[path = "e2e/robustness.rs"]
mod robustness;
#[path = "e2e/tray.rs"]
mod tray;
#[path = "e2e/tui.rs"]
mod tui;

use hark_core::question::PendingReason;
use std::time::Duration;
use support::{e2e_enabled, App, Launch};

#[tokio::test]
async fn shell_renders_and_shows_app_info() {
    if !e2e_enabled("shell_renders_and_shows_app_info") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let app = App::launch("shell", Launch::new(&data_dir)).await;

    assert_eq!(app.client.title().await.expect("title"), "Hark");
    let sidebar = app.find("nav[aria-label='Sessions']").await;
    assert!(sidebar.text().await.expect("sidebar text").contains("No sessions yet"));
    app.find("section[aria-label='Transcript']").await;
    app.find("textarea[aria-label='Message']").await;

    // app_info went through real IPC: the data dir shown is the one this launch was given.
    let shown = app.find("[data-testid='data-dir']").await.text().await.expect("data dir text");
    let expected = data_dir.canonicalize().expect("the app created its data dir");
    assert_eq!(shown, expected.display().to_string());
    let version = app.find("[data-testid='app-version']").await.text().await.expect("version text");
    assert_eq!(version, format!("Hark {}", env!("CARGO_PKG_VERSION")));

    let shot = app.screenshot("empty-shell").await;
    eprintln!("screenshot: {}", shot.display());
    app.close().await;
}

#[tokio::test]
async fn unusable_data_dir_is_reported_in_the_window() {
    if !e2e_enabled("unusable_data_dir_is_reported_in_the_window") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let blocker = tmp.path().join("not-a-directory");
    std::fs::write(&blocker, b"a file where the data dir should be").expect("write blocker");
    let app = App::launch("bad-data-dir", Launch::new(blocker.join("data"))).await;

    let banner = app.find("[role='alert']").await.text().await.expect("banner text");
    assert!(banner.contains("cannot use its data directory"), "banner: {banner}");
    assert!(banner.contains("not-a-directory"), "banner names the path: {banner}");
    assert!(banner.contains("DATA_DIR_UNUSABLE"), "banner: {banner}");
    app.screenshot("banner").await;
    app.close().await;
}

/// Writes two sessions the way a run of the agent would have: one whose timed question went pending
/// and was then answered late, one whose question is still waiting.
fn seed_sessions(data_dir: &std::path::Path) -> String {
    use hark_core::question::{late_answer_text, pending_result_text, Answer, AnswerBatch, Question, ToolMode};
    use hark_core::session::{Event, MessageSource, Store, ToolOutcome};
    use serde_json::json;

    std::fs::create_dir_all(data_dir).expect("data dir");
    let store = Store::open(data_dir).expect("open store");
    let header = || Event::RequestHeader {
        tools: vec!["ask_user_question".into()],
        question_mode: ToolMode::Timed,
        default_timeout_secs: 120,
        stop_turn: false,
    };
    let turn = |id: &str| Event::TurnStarted { turn_id: id.into(), run_id: "run-1".into() };
    let end = |id: &str| Event::TurnEnded { turn_id: id.into(), reason: hark_core::session::TurnEndReason::Completed };
    let say =
        |text: &str| Event::AssistantMessage { text: text.into(), reasoning: None, tool_calls: vec![], usage: None };
    let ask_args = json!({ "questions": [{ "id": "db", "question": "Which database should the notes app use?",
        "header": "Database", "options": [{ "label": "SQLite" }, { "label": "Postgres" }] }], "timeout": 5 });
    let questions: Vec<Question> = serde_json::from_value(ask_args["questions"].clone()).expect("questions");
    let ask = |call: &str| Event::ToolCall {
        call_id: call.into(),
        name: "ask_user_question".into(),
        arguments: ask_args.clone(),
    };
    let pending = |call: &str| Event::ToolResult {
        call_id: call.into(),
        outcome: ToolOutcome::pending(pending_result_text(call, PendingReason::TimedOut, Duration::from_secs(1))),
    };

    let waiting = store.create_session("Still waiting", None, None).expect("session");
    store
        .append_batch(
            &waiting,
            vec![header(), turn("w1"), say("Let me ask first."), ask("call_w"), pending("call_w"), end("w1")],
        )
        .expect("append");

    let late = store.create_session("Notes app <b>bold</b>", None, None).expect("session");
    let batch =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }] };
    let reply = late_answer_text("call_1", &hark_core::question::Intent::Question, &questions, &batch, None);
    // As builds before answers were recorded with the reply wrote it: the answers are in the text only.
    let source = MessageSource { answers: None, ..MessageSource::question_reply("call_1", batch.clone()) };
    store
        .append_batch(
            &late,
            vec![
                header(),
                turn("t1"),
                Event::UserMessage { message_id: "m1".into(), text: "Set up the notes app".into(), source: None },
                say("I need one decision. <img src=x onerror=\"document.title='pwned'\"><script>document.title='pwned'</script>"),
                ask("call_1"),
                pending("call_1"),
                say("No answer yet, so I listed the workspace meanwhile."),
                end("t1"),
                Event::InboxQueued { message_id: "m2".into(), text: reply.clone(), source: source.clone() },
                turn("t2"),
                Event::UserMessage { message_id: "m2".into(), text: reply, source: Some(source) },
                say("Thanks, SQLite it is."),
                end("t2"),
            ],
        )
        .expect("append");
    late
}

#[tokio::test]
async fn stored_sessions_render_with_a_late_answer_and_inert_model_text() {
    if !e2e_enabled("stored_sessions_render_with_a_late_answer_and_inert_model_text") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    seed_sessions(&data_dir);
    let app = App::launch("sessions", Launch::new(&data_dir)).await;

    let sidebar = app.find("nav[aria-label='Sessions'] ul").await;
    // textContent: WebKitWebDriver's visible-text heuristics drop text in ellipsis-clipped boxes (the
    // titles are visible in the screenshot below).
    let listed = sidebar.prop("textContent").await.expect("sidebar text").unwrap_or_default();
    assert!(listed.contains("Notes app <b>bold</b>"), "titles are text, not markup: {listed}");
    assert!(listed.contains("Still waiting"), "{listed}");
    let badge = app.find("[aria-label='1 question waiting']").await;
    assert_eq!(badge.text().await.expect("badge"), "1");
    app.screenshot("sidebar").await;

    app.client
        .find(fantoccini::Locator::XPath("//nav//button[contains(., 'Notes app')]"))
        .await
        .expect("session button")
        .click()
        .await
        .expect("click session");

    // The turn that asked is closed now (its question is settled; the late answer opened the next
    // one), and a closed turn renders only its heading: open it as the person would.
    app.find_x(
        "//section[@aria-label='Transcript']//details[contains(@class,'turn')]/summary[contains(., 'Set up the notes app')]",
    )
    .await
    .click()
    .await
    .expect("open the older turn");
    let row = app.find("[data-testid='question-row'][data-state='settled']").await;
    let row_text = row.text().await.expect("row text");
    assert!(
        row_text.contains("Answered late"),
        "the row shows the late answer although its result says pending: {row_text}"
    );
    assert!(row_text.contains("SQLite"), "{row_text}");
    let reply = app.find("[data-testid='late-answer']").await.text().await.expect("late answer text");
    assert!(
        reply.contains("SQLite") && !reply.contains("answer_to_pending_question"),
        "shown as answers, not JSON: {reply}"
    );

    let transcript = app.find("section[aria-label='Transcript']").await;
    let shown = transcript.text().await.expect("transcript text");
    assert!(shown.contains("<img src=x onerror="), "model text is shown literally: {shown}");
    assert!(shown.contains("Thanks, SQLite it is."), "{shown}");
    let injected = app
        .client
        .find_all(fantoccini::Locator::Css(
            "section[aria-label='Transcript'] img, section[aria-label='Transcript'] script",
        ))
        .await
        .expect("query");
    assert!(injected.is_empty(), "model text became elements");
    assert_eq!(app.client.title().await.expect("title"), "Hark", "no injected script ran");
    app.screenshot("late-answer").await;
    app.close().await;
}
