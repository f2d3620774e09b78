//! Plan-first sessions against a scripted OpenAI-compatible server: writes are refused until a plan
//! is approved, a change request reaches the model as feedback, and a review left open by a dead run
//! is answerable after the restart.

use std::time::Duration;

use hark_core::agent::{Agent, AgentConfig, NewSession};
use hark_core::question::{plan_review_questions, ErrorCode, Intent, PlanVerdict, ToolMode, PLAN_TOOL_NAME};
use hark_core::service::{AskParams, Caller};
use hark_core::session::{project_questions, Event, QuestionState, ToolOutcome};
use hark_test_support::agent::*;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

fn plan_first() -> AgentConfig {
    AgentConfig { plan_first: true, ..config(ToolMode::Timed) }
}

fn plan_args(plan: &str) -> String {
    json!({ "plan": plan }).to_string()
}

fn write_args() -> String {
    json!({ "path": "notes.md", "content": "# Notes\n" }).to_string()
}

fn error_code(outcome: &ToolOutcome) -> Option<&str> {
    match outcome {
        ToolOutcome::Error { error } => Some(error.code.as_str()),
        _ => None,
    }
}

/// The content of the tool message answering `call_id` in the last request the server received.
fn sent_result(h: &Harness, call_id: &str) -> Value {
    let sent = h.sent();
    let tool = sent.last().unwrap().iter().find(|m| m["role"] == "tool" && m["tool_call_id"] == call_id).cloned();
    let content = tool.unwrap_or_else(|| panic!("no result for {call_id}"))["content"].as_str().unwrap().to_string();
    serde_json::from_str(&content).unwrap_or(Value::String(content))
}

#[tokio::test]
async fn a_write_waits_for_an_approved_plan_and_a_change_request_reaches_the_model_as_feedback() {
    let mut h = Harness::new(vec![
        tool_reply("Writing it.", &[("w1", "write_file", write_args())]),
        tool_reply("Here is my plan.", &[("p1", PLAN_TOOL_NAME, plan_args("1. Write notes.md"))]),
        tool_reply("Revised.", &[("p2", PLAN_TOOL_NAME, plan_args("1. Write notes.md as a table"))]),
        tool_reply("Approved, writing.", &[("w2", "write_file", write_args())]),
        text_reply("Done."),
    ])
    .await;
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, plan_first()).unwrap();
    agent.steer("write the notes").unwrap();

    let review =
        answer_next(&mut h, PlanVerdict::ChangesRequested { feedback: Some("use a table".into()) }.batch().answers)
            .await;
    assert_eq!(review.call_id, "p1");
    assert_eq!(review.intent, Intent::PlanReview { plan: "1. Write notes.md".into() });
    assert_eq!(review.questions, plan_review_questions());
    assert!(review.wait.is_none(), "a plan review waits without a deadline, even in timed mode");
    let review = answer_next(&mut h, PlanVerdict::Approved.batch().answers).await;
    assert_eq!(review.call_id, "p2");
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.expect("the turn ends");

    let events = h.events(&agent);
    let outcomes = results(&events);
    assert_eq!(error_code(&outcomes[0].1), Some("PLAN_NOT_APPROVED"), "{outcomes:?}");
    assert!(matches!(&outcomes[3].1, ToolOutcome::Ok { .. }), "the write after approval ran: {outcomes:?}");
    assert_eq!(std::fs::read_to_string(h.workspace.path().join("notes.md")).unwrap(), "# Notes\n");

    // What the model read: the refusal, then the feedback, then the approval.
    let sent = h.sent();
    let refusal: Value =
        serde_json::from_str(sent[1].iter().find(|m| m["tool_call_id"] == "w1").unwrap()["content"].as_str().unwrap())
            .unwrap();
    assert_eq!(refusal["code"], "PLAN_NOT_APPROVED");
    assert!(refusal["message"].as_str().unwrap().contains(PLAN_TOOL_NAME));
    let feedback: Value =
        serde_json::from_str(sent[2].iter().find(|m| m["tool_call_id"] == "p1").unwrap()["content"].as_str().unwrap())
            .unwrap();
    assert_eq!(feedback["plan_review"], "changes_requested");
    assert_eq!(feedback["feedback"], "use a table");
    assert_eq!(sent_result(&h, "p2")["plan_review"], "approved");

    // The header says the session works plan first, and the question records carry the reviews.
    let tools = events.iter().find_map(|e| match &e.event {
        Event::RequestHeader { tools, .. } => Some(tools.clone()),
        _ => None,
    });
    assert!(tools.unwrap().contains(&PLAN_TOOL_NAME.to_string()));
    let records = project_questions(&events);
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r.intent.is_plan_review() && r.state == QuestionState::Settled));
}

