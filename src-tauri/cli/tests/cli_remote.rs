//! Agents on another machine ask the Hark on the desk, over a real OpenSSH tunnel. The test starts
//! Debian's `sshd` on 127.0.0.1 with throwaway host and user keys, and a "remote" user of its own
//! with its own home; the "desk" is a real `hark chat` with its own data directory. Needs root (to
//! run sshd and make the user) and openssh-server, which `make test` installs; elsewhere it says why
//! it does not run.
#![cfg(unix)]

use std::io::Write;
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use hark_core::control::{self, Reply, Request};
use hark_test_support::telegram::Emulator;
use serde_json::{json, Value};

const SSHD: &str = "/usr/sbin/sshd";
const USER: &str = "hark-remote-test";
const WAIT: Duration = Duration::from_secs(60);
const TOKEN: &str = "4343:remote-relay-test-token";
const PERSON: i64 = 5001;

fn run(program: &str, args: &[&str]) -> Output {
    let out = Command::new(program).args(args).output().unwrap_or_else(|e| panic!("run {program}: {e}"));
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn until<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let started = Instant::now();
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(started.elapsed() < WAIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A process this test started, killed (by its pid) when dropped.
struct Started(Child);

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Debian's sshd on 127.0.0.1, for the remote user only.
struct Sshd {
    config: PathBuf,
    port: u16,
    process: Option<Started>,
}

impl Sshd {
    fn start(dir: &Path) -> Sshd {
        run("ssh-keygen", &["-q", "-t", "ed25519", "-N", "", "-f", dir.join("host_key").to_str().unwrap()]);
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
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
        .unwrap();
        std::fs::create_dir_all("/run/sshd").unwrap();
        let mut sshd = Sshd { config, port, process: None };
        sshd.resume();
        sshd
    }

    /// Starts (again) listening; returns once it takes connections.
    fn resume(&mut self) {
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f", self.config.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run sshd");
        self.process = Some(Started(child));
        until("sshd to listen", || TcpStream::connect(("127.0.0.1", self.port)).ok());
    }

    /// Stops taking connections (the sessions it forked go on until their client goes).
    fn stop(&mut self) {
        self.process = None;
    }
}

/// The remote user, with its home `home` and the test's key.
fn remote_user(home: &Path, key: &Path) {
    if !Command::new("id").arg(USER).output().unwrap().status.success() {
        run("useradd", &["-M", "-s", "/bin/sh", USER]);
    }
    run("usermod", &["-d", home.to_str().unwrap(), "-p", "*", USER]);
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::copy(key.with_extension("pub"), home.join(".ssh/authorized_keys")).unwrap();
    run("chown", &["-R", USER, home.to_str().unwrap()]);
    std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o700)).unwrap();
}

