//! What the tests of `hark hook` and `hark mcp` against a running host share: a host of hark-core in
//! the test process serving its data directory's control socket as the desktop app does (its person
//! is away: nothing answers but the test), a real `hark chat` hosting a directory (which a test may
//! suspend, as Ctrl-Z does), a child run under a deadline, and an MCP client speaking raw JSON-RPC.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_core::host::Host;
use hark_core::service::ForwardingProvider;
use hark_test_support::models::DemoModels;
use serde_json::{json, Value};

/// A host of `dir` in this process, serving its control socket. Call inside a tokio runtime.
pub fn host(dir: &Path) -> Arc<Host> {
    let (surface, requests) = ForwardingProvider::new();
    // Kept open for the test's life: a closed channel would refuse every question.
    std::mem::forget(requests);
    let host = Host::start(dir, Arc::new(surface), Arc::new(DemoModels::script("hello"))).expect("host");
    let host = Arc::new(host);
    host.serve().expect("serve the control socket");
    host
}

/// A real `hark chat` hosting `dir`, waiting on a question nobody answers (its stdin is kept open).
/// Killed when dropped.
pub struct ChatHost {
    child: Child,
    _stdin: ChildStdin,
}

impl ChatHost {
    pub fn start(dir: &Path) -> ChatHost {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hark"))
            .args(["chat", "--provider", "demo", "--script", "blocking", "set up the project"])
            .env("HARK_DATA_DIR", dir)
            .env_remove("DEEPSEEK_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run hark chat");
        let stdin = child.stdin.take().expect("stdin");
        let host = ChatHost { child, _stdin: stdin };
        let started = Instant::now();
        while hark_core::control::request(dir, &hark_core::control::Request::Settings).is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "hark chat never answered on its socket");
            std::thread::sleep(Duration::from_millis(100));
        }
        host
    }

    /// Suspends it, as Ctrl-Z does: its socket still takes connections, and nothing answers them.
    #[cfg(unix)]
    pub fn suspend(&self) {
        // SAFETY: kill only sends a signal, to the child this test started (not reaped yet).
        assert_eq!(unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGSTOP) }, 0);
    }

    /// Suspends it, as a debugger's break does: each of its threads is suspended, so its pipe still
    /// takes connections and nothing answers them. Windows has no SIGSTOP.
    #[cfg(windows)]
    pub fn suspend(&self) {
        use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
        use windows_sys::Win32::System::Diagnostics::ToolHelp::{
            CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
        };
        use windows_sys::Win32::System::Threading::{OpenThread, SuspendThread, THREAD_SUSPEND_RESUME};
        let pid = self.child.id();
        let mut suspended = 0;
        // SAFETY: a snapshot of threads read into an entry of the size it states; each handle opened
        // here is closed here, and only threads of the child this test started are suspended.
        unsafe {
            let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
            assert_ne!(snapshot, INVALID_HANDLE_VALUE, "a snapshot of the threads");
            let mut entry: THREADENTRY32 = std::mem::zeroed();
            entry.dwSize = std::mem::size_of::<THREADENTRY32>() as u32;
            let mut more = Thread32First(snapshot, &mut entry) != 0;
            while more {
                if entry.th32OwnerProcessID == pid {
                    let thread = OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID);
                    if !thread.is_null() {
                        if SuspendThread(thread) != u32::MAX {
                            suspended += 1;
                        }
                        CloseHandle(thread);
                    }
                }
                more = Thread32Next(snapshot, &mut entry) != 0;
            }
            CloseHandle(snapshot);
        }
        assert!(suspended > 0, "no thread of hark chat ({pid}) was suspended");
    }
}

impl Drop for ChatHost {
    fn drop(&mut self) {
        // A stopped process takes SIGKILL too.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first question an outside agent asks through the host of `dir` (not Hark's own agent):
/// its session and call, read from the host's inbox over the control socket.
pub fn outside_question(dir: &Path) -> (String, String) {
    use hark_core::control::{Reply, Request};
    let started = Instant::now();
    loop {
        if let Ok(Reply::Inbox { entries }) = hark_core::control::request(dir, &Request::Inbox) {
            if let Some(entry) = entries.into_iter().find(|e| !e.own_agent) {
                return (entry.question.session_id, entry.question.call_id);
            }
        }
        assert!(started.elapsed() < Duration::from_secs(30), "the agent's question never reached the host");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `hark answer SESSION CALL ANSWERS` for `dir`, as a person runs it in another terminal.
pub fn hark_answer(dir: &Path, session: &str, call: &str, answers: &Value) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_hark"))
        .args(["answer", session, call, &answers.to_string()])
        .env("HARK_DATA_DIR", dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hark answer");
    output_within(child, Duration::from_secs(30), "hark answer")
}

/// The child's output once it exits, or a failure naming `what` when it runs past `limit` (it is
/// killed then, so a test that would hang fails instead).
pub fn output_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let started = Instant::now();
    loop {
        match child.try_wait().expect("wait for the child") {
            Some(_) => return child.wait_with_output().expect("the child's output"),
            None if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what} still ran after {limit:?}");
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// How long a response of `hark mcp` may take before a test gives up on it.
const RESPONSE_LIMIT: Duration = Duration::from_secs(30);

/// An MCP client speaking newline-delimited JSON-RPC to a `hark mcp` it started, as an agent does.
pub struct Mcp {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
}

impl Mcp {
    /// `hark mcp FLAGS` for `dir`, initialized; `tasks`: the client declares MCP Tasks. `env` is set
    /// for it. No app is started: `HARK_DESKTOP` names none.
    pub fn start(dir: &Path, flags: &[&str], tasks: bool, env: &[(&str, &str)]) -> Mcp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hark"))
            .arg("mcp")
            .args(flags)
            .env("HARK_DATA_DIR", dir)
            .env("HARK_DESKTOP", dir.join("no-such-hark-desktop"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("run hark mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp { child, stdin, lines, next_id: 1 };
        let extensions = if tasks { json!({ "io.modelcontextprotocol/tasks": {} }) } else { json!({}) };
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "extensions": extensions },
                "clientInfo": { "name": "test-agent", "title": "Test Agent", "version": "1.0" },
            }),
        );
        assert!(init.get("result").is_some(), "{init}");
        mcp.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        mcp
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("write to hark mcp");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns its response (notifications before it are skipped).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let started = Instant::now();
        loop {
            let left = RESPONSE_LIMIT.checked_sub(started.elapsed()).unwrap_or_default();
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| panic!("no response to {method} in time"));
            let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("JSON-RPC ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    /// `tools/call` of `name`: the response's `result`.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({ "name": name, "arguments": arguments }));
        assert!(reply.get("error").is_none(), "{reply}");
        reply["result"].clone()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
