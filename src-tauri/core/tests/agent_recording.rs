//! What the agent records for calls the model made loosely: arguments in a lenient form, and call ids
//! a server reuses across steps. The log must describe what actually ran, so projections, late
//! answers, crash repair and the replayed history all agree with it after a restart.

use std::time::Duration;

use hark_core::agent::{Agent, NewSession};
use hark_core::question::{Answer, AnswerBatch, ToolMode};
use hark_core::session::{project_questions, Event, QuestionState, StoredEvent, ToolOutcome};
use hark_test_support::agent::*;
use hark_test_support::Events;
use serde_json::{json, Value};

/// The recorded arguments of every call, in order.
fn recorded_calls(events: &[StoredEvent]) -> Vec<(String, Value)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolCall { call_id, arguments, .. } => Some((call_id.clone(), arguments.clone())),
            _ => None,
        })
        .collect()
}

/// Each assistant message with tool calls in a request, with the tool message that follows it.
fn call_and_result_pairs(messages: &[Value]) -> Vec<(Value, Value)> {
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "assistant" && m["tool_calls"].is_array())
        .map(|(i, m)| (m["tool_calls"][0].clone(), messages[i + 1].clone()))
        .collect()
}

#[tokio::test]
async fn questions_sent_as_a_json_string_stay_answerable_late_after_a_restart() {
    // The array arrives as a string holding it, which the tool accepts and asks.
    let args = json!({ "questions": db_question().to_string(), "timeout": 1 }).to_string();
    let h = Harness::new(vec![
        tool_reply("Asking.", &[("call_s", "ask_user_question", args)]),
        text_reply("Waiting for your answer."),
        text_reply("Postgres it is."),
    ])
    .await;
    let agent = h.agent(ToolMode::Timed);
    run(&agent, "plan the app").await;
    let session = agent.session_id().to_string();
    assert!(matches!(&results(&h.events(&agent))[0].1, ToolOutcome::Pending { .. }), "asked and timed out");
    drop(agent);

    let deps = h.restarted_deps();
    let (store, service) = (deps.store.clone(), deps.service.clone());
    assert_eq!(store.list_sessions().unwrap()[0].continued_questions, 1, "the badge counts the open question");
    let agent = Agent::open(deps, &session, config(ToolMode::Timed)).unwrap();
    let batch =
        AnswerBatch { answers: vec![Answer { id: "db".into(), selected: vec!["Postgres".into()], custom: None }] };
    service.answer(&session, "call_s", batch).expect("the late answer is taken");
    until_answered_late(&store, &agent, "call_s").await;

    let events = store.events(&session).unwrap();
    let canonical = json!({
        "questions": [{
            "id": "db", "question": "Which database?", "header": "Database",
            "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres" }],
            "multi_select": false,
        }],
        "timeout": 1,
    });
    assert_eq!(recorded_calls(&events), [("call_s".to_string(), canonical.clone())]);
    assert_eq!(last_assistant_text(&events), "Postgres it is.");
    // On replay the model reads its call in the canonical form.
    let last = h.sent().last().unwrap().clone();
    let (call, _) = &call_and_result_pairs(&last)[0];
    let replayed: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(replayed, canonical);
}