/// `hark hook claude-code` on the remote host, as its user, with Claude Code's AskUserQuestion.
fn remote_hook(hark: &Path, home: &Path, question: &str) -> Child {
    let event = json!({
        "session_id": "s-1", "cwd": "/srv/notes-app", "hook_event_name": "PreToolUse",
        "tool_name": "AskUserQuestion", "tool_use_id": "toolu_1",
        "tool_input": { "questions": [{ "question": question, "header": "Deploy", "multiSelect": false,
            "options": [{ "label": "Ship it", "description": "" }, { "label": "Wait", "description": "" }] }] },
    });
    let mut child = Command::new("runuser")
        .args(["-u", USER, "--", "env", "-i", &format!("HOME={}", home.display()), "PATH=/usr/bin:/bin"])
        .arg(hark)
        .args(["hook", "claude-code", "--timeout", "60"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the remote hook");
    child.stdin.take().unwrap().write_all(event.to_string().as_bytes()).unwrap();
    child
}

fn finished(child: Child, limit: Duration) -> Output {
    let pid = child.id();
    let started = Instant::now();
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    while !waiter.is_finished() {
        if started.elapsed() > limit {
            // SAFETY: signals the one process this test started, by its pid.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("the remote hook did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    waiter.join().unwrap()
}

/// The desk's waiting question from the remote host, once it is there.
fn desk_question(desk: &Path) -> (String, String, String) {
    until("the remote question on the desk", || match control::request(desk, &Request::Inbox) {
        Ok(Reply::Inbox { entries }) => entries
            .into_iter()
            .find(|e| e.asker.contains("on devbox"))
            .map(|e| (e.question.session_id, e.question.call_id, e.asker)),
        _ => None,
    })
}

fn remote_list(desk: &Path) -> String {
    let out =
        Command::new(env!("CARGO_BIN_EXE_hark")).args(["remote", "list"]).env("HARK_DATA_DIR", desk).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Everything both ends need: sshd and the remote user, the desk (a real `hark chat` with its phone
/// on a local Bot API) and the remote host added, its tunnel up.
struct Lab {
    desk: PathBuf,
    home: PathBuf,
    hark: PathBuf,
    ssh_config: PathBuf,
    sshd: Sshd,
    runtime: tokio::runtime::Runtime,
    emulator: Emulator,
    desk_host: Option<Started>,
    _dir: tempfile::TempDir,
    // One lab at a time: they share the remote user.
    _one: std::sync::MutexGuard<'static, ()>,
}

static ONE_LAB: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The lab, or `None` (said on stderr) where it cannot run.
fn lab() -> Option<Lab> {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 || !Path::new(SSHD).exists() {
        eprintln!("skipped: needs root and openssh-server (make test installs it and runs as root in CI)");
        return None;
    }
    let one = ONE_LAB.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let lab = tempfile::tempdir().unwrap();
    // The remote user must pass through to its home; nothing else in here is theirs.
    std::fs::set_permissions(lab.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let (desk, home) = (lab.path().join("desk"), lab.path().join("remote-home"));
    std::fs::create_dir_all(&desk).unwrap();
    let key = lab.path().join("user_key");
    run("ssh-keygen", &["-q", "-t", "ed25519", "-N", "", "-f", key.to_str().unwrap()]);
    remote_user(&home, &key);
    let sshd = Sshd::start(lab.path());
    // The desk person's ssh config names the remote host, as theirs would.
    let ssh_config = lab.path().join("ssh_config");
    std::fs::write(
        &ssh_config,
        format!(
            "Host devbox\n  HostName 127.0.0.1\n  Port {}\n  User {USER}\n  IdentityFile {}\n  IdentitiesOnly yes\n\
             StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n",
            sshd.port,
            key.display()
        ),
    )
    .unwrap();
    // The same hark binary on the remote host, in its user's home.
    let hark = home.join("hark");
    std::fs::copy(env!("CARGO_BIN_EXE_hark"), &hark).unwrap();
    run("chown", &[USER, hark.to_str().unwrap()]);

    // The desk's phone: a local Telegram Bot API, the person paired, questions sent at once.
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let emulator = runtime.block_on(Emulator::start());
    hark_core::phone::settings::update(&desk, |s| {
        s.api_url = emulator.url.clone();
        s.delay_secs = 0;
        s.paired = Some(hark_core::phone::PairedUser {
            user_id: PERSON.to_string(),
            chat_id: PERSON.to_string(),
            name: "@ada".into(),
        });
    })
    .unwrap();

    // The desk: a real hark chat, and the remote host added with the CLI while it runs.
    let desk_host = Started(
        Command::new(env!("CARGO_BIN_EXE_hark"))
            .args(["chat", "--provider", "demo", "--script", "blocking", "set up the project"])
            .env("HARK_DATA_DIR", &desk)
            .env("HARK_TELEGRAM_TOKEN", TOKEN)
            .env("HARK_SSH", format!("ssh -F {}", ssh_config.display()))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run hark chat"),
    );
    until("the desk's socket", || control::request(&desk, &Request::Settings).ok());
    let out = Command::new(env!("CARGO_BIN_EXE_hark"))
        .args(["remote", "add", "devbox"])
        .env("HARK_DATA_DIR", &desk)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    until("the tunnel", || remote_list(&desk).contains("devbox\tconnected").then_some(()));
    Some(Lab {
        desk,
        home,
        hark,
        ssh_config,
        sshd,
        runtime,
        emulator,
        desk_host: Some(desk_host),
        _dir: lab,
        _one: one,
    })
}

#[test]
fn an_agent_on_a_remote_host_asks_the_desk_through_an_ssh_tunnel() {
    let Some(mut lab) = lab() else { return };
    let (desk, home, hark, ssh_config) = (lab.desk.clone(), lab.home.clone(), lab.hark.clone(), lab.ssh_config.clone());
    for bad in ["-oProxyCommand=touch /tmp/pwned", "dev box"] {
        let out = Command::new(env!("CARGO_BIN_EXE_hark"))
            .args(["remote", "add", bad])
            .env("HARK_DATA_DIR", &desk)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?} is refused");
        assert!(String::from_utf8_lossy(&out.stderr).contains("BAD_HOST"), "{}", String::from_utf8_lossy(&out.stderr));
    }

    // The forwarded socket is the remote user's alone.
    let socket = home.join(".hark/agents.sock");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&home.join(".hark")), 0o700);
    assert_eq!(mode(&socket), 0o600);
    let other = Command::new("runuser")
        .args(["-u", "nobody", "--", "python3", "-c"])
        .arg(format!(
            "import socket\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect({:?}); print('connected')\nexcept OSError as e:\n    print('refused', e.errno)",
            socket.display().to_string()
        ))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&other.stdout).trim(), "refused 13", "another user cannot connect");

    // Over it, only what an agent needs: every other op is refused.
    for op in [
        Request::Sessions,
        Request::Inbox,
        Request::Overview { session: None, turns: 1 },
        Request::Start { text: "rm -rf".into(), workspace: None, by: None, plan_first: None, ptc: None },
    ] {
        let reply = lab.runtime.block_on(async {
            let mut replies = control::open_at(&socket, &op).await.expect("the tunnel carries it");
            replies.next().await.expect("a reply")
        });
        match reply {
            Some(Reply::Refused { error }) => assert_eq!(error.code, hark_core::front_door::AGENTS_ONLY, "{op:?}"),
            other => panic!("{op:?} must be refused over the agents' door, got {other:?}"),
        }
    }

    // A question asked on the remote host is answered on the desk; the hook hands it to the agent.
    let hook = remote_hook(&hark, &home, "Deploy the release now?");
    let (session, call, asker) = desk_question(&desk);
    assert_eq!(asker, "Claude Code on devbox", "the person sees where it comes from");
    let answers = hark_core::question::AnswerBatch {
        answers: vec![hark_core::question::Answer { id: "q1".into(), selected: vec!["Ship it".into()], custom: None }],
    };
    let answered = control::request(&desk, &Request::Answer { session, call_id: call, answers, path: None });
    assert!(matches!(answered, Ok(Reply::Answered { .. })), "{answered:?}");
    let out = finished(hook, WAIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let decision: Value = serde_json::from_slice(&out.stdout).expect("a decision");
    assert!(decision.to_string().contains("Ship it"), "{decision}");

    // The tunnel goes down (sshd stops, the tunnel's ssh is killed): a question fails at once, with
    // no decision, so the agent asks in its own terminal.
    lab.sshd.stop();
    let tunnel_ssh = until("the tunnel's ssh", || {
        std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline);
            (cmdline.starts_with("ssh\0")
                && cmdline.contains(&ssh_config.display().to_string())
                && cmdline.contains("\0-R\0"))
            .then_some(pid)
        })
    });
    // SAFETY: the tunnel's ssh, started by the desk this test started; signalled by its pid.
    unsafe { libc::kill(tunnel_ssh, libc::SIGTERM) };
    until("the tunnel to be down", || (!remote_list(&desk).contains("devbox\tconnected")).then_some(()));
    let started = Instant::now();
    let out = finished(remote_hook(&hark, &home, "Deploy while the tunnel is down?"), Duration::from_secs(20));
    assert!(started.elapsed() < Duration::from_secs(15), "it failed fast: {:?}", started.elapsed());
    assert!(out.stdout.is_empty(), "no decision: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty(), "it says why");

    // Back up: the desk reconnects by itself and the next question goes through.
    lab.sshd.resume();
    until("the tunnel again", || remote_list(&desk).contains("devbox\tconnected").then_some(()));
    // This one is answered from the phone, whose card names the host.
    let hook = remote_hook(&hark, &home, "Deploy now that it is back?");
    desk_question(&desk);
    lab.runtime.block_on(async {
        let card = lab
            .emulator
            .wait_message(TOKEN, "the remote question's card", |m| m.text.contains("Deploy now that it is back?"))
            .await;
        assert!(card.text.starts_with("❓ Question from Claude Code on devbox"), "{}", card.text);
        lab.emulator.person(TOKEN, PERSON, "ada").press(&card, "Wait").await;
    });
    let out = finished(hook, WAIT);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Wait"), "{}", String::from_utf8_lossy(&out.stdout));

    // A desk that dies (killed, no goodbye) takes its tunnel with it.
    lab.desk_host = None;
    until("the tunnel's ssh to end with the desk", || {
        let left = std::fs::read_dir("/proc").ok()?.flatten().any(|entry| {
            std::fs::read(entry.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&ssh_config.display().to_string()))
        });
        (!left).then_some(())
    });

    // Removed from the list.
    let out = Command::new(env!("CARGO_BIN_EXE_hark"))
        .args(["remote", "remove", "devbox"])
        .env("HARK_DATA_DIR", &desk)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(remote_list(&desk).contains("no remote hosts"));
}

