//! The agent's single driver task: waits for input, runs turns one at a time, and records each
//! turn's start, its step boundaries (where steered messages are admitted) and its end.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::step::{self, StepEnd};
use super::{AgentError, AgentEvent, Input, Shared};
use crate::error::CodedError;
use crate::mcp::{offer, Candidate, McpError, McpTool, ToolOffer, MAX_MODEL_TOOLS};
use crate::ptc::RunCodeTool;
use crate::question::ToolMode;
use crate::service::lock;
use crate::session::{Event, TurnEndReason};
use crate::tools::{
    AskUserQuestionTool, PlanApproval, SubmitPlanTool, ToolHandler, ToolRegistry, WithdrawQuestionTool,
};
use crate::workspace::workspace_tools;

pub(super) async fn run(shared: Arc<Shared>) {
    loop {
        let abort = loop {
            let notified = shared.wake.notified();
            {
                let mut state = lock(&shared.state);
                if state.closed {
                    return;
                }
                if !state.queue.is_empty() {
                    let token = CancellationToken::new();
                    state.turn_abort = Some(token.clone());
                    break token;
                }
            }
            notified.await;
        };
        if let Err(e) = turn(&shared, &abort).await {
            shared.emit(AgentEvent::Error { session_id: shared.session_id.clone(), error: e.boundary() });
        }
        let mut state = lock(&shared.state);
        state.turn_abort = None;
        shared.busy.send_replace(!state.queue.is_empty() && !state.closed);
    }
}

pub(super) fn append(shared: &Shared, event: Event) -> Result<(), AgentError> {
    shared.session.record_one(event)?;
    Ok(())
}

/// The tools the model is offered: the question tool, the workspace's and the MCP servers', or with
/// programmatic tool calls only `run_code`, whose scripts reach those; `submit_plan` in a plan-first
/// session. In a plan-first session every registry refuses workspace changes until a plan is
/// approved. An MCP server that fails to start is reported and left out. `None` when the turn was
/// stopped while servers started.
///
/// At most [`MAX_MODEL_TOOLS`] are offered: Hark's own first, then the MCP servers' that the person
/// did not turn off, as [`offer`] decides. The second value says, per server, which MCP tools did
/// not fit.
async fn registry(
    shared: &Shared,
    abort: &CancellationToken,
) -> Result<Option<(ToolRegistry, Vec<McpError>)>, AgentError> {
    let plan = shared.config.plan_first.then(|| Arc::clone(&shared.session) as Arc<dyn PlanApproval>);
    // Names are distinct by construction, so registration cannot fail.
    let mut tools = ToolRegistry::new();
    let ask = AskUserQuestionTool::new(shared.deps.service.clone(), shared.config.questions);
    let _ = tools.register(Arc::new(ask));
    // Only a timed question can be left waiting while the agent works on, so only then is there
    // anything to withdraw.
    if shared.config.questions.mode == ToolMode::Timed {
        let _ = tools.register(Arc::new(WithdrawQuestionTool::new(shared.deps.service.clone())));
    }
    if let Some(root) = &shared.workspace {
        for tool in workspace_tools(root.clone()) {
            let _ = tools.register(tool);
        }
    }
    let Some((mcp_tools, failures)) = shared.mcp.tools(abort).await else { return Ok(None) };
    for failure in failures {
        append(shared, Event::McpUnavailable { server: failure.server().to_string(), error: failure.boundary() })?;
    }
    // With programmatic tool calls the model is offered `run_code` alone and its scripts reach every
    // tool, so only a registry the model sees directly is capped; `submit_plan` comes later but is
    // offered too.
    let room = if shared.config.ptc {
        usize::MAX
    } else {
        crate::mcp::room(tools.names().len() + usize::from(plan.is_some()))
    };
    shared.mcp.offered_with_room(room);
    let candidates: Vec<Candidate<'_>> = mcp_tools
        .iter()
        .map(|t| Candidate { server: t.server(), tool: t.listed_name(), disabled: t.disabled() })
        .collect();
    let offers = offer(room, &candidates);
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for (tool, offer) in mcp_tools.iter().zip(offers) {
        match offer {
            ToolOffer::Offered => kept.push(Arc::clone(tool)),
            ToolOffer::LeftOut => dropped.push(Arc::clone(tool)),
            // Turned off by the person, who knows: not reported as left out.
            ToolOffer::Disabled => {}
        }
    }
    let left_out = left_out(&dropped);
    for tool in kept {
        // `mcp__` names cannot clash with Hark's own tools; among themselves they are made distinct.
        let _ = tools.register(tool);
    }
    if let Some(plan) = &plan {
        tools.require_plan(Arc::clone(plan));
    }
    if shared.config.ptc {
        let run_code = RunCodeTool::new(tools, Arc::clone(&shared.session));
        tools = ToolRegistry::new();
        let _ = tools.register(Arc::new(run_code));
    }
    if let Some(plan) = plan {
        let _ = tools.register(Arc::new(SubmitPlanTool::new(shared.deps.service.clone())));
        tools.require_plan(plan);
    }
    Ok(Some((tools, left_out)))
}

