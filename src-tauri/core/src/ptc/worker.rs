//! Where a script runs: a worker process of its own. A script can spin inside one engine builtin
//! (`Array.prototype.reverse` over a huge array-like) where the engine's interrupt check never comes,
//! so no in-process bound can end it; killing the process can. The host kills the worker when the
//! turn is stopped, when the script overruns its time by more than [`GRACE`], and when the host
//! itself goes (the worker is killed on drop, and ends itself when its stdin closes).
//!
//! The two sides speak JSON lines over the worker's stdin and stdout: the host sends a [`Start`],
//! the worker sends a [`FromWorker::Call`] per `tools.<name>()` and gets a [`CallReply`] for each,
//! and ends with [`FromWorker::Done`].

use std::ffi::OsString;
use std::future::Future;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

use super::sandbox::{self, CallFailure, Limits, RunOutput, SandboxError};

/// The first argument that makes a Hark binary a script worker (see [`main_if_worker`]).
pub const WORKER_ARG: &str = "--hark-run-code-worker";

/// How long past its JavaScript time a script may go before its process is killed. The engine's
/// own check normally ends it first, with the same error; this is for the script it cannot reach.
pub const GRACE: Duration = Duration::from_secs(1);

/// What the host sends first.
#[derive(Debug, Serialize, Deserialize)]
struct Start {
    code: String,
    names: Vec<String>,
    limits: Limits,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum FromWorker {
    Call { name: String, args: Value },
    Done { outcome: Result<RunOutput, SandboxError> },
}

/// The host's answer to one call.
type CallReply = Result<Value, CallFailure>;

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Runs scripts in `program` (started with [`WORKER_ARG`]) instead of this executable. For programs
/// whose `main` is not Hark's, such as test harnesses; the first setting stays.
pub fn set_program(program: impl Into<PathBuf>) {
    let _ = PROGRAM.set(program.into());
}

/// Call first thing in `main`: when this process was started as a script worker, serves one script
/// and returns how to exit; otherwise returns `None` at once.
pub fn main_if_worker() -> Option<ExitCode> {
    (std::env::args_os().nth(1) == Some(OsString::from(WORKER_ARG))).then(serve)
}

/// The worker's side: one script from stdin, its calls and outcome on stdout.
pub fn serve() -> ExitCode {
    use std::io::{BufRead, Write};
    let (lines_tx, lines_rx) = std::sync::mpsc::channel::<String>();
    // Reading stdin on a thread of its own, the worker notices the host going (stdin closes) even
    // while the script spins, and ends: nothing is left running after a host that crashed.
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
        std::process::exit(0);
    });
    let send = |message: &FromWorker| -> bool {
        let Ok(mut line) = serde_json::to_string(message) else { return false };
        line.push('\n');
        let mut out = std::io::stdout().lock();
        out.write_all(line.as_bytes()).and_then(|()| out.flush()).is_ok()
    };
    let Some(start) = lines_rx.recv().ok().and_then(|l| serde_json::from_str::<Start>(&l).ok()) else {
        return ExitCode::from(2);
    };
    let host = Box::new(move |name: &str, args: Value| -> CallReply {
        let gone = || CallFailure { code: "ABORTED".into(), message: "the host went away".into() };
        if !send(&FromWorker::Call { name: name.to_string(), args }) {
            return Err(gone());
        }
        let reply = lines_rx.recv().map_err(|_| gone())?;
        serde_json::from_str::<CallReply>(&reply).unwrap_or_else(|e| {
            Err(CallFailure { code: "RUN_CODE_ERROR".into(), message: format!("unreadable reply: {e}") })
        })
    });
    // The host kills this process to stop it, so the engine needs no stop signal of its own.
    let outcome = sandbox::run(&start.code, &start.names, start.limits, &CancellationToken::new(), host);
    if send(&FromWorker::Done { outcome }) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs `code` in a worker process; `call` runs each of its tool calls here. Returns when the script
