//! MCP servers that misbehave, or are merely many, against the agent: real server processes (the
//! official Python SDK, or raw JSON-RPC lines where a server must do what the SDK forbids) and the
//! scripted OpenAI-compatible server on 127.0.0.1. `make test` installs the SDK in `tests/mcp/.venv`.

mod agent_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use hark_core::mcp::{McpConfig, McpServers};
use hark_core::service::Caller;
use hark_core::tools::ToolContext;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp")
}

fn python() -> PathBuf {
    let python = servers_dir().join(".venv/bin/python");
    assert!(python.exists(), "the Python MCP SDK is not installed: run `make test` (it makes {})", python.display());
    python
}

/// One stdio server entry running `script` from tests/mcp with `args`, plus `extra` fields.
fn entry(script: &str, args: &[&str], extra: Value) -> Value {
    let mut args_all = vec![servers_dir().join(script).to_string_lossy().to_string()];
    args_all.extend(args.iter().map(|a| a.to_string()));
    let mut entry = json!({ "command": python(), "args": args_all });
    if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
        entry.extend(extra);
    }
    entry
}

fn mcp_config(servers: Value) -> Arc<McpConfig> {
    let text = json!({ "mcpServers": servers }).to_string();
    Arc::new(McpConfig::parse(&text, &|_| None).unwrap())
}

// --- a stdio server's environment ----------------------------------------------------------------

/// Set only in the child run of this binary; its name is also one that must not reach a server.
const ENV_CHILD: &str = "HARK_TEST_MCP_ENV_CHILD";
const ENV_LINE: &str = "SERVER ENVIRONMENT ";

/// The child half of `a_stdio_server_inherits_only_the_safe_environment`: starts the `env` server
/// with the environment its parent gave this process, calls its tool and prints what it saw.
#[tokio::test(flavor = "multi_thread")]
async fn child_reports_its_mcp_servers_environment() {
    if std::env::var_os(ENV_CHILD).is_none() {
        return;
    }
    let config = mcp_config(json!({ "env": entry("tools_server.py", &["env"], json!({
        "env": { "GIVEN_BY_ENTRY": "yes" }, "tool_timeout_sec": 20,
    })) }));
    let servers = McpServers::new(config, None, None);
    let (tools, failures) = servers.tools().await;
    assert!(failures.is_empty(), "{failures:?}");
    let tool = tools.iter().find(|t| t.name() == "mcp__env__environment").expect("the environment tool");
    let ctx = ToolContext { caller: Caller::root("s", "a"), abort: CancellationToken::new(), workspace: None };
    let output = tool.handle(&ctx, "c1", json!({})).await.unwrap();
    println!("{ENV_LINE}{}", output.content);
}

#[test]
fn a_stdio_server_inherits_only_the_safe_environment() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_reports_its_mcp_servers_environment", "--nocapture", "--test-threads=1"])
        .env(ENV_CHILD, "1")
        .env("OPENAI_API_KEY", "sk-test-not-for-servers")
        .env("DEEPSEEK_API_KEY", "sk-test-not-for-servers")
        .env("HARK_DATA_DIR", "/nowhere")
        .env("SOME_SERVICE_TOKEN", "not-for-servers")
        .env("LC_TIME", "C")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().find_map(|l| l.split_once(ENV_LINE).map(|(_, names)| names));
    let Some(line) = line else {
        panic!("the child printed no environment:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr))
    };
    let names: BTreeSet<String> = serde_json::from_str(line).unwrap();
    for expected in ["PATH", "HOME", "LC_TIME", "GIVEN_BY_ENTRY"] {
        assert!(names.contains(expected), "{expected} is missing: {names:?}");
    }
    let allowed = [
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "TZ",
        "TMPDIR",
        "TERM",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XDG_RUNTIME_DIR",
        "DBUS_SESSION_BUS_ADDRESS",
        "GIVEN_BY_ENTRY",
    ];
    let leaked: Vec<&String> =
        names.iter().filter(|n| !allowed.contains(&n.as_str()) && !n.starts_with("LC_")).collect();
    assert!(leaked.is_empty(), "the server got {leaked:?}");
}
