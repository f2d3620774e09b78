//! An MCP server's forms as Hark questions: a server on the official Python `mcp` SDK elicits while
//! the agent calls its tool (scripted OpenAI-compatible server on 127.0.0.1); the form reaches the
//! question service, answers are checked against the form, and accept (typed content), decline and
//! cancel reach the server as such. `make test` installs the SDK in `tests/mcp/.venv`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hark_core::agent::{Agent, AgentConfig, NewSession};
use hark_core::mcp::McpConfig;
use hark_core::question::{Answer, AnswerBatch, ErrorCode, FieldKind, FormOutcome, Intent, ToolMode};
use hark_core::service::InteractionRequest;
use hark_core::session::{Event, ToolOutcome};
use hark_test_support::agent::*;
use hark_test_support::Events;
use serde_json::{json, Value};

fn python() -> (PathBuf, PathBuf) {
    hark_test_support::real_agents::elicit_server()
}

fn forms_config(tool_timeout_sec: u64) -> AgentConfig {
    let (python, script) = python();
    let text = json!({ "mcpServers": { "elicit": {
        "command": python, "args": [script], "tool_timeout_sec": tool_timeout_sec,
    }}})
    .to_string();
    let mcp = McpConfig::parse(&text, &|_| None).unwrap();
    AgentConfig { mcp: Arc::new(mcp), ..config(ToolMode::Legacy) }
}

fn start(h: &Harness, config: AgentConfig) -> Agent {
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, config).unwrap();
    agent.steer("deploy it").unwrap();
    agent
}

async fn next_form(h: &mut Harness) -> InteractionRequest {
    tokio::time::timeout(Duration::from_secs(30), h.requests.recv()).await.unwrap().unwrap()
}

/// What the server's tool returned for `call_id`: the action and content it received.
async fn server_saw(h: &Harness, agent: &Agent, call_id: &str) -> Value {
    // The result is recorded, and every record is announced; it may be there already.
    let mut recorded = Events::new(agent.subscribe());
    let result = || results(&h.events(agent)).into_iter().find(|(id, _)| id == call_id);
    recorded
        .wait_until_within(&format!("the result of {call_id}"), Duration::from_secs(30), || result().is_some())
        .await;
    match result().map(|(_, outcome)| outcome) {
        Some(ToolOutcome::Ok { content, .. }) => serde_json::from_str(&content).unwrap(),
        other => panic!("{call_id} did not succeed: {other:?}"),
    }
}

/// The forms the session recorded, in order, with the seq of each and of `call_id`'s result.
fn recorded_forms(h: &Harness, agent: &Agent) -> Vec<(u64, String, FormOutcome)> {
    h.events(agent)
        .into_iter()
        .filter_map(|e| match e.event {
            Event::McpForm { server, outcome, .. } => Some((e.seq, server, outcome)),
            _ => None,
        })
        .collect()
}

fn result_seq(h: &Harness, agent: &Agent, call_id: &str) -> u64 {
    h.events(agent)
        .into_iter()
        .find(|e| matches!(&e.event, Event::ToolResult { call_id: c, .. } if c == call_id))
        .map(|e| e.seq)
        .unwrap_or(u64::MAX)
}

