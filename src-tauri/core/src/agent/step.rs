//! One model step: build the request from the log, stream the reply, record it, run its tool calls.
//! A request the server finds too long for the model's context is compacted and tried once more.

use tokio_util::sync::CancellationToken;

use super::compact::{self, Compacted};
use super::driver::append;
use super::{context, AgentError, AgentEvent, Shared};
use crate::error::CodedError;
use crate::model::{ModelError, ModelEvent, ModelRequest, ToolCallRequest};
use crate::question::{ErrorCode, UserInteractionError};
use crate::service::Caller;
use crate::session::{Event, ToolOutcome};
use crate::tools::{outcome_of, Prepared, ToolContext, ToolError, ToolRegistry};

pub(super) enum StepEnd {
    /// The model called tools; their results are recorded and the model must see them.
    ToolCalls,
    /// The model finished without tool calls.
    Stopped,
    /// A timed question's wait ran out in a session that stops its turn then.
    QuestionTimedOut,
    Aborted,
    /// The model failed; `model/error` is recorded.
    Failed,
}

#[derive(Default)]
pub(super) struct Streamed {
    pub text: String,
    reasoning: String,
    calls: Vec<ToolCallRequest>,
    usage: Option<serde_json::Value>,
}

impl Streamed {
    fn is_empty(&self) -> bool {
        self.text.is_empty() && self.reasoning.is_empty() && self.calls.is_empty()
    }
}

/// Streams one request. With `live`, text and reasoning reach the front doors as they arrive.
pub(super) async fn stream(
    shared: &Shared,
    request: ModelRequest,
    abort: &CancellationToken,
    live: bool,
) -> (Streamed, Option<ModelError>) {
    let mut out = Streamed::default();
    let cancel = abort.child_token();
    let opened = tokio::select! {
        r = shared.deps.model.stream(request, cancel.clone()) => r,
        _ = abort.cancelled() => Err(ModelError::Cancelled),
    };
    let mut rx = match opened {
        Ok(rx) => rx,
        Err(e) => return (out, Some(e)),
    };
    loop {
        let item = tokio::select! {
            biased;
            _ = abort.cancelled() => {
                cancel.cancel();
                return (out, Some(ModelError::Cancelled));
            }
            item = rx.recv() => item,
        };
        match item {
            Some(Ok(ModelEvent::TextDelta(text))) => {
                out.text.push_str(&text);
                if live {
                    shared.emit(AgentEvent::TextDelta { session_id: shared.session_id.clone(), text });
                }
            }
            Some(Ok(ModelEvent::ReasoningDelta(text))) => {
                out.reasoning.push_str(&text);
                if live {
                    shared.emit(AgentEvent::ReasoningDelta { session_id: shared.session_id.clone(), text });
                }
            }
            Some(Ok(ModelEvent::ToolCall(call))) => out.calls.push(call),
            Some(Ok(ModelEvent::Usage(usage))) => out.usage = Some(usage),
            Some(Ok(ModelEvent::Finished { .. })) => return (out, None),
            Some(Err(e)) => return (out, Some(e)),
            None => {
                let e = ModelError::BadStream { message: "the model stream ended without finishing".into() };
                return (out, Some(e));
            }
        }
    }
}

/// A streamed call parsed once: its arguments' text as JSON (none is `{}`; some servers send an
/// empty string for a call without arguments), then as the tool's input. Text that is not JSON is
/// recorded as the string it was, and the call is answered with why.
fn prepare(tools: &ToolRegistry, call: &ToolCallRequest) -> Prepared {
    let raw = if call.arguments.trim().is_empty() { "{}" } else { call.arguments.as_str() };
    match serde_json::from_str(raw) {
        Ok(args) => tools.prepare(&call.name, args),
        Err(e) => Prepared::refused(
            serde_json::Value::String(call.arguments.clone()),
            UserInteractionError::new(
                ErrorCode::InvalidRequest,
                format!("the arguments of {} are not valid JSON ({e}); send one JSON object", call.name),
            )
            .into(),
        ),
    }
}

