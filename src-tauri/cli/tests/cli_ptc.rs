//! `hark chat --ptc --timed` as a real process against a scripted OpenAI-compatible server on
//! 127.0.0.1: the script's question continues under its own call id, `hark questions --json` shows
//! it, and `hark answer` on it reaches the model as a late answer.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use hark_test_support::agent::{text_reply, tool_reply, TestServer};
use serde_json::{json, Value};

fn hark(data: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hark"));
    cmd.env("HARK_DATA_DIR", data)
        .env_remove("DEEPSEEK_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || {
        let mut child = cmd.stdin(Stdio::piped()).spawn().unwrap();
        // Open and silent while the question waits: nobody is at the terminal.
        let stdin = child.stdin.take();
        let out = child.wait_with_output().unwrap();
        drop(stdin);
        out
    })
    .await
    .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const SCRIPT: &str = r##"
const answer = await tools.ask_user_question({ questions: [{ id: "db", question: "Which database?",
  options: [{ label: "SQLite" }, { label: "Postgres" }] }] });
return { answer };
"##;

#[tokio::test(flavor = "multi_thread")]
async fn a_scripts_timed_question_is_listed_continued_and_answered_late_from_the_terminal() {
    let server = TestServer::start(vec![
        tool_reply("One script.", &[("run1", "run_code", json!({ "code": SCRIPT }).to_string())]),
        text_reply("The script is done; the question stays open."),
        text_reply("Thanks, Postgres it is."),
    ])
    .await;
    let data = tempfile::tempdir().unwrap();
    let mut chat = hark(data.path());
    chat.args(["chat", "--provider", "openai", "--base-url", &server.base_url(), "--model", "test-model"]).args([
        "--ptc",
        "--timed",
        "--timeout",
        "1",
        "set it up",
    ]);
    let out = output(chat).await;
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let offered: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(offered, ["run_code"]);

    let mut sessions = hark(data.path());
    sessions.args(["sessions", "--json"]);
    let listed: Value = serde_json::from_slice(&output(sessions).await.stdout).unwrap();
    let session = listed[0]["id"].as_str().unwrap().to_string();
    let mut questions = hark(data.path());
    questions.args(["questions", &session, "--json"]);
    let records: Value = serde_json::from_slice(&output(questions).await.stdout).unwrap();
    assert_eq!(records.as_array().unwrap().len(), 1, "{records}");
    assert_eq!(records[0]["call_id"], "run1.1");
    assert_eq!(records[0]["state"], "continued");
    assert_eq!(records[0]["parent_call_id"], "run1");

    let mut answer = hark(data.path());
    answer.args(["answer", &session, "run1.1", r#"{"answers":[{"id":"db","selected":["Postgres"]}]}"#]);
    let out = output(answer).await;
    assert!(out.status.success(), "{}\n{}", text(&out.stdout), text(&out.stderr));
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "the late answer started a turn");
    let last = requests[2].body["messages"].as_array().unwrap().last().unwrap().clone();
    let late: Value = serde_json::from_str(last["content"].as_str().unwrap()).unwrap();
    assert_eq!(late["answer_to_pending_question"], true);
    assert_eq!(late["call_id"], "run1.1");
    assert_eq!(late["answers"][0]["selected"], json!(["Postgres"]));
}

/// Spins inside one engine builtin for hours, where the engine's own interrupt check never comes.
const SPIN_IN_BUILTIN: &str = "Array.prototype.reverse.call({ length: 2 ** 40 }); return 1;";

/// The pids of `parent`'s children that are `run_code` workers (not yet reaped).
#[cfg(unix)]
fn workers_of(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let (Ok(stat), Ok(cmdline)) =
            (std::fs::read_to_string(entry.path().join("stat")), std::fs::read(entry.path().join("cmdline")))
        else {
            continue;
        };
        let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
        let (state, ppid) = (fields.first().copied(), fields.get(1).copied());
        if ppid == Some(parent.to_string().as_str())
            && state != Some("Z")
            && String::from_utf8_lossy(&cmdline).contains(hark_core::ptc::worker::WORKER_ARG)
        {
            found.push(pid);
        }
    }
    found
}

#[cfg(unix)]
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) != Some("Z"))
}

