//! The agent loop against a scripted OpenAI-compatible server on 127.0.0.1: what it records in the
//! session log, what it sends the model, and how questions, errors, aborts and restarts play out.

use std::sync::Arc;
use std::time::Duration;

use hark_core::agent::{history, Agent, AgentConfig, AgentDeps, AgentEvent, NewSession};
use hark_core::question::{Answer, AnswerBatch, ToolMode};
use hark_core::service::{SessionLog, UserQuestionService};
use hark_core::session::{project_questions, Event, QuestionState, Store, ToolOutcome};
use hark_test_support::agent::*;
use serde_json::{json, Value};

#[tokio::test]
async fn question_answer_then_final_text() {
    let mut h = Harness::new(vec![
        tool_reply("Let me ask.", &[("call_1", "ask_user_question", ask_args(db_question(), None))]),
        text_reply("Going with SQLite."),
    ])
    .await;
    let agent = h.agent(ToolMode::Legacy);
    let mut stream = agent.subscribe();
    agent.steer("set it up").unwrap();
    let request =
        answer_next(&mut h, vec![Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }]).await;
    assert_eq!(request.caller.agent_instance_id, agent.instance_id());
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.unwrap();

    let events = h.events(&agent);
    assert_eq!(
        types(&events),
        [
            "session/created",
            // The message is durable from the moment `steer` accepts it.
            "inbox/queued",
            "turn/started",
            "request/header",
            "user/message",
            "assistant/message",
            "tool/call",
            "tool/result",
            "assistant/message",
            "turn/ended"
        ]
    );
    let (call, outcome) = &results(&events)[0];
    assert_eq!(call, "call_1");
    let ToolOutcome::Ok { content, .. } = outcome else { panic!("{outcome:?}") };
    assert_eq!(serde_json::from_str::<Value>(content).unwrap()["answers"][0]["selected"], json!(["SQLite"]));
    assert_eq!(last_assistant_text(&events), "Going with SQLite.");
    assert_eq!(turn_end(&events), "completed");
    // The second request carries the assistant's call and the answered result.
    let sent = h.sent();
    let second = &sent[1];
    assert_eq!(second[second.len() - 1]["role"], "tool");
    assert_eq!(second[second.len() - 1]["tool_call_id"], "call_1");
    assert_eq!(second[second.len() - 2]["tool_calls"][0]["function"]["name"], "ask_user_question");
    // Text streamed in pieces, and the service's question events were bridged.
    let mut deltas = String::new();
    let mut saw_question = false;
    while let Ok(event) = stream.try_recv() {
        match event {
            AgentEvent::TextDelta { text, .. } => deltas.push_str(&text),
            AgentEvent::Question { .. } => saw_question = true,
            _ => {}
        }
    }
    assert_eq!(deltas, "Let me ask.Going with SQLite.");
    assert!(saw_question);
}

#[tokio::test]
async fn a_batch_of_three_questions_is_answered_at_once() {
    let questions = json!([
        { "id": "db", "question": "Which database?", "options": [{ "label": "SQLite" }, { "label": "Postgres" }] },
        { "id": "extras", "question": "Extras?", "multi_select": true,
          "options": [{ "label": "Docs" }, { "label": "Tests" }, { "label": "CI" }] },
        { "id": "name", "question": "Name?" }
    ]);
    let mut h = Harness::new(vec![
        tool_reply("", &[("call_b", "ask_user_question", ask_args(questions, None))]),
        text_reply("Done."),
    ])
    .await;
    let agent = h.agent(ToolMode::Legacy);
    agent.steer("go").unwrap();
    let answers = vec![
        Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None },
        Answer { id: "extras".into(), selected: vec!["Docs".into(), "CI".into()], custom: None },
        Answer { id: "name".into(), selected: vec![], custom: Some("hark".into()) },
    ];
    let request = answer_next(&mut h, answers.clone()).await;
    assert_eq!(request.questions.len(), 3);
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.unwrap();
    let events = h.events(&agent);
    let ToolOutcome::Ok { content, .. } = &results(&events)[0].1 else { panic!() };
    let got: AnswerBatch = serde_json::from_str(content).unwrap();
    assert_eq!(got.answers, answers);
    assert_eq!(turn_end(&events), "completed");
}

