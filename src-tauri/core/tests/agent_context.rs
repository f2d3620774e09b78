//! What the agent sends a strict server as a session grows: every tool result right after the call
//! that made it, whatever happened to the log, and a request that fits the model's context window,
//! also after the server said it did not.

use hark_core::agent::{history, Agent, UNKNOWN_OUTCOME_TEXT};
use hark_core::question::ToolMode;
use hark_core::session::{project_transcript, Event, Store, StoredEvent, ToolOutcome, TranscriptItem, DB_FILE};
use hark_test_support::agent::*;
use hark_test_support::server::{server_tokens, Rejection};
use serde_json::{json, Value};

/// A `read_file`-sized result: 40 KB of text, as a source file would read.
fn big_text(turn: usize) -> String {
    let mut text = String::new();
    let mut line = 0;
    while text.len() < 40_000 {
        text.push_str(&format!("// turn {turn} line {line}: fn step_{line}(x: u64) -> u64 {{ x * {line} + 1 }}\n"));
        line += 1;
    }
    text
}

/// Appends `turns` finished turns that each read a 40 KB file, as a long session has them.
fn grow(store: &Store, session: &str, turns: usize) {
    for t in 0..turns {
        let call_id = format!("old_{t}");
        store
            .append_batch(
                session,
                vec![
                    Event::TurnStarted { turn_id: format!("turn_{t}"), run_id: "earlier-run".into() },
                    Event::UserMessage { message_id: format!("m_{t}"), text: format!("read it ({t})"), source: None },
                    Event::AssistantMessage {
                        text: String::new(),
                        reasoning: None,
                        tool_calls: vec![call_id.clone()],
                        usage: None,
                    },
                    Event::ToolCall {
                        call_id: call_id.clone(),
                        name: "read_file".into(),
                        arguments: json!({ "path": "big.txt" }),
                    },
                    Event::ToolResult { call_id, outcome: ToolOutcome::ok(big_text(t)) },
                    Event::AssistantMessage {
                        text: format!("Read it ({t})."),
                        reasoning: None,
                        tool_calls: vec![],
                        usage: None,
                    },
                    Event::TurnEnded {
                        turn_id: format!("turn_{t}"),
                        reason: hark_core::session::TurnEndReason::Completed,
                    },
                ],
            )
            .unwrap();
    }
}

fn compactions(events: &[StoredEvent]) -> Vec<(u64, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::HistoryCompacted { through_seq, summary, .. } => Some((*through_seq, summary.clone())),
            _ => None,
        })
        .collect()
}

fn contents(messages: &[Value]) -> Vec<String> {
    messages.iter().map(|m| m["content"].as_str().unwrap_or_default().to_string()).collect()
}

const SUMMARY: &str = "The user had big.txt read four times; each read worked and nothing else was asked.";