pub(super) async fn run(
    shared: &Shared,
    tools: &ToolRegistry,
    abort: &CancellationToken,
) -> Result<StepEnd, AgentError> {
    let mut compacted = false;
    let (mut streamed, failure) = loop {
        let request = super::request_of(&shared.session, &shared.config, tools.definitions());
        let sent_tokens = context::request_tokens(&request);
        let (streamed, failure) = stream(shared, request, abort, true).await;
        match &failure {
            // Once per step: a second refusal is reported like any other model error.
            Some(e) if e.is_context_length() && !compacted && streamed.is_empty() && !abort.is_cancelled() => {
                compacted = true;
                if let Compacted::Aborted = compact::compact(shared, tools, sent_tokens, e, abort).await? {
                    return Ok(StepEnd::Aborted);
                }
            }
            _ => break (streamed, failure),
        }
    };
    if failure.is_some() {
        // Text streamed before a failure is kept; half a step's tool calls are never run.
        streamed.calls.clear();
    }
    shared.session.make_call_ids_unique(&mut streamed.calls);
    let prepared: Vec<Prepared> = streamed.calls.iter().map(|c| prepare(tools, c)).collect();
    if !streamed.is_empty() {
        let reasoning = Some(streamed.reasoning).filter(|r| !r.is_empty());
        let mut batch = vec![Event::AssistantMessage {
            text: streamed.text,
            reasoning,
            tool_calls: streamed.calls.iter().map(|c| c.id.clone()).collect(),
            usage: streamed.usage,
        }];
        batch.extend(streamed.calls.iter().zip(&prepared).map(|(c, p)| Event::ToolCall {
            call_id: c.id.clone(),
            name: c.name.clone(),
            arguments: p.arguments.clone(),
        }));
        shared.session.record(batch)?;
    }
    if let Some(e) = failure {
        if abort.is_cancelled() || e == ModelError::Cancelled {
            return Ok(StepEnd::Aborted);
        }
        append(shared, Event::ModelError { error: e.boundary() })?;
        return Ok(StepEnd::Failed);
    }
    if streamed.calls.is_empty() {
        return Ok(StepEnd::Stopped);
    }
    let ctx = ToolContext {
        caller: Caller::root(shared.session_id.clone(), shared.instance_id.clone()),
        abort: abort.clone(),
        workspace: shared.workspace.clone(),
    };
    // A question that went on unanswered in this step (asked directly or from a script) shows as one
    // more continued question in the session's fold once its result is recorded.
    let continued_before = shared.session.question_counts().continued;
    for (i, (call, prepared)) in streamed.calls.iter().zip(prepared).enumerate() {
        let result = if ctx.abort.is_cancelled() {
            Err(ToolError::Aborted)
        } else {
            tools.run(&ctx, &call.id, &call.name, prepared).await
        };
        if let Err(e) = append(shared, Event::ToolResult { call_id: call.id.clone(), outcome: outcome_of(&result) }) {
            close_unknown(shared, &streamed.calls[i..]);
            return Err(e);
        }
    }
    // Every call of the step still ran and is recorded: the model's next request stays well formed.
    Ok(if abort.is_cancelled() {
        StepEnd::Aborted
    } else if shared.config.questions.stop_turn && shared.session.question_counts().continued > continued_before {
        StepEnd::QuestionTimedOut
    } else {
        StepEnd::ToolCalls
    })
}

/// After a result could not be recorded, the step fails; its remaining calls (the failed one
/// included) are not run and get an unknown outcome each, as far as the store takes them, so the
/// log does not end with calls that have no result. What the store refuses here, crash repair
/// closes when the session is opened again.
fn close_unknown(shared: &Shared, calls: &[ToolCallRequest]) {
    for call in calls {
        let _ = append(shared, Event::ToolResult { call_id: call.id.clone(), outcome: ToolOutcome::Unknown });
    }
}
