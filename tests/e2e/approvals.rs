//! An agent's permission request through `hark hook`, run exactly as Claude Code runs its
//! `PermissionRequest` command hook (the event as the real Claude Code 2.1.328 sends it, on stdin;
//! the decision read from stdout) against the real app: shown in the panel for a person (the
//! agent, the tool, the command) and allowed there; denied from a notification's button; drawn by
//! a real notification daemon and allowed with a press on its button.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::hooks::Hook;
use crate::mcp_client::{dirs, sidebar};
use crate::notifications::{move_focus_away, pairs};
use crate::support::notification_daemon::NotificationDaemon;
use crate::support::notifications::NotificationServer;
use crate::support::{e2e_enabled, App, Launch, PANEL};

const PANEL_CSS: &str = "section[aria-label='Question']";
const SESSION_ROW: &str = "nav[aria-label='Sessions'] button[data-session-id]";
const WAIT: Duration = Duration::from_secs(30);

/// The event as Claude Code sends it (its fields as captured from the real client).
fn permission_request(cwd: &Path) -> Value {
    json!({
        "session_id": "438a03f2-claude", "transcript_path": "/dev/null", "cwd": cwd,
        "permission_mode": "default", "hook_event_name": "PermissionRequest", "tool_name": "Bash",
        "tool_input": { "command": "npm publish --tag next", "description": "Publish the package" },
        "permission_suggestions": [{ "type": "addRules", "rules": [{ "toolName": "Bash", "ruleContent": "npm publish:*" }],
                                     "behavior": "allow", "destination": "localSettings" }],
    })
}

/// `hark hook claude-code` with `event` on stdin, as Claude Code runs its `PermissionRequest` hook.
fn start_hook(data_dir: &Path, cwd: &Path, event: Value) -> Hook {
    Hook::start(data_dir, cwd, "claude-code", &[], event)
}

/// The decision as Claude Code reads it.
async fn decision(hook: Hook) -> Value {
    hook.output("PermissionRequest").await["decision"].clone()
}

#[tokio::test]
async fn claude_codes_permission_request_shown_in_the_panel_and_allowed_there() {
    if !e2e_enabled("claude_codes_permission_request_shown_in_the_panel_and_allowed_there") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("approval-window", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    let hook = start_hook(&data_dir, &project, permission_request(&project));
    app.wait_until("the agent's session in the sidebar", WAIT, || async {
        sidebar(&app).await.contains("Claude Code")
    })
    .await;
    app.find(SESSION_ROW).await.click().await.expect("open the agent's session");
    app.find(PANEL_CSS).await;
    let panel = app.text_of(PANEL_CSS).await;
    assert!(panel.contains("Claude Code asks permission to use Bash"), "{panel}");
    assert!(panel.contains("Allow Claude Code to run `npm publish --tag next`?"), "{panel}");
    assert!(panel.contains("$ npm publish --tag next"), "the command itself: {panel}");
    assert!(panel.contains("Always allow `Bash(npm publish:*)` in this project"), "the rule in words: {panel}");
    app.screenshot("approval-1-panel").await;
    app.click_option("Allow once").await;
    app.click_button(PANEL, "Submit").await;

    let decision = decision(hook).await;
    assert_eq!(decision["behavior"], "allow", "{decision}");
    assert_eq!(decision["updatedInput"], permission_request(&project)["tool_input"], "the input echoed");
    assert!(decision.get("updatedPermissions").is_none(), "allowed once keeps no rule: {decision}");
    app.wait_until("the panel to go", WAIT, || async { !app.exists(PANEL_CSS).await }).await;
    app.screenshot("approval-2-allowed").await;
    app.close().await;
}

#[tokio::test]
async fn claude_codes_permission_request_denied_from_a_notification() {
    if !e2e_enabled("claude_codes_permission_request_denied_from_a_notification") {
        return;
    }
    let notifications = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("approval-notify", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;
    move_focus_away(&app).await;

    let hook = start_hook(&data_dir, &project, permission_request(&project));
    let n = notifications.wait_for("the approval's notification", WAIT, |n| n.summary.contains("Claude Code")).await;
    assert_eq!(n.summary, "Claude Code asks permission · notes-app");
    assert_eq!(n.body, "Allow Claude Code to run `npm publish --tag next`?");
    assert_eq!(
        pairs(&n),
        [
            ("default", "Open"),
            ("option:0", "Allow once"),
            ("option:1", "Always allow"),
            ("option:2", "Deny"),
            ("answer", "Answer…")
        ]
    );
    notifications.invoke(n.id, "option:2").await;
    let decision = decision(hook).await;
    assert_eq!(decision["behavior"], "deny", "{decision}");
    assert_eq!(decision["message"], "The person denied this in Hark.", "{decision}");
    // The notice is resident (a server that honours it keeps it up after a press): Hark takes the
    // used one down itself.
    notifications.wait_closed(n.id, WAIT).await;
    app.close().await;
}

/// Where "Allow once" (the first of the approval's buttons) is drawn in notification-daemon's popup:
/// its buttons sit in one row along the popup's bottom, left to right as sent.
const ALLOW_ONCE_IN_POPUP: (i32, i32) = (118, -39);

#[tokio::test]
async fn claude_codes_permission_request_in_a_real_notification_allowed_with_its_button() {
    if !e2e_enabled("claude_codes_permission_request_in_a_real_notification_allowed_with_its_button") {
        return;
    }
    let daemon = NotificationDaemon::start().await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("approval-daemon", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;
    move_focus_away(&app).await;

    let hook = start_hook(&data_dir, &project, permission_request(&project));
    let popup = daemon.popup(WAIT).await;
    let screen = app.screenshot("approval-3-notification").await;
    let shown = popup.crop(&screen, "approval-3-notification-popup");
    eprintln!("screenshot: {} ({popup:?})", shown.display());

    popup.click(ALLOW_ONCE_IN_POPUP.0, popup.height + ALLOW_ONCE_IN_POPUP.1);
    let decision = decision(hook).await;
    assert_eq!(decision["behavior"], "allow", "the press on Allow once allowed: {decision}");
    assert_eq!(decision["updatedInput"], permission_request(&project)["tool_input"], "the input echoed");
    assert!(decision.get("updatedPermissions").is_none(), "allowed once keeps no rule: {decision}");
    app.close().await;
}
