//! Programmatic tool calls against a scripted OpenAI-compatible server: the model gets only
//! `run_code`, its script's calls are recorded as `tool/ptc-dispatch` events linked to it, a script's
//! timed question continues and is answered late, and one a dead run left without its result is gone.

use std::time::Duration;

use hark_core::agent::{Agent, AgentConfig, NewSession};
use hark_core::question::{AnswerBatch, ToolMode};
use hark_core::session::{project_questions, Event, QuestionState, ToolOutcome};
use hark_test_support::agent::*;
use serde_json::{json, Value};

fn ptc(mode: ToolMode) -> AgentConfig {
    // `run_code` scripts run in a worker process; this test harness's `main` cannot be one.
    hark_core::ptc::worker::set_program(env!("CARGO_BIN_EXE_hark-run-code"));
    AgentConfig { ptc: true, ..config(mode) }
}

fn script(code: &str) -> String {
    json!({ "code": code }).to_string()
}

const ASK_THEN_WRITE: &str = r##"
const answer = await tools.ask_user_question({ questions: [{ id: "db", question: "Which database?",
  options: [{ label: "SQLite" }, { label: "Postgres" }] }], timeout: 1 });
const wrote = await tools.write_file({ path: "notes.md", content: "# Notes\n" });
console.log("asked and wrote");
return { answer, wrote };
"##;

#[tokio::test]
async fn a_scripts_timed_question_continues_with_its_own_call_id_and_its_late_answer_reaches_the_model() {
    let h = Harness::new(vec![
        tool_reply("Running a script.", &[("run1", "run_code", script(ASK_THEN_WRITE))]),
        text_reply("The script is done."),
        text_reply("Thanks for the answer."),
    ])
    .await;
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, ptc(ToolMode::Timed)).unwrap();
    run(&agent, "set it up").await;

    // The model was offered run_code only; the script reached the other tools.
    let requests = h.server.requests();
    let offered: Vec<&str> =
        requests[0].body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(offered, ["run_code"]);
    let about = requests[0].body["tools"][0]["function"]["description"].as_str().unwrap();
    assert!(about.contains("- write_file:") && about.contains("- ask_user_question:"), "{about}");

    let events = h.events(&agent);
    let dispatched: Vec<(String, String, String)> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::PtcDispatch { parent_call_id, call_id, name, .. } => {
                Some((parent_call_id.clone(), call_id.clone(), name.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        dispatched,
        [
            ("run1".into(), "run1.1".into(), "ask_user_question".into()),
            ("run1".into(), "run1.2".into(), "write_file".into())
        ]
    );
    assert_eq!(std::fs::read_to_string(h.workspace.path().join("notes.md")).unwrap(), "# Notes\n");
    let records = project_questions(&events);
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].call_id.as_str(), records[0].state), ("run1.1", QuestionState::Continued));
    assert_eq!(records[0].parent_call_id.as_deref(), Some("run1"));

    // The script's result, as the model read it: the question's pending text, the write, the log.
    let result =
        requests[1].body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").cloned().unwrap();
    let result: Value = serde_json::from_str(result["content"].as_str().unwrap()).unwrap();
    // A script reads a pending result as the object it is.
    let pending: hark_core::question::PendingResult =
        serde_json::from_value(result["result"]["answer"].clone()).unwrap();
    assert_eq!(pending.call_id, "run1.1", "{result}");
    assert_eq!(result["result"]["wrote"]["bytes_written"], 8);
    assert_eq!(result["logs"], json!(["asked and wrote"]));

    // Answered late: it reaches the model as a late answer to the script's call.
    let batch = AnswerBatch {
        answers: vec![hark_core::question::Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }],
    };
    h.service.answer(agent.session_id(), "run1.1", batch).unwrap();
    until_answered_late(&h.store, &agent, "run1.1").await;
    let requests = h.server.requests();
    let late: Value = serde_json::from_str(
        requests[2].body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap(),
    )
    .unwrap();
    assert_eq!((late["answer_to_pending_question"].as_bool(), late["call_id"].as_str()), (Some(true), Some("run1.1")));
    assert_eq!(late["answers"][0]["selected"], json!(["Postgres"]));
}

