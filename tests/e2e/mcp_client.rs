//! `hark mcp` driven by an outside agent on the official Python MCP SDK (tests/mcp/ask_client.py):
//! a blocking question answered in the real window returns the answers; a timed one returns
//! pending, is answered late from its row and handed over once by `get_answers`; one is answered
//! from its notification, which names the agent; and with no app running, `hark mcp` starts one and
//! a question is answered through it from the `hark` CLI.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::notifications::{move_focus_away, pairs};
use crate::support::notifications::NotificationServer;
use crate::support::process::signal_group;
use crate::support::{e2e_enabled, hark_cli, row_state, App, Launch, PANEL, QUESTION_ROW};

const PANEL_CSS: &str = "section[aria-label='Question']";
const SESSION_ROW: &str = "nav[aria-label='Sessions'] button[data-session-id]";
const WAIT: Duration = Duration::from_secs(20);

/// The Python agent, talking to a `hark mcp` it started with `flags`, in the folder `cwd`.
pub(crate) struct Agent {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Agent {
    pub(crate) async fn start(data_dir: &Path, cwd: &Path, flags: &[&str]) -> Agent {
        Agent::start_named(data_dir, cwd, flags, None).await
    }

    /// The agent named `name` in its `initialize` (no title), as Claude Code names itself.
    pub(crate) async fn start_named(data_dir: &Path, cwd: &Path, flags: &[&str], name: Option<&str>) -> Agent {
        let mcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp");
        let mut command = Command::new(mcp.join(".venv/bin/python"));
        command
            .arg(mcp.join("ask_client.py"))
            .arg(hark_cli())
            .args(flags)
            .current_dir(cwd)
            .env("HARK_DATA_DIR", data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .process_group(0);
        if let Some(name) = name {
            command.env("ASK_CLIENT_NAME", name);
        }
        let mut child = command.spawn().expect("start the Python MCP client (make test installs tests/mcp/.venv)");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut agent = Agent { child, stdin, lines };
        assert_eq!(agent.next(WAIT).await["step"], "ready");
        agent
    }

    pub(crate) async fn send(&mut self, command: &str) {
        self.stdin.write_all(format!("{command}\n").as_bytes()).await.expect("write to the agent");
        self.stdin.flush().await.expect("flush");
    }

    /// The agent's next step, as it printed it.
    pub(crate) async fn next(&mut self, within: Duration) -> serde_json::Value {
        let line = tokio::time::timeout(within, self.lines.next_line())
            .await
            .expect("the agent's next step in time")
            .expect("read the agent")
            .expect("the agent is still running");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("a JSON step ({e}): {line}"))
    }