#[tokio::test]
async fn a_session_that_does_not_work_plan_first_writes_without_a_plan_and_has_no_submit_plan() {
    let h =
        Harness::new(vec![tool_reply("Writing.", &[("w1", "write_file", write_args())]), text_reply("Done.")]).await;
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "write the notes").await;
    let outcomes = results(&h.events(&agent));
    assert!(matches!(&outcomes[0].1, ToolOutcome::Ok { .. }), "{outcomes:?}");
    let tools: Vec<String> = h.server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].to_string())
        .collect();
    assert!(!tools.iter().any(|t| t.contains(PLAN_TOOL_NAME)), "{tools:?}");
}

#[tokio::test]
async fn a_plan_review_left_open_by_a_dead_run_is_answered_after_the_restart_and_unlocks_writes() {
    let h = Harness::new(vec![
        tool_reply("Approved at last, writing.", &[("w1", "write_file", write_args())]),
        text_reply("Done."),
    ])
    .await;
    let session = h.store.create_session("t", Some(&h.workspace.path().to_string_lossy()), None).unwrap();
    // A dead run: plan first, it submitted a plan and vanished while the review waited.
    h.store
        .append_batch(
            &session,
            vec![
                Event::RequestHeader {
                    tools: vec!["ask_user_question".into(), PLAN_TOOL_NAME.into(), "write_file".into()],
                    question_mode: ToolMode::Timed,
                    default_timeout_secs: 120,
                    stop_turn: false,
                },
                Event::TurnStarted { turn_id: "old".into(), run_id: "dead-run".into() },
                Event::UserMessage { message_id: "m1".into(), text: "write the notes".into(), source: None },
                Event::AssistantMessage {
                    text: "My plan.".into(),
                    reasoning: None,
                    tool_calls: vec!["p1".into()],
                    usage: None,
                },
                Event::ToolCall {
                    call_id: "p1".into(),
                    name: PLAN_TOOL_NAME.into(),
                    arguments: json!({ "plan": "1. Write notes.md" }),
                },
            ],
        )
        .unwrap();
    let deps = h.restarted_deps();
    let (service, store) = (deps.service.clone(), deps.store.clone());
    let agent = Agent::open(deps, &session, plan_first()).unwrap();
    let continued = service.continued(&session);
    assert_eq!(continued.len(), 1, "the review stays answerable");
    assert_eq!(continued[0].intent, Intent::PlanReview { plan: "1. Write notes.md".into() });

    service.answer(&session, "p1", PlanVerdict::Approved.batch()).unwrap();
    until_answered_late(&store, &agent, "p1").await;
    let sent = h.sent();
    let late: Value = serde_json::from_str(sent[0].last().unwrap()["content"].as_str().unwrap()).unwrap();
    assert_eq!(late["answer_to_pending_question"], true);
    assert_eq!(late["plan_review"], "approved");
    let events = store.events(&session).unwrap();
    let outcomes = results(&events);
    assert_eq!(outcomes[0], ("p1".into(), ToolOutcome::Unknown));
    assert!(matches!(&outcomes[1].1, ToolOutcome::Ok { .. }), "the late approval unlocked the write: {outcomes:?}");
}

#[tokio::test]
async fn a_plan_review_in_the_wrong_shape_is_bad_intent() {
    let h = Harness::new(vec![]).await;
    let session = h.store.create_session("t", None, None).unwrap();
    let root = Caller::root(session.clone(), "root");
    let _steer = h.service.set_live_root(&session, "root");
    let ask = |intent: Intent, questions| AskParams {
        call_id: "c1".into(),
        caller: root.clone(),
        intent,
        questions,
        abort: CancellationToken::new(),
    };
    let mut other = plan_review_questions();
    other[0].question = "Deploy now?".into();
    let review = Intent::PlanReview { plan: "1. go".into() };
    let e = h.service.ask(ask(review, other)).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::BadIntent);
    let empty = Intent::PlanReview { plan: " ".into() };
    let e = h.service.ask(ask(empty, plan_review_questions())).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::BadIntent);
}
