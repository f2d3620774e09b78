//! The agent loop: streams a model step, runs its tool calls, records everything in the
//! session log, and repeats until the model stops. Tauri-free: front doors subscribe to
//! [`AgentEvent`]s and bridge them (the desktop to a Channel, the CLI to stdout).
//!
//! For the loop, `ask_user_question` is just a tool call that may take a while and may come back
//! pending. Late answers reach it as steered user messages from the service, admitted at the next
//! step boundary (or starting a turn when idle) like any message the user types.
//!
//! Every message waiting for a step boundary is already in the session log as `inbox/queued` (the
//! service records late answers, [`Agent::steer`] typed ones), so the in-memory queue is only a
//! copy: a Stop leaves it for the next turn, and a Quit or a crash loses nothing, because opening
//! the session queues again whatever the log says still waits.
//!
//! Desktop usage: [`Agent::create`] or [`Agent::open`] (one per open session), [`Agent::steer`] to
//! send, [`Agent::abort`], [`Agent::subscribe`]; answers go to the [`UserQuestionService`].

mod compact;
mod context;
mod driver;
#[cfg(test)]
mod session_tests;
mod step;

use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::sync::{broadcast, watch, Notify};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use crate::history::{history, outcome_text, UNKNOWN_OUTCOME_TEXT};
pub use crate::open_session::AgentEvent;
pub use context::{history_keep_tokens, request_tokens, DEFAULT_CONTEXT_WINDOW_TOKENS, DEFAULT_REPLY_RESERVE_TOKENS};

use crate::error::CodedError;
use crate::mcp::{Asker, McpConfig, McpServers};
use crate::model::{ModelProvider, ModelRequest};
use crate::open_session::Session;
use crate::question::AnswerBatch;
use crate::service::{lock, Responded, ServiceError, SteerMessage, UserQuestionService};
use crate::session::{Event, MessageSource, ModelRef, SessionId, Store, StoreError};
use crate::tools::QuestionSettings;

/// The request for the session's conversation as it stands, fitted to `config`'s window.
pub(crate) fn request_of(session: &Session, config: &AgentConfig, tools: Vec<serde_json::Value>) -> ModelRequest {
    session.with_folds(|f| context::request_for(config, tools, f.history()))
}

/// The default bound on model steps in one turn.
pub const DEFAULT_STEP_LIMIT: u32 = 25;

/// What every step tells the model about its situation. Kept short: the tools describe themselves.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are Hark, a helpful agent. When a decision only the user can \
make blocks you, ask with ask_user_question. If a question comes back pending, continue only with work that \
does not depend on the answer; never treat silence as consent. Workspace tools, when offered, work on the \
user's chosen folder only.";

/// This process's run id: recorded in `turn/started` so crash repair can tell a dead run's turns.
pub fn run_id() -> &'static str {
    static RUN_ID: OnceLock<String> = OnceLock::new();
    RUN_ID.get_or_init(|| uuid::Uuid::new_v4().to_string())
}

/// What an agent shares with the rest of the process.
#[derive(Clone)]
pub struct AgentDeps {
    pub store: Arc<Store>,
    pub service: UserQuestionService,
    pub model: Arc<dyn ModelProvider>,
}

#[derive(Debug, Clone)]
pub struct AgentConfig {
    pub questions: QuestionSettings,
    /// Plan first: the agent gets `submit_plan`, and tools that change the workspace are refused
    /// until the person approves a plan.
    pub plan_first: bool,
    /// Programmatic tool calls: the model gets `run_code` (and `submit_plan` when plan first) and
    /// reaches the other tools from its scripts.
    pub ptc: bool,
    pub step_limit: u32,
    /// Sent first in every request; `None` sends none.
    pub system_prompt: Option<String>,
    /// MCP servers whose tools the agent is offered; they start at the session's first turn.
    pub mcp: Arc<McpConfig>,
    /// The model's context window in (estimated) tokens: every request, with the reply's reserve,
    /// is fitted into it. A server that turns out to hold less says so, and the session then uses
    /// what it holds.
    pub context_window_tokens: u32,
    /// Kept free for the reply inside the window. Keep it at least the provider's `max_tokens`
    /// (the OpenAI provider sends 8192 by default), which servers count against the window too.
    pub reply_reserve_tokens: u32,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            questions: QuestionSettings::default(),
            plan_first: false,
            ptc: false,
            mcp: Arc::default(),
            step_limit: DEFAULT_STEP_LIMIT,
            system_prompt: Some(DEFAULT_SYSTEM_PROMPT.to_string()),
            context_window_tokens: DEFAULT_CONTEXT_WINDOW_TOKENS,
            reply_reserve_tokens: DEFAULT_REPLY_RESERVE_TOKENS,
        }
    }
}

/// A new session's `session/created` fields.
#[derive(Debug, Clone, Default)]
pub struct NewSession {
    pub title: String,
    pub workspace: Option<PathBuf>,
    pub model: Option<ModelRef>,
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the agent of this session has stopped")]
    Closed,
}

