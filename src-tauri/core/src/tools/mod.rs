//! Tools the agent can call, in the shape of openai/codex's handlers: each tool has a name, a
//! model-facing definition, and an async `handle` that turns JSON arguments into an output or a
//! structured error. The agent loop knows nothing about questions: for it, `ask_user_question` is
//! just a tool call that may take a while and may come back `pending`.

mod ask_user;
mod error;
mod plan;
mod registry;
mod withdraw;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

pub use crate::service::BoxFuture;
pub use crate::tool_definition::definition_of;
pub use ask_user::{AskUserQuestionTool, OnTimeout, QuestionSettings};
pub use error::ToolError;
pub use plan::{PlanApproval, SubmitPlanTool};
pub use registry::ToolRegistry;
pub use withdraw::{WithdrawArguments, WithdrawQuestionTool, WITHDRAW_TOOL_NAME};

use crate::error::CodedError;
use crate::question::{AnswerBatch, PendingResult};
use crate::service::Caller;
use crate::session::ToolOutcome;

/// What a tool call runs in: who calls, the turn's abort signal, the session's folder.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub caller: Caller,
    pub abort: CancellationToken,
    /// The folder workspace tools may touch; `None` when the session has none.
    pub workspace: Option<PathBuf>,
}

impl ToolContext {
    pub fn session_id(&self) -> &str {
        &self.caller.session_id
    }
}

/// A successful tool result. `pending` marks a result that is not final: the call's subject (a
/// question) stays open and may settle later by other means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: String,
    pub pending: bool,
    /// The answers a question (or a plan review) was settled with, as given: recorded beside the
    /// content and handed to an outside agent as they are, never read back out of the text.
    pub answers: Option<AnswerBatch>,
    /// When a pending result's wait ended, recorded beside its text for the same reason.
    pub since: Option<chrono::DateTime<chrono::Utc>>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput { content: content.into(), pending: false, answers: None, since: None }
    }

    /// A question's result: the text the model reads and the answers it says.
    pub fn answered(content: impl Into<String>, answers: AnswerBatch) -> Self {
        ToolOutput { content: content.into(), pending: false, answers: Some(answers), since: None }
    }

    pub fn pending(content: impl Into<String>) -> Self {
        ToolOutput { content: content.into(), pending: true, answers: None, since: None }
    }

    /// A question's wait ended unanswered: its pending result as the model reads it, and when.
    pub fn continued(result: &PendingResult) -> Self {
        ToolOutput { content: result.text(), pending: true, answers: None, since: Some(result.since) }
    }
}

/// The recorded `tool/result` outcome of a finished call.
pub fn outcome_of(result: &Result<ToolOutput, ToolError>) -> ToolOutcome {
    match result {
        Ok(out) if out.pending => ToolOutcome::Pending { content: out.content.clone(), since: out.since },
        Ok(out) => ToolOutcome::Ok { content: out.content.clone(), answers: out.answers.clone() },
        Err(e) => ToolOutcome::Error { error: e.boundary() },
    }
}

pub trait ToolHandler: Send + Sync {
    fn name(&self) -> &str;

    /// `{"name", "description", "parameters"}` as offered to the model.
    fn definition(&self) -> serde_json::Value;

    /// The arguments to record for a call: a tool that accepts lenient forms returns the strict form
    /// it understood them as, so whatever reads the log later (projections, the replayed history)
    /// sees the call that ran. Arguments the tool refuses, and those of tools without leniencies,
    /// come back unchanged.
    fn canonical_arguments(&self, args: serde_json::Value) -> serde_json::Value {
        args
    }

    /// Whether a call may change the workspace (write, delete, run): in a plan-first session such
    /// tools wait for an approved plan. Yes unless a tool says otherwise, so a new tool is gated until
    /// someone decides it only reads.
    fn changes_workspace(&self) -> bool {
        true
    }

    /// `args` is model output: untrusted, possibly not even the right JSON type.
    fn handle<'a>(
        &'a self,
        ctx: &'a ToolContext,
        call_id: &'a str,
        args: serde_json::Value,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>>;
}
