//! A newcomer's first minutes in the real window, on a home folder of the test's own that has a
//! `~/.claude` and a `~/.codex`: "Connect what you use" opens at launch, finds both, and sets each up
//! from there (the files on disk gain Hark's entries, running the `hark` beside this build); the
//! phone is paired on the Telegram Bot API emulator from the Phone section it opens; starting at
//! login is turned on and the model step skipped. Then every Settings section is saved and, after a
//! restart on the same data directory and home, read back.

use std::path::Path;
use std::time::Duration;

use hark_core::agent_setup::{hook_command, Agent};
use hark_core::remote_hosts;
use hark_test_support::telegram::Emulator;
use serde_json::Value;

use crate::agents::hark_beside_the_app;
use crate::flows::start_keyring;
use crate::mcp::{in_view, set_value};
use crate::support::{e2e_enabled, App, Launch};

const WAIT: Duration = Duration::from_secs(30);
const TOKEN: &str = "4242:e2e-first-run-SECRET-token";
const DIALOG: &str = "//*[@role='dialog']";
const PANE: &str = "//*[@data-testid='settings-pane' and not(@hidden)]";
/// A name that never resolves (RFC 2606): the tunnel to it fails the same way with or without a network.
const NOWHERE: &str = "nosuchhost.invalid";

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON ({e}): {text}", path.display()))
}

async fn step_state(app: &App, step: &str) -> String {
    app.text_of(&format!("[data-testid='first-run-step'][data-step='{step}'] [data-testid='first-run-state']")).await
}

async fn click(app: &App, xpath: &str) {
    in_view(app, xpath).await.click().await.unwrap_or_else(|e| panic!("click {xpath:?}: {e}"));
}

async fn click_in_step(app: &App, step: &str, name: &str) {
    click(app, &format!("//li[@data-step='{step}']//button[normalize-space(.)=\"{name}\"]")).await;
}

/// The field labelled `label` in the Settings section shown.
fn field(label: &str) -> String {
    format!("{PANE}//label[.//span[normalize-space(.)=\"{label}\"]]//*[self::input or self::select]")
}

async fn checked(app: &App, xpath: &str) -> bool {
    in_view(app, xpath).await.is_selected().await.expect("checked?")
}

async fn value(app: &App, xpath: &str) -> String {
    in_view(app, xpath).await.prop("value").await.expect("value").unwrap_or_default()
}

fn launch(data_dir: &Path, home: &Path) -> Launch {
    let mut launch = Launch::new(data_dir);
    launch.env = vec![
        ("HOME".into(), home.display().to_string()),
        // The agents' real folders are never chosen: only the test's home.
        ("CLAUDE_CONFIG_DIR".into(), String::new()),
        ("CODEX_HOME".into(), String::new()),
        // No token from the test's own environment: the relay starts off, as on a first run.
        ("HARK_TELEGRAM_TOKEN".into(), String::new()),
        // The real ssh for the remote host's tunnel, reading no ssh config of this machine's.
        (remote_hosts::SSH_ENV.into(), "ssh -F none".into()),
    ];
    launch
}

