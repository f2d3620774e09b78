//! MCP servers in the real window: the official filesystem server (installed in tests/mcp by
//! `make test`) from the data directory's mcp.json, an entry that cannot start, and a server on the
//! official Python SDK whose forms are answered in the panel and from a notification.

use std::path::{Path, PathBuf};
use std::time::Duration;

use hark_core::session::ToolOutcome;

use crate::flows::start_keyring;
use crate::notifications::{away_and_ask, pairs};
use crate::support::notifications::NotificationServer;
use crate::support::{e2e_enabled, only_session, tool_results, App, Launch, PANEL};
use hark_test_support::server::{text_pieces, tool_reply, TestServer};

/// A data directory whose mcp.json names the Python forms server (tests/mcp/elicit_server.py).
fn forms_data_dir(tmp: &Path) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp");
    let data_dir = tmp.join("hark-data");
    std::fs::create_dir_all(&data_dir).expect("data dir");
    let config = serde_json::json!({ "mcpServers": {
        "elicit": { "command": dir.join(".venv/bin/python"), "args": [dir.join("elicit_server.py")] },
    }});
    std::fs::write(data_dir.join("mcp.json"), config.to_string()).expect("mcp.json");
    data_dir
}

/// What the forms server's tools returned (the action and content they received), in call order.
fn server_saw(data_dir: &Path) -> Vec<serde_json::Value> {
    tool_results(&only_session(data_dir))
        .into_iter()
        .map(|o| match o {
            ToolOutcome::Ok { content, .. } => serde_json::from_str(&content).expect("json"),
            other => panic!("a form tool failed: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn an_mcp_servers_form_is_answered_in_the_panel_and_another_declined() {
    if !e2e_enabled("an_mcp_servers_form_is_answered_in_the_panel_and_another_declined") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = forms_data_dir(tmp.path());
    let server = TestServer::start(vec![
        tool_reply("", &[("d1", "mcp__elicit__deploy", "{}".into())]),
        tool_reply("", &[("p1", "mcp__elicit__pick", "{}".into())]),
        text_pieces(&["Deployed; no colour chosen."]),
    ])
    .await;
    let base_url = server.base_url();
    let args = ["--provider", "openai", "--base-url", &base_url, "--model", "test-model", "--prompt", "deploy"];
    let app = App::launch("mcp-form", Launch::with_args(&data_dir, &args)).await;

    app.find(PANEL_CSS).await;
    let asker = app.text_of("[data-testid='asker']").await;
    assert_eq!(asker, "MCP server \u{201c}elicit\u{201d} asks");
    assert_eq!(app.text_of("[data-testid='form-message']").await, "Deploy settings for release 1.2");
    app.screenshot("form-1-asked").await;
    app.click_option("Production").await;
    // The regions are required: skipping them is refused with the reason, and nothing is lost.
    app.click_button(PANEL, "Skip").await;
    app.click_button(PANEL, "Skip").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the refusal", WAIT, || async {
        app.text_of(&format!("{PANEL_CSS} [role='alert']")).await.contains("this field is required")
    })
    .await;
    app.screenshot("form-2-refused").await;
    app.click_button(PANEL, "2").await;
    app.click_option("eu").await;
    app.click_option("ap").await;
    app.click_button(PANEL, "Submit").await;

    app.wait_until("the second form", WAIT, || async {
        app.text_of(PANEL_CSS).await.contains("Pick a colour for the banner")
    })
    .await;
    assert!(!app.text_of(PANEL_CSS).await.contains("Other"), "a form's choices take no other text");
    app.click_button(PANEL, "Decline").await;
    app.wait_until("the reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Deployed; no colour chosen.")
    })
    .await;
    // Each form and how it ended is in the transcript, as the log has it.
    let forms = app.text_of("section[aria-label='Transcript']").await;
    assert!(forms.contains("MCP server \u{201c}elicit\u{201d} asked: Deploy settings for release 1.2"), "{forms}");
    assert!(forms.contains("Production") && forms.contains("You declined."), "{forms}");
    app.screenshot("form-3-done").await;
    app.close().await;

    assert_eq!(
        server_saw(&data_dir),
        [
            serde_json::json!({ "action": "accept", "content": { "env": "prod", "regions": ["eu", "ap"], "notify": true } }),
            serde_json::json!({ "action": "decline", "content": null }),
        ]
    );
}

