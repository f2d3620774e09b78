//! The service against the real session store: what it records must rebuild, through the store's
//! questions projection, into the same state after a reopen.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::question::{AskRequest, ErrorCode, ToolMode, WaitLimit, TOOL_NAME};
use crate::service::tests::support::{db_question, sqlite};
use crate::service::{Caller, UserQuestionService};
use crate::session::{project_questions, Event, QuestionRecord, QuestionState, Store};
use crate::tools::{outcome_of, AskUserQuestionTool, QuestionSettings, ToolContext, ToolHandler};

struct Env {
    _dir: tempfile::TempDir,
    store: Arc<Store>,
    session: String,
}

fn env() -> Env {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Arc::new(Store::open(dir.path()).expect("store opens"));
    let session = store.create_session("late answers", None, None).expect("session");
    Env { _dir: dir, store, session }
}

/// The agent admits queued reply `message_id`: it records it as the person's message.
fn admit(env: &Env, message_id: &str) {
    let queued = env.store.events(&env.session).expect("events").into_iter().find_map(|e| match e.event {
        Event::InboxQueued { message_id: id, text, source } if id == message_id => Some((text, source)),
        _ => None,
    });
    let (text, source) = queued.expect("inbox/queued recorded");
    env.store
        .append(&env.session, Event::UserMessage { message_id: message_id.into(), text, source: Some(source) })
        .expect("admit");
}

fn records(env: &Env) -> Vec<QuestionRecord> {
    project_questions(&env.store.events(&env.session).expect("events"))
}

/// Runs one timed `ask_user_question` call the way the agent loop will: record the call, run the
/// tool, record its result.
async fn timed_call_that_times_out(env: &Env, service: &UserQuestionService, call_id: &str) {
    let result = timed_call_until_its_result(env, service, call_id).await;
    env.store.append(&env.session, result).expect("result");
}

/// The first part of [`timed_call_that_times_out`]: the call is recorded and its tool ran out of
/// time; its result is returned, not recorded yet.
async fn timed_call_until_its_result(env: &Env, service: &UserQuestionService, call_id: &str) -> Event {
    let settings = QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 5, stop_turn: false };
    let tool = AskUserQuestionTool::new(service.clone(), settings);
    let args = AskRequest { questions: vec![db_question()], wait: WaitLimit::Seconds(5) }.to_arguments(ToolMode::Timed);
    env.store
        .append(
            &env.session,
            Event::RequestHeader {
                tools: vec![TOOL_NAME.into()],
                question_mode: ToolMode::Timed,
                default_timeout_secs: 5,
                stop_turn: false,
            },
        )
        .expect("header");
    env.store
        .append(
            &env.session,
            Event::ToolCall { call_id: call_id.into(), name: TOOL_NAME.into(), arguments: args.clone() },
        )
        .expect("call");
    let ctx =
        ToolContext { caller: Caller::root(&env.session, "agent"), abort: CancellationToken::new(), workspace: None };
    let result = Arc::new(tool).handle(&ctx, call_id, args).await;
    assert!(result.as_ref().is_ok_and(|out| out.pending()), "{result:?}");
    Event::ToolResult { call_id: call_id.into(), outcome: outcome_of(&result) }
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_question_is_listed_continued_before_its_pending_result_is_recorded() {
    let env = env();
    let service = UserQuestionService::new(env.store.clone());
    let _steer = service.set_live_root(&env.session, "agent");
    let result = timed_call_until_its_result(&env, &service, "c1").await;

    // The wait ended and the tool has its result, which the agent has not recorded yet: the log still
    // has the call open, and the question already waits for a late answer on every list.
    assert_eq!(records(&env)[0].state, QuestionState::Open);
    let listed = service.questions(&env.session);
    let seen: Vec<(&str, bool, bool)> =
        listed.iter().map(|v| (v.call_id.as_str(), v.is_foreground(), v.answerable)).collect();
    assert_eq!(seen, [("c1", false, true)], "neither waiting nor continued: {listed:?}");
    assert!(listed[0].asked_at.is_some(), "its time is the recorded call's");
    assert_eq!(service.continued(&env.session).len(), 1);

    env.store.append(&env.session, result).expect("result");
    assert_eq!(records(&env)[0].state, QuestionState::Continued);
    assert_eq!(service.questions(&env.session), listed, "recording the result changes nothing a surface shows");

    // Once answered late and admitted, it leaves the list at the moment the log settles it.
    let reply = service.answer(&env.session, "c1", sqlite()).expect("accepted");
    let queued = service.questions(&env.session);
    assert!(queued.iter().all(|v| !v.answerable), "a queued reply is not answered twice: {queued:?}");
    admit(&env, &reply.message_id);
    assert!(service.questions(&env.session).is_empty(), "admitted, it is settled everywhere at once");
}