#[tokio::test]
async fn the_first_run_connects_both_agents_and_a_phone_then_every_settings_section_reads_back() {
    if !e2e_enabled("the_first_run_connects_both_agents_and_a_phone_then_every_settings_section_reads_back") {
        return;
    }
    let hark = hark_beside_the_app();
    assert!(hark.is_file(), "{} is missing: cargo test --workspace --no-run builds it", hark.display());
    let program = hark.to_str().expect("a UTF-8 path").to_string();
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(home.join(".claude")).expect("~/.claude");
    std::fs::create_dir_all(home.join(".codex")).expect("~/.codex");
    let mut keyring = start_keyring(&tmp.path().join("keyring"));
    let emulator = Emulator::start().await;
    let data_dir = tmp.path().join("hark-data");
    let app = App::launch("first-run", launch(&data_dir, &home)).await;

    // Opened at launch, in place of the welcome, with what this home has.
    app.find("[data-testid='first-run']").await;
    app.wait_until("both agents found, not set up", WAIT, || async {
        step_state(&app, "claude_code").await.ends_with("not set up yet")
            && step_state(&app, "codex").await.ends_with("not set up yet")
    })
    .await;
    let claude = step_state(&app, "claude_code").await;
    assert!(claude.starts_with(&format!("Found: {}", home.join(".claude").display())), "{claude}");
    assert_eq!(step_state(&app, "phone").await, "Not paired");
    assert_eq!(step_state(&app, "startup").await, "Off");
    assert!(app.exists("[data-testid='first-run-open']").await, "the sidebar offers it too");
    let codex_about = app.text_of("[data-testid='first-run-step'][data-step='codex'] .about").await;
    assert!(codex_about.contains("only after you trust it") && codex_about.contains("/hooks"), "{codex_about}");
    app.screenshot("1-found").await;

    // Claude Code: its hook and MCP server, running this build's hark.
    click_in_step(&app, "claude_code", "Set up Claude Code").await;
    app.wait_until("Claude Code set up", WAIT, || async { step_state(&app, "claude_code").await == "Set up" }).await;
    let settings = read_json(&home.join(".claude/settings.json"));
    let hook = &settings["hooks"]["PreToolUse"][0];
    assert_eq!(hook["matcher"], "AskUserQuestion", "{settings}");
    assert_eq!(hook["hooks"][0]["command"], hook_command(&program, Agent::ClaudeCode), "{settings}");
    let server = &read_json(&home.join(".claude.json"))["mcpServers"]["hark"];
    assert_eq!(server["command"], program.as_str(), "{server}");

    // Codex: its config.toml, and the trust step said after the setup too.
    click_in_step(&app, "codex", "Set up Codex").await;
    app.wait_until("Codex set up", WAIT, || async { step_state(&app, "codex").await == "Set up" }).await;
    let config = std::fs::read_to_string(home.join(".codex/config.toml")).expect("config.toml");
    assert!(config.contains("[mcp_servers.hark]") && config.contains(&format!("command = \"{program}\"")), "{config}");
    assert!(config.contains(&hook_command(&program, Agent::Codex)), "{config}");
    let hint = app.text_of("[data-testid='first-run-step'][data-step='codex'] [data-testid='first-run-hint']").await;
    assert!(hint.contains("/hooks") && hint.contains("trust"), "{hint}");
    app.screenshot("2-agents-set-up").await;

    // The phone: Pair a phone… opens Settings on Phone; the token goes to the keyring, the emulator pairs.
    click_in_step(&app, "phone", "Pair a phone…").await;
    app.find("[data-testid='settings-pane'][data-section='phone']:not([hidden])").await;
    set_value(&app, &field("Bot API server"), &emulator.url).await;
    set_value(&app, &field("Send to the phone after (seconds; 0 = at once)"), "0").await;
    in_view(&app, &format!("{PANE}//input[@type='password']")).await.send_keys(TOKEN).await.expect("type the token");
    app.save_settings_section().await;
    app.wait_until("the relay to reach the emulator", WAIT, || async {
        app.text_of("[data-testid='phone-link']").await == "Connected to Telegram."
    })
    .await;
    click(&app, &format!("{PANE}//button[normalize-space(.)='Pair a phone']")).await;
    app.wait_until("the /start line", WAIT, || async {
        app.text_of("[data-testid='phone-start-line']").await.starts_with("/start ")
    })
    .await;
    let line = app.text_of("[data-testid='phone-start-line']").await;
    emulator.person(TOKEN, 9001, "ada").send(&line).await;
    app.wait_until("paired", WAIT, || async {
        app.text_of("[data-testid='phone-paired']").await.contains("Paired with @ada")
    })
    .await;
    app.screenshot("3-paired").await;
    app.click_button(DIALOG, "Close").await;
    app.wait_until("the phone's step to say it", WAIT, || async {
        step_state(&app, "phone").await == "Paired with @ada"
    })
    .await;

    // Starting at login, from the first run; the model left to later.
    click_in_step(&app, "startup", "Start at login").await;
    app.wait_until("starting at login on", WAIT, || async { step_state(&app, "startup").await.starts_with("On") })
        .await;
    let entry = home.join(".config/autostart/Hark.desktop");
    assert!(entry.is_file(), "no login entry at {}", entry.display());
    click_in_step(&app, "model", "Skip").await;
    app.wait_until("all set", WAIT, || async { app.text_of("[data-testid='first-run'] .all-set").await == "All set." })
        .await;
    assert!(!app.exists("[data-testid='first-run-open']").await, "nothing left: the sidebar no longer offers it");
    let record = read_json(&data_dir.join("first-run.json"));
    assert_eq!(record["skipped"], serde_json::json!(["model"]), "{record}");
    app.screenshot("4-all-set").await;

    // Every section of Settings, saved.
    app.settings_section("general").await;
    click(&app, &format!("{PANE}//label[normalize-space(.)='Do not disturb']//input")).await;
    app.save_settings_section().await;
    app.settings_section("model").await;
    in_view(&app, &field("Provider")).await.select_by_value("ollama").await.expect("choose Ollama");
    set_value(&app, &field("Model"), "qwen-e2e").await;
    app.save_settings_section().await;
    app.settings_section("questions").await;
    click(&app, &format!("{PANE}//input[@name='question-mode' and @value='stop_turn']")).await;
    set_value(&app, &field("Default timeout (seconds)"), "45").await;
    click(&app, &format!("{PANE}//label[contains(., 'Plan first')]//input")).await;
    app.save_settings_section().await;
    app.settings_section("startup").await;
    let login = format!("{PANE}//label[contains(., 'Start at login')]//input");
    assert!(checked(&app, &login).await, "on, as the first run left it");
    click(&app, &login).await;
    app.save_settings_section().await;
    assert!(!entry.exists(), "turned off: the login entry is gone");
    click(&app, &login).await;
    app.save_settings_section().await;
    assert!(entry.is_file(), "on again");
    app.settings_section("phone").await;
    set_value(&app, &field("Send to the phone after (seconds; 0 = at once)"), "7").await;
    app.save_settings_section().await;
    app.settings_section("mcp").await;
    click(&app, &format!("{PANE}//button[normalize-space(.)='Add server']")).await;
    set_value(&app, &crate::mcp::field("Server name"), "e2e-tools").await;
    set_value(&app, &crate::mcp::field("Command"), "e2e-server").await;
    click(&app, &format!("{PANE}//button[normalize-space(.)='Done']")).await;
    app.save_settings_section().await;
    app.settings_section("remote").await;
    set_value(&app, &format!("{PANE}//label[.//span[normalize-space(.)='Host, as ssh names it']]//input"), NOWHERE)
        .await;
    click(&app, &format!("{PANE}//button[normalize-space(.)='Add']")).await;
    app.find(&format!("[data-testid='remote-host'][data-host='{NOWHERE}']")).await;
    app.settings_section("agents").await;
    app.screenshot("5-settings-agents").await;
    app.click_button(DIALOG, "Close").await;
    app.wait_until("the dialog to close", WAIT, || async { !app.exists("[role='dialog']").await }).await;
    app.close().await;

    // Read back by a new run on the same data directory and home.
    let app = App::launch("first-run-again", launch(&data_dir, &home)).await;
    app.find("[data-testid='app-version']").await;
    assert!(!app.exists("[data-testid='first-run']").await, "done: not offered again");
    app.settings_section("general").await;
    assert!(checked(&app, &format!("{PANE}//label[normalize-space(.)='Do not disturb']//input")).await);
    assert!(checked(&app, &format!("{PANE}//label[normalize-space(.)='Notifications']//input")).await);
    app.settings_section("model").await;
    assert_eq!(value(&app, &field("Provider")).await, "ollama");
    assert_eq!(value(&app, &field("Model")).await, "qwen-e2e");
    app.screenshot("6-model-read-back").await;
    app.settings_section("questions").await;
    assert!(checked(&app, &format!("{PANE}//input[@name='question-mode' and @value='stop_turn']")).await);
    assert_eq!(value(&app, &field("Default timeout (seconds)")).await, "45");
    assert!(checked(&app, &format!("{PANE}//label[contains(., 'Plan first')]//input")).await);
    app.settings_section("startup").await;
    assert!(checked(&app, &login).await, "read from the login entry");
    app.settings_section("phone").await;
    assert_eq!(value(&app, &field("Send to the phone after (seconds; 0 = at once)")).await, "7");
    assert!(app.text_of("[data-testid='phone-paired']").await.contains("Paired with @ada"));
    app.settings_section("mcp").await;
    app.wait_until("the server listed", WAIT, || async {
        app.text_of("[data-testid='mcp-name']").await == "e2e-tools"
    })
    .await;
    app.settings_section("remote").await;
    app.find(&format!("[data-testid='remote-host'][data-host='{NOWHERE}']")).await;
    app.settings_section("agents").await;
    app.wait_until("both agents set up", WAIT, || async {
        let states = app.text_of("[data-agent='claude-code'] [data-testid='agent-state']").await;
        states == "Set up" && app.text_of("[data-agent='codex'] [data-testid='agent-state']").await == "Set up"
    })
    .await;
    app.screenshot("7-agents-read-back").await;
    app.close().await;
    let _ = keyring.kill();
    let _ = keyring.wait();
    crate::support::assert_secret_not_in_files(&data_dir, TOKEN);
}