impl AgentError {
    pub fn code(&self) -> &'static str {
        match self {
            AgentError::Store(e) => e.code(),
            AgentError::Closed => "AGENT_CLOSED",
        }
    }
}

impl CodedError for AgentError {
    fn name(&self) -> &str {
        match self {
            AgentError::Store(e) => e.name(),
            AgentError::Closed => "AgentError",
        }
    }
    fn code(&self) -> &str {
        AgentError::code(self)
    }
}

/// What waits for the next step boundary.
#[derive(Debug, Clone)]
enum Input {
    /// A message recorded as `inbox/queued` (typed, or a late answer), admitted under its id.
    Message(SteerMessage),
    /// Run a turn on the history as it stands (after a model error), admitting nothing new.
    Retry,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Input>,
    /// Message ids this agent admitted: a late reply can reach the agent twice (from the log on open
    /// and from the service), and must be admitted once (the session knows the ones admitted before).
    admitted: HashSet<String>,
    turn_abort: Option<CancellationToken>,
    closed: bool,
}

struct Shared {
    deps: AgentDeps,
    config: AgentConfig,
    session_id: SessionId,
    instance_id: String,
    workspace: Option<PathBuf>,
    session: Arc<Session>,
    mcp: McpServers,
    state: Mutex<State>,
    wake: Notify,
    /// `true` while a turn runs or input waits for one.
    busy: watch::Sender<bool>,
}

impl Shared {
    fn emit(&self, event: AgentEvent) {
        self.session.emit(event);
    }

    fn push(&self, input: Input) -> Result<(), AgentError> {
        self.push_recorded(input, None)
    }

    /// Queues `input`, appending `record` first. Both happen under the state lock, so a closed agent
    /// records nothing, and typed messages wait in the order the log has them (which is the order a
    /// reopened session admits them in).
    fn push_recorded(&self, input: Input, record: Option<Event>) -> Result<(), AgentError> {
        {
            let mut state = lock(&self.state);
            if state.closed {
                return Err(AgentError::Closed);
            }
            if let Input::Message(message) = &input {
                let queued =
                    state.queue.iter().any(|i| matches!(i, Input::Message(m) if m.message_id == message.message_id));
                let admitted =
                    state.admitted.contains(&message.message_id) || self.session.reply_admitted(&message.message_id);
                if queued || admitted {
                    return Ok(());
                }
            }
            if let Some(event) = record {
                driver::append(self, event)?;
            }
            state.queue.push_back(input);
            // Under the lock, like the driver's write: set outside it, a turn that took this input and
            // ended in between would have its `false` overwritten, leaving `wait_idle` stuck.
            self.busy.send_replace(true);
        }
        self.wake.notify_one();
        Ok(())
    }
}

/// The live root agent of one session. Dropping it stops the agent (aborting a running turn).
pub struct Agent {
    shared: Arc<Shared>,
    tasks: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("session_id", &self.shared.session_id).finish()
    }
}

impl Agent {
    /// Creates a session and opens its agent.
    pub fn create(deps: AgentDeps, session: NewSession, config: AgentConfig) -> Result<Agent, AgentError> {
        let workspace = session.workspace.as_ref().map(|p| p.to_string_lossy().into_owned());
        let live = Session::create(
            Arc::clone(&deps.store),
            &session.title,
            workspace.as_deref(),
            session.model,
            history_keep_tokens(&config),
        )?;
        Ok(Agent::attach(deps, live, config).0)
    }

    /// Opens an existing session (see [`Session::open`]), loads its continued questions into the
    /// service, and becomes the session's live root. Call inside a tokio runtime.
    pub fn open(deps: AgentDeps, session_id: &str, config: AgentConfig) -> Result<Agent, AgentError> {
        Agent::open_subscribed(deps, session_id, config).map(|(agent, _)| agent)
    }

    /// [`open`](Self::open) with a subscription taken before the agent can start a turn, so a
    /// front door sees the whole continuation of a reply that was already queued.
    pub fn open_subscribed(
        deps: AgentDeps,
        session_id: &str,
        config: AgentConfig,
    ) -> Result<(Agent, broadcast::Receiver<AgentEvent>), AgentError> {
        let live = Session::open(Arc::clone(&deps.store), session_id, history_keep_tokens(&config))?;
        Ok(Agent::attach(deps, live, config))
    }

