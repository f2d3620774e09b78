//! The real Claude Code and Codex (installed by `make test` in tests/agents, offline against
//! scripted model servers on 127.0.0.1) asking the person through the real desktop app, set up by
//! `hark setup` exactly as a person runs it: Claude Code's own question answered in the window,
//! Codex's question over Hark's MCP server answered from a notification, Claude Code's permission
//! request allowed in the window. The model's next request is the oracle: it carries the person's
//! answer, or the output of the command they allowed.

use std::time::Duration;

use hark_test_support::real_agents::{self, said, Machine};
use hark_test_support::vendor_models::{tool_result, Api, Step, VendorModel};
use serde_json::json;

use crate::mcp_client::sidebar;
use crate::notifications::{move_focus_away, pairs};
use crate::support::notifications::NotificationServer;
use crate::support::{e2e_enabled, hark_cli, row_state, App, Launch, PANEL};

const PANEL_CSS: &str = "section[aria-label='Question']";
const SESSION_ROW: &str = "nav[aria-label='Sessions'] button[data-session-id]";
const WAIT: Duration = Duration::from_secs(30);

/// Opens Claude Code's session once it is in the sidebar: the text of the question it waits on.
async fn claude_codes_question(app: &App) -> String {
    app.wait_until("Claude Code's session in the sidebar", WAIT, || async {
        sidebar(app).await.contains("Claude Code")
    })
    .await;
    app.find(SESSION_ROW).await.click().await.expect("open Claude Code's session");
    app.find(PANEL_CSS).await;
    app.text_of(PANEL_CSS).await
}

#[tokio::test]
async fn claude_codes_own_question_is_answered_in_the_window_and_its_model_reads_the_answer() {
    if !e2e_enabled("claude_codes_own_question_is_answered_in_the_window_and_its_model_reads_the_answer") {
        return;
    }
    let machine = Machine::new();
    machine.claude_first_start();
    let out = machine.hark(&hark_cli(), &["setup", "claude-code"]);
    assert!(out.status.success(), "{}", said(&out));
    let app = App::launch("real-claude-window", Launch::new(&machine.data)).await;
    app.find("textarea[aria-label='Message']").await;

    let own = real_agents::claude_own_question();
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![Step::call("toolu_own", "AskUserQuestion", own), Step::say("Postgres it is.")],
    )
    .await;
    let screen = machine.claude_screen("e2e-claude-window", &model, "Set up the database; ask me which one.");

    let panel = claude_codes_question(&app).await;
    assert!(panel.contains("Which database?") && panel.contains("Postgres"), "{panel}\n{}", screen.screen());
    assert!(sidebar(&app).await.contains(&format!("Claude Code · {}", machine.folder())));
    app.screenshot("1-asked").await;
    app.click_option("Postgres").await;
    app.click_button(PANEL, "Submit").await;

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let read = tool_result(Api::AnthropicMessages, &model.turns()[1], "toolu_own").expect("the call's result");
    assert!(read.contains(r#""Which database?"="Postgres""#), "{read}\n{}", screen.screen());
    app.wait_until("the answered row", WAIT, || async { row_state(&app).await == "settled" }).await;
    app.screenshot("2-answered").await;
    app.close().await;
}

#[tokio::test]
async fn codexs_question_over_mcp_is_answered_from_a_notification_and_its_model_reads_the_answer() {
    if !e2e_enabled("codexs_question_over_mcp_is_answered_from_a_notification_and_its_model_reads_the_answer") {
        return;
    }
    let notifications = NotificationServer::start(true).await;
    let machine = Machine::new();
    let question = json!({ "questions": [{ "id": "db", "question": "Which database?", "header": "Database",
        "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres", "description": "server" }] }] });
    let model = VendorModel::start(
        Api::OpenAiResponses,
        vec![Step::call_in("call_ask", "mcp__hark", "ask_user_question", question), Step::say("Done asking.")],
    )
    .await;
    machine.codex_first_start(&model);
    let out = machine.hark(&hark_cli(), &["setup", "codex"]);
    assert!(out.status.success(), "{}", said(&out));
    let app = App::launch("real-codex-notify", Launch::new(&machine.data)).await;
    app.find("textarea[aria-label='Message']").await;
    move_focus_away(&app).await;

    let run = real_agents::start(machine.codex("Set up the database; ask me which one."));
    let n = notifications.wait_for("Codex's question", WAIT, |n| n.summary.contains("Codex")).await;
    assert_eq!(n.summary, "Codex asks · Database", "the notification names who asks");
    assert_eq!(n.body, "Which database?");
    assert_eq!(
        pairs(&n),
        [("default", "Open"), ("option:0", "SQLite"), ("option:1", "Postgres"), ("answer", "Answer…")]
    );
    notifications.invoke(n.id, "option:1").await;

    let out = run.await.expect("the agent's waiter");
    assert!(out.status.success(), "{}", said(&out));
    let turns = model.turns();
    let read = tool_result(Api::OpenAiResponses, &turns[1], "call_ask").expect("the call's result");
    assert_eq!(real_agents::codex_output(&read), json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
    app.close().await;
}

#[tokio::test]
async fn claude_codes_permission_request_is_allowed_in_the_window_and_the_command_runs() {
    if !e2e_enabled("claude_codes_permission_request_is_allowed_in_the_window_and_the_command_runs") {
        return;
    }
    let machine = Machine::new();
    machine.claude_first_start();
    let out = machine.hark(&hark_cli(), &["setup", "claude-code", "--approvals"]);
    assert!(out.status.success(), "{}", said(&out));
    machine.claude_asks_permission();
    let app = App::launch("real-claude-approval", Launch::new(&machine.data)).await;
    app.find("textarea[aria-label='Message']").await;

    let command = "echo allowed-in-the-window > marker.txt && cat marker.txt";
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![
            Step::call("toolu_bash", "Bash", json!({ "command": command, "description": "Write the marker file" })),
            Step::say("Written."),
        ],
    )
    .await;
    let screen = machine.claude_screen("e2e-claude-approval", &model, "Write the marker file.");

    let panel = claude_codes_question(&app).await;
    assert!(panel.contains("Claude Code asks permission to use Bash"), "{panel}\n{}", screen.screen());
    assert!(panel.contains(&format!("$ {command}")), "the command itself: {panel}");
    assert!(!machine.project.join("marker.txt").exists(), "nothing runs before the person allows it");
    app.screenshot("1-asked").await;
    app.click_option("Allow once").await;
    app.click_button(PANEL, "Submit").await;

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let read = tool_result(Api::AnthropicMessages, &model.turns()[1], "toolu_bash").expect("the call's result");
    assert!(
        read.contains("allowed-in-the-window"),
        "the model reads the command's output: {read}\n{}",
        screen.screen()
    );
    eprintln!("the model's next request carried, for toolu_bash: {read}");
    app.wait_until("the panel to go", WAIT, || async { !app.exists(PANEL_CSS).await }).await;
    app.screenshot("2-allowed").await;
    app.close().await;
}
