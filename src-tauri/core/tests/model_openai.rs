//! The OpenAI-compatible provider against a scripted local HTTP server: streaming, tool-call
//! assembly, request rendering, error mapping, retries, timeouts and cancellation.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hark_core::error::CodedError;
use hark_core::model::{
    ApiKey, ChatMessage, ModelError, ModelEvent, ModelProvider, ModelRequest, OpenAiConfig, OpenAiProvider,
    ToolCallRequest,
};
use hark_test_support::server::{Ending, Reply, TestServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

type Item = Result<ModelEvent, ModelError>;

fn config(server: &TestServer) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(server.base_url(), "test-model", None);
    c.connect_timeout = Duration::from_secs(2);
    c.read_timeout = Duration::from_secs(5);
    c.backoff_base = Duration::from_millis(1);
    c.max_backoff = Duration::from_millis(4);
    c
}

fn provider(config: OpenAiConfig) -> Arc<dyn ModelProvider> {
    Arc::new(OpenAiProvider::new(config).expect("provider"))
}

fn hello_request() -> ModelRequest {
    ModelRequest::new(vec![ChatMessage::user("hi")], vec![])
}

fn delta(delta: Value) -> String {
    json!({ "id": "c1", "object": "chat.completion.chunk", "choices": [{ "index": 0, "delta": delta, "finish_reason": null }] })
        .to_string()
}

fn text(t: &str) -> String {
    delta(json!({ "content": t }))
}

fn finish(reason: &str) -> String {
    json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": reason }] }).to_string()
}