#[tokio::test]
async fn an_mcp_servers_single_choice_form_is_answered_from_its_notification() {
    if !e2e_enabled("an_mcp_servers_single_choice_form_is_answered_from_its_notification") {
        return;
    }
    let notifications = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = forms_data_dir(tmp.path());
    let server = TestServer::start(vec![
        tool_reply("", &[("p1", "mcp__elicit__pick", "{}".into())]),
        text_pieces(&["Green it is."]),
    ])
    .await;
    let base_url = server.base_url();
    let args = ["--provider", "openai", "--base-url", &base_url, "--model", "test-model"];
    let app = away_and_ask("mcp-form-notify", &data_dir, &args, "pick a colour").await;

    let n = notifications.wait_for("the form's notification", WAIT, |n| n.summary.contains("elicit")).await;
    assert_eq!(n.summary, "MCP server elicit asks");
    assert!(n.body.starts_with("Pick a colour for the banner"), "{}", n.body);
    assert_eq!(pairs(&n), [("default", "Open"), ("option:0", "red"), ("option:1", "green"), ("answer", "Answer…")]);
    notifications.invoke(n.id, "option:1").await;
    app.wait_until("the reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Green it is.")
    })
    .await;
    app.screenshot("form-notify-answered").await;
    app.close().await;

    assert_eq!(server_saw(&data_dir), [serde_json::json!({ "action": "accept", "content": { "colour": "green" } })]);
}

const WAIT: Duration = Duration::from_secs(30);
const PANEL_CSS: &str = "section[aria-label='Question']";

#[tokio::test]
async fn an_mcp_servers_tool_runs_in_the_window_and_one_that_cannot_start_is_shown_with_its_code() {
    if !e2e_enabled("an_mcp_servers_tool_runs_in_the_window_and_one_that_cannot_start_is_shown_with_its_code") {
        return;
    }
    let servers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/node_modules/.bin");
    let tmp = tempfile::tempdir().expect("temp dir");
    let data_dir = tmp.path().join("hark-data");
    let notes = tmp.path().join("notes");
    std::fs::create_dir_all(&notes).expect("notes");
    let notes = notes.canonicalize().expect("canonical");
    std::fs::write(notes.join("todo.txt"), "water the plants").expect("todo");
    std::fs::create_dir_all(&data_dir).expect("data dir");
    let config = serde_json::json!({ "mcpServers": {
        "filesystem": { "command": servers.join("mcp-server-filesystem"), "args": [notes] },
        "broken": { "command": "/nonexistent/server" },
    }});
    std::fs::write(data_dir.join("mcp.json"), config.to_string()).expect("mcp.json");
    let arguments = serde_json::json!({ "path": notes.join("todo.txt") }).to_string();
    let server = TestServer::start(vec![
        tool_reply("", &[("c1", "mcp__filesystem__read_text_file", arguments)]),
        text_pieces(&["Your list says: ", "water the plants."]),
    ])
    .await;
    let base_url = server.base_url();
    let args = ["--provider", "openai", "--base-url", &base_url, "--model", "test-model", "--prompt", "my todo?"];
    let app = App::launch("mcp", Launch::with_args(&data_dir, &args)).await;

    app.wait_until("the reply", Duration::from_secs(30), || async {
        app.text_of("section[aria-label='Transcript']").await.contains("Your list says: water the plants.")
    })
    .await;
    let transcript = app.text_of("section[aria-label='Transcript']").await;
    assert!(transcript.contains("mcp__filesystem__read_text_file"), "the call has its row: {transcript}");
    let unavailable = app.text_of("[data-testid='mcp-unavailable']").await;
    assert!(unavailable.contains("MCP_START_FAILED") && unavailable.contains("broken"), "{unavailable}");
    app.screenshot("1-read").await;
    app.close().await;

    let outcomes = tool_results(&only_session(&data_dir));
    assert!(
        matches!(&outcomes[..], [ToolOutcome::Ok { content, .. }] if content == "water the plants"),
        "{outcomes:?}"
    );
}

