//! The late path: continued questions, the session's reply reservation, admission.

use std::time::Duration;

use super::support::*;
use crate::error::CodedError;
use crate::question::{parse_late_answer_text, ErrorCode, QuestionOption};
use crate::service::{LogError, Outcome, QuestionEvent, ServiceError, UserQuestionService};
use crate::session::{Event, MessageSource, QuestionRecord, QuestionState};

/// Lets the timed call `call_id` (no provider) run out, leaving it continued.
async fn time_out(service: &UserQuestionService, call_id: &str) {
    let r = service.ask_timed(params(call_id, vec![db_question()]), Duration::from_secs(5)).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
}

fn late_code(r: Result<crate::service::LateReply, ServiceError>) -> ErrorCode {
    r.expect_err("expected an error").interaction_code().expect("an interaction error")
}

#[tokio::test(start_paused = true)]
async fn only_continued_questions_accept_late_answers() {
    let (f, _reg, mut rx) = with_forwarding();
    assert_eq!(late_code(f.service.answer(SESSION, "unknown", sqlite())), ErrorCode::NotPending);

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

    let timed_out = tokio::spawn({
        let s = f.service.clone();
        async move { s.ask_timed(params("c1", vec![db_question()]), Duration::from_secs(5)).await }
    });
    rx.recv().await.expect("forwarded");
    assert_eq!(code(timed_out.await.expect("join")), ErrorCode::AskTimedOut);
    let reply = f.service.answer(SESSION, "c1", sqlite()).expect("continued questions accept late answers");
    assert_eq!(reply.call_id, "c1");
    assert_eq!(late_code(f.service.answer("other-session", "c1", sqlite())), ErrorCode::NotPending);
}

#[tokio::test(start_paused = true)]
async fn late_answers_must_answer_exactly_the_asked_ids() {
    let f = fixture();
    time_out(&f.service, "c1").await;
    let wrong_id = batch(vec![pick("database", &["SQLite"])]);
    let extra = batch(vec![pick("db", &["SQLite"]), custom("name", "x")]);
    let twice = batch(vec![pick("db", &["SQLite"]), pick("db", &["Postgres"])]);
    let none = batch(vec![]);
    for bad in [wrong_id, extra, twice, none] {
        assert_eq!(late_code(f.service.answer(SESSION, "c1", bad)), ErrorCode::BadAnswer);
    }
    assert_eq!(f.service.stats().reply_reservations, 0, "a refused batch takes no reservation");
    assert!(f.log.events(SESSION).is_empty());
    f.service.answer(SESSION, "c1", sqlite()).expect("the exact batch is accepted");
}

#[tokio::test(start_paused = true)]
async fn an_accepted_late_answer_is_queued_in_the_inbox_and_steered_to_the_agent() {
    let mut f = fixture();
    let mut events = f.service.subscribe();
    time_out(&f.service, "c1").await;
    let reply = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");

    let steered = f.steer.try_recv().expect("the agent got the reply");
    assert_eq!(steered.message_id, reply.message_id);
    assert_eq!(steered.source, MessageSource::question_reply("c1", sqlite()));
    assert_eq!(steered.source.outcome, crate::session::SourceOutcome::Answered);
    assert_eq!(parse_late_answer_text(&steered.text), Some(("c1".to_string(), sqlite())));
    assert!(steered.text.contains("answer_to_pending_question"));

    let logged = f.log.events(SESSION);
    assert_eq!(
        logged,
        vec![Event::InboxQueued {
            message_id: steered.message_id.clone(),
            text: steered.text.clone(),
            source: steered.source.clone()
        }]
    );
    let continued = f.service.continued(SESSION);
    assert_eq!(continued[0].reply_queued.as_deref(), Some(reply.message_id.as_str()), "still continued until admitted");

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
    time_out(&f.service, "c1").await;
    time_out(&f.service, "c2").await;
    let first = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");
    assert_eq!(late_code(f.service.answer(SESSION, "c1", sqlite())), ErrorCode::ReplyQueued);
    assert_eq!(late_code(f.service.answer(SESSION, "c2", sqlite())), ErrorCode::ReplyQueued, "one per session");
    assert_eq!(
        late_code(f.service.answer(SESSION, "c2", batch(vec![]))),
        ErrorCode::ReplyQueued,
        "the reservation is checked before the batch"
    );

    let mut events = f.service.subscribe();
    assert_eq!(f.service.on_admitted(SESSION, &first.message_id).as_deref(), Some("c1"));
    assert!(matches!(
        events.recv().await,
        Ok(QuestionEvent::Resolved { call_id, outcome: Outcome::AnsweredLate, .. }) if call_id == "c1"
    ));
    assert_eq!(late_code(f.service.answer(SESSION, "c1", sqlite())), ErrorCode::NotPending, "settled on admission");
    assert_eq!(f.service.on_admitted(SESSION, &first.message_id), None, "admission happens once");
    f.service.answer(SESSION, "c2", sqlite()).expect("the reservation is free again");
    let left: Vec<String> = f.service.continued(SESSION).into_iter().map(|c| c.call_id).collect();
    assert_eq!(left, ["c2"]);
}

#[tokio::test(start_paused = true)]
async fn the_reservation_is_per_session() {
    let f = fixture();
    let _other_steer = f.service.set_live_root("s-2", "agent-2");
    time_out(&f.service, "c1").await;
    let mut p = params("c1", vec![db_question()]);
    p.caller = crate::service::Caller::root("s-2", "agent-2");
    assert_eq!(code(f.service.ask_timed(p, Duration::from_secs(1)).await), ErrorCode::AskTimedOut);
    f.service.answer(SESSION, "c1", sqlite()).expect("session 1");
    f.service.answer("s-2", "c1", sqlite()).expect("session 2 has its own reservation");
    assert_eq!(f.service.stats().reply_reservations, 2);
}

