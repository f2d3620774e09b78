//! Tools the agent can call: each a [`Tool`] with a name, a model-facing definition and a typed
//! input. A call's JSON arguments are parsed once into that input ([`ToolHandler::prepare`]); the one
//! parse gives both the arguments the log records and the run, or the structured error the model
//! reads. The agent loop knows nothing about questions: for it, `ask_user_question` is just a tool
//! call that may take a while and may come back `pending`.

mod ask_user;
mod error;
mod plan;
mod registry;
mod withdraw;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;

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

/// A successful tool result. A pending one (see [`pending`](Self::pending)) is not final: the call's
/// subject (a question) stays open and may settle later by other means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: String,
    /// The answers a question (or a plan review) was settled with, as given: recorded beside the
    /// content and handed to an outside agent as they are, never read back out of the text.
    pub answers: Option<AnswerBatch>,
    /// When a pending result's wait ended, recorded beside its text for the same reason; only a
    /// pending result has it.
    pub since: Option<chrono::DateTime<chrono::Utc>>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        ToolOutput { content: content.into(), answers: None, since: None }
    }

    /// A question's result: the text the model reads and the answers it says.
    pub fn answered(content: impl Into<String>, answers: AnswerBatch) -> Self {
        ToolOutput { content: content.into(), answers: Some(answers), since: None }
    }

    /// A question's wait ended unanswered: its pending result as the model reads it, and when.
    pub fn continued(result: &PendingResult) -> Self {
        ToolOutput { content: result.text(), answers: None, since: Some(result.since) }
    }

    /// Whether the call's wait ended without a final result.
    pub fn pending(&self) -> bool {
        self.since.is_some()
    }
}

/// The recorded `tool/result` outcome of a finished call.
pub fn outcome_of(result: &Result<ToolOutput, ToolError>) -> ToolOutcome {
    match result {
        Ok(out) if out.pending() => ToolOutcome::Pending { content: out.content.clone(), since: out.since },
        Ok(out) => ToolOutcome::Ok { content: out.content.clone(), answers: out.answers.clone() },
        Err(e) => ToolOutcome::Error { error: e.boundary() },
    }
}

/// A tool with a typed input, in the shape of Zed's `AgentTool`: the model's arguments are parsed
/// once, and that one parse gives both what the log records for the call and what runs.
pub trait Tool: Send + Sync + 'static {
    type Input: Send + 'static;

    fn name(&self) -> &str;
    /// `{"name", "description", "parameters"}` as offered to the model.
    fn definition(&self) -> serde_json::Value;
    /// Whether a call may change the workspace (write, delete, run): in a plan-first session such
    /// tools wait for an approved plan. Yes unless a tool says otherwise, so a new tool is gated until
    /// someone decides it only reads.
    fn changes_workspace(&self) -> bool {
        true
    }
    /// The model's arguments as this tool's input, or the structured error the model reads. `args`
    /// is model output: untrusted, possibly not even the right JSON type.
    fn parse(&self, args: &serde_json::Value) -> Result<Self::Input, ToolError>;
    /// The arguments to record for a call whose arguments parsed: a tool that accepts lenient forms
    /// records the strict form it understood them as, so whatever reads the log later (projections,
    /// the replayed history) sees the call that ran. Others record what the model sent.
    fn recorded(&self, _input: &Self::Input, args: serde_json::Value) -> serde_json::Value {
        args
    }
    fn run(
        self: Arc<Self>,
        ctx: ToolContext,
        call_id: String,
        input: Self::Input,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;
}

/// A tool as the registry holds it, whatever its input type.
pub trait ToolHandler: Send + Sync {
    fn name(&self) -> &str;
    fn definition(&self) -> serde_json::Value;
    fn changes_workspace(&self) -> bool;
    /// Parses a call's arguments once: what to record, and the run (or why it cannot run).
    fn prepare(self: Arc<Self>, args: serde_json::Value) -> Prepared;

    /// Prepares and runs a call in one go, past any plan gate: for tests and benches of one tool.
    fn handle(
        self: Arc<Self>,
        ctx: &ToolContext,
        call_id: &str,
        args: serde_json::Value,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let prepared = self.prepare(args);
        let (ctx, call_id) = (ctx.clone(), call_id.to_string());
        Box::pin(async move { prepared.run(&ctx, &call_id).await })
    }
}

impl<T: Tool> ToolHandler for T {
    fn name(&self) -> &str {
        Tool::name(self)
    }

    fn definition(&self) -> serde_json::Value {
        Tool::definition(self)
    }

    fn changes_workspace(&self) -> bool {
        Tool::changes_workspace(self)
    }

    fn prepare(self: Arc<Self>, args: serde_json::Value) -> Prepared {
        match self.parse(&args) {
            Ok(input) => {
                let arguments = self.recorded(&input, args);
                let gated = Tool::changes_workspace(&*self);
                let run: Run = Box::new(move |ctx, call_id| self.run(ctx, call_id, input));
                Prepared { arguments, gated, run: Ok(run) }
            }
            Err(refused) => Prepared { gated: Tool::changes_workspace(&*self), ..Prepared::refused(args, refused) },
        }
    }
}

type Run = Box<dyn FnOnce(ToolContext, String) -> BoxFuture<'static, Result<ToolOutput, ToolError>> + Send>;

/// A call whose arguments were parsed: what to record for it, and its run.
pub struct Prepared {
    /// The arguments the log records for the call.
    pub arguments: serde_json::Value,
    /// Whether its tool changes the workspace, so that it waits for an approved plan before its own
    /// refusal of the arguments is heard (the registry's gate reads it).
    gated: bool,
    run: Result<Run, ToolError>,
}

impl Prepared {
    /// A call that will not run, whatever the plan: recorded with `arguments` as they came, answered
    /// with `error` (arguments that are not JSON, a tool this turn does not offer).
    pub fn refused(arguments: serde_json::Value, error: ToolError) -> Prepared {
        Prepared { arguments, gated: false, run: Err(error) }
    }

    /// Whether the call waits for an approved plan in a plan-first session.
    pub fn gated(&self) -> bool {
        self.gated
    }

    /// Why the call cannot run, when its arguments were refused.
    pub fn refusal(&self) -> Option<&ToolError> {
        self.run.as_ref().err()
    }

    /// Runs the call past any gate: the registry's [`run`](ToolRegistry::run) is the way in for
    /// calls that may be gated.
    pub(crate) async fn run(self, ctx: &ToolContext, call_id: &str) -> Result<ToolOutput, ToolError> {
        (self.run?)(ctx.clone(), call_id.to_string()).await
    }
}