    /// Becomes the live root of an open session: its continued questions go to the service, and what
    /// an earlier run accepted and never admitted (it was stopped, quit or killed first) is queued
    /// again. Returns a subscription taken before any turn can start. Call inside a tokio runtime.
    pub fn attach(
        deps: AgentDeps,
        session: Arc<Session>,
        config: AgentConfig,
    ) -> (Agent, broadcast::Receiver<AgentEvent>) {
        let session_id = session.id().to_string();
        let instance_id = uuid::Uuid::new_v4().to_string();
        let mut steer = deps.service.set_live_root(&session_id, &instance_id);
        // The service does not re-send a reply it only knows the id of: the log's inbox is the queue.
        let queue: VecDeque<Input> = session
            .queued_messages()
            .into_iter()
            .map(|m| Input::Message(SteerMessage { message_id: m.message_id, text: m.text, source: m.source }))
            .collect();
        let busy = !queue.is_empty();
        let asker = Asker {
            service: deps.service.clone(),
            caller: crate::service::Caller::root(session_id.clone(), instance_id.clone()),
            session: Arc::clone(&session),
        };
        let mcp = McpServers::new(Arc::clone(&config.mcp), session.workspace(), Some(asker));
        let shared = Arc::new(Shared {
            deps: deps.clone(),
            config,
            mcp,
            session_id: session_id.clone(),
            instance_id,
            workspace: session.workspace(),
            session,
            state: Mutex::new(State { queue, ..State::default() }),
            wake: Notify::new(),
            busy: watch::channel(busy).0,
        });
        if busy {
            shared.wake.notify_one();
        }
        // Subscribed before any task runs, for `open_subscribed`.
        let forward_steer = {
            let shared = Arc::clone(&shared);
            tokio::spawn(async move {
                while let Some(message) = steer.recv().await {
                    if shared.push(Input::Message(message)).is_err() {
                        break;
                    }
                }
            })
        };
        let forward_questions = crate::open_session::forward_questions(&deps.service, Arc::clone(&shared.session));
        let subscription = shared.session.subscribe();
        let driver = tokio::spawn(driver::run(Arc::clone(&shared)));
        (Agent { shared, tasks: vec![driver, forward_steer, forward_questions] }, subscription)
    }

    /// The open session this agent runs.
    pub fn session(&self) -> &Arc<Session> {
        &self.shared.session
    }

    pub fn session_id(&self) -> &str {
        &self.shared.session_id
    }

    /// The id this agent asks questions under (the session's live root).
    pub fn instance_id(&self) -> &str {
        &self.shared.instance_id
    }

    pub fn workspace(&self) -> Option<&std::path::Path> {
        self.shared.workspace.as_deref()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<AgentEvent> {
        self.shared.session.subscribe()
    }

    /// A user message: admitted at the next step boundary of the running turn, or starts a turn.
    /// It is recorded as `inbox/queued` before this returns, so an accepted message survives a Stop
    /// (the next turn admits it), a Quit and a crash (the next open admits it). Fails with a store
    /// error when it could not be recorded, and then nothing was queued.
    pub fn steer(&self, text: impl Into<String>) -> Result<(), AgentError> {
        let message = SteerMessage {
            message_id: uuid::Uuid::new_v4().to_string(),
            text: text.into(),
            source: MessageSource::typed(),
        };
        let queued = Event::InboxQueued {
            message_id: message.message_id.clone(),
            text: message.text.clone(),
            source: message.source.clone(),
        };
        self.shared.push_recorded(Input::Message(message), Some(queued))
    }

    /// Runs another turn on the recorded history without a new message: what "Retry" after a model
    /// error means. Ignored while a retry already waits.
    pub fn retry(&self) -> Result<(), AgentError> {
        if lock(&self.shared.state).queue.iter().any(|i| matches!(i, Input::Retry)) {
            return Ok(());
        }
        self.shared.push(Input::Retry)
    }

    /// Cancels the running turn and everything it awaits. Returns whether a turn was running.
    /// Messages waiting for a step boundary are not dropped: they start the next turn at once.
    pub fn abort(&self) -> bool {
        let state = lock(&self.shared.state);
        match &state.turn_abort {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Answers one of this session's questions from any surface: the foreground if it still waits
    /// there, else the late path (the reply is then admitted by this agent).
    pub fn respond(&self, call_id: &str, answers: AnswerBatch) -> Result<Responded, ServiceError> {
        self.shared.deps.service.respond(&self.shared.session_id, call_id, answers)
    }

    /// Whether a turn runs or input waits for one.
    pub fn is_busy(&self) -> bool {
        *self.shared.busy.borrow()
    }

    /// Resolves once no turn runs and no input waits.
    pub async fn wait_idle(&self) {
        let mut rx = self.shared.busy.subscribe();
        let _ = rx.wait_for(|busy| !busy).await;
    }

    /// Stops the agent: aborts a running turn, waits until its end is recorded, and gives up the
    /// session's live root.
    pub async fn close(mut self) {
        self.stop();
        if let Some(driver) = self.tasks.first_mut() {
            let _ = driver.await;
        }
    }

    fn stop(&self) {
        {
            let mut state = lock(&self.shared.state);
            state.closed = true;
            if let Some(token) = &state.turn_abort {
                token.cancel();
            }
        }
        self.shared.wake.notify_one();
        self.shared.mcp.stop();
        self.shared.deps.service.clear_live_root(&self.shared.session_id, &self.shared.instance_id);
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.stop();
        // The driver finishes recording the aborted turn on its own; the forwarders only relay.
        for task in self.tasks.iter().skip(1) {
            task.abort();
        }
    }
}
