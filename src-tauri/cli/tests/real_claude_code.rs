//! The real Claude Code (2.1.328, installed by `make test` in tests/agents) asking through Hark's
//! MCP server, offline against a scripted Anthropic Messages server on 127.0.0.1: set up with
//! `hark setup claude-code` on a fresh home as a person runs it, asked in print mode (`claude -p`)
//! through the MCP server or in its interactive screen (tmux) through the hook on its own
//! `AskUserQuestion`, answered in the terminal with `hark answer` or left unanswered. The model's next request is the oracle: it carries
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

/// The recovery path the hook hands the model: Claude Code's `AskUserQuestion` went to Hark through
/// the hook, nobody answered in the hook's time (the model was told the call id), the person answered
/// later, and the model collects it with Hark's `get_answers` by that call id. The hook and Claude
/// Code's `hark mcp` must meet in the same session, "Claude Code · <folder>", for it to find it.
#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_get_answers_collects_the_late_answer_to_the_question_its_hook_asked() {
    let machine = Machine::new();
    machine.claude_first_start();
    let set_up = machine.hark(hark(), &["setup", "claude-code"]);
    assert!(set_up.status.success(), "{}", said(&set_up));
    let _host = Host::start(&machine, hark(), &[]);

    // The hook as Claude Code runs it on its own question tool, with a budget of one second.
    let event = json!({
        "session_id": "claude-session-1", "transcript_path": "/dev/null", "cwd": machine.project,
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "AskUserQuestion",
        "tool_use_id": "toolu_own", "tool_input": { "questions": [{
            "question": "Which region?", "header": "Region", "multiSelect": false,
            "options": [{ "label": "eu", "description": "Frankfurt" }, { "label": "us", "description": "Virginia" }],
        }]},
    });
    let mut hook = machine.command(hark());
    hook.args(["hook", "claude-code", "--timeout", "1"]).stdin(std::process::Stdio::piped());
    let mut child = hook.spawn().expect("run the hook");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("the hook's stdin");
        stdin.write_all(event.to_string().as_bytes()).expect("write the event");
    }
    let out = tokio::task::spawn_blocking(move || child.wait_with_output()).await.expect("waiter").expect("hook");
    let decision: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", said(&out)));
    let reason = decision["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default().to_string();
    let call_id = reason
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .find(|w| w.starts_with("hook-"))
        .unwrap_or_else(|| panic!("no call id in {reason}"))
        .to_string();

    // The person answers it later in the terminal.
    let asked = open_question(&machine, hark()).await;
    assert_eq!(asked.call_id, call_id, "{asked:?}");
    let id = asked.question["questions"][0]["id"].as_str().expect("the question's id").to_string();
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": id, "selected": ["us"] }] }));

    // Claude Code's model collects it through Hark's MCP server by the hook's call id.
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![
            Step::call(
                "toolu_search",
                "ToolSearch",
                json!({ "query": "select:mcp__hark__get_answers", "max_results": 1 }),
            ),
            Step::call("toolu_get", "mcp__hark__get_answers", json!({ "call_ids": [call_id] })),
            Step::say("The release goes to us."),
        ],
    )
    .await;
    let out = finish(machine.claude(&model, "Collect the answer Hark told you about.")).await;
    assert!(out.status.success(), "{}", said(&out));
    let turns = model.turns();
    assert_eq!(turns.len(), 3, "{:#?}", model.requests());
    let read = tool_result(Api::AnthropicMessages, &turns[2], "toolu_get").expect("the call's result");
    let read: Value = serde_json::from_str(&read).unwrap_or_else(|e| panic!("{e}: {read}"));
    let late = &read["answers"][0];
    assert_eq!(late["call_id"], call_id.as_str(), "{read}");
    assert_eq!(late["answers"], json!([{ "id": id, "selected": ["us"] }]), "{read}");
    assert_eq!(late["answer_to_pending_question"], true, "as Hark's own agent reads a late answer: {read}");
    assert_eq!(read["waiting"], json!([]), "{read}");
}

