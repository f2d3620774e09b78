//! The demo provider: every shipped script parses, every rule is reachable, every question it asks is
//! valid (or deliberately invalid), and each script reacts to answered / pending / error / late
//! results the way its branch says.

use hark_core::question::PendingReason;
use std::path::Path;
use std::time::Duration;

use hark_core::error::CodedError;
use hark_core::model::{
    demo_scripts, ChatMessage, Condition, DemoProvider, DemoScript, ModelEvent, ModelProvider, ModelRequest,
    ToolCallRequest, ToolStatus, DEFAULT_DEMO_SCRIPT, DEMO_LABEL,
};
use hark_core::question::{
    answered_result_text, check_plan, late_answer_text, parse_request, pending_result_text, Answer, AnswerBatch,
    ErrorCode, Intent, Question, ToolMode, UserInteractionError, TOOL_NAME,
};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// One streamed demo step, reassembled.
#[derive(Debug, Default)]
struct Played {
    reasoning: String,
    text: String,
    text_chunks: usize,
    calls: Vec<ToolCallRequest>,
    finish: Option<String>,
}

impl Played {
    fn call(&self, name: &str) -> &ToolCallRequest {
        self.calls.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no {name} call in {self:?}"))
    }

    fn args(&self, name: &str) -> Value {
        serde_json::from_str(&self.call(name).arguments).expect("arguments are JSON")
    }
}

async fn play(provider: &DemoProvider, messages: &[ChatMessage]) -> Played {
    let request = ModelRequest::new(messages.to_vec(), vec![]);
    let mut rx = provider.stream(request, CancellationToken::new()).await.expect("stream");
    let mut played = Played::default();
    while let Some(item) = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("event") {
        match item.expect("no error") {
            ModelEvent::TextDelta(t) => {
                played.text.push_str(&t);
                played.text_chunks += 1;
            }
            ModelEvent::ReasoningDelta(r) => played.reasoning.push_str(&r),
            ModelEvent::ToolCall(c) => played.calls.push(c),
            ModelEvent::Usage(_) => {}
            ModelEvent::Finished { finish_reason } => {
                assert!(played.finish.is_none(), "one Finished");
                played.finish = finish_reason;
            }
        }
    }
    assert!(played.finish.is_some(), "the stream finished");
    played
}

/// A conversation that grows the way the agent loop grows it.
struct Convo {
    provider: DemoProvider,
    messages: Vec<ChatMessage>,
}

impl Convo {
    fn new(script: &str) -> Convo {
        Convo {
            provider: DemoProvider::new(script).expect("script"),
            messages: vec![ChatMessage::system("system prompt")],
        }
    }

    /// Adds the user message, plays the step and records the assistant message.
    async fn user(&mut self, text: &str) -> Played {
        self.messages.push(ChatMessage::user(text));
        self.step().await
    }

    async fn tool_result(&mut self, call_id: &str, content: &str) -> Played {
        self.messages.push(ChatMessage::tool(call_id, content));
        self.step().await
    }

    async fn step(&mut self) -> Played {
        let played = play(&self.provider, &self.messages).await;
        self.messages.push(ChatMessage::Assistant {
            content: played.text.clone(),
            reasoning: (!played.reasoning.is_empty()).then(|| played.reasoning.clone()),
            tool_calls: played.calls.clone(),
        });
        played
    }

    fn rule_for_next(&self, extra: ChatMessage) -> String {
        let mut messages = self.messages.clone();
        messages.push(extra);
        let request = ModelRequest::new(messages, vec![]);
        self.provider.rule_for(&request).map(|r| r.id.clone()).unwrap_or_default()
    }
}

fn answer(id: &str, selected: &[&str]) -> Answer {
    Answer { id: id.into(), selected: selected.iter().map(|s| s.to_string()).collect(), custom: None }
}

fn typed(id: &str, text: &str) -> Answer {
    Answer { id: id.into(), selected: vec![], custom: Some(text.into()) }
}

fn error_text(code: ErrorCode, message: &str) -> String {
    serde_json::to_string(&UserInteractionError::new(code, message).boundary()).expect("serialize")
}

