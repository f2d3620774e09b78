//! An agent whose model never stops talking: the provider's output cap ends the step with a recorded
//! MODEL_OUTPUT_TOO_LARGE, the text streamed so far is kept, and the session takes the next message.

use std::sync::Arc;
use std::time::Duration;

use hark_core::agent::{Agent, AgentConfig, AgentDeps, NewSession};
use hark_core::model::{OpenAiConfig, OpenAiProvider};
use hark_core::service::{ForwardingProvider, SessionLog, UserQuestionService};
use hark_core::session::{Event, Store, StoredEvent};
use hark_test_support::server::{Reply, TestServer};
use serde_json::json;

const OUTPUT_CAP: usize = 32 * 1024;

fn chunk(content: &str, finish: Option<&str>) -> String {
    json!({ "choices": [{ "index": 0, "delta": { "content": content }, "finish_reason": finish }] }).to_string()
}

fn assistant_texts(events: &[StoredEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::AssistantMessage { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

fn turn_ends(events: &[StoredEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::TurnEnded { reason, .. } => Some(reason.to_string()),
            _ => None,
        })
        .collect()
}

async fn run(agent: &Agent, prompt: &str) {
    agent.steer(prompt).unwrap();
    // Without a cap the first turn would never end; failing here beats hanging the suite.
    tokio::time::timeout(Duration::from_secs(8), agent.wait_idle()).await.expect("the turn ended");
}

#[tokio::test]
async fn a_runaway_stream_records_output_too_large_and_the_session_goes_on() {
    let looping = format!("data: {}\n\n", chunk("again and again ", None)).repeat(20);
    let answer = format!("data: {}\n\ndata: {}\n\ndata: [DONE]\n\n", chunk("Short.", None), chunk("", Some("stop")));
    let server = TestServer::start(vec![Reply::endless("", &looping), Reply::raw_sse(&answer)]).await;
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path()).unwrap());
    let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
    let (questions, _requests) = ForwardingProvider::new();
    let _registration = service.register(Arc::new(questions)).unwrap();
    let mut config = OpenAiConfig::new(server.base_url(), "test-model", None);
    config.max_output_bytes = OUTPUT_CAP;
    let deps = AgentDeps { store: store.clone(), service, model: Arc::new(OpenAiProvider::new(config).unwrap()) };
    let session = NewSession { title: "t".into(), workspace: None, model: None };
    let agent = Agent::create(deps, session, AgentConfig::default()).unwrap();

    run(&agent, "tell me a story").await;
    assert!(server.wait_client_closed(Duration::from_secs(3)).await, "the runaway stream's connection was closed");
    let events = store.events(agent.session_id()).unwrap();
    let error = events
        .iter()
        .find_map(|e| match &e.event {
            Event::ModelError { error } => Some(error.clone()),
            _ => None,
        })
        .expect("a model/error was recorded");
    assert_eq!(error.code, "MODEL_OUTPUT_TOO_LARGE", "{error}");
    assert_eq!(error.name, "ModelError");
    assert_eq!(turn_ends(&events), ["error"]);
    let kept = assistant_texts(&events);
    assert_eq!(kept.len(), 1, "the text streamed before the cap was recorded");
    assert!(kept[0].starts_with("again and again") && kept[0].len() <= OUTPUT_CAP, "{} bytes", kept[0].len());

    run(&agent, "shorter, please").await;
    let events = store.events(agent.session_id()).unwrap();
    assert_eq!(turn_ends(&events), ["error", "completed"]);
    assert_eq!(assistant_texts(&events).last().map(String::as_str), Some("Short."));
    assert_eq!(server.requests().len(), 2);
}
