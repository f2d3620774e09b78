//! MCP servers in the real window: the official filesystem server (installed in tests/mcp by
//! `make test`) from the data directory's mcp.json, and an entry that cannot start.

use std::time::Duration;

use hark_core::session::ToolOutcome;

use crate::support::model_server::{ModelServer, Scripted};
use crate::support::{e2e_enabled, only_session, tool_results, App, Launch};

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
    let server = ModelServer::start(vec![
        Scripted::ToolCall("c1", "mcp__filesystem__read_text_file", arguments),
        Scripted::Text(vec!["Your list says: ", "water the plants."]),
    ])
    .await;
    let args =
        ["--provider", "openai", "--base-url", &server.base_url, "--model", "test-model", "--prompt", "my todo?"];
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
    assert!(matches!(&outcomes[..], [ToolOutcome::Ok { content }] if content == "water the plants"), "{outcomes:?}");
}
