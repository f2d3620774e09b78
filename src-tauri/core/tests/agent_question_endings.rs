//! How a question ends when the person does not answer it in time, as the model and the log see it:
//! a timeout is a pending result with its reason and timing, a closed question says so, the agent
//! can withdraw a continued question (and only its own), and a session can stop its turn when a
//! question times out. No ending but the person's answer carries answers.

use hark_core::agent::{Agent, AgentConfig, NewSession};
use hark_core::question::{Answer, AnswerBatch, PendingReason, PendingResult, ToolMode};
use hark_core::service::{Outcome, QuestionEvent, ServiceError};
use hark_core::session::{project_questions, Event, QuestionState, ToolOutcome};
use hark_core::tools::{OnTimeout, QuestionSettings};
use hark_test_support::agent::*;
use hark_test_support::wait::WAIT;
use serde_json::{json, Value};

fn postgres() -> AnswerBatch {
    AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }] }
}

fn withdraw(call_id: &str, reason: &str) -> String {
    json!({ "call_id": call_id, "reason": reason }).to_string()
}

fn offered(h: &Harness, request: usize) -> Vec<String> {
    h.server.requests()[request].body["tools"]
        .as_array()
        .map(|tools| tools.iter().filter_map(|t| t["function"]["name"].as_str().map(String::from)).collect())
        .unwrap_or_default()
}

fn outcome(h: &Harness, agent: &Agent, call_id: &str) -> ToolOutcome {
    results(&h.events(agent)).into_iter().find(|(id, _)| id == call_id).map(|(_, o)| o).expect("a recorded result")
}

fn not_pending(result: Result<impl std::fmt::Debug, ServiceError>) -> String {
    match result {
        Err(ServiceError::Interaction(e)) if e.code.as_str() == "NOT_PENDING" => e.message,
        other => panic!("expected NOT_PENDING, got {other:?}"),
    }
}

#[tokio::test]
async fn the_agent_withdraws_its_own_continued_question_and_not_another_sessions() {
    let h = Harness::new(vec![
        // Another session's agent asks first and goes on without the answer.
        tool_reply("Asking.", &[("b1", "ask_user_question", ask_args(db_question(), Some(1)))]),
        text_reply("B goes on."),
        // This session's agent asks, then tries the other session's call, then withdraws its own.
        tool_reply("Asking.", &[("a1", "ask_user_question", ask_args(db_question(), Some(1)))]),
        tool_reply("Not mine.", &[("w0", "withdraw_question", withdraw("b1", "trying another session's"))]),
        tool_reply("Found it.", &[("w1", "withdraw_question", withdraw("a1", "found it in the README"))]),
        text_reply("Done."),
    ])
    .await;
    let mut questions = h.service.subscribe();
    let other = h.agent(ToolMode::Timed);
    run(&other, "set up b").await;
    let agent = h.agent(ToolMode::Timed);
    run(&agent, "set up a").await;

    // Offered beside the timed question tool.
    let tools = offered(&h, 2);
    assert!(tools.iter().any(|t| t == "withdraw_question") && tools.iter().any(|t| t == "ask_user_question"));

    // Another session's question is not found from here, and stays answerable.
    match outcome(&h, &agent, "w0") {
        ToolOutcome::Error { error } => assert_eq!(error.code, "NOT_PENDING", "{error:?}"),
        other => panic!("refused: {other:?}"),
    }
    let b = project_questions(&h.events(&other));
    assert_eq!((b[0].call_id.as_str(), b[0].state), ("b1", QuestionState::Continued));

    // Its own is withdrawn: the result says so as data, the record ends without answers.
    match outcome(&h, &agent, "w1") {
        ToolOutcome::Ok { content, .. } => assert_eq!(
            serde_json::from_str::<Value>(&content).unwrap(),
            json!({ "status": "withdrawn", "call_id": "a1", "reason": "found it in the README" })
        ),
        other => panic!("withdrawn: {other:?}"),
    }
    let a = project_questions(&h.events(&agent));
    assert_eq!(a[0].state, QuestionState::Settled);
    assert_eq!(a[0].withdrawn.as_deref(), Some("found it in the README"));
    assert_eq!(a[0].answers, None);
    let mut told = Vec::new();
    while let Ok(event) = questions.try_recv() {
        if let QuestionEvent::Resolved { call_id, outcome, .. } = event {
            told.push((call_id, outcome));
        }
    }
    assert!(told.contains(&("a1".to_string(), Outcome::Withdrawn)), "{told:?}");

    // A later answer is refused with the agent's reason; withdrawing again is refused too.
    let refused = not_pending(h.service.answer(agent.session_id(), "a1", postgres()));
    assert!(refused.contains("withdrawn by the agent: found it in the README"), "{refused}");
    not_pending(h.service.withdraw(agent.session_id(), "a1", "again"));
    // The other session's question still takes its answer.
    h.service.answer(other.session_id(), "b1", postgres()).expect("b1 is still answerable");
}

