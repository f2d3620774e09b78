//! The real Codex CLI (0.169.0, installed by `make test` in tests/agents) asking through Hark's MCP
//! server in `codex exec`, offline against a scripted OpenAI Responses server on 127.0.0.1: set up
//! with `hark setup codex` on a fresh home as a person runs it, answered in the terminal with
//! `hark answer`, or left unanswered. The model's next request is the oracle: it carries what
//! Codex's model read of the call.
//!
//! What the real client does, seen here: it sends `initialize` (client "codex-mcp-client", title
//! "Codex") without the tasks extension; it offers an MCP server's tools to the model as the
//! namespace `mcp__<server>`; it gives an MCP server only a few variables of its own environment
//! (HOME, PATH, LANG, SHELL, TERM) plus the `env_vars` its entry names; `codex exec` refuses an MCP
//! tool call that needs approval; and it shows its model a result's `structuredContent` rather than
//! its text, after "Wall time: … Output:".
#![cfg(unix)]

use std::path::Path;

use hark_test_support::real_agents::{answer, finish, open_question, questions, said, Host, Machine};
use hark_test_support::vendor_models::{namespaced_tool, tool_result, Api, Step, VendorModel};
use serde_json::{json, Value};

fn hark() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_hark"))
}

fn question() -> Value {
    json!({ "questions": [{ "id": "db", "question": "Which database?", "header": "Database",
        "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres", "description": "server" }] }] })
}

fn asking_model() -> Vec<Step> {
    vec![Step::call_in("call_ask", "mcp__hark", "ask_user_question", question()), Step::say("Done asking.")]
}

/// A machine whose Codex was set up for Hark by `hark setup codex`, and a host of its data folder.
async fn set_up(host_args: &[&str]) -> (Machine, Host, VendorModel) {
    let machine = Machine::new();
    let model = VendorModel::start(Api::OpenAiResponses, asking_model()).await;
    machine.codex_first_start(&model);
    let out = machine.hark(hark(), &["setup", "codex"]);
    assert!(out.status.success(), "{}", said(&out));
    let host = Host::start(&machine, hark(), host_args);
    (machine, host, model)
}

/// What Codex's model read of its call: the JSON after Codex's "Output:" line.
fn read_of(turn: &Value) -> Value {
    hark_test_support::real_agents::codex_output(
        &tool_result(Api::OpenAiResponses, turn, "call_ask").expect("the call's result"),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_exec_asks_through_hark_mcp_and_its_model_reads_the_answer_given_in_the_terminal() {
    let (machine, _host, model) = set_up(&[]).await;
    let run = hark_test_support::real_agents::start(machine.codex("Set up the database; ask me which one."));
    // Codex passed HARK_DATA_DIR (setup's env_vars) and called without asking (setup's approval):
    // the question reached this machine's Hark.
    let asked = open_question(&machine, hark()).await;
    assert_eq!(asked.title, format!("Codex · {}", machine.folder()), "{asked:?}");
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
    let out = run.await.expect("the agent's waiter");
    assert!(out.status.success(), "{}", said(&out));

    let turns = model.turns();
    assert_eq!(turns.len(), 2, "{:#?}", model.requests());
    assert_eq!(read_of(&turns[1]), json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
}

#[tokio::test(flavor = "multi_thread")]
async fn codex_exec_unanswered_reads_the_one_pending_shape_the_tool_describes_and_collects_the_late_answer() {
    // Timed questions of 2 s by default: nobody answers, the call returns pending.
    let (machine, _host, model) = set_up(&["--timed", "--timeout", "2"]).await;
    let out = finish(machine.codex("Set up the database; ask me which one.")).await;
    assert!(out.status.success(), "{}", said(&out));

    let turns = model.turns();
    assert_eq!(turns.len(), 2, "{:#?}", model.requests());
    // Codex declares no tasks: its model is told the longest the call waits, not "until answered".
    let tool = namespaced_tool(&turns[0], "mcp__hark", "ask_user_question").expect("Hark's tool offered");
    let description = tool["description"].as_str().unwrap_or_default();
    assert!(description.contains("(default 2), at most 45: -1 and longer timeouts wait 45 seconds"), "{description}");
    assert!(!description.contains("until answered"), "{description}");

    let read = read_of(&turns[1]);
    assert_eq!(read["status"], "pending", "{read}");
    assert_eq!(read["reason"], "timed_out", "{read}");
    assert!(read.get("answers").is_none(), "a pending notice is never an answer: {read}");
    assert!(read["next"].as_str().unwrap_or_default().contains("get_answers"), "{read}");
    // The question goes on in Hark, answerable, under the call id the model read.
    let sessions = machine.hark(hark(), &["sessions", "--json"]);
    let sessions: Value = serde_json::from_slice(&sessions.stdout).expect("sessions");
    let session = sessions[0]["id"].as_str().expect("a session");
    let listed = questions(&machine, hark(), session);
    assert_eq!(listed[0]["call_id"], read["call_id"], "{listed}");
    assert_eq!(listed[0]["state"], "continued", "{listed}");

    // The person answers later in the terminal; Codex's next run collects it by the call id.
    let asked = open_question(&machine, hark()).await;
    assert_eq!(asked.call_id, read["call_id"].as_str().unwrap_or_default(), "{asked:?}");
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "db", "selected": ["SQLite"] }] }));
    model.then(vec![
        Step::call_in("call_get", "mcp__hark", "get_answers", json!({ "call_ids": [asked.call_id] })),
        Step::say("SQLite, then."),
    ]);
    let out = finish(machine.codex("Did the person answer my question?")).await;
    assert!(out.status.success(), "{}", said(&out));
    let turns = model.turns();
    assert_eq!(turns.len(), 4, "{:#?}", model.requests());
    let text = tool_result(Api::OpenAiResponses, &turns[3], "call_get").expect("get_answers' result");
    let collected = hark_test_support::real_agents::codex_output(&text);
    assert_eq!(collected["answers"][0]["call_id"], asked.call_id.as_str(), "{collected}");
    assert_eq!(collected["answers"][0]["answers"], json!([{ "id": "db", "selected": ["SQLite"] }]), "{collected}");
    assert_eq!(collected["waiting"], json!([]), "{collected}");
}

