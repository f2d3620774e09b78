//! The real Claude Code's permission requests through Hark (`hark setup claude-code --approvals`):
//! its interactive screen (tmux) offline against a scripted Anthropic Messages server asks to run
//! a Bash command; the `PermissionRequest` hook asks the person in Hark as an approval, answered
//! with `hark answer` (Allow once, Always allow, Deny with a reason) or left to run out. The model's
//! next request is the oracle: the command's output, or the denial it reads.
//!
//! What the real client sends the hook is kept beside the screens (`target/agent-screens`), and
//! checked here for the fields Hark reads.
#![cfg(unix)]

use std::path::{Path, PathBuf};

use hark_test_support::real_agents::{self, nothing_waits, open_question, questions, said, Asked, Host, Machine};
use hark_test_support::vendor_models::{tool_result, tool_result_is_error, Api, Step, VendorModel};
use serde_json::{json, Value};

fn hark() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hark"))
}

/// `hark setup claude-code --approvals`, with the permission request's hook writing what Claude Code
/// sends it to `captured` on the way (`tee`), and `budget` as the approval's budget when given.
fn set_up(machine: &Machine, budget: Option<u64>) -> PathBuf {
    let out = machine.hark(hark(), &["setup", "claude-code", "--approvals"]);
    assert!(out.status.success(), "{}", said(&out));
    let path = machine.home.join(".claude/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("settings.json")).expect("JSON");
    for event in ["PermissionRequest", "PostToolUse", "PermissionDenied"] {
        let command = settings["hooks"][event][0]["hooks"][0]["command"].as_str().unwrap_or_default().to_string();
        assert!(command.ends_with(" hook claude-code"), "{event}: {settings:#}");
    }
    let captured = machine.home.join("permission-request.jsonl");
    let slot = &mut settings["hooks"]["PermissionRequest"][0]["hooks"][0]["command"];
    let command = slot.as_str().unwrap_or_default().to_string();
    let budget = budget.map(|b| format!(" --approval-budget {b}")).unwrap_or_default();
    *slot = json!(format!("tee -a {} | {command}{budget}", captured.display()));
    std::fs::write(&path, format!("{settings:#}\n")).expect("write settings.json");
    machine.claude_asks_permission();
    captured
}

fn bash(id: &str, command: &str) -> Step {
    Step::call(id, "Bash", json!({ "command": command, "description": "Write the marker file" }))
}

/// Waits (bounded) for the approval Hark shows.
async fn approval(machine: &Machine) -> Asked {
    let asked = open_question(machine, hark()).await;
    assert_eq!(asked.question["intent"]["kind"], "approval", "{asked:?}");
    asked
}

/// `hark answer` with `answers` for the approval; its output.
fn answer(machine: &Machine, asked: &Asked, answers: Value) -> std::process::Output {
    machine.hark(hark(), &["answer", &asked.session, &asked.call_id, &answers.to_string()])
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_bash_command_allowed_once_in_hark_runs_and_the_model_reads_its_output() {
    let machine = Machine::new();
    machine.claude_first_start();
    let captured_at = set_up(&machine, None);
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![bash("toolu_bash", "echo allowed-by-hark > marker.txt && cat marker.txt"), Step::say("Done.")],
    )
    .await;
    let screen = machine.claude_screen("claude-approval-allowed", &model, "Write the marker file.");

    let asked = approval(&machine).await;
    assert_eq!(asked.title, format!("Claude Code · {}", machine.folder()), "{asked:?}");
    let intent = &asked.question["intent"];
    assert_eq!(intent["tool"], "Bash", "{intent}");
    assert_eq!(intent["detail"], "Write the marker file\n$ echo allowed-by-hark > marker.txt && cat marker.txt");
    let question = &asked.question["questions"][0];
    assert_eq!(question["question"], "Allow Claude Code to run `echo allowed-by-hark > marker.txt && cat marker.txt`?");
    let out = answer(&machine, &asked, json!({ "answers": [{ "id": "approval", "selected": ["Allow once"] }] }));
    assert!(out.status.success(), "{}", said(&out));

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let turn = &model.turns()[1];
    let read = tool_result(Api::AnthropicMessages, turn, "toolu_bash").expect("the call's result");
    assert!(!tool_result_is_error(Api::AnthropicMessages, turn, "toolu_bash"), "{read}\n{}", screen.screen());
    assert!(read.contains("allowed-by-hark"), "{read}");
    assert_eq!(std::fs::read_to_string(machine.project.join("marker.txt")).unwrap_or_default(), "allowed-by-hark\n");

    let events = real_agents::captured(&captured_at);
    real_agents::keep("claude-approval-allowed", "permission-request", &events);
    let event = events.first().unwrap_or_else(|| panic!("the hook got no event: {events:?}"));
    assert_eq!(event["hook_event_name"], "PermissionRequest", "{event:#}");
    assert_eq!(event["tool_name"], "Bash", "{event:#}");
    assert_eq!(event["tool_input"]["command"], "echo allowed-by-hark > marker.txt && cat marker.txt", "{event:#}");
    assert!(event.get("tool_use_id").is_none(), "it carries no tool_use_id: {event:#}");
    // Settled: nothing of it waits in Hark any more.
    nothing_waits(&machine, hark(), &asked.session).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_command_denied_in_hark_with_a_reason_never_runs_and_the_model_reads_the_reason() {
    let machine = Machine::new();
    machine.claude_first_start();
    set_up(&machine, None);
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![bash("toolu_bash", "echo denied > marker.txt"), Step::say("I will not write it.")],
    )
    .await;
    let screen = machine.claude_screen("claude-approval-denied", &model, "Write the marker file.");

    let asked = approval(&machine).await;
    let reason = "use the staging folder instead";
    let out = answer(&machine, &asked, json!({ "answers": [{ "id": "approval", "selected": [], "custom": reason }] }));
    assert!(out.status.success(), "{}", said(&out));

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let turn = &model.turns()[1];
    let read = tool_result(Api::AnthropicMessages, turn, "toolu_bash").expect("the call's result");
    assert!(tool_result_is_error(Api::AnthropicMessages, turn, "toolu_bash"), "{read}\n{}", screen.screen());
    assert!(read.contains(reason), "the model reads the person's reason: {read}");
    assert!(!machine.project.join("marker.txt").exists(), "a denied command never runs");
}

/// Nobody answers in Hark within the approval's budget: the hook gives no decision, Claude Code's own
/// prompt shows in its terminal, Hark's approval is gone, and a tap after that changes nothing and
/// says why.
#[tokio::test(flavor = "multi_thread")]
async fn an_approval_whose_budget_ran_out_leaves_claude_codes_own_prompt_and_a_late_tap_changes_nothing() {
    let machine = Machine::new();
    machine.claude_first_start();
    set_up(&machine, Some(2));
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![bash("toolu_bash", "echo late > marker.txt"), Step::say("Done.")],
    )
    .await;
    let mut screen = machine.claude_screen("claude-approval-budget", &model, "Write the marker file.");

    let asked = approval(&machine).await;
    let shown = screen.wait_for("Do you want to proceed?", "own-prompt");
    assert!(shown.contains("echo late > marker.txt"), "{shown}");
    nothing_waits(&machine, hark(), &asked.session).await;

    real_agents::a_late_allow_allows_nothing(&machine, hark(), &asked, &machine.project.join("marker.txt"), &model)
        .await;
}

