//! Agents on another machine ask the Hark on the desk, over a real OpenSSH tunnel: the SSH lab
//! (Debian's `sshd` on 127.0.0.1, a "remote" user with its own home; `hark_test_support::ssh_lab`),
//! and as the "desk" a real `hark chat` with its own data directory. Needs root and
//! openssh-server, which `make test` installs; elsewhere it says why it does not run.
#![cfg(unix)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use hark_core::control::{self, Reply, Request};
use hark_test_support::ssh_lab::{finished, until, SshLab, Started, LAB_WAIT as WAIT};
use hark_test_support::telegram::Emulator;
use serde_json::{json, Value};

const TOKEN: &str = "4343:remote-relay-test-token";
const PERSON: i64 = 5001;

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

/// Everything both ends need: the SSH lab with the same hark on the remote host, the desk (a real
/// `hark chat` with its phone on a local Bot API) and the remote host added, its tunnel up.
struct Lab {
    ssh: SshLab,
    desk: PathBuf,
    home: PathBuf,
    hark: PathBuf,
    ssh_config: PathBuf,
    runtime: tokio::runtime::Runtime,
    emulator: Emulator,
    desk_host: Option<Started>,
}

/// The lab, or `None` (said on stderr) where it cannot run.
fn lab() -> Option<Lab> {
    let ssh = SshLab::start()?;
    let desk = ssh.dir.path().join("desk");
    std::fs::create_dir_all(&desk).unwrap();
    let hark = ssh.install_hark(Path::new(env!("CARGO_BIN_EXE_hark")));

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
            .env("HARK_SSH", ssh.ssh_command())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("run hark chat"),
    );
    until("the desk's socket", || control::request(&desk, &Request::Settings).ok());
    let out = add(&ssh, &desk, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains(&format!("devbox has this hark (hark {})", env!("CARGO_PKG_VERSION"))), "{said}");
    until("the tunnel", || remote_list(&desk).contains("devbox\tconnected").then_some(()));
    assert!(!remote_list(&desk).contains("hark there"), "nothing to say of its hark: {}", remote_list(&desk));
    Some(Lab {
        desk,
        home: ssh.home.clone(),
        hark,
        ssh_config: ssh.ssh_config.clone(),
        ssh,
        runtime,
        emulator,
        desk_host: Some(desk_host),
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
    let hook = lab.ssh.hook(&hark, "Deploy the release now?");
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
    lab.ssh.sshd.stop();
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
    let out = finished(lab.ssh.hook(&hark, "Deploy while the tunnel is down?"), Duration::from_secs(20));
    assert!(started.elapsed() < Duration::from_secs(15), "it failed fast: {:?}", started.elapsed());
    assert!(out.stdout.is_empty(), "no decision: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty(), "it says why");

    // Back up: the desk reconnects by itself and the next question goes through.
    lab.ssh.sshd.resume();
    until("the tunnel again", || remote_list(&desk).contains("devbox\tconnected").then_some(()));
    // This one is answered from the phone, whose card names the host.
    let hook = lab.ssh.hook(&hark, "Deploy now that it is back?");
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
        let hook = lab.ssh.hook(&lab.hark, &format!("Deploy build {i}?"));
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

/// `hark remote add devbox ARGS` on the desk, with the person's ssh reaching the lab.
fn add(lab: &SshLab, desk: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hark"))
        .args(["remote", "add", "devbox"])
        .args(args)
        .env("HARK_DATA_DIR", desk)
        .env("HARK_SSH", lab.ssh_command())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The same, on a terminal (util-linux `script` gives it one) where the person types `typed`.
fn add_on_a_terminal(lab: &SshLab, desk: &Path, typed: &str) -> String {
    let mut child = Command::new("script")
        .args(["-qefc", &format!("{} remote add devbox", env!("CARGO_BIN_EXE_hark")), "/dev/null"])
        .env("HARK_DATA_DIR", desk)
        .env("HARK_SSH", lab.ssh_command())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(typed.as_bytes()).unwrap();
    let out = finished(child, WAIT);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn remote_add_copies_this_hark_when_the_host_has_none_or_another_version_after_asking() {
    let Some(mut lab) = SshLab::start() else { return };
    let desk = lab.dir.path().join("desk");
    std::fs::create_dir_all(&desk).unwrap();
    let this = format!("hark {}", env!("CARGO_PKG_VERSION"));
    let installed = lab.home.join(".local/bin/hark");
    let text = |out: &std::process::Output| {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };

    // No hark there. Without a terminal to ask on, nothing is copied, and it says how.
    let said = text(&add(&lab, &desk, &[]));
    assert!(said.contains("devbox has no hark; not copied (no terminal to ask on)"), "{said}");
    assert!(said.contains("hark remote add devbox --copy"), "{said}");
    let said = text(&add(&lab, &desk, &["--no-copy"]));
    assert!(said.contains("not copied (--no-copy)"), "{said}");
    assert!(!installed.exists());
    let listed = remote_list(&desk);
    assert!(listed.contains("(no hark there: `hark remote add devbox --copy`)"), "{listed}");

    // --copy: it lands whole, runs there as this version, and is the remote user's.
    let said = text(&add(&lab, &desk, &["--copy"]));
    assert!(said.contains(&format!("copied {this} to devbox:~/.local/bin/hark")), "{said}");
    assert!(!remote_list(&desk).contains("hark there"), "{}", remote_list(&desk));
    let meta = std::fs::metadata(&installed).unwrap();
    assert_eq!(meta.len(), std::fs::metadata(env!("CARGO_BIN_EXE_hark")).unwrap().len());
    assert_eq!(meta.permissions().mode() & 0o777, 0o755);
    assert!(!lab.home.join(".local/bin/hark.tmp").exists(), "no temporary file left");
    let ran = finished(lab.remote(&installed, &["--version"]), WAIT);
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), this, "it runs there");
    let owner = std::process::Command::new("stat").args(["-c", "%U"]).arg(&installed).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&owner.stdout).trim(), hark_test_support::ssh_lab::USER);

    // The same version: not copied again.
    let copied_at = meta.modified().unwrap();
    let said = text(&add(&lab, &desk, &[]));
    assert!(said.contains(&format!("devbox has this hark ({this})")), "{said}");
    assert_eq!(std::fs::metadata(&installed).unwrap().modified().unwrap(), copied_at, "not copied again");

    // Another version there: asked on a terminal; "n" keeps it, "y" replaces it.
    std::fs::write(&installed, "#!/bin/sh\necho 'hark 0.0.1'\n").unwrap();
    let said = text(&add(&lab, &desk, &[]));
    assert!(said.contains(&format!("devbox has another hark (hark 0.0.1; this is {this}); not copied")), "{said}");
    assert!(remote_list(&desk).contains("(hark 0.0.1 there: "), "{}", remote_list(&desk));
    let said = add_on_a_terminal(&lab, &desk, "n\n");
    let size = std::fs::metadata(env!("CARGO_BIN_EXE_hark")).unwrap().len() as f64 / 1_000_000.0;
    let question = format!(
        "devbox has hark 0.0.1. Copy this hark (version {}, {size:.1} MB) to devbox:~/.local/bin/hark? [y/N]",
        env!("CARGO_PKG_VERSION")
    );
    assert!(said.contains(&question), "{said}");
    assert!(!said.contains("copied "), "{said}");
    assert!(std::fs::read_to_string(&installed).unwrap().contains("hark 0.0.1"), "kept on no");
    let said = add_on_a_terminal(&lab, &desk, "y\n");
    assert!(said.contains(&format!("copied {this}")), "{said}");
    let ran = finished(lab.remote(&installed, &["--version"]), WAIT);
    assert_eq!(String::from_utf8_lossy(&ran.stdout).trim(), this, "replaced on yes");

    // A copy that cannot be written there fails saying why, and leaves the old file as it was.
    std::fs::write(&installed, "#!/bin/sh\necho 'hark 0.0.1'\n").unwrap();
    let bin_dir = lab.home.join(".local/bin");
    std::fs::set_permissions(&bin_dir, std::fs::Permissions::from_mode(0o555)).unwrap();
    let out = add(&lab, &desk, &["--copy"]);
    std::fs::set_permissions(&bin_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let error = String::from_utf8_lossy(&out.stderr);
    assert!(error.contains("REMOTE_COPY_FAILED") && error.contains("Permission denied"), "{error}");
    assert!(std::fs::read_to_string(&installed).unwrap().contains("hark 0.0.1"), "the old one stays whole");

    // The host unreachable: it stays added; only --copy fails.
    lab.sshd.stop();
    let out = add(&lab, &desk, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("could not check its hark"));
    let out = add(&lab, &desk, &["--copy"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("REMOTE_UNREACHABLE"));
    assert!(remote_list(&desk).contains("devbox"), "added all the same");
}

/// A Hark of the next control protocol at the desk end of a tunnel: it greets every connection
/// with its own protocol, as a newer host does, and answers nothing else. The first lines it was
/// sent, one per connection.
fn newer_desk(socket: &Path) -> std::sync::mpsc::Receiver<String> {
    use std::io::{BufRead, BufReader};
    let listener = std::os::unix::net::UnixListener::bind(socket).unwrap();
    let (sent, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut first = String::new();
            let _ = BufReader::new(&stream).read_line(&mut first);
            let hello = json!({ "result": "hello", "protocol": control::PROTOCOL + 1, "host": "hark 9.9.9" });
            let _ = stream.write_all(format!("{hello}\n").as_bytes());
            if sent.send(first).is_err() {
                return;
            }
        }
    });
    heard
}

/// `hark mcp` on the remote host, as Claude Code starts it: initialized, then one question asked;
/// the reply to the call.
fn remote_mcp_call(lab: &SshLab, hark: &Path, question: &str) -> Value {
    use std::io::{BufRead, BufReader};
    let mut child = lab.remote(hark, &["mcp"]);
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sent, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if sent.send(line).is_err() {
                return;
            }
        }
    });
    let send = |stdin: &mut std::process::ChildStdin, message: Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    let reply_to = |id: i64| loop {
        let line = lines.recv_timeout(WAIT).expect("hark mcp replies in time");
        let message: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if message["id"] == id {
            return message;
        }
    };
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18",
            "capabilities": {}, "clientInfo": { "name": "claude-code", "version": "2.0.0" } } }),
    );
    let initialized = reply_to(1);
    assert!(initialized.get("result").is_some(), "{initialized}");
    send(&mut stdin, json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    send(
        &mut stdin,
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "ask_user_question",
            "arguments": { "questions": [{ "id": "deploy", "question": question, "header": "Deploy",
                "options": [{ "label": "Ship it" }, { "label": "Wait" }] }] } } }),
    );
    let reply = reply_to(2);
    drop(stdin);
    finished(child, WAIT);
    reply
}

