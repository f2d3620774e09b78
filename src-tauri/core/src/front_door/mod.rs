//! The one way every front door talks to a host: the desktop window's commands, `hark tui`,
//! `hark answer`, `hark mcp` and the agents' hooks all call a [`FrontDoor`], whether the host runs in
//! their own process ([`InProcess`]) or in another one reached over its data directory's control
//! socket ([`Remote`]). The socket itself serves every request through the in-process door
//! ([`control_handler`]), so a request means the same thing whichever way it arrives, and an
//! operation is added once: a [`crate::control::Request`] entry, a `Host` function, and a method here.

mod agents;
mod local;
mod remote;
mod serve;

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::stream::BoxStream;

use crate::agent::AgentEvent;
use crate::error::BoundaryError;
use crate::host::{
    AnswerPath, ApprovalRequest, ClientAnswer, ClientAnswers, ClientCall, ClientId, FormReply, FormRequest, Host,
    InboxEntry, Overview, WorkingChoices,
};
use crate::question::AnswerBatch;
use crate::service::{QuestionEvent, SessionQuestions};
use crate::session::{SessionSummary, Transcript};
use crate::tools::QuestionSettings;

pub use agents::{agents_handler, AGENTS_ONLY};
pub use local::InProcess;
pub use remote::{AppStarter, Remote};
pub use serve::control_handler;

pub type Result<T> = std::result::Result<T, BoundaryError>;

/// A new session with its first message.
#[derive(Debug, Clone, Default)]
pub struct Start {
    pub text: String,
    /// The folder it works in (made absolute before it leaves this process).
    pub workspace: Option<PathBuf>,
    /// The front door's name, recorded as who started it ("another program" when it gives none).
    pub by: Option<String>,
    pub choices: WorkingChoices,
}

/// An answer taken: in which session (a typed prefix resolved) and which way it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    pub session_id: String,
    pub path: AnswerPath,
}

/// What a watch hears, in order.
#[derive(Debug, Clone)]
pub enum Watched {
    /// One of the watched session's events (its question events come as [`Watched::Question`]).
    Agent(Box<AgentEvent>),
    /// A question event of any session.
    Question(Box<QuestionEvent>),
    /// Events were dropped: read everything again.
    Lagged,
}

/// A session followed (made live) and every session's questions. The events end when the host
/// goes away (it quit, or the connection to it broke).
pub struct Watch {
    pub session_id: Option<String>,
    pub events: BoxStream<'static, Watched>,
}

/// A timed question's countdown held by this door: the host's deadline waits until the hold is
/// dropped.
pub struct Hold(#[allow(dead_code)] Box<dyn Send + Sync>);

impl Hold {
    fn new(held: impl Send + Sync + 'static) -> Hold {
        Hold(Box::new(held))
    }
}

impl std::fmt::Debug for Hold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Hold")
    }
}

/// A take-over: what was left of the countdown (`None`: the question had none) and the hold.
#[derive(Debug)]
pub struct Attached {
    pub remaining_ms: Option<u64>,
    pub hold: Hold,
}

/// Every operation a front door may ask of a host. Errors are the host's own refusals
/// (`NOT_PENDING`, `REPLY_QUEUED`, ...) or, remotely, why the host could not be reached.
#[async_trait::async_trait]
pub trait FrontDoor: Send + Sync {
    /// The host, when it runs in this process (whose front door then also stops it on leaving).
    fn hosted(&self) -> Option<&Arc<Host>>;

    /// Whether the host runs in another process.
    fn is_remote(&self) -> bool {
        self.hosted().is_none()
    }

    // --- sessions ---

    /// Every session, every waiting question, and `session`'s newest `turns` turns.
    async fn overview(&self, session: Option<&str>, turns: usize) -> Result<Overview>;
    /// Starts a session; its id.
    async fn start(&self, start: Start) -> Result<String>;
    /// The person's next message to `session`.
    async fn send(&self, session: &str, text: &str) -> Result<()>;
    /// Stops the session's running turn; whether one ran.
    async fn stop(&self, session: &str) -> Result<bool>;
    /// Follows `session` (an id or prefix; `None`: none) and every session's questions.
    async fn watch(&self, session: Option<&str>) -> Result<Watch>;
    /// Every session, newest first.
    async fn sessions(&self) -> Result<Vec<SessionSummary>>;
    /// `session`'s (an id or prefix, as for every op below) transcript; with `turns`, its newest turns.
    async fn transcript(&self, session: &str, turns: Option<usize>) -> Result<Transcript>;
    /// Runs `session`'s last turn again after it failed.
    async fn retry(&self, session: &str) -> Result<()>;

    // --- questions ---

    /// Answers a question of `session` (an id or prefix): `path` `None` takes whichever applies.
    async fn answer(
        &self,
        session: &str,
        call_id: &str,
        answers: AnswerBatch,
        path: Option<AnswerPath>,
    ) -> Result<Answered>;
    /// Closes a waiting question unanswered.
    async fn cancel(&self, session: &str, call_id: &str) -> Result<()>;
    /// A surface's countdown ran out: the timed question continues without an answer.
    async fn expire(&self, session: &str, call_id: &str) -> Result<()>;
    /// Takes over a timed question's countdown for as long as the hold is kept.
    async fn attach(&self, session: &str, call_id: &str) -> Result<Attached>;
    /// The person declined an MCP server's form (`ASK_DECLINED`; the server may go on without it).
    async fn decline(&self, session: &str, call_id: &str) -> Result<()>;
    /// `session`'s waiting questions, with the revision that orders this read against the events.
    async fn questions(&self, session: &str) -> Result<SessionQuestions>;
    /// Every waiting question of every session, in the inbox's order.
    async fn inbox(&self) -> Result<Vec<InboxEntry>>;

    // --- outside agents ---

    /// The question settings an outside agent's calls get unless it chooses its own.
    async fn settings(&self) -> Result<QuestionSettings>;
    /// An outside agent's `ask_user_question` call; returns when the question ends. Dropping the
    /// future withdraws the question, as an agent that went away does.
    async fn ask(
        &self,
        client: &ClientId,
        call_id: Option<String>,
        settings: Option<QuestionSettings>,
        arguments: serde_json::Value,
    ) -> Result<ClientAnswer>;
    /// The agent's late answers not handed over before (and those to `calls`), recorded as handed
    /// over once they reached it.
    async fn answers(&self, client: &ClientId, calls: Vec<String>) -> Result<ClientAnswers>;
    /// Where one call of the agent's session stands.
    async fn call(&self, client: &ClientId, call_id: &str) -> Result<ClientCall>;
    /// The agent takes back a continued question of its session.
    async fn withdraw(&self, client: &ClientId, call_id: &str, reason: &str) -> Result<()>;
    /// An outside agent's permission request; returns when the person answered (the batch, read
    /// with [`crate::question::Intent::approval_verdict`]) and fails when it ended otherwise.
    /// Dropping the future ends it unanswered, as an agent that stopped waiting does.
    async fn approve(&self, client: &ClientId, request: ApprovalRequest) -> Result<ClientAnswer>;
    /// The agent reports a tool call settled elsewhere: its approvals for it end unanswered.
    async fn end_approvals(&self, client: &ClientId, request: ApprovalRequest, reason: &str) -> Result<()>;
    /// An MCP server's form the outside agent received; returns how the person ended it (accept
    /// with the typed content, decline, or cancel when they closed it) and fails when it ended
    /// otherwise. Dropping the future ends it unanswered, as an agent that stopped waiting does.
    async fn form(&self, client: &ClientId, request: FormRequest) -> Result<FormReply>;
}
