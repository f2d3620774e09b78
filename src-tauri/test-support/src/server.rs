//! The one fake OpenAI-compatible server: a scripted HTTP/1.1 server on 127.0.0.1. Each accepted
//! request gets the next scripted response; streamed bodies are written piece by piece with pauses,
//! and a response can hold the connection open, or repeat its last piece forever, to observe when
//! the client closes it.
//!
//! It is strict unless a test asks otherwise: before taking a scripted reply it checks each request
//! the way OpenAI and DeepSeek do (tool messages right after the call they answer, at most 128
//! tools, the context window) and refuses a bad one with their 400 body. A test that sends such a
//! request on purpose starts it with [`TestServer::lenient`].

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

use crate::wait::WAIT;

/// What the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// How a response ends once its pieces are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Terminate the chunked body and close.
    Complete,
    /// Keep the connection open without writing, until the client closes it.
    Hold,
    /// Write the last piece again and again, after its pause each time, until the client closes the
    /// connection: a model that never stops.
    Repeat,
}

#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Written as HTTP chunks, each after its pause.
    pub pieces: Vec<(Duration, Vec<u8>)>,
    pub ending: Ending,
    /// Wait this long before writing the status line.
    pub delay_headers: Duration,
}

impl Reply {
    /// A 200 SSE response with one event per `data:` payload.
    pub fn sse(payloads: &[&str]) -> Reply {
        let body: String = payloads.iter().map(|p| format!("data: {p}\n\n")).collect();
        Reply::raw_sse(&body)
    }

    /// A 200 SSE response with an exact body, written in one piece.
    pub fn raw_sse(body: &str) -> Reply {
        Reply {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            pieces: vec![(Duration::ZERO, body.as_bytes().to_vec())],
            ending: Ending::Complete,
            delay_headers: Duration::ZERO,
        }
    }

    /// A 200 SSE response that writes `head`, then `forever` every millisecond until the client
    /// closes the connection. The pause keeps a client without limits from eating memory too fast
    /// while the test waits for it to fail.
    pub fn endless(head: &str, forever: &str) -> Reply {
        Reply::sse_pieces(&[(0, head), (1, forever)], Ending::Repeat)
    }

    /// A 200 SSE response written as separate pieces with a pause before each.
    pub fn sse_pieces(pieces: &[(u64, &str)], ending: Ending) -> Reply {
        Reply {
            pieces: pieces.iter().map(|(ms, p)| (Duration::from_millis(*ms), p.as_bytes().to_vec())).collect(),
            ending,
            ..Reply::raw_sse("")
        }
    }

    pub fn status(status: u16, content_type: &str, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            pieces: vec![(Duration::ZERO, body.as_bytes().to_vec())],
            ending: Ending::Complete,
            delay_headers: Duration::ZERO,
        }
    }

    pub fn json(status: u16, body: Value) -> Reply {
        Reply::status(status, "application/json", &body.to_string())
    }

    /// An error status with an OpenAI-style JSON error body.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply::json(status, json!({ "error": { "message": message } }))
    }

    /// The same pieces and ending under another status and content type.
    pub fn with_status(mut self, status: u16, content_type: &str) -> Reply {
        self.status = status;
        self.headers = vec![("content-type".into(), content_type.into())];
        self
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Reply {
        self.delay_headers = delay;
        self
    }
}

/// One streamed Chat Completions chunk carrying `delta`, and `finish` when it is the last one.
pub fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({ "id": "c", "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] })
        .to_string()
}

/// An assistant message streamed in two halves, then `stop`.
pub fn text_reply(text: &str) -> Reply {
    let (a, b) = text.split_at(text.len() / 2);
    text_pieces(&[a, b])
}

/// An assistant message streamed one chunk per piece, then `stop`.
pub fn text_pieces(pieces: &[&str]) -> Reply {
    let mut payloads: Vec<String> = pieces
        .iter()
        .enumerate()
        .map(|(i, piece)| {
            let delta =
                if i == 0 { json!({ "role": "assistant", "content": piece }) } else { json!({ "content": piece }) };
            chunk(delta, None)
        })
        .collect();
    payloads.push(chunk(json!({}), Some("stop")));
    payloads.push("[DONE]".into());
    let refs: Vec<&str> = payloads.iter().map(String::as_str).collect();
    Reply::sse(&refs)
}

/// An assistant message with `text` and the tool calls `(id, name, arguments)`, then `tool_calls`.
pub fn tool_reply(text: &str, calls: &[(&str, &str, String)]) -> Reply {
    let mut payloads = vec![chunk(json!({ "role": "assistant", "content": text }), None)];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        payloads.push(chunk(
            json!({ "tool_calls": [{ "index": i, "id": id, "type": "function", "function": { "name": name, "arguments": args } }] }),
            None,
        ));
    }
    payloads.push(chunk(json!({}), Some("tool_calls")));
    payloads.push("[DONE]".into());
    let refs: Vec<&str> = payloads.iter().map(String::as_str).collect();
    Reply::sse(&refs)
}

