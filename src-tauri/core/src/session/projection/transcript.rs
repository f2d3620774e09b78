//! What the chat view renders after a restart: turns of items, rebuilt from the event log.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::inbox::InboxFold;
use super::questions::{recorded_questions, QuestionFold, QuestionRecord};
use crate::error::BoundaryError;
use crate::question::{AnswerBatch, FormOutcome, Question};
use crate::session::events::{Event, ModelRef, StoredEvent, ToolOutcome, TurnEndReason};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Transcript {
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub model: Option<ModelRef>,
    /// The outside agent whose questions this session holds (a `hark mcp` client), if it is one.
    pub client: Option<String>,
    /// The front door that started the session, when another than the one the person works in.
    pub started_by: Option<String>,
    pub turns: Vec<Turn>,
    /// Older turns left out by [`Transcript::keep_last_turns`]; 0 when `turns` is the whole session.
    pub earlier_turns: usize,
    /// The question projection of the same events, for badges and the question panel. Always the
    /// whole session's, also when older turns are left out.
    pub questions: Vec<QuestionRecord>,
    /// Messages accepted for the agent and not admitted yet, in the order they were queued: a
    /// `user_message` the person typed, or a `late_answer` (also shown on its call's row as
    /// `queued_answers`). `seq`/`at` are those of the `inbox/queued` event. Once admitted, a message
    /// leaves this list and appears in its turn under the same `message_id`.
    pub queued: Vec<TranscriptItem>,
    /// The `seq` of the last event this transcript includes (0 when unknown): a window applies only
    /// the [`TranscriptDelta`]s of later events to it.
    pub seq: u64,
}

impl Transcript {
    /// Keeps the newest `n` turns: a long session is shown from its end, and a window asks for
    /// more as the person scrolls back, instead of rendering a hundred thousand events at once.
    pub fn keep_last_turns(&mut self, n: usize) {
        let drop = self.turns.len().saturating_sub(n);
        if drop > 0 {
            self.turns.drain(..drop);
            self.earlier_turns += drop;
        }
    }
}

