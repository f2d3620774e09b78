//! `hark mcp` and MCP Tasks (the `io.modelcontextprotocol/tasks` extension), spoken as raw JSON-RPC
//! over stdio the way the extension specifies: a client that declares it gets a task at once, which
//! completes with a late answer given in the real window — read by a `hark mcp` started again, as
//! after the agent restarted — and `tasks/cancel` withdraws a question. A client without tasks gets
//! progress notifications and a pending result within the budget.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::mcp_client::dirs;
use crate::support::process::signal_group;
use crate::support::{e2e_enabled, hark_cli, row_state, App, Launch, PANEL};

const PANEL_CSS: &str = "section[aria-label='Question']";
const SESSION_ROW: &str = "nav[aria-label='Sessions'] button[data-session-id]";
const WAIT: Duration = Duration::from_secs(30);
const TASKS: &str = "io.modelcontextprotocol/tasks";

fn question() -> Value {
    json!({ "questions": [{
        "id": "db", "header": "Database", "question": "Which database should the notes app use?",
        "options": [{ "label": "SQLite", "description": "One file" }, { "label": "Postgres", "description": "A server" }],
    }]})
}

/// A client speaking newline-delimited JSON-RPC to a `hark mcp` it started.
struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    next_id: u64,
    /// Notifications read while waiting for a response.
    notes: Vec<Value>,
}

impl Client {
    async fn start(data_dir: &Path, cwd: &Path, flags: &[&str], tasks: bool) -> Client {
        let mut command = Command::new(hark_cli());
        command
            .arg("mcp")
            .args(flags)
            .current_dir(cwd)
            .env("HARK_DATA_DIR", data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .process_group(0);
        let mut child = command.spawn().expect("run hark mcp");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut client = Client { child, stdin, lines, next_id: 1, notes: Vec::new() };
        let extensions = if tasks { json!({ TASKS: {} }) } else { json!({}) };
        let init = client
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": { "extensions": extensions },
                    "clientInfo": { "name": "task-agent", "title": "Task Agent", "version": "1.0" },
                }),
            )
            .await;
        let offered = &init["result"]["capabilities"]["extensions"];
        assert!(offered.get(TASKS).is_some(), "hark mcp offers the tasks extension: {init}");
        client.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
        client
    }

    async fn send(&mut self, message: Value) {
        self.stdin.write_all(format!("{message}\n").as_bytes()).await.expect("write to hark mcp");
        self.stdin.flush().await.expect("flush");
    }

    /// Sends a request and returns its response, keeping notifications that come first.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
        loop {
            let line = tokio::time::timeout(WAIT, self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("no response to {method} in time"))
                .expect("read hark mcp")
                .expect("hark mcp is still running");
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("JSON-RPC ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
            self.notes.push(message);
        }
    }

    async fn get(&mut self, task: &str) -> Value {
        let reply = self.request("tasks/get", json!({ "taskId": task })).await;
        assert!(reply.get("error").is_none(), "{reply}");
        reply["result"].clone()
    }

    async fn stop(mut self) {
        drop(self.stdin);
        if tokio::time::timeout(WAIT, self.child.wait()).await.is_err() {
            if let Some(pid) = self.child.id() {
                let _ = signal_group(pid, libc::SIGKILL);
            }
        }
    }
}

async fn open_session(app: &App) {
    app.wait_until("the agent's session", WAIT, || async { app.exists(SESSION_ROW).await }).await;
    app.find(SESSION_ROW).await.click().await.expect("open the agent's session");
}

