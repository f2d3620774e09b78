//! The two front doors to a host, in this process and over the control socket, run one scenario
//! and must tell it alike: the same answers, the same refusals with the same codes (the socket is
//! a named pipe on Windows).

mod host_support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use hark_core::control;
use hark_core::front_door::{control_handler, FrontDoor, InProcess, Remote, Watched};
use hark_core::host::{AnswerPath, ClientCall, ClientId, Host};
use hark_core::question::ToolMode;
use hark_core::tools::QuestionSettings;
use hark_test_support::wait::Events;
use host_support::db;

fn host(dir: &Path) -> Arc<Host> {
    Arc::new(host_support::host(dir, "timed", host_support::timed()))
}

fn question() -> serde_json::Value {
    serde_json::json!({"questions": [{"id": "db", "header": "DB", "question": "Which?", "multi_select": false,
        "options": [{"label": "SQLite", "description": "a file"}, {"label": "Postgres", "description": "a server"}]}]})
}

/// What a door was told, step by step, in a form two doors can be compared by.
async fn scenario(door: Arc<dyn FrontDoor>, host: &Arc<Host>) -> Vec<String> {
    let mut told = Vec::new();
    let client = ClientId { name: "Codex".into(), cwd: "/src/app".into(), asker: Some("run-1".into()) };
    let blocking = QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false };
    let mut questions = Events::new(host.service().subscribe());

    let settings = door.settings().await.unwrap();
    assert_eq!(Some(settings), host_support::timed());

    let mut watch = door.watch(None).await.unwrap();
    assert_eq!(watch.session_id, None);
    let asking = tokio::spawn({
        let (door, client) = (Arc::clone(&door), client.clone());
        async move { door.ask(&client, Some("call-1".into()), Some(blocking), question()).await }
    });
    questions.wait_until("the agent's question", || !host.service().foreground(None).is_empty()).await;
    let heard = tokio::time::timeout(Duration::from_secs(10), watch.events.next()).await.unwrap().unwrap();
    assert!(matches!(heard, Watched::Question(_)), "the watch hears the question: {heard:?}");
    let shown = host.service().foreground(None).remove(0);
    assert_eq!(shown.call_id, "call-1");

    // A session prefix is enough; the first answer wins, a second is refused.
    let prefix = &shown.session_id[..8];
    let answered = door.answer(prefix, "call-1", db("SQLite"), None).await.unwrap();
    assert_eq!((answered.session_id.as_str(), answered.path), (shown.session_id.as_str(), AnswerPath::Foreground));
    let again = door.answer(prefix, "call-1", db("Postgres"), None).await.unwrap_err();
    told.push(format!("second answer: {}", again.code));
    let answer = asking.await.unwrap().unwrap();
    assert_eq!(answer.answers, Some(db("SQLite")));
    match door.call(&client, "call-1").await.unwrap() {
        ClientCall::Answered { answers, .. } => assert_eq!(answers, db("SQLite")),
        other => panic!("the call reads answered: {other:?}"),
    }

    // Refusals carry the host's codes.
    told.push(format!("withdraw unknown: {}", door.withdraw(&client, "nope", "not needed").await.unwrap_err().code));
    told.push(format!("cancel unknown: {}", door.cancel(&shown.session_id, "nope").await.unwrap_err().code));
    told.push(format!("attach unknown: {}", door.attach(&shown.session_id, "nope").await.unwrap_err().code));
    told.push(format!("send to no session: {}", door.send("zzzz", "hi").await.unwrap_err().code));
    told.push(format!("stop an idle session: {}", door.stop(&shown.session_id).await.unwrap()));
    let overview = door.overview(Some(&shown.session_id), 5).await.unwrap();
    told.push(format!("sessions listed: {}", overview.sessions.len()));
    told.push(format!("questions waiting: {}", overview.waiting.len()));
    told.push(format!("sessions: {}", door.sessions().await.unwrap().len()));
    let transcript = door.transcript(&shown.session_id, Some(5)).await.unwrap();
    told.push(format!("transcript turns: {}", transcript.turns.len()));
    told.push(format!("session questions: {}", door.questions(&shown.session_id).await.unwrap().questions.len()));
    told.push(format!("transcript of no session: {}", door.transcript("zzzz", None).await.unwrap_err().code));
    told.push(format!("decline unknown: {}", door.decline(&shown.session_id, "nope").await.unwrap_err().code));
    told.push(format!("retry with nothing failed: {}", door.retry(&shown.session_id).await.unwrap_err().code));

    // An asker that goes away withdraws its question: the host records it aborted.
    let gone = tokio::spawn({
        let (door, client) = (Arc::clone(&door), client.clone());
        async move { door.ask(&client, Some("call-2".into()), Some(blocking), question()).await }
    });
    questions.wait_until("the second question", || !host.service().foreground(None).is_empty()).await;
    let inbox = door.inbox().await.unwrap();
    told.push(format!(
        "inbox: {:?}",
        inbox.iter().map(|e| (e.asker.as_str(), e.question.call_id.as_str())).collect::<Vec<_>>()
    ));
    gone.abort();
    let mut recorded = Events::new(host.session(&shown.session_id).unwrap().subscribe());
    questions.wait_until("the withdrawn question to close", || host.service().foreground(None).is_empty()).await;
    let ended = || matches!(host.client_call(&client, "call-2"), Ok(ClientCall::Ended { .. }));
    recorded.wait_until("the withdrawn question's result", ended).await;
    match door.call(&client, "call-2").await.unwrap() {
        ClientCall::Ended { .. } => told.push("dropped ask: ended".into()),
        other => panic!("a dropped ask ends its question: {other:?}"),
    }
    told
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_front_doors_tell_one_scenario_alike() {
    let here = tempfile::tempdir().unwrap();
    let local_host = host(here.path());
    let local = scenario(Arc::new(InProcess::new(Arc::clone(&local_host))), &local_host).await;
    local_host.shutdown().await;

    let there = tempfile::tempdir().unwrap();
    let remote_host = host(there.path());
    let server = control::serve(there.path(), control_handler(Arc::clone(&remote_host))).expect("serve");
    let remote = scenario(Arc::new(Remote::new(there.path())), &remote_host).await;
    server.shutdown().await;
    remote_host.shutdown().await;

    assert_eq!(local, remote, "the doors differ");
    assert_eq!(
        local,
        [
            "second answer: NOT_PENDING",
            "withdraw unknown: NOT_PENDING",
            "cancel unknown: NOT_PENDING",
            "attach unknown: NOT_PENDING",
            "send to no session: NOT_FOUND",
            "stop an idle session: false",
            "sessions listed: 1",
            "questions waiting: 0",
            "sessions: 1",
            "transcript turns: 1",
            "session questions: 0",
            "transcript of no session: NOT_FOUND",
            "decline unknown: NOT_PENDING",
            "retry with nothing failed: CLIENT_SESSION",
            "inbox: [(\"Codex\", \"call-2\")]",
            "dropped ask: ended",
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_door_with_no_host_says_so_and_one_that_may_start_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let error = Remote::new(dir.path()).settings().await.unwrap_err();
    assert_eq!(error.code, control::UNAVAILABLE);
    assert!(Remote::running(dir.path()).await.is_none());

    // A door that may start the host starts it once, then talks to it.
    let started = Arc::new(std::sync::Mutex::new(Vec::new()));
    let starter: hark_core::front_door::AppStarter = {
        let started = Arc::clone(&started);
        Arc::new(move |dir: std::path::PathBuf| {
            let started = Arc::clone(&started);
            Box::pin(async move {
                let host = host(&dir);
                let server = control::serve(&dir, control_handler(Arc::clone(&host))).expect("serve");
                started.lock().unwrap().push((host, server));
                Ok(())
            })
        })
    };
    let door = Remote::starting(dir.path(), starter);
    assert_eq!(Some(door.settings().await.unwrap()), host_support::timed());
    assert_eq!(door.settings().await.unwrap(), door.settings().await.unwrap());
    assert_eq!(started.lock().unwrap().len(), 1, "started once");
    let (host, server) = started.lock().unwrap().pop().unwrap();
    server.shutdown().await;
    host.shutdown().await;
}
