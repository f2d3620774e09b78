//! The real Codex CLI's permission requests through Hark (`hark setup codex --approvals`): its
//! interactive screen (tmux) offline against a scripted Responses server runs a command that asks
//! to leave the sandbox; the trusted `PermissionRequest` hook asks the person in Hark as an
//! approval, answered with `hark answer`. The model's next request is the oracle.
//!
//! What the real client sends the hook is kept beside the screens (`target/agent-screens`).
#![cfg(unix)]

use std::path::{Path, PathBuf};

use hark_test_support::real_agents::{self, nothing_waits, open_question, said, Asked, Host, Machine};
use hark_test_support::vendor_models::{tool_result, Api, Step, VendorModel};
use serde_json::{json, Value};

fn hark() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hark"))
}

/// `hark setup codex --approvals`, with the permission request's hook writing what Codex sends it
/// to the returned file on the way (`tee`), and `budget` as the approval's budget when given.
fn set_up(machine: &Machine, budget: Option<u64>) -> PathBuf {
    let out = machine.hark(hark(), &["setup", "codex", "--approvals"]);
    assert!(out.status.success(), "{}", said(&out));
    let path = machine.home.join(".codex/config.toml");
    let config = std::fs::read_to_string(&path).expect("config.toml");
    let (before, after) = config.split_once("[[hooks.PermissionRequest]]").unwrap_or_else(|| panic!("{config}"));
    let command = format!("{} hook codex", hark().display());
    assert!(after.contains(&format!("command = \"{command}\"")), "{config}");
    let captured = machine.home.join("permission-request.jsonl");
    let teed = after.replacen(
        &format!("command = \"{command}\""),
        &format!(
            "command = \"tee -a {} | {command}{}\"",
            captured.display(),
            budget.map(|b| format!(" --approval-budget {b}")).unwrap_or_default()
        ),
        1,
    );
    // A person who wants to be asked before a command leaves the sandbox says so (Codex's own
    // default here asks nobody and refuses the command).
    let config = format!("approval_policy = \"on-request\"\n{before}[[hooks.PermissionRequest]]{teed}");
    std::fs::write(&path, config).expect("write config.toml");
    captured
}

fn answer(machine: &Machine, asked: &Asked, answers: Value) -> std::process::Output {
    machine.hark(hark(), &["answer", &asked.session, &asked.call_id, &answers.to_string()])
}

#[tokio::test(flavor = "multi_thread")]
async fn codexs_escalated_command_allowed_in_hark_runs_and_a_denial_carries_the_reason() {
    let machine = Machine::new();
    let escalated = |id: &str, cmd: &str| {
        Step::call(
            id,
            "exec_command",
            json!({ "cmd": cmd, "sandbox_permissions": "require_escalated", "justification": "Write the marker file" }),
        )
    };
    let model = VendorModel::start(
        Api::OpenAiResponses,
        vec![
            escalated("call_allowed", "echo allowed-by-hark > marker.txt && cat marker.txt"),
            escalated("call_denied", "echo denied > other.txt"),
            Step::say("Done."),
        ],
    )
    .await;
    machine.codex_first_start(&model);
    let captured_at = set_up(&machine, None);
    let _host = Host::start(&machine, hark(), &[]);

    let screen = machine.codex_turn_with_hooks_trusted("codex-approval", "Write the marker file.");

    let asked = open_question(&machine, hark()).await;
    assert_eq!(asked.question["intent"]["kind"], "approval", "{asked:?}\n{}", screen.screen());
    assert_eq!(asked.title, format!("Codex · {}", machine.folder()), "{asked:?}");
    let events = real_agents::captured(&captured_at);
    real_agents::keep("codex-approval", "permission-request", &events);
    let event = events.first().unwrap_or_else(|| panic!("the hook got no event: {events:?}"));
    assert_eq!(event["hook_event_name"], "PermissionRequest", "{event:#}");
    let detail = asked.question["intent"]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("echo allowed-by-hark > marker.txt"), "{detail}\n{event:#}");
    // Codex takes no rule back from a hook: no "Always allow".
    assert!(asked.question["intent"].get("always").is_none(), "{asked:?}");
    let out = answer(&machine, &asked, json!({ "answers": [{ "id": "approval", "selected": ["Allow once"] }] }));
    assert!(out.status.success(), "{}", said(&out));

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let read = tool_result(Api::OpenAiResponses, &model.turns()[1], "call_allowed").expect("the call's result");
    assert!(read.contains("allowed-by-hark"), "{read}\n{}", screen.screen());
    assert!(machine.project.join("marker.txt").exists(), "{}", screen.screen());

    let asked = open_question(&machine, hark()).await;
    let reason = "not in this folder";
    let out = answer(&machine, &asked, json!({ "answers": [{ "id": "approval", "selected": [], "custom": reason }] }));
    assert!(out.status.success(), "{}", said(&out));
    model.wait_for_turns(3, real_agents::AGENT_RUN).await;
    let read = tool_result(Api::OpenAiResponses, &model.turns()[2], "call_denied").expect("the call's result");
    assert!(read.contains(reason), "the model reads the person's reason: {read}\n{}", screen.screen());
    assert!(!machine.project.join("other.txt").exists(), "a denied command never runs");
}

/// Codex runs the hook before its own prompt, so its budget is short; when it runs out nobody has
/// answered in Hark: the hook gives no decision, Codex asks in its own terminal, Hark's approval is
/// gone, and a tap after that changes nothing and says why.
#[tokio::test(flavor = "multi_thread")]
async fn codexs_approval_whose_budget_ran_out_leaves_codexs_own_prompt_and_a_late_tap_changes_nothing() {
    let machine = Machine::new();
    let model = VendorModel::start(
        Api::OpenAiResponses,
        vec![
            Step::call(
                "call_late",
                "exec_command",
                json!({ "cmd": "echo late > marker.txt", "sandbox_permissions": "require_escalated",
                        "justification": "Write the marker file" }),
            ),
            Step::say("Done."),
        ],
    )
    .await;
    machine.codex_first_start(&model);
    set_up(&machine, Some(2));
    let _host = Host::start(&machine, hark(), &[]);

    let mut screen = machine.codex_turn_with_hooks_trusted("codex-approval-budget", "Write the marker file.");

    let asked = open_question(&machine, hark()).await;
    assert_eq!(asked.question["intent"]["kind"], "approval", "{asked:?}\n{}", screen.screen());
    let shown = screen.wait_for("echo late > marker.txt", "own-prompt");
    assert!(shown.contains("Would you like to run"), "Codex's own prompt shows: {shown}");
    nothing_waits(&machine, hark(), &asked.session).await;

    real_agents::a_late_allow_allows_nothing(&machine, hark(), &asked, &machine.project.join("marker.txt"), &model)
        .await;
}