fn questions_of(args: &Value) -> Vec<Question> {
    let mode = if args.get("timeout").is_some() { ToolMode::Timed } else { ToolMode::Legacy };
    parse_request(args, mode, 120).expect("valid question").questions
}

fn scripts_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts")
}

#[test]
fn every_shipped_script_parses_and_matches_its_file() {
    let names = demo_scripts();
    for required in ["batch", "timed", "blocking", "untrusted", "hello"] {
        assert!(names.contains(&required), "{required} is shipped");
    }
    assert!(names.contains(&DEFAULT_DEMO_SCRIPT));
    let mut files: Vec<String> = std::fs::read_dir(scripts_dir())
        .expect("scripts dir")
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_string))
        .collect();
    files.sort();
    let mut sorted: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    sorted.sort();
    assert_eq!(files, sorted, "every script file is embedded and every embedded script has a file");
    for name in names {
        let embedded = DemoScript::builtin(name).expect("parses");
        assert_eq!(embedded.name, name);
        assert!(!embedded.description.is_empty(), "{name} says what it shows");
        assert_eq!(DemoScript::from_dir(&scripts_dir(), name).expect("loads from the directory"), embedded);
    }
}

/// Builds the smallest conversation that `condition` matches.
fn request_matching(condition: &Condition) -> ModelRequest {
    let ask = |id: &str, name: &str| ChatMessage::Assistant {
        content: String::new(),
        reasoning: None,
        tool_calls: vec![ToolCallRequest { id: id.into(), name: name.into(), arguments: "{}".into() }],
    };
    let messages = match condition {
        Condition::Start { contains } => vec![ChatMessage::user(contains.clone().unwrap_or_else(|| "hello".into()))],
        Condition::UserText { contains } => vec![
            ChatMessage::user("hello"),
            ChatMessage::assistant("hi"),
            ChatMessage::user(contains.clone().unwrap_or_else(|| "more please".into())),
        ],
        Condition::LateAnswer => vec![
            ChatMessage::user("hello"),
            ask("q1", TOOL_NAME),
            ChatMessage::tool("q1", pending_result_text("q1", PendingReason::TimedOut, Duration::from_secs(1))),
            ChatMessage::assistant("waiting"),
            ChatMessage::user(late_answer_text(
                "q1",
                &Intent::Question,
                &[],
                &AnswerBatch { answers: vec![answer("db", &["SQLite"])] },
                None,
            )),
        ],
        Condition::ToolResult { tool, status, code, contains } => {
            let tool = tool.clone().unwrap_or_else(|| "some_tool".into());
            let said = contains.clone().unwrap_or_default();
            let content = match status.unwrap_or(ToolStatus::Ok) {
                ToolStatus::Ok => {
                    let batch = AnswerBatch { answers: vec![answer("db", &["SQLite"])] };
                    match contains {
                        Some(said) => {
                            json!({ "answers": [{"id": "db", "selected": ["SQLite"]}], "note": said }).to_string()
                        }
                        None => answered_result_text(&batch),
                    }
                }
                ToolStatus::Pending => {
                    format!("{} {said}", pending_result_text("t1", PendingReason::TimedOut, Duration::from_secs(1)))
                }
                ToolStatus::Error => {
                    json!({ "name": "E", "code": code.clone().unwrap_or_else(|| "SOME_ERROR".into()), "message": said })
                        .to_string()
                }
            };
            vec![ChatMessage::user("hello"), ask("t1", &tool), ChatMessage::tool("t1", content)]
        }
        // Only a conversation no other rule can answer reaches `any`.
        Condition::Any => vec![ChatMessage::system("nothing to answer")],
    };
    ModelRequest::new(messages, vec![])
}

#[tokio::test]
async fn every_rule_of_every_script_is_reachable() {
    for name in demo_scripts() {
        let provider = DemoProvider::new(name).expect("script");
        for rule in &provider.script().rules {
            let request = request_matching(&rule.when);
            let chosen = provider.rule_for(&request).map(|r| r.id.as_str());
            assert_eq!(chosen, Some(rule.id.as_str()), "{name}: rule {} is reachable", rule.id);
            let messages: Vec<ChatMessage> = request.messages.iter().map(|m| (**m).clone()).collect();
            let played = play(&provider, &messages).await;
            assert!(!played.text.is_empty() || !played.calls.is_empty(), "{name}/{} replies", rule.id);
        }
    }
}

