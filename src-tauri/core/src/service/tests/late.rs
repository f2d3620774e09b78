//! The late path: continued questions, the session's reply reservation, admission. The service keeps
//! no state of its own here, so each test records what the agent would (the call, its `pending`
//! result, the admitted reply) in the in-memory log, which folds it like the store.

use std::time::Duration;

use super::support::*;
use crate::error::CodedError;
use crate::question::{
    parse_late_answer_text, AskRequest, ErrorCode, Question, QuestionOption, ToolMode, WaitLimit, TOOL_NAME,
};
use crate::service::{LateReply, LogError, Outcome, QuestionEvent, ServiceError, SessionLog, UserQuestionService};
use crate::session::{Event, MessageSource, ToolOutcome};

fn record_call(log: &dyn SessionLog, session: &str, call_id: &str, questions: Vec<Question>) {
    let arguments = AskRequest { questions, wait: WaitLimit::Seconds(5) }.to_arguments(ToolMode::Timed);
    log.append(session, Event::ToolCall { call_id: call_id.into(), name: TOOL_NAME.into(), arguments }).unwrap();
}

/// What the agent does for a timed question nobody answers: records the call, lets the foreground
/// wait run out (no provider), records its `pending` result. The question is continued then.
async fn time_out_with(f: &Fixture, call_id: &str, questions: Vec<Question>) {
    record_call(f.log.as_ref(), SESSION, call_id, questions.clone());
    let r = f.service.ask_timed(params(call_id, questions), Duration::from_secs(5)).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
    let pending = Event::ToolResult { call_id: call_id.into(), outcome: ToolOutcome::pending("pending") };
    f.log.append(SESSION, pending).unwrap();
}

async fn time_out(f: &Fixture, call_id: &str) {
    time_out_with(f, call_id, vec![db_question()]).await;
}

/// What the agent does with a steered reply: appends it as `user/message`, then tells the service.
fn admit(f: &Fixture, reply: &LateReply, answers: crate::question::AnswerBatch) -> bool {
    let source = MessageSource::question_reply(&reply.call_id, answers);
    let message =
        Event::UserMessage { message_id: reply.message_id.clone(), text: "late".into(), source: Some(source) };
    f.log.append(SESSION, message).unwrap();
    f.service.on_admitted(SESSION, &reply.call_id)
}

fn late_code(r: Result<LateReply, ServiceError>) -> ErrorCode {
    r.expect_err("expected an error").interaction_code().expect("an interaction error")
}

fn queued_reply(service: &UserQuestionService, call_id: &str) -> Option<String> {
    service.continued(SESSION).into_iter().find(|c| c.call_id == call_id).and_then(|c| c.reply_queued)
}

#[tokio::test(start_paused = true)]
async fn only_continued_questions_accept_late_answers() {
    let (f, _reg, mut rx) = with_forwarding();
    assert_eq!(late_code(f.service.answer(SESSION, "unknown", sqlite())), ErrorCode::NotPending);

    record_call(f.log.as_ref(), SESSION, "live", vec![db_question()]);
    let foreground = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask_timed(params("live", vec![db_question()]), Duration::from_secs(5)).await }
    });
    rx.recv().await.expect("forwarded");
    assert_eq!(
        late_code(f.service.answer(SESSION, "live", sqlite())),
        ErrorCode::NotPending,
        "a question still in the foreground is answered there, not late"
    );
    f.service.submit_foreground(SESSION, "live", sqlite()).expect("answered in the foreground");
    foreground.await.expect("join").expect("answered");
    assert_eq!(late_code(f.service.answer(SESSION, "live", sqlite())), ErrorCode::NotPending, "settled");

    record_call(f.log.as_ref(), SESSION, "c1", vec![db_question()]);
    let timed_out = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask_timed(params("c1", vec![db_question()]), Duration::from_secs(5)).await }
    });
    rx.recv().await.expect("forwarded");
    assert_eq!(code(timed_out.await.expect("join")), ErrorCode::AskTimedOut);
    // An answer given as the wait ended (the agent has not recorded the pending result yet) waits
    // that moment out instead of being refused.
    let log = f.log.clone();
    let agent = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let pending = Event::ToolResult { call_id: "c1".into(), outcome: ToolOutcome::pending("p") };
        log.append(SESSION, pending).unwrap();
    });
    let reply = f.service.answer(SESSION, "c1", sqlite()).expect("continued questions accept late answers");
    agent.join().unwrap();
    assert_eq!(reply.call_id, "c1");
    assert_eq!(late_code(f.service.answer("other-session", "c1", sqlite())), ErrorCode::NotPending);
}

