//! A local OpenAI-compatible server for the desktop tests: each request to `/chat/completions` gets
//! the next scripted reply (an HTTP error or an SSE stream), so the real HTTP client in the app is
//! exercised against a real socket.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub enum Scripted {
    /// An error status with an OpenAI-style JSON error body.
    Error(u16, &'static str),
    /// A streamed assistant message, one SSE chunk per piece.
    Text(Vec<&'static str>),
    /// One streamed tool call: id, tool name, arguments (JSON text).
    ToolCall(&'static str, &'static str, String),
}

pub struct ModelServer {
    pub base_url: String,
    requests: Arc<Mutex<usize>>,
}

impl ModelServer {
    pub async fn start(replies: Vec<Scripted>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base_url = format!("http://{}", listener.local_addr().expect("addr"));
        let requests = Arc::new(Mutex::new(0usize));
        let replies = Arc::new(Mutex::new(replies.into_iter()));
        let count = Arc::clone(&requests);
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let replies = Arc::clone(&replies);
                let count = Arc::clone(&count);
                tokio::spawn(async move {
                    if !read_request(&mut socket).await {
                        return;
                    }
                    *count.lock().expect("count") += 1;
                    let reply = replies.lock().expect("replies").next();
                    let response = match reply {
                        Some(Scripted::Error(status, message)) => {
                            let body = serde_json::json!({ "error": { "message": message } }).to_string();
                            format!(
                                "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            )
                        }
                        Some(Scripted::Text(pieces)) => {
                            let mut body = String::new();
                            for piece in pieces {
                                let chunk = serde_json::json!({ "choices": [{ "index": 0, "delta": { "content": piece }, "finish_reason": null }] });
                                body.push_str(&format!("data: {chunk}\n\n"));
                            }
                            let end = serde_json::json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] });
                            body.push_str(&format!("data: {end}\n\ndata: [DONE]\n\n"));
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            )
                        }
                        Some(Scripted::ToolCall(id, name, arguments)) => {
                            let call = serde_json::json!({ "index": 0, "id": id, "type": "function",
                                "function": { "name": name, "arguments": arguments } });
                            let chunk = serde_json::json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [call] }, "finish_reason": null }] });
                            let end = serde_json::json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "tool_calls" }] });
                            let body = format!("data: {chunk}\n\ndata: {end}\n\ndata: [DONE]\n\n");
                            format!(
                                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                                body.len()
                            )
                        }
                        None => "HTTP/1.1 500 Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_string(),
                    };
                    let _ = socket.write_all(response.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        ModelServer { base_url, requests }
    }

    pub fn requests(&self) -> usize {
        *self.requests.lock().expect("count")
    }
}

/// Reads one HTTP request (headers and a content-length body).
async fn read_request(socket: &mut tokio::net::TcpStream) -> bool {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let Ok(n) = socket.read(&mut chunk).await else { return false };
        if n == 0 {
            return false;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf);
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0))
                })
                .unwrap_or(0usize);
            if buf.len() >= end + 4 + length {
                return true;
            }
        }
    }
}
