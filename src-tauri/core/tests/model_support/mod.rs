//! A scripted HTTP/1.1 server on 127.0.0.1 for the model provider tests. Each accepted request gets
//! the next scripted response; streamed bodies are written piece by piece with pauses, and a
//! response can hold the connection open, or repeat its last piece forever, to observe when the
//! client closes it.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

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

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    recorded: Vec<Recorded>,
    client_closed: usize,
}

pub struct TestServer {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    closed: Arc<Notify>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    pub async fn start(replies: Vec<Reply>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let state = Arc::new(Mutex::new(State { replies: replies.into(), ..State::default() }));
        let closed = Arc::new(Notify::new());
        let (s, c) = (state.clone(), closed.clone());
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, s.clone(), c.clone()));
            }
        });
        TestServer { addr, state, closed, task }
    }

    /// The base URL, with `/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().expect("state").recorded.clone()
    }

    /// Waits (bounded) until a held connection has seen the client close it.
    pub async fn wait_client_closed(&self, limit: Duration) -> bool {
        let wait = async {
            loop {
                let notified = self.closed.notified();
                if self.state.lock().expect("state").client_closed > 0 {
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
        let mut st = state.lock().expect("state");
        st.recorded.push(recorded);
        st.replies.pop_front()
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
                state.lock().expect("state").client_closed += 1;
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
                state.lock().expect("state").client_closed += 1;
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

async fn read_request(socket: &mut TcpStream) -> Option<Recorded> {
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
