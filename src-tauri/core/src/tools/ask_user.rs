//! The `ask_user_question` tool: validates the model's arguments under the schema in force, picks
//! the blocking or timed wait, and turns the outcome into what the model reads.

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use serde::{Deserialize, Serialize};

use super::{BoxFuture, Tool, ToolContext, ToolError, ToolOutput};
use crate::question::limits::clamp_timeout_secs;
use crate::question::{
    answered_result_text, client_pending_result, own_pending_result, parse_request, tool_definition, AskRequest,
    ErrorCode, PendingReason, PendingResult, ToolMode, WaitLimit, TOOL_NAME,
};
use crate::service::{AskParams, UserQuestionService, QUIT_BEFORE_ANSWER};

/// The question settings in force for a turn. A setting, never the model's
/// choice; the agent records it in `request/header` alongside the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionSettings {
    pub mode: ToolMode,
    /// Applies to timed calls that omit `timeout`.
    pub default_timeout_secs: u64,
    /// In timed mode: the turn stops once a question's wait ran out (the question stays answerable,
    /// and the answer starts the next turn) instead of the agent working on.
    #[serde(default)]
    pub stop_turn: bool,
}

/// What happens when a timed question's wait runs out, as the person chooses it. Never "pick an
/// option": a timeout is not an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// The agent works on and the question stays open (the timed schema).
    KeepWorking,
    /// The question has no timeout: the agent waits for the answer (the blocking schema).
    Wait,
    /// The turn stops; the question stays open and its answer starts the next turn.
    StopTurn,
}

impl OnTimeout {
    pub const ALL: [OnTimeout; 3] = [OnTimeout::KeepWorking, OnTimeout::Wait, OnTimeout::StopTurn];

    /// The command-line spelling (`--on-timeout keep-working|wait|stop-turn`).
    pub fn as_flag(&self) -> &'static str {
        match self {
            OnTimeout::KeepWorking => "keep-working",
            OnTimeout::Wait => "wait",
            OnTimeout::StopTurn => "stop-turn",
        }
    }

    pub fn parse_flag(typed: &str) -> Option<OnTimeout> {
        OnTimeout::ALL.into_iter().find(|o| o.as_flag() == typed)
    }
}

impl QuestionSettings {
    pub fn on_timeout(&self) -> OnTimeout {
        match (self.mode, self.stop_turn) {
            (ToolMode::Legacy, _) => OnTimeout::Wait,
            (ToolMode::Timed, false) => OnTimeout::KeepWorking,
            (ToolMode::Timed, true) => OnTimeout::StopTurn,
        }
    }

    /// These settings with `choice`; the default timeout is kept.
    pub fn with_on_timeout(self, choice: OnTimeout) -> QuestionSettings {
        let (mode, stop_turn) = match choice {
            OnTimeout::KeepWorking => (ToolMode::Timed, false),
            OnTimeout::Wait => (ToolMode::Legacy, false),
            OnTimeout::StopTurn => (ToolMode::Timed, true),
        };
        QuestionSettings { mode, stop_turn, ..self }
    }
}

impl Default for QuestionSettings {
    fn default() -> Self {
        QuestionSettings { mode: ToolMode::Legacy, default_timeout_secs: 120, stop_turn: false }
    }
}

/// Built with the settings of the turn it serves, so the definition the model saw and the parsing
/// of its call can never disagree even if the user changes settings mid-turn.
#[derive(Debug, Clone)]
pub struct AskUserQuestionTool {
    service: UserQuestionService,
    settings: QuestionSettings,
    /// What a timed call that ran out returns, given its call id.
    pending: fn(&str, PendingReason, Duration) -> PendingResult,
}

impl AskUserQuestionTool {
    /// A default timeout out of bounds (an old recorded session, a hand-made config) is clamped here,
    /// so the definition shows the default the wait really uses.
    pub fn new(service: UserQuestionService, settings: QuestionSettings) -> Self {
        let default_timeout_secs = clamp_timeout_secs(settings.default_timeout_secs);
        let settings = QuestionSettings { default_timeout_secs, ..settings };
        AskUserQuestionTool { service, settings, pending: own_pending_result }
    }

    /// The tool as an outside agent calls it through `hark mcp`: the same, except that a pending
    /// result tells it to collect a late answer with `get_answers`.
    pub fn for_client(service: UserQuestionService, settings: QuestionSettings) -> Self {
        AskUserQuestionTool { pending: client_pending_result, ..AskUserQuestionTool::new(service, settings) }
    }

    pub fn settings(&self) -> QuestionSettings {
        self.settings
    }

    async fn ask(&self, ctx: ToolContext, call_id: String, request: AskRequest) -> Result<ToolOutput, ToolError> {
        let call_id = call_id.as_str();
        let params = AskParams {
            call_id: call_id.to_string(),
            caller: ctx.caller.clone(),
            intent: crate::question::Intent::Question,
            questions: request.questions,
            abort: ctx.abort.clone(),
        };
        // Legacy calls and timed calls with `timeout: -1` share the blocking path.
        let deadline = match (self.settings.mode, request.wait) {
            (ToolMode::Timed, WaitLimit::Seconds(secs)) => Some(Duration::from_secs(secs)),
            _ => None,
        };
        let began = Instant::now();
        let result = match deadline {
            Some(timeout) => self.service.ask_timed(params, timeout).await,
            None => self.service.ask(params).await,
        };
        match result {
            Ok(batch) => Ok(ToolOutput::answered(answered_result_text(&batch), batch)),
            Err(e) if e.code == ErrorCode::AskTimedOut && deadline.is_some() => {
                let reason =
                    if e.message == QUIT_BEFORE_ANSWER { PendingReason::HarkQuit } else { PendingReason::TimedOut };
                Ok(ToolOutput::continued(&(self.pending)(call_id, reason, began.elapsed())))
            }
            Err(e) => Err(e.into()),
        }
    }
}

impl Tool for AskUserQuestionTool {
    type Input = AskRequest;

    fn name(&self) -> &str {
        TOOL_NAME
    }

    fn definition(&self) -> serde_json::Value {
        tool_definition(self.settings.mode, self.settings.default_timeout_secs)
    }

    fn changes_workspace(&self) -> bool {
        false
    }

    fn parse(&self, args: &serde_json::Value) -> Result<AskRequest, ToolError> {
        Ok(parse_request(args, self.settings.mode, self.settings.default_timeout_secs)?)
    }

    /// The parsed request in the strict form the schema describes, `timeout` included in timed mode
    /// (the default made explicit, -1 for no limit): what the question projection reads back.
    fn recorded(&self, request: &AskRequest, _args: serde_json::Value) -> serde_json::Value {
        request.to_arguments(self.settings.mode)
    }

    fn run(
        self: Arc<Self>,
        ctx: ToolContext,
        call_id: String,
        request: AskRequest,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move { self.ask(ctx, call_id, request).await })
    }
}
