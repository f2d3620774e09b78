//! The harness of the agent tests: a scripted OpenAI-compatible server on 127.0.0.1, a real store and
//! question service, and readers of what the agent recorded and sent.
#![allow(dead_code)]

#[path = "../model_support/mod.rs"]
pub mod model_support;

use std::sync::Arc;
use std::time::Duration;

use hark_core::agent::{Agent, AgentConfig, AgentDeps, NewSession};
use hark_core::model::{OpenAiConfig, OpenAiProvider};
use hark_core::question::{Answer, AnswerBatch, ToolMode};
use hark_core::service::{
    ForwardingProvider, InteractionRequest, ProviderRegistration, SessionLog, UserQuestionService,
};
use hark_core::session::{project_questions, Event, Store, StoredEvent, ToolOutcome};
use hark_core::tools::QuestionSettings;
pub use model_support::{Reply, Strict, TestServer};
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;

pub fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({ "id": "c", "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
        .to_string()
}

pub fn text_reply(text: &str) -> Reply {
    let (a, b) = text.split_at(text.len() / 2);
    Reply::sse(&[
        &chunk(json!({ "role": "assistant", "content": a }), None),
        &chunk(json!({ "content": b }), None),
        &chunk(json!({}), Some("stop")),
        "[DONE]",
    ])
}

pub fn tool_reply(text: &str, calls: &[(&str, &str, String)]) -> Reply {
    let mut payloads = vec![chunk(json!({ "role": "assistant", "content": text }), None)];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        payloads.push(chunk(
            json!({ "tool_calls": [{ "index": i, "id": id, "type": "function", "function": { "name": name, "arguments": args } }] }),
            None,
        ));
    }
    payloads.push(chunk(json!({}), Some("tool_calls")));
    payloads.push("[DONE]".into());
    let refs: Vec<&str> = payloads.iter().map(String::as_str).collect();
    Reply::sse(&refs)
}

pub fn ask_args(questions: Value, timeout: Option<u64>) -> String {
    let mut args = json!({ "questions": questions });
    if let Some(t) = timeout {
        args["timeout"] = json!(t);
    }
    args.to_string()
}

pub fn db_question() -> Value {
    json!([{ "id": "db", "question": "Which database?", "header": "Database",
             "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres" }] }])
}

pub struct Harness {
    pub dir: tempfile::TempDir,
    pub workspace: tempfile::TempDir,
    pub server: TestServer,
    pub store: Arc<Store>,
    pub service: UserQuestionService,
    pub requests: UnboundedReceiver<InteractionRequest>,
    _provider: ProviderRegistration,
}

impl Harness {
    pub async fn new(replies: Vec<Reply>) -> Harness {
        Harness::on(TestServer::start(replies).await)
    }

    /// A harness whose server checks every request as OpenAI and DeepSeek do (see [`Strict`]).
    pub async fn strict(replies: Vec<Reply>, strict: Strict) -> Harness {
        Harness::on(TestServer::start_strict(replies, strict).await)
    }

    fn on(server: TestServer) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path()).unwrap());
        let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
        let (provider, requests) = ForwardingProvider::new();
        let registration = service.register(Arc::new(provider)).unwrap();
        Harness { dir, workspace, server, store, service, requests, _provider: registration }
    }

    pub fn deps(&self) -> AgentDeps {
        let mut config = OpenAiConfig::new(self.server.base_url(), "test-model", None);
        config.backoff_base = Duration::from_millis(5);
        config.max_backoff = Duration::from_millis(20);
        config.read_timeout = Duration::from_secs(10);
        AgentDeps {
            store: self.store.clone(),
            service: self.service.clone(),
            model: Arc::new(OpenAiProvider::new(config).unwrap()),
        }
    }

    pub fn agent(&self, mode: ToolMode) -> Agent {
        let session =
            NewSession { title: "t".into(), workspace: Some(self.workspace.path().to_path_buf()), model: None };
        Agent::create(self.deps(), session, config(mode)).unwrap()
    }

    pub fn events(&self, agent: &Agent) -> Vec<StoredEvent> {
        self.store.events(agent.session_id()).unwrap()
    }

    /// Dependencies as a new process has them after a restart: its own store, service and model
    /// client over the same data directory and server.
    pub fn restarted_deps(&self) -> AgentDeps {
        let store = Arc::new(Store::open(self.dir.path()).unwrap());
        let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
        AgentDeps { store, service, ..self.deps() }
    }

    /// The `messages` of each request the server received.
    pub fn sent(&self) -> Vec<Vec<Value>> {
        self.server.requests().iter().map(|r| r.body["messages"].as_array().unwrap().clone()).collect()
    }
}

pub fn config(mode: ToolMode) -> AgentConfig {
    AgentConfig { questions: QuestionSettings { mode, default_timeout_secs: 120 }, ..AgentConfig::default() }
}

/// Waits until the late reply to `call_id` was admitted and the turn it started has ended.
pub async fn until_answered_late(store: &Store, agent: &Agent, call_id: &str) {
    let admitted = async {
        loop {
            let events = store.events(agent.session_id()).unwrap();
            if project_questions(&events).iter().any(|r| r.call_id == call_id && r.answered_late) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(20), admitted).await.expect("the late reply was admitted");
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.expect("the agent went idle");
}

pub async fn run(agent: &Agent, prompt: &str) {
    agent.steer(prompt).unwrap();
    tokio::time::timeout(Duration::from_secs(20), agent.wait_idle()).await.expect("the agent went idle");
}

pub fn types(events: &[StoredEvent]) -> Vec<&str> {
    events.iter().map(|e| e.event.type_name()).collect()
}

pub fn results(events: &[StoredEvent]) -> Vec<(String, ToolOutcome)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ToolResult { call_id, outcome } => Some((call_id.clone(), outcome.clone())),
            _ => None,
        })
        .collect()
}

pub fn turn_end(events: &[StoredEvent]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            Event::TurnEnded { reason, .. } => Some(reason.to_string()),
            _ => None,
        })
        .unwrap()
}

pub fn last_assistant_text(events: &[StoredEvent]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            Event::AssistantMessage { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap()
}

/// Answers the next foreground question through the service, as the desktop panel would.
pub async fn answer_next(h: &mut Harness, answers: Vec<Answer>) -> InteractionRequest {
    let request = tokio::time::timeout(Duration::from_secs(10), h.requests.recv()).await.unwrap().unwrap();
    h.service.submit_foreground(&request.session_id, &request.call_id, AnswerBatch { answers }).unwrap();
    request
}