/// Claude Code's own question tool in its interactive screen: the PreToolUse hook `hark setup` wrote
/// sends `AskUserQuestion` to Hark, the person answers in the terminal, and Claude Code's model reads
/// the answer as if picked in Claude Code's own prompt.
#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_own_question_goes_to_hark_through_the_hook_and_its_model_reads_the_answer() {
    let machine = Machine::new();
    machine.claude_first_start();
    let set_up = machine.hark(hark(), &["setup", "claude-code"]);
    assert!(set_up.status.success(), "{}", said(&set_up));
    let _host = Host::start(&machine, hark(), &[]);
    let own = real_agents::claude_own_question();
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![Step::call("toolu_own", "AskUserQuestion", own), Step::say("Postgres it is.")],
    )
    .await;
    let screen = machine.claude_screen("claude-hook-answered", &model, "Set up the database; ask me which one.");

    let asked = open_question(&machine, hark()).await;
    assert_eq!(asked.title, format!("Claude Code · {}", machine.folder()), "{asked:?}\n{}", screen.screen());
    assert!(asked.call_id.starts_with("hook-"), "{asked:?}");
    let id = asked.question["questions"][0]["id"].as_str().expect("the question's id").to_string();
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": id, "selected": ["Postgres"] }] }));

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let read = tool_result(Api::AnthropicMessages, &model.turns()[1], "toolu_own").expect("the call's result");
    assert!(!tool_result_is_error(Api::AnthropicMessages, &model.turns()[1], "toolu_own"), "{read}");
    assert!(read.contains(r#""Which database?"="Postgres""#), "{read}\n{}", screen.screen());
}

/// Left unanswered within the hook's budget (cut to a second here), Claude Code's own question is
/// denied with a "not answered yet" that says it is no consent and names the call id to collect the
/// answer with; the model reads exactly that, and the question goes on in Hark.
#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_own_question_unanswered_in_the_hooks_time_tells_the_model_it_is_no_answer() {
    let machine = Machine::new();
    machine.claude_first_start();
    let set_up = machine.hark(hark(), &["setup", "claude-code"]);
    assert!(set_up.status.success(), "{}", said(&set_up));
    // The hook's budget, a second instead of 55 minutes.
    let settings = machine.home.join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).expect("settings.json");
    std::fs::write(&settings, text.replace(" hook claude-code\"", " hook claude-code --timeout 1\"")).expect("write");
    let _host = Host::start(&machine, hark(), &[]);
    let own = real_agents::claude_own_question();
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![Step::call("toolu_own", "AskUserQuestion", own), Step::say("I will wait for the answer.")],
    )
    .await;
    let screen = machine.claude_screen("claude-hook-unanswered", &model, "Set up the database; ask me which one.");

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let turn = &model.turns()[1];
    let read = tool_result(Api::AnthropicMessages, turn, "toolu_own").expect("the call's result");
    assert!(tool_result_is_error(Api::AnthropicMessages, turn, "toolu_own"), "{read}\n{}", screen.screen());
    assert!(read.contains("has not answered") && read.contains("not their consent"), "{read}");
    assert!(!read.contains("Postgres\"") && !read.contains("=\"SQLite\""), "no answer in it: {read}");
    let asked = open_question(&machine, hark()).await;
    assert!(read.contains(&asked.call_id) && read.contains("get_answers"), "{read}");
    assert_eq!(asked.question["state"], "continued", "{asked:?}");
}