/// Items between a `turn/started` and its `turn/ended`. Items recorded outside any turn are grouped
/// in a turn whose `turn_id` is `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Turn {
    pub turn_id: Option<String>,
    pub run_id: Option<String>,
    pub started_at: DateTime<Utc>,
    pub ended: Option<TurnEnd>,
    pub items: Vec<TranscriptItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct TurnEnd {
    pub reason: TurnEndReason,
    pub seq: u64,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptItem {
    UserMessage {
        seq: u64,
        at: DateTime<Utc>,
        message_id: String,
        text: String,
    },
    /// A late answer, shown as answers rather than its JSON text. `raw_text` is set only when the
    /// recorded text cannot be read as a late answer, so nothing is lost.
    LateAnswer {
        seq: u64,
        at: DateTime<Utc>,
        message_id: String,
        call_id: String,
        questions: Vec<Question>,
        answers: Option<AnswerBatch>,
        raw_text: Option<String>,
    },
    AssistantMessage {
        seq: u64,
        at: DateTime<Utc>,
        text: String,
        reasoning: Option<String>,
        tool_calls: Vec<String>,
    },
    ToolCall {
        seq: u64,
        at: DateTime<Utc>,
        call_id: String,
        name: String,
        /// As the model wrote them: any JSON.
        #[ts(type = "unknown")]
        arguments: serde_json::Value,
        /// The `run_code` call whose script made this call, for a call a script made.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        parent_call_id: Option<String>,
        result: Option<ToolResultView>,
        /// For `ask_user_question` and `submit_plan` calls still in the question projection: its final state, including
        /// a late answer that settled it after its own result said pending. (Boxed because most calls
        /// have none, and the item stays small.)
        question: Option<Box<QuestionRecord>>,
        /// The answers of a late reply waiting in the inbox for admission.
        queued_answers: Option<AnswerBatch>,
    },
    /// A result whose call is not in the log (kept visible rather than dropped).
    OrphanResult {
        seq: u64,
        at: DateTime<Utc>,
        call_id: String,
        outcome: ToolOutcome,
    },
    ModelError {
        seq: u64,
        at: DateTime<Utc>,
        error: BoundaryError,
    },
    /// An MCP server the turn could not start; the turn ran without its tools.
    McpUnavailable {
        seq: u64,
        at: DateTime<Utc>,
        server: String,
        error: BoundaryError,
    },
    /// An MCP server's form and how the person ended it.
    McpForm {
        seq: u64,
        at: DateTime<Utc>,
        server: String,
        message: String,
        questions: Vec<Question>,
        outcome: FormOutcome,
    },
    /// Earlier turns were summarised (or, with no `summary`, left out) to fit the model's context:
    /// the model no longer reads the events up to `through_seq` themselves. They stay in the log
    /// and in this transcript.
    HistoryCompacted {
        seq: u64,
        at: DateTime<Utc>,
        through_seq: u64,
        summary: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ToolResultView {
    pub seq: u64,
    pub at: DateTime<Utc>,
    pub outcome: ToolOutcome,
}

/// One change to a shown transcript, so a window that shows a session follows it without reading
/// it again. Turn indexes count from the session's first turn, whatever page the window holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TranscriptDelta {
    /// A turn began; `value.items` is empty.
    TurnOpened {
        turn: usize,
        value: Turn,
    },
    TurnClosed {
        turn: usize,
        ended: TurnEnd,
    },
    /// An item was added at `item`, the turn's length before it.
    ItemAdded {
        turn: usize,
        item: usize,
        value: TranscriptItem,
    },
    /// The tool call at (`turn`, `item`) got its result.
    Result {
        turn: usize,
        item: usize,
        result: ToolResultView,
    },
    /// A call's question record, or the late answer waiting for it, changed: the `tool_call` item
    /// with `call_id` (wherever it is) and the transcript's `questions` take them.
    Call {
        call_id: String,
        question: Option<QuestionRecord>,
        queued_answers: Option<AnswerBatch>,
    },
    /// The messages waiting for the agent, replacing the transcript's `queued`.
    Queued {
        queued: Vec<TranscriptItem>,
    },
}

/// Builds the transcript of a session log.
pub fn project_transcript(events: &[StoredEvent]) -> Transcript {
    let mut fold = TranscriptFold::whole();
    let mut questions = QuestionFold::new();
    let mut inbox = InboxFold::new();
    for stored in events {
        questions.apply_stored(stored);
        inbox.apply(stored);
        fold.add(stored, &questions, None);
    }
    let mut transcript = fold.finish(&questions, &inbox, None);
    transcript.seq = events.last().map_or(0, |e| e.seq);
    transcript
}

/// Where an item is: its turn (counted within the fold) and its index there.
type Place = (usize, usize);

/// What kind of transcript a [`TranscriptFold`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Keep {
    /// Every turn with its items.
    Whole,
    /// Turns from some turn on: results of calls made before it are not shown as orphans.
    Page,
    /// Only the latest turn's items: what a live session needs to say what changed, at the memory
    /// cost of one turn however long the session is.
    Tail,
}

/// The transcript of a log, one event at a time. [`project_transcript`] folds a whole log with it;
/// a live session keeps the tail of one and reports each change as [`TranscriptDelta`]s; a page of
/// the newest turns is folded from where they begin. The folds of questions and the inbox are the
/// caller's, applied to each event before it is added here, so every view shares them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TranscriptFold {
    keep: Keep,
    title: Option<String>,
    workspace: Option<String>,
    model: Option<ModelRef>,
    #[serde(default)]
    client: Option<String>,
    #[serde(default)]
    started_by: Option<String>,
    /// Turns before the first one held (a page's offset).
    offset: usize,
    turns: Vec<Turn>,
    /// Whether the last turn still takes items.
    current_open: bool,
    /// Where each call's item is; a tail keeps only calls still waiting for their result.
    calls: HashMap<String, Place>,
    /// How many items a tail's latest turn has (a tail holds no items: a window that follows the
    /// session is told of each as it is added, and reads pages from the store).
    tail_items: usize,
    /// The answers of queued late answers by message id, to show on the call's row while they wait.
    reply_answers: HashMap<String, AnswerBatch>,
}

impl TranscriptFold {
    fn new(keep: Keep, offset: usize) -> Self {
        TranscriptFold {
            keep,
            title: None,
            workspace: None,
            model: None,
            client: None,
            started_by: None,
            offset,
            turns: Vec::new(),
            current_open: false,
            calls: HashMap::new(),
            tail_items: 0,
            reply_answers: HashMap::new(),
        }
    }

