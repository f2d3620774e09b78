//! MCP servers that misbehave, or are merely many, against the agent: real server processes (the
//! official Python SDK, or raw JSON-RPC lines where a server must do what the SDK forbids) and the
//! scripted OpenAI-compatible server on 127.0.0.1. `make test` installs the SDK in `tests/mcp/.venv`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use hark_core::agent::{Agent, AgentConfig, NewSession};
use hark_core::error::BoundaryError;
use hark_test_support::agent::*;

use hark_core::mcp::{McpConfig, McpServers, ToolOffer};
use hark_core::question::ToolMode;
use hark_core::service::Caller;
use hark_core::session::{Event, StoredEvent, ToolOutcome};
use hark_core::tools::{ToolContext, ToolHandler};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

fn servers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp")
}

fn python() -> PathBuf {
    let python = servers_dir().join(".venv/bin/python");
    assert!(python.exists(), "the Python MCP SDK is not installed: run `make test` (it makes {})", python.display());
    python
}

/// One stdio server entry running `script` from tests/mcp with `args`, plus `extra` fields.
fn entry(script: &str, args: &[&str], extra: Value) -> Value {
    let mut args_all = vec![servers_dir().join(script).to_string_lossy().to_string()];
    args_all.extend(args.iter().map(|a| a.to_string()));
    let mut entry = json!({ "command": python(), "args": args_all });
    if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
        entry.extend(extra);
    }
    entry
}

fn mcp_config(servers: Value) -> Arc<McpConfig> {
    let text = json!({ "mcpServers": servers }).to_string();
    Arc::new(McpConfig::parse(&text, &|_| None).unwrap())
}

/// An agent with these MCP servers, whose first turn is `prompt`.
fn start(h: &Harness, servers: Value, prompt: &str) -> Agent {
    let config = AgentConfig { mcp: mcp_config(servers), ..config(ToolMode::Legacy) };
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, config).unwrap();
    agent.steer(prompt).unwrap();
    agent
}

async fn idle(agent: &Agent) {
    tokio::time::timeout(Duration::from_secs(60), agent.wait_idle()).await.expect("the agent went idle");
}

/// The `mcp/unavailable` events, by server.
fn unavailable(events: &[StoredEvent]) -> Vec<(String, BoundaryError)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::McpUnavailable { server, error } => Some((server.clone(), error.clone())),
            _ => None,
        })
        .collect()
}

/// The names of the tools each model request offered.
fn offered(h: &Harness) -> Vec<Vec<String>> {
    let names = |body: &Value| -> Vec<String> {
        let tools = body["tools"].as_array().cloned().unwrap_or_default();
        tools.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_string()).collect()
    };
    h.server.requests().iter().map(|r| names(&r.body)).collect()
}

fn result_text(events: &[StoredEvent], call_id: &str) -> String {
    match results(events).into_iter().find(|(id, _)| id == call_id) {
        Some((_, ToolOutcome::Ok { content, .. })) => content,
        other => panic!("{call_id} did not succeed: {other:?}"),
    }
}

// --- a tool list without end -----------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn a_server_paging_its_tools_for_ever_is_cut_off_and_the_turn_goes_on() {
    let h = Harness::new(vec![
        tool_reply("Using the good one.", &[("g1", "mcp__good__t001", "{}".into())]),
        text_reply("Done."),
    ])
    .await;
    // Before the pages were bounded this server was read until its start-up timeout.
    let agent = start(
        &h,
        json!({
            "endless": entry("unruly_server.py", &["endless-pages"], json!({ "startup_timeout_sec": 20 })),
            "good": entry("tools_server.py", &["many", "3"], json!({})),
        }),
        "use the tools",
    );
    idle(&agent).await;
    let events = h.events(&agent);
    let failures = unavailable(&events);
    let [(server, error)] = &failures[..] else { panic!("{failures:?}") };
    assert_eq!((server.as_str(), error.code.as_str()), ("endless", "MCP_TOOL_LIST_TOO_LONG"), "{}", error.message);
    assert!(error.message.contains("more than 100 pages"), "{}", error.message);
    assert_eq!(result_text(&events, "g1"), "t001");
    assert_eq!((turn_end(&events).as_str(), last_assistant_text(&events).as_str()), ("completed", "Done."));
    let offered = offered(&h);
    assert!(offered[0].iter().any(|n| n == "mcp__good__t002"), "{offered:?}");
    assert!(!offered[0].iter().any(|n| n.starts_with("mcp__endless__")), "{offered:?}");
    drop(agent);
}