/// A timed question goes pending; the model works in the workspace; a late answer reaches it.
async fn pending_then_workspace(h: &mut Harness) -> Agent {
    std::fs::write(h.workspace.path().join("notes.txt"), "remember the milk").unwrap();
    let agent = h.agent(ToolMode::Timed);
    run(&agent, "plan the app").await;
    agent
}

fn timed_script() -> Vec<Reply> {
    vec![
        tool_reply("Asking.", &[("call_t", "ask_user_question", ask_args(db_question(), Some(1)))]),
        tool_reply("Reading meanwhile.", &[("call_r", "read_file", json!({ "path": "notes.txt" }).to_string())]),
        text_reply("Waiting for your answer."),
        text_reply("Thanks, SQLite it is."),
    ]
}

#[tokio::test]
async fn timed_question_goes_pending_and_the_late_answer_reaches_the_model() {
    let mut h = Harness::new(timed_script()).await;
    let agent = pending_then_workspace(&mut h).await;
    let events = h.events(&agent);
    let outcomes = results(&events);
    assert!(
        matches!(&outcomes[0].1, ToolOutcome::Pending { content, .. } if content.contains("answer_to_pending_question"))
    );
    assert!(matches!(&outcomes[1].1, ToolOutcome::Ok { content, .. } if content == "remember the milk"));
    assert_eq!(project_questions(&events)[0].state, QuestionState::Continued);

    let batch =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }] };
    // The agent's own entry point picks the late path for a continued question.
    let responded = agent.respond("call_t", batch).unwrap();
    assert!(matches!(responded, hark_core::service::Responded::Late(_)));
    until_answered_late(&h.store, &agent, "call_t").await;

    let sent = h.sent();
    let last = sent.last().unwrap().last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(last["content"].as_str().unwrap().contains("answer_to_pending_question"));
    let events = h.events(&agent);
    let record = &project_questions(&events)[0];
    assert_eq!(record.state, QuestionState::Settled);
    assert!(record.answered_late);
    assert_eq!(last_assistant_text(&events), "Thanks, SQLite it is.");
}

#[tokio::test]
async fn restart_between_pending_and_late_answer_rebuilds_the_same_history() {
    let mut h = Harness::new(timed_script()).await;
    let agent = pending_then_workspace(&mut h).await;
    let session = agent.session_id().to_string();
    let before = h.sent().last().unwrap().clone();
    let history_before = history(&h.events(&agent));
    drop(agent);

    // A new process: new store, new service, new agent over the same data directory.
    let store = Arc::new(Store::open(h.dir.path()).unwrap());
    let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
    let deps = AgentDeps { store: store.clone(), service: service.clone(), ..h.deps() };
    let agent = Agent::open(deps, &session, config(ToolMode::Timed)).unwrap();
    assert_eq!(history(&store.events(&session).unwrap()), history_before);
    let batch =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }] };
    service.answer(&session, "call_t", batch).unwrap();
    until_answered_late(&store, &agent, "call_t").await;

    let after = h.sent().last().unwrap().clone();
    assert_eq!(after.len(), before.len() + 2, "{after:#?}");
    assert_eq!(after[..before.len()], before[..]);
    assert_eq!(after[before.len()]["content"], "Waiting for your answer.");
    assert!(after[before.len() + 1]["content"].as_str().unwrap().contains("answer_to_pending_question"));
    assert!(project_questions(&store.events(&session).unwrap())[0].answered_late);
}

#[tokio::test]
async fn abort_mid_question_records_ask_aborted() {
    let mut h =
        Harness::new(vec![tool_reply("", &[("call_a", "ask_user_question", ask_args(db_question(), None))])]).await;
    let agent = h.agent(ToolMode::Legacy);
    agent.steer("go").unwrap();
    tokio::time::timeout(Duration::from_secs(10), h.requests.recv()).await.unwrap().unwrap();
    assert!(agent.abort());
    tokio::time::timeout(Duration::from_secs(10), agent.wait_idle()).await.unwrap();
    let events = h.events(&agent);
    let ToolOutcome::Error { error } = &results(&events)[0].1 else { panic!() };
    assert_eq!(error.code, "ASK_ABORTED");
    assert_eq!(turn_end(&events), "aborted");
    assert_eq!(h.server.requests().len(), 1, "nothing runs after an abort");
}