    pub(crate) async fn quit(mut self) {
        self.send("quit").await;
        let _ = tokio::time::timeout(WAIT, self.child.wait()).await;
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        // The agent and the `hark mcp` it started share its process group.
        if let Some(pid) = self.child.id() {
            let _ = signal_group(pid, libc::SIGKILL);
        }
    }
}

pub(crate) fn dirs(tmp: &Path) -> (PathBuf, PathBuf) {
    let (data_dir, project) = (tmp.join("hark-data"), tmp.join("notes-app"));
    std::fs::create_dir_all(&project).expect("project folder");
    (data_dir, project.canonicalize().expect("project path"))
}

/// The sidebar's text (`textContent`: WebKitWebDriver leaves out text in ellipsis-clipped boxes).
pub(crate) async fn sidebar(app: &App) -> String {
    let list = app.find("nav[aria-label='Sessions']").await;
    list.prop("textContent").await.ok().flatten().unwrap_or_default()
}

/// The client's session row in the sidebar, clicked.
async fn open_client_session(app: &App) {
    app.wait_until("the client's session in the sidebar", WAIT, || async { sidebar(app).await.contains("Test Agent") })
        .await;
    app.find(SESSION_ROW).await.click().await.expect("open the client's session");
}

#[tokio::test]
async fn an_outside_agents_blocking_question_is_answered_in_the_window() {
    if !e2e_enabled("an_outside_agents_blocking_question_is_answered_in_the_window") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("mcp-client-blocking", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    let mut agent = Agent::start(&data_dir, &project, &["--blocking"]).await;
    agent.send("tools").await;
    let tools = agent.next(WAIT).await;
    assert_eq!(tools["names"], serde_json::json!(["ask_user_question", "get_answers"]));
    assert!(!tools["ask_parameters"].as_array().unwrap().contains(&"timeout".into()), "blocking: {tools}");

    agent.send("ask").await;
    open_client_session(&app).await;
    app.find(PANEL_CSS).await;
    assert!(app.text_of(PANEL_CSS).await.contains("Which database should the notes app use?"));
    let title = sidebar(&app).await;
    assert!(title.contains("Test Agent · notes-app"), "named after client and folder: {title}");
    assert!(!title.contains("/tmp"), "the folder's name, not its whole path: {title}");
    app.screenshot("client-1-asked").await;
    app.click_option("Postgres").await;
    app.click_button(PANEL, "Submit").await;

    let asked = agent.next(WAIT).await;
    assert_eq!(asked["is_error"], false, "{asked}");
    assert!(asked["structured"].get("status").is_none(), "answered, not pending: {asked}");
    assert_eq!(asked["structured"]["answers"][0]["selected"], serde_json::json!(["Postgres"]), "{asked}");
    assert!(asked["text"].as_str().unwrap().contains("Postgres"), "{asked}");

    app.wait_until("the answered row", WAIT, || async { row_state(&app).await == "settled" }).await;
    // The session has no agent of Hark's: no composer, a note on where to talk to the client.
    app.find("[data-testid='client-note']").await;
    let note = app.text_of("[data-testid='client-note']").await;
    assert!(note.contains(&project.display().to_string()), "the whole path is with the session: {note}");
    assert!(!app.exists("textarea[aria-label='Message']").await, "nothing to type to");
    app.screenshot("client-2-answered").await;
    agent.quit().await;
    app.close().await;
}

#[tokio::test]
async fn an_outside_agents_timed_question_is_answered_late_and_returned_once() {
    if !e2e_enabled("an_outside_agents_timed_question_is_answered_late_and_returned_once") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("mcp-client-timed", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;

    let mut agent = Agent::start(&data_dir, &project, &["--timed", "--timeout", "2"]).await;
    agent.send("ask").await;
    // Nobody looks: the question returns pending and tells the agent how to collect the answer.
    let asked = agent.next(WAIT).await;
    assert_eq!(asked["structured"]["status"], "pending", "{asked}");
    let text = asked["text"].as_str().unwrap();
    assert!(hark_core::question::PendingResult::parse(text).is_some() && text.contains("get_answers"), "{text}");
    let call_id = asked["structured"]["call_id"].as_str().unwrap().to_string();

    agent.send("answers").await;
    let none = agent.next(WAIT).await;
    assert_eq!(none["structured"]["answers"], serde_json::json!([]), "{none}");
    assert_eq!(none["structured"]["waiting"], serde_json::json!([call_id]), "{none}");

    open_client_session(&app).await;
    app.wait_until("the continued row", WAIT, || async { row_state(&app).await == "continued" }).await;
    app.screenshot("client-3-continued").await;
    app.click_button("//*[@data-testid='question-row']", "Answer").await;
    app.find(PANEL_CSS).await;
    app.click_option("SQLite").await;
    app.click_button(PANEL, "Submit").await;
    app.wait_until("the row to say answered late", WAIT, || async {
        app.text_of(QUESTION_ROW).await.contains("Answered late")
    })
    .await;
    app.screenshot("client-4-answered-late").await;

    agent.send("answers").await;
    let taken = agent.next(WAIT).await;
    let answers = &taken["structured"]["answers"];
    assert_eq!(answers.as_array().map(Vec::len), Some(1), "{taken}");
    assert_eq!(answers[0]["call_id"], call_id.as_str());
    assert_eq!(answers[0]["answers"][0]["selected"], serde_json::json!(["SQLite"]));
    assert!(taken["text"].as_str().unwrap().contains("answer_to_pending_question"), "{taken}");
    agent.send("answers").await;
    let again = agent.next(WAIT).await;
    assert_eq!(again["structured"]["answers"], serde_json::json!([]), "returned once: {again}");
    agent.quit().await;
    app.close().await;
}

#[tokio::test]
async fn hark_mcp_starts_the_app_and_its_question_is_answered_from_the_cli() {
    if !e2e_enabled("hark_mcp_starts_the_app_and_its_question_is_answered_from_the_cli") {
        return;
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let mut agent = Agent::start(&data_dir, &project, &["--blocking"]).await;
    agent.send("ask").await;

    // The app `hark mcp` started holds the data directory and shows the question, which is found in
    // the log and answered from the CLI, through the app.
    let lock = data_dir.join(hark_core::host::LOCK_FILE);
    let started = std::time::Instant::now();
    let (session, call_id) = loop {
        assert!(started.elapsed() < Duration::from_secs(60), "the started app did not show the question");
        if let Some(found) = waiting_question(&data_dir) {
            break found;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let pid: u32 = std::fs::read_to_string(&lock).expect("the app's lock").trim().parse().expect("its pid");
    let answered = std::process::Command::new(hark_cli())
        .args(["answer", &session, &call_id, r#"[{"id":"db","selected":["SQLite"]}]"#])
        .env("HARK_DATA_DIR", &data_dir)
        .output()
        .expect("run hark answer");
    assert!(answered.status.success(), "{}", String::from_utf8_lossy(&answered.stderr));
    let asked = agent.next(WAIT).await;
    assert_eq!(asked["structured"]["answers"][0]["selected"], serde_json::json!(["SQLite"]), "{asked}");
    agent.quit().await;

    // The app outlives the agent; it quits as on logout (it is its own process group).
    signal_group(pid, libc::SIGTERM).expect("stop the started app");
    let stopped = std::time::Instant::now();
    while hark_core::host::HostLock::acquire(&data_dir).is_err() {
        assert!(stopped.elapsed() < WAIT, "the started app did not quit");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The session and call of the question waiting in the one session, read from the store.
pub(crate) fn waiting_question(data_dir: &Path) -> Option<(String, String)> {
    let store = hark_core::session::Store::open(data_dir).ok()?;
    let session = store.list_sessions().ok()?.into_iter().next()?;
    let records = store.with_questions(&session.id, |fold| fold.clone()).ok()?;
    let open = records.records().find(|r| r.state == hark_core::session::QuestionState::Open)?;
    Some((session.id.clone(), open.call_id.clone()))
}

#[tokio::test]
async fn an_outside_agents_question_is_answered_from_its_notification() {
    if !e2e_enabled("an_outside_agents_question_is_answered_from_its_notification") {
        return;
    }
    let notifications = NotificationServer::start(true).await;
    let tmp = tempfile::tempdir().expect("temp dir");
    let (data_dir, project) = dirs(tmp.path());
    let app = App::launch("mcp-client-notify", Launch::new(&data_dir)).await;
    app.find("textarea[aria-label='Message']").await;
    move_focus_away(&app).await;

    let mut agent = Agent::start(&data_dir, &project, &["--blocking"]).await;
    agent.send("ask").await;
    let n = notifications.wait_for("the agent's question", WAIT, |n| n.summary.contains("Test Agent")).await;
    assert_eq!(n.summary, "Test Agent asks · Database", "the notification names who asks");
    assert_eq!(n.body, "Which database should the notes app use?");
    assert_eq!(
        pairs(&n),
        [("default", "Open"), ("option:0", "SQLite"), ("option:1", "Postgres"), ("answer", "Answer…")]
    );
    notifications.invoke(n.id, "option:1").await;
    let asked = agent.next(WAIT).await;
    assert_eq!(asked["structured"]["answers"][0]["selected"], serde_json::json!(["Postgres"]), "{asked}");
    agent.quit().await;
    app.close().await;
}
