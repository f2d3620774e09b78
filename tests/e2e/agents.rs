//! Settings' Agents in the real window: `hark setup claude-code`, its undo and `hark setup codex` from
//! the dialog, with the `hark` beside this build's `hark-desktop`, on a home folder of the test's own
//! (`HOME`, with `CLAUDE_CONFIG_DIR` and `CODEX_HOME` emptied so the agents' real folders are never
//! chosen). The files are read back from disk.

use std::path::{Path, PathBuf};
use std::time::Duration;

use fantoccini::Locator;
use hark_core::agent_setup::{hook_command, Agent};
use serde_json::{json, Value};

use crate::mcp::in_view;
use crate::support::{e2e_enabled, App, Launch};

const WAIT: Duration = Duration::from_secs(30);
const CLAUDE_ROW: &str = "[data-testid='agent'][data-agent='claude-code']";

/// The `hark` the app registers: the one beside its own (resolved) program.
pub(crate) fn hark_beside_the_app() -> PathBuf {
    let desktop = std::fs::canonicalize(env!("CARGO_BIN_EXE_hark-desktop")).expect("the app's binary");
    desktop.with_file_name("hark")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON ({e}): {text}", path.display()))
}

/// The `textContent` of every element matching `css`, in order.
async fn texts(app: &App, css: &str) -> Vec<String> {
    let mut out = Vec::new();
    for el in app.client.find_all(Locator::Css(css)).await.expect("query") {
        out.push(el.prop("textContent").await.expect("text").unwrap_or_default().trim().to_string());
    }
    out
}

async fn claude_state(app: &App) -> String {
    app.text_of(&format!("{CLAUDE_ROW} [data-testid='agent-state']")).await
}

async fn click_in_claude_row(app: &App, name: &str) {
    let xpath = format!("//li[@data-agent='claude-code']//button[normalize-space(.)='{name}']");
    in_view(app, &xpath).await.click().await.unwrap_or_else(|e| panic!("click {name:?}: {e}"));
}

