//! The one place that turns a session log into the conversation the model sees. A reopened session
//! rebuilds exactly what the model saw before, because every step built it this same way.
//!
//! Strict servers (OpenAI, DeepSeek) refuse a request in which a tool message does not directly
//! follow the assistant message that made the call, or a call has no result. The log does not
//! promise that order: crash repair appends lost results at its end, and a failed append can leave a
//! call without one. So results are placed here, not taken in log order.

mod call_ids;
pub(crate) mod tokens;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

pub(crate) use self::call_ids::CallIds;
use self::tokens::Shape;
use crate::model::{ChatMessage, ToolCallRequest};
use crate::session::{Event, StoredEvent, ToolOutcome};

/// What the model reads for a call whose result was lost when the previous run died.
pub const UNKNOWN_OUTCOME_TEXT: &str = "TOOL_OUTCOME_UNKNOWN: Hark stopped while this tool call was running, so \
its outcome is unknown. If it was ask_user_question or submit_plan, the question stays open: a late answer arrives as a user \
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
pub(crate) struct Entry {
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
        ToolOutcome::Ok { content, .. } | ToolOutcome::Pending { content, .. } => content.clone(),
        // The model gets the whole `{name, code, message}`: the code is what it can act on.
        ToolOutcome::Error { error } => serde_json::to_string(error).unwrap_or_else(|_| error.message.clone()),
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

/// [`history`] with each message's source `seq`, for fitting a request and choosing what to compact.
pub(crate) fn entries(events: &[StoredEvent]) -> Vec<Entry> {
    let mut fold = HistoryFold::keeping(usize::MAX);
    for stored in events {
        fold.apply(stored);
    }
    fold.kept().entries
}

/// A made call of an assistant message and, once recorded, its result (`seq`, text).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct MadeCall {
    call: ToolCallRequest,
    result: Option<(u64, String)>,
}

/// What a slot says, while it is kept in memory.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Content {
    User(String),
    /// `calls[i]` is the call the message claimed at position `i`, once a `tool/call` made it. The
    /// model's reasoning is not kept: providers do not send it back (the transcript shows it).
    Assistant {
        text: String,
        calls: Vec<Option<MadeCall>>,
    },
}

/// A user message, or an assistant message with its calls and their results: the unit the
/// conversation grows and is cut by. Slots older than what requests can hold forget their content
/// and keep only their size, so a long session costs memory for its newest turns only.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Slot {
    seq: u64,
    user: bool,
    tokens: usize,
    messages: usize,
    /// Boxed: most slots of a long session have let their content go, and then take no room for it.
    content: Option<Box<Content>>,
    /// The messages as requests share them, made on first use after each change.
    #[serde(skip)]
    shared: OnceLock<Vec<Arc<ChatMessage>>>,
}

impl Slot {
    fn new(seq: u64, content: Content) -> Slot {
        let user = matches!(content, Content::User(_));
        let mut slot =
            Slot { seq, user, tokens: 0, messages: 0, content: Some(Box::new(content)), shared: OnceLock::new() };
        slot.measure();
        slot
    }

    fn is_user(&self) -> bool {
        self.user
    }

    fn entries(&self) -> Vec<Entry> {
        match self.content.as_deref() {
            None => Vec::new(),
            Some(Content::User(text)) => vec![Entry { seq: self.seq, message: ChatMessage::user(text.clone()) }],
            Some(Content::Assistant { text, calls }) => {
                let made: Vec<&MadeCall> = calls.iter().flatten().collect();
                let mut out = Vec::with_capacity(made.len() + 1);
                let message = ChatMessage::Assistant {
                    content: text.clone(),
                    reasoning: None,
                    tool_calls: made.iter().map(|m| m.call.clone()).collect(),
                };
                out.push(Entry { seq: self.seq, message });
                out.extend(made.iter().map(|m| {
                    let (seq, text) = match &m.result {
                        Some((seq, text)) => (*seq, text.clone()),
                        None => (self.seq, UNKNOWN_OUTCOME_TEXT.to_string()),
                    };
                    Entry { seq, message: ChatMessage::tool(m.call.id.clone(), text) }
                }));
                out
            }
        }
    }

    /// What fitting reads of each of [`entries`](Self::entries), without copying them.
    fn each_shape(&self, mut f: impl FnMut(Shape)) {
        match self.content.as_deref() {
            None => {}
            Some(Content::User(text)) => f(Shape::user(text.len())),
            Some(Content::Assistant { text, calls, .. }) => {
                f(Shape::assistant(text.len(), calls.iter().flatten().map(|m| &m.call)));
                for m in calls.iter().flatten() {
                    let bytes = m.result.as_ref().map_or(UNKNOWN_OUTCOME_TEXT.len(), |(_, text)| text.len());
                    f(Shape::tool(&m.call.id, bytes));
                }
            }
        }
    }

