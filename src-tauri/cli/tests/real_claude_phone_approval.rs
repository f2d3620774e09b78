//! The real Claude Code's permission request answered from the phone: `hark chat` hosts the data
//! folder with the phone paired to a local Telegram Bot API (telegram-test-api); Claude Code's
//! `PermissionRequest` hook asks in Hark, the approval's card reaches the phone with its own buttons,
//! the person denies it with a typed reason, and Claude Code's model reads that reason.
#![cfg(unix)]

use std::path::Path;

use hark_test_support::real_agents::{self, said, Host, Machine};
use hark_test_support::telegram::Emulator;
use hark_test_support::vendor_models::{tool_result, tool_result_is_error, Api, Step, VendorModel};
use serde_json::json;

const TOKEN: &str = "777:approval-phone-token";
const PERSON: i64 = 9001;

fn hark() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hark"))
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_command_denied_from_the_phone_with_a_reason_and_the_model_reads_it() {
    let machine = Machine::new();
    machine.claude_first_start();
    let out = machine.hark(hark(), &["setup", "claude-code", "--approvals"]);
    assert!(out.status.success(), "{}", said(&out));
    machine.claude_asks_permission();
    let emulator = Emulator::start().await;
    real_agents::pair_phone(&machine, hark(), &emulator, TOKEN, PERSON).await;
    let _host = Host::start_with_env(&machine, hark(), &[], &[("HARK_TELEGRAM_TOKEN", TOKEN)]);
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![
            Step::call("toolu_bash", "Bash", json!({ "command": "rm -rf build", "description": "Clean the build" })),
            Step::say("Left it."),
        ],
    )
    .await;
    std::fs::create_dir_all(machine.project.join("build")).expect("build folder");
    let screen = machine.claude_screen("claude-approval-phone", &model, "Clean the build.");

    let card = emulator.wait_message(TOKEN, "the approval's card", |m| m.text.starts_with("❓ Approval")).await;
    assert!(card.text.contains("Clean the build\n$ rm -rf build"), "{}", card.text);
    let labels: Vec<&str> = card.buttons.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels.first(), Some(&"Allow once"), "{labels:?}");
    assert_eq!(labels[labels.len() - 2..], ["Deny", "Deny with a reason…"], "no Skip, no Other: {labels:?}");
    let _ = std::fs::create_dir_all(real_agents::captures());
    let drawn = real_agents::captures().join("claude-approval-phone.card.png");
    card.draw(&drawn);
    eprintln!("the card as the phone shows it: {}", drawn.display());
    let ada = emulator.person(TOKEN, PERSON, "ada");
    ada.press(&card, "Deny with a reason…").await;
    let prompt = emulator.wait_message(TOKEN, "the reply prompt", |m| m.force_reply).await;
    let reason = "keep the build, I am comparing it";
    ada.reply(&prompt, reason).await;

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let turn = &model.turns()[1];
    let read = tool_result(Api::AnthropicMessages, turn, "toolu_bash").expect("the call's result");
    assert!(tool_result_is_error(Api::AnthropicMessages, turn, "toolu_bash"), "{read}\n{}", screen.screen());
    assert!(read.contains(reason), "the model reads the reason typed on the phone: {read}");
    eprintln!("the model's next request carried, for toolu_bash: {read}");
    assert!(machine.project.join("build").exists(), "a denied command never runs");
    let settled = emulator
        .wait_message(TOKEN, "the card without its buttons", |m| {
            m.message_id == card.message_id && m.buttons.is_empty()
        })
        .await;
    assert!(
        settled.text.ends_with("✓ Answered from this phone: denied: keep the build, I am comparing it"),
        "{}",
        settled.text
    );
    settled.draw(&real_agents::captures().join("claude-approval-phone.card-answered.png"));
}
