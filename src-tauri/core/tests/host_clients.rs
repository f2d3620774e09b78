//! An outside agent's questions (`hark mcp`), against a real host and its store: asked in the
//! client's own session, answered by the person, continued and answered late, handed to the client
//! once by `get_answers` (also after a restart), withdrawn when the client goes away, and refused
//! with codes when they do not fit.

mod host_support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hark_core::error::{BoundaryError, CodedError};
use hark_core::host::{ClientId, Host};
use hark_core::question::{AnswerBatch, ToolMode, TOOL_NAME};
use hark_core::service::{InteractionRequest, QuestionEvent};
use hark_core::session::{Event, QuestionState, ToolOutcome, TurnEndReason};
use hark_core::tools::QuestionSettings;
use host_support::db;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn client() -> ClientId {
    ClientId { name: "Claude Code".into(), cwd: "/home/me/notes-app".into(), asker: None }
}

fn question() -> serde_json::Value {
    json!({"questions": [{"id": "db", "header": "Database", "question": "Which database?", "multi_select": false,
        "options": [{"label": "SQLite", "description": "one file"}, {"label": "Postgres", "description": "a server"}]}]})
}

const BLOCKING: QuestionSettings =
    QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false };

fn timed(secs: u64) -> QuestionSettings {
    QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: secs, stop_turn: false }
}

/// The next question the host shows, as its surfaces hear of it.
async fn shown(host: &Host, events: &mut tokio::sync::broadcast::Receiver<QuestionEvent>) -> InteractionRequest {
    let wait = async {
        loop {
            if let Ok(QuestionEvent::Requested { request }) = events.recv().await {
                return *request;
            }
        }
    };
    let request = tokio::time::timeout(Duration::from_secs(10), wait).await.expect("the question is shown");
    assert!(host.service().foreground(Some(&request.session_id)).iter().any(|r| r.call_id == request.call_id));
    request
}

fn events(host: &Host, session: &str) -> Vec<Event> {
    host.store().events(session).unwrap().into_iter().map(|e| e.event).collect()
}