#[tokio::test]
async fn a_question_with_the_persons_reply_on_its_way_cannot_be_withdrawn() {
    let h = Harness::new(vec![
        tool_reply("Asking.", &[("a1", "ask_user_question", ask_args(db_question(), Some(1)))]),
        text_reply("Going on."),
        text_reply("Thanks."),
    ])
    .await;
    let agent = h.agent(ToolMode::Timed);
    run(&agent, "go").await;
    // Reason checks come first and change nothing.
    let e = h.service.withdraw(agent.session_id(), "a1", "  ").unwrap_err();
    assert_eq!(e.interaction_code().map(|c| c.as_str()), Some("INVALID_REQUEST"));
    let e = h.service.withdraw(agent.session_id(), "a1", &"x".repeat(201)).unwrap_err();
    assert_eq!(e.interaction_code().map(|c| c.as_str()), Some("INVALID_REQUEST"));
    h.service.answer(agent.session_id(), "a1", postgres()).expect("queued");
    let refused = not_pending(h.service.withdraw(agent.session_id(), "a1", "not needed"));
    assert!(refused.contains("already answered"), "{refused}");
    until_answered_late(&h.store, &agent, "a1").await;
    let record = project_questions(&h.events(&agent)).remove(0);
    assert_eq!((record.answers, record.withdrawn), (Some(postgres()), None));
}

#[tokio::test]
async fn each_ending_says_what_happened_and_only_the_answer_carries_answers() {
    let mut h = Harness::new(vec![
        tool_reply("Asking.", &[("t1", "ask_user_question", ask_args(db_question(), Some(1)))]),
        tool_reply("Asking again.", &[("c1", "ask_user_question", ask_args(db_question(), Some(60)))]),
        text_reply("Going on."),
        text_reply("Thanks."),
    ])
    .await;
    let agent = h.agent(ToolMode::Timed);
    agent.steer("go").unwrap();
    // t1 runs out; c1 the person closes.
    let first = h.requests.recv().await.unwrap();
    assert_eq!(first.call_id, "t1");
    let second = h.requests.recv().await.unwrap();
    h.service.cancel(&second.session_id, &second.call_id).unwrap();
    tokio::time::timeout(WAIT, agent.wait_idle()).await.unwrap();

    // Timed out: pending, with its reason, the seconds waited and when; no answers.
    let ToolOutcome::Pending { content, .. } = outcome(&h, &agent, "t1") else { panic!("t1 pending") };
    let pending = PendingResult::parse(&content).expect("a pending result as data");
    assert_eq!((pending.reason, pending.call_id.as_str(), pending.waited_secs), (PendingReason::TimedOut, "t1", 1));
    assert!(serde_json::from_str::<Value>(&content).unwrap().get("answers").is_none());
    // Closed: an error that says the person closed it; no answers.
    match outcome(&h, &agent, "c1") {
        ToolOutcome::Error { error } => {
            assert_eq!(error.code, "ASK_CANCELLED");
            assert!(error.message.contains("closed"), "{}", error.message);
        }
        other => panic!("c1 closed: {other:?}"),
    }

    // Answered late, a while after its timeout: the message says how long, and carries the answers.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    h.service.answer(agent.session_id(), "t1", postgres()).unwrap();
    until_answered_late(&h.store, &agent, "t1").await;
    let late = h
        .events(&agent)
        .into_iter()
        .find_map(|e| match e.event {
            Event::UserMessage { text, source: Some(_), .. } => Some(text),
            _ => None,
        })
        .expect("the late answer was admitted");
    let late: Value = serde_json::from_str(&late).unwrap();
    assert_eq!(late["answers"][0]["selected"], json!(["Postgres"]));
    assert!(late["answered_secs_after_timeout"].as_u64().is_some_and(|secs| secs >= 1), "{late}");
    let records = project_questions(&h.events(&agent));
    assert_eq!(records.iter().map(|r| r.call_id.as_str()).collect::<Vec<_>>(), ["t1"], "a closed question leaves");
    assert!(records[0].since.is_some(), "the record knows when its wait ended");
}

