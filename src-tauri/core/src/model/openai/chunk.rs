//! Turns Chat Completions stream chunks into [`ModelEvent`]s: text and reasoning deltas pass
//! straight through, tool-call fragments are assembled by index and released whole when the step
//! finishes, usage is forwarded, and `[DONE]` ends the stream. Everything the model produces is
//! counted against the step's [`Budget`], so a model that never stops ends in MODEL_OUTPUT_TOO_LARGE.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::excerpt;
use super::limits::{Budget, Limits, Part};
use super::sse::SseEvent;
use crate::model::error::ModelError;
use crate::model::types::{ModelEvent, ToolCallRequest};

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    #[serde(default)]
    index: u32,
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    /// DeepSeek's name for streamed reasoning.
    #[serde(default)]
    reasoning_content: Option<String>,
    /// The name some other servers (vLLM, Ollama, OpenRouter) use for the same thing.
    #[serde(default)]
    reasoning: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// The state of one streamed step.
#[derive(Debug)]
pub(super) struct StreamAssembler {
    calls: BTreeMap<u32, PartialCall>,
    finish_reason: Option<String>,
    done: bool,
    budget: Budget,
}

impl StreamAssembler {
    pub fn new(limits: Limits) -> Self {
        StreamAssembler { calls: BTreeMap::new(), finish_reason: None, done: false, budget: Budget::new(limits) }
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Applies one SSE event, adding its model events to `out`. Anything this client cannot read,
    /// or output past a limit, is an error; the events already in `out` stay valid.
    pub fn on_event(&mut self, event: &SseEvent, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            out.extend(self.finish());
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let value: Value = serde_json::from_str(data).map_err(|e| bad_chunk(data, &e.to_string()))?;
        if event.event.as_deref() == Some("error") || value.get("error").is_some_and(|e| !e.is_null()) {
            return Err(stream_error(&value));
        }
        let chunk: Chunk = serde_json::from_value(value).map_err(|e| bad_chunk(data, &e.to_string()))?;
        self.apply(chunk, out)
    }

    /// The body ended. Without `[DONE]` the step still counts as finished when the server sent a
    /// finish reason; otherwise the stream was cut short and saying so beats guessing.
    pub fn on_eof(&mut self) -> Result<Vec<ModelEvent>, ModelError> {
        if self.done {
            return Ok(Vec::new());
        }
        if self.finish_reason.is_some() {
            return Ok(self.finish());
        }
        Err(ModelError::BadStream {
            message: "The response ended before the model finished (no finish_reason, no [DONE])".into(),
        })
    }

    fn apply(&mut self, chunk: Chunk, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        // Hark never asks for more than one choice; a server that sends others anyway is ignored.
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            if let Some(delta) = choice.delta {
                self.apply_delta(delta, out)?;
            }
            if let Some(reason) = choice.finish_reason {
                self.finish_reason = Some(reason);
                out.extend(self.release_calls());
            }
        }
        if let Some(usage) = chunk.usage.filter(|u| !u.is_null()) {
            out.push(ModelEvent::Usage(usage));
        }
        Ok(())
    }

    fn apply_delta(&mut self, delta: Delta, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
        if let Some(r) = delta.reasoning_content.or(delta.reasoning).filter(|r| !r.is_empty()) {
            self.budget.spend(Part::Reasoning, r.len())?;
            out.push(ModelEvent::ReasoningDelta(r));
        }
        if let Some(t) = delta.content.filter(|t| !t.is_empty()) {
            self.budget.spend(Part::Text, t.len())?;
            out.push(ModelEvent::TextDelta(t));
        }
        for fragment in delta.tool_calls.unwrap_or_default() {
            let index = self.index_for(&fragment);
            let call = self.calls.entry(index).or_default();
            if let Some(id) = fragment.id.filter(|id| !id.is_empty()) {
                self.budget.spend(Part::ToolCalls, id.len())?;
                call.id = id;
            }
            if let Some(f) = fragment.function {
                // Some servers repeat the name on every fragment; it arrives whole, never split.
                if let Some(name) = f.name.filter(|n| !n.is_empty()) {
                    if call.name.is_empty() {
                        self.budget.spend(Part::ToolCalls, name.len())?;
                        call.name = name;
                    }
                }
                if let Some(args) = f.arguments {
                    self.budget.check_arguments(&call.name, call.arguments.len().saturating_add(args.len()))?;
                    self.budget.spend(Part::ToolCalls, args.len())?;
                    call.arguments.push_str(&args);
                }
            }
        }
        Ok(())
    }