#[test]
fn every_question_a_script_asks_is_valid_except_the_deliberately_oversized_one() {
    for name in demo_scripts() {
        let script = DemoScript::builtin(name).expect("script");
        for rule in &script.rules {
            for call in rule.reply.tool_calls.iter().filter(|c| c.name == TOOL_NAME) {
                let mode = if call.arguments.get("timeout").is_some() { ToolMode::Timed } else { ToolMode::Legacy };
                let parsed = parse_request(&call.arguments, mode, 120);
                if (name, rule.id.as_str()) == ("untrusted", "answered") {
                    let err = parsed.expect_err("the 3000-character question is refused");
                    assert_eq!(err.code, ErrorCode::InvalidRequest);
                } else {
                    parsed.unwrap_or_else(|e| panic!("{name}/{}: {e}", rule.id));
                }
            }
            for call in rule.reply.tool_calls.iter().filter(|c| c.name != TOOL_NAME) {
                let needs: &[&str] = match call.name.as_str() {
                    "list_dir" | "read_file" => &["path"],
                    "write_file" => &["path", "content"],
                    "run_code" => {
                        // The script runs: against a host that answers every call with its arguments.
                        let code = call.arguments["code"].as_str().expect("code");
                        let names = vec!["ask_user_question".to_string(), "write_file".to_string()];
                        let echo: hark_core::ptc::CallHost = Box::new(|_, args| Ok(args));
                        let limits = hark_core::ptc::Limits::default();
                        hark_core::ptc::run(code, &names, limits, &CancellationToken::new(), echo)
                            .unwrap_or_else(|e| panic!("{name}/{}: {e}", rule.id));
                        &["code"]
                    }
                    "submit_plan" => {
                        let plan = call.arguments["plan"].as_str().expect("a plan");
                        check_plan(plan).unwrap_or_else(|e| panic!("{name}/{}: {e}", rule.id));
                        &["plan"]
                    }
                    other => panic!("{name}/{}: unknown workspace tool {other}", rule.id),
                };
                for key in needs {
                    assert!(call.arguments[key].is_string(), "{name}/{}: {} needs {key}", rule.id, call.name);
                }
            }
        }
    }
}

#[test]
fn unknown_script_lists_the_available_ones() {
    let err = DemoProvider::new("nope").expect_err("unknown");
    assert_eq!(err.code(), "DEMO_SCRIPT");
    for name in demo_scripts() {
        assert!(err.message().contains(name), "{err}");
    }
    assert_eq!(DemoScript::from_dir(&scripts_dir(), "../Cargo").expect_err("not a name").code(), "DEMO_SCRIPT");
}

#[test]
fn demo_provider_is_labelled_demo_model() {
    for name in demo_scripts() {
        let d = DemoProvider::new(name).expect("script").describe();
        assert_eq!((d.provider.as_str(), d.label.as_str(), d.script.as_deref()), ("demo", DEMO_LABEL, Some(name)));
    }
    assert_eq!(DEMO_LABEL, "Demo model");
}

#[tokio::test]
async fn hello_streams_plain_text_in_chunks() {
    let mut c = Convo::new("hello");
    let first = c.user("hi").await;
    assert!(first.calls.is_empty());
    assert_eq!(first.finish.as_deref(), Some("stop"));
    assert!(first.text_chunks > 3, "streamed in pieces: {}", first.text_chunks);
    assert!(!first.reasoning.is_empty());
    let second = c.user("what now?").await;
    assert!(second.text.contains("what now?"), "{}", second.text);
}

