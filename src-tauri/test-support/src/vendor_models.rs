//! Scripted model servers for the real coding agents the tests drive (Claude Code, the Codex CLI):
//! Anthropic's Messages API and OpenAI's Responses API on 127.0.0.1, each streaming SSE as the
//! vendor does. The test scripts the model's turns (turn 1: call tool X with these arguments;
//! turn 2: say done), and every request is recorded, so the test reads what the agent sent next:
//! the model's next request is the oracle of what the agent's model was told.
//!
//! A *turn* is a request to the conversation endpoint that offers tools; it takes the next scripted
//! step. The agents also ask small side questions without tools (a title, a summary): those get a
//! short text and use up nothing. Every request is recorded either way.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::server::{read_request, Recorded};
use crate::wait::WAIT;

/// Which vendor's API the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/messages` (Claude Code).
    AnthropicMessages,
    /// `POST /v1/responses` (Codex with `wire_api = "responses"`).
    OpenAiResponses,
}

/// One scripted model turn.
#[derive(Debug, Clone)]
pub enum Step {
    /// Call the tool `name` with `input` under the call id `id`; a Responses tool offered in a
    /// namespace (Codex offers each MCP server's tools as the namespace `mcp__<server>`) is called
    /// with its `namespace`.
    Call { id: String, namespace: Option<String>, name: String, input: Value },
    /// Say `text` and end the turn.
    Say(String),
}

impl Step {
    pub fn call(id: &str, name: &str, input: Value) -> Step {
        Step::Call { id: id.into(), namespace: None, name: name.into(), input }
    }

    pub fn call_in(id: &str, namespace: &str, name: &str, input: Value) -> Step {
        Step::Call { id: id.into(), namespace: Some(namespace.into()), name: name.into(), input }
    }

    pub fn say(text: &str) -> Step {
        Step::Say(text.into())
    }
}

/// What the model says once the script has run out: the agent's turn ends, and the test sees one
/// turn more than it scripted.
const SCRIPT_ENDED: &str = "(the test scripted no more turns)";

struct State {
    api: Api,
    script: std::collections::VecDeque<Step>,
    recorded: Vec<Recorded>,
    /// Indexes into `recorded` of the requests that were turns.
    turns: Vec<usize>,
    turn_count: watch::Sender<usize>,
}

pub struct VendorModel {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    turns: watch::Receiver<usize>,
    task: tokio::task::JoinHandle<()>,
}

impl VendorModel {
    pub async fn start(api: Api, script: Vec<Step>) -> VendorModel {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a local port for the model server");
        let addr = listener.local_addr().expect("the model server's address");
        let (turn_count, turns) = watch::channel(0);
        let state = Arc::new(Mutex::new(State {
            api,
            script: script.into(),
            recorded: Vec::new(),
            turns: Vec::new(),
            turn_count,
        }));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, shared.clone()));
            }
        });
        VendorModel { addr, state, turns, task }
    }

    /// What the agent is configured with: Anthropic's base URL has no `/v1` (the client adds it),
    /// an OpenAI provider's has.
    pub fn base_url(&self) -> String {
        match self.lock().api {
            Api::AnthropicMessages => format!("http://{}", self.addr),
            Api::OpenAiResponses => format!("http://{}/v1", self.addr),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("the model server's state")
    }

    /// Scripts more turns after those left: for the next run of the agent, once the test knows
    /// what to script (a call id the model read).
    pub fn then(&self, steps: Vec<Step>) {
        self.lock().script.extend(steps);
    }

    /// Every request received, turns and side requests alike.
    pub fn requests(&self) -> Vec<Recorded> {
        self.lock().recorded.clone()
    }

    /// The bodies of the requests that were turns, in order.
    pub fn turns(&self) -> Vec<Value> {
        let state = self.lock();
        state.turns.iter().map(|&i| state.recorded[i].body.clone()).collect()
    }

    /// Waits until `n` turns were requested, failing the test after `within`.
    pub async fn wait_for_turns(&self, n: usize, within: std::time::Duration) {
        let mut turns = self.turns.clone();
        let reached = tokio::time::timeout(within, turns.wait_for(|count| *count >= n)).await;
        let seen = *self.turns.borrow();
        assert!(
            matches!(reached, Ok(Ok(_))),
            "the model server was asked for {seen} turns, not {n}, within {within:?}; requests: {:#?}",
            self.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect::<Vec<_>>()
        );
    }

    /// [`wait_for_turns`](Self::wait_for_turns) within [`WAIT`].
    pub async fn wait_turns(&self, n: usize) {
        self.wait_for_turns(n, WAIT).await
    }
}