/// What a strict server enforces.
#[derive(Debug, Clone, Copy)]
pub struct Strict {
    /// The model's context window in this server's own count (see [`server_tokens`]): the messages
    /// and tools plus the `max_tokens` the request asks for must fit, as DeepSeek and vLLM require.
    pub context_tokens: usize,
}

/// The window a server has unless a test names another: DeepSeek's 64K, which is also the window
/// the agent assumes by default, so an agent test that overflows it is caught without asking.
pub const DEFAULT_CONTEXT_TOKENS: usize = 65_536;

impl Default for Strict {
    fn default() -> Strict {
        Strict { context_tokens: DEFAULT_CONTEXT_TOKENS }
    }
}

/// Why a strict server refused a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// Over the context window: the request's count.
    ContextLength { requested: usize },
    /// A tool message out of place or a call without its result; the server's message.
    ToolOrder(String),
    /// More tools than OpenAI takes in one request: how many were sent.
    TooManyTools { sent: usize },
}

/// The most tools OpenAI takes in one request.
pub const OPENAI_MAX_TOOLS: usize = 128;

/// How a strict server counts a request: a quarter of the JSON bytes of its messages and tools (a
/// common tokenizer's rate for English and code, and not the agent's own estimate), plus the reply's
/// `max_tokens`.
pub fn server_tokens(body: &Value) -> usize {
    let bytes = |key: &str| body.get(key).map_or(0, |v| v.to_string().len());
    (bytes("messages") + bytes("tools")) / 4 + body["max_tokens"].as_u64().unwrap_or(0) as usize
}

/// The OpenAI rule: an assistant message with `tool_calls` is followed directly by one tool message
/// per call, and a tool message answers a call of the assistant message just before it.
pub fn tool_order_violation(messages: &[Value]) -> Option<String> {
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        if m["role"] == "tool" {
            return Some(format!(
                "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with \
                 'tool_calls' (message {i}, tool_call_id {})",
                m["tool_call_id"]
            ));
        }
        i += 1;
        let Some(calls) = m["tool_calls"].as_array().filter(|_| m["role"] == "assistant") else { continue };
        let mut open: Vec<&Value> = calls.iter().map(|c| &c["id"]).collect();
        while i < messages.len() && messages[i]["role"] == "tool" {
            let id = &messages[i]["tool_call_id"];
            match open.iter().position(|c| *c == id) {
                Some(p) => {
                    open.remove(p);
                }
                None => {
                    return Some(format!(
                        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message \
                         with 'tool_calls' (message {i}, tool_call_id {id})"
                    ))
                }
            }
            i += 1;
        }
        if !open.is_empty() {
            let ids: Vec<String> = open.iter().map(|c| c.to_string()).collect();
            return Some(format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each \
                 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                ids.join(", ")
            ));
        }
    }
    None
}

impl Strict {
    /// The refusal for `body`, if any, and the reply a real server would send with it.
    fn check(&self, body: &Value) -> Option<(Rejection, Reply)> {
        let messages = body["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
        if let Some(message) = tool_order_violation(messages) {
            let error = json!({ "error": { "message": message, "type": "invalid_request_error",
                                           "param": "messages", "code": null } });
            return Some((Rejection::ToolOrder(message), Reply::json(400, error)));
        }
        let tools = body["tools"].as_array().map_or(0, Vec::len);
        if tools > OPENAI_MAX_TOOLS {
            let message = format!(
                "Invalid 'tools': array too long. Expected an array with maximum length {OPENAI_MAX_TOOLS}, but got an \
                 array with length {tools} instead."
            );
            let error = json!({ "error": { "message": message, "type": "invalid_request_error",
                                           "param": "tools", "code": "array_above_max_length" } });
            return Some((Rejection::TooManyTools { sent: tools }, Reply::json(400, error)));
        }
        let requested = server_tokens(body);
        if requested > self.context_tokens {
            let completion = body["max_tokens"].as_u64().unwrap_or(0);
            let message = format!(
                "This model's maximum context length is {} tokens. However, you requested {requested} tokens \
                 ({} in the messages, {completion} in the completion). Please reduce the length of the messages \
                 or completion.",
                self.context_tokens,
                requested - completion as usize,
            );
            let error = json!({ "error": { "message": message, "type": "invalid_request_error",
                                           "param": "messages", "code": "context_length_exceeded" } });
            return Some((Rejection::ContextLength { requested }, Reply::json(400, error)));
        }
        None
    }
}

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    recorded: Vec<Recorded>,
    /// Index into `recorded`, and why it was refused.
    rejected: Vec<(usize, Rejection)>,
    strict: Option<Strict>,
    client_closed: usize,
    count: watch::Sender<usize>,
}