/// Desk and remote host of different control protocols, over a real tunnel: each says so, naming
/// both versions, and nothing is asked or answered wrongly. A newer remote client's hello is refused
/// by this desk's agents' door; this remote hark, meeting a newer desk, gives the agent no decision
/// (the hook) or a clear error (`hark mcp`).
#[test]
fn a_remote_hark_of_another_control_protocol_gets_a_clear_message_never_a_wrong_answer() {
    let Some(lab) = lab() else { return };
    let this = format!("hark {}", env!("CARGO_PKG_VERSION"));
    let (now, next) = (control::PROTOCOL, control::PROTOCOL + 1);

    // A newer client on the remote host, speaking the next protocol over the forwarded socket.
    let socket = lab.home.join(".hark/agents.sock");
    let reply = {
        use std::io::{BufRead, BufReader};
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        let ask = json!({ "op": "ask", "client": { "name": "claude-code", "cwd": "/srv/notes-app" },
            "arguments": { "questions": [{ "id": "q", "question": "From the future?", "options": [{ "label": "Yes" }] }] } });
        let hello = json!({ "op": "hello", "protocol": next, "by": "hark 9.9.9" });
        stream.write_all(format!("{hello}\n{ask}\n").as_bytes()).unwrap();
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    };
    assert_eq!(reply["result"], "refused", "{reply}");
    assert_eq!(reply["error"]["code"], "VERSION_MISMATCH", "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("hark 9.9.9 speaks control protocol {next}")), "{message}");
    assert!(message.contains(&format!("this {this} speaks {now}")), "{message}");
    let Ok(Reply::Inbox { entries }) = control::request(&lab.desk, &Request::Inbox) else { panic!("the inbox") };
    assert!(!entries.iter().any(|e| e.asker.contains("on devbox")), "nothing was asked: {entries:?}");

    // This remote hark, with a newer Hark at the desk end of the tunnel (the test's own forward).
    drop(lab.desk_host);
    until("the desk's tunnel to close", || std::os::unix::net::UnixStream::connect(&socket).is_err().then_some(()));
    // What the desk does before each forward: the dead forward's socket would block this one.
    std::fs::remove_file(&socket).unwrap();
    let desk_socket = lab.ssh.dir.path().join("newer-desk.sock");
    let heard = newer_desk(&desk_socket);
    let _forward = Started(
        Command::new("ssh")
            .args(["-F", &lab.ssh_config.display().to_string(), "-N", "-o", "ExitOnForwardFailure=yes"])
            .args(["-o", "StreamLocalBindMask=0177", "-R"])
            .arg(format!("{}:{}", socket.display(), desk_socket.display()))
            .arg("devbox")
            .stdin(Stdio::null())
            .spawn()
            .expect("run ssh"),
    );
    until("the test's forward", || socket.exists().then_some(()));

    let started = Instant::now();
    let out = finished(lab.ssh.hook(&lab.hark, "Deploy across versions?"), WAIT);
    assert!(started.elapsed() < Duration::from_secs(15), "it gave up at once: {:?}", started.elapsed());
    assert!(out.stdout.is_empty(), "no decision: {}", String::from_utf8_lossy(&out.stdout));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("VERSION_MISMATCH"), "{said}");
    assert!(said.contains(&format!("hark 9.9.9 speaks control protocol {next}, this {this} speaks {now}")), "{said}");
    let first = heard.recv_timeout(WAIT).unwrap();
    assert!(first.contains("\"op\":\"hello\"") && first.contains(&format!("\"protocol\":{now}")), "{first}");

    let reply = remote_mcp_call(&lab.ssh, &lab.hark, "Deploy across versions?");
    let result = &reply["result"];
    assert_eq!(result["isError"], true, "{reply}");
    assert_eq!(result["structuredContent"]["error"]["code"], "VERSION_MISMATCH", "{reply}");
    let message = result["structuredContent"]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("hark 9.9.9 speaks control protocol {next}, this {this} speaks {now}")),
        "{message}"
    );
}
