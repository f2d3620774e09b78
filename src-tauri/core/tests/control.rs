//! The control socket, against a real host: another front door answers the host's question through
//! it, first answer wins, and bad or foreign requests get a clear refusal.
#![cfg(unix)]

mod host_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use hark_core::control::{self, ControlError, Handler, Reply, Request};
use hark_core::host::{AnswerPath, Host};
use hark_core::session::project_questions;
use hark_test_support::wait::{question_requested, wait_for, Events};
use host_support::db;

fn host(dir: &Path) -> Arc<Host> {
    Arc::new(host_support::host(dir, "timed", host_support::timed()))
}

/// Answers as a host's own surfaces do: by whichever path applies.
fn handler(host: &Arc<Host>) -> Handler {
    hark_core::front_door::control_handler(Arc::clone(host))
}

/// `request` sent as the CLI sends it (a blocking client, so off the runtime's threads).
async fn ask(dir: &Path, request: Request) -> Result<Reply, ControlError> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || control::request(&dir, &request)).await.unwrap()
}

/// `bytes` written to the socket as they are, and the reply line read back.
async fn send_raw(socket: &Path, bytes: Vec<u8>) -> Reply {
    use std::io::{BufRead, BufReader, Write};
    let socket = socket.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        stream.write_all(&bytes).unwrap();
        let mut reply = String::new();
        BufReader::new(stream).read_line(&mut reply).unwrap();
        serde_json::from_str::<Reply>(&reply).unwrap()
    })
    .await
    .unwrap()
}

/// The hello this build's clients send first.
fn hello_line() -> Vec<u8> {
    let mut line = serde_json::to_vec(&control::Hello { protocol: control::PROTOCOL, by: "a test".into() }).unwrap();
    line.push(b'\n');
    line
}

