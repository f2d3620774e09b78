//! `run_code` scripts in their worker process (the real `hark-run-code` binary): a script spinning
//! inside one engine builtin, where the engine's own interrupt check never comes, still ends at its
//! time limit, at Stop, and when the host goes; nothing of it is left running.

use std::time::{Duration, Instant};

use hark_core::ptc::worker;
#[cfg(unix)]
use hark_core::ptc::worker::WORKER_ARG;
use hark_core::ptc::{CallFailure, Limits, SandboxError};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// Spins inside `Array.prototype.reverse` for hours: one builtin call over a huge array-like.
const SPIN_IN_BUILTIN: &str = "Array.prototype.reverse.call({ length: 2 ** 40 }); return 1;";

/// One test at a time: each counts this process's workers.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn use_worker() {
    worker::set_program(env!("CARGO_BIN_EXE_hark-run-code"));
}

fn short(js_time: Duration) -> Limits {
    Limits { js_time, ..Limits::default() }
}

async fn echo(name: String, args: Value) -> Result<Value, CallFailure> {
    match name.as_str() {
        "echo" => Ok(args),
        _ => Err(CallFailure { code: "NOPE".into(), message: "it failed".into() }),
    }
}

/// Pids of this process's children that are script workers.
#[cfg(unix)]
fn workers() -> Vec<u32> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let (Ok(stat), Ok(cmdline)) =
            (std::fs::read_to_string(entry.path().join("stat")), std::fs::read(entry.path().join("cmdline")))
        else {
            continue;
        };
        // The parent pid is the second field after the parenthesised name.
        let parent = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1)).unwrap_or("");
        let zombie = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().next()) == Some("Z");
        if parent == me && !zombie && String::from_utf8_lossy(&cmdline).contains(WORKER_ARG) {
            found.push(pid);
        }
    }
    found
}

/// Pids of this process's children that are script workers: the process table's entries whose
/// parent is this process and whose program is the worker's (Windows has no /proc).
#[cfg(windows)]
fn workers() -> Vec<u32> {
    use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
    };
    let me = std::process::id();
    let mut found = Vec::new();
    // SAFETY: a snapshot of processes read into an entry of the size it states, closed here.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        assert_ne!(snapshot, INVALID_HANDLE_VALUE, "a snapshot of the processes");
        let mut entry: PROCESSENTRY32W = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut more = Process32FirstW(snapshot, &mut entry) != 0;
        while more {
            let len = entry.szExeFile.iter().position(|&c| c == 0).unwrap_or(entry.szExeFile.len());
            let exe = String::from_utf16_lossy(&entry.szExeFile[..len]).to_lowercase();
            if entry.th32ParentProcessID == me && exe == "hark-run-code.exe" {
                found.push(entry.th32ProcessID);
            }
            more = Process32NextW(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
    }
    found
}

/// Waits until no worker of this process is left, for at most `limit`.
async fn no_workers_within(limit: Duration) {
    // Polls the process table: workers are other processes, whose end nothing here announces.
    let start = Instant::now();
    while !workers().is_empty() {
        assert!(start.elapsed() < limit, "workers still running after {limit:?}: {:?}", workers());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_script_in_its_process_calls_tools_logs_and_returns() {
    let _one = ONE_AT_A_TIME.lock().await;
    use_worker();
    let code = r#"
        const a = await tools.echo({ path: "a.txt" });
        let caught = null;
        try { await tools.fail({}); } catch (e) { caught = e.code; }
        console.log("got", a);
        return { a, caught };
    "#;
    let names = vec!["echo".to_string(), "fail".to_string()];
    let out = worker::run(code, &names, Limits::default(), &CancellationToken::new(), echo).await.unwrap();
    assert_eq!(out.result, json!({ "a": { "path": "a.txt" }, "caught": "NOPE" }));
    assert_eq!(out.logs, ["got {\"path\":\"a.txt\"}"]);
    // The engine's own bounds still answer first, with their codes.
    let e = worker::run("while (true) {}", &names, short(Duration::from_millis(200)), &CancellationToken::new(), echo)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_TIME_LIMIT");
    let e = worker::run("throw new Error('x')", &names, Limits::default(), &CancellationToken::new(), echo)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "RUN_CODE_ERROR");
}

#[tokio::test]
async fn a_script_spinning_in_a_builtin_ends_at_its_time_limit() {
    let _one = ONE_AT_A_TIME.lock().await;
    use_worker();
    let limit = Duration::from_millis(300);
    let started = Instant::now();
    let e = worker::run(SPIN_IN_BUILTIN, &[], short(limit), &CancellationToken::new(), echo).await.unwrap_err();
    assert_eq!(e, SandboxError::Time { limit });
    assert_eq!(e.code(), "RUN_CODE_TIME_LIMIT");
    let took = started.elapsed();
    assert!(took < limit + worker::GRACE + Duration::from_secs(1), "took {took:?}");
    no_workers_within(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn time_waiting_for_a_tool_does_not_count() {
    let _one = ONE_AT_A_TIME.lock().await;
    use_worker();
    let slow = |_: String, args: Value| async move {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        Ok(args)
    };
    let code = "const a = await tools.slow(1); const b = await tools.slow(2); return a + b;";
    let out =
        worker::run(code, &["slow".to_string()], short(Duration::from_millis(500)), &CancellationToken::new(), slow)
            .await
            .unwrap();
    assert_eq!(out.result, json!(3));
}

#[tokio::test]
async fn stop_ends_a_script_spinning_in_a_builtin_at_once() {
    let _one = ONE_AT_A_TIME.lock().await;
    use_worker();
    let abort = CancellationToken::new();
    let stopper = abort.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        stopper.cancel();
    });
    let started = Instant::now();
    let e = worker::run(SPIN_IN_BUILTIN, &[], Limits::default(), &abort, echo).await.unwrap_err();
    assert_eq!(e, SandboxError::Aborted);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(2), "Stop took {took:?}");
    no_workers_within(Duration::from_secs(1)).await;
}

#[test]
fn a_host_that_goes_takes_its_spinning_script_with_it() {
    let _one = ONE_AT_A_TIME.blocking_lock();
    use_worker();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    runtime.spawn(async {
        let _ = worker::run(SPIN_IN_BUILTIN, &[], Limits::default(), &CancellationToken::new(), echo).await;
    });
    // Polls the process table (both loops): workers are other processes, announced nowhere.
    let start = Instant::now();
    while workers().is_empty() {
        assert!(start.elapsed() < Duration::from_secs(5), "the worker never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let quitting = Instant::now();
    // What quitting does to a runtime: its tasks are dropped, and with them the worker.
    drop(runtime);
    assert!(quitting.elapsed() < Duration::from_secs(2), "quitting waited {:?}", quitting.elapsed());
    let start = Instant::now();
    while !workers().is_empty() {
        assert!(start.elapsed() < Duration::from_secs(2), "the worker outlived its host: {:?}", workers());
        std::thread::sleep(Duration::from_millis(20));
    }
}