#[tokio::test]
async fn unauthorized_records_a_model_error_and_ends_the_turn() {
    let h = Harness::new(vec![Reply::json(401, json!({ "error": { "message": "bad key" } }))]).await;
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "hi").await;
    let events = h.events(&agent);
    let error = events.iter().find_map(|e| match &e.event {
        Event::ModelError { error } => Some(error.clone()),
        _ => None,
    });
    assert_eq!(error.unwrap().code, "MODEL_AUTH");
    assert_eq!(turn_end(&events), "error");
}

#[tokio::test]
async fn a_server_error_then_success_completes() {
    let h = Harness::new(vec![Reply::json(500, json!({ "error": { "message": "boom" } })), text_reply("Hello!")]).await;
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "hi").await;
    let events = h.events(&agent);
    assert_eq!(last_assistant_text(&events), "Hello!");
    assert_eq!(turn_end(&events), "completed");
    assert!(!types(&events).contains(&"model/error"));
}

#[tokio::test]
async fn a_malformed_chunk_keeps_the_text_before_it() {
    let body = format!("data: {}\n\ndata: {{not json\n\n", chunk(json!({ "content": "Partial answer" }), None));
    let h = Harness::new(vec![Reply::raw_sse(&body)]).await;
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "hi").await;
    let events = h.events(&agent);
    assert_eq!(last_assistant_text(&events), "Partial answer");
    assert!(types(&events).contains(&"model/error"));
    assert_eq!(turn_end(&events), "error");
}

#[tokio::test]
async fn invalid_json_arguments_get_a_structured_error_and_the_turn_continues() {
    let h = Harness::new(vec![
        tool_reply("", &[("call_x", "write_file", "{\"path\": \"a.txt\", ".into())]),
        tool_reply("", &[("call_y", "read_file", json!({ "path": "../../etc/passwd" }).to_string())]),
        text_reply("Sorry about that."),
    ])
    .await;
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "write a file").await;
    let events = h.events(&agent);
    let outcomes = results(&events);
    let ToolOutcome::Error { error } = &outcomes[0].1 else { panic!() };
    assert_eq!(error.code, "INVALID_REQUEST");
    let ToolOutcome::Error { error } = &outcomes[1].1 else { panic!() };
    assert_eq!(error.code, "PATH_OUTSIDE_WORKSPACE");
    // The raw arguments are recorded as text and sent back verbatim.
    assert!(events.iter().any(
        |e| matches!(&e.event, Event::ToolCall { arguments: Value::String(raw), .. } if raw.starts_with("{\"path\""))
    ));
    let sent = h.sent();
    let tool_msg = sent[1].last().unwrap();
    assert!(tool_msg["content"].as_str().unwrap().contains("INVALID_REQUEST"));
    assert_eq!(turn_end(&events), "completed");
    assert_eq!(last_assistant_text(&events), "Sorry about that.");
}

#[tokio::test]
async fn a_message_steered_mid_turn_is_admitted_at_the_next_step_boundary() {
    let mut h = Harness::new(vec![
        tool_reply("", &[("call_s", "ask_user_question", ask_args(db_question(), None))]),
        text_reply("Noted both."),
    ])
    .await;
    let agent = h.agent(ToolMode::Legacy);
    agent.steer("first").unwrap();
    let request = tokio::time::timeout(Duration::from_secs(10), h.requests.recv()).await.unwrap().unwrap();
    agent.steer("also use docker").unwrap();
    let batch = AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec![], custom: None }] };
    h.service.submit_foreground(&request.session_id, &request.call_id, batch).unwrap();
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.unwrap();
    let sent = h.sent();
    let second = &sent[1];
    assert_eq!(second[second.len() - 2]["role"], "tool");
    assert_eq!(second[second.len() - 1]["content"], "also use docker");
    let events = h.events(&agent);
    assert_eq!(events.iter().filter(|e| e.event.type_name() == "turn/started").count(), 1);
}