#[tokio::test(start_paused = true)]
async fn late_answers_must_answer_exactly_the_asked_ids() {
    let f = fixture();
    time_out(&f, "c1").await;
    let before = f.log.events(SESSION).len();
    let wrong_id = batch(vec![pick("database", &["SQLite"])]);
    let extra = batch(vec![pick("db", &["SQLite"]), custom("name", "x")]);
    let twice = batch(vec![pick("db", &["SQLite"]), pick("db", &["Postgres"])]);
    let none = batch(vec![]);
    for bad in [wrong_id, extra, twice, none] {
        assert_eq!(late_code(f.service.answer(SESSION, "c1", bad)), ErrorCode::BadAnswer);
    }
    assert_eq!(f.log.events(SESSION).len(), before, "a refused batch records nothing");
    assert_eq!(queued_reply(&f.service, "c1"), None, "and takes no reservation");
    f.service.answer(SESSION, "c1", sqlite()).expect("the exact batch is accepted");
}

#[tokio::test(start_paused = true)]
async fn an_accepted_late_answer_is_queued_in_the_inbox_and_steered_to_the_agent() {
    let mut f = fixture();
    let mut events = f.service.subscribe();
    time_out(&f, "c1").await;
    let reply = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");

    let steered = f.steer.try_recv().expect("the agent got the reply");
    assert_eq!(steered.message_id, reply.message_id);
    assert_eq!(steered.source, MessageSource::question_reply("c1", sqlite()));
    assert_eq!(steered.source.outcome, crate::session::SourceOutcome::Answered);
    assert_eq!(parse_late_answer_text(&steered.text), Some(("c1".to_string(), sqlite())));
    assert!(steered.text.contains("answer_to_pending_question"));

    let logged = f.log.events(SESSION);
    assert_eq!(
        logged.last(),
        Some(&Event::InboxQueued {
            message_id: steered.message_id.clone(),
            text: steered.text.clone(),
            source: steered.source.clone()
        })
    );
    assert_eq!(queued_reply(&f.service, "c1").as_deref(), Some(reply.message_id.as_str()), "continued until admitted");

    let _requested = events.recv().await;
    let _timed_out = events.recv().await;
    assert!(matches!(
        events.recv().await,
        Ok(QuestionEvent::ReplyQueued { call_id, message_id, .. }) if call_id == "c1" && message_id == reply.message_id
    ));
}

#[tokio::test(start_paused = true)]
async fn a_queued_reply_blocks_another_until_it_is_admitted() {
    let f = fixture();
    time_out(&f, "c1").await;
    time_out(&f, "c2").await;
    let first = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");
    assert_eq!(late_code(f.service.answer(SESSION, "c1", sqlite())), ErrorCode::ReplyQueued);
    assert_eq!(late_code(f.service.answer(SESSION, "c2", sqlite())), ErrorCode::ReplyQueued, "one per session");
    assert_eq!(
        late_code(f.service.answer(SESSION, "c2", batch(vec![]))),
        ErrorCode::ReplyQueued,
        "the reservation is checked before the batch"
    );

    let mut events = f.service.subscribe();
    assert!(admit(&f, &first, sqlite()));
    assert!(matches!(
        events.recv().await,
        Ok(QuestionEvent::Resolved { call_id, outcome: Outcome::AnsweredLate, .. }) if call_id == "c1"
    ));
    assert_eq!(late_code(f.service.answer(SESSION, "c1", sqlite())), ErrorCode::NotPending, "settled on admission");
    f.service.answer(SESSION, "c2", sqlite()).expect("the reservation is free again");
    let left: Vec<String> = f.service.continued(SESSION).into_iter().map(|c| c.call_id).collect();
    assert_eq!(left, ["c2"]);
}

