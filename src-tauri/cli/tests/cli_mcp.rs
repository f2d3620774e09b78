//! `hark chat` with real MCP servers, as a real process against a scripted OpenAI-compatible server
//! on 127.0.0.1: the official `@modelcontextprotocol/server-filesystem` (from `mcp.json` in the data
//! directory), a server of our own on the official SDK that dies mid-call (`--mcp-config`), and the
//! SDK's streamable-HTTP server with a bearer token.
//! `make test` installs them with `npm ci` in `tests/mcp`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use hark_test_support::agent::{text_reply, tool_reply, TestServer};
use serde_json::{json, Value};

fn servers_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp");
    assert!(
        dir.join("node_modules/.bin/mcp-server-filesystem").exists(),
        "the test MCP servers are not installed: run `make test`, or `npm ci` in {}",
        dir.display()
    );
    dir.canonicalize().unwrap()
}

fn hark(data: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hark"));
    cmd.env("HARK_DATA_DIR", data)
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn model_args(server: &TestServer) -> Vec<String> {
    ["chat", "--provider", "openai", "--base-url", &server.base_url(), "--model", "test-model"]
        .map(String::from)
        .to_vec()
}

async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn events(data: &Path) -> Vec<Value> {
    let mut sessions = hark(data);
    sessions.args(["sessions", "--json"]);
    let listed: Value = serde_json::from_slice(&output(sessions).await.stdout).unwrap();
    let mut show = hark(data);
    show.args(["show", listed[0]["id"].as_str().unwrap(), "--json"]);
    serde_json::from_slice::<Value>(&output(show).await.stdout).unwrap().as_array().unwrap().clone()
}

fn offered(request: &Value) -> Vec<String> {
    request["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap().to_string()).collect()
}

fn result_of<'a>(events: &'a [Value], call_id: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["type"] == "tool/result" && e["call_id"] == call_id)
        .unwrap_or_else(|| panic!("no tool/result for {call_id}"))
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    windows,
    ignore = "starts MCP servers that are Linux programs (node, sleep, the Python SDK), which Wine cannot run"
)]
async fn the_official_filesystem_server_reads_a_file_and_refuses_one_outside_its_folder() {
    let servers = servers_dir();
    let work = tempfile::tempdir().unwrap();
    let root = work.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "hello from the workspace").unwrap();
    let data = tempfile::tempdir().unwrap();
    let config = json!({ "mcpServers": { "filesystem": {
        "command": servers.join("node_modules/.bin/mcp-server-filesystem"),
        "args": [root],
    }}});
    std::fs::write(data.path().join("mcp.json"), config.to_string()).unwrap();
    let inside = json!({ "path": root.join("notes.txt") }).to_string();
    let outside = json!({ "path": "/etc/hostname" }).to_string();
    let server = TestServer::start(vec![
        tool_reply(
            "Reading.",
            &[("c1", "mcp__filesystem__read_text_file", inside), ("c2", "mcp__filesystem__read_text_file", outside)],
        ),
        text_reply("The notes say hello."),
    ])
    .await;
    let mut chat = hark(data.path());
    chat.args(model_args(&server)).arg("read my notes");
    let out = output(chat).await;
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));

    let requests = server.requests();
    let tools = offered(&requests[0].body);
    for name in ["mcp__filesystem__read_text_file", "mcp__filesystem__list_directory", "ask_user_question"] {
        assert!(tools.contains(&name.to_string()), "{name} not in {tools:?}");
    }
    let definition = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "mcp__filesystem__read_text_file")
        .unwrap()
        .clone();
    assert!(definition["function"]["description"].as_str().unwrap().starts_with("[MCP server filesystem]"));
    assert_eq!(definition["function"]["parameters"]["properties"]["path"]["type"], "string");

    let events = events(data.path()).await;
    let call = events.iter().find(|e| e["type"] == "tool/call" && e["call_id"] == "c1").unwrap();
    assert_eq!(call["name"], "mcp__filesystem__read_text_file");
    let read = result_of(&events, "c1");
    assert_eq!(read["outcome"]["status"], "ok", "{read}");
    assert_eq!(read["outcome"]["content"], "hello from the workspace");
    let refused = result_of(&events, "c2");
    assert_eq!(refused["outcome"]["error"]["code"], "MCP_TOOL_FAILED", "{refused}");
    assert!(refused["outcome"]["error"]["message"].as_str().unwrap().contains("denied"), "{refused}");
    // The model saw both results.
    let sent = requests[1].body["messages"].to_string();
    assert!(sent.contains("hello from the workspace") && sent.contains("MCP_TOOL_FAILED"), "{sent}");
}