#[tokio::test]
async fn the_step_limit_ends_a_turn_that_never_stops() {
    let call = |id: &'static str| tool_reply("", &[(id, "list_dir", json!({ "path": "." }).to_string())]);
    let h = Harness::new(vec![call("l1"), call("l2"), call("l3")]).await;
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let config = AgentConfig { step_limit: 2, ..config(ToolMode::Legacy) };
    let agent = Agent::create(h.deps(), session, config).unwrap();
    run(&agent, "loop").await;
    let events = h.events(&agent);
    assert_eq!(results(&events).len(), 2);
    assert_eq!(turn_end(&events), "step_limit");
    assert_eq!(h.server.requests().len(), 2);
}

#[tokio::test]
async fn without_a_workspace_only_the_question_tool_is_offered() {
    let h = Harness::new(vec![text_reply("Hi.")]).await;
    let agent = Agent::create(h.deps(), NewSession::default(), config(ToolMode::Legacy)).unwrap();
    run(&agent, "hi").await;
    let tools: Vec<Value> = h.server.requests()[0].body["tools"].as_array().unwrap().clone();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["function"]["name"], "ask_user_question");
}

#[tokio::test]
async fn abort_mid_stream_keeps_the_streamed_text_and_closes_the_connection() {
    let first = format!("data: {}\n\n", chunk(json!({ "content": "Thinking about" }), None));
    let h = Harness::new(vec![Reply::sse_pieces(&[(0, &first)], Ending::Hold)]).await;
    let agent = h.agent(ToolMode::Legacy);
    let mut stream = agent.subscribe();
    agent.steer("hi").unwrap();
    loop {
        if let AgentEvent::TextDelta { .. } =
            tokio::time::timeout(Duration::from_secs(10), stream.recv()).await.unwrap().unwrap()
        {
            break;
        }
    }
    assert!(agent.abort());
    tokio::time::timeout(Duration::from_secs(10), agent.wait_idle()).await.unwrap();
    assert!(h.server.wait_client_closed(Duration::from_secs(5)).await, "the model request was cancelled");
    let events = h.events(&agent);
    assert_eq!(last_assistant_text(&events), "Thinking about");
    assert_eq!(turn_end(&events), "aborted");
    assert!(!types(&events).contains(&"model/error"));
}

#[tokio::test]
async fn reopening_after_a_crash_marks_the_lost_call_unknown_and_continues() {
    let h = Harness::new(vec![text_reply("I'll check the file again.")]).await;
    let session = h.store.create_session("t", None, None).unwrap();
    // A dead run: it started a turn and a tool call, then vanished.
    h.store
        .append_batch(
            &session,
            vec![
                Event::TurnStarted { turn_id: "old".into(), run_id: "dead-run".into() },
                Event::UserMessage { message_id: "m1".into(), text: "read it".into(), source: None },
                Event::AssistantMessage {
                    text: String::new(),
                    reasoning: None,
                    tool_calls: vec!["c1".into()],
                    usage: None,
                },
                Event::ToolCall { call_id: "c1".into(), name: "read_file".into(), arguments: json!({ "path": "a" }) },
            ],
        )
        .unwrap();
    let agent = Agent::open(h.deps(), &session, config(ToolMode::Legacy)).unwrap();
    let events = h.store.events(&session).unwrap();
    assert_eq!(results(&events), vec![("c1".to_string(), ToolOutcome::Unknown)]);
    run(&agent, "and now?").await;
    let sent = h.sent();
    let messages = &sent[0];
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["content"], hark_core::agent::UNKNOWN_OUTCOME_TEXT);
    assert_eq!(messages.last().unwrap()["content"], "and now?");
}

#[tokio::test]
async fn retry_after_a_model_error_reruns_the_same_history_without_a_new_message() {
    let h =
        Harness::new(vec![Reply::json(401, json!({ "error": { "message": "bad key" } })), text_reply("Back again.")])
            .await;
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "hi").await;
    assert_eq!(turn_end(&h.events(&agent)), "error");
    agent.retry().unwrap();
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.expect("the agent went idle");
    let events = h.events(&agent);
    assert_eq!(last_assistant_text(&events), "Back again.");
    assert_eq!(turn_end(&events), "completed");
    let user_messages = types(&events).iter().filter(|t| **t == "user/message").count();
    assert_eq!(user_messages, 1, "a retry adds no user message");
    let sent = h.sent();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0], sent[1], "the retry sends the same history");
}
