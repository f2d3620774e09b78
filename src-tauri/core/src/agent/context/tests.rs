use super::*;
use crate::model::{OpenAiConfig, ToolCallRequest};

fn user(text: &str) -> ChatMessage {
    ChatMessage::user(text)
}

fn calls(ids: &[&str]) -> ChatMessage {
    let tool_calls =
        ids.iter().map(|id| ToolCallRequest { id: id.to_string(), name: "read_file".into(), arguments: "{}".into() });
    ChatMessage::Assistant { content: String::new(), reasoning: None, tool_calls: tool_calls.collect() }
}

fn result(id: &str, bytes: usize) -> ChatMessage {
    ChatMessage::tool(id, "x".repeat(bytes))
}

fn total(messages: &[ChatMessage]) -> usize {
    messages.iter().map(message_tokens).sum()
}

fn elided(messages: &[ChatMessage]) -> Vec<&str> {
    messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool { call_id, content } if content.starts_with("[Hark elided") => Some(call_id.as_str()),
            _ => None,
        })
        .collect()
}

/// A turn that reads one file of `bytes` and answers.
fn turn(n: usize, bytes: usize) -> Vec<ChatMessage> {
    let id = format!("c{n}");
    vec![
        user(&format!("read it ({n})")),
        calls(&[&id]),
        result(&id, bytes),
        ChatMessage::assistant(format!("read {n}")),
    ]
}

/// Every assistant message with calls is followed by exactly its results, and every result follows
/// its call: what strict servers require.
fn strictly_ordered(messages: &[ChatMessage]) -> bool {
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            ChatMessage::Tool { .. } => return false,
            ChatMessage::Assistant { tool_calls, .. } => {
                for call in tool_calls {
                    i += 1;
                    match messages.get(i) {
                        Some(ChatMessage::Tool { call_id, .. }) if *call_id == call.id => {}
                        _ => return false,
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}

#[test]
fn the_estimate_is_three_bytes_a_token_plus_each_messages_framing() {
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("abcdef"), 2);
    assert_eq!(estimate_tokens("abcdefg"), 3);
    assert_eq!(message_tokens(&user("abc")), 1 + 4);
    let call = ToolCallRequest { id: "abc".into(), name: "abc".into(), arguments: "abc".into() };
    let with_call =
        ChatMessage::Assistant { content: "abc".into(), reasoning: Some("x".repeat(900)), tool_calls: vec![call] };
    assert_eq!(message_tokens(&with_call), 4 + 1 + (4 + 3), "reasoning is not sent back, so not counted");
}

#[test]
fn the_reply_reserve_matches_what_the_openai_provider_asks_for() {
    assert_eq!(Some(AgentConfig::default().reply_reserve_tokens), OpenAiConfig::default().max_tokens);
    let config = AgentConfig::default();
    assert_eq!(prompt_budget(u64::from(config.context_window_tokens), &config), 65_536 - 8192);
    assert_eq!(prompt_budget(100, &config), MIN_PROMPT_TOKENS, "a tiny window still leaves a prompt");
}

#[test]
fn a_conversation_within_budget_is_sent_as_it_is() {
    let messages: Vec<ChatMessage> = (0..3).flat_map(|n| turn(n, 5000)).collect();
    assert_eq!(fit(messages.clone(), 0, total(&messages)), messages);
}

#[test]
fn older_large_results_go_first_oldest_first_while_small_ones_and_the_latest_step_stay() {
    let mut messages: Vec<ChatMessage> = (0..4).flat_map(|n| turn(n, 40_000)).collect();
    messages.extend([user("check"), calls(&["small", "last"]), result("small", 200), result("last", 40_000)]);
    let budget = total(&messages) - 30_000;
    let fitted = fit(messages.clone(), 0, budget);
    assert!(total(&fitted) <= budget);
    // 30 000 tokens over, freed in quarters of the budget: the three oldest results go.
    assert_eq!(elided(&fitted), ["c0", "c1", "c2"]);
    assert_eq!(fitted.len(), messages.len(), "no turn was dropped");
    assert_eq!(fitted.last(), messages.last(), "the result the model just asked for is whole");
    assert!(strictly_ordered(&fitted));
    let ChatMessage::Tool { content, .. } = &fitted[2] else { panic!("{:?}", fitted[2]) };
    assert_eq!(
        content,
        "[Hark elided this 40000-byte tool result to fit the model's context; call the tool again if you need it]"
    );
}

#[test]
fn the_elided_part_stays_the_same_while_the_conversation_grows_a_little() {
    // Results of about a thousand tokens: freeing just the excess would elide one more every turn.
    let mut messages: Vec<ChatMessage> = (0..100).flat_map(|n| turn(n, 3_000)).collect();
    let budget = 57_344;
    let mut previous = fit(messages.clone(), 0, budget);
    let mut changes = 0;
    for n in 100..110 {
        messages.extend(turn(n, 3_000));
        let fitted = fit(messages.clone(), 0, budget);
        assert!(total(&fitted) <= budget);
        // The previous request, less its last turn (whose result was the latest then), is a prefix.
        let kept = previous.len() - 4;
        if fitted[..kept] != previous[..kept] {
            changes += 1;
        }
        previous = fitted;
    }
    assert!(changes <= 1, "ten turns of growth changed the request's prefix {changes} times");
}

#[test]
fn then_the_oldest_whole_turns_go_keeping_the_opening_request_and_the_latest_turn() {
    let mut messages = vec![user("the task: build the app")];
    messages.extend([calls(&["first"]), result("first", 300), ChatMessage::assistant("started")]);
    messages.extend((1..60).flat_map(|n| turn(n, 600)));
    let latest = turn(60, 600);
    messages.extend(latest.clone());
    let budget = 2_000;
    let fitted = fit(messages.clone(), 0, budget);
    assert!(total(&fitted) <= budget, "{} > {budget}", total(&fitted));
    assert!(elided(&fitted).is_empty(), "small results are not elided");
    assert!(strictly_ordered(&fitted), "{fitted:#?}");
    let ChatMessage::User { content } = &fitted[0] else { panic!() };
    assert!(content.starts_with("the task: build the app\n\n[Hark left out the "), "{content}");
    assert_eq!(fitted[fitted.len() - latest.len()..], latest[..], "the latest turn is whole");
    // What is left after the opening is a run of whole turns, each starting at its user message.
    assert!(matches!(&fitted[1], ChatMessage::User { content } if content.starts_with("read it (")));
    let left_out: usize = content.split("left out the ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert_eq!(left_out + fitted.len(), messages.len());
}

#[test]
fn when_nothing_else_is_left_the_latest_step_and_the_opening_request_are_cut_too() {
    let messages = vec![user(&"the task ".repeat(2000)), calls(&["a", "b"]), result("a", 40_000), result("b", 40_000)];
    let fitted = fit(messages, 0, 2_000);
    assert_eq!(elided(&fitted), ["a", "b"]);
    let ChatMessage::User { content } = &fitted[0] else { panic!() };
    assert!(content.len() < 4200 && content.ends_with("to fit the model's context.]"), "{content}");
    assert!(total(&fitted) <= 2_000);
    assert!(strictly_ordered(&fitted));
}