impl Drop for VendorModel {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What the model was told of its call `call_id` in a turn's request: the tool result's text, the
/// parts joined by newlines. `None` when the request carries no result for that call.
pub fn tool_result(api: Api, body: &Value, call_id: &str) -> Option<String> {
    match api {
        Api::AnthropicMessages => body["messages"].as_array()?.iter().find_map(|message| {
            let blocks = message["content"].as_array()?;
            let block = blocks.iter().find(|b| b["type"] == "tool_result" && b["tool_use_id"] == call_id)?;
            Some(text_of(&block["content"]))
        }),
        Api::OpenAiResponses => body["input"].as_array()?.iter().find_map(|item| {
            (item["type"] == "function_call_output" && item["call_id"] == call_id).then(|| text_of(&item["output"]))
        }),
    }
}

/// Whether a result was marked as an error for the model (Anthropic's `is_error`); the Responses
/// API has no such flag, so there it is always `false`.
pub fn tool_result_is_error(api: Api, body: &Value, call_id: &str) -> bool {
    api == Api::AnthropicMessages
        && body["messages"].as_array().into_iter().flatten().any(|message| {
            message["content"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|b| b["type"] == "tool_result" && b["tool_use_id"] == call_id && b["is_error"] == json!(true))
        })
}

/// A result's text: a string as it is, a list of parts as their texts joined by newlines.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|p| p["text"].as_str().or(p.as_str())).collect::<Vec<_>>().join("\n")
        }
        other => other.to_string(),
    }
}

/// The names of the tools a turn's request offers the model.
pub fn offered_tools(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().or(t["function"]["name"].as_str()).map(String::from))
        .collect()
}

/// The definition of the tool `name` in the Responses namespace `namespace` that a turn offers.
pub fn namespaced_tool<'a>(body: &'a Value, namespace: &str, name: &str) -> Option<&'a Value> {
    let space = body["tools"].as_array()?.iter().find(|t| t["type"] == "namespace" && t["name"] == namespace)?;
    space["tools"].as_array()?.iter().find(|t| t["name"] == name)
}

fn is_turn(api: Api, request: &Recorded) -> bool {
    let endpoint = match api {
        Api::AnthropicMessages => "/v1/messages",
        Api::OpenAiResponses => "/v1/responses",
    };
    let path = request.path.split('?').next().unwrap_or_default();
    request.method == "POST" && path == endpoint && !offered_tools(&request.body).is_empty()
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let (status, content_type, body) = {
        let mut st = state.lock().expect("the model server's state");
        let api = st.api;
        let path = request.path.split('?').next().unwrap_or_default().to_string();
        let turn = is_turn(api, &request);
        let stream = request.body["stream"] != json!(false);
        st.recorded.push(request);
        let step = if turn {
            let index = st.recorded.len() - 1;
            st.turns.push(index);
            st.turn_count.send_replace(st.turns.len());
            st.script.pop_front().unwrap_or_else(|| Step::say(SCRIPT_ENDED))
        } else {
            Step::say("ok")
        };
        match (api, path.as_str()) {
            (Api::AnthropicMessages, "/v1/messages/count_tokens") => {
                (200, "application/json", json!({ "input_tokens": 100 }).to_string())
            }
            (Api::AnthropicMessages, "/v1/messages") if stream => (200, "text/event-stream", anthropic_sse(&step)),
            (Api::AnthropicMessages, "/v1/messages") => (200, "application/json", anthropic_message(&step).to_string()),
            (Api::OpenAiResponses, "/v1/responses") => (200, "text/event-stream", responses_sse(&step)),
            _ => (404, "application/json", json!({ "error": { "message": format!("no {path} here") } }).to_string()),
        }
    };
    let head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    if socket.write_all(head.as_bytes()).await.is_ok() && socket.write_all(body.as_bytes()).await.is_ok() {
        let _ = socket.shutdown().await;
    }
}