    /// The messages, shared.
    fn shared(&self) -> &[Arc<ChatMessage>] {
        self.shared.get_or_init(|| self.entries().into_iter().map(|e| Arc::new(e.message)).collect())
    }

    /// Recounts tokens and messages after the content changed, and forgets the shared messages.
    fn measure(&mut self) {
        self.shared = OnceLock::new();
        let (mut tokens, mut messages) = (0, 0);
        self.each_shape(|shape| {
            tokens += shape.tokens();
            messages += 1;
        });
        self.tokens = tokens;
        self.messages = messages;
    }
}

/// The conversation of a session, built one event at a time, so a live session never reads its log
/// back to make a request. This fold is the one rule for what the model reads: [`entries`] is this
/// fold over a whole log, so a reopened session rebuilds exactly what it sent before.
///
/// A call id can repeat in logs written before ids were made unique, so an assistant message claims
/// the first call with each id recorded after it, and each made call the first result after it:
/// the same pairing crash repair uses. Results are placed after their call wherever they were
/// logged (crash repair appends them at the end).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct HistoryFold {
    slots: Vec<Slot>,
    /// Claims of assistant messages waiting for their `tool/call`: id → (slot, position), oldest first.
    claims: HashMap<String, VecDeque<(usize, usize)>>,
    /// Made calls waiting for their result: id → (slot, position), oldest first.
    awaiting: HashMap<String, VecDeque<(usize, usize)>>,
    /// The session's first request, for compacted turns the model could not summarise.
    first_request: Option<String>,
    /// The window the last compaction found, if any.
    compacted_window: Option<u64>,
    /// Tokens of content to keep; see [`HistoryFold::keeping`].
    keep: usize,
    /// The first slot after the head that is still kept; slots between the head and it are sizes only.
    kept_from: usize,
    /// Tokens of the slots from `kept_from` on.
    kept_tokens: usize,
    /// Messages of the slots whose content was let go.
    forgotten_messages: usize,
    /// The shapes of the kept messages (see [`shapes`](Self::shapes)), once asked for, then kept up
    /// to date as the fold grows: a long session keeps thousands of messages, and every step plans
    /// over them.
    #[serde(skip)]
    kept_shapes: OnceLock<Vec<Shape>>,
}

/// What a request can be built from: the conversation's head (its opening message), a count of
/// messages left out after it, and the newest turns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Kept {
    pub entries: Vec<Entry>,
    /// Messages between the head (`entries[0]`) and the rest that are no longer in memory.
    pub left_out: usize,
}

impl HistoryFold {
    /// A fold that keeps the content of the newest `keep` tokens or so (whole turns, and the
    /// opening message). Once the kept turns exceed `keep` by a quarter, the oldest of them are let
    /// go until `keep` is met again: in steps, so the start of what requests hold stays put for a
    /// while (servers cache a request's prefix), and by the log alone, so a reopened session keeps
    /// the same turns as the run that wrote it.
    pub fn keeping(keep: usize) -> HistoryFold {
        HistoryFold {
            slots: Vec::new(),
            claims: HashMap::new(),
            awaiting: HashMap::new(),
            first_request: None,
            compacted_window: None,
            keep,
            kept_from: 0,
            kept_tokens: 0,
            forgotten_messages: 0,
            kept_shapes: OnceLock::new(),
        }
    }

    pub fn compacted_window(&self) -> Option<u64> {
        self.compacted_window
    }

    pub fn apply(&mut self, stored: &StoredEvent) {
        let seq = stored.seq;
        match &stored.event {
            Event::UserMessage { text, .. } => {
                if self.first_request.is_none() {
                    self.first_request = Some(shorten(text, FIRST_REQUEST_BYTES));
                }
                self.push(Slot::new(seq, Content::User(text.clone())));
            }
            Event::AssistantMessage { text, tool_calls, .. } => {
                let index = self.slots.len();
                for (position, id) in tool_calls.iter().enumerate() {
                    self.claims.entry(id.clone()).or_default().push_back((index, position));
                }
                let content = Content::Assistant { text: text.clone(), calls: vec![None; tool_calls.len()] };
                self.push(Slot::new(seq, content));
            }
            Event::ToolCall { call_id, name, arguments } => {
                let Some((slot, position)) = pop(&mut self.claims, call_id) else { return };
                let call =
                    ToolCallRequest { id: call_id.clone(), name: name.clone(), arguments: raw_arguments(arguments) };
                if self.change(slot, |calls| calls[position] = Some(MadeCall { call, result: None })) {
                    self.awaiting.entry(call_id.clone()).or_default().push_back((slot, position));
                }
            }
            Event::ToolResult { call_id, outcome } => {
                let Some((slot, position)) = pop(&mut self.awaiting, call_id) else { return };
                let text = outcome_text(outcome);
                self.change(slot, |calls| {
                    if let Some(made) = &mut calls[position] {
                        made.result = Some((seq, text));
                    }
                });
            }
            Event::HistoryCompacted { through_seq, summary, window_tokens } => {
                self.compacted_window = Some(*window_tokens);
                self.compact(*through_seq, summary.as_deref());
            }
            Event::SessionCreated { .. }
            | Event::RequestHeader { .. }
            | Event::TurnStarted { .. }
            | Event::InboxQueued { .. }
            | Event::InboxDiscarded { .. }
            | Event::TurnEnded { .. }
            | Event::ModelError { .. }
            | Event::McpUnavailable { .. }
            | Event::McpForm { .. }
            | Event::AnswersReturned { .. }
            | Event::ClientAsked { .. }
            | Event::QuestionWithdrawn { .. }
            // A script's own calls: the model reads the script's result, not them.
            | Event::PtcDispatch { .. }
            | Event::PtcResult { .. } => {}
            // An event only a newer build understands is not part of what this build tells the model.
            Event::Unknown { .. } => {}
        }
    }