fn pick(id: &str, labels: &[&str]) -> Answer {
    Answer { id: id.into(), selected: labels.iter().map(|l| l.to_string()).collect(), custom: None }
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP form server is a Python script in a Linux venv, which Wine cannot run")]
async fn a_form_is_a_question_whose_checked_answers_reach_the_server_typed() {
    let mut h = Harness::new(vec![
        tool_reply("Deploying.", &[("d1", "mcp__elicit__deploy", "{}".into())]),
        text_reply("Deployed."),
    ])
    .await;
    // One second for the tool, more than that for the person: their time does not count.
    let agent = start(&h, forms_config(1));
    let form = next_form(&mut h).await;
    let Intent::Form { server, message, fields, .. } = &form.intent else { panic!("not a form: {:?}", form.intent) };
    assert_eq!((server.as_str(), message.as_str()), ("elicit", "Deploy settings for release 1.2"));
    let ids: Vec<&str> = form.questions.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, ["env", "regions", "notify"], "the server's order");
    let labels = |i: usize| form.questions[i].options.iter().map(|o| o.label.as_str()).collect::<Vec<_>>();
    assert_eq!(labels(0), ["Staging", "Production"]);
    assert_eq!(labels(1), ["eu", "us", "ap"]);
    assert!(form.questions[1].multi_select);
    assert_eq!(labels(2), ["Yes", "No"]);
    assert_eq!(form.questions[0].header.as_deref(), Some("Environment"));
    assert!(form.questions[2].question.contains("default: Yes"), "{}", form.questions[2].question);
    assert!(matches!(fields[1].kind, FieldKind::Multi { min_items: Some(1), .. }));

    tokio::time::sleep(Duration::from_millis(1500)).await;
    let submit =
        |answers: Vec<Answer>| h.service.submit_foreground(&form.session_id, &form.call_id, AnswerBatch { answers });
    // A required field skipped, and text where only the options are values: refused, still open.
    let e = submit(vec![
        Answer { id: "env".into(), selected: vec![], custom: Some("the big one".into()) },
        Answer::skip("regions"),
        Answer::skip("notify"),
    ])
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadAnswer);
    assert!(e.message.contains("Regions: this field is required"), "{}", e.message);
    assert!(e.message.contains("Environment: choose from the options"), "{}", e.message);
    submit(vec![pick("env", &["Production"]), pick("regions", &["eu", "ap"]), Answer::skip("notify")]).unwrap();

    let saw = server_saw(&h, &agent, "d1").await;
    assert_eq!(
        saw,
        json!({ "action": "accept", "content": { "env": "prod", "regions": ["eu", "ap"], "notify": true } })
    );
    // The person's answers were in the log before the server's result came back.
    let forms = recorded_forms(&h, &agent);
    let [(seq, server, FormOutcome::Accept { answers })] = &forms[..] else { panic!("{forms:?}") };
    assert_eq!(server, "elicit");
    assert_eq!(answers.get("env").unwrap().selected, ["Production"]);
    assert!(answers.get("notify").unwrap().is_skip());
    assert!(*seq < result_seq(&h, &agent, "d1"));
    drop(agent);
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP form server is a Python script in a Linux venv, which Wine cannot run")]
async fn decline_and_close_reach_the_server_as_decline_and_cancel() {
    let mut h = Harness::new(vec![
        tool_reply("Deploying.", &[("d1", "mcp__elicit__deploy", "{}".into())]),
        tool_reply("Then a colour.", &[("p1", "mcp__elicit__pick", "{}".into())]),
        text_reply("Fine."),
    ])
    .await;
    let agent = start(&h, forms_config(120));
    let form = next_form(&mut h).await;
    h.service.decline(&form.session_id, &form.call_id).unwrap();
    assert_eq!(server_saw(&h, &agent, "d1").await, json!({ "action": "decline", "content": null }));

    let form = next_form(&mut h).await;
    assert_eq!(form.questions[0].options.len(), 2);
    h.service.cancel(&form.session_id, &form.call_id).unwrap();
    assert_eq!(server_saw(&h, &agent, "p1").await, json!({ "action": "cancel", "content": null }));
    let outcomes: Vec<FormOutcome> = recorded_forms(&h, &agent).into_iter().map(|(_, _, o)| o).collect();
    assert_eq!(outcomes, [FormOutcome::Decline, FormOutcome::Cancel]);
    // A form is not a plain question's late path: nothing stays open.
    assert!(h.service.foreground(Some(&form.session_id)).is_empty());
    drop(agent);
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP form server is a Python script in a Linux venv, which Wine cannot run")]
async fn a_link_in_url_mode_is_shown_as_its_url_and_accepted_or_declined() {
    let mut h = Harness::new(vec![
        tool_reply("Signing in.", &[("l1", "mcp__elicit__link", "{}".into())]),
        text_reply("Signed in."),
    ])
    .await;
    let agent = start(&h, forms_config(120));
    let form = next_form(&mut h).await;
    let Intent::Form { message, url, .. } = &form.intent else { panic!("not a form: {:?}", form.intent) };
    assert_eq!(message, "Sign in to the deploy service");
    assert_eq!(url.as_deref(), Some("https://example.com/sign-in?code=42"));
    let labels: Vec<&str> = form.questions[0].options.iter().map(|o| o.label.as_str()).collect();
    assert_eq!(labels, ["Accept", "Decline"]);
    let batch = AnswerBatch { answers: vec![pick("confirm", &["Accept"])] };
    h.service.submit_foreground(&form.session_id, &form.call_id, batch).unwrap();
    assert_eq!(server_saw(&h, &agent, "l1").await, json!({ "action": "accept", "content": null }));
    drop(agent);
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP form server is a Python script in a Linux venv, which Wine cannot run")]
async fn a_form_hark_cannot_show_is_refused_to_the_server_with_the_reason() {
    let h = Harness::new(vec![
        tool_reply("Asking.", &[("t1", "mcp__elicit__too_big", "{}".into())]),
        text_reply("Refused."),
    ])
    .await;
    let agent = start(&h, forms_config(120));
    let saw = server_saw(&h, &agent, "t1").await;
    let refused = saw["refused"].as_str().unwrap_or_default();
    assert!(refused.contains("Hark cannot show this form") && refused.contains("options"), "{saw}");
    assert!(h.service.foreground(None).is_empty(), "nothing was asked");
    drop(agent);
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP form server is a Python script in a Linux venv, which Wine cannot run")]
async fn stopping_the_turn_cancels_the_form_it_asked() {
    let mut h = Harness::new(vec![tool_reply("Deploying.", &[("d1", "mcp__elicit__deploy", "{}".into())])]).await;
    let agent = start(&h, forms_config(120));
    let form = next_form(&mut h).await;
    // The service announces the form's closing.
    let mut questions = Events::new(h.service.subscribe());
    agent.abort();
    questions
        .wait_until_within("the form to close with its turn", Duration::from_secs(10), || {
            h.service.foreground(Some(&form.session_id)).is_empty()
        })
        .await;
    let e = h.service.decline(&form.session_id, &form.call_id).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotPending);
    drop(agent);
}

#[tokio::test(flavor = "multi_thread")]
async fn only_a_form_can_be_declined() {
    let mut h =
        Harness::new(vec![tool_reply("Asking.", &[("q1", "ask_user_question", ask_args(db_question(), None))])]).await;
    let agent = h.agent(ToolMode::Legacy);
    agent.steer("ask me").unwrap();
    let asked = next_form(&mut h).await;
    let e = h.service.decline(&asked.session_id, &asked.call_id).unwrap_err();
    assert_eq!(e.code, ErrorCode::BadIntent);
    h.service.cancel(&asked.session_id, &asked.call_id).unwrap();
    drop(agent);
}
