//! `hark answer SESSION CALL_ID ANSWERS_JSON`: answers a continued question through the late path,
//! then runs the session's agent so the reply is admitted and streams the continuation. While
//! another process hosts the data directory (the desktop app, `hark chat`, `hark tui`), the answer
//! goes to it over its control socket instead, by whichever path applies (a question still waiting
//! there is answered there), and that host carries the session on.
//!
//! Exit codes: 0 admitted (or taken by the running app), 3 NOT_PENDING, 4 BAD_ANSWER, 5 REPLY_QUEUED (error JSON on stderr), 1
//! anything else, 2 usage.

use std::process::ExitCode;

use std::sync::Arc;

use std::path::Path;

use hark_core::control::UNAVAILABLE;
use hark_core::front_door::{Answered, FrontDoor, Remote};
use hark_core::host::{AnswerPath, Host, HostError, LockError};
use hark_core::question::{Answer, AnswerBatch, ErrorCode, UserInteractionError};
use hark_core::service::ServiceError;
use hark_core::session::project_questions;

use crate::chat::{chosen_dir, drain, fail, fail_msg, print_error, print_events, run_until_idle, CliModels, Terminal};

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

/// `hark answer`'s arguments.
#[derive(clap::Args)]
pub struct AnswerArgs {
    /// The session: its id or a unique prefix.
    session: String,
    /// The question's call id (`hark questions SESSION` lists them).
    call_id: String,
    /// The answers: `{"answers":[...]}` or a bare `[...]`, e.g.
    /// '[{"id":"q1","selected":["SQLite"]}]' or '[{"id":"q1","custom":"my own words"}]'.
    answers_json: String,
}

pub fn run(args: AnswerArgs) -> ExitCode {
    crate::chat::on_runtime(answer(&args.session, &args.call_id, &args.answers_json))
}

async fn answer(typed: &str, call_id: &str, answers: &str) -> ExitCode {
    let batch = match parse_batch(answers) {
        Ok(b) => b,
        Err(e) => return fail(&e, 4),
    };
    let terminal = Terminal::stdin();
    let models = CliModels { run: hark_core::launch::RunOptions::default(), announce_demo: true };
    let dir = match chosen_dir() {
        Ok(dir) => dir,
        Err(code) => return code,
    };
    let host = match terminal.host_in(&dir, models) {
        Ok(h) => Arc::new(h),
        Err(busy @ HostError::Lock(LockError::Busy { .. })) => {
            return through_running_app(&dir, &busy, typed, call_id, batch).await
        }
        Err(e) => return fail(&e, 1),
    };
    // While it carries the session on, another `hark answer` reaches it here.
    if let Err(e) = crate::chat::serve(&host) {
        eprintln!("hark: no control socket for other terminals: {e}");
    }
    let code = answer_in(&host, &terminal, typed, call_id, batch).await;
    host.shutdown().await;
    code
}

/// Hands the answer to the process that hosts `dir`, through its front door. Without a control
/// socket there (a host from before every host had one), the busy data directory is the error.
async fn through_running_app(dir: &Path, busy: &HostError, typed: &str, call_id: &str, batch: AnswerBatch) -> ExitCode {
    match Remote::new(dir).answer(typed, call_id, batch, None).await {
        Ok(Answered { session_id, path }) => {
            let how = match path {
                AnswerPath::Foreground => "while it waited",
                AnswerPath::Late => "late",
            };
            println!("answered {how}: the Hark running in this data directory (the app or a terminal) took it and carries session {session_id} on");
            ExitCode::SUCCESS
        }
        Err(error) if error.code == UNAVAILABLE => fail(busy, 1),
        Err(error) => {
            let code = ErrorCode::parse(&error.code).map_or(1, exit_code);
            print_error(&error, code)
        }
    }
}

async fn answer_in(host: &Host, terminal: &Terminal, typed: &str, call_id: &str, batch: AnswerBatch) -> ExitCode {
    let session = match host.resolve(typed) {
        Ok(id) => id,
        Err(e) => return fail(&e, 1),
    };
    // Queued durably first; opening the agent (subscribed before it can start a turn) admits it, on
    // the settings the session last used, and streams the continuation.
    if let Err(e) = host.answer(&session, call_id, batch, Some(AnswerPath::Late)) {
        let code = match &e {
            HostError::Service(ServiceError::Interaction(i)) | HostError::Interaction(i) => exit_code(i.code),
            _ => 1,
        };
        return fail(&e, code);
    }
    let (agent, events) = match host.open(&session) {
        Ok(opened) => opened,
        // An outside agent's question: its session has no agent to run here; the reply waits,
        // durable, until the app admits it and the agent collects it with get_answers.
        Err(HostError::ClientSession(client)) => {
            host.shutdown().await;
            println!("answered late: queued for {client}, which collects it with get_answers while Hark runs");
            return ExitCode::SUCCESS;
        }
        Err(e) => return fail(&e, 1),
    };
    let printer = print_events(events, Arc::clone(&terminal.shown));
    let finished = run_until_idle(&agent, terminal).await;
    drop(agent);
    host.shutdown().await;
    drain(printer).await;
    let settled = host
        .store()
        .events(&session)
        .map(|events| project_questions(&events).iter().any(|r| r.call_id == call_id && r.answered_late));
    match settled {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            let message = if finished { "the reply was not admitted" } else { "stopped before the reply was admitted" };
            fail_msg("NOT_ADMITTED", message)
        }
        Err(e) => fail(&e, 1),
    }
}