// --- a stdio server's environment ----------------------------------------------------------------

/// Set only in the child run of this binary; its name is also one that must not reach a server.
const ENV_CHILD: &str = "HARK_TEST_MCP_ENV_CHILD";
const ENV_LINE: &str = "SERVER ENVIRONMENT ";

/// The child half of `a_stdio_server_inherits_only_the_safe_environment`: starts the `env` server
/// with the environment its parent gave this process, calls its tool and prints what it saw.
#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn child_reports_its_mcp_servers_environment() {
    if std::env::var_os(ENV_CHILD).is_none() {
        return;
    }
    let config = mcp_config(json!({ "env": entry("tools_server.py", &["env"], json!({
        "env": { "GIVEN_BY_ENTRY": "yes" }, "tool_timeout_sec": 20,
    })) }));
    let servers = McpServers::new(config, None, None);
    let (tools, failures) = servers.tools(&CancellationToken::new()).await.expect("not stopped");
    assert!(failures.is_empty(), "{failures:?}");
    let tool = tools.iter().find(|t| t.name() == "mcp__env__environment").expect("the environment tool");
    let ctx = ToolContext { caller: Caller::root("s", "a"), abort: CancellationToken::new(), workspace: None };
    let output = Arc::clone(tool).handle(&ctx, "c1", json!({})).await.unwrap();
    println!("{ENV_LINE}{}", output.content);
}

#[test]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
fn a_stdio_server_inherits_only_the_safe_environment() {
    let output = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_reports_its_mcp_servers_environment", "--nocapture", "--test-threads=1"])
        .env(ENV_CHILD, "1")
        .env("OPENAI_API_KEY", "sk-test-not-for-servers")
        .env("DEEPSEEK_API_KEY", "sk-test-not-for-servers")
        .env("HARK_DATA_DIR", "/nowhere")
        .env("SOME_SERVICE_TOKEN", "not-for-servers")
        .env("LC_TIME", "C")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().find_map(|l| l.split_once(ENV_LINE).map(|(_, names)| names));
    let Some(line) = line else {
        panic!("the child printed no environment:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr))
    };
    let names: BTreeSet<String> = serde_json::from_str(line).unwrap();
    for expected in ["PATH", "HOME", "LC_TIME", "GIVEN_BY_ENTRY"] {
        assert!(names.contains(expected), "{expected} is missing: {names:?}");
    }
    let allowed = [
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "LANG",
        "TZ",
        "TMPDIR",
        "TERM",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XDG_RUNTIME_DIR",
        "DBUS_SESSION_BUS_ADDRESS",
        "GIVEN_BY_ENTRY",
    ];
    let leaked: Vec<&String> =
        names.iter().filter(|n| !allowed.contains(&n.as_str()) && !n.starts_with("LC_")).collect();
    assert!(leaked.is_empty(), "the server got {leaked:?}");
}

// --- names that collide once sanitised ---------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn tools_whose_names_collide_are_both_offered_and_each_reaches_its_own() {
    let h = Harness::new(vec![
        tool_reply(
            "Both.",
            &[("a", "mcp__clash__run_tests", "{}".into()), ("b", "mcp__clash__run_tests_2", "{}".into())],
        ),
        text_reply("Ran both."),
    ])
    .await;
    let agent = start(&h, json!({ "clash": entry("tools_server.py", &["clash"], json!({})) }), "run the tests");
    idle(&agent).await;
    let events = h.events(&agent);
    let offered = offered(&h);
    let mcp: Vec<&String> = offered[0].iter().filter(|n| n.starts_with("mcp__")).collect();
    assert_eq!(mcp, ["mcp__clash__run_tests", "mcp__clash__run_tests_2"]);
    // `run_tests` needed no change and keeps its name; `run.tests` takes the suffix.
    assert_eq!((result_text(&events, "a"), result_text(&events, "b")), ("run_tests".into(), "run.tests".into()));
    assert_eq!(turn_end(&events), "completed");
    drop(agent);
}