pub struct TestServer {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    closed: Arc<Notify>,
    /// How many requests arrived: the server's own event, so a test waits on it instead of polling.
    received: watch::Receiver<usize>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// A strict server (see [`Strict::default`]): a request OpenAI or DeepSeek would refuse gets
    /// their 400 instead of a scripted reply.
    pub async fn start(replies: Vec<Reply>) -> TestServer {
        TestServer::start_strict(replies, Strict::default()).await
    }

    /// A strict server with its own limits: refuses, with a 400 and without using up a scripted
    /// reply, every request that `strict` rejects.
    pub async fn start_strict(replies: Vec<Reply>, strict: Strict) -> TestServer {
        TestServer::launch(replies, Some(strict)).await
    }

    /// A server that answers whatever it is sent: only for a test that sends what a real server
    /// would refuse on purpose. No test needs one today; it stays so such a test says so by name.
    pub async fn lenient(replies: Vec<Reply>) -> TestServer {
        TestServer::launch(replies, None).await
    }

    async fn launch(replies: Vec<Reply>, strict: Option<Strict>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind a local port for the model server");
        let addr = listener.local_addr().expect("the model server's address");
        let (count, received) = watch::channel(0);
        let state = Arc::new(Mutex::new(State { replies: replies.into(), strict, count, ..State::default() }));
        let closed = Arc::new(Notify::new());
        let (s, c) = (state.clone(), closed.clone());
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, s.clone(), c.clone()));
            }
        });
        TestServer { addr, state, closed, received, task }
    }

    /// Waits until the server has received `n` requests in all, failing the test after [`WAIT`].
    pub async fn wait_for_requests(&self, n: usize) {
        let mut received = self.received.clone();
        let reached = tokio::time::timeout(WAIT, received.wait_for(|count| *count >= n)).await;
        let seen = *self.received.borrow();
        assert!(matches!(reached, Ok(Ok(_))), "the model server received {seen} requests, not {n}, within {WAIT:?}");
    }

    /// The base URL, with `/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().expect("the model server's state").recorded.clone()
    }

    /// The refused requests: their index in [`requests`](Self::requests) and why.
    pub fn rejections(&self) -> Vec<(usize, Rejection)> {
        self.state.lock().expect("the model server's state").rejected.clone()
    }

    /// Waits (bounded) until a held connection has seen the client close it.
    pub async fn wait_client_closed(&self, limit: Duration) -> bool {
        let wait = async {
            loop {
                let notified = self.closed.notified();
                if self.state.lock().expect("the model server's state").client_closed > 0 {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>, closed: Arc<Notify>) {
    let Some(recorded) = read_request(&mut socket).await else {
        return;
    };
    let reply = {
        let mut st = state.lock().expect("the model server's state");
        let refusal = st.strict.and_then(|strict| strict.check(&recorded.body));
        st.recorded.push(recorded);
        st.count.send_replace(st.recorded.len());
        match refusal {
            Some((why, reply)) => {
                let index = st.recorded.len() - 1;
                st.rejected.push((index, why));
                Some(reply)
            }
            None => st.replies.pop_front(),
        }
    };
    let reply = reply.unwrap_or_else(|| Reply::status(599, "text/plain", "the test scripted no more replies"));
    tokio::time::sleep(reply.delay_headers).await;
    let mut head = format!("HTTP/1.1 {} X\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("transfer-encoding: chunked\r\nconnection: close\r\n\r\n");
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for (pause, piece) in &reply.pieces {
        tokio::time::sleep(*pause).await;
        if write_chunk(&mut socket, piece).await.is_err() {
            return;
        }
    }
    match reply.ending {
        Ending::Repeat => {
            let (pause, piece) = reply.pieces.last().cloned().unwrap_or_default();
            // Bounded: a client that never stops reading must not keep the server task alive forever.
            let closed_by_client = tokio::time::timeout(Duration::from_secs(30), async {
                loop {
                    tokio::time::sleep(pause).await;
                    if write_chunk(&mut socket, &piece).await.is_err() {
                        return;
                    }
                }
            })
            .await
            .is_ok();
            if closed_by_client {
                state.lock().expect("the model server's state").client_closed += 1;
                closed.notify_waiters();
            }
        }
        Ending::Complete => {
            let _ = socket.write_all(b"0\r\n\r\n").await;
            let _ = socket.shutdown().await;
        }
        Ending::Hold => {
            // Bounded: a test that never closes must not keep the server task alive forever.
            let mut buf = [0u8; 1024];
            let eof = tokio::time::timeout(Duration::from_secs(20), async {
                loop {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(_) => continue,
                    }
                }
            })
            .await
            .is_ok();
            if eof {
                state.lock().expect("the model server's state").client_closed += 1;
                closed.notify_waiters();
            }
        }
    }
}

async fn write_chunk(socket: &mut TcpStream, piece: &[u8]) -> std::io::Result<()> {
    if piece.is_empty() {
        return Ok(());
    }
    let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
    chunk.extend_from_slice(piece);
    chunk.extend_from_slice(b"\r\n");
    socket.write_all(&chunk).await
}

pub(crate) async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 4096];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut start = lines.next()?.split(' ');
    let method = start.next()?.to_string();
    let path = start.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    while buf.len() < head_end + length {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    Some(Recorded { method, path, headers, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Posts `body` as a client would and returns the status line and the (de-chunked enough) body.
    async fn post(server: &TestServer, body: &Value) -> (String, String) {
        let mut socket = TcpStream::connect(server.addr).await.expect("connect");
        let body = body.to_string();
        let head = format!(
            "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        socket.write_all(head.as_bytes()).await.expect("write head");
        socket.write_all(body.as_bytes()).await.expect("write body");
        let mut answer = String::new();
        socket.read_to_string(&mut answer).await.expect("read the reply");
        let status = answer.lines().next().unwrap_or_default().to_string();
        (status, answer)
    }

    fn call(id: &str) -> Value {
        json!({ "role": "assistant", "content": "", "tool_calls": [{ "id": id, "type": "function",
                "function": { "name": "f", "arguments": "{}" } }] })
    }

    #[tokio::test]
    async fn a_strict_server_refuses_tool_messages_out_of_place_and_requests_over_its_window() {
        let server = TestServer::start_strict(vec![text_reply("fine")], Strict { context_tokens: 1_000 }).await;
        let user = json!({ "role": "user", "content": "hi" });
        let result = |id: &str| json!({ "role": "tool", "tool_call_id": id, "content": "done" });

        // A user message between the call and its result.
        let split = json!({ "messages": [user, call("a"), user, result("a")] });
        let (status, body) = post(&server, &split).await;
        assert!(status.contains(" 400 "), "{status}");
        assert!(body.contains("invalid_request_error") && body.contains("tool_call_id"), "{body}");
        // A call left without its result.
        let (status, body) = post(&server, &json!({ "messages": [user, call("b"), user] })).await;
        assert!(status.contains(" 400 ") && body.contains("did not have response messages"), "{body}");
        // Over the window, counting the reply's room.
        let (status, body) = post(&server, &json!({ "messages": [user], "max_tokens": 2_000 })).await;
        assert!(status.contains(" 400 ") && body.contains("context_length_exceeded"), "{body}");

        // None of these used up the scripted reply; a good request gets it.
        let good = json!({ "messages": [user, call("c"), result("c")], "max_tokens": 100 });
        let (status, body) = post(&server, &good).await;
        assert!(status.contains(" 200 ") && body.contains("fi"), "{body}");
        let why: Vec<Rejection> = server.rejections().into_iter().map(|(_, why)| why).collect();
        assert!(
            matches!(
                why.as_slice(),
                [Rejection::ToolOrder(_), Rejection::ToolOrder(_), Rejection::ContextLength { .. }]
            ),
            "{why:?}"
        );
        server.wait_for_requests(4).await;
    }

    #[tokio::test]
    async fn a_lenient_server_answers_what_a_strict_one_refuses() {
        let server = TestServer::lenient(vec![text_reply("fine")]).await;
        let orphan = json!({ "messages": [{ "role": "tool", "tool_call_id": "x", "content": "?" }] });
        let (status, _) = post(&server, &orphan).await;
        assert!(status.contains(" 200 "), "{status}");
        assert!(server.rejections().is_empty());
    }
}
