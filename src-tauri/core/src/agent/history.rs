//! The one place that turns a session log into the conversation the model sees. A reopened session
//! rebuilds exactly what the model saw before, because every step built it this same way.
//!
//! Strict servers (OpenAI, DeepSeek) refuse a request in which a tool message does not directly
//! follow the assistant message that made the call, or a call has no result. The log does not
//! promise that order: crash repair appends lost results at its end, and a failed append can leave a
//! call without one. So results are placed here, not taken in log order.

use std::collections::{HashMap, VecDeque};

use crate::model::{ChatMessage, ToolCallRequest};
use crate::session::{Event, StoredEvent, ToolOutcome};

/// What the model reads for a call whose result was lost when the previous run died.
pub const UNKNOWN_OUTCOME_TEXT: &str = "TOOL_OUTCOME_UNKNOWN: Hark stopped while this tool call was running, so \
its outcome is unknown. If it was ask_user_question, the question stays open: a late answer arrives as a user \
message carrying `answer_to_pending_question`. Do not assume any other effect happened; check before relying on it.";

/// How the model's own summary of compacted turns is introduced.
const SUMMARY_INTRO: &str = "[Earlier turns of this conversation were summarised to fit the model's context. \
The summary:]";

/// What stands for compacted turns when the model could not summarise them.
const LEFT_OUT_INTRO: &str = "[Earlier turns of this conversation were left out to fit the model's context. \
The conversation began with this request:]";

/// How much of the session's first request stands for compacted turns without a summary.
const FIRST_REQUEST_BYTES: usize = 4096;

/// One message of the conversation, with the `seq` of the event it came from (for a tool message
/// standing in for a missing result, its assistant message's).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Entry {
    pub seq: u64,
    pub message: ChatMessage,
}

/// Raw arguments as the model produced them: a recorded string is text that was not valid JSON.
fn raw_arguments(arguments: &serde_json::Value) -> String {
    match arguments {
        serde_json::Value::String(raw) => raw.clone(),
        other => other.to_string(),
    }
}

/// The text of a recorded tool result.
pub fn outcome_text(outcome: &ToolOutcome) -> String {
    match outcome {
        ToolOutcome::Ok { content } | ToolOutcome::Pending { content } => content.clone(),
        ToolOutcome::Error { error } => error.to_string(),
        ToolOutcome::Unknown => UNKNOWN_OUTCOME_TEXT.to_string(),
    }
}

/// The conversation recorded in `events`: user messages (including admitted late answers) and
/// assistant messages in log order, each assistant message directly followed by one tool message
/// per call in call order. A call without a recorded result reads as [`UNKNOWN_OUTCOME_TEXT`]; a
/// result no call claims is left out. After a `history/compacted`, the turns it covers are one user
/// message holding their summary.
pub fn history(events: &[StoredEvent]) -> Vec<ChatMessage> {
    entries(events).into_iter().map(|e| e.message).collect()
}

/// Events of one call id in log order, with their index in the log; taken front first.
type Queue<'a> = VecDeque<(usize, &'a StoredEvent)>;

/// The first event in `queue` recorded after `index`. Earlier ones are passed over for good: the
/// messages are walked in log order, so no later message could claim them either.
fn take_after<'a>(queue: Option<&mut Queue<'a>>, index: usize) -> Option<&'a StoredEvent> {
    let queue = queue?;
    while queue.front().is_some_and(|(i, _)| *i < index) {
        queue.pop_front();
    }
    queue.pop_front().map(|(_, stored)| stored)
}