// --- a server that never answers `initialize` ------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn stop_ends_a_turn_whose_server_never_answers_at_once_without_asking_the_model() {
    let h = Harness::new(vec![text_reply("Should not be asked.")]).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let silent = entry("unruly_server.py", &["silent", &port], json!({ "startup_timeout_sec": 60 }));
    let agent = start(&h, json!({ "silent": silent }), "hello");
    // The server connects once Hark's `initialize` reached it: the start is under way.
    let (mut server, _) =
        tokio::time::timeout(Duration::from_secs(30), listener.accept()).await.expect("the server started").unwrap();
    assert!(agent.abort(), "a turn was running");
    tokio::time::timeout(Duration::from_secs(2), agent.wait_idle()).await.expect("Stop ended the turn within 2 s");
    let events = h.events(&agent);
    assert_eq!(turn_end(&events), "aborted");
    let turns = events.iter().filter(|e| matches!(e.event, Event::TurnStarted { .. })).count();
    assert_eq!(turns, 1, "the stopped prompt started no other turn: {:?}", types(&events));
    assert!(events.iter().any(|e| matches!(&e.event, Event::UserMessage { text, .. } if text == "hello")));
    assert!(h.server.requests().is_empty(), "the model was asked");
    assert!(unavailable(&events).is_empty(), "a stop is not the server's failure");
    // The abandoned start took its process with it: the server's connection closes.
    let mut buf = [0u8; 16];
    let read = tokio::time::timeout(Duration::from_secs(10), tokio::io::AsyncReadExt::read(&mut server, &mut buf));
    assert_eq!(read.await.expect("the server process ended").unwrap(), 0);
    drop(agent);
}

