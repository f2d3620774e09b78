//! The tool as the agent loop runs it: arguments in, a result or a structured error out.

mod props;
mod store;

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::error::CodedError;
use crate::question::{tool_definition, ErrorCode, PendingReason, PendingResult, ToolMode, TOOL_NAME};
use crate::service::{Caller, ForwardingProvider, InteractionRequest, MemoryLog, UserQuestionService};
use crate::session::ToolOutcome;

const SESSION: &str = "s-1";

struct Env {
    service: UserQuestionService,
    requests: tokio::sync::mpsc::UnboundedReceiver<InteractionRequest>,
    _reg: crate::service::ProviderRegistration,
    _steer: crate::service::SteerReceiver,
}

fn env() -> Env {
    let service = UserQuestionService::new(Arc::new(MemoryLog::new()));
    let steer = service.set_live_root(SESSION, "agent");
    let (provider, requests) = ForwardingProvider::new();
    let reg = service.register(Arc::new(provider)).expect("registers");
    Env { service, requests, _reg: reg, _steer: steer }
}

fn registry(service: &UserQuestionService, mode: ToolMode) -> ToolRegistry {
    let mut r = ToolRegistry::new();
    let tool = AskUserQuestionTool::new(
        service.clone(),
        QuestionSettings { mode, default_timeout_secs: 120, stop_turn: false },
    );
    r.register(Arc::new(tool)).expect("registers");
    r
}

fn ctx() -> ToolContext {
    ToolContext { caller: Caller::root(SESSION, "agent"), abort: CancellationToken::new(), workspace: None }
}

fn db_args() -> serde_json::Value {
    json!({ "questions": [
        { "id": "db", "question": "Which database?", "options": [{"label": "SQLite"}, {"label": "Postgres"}] }
    ]})
}

/// Runs a call in the background and answers its request with `answers` from the "panel".
async fn run_answered(
    env: &mut Env,
    registry: ToolRegistry,
    args: serde_json::Value,
    answers: serde_json::Value,
) -> Result<ToolOutput, ToolError> {
    let call = tokio::spawn(async move { registry.execute(&ctx(), "call-1", TOOL_NAME, args).await });
    let request = env.requests.recv().await.expect("forwarded");
    let batch = serde_json::from_value(answers).expect("batch");
    env.service.submit_foreground(&request.session_id, &request.call_id, batch).expect("accepted");
    call.await.expect("join")
}

#[tokio::test(start_paused = true)]
async fn an_answered_call_returns_the_answers_json() {
    let mut env = env();
    let reg = registry(&env.service, ToolMode::Legacy);
    let answers = json!({ "answers": [{ "id": "db", "selected": ["SQLite"] }] });
    let out = run_answered(&mut env, reg, db_args(), answers.clone()).await.expect("ok");
    assert!(!out.pending());
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out.content).expect("json"), answers);
    let batch: crate::question::AnswerBatch = serde_json::from_value(answers).expect("batch");
    assert_eq!(out.answers.as_ref(), Some(&batch), "the answers come as data too");
    let recorded = ToolOutcome::Ok { content: out.content.clone(), answers: Some(batch) };
    assert_eq!(outcome_of(&Ok(out)), recorded);
}

#[tokio::test(start_paused = true)]
async fn batched_multi_select_custom_and_skip_pass_through_the_tool() {
    let mut env = env();
    let reg = registry(&env.service, ToolMode::Legacy);
    let args = json!({ "questions": [
        { "id": "db", "question": "Which database?", "options": [{"label": "SQLite"}, {"label": "Postgres"}] },
        { "id": "extras", "question": "Extras?", "multi_select": true,
          "options": [{"label": "Docs"}, {"label": "CI"}, {"label": "Bench"}] },
        { "id": "name", "question": "Name?" }
    ]});
    let answers = json!({ "answers": [
        { "id": "db", "selected": [] },
        { "id": "extras", "selected": ["Docs", "Bench"] },
        { "id": "name", "selected": [], "custom": "hark-demo" }
    ]});
    let out = run_answered(&mut env, reg, args, answers.clone()).await.expect("ok");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out.content).expect("json"), answers);
}