    /// OpenAI-style servers index every fragment; a few local servers omit the index and send each
    /// call whole, so a new id starts a new call and an id-less fragment continues the last one.
    fn index_for(&self, fragment: &ToolCallDelta) -> u32 {
        if let Some(index) = fragment.index {
            return index;
        }
        let last = self.calls.keys().next_back().copied();
        match (&fragment.id, last) {
            (Some(id), _) if !id.is_empty() => self
                .calls
                .iter()
                .find(|(_, c)| &c.id == id)
                .map(|(i, _)| *i)
                .unwrap_or_else(|| last.map_or(0, |l| l + 1)),
            (_, Some(last)) => last,
            (_, None) => 0,
        }
    }

    fn release_calls(&mut self) -> Vec<ModelEvent> {
        std::mem::take(&mut self.calls)
            .into_values()
            .map(|c| {
                // The caller pairs results with calls by id, so a server that sent none still needs one.
                let id = if c.id.is_empty() { format!("call_{}", uuid::Uuid::new_v4().simple()) } else { c.id };
                ModelEvent::ToolCall(ToolCallRequest { id, name: c.name, arguments: c.arguments })
            })
            .collect()
    }

    fn finish(&mut self) -> Vec<ModelEvent> {
        self.done = true;
        let mut events = self.release_calls();
        events.push(ModelEvent::Finished { finish_reason: self.finish_reason.clone() });
        events
    }
}

/// A whole (non-streamed) completion, from a server that ignored `stream: true`, added to `out`. It
/// counts against the same limits as a stream, and what precedes a part past them stays valid.
pub(super) fn events_from_completion(body: &[u8], limits: Limits, out: &mut Vec<ModelEvent>) -> Result<(), ModelError> {
    let text = String::from_utf8_lossy(body);
    let value: Value = serde_json::from_str(&text).map_err(|e| bad_chunk(&text, &e.to_string()))?;
    if value.get("error").is_some_and(|e| !e.is_null()) {
        return Err(stream_error(&value));
    }
    let choice = value.pointer("/choices/0").ok_or_else(|| bad_chunk(&text, "no choices"))?;
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let field = |name: &str| message.get(name).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let mut budget = Budget::new(limits);
    if let Some(r) = field("reasoning_content").or_else(|| field("reasoning")) {
        budget.spend(Part::Reasoning, r.len())?;
        out.push(ModelEvent::ReasoningDelta(r));
    }
    if let Some(t) = field("content") {
        budget.spend(Part::Text, t.len())?;
        out.push(ModelEvent::TextDelta(t));
    }
    let mut calls = Vec::new();
    for call in message.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
        let get = |p: &str| call.pointer(p).and_then(Value::as_str).unwrap_or_default().to_string();
        let id = match get("/id") {
            id if id.is_empty() => format!("call_{}", uuid::Uuid::new_v4().simple()),
            id => id,
        };
        // Arguments are a JSON string on the wire; a server that sends an object gets it re-encoded.
        let arguments = match call.pointer("/function/arguments") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let name = get("/function/name");
        budget.check_arguments(&name, arguments.len())?;
        budget.spend(Part::ToolCalls, id.len() + name.len() + arguments.len())?;
        calls.push(ModelEvent::ToolCall(ToolCallRequest { id, name, arguments }));
    }
    // Like a stream, the calls are released only once all of them are known to fit.
    out.append(&mut calls);
    if let Some(usage) = value.get("usage").filter(|u| !u.is_null()) {
        out.push(ModelEvent::Usage(usage.clone()));
    }
    let finish_reason = choice.get("finish_reason").and_then(Value::as_str).map(str::to_string);
    out.push(ModelEvent::Finished { finish_reason });
    Ok(())
}

fn bad_chunk(data: &str, why: &str) -> ModelError {
    ModelError::BadStream { message: format!("Unreadable stream chunk ({why}): {}", excerpt(data)) }
}

/// An error object sent inside a 200 stream (OpenAI does this when a generation fails midway).
fn stream_error(value: &Value) -> ModelError {
    let message = super::send::server_message(value).unwrap_or_else(|| excerpt(&value.to_string()));
    ModelError::Server { status: None, message: format!("The server reported an error mid-stream: {message}") }
}
