//! The data the front door's operations carry, over the socket and in process alike: what a
//! front door reads at once, which way an answer went, and who an outside agent is and what its
//! questions came to. The host makes them; the socket only carries them.

use serde::{Deserialize, Serialize};

use crate::question::AnswerBatch;
use crate::service::{ContinuedQuestion, InteractionRequest, QuestionView};
use crate::session::{SessionSummary, Transcript};

/// What a front door that shows one session at a time reads at once (`hark tui`, here or through
/// the control socket): every session, every waiting question, and the shown session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Overview {
    pub sessions: Vec<SessionSummary>,
    /// Every session's foreground questions, oldest first.
    pub waiting: Vec<InteractionRequest>,
    pub shown: Option<ShownSession>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShownSession {
    pub id: String,
    /// Its newest turns (as many as were asked for).
    pub transcript: Transcript,
    pub busy: bool,
    /// How its model is named, once its agent is live.
    pub model_label: Option<String>,
    pub continued: Vec<ContinuedQuestion>,
}

/// Which way an answer goes: to the waiting call, or late to a continued question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum AnswerPath {
    Foreground,
    Late,
}

/// Who asks: the name the MCP client gave in its `initialize`, and the folder it works in, which
/// name its session; and which run of it asks (`asker`: the `hark mcp` process's own id, a hook's
/// agent session id), whose late answers are its own. Two agents with one name in one folder share
/// the session but never each other's answers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClientId {
    pub name: String,
    pub cwd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asker: Option<String>,
}

/// How a client's question ended for it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientAnswer {
    pub session_id: String,
    pub call_id: String,
    /// What the client's model reads: the answers, or the pending text.
    pub text: String,
    /// Answered now; `None` when the question continued (it returned pending).
    pub answers: Option<AnswerBatch>,
}

/// A late answer handed to the client by `get_answers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LateAnswer {
    pub call_id: String,
    /// The late-answer message, as Hark's own agent would read it.
    pub text: String,
    pub answers: AnswerBatch,
}

/// What `get_answers` returns: the late answers not returned before, and the questions that still wait.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientAnswers {
    pub session_id: String,
    pub answers: Vec<LateAnswer>,
    pub waiting: Vec<String>,
}

/// Where one call of a client session stands (what `Host::client_call` reads).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ClientCall {
    /// The question waits: live, or continued after its timeout.
    Waiting { session_id: String },
    /// The person answered, in time or late; `text` is what the client's model reads.
    Answered { session_id: String, text: String, answers: AnswerBatch, late: bool },
    /// No answer will come: the question was closed, withdrawn or ended with its asker.
    Ended { session_id: String },
}

/// One waiting question as the inbox lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct InboxEntry {
    #[serde(flatten)]
    pub question: QuestionView,
    /// Who asks: "Hark" for its own agent, else the outside agent's name (made plain).
    pub asker: String,
    /// Whether Hark's own agent asks (an outside agent may call itself anything, "Hark" too).
    pub own_agent: bool,
    pub session_title: String,
}

/// One tool call an agent asks permission for, as its hook received it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalRequest {
    /// The tool, as the agent names it (`Bash`, `Edit`, `mcp__server__tool`, ...).
    pub tool: String,
    /// The tool call's input, as the agent sent it.
    pub input: serde_json::Value,
    /// The rules the agent offered to keep allowing (Claude Code's `permission_suggestions`);
    /// `null` when it offered none.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub suggestions: serde_json::Value,
}

/// An MCP server's form that an outside agent received (its `elicitation/create`), as the agent's
/// hook passes it on: which server asks, why, and the fields it wants (or, in URL mode, the link).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormRequest {
    /// The MCP server's name, as the agent knows it.
    pub server: String,
    pub message: String,
    /// `form` (the default) or `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The link a URL-mode form asks the person to open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// The JSON schema of the fields a form asks for, as the server sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<serde_json::Value>,
}

/// How an outside agent's form ended in Hark: what goes back to the server through the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormReply {
    pub session_id: String,
    pub call_id: String,
    /// `accept`, `decline` or `cancel`, as MCP names them.
    pub action: String,
    /// The typed values of an accepted form (absent for a form without fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<serde_json::Value>,
}