#[tokio::test(start_paused = true)]
async fn a_timed_call_that_times_out_returns_the_pending_text() {
    let mut env = env();
    let reg = registry(&env.service, ToolMode::Timed);
    let args = json!({ "questions": db_args()["questions"], "timeout": 30 });
    let start = tokio::time::Instant::now();
    let call = tokio::spawn(async move { reg.execute(&ctx(), "call-7", TOOL_NAME, args).await });
    let request = env.requests.recv().await.expect("forwarded");
    assert_eq!(request.wait.as_ref().map(|w| w.timeout_ms), Some(30_000));
    let out = call.await.expect("join").expect("pending is a result, not an error");
    assert_eq!(start.elapsed(), Duration::from_secs(30));
    assert!(out.pending());
    let result = PendingResult::parse(&out.content).expect("a pending result, as data");
    assert_eq!((result.reason, result.call_id.as_str(), result.waited_secs), (PendingReason::TimedOut, "call-7", 30));
    assert!(result.next.contains("answer_to_pending_question"), "{}", result.next);
    assert!(matches!(outcome_of(&Ok(out)), ToolOutcome::Pending { .. }));
    // The service holds nothing for it: the question is continued once the agent records this result.
    assert_eq!(env.service.stats().pending_waits, 0);
}

#[tokio::test(start_paused = true)]
async fn a_timed_call_without_timeout_uses_the_default_from_settings() {
    let mut env = env();
    let reg = registry(&env.service, ToolMode::Timed);
    let start = tokio::time::Instant::now();
    let call = tokio::spawn(async move { reg.execute(&ctx(), "call-1", TOOL_NAME, db_args()).await });
    env.requests.recv().await.expect("forwarded");
    assert!(call.await.expect("join").expect("pending").pending());
    assert_eq!(start.elapsed(), Duration::from_secs(120));
}

#[tokio::test(start_paused = true)]
async fn a_default_timeout_beyond_the_limit_waits_the_longest_allowed() {
    let mut env = env();
    let settings = QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: u64::MAX, stop_turn: false };
    let tool = AskUserQuestionTool::new(env.service.clone(), settings);
    let max = crate::question::limits::MAX_TIMEOUT_SECS;
    assert_eq!(tool.settings().default_timeout_secs, max);
    assert_eq!(Tool::definition(&tool), tool_definition(ToolMode::Timed, max), "the model is told the bound in force");
    let mut reg = ToolRegistry::new();
    reg.register(Arc::new(tool)).expect("registers");
    let start = tokio::time::Instant::now();
    let call = tokio::spawn(async move { reg.execute(&ctx(), "call-1", TOOL_NAME, db_args()).await });
    let request = tokio::time::timeout(Duration::from_secs(1), env.requests.recv())
        .await
        .expect("the question reaches the provider")
        .expect("forwarded");
    assert_eq!(request.wait.map(|w| w.timeout_ms), Some(max * 1000));
    assert!(call.await.expect("join").expect("pending").pending());
    assert_eq!(start.elapsed(), Duration::from_secs(max));
}

#[tokio::test(start_paused = true)]
async fn timeout_minus_one_blocks_like_legacy() {
    let mut env = env();
    let reg = registry(&env.service, ToolMode::Timed);
    let args = json!({ "questions": db_args()["questions"], "timeout": -1 });
    let call = tokio::spawn(async move { reg.execute(&ctx(), "call-1", TOOL_NAME, args).await });
    let request = env.requests.recv().await.expect("forwarded");
    assert!(request.wait.is_none(), "no host deadline, no countdown");
    tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
    assert!(!call.is_finished());
    env.service.cancel(SESSION, "call-1").expect("cancel");
    let err = call.await.expect("join").expect_err("cancelled");
    assert_eq!(err.code(), "ASK_CANCELLED");
}

