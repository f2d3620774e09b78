//! The harness of the agent tests: the fake OpenAI-compatible server on 127.0.0.1 (strict unless a
//! test asks otherwise), a real store and question service, and readers of what the agent recorded
//! and sent.

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
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;

pub use crate::server::{chunk, text_reply, tool_reply, Ending, Reply, Strict, TestServer};
use crate::wait::{Events, WAIT};

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
    /// A harness whose server checks every request as OpenAI and DeepSeek do, with the default
    /// window (see [`Strict::default`]).
    pub async fn new(replies: Vec<Reply>) -> Harness {
        Harness::on(TestServer::start(replies).await)
    }

    /// The same with the server's own limits.
    pub async fn strict(replies: Vec<Reply>, strict: Strict) -> Harness {
        Harness::on(TestServer::start_strict(replies, strict).await)
    }

    /// A harness whose server answers whatever it is sent (see [`TestServer::lenient`]).
    pub async fn lenient(replies: Vec<Reply>) -> Harness {
        Harness::on(TestServer::lenient(replies).await)
    }

    fn on(server: TestServer) -> Harness {
        let dir = tempfile::tempdir().expect("a data directory");
        let workspace = tempfile::tempdir().expect("a workspace");
        let store = Arc::new(Store::open(dir.path()).expect("open the store"));
        let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
        let (provider, requests) = ForwardingProvider::new();
        let registration = service.register(Arc::new(provider)).expect("register the question surface");
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
            model: Arc::new(OpenAiProvider::new(config).expect("a model client")),
        }
    }

    pub fn agent(&self, mode: ToolMode) -> Agent {
        let session =
            NewSession { title: "t".into(), workspace: Some(self.workspace.path().to_path_buf()), model: None };
        Agent::create(self.deps(), session, config(mode)).expect("create the agent")
    }

    pub fn events(&self, agent: &Agent) -> Vec<StoredEvent> {
        self.store.events(agent.session_id()).expect("read the session log")
    }

    /// Dependencies as a new process has them after a restart: its own store, service and model
    /// client over the same data directory and server.
    pub fn restarted_deps(&self) -> AgentDeps {
        let store = Arc::new(Store::open(self.dir.path()).expect("reopen the store"));
        let service = UserQuestionService::new(store.clone() as Arc<dyn SessionLog>);
        AgentDeps { store, service, ..self.deps() }
    }

    /// The `messages` of each request the server received.
    pub fn sent(&self) -> Vec<Vec<Value>> {
        self.server
            .requests()
            .iter()
            .map(|r| r.body["messages"].as_array().expect("a request with messages").clone())
            .collect()
    }
}

pub fn config(mode: ToolMode) -> AgentConfig {
    AgentConfig {
        questions: QuestionSettings { mode, default_timeout_secs: 120, stop_turn: false },
        ..AgentConfig::default()
    }
}

/// Waits until the late reply to `call_id` was admitted and the turn it started has ended. The
/// admission is recorded in the session log, which the agent announces event by event, so the
/// projection is read again only when something was recorded.
pub async fn until_answered_late(store: &Store, agent: &Agent, call_id: &str) {
    let mut events = Events::new(agent.subscribe());
    let admitted = || {
        let log = store.events(agent.session_id()).expect("read the session log");
        project_questions(&log).iter().any(|r| r.call_id == call_id && r.answered_late)
    };
    events.wait_until(&format!("the late reply to {call_id} to be admitted"), admitted).await;
    tokio::time::timeout(WAIT, agent.wait_idle()).await.expect("the agent went idle");
}

pub async fn run(agent: &Agent, prompt: &str) {
    agent.steer(prompt).expect("the prompt was recorded");
    tokio::time::timeout(WAIT, agent.wait_idle()).await.expect("the agent went idle");
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
        .expect("a turn ended")
}

pub fn last_assistant_text(events: &[StoredEvent]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            Event::AssistantMessage { text, .. } => Some(text.clone()),
            _ => None,
        })
        .expect("an assistant message")
}

/// Answers the next foreground question through the service, as the desktop panel would.
pub async fn answer_next(h: &mut Harness, answers: Vec<Answer>) -> InteractionRequest {
    let request = tokio::time::timeout(Duration::from_secs(10), h.requests.recv())
        .await
        .expect("a question within 10 s")
        .expect("the question surface is open");
    h.service
        .submit_foreground(&request.session_id, &request.call_id, AnswerBatch { answers })
        .expect("submit the answers");
    request
}