    pub fn whole() -> Self {
        Self::new(Keep::Whole, 0)
    }

    pub fn tail() -> Self {
        Self::new(Keep::Tail, 0)
    }

    /// A page whose first turn is the session's turn `offset` (counting from 0).
    pub fn page(offset: usize) -> Self {
        Self::new(Keep::Page, offset)
    }

    /// How many turns the session has so far (the pages before included).
    pub fn turn_count(&self) -> usize {
        self.offset + self.turns.len()
    }

    pub fn add(&mut self, stored: &StoredEvent, questions: &QuestionFold, out: Option<&mut Vec<TranscriptDelta>>) {
        let (seq, at) = (stored.seq, stored.at);
        match &stored.event {
            Event::SessionCreated { title, workspace, model, client, started_by } => {
                self.title = Some(title.clone());
                self.workspace = workspace.clone();
                self.model = model.clone();
                self.client = client.clone();
                self.started_by = started_by.clone();
            }
            // A returned answer already shows on its row as answered late.
            // A withdrawal shows on its question's row (the record says it).
            Event::RequestHeader { .. }
            | Event::AnswersReturned { .. }
            | Event::ClientAsked { .. }
            | Event::QuestionWithdrawn { .. } => {}
            Event::TurnStarted { turn_id, run_id } => {
                let turn = Turn {
                    turn_id: Some(turn_id.clone()),
                    run_id: Some(run_id.clone()),
                    started_at: at,
                    ended: None,
                    items: Vec::new(),
                };
                self.open_turn(turn, out);
            }
            Event::TurnEnded { turn_id, reason } => {
                let found = self.turns.iter().rposition(|t| t.turn_id.as_deref() == Some(turn_id));
                if let Some(t) = found {
                    let ended = TurnEnd { reason: *reason, seq, at };
                    self.turns[t].ended = Some(ended.clone());
                    if let Some(out) = out {
                        out.push(TranscriptDelta::TurnClosed { turn: self.offset + t, ended });
                    }
                }
                self.current_open = false;
            }
            Event::UserMessage { message_id, text, source } => {
                let reply = source.as_ref().and_then(|s| s.reply_call_id());
                if reply.is_some() {
                    self.reply_answers.remove(message_id);
                }
                match reply {
                    Some(call_id) => {
                        let answers = source.as_ref().and_then(|s| s.reply_answers(text));
                        let item = self.late_answer(questions, (seq, at), message_id, call_id, text, answers);
                        self.push(at, || item, out);
                    }
                    None => {
                        let item = || TranscriptItem::UserMessage {
                            seq,
                            at,
                            message_id: message_id.clone(),
                            text: text.clone(),
                        };
                        self.push(at, item, out);
                    }
                };
            }
            Event::AssistantMessage { text, reasoning, tool_calls, .. } => {
                let item = || TranscriptItem::AssistantMessage {
                    seq,
                    at,
                    text: text.clone(),
                    reasoning: reasoning.clone(),
                    tool_calls: tool_calls.clone(),
                };
                self.push(at, item, out);
            }
            Event::ToolCall { call_id, name, arguments } => {
                self.call(stored, questions, None, (call_id, name, arguments), out)
            }
            Event::PtcDispatch { parent_call_id, call_id, name, arguments } => {
                self.call(stored, questions, Some(parent_call_id), (call_id, name, arguments), out)
            }
            Event::ToolResult { call_id, outcome } | Event::PtcResult { call_id, outcome } => {
                let result = ToolResultView { seq, at, outcome: outcome.clone() };
                self.pair_result(at, call_id, result, out);
            }
            Event::InboxQueued { message_id, text, source } => {
                if let Some(answers) = source.reply_answers(text) {
                    self.reply_answers.insert(message_id.clone(), answers);
                }
            }
            Event::InboxDiscarded { message_id, .. } => {
                self.reply_answers.remove(message_id);
            }
            Event::ModelError { error } => {
                self.push(at, || TranscriptItem::ModelError { seq, at, error: error.clone() }, out);
            }
            Event::McpUnavailable { server, error } => {
                let item = || TranscriptItem::McpUnavailable { seq, at, server: server.clone(), error: error.clone() };
                self.push(at, item, out);
            }
            Event::McpForm { server, message, questions, outcome } => {
                let item = || TranscriptItem::McpForm {
                    seq,
                    at,
                    server: server.clone(),
                    message: message.clone(),
                    questions: questions.clone(),
                    outcome: outcome.clone(),
                };
                self.push(at, item, out);
            }
            Event::HistoryCompacted { through_seq, summary, .. } => {
                let item = || TranscriptItem::HistoryCompacted {
                    seq,
                    at,
                    through_seq: *through_seq,
                    summary: summary.clone(),
                };
                self.push(at, item, out);
            }
            // Nothing to show for an event only a newer build understands.
            Event::Unknown { .. } => {}
        }
    }