fn usage() -> String {
    json!({ "choices": [], "usage": { "prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18 } }).to_string()
}

/// Everything the stream yields, bounded in time so a hung stream fails the test instead of CI.
async fn collect(provider: &dyn ModelProvider, request: ModelRequest) -> Result<Vec<Item>, ModelError> {
    let mut rx = provider.stream(request, CancellationToken::new()).await?;
    let mut items = Vec::new();
    let drain = async {
        while let Some(item) = rx.recv().await {
            items.push(item);
        }
    };
    tokio::time::timeout(Duration::from_secs(10), drain).await.expect("the stream ended");
    Ok(items)
}

fn texts(items: &[Item]) -> String {
    items
        .iter()
        .filter_map(|i| match i {
            Ok(ModelEvent::TextDelta(t)) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

fn refs(payloads: &[String]) -> Vec<&str> {
    payloads.iter().map(String::as_str).collect()
}

#[tokio::test]
async fn streams_text_usage_and_finish_in_order() {
    let payloads = [
        delta(json!({ "role": "assistant", "content": "" })),
        text("Hel"),
        text("lo, "),
        text("wörld ✓"),
        finish("stop"),
        usage(),
        "[DONE]".to_string(),
    ];
    let server = TestServer::start(vec![Reply::sse(&refs(&payloads))]).await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("stream");
    let events: Vec<ModelEvent> = items.into_iter().map(|i| i.expect("no error")).collect();
    assert_eq!(
        events,
        vec![
            ModelEvent::TextDelta("Hel".into()),
            ModelEvent::TextDelta("lo, ".into()),
            ModelEvent::TextDelta("wörld ✓".into()),
            ModelEvent::Usage(json!({ "prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18 })),
            ModelEvent::Finished { finish_reason: Some("stop".into()) },
        ]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(r.body["model"], "test-model");
    assert_eq!(r.body["stream"], true);
    assert_eq!(r.body["stream_options"], json!({ "include_usage": true }));
    assert!(r.body.get("tools").is_none(), "no tools → no tools key: {}", r.body);
    assert_eq!(r.header("authorization"), None, "no key → no Authorization header");
    assert_eq!(r.header("accept"), Some("text/event-stream"));
}

#[tokio::test]
async fn sse_split_mid_line_and_keep_alive_comments_are_handled() {
    let body = format!(
        "{}\n\n: keep-alive\n\ndata: {}\r\n\r\ndata: {}\n\ndata: [DONE]\n\n",
        "data: ".to_owned() + &text("a"),
        text("b"),
        finish("stop")
    );
    let (first, rest) = body.split_at(9);
    let (second, third) = rest.split_at(40);
    let server =
        TestServer::start(vec![Reply::sse_pieces(&[(0, first), (20, second), (20, third)], Ending::Complete)]).await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("stream");
    assert_eq!(texts(&items), "ab");
    assert_eq!(items.last(), Some(&Ok(ModelEvent::Finished { finish_reason: Some("stop".into()) })));
}

#[tokio::test]
async fn reasoning_content_streams_as_reasoning() {
    let payloads = [
        delta(json!({ "reasoning_content": "Think" })),
        delta(json!({ "reasoning_content": "ing.", "content": null })),
        delta(json!({ "content": "Answer" })),
        finish("stop"),
        "[DONE]".to_string(),
    ];
    let server = TestServer::start(vec![Reply::sse(&refs(&payloads))]).await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("stream");
    let events: Vec<ModelEvent> = items.into_iter().map(|i| i.expect("no error")).collect();
    assert_eq!(
        events,
        vec![
            ModelEvent::ReasoningDelta("Think".into()),
            ModelEvent::ReasoningDelta("ing.".into()),
            ModelEvent::TextDelta("Answer".into()),
            ModelEvent::Finished { finish_reason: Some("stop".into()) },
        ]
    );
}

#[tokio::test]
async fn two_tool_calls_with_fragmented_arguments_are_assembled() {
    let call = |index: u32, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut function = json!({ "arguments": args });
        if let Some(name) = name {
            function["name"] = json!(name);
        }
        let mut c = json!({ "index": index, "function": function });
        if let Some(id) = id {
            c["id"] = json!(id);
            c["type"] = json!("function");
        }
        delta(json!({ "tool_calls": [c] }))
    };
    let payloads = [
        text("Let me check."),
        call(0, Some("call_a"), Some("list_dir"), ""),
        call(0, None, None, "{\"pa"),
        call(1, Some("call_b"), Some("ask_user_question"), "{\"questions\":"),
        call(0, None, None, "th\": \".\"}"),
        call(1, None, None, "[{\"id\":\"db\",\"question\":\"Which?\"}]}"),
        finish("tool_calls"),
        usage(),
        "[DONE]".to_string(),
    ];
    let server = TestServer::start(vec![Reply::sse(&refs(&payloads))]).await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("stream");
    let events: Vec<ModelEvent> = items.into_iter().map(|i| i.expect("no error")).collect();
    assert_eq!(
        events,
        vec![
            ModelEvent::TextDelta("Let me check.".into()),
            ModelEvent::ToolCall(ToolCallRequest {
                id: "call_a".into(),
                name: "list_dir".into(),
                arguments: "{\"path\": \".\"}".into()
            }),
            ModelEvent::ToolCall(ToolCallRequest {
                id: "call_b".into(),
                name: "ask_user_question".into(),
                arguments: "{\"questions\":[{\"id\":\"db\",\"question\":\"Which?\"}]}".into()
            }),
            ModelEvent::Usage(json!({ "prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18 })),
            ModelEvent::Finished { finish_reason: Some("tool_calls".into()) },
        ]
    );
}

#[tokio::test]
async fn request_renders_history_tools_and_bearer_key() {
    let server = TestServer::start(vec![Reply::sse(&[&finish("stop"), "[DONE]"])]).await;
    let mut cfg = config(&server);
    cfg.api_key = ApiKey::from_optional(Some(" k \n".into()));
    let request = ModelRequest::new(
        vec![
            ChatMessage::system("be brief"),
            ChatMessage::user("list files"),
            ChatMessage::Assistant {
                content: String::new(),
                reasoning: Some("private".into()),
                tool_calls: vec![
                    ToolCallRequest { id: "c1".into(), name: "list_dir".into(), arguments: "{\"path\":\".\"}".into() },
                    ToolCallRequest { id: "c2".into(), name: "noop".into(), arguments: String::new() },
                ],
            },
            ChatMessage::tool("c1", "a.txt"),
            ChatMessage::tool("c2", "done"),
            ChatMessage::assistant("Found a.txt."),
        ],
        vec![
            json!({ "name": "list_dir", "description": "List a folder", "parameters": { "type": "object" } }),
            json!({ "type": "function", "function": { "name": "noop", "parameters": { "type": "object" } } }),
        ],
    );
    collect(&*provider(cfg), request).await.expect("stream");
    let r = &server.requests()[0];
    assert_eq!(r.header("authorization"), Some("Bearer k"));
    assert_eq!(
        r.body["messages"],
        json!([
            { "role": "system", "content": "be brief" },
            { "role": "user", "content": "list files" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "list_dir", "arguments": "{\"path\":\".\"}" } },
                { "id": "c2", "type": "function", "function": { "name": "noop", "arguments": "{}" } }
            ] },
            { "role": "tool", "tool_call_id": "c1", "content": "a.txt" },
            { "role": "tool", "tool_call_id": "c2", "content": "done" },
            { "role": "assistant", "content": "Found a.txt." }
        ])
    );
    assert_eq!(
        r.body["tools"],
        json!([
            { "type": "function", "function": { "name": "list_dir", "description": "List a folder", "parameters": { "type": "object" } } },
            { "type": "function", "function": { "name": "noop", "parameters": { "type": "object" } } }
        ])
    );
}

#[tokio::test]
async fn unauthorized_is_model_auth_and_never_shows_the_key() {
    let secret = "sk-test-0123456789abcdef";
    let server = TestServer::start(vec![Reply::json(
        401,
        json!({ "error": { "message": format!("Incorrect API key provided: {secret}."), "type": "invalid_request_error" } }),
    )])
    .await;
    let mut cfg = config(&server);
    cfg.api_key = Some(ApiKey::new(secret));
    let config_debug = format!("{cfg:?}");
    let err = collect(&*provider(cfg), hello_request()).await.expect_err("401 fails");
    assert_eq!(err.code(), "MODEL_AUTH");
    assert_eq!(err.status(), Some(401));
    assert!(!err.retryable());
    assert!(err.message().contains("Incorrect API key provided"), "server text kept: {err}");
    assert!(err.message().contains("API key"), "says what to fix: {err}");
    let serialized = serde_json::to_string(&err.boundary()).expect("serialize");
    for shown in [err.to_string(), format!("{err:?}"), serialized, config_debug] {
        assert!(!shown.contains(secret), "key leaked: {shown}");
    }
    assert_eq!(format!("{:?}", ApiKey::new(secret)), "***");
    assert_eq!(server.requests().len(), 1, "auth failures are not retried");
}

#[tokio::test]
async fn forbidden_without_a_key_says_none_is_set() {
    let server = TestServer::start(vec![Reply::status(403, "text/plain", "forbidden")]).await;
    let err = collect(&*provider(config(&server)), hello_request()).await.expect_err("403 fails");
    assert_eq!(err.code(), "MODEL_AUTH");
    assert!(err.message().contains("none is set") && err.message().contains("forbidden"), "{err}");
}

#[tokio::test]
async fn server_error_then_success_is_retried() {
    let server = TestServer::start(vec![
        Reply::json(500, json!({ "error": { "message": "overloaded" } })),
        Reply::sse(&[&text("ok"), &finish("stop"), "[DONE]"]),
    ])
    .await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("retried into success");
    assert_eq!(texts(&items), "ok");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the same request was sent twice");
    assert_eq!(requests[0].body, requests[1].body);
}

#[tokio::test]
async fn rate_limit_honours_retry_after_zero() {
    let server = TestServer::start(vec![
        Reply::json(429, json!({ "error": { "message": "slow down" } })).with_header("retry-after", "0"),
        Reply::sse(&[&text("ok"), &finish("stop"), "[DONE]"]),
    ])
    .await;
    let mut cfg = config(&server);
    // With Retry-After: 0 the long backoff must not apply.
    cfg.backoff_base = Duration::from_secs(5);
    cfg.max_backoff = Duration::from_secs(5);
    let started = Instant::now();
    let items = collect(&*provider(cfg), hello_request()).await.expect("retried into success");
    assert_eq!(texts(&items), "ok");
    assert_eq!(server.requests().len(), 2);
    assert!(started.elapsed() < Duration::from_secs(3), "Retry-After: 0 was not honoured");
}

#[tokio::test]
async fn retry_after_is_capped() {
    let server = TestServer::start(vec![
        Reply::json(429, json!({ "error": { "message": "slow down" } })).with_header("retry-after", "3600"),
        Reply::json(429, json!({ "error": { "message": "still too fast" } })).with_header("retry-after", "3600"),
    ])
    .await;
    let mut cfg = config(&server);
    cfg.max_retries = 1;
    cfg.max_retry_after = Duration::from_millis(200);
    let started = Instant::now();
    let err = collect(&*provider(cfg), hello_request()).await.expect_err("rate limited");
    let elapsed = started.elapsed();
    assert_eq!(err.code(), "MODEL_RATE_LIMITED");
    assert!(err.retryable());
    assert!(err.message().contains("still too fast"), "{err}");
    assert!(elapsed >= Duration::from_millis(200), "waited the capped Retry-After: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "the cap applied: {elapsed:?}");
}

#[tokio::test]
async fn retries_exhausted_is_model_server() {
    let failing = || Reply::json(503, json!({ "error": { "message": "down for maintenance" } }));
    let server = TestServer::start(vec![failing(), failing(), failing(), failing()]).await;
    let mut cfg = config(&server);
    cfg.max_retries = 2;
    let err = collect(&*provider(cfg), hello_request()).await.expect_err("gives up");
    assert_eq!(err.code(), "MODEL_SERVER");
    assert_eq!(err.status(), Some(503));
    assert!(err.message().contains("down for maintenance") && err.message().contains("3 attempts"), "{err}");
    assert_eq!(server.requests().len(), 3, "one attempt plus max_retries");
}

#[tokio::test]
async fn other_client_errors_are_model_http_with_the_server_message() {
    let server = TestServer::start(vec![
        Reply::json(400, json!({ "error": { "message": "Model Not Exist" } })),
        Reply::json(404, json!({ "error": "model 'nope' not found" })),
    ])
    .await;
    let p = provider(config(&server));
    let bad = collect(&*p, hello_request()).await.expect_err("400");
    assert_eq!((bad.code(), bad.status()), ("MODEL_HTTP", Some(400)));
    assert!(bad.message().contains("Model Not Exist"), "{bad}");
    let missing = collect(&*p, hello_request()).await.expect_err("404");
    assert_eq!(missing.code(), "MODEL_HTTP");
    assert!(missing.message().contains("model 'nope' not found"), "{missing}");
    assert!(missing.message().contains(&format!("{}/chat/completions", server.base_url())), "names the URL: {missing}");
    assert_eq!(server.requests().len(), 2, "client errors are not retried");
}

#[tokio::test]
async fn a_context_length_refusal_is_recognised_and_keeps_its_code() {
    let too_long = json!({ "error": {
        "message": "This model's maximum context length is 65536 tokens. However, you requested 70123 tokens \
                    (61931 in the messages, 8192 in the completion). Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded" } });
    // Worded unlike any known server: the code alone tells.
    let coded = json!({ "error": { "message": "Request rejected.", "code": "context_length_exceeded" } });
    let server = TestServer::start(vec![
        Reply::json(400, too_long),
        Reply::json(400, coded),
        Reply::json(400, json!({ "error": { "message": "Model Not Exist", "code": "invalid_request_error" } })),
    ])
    .await;
    let p = provider(config(&server));
    for _ in 0..2 {
        let err = collect(&*p, hello_request()).await.expect_err("400");
        assert_eq!((err.code(), err.status()), ("MODEL_HTTP", Some(400)));
        assert!(err.is_context_length(), "{err}");
        assert!(err.message().contains("[context_length_exceeded]"), "{err}");
    }
    let other = collect(&*p, hello_request()).await.expect_err("400");
    assert!(!other.is_context_length(), "{other}");
    assert_eq!(server.requests().len(), 3, "none of them is retried");
}

#[tokio::test]
async fn malformed_chunk_ends_the_stream_after_the_good_deltas() {
    let server = TestServer::start(vec![Reply::raw_sse(&format!(
        "data: {}\n\ndata: {}\n\ndata: {{\"choices\": [oops\n\ndata: {}\n\n",
        text("Hel"),
        text("lo"),
        text("never")
    ))])
    .await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("stream");
    assert_eq!(items.len(), 3, "{items:?}");
    assert_eq!(texts(&items), "Hello");
    let err = items[2].clone().expect_err("bad chunk");
    assert_eq!(err.code(), "MODEL_BAD_STREAM");
    assert!(err.message().contains("{\"choices\": [oops"), "quotes an excerpt: {err}");
}

#[tokio::test]
async fn an_error_object_inside_the_stream_is_model_server() {
    let server = TestServer::start(vec![Reply::raw_sse(&format!(
        "data: {}\n\ndata: {{\"error\": {{\"message\": \"generation failed\"}}}}\n\n",
        text("partial")
    ))])
    .await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("stream");
    assert_eq!(texts(&items), "partial");
    let err = items.last().cloned().expect("items").expect_err("error");
    assert_eq!(err.code(), "MODEL_SERVER");
    assert!(err.message().contains("generation failed"), "{err}");
}

#[tokio::test]
async fn a_body_cut_short_is_reported_but_a_finished_one_without_done_is_fine() {
    let server =
        TestServer::start(vec![Reply::sse(&[&text("half")]), Reply::sse(&[&text("whole"), &finish("length")])]).await;
    let p = provider(config(&server));
    let cut = collect(&*p, hello_request()).await.expect("stream");
    assert_eq!(texts(&cut), "half");
    assert_eq!(cut.last().cloned().expect("items").expect_err("cut").code(), "MODEL_BAD_STREAM");
    let whole = collect(&*p, hello_request()).await.expect("stream");
    assert_eq!(whole.last(), Some(&Ok(ModelEvent::Finished { finish_reason: Some("length".into()) })));
}

#[tokio::test]
async fn a_server_that_ignores_stream_true_still_works() {
    let server = TestServer::start(vec![Reply::json(
        200,
        json!({
            "choices": [{ "index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": "Checking.", "reasoning_content": "hmm",
                "tool_calls": [{ "id": "x1", "type": "function", "function": { "name": "list_dir", "arguments": "{\"path\":\".\"}" } }]
            } }],
            "usage": { "total_tokens": 3 }
        }),
    )])
    .await;
    let items = collect(&*provider(config(&server)), hello_request()).await.expect("stream");
    let events: Vec<ModelEvent> = items.into_iter().map(|i| i.expect("no error")).collect();
    assert_eq!(
        events,
        vec![
            ModelEvent::ReasoningDelta("hmm".into()),
            ModelEvent::TextDelta("Checking.".into()),
            ModelEvent::ToolCall(ToolCallRequest {
                id: "x1".into(),
                name: "list_dir".into(),
                arguments: "{\"path\":\".\"}".into()
            }),
            ModelEvent::Usage(json!({ "total_tokens": 3 })),
            ModelEvent::Finished { finish_reason: Some("tool_calls".into()) },
        ]
    );
}

#[tokio::test]
async fn a_stalled_stream_times_out_after_the_read_timeout() {
    let first = format!("data: {}\n\n", text("slow"));
    let server = TestServer::start(vec![Reply::sse_pieces(&[(0, &first)], Ending::Hold)]).await;
    let mut cfg = config(&server);
    cfg.read_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let items = collect(&*provider(cfg), hello_request()).await.expect("stream");
    assert_eq!(texts(&items), "slow");
    let err = items.last().cloned().expect("items").expect_err("timeout");
    assert_eq!(err.code(), "MODEL_TIMEOUT");
    assert!(err.retryable());
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert!(server.wait_client_closed(Duration::from_secs(5)).await, "the stalled connection was closed");
}

#[tokio::test]
async fn slow_headers_time_out_without_a_retry() {
    let server = TestServer::start(vec![
        Reply::sse(&[&finish("stop"), "[DONE]"]).delayed(Duration::from_secs(3)),
        Reply::sse(&[&finish("stop"), "[DONE]"]),
    ])
    .await;
    let mut cfg = config(&server);
    cfg.connect_timeout = Duration::from_millis(100);
    cfg.read_timeout = Duration::from_millis(200);
    let err = collect(&*provider(cfg), hello_request()).await.expect_err("timeout");
    assert_eq!(err.code(), "MODEL_TIMEOUT");
    assert_eq!(server.requests().len(), 1, "a request the server may be running is not sent again");
}

#[tokio::test]
async fn cancel_mid_stream_closes_the_connection() {
    let first = format!("data: {}\n\n", text("partial"));
    let server = TestServer::start(vec![Reply::sse_pieces(&[(0, &first)], Ending::Hold)]).await;
    let p = provider(config(&server));
    let cancel = CancellationToken::new();
    let mut rx = p.stream(hello_request(), cancel.clone()).await.expect("stream");
    let first_event = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("first event");
    assert_eq!(first_event, Some(Ok(ModelEvent::TextDelta("partial".into()))));
    cancel.cancel();
    let last = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("after cancel");
    assert_eq!(last.map(|r| r.map_err(|e| e.code())), Some(Err("MODEL_CANCELLED")));
    assert_eq!(tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("closed"), None);
    assert!(server.wait_client_closed(Duration::from_secs(5)).await, "the server saw the client close");
}

#[tokio::test]
async fn dropping_the_receiver_closes_the_connection() {
    let first = format!("data: {}\n\n", text("partial"));
    let server = TestServer::start(vec![Reply::sse_pieces(&[(0, &first)], Ending::Hold)]).await;
    let p = provider(config(&server));
    let mut rx = p.stream(hello_request(), CancellationToken::new()).await.expect("stream");
    let _ = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("first event");
    drop(rx);
    assert!(server.wait_client_closed(Duration::from_secs(5)).await, "the server saw the client close");
}

#[tokio::test]
async fn cancel_while_waiting_for_the_response() {
    let server = TestServer::start(vec![Reply::sse(&[&finish("stop")]).delayed(Duration::from_secs(3))]).await;
    let p = provider(config(&server));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let err = p.stream(hello_request(), cancel).await.expect_err("cancelled");
    assert_eq!(err.code(), "MODEL_CANCELLED");
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn refused_connection_is_model_connect_after_retries() {
    let port = {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let mut cfg = OpenAiConfig::new(format!("http://127.0.0.1:{port}"), "m", None);
    cfg.max_retries = 1;
    cfg.backoff_base = Duration::from_millis(1);
    let err = collect(&*provider(cfg), hello_request()).await.expect_err("refused");
    assert_eq!(err.code(), "MODEL_CONNECT");
    assert!(err.retryable());
    assert!(err.message().contains(&format!("127.0.0.1:{port}")) && err.message().contains("2 attempts"), "{err}");
}

#[test]
fn base_urls_with_and_without_v1_and_trailing_slashes() {
    let endpoint = |base: &str| OpenAiConfig::new(base, "m", None).endpoint();
    assert_eq!(OpenAiConfig::default().endpoint(), "https://api.deepseek.com/chat/completions");
    assert_eq!(endpoint("https://api.deepseek.com/v1/"), "https://api.deepseek.com/v1/chat/completions");
    assert_eq!(endpoint("https://api.openai.com/v1"), "https://api.openai.com/v1/chat/completions");
    assert_eq!(endpoint("http://localhost:11434/v1//"), "http://localhost:11434/v1/chat/completions");
    for bad in ["api.deepseek.com", "ftp://example.com", "not a url"] {
        let err = OpenAiProvider::new(OpenAiConfig::new(bad, "m", None)).expect_err(bad);
        assert_eq!(err.code(), "MODEL_CONFIG", "{bad}");
    }
}

#[test]
fn describe_labels_model_and_host() {
    let deepseek = OpenAiProvider::new(OpenAiConfig::deepseek(Some(ApiKey::new("sk-x")))).expect("provider");
    let d = deepseek.describe();
    assert_eq!((d.provider.as_str(), d.label.as_str()), ("openai", "deepseek-chat @ api.deepseek.com"));
    assert_eq!(d.base_url.as_deref(), Some("https://api.deepseek.com"));
    assert_eq!(d.model.as_deref(), Some("deepseek-chat"));
    let ollama =
        OpenAiProvider::new(OpenAiConfig::new("http://localhost:11434/v1", "llama3.2", None)).expect("provider");
    assert_eq!(ollama.describe().label, "llama3.2 @ localhost:11434");
}

#[test]
fn errors_serialize_as_name_code_message() {
    let err = ModelError::Http { status: 400, message: "bad".into() };
    assert_eq!(
        serde_json::to_value(err.boundary()).expect("serialize"),
        json!({ "name": "ModelError", "code": "MODEL_HTTP", "message": "bad" })
    );
    assert_eq!(err.to_string(), "MODEL_HTTP: bad");
    assert_eq!(serde_json::to_value(ModelError::Cancelled.boundary()).expect("serialize")["code"], "MODEL_CANCELLED");
}

#[test]
fn blank_keys_count_as_no_key() {
    assert!(ApiKey::from_optional(Some("  \n".into())).is_none());
    assert!(ApiKey::from_optional(None).is_none());
    assert!(OpenAiConfig::deepseek(Some(ApiKey::new(" "))).api_key.is_none());
}
