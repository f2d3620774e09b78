//! The transcript projection, on events built in memory and on the same events read back from disk.

mod store_common;

use hark_core::question::ToolMode;
use hark_core::session::{
    project_transcript, Event, MessageSource, QuestionState, StoredEvent, ToolOutcome, Transcript, TranscriptItem,
};
use serde_json::{json, Value};
use store_common::*;

type Load = fn(&[Event]) -> Vec<StoredEvent>;

fn transcript(load: Load, events: &[Event]) -> Transcript {
    project_transcript(&load(events))
}

fn kinds(items: &[TranscriptItem]) -> Vec<&'static str> {
    items
        .iter()
        .map(|i| match i {
            TranscriptItem::UserMessage { .. } => "user",
            TranscriptItem::LateAnswer { .. } => "late_answer",
            TranscriptItem::AssistantMessage { .. } => "assistant",
            TranscriptItem::ToolCall { .. } => "tool",
            TranscriptItem::OrphanResult { .. } => "orphan",
            TranscriptItem::ModelError { .. } => "model_error",
            TranscriptItem::McpUnavailable { .. } => "mcp_unavailable",
            TranscriptItem::McpForm { .. } => "mcp_form",
            TranscriptItem::HistoryCompacted { .. } => "compacted",
        })
        .collect()
}

fn groups_items_by_turn(load: Load) {
    let events = [
        header(ToolMode::Legacy),
        turn_started("t1"),
        user("m1", "hello"),
        Event::AssistantMessage { text: "hi".into(), reasoning: Some("greet".into()), tool_calls: vec![], usage: None },
        turn_ended("t1", "completed"),
        turn_started("t2"),
        user("m2", "again"),
        Event::ModelError { error: hark_core::error::BoundaryError::new("ModelError", "HTTP_500", "boom") },
        turn_ended("t2", "error"),
    ];
    let t = transcript(load, &events);
    assert!(matches!(t.title.as_deref(), Some("mem" | "disk")), "title from session/created");
    let shape: Vec<(Option<&str>, Option<&str>, Vec<&str>)> = t
        .turns
        .iter()
        .map(|turn| (turn.turn_id.as_deref(), turn.ended.as_ref().map(|e| e.reason.as_str()), kinds(&turn.items)))
        .collect();
    assert_eq!(
        shape,
        [
            (Some("t1"), Some("completed"), vec!["user", "assistant"]),
            (Some("t2"), Some("error"), vec!["user", "model_error"])
        ]
    );
    match &t.turns[0].items[1] {
        TranscriptItem::AssistantMessage { text, reasoning, .. } => {
            assert_eq!((text.as_str(), reasoning.as_deref()), ("hi", Some("greet")));
        }
        other => panic!("expected the assistant message, got {other:?}"),
    }
    assert_eq!(t.earlier_turns, 0);
    let mut tail = t.clone();
    tail.keep_last_turns(1);
    assert_eq!((tail.earlier_turns, tail.turns.len()), (1, 1));
    assert_eq!(tail.turns[0].turn_id.as_deref(), Some("t2"), "the newest turn is kept");
    assert_eq!(tail.questions, t.questions, "questions stay whole");
    let mut all = t.clone();
    all.keep_last_turns(10);
    assert_eq!(all, t, "nothing to leave out");
}