#[tokio::test]
async fn a_failed_result_append_leaves_no_call_without_a_result_and_the_session_goes_on() {
    let read = || json!({ "path": "notes.txt" }).to_string();
    let h = Harness::strict(
        vec![
            tool_reply(
                "Reading three times.",
                &[("c1", "read_file", read()), ("c2", "read_file", read()), ("c3", "read_file", read())],
            ),
            text_reply("Carrying on."),
            text_reply("Still fine after the restart."),
        ],
        Strict { context_tokens: 1_000_000 },
    )
    .await;
    std::fs::write(h.workspace.path().join("notes.txt"), "remember the milk").unwrap();
    // The disk refuses c2's result: a trigger standing in for an I/O error at the worst moment.
    let conn = rusqlite::Connection::open(h.dir.path().join(DB_FILE)).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER refuse_c2 BEFORE INSERT ON events
         WHEN NEW.type = 'tool/result' AND json_extract(NEW.body, '$.call_id') = 'c2'
         BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END;",
    )
    .unwrap();
    let agent = h.agent(ToolMode::Legacy);
    run(&agent, "read it").await;
    let events = h.events(&agent);
    assert_eq!(
        results(&events),
        [("c1".to_string(), ToolOutcome::ok("remember the milk")), ("c3".to_string(), ToolOutcome::Unknown)],
        "the calls after the failed append are closed as unknown"
    );
    assert_eq!(turn_end(&events), "error");

    // c2 still has no result in the log; the next request answers it as unknown anyway.
    run(&agent, "go on").await;
    assert_eq!(h.server.rejections(), [], "{:#?}", h.sent().last());
    assert_eq!(last_assistant_text(&h.events(&agent)), "Carrying on.");
    let sent = h.sent();
    let tools: Vec<(&Value, &Value)> =
        sent[1].iter().filter(|m| m["role"] == "tool").map(|m| (&m["tool_call_id"], &m["content"])).collect();
    assert_eq!(
        tools,
        [
            (&json!("c1"), &json!("remember the milk")),
            (&json!("c2"), &json!(UNKNOWN_OUTCOME_TEXT)),
            (&json!("c3"), &json!(UNKNOWN_OUTCOME_TEXT))
        ]
    );

    // A restart: crash repair records c2's result at the end of the log, after later messages.
    let session = agent.session_id().to_string();
    drop(agent);
    conn.execute_batch("DROP TRIGGER refuse_c2").unwrap();
    let deps = h.restarted_deps();
    let store = deps.store.clone();
    let agent = Agent::open(deps, &session, config(ToolMode::Legacy)).unwrap();
    let events = store.events(&session).unwrap();
    let c2 = events.iter().position(|e| matches!(&e.event, Event::ToolResult { call_id, .. } if call_id == "c2"));
    let later =
        events.iter().position(|e| matches!(&e.event, Event::AssistantMessage { text, .. } if text == "Carrying on."));
    assert!(c2.unwrap() > later.unwrap(), "the repaired result lies after later messages");
    run(&agent, "and now?").await;
    assert_eq!(h.server.rejections(), [], "{:#?}", h.sent().last());
    assert_eq!(last_assistant_text(&store.events(&session).unwrap()), "Still fine after the restart.");
}

#[tokio::test]
async fn a_long_session_with_large_tool_results_stays_within_the_servers_context() {
    const TURNS: usize = 12;
    let mut script = Vec::new();
    for t in 0..TURNS {
        script.push(tool_reply("", &[(&format!("read_{t}"), "read_file", json!({ "path": "big.txt" }).to_string())]));
        script.push(text_reply(&format!("Read it ({t}).")));
    }
    let h = Harness::strict(script, Strict { context_tokens: 65_536 }).await;
    let agent = h.agent(ToolMode::Legacy);
    for t in 0..TURNS {
        std::fs::write(h.workspace.path().join("big.txt"), big_text(t)).unwrap();
        run(&agent, &format!("read big.txt again ({t})")).await;
        let events = h.events(&agent);
        assert_eq!(h.server.rejections(), [], "turn {t}");
        assert_eq!((turn_end(&events), last_assistant_text(&events)), ("completed".into(), format!("Read it ({t}).")));
    }
    let requests = h.server.requests();
    assert_eq!(requests.len(), 2 * TURNS);
    // The model always sees the result it just asked for, whole, and the conversation's start.
    let last = h.sent().last().unwrap().clone();
    let texts = contents(&last);
    assert_eq!(texts.iter().filter(|c| **c == big_text(TURNS - 1)).count(), 1);
    assert!(texts.iter().any(|c| c.starts_with("read big.txt again (0)")), "{texts:?}");
    assert!(texts.iter().any(|c| c.starts_with("[Hark elided this")), "older results were elided");
    let biggest = requests.iter().map(|r| server_tokens(&r.body)).max().unwrap();
    assert!(biggest <= 65_536, "{biggest}");
}