    fn head_len(&self) -> usize {
        usize::from(self.slots.first().is_some_and(Slot::is_user))
    }

    fn push(&mut self, slot: Slot) {
        let tokens = slot.tokens;
        if let Some(shapes) = self.kept_shapes.get_mut() {
            slot.each_shape(|shape| shapes.push(shape));
        }
        self.slots.push(slot);
        if self.slots.len() == 1 && self.slots[0].is_user() {
            // The head is kept apart from the turns after it.
            self.kept_from = 1;
            return;
        }
        self.kept_tokens += tokens;
        self.let_go();
    }

    /// Changes the calls of an assistant slot and recounts it. False when the slot's content was
    /// already let go: its size then grows by a result it no longer holds, which only shifts where
    /// older turns are cut.
    fn change(&mut self, index: usize, edit: impl FnOnce(&mut Vec<Option<MadeCall>>)) -> bool {
        let last = index + 1 == self.slots.len();
        let Some(slot) = self.slots.get_mut(index) else { return false };
        let Some(Content::Assistant { calls, .. }) = slot.content.as_deref_mut() else { return false };
        let (before, messages_before) = (slot.tokens, slot.messages);
        edit(calls);
        slot.measure();
        let after = slot.tokens;
        match self.kept_shapes.get_mut() {
            // The newest message's results are what changes as a step runs: its shapes end the list.
            Some(shapes) if last => {
                shapes.truncate(shapes.len() - messages_before);
                slot.each_shape(|shape| shapes.push(shape));
            }
            // An older one (crash repair, an old log's late result) is rare: count again when asked.
            Some(_) => self.kept_shapes = OnceLock::new(),
            None => {}
        }
        if index >= self.kept_from {
            self.kept_tokens = self.kept_tokens - before + after;
        }
        self.let_go();
        true
    }

    /// Lets go of the oldest kept turns once they exceed `keep` by a quarter (see [`keeping`]).
    ///
    /// [`keeping`]: HistoryFold::keeping
    fn let_go(&mut self) {
        if self.kept_tokens <= self.keep.saturating_add(self.keep / 4) {
            return;
        }
        // Whole turns only: the cut lands on a user message, never after the latest one.
        let Some(latest) = self.slots.iter().rposition(Slot::is_user) else { return };
        let mut cut = self.kept_from;
        let mut tokens = self.kept_tokens;
        let mut i = self.kept_from;
        while i < latest && tokens > self.keep {
            tokens -= self.slots[i].tokens;
            i += 1;
            if self.slots[i].is_user() {
                cut = i;
            }
        }
        let cut_tokens: usize = self.slots[self.kept_from..cut].iter().map(|s| s.tokens).sum();
        // The kept shapes begin with the head's, then the turns being let go.
        let head = self.slots[..self.head_len()].iter().map(|s| s.messages).sum::<usize>();
        let gone = self.slots[self.kept_from..cut].iter().map(|s| s.messages).sum::<usize>();
        if let Some(shapes) = self.kept_shapes.get_mut() {
            shapes.drain(head..head + gone);
        }
        for slot in &mut self.slots[self.kept_from..cut] {
            self.forgotten_messages += slot.messages;
            slot.content = None;
            slot.shared = OnceLock::new();
        }
        self.kept_tokens -= cut_tokens;
        self.kept_from = cut;
    }

