//! MCP forms inside the real Claude Code answered in Hark (`hark setup claude-code --approvals`):
//! its interactive screen (tmux) offline against a scripted Anthropic Messages server calls a tool
//! of an MCP server on the official Python SDK (`tests/mcp/elicit_server.py`, its `banner` tool), which asks the person
//! for values (`elicitation/create`). Claude Code's `Elicitation` hook asks them in Hark as a form;
//! the person answers or declines it there. The server returns what it received, so the model's
//! next request is the oracle: the tool result carries the action and the typed content.
//!
//! What the real client sends the hook is kept beside the screens (`target/agent-screens`), and
//! checked here for the fields Hark reads.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hark_core::front_door::{FrontDoor, Remote};
use hark_test_support::real_agents::{self, said, Asked, Host, Machine};
use hark_test_support::vendor_models::{tool_result, Api, Step, VendorModel};
use serde_json::{json, Value};

fn hark() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hark"))
}

/// `hark setup claude-code --approvals`, with the form's hook writing what Claude Code sends it to
/// the returned file on the way (`tee`); the elicit server added as a user-scope MCP server, its
/// tools allowed (so no permission request comes first). `hooked: false` takes Hark's `Elicitation`
/// hook out again, for the check that without it nothing reaches Hark; `budget` is the form's
/// budget when given.
fn set_up(machine: &Machine, hooked: bool, budget: Option<u64>) -> PathBuf {
    let out = machine.hark(hark(), &["setup", "claude-code", "--approvals"]);
    assert!(out.status.success(), "{}", said(&out));
    let path = machine.home.join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("settings.json")).expect("JSON");
    let captured = machine.home.join("elicitation.jsonl");
    let slot = &mut settings["hooks"]["Elicitation"][0]["hooks"][0]["command"];
    let command = slot.as_str().unwrap_or_default().to_string();
    assert!(command.ends_with(" hook claude-code"), "{settings:#}");
    let budget = budget.map(|b| format!(" --approval-budget {b}")).unwrap_or_default();
    *slot = json!(format!("tee -a {} | {command}{budget}", captured.display()));
    if !hooked {
        settings["hooks"].as_object_mut().map(|hooks| hooks.remove("Elicitation"));
    }
    settings["permissions"]["allow"] = json!(["mcp__elicit"]);
    std::fs::write(&path, format!("{settings:#}\n")).expect("write settings.json");

    let state_path = machine.home.join(".claude.json");
    let mut state: Value =
        serde_json::from_str(&std::fs::read_to_string(&state_path).expect(".claude.json")).expect("JSON");
    let (python, script) = real_agents::elicit_server();
    state["mcpServers"]["elicit"] = json!({ "type": "stdio", "command": python, "args": [script] });
    std::fs::write(&state_path, format!("{state:#}\n")).expect("write .claude.json");
    captured
}

/// Claude Code's model, as a real one goes about it: loads the server's deferred tool, calls it,
/// then ends.
fn picking_model() -> Vec<Step> {
    vec![
        Step::call("toolu_search", "ToolSearch", json!({ "query": "select:mcp__elicit__banner", "max_results": 1 })),
        Step::call("toolu_banner", "mcp__elicit__banner", json!({})),
        Step::say("The banner colour is set."),
    ]
}

/// Every question waiting in Hark, as the front door's inbox lists them (a form lives only while
/// the agent waits for it, so it is in the inbox, not in a session's recorded questions).
async fn inbox(machine: &Machine) -> Vec<Value> {
    let listed = Remote::new(&machine.data).inbox().await.expect("the inbox");
    listed.iter().map(|entry| serde_json::to_value(entry).unwrap_or_default()).collect()
}