#[tokio::test]
async fn a_task_completes_with_a_late_answer_read_by_a_restarted_hark_mcp_and_cancel_withdraws_one() {
    if !e2e_enabled("a_task_completes_with_a_late_answer_read_by_a_restarted_hark_mcp_and_cancel_withdraws_one") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("mcp-tasks", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    let mut client = Client::start(&data_dir, &project, &["--timed", "--timeout", "2"], true).await;
    let asked = Instant::now();
    let created = client.request("tools/call", json!({ "name": "ask_user_question", "arguments": question() })).await;
    assert!(asked.elapsed() < Duration::from_secs(2), "the task comes at once, not after the question");
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert_eq!(result["status"], "working", "{created}");
    let task = result["taskId"].as_str().expect("a task id").to_string();
    assert_eq!(client.get(&task).await["status"], "working");

    // The question runs out and waits in Hark; the agent restarts, and its hark mcp with it.
    open_session(&app).await;
    app.wait_until("the continued row", WAIT, || async { row_state(&app).await == "continued" }).await;
    assert_eq!(client.get(&task).await["status"], "working", "a timeout is not an answer");
    client.stop().await;

    app.click_button("//*[@data-testid='question-row']", "Answer").await;
    app.find(PANEL_CSS).await;
    app.click_option("Postgres").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("answered late", WAIT, || async { row_state(&app).await == "settled" }).await;

    let mut again = Client::start(&data_dir, &project, &["--timed", "--timeout", "2"], true).await;
    let done = again.get(&task).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert_eq!(done["result"]["structuredContent"]["answers"][0]["selected"], json!(["Postgres"]), "{done}");
    assert!(done["result"]["content"][0]["text"].as_str().unwrap().contains("Postgres"), "{done}");
    // Read again: the same result (the log keeps it), and get_answers does not hand it out twice.
    assert_eq!(again.get(&task).await["result"], done["result"]);
    let answers = again.request("tools/call", json!({ "name": "get_answers", "arguments": {} })).await;
    assert_eq!(answers["result"]["structuredContent"]["answers"], json!([]), "{answers}");

    // An unknown task is an error, not a made-up state.
    let unknown = again.request("tasks/get", json!({ "taskId": "mcp-nothing" })).await;
    assert!(unknown.get("error").is_some(), "{unknown}");

    // A second question, withdrawn by cancelling its task while it waits in the panel.
    let created = again.request("tools/call", json!({ "name": "ask_user_question", "arguments": question() })).await;
    let second = created["result"]["taskId"].as_str().expect("a task id").to_string();
    app.wait_until("the second question in the panel", WAIT, || async { app.exists(PANEL_CSS).await }).await;
    app.screenshot("tasks-1-second-asked").await;
    let cancelled = again.request("tasks/cancel", json!({ "taskId": second })).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    app.wait_until("the panel to go", WAIT, || async { !app.exists(PANEL_CSS).await }).await;
    assert_eq!(again.get(&second).await["status"], "cancelled");
    app.screenshot("tasks-2-withdrawn").await;
    again.stop().await;
    app.close().await;
}

#[tokio::test]
async fn a_client_without_tasks_hears_progress_and_gets_pending_within_the_budget() {
    if !e2e_enabled("a_client_without_tasks_hears_progress_and_gets_pending_within_the_budget") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("mcp-budget", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    // The question asks for two minutes; the client's deadline would not wait that long.
    let flags = ["--timed", "--timeout", "120", "--budget", "3"];
    let mut client = Client::start(&data_dir, &project, &flags, false).await;
    let asked = Instant::now();
    let reply = client
        .request(
            "tools/call",
            json!({ "name": "ask_user_question", "arguments": question(), "_meta": { "progressToken": "p-1" } }),
        )
        .await;
    let waited = asked.elapsed();
    assert!(waited >= Duration::from_secs(2) && waited < Duration::from_secs(10), "within the budget: {waited:?}");
    let result = &reply["result"];
    assert_eq!(result["structuredContent"]["status"], "pending", "{reply}");
    assert!(
        hark_core::question::PendingResult::parse(result["content"][0]["text"].as_str().unwrap()).is_some(),
        "{reply}"
    );
    let progress: Vec<&Value> = client.notes.iter().filter(|n| n["method"] == "notifications/progress").collect();
    assert!(!progress.is_empty(), "told it waits: {:?}", client.notes);
    assert_eq!(progress[0]["params"]["progressToken"], "p-1");
    assert!(progress[0]["params"]["message"].as_str().unwrap().contains("Waiting for the person"));

    // The question still waits in Hark, answerable late.
    open_session(&app).await;
    app.wait_until("the continued row", WAIT, || async { row_state(&app).await == "continued" }).await;
    client.stop().await;
    app.close().await;
}