// --- more tools than a model takes ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn with_more_tools_than_a_model_takes_the_first_128_are_offered_and_the_rest_named() {
    // The server refuses, as OpenAI does, a request with more than 128 tools.
    let h = Harness::strict(
        vec![tool_reply("Using one.", &[("c1", "mcp__many__t100", "{}".into())]), text_reply("Answered.")],
        Strict { context_tokens: 10_000_000 },
    )
    .await;
    let agent = start(&h, json!({ "many": entry("tools_server.py", &["many", "201"], json!({})) }), "go");
    idle(&agent).await;
    let events = h.events(&agent);
    assert!(h.server.rejections().is_empty(), "{:?}", h.server.rejections());
    assert_eq!((turn_end(&events).as_str(), last_assistant_text(&events).as_str()), ("completed", "Answered."));
    assert_eq!(result_text(&events, "c1"), "t100");

    let offered = offered(&h);
    assert_eq!(offered[0].len(), 128);
    // Hark's own tools are all offered; the MCP tools fill the rest in order.
    let own: Vec<&String> = offered[0].iter().filter(|n| !n.starts_with("mcp__")).collect();
    assert!(own.iter().any(|n| *n == "ask_user_question") && own.len() > 1, "{own:?}");
    let kept = 128 - own.len();
    let expected: Vec<String> = (0..kept).map(|i| format!("mcp__many__t{i:03}")).collect();
    let mcp: Vec<String> = offered[0].iter().filter(|n| n.starts_with("mcp__")).cloned().collect();
    assert_eq!(mcp, expected);

    // The person is told which tools were left out, once.
    let failures = unavailable(&events);
    let [(server, error)] = &failures[..] else { panic!("{failures:?}") };
    assert_eq!((server.as_str(), error.code.as_str()), ("many", "MCP_TOOLS_LEFT_OUT"));
    let left_out: Vec<String> = (kept..201).map(|i| format!("mcp__many__t{i:03}")).collect();
    assert!(error.message.contains(&left_out.join(", ")), "{}", error.message);
    assert!(error.message.contains(&format!("{} of the MCP server", left_out.len())), "{}", error.message);
    assert!(!error.message.contains(&format!("mcp__many__t{:03},", kept - 1)), "{}", error.message);
    drop(agent);
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn tools_turned_off_are_never_offered_and_let_the_next_ones_in() {
    // Ten tools off, among those that fit: the ten after the last that fit come in instead.
    let off: Vec<String> = (10..20).map(|i| format!("t{i:03}")).collect();
    // The model tries a tool turned off (as it might from an earlier turn) and one let in by that:
    // t130 is past the 128 - 4 that fit beside Hark's own four tools (asserted below).
    let h = Harness::strict(
        vec![
            tool_reply(
                "Trying two.",
                &[("c1", "mcp__many__t015", "{}".into()), ("c2", "mcp__many__t130", "{}".into())],
            ),
            text_reply("Answered."),
        ],
        Strict { context_tokens: 10_000_000 },
    )
    .await;
    let mcp =
        mcp_config(json!({ "many": entry("tools_server.py", &["many", "201"], json!({ "disabled_tools": off })) }));
    let agent_config = AgentConfig { mcp: Arc::clone(&mcp), ..config(ToolMode::Legacy) };
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, agent_config).unwrap();
    agent.steer("go").unwrap();
    idle(&agent).await;
    let events = h.events(&agent);
    assert!(h.server.rejections().is_empty(), "{:?}", h.server.rejections());
    assert_eq!((turn_end(&events).as_str(), last_assistant_text(&events).as_str()), ("completed", "Answered."));

    let offered = offered(&h);
    assert_eq!(offered.len(), 2);
    let kept = 128 - offered[0].iter().filter(|n| !n.starts_with("mcp__")).count();
    assert!(kept <= 130 && 130 < kept + off.len(), "t130 is let in only by the tools turned off ({kept} fit)");
    let expected: Vec<String> =
        (0..kept + off.len()).filter(|i| !(10..20).contains(i)).map(|i| format!("mcp__many__t{i:03}")).collect();
    for request in &offered {
        assert_eq!(request.len(), 128);
        let mcp: Vec<String> = request.iter().filter(|n| n.starts_with("mcp__")).cloned().collect();
        assert_eq!(mcp, expected);
    }
    // A tool turned off does not run even when the model names it; one let in does.
    let outcome = results(&events).into_iter().find(|(id, _)| id == "c1").map(|(_, o)| o);
    let Some(ToolOutcome::Error { error }) = outcome else { panic!("{outcome:?}") };
    assert_eq!(error.code, "UNKNOWN_TOOL", "{}", error.message);
    assert_eq!(result_text(&events, "c2"), "t130");

    // Only the tools that did not fit are named as left out, not those turned off.
    let failures = unavailable(&events);
    let [(server, error)] = &failures[..] else { panic!("{failures:?}") };
    assert_eq!((server.as_str(), error.code.as_str()), ("many", "MCP_TOOLS_LEFT_OUT"));
    let left_out: Vec<String> = (kept + off.len()..201).map(|i| format!("mcp__many__t{i:03}")).collect();
    assert!(error.message.ends_with(&format!(": {}", left_out.join(", "))), "{}", error.message);
    assert!(error.message.contains(&format!("{} of the MCP server", left_out.len())), "{}", error.message);

    // Settings' list comes from the same rule and says the same.
    let disabled: BTreeSet<String> = off.iter().cloned().collect();
    let shown = mcp.status.offers(&[("many", &disabled)]);
    let by_offer = |want: ToolOffer| -> Vec<String> {
        shown["many"].iter().filter(|(_, o)| *o == want).map(|(name, _)| format!("mcp__many__{name}")).collect()
    };
    assert_eq!(by_offer(ToolOffer::Offered), expected);
    assert_eq!(by_offer(ToolOffer::LeftOut), left_out);
    assert_eq!(by_offer(ToolOffer::Disabled).len(), off.len());
    drop(agent);
}