/// [`history`] with each message's source `seq`, for fitting a request and choosing what to compact.
pub(super) fn entries(events: &[StoredEvent]) -> Vec<Entry> {
    let mut out = Vec::new();
    let compacted = latest_compaction(events);
    let mut live = events;
    if let Some((through_seq, summary)) = compacted {
        live = &events[events.partition_point(|e| e.seq <= through_seq)..];
        if live.len() < events.len() {
            out.push(Entry { seq: through_seq, message: ChatMessage::user(compacted_text(events, summary)) });
        }
    }
    // A call id can repeat in logs written before ids were made unique, so each id keeps a queue and
    // an assistant message claims the first call and result recorded after it: the same pairing
    // crash repair uses.
    let mut calls: HashMap<&str, Queue> = HashMap::new();
    let mut results: HashMap<&str, Queue> = HashMap::new();
    for (i, stored) in live.iter().enumerate() {
        match &stored.event {
            Event::ToolCall { call_id, .. } => calls.entry(call_id).or_default().push_back((i, stored)),
            Event::ToolResult { call_id, .. } => results.entry(call_id).or_default().push_back((i, stored)),
            _ => {}
        }
    }
    for (i, stored) in live.iter().enumerate() {
        let seq = stored.seq;
        match &stored.event {
            Event::UserMessage { text, .. } => out.push(Entry { seq, message: ChatMessage::user(text.clone()) }),
            Event::AssistantMessage { text, reasoning, tool_calls, .. } => {
                let made: Vec<ToolCallRequest> = tool_calls
                    .iter()
                    .filter_map(|id| match &take_after(calls.get_mut(id.as_str()), i)?.event {
                        Event::ToolCall { name, arguments, .. } => Some(ToolCallRequest {
                            id: id.clone(),
                            name: name.clone(),
                            arguments: raw_arguments(arguments),
                        }),
                        _ => None,
                    })
                    .collect();
                let answers: Vec<Entry> = made
                    .iter()
                    .map(|call| {
                        let (seq, text) = match take_after(results.get_mut(call.id.as_str()), i) {
                            Some(StoredEvent { seq, event: Event::ToolResult { outcome, .. }, .. }) => {
                                (*seq, outcome_text(outcome))
                            }
                            _ => (seq, UNKNOWN_OUTCOME_TEXT.to_string()),
                        };
                        Entry { seq, message: ChatMessage::tool(call.id.clone(), text) }
                    })
                    .collect();
                let message =
                    ChatMessage::Assistant { content: text.clone(), reasoning: reasoning.clone(), tool_calls: made };
                out.push(Entry { seq, message });
                out.extend(answers);
            }
            Event::SessionCreated { .. }
            | Event::RequestHeader { .. }
            | Event::TurnStarted { .. }
            | Event::ToolCall { .. }
            | Event::ToolResult { .. }
            | Event::InboxQueued { .. }
            | Event::InboxDiscarded { .. }
            | Event::TurnEnded { .. }
            | Event::ModelError { .. }
            | Event::HistoryCompacted { .. } => {}
            // An event only a newer build understands is not part of what this build tells the model.
            Event::Unknown { .. } => {}
        }
    }
    out
}

/// The last compaction's `through_seq` and summary.
fn latest_compaction(events: &[StoredEvent]) -> Option<(u64, Option<&str>)> {
    events.iter().rev().find_map(|e| match &e.event {
        Event::HistoryCompacted { through_seq, summary, .. } => Some((*through_seq, summary.as_deref())),
        _ => None,
    })
}

/// The window the last compaction found, if any.
pub(super) fn compacted_window(events: &[StoredEvent]) -> Option<u64> {
    events.iter().rev().find_map(|e| match &e.event {
        Event::HistoryCompacted { window_tokens, .. } => Some(*window_tokens),
        _ => None,
    })
}

/// What the model reads in place of compacted turns: their summary, or else the session's first
/// request (shortened), so the model still knows what it was asked to do.
fn compacted_text(events: &[StoredEvent], summary: Option<&str>) -> String {
    if let Some(summary) = summary {
        return format!("{SUMMARY_INTRO}\n{summary}");
    }
    let first = events.iter().find_map(|e| match &e.event {
        Event::UserMessage { text, .. } => Some(text.as_str()),
        _ => None,
    });
    format!("{LEFT_OUT_INTRO}\n{}", shorten(first.unwrap_or_default(), FIRST_REQUEST_BYTES))
}