#[tokio::test]
async fn batch_asks_three_kinds_of_question_in_one_call_and_quotes_the_answers() {
    let mut c = Convo::new("batch");
    let ask = c.user("set up a project").await;
    assert_eq!(ask.calls.len(), 1);
    assert_eq!(ask.finish.as_deref(), Some("tool_calls"));
    let args = ask.args(TOOL_NAME);
    assert!(args.get("timeout").is_none(), "batch works in legacy mode");
    let qs = questions_of(&args);
    assert_eq!(qs.len(), 3);
    assert!(!qs[0].multi_select && !qs[0].options.is_empty(), "single-select");
    assert!(qs[1].multi_select && !qs[1].options.is_empty(), "multi-select");
    assert!(qs[2].options.is_empty(), "free-form");

    let call_id = ask.call(TOOL_NAME).id.clone();
    let batch = AnswerBatch {
        answers: vec![
            answer("db", &["Postgres"]),
            answer("extras", &["Docs", "CI workflow"]),
            typed("name", "hark-demo"),
        ],
    };
    let reply = c.tool_result(&call_id, &answered_result_text(&batch)).await;
    assert!(reply.calls.is_empty());
    for quoted in ["\"Postgres\"", "\"Docs\"", "\"CI workflow\"", "\"hark-demo\""] {
        assert!(reply.text.contains(quoted), "{quoted} in {}", reply.text);
    }
    assert!(!reply.text.contains("SQLite"), "only the chosen labels");

    // Asking again on a follow-up gives a fresh, unique call id.
    let again = c.user("again please").await;
    assert_ne!(again.call(TOOL_NAME).id, call_id);
}

#[tokio::test]
async fn batch_reacts_to_cancel_pending_and_other_errors() {
    let mut c = Convo::new("batch");
    let id = c.user("go").await.call(TOOL_NAME).id.clone();
    let cancelled = ChatMessage::tool(&id, error_text(ErrorCode::AskCancelled, "The user closed the question"));
    assert_eq!(c.rule_for_next(cancelled), "cancelled");
    assert_eq!(
        c.rule_for_next(ChatMessage::tool(
            &id,
            pending_result_text(&id, PendingReason::TimedOut, Duration::from_secs(1))
        )),
        "pending"
    );
    let reply = c.tool_result(&id, &error_text(ErrorCode::NoProvider, "Nobody can answer")).await;
    assert!(reply.text.contains("NO_PROVIDER") && reply.text.contains("Nobody can answer"), "{}", reply.text);
    assert!(reply.calls.is_empty(), "stops rather than guessing");
}

#[tokio::test]
async fn timed_continues_with_workspace_work_on_pending_and_acknowledges_the_late_answer() {
    let mut c = Convo::new("timed");
    let ask = c.user("plan the notes app").await;
    let args = ask.args(TOOL_NAME);
    let timeout = args["timeout"].as_u64().expect("a timeout");
    assert!((1..=15).contains(&timeout), "a short timeout: {timeout}");
    let questions = questions_of(&args);
    let ask_id = ask.call(TOOL_NAME).id.clone();

    let pending =
        c.tool_result(&ask_id, &pending_result_text(&ask_id, PendingReason::TimedOut, Duration::from_secs(1))).await;
    let list = pending.call("list_dir").clone();
    assert_eq!(pending.args("list_dir")["path"], ".");

    let listed = c.tool_result(&list.id, "notes/\nREADME.md").await;
    assert!(listed.text.contains("README.md"), "reports what it found: {}", listed.text);
    let write = listed.args("write_file");
    assert!(write["path"].as_str().is_some_and(|p| p.ends_with(".md")));
    assert!(write["content"].as_str().is_some_and(|t| t.contains("database")));

    let written = c.tool_result(&listed.call("write_file").id, "wrote 120 bytes").await;
    assert!(written.calls.is_empty(), "the turn ends while the question stays open");
    assert_eq!(written.finish.as_deref(), Some("stop"));

    let batch = AnswerBatch { answers: vec![answer("db", &["SQLite"])] };
    let late = c.user(&late_answer_text(&ask_id, &Intent::Question, &questions, &batch, None)).await;
    assert!(late.text.contains("\"SQLite\""), "quotes the late answer: {}", late.text);
    assert!(!late.text.contains("Postgres"));

    let ids: Vec<&str> = c
        .messages
        .iter()
        .flat_map(|m| match m {
            ChatMessage::Assistant { tool_calls, .. } => tool_calls.iter().map(|t| t.id.as_str()).collect(),
            _ => Vec::new(),
        })
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "call ids are unique in the session: {ids:?}");
}