    /// Replaces the turns up to `through_seq` with one user message holding their summary, or else
    /// the session's first request (shortened), so the model still knows what it was asked to do.
    fn compact(&mut self, through_seq: u64, summary: Option<&str>) {
        if through_seq == 0 {
            return;
        }
        let cut = self.slots.partition_point(|s| s.seq <= through_seq);
        let text = match summary {
            Some(summary) => format!("{SUMMARY_INTRO}\n{summary}"),
            None => format!("{LEFT_OUT_INTRO}\n{}", self.first_request.as_deref().unwrap_or_default()),
        };
        let rest: Vec<Slot> = self.slots.drain(cut..).collect();
        for queues in [&mut self.claims, &mut self.awaiting] {
            for queue in queues.values_mut() {
                queue.retain(|(slot, _)| *slot >= cut);
                for (slot, _) in queue.iter_mut() {
                    *slot = *slot - cut + 1;
                }
            }
            queues.retain(|_, q| !q.is_empty());
        }
        // Slots already let go stay so: they are the oldest of what remains.
        let forgotten = rest.iter().take_while(|s| s.content.is_none()).count();
        self.forgotten_messages = rest[..forgotten].iter().map(|s| s.messages).sum();
        self.kept_tokens = rest[forgotten..].iter().map(|s| s.tokens).sum();
        self.kept_from = 1 + forgotten;
        self.slots = std::iter::once(Slot::new(through_seq, Content::User(text))).chain(rest).collect();
        self.kept_shapes = OnceLock::new();
        self.let_go();
    }

    /// The slots a request is built from: the head, then the kept turns.
    fn kept_slots(&self) -> impl Iterator<Item = &Slot> {
        let head = self.head_len();
        self.slots[..head].iter().chain(&self.slots[self.kept_from.max(head)..])
    }

    /// The shapes of the messages [`kept`](Self::kept) holds, without copying them, and how many
    /// messages after the head are no longer held.
    pub(crate) fn shapes(&self) -> (&[Shape], usize) {
        (self.kept_shapes.get_or_init(|| self.count_shapes()), self.forgotten_messages)
    }

    /// The shapes of the kept messages, counted afresh.
    fn count_shapes(&self) -> Vec<Shape> {
        let mut out = Vec::with_capacity(self.kept_slots().map(|s| s.messages).sum());
        for slot in self.kept_slots() {
            slot.each_shape(|shape| out.push(shape));
        }
        out
    }

    /// The messages [`kept`](Self::kept) holds with their index there, visiting none in `skip`
    /// (which must hold whole slots, as whole turns do).
    pub(crate) fn messages_outside(
        &self,
        skip: std::ops::Range<usize>,
    ) -> impl Iterator<Item = (usize, &Arc<ChatMessage>)> + '_ {
        let mut at = 0;
        self.kept_slots().flat_map(move |slot| {
            let start = at;
            at += slot.messages;
            let skipped = skip.contains(&start) && at <= skip.end;
            let messages: &[Arc<ChatMessage>] = if skipped { &[] } else { slot.shared() };
            messages.iter().enumerate().map(move |(i, m)| (start + i, m))
        })
    }

    /// The head and the kept turns, as messages.
    pub fn kept(&self) -> Kept {
        let head = self.head_len();
        let mut entries: Vec<Entry> = self.slots[..head].iter().flat_map(Slot::entries).collect();
        for slot in &self.slots[self.kept_from.max(head)..] {
            entries.extend(slot.entries());
        }
        Kept { entries, left_out: self.forgotten_messages }
    }
}

fn pop(queues: &mut HashMap<String, VecDeque<(usize, usize)>>, id: &str) -> Option<(usize, usize)> {
    let queue = queues.get_mut(id)?;
    let first = queue.pop_front();
    if queue.is_empty() {
        queues.remove(id);
    }
    first
}

/// `text` cut to at most about `max` bytes on a character boundary, saying so when it was cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
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
        Event::ToolResult { call_id: id.into(), outcome: ToolOutcome::ok(content) }
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
    fn the_shapes_kept_up_to_date_step_by_step_are_the_shapes_counted_afresh() {
        let mut events = vec![user("go")];
        for turn in 0..60 {
            let (a, b) = (format!("a{turn}"), format!("b{turn}"));
            events.extend(calls(&"x".repeat(300), &[&a, &b]));
            events.push(result(&b, &"y".repeat(500)));
            if turn % 7 == 3 {
                // A late result for an older call, as crash repair appends it.
                events.push(result(&format!("a{}", turn - 1), "late"));
            }
            if turn % 7 != 2 {
                events.push(result(&a, &"z".repeat(200)));
            }
            events.push(user(&format!("more {turn}")));
            if turn == 40 {
                events.push(Event::HistoryCompacted { through_seq: 50, summary: None, window_tokens: 9_000 });
            }
        }
        // Small enough that older turns are let go many times over.
        let mut fold = HistoryFold::keeping(2_000);
        let mut forgotten = false;
        for stored in log(events) {
            fold.apply(&stored);
            assert_eq!(fold.shapes().0, fold.count_shapes().as_slice(), "after seq {}", stored.seq);
            forgotten |= fold.shapes().1 > 0;
        }
        assert!(forgotten, "the fold let turns go");
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
