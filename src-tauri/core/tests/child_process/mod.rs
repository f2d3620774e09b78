//! The child-process pattern of the crash tests: the test binary re-runs itself filtered to one
//! child test, which does the work and prints a ready line; the parent then kills it (SIGKILL on
//! Unix: no destructor, no Quit, nothing recorded on the way out) and checks what the store kept.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Starts the child test `name` of this binary with `env`, and waits up to `within` for it to print
/// `ready` on a line of its own. `None` (the child killed) when it never does.
pub fn spawn_until_ready(name: &str, env: &[(&str, &OsStr)], ready: &'static str, within: Duration) -> Option<Child> {
    let mut command = Command::new(std::env::current_exe().expect("this test binary"));
    command.args(["--exact", name, "--nocapture", "--test-threads=1"]).stdout(Stdio::piped()).stderr(Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().expect("start the child test");
    let stdout = child.stdout.take().expect("the child's stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let seen = BufReader::new(stdout).lines().any(|l| l.is_ok_and(|l| l == ready));
        let _ = tx.send(seen);
    });
    if rx.recv_timeout(within) == Ok(true) {
        Some(child)
    } else {
        let _ = child.kill();
        let _ = child.wait();
        None
    }
}