/// `text` cut to at most about `max` bytes on a character boundary, saying so when it was cut.
pub(super) fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n[Hark shortened this message from {} bytes to fit the model's context.]", &text[..cut], text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn log(events: Vec<Event>) -> Vec<StoredEvent> {
        let at = chrono::Utc::now();
        let stored = |(i, event)| StoredEvent { session_id: "s".into(), seq: i as u64 + 1, at, event };
        events.into_iter().enumerate().map(stored).collect()
    }

    fn user(text: &str) -> Event {
        Event::UserMessage { message_id: text.into(), text: text.into(), source: None }
    }

    fn calls(text: &str, ids: &[&str]) -> Vec<Event> {
        let message = Event::AssistantMessage {
            text: text.into(),
            reasoning: None,
            tool_calls: ids.iter().map(|id| id.to_string()).collect(),
            usage: None,
        };
        let made =
            ids.iter().map(|id| Event::ToolCall { call_id: id.to_string(), name: "t".into(), arguments: json!({}) });
        std::iter::once(message).chain(made).collect()
    }

    fn result(id: &str, content: &str) -> Event {
        Event::ToolResult { call_id: id.into(), outcome: ToolOutcome::Ok { content: content.into() } }
    }

    /// Each message as `role:content`, with the call ids of an assistant message.
    fn shape(messages: &[ChatMessage]) -> Vec<String> {
        messages
            .iter()
            .map(|m| match m {
                ChatMessage::System { content } => format!("system:{content}"),
                ChatMessage::User { content } => format!("user:{content}"),
                ChatMessage::Assistant { content, tool_calls, .. } => {
                    let ids: Vec<&str> = tool_calls.iter().map(|c| c.id.as_str()).collect();
                    format!("assistant:{content}{ids:?}")
                }
                ChatMessage::Tool { call_id, content } => format!("tool:{call_id}={content}"),
            })
            .collect()
    }

    #[test]
    fn results_follow_their_call_in_call_order_wherever_they_were_recorded() {
        let mut events = vec![user("go")];
        events.extend(calls("a", &["c1", "c2"]));
        events.extend([
            result("c2", "two"),
            user("more"),
            Event::AssistantMessage { text: "b".into(), reasoning: None, tool_calls: vec![], usage: None },
        ]);
        // Crash repair appends the lost result at the end of the log.
        events.push(result("c1", "one"));
        assert_eq!(
            shape(&history(&log(events))),
            ["user:go", "assistant:a[\"c1\", \"c2\"]", "tool:c1=one", "tool:c2=two", "user:more", "assistant:b[]"]
        );
    }

    #[test]
    fn a_call_without_a_result_reads_as_unknown_and_a_result_without_a_call_is_dropped() {
        let mut events = vec![user("go"), result("ghost", "from nowhere")];
        events.extend(calls("", &["c1"]));
        events.push(user("next"));
        let shaped = shape(&history(&log(events)));
        assert_eq!(shaped, ["user:go", "assistant:[\"c1\"]", &format!("tool:c1={UNKNOWN_OUTCOME_TEXT}"), "user:next"]);
    }

    #[test]
    fn a_duplicated_result_is_sent_once_and_the_first_one_counts() {
        let mut events = vec![user("go")];
        events.extend(calls("", &["c1"]));
        events
            .extend([result("c1", "first"), Event::ToolResult { call_id: "c1".into(), outcome: ToolOutcome::Unknown }]);
        events.push(user("next"));
        assert_eq!(shape(&history(&log(events))), ["user:go", "assistant:[\"c1\"]", "tool:c1=first", "user:next"]);
    }

    #[test]
    fn an_id_reused_by_a_later_step_of_an_old_log_pairs_each_call_with_its_own_result() {
        let mut events = vec![user("go")];
        events.extend(calls("a", &["call_0"]));
        events.push(result("call_0", "first"));
        events.extend(calls("b", &["call_0"]));
        events.push(result("call_0", "second"));
        assert_eq!(
            shape(&history(&log(events))),
            [
                "user:go",
                "assistant:a[\"call_0\"]",
                "tool:call_0=first",
                "assistant:b[\"call_0\"]",
                "tool:call_0=second"
            ]
        );
    }
}