    /// A tool call's row: one the model made, or one its `run_code` script made (`parent`).
    fn call(
        &mut self,
        stored: &StoredEvent,
        questions: &QuestionFold,
        parent: Option<&String>,
        (call_id, name, arguments): (&String, &String, &serde_json::Value),
        out: Option<&mut Vec<TranscriptDelta>>,
    ) {
        let (seq, at) = (stored.seq, stored.at);
        let item = || TranscriptItem::ToolCall {
            seq,
            at,
            call_id: call_id.clone(),
            name: name.clone(),
            arguments: arguments.clone(),
            parent_call_id: parent.cloned(),
            result: None,
            // What a window is sent now; a whole projection fills in the final state.
            question: questions.get(call_id).cloned().map(Box::new),
            queued_answers: None,
        };
        let place = self.push(at, item, out);
        self.calls.entry(call_id.clone()).or_insert(place);
    }

    fn open_turn(&mut self, turn: Turn, out: Option<&mut Vec<TranscriptDelta>>) {
        self.tail_items = 0;
        let index = self.offset + self.turns.len();
        if let Some(out) = out {
            out.push(TranscriptDelta::TurnOpened { turn: index, value: turn.clone() });
        }
        self.turns.push(turn);
        self.current_open = true;
    }

    /// A late answer, recognised by its source only (a user pasting the same JSON stays a plain
    /// message); `answers` as its source says them.
    fn late_answer(
        &self,
        questions: &QuestionFold,
        (seq, at): (u64, DateTime<Utc>),
        message_id: &str,
        call_id: &str,
        text: &str,
        answers: Option<AnswerBatch>,
    ) -> TranscriptItem {
        let questions = self.call_questions(questions, call_id).unwrap_or_default();
        TranscriptItem::LateAnswer {
            seq,
            at,
            message_id: message_id.to_string(),
            call_id: call_id.to_string(),
            questions,
            raw_text: answers.is_none().then(|| text.to_string()),
            answers,
        }
    }

    fn call_questions(&self, questions: &QuestionFold, call_id: &str) -> Option<Vec<Question>> {
        if let Some(record) = questions.get(call_id) {
            return Some(record.questions.clone());
        }
        let &(t, i) = self.calls.get(call_id)?;
        match self.turns.get(t)?.items.get(i)? {
            TranscriptItem::ToolCall { arguments, .. } => recorded_questions(arguments),
            _ => None,
        }
    }

    fn pair_result(
        &mut self,
        at: DateTime<Utc>,
        call_id: &str,
        result: ToolResultView,
        out: Option<&mut Vec<TranscriptDelta>>,
    ) {
        if let Some(&(t, i)) = self.calls.get(call_id) {
            if self.keep == Keep::Tail {
                // Paired for good: a second result with this id is an orphan, as it is in a whole fold.
                self.calls.remove(call_id);
                if let Some(out) = out {
                    out.push(TranscriptDelta::Result { turn: self.offset + t, item: i, result });
                }
                return;
            }
            if let TranscriptItem::ToolCall { result: slot @ None, .. } = &mut self.turns[t].items[i] {
                *slot = Some(result);
                return;
            }
        } else if self.keep == Keep::Page {
            // Its call is on an earlier page (or nowhere); a page does not show it.
            return;
        }
        let item = || TranscriptItem::OrphanResult {
            seq: result.seq,
            at,
            call_id: call_id.to_string(),
            outcome: result.outcome,
        };
        self.push(at, item, out);
    }

