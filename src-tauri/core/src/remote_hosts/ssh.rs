//! The person's own `ssh`, as every connection to a remote host runs it.

use std::process::Command;

/// The ssh command to run instead of `ssh` (a program and its arguments, split at spaces), as
/// `GIT_SSH_COMMAND` does for git: another ssh, or `ssh -F <config>`.
pub const SSH_ENV: &str = "HARK_SSH";

/// The person's ssh with `args`, never asking anything (no terminal to ask in) and never sharing a
/// connection (a `ControlMaster` in their config would make `ssh -N` hand the forward to another
/// process and exit at once). On Linux it ends when this process dies.
pub(crate) fn ssh(args: &[&str]) -> Command {
    let configured = std::env::var(SSH_ENV).ok().filter(|c| !c.trim().is_empty());
    let mut words: Vec<String> =
        configured.map(|c| c.split_whitespace().map(str::to_string).collect()).unwrap_or_else(|| vec!["ssh".into()]);
    let program = words.remove(0);
    let mut command = Command::new(program);
    command
        .args(words)
        .args(["-o", "BatchMode=yes", "-o", "ControlMaster=no", "-o", "ControlPath=none", "-o", "ConnectTimeout=15"])
        .args(args);
    // A host that dies without closing its tunnels (killed) takes its ssh with it: a forward left
    // running would keep the remote socket for a Hark that is gone.
    #[cfg(target_os = "linux")]
    // SAFETY: prctl is async-signal-safe and only sets this child's parent-death signal.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
}

/// The last line ssh (or the remote command) said on stderr: the reason a person reads.
pub(crate) fn last_words(stderr: &[u8], otherwise: &str) -> String {
    let stderr = String::from_utf8_lossy(stderr);
    stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or(otherwise).trim().to_string()
}