#[tokio::test]
async fn a_context_length_error_compacts_older_turns_and_the_session_recovers_for_good() {
    let h = Harness::strict(
        vec![text_reply(SUMMARY), text_reply("Here is the next step."), text_reply("Still here after the restart.")],
        Strict { context_tokens: 32_768 },
    )
    .await;
    let session = h.store.create_session("t", None, None).unwrap();
    // Grown past what this server holds (the agent's default window is larger).
    grow(&h.store, &session, 4);
    let agent = Agent::open(h.deps(), &session, config(ToolMode::Legacy)).unwrap();
    run(&agent, "what next?").await;

    let events = h.store.events(&session).unwrap();
    assert_eq!(turn_end(&events), "completed");
    assert_eq!(last_assistant_text(&events), "Here is the next step.");
    assert!(!types(&events).contains(&"model/error"));
    let recorded = compactions(&events);
    assert_eq!(recorded.len(), 1, "{:?}", types(&events));
    assert_eq!(recorded[0].1.as_deref(), Some(SUMMARY));
    let window = events.iter().find_map(|e| match e.event {
        Event::HistoryCompacted { window_tokens, .. } => Some(window_tokens),
        _ => None,
    });
    assert_eq!(window, Some(32_768), "the limit the server stated is learned");
    let opened_at = events.iter().find(|e| matches!(&e.event, Event::UserMessage { text, .. } if text == "what next?"));
    assert_eq!(recorded[0].0, opened_at.unwrap().seq - 1, "everything before the latest turn is summarised");
    let rejections = h.server.rejections();
    assert!(
        matches!(rejections.as_slice(), [(0, Rejection::ContextLength { .. })]),
        "only the first request was refused: {rejections:?}"
    );
    let sent = h.sent();
    assert_eq!(sent.len(), 3, "the refused step, the summary request, the step again");
    assert!(contents(&sent[1]).last().unwrap().contains("ummar"), "the second request asks for a summary");
    let retried = contents(&sent[2]);
    assert!(retried[1].contains(SUMMARY), "{retried:?}");
    assert_eq!(retried.last().unwrap(), "what next?");
    let transcript = project_transcript(&events);
    let shown = transcript.turns.iter().flat_map(|t| &t.items).find_map(|i| match i {
        TranscriptItem::HistoryCompacted { summary, .. } => Some(summary.clone()),
        _ => None,
    });
    assert_eq!(shown, Some(Some(SUMMARY.to_string())), "the window can show the compaction");

    // A new process rebuilds the same history and stays within the server's limit.
    let before = history(&events);
    drop(agent);
    let deps = h.restarted_deps();
    let store = deps.store.clone();
    let agent = Agent::open(deps, &session, config(ToolMode::Legacy)).unwrap();
    assert_eq!(history(&store.events(&session).unwrap()), before);
    run(&agent, "and after that?").await;
    assert_eq!(h.server.rejections().len(), 1);
    assert_eq!(last_assistant_text(&store.events(&session).unwrap()), "Still here after the restart.");
    let last = h.server.requests().last().unwrap().body.clone();
    assert!(server_tokens(&last) <= 32_768);
    assert!(contents(last["messages"].as_array().unwrap())[1].contains(SUMMARY));
}

#[tokio::test]
async fn when_the_summary_request_fails_too_older_turns_are_left_out_and_the_step_succeeds() {
    let h = Harness::strict(
        vec![
            Reply::json(400, json!({ "error": { "message": "summaries are not available" } })),
            text_reply("Onwards."),
        ],
        Strict { context_tokens: 32_768 },
    )
    .await;
    let session = h.store.create_session("t", None, None).unwrap();
    grow(&h.store, &session, 4);
    let agent = Agent::open(h.deps(), &session, config(ToolMode::Legacy)).unwrap();
    run(&agent, "what next?").await;
    let events = h.store.events(&session).unwrap();
    assert_eq!((turn_end(&events), last_assistant_text(&events)), ("completed".into(), "Onwards.".into()));
    let recorded = compactions(&events);
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].1, None, "no summary");
    let retried = contents(h.sent().last().unwrap());
    assert!(retried[1].contains("read it (0)"), "the session's first request is still shown: {retried:?}");
    assert_eq!(retried.last().unwrap(), "what next?");
    assert_eq!(h.server.rejections().len(), 1);
}

/// Not a benchmark: the size of one request of a 200-turn session whose every turn read 40 KB.
#[tokio::test]
async fn a_200_turn_session_sends_a_request_that_fits_the_default_window() {
    let h = Harness::strict(vec![text_reply("Done.")], Strict { context_tokens: 65_536 }).await;
    let session = h.store.create_session("t", None, None).unwrap();
    grow(&h.store, &session, 200);
    let agent = Agent::open(h.deps(), &session, config(ToolMode::Legacy)).unwrap();
    run(&agent, "one more").await;
    let request = h.server.requests()[0].body.clone();
    let bytes = request.to_string().len();
    eprintln!(
        "200-turn session: request body {bytes} bytes, {} messages, {} server tokens",
        request["messages"].as_array().unwrap().len(),
        server_tokens(&request)
    );
    assert_eq!(h.server.rejections(), []);
    assert_eq!(last_assistant_text(&h.store.events(&session).unwrap()), "Done.");
}