    /// Adds an item to the current turn, or to a turn of its own when no turn is running. A tail
    /// only counts the items of its turn, so `make` runs only when someone is told of the item.
    fn push(
        &mut self,
        at: DateTime<Utc>,
        make: impl FnOnce() -> TranscriptItem,
        out: Option<&mut Vec<TranscriptDelta>>,
    ) -> Place {
        let mut out = out;
        if !self.current_open {
            let turn = Turn { turn_id: None, run_id: None, started_at: at, ended: None, items: Vec::new() };
            self.open_turn(turn, out.as_deref_mut());
        }
        let t = self.turns.len() - 1;
        let turn = self.offset + t;
        if self.keep == Keep::Tail {
            let i = self.tail_items;
            self.tail_items += 1;
            if let Some(out) = out {
                out.push(TranscriptDelta::ItemAdded { turn, item: i, value: make() });
            }
            return (t, i);
        }
        let item = make();
        let i = self.turns[t].items.len();
        if let Some(out) = out {
            out.push(TranscriptDelta::ItemAdded { turn, item: i, value: item.clone() });
        }
        self.turns[t].items.push(item);
        (t, i)
    }

    /// The late answer waiting for `call_id`'s question, as answers.
    fn queued_answers(&self, record: Option<&QuestionRecord>) -> Option<AnswerBatch> {
        record.and_then(|r| r.reply_queued.as_ref()).and_then(|m| self.reply_answers.get(m)).cloned()
    }

    /// The change of `call_id`'s question, for a window.
    pub fn call_delta(&self, questions: &QuestionFold, call_id: &str) -> TranscriptDelta {
        let record = questions.get(call_id);
        TranscriptDelta::Call {
            call_id: call_id.to_string(),
            question: record.cloned(),
            queued_answers: self.queued_answers(record),
        }
    }

    /// The messages waiting for the agent, as the transcript shows them.
    pub fn queued(&self, questions: &QuestionFold, inbox: &InboxFold) -> Vec<TranscriptItem> {
        inbox
            .waiting(questions)
            .map(|m| match m.source.reply_call_id() {
                Some(call_id) => {
                    let answers = m.source.reply_answers(&m.text);
                    self.late_answer(questions, (m.seq, m.at), &m.message_id, call_id, &m.text, answers)
                }
                None => TranscriptItem::UserMessage {
                    seq: m.seq,
                    at: m.at,
                    message_id: m.message_id.clone(),
                    text: m.text.clone(),
                },
            })
            .collect()
    }

    /// The transcript, with every call's question in its final state. `texts` are the waiting
    /// late answers' texts when this fold did not see them queued (a page folds only its turns).
    pub fn finish(
        mut self,
        questions: &QuestionFold,
        inbox: &InboxFold,
        replies: Option<&HashMap<String, AnswerBatch>>,
    ) -> Transcript {
        if let Some(replies) = replies {
            for (id, answers) in replies {
                self.reply_answers.entry(id.clone()).or_insert_with(|| answers.clone());
            }
        }
        let updates: Vec<(Place, Option<QuestionRecord>, Option<AnswerBatch>)> = self
            .calls
            .iter()
            .map(|(call_id, &place)| {
                let record = questions.get(call_id);
                (place, record.cloned(), self.queued_answers(record))
            })
            .collect();
        for ((t, i), record, answers) in updates {
            if let Some(TranscriptItem::ToolCall { question, queued_answers, .. }) =
                self.turns.get_mut(t).and_then(|turn| turn.items.get_mut(i))
            {
                *queued_answers = answers;
                *question = record.map(Box::new);
            }
        }
        let queued = self.queued(questions, inbox);
        Transcript {
            title: self.title,
            workspace: self.workspace,
            model: self.model,
            client: self.client,
            started_by: self.started_by,
            turns: self.turns,
            earlier_turns: self.offset,
            questions: questions.records().cloned().collect(),
            queued,
            seq: 0,
        }
    }

    /// The answers of late answers waiting in the inbox, by message id.
    pub fn reply_answers(&self) -> &HashMap<String, AnswerBatch> {
        &self.reply_answers
    }

    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    pub fn workspace(&self) -> Option<&str> {
        self.workspace.as_deref()
    }

    pub fn model(&self) -> Option<&ModelRef> {
        self.model.as_ref()
    }

    pub fn client(&self) -> Option<&str> {
        self.client.as_deref()
    }

    pub fn started_by(&self) -> Option<&str> {
        self.started_by.as_deref()
    }
}
