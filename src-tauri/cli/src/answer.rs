//! `hark answer SESSION CALL_ID ANSWERS_JSON`: answers a continued question through the late path,
//! then runs the session's agent so the reply is admitted and streams the continuation.
//!
//! Exit codes: 0 admitted, 3 NOT_PENDING, 4 BAD_ANSWER, 5 REPLY_QUEUED (error JSON on stderr), 1
//! anything else, 2 usage.

use std::process::ExitCode;

use hark_core::agent::{recorded_settings, Agent, AgentConfig};
use hark_core::question::{Answer, AnswerBatch, ErrorCode, UserInteractionError};
use hark_core::service::ServiceError;
use hark_core::session::project_questions;

use std::sync::Arc;

use crate::chat::{build_model, drain, fail, print_events, run_until_idle, Host, ModelFlags};

/// `{"answers":[...]}` or a bare `[...]` of answers.
fn parse_batch(text: &str) -> Result<AnswerBatch, UserInteractionError> {
    let bad = |e: serde_json::Error| {
        UserInteractionError::new(ErrorCode::BadAnswer, format!("ANSWERS_JSON is not an answer batch: {e}"))
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(bad)?;
    if value.is_array() {
        return serde_json::from_value::<Vec<Answer>>(value).map(|answers| AnswerBatch { answers }).map_err(bad);
    }
    serde_json::from_value(value).map_err(bad)
}

fn exit_code(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::NotPending => 3,
        ErrorCode::BadAnswer => 4,
        ErrorCode::ReplyQueued => 5,
        _ => 1,
    }
}

pub fn run(args: &[String]) -> ExitCode {
    let [session, call_id, answers] = args else {
        return crate::usage_error("answer takes SESSION CALL_ID ANSWERS_JSON");
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => return fail(&serde_json::json!({"name":"CliError","code":"RUNTIME","message":e.to_string()}), 1),
    };
    let code = runtime.block_on(answer(session, call_id, answers));
    runtime.shutdown_background();
    code
}

async fn answer(typed: &str, call_id: &str, answers: &str) -> ExitCode {
    let host = match Host::open() {
        Ok(h) => h,
        Err(code) => return code,
    };
    let session = match host.resolve(typed) {
        Ok(id) => id,
        Err(code) => return code,
    };
    let batch = match parse_batch(answers) {
        Ok(b) => b,
        Err(e) => return fail(&e, 4),
    };
    // The service must know the session's continued questions before it can validate the reply.
    let loaded = host.store.repair_after_crash(&session).and_then(|_| host.store.events(&session));
    match loaded {
        Ok(events) => host.service.load_session(&session, &project_questions(&events)),
        Err(e) => return fail(&e, 1),
    }
    if let Err(e) = host.service.answer(&session, call_id, batch) {
        let code = match &e {
            ServiceError::Interaction(i) => exit_code(i.code),
            ServiceError::Log(_) => 1,
        };
        return fail(&e, code);
    }
    let model_ref = ModelFlags::default().resolve(host.recorded_model(&session));
    let model = match build_model(&model_ref) {
        Ok(m) => m,
        Err(code) => return code,
    };
    // Opening the agent hands it the queued reply; admitting it settles the question.
    // The continuation asks any new question under the settings the session last used.
    let recorded = host.store.events(&session).ok().and_then(|events| recorded_settings(&events));
    let config = AgentConfig { questions: recorded.unwrap_or_default(), ..AgentConfig::default() };
    let (agent, events) = match Agent::open_subscribed(host.deps(model), &session, config) {
        Ok(opened) => opened,
        Err(e) => return fail(&e, 1),
    };
    let printer = print_events(events, Arc::clone(&host.shown));
    let finished = run_until_idle(&agent, &host).await;
    agent.close().await;
    drain(printer).await;
    let settled = host
        .store
        .events(&session)
        .map(|events| project_questions(&events).iter().any(|r| r.call_id == call_id && r.answered_late));
    match settled {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            let message = if finished { "the reply was not admitted" } else { "stopped before the reply was admitted" };
            fail(&serde_json::json!({"name":"CliError","code":"NOT_ADMITTED","message":message}), 1)
        }
        Err(e) => fail(&e, 1),
    }
}