#[tokio::test]
async fn timed_adapts_to_errors() {
    let mut c = Convo::new("timed");
    let ask_id = c.user("go").await.call(TOOL_NAME).id.clone();
    // In legacy mode the tool refuses `timeout`; the script explains instead of looping.
    let refused = ChatMessage::tool(&ask_id, error_text(ErrorCode::InvalidRequest, "questions: unknown field timeout"));
    assert_eq!(c.rule_for_next(refused), "ask_failed");
    let answered = c
        .tool_result(&ask_id, &answered_result_text(&AnswerBatch { answers: vec![answer("db", &["Postgres"])] }))
        .await;
    assert!(answered.text.contains("\"Postgres\"") && answered.calls.is_empty(), "{}", answered.text);

    let mut w = Convo::new("timed");
    let ask_id = w.user("go").await.call(TOOL_NAME).id.clone();
    let list_id = w
        .tool_result(&ask_id, &pending_result_text(&ask_id, PendingReason::TimedOut, Duration::from_secs(1)))
        .await
        .call("list_dir")
        .id
        .clone();
    let failed = w
        .tool_result(
            &list_id,
            &json!({ "name": "ToolError", "code": "NO_WORKSPACE", "message": "no folder chosen" }).to_string(),
        )
        .await;
    assert!(failed.text.contains("NO_WORKSPACE") && failed.text.contains("no folder chosen"), "{}", failed.text);
    assert!(failed.calls.is_empty());
}

#[tokio::test]
async fn blocking_asks_a_legacy_question_and_waits() {
    let mut c = Convo::new("blocking");
    let ask = c.user("deploy it").await;
    let args = ask.args(TOOL_NAME);
    assert!(args.get("timeout").is_none(), "no timeout");
    parse_request(&args, ToolMode::Legacy, 120).expect("valid in the legacy schema");
    let id = ask.call(TOOL_NAME).id.clone();
    assert_eq!(c.rule_for_next(ChatMessage::tool(&id, error_text(ErrorCode::AskCancelled, "closed"))), "cancelled");
    let done =
        c.tool_result(&id, &answered_result_text(&AnswerBatch { answers: vec![answer("deploy", &["Not yet"])] })).await;
    assert!(done.text.contains("\"Not yet\""), "{}", done.text);
}

#[tokio::test]
async fn untrusted_carries_hostile_payloads_and_quotes_them_back_verbatim() {
    let mut c = Convo::new("untrusted");
    let ask = c.user("render this").await;
    for payload in ["<script>", "onerror=alert(1)", "](javascript:"] {
        assert!(ask.text.contains(payload), "text carries {payload}");
    }
    assert!(ask.reasoning.contains("<script>"));
    assert!(ask.text.split_whitespace().any(|w| w.chars().count() >= 400), "a 400-char unbroken word");
    let args = ask.args(TOOL_NAME);
    let qs = questions_of(&args);
    assert!(qs[0].header.as_deref().is_some_and(|h| h.contains("onerror")));
    assert_eq!(qs[0].question.chars().count(), 1000, "the longest question the tool accepts");
    assert!(qs[0].question.split_whitespace().any(|w| w.chars().count() >= 400));
    let labels: Vec<&str> = qs.iter().flat_map(|q| q.options.iter().map(|o| o.label.as_str())).collect();
    assert!(labels.iter().any(|l| l.contains("<script>")) && labels.iter().any(|l| l.contains("javascript:")));
    assert!(qs[0].options.iter().any(|o| o.description.as_deref().is_some_and(|d| d.contains("onerror"))));

    let id = ask.call(TOOL_NAME).id.clone();
    let hostile = "<script>alert('label')</script>";
    let batch = AnswerBatch {
        answers: vec![
            answer("xss", &[hostile]),
            answer("multi", &["'; DROP TABLE sessions; --"]),
            typed("free", "<b>mine</b>"),
        ],
    };
    let reply = c.tool_result(&id, &answered_result_text(&batch)).await;
    assert!(reply.text.contains(hostile) && reply.text.contains("<b>mine</b>"), "quoted verbatim: {}", reply.text);
    let huge = reply.args(TOOL_NAME);
    assert_eq!(huge["questions"][0]["question"].as_str().map(|q| q.chars().count()), Some(3000));
    let refusal = parse_request(&huge, ToolMode::Legacy, 120).expect_err("too long");
    let huge_id = reply.call(TOOL_NAME).id.clone();
    let end = c.tool_result(&huge_id, &serde_json::to_string(&refusal.boundary()).expect("serialize")).await;
    assert!(end.text.contains("INVALID_REQUEST") && end.calls.is_empty(), "{}", end.text);
}