fn start(dir: &Path) -> Arc<Host> {
    Arc::new(host_support::host(dir, "hello", None))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_question_is_shown_in_the_clients_session_and_returns_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let mut heard = host.service().subscribe();
    let asking = {
        let host = Arc::clone(&host);
        tokio::spawn(async move {
            host.client_ask(&client(), None, Some(BLOCKING), question(), CancellationToken::new()).await
        })
    };
    let request = shown(&host, &mut heard).await;
    assert!(request.wait.is_none(), "a blocking question has no countdown");
    assert!(host.is_busy(&request.session_id), "the client's session works while its question waits");
    host.answer_and_admit(&request.session_id, &request.call_id, db("Postgres"), None).unwrap();
    let answer = asking.await.unwrap().unwrap();
    assert_eq!(answer.answers, Some(db("Postgres")));
    assert!(answer.text.contains("Postgres"), "{}", answer.text);

    let session = host.session(&answer.session_id).unwrap();
    assert_eq!(session.client().as_deref(), Some("Claude Code"));
    assert_eq!(session.workspace().unwrap(), Path::new("/home/me/notes-app"));
    let transcript = host.transcript(&answer.session_id, None).unwrap();
    assert_eq!(
        transcript.title.as_deref(),
        Some("Claude Code · notes-app"),
        "the folder's name; the path is the workspace"
    );
    assert_eq!(transcript.client.as_deref(), Some("Claude Code"));
    let recorded = events(&host, &answer.session_id);
    assert!(matches!(&recorded[1], Event::TurnStarted { .. }), "{recorded:?}");
    assert!(recorded.iter().any(|e| matches!(e, Event::ToolCall { name, call_id, .. }
        if name == TOOL_NAME && *call_id == answer.call_id)));
    assert!(recorded.iter().any(|e| matches!(e, Event::ToolResult { outcome: ToolOutcome::Ok { .. }, .. })));
    assert!(matches!(recorded.last(), Some(Event::TurnEnded { reason: TurnEndReason::Completed, .. })));
    assert!(!host.is_busy(&answer.session_id));

    // The same client in the same folder asks in the same session; another folder gets its own.
    let again = host.client_answers(&client()).unwrap();
    assert_eq!(again.session_id, answer.session_id);
    // A client that never asked has no answers, and asking for them makes it no session.
    let elsewhere = ClientId { cwd: "/home/me/other".into(), ..client() };
    let none = host.client_answers(&elsewhere).unwrap();
    assert!(none.session_id.is_empty() && none.answers.is_empty() && none.waiting.is_empty(), "{none:?}");
    assert_eq!(host.store().list_sessions().unwrap().len(), 1, "no session for a client that never asked");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_question_returns_pending_and_its_late_answer_is_returned_until_delivered_also_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let answer = host.client_ask(&client(), None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
    assert_eq!(answer.answers, None);
    assert!(hark_core::question::PendingResult::parse(&answer.text).is_some(), "{}", answer.text);
    assert!(answer.text.contains("get_answers"), "the client is told how to collect it: {}", answer.text);
    let session = answer.session_id.clone();
    assert_eq!(host.service().continued(&session).len(), 1, "the question stays answerable");

    let nothing = host.client_answers(&client()).unwrap();
    assert!(nothing.answers.is_empty());
    assert_eq!(nothing.waiting, vec![answer.call_id.clone()]);

    // Answered late from its row: admitted at once, so the question settles, and nothing waits for
    // the client to come back.
    let settled = {
        let mut heard = host.service().subscribe();
        host.answer_and_admit(&session, &answer.call_id, db("SQLite"), None).unwrap();
        tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                if let Ok(QuestionEvent::Resolved { call_id, .. }) = heard.recv().await {
                    break call_id;
                }
            }
        })
        .await
        .expect("the late answer is admitted")
    };
    assert_eq!(settled, answer.call_id);
    let record = host.session(&session).unwrap().question_records().pop().unwrap();
    assert_eq!((record.state, record.answered_late), (QuestionState::Settled, true));

    let taken = host.client_answers(&client()).unwrap();
    assert_eq!(taken.answers.len(), 1);
    assert_eq!(taken.answers[0].call_id, answer.call_id);
    assert_eq!(taken.answers[0].answers, db("SQLite"));
    assert!(taken.answers[0].text.contains("answer_to_pending_question"), "{}", taken.answers[0].text);
    assert!(taken.waiting.is_empty());
    // Handed out until a reply with it reached the client (the socket says when), then no more.
    assert_eq!(host.client_answers(&client()).unwrap().answers, taken.answers, "not returned yet");
    host.client_answers_returned(&session, std::slice::from_ref(&answer.call_id)).unwrap();
    host.client_answers_returned(&session, std::slice::from_ref(&answer.call_id)).unwrap();
    let returned = events(&host, &session).iter().filter(|e| matches!(e, Event::AnswersReturned { .. })).count();
    assert_eq!(returned, 1, "recorded once");
    assert!(host.client_answers(&client()).unwrap().answers.is_empty(), "an answer is returned once");
    host.shutdown().await;
    drop(host);

    let host = start(dir.path());
    let after = host.client_answers(&client()).unwrap();
    assert_eq!(after.session_id, session, "the client finds its session after a restart");
    assert!(after.answers.is_empty(), "returned before the restart, so not again");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_given_while_the_app_was_closed_is_returned_after_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let (session, call_id) = {
        let host = start(dir.path());
        let answer =
            host.client_ask(&client(), None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
        host.shutdown().await;
        (answer.session_id, answer.call_id)
    };
    // Another front door (a notification after a restart, `hark answer`) queues it before any client
    // came back: the client's session is admitted when it is made live.
    let host = start(dir.path());
    host.answer_and_admit(&session, &call_id, db("Postgres"), None).unwrap();
    let taken = host.client_answers(&client()).unwrap();
    assert_eq!(taken.answers.iter().map(|a| a.call_id.as_str()).collect::<Vec<_>>(), vec![call_id.as_str()]);
    host.shutdown().await;
}

