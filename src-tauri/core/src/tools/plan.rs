//! Plan-first sessions: the `submit_plan` tool, which asks the person to review the agent's plan on
//! the blocking path, and the rule that tools changing the workspace wait for an approved plan.

use std::sync::Arc;

use serde::Deserialize;

use super::{definition_of, BoxFuture, Tool, ToolContext, ToolError, ToolOutput};
use crate::question::{
    check_plan, plan_pending_result, plan_review_questions, plan_review_result_text, ErrorCode, Intent,
    SubmitPlanArguments, UserInteractionError, PLAN_TOOL_NAME,
};
use crate::service::{AskParams, UserQuestionService};

/// Whether the session's plan is approved, read when a tool that changes the workspace is called
/// (the live session answers from its question fold, so an approval given late counts at once).
pub trait PlanApproval: Send + Sync {
    fn plan_approved(&self) -> bool;
}

/// The refusal of a workspace change before a plan was approved.
pub(super) fn not_approved(tool: &str) -> ToolError {
    UserInteractionError::new(
        ErrorCode::PlanNotApproved,
        format!(
            "{tool} changes the workspace, and this session works plan first: call {PLAN_TOOL_NAME} with your \
             plan and wait for the user to approve it. Reading tools work meanwhile."
        ),
    )
    .into()
}

/// `submit_plan`: one plan review, asked like a blocking question.
#[derive(Debug, Clone)]
pub struct SubmitPlanTool {
    service: UserQuestionService,
}

impl SubmitPlanTool {
    pub fn new(service: UserQuestionService) -> Self {
        SubmitPlanTool { service }
    }

    /// The model's arguments as a plan to review, or why they are not one.
    fn plan_of(args: &serde_json::Value) -> Result<SubmitPlanArguments, ToolError> {
        let args: SubmitPlanArguments = SubmitPlanArguments::deserialize(args).map_err(|e| {
            UserInteractionError::invalid_request(format!(
                "{PLAN_TOOL_NAME}: invalid arguments ({e}); send {{\"plan\": \"...Markdown...\"}}"
            ))
        })?;
        check_plan(&args.plan).map_err(|problem| {
            UserInteractionError::invalid_request(format!("{PLAN_TOOL_NAME}: {problem}; call it again"))
        })?;
        Ok(args)
    }

    async fn review(
        &self,
        ctx: ToolContext,
        call_id: String,
        args: SubmitPlanArguments,
    ) -> Result<ToolOutput, ToolError> {
        let call_id = call_id.as_str();
        let params = AskParams {
            call_id: call_id.to_string(),
            caller: ctx.caller.clone(),
            intent: Intent::PlanReview { plan: args.plan },
            questions: plan_review_questions(),
            abort: ctx.abort.clone(),
        };
        // A plan review never times out: nothing that changes the workspace may run until it is decided.
        // Only a quit ends its wait undecided (see `UserQuestionService::continue_on_quit`).
        let began = tokio::time::Instant::now();
        match self.service.ask(params).await {
            Ok(batch) => Ok(ToolOutput::answered(plan_review_result_text(&batch), batch)),
            Err(e) if e.code == ErrorCode::AskTimedOut => {
                Ok(ToolOutput::continued(&plan_pending_result(call_id, began.elapsed())))
            }
            Err(e) => Err(e.into()),
        }
    }
}

impl Tool for SubmitPlanTool {
    type Input = SubmitPlanArguments;

    fn name(&self) -> &str {
        PLAN_TOOL_NAME
    }

    fn definition(&self) -> serde_json::Value {
        definition_of::<SubmitPlanArguments>(PLAN_TOOL_NAME)
    }

    fn changes_workspace(&self) -> bool {
        false
    }

    fn parse(&self, args: &serde_json::Value) -> Result<SubmitPlanArguments, ToolError> {
        SubmitPlanTool::plan_of(args)
    }

    fn run(
        self: Arc<Self>,
        ctx: ToolContext,
        call_id: String,
        args: SubmitPlanArguments,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.review(ctx, call_id, args).await })
    }
}

/// What a registry checks before running a tool that changes the workspace.
pub(super) type Gate = Arc<dyn PlanApproval>;