fn sse(events: &[(&str, Value)]) -> String {
    events.iter().map(|(name, data)| format!("event: {name}\ndata: {data}\n\n")).collect()
}

fn usage() -> Value {
    json!({ "input_tokens": 100, "output_tokens": 10 })
}

/// The whole message, for a client that did not ask for a stream.
fn anthropic_message(step: &Step) -> Value {
    let (content, stop) = match step {
        Step::Call { id, name, input, .. } => {
            (json!([{ "type": "tool_use", "id": id, "name": name, "input": input }]), "tool_use")
        }
        Step::Say(text) => (json!([{ "type": "text", "text": text }]), "end_turn"),
    };
    json!({ "id": "msg_scripted", "type": "message", "role": "assistant", "model": "scripted", "content": content,
            "stop_reason": stop, "stop_sequence": null, "usage": usage() })
}

/// A streamed Messages response: `message_start`, one content block (its start, one delta, its
/// stop), `message_delta` with the stop reason, `message_stop`.
fn anthropic_sse(step: &Step) -> String {
    let start = json!({ "type": "message_start", "message": { "id": "msg_scripted", "type": "message",
        "role": "assistant", "model": "scripted", "content": [], "stop_reason": null, "stop_sequence": null,
        "usage": { "input_tokens": 100, "output_tokens": 1 } } });
    let (block, delta, stop) = match step {
        Step::Call { id, name, input, .. } => (
            json!({ "type": "tool_use", "id": id, "name": name, "input": {} }),
            json!({ "type": "input_json_delta", "partial_json": input.to_string() }),
            "tool_use",
        ),
        Step::Say(text) => {
            (json!({ "type": "text", "text": "" }), json!({ "type": "text_delta", "text": text }), "end_turn")
        }
    };
    sse(&[
        ("message_start", start),
        ("content_block_start", json!({ "type": "content_block_start", "index": 0, "content_block": block })),
        ("content_block_delta", json!({ "type": "content_block_delta", "index": 0, "delta": delta })),
        ("content_block_stop", json!({ "type": "content_block_stop", "index": 0 })),
        (
            "message_delta",
            json!({ "type": "message_delta", "delta": { "stop_reason": stop, "stop_sequence": null },
                    "usage": { "output_tokens": 10 } }),
        ),
        ("message_stop", json!({ "type": "message_stop" })),
    ])
}

/// A streamed Responses response: `response.created`, the one output item added and done, then
/// `response.completed` carrying it with the usage.
fn responses_sse(step: &Step) -> String {
    let item = match step {
        Step::Call { id, namespace, name, input } => {
            let mut item = json!({ "type": "function_call", "id": format!("fc_{id}"), "call_id": id,
                "name": name, "arguments": input.to_string(), "status": "completed" });
            if let Some(namespace) = namespace {
                item["namespace"] = json!(namespace);
            }
            item
        }
        Step::Say(text) => json!({ "type": "message", "id": "msg_scripted", "role": "assistant",
            "status": "completed", "content": [{ "type": "output_text", "text": text, "annotations": [] }] }),
    };
    let response = |status: &str, output: Value| {
        json!({ "id": "resp_scripted", "object": "response", "status": status, "model": "scripted", "output": output,
                "usage": { "input_tokens": 100, "output_tokens": 10, "total_tokens": 110,
                           "input_tokens_details": { "cached_tokens": 0 },
                           "output_tokens_details": { "reasoning_tokens": 0 } } })
    };
    sse(&[
        ("response.created", json!({ "type": "response.created", "response": response("in_progress", json!([])) })),
        (
            "response.output_item.added",
            json!({ "type": "response.output_item.added", "output_index": 0, "item": item }),
        ),
        ("response.output_item.done", json!({ "type": "response.output_item.done", "output_index": 0, "item": item })),
        (
            "response.completed",
            json!({ "type": "response.completed", "response": response("completed", json!([item])) }),
        ),
    ])
}