#[tokio::test(start_paused = true)]
async fn the_reservation_is_per_session() {
    let f = fixture();
    let _other_steer = f.service.set_live_root("s-2", "agent-2");
    time_out(&f, "c1").await;
    record_call(f.log.as_ref(), "s-2", "c1", vec![db_question()]);
    let mut p = params("c1", vec![db_question()]);
    p.caller = crate::service::Caller::root("s-2", "agent-2");
    assert_eq!(code(f.service.ask_timed(p, Duration::from_secs(1)).await), ErrorCode::AskTimedOut);
    let pending = Event::ToolResult { call_id: "c1".into(), outcome: ToolOutcome::pending("p") };
    f.log.append("s-2", pending).unwrap();
    f.service.answer(SESSION, "c1", sqlite()).expect("session 1");
    f.service.answer("s-2", "c1", sqlite()).expect("session 2 has its own reservation");
}

#[tokio::test(start_paused = true)]
async fn a_discarded_reply_releases_the_reservation_and_is_recorded() {
    let f = fixture();
    time_out(&f, "c1").await;
    let reply = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");
    let mut events = f.service.subscribe();
    assert!(f.service.on_discarded(SESSION, &reply.message_id, "turn aborted").expect("logged"));
    assert!(
        matches!(events.recv().await, Ok(QuestionEvent::ReplyReleased { message_id, .. }) if message_id == reply.message_id)
    );
    assert_eq!(
        f.log.events(SESSION).last(),
        Some(&Event::InboxDiscarded { message_id: reply.message_id.clone(), reason: "turn aborted".into() })
    );
    let recorded = f.log.events(SESSION).len();
    assert!(!f.service.on_discarded(SESSION, &reply.message_id, "again").expect("no-op"), "already released");
    assert_eq!(f.log.events(SESSION).len(), recorded, "a second discard records nothing");
    let second = f.service.answer(SESSION, "c1", batch(vec![pick("db", &["Postgres"])])).expect("answer again");
    assert_ne!(second.message_id, reply.message_id);
}

#[tokio::test(start_paused = true)]
async fn a_discarded_reply_that_is_admitted_anyway_is_the_answer() {
    let f = fixture();
    time_out(&f, "c1").await;
    let first = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");
    assert!(f.service.on_discarded(SESSION, &first.message_id, "removed").expect("logged"));
    assert_eq!(f.service.continued(SESSION).len(), 1, "still answerable");
    let postgres = batch(vec![pick("db", &["Postgres"])]);
    let second = f.service.answer(SESSION, "c1", postgres.clone()).expect("answer again");
    // The log decides: if the discarded first reply is admitted after all, it is the answer, and the
    // second one no longer settles anything.
    assert!(admit(&f, &first, sqlite()));
    assert!(f.service.continued(SESSION).is_empty());
    admit(&f, &second, postgres);
    let mut answers = None;
    f.log.with_questions(SESSION, &mut |fold| answers = fold.get("c1").and_then(|r| r.answers.clone())).unwrap();
    assert_eq!(answers, Some(sqlite()), "the first admitted reply won");
}

#[tokio::test(start_paused = true)]
async fn a_new_live_root_finds_the_unadmitted_reply_in_the_log_not_on_its_channel() {
    let mut f = fixture();
    time_out(&f, "c1").await;
    let reply = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");
    assert!(f.steer.try_recv().is_ok());
    let mut reopened = f.service.set_live_root(SESSION, "agent-2");
    assert!(reopened.try_recv().is_err(), "not sent twice: the new root reads the inbox");
    assert_eq!(queued_reply(&f.service, "c1").as_deref(), Some(reply.message_id.as_str()), "still queued");
    assert!(f
        .log
        .events(SESSION)
        .iter()
        .any(|e| matches!(e, Event::InboxQueued { message_id, .. } if *message_id == reply.message_id)));
}

#[tokio::test(start_paused = true)]
async fn a_failed_inbox_write_takes_no_reservation() {
    let f = fixture();
    time_out(&f, "c1").await;
    f.log.fail_appends(Some(LogError { code: "STORE_IO".into(), message: "disk full".into() }));
    let err = f.service.answer(SESSION, "c1", sqlite()).expect_err("log failed");
    assert!(matches!(&err, ServiceError::Log(e) if e.code == "STORE_IO"));
    let json = serde_json::to_value(err.boundary()).expect("serializes");
    assert_eq!(json, serde_json::json!({"name": "LogError", "code": "STORE_IO", "message": "disk full"}));
    assert_eq!(queued_reply(&f.service, "c1"), None);
    f.log.fail_appends(None);
    f.service.answer(SESSION, "c1", sqlite()).expect("works once the log does");
}