/// `bytes` sent after an accepted hello: the welcome, then the reply to them.
async fn send_after_hello(socket: &Path, bytes: Vec<u8>) -> Reply {
    use std::io::{BufRead, BufReader, Write};
    let socket = socket.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        stream.write_all(&hello_line()).unwrap();
        stream.write_all(&bytes).unwrap();
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let welcome = serde_json::from_str::<Reply>(&line).unwrap();
        assert!(matches!(welcome, Reply::Hello { protocol, .. } if protocol == control::PROTOCOL), "{welcome:?}");
        line.clear();
        reader.read_line(&mut line).unwrap();
        serde_json::from_str::<Reply>(&line).unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_of_another_protocol_gets_version_mismatch_not_a_parse_error() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let server = control::serve(dir.path(), handler(&host)).expect("serve");
    // A newer client.
    let newer = format!("{{\"op\":\"hello\",\"protocol\":{},\"by\":\"hark 9.0.0\"}}\n", control::PROTOCOL + 1);
    let reply = send_raw(server.path(), newer.into_bytes()).await;
    let Reply::Refused { error } = reply else { panic!("{reply:?}") };
    assert_eq!(error.code, "VERSION_MISMATCH");
    assert!(error.message.contains("hark 9.0.0 speaks control protocol"), "{}", error.message);
    // An older client, which sends its request with no hello.
    let mut bare = serde_json::to_vec(&Request::Settings).unwrap();
    bare.push(b'\n');
    let reply = send_raw(server.path(), bare).await;
    assert!(matches!(&reply, Reply::Refused { error } if error.code == "VERSION_MISMATCH"), "{reply:?}");
    // This build's client, with this build's host: the request is answered.
    assert!(matches!(ask(dir.path(), Request::Settings).await.unwrap(), Reply::Settings { .. }));
    server.shutdown().await;
    host.shutdown().await;

    // This build's client, with a host from before the hello (it reads the hello as a request it
    // does not know), and with a host that replies in a shape this build has no name for.
    for answer in [
        r#"{"result":"refused","error":{"name":"ControlError","code":"BAD_REQUEST","message":"not a control request: unknown variant `hello`"}}"#,
        r#"{"result":"greetings_from_the_future"}"#,
    ] {
        let socket = dir.path().join(control::SOCKET_FILE);
        let _ = std::fs::remove_file(&socket);
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let old_host = std::thread::spawn(move || {
            use std::io::{BufRead, BufReader, Write};
            let (mut stream, _) = listener.accept().unwrap();
            let mut first = String::new();
            BufReader::new(stream.try_clone().unwrap()).read_line(&mut first).unwrap();
            stream.write_all(format!("{answer}\n").as_bytes()).unwrap();
            first
        });
        let error = control::call(dir.path(), &Request::Settings).await.unwrap_err();
        assert!(matches!(error, ControlError::VersionMismatch { .. }), "{error:?}");
        assert_eq!(hark_core::error::CodedError::code(&error), "VERSION_MISMATCH");
        assert!(old_host.join().unwrap().contains("\"op\":\"hello\""), "the hello came first");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_front_door_answers_the_hosts_question_and_the_first_answer_wins() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let server = control::serve(dir.path(), handler(&host)).expect("serve");
    let mode = std::fs::metadata(server.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "only this user may connect");

    let (session, events) = host.start_session("plan the notes app", None).unwrap();
    let mut events = Events::new(events);
    events.wait_for("the question", question_requested).await;
    let call_id = host.service().foreground(Some(&session))[0].call_id.clone();
    let prefix = session[..8].to_string();

    let answer = |label: &str| Request::Answer {
        session: prefix.clone(),
        call_id: call_id.clone(),
        answers: db(label),
        path: None,
    };
    let reply = ask(dir.path(), answer("SQLite")).await.expect("a reply");
    assert_eq!(reply, Reply::Answered { session_id: session.clone(), path: AnswerPath::Foreground });
    events.wait_until("the question to settle", || host.service().foreground(Some(&session)).is_empty()).await;

    match ask(dir.path(), answer("Postgres")).await.expect("a reply") {
        Reply::Refused { error } => assert_eq!(error.code, "NOT_PENDING", "told it resolved: {error:?}"),
        other => panic!("a second answer must be refused, got {other:?}"),
    }
    let records = project_questions(&host.store().events(&session).unwrap());
    assert_eq!(records[0].answers, Some(db("SQLite")), "the first answer is the one recorded");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_with_a_code_and_a_stale_or_live_socket_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let server = control::serve(dir.path(), handler(&host)).expect("serve");
    let again = control::serve(dir.path(), handler(&host));
    assert_eq!(again.err().map(|e| e.kind()), Some(std::io::ErrorKind::AddrInUse), "a live host keeps its socket");

    for line in ["not json\n", "{\"op\":\"delete_everything\"}\n", "{\"op\":\"answer\",\"session\":\"x\"}\n"] {
        // As the connection's first line, and as the request after an accepted hello.
        let reply = send_raw(server.path(), line.as_bytes().to_vec()).await;
        assert!(matches!(&reply, Reply::Refused { error } if error.code == "BAD_REQUEST"), "{line}: {reply:?}");
        let reply = send_after_hello(server.path(), line.as_bytes().to_vec()).await;
        assert!(matches!(&reply, Reply::Refused { error } if error.code == "BAD_REQUEST"), "{line}: {reply:?}");
    }
    // A request over the limit is refused as such, not cut off mid-way.
    let mut huge = vec![b'a'; (1 << 20) + 4096];
    huge.push(b'\n');
    let long = send_raw(server.path(), huge).await;
    assert!(matches!(&long, Reply::Refused { error } if error.message.contains("too long")), "{long:?}");

    let unknown = Request::Answer { session: "nope".into(), call_id: "c".into(), answers: db("SQLite"), path: None };
    let reply = ask(dir.path(), unknown).await.unwrap();
    assert!(matches!(&reply, Reply::Refused { error } if error.code == "NOT_FOUND"), "{reply:?}");

    // The host stops: the socket goes with it, and a client is told nothing answers.
    drop(server);
    assert!(!control::socket_path(dir.path()).exists());
    let gone = ask(
        dir.path(),
        Request::Answer { session: "x".into(), call_id: "c".into(), answers: db("SQLite"), path: None },
    )
    .await;
    assert!(matches!(gone, Err(ControlError::Unavailable { .. })), "{gone:?}");
    // A socket file a dead host left behind is replaced.
    std::os::unix::net::UnixListener::bind(control::socket_path(dir.path())).map(drop).unwrap();
    let _replaced = control::serve(dir.path(), handler(&host)).expect("a stale socket file is replaced");
    host.shutdown().await;
}

/// Another user on the machine cannot reach the socket at all: its file is 0600 in the user's own
/// data directory. Run as root (as `make test` is here), the test asks a process with another uid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_user_cannot_connect() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let server = control::serve(dir.path(), handler(&host)).expect("serve");
    let owner = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(server.path()).unwrap());
    if owner != 0 {
        eprintln!("not root: another uid cannot be started here; the 0600 mode is checked above");
        host.shutdown().await;
        return;
    }
    let connect = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1])\nexcept PermissionError:\n sys.exit(13)\nsys.exit(0)";
    let status = std::process::Command::new("python3")
        .args(["-c", connect, &server.path().display().to_string()])
        .uid(65534)
        .gid(65534)
        .status()
        .expect("run python3 as nobody");
    assert_eq!(status.code(), Some(13), "a process of another user was let in");

    // Were the file opened up by mistake, the socket itself still refuses a peer of another uid.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(server.path(), std::fs::Permissions::from_mode(0o666)).unwrap();
    // It says so before reading the request, and reads it anyway before closing: a peer that sends a
    // moment later still gets the reply rather than a broken pipe.
    let ask = "import socket,sys,time\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\ntime.sleep(0.2)\n\
s.sendall(b'{}\\n')\nsys.stdout.write(s.makefile().readline())";
    let out = std::process::Command::new("python3")
        .args(["-c", ask, &server.path().display().to_string()])
        .uid(65534)
        .gid(65534)
        .output()
        .expect("run python3 as nobody");
    let reply: Reply = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("a reply line ({e}); stderr: {}", String::from_utf8_lossy(&out.stderr)));
    assert!(matches!(&reply, Reply::Refused { error } if error.code == "PEER_REFUSED"), "{reply:?}");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_agent_asks_through_the_socket_and_closing_the_connection_withdraws_its_question() {
    use hark_core::host::ClientId;
    use hark_core::question::ToolMode;
    use hark_core::tools::QuestionSettings;
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let _server = control::serve(dir.path(), handler(&host)).expect("serve");
    let client = ClientId { name: "Codex".into(), cwd: "/src/app".into(), asker: None };
    let blocking = QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false };
    let question = serde_json::json!({"questions": [{"id": "db", "header": "DB", "question": "Which?",
        "multi_select": false, "options": [{"label": "SQLite", "description": "a file"},
        {"label": "Postgres", "description": "a server"}]}]});
    let ask_request =
        Request::Ask { client: client.clone(), settings: Some(blocking), arguments: question, call_id: None };

    // The host's own settings are what a client gets unless it chooses (this host forces timed ones).
    let settings = control::call(dir.path(), &Request::Settings).await.unwrap();
    assert_eq!(settings, Reply::Settings { settings: host_support::timed().unwrap() });

    // The service announces each question it opens and closes.
    let mut questions = Events::new(host.service().subscribe());
    let asking = tokio::spawn({
        let (dir, request) = (dir.path().to_path_buf(), ask_request.clone());
        async move { control::call(&dir, &request).await }
    });
    questions.wait_until("the client's question", || !host.service().foreground(None).is_empty()).await;
    let shown = host.service().foreground(None).remove(0);
    let answered = ask(
        dir.path(),
        Request::Answer {
            session: shown.session_id.clone(),
            call_id: shown.call_id.clone(),
            answers: db("SQLite"),
            path: None,
        },
    )
    .await
    .unwrap();
    assert!(matches!(answered, Reply::Answered { path: AnswerPath::Foreground, .. }), "{answered:?}");
    match asking.await.unwrap().unwrap() {
        Reply::Asked { answer } => assert_eq!(answer.answers, Some(db("SQLite"))),
        other => panic!("the ask is replied to with its answer, got {other:?}"),
    }

    // A client that goes away (its call cancelled) closes the connection: the question ends.
    let session = host.resolve(&shown.session_id).unwrap();
    // The client's session announces what it records; the service closes the question first and
    // the aborted result is recorded just after, so the test waits for both.
    let mut recorded = Events::new(host.session(&session).unwrap().subscribe());
    let withdrawn = tokio::spawn({
        let dir = dir.path().to_path_buf();
        async move { control::call(&dir, &ask_request).await }
    });
    questions.wait_until("the second question", || !host.service().foreground(None).is_empty()).await;
    withdrawn.abort();
    questions.wait_until("the withdrawn question to close", || host.service().foreground(None).is_empty()).await;
    let aborted = || {
        host.store().events(&session).unwrap().iter().any(|e| {
            matches!(&e.event, hark_core::session::Event::ToolResult {
            outcome: hark_core::session::ToolOutcome::Error { error }, .. } if error.code == "ASK_ABORTED")
        })
    };
    recorded.wait_until("the withdrawn question's result ASK_ABORTED", aborted).await;
    assert!(aborted());

    match control::call(dir.path(), &Request::Answers { client, calls: Vec::new() }).await.unwrap() {
        Reply::Answers { answers } => assert!(answers.answers.is_empty() && answers.waiting.is_empty(), "{answers:?}"),
        other => panic!("{other:?}"),
    }
    host.shutdown().await;
}