/// A timed question of `asker`, continued at once, and answered late with `choice`.
async fn asked_and_answered_late(host: &Host, asker: &str, choice: &str) -> String {
    let client = ClientId { asker: Some(asker.into()), ..client() };
    let answer = host.client_ask(&client, None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
    assert!(hark_core::question::PendingResult::parse(&answer.text).is_some(), "{}", answer.text);
    let mut heard = host.service().subscribe();
    host.answer_and_admit(&answer.session_id, &answer.call_id, db(choice), None).unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        while !matches!(heard.recv().await, Ok(QuestionEvent::Resolved { ref call_id, .. }) if *call_id == answer.call_id) {}
    })
    .await
    .expect("the late answer is admitted");
    answer.call_id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_with_one_name_in_one_folder_each_get_only_their_own_late_answers() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let first = asked_and_answered_late(&host, "run-1", "SQLite").await;
    let second = asked_and_answered_late(&host, "run-2", "Postgres").await;
    let of = |asker: &str| {
        let answers = host.client_answers(&ClientId { asker: Some(asker.into()), ..client() }).unwrap();
        answers.answers.iter().map(|a| (a.call_id.clone(), a.answers.clone())).collect::<Vec<_>>()
    };
    assert_eq!(of("run-1"), vec![(first.clone(), db("SQLite"))]);
    assert_eq!(of("run-2"), vec![(second.clone(), db("Postgres"))]);
    assert!(of("run-3").is_empty(), "a third run of the same agent gets neither");
    assert!(host.client_answers(&client()).unwrap().answers.is_empty(), "nor does one that gives no asker");
    let sessions = host.store().list_sessions().unwrap();
    assert_eq!(sessions.len(), 1, "they share the client's session");
    // Who asked is recorded, so it holds after a restart too.
    let session = sessions[0].id.clone();
    host.shutdown().await;
    drop(host);
    let host = start(dir.path());
    let of = |asker: &str| {
        let answers = host.client_answers(&ClientId { asker: Some(asker.into()), ..client() }).unwrap();
        answers.answers.into_iter().map(|a| a.call_id).collect::<Vec<_>>()
    };
    assert_eq!((of("run-1"), of("run-2")), (vec![first], vec![second]));
    assert!(events(&host, &session).iter().any(|e| matches!(e, Event::ClientAsked { asker, .. } if asker == "run-1")));
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_own_call_id_is_used_once_and_must_be_plain() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let me = client();
    let ask = |id: &str| host.client_ask(&me, Some(id.into()), Some(timed(1)), question(), CancellationToken::new());
    let answer = ask("mcp-abc").await.unwrap();
    assert_eq!(answer.call_id, "mcp-abc");
    assert_eq!(ask("mcp-abc").await.unwrap_err().code(), "INVALID_ARGUMENT", "a second call may not reuse it");
    for bad in ["", "has space", "a\u{202e}b", &"x".repeat(65)] {
        assert_eq!(ask(bad).await.unwrap_err().code(), "INVALID_ARGUMENT", "{bad:?}");
    }
    let calls = events(&host, &answer.session_id).iter().filter(|e| matches!(e, Event::ToolCall { .. })).count();
    assert_eq!(calls, 1, "a refused id records nothing");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_self_chosen_name_becomes_a_plain_title() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let sly = ClientId {
        name: "Claude\u{202e}edoC\u{200b} \u{1b}[31mred\n\tagent ".to_string() + &"x".repeat(80),
        cwd: "/home/me/notes\u{2066}-app".into(),
        asker: None,
    };
    let answer = host.client_ask(&sly, None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
    let title = host.transcript(&answer.session_id, None).unwrap().title.unwrap();
    let (name, folder) = title.split_once(" · ").unwrap();
    assert!(name.starts_with("ClaudeedoC [31mred agent xx"), "{name:?}");
    assert_eq!(name.chars().count(), 60, "{name:?}");
    assert!(name.ends_with('…'), "{name:?}");
    assert_eq!(folder, "notes-app");
    assert!(!title.chars().any(|c| c.is_control() || ('\u{200b}'..='\u{206f}').contains(&c) && c != '…'), "{title:?}");
    // The same client finds the same session again; a name of nothing but invisible characters is
    // shown as an MCP client.
    assert_eq!(host.client_answers(&sly).unwrap().session_id, answer.session_id);
    assert_eq!(hark_core::host::plain_name("\u{200b}\u{202e} \u{7}"), "MCP client");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_withdraws_its_question() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let mut heard = host.service().subscribe();
    let gone = CancellationToken::new();
    let asking = {
        let (host, gone) = (Arc::clone(&host), gone.clone());
        tokio::spawn(async move { host.client_ask(&client(), None, Some(BLOCKING), question(), gone).await })
    };
    let request = shown(&host, &mut heard).await;
    gone.cancel();
    let error = asking.await.unwrap().unwrap_err();
    assert_eq!(error.code(), "ASK_ABORTED");
    assert!(host.service().foreground(None).is_empty(), "the panel and notification close");
    // The ask returns only after its turn ended and was recorded: nothing is left to wait for.
    assert!(!host.is_busy(&request.session_id), "the turn ended with the withdrawn ask");
    let recorded = events(&host, &request.session_id);
    assert!(recorded.iter().any(|e| matches!(e, Event::ToolResult { outcome: ToolOutcome::Error { error }, .. }
        if error.code == "ASK_ABORTED")));
    assert!(matches!(recorded.last(), Some(Event::TurnEnded { reason: TurnEndReason::Aborted, .. })));
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_continues_a_clients_timed_question_and_ends_a_blocking_one() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let mut heard = host.service().subscribe();
    let (timed_ask, blocking_ask) = {
        let (a, b) = (Arc::clone(&host), Arc::clone(&host));
        let other = ClientId { name: "Codex".into(), ..client() };
        (
            tokio::spawn(async move {
                a.client_ask(&client(), None, Some(timed(600)), question(), CancellationToken::new()).await
            }),
            tokio::spawn(async move {
                b.client_ask(&other, None, Some(BLOCKING), question(), CancellationToken::new()).await
            }),
        )
    };
    shown(&host, &mut heard).await;
    shown(&host, &mut heard).await;
    host.end_client_asks();
    let timed_answer = timed_ask.await.unwrap().unwrap();
    assert!(hark_core::question::PendingResult::parse(&timed_answer.text).is_some(), "{}", timed_answer.text);
    assert_eq!(blocking_ask.await.unwrap().unwrap_err().code(), "ASK_ABORTED");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_does_not_fit_is_refused_with_its_code_and_recorded_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    let host = host_support::host(dir.path(), "hello", host_support::timed());
    // A client that does not choose gets the settings this run forces (else the Settings').
    assert_eq!(Some(host.client_settings()), host_support::timed());
    let bad = json!({"questions": []});
    let error = host.client_ask(&client(), None, Some(BLOCKING), bad, CancellationToken::new()).await.unwrap_err();
    assert_eq!(error.code(), "INVALID_REQUEST", "{error}");
    let not_an_object = host.client_ask(&client(), None, Some(BLOCKING), json!("ask"), CancellationToken::new()).await;
    assert_eq!(not_an_object.unwrap_err().code(), "INVALID_REQUEST");
    let session = host.client_answers(&client()).unwrap().session_id;
    assert_eq!(events(&host, &session).len(), 1, "only session/created");

    // The session has no agent: typing to it is refused with its own code.
    assert_eq!(host.send(&session, "hello").unwrap_err().code(), "CLIENT_SESSION");
    assert_eq!(host.retry(&session).unwrap_err().code(), "CLIENT_SESSION");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_titled_with_the_whole_path_is_found_again() {
    let dir = tempfile::tempdir().unwrap();
    let earlier = {
        let store = hark_core::session::Store::open(dir.path()).unwrap();
        store.create_client_session("Claude Code · /home/me/notes-app", "/home/me/notes-app", "Claude Code").unwrap()
    };
    let host = start(dir.path());
    let answer = host.client_ask(&client(), None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
    assert_eq!(answer.session_id, earlier, "an earlier run's session holds the client's questions still");
    host.shutdown().await;
}

/// Answers `call` late and waits until the answer settled it.
async fn answer_late(host: &Host, session: &str, call: &str, batch: AnswerBatch) {
    let mut heard = host.service().subscribe();
    host.answer_and_admit(session, call, batch, None).unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Ok(QuestionEvent::Resolved { call_id, .. }) = heard.recv().await {
                if call_id == call {
                    break;
                }
            }
        }
    })
    .await
    .expect("the late answer is admitted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn where_a_call_stands_is_read_from_the_log_for_any_run_of_the_client() {
    use hark_core::host::ClientCall;
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let asker = |id: &str| ClientId { asker: Some(id.into()), ..client() };
    let answer =
        host.client_ask(&asker("run-1"), None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
    let (session, call) = (answer.session_id.clone(), answer.call_id.clone());
    assert_eq!(host.client_call(&asker("run-2"), &call).unwrap(), ClientCall::Waiting { session_id: session.clone() });
    let unknown = host.client_call(&client(), "mcp-never-asked").unwrap_err();
    assert_eq!(BoundaryError::from(unknown).code, "INVALID_ARGUMENT");

    answer_late(&host, &session, &call, db("Postgres")).await;
    // Another run of the client (a restarted `hark mcp`) reads the answer by its call id, as often
    // as it asks; it then counts as returned, so get_answers does not hand it over again.
    for _ in 0..2 {
        match host.client_call(&asker("run-2"), &call).unwrap() {
            ClientCall::Answered { answers, late, text, .. } => {
                assert_eq!((answers, late), (db("Postgres"), true));
                assert!(text.contains("Postgres"), "{text}");
            }
            other => panic!("answered: {other:?}"),
        }
    }
    assert!(host.client_answers(&asker("run-1")).unwrap().answers.is_empty(), "returned through the call");

    // A question the person closed has no answer to come. (Listening before it is asked: it may be
    // shown before the spawned ask is even awaited.)
    let mut heard = host.service().subscribe();
    let asking = {
        let host = Arc::clone(&host);
        tokio::spawn(async move {
            host.client_ask(&client(), Some("closed-1".into()), Some(BLOCKING), question(), CancellationToken::new())
                .await
        })
    };
    let request = shown(&host, &mut heard).await;
    host.cancel(&request.session_id, &request.call_id).unwrap();
    assert!(asking.await.unwrap().is_err(), "closed: an error, never answers");
    assert_eq!(host.client_call(&client(), "closed-1").unwrap(), ClientCall::Ended { session_id: session });
    host.shutdown().await;
}

#[test]
fn the_agents_with_hooks_go_by_their_product_names() {
    assert_eq!(hark_core::host::plain_name("claude-code"), "Claude Code");
    assert_eq!(hark_core::host::plain_name("codex-mcp-client"), "Codex");
    assert_eq!(hark_core::host::plain_name("goose"), "goose");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outside_agent_withdraws_its_continued_question_but_not_another_agents() {
    let dir = tempfile::tempdir().unwrap();
    let host = start(dir.path());
    let mut heard = host.service().subscribe();
    let mine = host.client_ask(&client(), None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
    let other_agent = ClientId { name: "Codex".into(), ..client() };
    let theirs =
        host.client_ask(&other_agent, None, Some(timed(1)), question(), CancellationToken::new()).await.unwrap();
    assert_ne!(mine.session_id, theirs.session_id);

    // Another agent's call id is not found from this agent's session, and changes nothing.
    let refused = host.client_withdraw(&client(), &theirs.call_id, "not mine").unwrap_err();
    assert_eq!(refused.code(), "NOT_PENDING", "{refused}");
    let unknown = host.client_withdraw(&ClientId { cwd: "/elsewhere".into(), ..client() }, &mine.call_id, "x");
    assert_eq!(unknown.unwrap_err().code(), "NOT_PENDING");
    assert_eq!(host.service().continued(&theirs.session_id).len(), 1);

    host.client_withdraw(&client(), &mine.call_id, "the tests passed without it").unwrap();
    assert!(host.service().continued(&mine.session_id).is_empty(), "it leaves every list");
    let record = host.session(&mine.session_id).unwrap().question_records().remove(0);
    assert_eq!(record.withdrawn.as_deref(), Some("the tests passed without it"));
    // Every surface hears it ended (after the timeout it heard before).
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match heard.recv().await {
                Ok(QuestionEvent::Resolved { call_id, outcome: hark_core::service::Outcome::Withdrawn, .. })
                    if call_id == mine.call_id =>
                {
                    return
                }
                Ok(_) => continue,
                Err(e) => panic!("{e}"),
            }
        }
    })
    .await
    .expect("told the question was withdrawn");
    // A late answer now is refused with the agent's reason, and the call reads ended.
    let late = host.answer(&mine.session_id, &mine.call_id, db("Postgres"), None).unwrap_err();
    assert_eq!(late.code(), "NOT_PENDING");
    assert!(late.to_string().contains("the tests passed without it"), "{late}");
    assert!(matches!(host.client_call(&client(), &mine.call_id).unwrap(), hark_core::host::ClientCall::Ended { .. }));
    host.shutdown().await;
}