#[tokio::test(start_paused = true)]
async fn errors_reach_the_model_as_structured_tool_errors() {
    let env = env();
    let reg = registry(&env.service, ToolMode::Legacy);
    let invalid = reg.execute(&ctx(), "c", TOOL_NAME, json!({ "questions": [] })).await.expect_err("invalid");
    assert!(matches!(&invalid, ToolError::Interaction(e) if e.code == ErrorCode::InvalidRequest));
    let json = serde_json::to_value(invalid.boundary()).expect("serializes");
    assert_eq!(json["name"], "UserInteractionError");
    assert_eq!(json["code"], "INVALID_REQUEST");
    assert!(json["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(json, serde_json::to_value(invalid.boundary()).unwrap());
    assert_eq!(outcome_of(&Err(invalid.clone())), ToolOutcome::Error { error: invalid.boundary() });

    let not_json = reg.execute(&ctx(), "c", TOOL_NAME, json!("{questions: oops")).await.expect_err("invalid");
    assert_eq!(not_json.code(), "INVALID_REQUEST");

    let unknown = reg.execute(&ctx(), "c", "rm_rf", json!({})).await.expect_err("unknown");
    assert_eq!(
        serde_json::to_value(unknown.boundary()).expect("serializes"),
        json!({ "name": "ToolError", "code": "UNKNOWN_TOOL", "message": "no tool named \"rm_rf\" is available" })
    );
}

#[tokio::test(start_paused = true)]
async fn service_errors_surface_through_the_tool() {
    let service = UserQuestionService::new(Arc::new(MemoryLog::new()));
    let _steer = service.set_live_root(SESSION, "agent");
    let reg = registry(&service, ToolMode::Legacy);
    let no_provider = reg.execute(&ctx(), "c", TOOL_NAME, db_args()).await.expect_err("no provider");
    assert_eq!(serde_json::to_value(no_provider.boundary()).expect("json")["code"], "NO_PROVIDER");

    let stale = ToolContext { caller: Caller::root(SESSION, "old-agent"), ..ctx() };
    let not_live = reg.execute(&stale, "c", TOOL_NAME, db_args()).await.expect_err("stale");
    assert_eq!(not_live.code(), "CALLER_NOT_LIVE");

    let aborted = ctx();
    aborted.abort.cancel();
    let err = reg.execute(&aborted, "c", TOOL_NAME, db_args()).await.expect_err("aborted");
    assert_eq!(err.code(), "ASK_ABORTED");
}

#[tokio::test(start_paused = true)]
async fn the_definition_follows_the_settings_in_force() {
    let env = env();
    let legacy = registry(&env.service, ToolMode::Legacy);
    let timed = registry(&env.service, ToolMode::Timed);
    assert_eq!(legacy.names(), [TOOL_NAME]);
    assert_eq!(legacy.definitions(), [tool_definition(ToolMode::Legacy, 120)]);
    assert_eq!(timed.definitions(), [tool_definition(ToolMode::Timed, 120)]);
    assert_ne!(legacy.definitions(), timed.definitions());
}

#[tokio::test(start_paused = true)]
async fn a_tool_name_registers_once() {
    let env = env();
    let mut reg = registry(&env.service, ToolMode::Legacy);
    let again = AskUserQuestionTool::new(env.service.clone(), QuestionSettings::default());
    let err = reg.register(Arc::new(again)).expect_err("duplicate");
    assert_eq!(err.code(), "DUPLICATE_TOOL");
}

#[test]
fn accepted_arguments_are_recorded_in_the_form_the_schema_describes() {
    let service = UserQuestionService::new(Arc::new(MemoryLog::new()));
    let timed = registry(&service, ToolMode::Timed);
    let questions = json!([{ "id": "db", "question": "Which database?", "header": null, "multi_select": null,
                             "options": [{ "label": "SQLite", "description": null }, { "label": "Postgres" }] }]);
    let sent = json!(json!({ "questions": questions.to_string(), "timeout": 30.0 }).to_string());
    let strict = json!({
        "questions": [{ "id": "db", "question": "Which database?",
                        "options": [{ "label": "SQLite" }, { "label": "Postgres" }], "multi_select": false }],
        "timeout": 30,
    });
    assert_eq!(timed.prepare(TOOL_NAME, sent).arguments, strict);
    // A timed call's wait is always spelt out: the default it got, or -1 for none.
    assert_eq!(timed.prepare(TOOL_NAME, db_args()).arguments["timeout"], 120);
    let unlimited = json!({ "questions": db_args()["questions"], "timeout": -1 });
    assert_eq!(timed.prepare(TOOL_NAME, unlimited).arguments["timeout"], -1);
    let legacy = registry(&service, ToolMode::Legacy);
    assert_eq!(legacy.prepare(TOOL_NAME, db_args()).arguments.get("timeout"), None);
    // Refused arguments, and other tools' arguments, stay as the model sent them.
    let refused = json!({ "questions": db_args()["questions"], "timeout": 30 });
    assert_eq!(legacy.prepare(TOOL_NAME, refused.clone()).arguments, refused);
    assert_eq!(legacy.prepare("read_file", json!("{\"path\": 1}")).arguments, json!("{\"path\": 1}"));
}

#[test]
fn a_call_skipped_by_stop_reaches_the_model_as_aborted() {
    let skipped = outcome_of(&Err(ToolError::Aborted));
    let expected =
        crate::error::BoundaryError::new("ToolError", "ABORTED", "the turn was aborted before this tool call ran");
    assert_eq!(skipped, ToolOutcome::Error { error: expected });
}

/// A tool that counts how often its input is parsed, and records its input upper-cased.
struct Counting(std::sync::atomic::AtomicUsize);

impl Tool for Counting {
    type Input = String;

    fn name(&self) -> &str {
        "count"
    }

    fn definition(&self) -> serde_json::Value {
        json!({ "name": "count" })
    }

    fn parse(&self, args: &serde_json::Value) -> Result<String, ToolError> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        args["text"].as_str().map(str::to_string).ok_or_else(|| ToolError::Failed {
            code: "INVALID_REQUEST".into(),
            message: "send {\"text\": \"...\"}".into(),
        })
    }

    fn recorded(&self, input: &String, _args: serde_json::Value) -> serde_json::Value {
        json!({ "text": input.to_uppercase() })
    }

    fn run(
        self: Arc<Self>,
        _ctx: ToolContext,
        call_id: String,
        input: String,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(ToolOutput::ok(format!("{call_id}: {input}"))) })
    }
}