/// The pids of `parent`'s children: Windows has no /proc, and `hark chat` here starts no other
/// child than its `run_code` worker.
#[cfg(windows)]
fn workers_of(parent: u32) -> Vec<u32> {
    use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
    };
    let mut found = Vec::new();
    // SAFETY: a snapshot of processes read into an entry of the size it states, closed here.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        assert_ne!(snapshot, INVALID_HANDLE_VALUE, "a snapshot of the processes");
        let mut entry: PROCESSENTRY32W = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut more = Process32FirstW(snapshot, &mut entry) != 0;
        while more {
            if entry.th32ParentProcessID == parent && alive(entry.th32ProcessID) {
                found.push(entry.th32ProcessID);
            }
            more = Process32NextW(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
    }
    found
}

#[cfg(windows)]
fn alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
    use windows_sys::Win32::System::Threading::{GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};
    // SAFETY: a handle opened only to read the process's exit code, closed here.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return false;
        }
        let mut code = 0u32;
        let read = GetExitCodeProcess(process, &mut code) != 0;
        CloseHandle(process);
        read && code == STILL_ACTIVE as u32
    }
}

/// `hark chat --ptc` whose model runs the spinning script, once its worker is running: the chat
/// process and its worker's pid.
async fn spinning_chat(server: &TestServer, data: &Path, workspace: &Path) -> (std::process::Child, u32) {
    let mut chat = hark(data);
    chat.args(["chat", "--provider", "openai", "--base-url", &server.base_url(), "--model", "test-model"])
        .args(["--ptc", "--workspace"])
        .arg(workspace)
        .arg("spin")
        .stdin(Stdio::piped());
    let mut child = chat.spawn().unwrap();
    let pid = child.id();
    // Polls the process table: the worker is a grandchild process, which announces nothing here.
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(20) {
        if let Some(worker) = workers_of(pid).first() {
            return (child, *worker);
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the script never started");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_stops_a_script_spinning_in_a_builtin_and_hark_chat_ends_within_two_seconds() {
    let server = TestServer::start(vec![tool_reply(
        "One script.",
        &[("run1", "run_code", json!({ "code": SPIN_IN_BUILTIN }).to_string())],
    )])
    .await;
    let (data, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (child, worker) = spinning_chat(&server, data.path(), workspace.path()).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: a signal to the process this test started, by its pid.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let stopping = std::time::Instant::now();
    let status = tokio::task::spawn_blocking(move || child.wait_with_output()).await.unwrap().unwrap();
    let took = stopping.elapsed();
    assert!(took < std::time::Duration::from_secs(2), "hark chat took {took:?} to end after Ctrl-C");
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert!(!alive(worker), "the worker {worker} outlived the stopped turn");
    assert!(text(&status.stderr).contains("stopped; the session is saved"), "{}", text(&status.stderr));

    let mut show = hark(data.path());
    show.args(["sessions", "--json"]);
    let listed: Value = serde_json::from_slice(&output(show).await.stdout).unwrap();
    let session = listed[0]["id"].as_str().unwrap().to_string();
    let store = hark_core::session::Store::open(data.path()).unwrap();
    let recorded = store.events(&session).unwrap();
    assert!(
        recorded.iter().any(|e| matches!(&e.event, hark_core::session::Event::ToolResult { call_id, outcome:
            hark_core::session::ToolOutcome::Error { error } } if call_id == "run1" && error.code == "ABORTED")),
        "{recorded:?}"
    );
}

#[cfg(windows)]
#[test]
#[ignore = "Ctrl-C reaches a Windows program as a console event for its whole console, not as a signal to one pid"]
fn ctrl_c_stops_a_script_spinning_in_a_builtin_and_hark_chat_ends_within_two_seconds() {}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(
    windows,
    ignore = "fails under Wine: the worker outlives a hark chat ended by TerminateProcess. The worker runs in a job \
              object with kill-on-close, which Windows documents to end it when the host's handles close; Wine \
              (8.0) does not end it then. Not yet run on Windows itself"
)]
async fn a_terminal_killed_outright_takes_its_spinning_script_with_it() {
    let server = TestServer::start(vec![tool_reply(
        "One script.",
        &[("run1", "run_code", json!({ "code": SPIN_IN_BUILTIN }).to_string())],
    )])
    .await;
    let (data, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (mut child, worker) = spinning_chat(&server, data.path(), workspace.path()).await;
    child.kill().unwrap();
    child.wait().unwrap();
    // Polls: the worker is another process, whose end nothing here announces.
    let gone = std::time::Instant::now();
    while alive(worker) {
        assert!(gone.elapsed() < std::time::Duration::from_secs(2), "the worker {worker} outlived hark chat");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