/// Waits (bounded) for the form Hark shows.
async fn form(machine: &Machine) -> Asked {
    let started = Instant::now();
    loop {
        if let Some(entry) = inbox(machine).await.into_iter().next() {
            assert_eq!(entry["intent"]["kind"], "form", "{entry:#}");
            return Asked {
                session: entry["session_id"].as_str().unwrap_or_default().to_string(),
                title: entry["session_title"].as_str().unwrap_or_default().to_string(),
                call_id: entry["call_id"].as_str().unwrap_or_default().to_string(),
                question: entry,
            };
        }
        assert!(started.elapsed() < real_agents::AGENT_RUN, "no form reached Hark within {:?}", real_agents::AGENT_RUN);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What `hark show` prints of the session's log.
fn log(machine: &Machine, session: &str) -> String {
    String::from_utf8_lossy(&machine.hark(hark(), &["show", session]).stdout).into_owned()
}

/// What the server returned to the model for its tool call, as JSON. Claude Code shows its model a
/// result's `structuredContent`, where the SDK wraps the tool's text as `{"result": ...}`.
async fn server_returned(model: &VendorModel) -> Value {
    model.wait_for_turns(3, real_agents::AGENT_RUN).await;
    let turn = &model.turns()[2];
    let read = tool_result(Api::AnthropicMessages, turn, "toolu_banner").expect("the call's result");
    let wrapped: Value = serde_json::from_str(&read).unwrap_or_else(|e| panic!("{e}: {read}"));
    let text = wrapped["result"].as_str().unwrap_or_else(|| panic!("no result in {read}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {read}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_form_inside_claude_code_answered_in_hark_reaches_the_server_typed_and_the_model_reads_it() {
    let machine = Machine::new();
    machine.claude_first_start();
    let captured_at = set_up(&machine, true, None);
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(Api::AnthropicMessages, picking_model()).await;
    let screen = machine.claude_screen("claude-form-answered", &model, "Pick the banner colour.");

    let asked = form(&machine).await;
    assert_eq!(asked.title, format!("Claude Code · {}", machine.folder()), "{asked:?}");
    let intent = &asked.question["intent"];
    assert_eq!(
        (intent["server"].as_str(), intent["message"].as_str()),
        (Some("elicit"), Some("Pick a colour for the banner"))
    );
    let question = &asked.question["questions"][0];
    assert_eq!(question["id"], "colour", "{question}");
    let labels: Vec<&str> =
        question["options"].as_array().into_iter().flatten().filter_map(|o| o["label"].as_str()).collect();
    assert_eq!(labels, ["red", "green"]);
    real_agents::answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "colour", "selected": ["green"] }] }));

    let returned = server_returned(&model).await;
    assert_eq!(returned, json!({ "action": "accept", "content": { "colour": "green" } }), "{}", screen.screen());
    let events = real_agents::captured(&captured_at);
    real_agents::keep("claude-form-answered", "elicitation", &events);
    let event = events.first().unwrap_or_else(|| panic!("the hook got no event: {events:?}"));
    assert_eq!(event["hook_event_name"], "Elicitation", "{event:#}");
    assert_eq!(event["mcp_server_name"], "elicit", "{event:#}");
    assert_eq!(event["requested_schema"]["properties"]["colour"]["enum"], json!(["red", "green"]), "{event:#}");
    // The form ended everywhere, and the session's log holds it with the person's answer.
    assert_eq!(inbox(&machine).await, Vec::<Value>::new());
    let log = log(&machine, &asked.session);
    assert!(log.contains("mcp/form") && log.contains("elicit: Pick a colour for the banner -> accept"), "{log}");
    assert!(log.contains("green"), "{log}");
}

/// The person declines the form in Hark (its Decline button), or closes it: the server hears
/// `decline` or `cancel`, with no content.
async fn ended_in_hark(name: &'static str, decline: bool) {
    let machine = Machine::new();
    machine.claude_first_start();
    set_up(&machine, true, None);
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(Api::AnthropicMessages, picking_model()).await;
    let screen = machine.claude_screen(name, &model, "Pick the banner colour.");

    let asked = form(&machine).await;
    let door = Remote::new(&machine.data);
    let ended = if decline {
        door.decline(&asked.session, &asked.call_id).await
    } else {
        door.cancel(&asked.session, &asked.call_id).await
    };
    ended.expect("end the form in Hark");

    let action = if decline { "decline" } else { "cancel" };
    let returned = server_returned(&model).await;
    assert_eq!(returned["action"], action, "{returned}\n{}", screen.screen());
    assert!(returned["content"].is_null(), "{returned}");
    let log = log(&machine, &asked.session);
    assert!(log.contains(&format!("elicit: Pick a colour for the banner -> {action}")), "{log}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_form_declined_in_hark_reaches_the_server_as_decline() {
    ended_in_hark("claude-form-declined", true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_form_closed_in_hark_reaches_the_server_as_cancel() {
    ended_in_hark("claude-form-closed", false).await;
}

/// Without Hark's `Elicitation` hook the form never reaches Hark: Claude Code shows its own. (The
/// check that the tests above fail without the hook.)
#[tokio::test(flavor = "multi_thread")]
async fn without_the_hook_claude_code_shows_its_own_form_and_hark_has_none() {
    let machine = Machine::new();
    machine.claude_first_start();
    set_up(&machine, false, None);
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(Api::AnthropicMessages, picking_model()).await;
    let mut screen = machine.claude_screen("claude-form-unhooked", &model, "Pick the banner colour.");

    screen.wait_for("Pick a colour for the banner", "own-form");
    assert_eq!(inbox(&machine).await, Vec::<Value>::new(), "nothing of the form in Hark");
    assert_eq!(model.turns().len(), 2, "the tool call waits on Claude Code's own form");
}

/// Nobody answers in Hark within the budget: the hook gives no decision, Claude Code shows its own
/// form, and Hark's form is gone from every surface, recorded as cancelled.
#[tokio::test(flavor = "multi_thread")]
async fn a_form_whose_budget_ran_out_leaves_claude_codes_own_form_and_ends_in_hark() {
    let machine = Machine::new();
    machine.claude_first_start();
    set_up(&machine, true, Some(2));
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(Api::AnthropicMessages, picking_model()).await;
    let mut screen = machine.claude_screen("claude-form-budget", &model, "Pick the banner colour.");

    let asked = form(&machine).await;
    screen.wait_for("Pick a colour for the banner", "own-form-after-budget");
    // Gone from every surface, and recorded (just after) in the log as cancelled.
    let started = Instant::now();
    while !inbox(&machine).await.is_empty() || !log(&machine, &asked.session).contains("-> cancel") {
        assert!(started.elapsed() < real_agents::AGENT_RUN, "the form still waits in Hark");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = log(&machine, &asked.session);
    assert!(log.contains("elicit: Pick a colour for the banner -> cancel"), "{log}");
    assert_eq!(model.turns().len(), 2, "the tool call waits on Claude Code's own form");
}