#[tokio::test(start_paused = true)]
async fn a_discarded_reply_releases_the_reservation_and_is_recorded() {
    let f = fixture();
    time_out(&f.service, "c1").await;
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
    assert!(!f.service.on_discarded(SESSION, &reply.message_id, "again").expect("no-op"), "already released");
    let second = f.service.answer(SESSION, "c1", batch(vec![pick("db", &["Postgres"])])).expect("answer again");
    assert_ne!(second.message_id, reply.message_id);
}

#[tokio::test(start_paused = true)]
async fn a_discarded_reply_that_is_admitted_anyway_is_the_answer() {
    let f = fixture();
    time_out(&f.service, "c1").await;
    let first = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");
    assert!(f.service.on_discarded(SESSION, &first.message_id, "removed").expect("logged"));
    assert_eq!(f.service.continued(SESSION).len(), 1, "still answerable");
    let second = f.service.answer(SESSION, "c1", batch(vec![pick("db", &["Postgres"])])).expect("answer again");
    // The log decides: if the discarded first reply is admitted after all, it is the answer (as the
    // projection would conclude), and the second one no longer settles anything.
    assert_eq!(f.service.on_admitted(SESSION, &first.message_id).as_deref(), Some("c1"));
    assert_eq!(f.service.on_admitted(SESSION, &second.message_id), None);
    assert_eq!(f.service.stats().continued, 0);
    assert_eq!(f.service.stats().reply_reservations, 0);
}

#[tokio::test(start_paused = true)]
async fn a_new_live_root_receives_the_unadmitted_reply_again() {
    let mut f = fixture();
    time_out(&f.service, "c1").await;
    let reply = f.service.answer(SESSION, "c1", sqlite()).expect("accepted");
    assert!(f.steer.try_recv().is_ok());
    let mut reopened = f.service.set_live_root(SESSION, "agent-2");
    let again = reopened.try_recv().expect("redelivered");
    assert_eq!(again.message_id, reply.message_id);
    assert!(reopened.try_recv().is_err(), "exactly once");
}

#[tokio::test(start_paused = true)]
async fn a_failed_inbox_write_takes_no_reservation() {
    let f = fixture();
    time_out(&f.service, "c1").await;
    f.log.fail_appends(Some(LogError { code: "STORE_IO".into(), message: "disk full".into() }));
    let err = f.service.answer(SESSION, "c1", sqlite()).expect_err("log failed");
    assert!(matches!(&err, ServiceError::Log(e) if e.code == "STORE_IO"));
    let json = serde_json::to_value(err.boundary()).expect("serializes");
    assert_eq!(json, serde_json::json!({"name": "LogError", "code": "STORE_IO", "message": "disk full"}));
    assert_eq!(f.service.stats().reply_reservations, 0);
    f.log.fail_appends(None);
    f.service.answer(SESSION, "c1", sqlite()).expect("works once the log does");
}

fn record(call_id: &str, state: QuestionState, reply_queued: Option<&str>) -> QuestionRecord {
    QuestionRecord {
        call_id: call_id.into(),
        state,
        timed: true,
        questions: vec![db_question()],
        answers: None,
        answered_late: false,
        reply_queued: reply_queued.map(str::to_string),
    }
}

#[tokio::test(start_paused = true)]
async fn loading_a_session_rebuilds_continued_questions_and_the_queued_reply() {
    let log = std::sync::Arc::new(crate::service::MemoryLog::new());
    let service = UserQuestionService::new(log);
    let records = vec![
        record("open", QuestionState::Open, None),
        record("done", QuestionState::Settled, None),
        record("c1", QuestionState::Continued, Some("m-1")),
        record("c2", QuestionState::Continued, None),
    ];
    service.load_session(SESSION, &records);
    let calls: Vec<String> = service.continued(SESSION).into_iter().map(|c| c.call_id).collect();
    assert_eq!(calls, ["c1", "c2"]);
    assert_eq!(late_code(service.answer(SESSION, "done", sqlite())), ErrorCode::NotPending);
    assert_eq!(late_code(service.answer(SESSION, "open", sqlite())), ErrorCode::NotPending);
    assert_eq!(late_code(service.answer(SESSION, "c2", sqlite())), ErrorCode::ReplyQueued);
    // The agent resumes, re-reads m-1 from the inbox and admits it.
    assert_eq!(service.on_admitted(SESSION, "m-1").as_deref(), Some("c1"));
    service.answer(SESSION, "c2", sqlite()).expect("free after admission");
    // Loading again (the UI re-opened the session) keeps what this process knows.
    service.load_session(SESSION, &records);
    assert_eq!(service.stats().reply_reservations, 1);
}

#[tokio::test(start_paused = true)]
async fn a_multi_select_question_takes_several_labels_late() {
    let f = fixture();
    let mut q = extras_question();
    q.options.push(QuestionOption { label: "Packaging".into(), description: None });
    let r = f.service.ask_timed(params("c1", vec![q]), Duration::from_secs(1)).await;
    assert_eq!(code(r), ErrorCode::AskTimedOut);
    let reply = f.service.answer(SESSION, "c1", batch(vec![pick("extras", &["CI", "Packaging"])])).expect("ok");
    assert_eq!(f.service.on_admitted(SESSION, &reply.message_id).as_deref(), Some("c1"));
}