/// Reads the child's stdout on a thread, so the test can wait for a line without blocking forever.
fn lines(child: &mut std::process::Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn wait_for(rx: &mpsc::Receiver<String>, needle: &str, seen: &mut Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !seen.iter().any(|l| l.contains(needle)) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => seen.push(line),
            Err(_) => panic!("{needle:?} never came; saw:\n{}", seen.join("\n")),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    windows,
    ignore = "starts MCP servers that are Linux programs (node, sleep, the Python SDK), which Wine cannot run"
)]
async fn a_server_that_dies_mid_call_ends_the_call_with_a_code_and_the_session_goes_on_with_a_new_one() {
    let servers = servers_dir();
    let data = tempfile::tempdir().unwrap();
    let config_file = data.path().join("elsewhere.json");
    let config = json!({ "mcpServers": { "crashy": { "command": "node", "args": [servers.join("crash-server.mjs")] }}});
    std::fs::write(&config_file, config.to_string()).unwrap();
    let server = TestServer::start(vec![
        tool_reply("Trying.", &[("c1", "mcp__crashy__crash", json!({ "reason": "test" }).to_string())]),
        text_reply("The server crashed."),
        tool_reply("Again.", &[("c2", "mcp__crashy__echo", json!({ "text": "hi" }).to_string())]),
        text_reply("Echo done."),
    ])
    .await;
    let mut chat = hark(data.path());
    chat.args(model_args(&server)).args(["--mcp-config", config_file.to_str().unwrap()]).stdin(Stdio::piped());
    let (pid, out) = tokio::task::spawn_blocking(move || {
        let mut child = chat.spawn().unwrap();
        let rx = lines(&mut child);
        let mut stdin = child.stdin.take().unwrap();
        let mut seen = Vec::new();
        writeln!(stdin, "crash it").unwrap();
        wait_for(&rx, "The server crashed.", &mut seen);
        writeln!(stdin, "echo, please").unwrap();
        wait_for(&rx, "Echo done.", &mut seen);
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        (seen, out)
    })
    .await
    .unwrap();
    assert!(out.status.success(), "{}\n{}", pid.join("\n"), text(&out.stderr));

    let events = events(data.path()).await;
    let crashed = result_of(&events, "c1");
    assert_eq!(crashed["outcome"]["error"]["code"], "MCP_SERVER_CLOSED", "{crashed}");
    let first_turn_end = events.iter().find(|e| e["type"] == "turn/ended").unwrap();
    assert_eq!(first_turn_end["reason"], "completed", "the model was told and finished its turn");
    let echoed = result_of(&events, "c2");
    assert_eq!(echoed["outcome"]["status"], "ok", "the next turn started the server again: {echoed}");
    let content = echoed["outcome"]["content"].as_str().unwrap();
    let pid: u32 = content.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(content.starts_with("echo hi from "), "{content}");
    // The server stops with the app.
    // Polls /proc: the server is another process, whose end nothing here announces.
    let deadline = Instant::now() + Duration::from_secs(10);
    while Path::new(&format!("/proc/{pid}")).exists() && !zombie(pid) {
        assert!(Instant::now() < deadline, "the server {pid} outlived hark");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    windows,
    ignore = "starts MCP servers that are Linux programs (node, sleep, the Python SDK), which Wine cannot run"
)]
async fn a_call_that_never_answers_and_a_server_that_never_starts_end_at_their_timeouts() {
    let servers = servers_dir();
    let data = tempfile::tempdir().unwrap();
    let config = json!({ "mcpServers": {
        "crashy": { "command": "node", "args": [servers.join("crash-server.mjs")], "tool_timeout_sec": 1 },
        "silent": { "command": "sleep", "args": ["600"], "startup_timeout_sec": 1 },
    }});
    std::fs::write(data.path().join("mcp.json"), config.to_string()).unwrap();
    let server = TestServer::start(vec![
        tool_reply("Waiting.", &[("c1", "mcp__crashy__hang", "{}".to_string())]),
        text_reply("It timed out."),
    ])
    .await;
    let mut chat = hark(data.path());
    chat.args(model_args(&server)).arg("hang");
    let started = Instant::now();
    let out = output(chat).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    assert!(text(&out.stderr).contains("MCP_START_TIMEOUT"), "{}", text(&out.stderr));
    let events = events(data.path()).await;
    assert_eq!(result_of(&events, "c1")["outcome"]["error"]["code"], "MCP_TIMEOUT");
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    windows,
    ignore = "starts MCP servers that are Linux programs (node, sleep, the Python SDK), which Wine cannot run"
)]
async fn a_stdio_server_gets_no_model_key_from_harks_environment_only_what_its_entry_names() {
    let servers = servers_dir();
    let data = tempfile::tempdir().unwrap();
    let config = json!({ "mcpServers": {
        "crashy": { "command": "node", "args": [servers.join("crash-server.mjs")], "env": { "PASSED_ON": "1" } },
    }});
    std::fs::write(data.path().join("mcp.json"), config.to_string()).unwrap();
    let server = TestServer::start(vec![
        tool_reply("Looking.", &[("c1", "mcp__crashy__env", "{}".to_string())]),
        text_reply("Done."),
    ])
    .await;
    let mut chat = hark(data.path());
    // Keys for their vendors' hosts: the local model server gets neither, and neither may the MCP server.
    chat.env("DEEPSEEK_API_KEY", "sk-deepseek-test").env("OPENAI_API_KEY", "sk-openai-test");
    chat.args(model_args(&server)).arg("env");
    let out = output(chat).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events = events(data.path()).await;
    assert_eq!(result_of(&events, "c1")["outcome"]["content"], "PASSED_ON");
}

