//! The one host every front door uses: starting and resuming sessions, answering late without a
//! live agent, and quitting the same way whatever the front door — against the real store, service
//! and demo model.

mod host_support;

use hark_core::agent::AgentEvent;
use hark_core::error::CodedError;
use hark_core::host::{AnswerPath, Host, WorkingChoices};
use hark_core::question::{ErrorCode, ToolMode};
use hark_core::service::QuestionEvent;
use hark_core::session::{project_questions, Event, QuestionState, ToolOutcome};
use hark_core::tools::QuestionSettings;
use hark_test_support::wait::{question_requested, Events, WAIT};
use hark_test_support::wait_for;
use host_support::{db, host, timed};

fn outcomes(host: &Host, session: &str) -> Vec<ToolOutcome> {
    let events = host.store().events(session).unwrap();
    events
        .into_iter()
        .filter_map(|e| match e.event {
            Event::ToolResult { outcome, .. } => Some(outcome),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_titled_by_its_first_line_and_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path(), "hello", None);
    let long = format!("{}\nsecond line", "x".repeat(80));
    let (id, _) = host.start_session(&long, None).unwrap();
    let title = host.store().list_sessions().unwrap().into_iter().find(|s| s.id == id).unwrap().title;
    assert_eq!(title, "x".repeat(60));
    let empty = host.start_session("  \n ", None).expect_err("refused");
    assert_eq!(serde_json::to_value(empty.boundary()).unwrap()["code"], "INVALID_ARGUMENT");
    let nowhere = host.start_session("go", Some(dir.path().join("missing"))).expect_err("refused");
    assert_eq!(serde_json::to_value(nowhere.boundary()).unwrap()["code"], "INVALID_ARGUMENT");
    let unknown = host.resolve("nope").expect_err("refused");
    assert_eq!(serde_json::to_value(unknown.boundary()).unwrap()["code"], "NOT_FOUND");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_continues_a_live_timed_question_and_aborts_a_blocking_one() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(dir.path(), "blocking", timed());
    let (timed_session, events) = host.start_session("publish it", None).unwrap();
    wait_for(events, "the timed question", question_requested).await;
    assert!(host.questions(&timed_session).iter().any(|q| q.is_foreground()));
    host.shutdown().await;
    assert!(matches!(outcomes(&host, &timed_session).as_slice(), [ToolOutcome::Pending { .. }]));
    drop(host);

    let dir = tempfile::tempdir().unwrap();
    let host = self::host(dir.path(), "blocking", None);
    let (blocking, events) = host.start_session("publish it", None).unwrap();
    wait_for(events, "the blocking question", question_requested).await;
    assert!(host.questions(&blocking).iter().any(|q| q.is_foreground()));
    host.shutdown().await;
    let recorded = outcomes(&host, &blocking);
    let [ToolOutcome::Error { error }] = recorded.as_slice() else { panic!("{recorded:?}") };
    assert_eq!(error.code, ErrorCode::AskAborted.as_str());
    let events = host.store().events(&blocking).unwrap();
    assert!(matches!(events.last().map(|e| &e.event), Some(Event::TurnEnded { .. })), "{events:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_is_queued_without_a_live_agent_and_admitted_when_the_session_opens() {
    let dir = tempfile::tempdir().unwrap();
    let session = {
        let first = host(dir.path(), "timed", timed());
        let (session, events) = first.start_session("plan the notes app", None).unwrap();
        wait_for(events, "the question", question_requested).await;
        assert!(first.questions(&session).iter().any(|q| q.is_foreground()));
        first.shutdown().await;
        session
    };
    // The next run: nobody has opened the session; the answer is queued durably all the same.
    let second = host(dir.path(), "timed", None);
    let call = project_questions(&second.store().events(&session).unwrap())[0].call_id.clone();
    assert_eq!(second.answer(&session, &call, db("SQLite"), Some(AnswerPath::Late)).unwrap(), AnswerPath::Late);
    assert!(second.agent(&session).is_none(), "answering opened no agent");
    let again = second.answer(&session, &call, db("Postgres"), None).unwrap_err();
    assert_eq!(serde_json::to_value(again.boundary()).unwrap()["code"], "REPLY_QUEUED");
    second.shutdown().await;
    drop(second);

    // A third run opens the session: the queued answer is admitted and settles the question.
    let third = host(dir.path(), "timed", None);
    let (_, events) = third.open(&session).unwrap();
    // Settling is recorded in the session log, and each record is announced.
    Events::new(events)
        .wait_until("the late answer to settle", || {
            let records = project_questions(&third.store().events(&session).unwrap());
            records[0].state == QuestionState::Settled
        })
        .await;
    let records = project_questions(&third.store().events(&session).unwrap());
    assert!(records[0].answered_late);
    assert_eq!(records[0].answers.as_ref().unwrap().answers[0].selected, ["SQLite"]);
    third.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_session_keeps_its_question_mode_unless_the_run_forces_one() {
    let dir = tempfile::tempdir().unwrap();
    let session = {
        let first = host(dir.path(), "hello", timed());
        let (session, _) = first.start_session("hi", None).unwrap();
        tokio::time::timeout(WAIT, first.agent(&session).unwrap().wait_idle()).await.expect("the reply");
        first.shutdown().await;
        session
    };
    // The schema in force is the latest `request/header` (written when it changes); turns are counted.
    let seen = |host: &Host| -> (Option<ToolMode>, usize) {
        let events = host.store().events(&session).unwrap();
        let mode = events.iter().rev().find_map(|e| match e.event {
            Event::RequestHeader { question_mode, .. } => Some(question_mode),
            _ => None,
        });
        (mode, events.iter().filter(|e| matches!(e.event, Event::TurnEnded { .. })).count())
    };
    // No flag this run: the session goes on timed, as it was started.
    let second = host(dir.path(), "hello", None);
    second.send(&session, "again").unwrap();
    tokio::time::timeout(WAIT, second.agent(&session).unwrap().wait_idle()).await.expect("the second turn");
    assert_eq!(seen(&second), (Some(ToolMode::Timed), 2));
    second.shutdown().await;
    drop(second);
    // A run that forces the blocking schema uses it.
    let forced = Some(QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false });
    let third = host(dir.path(), "hello", forced);
    third.send(&session, "once more").unwrap();
    tokio::time::timeout(WAIT, third.agent(&session).unwrap().wait_idle()).await.expect("the third turn");
    assert_eq!(seen(&third), (Some(ToolMode::Legacy), 3));
    third.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_review_waiting_at_quit_is_answered_after_the_next_start_and_the_session_stays_plan_first() {
    let (dir, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let session = {
        let first = host(dir.path(), "plan", None);
        // This run is not plan first; the session is, as a second launch's --plan asks.
        let (session, events) = first
            .start_session_with(
                "outline it",
                Some(workspace.path().into()),
                WorkingChoices { plan_first: Some(true), ptc: None },
            )
            .unwrap();
        // The event brings the session's questions as the core lists them, the review among them.
        wait_for(events, "the plan review", |e| {
            matches!(e, AgentEvent::Question { event: QuestionEvent::Requested { request }, questions }
                if request.intent.is_plan_review()
                    && questions.questions.iter().any(|q| q.call_id == request.call_id && q.is_foreground()))
        })
        .await;
        assert!(first.service().foreground(Some(&session)).iter().any(|r| r.intent.is_plan_review()));
        first.shutdown().await;
        session
    };
    assert!(!workspace.path().join("hark-plan.md").exists(), "the write was refused before any approval");
    let second = host(dir.path(), "plan", None);
    let review = second.service().continued(&session);
    assert_eq!(review.len(), 1, "the review waits for the next start: {review:?}");
    assert!(review[0].intent.is_plan_review());
    let approve = hark_core::question::PlanVerdict::Approved.batch();
    assert_eq!(second.answer(&session, &review[0].call_id, approve, None).unwrap(), AnswerPath::Late);
    let (_, events) = second.open(&session).unwrap();
    // The write is followed by its recorded result, which is announced.
    Events::new(events)
        .wait_until("the write after the late approval", || workspace.path().join("hark-plan.md").exists())
        .await;
    let records = project_questions(&second.store().events(&session).unwrap());
    assert!(records[0].answered_late && records[0].state == QuestionState::Settled, "{records:?}");
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripts_timed_question_waiting_at_quit_continues_and_is_answerable_after_the_next_start() {
    let (dir, workspace) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let session = {
        let first = host(dir.path(), "ptc", timed());
        let choices = WorkingChoices { plan_first: None, ptc: Some(true) };
        let (session, events) = first.start_session_with("set it up", Some(workspace.path().into()), choices).unwrap();
        wait_for(events, "the script's question", question_requested).await;
        assert!(!first.service().foreground(Some(&session)).is_empty());
        let started = std::time::Instant::now();
        first.shutdown().await;
        assert!(started.elapsed() < std::time::Duration::from_secs(3), "quit waited for the recorded result only");
        session
    };
    let second = host(dir.path(), "ptc", None);
    let continued = second.service().continued(&session);
    assert_eq!(continued.len(), 1, "{continued:?}");
    assert!(continued[0].call_id.ends_with(".1"), "the script's own call id: {}", continued[0].call_id);
    let records = project_questions(&second.store().events(&session).unwrap());
    assert_eq!(records[0].state, QuestionState::Continued);
    assert!(records[0].parent_call_id.is_some());
    assert_eq!(second.answer(&session, &continued[0].call_id, db("Postgres"), None).unwrap(), AnswerPath::Late);
    second.shutdown().await;
}