#[tokio::test]
async fn a_calls_arguments_are_parsed_once_for_what_is_recorded_and_what_runs() {
    let tool = Arc::new(Counting(Default::default()));
    let mut registry = ToolRegistry::new();
    registry.register(Arc::clone(&tool) as Arc<dyn ToolHandler>).expect("registers");
    let parses = || tool.0.load(std::sync::atomic::Ordering::SeqCst);

    let prepared = registry.prepare("count", json!({ "text": "hi" }));
    assert_eq!(prepared.arguments, json!({ "text": "HI" }), "recorded from the parsed input");
    let out = registry.run(&ctx(), "c1", "count", prepared).await.expect("runs");
    assert_eq!((out.content.as_str(), parses()), ("c1: hi", 1), "one parse served the record and the run");

    // Refused arguments are recorded as sent and answered with the parse's own error, not parsed again.
    let refused = registry.prepare("count", json!({ "text": 7 }));
    assert_eq!(refused.arguments, json!({ "text": 7 }));
    let err = registry.run(&ctx(), "c2", "count", refused).await.expect_err("refused");
    assert_eq!((err.code(), parses()), ("INVALID_REQUEST", 2));
    // An unknown tool is refused the same way, with nothing parsed.
    let unknown = registry.prepare("nope", json!({}));
    assert_eq!(unknown.refusal().map(|e| e.code()), Some("UNKNOWN_TOOL"));
}
