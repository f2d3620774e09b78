//! The real Claude Code's permission request answered from the phone: `hark chat` hosts the data
//! folder with the phone paired to a local Telegram Bot API (telegram-test-api); Claude Code's
//! `PermissionRequest` hook asks in Hark, the approval's card reaches the phone with its own buttons,
//! the person denies it with a typed reason, and Claude Code's model reads that reason.
#![cfg(unix)]

use std::io::Read;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use hark_test_support::real_agents::{self, said, Machine};
use hark_test_support::telegram::Emulator;
use hark_test_support::vendor_models::{tool_result, tool_result_is_error, Api, Step, VendorModel};
use serde_json::json;

const TOKEN: &str = "777:approval-phone-token";
const PERSON: i64 = 9001;

fn hark() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hark"))
}

/// `hark chat` hosting the machine's data folder, its phone relay on; ended (stdin closed) on drop.
struct PhoneHost(Child);

impl PhoneHost {
    fn start(machine: &Machine) -> PhoneHost {
        let mut child = machine
            .command(hark())
            .arg("chat")
            .env("HARK_TELEGRAM_TOKEN", TOKEN)
            .stdin(Stdio::piped())
            .spawn()
            .expect("run hark chat");
        let mut stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            let mut byte = [0u8; 1];
            while let Ok(1) = stdout.read(&mut byte) {
                seen.push(byte[0]);
                if seen.ends_with(b"> ") {
                    let _ = tx.send(());
                }
            }
        });
        assert!(rx.recv_timeout(Duration::from_secs(30)).is_ok(), "hark chat never came to its prompt");
        PhoneHost(child)
    }
}

impl Drop for PhoneHost {
    fn drop(&mut self) {
        drop(self.0.stdin.take());
        let started = std::time::Instant::now();
        while matches!(self.0.try_wait(), Ok(None)) {
            if started.elapsed() > Duration::from_secs(10) {
                let _ = self.0.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.wait();
    }
}

/// Pairs the machine's Hark with the person's Telegram account, as `hark phone pair` asks.
async fn pair(machine: &Machine, emulator: &Emulator) {
    let mut pair = machine
        .command(hark())
        .args(["phone", "pair", "--delay", "0", "--api-url", &emulator.url])
        .env("HARK_TELEGRAM_TOKEN", TOKEN)
        .spawn()
        .expect("run hark phone pair");
    let mut stdout = pair.stdout.take().expect("stdout");
    // Read to the end (pair prints more once paired), handing over the code when it shows.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = String::new();
        let mut byte = [0u8; 1];
        let mut sent = false;
        while let Ok(1) = stdout.read(&mut byte) {
            seen.push(byte[0] as char);
            if !sent && seen.ends_with('\n') {
                if let Some(line) = seen.lines().find(|l| l.starts_with("/start ")) {
                    let _ = tx.send(line.trim_start_matches("/start ").trim().to_string());
                    sent = true;
                }
            }
        }
    });
    let code = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(30)))
        .await
        .expect("waiter")
        .expect("the pairing line");
    emulator.person(TOKEN, PERSON, "ada").send(&format!("/start {code}")).await;
    let status = tokio::task::spawn_blocking(move || pair.wait_with_output()).await.expect("waiter").expect("pair");
    assert!(status.status.success(), "{}", said(&status));
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_command_denied_from_the_phone_with_a_reason_and_the_model_reads_it() {
    let machine = Machine::new();
    machine.claude_first_start();
    let out = machine.hark(hark(), &["setup", "claude-code", "--approvals"]);
    assert!(out.status.success(), "{}", said(&out));
    machine.claude_asks_permission();
    let emulator = Emulator::start().await;
    pair(&machine, &emulator).await;
    let _host = PhoneHost::start(&machine);
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
