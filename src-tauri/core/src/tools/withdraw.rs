//! `withdraw_question`: the agent takes back a question it asked earlier whose call returned
//! pending, once it no longer needs the answer, so the person is not left answering a stale one.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{definition_of, BoxFuture, Tool, ToolContext, ToolError, ToolOutput};
use crate::error::CodedError;
use crate::question::{UserInteractionError, WithdrawnResult, MAX_WITHDRAW_REASON_CHARS};
use crate::service::{ServiceError, UserQuestionService};

pub const WITHDRAW_TOOL_NAME: &str = "withdraw_question";

/// Withdraw a question you asked earlier with ask_user_question whose call returned pending, when you
/// no longer need the answer (you found it out, or the work it was for is gone). The question leaves
/// the user's inbox and a later answer to it is refused. Only questions still waiting can be withdrawn;
/// if the user already answered, the answer reaches you instead.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WithdrawArguments {
    /// The call_id of the pending ask_user_question call.
    #[schemars(length(min = 1))]
    pub call_id: String,
    /// Why the answer is no longer needed, in a few words; the user sees it.
    #[schemars(length(min = 1, max = MAX_WITHDRAW_REASON_CHARS))]
    pub reason: String,
}

#[derive(Debug, Clone)]
pub struct WithdrawQuestionTool {
    service: UserQuestionService,
}

impl WithdrawQuestionTool {
    pub fn new(service: UserQuestionService) -> Self {
        WithdrawQuestionTool { service }
    }

    fn withdraw(&self, ctx: &ToolContext, args: WithdrawArguments) -> Result<ToolOutput, ToolError> {
        // The caller's own session: a call id of another session is simply not found there.
        self.service.withdraw(ctx.session_id(), &args.call_id, &args.reason).map_err(|e| match e {
            ServiceError::Interaction(e) => ToolError::Interaction(e),
            other => ToolError::Failed { code: other.code().to_string(), message: other.message() },
        })?;
        Ok(ToolOutput::ok(WithdrawnResult { call_id: args.call_id, reason: args.reason.trim().to_string() }.text()))
    }
}

impl Tool for WithdrawQuestionTool {
    type Input = WithdrawArguments;

    fn name(&self) -> &str {
        WITHDRAW_TOOL_NAME
    }

    fn definition(&self) -> serde_json::Value {
        definition_of::<WithdrawArguments>(WITHDRAW_TOOL_NAME)
    }

    fn changes_workspace(&self) -> bool {
        false
    }

    fn parse(&self, args: &serde_json::Value) -> Result<WithdrawArguments, ToolError> {
        Ok(WithdrawArguments::deserialize(args).map_err(|e| {
            UserInteractionError::invalid_request(format!(
                "{WITHDRAW_TOOL_NAME}: invalid arguments ({e}); send {{\"call_id\": \"...\", \"reason\": \"...\"}}"
            ))
        })?)
    }

    fn run(
        self: Arc<Self>,
        ctx: ToolContext,
        _call_id: String,
        args: WithdrawArguments,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.withdraw(&ctx, args) })
    }
}