/// `make bench`: how long a question from the remote host takes to reach the desk through the
/// tunnel (the hook started on the host until the desk lists it), and an answer on the desk to reach
/// the agent (until the hook printed its decision and ended); medians of 20.
#[test]
#[ignore = "a benchmark: make bench runs it"]
fn bench_a_question_through_the_tunnel() {
    let Some(lab) = lab() else { return };
    let (mut to_desk, mut to_agent) = (Vec::new(), Vec::new());
    for i in 0..20 {
        let asked = Instant::now();
        let hook = remote_hook(&lab.hark, &lab.home, &format!("Deploy build {i}?"));
        let (session, call) = loop {
            if let Ok(Reply::Inbox { entries }) = control::request(&lab.desk, &Request::Inbox) {
                if let Some(e) = entries.into_iter().find(|e| e.asker.contains("on devbox")) {
                    break (e.question.session_id, e.question.call_id);
                }
            }
            assert!(asked.elapsed() < WAIT, "question {i} never reached the desk");
            std::thread::sleep(Duration::from_millis(2));
        };
        to_desk.push(asked.elapsed());
        let answered_at = Instant::now();
        let answers = hark_core::question::AnswerBatch {
            answers: vec![hark_core::question::Answer {
                id: "q1".into(),
                selected: vec!["Ship it".into()],
                custom: None,
            }],
        };
        let answered = control::request(&lab.desk, &Request::Answer { session, call_id: call, answers, path: None });
        assert!(matches!(answered, Ok(Reply::Answered { .. })), "{answered:?}");
        let out = finished(hook, WAIT);
        assert!(String::from_utf8_lossy(&out.stdout).contains("Ship it"));
        to_agent.push(answered_at.elapsed());
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2].as_secs_f64() * 1000.0
    };
    println!("remote_question_to_desk_ms {:.1} ms", median(&mut to_desk));
    println!("remote_answer_to_agent_ms {:.1} ms", median(&mut to_agent));
}