/// Codex's own question tool (`request_user_input`) through the hook `hark setup codex` wrote, in
/// Codex's interactive screen (tmux): Codex runs a new hook only once the person trusts it, which
/// they do in the review it shows at start; then the question goes to Hark, is answered in the
/// terminal, and the model reads the answers in the reason Codex gives for the blocked call.
#[tokio::test(flavor = "multi_thread")]
async fn codexs_own_question_goes_to_hark_through_the_trusted_hook_and_its_model_reads_the_answer() {
    let machine = Machine::new();
    let own = json!({ "questions": [{ "id": "db", "header": "Database", "question": "Which database?", "isOther": true,
        "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres", "description": "server" }] }] });
    let model = VendorModel::start(
        Api::OpenAiResponses,
        vec![Step::call("call_own", "request_user_input", own), Step::say("Done.")],
    )
    .await;
    machine.codex_first_start(&model);
    let out = machine.hark(hark(), &["setup", "codex"]);
    assert!(out.status.success(), "{}", said(&out));
    let _host = Host::start(&machine, hark(), &[]);

    let mut screen = machine.codex_screen("codex-hook");
    // The person trusts the new hook, as Codex asks at start.
    let review = screen.wait_for("Trust all and continue", "hook-review");
    assert!(review.contains("Hooks need review"), "{review}");
    hark_test_support::real_agents::codex_trust_all(&mut screen);
    screen.wait_for("Ask Codex to do anything", "trusted");
    // Codex records the trust as the screen goes on: read until it has (bounded).
    let kept = ":pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:";
    let started = std::time::Instant::now();
    let config = loop {
        let config = std::fs::read_to_string(machine.home.join(".codex/config.toml")).expect("config.toml");
        if config.contains(kept) || started.elapsed() > hark_test_support::real_agents::AGENT_RUN {
            break config;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(config.contains(kept), "Codex keeps the trust: {config}");
    screen.type_text("Set up the database; ask me which one.");
    screen.wait_for("ask me which one.", "typed");
    screen.keys(&["Enter"]);
    screen.wait_for("Running hook", "hook-running");

    let asked = open_question(&machine, hark()).await;
    assert_eq!(asked.title, format!("Codex · {}", machine.folder()), "{asked:?}");
    assert!(asked.call_id.starts_with("hook-"), "{asked:?}");
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));

    model.wait_for_turns(2, hark_test_support::real_agents::AGENT_RUN).await;
    let read = tool_result(Api::OpenAiResponses, &model.turns()[1], "call_own").expect("the call's result");
    assert!(read.contains("Tool call blocked by PreToolUse hook") && read.contains("already answered"), "{read}");
    assert!(read.contains(r#"{"answers":{"db":{"answers":["Postgres"]}}}"#), "{read}");
    screen.wait_for("Done.", "done");
}

/// What Codex's own app server says of the hooks it loads for the machine's project.
fn codex_hooks(machine: &Machine) -> Vec<hark_core::agent_setup::codex_trust::ListedHook> {
    let home = machine.home.display().to_string();
    let env = [("HOME".to_string(), home.clone()), ("CODEX_HOME".to_string(), format!("{home}/.codex"))];
    let codex = hark_test_support::real_agents::installed("codex");
    hark_core::agent_setup::codex_trust::list_hooks(&codex, &env, &machine.project)
        .expect("codex app-server hooks/list")
}

/// `hark setup codex --undo` leaves the person's own hooks trusted: Codex keeps its trust in a hook
/// by the hook's place in the list, so Hark's group, set up before one of the person's, must not
/// take its place away when it goes.
#[tokio::test(flavor = "multi_thread")]
async fn after_undo_codex_still_trusts_the_persons_own_hooks() {
    use hark_core::agent_setup::codex_trust::{hark_hook, HookTrust};
    let machine = Machine::new();
    let model = VendorModel::start(Api::OpenAiResponses, vec![Step::say("Done.")]).await;
    machine.codex_first_start(&model);
    let out = machine.hark(hark(), &["setup", "codex"]);
    assert!(out.status.success(), "{}", said(&out));
    // The person adds a hook of their own after Hark's.
    let config = machine.home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).expect("config.toml");
    text.push_str("\n[[hooks.PreToolUse]]\nmatcher = \"shell\"\n\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"true\"\n");
    std::fs::write(&config, text).expect("config.toml");
    assert_eq!(hark_hook(&codex_hooks(&machine)).and_then(|h| h.trust), Some(HookTrust::Untrusted), "new to Codex");
    // With Codex on the PATH, setup says what Codex says of Hark's hook.
    let codex_dir = hark_test_support::real_agents::installed("codex").parent().expect("bin").to_path_buf();
    let path = format!("{}:{}", codex_dir.display(), std::env::var("PATH").unwrap_or_default());
    let setup_says = |machine: &Machine| {
        let out = machine.command(hark()).args(["setup", "codex"]).env("PATH", &path).output().expect("hark setup");
        assert!(out.status.success(), "{}", said(&out));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said_before = setup_says(&machine);
    assert!(said_before.contains("Codex does not run Hark's hook yet"), "{said_before}");
    {
        // They trust both in the review Codex shows at start.
        let mut screen = machine.codex_screen("codex-trust-both");
        let review = screen.wait_for("Trust all and continue", "review-both");
        assert!(review.contains("2 hooks"), "{review}");
        hark_test_support::real_agents::codex_trust_all(&mut screen);
        screen.wait_for("Ask Codex to do anything", "trusted-both");
    }
    // Codex records the trust as the screen goes on: read until it has (bounded).
    let started = std::time::Instant::now();
    let hooks = loop {
        let hooks = codex_hooks(&machine);
        if hooks.iter().all(|h| h.trust == Some(HookTrust::Trusted))
            || started.elapsed() > hark_test_support::real_agents::AGENT_RUN
        {
            break hooks;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(hooks.iter().all(|h| h.trust == Some(HookTrust::Trusted)), "{hooks:?}");
    let said_after = setup_says(&machine);
    assert!(said_after.contains("Codex trusts Hark's hook: it runs."), "{said_after}");

    let out = machine.hark(hark(), &["setup", "codex", "--undo"]);
    assert!(out.status.success(), "{}", said(&out));
    let hooks = codex_hooks(&machine);
    assert_eq!(hark_hook(&hooks), None, "Hark's hook is gone: {hooks:?}");
    let theirs = hooks.iter().find(|h| h.command.as_deref() == Some("true")).expect("the person's hook");
    assert_eq!(theirs.trust, Some(HookTrust::Trusted), "{hooks:?}");
}

/// The phone as the person's surface: Codex asks through Hark's MCP server, the question's card
/// reaches the paired phone (the Telegram Bot API emulator), a tap there answers it, and Codex's
/// model reads that answer.
#[tokio::test(flavor = "multi_thread")]
async fn codexs_question_answered_from_the_phone_reaches_its_model() {
    const TOKEN: &str = "4242:real-codex-phone";
    let emulator = hark_test_support::telegram::Emulator::start().await;
    let machine = Machine::new();
    let model = VendorModel::start(Api::OpenAiResponses, asking_model()).await;
    machine.codex_first_start(&model);
    assert!(machine.hark(hark(), &["setup", "codex"]).status.success());
    hark_test_support::real_agents::pair_phone(&machine, hark(), &emulator, TOKEN, 9001).await;
    let _host = Host::start_with_env(&machine, hark(), &[], &[("HARK_TELEGRAM_TOKEN", TOKEN)]);

    let run = hark_test_support::real_agents::start(machine.codex("Set up the database; ask me which one."));
    let card = emulator.wait_message(TOKEN, "the question's card", |m| m.text.starts_with("❓")).await;
    assert!(card.text.contains("Which database?") && card.text.contains("Codex"), "{card:?}");
    emulator.person(TOKEN, 9001, "ada").press(&card, "Postgres").await;
    let out = run.await.expect("the agent's waiter");
    assert!(out.status.success(), "{}", said(&out));
    let turns = model.turns();
    assert_eq!(read_of(&turns[1]), json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
}

/// Codex's own question through the trusted hook, unanswered within the hook's budget (cut to a
/// second): Codex's model reads a "not answered yet" that is no answer and names the call; the
/// person answers later in Hark, and the model collects it with Hark's `get_answers` by that id.
#[tokio::test(flavor = "multi_thread")]
async fn codexs_own_question_unanswered_in_the_hooks_time_is_collected_late_by_its_call_id() {
    let machine = Machine::new();
    let own = json!({ "questions": [{ "id": "db", "header": "Database", "question": "Which database?", "isOther": true,
        "options": [{ "label": "SQLite", "description": "embedded" }, { "label": "Postgres", "description": "server" }] }] });
    let model = VendorModel::start(
        Api::OpenAiResponses,
        vec![Step::call("call_own", "request_user_input", own), Step::say("I will collect it later.")],
    )
    .await;
    machine.codex_first_start(&model);
    assert!(machine.hark(hark(), &["setup", "codex"]).status.success());
    let config = machine.home.join(".codex/config.toml");
    let text = std::fs::read_to_string(&config).expect("config.toml");
    std::fs::write(&config, text.replace(" hook codex\"", " hook codex --timeout 1\"")).expect("config.toml");
    let _host = Host::start(&machine, hark(), &[]);

    let mut screen = machine.codex_turn_with_hooks_trusted("codex-hook-late", "Set up the database; ask me which one.");

    model.wait_for_turns(2, hark_test_support::real_agents::AGENT_RUN).await;
    let read = tool_result(Api::OpenAiResponses, &model.turns()[1], "call_own").expect("the call's result");
    assert!(read.contains("has not answered") && read.contains("not their consent"), "{read}");
    assert!(!read.contains("Postgres\"]"), "no answer in it: {read}");
    let asked = open_question(&machine, hark()).await;
    assert!(read.contains(&asked.call_id) && read.contains("get_answers"), "{read}");
    answer(&machine, hark(), &asked, &json!({ "answers": [{ "id": "db", "selected": ["Postgres"] }] }));
    screen.wait_for("I will collect it later.", "turn-ended");

    // The person tells Codex to go on; its model collects the answer by the call id it was given.
    model.then(vec![
        Step::call_in("call_get", "mcp__hark", "get_answers", json!({ "call_ids": [asked.call_id] })),
        Step::say("Postgres it is."),
    ]);
    screen.type_text("Go on.");
    screen.wait_for("Go on.", "typed-again");
    screen.keys(&["Enter"]);
    model.wait_for_turns(4, hark_test_support::real_agents::AGENT_RUN).await;
    let text = tool_result(Api::OpenAiResponses, &model.turns()[3], "call_get").expect("get_answers' result");
    let got = hark_test_support::real_agents::codex_output(&text);
    assert_eq!(got["answers"][0]["call_id"], asked.call_id.as_str(), "{got}");
    assert_eq!(got["answers"][0]["answers"], json!([{ "id": "db", "selected": ["Postgres"] }]), "{got}");
}