// --- forms a server asks unbidden, or too many of ---------------------------------------------------

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn a_server_shows_forms_only_while_its_call_runs_and_only_a_few_at_once() {
    let mut h = Harness::new(vec![
        tool_reply("Asking through the server.", &[("a1", "mcp__flood__ask", "{}".into())]),
        text_reply("Done."),
    ])
    .await;
    let agent = start(&h, json!({ "flood": entry("unruly_server.py", &["elicit-flood"], json!({})) }), "go");
    // Exactly the forms it may have open reach the person; each is closed by them.
    let mut shown = Vec::new();
    for _ in 0..hark_core::mcp::MAX_OPEN_FORMS {
        let form = tokio::time::timeout(Duration::from_secs(30), h.requests.recv()).await.unwrap().unwrap();
        shown.push(form);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(h.requests.try_recv().is_err(), "no more than {} forms at once", hark_core::mcp::MAX_OPEN_FORMS);
    for form in &shown {
        h.service.cancel(&form.session_id, &form.call_id).unwrap();
    }
    idle(&agent).await;
    let saw: Value = serde_json::from_str(&result_text(&h.events(&agent), "a1")).unwrap();
    let early = saw["early"].as_str().unwrap();
    assert!(early.contains("only while one of its tool calls runs"), "{saw}");
    let outcomes: Vec<&str> = (1..=5).map(|i| saw[format!("f{i}")].as_str().unwrap()).collect();
    assert_eq!(outcomes.iter().filter(|o| **o == "cancel").count(), 3, "{saw}");
    assert_eq!(outcomes.iter().filter(|o| o.contains("forms open")).count(), 2, "{saw}");
    let forms = h.events(&agent).iter().filter(|e| matches!(e.event, Event::McpForm { .. })).count();
    assert_eq!(forms, 3, "only the forms shown are recorded");
}

// --- a server's word about its own tools ------------------------------------------------------------

/// A plan-first agent with the `readonly` server (trusted or not), whose model calls `look` (marked
/// read-only by the server) and `change` before any plan: what each call got.
async fn before_the_plan(trusted: bool) -> (ToolOutcome, ToolOutcome) {
    let h = Harness::new(vec![
        tool_reply("Looking first.", &[("l1", "mcp__ro__look", "{}".into()), ("c1", "mcp__ro__change", "{}".into())]),
        text_reply("Done."),
    ])
    .await;
    let server = entry("tools_server.py", &["readonly"], json!({ "trusted": trusted }));
    let config = AgentConfig { mcp: mcp_config(json!({ "ro": server })), plan_first: true, ..config(ToolMode::Legacy) };
    let session = NewSession { title: "t".into(), workspace: Some(h.workspace.path().to_path_buf()), model: None };
    let agent = Agent::create(h.deps(), session, config).unwrap();
    agent.steer("tidy up").unwrap();
    idle(&agent).await;
    let results = results(&h.events(&agent));
    let of = |id: &str| results.iter().find(|(c, _)| c == id).map(|(_, o)| o.clone()).unwrap();
    (of("l1"), of("c1"))
}

#[tokio::test(flavor = "multi_thread")]
#[cfg_attr(windows, ignore = "the MCP servers are Python scripts in a Linux venv, which Wine cannot run")]
async fn a_servers_read_only_word_counts_before_a_plan_only_when_the_person_trusts_it() {
    let refused = |o: &ToolOutcome| matches!(o, ToolOutcome::Error { error } if error.code == "PLAN_NOT_APPROVED");
    let (look, change) = before_the_plan(false).await;
    assert!(refused(&look), "an untrusted server's read-only tool waits for the plan: {look:?}");
    assert!(refused(&change), "{change:?}");
    let (look, change) = before_the_plan(true).await;
    assert_eq!(look, ToolOutcome::ok("look"), "a trusted server's read-only tool runs");
    assert!(refused(&change), "its other tools still wait: {change:?}");
}