#[tokio::test]
async fn a_call_id_reused_in_the_next_step_gets_an_id_of_its_own() {
    let first = json!({ "questions": [{ "id": "db", "question": "Which database?",
                                        "options": [{ "label": "SQLite" }, { "label": "Postgres" }] }] });
    let second = json!({ "questions": [{ "id": "name", "question": "Project name?" }] });
    // Servers that number calls per response send `call_0` again in the second step.
    let mut h = Harness::new(vec![
        tool_reply("First.", &[("call_0", "ask_user_question", first.to_string())]),
        tool_reply("Second.", &[("call_0", "ask_user_question", second.to_string())]),
        text_reply("Done."),
    ])
    .await;
    let agent = h.agent(ToolMode::Legacy);
    agent.steer("set it up").unwrap();
    let asked_first =
        answer_next(&mut h, vec![Answer { id: "db".into(), selected: vec!["SQLite".into()], custom: None }]).await;
    let asked_second =
        answer_next(&mut h, vec![Answer { id: "name".into(), selected: vec![], custom: Some("hark".into()) }]).await;
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.unwrap();
    assert_eq!(asked_first.call_id, "call_0", "a fresh id keeps the model's own");
    assert_ne!(asked_second.call_id, "call_0");

    let events = h.events(&agent);
    let calls: Vec<String> = recorded_calls(&events).into_iter().map(|(id, _)| id).collect();
    assert_eq!(calls, [asked_first.call_id.clone(), asked_second.call_id.clone()]);
    let records = project_questions(&events);
    let recorded: Vec<(&str, &str, QuestionState)> =
        records.iter().map(|r| (r.call_id.as_str(), r.questions[0].id.as_str(), r.state)).collect();
    assert_eq!(
        recorded,
        [(calls[0].as_str(), "db", QuestionState::Settled), (calls[1].as_str(), "name", QuestionState::Settled)]
    );

    // The third request pairs each call with its own result.
    let third = &h.sent()[2];
    let pairs = call_and_result_pairs(third);
    assert_eq!(pairs.len(), 2, "{third:#?}");
    for ((call, result), (id, question, answer)) in
        pairs.iter().zip([(&calls[0], "db", "SQLite"), (&calls[1], "name", "hark")])
    {
        assert_eq!(call["id"], **id);
        assert!(call["function"]["arguments"].as_str().unwrap().contains(question), "{call}");
        assert_eq!(result["role"], "tool");
        assert_eq!(result["tool_call_id"], **id);
        assert!(result["content"].as_str().unwrap().contains(answer), "{result}");
    }
}

#[tokio::test]
async fn a_reused_call_id_lost_in_a_crash_is_repaired_on_reopen() {
    let h = Harness::new(vec![
        tool_reply("", &[("call_0", "read_file", json!({ "path": "notes.txt" }).to_string())]),
        tool_reply("", &[("call_0", "ask_user_question", ask_args(db_question(), None))]),
        text_reply("Back again."),
    ])
    .await;
    std::fs::write(h.workspace.path().join("notes.txt"), "remember the milk").unwrap();
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let (deps, store) = (h.deps(), h.store.clone());

    // A run that dies while the second call waits for the user: its runtime goes away with the
    // question in flight, so nothing more is recorded.
    let (died, dead) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let (agent, id) = runtime.block_on(async move {
            let agent = Agent::create(deps, session, config(ToolMode::Legacy)).unwrap();
            let id = agent.session_id().to_string();
            let mut recorded = Events::new(agent.subscribe());
            agent.steer("go").unwrap();
            recorded
                .wait_until("the second call to be recorded", || recorded_calls(&store.events(&id).unwrap()).len() >= 2)
                .await;
            (agent, id)
        });
        drop(runtime);
        drop(agent);
        let _ = died.send(id);
    });
    let session_id = tokio::time::timeout(Duration::from_secs(30), dead).await.unwrap().expect("the run died");

    let deps = h.restarted_deps();
    let store = deps.store.clone();
    let agent = Agent::open(deps, &session_id, config(ToolMode::Legacy)).unwrap();
    let events = store.events(&session_id).unwrap();
    let calls: Vec<String> = recorded_calls(&events).into_iter().map(|(id, _)| id).collect();
    assert_eq!(calls.len(), 2);
    assert_ne!(calls[0], calls[1]);
    assert_eq!(
        results(&events),
        [(calls[0].clone(), ToolOutcome::ok("remember the milk")), (calls[1].clone(), ToolOutcome::Unknown)]
    );
    let records = project_questions(&events);
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].call_id.as_str(), records[0].state), (calls[1].as_str(), QuestionState::Continued));

    run(&agent, "and now?").await;
    let pairs = call_and_result_pairs(h.sent().last().unwrap());
    let ids: Vec<(&Value, &Value)> = pairs.iter().map(|(c, r)| (&c["id"], &r["tool_call_id"])).collect();
    assert_eq!(ids, [(&json!(calls[0]), &json!(calls[0])), (&json!(calls[1]), &json!(calls[1]))]);
    assert_eq!(pairs[1].1["content"], hark_core::agent::UNKNOWN_OUTCOME_TEXT);
}