/// One [`McpError::ToolsLeftOut`] per server with tools in `tools`, naming them as offered.
fn left_out(tools: &[Arc<McpTool>]) -> Vec<McpError> {
    let mut by_server: Vec<(String, Vec<&str>)> = Vec::new();
    for tool in tools {
        match by_server.last_mut() {
            Some((server, names)) if server == tool.server() => names.push(tool.name()),
            _ => by_server.push((tool.server().to_string(), vec![tool.name()])),
        }
    }
    by_server
        .into_iter()
        .map(|(server, names)| McpError::ToolsLeftOut {
            server,
            count: names.len(),
            limit: MAX_MODEL_TOOLS,
            tools: names.join(", "),
        })
        .collect()
}

/// Records `request/header` when the tools or question settings differ from the last recorded one,
/// and with it the MCP tools `left_out` of that set (as `mcp/unavailable`, which the transcript shows),
/// so the person reads why once per change of tools rather than at every turn.
fn header(shared: &Shared, tools: &ToolRegistry, left_out: Vec<McpError>) -> Result<(), AgentError> {
    if let Some(header) = shared.session.changed_header(tools.names(), shared.config.questions) {
        for error in left_out {
            append(shared, Event::McpUnavailable { server: error.server().to_string(), error: error.boundary() })?;
        }
        append(shared, header)?;
    }
    Ok(())
}

async fn turn(shared: &Shared, abort: &CancellationToken) -> Result<(), AgentError> {
    let turn_id = uuid::Uuid::new_v4().to_string();
    append(shared, Event::TurnStarted { turn_id: turn_id.clone(), run_id: super::run_id().to_string() })?;
    shared.emit(AgentEvent::TurnStarted { session_id: shared.session_id.clone(), turn_id: turn_id.clone() });
    let result = steps(shared, abort).await;
    let reason = match &result {
        Ok(reason) => *reason,
        Err(_) => TurnEndReason::Error,
    };
    // Whatever still waits in the queue stays there (and in the log): the next turn admits it.
    let ended = append(shared, Event::TurnEnded { turn_id: turn_id.clone(), reason });
    shared.emit(AgentEvent::TurnEnded { session_id: shared.session_id.clone(), turn_id, reason });
    result.and(ended)
}

async fn steps(shared: &Shared, abort: &CancellationToken) -> Result<TurnEndReason, AgentError> {
    let Some((tools, left_out)) = registry(shared, abort).await? else {
        // Stopped while its servers started: the turn ends before the model is asked anything. What
        // waited for it is admitted as its first step would have, so the stopped prompt is in the
        // log and does not start the next turn at once.
        admit(shared)?;
        return Ok(TurnEndReason::Aborted);
    };
    header(shared, &tools, left_out)?;
    let mut taken = 0u32;
    let mut continues = true;
    loop {
        if abort.is_cancelled() {
            return Ok(TurnEndReason::Aborted);
        }
        let admitted = admit(shared)?;
        if !continues && admitted == 0 {
            return Ok(TurnEndReason::Completed);
        }
        if taken >= shared.config.step_limit {
            return Ok(TurnEndReason::StepLimit);
        }
        taken += 1;
        continues = match step::run(shared, &tools, abort).await? {
            StepEnd::ToolCalls => true,
            StepEnd::Stopped => false,
            StepEnd::Aborted => return Ok(TurnEndReason::Aborted),
            StepEnd::Failed => return Ok(TurnEndReason::Error),
            StepEnd::QuestionTimedOut => return Ok(TurnEndReason::QuestionTimedOut),
        };
    }
}

/// Appends every waiting message as `user/message` under its inbox id; a late reply is reported
/// admitted to the service.
fn admit(shared: &Shared) -> Result<usize, AgentError> {
    let inputs: Vec<Input> = {
        let mut state = lock(&shared.state);
        let inputs: Vec<Input> = state.queue.drain(..).collect();
        for input in &inputs {
            if let Input::Message(m) = input {
                state.admitted.insert(m.message_id.clone());
            }
        }
        inputs
    };
    let mut count = 0;
    for input in inputs {
        let Input::Message(message) = input else { continue };
        count += 1;
        if message.source.reply_call_id().is_some() {
            shared.session.admit_reply(&shared.deps.service, message)?;
            continue;
        }
        // A typed message is recorded without a source, as typed messages always were; the inbox
        // event with the same id says how it arrived.
        append(shared, Event::UserMessage { message_id: message.message_id, text: message.text, source: None })?;
    }
    Ok(count)
}