#[tokio::test]
async fn a_session_that_stops_on_timeout_ends_the_turn_and_the_late_answer_starts_the_next() {
    let h = Harness::new(vec![
        tool_reply("Asking.", &[("q1", "ask_user_question", ask_args(db_question(), Some(1)))]),
        text_reply("Thanks, Postgres it is."),
    ])
    .await;
    let settings = QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false }
        .with_on_timeout(OnTimeout::StopTurn);
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, AgentConfig { questions: settings, ..config(ToolMode::Timed) })
        .expect("create the agent");
    run(&agent, "go").await;

    let events = h.events(&agent);
    assert_eq!(turn_end(&events), "question_timed_out");
    assert_eq!(h.server.requests().len(), 1, "the model was not asked again after the timeout");
    assert!(matches!(outcome(&h, &agent, "q1"), ToolOutcome::Pending { .. }), "the call still has its result");
    assert!(events.iter().any(|e| matches!(&e.event, Event::RequestHeader { stop_turn: true, .. })));
    assert_eq!(project_questions(&events)[0].state, QuestionState::Continued);

    h.service.answer(agent.session_id(), "q1", postgres()).unwrap();
    until_answered_late(&h.store, &agent, "q1").await;
    assert_eq!(turn_end(&h.events(&agent)), "completed");
    assert_eq!(last_assistant_text(&h.events(&agent)), "Thanks, Postgres it is.");
}

#[tokio::test]
async fn a_blocking_session_is_not_offered_withdrawal() {
    let h = Harness::new(vec![text_reply("Hi.")]).await;
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "hi").await;
    assert!(!offered(&h, 0).iter().any(|t| t == "withdraw_question"));
}

#[tokio::test]
async fn a_scripts_question_that_times_out_stops_the_turn_too() {
    hark_core::ptc::worker::set_program(env!("CARGO_BIN_EXE_hark-run-code"));
    let script = r#"return await tools.ask_user_question({ questions: [{ id: "db", question: "Which database?",
      options: [{ label: "SQLite" }, { label: "Postgres" }] }], timeout: 1 });"#;
    let h = Harness::new(vec![
        tool_reply("Running a script.", &[("run1", "run_code", json!({ "code": script }).to_string())]),
        text_reply("Not reached in this turn."),
    ])
    .await;
    let settings = QuestionSettings { mode: ToolMode::Timed, default_timeout_secs: 120, stop_turn: true };
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let config = AgentConfig { questions: settings, ptc: true, ..config(ToolMode::Timed) };
    let agent = Agent::create(h.deps(), session, config).expect("create the agent");
    run(&agent, "go").await;
    assert_eq!(turn_end(&h.events(&agent)), "question_timed_out");
    assert_eq!(h.server.requests().len(), 1, "the model was not asked again");
}