fn pairs_tool_calls_with_their_results(load: Load) {
    let events = [
        turn_started("t1"),
        Event::AssistantMessage {
            text: String::new(),
            reasoning: None,
            tool_calls: vec!["r1".into(), "r2".into()],
            usage: None,
        },
        Event::ToolCall { call_id: "r1".into(), name: "read_file".into(), arguments: json!({"path": "a.txt"}) },
        Event::ToolCall { call_id: "r2".into(), name: "list_files".into(), arguments: json!({}) },
        result("r2", ToolOutcome::ok("a.txt")),
        result("r1", ToolOutcome::ok("contents")),
        result("ghost", ToolOutcome::Unknown),
        turn_ended("t1", "completed"),
    ];
    let t = transcript(load, &events);
    assert_eq!(kinds(&t.turns[0].items), ["assistant", "tool", "tool", "orphan"]);
    let results: Vec<(String, Option<ToolOutcome>)> = t.turns[0]
        .items
        .iter()
        .filter_map(|i| match i {
            TranscriptItem::ToolCall { call_id, result, .. } => {
                Some((call_id.clone(), result.as_ref().map(|r| r.outcome.clone())))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [("r1".to_string(), Some(ToolOutcome::ok("contents"))), ("r2".to_string(), Some(ToolOutcome::ok("a.txt"))),]
    );
}

fn late_answer_is_shown_as_answers_and_on_the_tool_row(load: Load) {
    let batch = answers(&["db"], "B");
    let text = late_text("c1", &["db"], &batch);
    let events = [
        header(ToolMode::Timed),
        turn_started("t1"),
        ask("c1", &["db"]),
        pending("c1"),
        turn_ended("t1", "completed"),
        queued("m1", "c1", &text),
        turn_started("t2"),
        admitted("m1", "c1", &text),
        turn_ended("t2", "completed"),
    ];
    let t = transcript(load, &events);
    match &t.turns[0].items[0] {
        TranscriptItem::ToolCall { result, question, .. } => {
            assert!(matches!(result.as_ref().map(|r| &r.outcome), Some(ToolOutcome::Pending { .. })));
            let q = question.as_ref().expect("the question record on its row");
            assert_eq!((q.state, q.answered_late, q.answers.as_ref()), (QuestionState::Settled, true, Some(&batch)));
        }
        other => panic!("expected the tool row, got {other:?}"),
    }
    match &t.turns[1].items[0] {
        TranscriptItem::LateAnswer { call_id, answers, questions: qs, raw_text, .. } => {
            assert_eq!(call_id, "c1");
            assert_eq!(answers.as_ref(), Some(&batch));
            assert_eq!(qs, &questions(&["db"]));
            assert_eq!(raw_text, &None);
        }
        other => panic!("expected a late answer, got {other:?}"),
    }
}

fn unreadable_late_answer_keeps_its_raw_text(load: Load) {
    let events = [ask("c1", &["db"]), pending("c1"), admitted("m1", "c1", "{broken")];
    let t = transcript(load, &events);
    let late = t.turns.iter().flat_map(|turn| &turn.items).find_map(|i| match i {
        TranscriptItem::LateAnswer { answers, raw_text, .. } => Some((answers.clone(), raw_text.clone())),
        _ => None,
    });
    assert_eq!(late, Some((None, Some("{broken".to_string()))));
}

fn pasted_reply_json_stays_a_plain_message(load: Load) {
    let text = late_text("c1", &["db"], &answers(&["db"], "A"));
    let t = transcript(load, &[turn_started("t1"), user("m1", &text), turn_ended("t1", "completed")]);
    assert!(matches!(&t.turns[0].items[0], TranscriptItem::UserMessage { text: shown, .. } if *shown == text));
}

fn queued_reply_answers_show_on_the_tool_row(load: Load) {
    let batch = answers(&["db"], "A");
    let text = late_text("c1", &["db"], &batch);
    let events = [turn_started("t1"), ask("c1", &["db"]), pending("c1"), queued("m1", "c1", &text)];
    let t = transcript(load, &events);
    match &t.turns[0].items[0] {
        TranscriptItem::ToolCall { queued_answers, question, .. } => {
            assert_eq!(queued_answers.as_ref(), Some(&batch));
            assert_eq!(question.as_ref().and_then(|q| q.reply_queued.as_deref()), Some("m1"));
        }
        other => panic!("expected the tool row, got {other:?}"),
    }
}

fn queued_messages_are_listed_until_admitted(load: Load) {
    let batch = answers(&["db"], "A");
    let text = late_text("c1", &["db"], &batch);
    let typed = |id: &str, text: &str| Event::InboxQueued {
        message_id: id.into(),
        text: text.into(),
        // As the agent records a message the person typed.
        source: MessageSource::typed(),
    };
    let waiting = [
        turn_started("t1"),
        ask("c1", &["db"]),
        pending("c1"),
        queued("m1", "c1", &text),
        typed("m2", "also use docker"),
        typed("m3", "never mind"),
        discarded("m3"),
        turn_ended("t1", "interrupted"),
    ];
    let t = transcript(load, &waiting);
    let json = serde_json::to_value(&t).unwrap();
    let queued = json["queued"].as_array().expect("a queued list");
    assert_eq!(queued.len(), 2, "{queued:#?}");
    assert_eq!(
        (&queued[0]["kind"], &queued[0]["message_id"], &queued[0]["call_id"]),
        (&json!("late_answer"), &json!("m1"), &json!("c1"))
    );
    assert_eq!(queued[0]["answers"], serde_json::to_value(&batch).unwrap());
    assert_eq!(
        (&queued[1]["kind"], &queued[1]["message_id"], &queued[1]["text"]),
        (&json!("user_message"), &json!("m2"), &json!("also use docker"))
    );
    assert_eq!(queued[1]["seq"], 6, "the seq of its inbox/queued event");
    assert!(json["turns"][0]["items"].as_array().unwrap().iter().all(|i| i["kind"] == "tool_call"));

    let admitted: Vec<Event> = waiting
        .iter()
        .cloned()
        .chain([turn_started("t2"), admitted("m1", "c1", &text), user("m2", "also use docker")])
        .collect();
    let json = serde_json::to_value(transcript(load, &admitted)).unwrap();
    assert_eq!(json["queued"], json!([]), "admitted messages are no longer queued");
    let kinds: Vec<&Value> = json["turns"][1]["items"].as_array().unwrap().iter().map(|i| &i["kind"]).collect();
    assert_eq!(kinds, [&json!("late_answer"), &json!("user_message")]);
}

fn events_outside_turns_get_a_turn_of_their_own(load: Load) {
    let events = [
        user("m0", "before"),
        turn_started("t1"),
        user("m1", "inside"),
        turn_ended("t1", "completed"),
        user("m2", "after"),
    ];
    let t = transcript(load, &events);
    let ids: Vec<Option<&str>> = t.turns.iter().map(|turn| turn.turn_id.as_deref()).collect();
    assert_eq!(ids, [None, Some("t1"), None]);
    assert!(t.turns.iter().all(|turn| turn.items.len() == 1));
}

fn interrupted_turn_shows_its_end(load: Load) {
    let live = [turn_started("t1"), ask("c1", &["db"])];
    let all: Vec<Event> = live.iter().cloned().chain(hark_core::session::repairs_needed(&live)).collect();
    let t = transcript(load, &all);
    assert_eq!(t.turns[0].ended.as_ref().map(|e| e.reason.as_str()), Some("interrupted"));
    match &t.turns[0].items[0] {
        TranscriptItem::ToolCall { result, question, .. } => {
            assert_eq!(result.as_ref().map(|r| &r.outcome), Some(&ToolOutcome::Unknown));
            assert_eq!(question.as_ref().map(|q| q.state), Some(QuestionState::Continued));
        }
        other => panic!("expected the tool row, got {other:?}"),
    }
}

fn serializes_with_kind_tags(load: Load) {
    let t = transcript(load, &[turn_started("t1"), user("m1", "hi"), ask("c1", &["db"])]);
    let json = serde_json::to_value(&t).unwrap();
    let items = &json["turns"][0]["items"];
    assert_eq!(items[0]["kind"], "user_message");
    assert_eq!(items[1]["kind"], "tool_call");
    assert_eq!(items[1]["question"]["state"], "open");
    assert_eq!(json["questions"][0]["call_id"], "c1");
}

fn a_compaction_is_an_item_of_its_turn(load: Load) {
    let compacted =
        Event::HistoryCompacted { through_seq: 4, summary: Some("they said hi".into()), window_tokens: 32_768 };
    let events = [turn_started("t1"), user("m1", "hi"), turn_ended("t1", "completed"), turn_started("t2"), compacted];
    let t = transcript(load, &events);
    assert_eq!(kinds(&t.turns[1].items), ["compacted"]);
    let json = serde_json::to_value(&t.turns[1].items[0]).unwrap();
    let at = json["at"].clone();
    assert!(at.is_string());
    assert_eq!(
        json,
        json!({ "kind": "history_compacted", "seq": 6, "at": at, "through_seq": 4, "summary": "they said hi" })
    );
    let left_out = Event::HistoryCompacted { through_seq: 3, summary: None, window_tokens: 32_768 };
    let t = transcript(load, &[turn_started("t1"), left_out]);
    assert_eq!(serde_json::to_value(&t.turns[0].items[0]).unwrap()["summary"], json!(null));
}

macro_rules! both {
    ($($rule:ident),* $(,)?) => {
        mod in_memory {
            $( #[test] fn $rule() { super::$rule(super::in_memory) } )*
        }
        mod from_disk {
            $( #[test] fn $rule() { super::$rule(super::from_disk) } )*
        }
    };
}

both!(
    groups_items_by_turn,
    pairs_tool_calls_with_their_results,
    late_answer_is_shown_as_answers_and_on_the_tool_row,
    unreadable_late_answer_keeps_its_raw_text,
    pasted_reply_json_stays_a_plain_message,
    queued_reply_answers_show_on_the_tool_row,
    queued_messages_are_listed_until_admitted,
    events_outside_turns_get_a_turn_of_their_own,
    interrupted_turn_shows_its_end,
    serializes_with_kind_tags,
    a_compaction_is_an_item_of_its_turn,
);