#[tokio::test]
async fn claude_code_is_set_up_and_removed_from_settings_then_codex_set_up() {
    if !e2e_enabled("claude_code_is_set_up_and_removed_from_settings_then_codex_set_up") {
        return;
    }
    let hark = hark_beside_the_app();
    assert!(hark.is_file(), "{} is missing: cargo test --workspace --no-run builds it", hark.display());
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = tmp.path().join("home");
    let settings = home.join(".claude").join("settings.json");
    let state = home.join(".claude.json");
    std::fs::create_dir_all(settings.parent().expect("folder")).expect("~/.claude");
    let before = json!({
        "model": "opus",
        "hooks": { "PreToolUse": [
            { "matcher": "Bash", "hooks": [{ "type": "command", "command": "~/bin/check-bash" }] },
        ] },
    });
    let before_text = serde_json::to_string_pretty(&before).expect("json");
    std::fs::write(&settings, &before_text).expect("settings.json");

    let data_dir = tmp.path().join("hark-data");
    let mut launch = Launch::new(&data_dir);
    launch.env = vec![
        ("HOME".into(), home.display().to_string()),
        ("CLAUDE_CONFIG_DIR".into(), String::new()),
        ("CODEX_HOME".into(), String::new()),
    ];
    let app = App::launch("agents", launch).await;

    app.settings_section("agents").await;
    app.find(CLAUDE_ROW).await;
    app.wait_until("the agents' state", WAIT, || async { claude_state(&app).await == "Not set up" }).await;
    assert_eq!(app.text_of("[data-testid='agents-program']").await, format!("Their entries run {}", hark.display()));
    let files = texts(&app, &format!("{CLAUDE_ROW} [data-testid='agent-file'] .path")).await;
    assert_eq!(files, [settings.display().to_string(), state.display().to_string()], "under the test's HOME");
    let codex = texts(&app, "[data-agent='codex'] [data-testid='agent-file'] .path").await;
    assert_eq!(codex, [home.join(".codex/config.toml").display().to_string()]);

    click_in_claude_row(&app, "Set up").await;
    app.wait_until("Claude Code set up", WAIT, || async { claude_state(&app).await == "Set up" }).await;
    let lines = texts(&app, &format!("{CLAUDE_ROW} [data-testid='agent-outcome-line']")).await;
    assert_eq!(
        lines,
        [
            format!(
                "{}: added (PreToolUse hook on AskUserQuestion, UserPromptSubmit hook, permission for Hark's MCP tools)",
                settings.display()
            ),
            format!("{}: added (MCP server hark)", state.display()),
        ]
    );
    let hint = app.text_of(&format!("{CLAUDE_ROW} [data-testid='agent-hint']")).await;
    assert!(hint.contains("start a new session"), "{hint}");

    // On disk: Hark's hook beside the hook that was there, and the MCP server, running this build's hark.
    let program = hark.to_str().expect("a UTF-8 path");
    let set_up = read_json(&settings);
    assert_eq!(set_up["model"], "opus", "{set_up}");
    assert_eq!(
        set_up["hooks"]["PreToolUse"],
        json!([
            before["hooks"]["PreToolUse"][0],
            { "matcher": "AskUserQuestion", "hooks": [
                { "type": "command", "command": hook_command(program, Agent::ClaudeCode), "timeout": 3600 },
            ] },
        ]),
        "{set_up}"
    );
    let server = &read_json(&state)["mcpServers"]["hark"];
    assert_eq!(server["command"], program, "{server}");
    assert_eq!(server["args"], json!(["mcp"]), "{server}");
    let backup = std::fs::read_to_string(home.join(".claude/settings.json.hark-backup")).expect("the backup");
    assert_eq!(backup, before_text, "the previous settings are kept beside them");
    in_view(&app, "//li[@data-agent='claude-code']").await;
    let shot = app.screenshot("1-set-up").await;
    eprintln!("screenshot: {}", shot.display());

    click_in_claude_row(&app, "Remove").await;
    app.wait_until("Claude Code removed", WAIT, || async { claude_state(&app).await == "Not set up" }).await;
    let lines = texts(&app, &format!("{CLAUDE_ROW} [data-testid='agent-outcome-line']")).await;
    assert_eq!(
        lines,
        [
            format!(
                "{}: removed (PreToolUse hook on AskUserQuestion, UserPromptSubmit hook, permission for Hark's MCP tools)",
                settings.display()
            ),
            format!("{}: removed (MCP server hark)", state.display()),
        ]
    );
    assert!(!app.exists(&format!("{CLAUDE_ROW} [data-testid='agent-hint']")).await, "no next step after Remove");
    assert_eq!(read_json(&settings), before, "the settings are as they were, the other hook kept");
    let state_after = read_json(&state);
    assert!(state_after["mcpServers"].get("hark").is_none(), "{state_after}");
    in_view(&app, "//li[@data-agent='claude-code']").await;
    app.screenshot("2-removed").await;
    assert!(!home.join(".codex").exists(), "Codex's files were not touched");

    // Codex: its one config.toml, and the reminder that Codex asks to trust a new hook.
    let codex_row = "[data-testid='agent'][data-agent='codex']";
    in_view(&app, "//li[@data-agent='codex']//button[normalize-space(.)='Set up']")
        .await
        .click()
        .await
        .expect("set up Codex");
    app.wait_until("Codex set up", WAIT, || async {
        app.text_of(&format!("{codex_row} [data-testid='agent-state']")).await == "Set up"
    })
    .await;
    let config_path = home.join(".codex/config.toml");
    let lines = texts(&app, &format!("{codex_row} [data-testid='agent-outcome-line']")).await;
    assert_eq!(
        lines,
        [format!("{}: added (MCP server hark, PreToolUse hook on request_user_input)", config_path.display())]
    );
    let hint = app.text_of(&format!("{codex_row} [data-testid='agent-hint']")).await;
    assert!(hint.contains("/hooks") && hint.contains("trust"), "{hint}");
    let config = std::fs::read_to_string(&config_path).expect("config.toml");
    assert!(config.contains("[mcp_servers.hark]") && config.contains(&format!("command = \"{program}\"")), "{config}");
    assert!(config.contains(&hook_command(program, Agent::Codex)), "{config}");
    in_view(&app, "//li[@data-agent='codex']").await;
    app.screenshot("3-codex").await;

    // Codex's permission prompts to Hark: the switch says how long Codex's own prompt is locked,
    // adds the approvals' hooks, and takes only them out again.
    let switch = format!("{codex_row} [data-testid='agent-approvals']");
    let note = app.text_of(&format!("{codex_row} [data-testid='agent-approvals-note']")).await;
    assert!(note.contains("up to a minute") && note.contains("locked"), "{note}");
    let checked = |app: &App| {
        let switch = switch.clone();
        let app = app.client.clone();
        async move {
            let el = app.find(Locator::Css(&switch)).await.expect("the switch");
            el.prop("checked").await.expect("checked").as_deref() == Some("true")
        }
    };
    assert!(!checked(&app).await, "off until turned on");
    in_view(&app, "//li[@data-agent='codex']//input[@data-testid='agent-approvals']")
        .await
        .click()
        .await
        .expect("turn on");
    app.wait_until("approvals on", WAIT, || async {
        checked(&app).await
            && texts(&app, &format!("{codex_row} [role='status'] .caption")).await
                == ["After turning permission prompts on:"]
    })
    .await;
    let lines = texts(&app, &format!("{codex_row} [data-testid='agent-outcome-line']")).await;
    let entries = "MCP server hark, PreToolUse hook on request_user_input";
    assert_eq!(lines, [format!("{}: added ({entries}, permission request hooks)", config_path.display())]);
    let config = std::fs::read_to_string(&config_path).expect("config.toml");
    assert!(config.contains("PermissionRequest"), "{config}");
    in_view(&app, "//li[@data-agent='codex']").await;
    app.screenshot("4-codex-approvals").await;
    in_view(&app, "//li[@data-agent='codex']//input[@data-testid='agent-approvals']")
        .await
        .click()
        .await
        .expect("turn off");
    app.wait_until("approvals off", WAIT, || async {
        !checked(&app).await
            && texts(&app, &format!("{codex_row} [role='status'] .caption")).await
                == ["After turning permission prompts off:"]
    })
    .await;
    let lines = texts(&app, &format!("{codex_row} [data-testid='agent-outcome-line']")).await;
    assert_eq!(lines, [format!("{}: updated ({entries}, without permission request hooks)", config_path.display())]);
    let config = std::fs::read_to_string(&config_path).expect("config.toml");
    assert!(!config.contains("PermissionRequest"), "{config}");
    assert!(config.contains(&hook_command(program, Agent::Codex)), "the question hook stays: {config}");
    assert_eq!(app.text_of(&format!("{codex_row} [data-testid='agent-state']")).await, "Set up");
    app.close().await;
}