/// The person answers in Claude Code's own prompt while Hark's approval waits: Hark hears of it
/// (the call ran: `PostToolUse`) and the approval ends everywhere.
#[tokio::test(flavor = "multi_thread")]
async fn an_approval_answered_in_claude_codes_own_prompt_is_withdrawn_from_hark() {
    let machine = Machine::new();
    machine.claude_first_start();
    set_up(&machine, None);
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![bash("toolu_bash", "echo in-terminal > marker.txt"), Step::say("Done.")],
    )
    .await;
    let mut screen = machine.claude_screen("claude-approval-in-terminal", &model, "Write the marker file.");

    let asked = approval(&machine).await;
    screen.wait_for("Do you want to proceed?", "own-prompt-while-hark-waits");
    screen.keys(&["Enter"]);
    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    assert!(machine.project.join("marker.txt").exists(), "{}", screen.screen());
    nothing_waits(&machine, hark(), &asked.session).await;
    let out = answer(&machine, &asked, json!({ "answers": [{ "id": "approval", "selected": ["Deny"] }] }));
    assert_eq!(out.status.code(), Some(3), "{}", said(&out));
}

/// "Always allow" gives Claude Code back the rule it offered: Claude Code keeps it where it keeps
/// permissions (`.claude/settings.local.json` in the project, `permissions.allow`), and the same
/// command later runs without asking anyone.
#[tokio::test(flavor = "multi_thread")]
async fn always_allow_is_kept_by_claude_code_and_the_command_is_not_asked_again() {
    let machine = Machine::new();
    machine.claude_first_start();
    let captured_at = set_up(&machine, None);
    let _host = Host::start(&machine, hark(), &[]);
    let command = "npm run test:unit";
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![
            Step::call("toolu_first", "Bash", json!({ "command": command, "description": "Run the unit tests" })),
            Step::call("toolu_again", "Bash", json!({ "command": command, "description": "Run the unit tests" })),
            Step::say("Tested twice."),
        ],
    )
    .await;
    let screen = machine.claude_screen("claude-approval-always", &model, "Run the unit tests twice.");

    let asked = approval(&machine).await;
    let events = real_agents::captured(&captured_at);
    real_agents::keep("claude-approval-always", "permission-request", &events);
    let always = asked.question["intent"]["always"].as_str().unwrap_or_default().to_string();
    // Claude Code 2.1.328 offers `Bash(npm run *)` for the project (`localSettings`).
    assert_eq!(always, "always allow `Bash(npm run *)` in this project", "{events:#?}");
    let labels: Vec<&str> = asked.question["questions"][0]["options"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["label"].as_str())
        .collect();
    assert_eq!(labels, ["Allow once", "Always allow", "Deny"]);
    let out = answer(&machine, &asked, json!({ "answers": [{ "id": "approval", "selected": ["Always allow"] }] }));
    assert!(out.status.success(), "{}", said(&out));

    model.wait_for_turns(3, real_agents::AGENT_RUN).await;
    let kept = std::fs::read_to_string(machine.project.join(".claude/settings.local.json")).unwrap_or_default();
    let kept: Value = serde_json::from_str(&kept).unwrap_or(Value::Null);
    let rules = kept["permissions"]["allow"].as_array().cloned().unwrap_or_default();
    assert!(rules.iter().any(|r| r.as_str().is_some_and(|r| r == "Bash(npm run *)")), "{kept:#}\n{}", screen.screen());
    // The second call ran without a permission request: the hook heard of one call only.
    assert_eq!(real_agents::captured(&captured_at).len(), 1, "{:#?}", real_agents::captured(&captured_at));
    let turns = model.turns();
    for (turn, id) in [(&turns[1], "toolu_first"), (&turns[2], "toolu_again")] {
        let read = tool_result(Api::AnthropicMessages, turn, id).expect("the call's result");
        assert!(!read.contains("denied") && !read.contains("permission"), "{id}: {read}");
    }
    let listed = questions(&machine, hark(), &asked.session);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "one approval only: {listed}");
}
