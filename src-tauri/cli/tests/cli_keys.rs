//! A vendor's key from the environment goes only to that vendor: `hark chat` against a local
//! OpenAI-compatible server with both vendors' variables set sends no key at all.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// One streamed reply saying "hi" and stopping, as Chat Completions sends it.
const REPLY: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi from the local server\"},\"finish_reason\":null}]}\n\n\
data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: [DONE]\n\n";

/// Accepts connections until the test ends, sending each request's head and body to `seen`.
fn capture_server() -> (u16, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = tx.send(format!("{head}\r\n{}", String::from_utf8_lossy(&body)));
            let _ = stream.write_all(REPLY.as_bytes());
        }
    });
    (port, rx)
}

#[test]
fn environment_keys_never_reach_a_server_that_is_not_their_vendor() {
    let (port, seen) = capture_server();
    let dir = tempfile::tempdir().unwrap();
    let base_url = format!("http://127.0.0.1:{port}/v1");
    let out = Command::new(env!("CARGO_BIN_EXE_hark"))
        .args(["chat", "--provider", "openai", "--base-url", &base_url, "--model", "local", "hello"])
        .env("HARK_DATA_DIR", dir.path())
        .env("DEEPSEEK_API_KEY", "sk-deepseek-SECRET-1")
        .env("OPENAI_API_KEY", "sk-openai-SECRET-2")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("hi from the local server"), "{stdout}");

    let requests: Vec<String> = std::iter::from_fn(|| seen.recv_timeout(Duration::from_millis(200)).ok()).collect();
    assert!(!requests.is_empty(), "the server was asked");
    for request in &requests {
        assert!(request.starts_with("POST /v1/chat/completions"), "{request}");
        assert!(!request.to_ascii_lowercase().contains("authorization:"), "a key was sent:\n{request}");
        assert!(!request.contains("SECRET"), "a key leaked into the request:\n{request}");
    }
}