#[tokio::test]
async fn chunk_delay_streams_slowly_and_cancel_stops_it() {
    let provider = DemoProvider::new("hello").expect("script").with_chunk_delay(Duration::from_millis(30));
    let cancel = CancellationToken::new();
    let request = ModelRequest::new(vec![ChatMessage::user("hi")], vec![]);
    let mut rx = provider.stream(request.clone(), cancel.clone()).await.expect("stream");
    let first = tokio::time::timeout(Duration::from_secs(2), rx.recv()).await.expect("first").expect("event");
    assert!(matches!(first, Ok(ModelEvent::ReasoningDelta(_))), "{first:?}");
    cancel.cancel();
    let mut rest = Vec::new();
    while let Some(item) = tokio::time::timeout(Duration::from_secs(2), rx.recv()).await.expect("ends") {
        rest.push(item);
    }
    assert_eq!(rest.last().map(|r| r.as_ref().map_err(|e| e.code())), Some(Err("MODEL_CANCELLED")));
    assert!(!rest.iter().any(|r| matches!(r, Ok(ModelEvent::Finished { .. }))), "stopped before the end");
    let err = provider.stream(request, cancel).await.expect_err("already cancelled");
    assert_eq!(err.code(), "MODEL_CANCELLED");
}

#[test]
fn script_problems_are_reported() {
    let script = |rules: Value| json!({ "name": "t", "rules": rules }).to_string();
    let reply = json!({ "text": "x" });
    let cases = [
        (script(json!([])), "no rules"),
        (
            script(
                json!([{ "id": "a", "when": { "kind": "start" }, "reply": reply }, { "id": "a", "when": { "kind": "late_answer" }, "reply": reply }]),
            ),
            "unique",
        ),
        (
            script(
                json!([{ "id": "a", "when": { "kind": "any" }, "reply": reply }, { "id": "b", "when": { "kind": "start" }, "reply": reply }]),
            ),
            "never match",
        ),
        (
            script(
                json!([{ "id": "a", "when": { "kind": "tool_result", "status": "error" }, "reply": reply }, { "id": "b", "when": { "kind": "tool_result", "tool": "x", "status": "error", "code": "C" }, "reply": reply }]),
            ),
            "never match",
        ),
        (script(json!([{ "id": "a", "when": { "kind": "tool_result", "code": "C" }, "reply": reply }])), "status"),
        (
            script(json!([{ "id": "a", "when": { "kind": "start" }, "reply": { "text": "{{answer}}" } }])),
            "unknown placeholder",
        ),
        (script(json!([{ "id": "a", "when": { "kind": "start" }, "reply": { "text": "" } }])), "neither"),
        (
            script(
                json!([{ "id": "a", "when": { "kind": "start" }, "reply": { "tool_calls": [{ "name": "x", "arguments": [1] }] } }]),
            ),
            "JSON object",
        ),
        (script(json!([{ "id": "a", "when": { "kind": "sometimes" }, "reply": reply }])), "Invalid demo script"),
    ];
    for (json, expected) in cases {
        let err = DemoScript::parse(&json).expect_err(expected);
        assert_eq!(err.code(), "DEMO_SCRIPT");
        assert!(err.message().contains(expected), "{expected}: {err}");
    }
    // A narrower rule before a broader one is fine.
    let ok = script(json!([
        { "id": "a", "when": { "kind": "user_text", "contains": "again" }, "reply": reply },
        { "id": "b", "when": { "kind": "user_text" }, "reply": reply }
    ]));
    DemoScript::parse(&ok).expect("valid");
}