/// settles, or at once when `abort` is cancelled, or when the script overruns its time by [`GRACE`]
/// (time spent in `call` does not count); the worker is killed in the last two cases.
pub async fn run<F, Fut>(
    code: &str,
    names: &[String],
    limits: Limits,
    abort: &CancellationToken,
    mut call: F,
) -> Result<RunOutput, SandboxError>
where
    F: FnMut(String, Value) -> Fut,
    Fut: Future<Output = CallReply>,
{
    let engine = |what: &str, e: &dyn std::fmt::Display| SandboxError::Engine(format!("{what}: {e}"));
    let program = match PROGRAM.get() {
        Some(program) => program.clone(),
        None => std::env::current_exe().map_err(|e| engine("no worker program", &e))?,
    };
    let mut command = tokio::process::Command::new(&program);
    command
        .arg(WORKER_ARG)
        // The script has no I/O; its process needs only what any program needs to start (on
        // Windows, the system folder), none of the host's secrets.
        .env_clear()
        .envs(std::env::vars_os().filter(|(name, _)| crate::safe_env::for_servers(name)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut wrapped = process_wrap::tokio::CommandWrap::from(command);
    // The worker must not outlive its host, however the host ends. On Unix it ends when its stdin
    // closes; Windows may leave it spinning after the host is ended outright (TerminateProcess), so
    // there it runs in a job the system kills when the host's handle to it closes.
    #[cfg(windows)]
    wrapped.wrap(process_wrap::tokio::JobObject);
    wrapped.wrap(process_wrap::tokio::KillOnDrop);
    let mut child = wrapped.spawn().map_err(|e| engine("the script's process could not start", &e))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin().take(), child.stdout().take()) else {
        return Err(SandboxError::Engine("the script's process has no pipes".into()));
    };
    let mut lines = BufReader::new(stdout).lines();
    let start = Start { code: code.to_string(), names: names.to_vec(), limits };
    let first = serde_json::to_string(&start).map_err(|e| engine("the script could not be sent", &e))?;
    write_line(&mut stdin, first).await.map_err(|e| engine("the script could not be sent", &e))?;

    let allowed = limits.js_time + GRACE;
    let (mut used, mut since) = (Duration::ZERO, Instant::now());
    let outcome = loop {
        let deadline = tokio::time::Instant::from_std(since + allowed.saturating_sub(used));
        let line = tokio::select! {
            _ = abort.cancelled() => break Err(SandboxError::Aborted),
            _ = tokio::time::sleep_until(deadline) => break Err(SandboxError::Time { limit: limits.js_time }),
            line = lines.next_line() => line,
        };
        let message = match line {
            Ok(Some(line)) => serde_json::from_str::<FromWorker>(&line)
                .map_err(|e| engine("the script's process sent something unreadable", &e)),
            Ok(None) => Err(SandboxError::Engine(ended(&mut *child).await)),
            Err(e) => Err(engine("the script's process could not be read", &e)),
        };
        match message {
            Ok(FromWorker::Call { name, args }) => {
                used += since.elapsed();
                // A tool that does not heed the stop itself (a slow server) does not hold it up.
                let reply = tokio::select! {
                    reply = call(name, args) => reply,
                    _ = abort.cancelled() => break Err(SandboxError::Aborted),
                };
                since = Instant::now();
                let line = serde_json::to_string(&reply).unwrap_or_else(|e| {
                    let failure = CallFailure { code: "RUN_CODE_ERROR".into(), message: e.to_string() };
                    serde_json::to_string(&CallReply::Err(failure)).unwrap_or_default()
                });
                if let Err(e) = write_line(&mut stdin, line).await {
                    break Err(engine("the script's process could not be written to", &e));
                }
            }
            Ok(FromWorker::Done { outcome }) => break outcome,
            Err(e) => break Err(e),
        }
    };
    // Done or not, the worker goes now; waiting reaps it.
    let _ = child.start_kill();
    let _ = child.wait().await;
    outcome
}

async fn write_line(stdin: &mut tokio::process::ChildStdin, mut line: String) -> std::io::Result<()> {
    line.push('\n');
    stdin.write_all(line.as_bytes()).await?;
    stdin.flush().await
}

/// Why a worker that closed its output without a result ended.
async fn ended(child: &mut dyn process_wrap::tokio::ChildWrapper) -> String {
    match child.wait().await {
        Ok(status) => format!("the script's process ended without a result ({status})"),
        Err(e) => format!("the script's process ended without a result: {e}"),
    }
}