#[tokio::test(start_paused = true)]
async fn what_the_log_says_is_what_the_service_answers_by() {
    // A log written by an earlier run (nothing asked in this process): continued and queued come
    // from it alone.
    let f = fixture();
    for id in ["open", "done", "c1", "c2"] {
        record_call(f.log.as_ref(), SESSION, id, vec![db_question()]);
    }
    let ok = ToolOutcome::ok(serde_json::to_string(&sqlite()).unwrap());
    let pending = |id: &str| Event::ToolResult { call_id: id.into(), outcome: ToolOutcome::pending("p") };
    f.log.append(SESSION, Event::ToolResult { call_id: "done".into(), outcome: ok }).unwrap();
    f.log.append(SESSION, pending("c1")).unwrap();
    f.log.append(SESSION, Event::ToolResult { call_id: "c2".into(), outcome: ToolOutcome::Unknown }).unwrap();
    let queued = Event::InboxQueued {
        message_id: "m-1".into(),
        text: "late".into(),
        source: MessageSource::question_reply("c1", sqlite()),
    };
    f.log.append(SESSION, queued).unwrap();

    let calls: Vec<String> = f.service.continued(SESSION).into_iter().map(|c| c.call_id).collect();
    assert_eq!(calls, ["c1", "c2"], "a call a dead run left without a result is continued too");
    assert_eq!(late_code(f.service.answer(SESSION, "done", sqlite())), ErrorCode::NotPending);
    assert_eq!(late_code(f.service.answer(SESSION, "open", sqlite())), ErrorCode::NotPending);
    assert_eq!(late_code(f.service.answer(SESSION, "c2", sqlite())), ErrorCode::ReplyQueued);
    // The agent resumes, reads m-1 from the inbox and admits it.
    let m1 = LateReply { session_id: SESSION.into(), call_id: "c1".into(), message_id: "m-1".into() };
    assert!(admit(&f, &m1, sqlite()));
    f.service.answer(SESSION, "c2", sqlite()).expect("free after admission");
    assert_eq!(f.service.continued(SESSION).iter().filter(|c| c.reply_queued.is_some()).count(), 1);
    assert!(f.service.continued(SESSION).iter().all(|c| c.call_id == "c2"));
}

#[tokio::test(start_paused = true)]
async fn a_multi_select_question_takes_several_labels_late() {
    let f = fixture();
    let mut q = extras_question();
    q.options.push(QuestionOption { label: "Packaging".into(), description: None });
    time_out_with(&f, "c1", vec![q]).await;
    let answers = batch(vec![pick("extras", &["CI", "Packaging"])]);
    let reply = f.service.answer(SESSION, "c1", answers.clone()).expect("ok");
    assert!(admit(&f, &reply, answers));
}

#[test]
fn only_a_continued_question_can_be_withdrawn_not_a_plan_review() {
    let f = fixture();
    let plan = serde_json::json!({ "plan": "1. Write notes.md" });
    let log = f.log.as_ref();
    log.append(
        SESSION,
        Event::ToolCall { call_id: "p1".into(), name: crate::question::PLAN_TOOL_NAME.into(), arguments: plan },
    )
    .unwrap();
    log.append(SESSION, Event::ToolResult { call_id: "p1".into(), outcome: ToolOutcome::pending("quit") }).unwrap();
    let refused = f.service.withdraw(SESSION, "p1", "not needed").unwrap_err();
    assert_eq!(refused.interaction_code(), Some(ErrorCode::InvalidRequest), "{refused}");
    assert_eq!(f.service.continued(SESSION).len(), 1, "the review still waits for the person");
    // An event recorded anyway (by a build that allowed it) changes nothing either.
    log.append(SESSION, Event::QuestionWithdrawn { call_id: "p1".into(), reason: "x".into() }).unwrap();
    assert_eq!(f.service.continued(SESSION).len(), 1);
}