#[tokio::test]
async fn a_plan_first_script_cannot_write_before_the_plan_is_approved() {
    let h = Harness::new(vec![
        tool_reply(
            "Writing from a script.",
            &[("run1", "run_code", script("return await tools.write_file({ path: 'a', content: 'x' });"))],
        ),
        text_reply("Refused, as expected."),
    ])
    .await;
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, AgentConfig { plan_first: true, ..ptc(ToolMode::Legacy) }).unwrap();
    run(&agent, "write").await;
    let outcomes = results(&h.events(&agent));
    match &outcomes[0].1 {
        ToolOutcome::Error { error } => {
            assert_eq!(error.code, "RUN_CODE_ERROR");
            assert!(error.message.contains("PLAN_NOT_APPROVED"), "{}", error.message);
        }
        other => panic!("the script's write was refused: {other:?}"),
    }
    assert!(!h.workspace.path().join("a").exists());
    let offered: Vec<String> = h.server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(offered, ["run_code", "submit_plan"]);
}

#[tokio::test]
async fn a_scripts_question_a_dead_run_left_without_its_result_is_not_answerable() {
    let h = Harness::new(vec![text_reply("Starting over.")]).await;
    let session = h.store.create_session("t", None, None).unwrap();
    h.store
        .append_batch(
            &session,
            vec![
                Event::TurnStarted { turn_id: "old".into(), run_id: "dead-run".into() },
                Event::UserMessage { message_id: "m1".into(), text: "go".into(), source: None },
                Event::AssistantMessage { text: String::new(), reasoning: None, tool_calls: vec!["run1".into()], usage: None },
                Event::ToolCall { call_id: "run1".into(), name: "run_code".into(), arguments: json!({ "code": "..." }) },
                Event::PtcDispatch {
                    parent_call_id: "run1".into(),
                    call_id: "run1.1".into(),
                    name: "ask_user_question".into(),
                    arguments: json!({ "questions": [{ "id": "db", "question": "Which?", "options": [{ "label": "A" }, { "label": "B" }] }] }),
                },
            ],
        )
        .unwrap();
    let deps = h.restarted_deps();
    let (service, store) = (deps.service.clone(), deps.store.clone());
    let agent = Agent::open(deps, &session, ptc(ToolMode::Legacy)).unwrap();
    let events = store.events(&session).unwrap();
    let repaired: Vec<&Event> = events.iter().skip(6).map(|e| &e.event).collect();
    assert!(matches!(repaired[0], Event::PtcResult { call_id, outcome: ToolOutcome::Unknown } if call_id == "run1.1"));
    assert!(matches!(repaired[1], Event::ToolResult { call_id, outcome: ToolOutcome::Unknown } if call_id == "run1"));
    assert!(project_questions(&events).is_empty(), "the script's question went with its run");
    assert!(service.continued(&session).is_empty());
    let e = service.answer(&session, "run1.1", AnswerBatch { answers: vec![] }).unwrap_err();
    assert_eq!(e.interaction_code(), Some(hark_core::question::ErrorCode::NotPending));
    // The parent call is unknown, as any call a dead run left: the model is told so.
    run(&agent, "again").await;
    tokio::time::timeout(Duration::from_secs(5), agent.wait_idle()).await.unwrap();
}

#[tokio::test]
async fn a_script_that_fails_after_asking_tells_the_model_which_question_stays_open() {
    let code = r##"
await tools.ask_user_question({ questions: [{ id: "db", question: "Which database?",
  options: [{ label: "SQLite" }, { label: "Postgres" }] }], timeout: 1 });
await tools.write_file({ path: "a.md", content: "a" });
throw new Error("something broke");
"##;
    let h =
        Harness::new(vec![tool_reply("Script.", &[("run1", "run_code", script(code))]), text_reply("Noted.")]).await;
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, ptc(ToolMode::Timed)).unwrap();
    run(&agent, "go").await;
    let outcomes = results(&h.events(&agent));
    let ToolOutcome::Error { error } = &outcomes[0].1 else { panic!("the script failed: {outcomes:?}") };
    assert_eq!(error.code, "RUN_CODE_ERROR");
    assert!(error.message.contains("something broke"), "{}", error.message);
    assert!(error.message.contains("- run1.1 ask_user_question: pending"), "{}", error.message);
    assert!(error.message.contains("\"run1.1\""), "{}", error.message);
    assert!(error.message.contains("- run1.2 write_file: ok"), "{}", error.message);
    let records = project_questions(&h.events(&agent));
    assert_eq!(records[0].state, QuestionState::Continued, "the question outlives its script");
}