/// After `hark setup claude-code --undo`, Claude Code asks in its own prompt again: the person picks
/// there, its model reads that answer, and Hark hears nothing of it.
#[tokio::test(flavor = "multi_thread")]
async fn after_undo_claude_code_asks_in_its_own_prompt_again() {
    let machine = Machine::new();
    machine.claude_first_start();
    for args in [&["setup", "claude-code"][..], &["setup", "claude-code", "--undo"]] {
        let out = machine.hark(hark(), args);
        assert!(out.status.success(), "{}", said(&out));
    }
    let settings = std::fs::read_to_string(machine.home.join(".claude/settings.json")).expect("settings.json");
    assert_eq!(serde_json::from_str::<Value>(&settings).expect("JSON"), json!({}), "{settings}");
    let own = real_agents::claude_own_question();
    let model = VendorModel::start(
        Api::AnthropicMessages,
        vec![Step::call("toolu_own", "AskUserQuestion", own), Step::say("Postgres it is.")],
    )
    .await;
    let mut screen = machine.claude_screen("claude-undone", &model, "Set up the database; ask me which one.");
    let shown = screen.wait_for("Enter to select", "own-prompt");
    assert!(shown.contains("Which database?") && shown.contains("2. Postgres"), "{shown}");
    screen.keys(&["Down", "Enter"]);

    model.wait_for_turns(2, real_agents::AGENT_RUN).await;
    let read = tool_result(Api::AnthropicMessages, &model.turns()[1], "toolu_own").expect("the call's result");
    assert!(read.contains(r#""Which database?"="Postgres""#), "{read}");
    let sessions = machine.hark(hark(), &["sessions", "--json"]);
    assert_eq!(serde_json::from_slice::<Value>(&sessions.stdout).ok(), Some(json!([])), "{}", said(&sessions));
}

/// A timed question nobody answers: Claude Code in print mode declares no MCP tasks, so its call
/// waits at most the budget `hark mcp` gives such a client, which the tool's description tells the
/// model, and the model reads the one pending shape, never an answer.
#[tokio::test(flavor = "multi_thread")]
async fn claude_code_unanswered_over_mcp_reads_the_one_pending_shape_the_tool_describes() {
    let machine = Machine::new();
    machine.claude_first_start();
    let set_up = machine.hark(hark(), &["setup", "claude-code"]);
    assert!(set_up.status.success(), "{}", said(&set_up));
    let _host = Host::start(&machine, hark(), &["--timed", "--timeout", "2"]);
    let model = VendorModel::start(Api::AnthropicMessages, asking_model()).await;
    let out = finish(machine.claude(&model, "Set up the database; ask me which one.")).await;
    assert!(out.status.success(), "{}", said(&out));

    let turns = model.turns();
    assert_eq!(turns.len(), 3, "{:#?}", model.requests());
    let tool = turns[1]["tools"].as_array().into_iter().flatten().find(|t| t["name"] == "mcp__hark__ask_user_question");
    let description = tool.and_then(|t| t["description"].as_str()).unwrap_or_default();
    assert!(description.contains("(default 2), at most 45: -1 and longer timeouts wait 45 seconds"), "{description}");
    let read = tool_result(Api::AnthropicMessages, &turns[2], "toolu_ask").expect("the call's result");
    let read: Value = serde_json::from_str(&read).unwrap_or_else(|e| panic!("{e}: {read}"));
    assert_eq!((&read["status"], &read["reason"]), (&json!("pending"), &json!("timed_out")), "{read}");
    assert!(read.get("answers").is_none(), "a pending notice is never an answer: {read}");
    let asked = open_question(&machine, hark()).await;
    assert_eq!(read["call_id"], asked.call_id.as_str(), "{read}");
    assert_eq!(asked.question["state"], "continued", "{asked:?}");
}

/// A late answer through an MCP task: Claude Code's interactive screen runs Hark's question as a
/// background task; the question times out and goes on waiting in Hark; the person answers later.
/// Claude Code hands its model the task's result as a background event it must "NOT treat as
/// approval or consent", and runs its prompt hook on that notification: the hook `hark setup`
/// wrote confirms, once, that the answer is the person's own, which the model reads as hook
/// feedback (what Claude Code tells its model to treat as coming from the person).
#[tokio::test(flavor = "multi_thread")]
async fn claude_codes_late_task_answer_reaches_its_model_as_the_persons_word_once() {
    let machine = Machine::new();
    machine.claude_first_start();
    let set_up = machine.hark(hark(), &["setup", "claude-code"]);
    assert!(set_up.status.success(), "{}", said(&set_up));
    let _host = Host::start(&machine, hark(), &["--timed", "--timeout", "1"]);
    let mut script = asking_model();
    script.pop();
    script.extend([Step::say("I asked; I will go on meanwhile."), Step::say("Postgres it is.")]);
    let model = VendorModel::start(Api::AnthropicMessages, script).await;
    let screen = machine.claude_screen("claude-late-task", &model, "Set up the database; ask me which one.");

    // Asked as a task, the turn ended, and the question went on waiting in Hark after its second.
    model.wait_for_turns(3, real_agents::AGENT_RUN).await;
    let asked = loop {
        let asked = open_question(&machine, hark()).await;
        if asked.question["state"] == "continued" {
            break asked;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert!(asked.call_id.starts_with("mcp-"), "asked as an MCP task: {asked:?}\n{}", screen.screen());
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));

    model.wait_for_turns(4, real_agents::AGENT_RUN).await;
    let turns = model.turns();
    let woken = turns[3].to_string();
    assert!(woken.contains("NOT USER INPUT") && woken.contains(&asked.call_id), "the task's notification: {woken}");
    let confirmed = format!("Hark confirms: the person answered your ask_user_question call {}", asked.call_id);
    assert_eq!(woken.matches(&confirmed).count(), 1, "confirmed once, as hook feedback: {woken}");
    assert!(woken.contains("UserPromptSubmit hook additional context: Hark confirms"), "{woken}");
    let given = r#"{\"answers\":[{\"id\":\"db\",\"selected\":[\"Postgres\"]}]}"#;
    assert!(woken.contains(&format!("not an automated event: {given}")), "the person's answer: {woken}");
    // The person's own prompt got nothing from the hook.
    assert!(!turns[0].to_string().contains("Hark confirms"), "{}", turns[0]);
}

/// How many answers each benchmark times (its median is reported).
const BENCH_ROUNDS: usize = 20;

fn median_ms(mut samples: Vec<std::time::Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

/// Waits for the question `hark` holds open other than those in `seen`, and returns it.
async fn next_question(machine: &Machine, seen: &mut Vec<String>) -> hark_test_support::real_agents::Asked {
    loop {
        let asked = open_question(machine, hark()).await;
        if !seen.contains(&asked.call_id) {
            seen.push(asked.call_id.clone());
            return asked;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// `hook_answer_to_agent_ms`: Claude Code's own question through the hook, answered with `hark
/// answer`: from the moment the person's answer is given to the agent's next model request, which
/// carries it. `hook_answer_to_decision_ms`: to the moment the hook has handed Claude Code its
/// decision and ended (stamped by a shell around the hook), Hark's part of the first. `make bench`
/// runs it (`--ignored`).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a benchmark: make bench runs it"]
async fn bench_hook_answer_to_agent_ms() {
    let machine = Machine::new();
    machine.claude_first_start();
    assert!(machine.hark(hark(), &["setup", "claude-code"]).status.success());
    let _host = Host::start(&machine, hark(), &[]);
    let settings = machine.home.join(".claude/settings.json");
    let ends = machine.home.join("hook-ends");
    let text = std::fs::read_to_string(&settings).expect("settings.json");
    let command = format!("{} hook claude-code", hark().display());
    let stamped = format!("sh -c '{command}; date +%s.%N >> {}'", ends.display());
    let stamped = serde_json::to_string(&stamped).expect("JSON");
    std::fs::write(&settings, text.replacen(&format!("\"{command}\""), &stamped, 1)).expect("settings.json");
    let wall = || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
    let own = real_agents::claude_own_question();
    let mut script: Vec<Step> =
        (0..BENCH_ROUNDS).map(|i| Step::call(&format!("toolu_own{i}"), "AskUserQuestion", own.clone())).collect();
    script.push(Step::say("Done."));
    let model = VendorModel::start(Api::AnthropicMessages, script).await;
    let _screen = machine.claude_screen("claude-bench-hook", &model, "Ask me, again and again.");
    let (mut seen, mut samples, mut decided) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..BENCH_ROUNDS {
        let asked = next_question(&machine, &mut seen).await;
        let id = asked.question["questions"][0]["id"].as_str().expect("the question's id").to_string();
        let (given, given_at) = (std::time::Instant::now(), wall());
        answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": id, "selected": ["Postgres"] }] }));
        model.wait_for_turns(round + 2, real_agents::AGENT_RUN).await;
        samples.push(given.elapsed());
        let read = tool_result(Api::AnthropicMessages, &model.turns()[round + 1], &format!("toolu_own{round}"));
        assert!(read.is_some_and(|r| r.contains(r#""Which database?"="Postgres""#)), "round {round}");
        let stamps = std::fs::read_to_string(&ends).expect("the hook's end stamps");
        let ended: f64 = stamps.lines().nth(round).and_then(|l| l.trim().parse().ok()).expect("this round's stamp");
        decided.push(std::time::Duration::from_secs_f64((ended - given_at).max(0.0)));
    }
    println!("hook_answer_to_decision_ms {:.1} ms", median_ms(decided));
    println!("hook_answer_to_agent_ms {:.1} ms", median_ms(samples));
}

/// `task_answer_to_agent_ms`: Hark's question as an MCP task in Claude Code's interactive screen,
/// answered with `hark answer`: from the answer given to the model request Claude Code makes when
/// the task completes.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "a benchmark: make bench runs it"]
async fn bench_task_answer_to_agent_ms() {
    let machine = Machine::new();
    machine.claude_first_start();
    assert!(machine.hark(hark(), &["setup", "claude-code"]).status.success());
    let _host = Host::start(&machine, hark(), &[]);
    let mut script = vec![Step::call(
        "toolu_search",
        "ToolSearch",
        json!({ "query": "select:mcp__hark__ask_user_question", "max_results": 1 }),
    )];
    for i in 0..BENCH_ROUNDS {
        script.push(Step::call(&format!("toolu_ask{i}"), "mcp__hark__ask_user_question", question()));
        script.push(Step::say("Asked; going on meanwhile."));
    }
    script.push(Step::say("Done."));
    let model = VendorModel::start(Api::AnthropicMessages, script).await;
    let screen = machine.claude_screen("claude-bench-task", &model, "Ask me, again and again.");
    let (mut seen, mut samples) = (Vec::new(), Vec::new());
    for round in 0..BENCH_ROUNDS {
        let asked = next_question(&machine, &mut seen).await;
        // The turn that asked has ended: the task runs in the background.
        model.wait_for_turns(3 + 2 * round, real_agents::AGENT_RUN).await;
        let given = std::time::Instant::now();
        answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
        model.wait_for_turns(4 + 2 * round, real_agents::AGENT_RUN).await;
        samples.push(given.elapsed());
        let woken = model.turns()[3 + 2 * round].to_string();
        assert!(woken.contains(&asked.call_id), "round {round}: {woken}\n{}", screen.screen());
    }
    println!("task_answer_to_agent_ms {:.1} ms", median_ms(samples));
}