/// The next reply of a stream, within 10 s.
async fn next(replies: &mut control::ReplyStream) -> Reply {
    tokio::time::timeout(std::time::Duration::from_secs(10), replies.next())
        .await
        .expect("a reply in time")
        .expect("read the reply")
        .expect("the stream is still open")
}

/// Replies until one matches, within 10 s.
async fn next_matching(replies: &mut control::ReplyStream, what: &str, wanted: impl Fn(&Reply) -> bool) -> Reply {
    for _ in 0..200 {
        let reply = next(replies).await;
        if wanted(&reply) {
            return reply;
        }
    }
    panic!("no {what} among 200 replies");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_front_door_starts_follows_and_closes_a_question_through_the_socket() {
    use hark_core::service::QuestionEvent;
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let server = control::serve(dir.path(), handler(&host)).expect("serve");

    let mut everything = control::open(dir.path(), &Request::Watch { session: None }).await.unwrap();
    assert_eq!(next(&mut everything).await, Reply::Watching { session_id: None });

    let mut created = host.subscribe_created();
    let start =
        Request::Start { text: "plan the notes app".into(), workspace: None, by: None, plan_first: None, ptc: None };
    let Reply::Started { session_id } = control::call(dir.path(), &start).await.unwrap() else { panic!("started") };
    // Every surface hears of it at once, and it says it came from elsewhere.
    assert_eq!(created.try_recv().unwrap(), session_id, "announced before the reply");
    let transcript = host.transcript(&session_id, None).unwrap();
    assert_eq!(transcript.started_by.as_deref(), Some("another program"));
    let asked = next_matching(&mut everything, "question asked", |r| {
        matches!(r, Reply::Question { event: QuestionEvent::Requested { .. } })
    })
    .await;
    let Reply::Question { event: QuestionEvent::Requested { request } } = asked else { unreachable!() };
    assert_eq!(request.session_id, session_id);

    let overview = Request::Overview { session: Some(session_id.clone()), turns: 20 };
    let Reply::Overview { overview } = control::call(dir.path(), &overview).await.unwrap() else { panic!("overview") };
    assert_eq!(overview.waiting.len(), 1, "{overview:?}");
    assert_eq!(overview.sessions.len(), 1);
    let shown = overview.shown.expect("the session");
    assert_eq!(shown.transcript.title.as_deref(), Some("plan the notes app"));
    assert!(shown.busy, "its turn waits for the question");

    // Following the session by a prefix: its own events come too.
    let mut session =
        control::open(dir.path(), &Request::Watch { session: Some(session_id[..8].into()) }).await.unwrap();
    assert_eq!(next(&mut session).await, Reply::Watching { session_id: Some(session_id.clone()) });
    let cancel = Request::Cancel { session: session_id.clone(), call_id: request.call_id.clone() };
    assert_eq!(control::call(dir.path(), &cancel).await.unwrap(), Reply::Done);
    next_matching(&mut everything, "the question resolved", |r| {
        matches!(r, Reply::Question { event: QuestionEvent::Resolved { .. } })
    })
    .await;
    next_matching(&mut session, "the turn's end", |r| {
        matches!(r, Reply::Agent { event: hark_core::agent::AgentEvent::TurnEnded { .. } })
    })
    .await;
    let stop = Request::Stop { session: session_id.clone() };
    assert_eq!(control::call(dir.path(), &stop).await.unwrap(), Reply::Stopped { stopped: false }, "nothing runs");

    // Bad requests are refused with the host's own errors, and record nothing.
    let empty = Request::Start { text: "  ".into(), workspace: None, by: None, plan_first: None, ptc: None };
    let refused = |reply: Reply, code: &str| matches!(&reply, Reply::Refused { error } if error.code == code);
    assert!(refused(control::call(dir.path(), &empty).await.unwrap(), "INVALID_ARGUMENT"));
    let named = Request::Start {
        text: "and the docs".into(),
        workspace: None,
        by: Some("hark\u{202e} tui\n".into()),
        plan_first: None,
        ptc: None,
    };
    let Reply::Started { session_id: named } = control::call(dir.path(), &named).await.unwrap() else { panic!() };
    assert_eq!(host.transcript(&named, None).unwrap().started_by.as_deref(), Some("hark tui"), "a plain name");
    host.abort(&named);
    let unknown = Request::Send { session: "nope".into(), text: "hello".into() };
    assert!(refused(control::call(dir.path(), &unknown).await.unwrap(), "NOT_FOUND"));
    let mut nowhere = control::open(dir.path(), &Request::Watch { session: Some("nope".into()) }).await.unwrap();
    assert!(refused(next(&mut nowhere).await, "NOT_FOUND"));
    assert_eq!(nowhere.next().await.unwrap(), None, "a refused watch closes");
    assert_eq!(host.store().list_sessions().unwrap().len(), 2, "the refused requests recorded nothing");

    // Stopping the server ends open watches at once rather than waiting for them.
    let stopping = std::time::Instant::now();
    server.shutdown().await;
    assert!(stopping.elapsed() < std::time::Duration::from_secs(2), "{:?}", stopping.elapsed());
    // What the watches were sent before (the second session's question) is read, then they end.
    for watch in [&mut everything, &mut session] {
        let mut left = 0;
        while watch.next().await.unwrap().is_some() {
            left += 1;
            assert!(left < 100, "the watch ended");
        }
    }
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attach_holds_the_countdown_until_its_connection_closes() {
    use hark_core::session::QuestionState;
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let _server = control::serve(dir.path(), handler(&host)).expect("serve");
    // The script asks with a 5 s timeout.
    let (session, events) = host.start_session("plan the notes app", None).unwrap();
    let mut events = Events::new(events);
    events.wait_for("the question", question_requested).await;
    let call_id = host.service().foreground(None).remove(0).call_id;

    let attach = Request::Attach { session: session.clone(), call_id: call_id.clone() };
    let mut held = control::open(dir.path(), &attach).await.unwrap();
    match next(&mut held).await {
        Reply::Attached { remaining_ms: Some(ms) } => assert!(ms <= 5_000, "{ms}"),
        other => panic!("attached with its countdown, got {other:?}"),
    }
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    assert_eq!(host.service().foreground(None).len(), 1, "held past its timeout");

    // The connection closing releases it: the question goes on without an answer.
    drop(held);
    events.wait_until("the question to continue", || host.service().foreground(None).is_empty()).await;
    events
        .wait_until("its continuation recorded", || {
            project_questions(&host.store().events(&session).unwrap())
                .iter()
                .any(|r| r.state == QuestionState::Continued)
        })
        .await;
    let unknown = Request::Attach { session, call_id: "nope".into() };
    let mut refused = control::open(dir.path(), &unknown).await.unwrap();
    assert!(matches!(next(&mut refused).await, Reply::Refused { error } if error.code == "NOT_PENDING"));
    host.shutdown().await;
}

fn timed_client_question() -> serde_json::Value {
    serde_json::json!({"questions": [{"id": "db", "header": "DB", "question": "Which?", "multi_select": false,
        "options": [{"label": "SQLite", "description": "a file"}, {"label": "Postgres", "description": "a server"}]}]})
}

fn agent(n: usize) -> hark_core::host::ClientId {
    hark_core::host::ClientId { name: format!("Agent {n}"), cwd: "/src/app".into(), asker: Some(format!("run-{n}")) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_quit_every_agent_waiting_on_a_timed_question_is_told_it_is_pending() {
    use hark_core::question::ToolMode;
    use hark_core::tools::QuestionSettings;
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let server = control::serve(dir.path(), handler(&host)).expect("serve");
    let timed = QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 600, stop_turn: false };
    let mut questions = Events::new(host.service().subscribe());
    let asks: Vec<_> = (0..12)
        .map(|n| {
            let request = Request::Ask {
                client: agent(n),
                settings: Some(timed),
                arguments: timed_client_question(),
                call_id: None,
            };
            let dir = dir.path().to_path_buf();
            tokio::spawn(async move { control::call(&dir, &request).await })
        })
        .collect();
    questions.wait_until("all twelve questions", || host.service().foreground(None).len() == 12).await;
    // The desktop's quit order: the clients' asks end, then the socket stops, then the host.
    host.end_client_asks();
    server.shutdown().await;
    for (n, asking) in asks.into_iter().enumerate() {
        match asking.await.unwrap() {
            Ok(Reply::Asked { answer }) => {
                assert!(
                    answer.answers.is_none() && hark_core::question::PendingResult::parse(&answer.text).is_some(),
                    "agent {n}: {answer:?}"
                )
            }
            other => panic!("agent {n} was not told its question is pending: {other:?}"),
        }
    }
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_whose_reply_was_lost_is_handed_out_again() {
    use hark_core::question::ToolMode;
    use hark_core::tools::QuestionSettings;
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path());
    let server = control::serve(dir.path(), handler(&host)).expect("serve");
    let timed = QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 1, stop_turn: false };
    let request =
        Request::Ask { client: agent(1), settings: Some(timed), arguments: timed_client_question(), call_id: None };
    let Reply::Asked { answer } = control::call(dir.path(), &request).await.unwrap() else { panic!("asked") };
    assert!(answer.answers.is_none(), "it continued");
    // The client's session announces each event it records: the admission, and later the delivery.
    let mut recorded = Events::new(host.session(&answer.session_id).unwrap().subscribe());
    host.answer_and_admit(&answer.session_id, &answer.call_id, db("Postgres"), None).unwrap();
    recorded
        .wait_until("the late answer to settle", || {
            host.session(&answer.session_id).unwrap().question_records().iter().all(|r| r.answered_late)
        })
        .await;

    // The client asks for its answers and is gone before the reply reaches it (cancelled, killed).
    let line = serde_json::to_vec(&Request::Answers { client: agent(1), calls: Vec::new() }).unwrap();
    let socket = server.path().to_path_buf();
    tokio::task::spawn_blocking(move || {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        stream.write_all(&hello_line()).unwrap();
        stream.write_all(&line).unwrap();
        stream.write_all(b"\n").unwrap();
        stream.shutdown(std::net::Shutdown::Both).unwrap();
    })
    .await
    .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    let answers = |reply: Reply| match reply {
        Reply::Answers { answers } => answers.answers.into_iter().map(|a| a.call_id).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    let again =
        answers(control::call(dir.path(), &Request::Answers { client: agent(1), calls: Vec::new() }).await.unwrap());
    assert_eq!(again, vec![answer.call_id.clone()], "the lost reply's answer is handed out again");
    // That reply was read: the answer was delivered, and is not handed out a third time.
    recorded
        .wait_until("the delivery to be recorded", || {
            host.session(&answer.session_id).unwrap().question_records().iter().all(|r| r.returned)
        })
        .await;
    let then =
        answers(control::call(dir.path(), &Request::Answers { client: agent(1), calls: Vec::new() }).await.unwrap());
    assert!(then.is_empty(), "{then:?}");
    server.shutdown().await;
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_data_directory_is_private_to_its_user() {
    let dir = tempfile::tempdir().unwrap();
    let data = hark_core::data_dir::prepare(&dir.path().join("data")).unwrap();
    let host = host(&data);
    let server = control::serve(&data, handler(&host)).expect("serve");
    let (session, events) = host.start_session("plan the notes app", None).unwrap();
    wait_for(events, "the question", question_requested).await;
    assert!(!host.service().foreground(Some(&session)).is_empty());
    let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&data), 0o700);
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(&data).unwrap() {
        let path = entry.unwrap().path();
        let want = if path.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode(&path), want, "{}", path.display());
        seen.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    for name in ["hark.sqlite3", "hark.sqlite3-wal", "control.sock"] {
        assert!(seen.iter().any(|s| s == name), "{name} in {seen:?}");
    }
    server.shutdown().await;
    host.shutdown().await;
}

/// A handler whose every request is a stream that lasts until its peer is gone: `lines` replies of
/// `size` bytes each (or none), then silence. `ended` hears of each stream's end.
fn endless(lines: usize, size: usize, ended: tokio::sync::mpsc::UnboundedSender<()>) -> Handler {
    use futures_util::StreamExt;
    Arc::new(move |_request, gone: tokio_util::sync::CancellationToken| {
        let ended = ended.clone();
        let big = Reply::Refused { error: hark_core::error::BoundaryError::new("Test", "TEST", "x".repeat(size)) };
        let replies = futures_util::stream::iter(std::iter::repeat_n(big, lines));
        let until_gone = futures_util::stream::once(async move {
            gone.cancelled().await;
            let _ = ended.send(());
        })
        .filter_map(|()| async { None::<Reply> });
        replies.chain(until_gone).boxed()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_that_never_reads_is_let_go_and_a_silent_peer_does_not_hold_up_quitting() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let (ended, mut ends) = tokio::sync::mpsc::unbounded_channel();
    // Far more than a socket buffers: the writes stall once the peer stops reading.
    let server = control::serve(dir.path(), endless(100_000, 4096, ended)).expect("serve");
    let socket = server.path().to_path_buf();
    let line = serde_json::to_vec(&Request::Watch { session: None }).unwrap();
    let deaf = {
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
        stream.write_all(&hello_line()).unwrap();
        stream.write_all(&line).unwrap();
        stream.write_all(b"\n").unwrap();
        stream
    };
    let started = std::time::Instant::now();
    tokio::time::timeout(std::time::Duration::from_secs(10), ends.recv())
        .await
        .expect("the peer that does not read is let go")
        .unwrap();
    assert!(started.elapsed() >= std::time::Duration::from_secs(4), "not before its line timed out");

    // A peer that connects and says nothing is not waited for at quit.
    let _silent = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let quitting = std::time::Instant::now();
    server.shutdown().await;
    assert!(quitting.elapsed() < std::time::Duration::from_millis(900), "quit waited {:?}", quitting.elapsed());
    drop(deaf);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_past_the_cap_are_refused_busy_and_taken_again_once_one_ends() {
    let dir = tempfile::tempdir().unwrap();
    let (ended, _ends) = tokio::sync::mpsc::unbounded_channel();
    let server = control::serve(dir.path(), endless(1, 8, ended)).expect("serve");
    let watch = Request::Watch { session: None };
    let mut held = Vec::new();
    for _ in 0..control::MAX_ACTIVE_REQUESTS {
        let mut replies = control::open(dir.path(), &watch).await.unwrap();
        // Its first line says it is being answered, holding a place.
        assert!(matches!(replies.next().await.unwrap(), Some(Reply::Refused { error }) if error.code == "TEST"));
        held.push(replies);
    }
    let over = control::call(dir.path(), &watch).await.unwrap();
    assert!(matches!(&over, Reply::Refused { error } if error.code == "BUSY"), "{over:?}");
    held.pop();
    let mut taken = None;
    // Retries, bounded: the server frees the place when it notices the closed connection, which it
    // announces to no one; a refused BUSY is the only thing a client can observe.
    for _ in 0..50 {
        match control::call(dir.path(), &watch).await.unwrap() {
            Reply::Refused { error } if error.code == "BUSY" => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await
            }
            reply => {
                taken = Some(reply);
                break;
            }
        }
    }
    assert!(matches!(&taken, Some(Reply::Refused { error }) if error.code == "TEST"), "{taken:?}");
    drop(held);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_directory_too_deep_for_a_socket_still_gets_one() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("a-folder-name-long-enough".repeat(5));
    let data = hark_core::data_dir::prepare(&deep).unwrap();
    assert!(data.join(control::SOCKET_FILE).as_os_str().len() > 108, "a path no socket can have");
    let host = host(&data);
    let server = control::serve(&data, handler(&host)).expect("serve");
    let path = control::socket_path(&data);
    assert_eq!(server.path(), path, "clients find it through the data directory");
    assert!(path.as_os_str().len() <= 107, "{}", path.display());
    let pointer = data.join(control::SOCKET_POINTER_FILE);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&pointer), mode(&path), mode(path.parent().unwrap())), (0o600, 0o600, 0o700));
    let settings = control::call(&data, &Request::Settings).await.unwrap();
    assert!(matches!(settings, Reply::Settings { .. }), "{settings:?}");
    server.shutdown().await;
    assert!(!path.exists() && !pointer.exists(), "both go with the server");
    host.shutdown().await;
}