/// `hark chat hi` with `config` as the data directory's mcp.json, against a model that only says
/// hello: the turn must run, whatever the servers do. Returns the data directory, the model server
/// and the run's stderr.
async fn hello_with(config: Value) -> (tempfile::TempDir, TestServer, String) {
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("mcp.json"), config.to_string()).unwrap();
    let server = TestServer::start(vec![text_reply("Hello without it.")]).await;
    let mut chat = hark(data.path());
    chat.args(model_args(&server)).arg("hi");
    let out = output(chat).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Hello without it."));
    (data, server, text(&out.stderr))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_cannot_start_is_a_coded_error_and_the_turn_runs_without_it() {
    let config = json!({ "mcpServers": { "missing": { "command": "/nonexistent/mcp-server" }}});
    let (data, server, stderr) = hello_with(config).await;
    assert!(stderr.contains("MCP_START_FAILED") && stderr.contains("missing"), "{stderr}");
    assert!(offered(&server.requests()[0].body).iter().all(|t| !t.starts_with("mcp__")));

    let mut broken = hark(data.path());
    broken.args(model_args(&server)).args(["--mcp-config", "/nonexistent.json", "hi"]);
    let out = output(broken).await;
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("MCP_CONFIG_INVALID"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_whose_secret_is_in_the_apps_keyring_is_left_out_with_the_reason() {
    let config = json!({ "mcpServers": {
        "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "${keyring:remote/Authorization}" } },
    }});
    let (_data, _server, stderr) = hello_with(config).await;
    assert!(stderr.contains("MCP_UNAVAILABLE") && stderr.contains("remote/Authorization"), "{stderr}");
}

/// The SDK's streamable-HTTP server on a free port; killed (by its pid) when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl HttpServer {
    fn start() -> HttpServer {
        let mut child = Command::new("node")
            .arg(servers_dir().join("http-server.mjs"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let rx = lines(&mut child);
        let url = rx.recv_timeout(Duration::from_secs(20)).expect("the server printed its URL");
        HttpServer { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    windows,
    ignore = "starts MCP servers that are Linux programs (node, sleep, the Python SDK), which Wine cannot run"
)]
async fn a_streamable_http_server_gets_its_headers_with_the_token_from_the_environment() {
    let remote = HttpServer::start();
    let data = tempfile::tempdir().unwrap();
    let config = json!({ "mcpServers": {
        "remote": { "url": remote.url, "headers": { "Authorization": "Bearer ${HARK_TEST_MCP_TOKEN}" } },
    }});
    std::fs::write(data.path().join("mcp.json"), config.to_string()).unwrap();
    let server = TestServer::start(vec![
        tool_reply("Asking.", &[("c1", "mcp__remote__whoami", "{}".to_string())]),
        text_reply("It knows you."),
    ])
    .await;
    let mut chat = hark(data.path());
    chat.env("HARK_TEST_MCP_TOKEN", "test-token").args(model_args(&server)).arg("who am I");
    let out = output(chat).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events = events(data.path()).await;
    let whoami = result_of(&events, "c1");
    assert_eq!(whoami["outcome"]["content"], "called with Bearer test-token", "{whoami}\n{}", text(&out.stderr));

    // A wrong token: the server refuses the connection, and the token is not in the error.
    let server = TestServer::start(vec![text_reply("Without it.")]).await;
    let mut chat = hark(data.path());
    chat.env("HARK_TEST_MCP_TOKEN", "wrong-secret").args(model_args(&server)).arg("again");
    let out = output(chat).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("MCP_START_FAILED") && stderr.contains("remote"), "{stderr}");
    assert!(!stderr.contains("wrong-secret"), "{stderr}");
}
