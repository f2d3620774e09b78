//! The real Claude Code (2.1.328, installed by `make test` in tests/agents) asking through Hark's
//! MCP server, offline against a scripted Anthropic Messages server on 127.0.0.1: set up with
//! `hark setup claude-code` on a fresh home as a person runs it, asked in print mode (`claude -p`),
//! answered in the terminal with `hark answer`. The model's next request is the oracle: it carries
//! what Claude Code's model read of the call.
//!
//! What the real client does, seen here: it speaks MCP 2026-07-28 (`server/discover`, then
//! `tools/list` and `tools/call`, never `initialize`) with its client info in each request's
//! `_meta`; it defers MCP tools (the model loads one with `ToolSearch` before calling it); in print
//! mode it refuses an MCP tool without a `permissions.allow` rule; and it shows its model a result's
//! `structuredContent` rather than its text.
#![cfg(unix)]

use std::path::Path;

use hark_test_support::real_agents::{self, answer, finish, open_question, said, Host, Machine};
use hark_test_support::vendor_models::{tool_result, tool_result_is_error, Api, Step, VendorModel};
use serde_json::{json, Value};

fn hark() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hark"))
}

fn question() -> Value {
    json!({ "questions": [{ "id": "db", "question": "Which database?", "header": "Database",
        "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres", "description": "server" }] }] })
}

/// Claude Code's model, as a real one goes about it: loads Hark's deferred tool, asks, then ends.
fn asking_model() -> Vec<Step> {
    vec![
        Step::call(
            "toolu_search",
            "ToolSearch",
            json!({ "query": "select:mcp__hark__ask_user_question", "max_results": 1 }),
        ),
        Step::call("toolu_ask", "mcp__hark__ask_user_question", question()),
        Step::say("Postgres it is."),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_asks_through_hark_mcp_and_its_model_reads_the_answer_given_in_the_terminal() {
    let machine = Machine::new();
    machine.claude_first_start();
    let set_up = machine.hark(hark(), &["setup", "claude-code"]);
    assert!(set_up.status.success(), "{}", said(&set_up));
    let _host = Host::start(&machine, hark(), &[]);
    let model = VendorModel::start(Api::AnthropicMessages, asking_model()).await;

    let run = real_agents::start(machine.claude(&model, "Set up the database; ask me which one."));
    let asked = open_question(&machine, hark()).await;
    // Claude Code named itself in `_meta` (it sends no `initialize`): the session is its own.
    assert_eq!(asked.title, format!("Claude Code · {}", machine.folder()), "{asked:?}");
    assert_eq!(asked.question["questions"][0]["question"], "Which database?", "{asked:?}");
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
    let out = run.await.expect("the agent's waiter");
    assert!(out.status.success(), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Postgres it is."), "{}", said(&out));

    let turns = model.turns();
    assert_eq!(turns.len(), 3, "ToolSearch, the question, the end: {:#?}", model.requests());
    let read = tool_result(Api::AnthropicMessages, &turns[2], "toolu_ask").expect("the call's result");
    assert!(!tool_result_is_error(Api::AnthropicMessages, &turns[2], "toolu_ask"), "{read}");
    // The person's answer, in the shape the tool's description promises, whichever part of the
    // result Claude Code shows.
    let read: Value = serde_json::from_str(&read).unwrap_or_else(|e| panic!("{e}: {read}"));
    assert_eq!(read, json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
}

#[tokio::test(flavor = "multi_thread")]
async fn claude_code_on_first_start_needs_no_login_and_asks_only_the_scripted_model() {
    let machine = Machine::new();
    machine.claude_first_start();
    let model = VendorModel::start(Api::AnthropicMessages, vec![Step::say("Hello.")]).await;
    let out = finish(machine.claude(&model, "Say hello.")).await;
    assert!(out.status.success(), "{}", said(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Hello."), "{}", said(&out));
    // No login, no other endpoint of ours: the one conversation request.
    let paths: Vec<String> = model.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    assert!(paths.iter().all(|p| p.starts_with("POST /v1/messages")), "{paths:?}");
}