#[tokio::test(start_paused = true)]
async fn late_answer_round_trip_agrees_with_the_projection_across_a_reopen() {
    let env = env();
    let service = UserQuestionService::new(env.store.clone());
    let _steer = service.set_live_root(&env.session, "agent");
    timed_call_that_times_out(&env, &service, "c1").await;
    assert_eq!(records(&env)[0].state, QuestionState::Continued);
    assert_eq!(service.continued(&env.session).len(), 1);

    let reply = service.answer(&env.session, "c1", sqlite()).expect("accepted");
    assert_eq!(records(&env)[0].reply_queued.as_deref(), Some(reply.message_id.as_str()));

    // The app restarts before the agent admitted the reply.
    let reopened = UserQuestionService::new(env.store.clone());
    let mut steer = reopened.set_live_root(&env.session, "agent-after-restart");
    let err = reopened.answer(&env.session, "c1", sqlite()).expect_err("still queued");
    assert_eq!(err.interaction_code(), Some(ErrorCode::ReplyQueued));
    assert!(steer.try_recv().is_err(), "nothing is sent again; the agent re-reads the inbox");

    // The resumed agent admits the queued reply from the inbox.
    let queued = env.store.events(&env.session).expect("events").into_iter().find_map(|e| match e.event {
        Event::InboxQueued { message_id, text, source } => Some((message_id, text, source)),
        _ => None,
    });
    let (message_id, text, source) = queued.expect("inbox/queued recorded");
    env.store
        .append(&env.session, Event::UserMessage { message_id: message_id.clone(), text, source: Some(source) })
        .expect("admit");
    assert!(reopened.on_admitted(&env.session, "c1"));

    let record = &records(&env)[0];
    assert_eq!(record.state, QuestionState::Settled);
    assert!(record.answered_late);
    assert_eq!(record.answers.as_ref(), Some(&sqlite()));
    assert!(reopened.continued(&env.session).is_empty());
}

#[tokio::test(start_paused = true)]
async fn only_a_discard_releases_in_both_the_service_and_the_projection() {
    let env = env();
    let service = UserQuestionService::new(env.store.clone());
    let _steer = service.set_live_root(&env.session, "agent");
    timed_call_that_times_out(&env, &service, "c1").await;

    let first = service.answer(&env.session, "c1", sqlite()).expect("accepted");
    // A turn ending (here as crash repair closes one) leaves the reply queued for the next turn.
    env.store
        .append(
            &env.session,
            Event::TurnEnded { turn_id: "t1".into(), reason: crate::session::TurnEndReason::Interrupted },
        )
        .expect("end");
    assert_eq!(records(&env)[0].reply_queued.as_deref(), Some(first.message_id.as_str()));
    let err = service.answer(&env.session, "c1", sqlite()).expect_err("the first reply still waits");
    assert_eq!(err.interaction_code(), Some(ErrorCode::ReplyQueued));

    assert!(service.on_discarded(&env.session, &first.message_id, "user cleared the inbox").expect("logged"));
    let record = &records(&env)[0];
    assert_eq!((record.state, record.reply_queued.as_deref()), (QuestionState::Continued, None));
    service.answer(&env.session, "c1", sqlite()).expect("answerable again after the discard");
}

#[tokio::test(start_paused = true)]
async fn a_question_live_during_a_crash_is_answerable_after_repair() {
    let env = env();
    let args =
        AskRequest { questions: vec![db_question()], wait: WaitLimit::Indefinite }.to_arguments(ToolMode::Legacy);
    env.store
        .append(&env.session, Event::ToolCall { call_id: "c9".into(), name: TOOL_NAME.into(), arguments: args })
        .expect("call");
    // The process died here; the next one repairs the log and loads the session.
    env.store.repair_after_crash(&env.session).expect("repair");
    let service = UserQuestionService::new(env.store.clone());
    let mut steer = service.set_live_root(&env.session, "agent");
    let reply = service.answer(&env.session, "c9", sqlite()).expect("answerable after restart");
    assert_eq!(steer.try_recv().expect("steered").message_id, reply.message_id);
}