/// The SDK's streamable-HTTP test server (tests/mcp/http-server.mjs), which refuses requests without
/// `Authorization: Bearer test-token`; stopped by its pid when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl HttpServer {
    fn start() -> HttpServer {
        use std::io::BufRead;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/http-server.mjs");
        let mut child = std::process::Command::new("node")
            .arg(script)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("node runs the HTTP MCP server");
        let stdout = child.stdout.take().expect("stdout");
        let mut url = String::new();
        std::io::BufReader::new(stdout).read_line(&mut url).expect("the server prints its URL");
        HttpServer { child, url: url.trim().to_string() }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const DIALOG: &str = "//*[@role='dialog']";
const ESCAPE: &str = "\u{E00C}";
const ENTER: &str = "\u{E007}";

/// The element at `xpath`, scrolled to the middle of the dialog first: the MCP section sits below
/// the model settings, and the dialog's sticky Save bar would cover it at the bottom edge.
///
/// It gets the focus before it is scrolled to: when the focus first leaves the Provider field the
/// dialog opened on, WebKitGTK lays the settings form out again and it comes out 81 px shorter
/// (measured; a stale first layout). Left to the click's own press, that moves everything below the
/// form up between the press and the release, and the release lands on what took the element's
/// place (the Agents section's heading under "Add server"), so nothing is clicked.
pub(crate) async fn in_view(app: &App, xpath: &str) -> fantoccini::elements::Element {
    let el = app.find_x(xpath).await;
    let arg = serde_json::to_value(&el).expect("element reference");
    app.client
        .execute("arguments[0].focus({preventScroll: true}); arguments[0].scrollIntoView({block: 'center'})", vec![arg])
        .await
        .expect("scroll");
    el
}

/// Sets the value of the field at `xpath` (scrolled into view) as typing would: WebDriver cannot
/// clear a field so that the page hears it.
pub(crate) async fn set_value(app: &App, xpath: &str, value: &str) {
    let field = in_view(app, xpath).await;
    let arg = serde_json::to_value(&field).expect("element reference");
    app.client
        .execute(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input', {bubbles: true}))",
            vec![arg, serde_json::Value::String(value.to_string())],
        )
        .await
        .unwrap_or_else(|e| panic!("set {xpath:?}: {e}"));
}

/// Presses the button named `name` in the Settings section shown.
async fn press_button(app: &App, name: &str) {
    let xpath =
        format!("{DIALOG}//*[@data-testid='settings-pane' and not(@hidden)]//button[normalize-space(.)='{name}']");
    in_view(app, &xpath).await.click().await.unwrap_or_else(|e| panic!("click {name:?}: {e}"));
}

/// The field named `name` in the Settings dialog (by its aria-label, its label's `for`, or the label
/// around it).
pub(crate) fn field(name: &str) -> String {
    let d = DIALOG;
    format!(
        "({d}//*[@aria-label='{name}'] | {d}//*[@id = {d}//label[normalize-space(.)='{name}']/@for] | \
         {d}//label[normalize-space(.)='{name}' or .//span[normalize-space(.)='{name}']]\
         //*[self::input or self::select or self::textarea])[last()]"
    )
}

#[tokio::test]
async fn an_mcp_server_added_in_settings_gets_its_secret_header_from_the_keyring() {
    if !e2e_enabled("an_mcp_server_added_in_settings_gets_its_secret_header_from_the_keyring") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut keyring = start_keyring(&tmp.path().join("keyring"));
    let remote = HttpServer::start();
    let data_dir = tmp.path().join("hark-data");
    let server = TestServer::start(vec![
        tool_reply("", &[("c1", "mcp__remote__whoami", "{}".into())]),
        text_pieces(&["It knows you."]),
    ])
    .await;
    let base_url = server.base_url();
    let args = ["--provider", "openai", "--base-url", &base_url, "--model", "test-model"];
    let app = App::launch("mcp-settings", Launch::with_args(&data_dir, &args)).await;

    // What the launch options override is said as such: this run's model over the saved one.
    app.settings_section("model").await;
    let note = app.text_of("[data-testid='model-override']").await;
    let flags = format!("set by launch options (--provider openai --base-url {base_url} --model test-model)");
    assert!(note.starts_with("This run: ") && note.contains(&flags) && note.contains("saved: Demo"), "{note}");
    app.screenshot("settings-launch-options").await;
    app.settings_section("mcp").await;
    app.find("[data-testid='mcp-path']").await;
    app.screenshot("settings-0-open").await;
    press_button(&app, "Add server").await;
    in_view(&app, &field("Server name")).await.send_keys("remote").await.expect("name");
    in_view(&app, &field("Type")).await.select_by_value("http").await.expect("http");
    in_view(&app, &field("URL")).await.send_keys(&remote.url).await.expect("url");
    press_button(&app, "Add header").await;
    in_view(&app, &field("Header name")).await.send_keys("Authorization").await.expect("header");
    in_view(&app, &field("Header value")).await.send_keys("Bearer test-token").await.expect("value");
    in_view(&app, &field("Secret")).await.click().await.expect("secret");
    press_button(&app, "Done").await;
    press_button(&app, "Save").await;
    app.wait_until("the save", WAIT, || async {
        app.text_of("[data-testid='settings-pane']:not([hidden]) [data-testid='section-save'] [role='status']")
            .await
            .contains("Saved.")
    })
    .await;
    assert_eq!(app.text_of("[data-testid='mcp-name']").await, "remote");
    assert!(app.text_of("[data-testid='mcp-status']").await.starts_with("Not started yet"));
    app.screenshot("settings-1-saved").await;

    let file = std::fs::read_to_string(data_dir.join("mcp.json")).expect("mcp.json written");
    assert!(file.contains("${keyring:remote/Authorization}"), "{file}");
    assert!(!file.contains("test-token"), "the secret is not in the file: {file}");
    assert!(!app.client.source().await.expect("page").contains("test-token"), "nor back in the window");

    app.press(ESCAPE).await;
    app.wait_until("the dialog to close", WAIT, || async { !app.exists("[role='dialog']").await }).await;
    let input = app.find("textarea[aria-label='Message']").await;
    input.send_keys("who am I?").await.expect("type");
    input.send_keys(ENTER).await.expect("send");
    app.wait_until("the reply", WAIT, || async {
        app.text_of("section[aria-label='Transcript']").await.contains("It knows you.")
    })
    .await;
    let outcomes = tool_results(&only_session(&data_dir));
    assert!(
        matches!(&outcomes[..], [ToolOutcome::Ok { content, .. }] if content == "called with Bearer test-token"),
        "the keyring's secret reached the server: {outcomes:?}"
    );

    app.settings_section("mcp").await;
    app.wait_until("the running status", WAIT, || async {
        app.text_of("[data-testid='mcp-status']").await == "Running · 1 tool"
    })
    .await;
    in_view(&app, "//*[@data-testid='mcp-status']").await;
    app.screenshot("settings-2-running").await;
    app.close().await;
    let _ = keyring.kill();
    let _ = keyring.wait();
}
