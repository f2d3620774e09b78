//! A vendor's key from the environment goes only to that vendor: `hark chat` against a local
//! OpenAI-compatible server with both vendors' variables set sends no key at all.

use std::process::Stdio;

use hark_test_support::server::{text_reply, TestServer};

#[tokio::test(flavor = "multi_thread")]
async fn environment_keys_never_reach_a_server_that_is_not_their_vendor() {
    // The shared fake server records each request's method, path, headers and body.
    let server = TestServer::start(vec![text_reply("hi from the local server")]).await;
    let dir = tempfile::tempdir().unwrap();
    let base_url = server.base_url();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_hark"))
        .args(["chat", "--provider", "openai", "--base-url", &base_url, "--model", "local", "hello"])
        .env("HARK_DATA_DIR", dir.path())
        .env("DEEPSEEK_API_KEY", "sk-deepseek-SECRET-1")
        .env("OPENAI_API_KEY", "sk-openai-SECRET-2")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("hi from the local server"), "{stdout}");

    let requests = server.requests();
    assert!(!requests.is_empty(), "the server was asked");
    for request in &requests {
        let head: String = request.headers.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect();
        let whole = format!("{} {}\r\n{head}\r\n{}", request.method, request.path, request.body);
        assert!(whole.starts_with("POST /v1/chat/completions"), "{whole}");
        assert!(!whole.to_ascii_lowercase().contains("authorization:"), "a key was sent:\n{whole}");
        assert!(!whole.contains("SECRET"), "a key leaked into the request:\n{whole}");
    }
}
