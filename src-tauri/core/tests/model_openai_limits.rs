//! The OpenAI-compatible provider's output limits against a local server whose model never stops:
//! endless text, reasoning, tool-call arguments, lines and bodies end in one MODEL_OUTPUT_TOO_LARGE
//! with the connection closed, and the request asks the server for a bounded answer.

use std::time::{Duration, Instant};

use hark_core::error::CodedError;
use hark_core::model::{
    ChatMessage, ModelError, ModelEvent, ModelProvider, ModelRequest, OpenAiConfig, OpenAiProvider,
};
use hark_test_support::server::{Reply, TestServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

type Item = Result<ModelEvent, ModelError>;

/// Small caps, so an endless stream hits them within milliseconds.
const OUTPUT_CAP: usize = 64 * 1024;
const ARGUMENTS_CAP: usize = 16 * 1024;
const EVENT_CAP: usize = 8 * 1024;

/// Without limits an endless stream would run until this; with them it ends long before.
const DEADLINE: Duration = Duration::from_secs(5);

fn config(server: &TestServer) -> OpenAiConfig {
    let mut c = OpenAiConfig::new(server.base_url(), "test-model", None);
    c.connect_timeout = Duration::from_secs(2);
    c.read_timeout = Duration::from_secs(10);
    c.max_retries = 0;
    c.max_output_bytes = OUTPUT_CAP;
    c.max_tool_arguments_bytes = ARGUMENTS_CAP;
    c.max_event_bytes = EVENT_CAP;
    c
}

fn request() -> ModelRequest {
    ModelRequest::new(vec![ChatMessage::user("hi")], vec![])
}

fn delta(delta: Value) -> String {
    json!({ "choices": [{ "index": 0, "delta": delta, "finish_reason": null }] }).to_string()
}

/// One SSE event per payload, repeated so each write of the endless server carries a few KiB.
fn events(payload: &str, times: usize) -> String {
    format!("data: {payload}\n\n").repeat(times)
}

/// Streams `request` and collects every item; panics when the stream is still going at `DEADLINE`.
async fn collect(config: OpenAiConfig) -> (Vec<Item>, Duration) {
    let provider = OpenAiProvider::new(config).expect("provider");
    let started = Instant::now();
    let mut rx = provider.stream(request(), CancellationToken::new()).await.expect("stream opens");
    let mut items = Vec::new();
    let drain = async {
        while let Some(item) = rx.recv().await {
            items.push(item);
        }
    };
    let ended = tokio::time::timeout(DEADLINE, drain).await.is_ok();
    let elapsed = started.elapsed();
    assert!(ended, "the endless stream was still being read after {elapsed:?} ({} items)", items.len());
    (items, elapsed)
}

/// The single error that must end the items; everything before it is an event.
fn final_error(items: &[Item]) -> ModelError {
    let (last, before) = items.split_last().expect("at least one item");
    assert!(before.iter().all(Result::is_ok), "only the last item is an error: {before:?}");
    last.clone().expect_err("the stream ends with an error")
}

fn text_of(items: &[Item], reasoning: bool) -> String {
    items
        .iter()
        .filter_map(|i| match i {
            Ok(ModelEvent::TextDelta(t)) if !reasoning => Some(t.as_str()),
            Ok(ModelEvent::ReasoningDelta(t)) if reasoning => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

async fn assert_connection_released(server: &TestServer) {
    assert!(server.wait_client_closed(Duration::from_secs(3)).await, "the client closed the endless stream");
}

#[tokio::test]
async fn endless_text_stops_at_the_output_cap() {
    let piece = "all work and no play ".repeat(10);
    let server = TestServer::start(vec![Reply::endless("", &events(&delta(json!({ "content": piece })), 10))]).await;
    let (items, elapsed) = collect(config(&server)).await;
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    let text = text_of(&items, false);
    assert!(text.len() <= OUTPUT_CAP, "at most the cap was delivered: {}", text.len());
    assert!(text.len() > OUTPUT_CAP - 2 * piece.len(), "everything up to the cap was delivered: {}", text.len());
    assert!(err.message().contains("model's text") && err.message().contains("64 KiB"), "names part and limit: {err}");
    assert!(err.message().contains("shorter"), "says what to do: {err}");
    assert!(!err.retryable());
    assert_eq!(
        serde_json::to_value(err.boundary()).expect("serialize")["code"],
        "MODEL_OUTPUT_TOO_LARGE",
        "serializes with its code"
    );
    assert!(elapsed < Duration::from_secs(3), "stopped promptly: {elapsed:?}");
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn a_slow_reader_still_gets_the_error_after_a_full_buffer() {
    // The reader task fills the event buffer while this reader dawdles, so the cap is hit with no
    // room left for the error; it must wait for room rather than drop it.
    let server =
        TestServer::start(vec![Reply::endless("", &events(&delta(json!({ "content": "z".repeat(100) })), 10))]).await;
    let mut cfg = config(&server);
    cfg.max_output_bytes = 16 * 1024;
    let provider = OpenAiProvider::new(cfg).expect("provider");
    let mut rx = provider.stream(request(), CancellationToken::new()).await.expect("stream opens");
    let mut items = Vec::new();
    let drain = async {
        while let Some(item) = rx.recv().await {
            items.push(item);
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    };
    tokio::time::timeout(DEADLINE, drain).await.expect("the stream ended");
    assert!(items.len() > 64, "more events than the buffer holds: {}", items.len());
    assert_eq!(final_error(&items).code(), "MODEL_OUTPUT_TOO_LARGE");
}

#[tokio::test]
async fn endless_reasoning_stops_at_the_same_cap() {
    let piece = "hmm, let me think again. ".repeat(8);
    let head = events(&delta(json!({ "content": "Sure. " })), 1);
    let forever = events(&delta(json!({ "reasoning_content": piece })), 10);
    let server = TestServer::start(vec![Reply::endless(&head, &forever)]).await;
    let (items, _) = collect(config(&server)).await;
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    assert_eq!(text_of(&items, false), "Sure. ", "the text before the runaway reasoning stays");
    let total = text_of(&items, true).len() + "Sure. ".len();
    assert!(total <= OUTPUT_CAP, "text and reasoning share the cap: {total}");
    assert!(total > OUTPUT_CAP - 2 * piece.len(), "delivered up to the cap: {total}");
    assert!(err.message().contains("model's reasoning"), "names the part: {err}");
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn endless_tool_call_arguments_stop_at_their_cap() {
    let call = |c: Value| delta(json!({ "tool_calls": [c] }));
    let head = events(
        &call(json!({ "index": 0, "id": "call_1", "type": "function",
                      "function": { "name": "write_file", "arguments": "{\"path\":\"a.txt\",\"content\":\"" } })),
        1,
    );
    let forever = events(&call(json!({ "index": 0, "function": { "arguments": "la la la ".repeat(20) } })), 10);
    let server = TestServer::start(vec![Reply::endless(&head, &forever)]).await;
    let (items, _) = collect(config(&server)).await;
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    assert_eq!(items.len(), 1, "no half-built tool call was released: {items:?}");
    assert!(err.message().contains("write_file") && err.message().contains("16 KiB"), "names call and limit: {err}");
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn many_tool_calls_together_stop_at_the_output_cap() {
    // Each call stays under its own cap; together they are one runaway step.
    let forever: String = (0..10)
        .map(|i| {
            let call = json!({ "index": i, "id": format!("call_{i}"), "function": { "name": "list_dir", "arguments": "d/".repeat(200) } });
            events(&delta(json!({ "tool_calls": [call] })), 1)
        })
        .collect();
    let server = TestServer::start(vec![Reply::endless("", &forever)]).await;
    let (items, _) = collect(config(&server)).await;
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    assert!(err.message().contains("model's tool calls"), "names the part: {err}");
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn a_line_that_never_ends_stops_at_the_event_cap() {
    let head = format!(
        "data: {}\n\ndata: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"",
        delta(json!({ "content": "Hi" }))
    );
    let server = TestServer::start(vec![Reply::endless(&head, &"a".repeat(2048))]).await;
    let (items, _) = collect(config(&server)).await;
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    assert_eq!(text_of(&items, false), "Hi", "the event before the endless line was delivered");
    assert!(err.message().contains("line") && err.message().contains("8 KiB"), "names part and limit: {err}");
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn an_event_that_never_ends_stops_at_the_event_cap() {
    // Short lines, but no blank line ever dispatches the event, so its data keeps growing.
    let server = TestServer::start(vec![Reply::endless("", &"data: more\n".repeat(100))]).await;
    let (items, _) = collect(config(&server)).await;
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    assert!(err.message().contains("event") && err.message().contains("8 KiB"), "names part and limit: {err}");
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn many_small_events_in_one_read_are_not_mistaken_for_a_long_line() {
    // 20 KiB of complete short events arriving in one piece: over the event cap in total, fine each.
    let body = events(&delta(json!({ "content": "x".repeat(100) })), 150)
        + &events(&json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] }).to_string(), 1);
    assert!(body.len() > 2 * EVENT_CAP);
    let server = TestServer::start(vec![Reply::raw_sse(&body)]).await;
    let (items, _) = collect(config(&server)).await;
    assert_eq!(
        items.last(),
        Some(&Ok(ModelEvent::Finished { finish_reason: Some("stop".into()) })),
        "{:?}",
        items.last()
    );
    assert_eq!(text_of(&items, false).len(), 150 * 100);
}

#[tokio::test]
async fn an_endless_non_streamed_body_stops_at_the_output_cap() {
    let head = "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"";
    let reply = Reply::endless(head, &"b".repeat(4096)).with_status(200, "application/json");
    let server = TestServer::start(vec![reply]).await;
    let (items, _) = collect(config(&server)).await;
    assert_eq!(items.len(), 1, "{items:?}");
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    assert!(err.message().contains("64 KiB"), "names the limit: {err}");
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn a_non_streamed_completion_with_oversized_arguments_is_refused() {
    let server = TestServer::start(vec![Reply::json(
        200,
        json!({ "choices": [{ "index": 0, "finish_reason": "tool_calls", "message": { "role": "assistant", "content": "ok",
            "tool_calls": [{ "id": "x1", "type": "function",
                             "function": { "name": "write_file", "arguments": "z".repeat(ARGUMENTS_CAP + 1) } }] } }] }),
    )])
    .await;
    let (items, _) = collect(config(&server)).await;
    let err = final_error(&items);
    assert_eq!(err.code(), "MODEL_OUTPUT_TOO_LARGE", "{err}");
    assert!(err.message().contains("write_file"), "{err}");
}

#[tokio::test]
async fn an_endless_error_body_is_read_only_up_to_its_cap() {
    let reply = Reply::endless("{\"error\":{\"message\":\"nope\"},\"pad\":\"", &"p".repeat(4096))
        .with_status(400, "application/json");
    let server = TestServer::start(vec![reply]).await;
    let mut cfg = config(&server);
    cfg.max_error_body_bytes = 1024;
    let provider = OpenAiProvider::new(cfg).expect("provider");
    let started = Instant::now();
    let err = tokio::time::timeout(DEADLINE, provider.stream(request(), CancellationToken::new()))
        .await
        .expect("the error arrived")
        .expect_err("400");
    assert_eq!((err.code(), err.status()), ("MODEL_HTTP", Some(400)), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_connection_released(&server).await;
}

#[tokio::test]
async fn max_tokens_is_sent_as_configured_and_omitted_when_none() {
    let done = || {
        Reply::sse(&[
            &json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] }).to_string(),
            "[DONE]",
        ])
    };
    let server = TestServer::start(vec![done(), done(), done()]).await;
    let default = OpenAiConfig::new(server.base_url(), "test-model", None);
    assert_eq!(default.max_tokens, Some(8192));
    let mut custom = config(&server);
    custom.max_tokens = Some(1234);
    let mut none = config(&server);
    none.max_tokens = None;
    for cfg in [default, custom, none] {
        collect(cfg).await;
    }
    let bodies: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 3);
    assert_eq!(bodies[0]["max_tokens"], 8192, "{}", bodies[0]);
    assert_eq!(bodies[1]["max_tokens"], 1234, "{}", bodies[1]);
    assert!(bodies[2].get("max_tokens").is_none(), "None leaves it out: {}", bodies[2]);
}
