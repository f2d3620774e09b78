//! A remote host over a real OpenSSH connection, for the tests of agents on other machines: Debian's
//! `sshd` on 127.0.0.1 with throwaway host and user keys, a "remote" user of its own with its own
//! home, and an ssh config naming it `devbox` as the person's would. The desk side (a `hark chat`, the
//! real window) is the test's own. Needs root (to run sshd and make the user) and openssh-server,
//! which `make test` installs; elsewhere [`SshLab::start`] says why it does not run.
use std::io::Write;
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

/// The host name the person's ssh config gives the lab's sshd.
pub const HOST: &str = "devbox";
/// The remote host's user (made once, its home moved to each lab's).
pub const USER: &str = "hark-remote-test";
const SSHD: &str = "/usr/sbin/sshd";
/// How long anything in the lab may take.
pub const LAB_WAIT: Duration = Duration::from_secs(60);

/// Runs a set-up program; panics with its stderr when it fails.
pub fn run(program: &str, args: &[&str]) -> Output {
    let out = Command::new(program).args(args).output().unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Polls `check` every 100 ms until it gives something; panics after [`LAB_WAIT`].
pub fn until<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(started.elapsed() < LAB_WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A process the test started, killed (by its pid) when dropped.
pub struct Started(pub Child);

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Debian's sshd on 127.0.0.1, for the remote user only.
pub struct Sshd {
    config: PathBuf,
    pub port: u16,
    process: Option<Started>,
}

impl Sshd {
    fn start(dir: &Path) -> Sshd {
        run("ssh-keygen", &["-q", "-t", "ed25519", "-N", "", "-f", &dir.join("host_key").display().to_string()]);
        let port =
            std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free local port").port();
        let config = dir.join("sshd_config");
        std::fs::write(
            &config,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile none\nAuthorizedKeysFile .ssh/authorized_keys\n\
                 PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nAllowUsers {USER}\n\
                 AllowStreamLocalForwarding yes\nPermitRootLogin no\n",
                dir.join("host_key").display()
            ),
        )
        .expect("write sshd_config");
        std::fs::create_dir_all("/run/sshd").expect("sshd's privilege separation folder");
        let mut sshd = Sshd { config, port, process: None };
        sshd.resume();
        sshd
    }

    /// Starts (again) listening; returns once it takes connections.
    pub fn resume(&mut self) {
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run sshd");
        self.process = Some(Started(child));
        until("sshd to listen", || TcpStream::connect(("127.0.0.1", self.port)).ok());
    }

    /// Stops taking connections (the sessions it forked go on until their client goes).
    pub fn stop(&mut self) {
        self.process = None;
    }
}

/// The remote user, with its home `home` and the test's key.
fn remote_user(home: &Path, key: &Path) {
    let known = Command::new("id").arg(USER).output().expect("run id");
    if !known.status.success() {
        run("useradd", &["-M", "-s", "/bin/sh", USER]);
    }
    run("usermod", &["-d", &home.display().to_string(), "-p", "*", USER]);
    std::fs::create_dir_all(home.join(".ssh")).expect("the remote .ssh");
    std::fs::copy(key.with_extension("pub"), home.join(".ssh/authorized_keys")).expect("authorized_keys");
    run("chown", &["-R", USER, &home.display().to_string()]);
    std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o700)).expect("the remote home's mode");
}

/// sshd and the remote user; dropped, sshd stops and the folder goes.
pub struct SshLab {
    /// The remote user's home.
    pub home: PathBuf,
    /// The person's ssh config on the desk, naming [`HOST`].
    pub ssh_config: PathBuf,
    pub sshd: Sshd,
    /// The lab's folder: anything of the desk's goes here too.
    pub dir: tempfile::TempDir,
    // One lab at a time in a process: they share the remote user.
    _one: std::sync::MutexGuard<'static, ()>,
}

static ONE_LAB: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl SshLab {
    /// The lab, or `None` (said on stderr) where it cannot run.
    pub fn start() -> Option<SshLab> {
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 || !Path::new(SSHD).exists() {
            eprintln!("skipped: needs root and openssh-server (make test installs it and runs as root in CI)");
            return None;
        }
        let one = ONE_LAB.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::tempdir().expect("the lab's folder");
        // The remote user must pass through to its home; nothing else in here is theirs.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).expect("the lab's mode");
        let home = dir.path().join("remote-home");
        let key = dir.path().join("user_key");
        run("ssh-keygen", &["-q", "-t", "ed25519", "-N", "", "-f", &key.display().to_string()]);
        remote_user(&home, &key);
        let sshd = Sshd::start(dir.path());
        let ssh_config = dir.path().join("ssh_config");
        std::fs::write(
            &ssh_config,
            format!(
                "Host {HOST}\n  HostName 127.0.0.1\n  Port {}\n  User {USER}\n  IdentityFile {}\n  IdentitiesOnly yes\n\
                 StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n",
                sshd.port,
                key.display()
            ),
        )
        .expect("write the ssh config");
        Some(SshLab { home, ssh_config, sshd, dir, _one: one })
    }

    /// What `HARK_SSH` is on the desk: the person's ssh with the lab's config.
    pub fn ssh_command(&self) -> String {
        format!("ssh -F {}", self.ssh_config.display())
    }

    /// Puts `binary` where `hark remote add` would put it on the remote host (`~/.local/bin/hark`),
    /// the remote user's; its path there.
    pub fn install_hark(&self, binary: &Path) -> PathBuf {
        let hark = self.home.join(".local/bin/hark");
        std::fs::create_dir_all(self.home.join(".local/bin")).expect("the remote ~/.local/bin");
        std::fs::copy(binary, &hark).expect("copy hark to the remote home");
        run("chown", &["-R", USER, &self.home.join(".local").display().to_string()]);
        hark
    }

    /// `program args` on the remote host, as its user, in a clean environment (its home, the
    /// system's PATH), with stdin, stdout and stderr piped.
    pub fn remote(&self, program: &Path, args: &[&str]) -> Child {
        Command::new("runuser")
            .args(["-u", USER, "--", "env", "-i", &format!("HOME={}", self.home.display()), "PATH=/usr/bin:/bin"])
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run a program as the remote user")
    }

    /// `hark hook claude-code` on the remote host, as its user, with Claude Code's AskUserQuestion
    /// (header "Deploy", options "Ship it" and "Wait") asked in `/srv/notes-app`.
    pub fn hook(&self, hark: &Path, question: &str) -> Child {
        let event = json!({
            "session_id": "s-1", "cwd": "/srv/notes-app", "hook_event_name": "PreToolUse",
            "tool_name": "AskUserQuestion", "tool_use_id": "toolu_1",
            "tool_input": { "questions": [{ "question": question, "header": "Deploy", "multiSelect": false,
                "options": [{ "label": "Ship it", "description": "" }, { "label": "Wait", "description": "" }] }] },
        });
        let mut child = self.remote(hark, &["hook", "claude-code", "--timeout", "60"]);
        let mut stdin = child.stdin.take().expect("the hook's stdin");
        stdin.write_all(event.to_string().as_bytes()).expect("write the hook's event");
        child
    }
}

/// The output of `child` once it ended; it is killed (by its pid) and this panics after `limit`.
pub fn finished(child: Child, limit: Duration) -> Output {
    let pid = child.id();
    let started = Instant::now();
    let waiter = std::thread::spawn(move || child.wait_with_output().expect("the child's output"));
    while !waiter.is_finished() {
        if started.elapsed() > limit {
            // SAFETY: signals the one process the test started, by its pid.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("the remote program did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    waiter.join().expect("the waiting thread")
}
